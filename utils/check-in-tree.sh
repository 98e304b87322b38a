#!/usr/bin/env bash
# Builds and checks the fl module inside an ns-3 source tree, as contrib/fl, and appends a
# one-line result to doc/ns3-build-results.txt. Fetches nothing.
#
# Usage: utils/check-in-tree.sh [--expect VERSION] NS3_SOURCE_DIR
#   NS3_SOURCE_DIR   an ns-3 source tree: CMake (./ns3, ns-3.36 and later) or waf (./waf, ns-3.35
#                    and earlier). The version is read from its VERSION file.
#   --expect VERSION stop (exit 2) unless the tree's VERSION file says VERSION; the per-release
#                    scripts (utils/check-ns3.<version>.sh) pass it.
# Steps:
#   1. copy the module's files (tracked, and new files not ignored) to NS3_SOURCE_DIR/contrib/fl;
#   2. configure ns-3 with only the modules fl needs (fl and its dependencies), examples and
#      tests of fl only, release profile, no Python bindings, warnings not errors;
#   3. build fl, its examples, its GoogleTest executables (and in CMake trees ns-3's
#      test-runner with fl's tests only), niced, with
#      ccache when installed (compiler launcher), FL_BUILD_JOBS parallel jobs (default 2);
#   4. run every example at a tiny size (examples/examples-tiny.txt) in a scratch folder;
#   5. run the GoogleTest suites: in CMake trees through test.py (suite fl-googletest) and ctest
#      (ctest-fl-test-*); in waf trees as programs (./waf --run fl-test-<suite>), since test.py's
#      test-runner would need every enabled module's tests built.
# Environment: FL_BUILD_JOBS (2), FL_NICE (15), FL_RESULTS (doc/ns3-build-results.txt),
#   CXX (g++), FL_WORK (scratch folder, default $TMPDIR/fl-in-tree-<version>),
#   FL_NS3_CXXFLAGS (C++ flags of the whole build, ns-3 and fl: CMAKE_CXX_FLAGS in CMake trees,
#   CXXFLAGS of waf configure; for a release's own compiler quirks; said in the result line;
#   check-ns3.46.sh sets one).
# The result line: date, ns-3 version, compiler, PASS/FAIL (and the failed step), minutes,
# the fl commit, and what ran.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
usage="usage: utils/check-in-tree.sh [--expect VERSION] NS3_SOURCE_DIR"
expect=""
if [ "${1:-}" = "--expect" ]; then
  expect=${2:?$usage}
  shift 2
fi
src=${1:?$usage}
[ -d "$src" ] || { echo "check-in-tree: $src: no such folder (NS3_SOURCE_DIR must be an ns-3 source tree)" >&2; exit 2; }
src=$(cd "$src" && pwd)
[ -f "$src/VERSION" ] || { echo "check-in-tree: $src has no VERSION file: not an ns-3 source tree" >&2; exit 2; }
version=$(head -1 "$src/VERSION" | tr -d '[:space:]')
if [ -n "$expect" ] && [ "$version" != "$expect" ]; then
  echo "check-in-tree: $src is not an ns-$expect source tree (VERSION: '${version:-none}')" >&2
  exit 2
fi
jobs=${FL_BUILD_JOBS:-2}
nice_level=${FL_NICE:-15}
results=${FL_RESULTS:-$here/doc/ns3-build-results.txt}
work=${FL_WORK:-${TMPDIR:-/tmp}/fl-in-tree-$version}
cxx=${CXX:-g++}
compiler=$("$cxx" --version | head -1 | sed -E 's/^([^ ]+) \(.*\) ([0-9.]+).*/\1 \2/')
commit=$(git -C "$here" rev-parse --short HEAD 2>/dev/null || echo unknown)
if ! git -C "$here" diff --quiet HEAD 2>/dev/null; then commit="$commit+changes"; fi
start=$(date +%s)
step="copy"
ran=""
flags_note=""
[ -z "${FL_NS3_CXXFLAGS:-}" ] || flags_note="; ns-3 and fl built with CXXFLAGS '$FL_NS3_CXXFLAGS'"

