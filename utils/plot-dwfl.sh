#!/usr/bin/env bash
# Plots an fl-dwfl CSV: the centroid's test loss and accuracy against round and against
# simulated time, one line per series (run; the mean over the seeds, with the 95 % confidence
# band of the accuracy when the CSV averages several seeds). Time axes are logarithmic when the
# runs' durations differ by more than 10x (analog vs digital). For --figure=perlink the time
# panels give way to the disagreement (log scale) and the workers' own accuracy against round.
# Usage: plot-dwfl.sh IN.csv [OUT.png]
set -euo pipefail
in=${1:?usage: plot-dwfl.sh IN.csv [OUT.png]}
out=${2:-${in%.csv}.png}
[ -f "$in" ] || { echo "plot-dwfl: no such file: $in" >&2; exit 2; }
command -v gnuplot >/dev/null || { echo "plot-dwfl: gnuplot missing (utils/install-deps.sh installs it)" >&2; exit 2; }
head -1 "$in" | grep -q '^figure,series,scheme,n,p_dbm,epsilon,round,time_s,test_loss,test_accuracy' ||
  { echo "plot-dwfl: $in is not an fl-dwfl CSV" >&2; exit 2; }
rows() { tail -n +2 "$in" | grep -v '^#'; } # data rows (comment lines say what each eps means)
# the first data row, read by awk alone (a pipe cut short by head fails under pipefail on a
# large CSV)
first=$(awk 'NR > 1 && !/^#/ { print; exit }' "$in")
figure=$(cut -d, -f1 <<<"$first")
runs=$(head -1 "$in" | grep -q ',runs,' && cut -d, -f15 <<<"$first" || echo 1)
# series in order of appearance (names may hold spaces)
mapfile -t series < <(rows | cut -d, -f2 | awk '!seen[$0]++')
logtime=$(rows | awk -F, '{ if ($8 > last[$2]) last[$2] = $8 }
  END { lo = -1; hi = 0; for (s in last) { if (lo < 0 || last[s] < lo) lo = last[s]; if (last[s] > hi) hi = last[s] }
        print (lo > 0 && hi > 10 * lo) ? 1 : 0 }')
each_series() { # $1: a plot clause per series; SERIES and COLOR stand for its name and colour
  local plot="" s i=1 clause
  for s in "${series[@]}"; do
    clause=${1//SERIES/$s}
    plot+="${clause//COLOR/$i}, "
    i=$((i + 1))
  done
  echo "${plot%, }"
}
lines() { # $1 = x column, $2 = y column: a line per series
  each_series "'$in' using (strcol(2) eq 'SERIES' ? \$$1 : 1/0):(strcol(2) eq 'SERIES' ? \$$2 : 1/0) with lines lw 2 lc COLOR title 'SERIES'"
}
bands() { # $1 = x column, $2 = y column, $3 = its CI column: a translucent band per series
  each_series "'$in' using (strcol(2) eq 'SERIES' ? \$$1 : 1/0):(\$$2 - \$$3):(\$$2 + \$$3) with filledcurves fs transparent solid 0.15 noborder lc COLOR notitle"
}
accuracy_round="$(lines 7 10)"
if [ "$runs" -gt 1 ] 2>/dev/null; then
  accuracy_round="$(bands 7 10 17), $accuracy_round"
fi
if [ "$figure" = perlink ]; then
  lower="set xlabel 'round'
set logscale y
set key top left
set ylabel 'disagreement (1/N) sum ||x_i - mean||^2'
plot $(lines 7 13)
unset logscale y
set key bottom right
set ylabel 'workers own models: test accuracy'
set yrange [0:1]
plot $(lines 7 12)"
else
  lower="set xlabel 'simulated time [s]'
$( [ "$logtime" = 1 ] && echo "set logscale x" )
set autoscale y
set key top right
set ylabel 'test loss'
plot $(lines 8 9)
set key bottom right
set ylabel 'test accuracy'
set yrange [0:1]
plot $(lines 8 10)"
fi
gnuplot <<GP
set datafile separator ','
set terminal pngcairo size 900,680 font ',8'
set output '$out'
set multiplot layout 2,2 title "fl-dwfl --figure=$figure: centroid on Fashion-MNIST ($(basename "$in"), $runs seed(s) per run)"
set grid
set key top right
set xlabel 'round'
set ylabel 'test loss'
plot $(lines 7 9)
set key bottom right
set ylabel 'test accuracy'
set yrange [0:1]
plot $accuracy_round
unset yrange
$lower
unset multiplot
GP
echo "plot: $out"
