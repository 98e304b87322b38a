#!/usr/bin/env bash
# Plots a learning-monitor CSV (fl-fedavg-wifi and friends): test accuracy and loss against the
# round number and against simulated time. Usage: plot-learning-curve.sh IN.csv [OUT.png]
set -euo pipefail
in=${1:?usage: plot-learning-curve.sh IN.csv [OUT.png]}
out=${2:-${in%.csv}.png}
[ -f "$in" ] || { echo "plot-learning-curve: no such file: $in" >&2; exit 2; }
command -v gnuplot >/dev/null || { echo "plot-learning-curve: gnuplot missing (utils/install-deps.sh installs it)" >&2; exit 2; }
head -1 "$in" | grep -q '^round,time_s,duration_s,test_loss,test_accuracy' ||
  { echo "plot-learning-curve: $in is not a learning-monitor CSV" >&2; exit 2; }
gnuplot <<GP
set datafile separator ','
set terminal pngcairo size 1200,500 font ',11'
set output '$out'
set key autotitle columnhead
set multiplot layout 1,2 title "$(basename "$in")"
set grid
set ylabel 'test accuracy'
set y2label 'test loss'
set ytics nomirror
set yrange [0:1]
set y2tics
set xlabel 'round'
plot '$in' using 1:5 with linespoints pt 7 ps 0.6 title 'accuracy', \
     '' using 1:4 axes x1y2 with lines dt 2 title 'loss'
set xlabel 'simulated time [s]'
plot '$in' using 2:5 with linespoints pt 7 ps 0.6 title 'accuracy', \
     '' using 2:4 axes x1y2 with lines dt 2 title 'loss'
unset multiplot
GP
echo "plot: $out"
