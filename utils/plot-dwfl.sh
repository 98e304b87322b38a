#!/usr/bin/env bash
# Plots an fl-dwfl CSV: the centroid's test loss and accuracy against round and against
# simulated time, one line per series (run). Time axes are logarithmic when the runs' durations
# differ by more than 10x (analog vs digital). Usage: plot-dwfl.sh IN.csv [OUT.png]
set -euo pipefail
in=${1:?usage: plot-dwfl.sh IN.csv [OUT.png]}
out=${2:-${in%.csv}.png}
[ -f "$in" ] || { echo "plot-dwfl: no such file: $in" >&2; exit 2; }
command -v gnuplot >/dev/null || { echo "plot-dwfl: gnuplot missing (utils/install-deps.sh installs it)" >&2; exit 2; }
head -1 "$in" | grep -q '^figure,series,scheme,n,p_dbm,epsilon,round,time_s,test_loss,test_accuracy' ||
  { echo "plot-dwfl: $in is not an fl-dwfl CSV" >&2; exit 2; }
figure=$(sed -n 2p "$in" | cut -d, -f1)
# series in order of appearance (names may hold spaces)
mapfile -t series < <(tail -n +2 "$in" | cut -d, -f2 | awk '!seen[$0]++')
logtime=$(tail -n +2 "$in" | awk -F, '{ if ($8 > last[$2]) last[$2] = $8 }
  END { lo = -1; hi = 0; for (s in last) { if (lo < 0 || last[s] < lo) lo = last[s]; if (last[s] > hi) hi = last[s] }
        print (lo > 0 && hi > 10 * lo) ? 1 : 0 }')
lines() { # $1 = x column, $2 = y column
  local plot="" s
  for s in "${series[@]}"; do
    plot+="'$in' using (strcol(2) eq '$s' ? \$$1 : 1/0):(strcol(2) eq '$s' ? \$$2 : 1/0) with lines lw 2 title '$s', "
  done
  echo "${plot%, }"
}
gnuplot <<GP
set datafile separator ','
set terminal pngcairo size 1200,900 font ',10'
set output '$out'
set multiplot layout 2,2 title "fl-dwfl --figure=$figure: centroid on Fashion-MNIST ($(basename "$in"))"
set grid
set key top right
set xlabel 'round'
set ylabel 'test loss'
plot $(lines 7 9)
set key bottom right
set ylabel 'test accuracy'
set yrange [0:1]
plot $(lines 7 10)
set xlabel 'simulated time [s]'
$( [ "$logtime" = 1 ] && echo "set logscale x" )
set autoscale y
set key top right
set ylabel 'test loss'
plot $(lines 8 9)
set key bottom right
set ylabel 'test accuracy'
set yrange [0:1]
plot $(lines 8 10)
unset multiplot
GP
echo "plot: $out"
