#!/usr/bin/env bash
# Plots fl-fedavg-lossy's summary CSV: final accuracy and time to the target accuracy against the
# packet loss rate, one line per hole policy. Usage: plot-lossy.sh IN.csv [OUT.png]
set -euo pipefail
in=${1:?usage: plot-lossy.sh IN.csv [OUT.png]}
out=${2:-${in%.csv}.png}
[ -f "$in" ] || { echo "plot-lossy: no such file: $in" >&2; exit 2; }
command -v gnuplot >/dev/null || { echo "plot-lossy: gnuplot missing (utils/install-deps.sh installs it)" >&2; exit 2; }
head -1 "$in" | grep -q '^loss,policy,final_accuracy,final_loss,time_to_accuracy_s' ||
  { echo "plot-lossy: $in is not an fl-fedavg-lossy summary CSV" >&2; exit 2; }
policies=$(tail -n +2 "$in" | cut -d, -f2 | awk '!seen[$0]++' | tr '\n' ' ')
target=$(sed -n 2p "$in" | cut -d, -f6)
acc=""; tta=""
for p in $policies; do
  rows="< grep -F ',$p,' $in"   # the policy column (names contain no comma)
  acc+="\"$rows\" using 1:3 with linespoints pt 7 title '$p', "
  tta+="\"$rows\" using 1:5 with linespoints pt 7 title '$p', "
done
gnuplot <<GP
set datafile separator ','
set datafile missing 'nan'
set terminal pngcairo size 1200,500 font ',11'
set output '$out'
set multiplot layout 1,2 title "FedAvg over lossy UDP ($(basename "$in"))"
set grid
set key bottom left
set xlabel 'packet loss rate'
set ylabel 'final test accuracy'
plot ${acc%, }
set key top left
set ylabel 'simulated time to accuracy $target [s]'
plot ${tta%, }
unset multiplot
GP
echo "plot: $out"
