#!/usr/bin/env bash
# The distributed GFL run gives the same learning results on 1, 2 and 4 ranks: runs fl-gfl-mpi
# of the MPI tree (utils/build-mpi-tree.sh) under mpirun with each rank count, lossless, and
# compares the CSVs rank 0 writes byte for byte, for both placements: the tracker's CSV (every
# server's model metrics and the simulated time of every round) and the network view's CSV (the
# GFL metrics per iteration and when it completed), the latter also against the GFL helper's
# own tracker in a one-process run of the same scene (--tracker=helper).
#
# Usage: utils/test-mpi.sh [--if-built] [--exe PROGRAM] [--ranks "1 2 4"] [fl-gfl-mpi flags...]
#   --if-built  run only if the MPI tree is built from this checkout and up to date; otherwise
#               say why and exit 77 (ctest: skipped). Without it the tree is built first.
#   --exe       run this fl-gfl-mpi (e.g. the standalone build's, with -DFL_MPI_OVERLAY) instead
#               of the tree's; exit 77 if it was built without MPI.
#   --ranks     rank counts to compare (default "1 2 4"; the first is the reference).
#   --check     only say whether the test would run (exit 0) or why not (exit 77).
#   flags       passed to fl-gfl-mpi (default: --servers=4 --clients=4 --sampled=2
#               --iterations=4 --cell=wifi).
# Environment: FL_MPI_TREE (as utils/build-mpi-tree.sh), FL_MPI_WORK (scratch folder).
# mpirun runs as root only with --allow-run-as-root: passed when this script runs as root.
# More ranks than cores are run with --oversubscribe.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
tree=${FL_MPI_TREE:-$HOME/.cache/fl-ns3-mpi/ns-3.37}
if_built=0
check=0
exe=""
ranks="1 2 4"
while [ $# -gt 0 ]; do
  case "$1" in
    --if-built) if_built=1; shift ;;
    --exe) exe=${2:?--exe needs a program}; shift 2 ;;
    --check) check=1; shift ;;
    --ranks) ranks=${2:?--ranks needs a list such as \"1 2 4\"}; shift 2 ;;
    -h|--help) sed -n '2,19p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) break ;;
  esac
done
flags=("$@")
[ ${#flags[@]} -gt 0 ] || flags=(--servers=4 --clients=4 --sampled=2 --iterations=4 --cell=wifi)

skip() { echo "test-mpi: SKIPPED: $*"; exit 77; }
if [ -n "$exe" ]; then
  command -v mpirun >/dev/null || skip "no mpirun (utils/setup-mpi.sh installs Open MPI)"
  "$exe" --servers=1 --clients=1 --sampled=1 --iterations=1 --output=/dev/null 2>&1 |
    grep -q "this build has no MPI" &&
    skip "$exe was built without MPI (utils/build-mpi-overlay.sh, then cmake -DFL_MPI_OVERLAY=DIR)"
elif [ "$if_built" = 1 ]; then
  command -v mpirun >/dev/null || skip "no mpirun (utils/setup-mpi.sh installs Open MPI)"
  [ -f "$tree/cmake-cache/build.ninja" ] ||
    skip "no MPI tree at $tree (utils/build-mpi-tree.sh builds it)"
  [ "$(readlink "$tree/contrib/fl" 2>/dev/null)" = "$here" ] ||
    skip "the MPI tree at $tree builds another checkout (utils/build-mpi-tree.sh relinks it)"
  plan=$(cd "$tree/cmake-cache" && ninja -n fl-gfl-mpi 2>&1) ||
    skip "the MPI tree has no fl-gfl-mpi target yet (utils/build-mpi-tree.sh configures it)"
  if grep -q 'Building\|Linking\|Re-running' <<<"$plan"; then
    skip "the MPI tree's fl-gfl-mpi is out of date (utils/build-mpi-tree.sh rebuilds it)"
  fi
elif [ "$check" = 0 ]; then
  "$here/utils/build-mpi-tree.sh" fl-gfl-mpi
fi
if [ "$check" = 1 ]; then
  echo "test-mpi: the distributed test runs (${exe:-fl-gfl-mpi of the MPI tree}; ranks $ranks)"
  exit 0
fi
[ -n "$exe" ] || exe=$(ls "$tree"/build/contrib/fl/examples/ns3*-fl-gfl-mpi* 2>/dev/null | head -1 || true)
[ -x "$exe" ] || { echo "test-mpi: no fl-gfl-mpi at '$exe' (utils/build-mpi-tree.sh)" >&2; exit 1; }

mpi_args=()
[ "$(id -u)" != 0 ] || mpi_args+=(--allow-run-as-root)
work=${FL_MPI_WORK:-$(mktemp -d "${TMPDIR:-/tmp}/fl-test-mpi.XXXXXX")}
mkdir -p "$work"
status=0
for placement in block round-robin; do
  ref=""
  for r in $ranks; do
    extra=()
    [ "$r" -le "$(nproc)" ] || extra+=(--oversubscribe)
    out="$work/gfl-$placement-$r.csv"
    echo "test-mpi: mpirun -np $r fl-gfl-mpi ${flags[*]} --placement=$placement"
    mpirun "${mpi_args[@]}" "${extra[@]}" -np "$r" "$exe" "${flags[@]}" \
      --placement="$placement" --output="$out" > "$work/gfl-$placement-$r.log" 2>&1 ||
      { cat "$work/gfl-$placement-$r.log"; echo "test-mpi: FAIL: $r ranks exited non-zero"; exit 1; }
    grep -E '^  (rank|Simulator)' "$work/gfl-$placement-$r.log" || true
    for f in "$out" "${out%.csv}-network.csv"; do
      rows=$(($(wc -l < "$f") - 1))
      [ "$rows" -gt 0 ] || { echo "test-mpi: FAIL: $f has no rows"; exit 1; }
    done
    if [ -z "$ref" ]; then
      ref=$out
      # the one-process network run of the same scene, its network view the helper's own
      helper="$work/gfl-$placement-helper.csv"
      mpirun "${mpi_args[@]}" -np 1 "$exe" "${flags[@]}" --placement="$placement" \
        --tracker=helper --output="$helper" \
        > "$work/gfl-$placement-helper.log" 2>&1 ||
        { cat "$work/gfl-$placement-helper.log"; echo "test-mpi: FAIL: --tracker=helper"; exit 1; }
      if cmp -s "${ref%.csv}-network.csv" "${helper%.csv}-network.csv" && cmp -s "$ref" "$helper"; then
        echo "test-mpi: $placement: the one-process run's helper tracker writes the same network view and CSV"
      else
        echo "test-mpi: FAIL: $placement: the helper's tracker differs from $r rank(s):"
        diff "${ref%.csv}-network.csv" "${helper%.csv}-network.csv" | head -20
        status=1
      fi
    else
      for suffix in .csv -network.csv; do
        a="${ref%.csv}$suffix"
        b="${out%.csv}$suffix"
        rows=$(($(wc -l < "$b") - 1))
        if cmp -s "$a" "$b"; then
          echo "test-mpi: $placement, $r ranks: the same $rows rows as $(basename "$a")"
        else
          echo "test-mpi: FAIL: $placement, $r ranks differ from $(basename "$a"):"
          diff "$a" "$b" | head -20
          status=1
        fi
      done
    fi
  done
done
[ "$status" = 0 ] && echo "test-mpi: PASS (ranks $ranks, both placements, tracker and network-view CSVs identical, also with the helper's tracker)"
exit "$status"
