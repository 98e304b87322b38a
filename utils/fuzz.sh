#!/usr/bin/env bash
# Builds the libFuzzer harnesses of fuzz/ (Debian's clang, with ASan + UBSan) and runs each for
# a given time, starting from its seed corpus fuzz/corpus/<harness>/ (new inputs go to
# build-fuzz/corpus/<harness>/, the checked-in corpus is not modified).
# Usage: utils/fuzz.sh [seconds per harness, default 60] [harness ...]   (default: every harness)
# Environment: CXX (default clang++), FL_FUZZ_DIR (default build-fuzz), FL_FUZZ_RUNS (stop each
# harness after this many inputs, e.g. 1000000, or at the time limit if that comes first).
# Prints the inputs executed per harness; exits 1 if a harness found a crash (the input is saved
# as build-fuzz/crash-<harness>-*; replay it with build-fuzz/fl-fuzz-<harness> <file>).
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-60}
shift || true
cxx=${CXX:-clang++}
out=${FL_FUZZ_DIR:-build-fuzz}
if ! command -v "$cxx" >/dev/null; then
  echo "fuzz: $cxx not found (Debian: apt-get install clang)" >&2
  exit 2
fi

# The decoders the harnesses reach: pure code, no ns-3.
sources=(
  model/net/model-message.cc model/net/payload-codec.cc model/net/message-reassembler.cc
  model/net/chunking.cc model/net/chunk-feedback.cc model/net/partial-message.cc
  model/learning/param-vector.cc model/learning/data-io.cc model/learning/dataset.cc
  model/learning/text-parse.cc model/algorithms/uplink-codec.cc
  model/algorithms/ega/ega-quantizer.cc model/algorithms/ega/ega-codec.cc
  model/algorithms/ega/ega-mlp-codec.cc model/algorithms/ega/ega-aggregate.cc
  model/algorithms/ega/ega-uplink-codec.cc model/privacy/secagg-primitives.cc
  model/privacy/shamir.cc model/privacy/secagg-graph.cc model/privacy/secagg-wire.cc
  model/privacy/secagg-client.cc model/privacy/secagg-server.cc model/privacy/secagg-run.cc
  model/privacy/secagg-config.cc model/privacy/secagg-beacon.cc model/runtime/rank-partition.cc
  model/algorithms/neighbour-discovery.cc
  fuzz/fl-fuzz-targets.cc
)
mkdir -p "$out/include/ns3" "$out/obj" "$out/corpus"
ln -sf "$PWD"/model/*/*.h "$PWD"/model/algorithms/ega/*.h "$out/include/ns3/"
flags=(-std=c++17 -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined
       -fno-sanitize-recover=undefined -DEIGEN_MAX_ALIGN_BYTES=64 -DEIGEN_MAX_STATIC_ALIGN_BYTES=64
       -I"$out/include" -Ifuzz -I/usr/include/eigen3)
objs=()
for src in "${sources[@]}"; do
  obj="$out/obj/$(basename "${src%.cc}").o"
  # Rebuilt when the source or any header is newer than the object.
  if [ ! -f "$obj" ] || [ -n "$(find "$src" model fuzz -name '*.h' -newer "$obj" -o -path "$src" -newer "$obj" | head -1)" ]; then
    echo "fuzz: compiling $src"
    "$cxx" "${flags[@]}" -fsanitize=fuzzer-no-link -c "$src" -o "$obj"
  fi
  objs+=("$obj")
done

if [ $# -gt 0 ]; then
  harnesses=("$@")
else
  harnesses=()
  for d in fuzz/corpus/*/; do harnesses+=("$(basename "$d")"); done
fi

runs_arg=()
if [ -n "${FL_FUZZ_RUNS:-}" ]; then
  runs_arg=(-runs="$FL_FUZZ_RUNS")
fi
status=0
summary=""
for h in "${harnesses[@]}"; do
  bin="$out/fl-fuzz-$h"
  "$cxx" "${flags[@]}" -fsanitize=fuzzer "-DFL_FUZZ_HARNESS=\"$h\"" fuzz/fl-fuzz-main.cc \
    "${objs[@]}" -lz -lsodium -o "$bin"
  mkdir -p "$out/corpus/$h"
  log="$out/fuzz-$h.log"
  echo "fuzz: running $h for ${secs}s${FL_FUZZ_RUNS:+ or $FL_FUZZ_RUNS inputs} (log: $log)"
  if "$bin" -max_total_time="$secs" "${runs_arg[@]}" -timeout=20 -rss_limit_mb=2048 \
       -print_final_stats=1 \
       -artifact_prefix="$out/crash-$h-" "$out/corpus/$h" "fuzz/corpus/$h" >"$log" 2>&1; then
    result="ok"
  else
    result="CRASH (see $log and $out/crash-$h-*)"
    status=1
  fi
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1 || true)
  summary+=$(printf '%-20s %12s inputs  %-10s %s' "$h" "${runs:-?}" "${cov:-}" "$result")$'\n'
done
echo
echo "fuzz summary (${secs}s${FL_FUZZ_RUNS:+ or $FL_FUZZ_RUNS inputs} per harness):"
printf '%s' "$summary"
exit $status
