#!/usr/bin/env bash
# Plots fl-async-wifi's results: test accuracy against simulated time and against bytes carried
# (down + up, cumulative), one line per strategy, and the staleness distribution of the
# aggregated updates, one curve per strategy in its own style (utils/plot-common.sh; the
# program runs at most 4). The titles say what ran (from the CSVs' columns).
# Usage: plot-async.sh BASE   (BASE-rounds.csv and BASE-staleness.csv, e.g. fl-async-wifi; BASE.csv,
# the summary, for the target accuracy if present) -> BASE-time.png, BASE-bytes.png,
# BASE-staleness.png
set -euo pipefail
source "$(dirname "$0")/plot-common.sh"
base=${1:?usage: plot-async.sh BASE (e.g. fl-async-wifi)}
base=${base%.csv}
rounds="$base-rounds.csv"
stale="$base-staleness.csv"
for f in "$rounds" "$stale"; do
  [ -f "$f" ] || { echo "plot-async: no such file: $f" >&2; exit 2; }
done
command -v gnuplot >/dev/null || { echo "plot-async: gnuplot missing (utils/install-deps.sh installs it)" >&2; exit 2; }
head -1 "$rounds" | grep -q '^strategy,round,time_s,duration_s,test_loss,test_accuracy' ||
  { echo "plot-async: $rounds is not an fl-async-wifi rounds CSV" >&2; exit 2; }
head -1 "$stale" | grep -q '^strategy,staleness,updates' ||
  { echo "plot-async: $stale is not an fl-async-wifi staleness CSV" >&2; exit 2; }
header=$(head -1 "$rounds" | tr ',' '\n')
col() { echo "$header" | grep -nx "$1" | cut -d: -f1; }
cdown=$(col bytes_down); cup=$(col bytes_up)
[ -n "$cdown" ] && [ -n "$cup" ] || { echo "plot-async: no bytes_down/bytes_up columns in $rounds" >&2; exit 2; }
strategies=$(tail -n +2 "$rounds" | cut -d, -f1 | awk '!seen[$0]++' | tr '\n' ' ')
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
n=$(echo $strategies | wc -w)
[ "$n" -le "$FL_PLOT_MAX_CURVES" ] ||
  { echo "plot-async: $n strategies, more than $FL_PLOT_MAX_CURVES curves in a panel" >&2; exit 2; }
time_plot=""; bytes_plot=""; k=0
for s in $strategies; do
  k=$((k + 1))
  # cumulative bytes per strategy: column 3 of the extract
  awk -F, -v s="$s" -v d="$cdown" -v u="$cup" 'NR > 1 && $1 == s { b += $d + $u; print $3 "," $6 "," b }' \
    "$rounds" > "$tmp/$s.csv"
  rows=$(wc -l < "$tmp/$s.csv")
  time_plot+="'$tmp/$s.csv' using 1:2 with linespoints $(fl_curve $k "$rows") title '$s', "
  bytes_plot+="'$tmp/$s.csv' using (\$3 / 1e6):2 with linespoints $(fl_curve $k "$rows") title '$s', "
done
stale_plot=""; i=0
for s in $strategies; do
  stale_plot+="'$stale' using (strcol(1) eq '$s' ? \$2 + ($i - ($n - 1) / 2.0) * 0.8 / $n : 1/0):3 with boxes lt $((i + 1)) title '$s', "
  i=$((i + 1))
done
# what ran: the strategies, their simulated time, the target accuracy (summary CSV)
span=$(awk -F, 'NR > 1 && $3 > t { t = $3 } END { printf "%.3g", t }' "$rounds")
target=""
[ -f "$base.csv" ] && head -1 "$base.csv" | grep -q ',target_accuracy,' &&
  target=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; ++i) if ($i == "target_accuracy") c = i; next } { print $c; exit }' "$base.csv")
what="$n strategies over $span s of simulated time each${target:+, target accuracy $target}"
fl_gnuplot <<GP
set datafile separator ','
set terminal pngcairo size 800,500 font ',11'
set key bottom right
set yrange [0:1]
set ylabel 'test accuracy (fraction)'
set output '$base-time.png'
set title '$(fl_gp_quote "Accuracy against simulated time: $what")'
set xlabel 'simulated time [s]'
plot ${time_plot%, }
set output '$base-bytes.png'
set title '$(fl_gp_quote "Accuracy against bytes carried (down + up): $what")'
set xlabel 'bytes carried, down + up, cumulative [MB]'
plot ${bytes_plot%, }
set output '$base-staleness.png'
set title '$(fl_gp_quote "Staleness of the aggregated updates: $what")'
set xlabel 'staleness [rounds or model versions]'
set ylabel 'aggregated updates (count)'
set autoscale y
set key top right
set style fill solid 0.6
set boxwidth 0.8 / $n
set xrange [-1:*]
plot ${stale_plot%, }
GP
echo "plot: $base-time.png $base-bytes.png $base-staleness.png"
