#!/usr/bin/env bash
# Runs the golden regression checks (ctest -R golden) under QEMU's user-mode emulation of other
# x86-64 CPU models, to show that the references hold on CPUs other than the build machine's:
# glibc sees the emulated CPU's features (with or without AVX, AVX2, FMA, AVX-512) and would pick
# other libm variants if the checks did not mask them (test/check-golden.py).
# Usage: utils/check-goldens-cpus.sh [BUILD_DIR] [CPU models...]
#   (default: build, and qemu64 Nehalem Haswell Skylake-Server EPYC). Needs qemu-user (Debian
#   package qemu-user); emulation is 10 to 30 times slower than the machine.
set -uo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
shift || true
models=("$@")
[ ${#models[@]} -gt 0 ] || models=(qemu64 Nehalem Haswell Skylake-Server EPYC)
command -v qemu-x86_64 >/dev/null || {
  echo "check-goldens-cpus: qemu-x86_64 not found (fix: apt-get install qemu-user)" >&2
  exit 2
}
failed=0
for m in "${models[@]}"; do
  out=$(FL_GOLDEN_WRAPPER="qemu-x86_64 -cpu $m" ctest --test-dir "$build" -R '^golden\.' -j2 2>&1)
  rc=$?
  echo "CPU model $m: $(echo "$out" | grep -E 'tests passed|tests failed' | tail -1)"
  if [ $rc -ne 0 ]; then
    failed=1
    echo "$out" | grep -E 'Failed|\*\*\*' | head -20
  fi
done
exit $failed
