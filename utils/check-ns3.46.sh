#!/usr/bin/env bash
# Builds and checks the fl module in an ns-3.46 source tree (contrib/fl): only the ns-3 modules fl
# needs, every example at a tiny size, the GoogleTest suites through test.py,
# and appends a one-line result to doc/ns3-build-results.txt. Fetches nothing.
#
# Usage: utils/check-ns3.46.sh [NS3_SOURCE_DIR]   (default: $HOME/.cache/fl-ns3-src/ns-3.46)
# A source tree: git -C <ns-3-dev-git mirror> archive ns-3.46 | tar -x -C $HOME/.cache/fl-ns3-src/ns-3.46
# (README: the three LTE fading traces a git archive of the GitHub mirror may lack).
# ns-3.46's own src/core/model/test.cc calls std::find without including <algorithm>, which
# GCC 12 (bookworm) does not bring in through other headers: ns-3 itself fails to build there.
# ns-3 fixed it after 3.46 (commit afb92d373, "core: Add missing algorithm header"); until then
# every file is compiled with -include algorithm (FL_NS3_CXXFLAGS; set it empty to build as is).
# See utils/check-in-tree.sh for the steps and the environment (FL_BUILD_JOBS, FL_NICE, ...).
export FL_NS3_CXXFLAGS="${FL_NS3_CXXFLAGS--include algorithm}"
exec "$(dirname "$0")/check-in-tree.sh" --expect 3.46 "${1:-$HOME/.cache/fl-ns3-src/ns-3.46}"
