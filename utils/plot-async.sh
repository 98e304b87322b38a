#!/usr/bin/env bash
# Plots fl-async-wifi's results: test accuracy against simulated time and against bytes carried
# (down + up, cumulative), one line per strategy, and the staleness distribution of the
# aggregated updates. Usage: plot-async.sh BASE   (BASE-rounds.csv and BASE-staleness.csv, e.g.
# fl-async-wifi) -> BASE-time.png, BASE-bytes.png, BASE-staleness.png
set -euo pipefail
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
time_plot=""; bytes_plot=""
for s in $strategies; do
  # cumulative bytes per strategy: column 3 of the extract
  awk -F, -v s="$s" -v d="$cdown" -v u="$cup" 'NR > 1 && $1 == s { b += $d + $u; print $3 "," $6 "," b }' \
    "$rounds" > "$tmp/$s.csv"
  time_plot+="'$tmp/$s.csv' using 1:2 with lines lw 2 title '$s', "
  bytes_plot+="'$tmp/$s.csv' using (\$3 / 1e6):2 with lines lw 2 title '$s', "
done
n=$(echo $strategies | wc -w)
stale_plot=""; i=0
for s in $strategies; do
  stale_plot+="'$stale' using (strcol(1) eq '$s' ? \$2 + ($i - ($n - 1) / 2.0) * 0.8 / $n : 1/0):3 with boxes title '$s', "
  i=$((i + 1))
done
gnuplot <<GP
set datafile separator ','
set terminal pngcairo size 800,500 font ',11'
set grid
set key bottom right
set yrange [0:1]
set ylabel 'test accuracy'
set output '$base-time.png'
set title 'accuracy against simulated time'
set xlabel 'simulated time [s]'
plot ${time_plot%, }
set output '$base-bytes.png'
set title 'accuracy against bytes carried (down + up)'
set xlabel 'MB'
plot ${bytes_plot%, }
set output '$base-staleness.png'
set title 'staleness of the aggregated updates'
set xlabel 'staleness (rounds or model versions)'
set ylabel 'updates'
set autoscale y
set key top right
set style fill solid 0.6
set boxwidth 0.8 / $n
set xrange [-1:*]
plot ${stale_plot%, }
GP
echo "plot: $base-time.png $base-bytes.png $base-staleness.png"
