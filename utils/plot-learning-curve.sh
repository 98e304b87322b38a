#!/usr/bin/env bash
# Plots a learning-monitor CSV (fl-fedavg-wifi and friends): test accuracy and loss against the
# round number and against simulated time. Against time the curves are steps: the model of
# round r is the global model from the end of round r until the end of round r + 1 (a start that
# waits, e.g. for a station's association, is a flat stretch, not a slope). The title says what
# ran, from the CSV's columns. Usage: plot-learning-curve.sh IN.csv [OUT.png]
set -euo pipefail
source "$(dirname "$0")/plot-common.sh"
in=${1:?usage: plot-learning-curve.sh IN.csv [OUT.png]}
out=${2:-${in%.csv}.png}
[ -f "$in" ] || { echo "plot-learning-curve: no such file: $in" >&2; exit 2; }
command -v gnuplot >/dev/null || { echo "plot-learning-curve: gnuplot missing (utils/install-deps.sh installs it)" >&2; exit 2; }
head -1 "$in" | grep -q '^round,time_s,duration_s,test_loss,test_accuracy' ||
  { echo "plot-learning-curve: $in is not a learning-monitor CSV" >&2; exit 2; }
# what ran: rounds, clients selected per round (largest), the last round's accuracy and time
read -r rounds selected accuracy time < <(awk -F, '
  NR == 1 { for (i = 1; i <= NF; ++i) col[$i] = i; next }
  /^#/ { next }
  $1 > 0 {
    n++
    if ($col["selected"] + 0 > s) s = $col["selected"] + 0
    a = $col["test_accuracy"]; t = $col["time_s"]
  }
  END { printf "%d %d %.3f %.2f\n", n, s, a, t }' "$in")
title="FedAvg: $rounds rounds, up to $selected clients per round; test accuracy $accuracy after $time s of simulated time"
rows=$(( rounds + 1 ))
fl_gnuplot <<GP
set datafile separator ','
set datafile commentschars '#'
set datafile columnheaders
set terminal pngcairo size 1200,500 font ',11'
set output '$out'
set multiplot layout 1,2 title '$(fl_gp_quote "$title")'
set key bottom right
set ylabel 'test accuracy (fraction of the test samples)'
set y2label 'test loss (cross-entropy, nats)'
set ytics nomirror
set yrange [0:1]
set y2tics
set xlabel 'round'
plot '$in' using 1:5 with linespoints $(fl_curve 1 $rows) title 'accuracy', \
     '' using 1:4 axes x1y2 with linespoints $(fl_curve 2 $rows) title 'loss'
set xlabel 'simulated time [s]'
set key center right
plot '$in' using 2:5 with steps lt 1 title 'accuracy', \
     '' using 2:5 with points lt 1 notitle, \
     '' using 2:4 axes x1y2 with steps lt 2 title 'loss', \
     '' using 2:4 axes x1y2 with points lt 2 notitle
unset multiplot
GP
echo "plot: $out"
