#!/usr/bin/env bash
# Builds and checks the fl module in an ns-3.35 source tree (contrib/fl): only the ns-3 modules fl
# needs, every example at a tiny size, the GoogleTest suites through test.py (waf),
# and appends a one-line result to doc/ns3-build-results.txt. Fetches nothing.
#
# Usage: utils/check-ns3.35.sh [NS3_SOURCE_DIR]   (default: $HOME/.cache/fl-ns3-src/ns-3.35)
# A source tree: git -C <ns-3-dev-git mirror> archive ns-3.35 | tar -x -C $HOME/.cache/fl-ns3-src/ns-3.35
# See utils/check-in-tree.sh for the steps and the environment (FL_BUILD_JOBS, FL_NICE, ...).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
src=${1:-$HOME/.cache/fl-ns3-src/ns-3.35}
found=$(head -1 "$src/VERSION" 2>/dev/null | tr -d '[:space:]' || true)
if [ "$found" != "3.35" ]; then
  echo "check-ns3.35: $src is not an ns-3.35 source tree (VERSION: '${found:-none}')" >&2
  exit 2
fi
exec "$here/check-in-tree.sh" "$src"
