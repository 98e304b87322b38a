#!/usr/bin/env bash
# Builds an ns-3.37 source tree configured with --enable-mpi (ns-3's mpi module against Debian's
# Open MPI) with this checkout linked in as contrib/fl, so that the distributed GFL run
# (examples/benchmarks/fl-gfl-mpi.cc) and its test (utils/test-mpi.sh) can be built. Debian's
# ns-3 packages have no mpi module: the standalone build of fl has no distributed run and says so.
#
# Usage: utils/build-mpi-tree.sh [TARGET...]
#   TARGET  CMake targets to build in the tree (default: fl-gfl-mpi, the distributed example).
# Steps (each skipped when already done, so a second run takes seconds):
#   1. install Debian's Open MPI (libopenmpi-dev openmpi-bin) when mpicxx or mpirun is missing
#      (utils/setup-mpi.sh);
#   2. fetch ns-3.37 into the cache: from a git clone of ns-3 given as FL_NS3_GIT (git archive
#      ns-3.37), otherwise Debian's source package (apt-get source ns3, as
#      utils/check-in-tree-build.sh does);
#   3. link this checkout as contrib/fl (a symbolic link: edits here rebuild there);
#   4. configure (only when the options changed): release profile, --enable-mpi, only the modules
#      fl needs plus mpi, fl's examples and tests only, no Python bindings;
#   5. build the targets, niced, FL_BUILD_JOBS parallel jobs; ns-3's CMake uses ccache by itself.
# Environment: FL_MPI_TREE (the tree, default $HOME/.cache/fl-ns3-mpi/ns-3.37), FL_NS3_GIT,
#   FL_BUILD_JOBS (2), FL_NICE (10); FL_MPI_FETCH_ONLY=1 stops after step 2 (used by
#   utils/build-mpi-overlay.sh, the quick route for the standalone build).
# Prints the tree's path on its last line ("tree: PATH").
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
tree=${FL_MPI_TREE:-$HOME/.cache/fl-ns3-mpi/ns-3.37}
jobs=${FL_BUILD_JOBS:-2}
nice_level=${FL_NICE:-10}
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(fl-gfl-mpi)

# 1. Open MPI
if ! command -v mpicxx >/dev/null || ! command -v mpirun >/dev/null; then
  "$here/utils/setup-mpi.sh"
fi

# 2. ns-3.37 source
if [ ! -f "$tree/VERSION" ]; then
  mkdir -p "$(dirname "$tree")"
  tmp="$tree.part"
  rm -rf "$tmp"
  mkdir -p "$tmp"
  if [ -n "${FL_NS3_GIT:-}" ]; then
    echo "build-mpi-tree: ns-3.37 from the git clone $FL_NS3_GIT"
    git -C "$FL_NS3_GIT" archive --prefix=ns-3.37/ ns-3.37 | tar -x -C "$tmp"
  else
    echo "build-mpi-tree: ns-3.37 from Debian's source package (apt-get source ns3)"
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
    (cd "$tmp" && apt-get source -qq ns3)
    mv "$tmp"/ns3-3.37/ns-3.37 "$tmp/ns-3.37"
  fi
  [ "$(head -1 "$tmp/ns-3.37/VERSION" | tr -d '[:space:]')" = 3.37 ] ||
    { echo "build-mpi-tree: the fetched tree is not ns-3.37" >&2; exit 1; }
  rm -rf "$tree"
  mv "$tmp/ns-3.37" "$tree"
  rm -rf "$tmp"
fi

[ -z "${FL_MPI_FETCH_ONLY:-}" ] || { echo "tree: $tree"; exit 0; }

# 3. this checkout as contrib/fl
if [ "$(readlink "$tree/contrib/fl" 2>/dev/null)" != "$here" ]; then
  rm -rf "$tree/contrib/fl"
  ln -s "$here" "$tree/contrib/fl"
fi

# 4. configure when the options changed
modules="fl;mpi;wifi;mesh;spectrum;internet;applications;mobility;flow-monitor;csma;bridge;point-to-point;lte;energy;stats;propagation;network;core"
options="--build-profile=release --enable-mpi --enable-examples --enable-tests --disable-python --disable-werror --filter-module-examples-and-tests=fl --enable-modules=$modules"
stamp="$tree/cmake-cache/fl-mpi-configure.txt"
cd "$tree"
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$options $here" ]; then
  # shellcheck disable=SC2086
  ./ns3 configure $options
  grep -q 'NS3_MPI:BOOL=ON' cmake-cache/CMakeCache.txt ||
    { echo "build-mpi-tree: ns-3 did not enable MPI (is libopenmpi-dev installed?)" >&2; exit 1; }
  echo "$options $here" > "$stamp"
fi

# 5. build
nice -n "$nice_level" cmake --build cmake-cache -j "$jobs" --target "${targets[@]}"
echo "tree: $tree"
