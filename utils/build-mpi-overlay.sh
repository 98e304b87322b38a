#!/usr/bin/env bash
# The quick MPI route for the standalone build: rebuilds only ns-3.37's mpi and point-to-point
# modules, with MPI, from the ns-3.37 source that Debian's packages are built from, into an
# overlay folder (libns3-mpi.so.37 and libns3-point-to-point.so.37 with Debian's sonames, their
# headers), for `cmake -DFL_MPI_OVERLAY=DIR`: fl-gfl-mpi is then built with MPI and finds the
# overlay's point-to-point library (the one with ns-3's remote point-to-point channel) ahead of
# Debian's through its run path; every other program and library keeps Debian's. About a minute
# of compiling, against the whole tree of utils/build-mpi-tree.sh (25 min or more).
#
# Usage: utils/build-mpi-overlay.sh [-h|--help]
# Environment: FL_MPI_OVERLAY (the overlay, default $HOME/.cache/fl-ns3-mpi/overlay),
#   FL_MPI_TREE (where the ns-3.37 source is fetched, as utils/build-mpi-tree.sh), FL_NICE (10).
# Then: cmake -S . -B build -DFL_MPI_OVERLAY=$HOME/.cache/fl-ns3-mpi/overlay && cmake --build
#   build --target fl-gfl-mpi && mpirun -np 2 build/examples/fl-gfl-mpi
set -euo pipefail
case "${1:-}" in
  -h|--help) sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
  '') ;;
  *) echo "build-mpi-overlay: unknown option '$1' (fix: see --help)" >&2; exit 2 ;;
esac
here=$(cd "$(dirname "$0")/.." && pwd)
overlay=${FL_MPI_OVERLAY:-$HOME/.cache/fl-ns3-mpi/overlay}
tree=${FL_MPI_TREE:-$HOME/.cache/fl-ns3-mpi/ns-3.37}
nice_level=${FL_NICE:-10}

command -v mpicxx >/dev/null && command -v mpirun >/dev/null || "$here/utils/setup-mpi.sh"
[ -f "$tree/VERSION" ] || FL_MPI_FETCH_ONLY=1 "$here/utils/build-mpi-tree.sh"
[ -f /usr/include/ns3/point-to-point-net-device.h ] ||
  { echo "build-mpi-overlay: Debian's ns-3 headers are missing (utils/install-deps.sh)" >&2; exit 1; }
installed=$(dpkg-query -W -f='${Version}' libns3-dev 2>/dev/null || true)
case "$installed" in
  3.37*) ;;
  *) echo "build-mpi-overlay: libns3-dev is '${installed:-not installed}', not 3.37: the overlay" \
          "must match Debian's ns-3 release" >&2; exit 1 ;;
esac

src="$tree/src"
stamp="$overlay/built-from.txt"
want="$(cd "$src" && cat mpi/model/*.cc mpi/model/*.h point-to-point/model/*.cc point-to-point/model/*.h point-to-point/helper/*.cc point-to-point/helper/*.h | md5sum | cut -d' ' -f1) $(mpicxx --showme:version 2>&1 | head -1)"
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ] &&
   [ -f "$overlay/lib/libns3-point-to-point.so.37" ]; then
  echo "build-mpi-overlay: up to date: $overlay"
  exit 0
fi
rm -rf "$overlay"
mkdir -p "$overlay/include/ns3" "$overlay/lib" "$overlay/obj"
cp "$src"/mpi/model/*.h "$src"/point-to-point/model/*.h "$src"/point-to-point/helper/*.h \
  "$overlay/include/ns3/"
read -r -a mpi_compile <<<"$(mpicxx --showme:compile)"
read -r -a mpi_link <<<"$(mpicxx --showme:link)"
cxx=(nice -n "$nice_level" g++ -O3 -DNDEBUG -fPIC -std=c++17 -DNS3_MPI -I"$overlay/include"
     -I/usr/include "${mpi_compile[@]}")
compile() { # objects of a module, two at a time
  local prefix=$1; shift
  local f
  for f in "$@"; do
    "${cxx[@]}" -c "$f" -o "$overlay/obj/$prefix-$(basename "$f" .cc).o" &
    while [ "$(jobs -rp | wc -l)" -ge 2 ]; do wait -n; done
  done
  wait
}
echo "build-mpi-overlay: ns-3.37's mpi module"
compile mpi "$src"/mpi/model/*.cc
g++ -shared -o "$overlay/lib/libns3-mpi.so.37" -Wl,-soname,libns3-mpi.so.37 "$overlay"/obj/mpi-*.o \
  -lns3-network -lns3-core "${mpi_link[@]}"
ln -sf libns3-mpi.so.37 "$overlay/lib/libns3-mpi.so"
echo "build-mpi-overlay: ns-3.37's point-to-point module with the remote channel"
compile p2p "$src"/point-to-point/model/*.cc "$src"/point-to-point/helper/*.cc
g++ -shared -o "$overlay/lib/libns3-point-to-point.so.37" -Wl,-soname,libns3-point-to-point.so.37 \
  "$overlay"/obj/p2p-*.o -L"$overlay/lib" -lns3-mpi -lns3-network -lns3-core "${mpi_link[@]}"
rm -rf "$overlay/obj"
echo "$want" > "$stamp"
echo "build-mpi-overlay: $overlay (cmake -DFL_MPI_OVERLAY=$overlay)"