completed=0
finish() {
  local minutes=$(( ($(date +%s) - start + 30) / 60 ))
  local status="PASS"
  [ "$completed" = 1 ] || status="FAIL($step)"
  mkdir -p "$(dirname "$results")"
  printf '%s  ns-%s  %s  %s  %d min  fl@%s  %s\n' "$(date -u +%Y-%m-%d)" "$version" "$compiler" \
    "$status" "$minutes" "$commit" "${ran:-nothing ran}${flags_note}" | tee -a "$results"
}
trap finish EXIT
trap 'step="$step, interrupted"; exit 130' INT TERM

echo "check-in-tree: ns-$version at $src; module copied to contrib/fl"
rm -rf "$src/contrib/fl"
mkdir -p "$src/contrib/fl"
(cd "$here" && git ls-files -z --cached --others --exclude-standard |
  while IFS= read -r -d '' f; do [ -e "$f" ] && cp --parents "$f" "$src/contrib/fl"; done)

# Everything below reads the copy, not this checkout: the checkout may move on during the
# (long) build, and the examples' list must match the code that was built.
module="$src/contrib/fl"
tiny="$module/examples/examples-tiny.txt"

modules="fl;wifi;mesh;spectrum;internet;applications;mobility;flow-monitor;csma;bridge;point-to-point;lte;energy;stats;propagation;buildings;network;core"
# the wave module (802.11p) where the release has it (ns-3.35 to 3.38): the vehicular scene
if [ -d "$src/src/wave" ]; then modules="$modules;wave"; fi
examples=()
while read -r name args; do
  case "$name" in ''|'#'*) continue ;; esac
  examples+=("$name")
done < "$tiny"
# fl-fedavg-vehicular needs 802.11p (the wave module): it refuses, as it should, where the
# release has none (ns-3.39 and later); its tiny run is skipped there
has_wave() { [ -d "$src/src/wave" ]; }

# ns-3's CMake build uses ccache by itself when installed; the waf build gets it as CXX.
if command -v ccache >/dev/null; then
  export CCACHE_BASEDIR="$src"
fi

cd "$src"
if [ -x ./ns3 ]; then
  # ---------------------------------------------------------------- CMake trees (ns-3.36+)
  step="configure"
  python_flag=--disable-python
  ./ns3 configure --help 2>/dev/null | grep -q -- --disable-python-bindings && python_flag=--disable-python-bindings
  # After "--", ./ns3 configure hands the arguments to CMake. CMAKE_CXX_FLAGS is given every
  # time, empty too, so that a value cached by an earlier configure never outlives the variable.
  CXX="$cxx" ./ns3 configure --build-profile=release --enable-examples --enable-tests "$python_flag" \
    --disable-werror --filter-module-examples-and-tests=fl --enable-modules="$modules" \
    -- "-DCMAKE_CXX_FLAGS=${FL_NS3_CXXFLAGS:-}"
  step="build"
  # test-runner depends on fl's test library, which depends on the GoogleTest executables.
  nice -n "$nice_level" cmake --build cmake-cache -j "$jobs" --target "${examples[@]}" test-runner
  run_example() { ./ns3 run --no-build --cwd="$work" "$1 $2"; }
  run_testpy() { ./test.py --no-build --suite=fl-googletest; }
  run_ctest() {
    # ns-3.37 registers every program with CTest (ctest-<program>); later releases (3.48) leave
    # enable_testing() off, so there is nothing to run there: test.py ran the suites.
    if ctest --test-dir cmake-cache -N 2>/dev/null | grep -q 'Total Tests: 0'; then
      echo "no ctest: ns-$version registers no CTest tests (test.py ran the suites)"
      return 0
    fi
    ctest --test-dir cmake-cache --output-on-failure -j "$jobs" -R '^ctest-fl-test-'
  }
