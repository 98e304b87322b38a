#!/usr/bin/env bash
# Sets up (Debian packages), builds (release, native code) and runs every test with ctest.
# Usage: utils/run-tests.sh [extra ctest arguments]
set -euo pipefail
cd "$(dirname "$0")/.."
utils/install-deps.sh
jobs=$(nproc 2>/dev/null || echo 2)
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release
cmake --build build -j"$jobs"
ctest --test-dir build --output-on-failure -j"$jobs" "$@"
