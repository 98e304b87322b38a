#!/usr/bin/env bash
# Plots fl-stragglers' per-round CSV (fl-stragglers-rounds.csv): test accuracy against simulated time, one line per round
# deadline, one panel per straggler policy. Usage: plot-stragglers.sh IN.csv [OUT.png]
set -euo pipefail
in=${1:?usage: plot-stragglers.sh IN.csv [OUT.png]}
out=${2:-${in%.csv}.png}
[ -f "$in" ] || { echo "plot-stragglers: no such file: $in" >&2; exit 2; }
command -v gnuplot >/dev/null || { echo "plot-stragglers: gnuplot missing (utils/install-deps.sh installs it)" >&2; exit 2; }
head -1 "$in" | grep -q '^deadline_s,policy,round,time_s,duration_s,test_loss,test_accuracy' ||
  { echo "plot-stragglers: $in is not an fl-stragglers CSV" >&2; exit 2; }
policies=$(tail -n +2 "$in" | cut -d, -f2 | awk '!seen[$0]++' | tr '\n' ' ')
deadlines=$(tail -n +2 "$in" | cut -d, -f1 | awk '!seen[$0]++' | tr '\n' ' ')
n=$(echo $policies | wc -w)
panels=""
for p in $policies; do
  plot=""
  for d in $deadlines; do
    title="deadline $d s"; [ "$d" = 0 ] && title="no deadline"
    # the no-deadline run is shared by every policy
    cond="(\$1 == $d && (strcol(2) eq '$p' || \$1 == 0))"
    plot+="'$in' using ($cond ? \$4 : 1/0):($cond ? \$7 : 1/0) with lines lw 2 title '$title', "
  done
  panels+="set title 'straggler policy: $p'
plot ${plot%, }
"
done
gnuplot <<GP
set datafile separator ','
set terminal pngcairo size $((600 * n)),500 font ',11'
set output '$out'
set multiplot layout 1,$n title "FedAvg with heterogeneous devices ($(basename "$in"))"
set grid
set key bottom right
set xlabel 'simulated time [s]'
set ylabel 'test accuracy'
set yrange [0:1]
$panels
unset multiplot
GP
echo "plot: $out"
