#!/usr/bin/env bash
# Builds one example of an earlier commit of this module, for side-by-side measurements against
# the current build (fl-scale-benchmark --part=gfl --baselineGfl=...): the commit's files are
# exported (git archive) into a folder of their own and configured and built there, Release,
# with ccache when it is installed (the objects the two builds share come from its cache).
#
# Usage: utils/build-baseline.sh REV [TARGET]      (TARGET default fl-gfl)
# Environment: FL_BASELINE_DIR (default $HOME/.cache/fl-baseline/REV), FL_NICE (10).
# Prints the path of the built program on its last line.
set -euo pipefail
case "${1:-}" in
  -h|--help) sed -n '2,9p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
  '') echo "build-baseline: give a commit (fix: utils/build-baseline.sh REV, see --help)" >&2; exit 2 ;;
esac
here=$(cd "$(dirname "$0")/.." && pwd)
rev=$1
target=${2:-fl-gfl}
commit=$(git -C "$here" rev-parse --verify --quiet "$rev^{commit}") ||
  { echo "build-baseline: '$rev' is not a commit of this repository (fix: git log)" >&2; exit 2; }
dir=${FL_BASELINE_DIR:-$HOME/.cache/fl-baseline/$commit}
if [ ! -f "$dir/CMakeLists.txt" ]; then
  mkdir -p "$dir"
  git -C "$here" archive "$commit" | tar -x -C "$dir"
fi
launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$(dirname "$dir")}
cmake -S "$dir" -B "$dir/build" -DCMAKE_BUILD_TYPE=Release "${launcher[@]}" >/dev/null
nice -n "${FL_NICE:-10}" cmake --build "$dir/build" -j"$(nproc)" --target "$target" >/dev/null
program=$(find "$dir/build" -type f -name "$target" -perm -u+x | head -1)
[ -n "$program" ] || { echo "build-baseline: $target was not built in $dir/build" >&2; exit 1; }
echo "$program"
