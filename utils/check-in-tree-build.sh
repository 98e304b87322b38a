#!/usr/bin/env bash
# Verifies the in-tree build: puts this module into an ns-3.37 source tree as contrib/fl,
# configures ns-3 with examples and tests (only fl's), builds the fl library, its examples, its
# GoogleTest suites and ns-3's test-runner, runs two examples tiny, and runs the GoogleTest
# suites through ns-3's test.py (suite fl-googletest) and through ctest.
#
# Usage: utils/check-in-tree-build.sh [NS3_SOURCE_DIR]
#   NS3_SOURCE_DIR: an ns-3.37 source tree (the folder with the ./ns3 script). Without it, the
#   Debian source package is fetched into ${FL_NS3_SRC_CACHE:-$HOME/.cache/fl-ns3-src}
#   (this needs a deb-src entry for bookworm; the script adds one if none exists).
#   FL_BUILD_JOBS: parallel compile jobs (default: every core; ./ns3 build would leave one idle).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
src=${1:-}
if [ -z "$src" ]; then
  cache=${FL_NS3_SRC_CACHE:-$HOME/.cache/fl-ns3-src}
  src=$(ls -d "$cache"/ns3-3.37/ns-3.37 2>/dev/null || true)
  if [ -z "$src" ]; then
    if ! grep -rqs "^Types: deb-src" /etc/apt/sources.list.d/ && ! grep -qs "^deb-src" /etc/apt/sources.list; then
      cat > /etc/apt/sources.list.d/fl-debian-src.sources <<'SRC'
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: bookworm
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
    fi
    apt-get update -qq
    mkdir -p "$cache"
    (cd "$cache" && apt-get source -qq ns3)
    src="$cache/ns3-3.37/ns-3.37"
  fi
fi
[ -x "$src/ns3" ] || { echo "check-in-tree-build: $src is not an ns-3 source tree (no ./ns3)" >&2; exit 2; }

echo "check-in-tree-build: copying the module to $src/contrib/fl"
rm -rf "$src/contrib/fl"
mkdir -p "$src/contrib/fl"
# Copy the tracked files only (no build output).
(cd "$here" && git ls-files -z | xargs -0 cp --parents -t "$src/contrib/fl")

cd "$src"
./ns3 configure --build-profile=release --enable-examples --enable-tests --disable-python \
  --filter-module-examples-and-tests=fl \
  --enable-modules="fl;wifi;spectrum;internet;applications;mobility;flow-monitor;csma;point-to-point;lte;energy"
# test-runner depends on fl's test library, which depends on the GoogleTest executables.
cmake --build cmake-cache -j "${FL_BUILD_JOBS:-$(nproc)}" \
  --target libfl fl-fedavg-wifi fl-fedavg-lossy fl-stragglers test-runner
./ns3 run --no-build "fl-fedavg-wifi --clients=3 --rounds=3 --samplesPerClient=100 --testSamples=200 --output=/tmp/fl-in-tree.csv"
./ns3 run --no-build "fl-fedavg-lossy --clients=3 --rounds=3 --samplesPerClient=100 --testSamples=200 --losses=0.2 --output=/tmp/fl-in-tree-lossy.csv"
./test.py --no-build --suite=fl-googletest
ctest --test-dir cmake-cache --output-on-failure -R '^ctest-fl-test-'
echo "check-in-tree-build: OK"
