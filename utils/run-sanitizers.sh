#!/usr/bin/env bash
# Builds the module and its test suites with AddressSanitizer + UndefinedBehaviorSanitizer
# (-DFL_SANITIZE=ON) in a separate directory and runs them with ctest. Any sanitizer report
# fails the test that triggered it (UBSan does not recover, LeakSanitizer is on).
# Usage: utils/run-sanitizers.sh [--pure] [extra ctest arguments]
#   (default)  every suite and example test, in build-sanitize/ (a full library build)
#   --pure     only the pure layers (learning, algorithms, privacy, net; no ns-3) and the suites
#              that need nothing else, in build-sanitize-pure/ (a few minutes; what CI runs)
set -euo pipefail
cd "$(dirname "$0")/.."
utils/install-deps.sh
dir=build-sanitize
options=(-DFL_SANITIZE=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo)
if [ "${1:-}" = "--pure" ]; then
  dir=build-sanitize-pure
  options+=(-DFL_PURE_ONLY=ON)
  shift
fi
# CMakeLists.txt compiles through ccache when it is installed (utils/install-deps.sh installs it).
jobs=$(nproc 2>/dev/null || echo 2)
cmake -S . -B "$dir" "${options[@]}"
cmake --build "$dir" -j"$jobs"
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:strict_string_checks=1:detect_stack_use_after_return=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
ctest --test-dir "$dir" --output-on-failure -j"$jobs" "$@"
