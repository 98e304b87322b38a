#!/usr/bin/env bash
# Builds and checks the fl module in an ns-3.37 source tree (contrib/fl): only the ns-3 modules fl
# needs, every example at a tiny size, the GoogleTest suites through test.py and ctest,
# and appends a one-line result to doc/ns3-build-results.txt. Fetches nothing.
#
# Usage: utils/check-ns3.37.sh [NS3_SOURCE_DIR]   (default: $HOME/.cache/fl-ns3-src/ns3-3.37/ns-3.37)
# The Debian source package is the 3.37 reference: utils/check-in-tree-build.sh fetches it (apt-get
# source ns3) when it is missing, then runs this script.
# See utils/check-in-tree.sh for the steps and the environment (FL_BUILD_JOBS, FL_NICE, ...).
exec "$(dirname "$0")/check-in-tree.sh" --expect 3.37 "${1:-$HOME/.cache/fl-ns3-src/ns3-3.37/ns-3.37}"
