#!/usr/bin/env bash
# Sets up (Debian packages), builds (release, portable code) and runs the main job: FedAvg over
# 802.11n Wi-Fi with 10 clients on embedded synthetic data, then plots the learning curve.
# Extra arguments go to the example (see: build/examples/fl-fedavg-wifi --help).
set -euo pipefail
cd "$(dirname "$0")/.."
utils/install-deps.sh
jobs=$(nproc 2>/dev/null || echo 2)
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release
cmake --build build -j"$jobs" --target fl-fedavg-wifi
mkdir -p results
build/examples/fl-fedavg-wifi --output=results/fl-fedavg-wifi.csv "$@"
utils/plot-learning-curve.sh results/fl-fedavg-wifi.csv results/fl-fedavg-wifi.png
