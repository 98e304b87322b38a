#!/usr/bin/env bash
# Sets up and builds like utils/run-main.sh, then runs the network-condition examples and plots
# them into results/: FedAvg over LTE, FedAvg over lossy UDP (loss 0-30 %, three hole policies),
# and FedAvg with heterogeneous devices (deadline sweep, two straggler policies).
# About a minute on two cores. Extra arguments go to every example.
set -euo pipefail
cd "$(dirname "$0")/.."
utils/install-deps.sh
jobs=$(nproc 2>/dev/null || echo 2)
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release
cmake --build build -j"$jobs" --target fl-fedavg-lte fl-fedavg-lossy fl-stragglers
mkdir -p results
build/examples/fl-fedavg-lte --quiet=1 --output=results/fl-fedavg-lte.csv "$@"
utils/plot-learning-curve.sh results/fl-fedavg-lte.csv results/fl-fedavg-lte.png
build/examples/fl-fedavg-lossy --output=results/fl-fedavg-lossy.csv "$@"
utils/plot-lossy.sh results/fl-fedavg-lossy.csv results/fl-fedavg-lossy.png
build/examples/fl-stragglers --output=results/fl-stragglers.csv "$@"
utils/plot-stragglers.sh results/fl-stragglers-rounds.csv results/fl-stragglers.png
