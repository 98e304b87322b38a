#!/usr/bin/env bash
# Builds and checks the fl module in an ns-3.47 source tree (contrib/fl): only the ns-3 modules fl
# needs, every example at a tiny size, the GoogleTest suites through test.py,
# and appends a one-line result to doc/ns3-build-results.txt. Fetches nothing.
#
# Usage: utils/check-ns3.47.sh [NS3_SOURCE_DIR]   (default: $HOME/.cache/fl-ns3-src/ns-3.47)
# A source tree: git -C <ns-3-dev-git mirror> archive ns-3.47 | tar -x -C $HOME/.cache/fl-ns3-src/ns-3.47
# (README: the three LTE fading traces a git archive of the GitHub mirror may lack).
# See utils/check-in-tree.sh for the steps and the environment (FL_BUILD_JOBS, FL_NICE, ...).
exec "$(dirname "$0")/check-in-tree.sh" --expect 3.47 "${1:-$HOME/.cache/fl-ns3-src/ns-3.47}"
