#!/usr/bin/env bash
# Sets up (Debian packages), builds (release, portable code) and runs every test with ctest.
# Usage: utils/run-tests.sh [extra ctest arguments]
set -euo pipefail
cd "$(dirname "$0")/.."
utils/install-deps.sh
jobs=$(nproc 2>/dev/null || echo 2)
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release
cmake --build build -j"$jobs"
# The distributed (MPI) test needs an MPI build (Debian's ns-3 has no mpi module): say whether
# ctest's mpi.ranks-identical will run or be skipped, and why.
mpi_args=(--if-built)
grep -q '^FL_MPI_OVERLAY:PATH=.' build/CMakeCache.txt && mpi_args=(--exe build/examples/fl-gfl-mpi)
echo "run-tests: $(bash utils/test-mpi.sh "${mpi_args[@]}" --check 2>&1 | tail -1)"
ctest --test-dir build --output-on-failure -j"$jobs" "$@"