elif [ -x ./waf ]; then
  # ---------------------------------------------------------------- waf trees (ns-3.35 and older)
  # Python 3.11 runs ns-3.35's waf; GCC 12 warns where GCC 9/10 did not, hence --disable-werror.
  step="configure"
  waf_cxx="$cxx"
  if command -v ccache >/dev/null; then
    waf_cxx="ccache $cxx"
    # ccache's direct mode matches a source by the headers it read last time; it does not see
    # that a header now copied to build/ns3 shadows one it found later in the search path
    # (e.g. Debian's /usr/include/ns3), and serves objects compiled against the wrong release.
    # The preprocessor mode hashes what the compiler really sees.
    export CCACHE_NODIRECT=true
  fi
  # ns-3.35's boost check puts -I/usr/include ahead of the tree's own build/ns3 headers; on a
  # machine with Debian's libns3-dev (/usr/include/ns3, 3.37) the 3.35 build would then compile
  # against 3.37's headers and fail (src/network: "Queue redeclared with 2 template
  # parameters"). A folder holding only a link to boost keeps /usr/include out of the -I list.
  boost_inc="${work}-boost-include"
  mkdir -p "$boost_inc"
  ln -sfn /usr/include/boost "$boost_inc/boost"
  waf_env=(CXX="$waf_cxx")
  [ -z "${FL_NS3_CXXFLAGS:-}" ] || waf_env+=(CXXFLAGS="$FL_NS3_CXXFLAGS")
  env "${waf_env[@]}" ./waf configure --build-profile=release --enable-examples --enable-tests \
    --disable-werror --disable-python --enable-modules="fl$(has_wave && echo ',wave')" --boost-includes="$boost_inc"
  # Only fl's programs: --enable-examples/--enable-tests of a waf tree cover every enabled
  # module, and test.py's test-runner links every module's test library; building them would
  # triple the build. The GoogleTest programs run directly (./waf --run-no-build fl-test-<suite>);
  # `./waf build && ./test.py --suite=fl-googletest` runs them through test.py.
  step="build"
  suites=()
  # (the wscript builds the GoogleTest suites from FL_TESTS_MIN_NS3 on: 3.35)
  while read -r s; do [ -n "$s" ] && suites+=("fl-$s"); done < <(python3 -c '
import importlib.machinery, sys
ws = importlib.machinery.SourceFileLoader("ws", sys.argv[1] + "/wscript").load_module()
if ws.fl_ns3_version(sys.argv[2]) >= ws.FL_TESTS_MIN_NS3:
    print("\n".join(ws.fl_lists(sys.argv[1])["test_suites"]))' "$module" "$version")
  targets=$(IFS=,; echo "${examples[*]}${suites[*]:+,${suites[*]}}")
  nice -n "$nice_level" ./waf build -j "$jobs" --targets="$targets"
  # --run-no-build: `--run` first builds everything enabled (every module's tests and examples).
  run_example() { ./waf --run-no-build "$1 $2" --cwd="$work"; }
  run_testpy() {
    local s
    for s in "${suites[@]}"; do ./waf --run-no-build "$s --gtest_brief=1" --cwd="$work"; done
  }
  run_ctest() {
    if [ ${#suites[@]} -eq 0 ]; then echo "no ctest; GoogleTest suites need ns-3.36+, not built"
    else echo "no ctest; ${#suites[@]} GoogleTest programs ran"; fi
  }
else
  echo "check-in-tree: $src has neither ./ns3 nor ./waf" >&2
  exit 2
fi

step="examples"
rm -rf "$work"
mkdir -p "$work"
n=0
while read -r name args; do
  case "$name" in ''|'#'*) continue ;; esac
  if [ "$name" = fl-fedavg-vehicular ] && ! has_wave; then
    echo "check-in-tree: example $name skipped (ns-$version has no wave module: 802.11p)"
    n=$((n + 1))
    continue
  fi
  echo "check-in-tree: example $name $args"
  ran="examples $n/${#examples[@]} tiny before $name failed"
  run_example "$name" "$args"
  n=$((n + 1))
done < "$tiny"
ran="examples $n/${#examples[@]} tiny"

step="tests"
run_testpy
if [ -x ./ns3 ]; then ran="$ran; test.py fl-googletest ok"; else ran="$ran; ${#suites[@]} GoogleTest programs ok"; fi
step="ctest"
run_ctest > "$work/ctest.log" 2>&1 || { cat "$work/ctest.log"; exit 1; }
cat "$work/ctest.log"
summary=$(grep -Eo '[0-9]+ tests failed out of [0-9]+|no ctest.*' "$work/ctest.log" | tail -1 || true)
ran="$ran; ctest: ${summary:-?}"
step="done"
completed=1
echo "check-in-tree: OK"
