#!/usr/bin/env bash
# Verifies the in-tree build in Debian's ns-3.37 source (the 3.37 reference): fetches it with
# apt-get source when no tree is given and none is cached, then runs utils/check-ns3.37.sh
# (module as contrib/fl, only the needed modules, every example tiny, the GoogleTest suites
# through test.py and ctest, one result line in doc/ns3-build-results.txt).
#
# Usage: utils/check-in-tree-build.sh [NS3_SOURCE_DIR]
#   NS3_SOURCE_DIR: an ns-3.37 source tree (the folder with the ./ns3 script). Without it, the
#   Debian source package is fetched into ${FL_NS3_SRC_CACHE:-$HOME/.cache/fl-ns3-src}
#   (this needs a deb-src entry for bookworm; the script adds one if none exists).
#   FL_BUILD_JOBS, FL_NICE, ...: see utils/check-in-tree.sh.
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
exec "$here/utils/check-ns3.37.sh" "$src"
