#!/usr/bin/env bash
# Plots an fl-dwfl CSV: the centroid's test loss and accuracy against round and against
# simulated time, one curve per series (run; the mean over the seeds, with the 95 % confidence
# band of the accuracy when the CSV averages several seeds), one row of panels per group of at
# most 6 series: per privacy level eps for --figure=workers (the paper's Fig. 3 compares N at one
# eps), per number of workers N otherwise. Curves that coincide (a noiseless run and a run whose
# noise is negligible) stay visible: each has its own colour, marker and dash pattern
# (utils/plot-common.sh). Time axes are logarithmic when the runs' durations differ by more than
# 10x (analog vs digital). For --figure=perlink the time panels give way to the disagreement
# (log scale) and the workers' own accuracy against round. The title names the paper's figure,
# the seeds and the rounds (from the CSV's columns).
# Usage: plot-dwfl.sh IN.csv [OUT.png]
set -euo pipefail
source "$(dirname "$0")/plot-common.sh"
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
rounds=$(rows | awk -F, '$7 > n { n = $7 } END { print n + 0 }')
case "$figure" in
  power) what="Fig. 2: transmit power" ;;
  workers) what="Fig. 3: number of workers" ;;
  epsilon) what="Fig. 4: privacy level" ;;
  orthogonal) what="Fig. 5: non-orthogonal against orthogonal transmission" ;;
  centralized) what="Fig. 6: decentralized against the over-the-air parameter server" ;;
  perlink) what="sender-only against per-link channels, fixed against block fading" ;;
  digital) what="analog against digital Wi-Fi" ;;
  mobility) what="moving workers: speed and CSI age on time-correlated fading" ;;
  *) what="--figure=$figure" ;;
esac
title="DWFL (Chen et al. 2021) $what; centroid on Fashion-MNIST, $runs seed(s) per run, $rounds rounds"
# series in order of appearance (names may hold spaces), with their group: eps for workers, N
# otherwise
groupCol=4; groupName="N ="
[ "$figure" = workers ] && { groupCol=6; groupName="eps ="; }
mapfile -t pairs < <(rows | awk -F, -v g="$groupCol" '!seen[$2]++ { print $g "|" $2 }')
mapfile -t groups < <(printf '%s\n' "${pairs[@]}" | cut -d'|' -f1 | awk '!seen[$0]++')
logtime=$(rows | awk -F, '{ if ($8 > last[$2]) last[$2] = $8 }
  END { lo = -1; hi = 0; for (s in last) { if (lo < 0 || last[s] < lo) lo = last[s]; if (last[s] > hi) hi = last[s] }
        print (lo > 0 && hi > 10 * lo) ? 1 : 0 }')
# $1: a plot clause per series of the current panel (SERIES, K: its name and curve number)
each_series() {
  local plot="" s k=0 clause
  for s in "${panel[@]}"; do
    k=$((k + 1))
    clause=${1//SERIES/$s}
    plot+="${clause//CURVE/$(fl_curve $k $((rounds + 1)))}, "
  done
  echo "${plot%, }"
}
lines() { # $1 = x column, $2 = y column: a curve per series
  each_series "'$in' using (strcol(2) eq 'SERIES' ? \$$1 : 1/0):(strcol(2) eq 'SERIES' ? \$$2 : 1/0) with linespoints CURVE title 'SERIES'"
}
bands() { # $1 = x column, $2 = y column, $3 = its CI column: a translucent band per series
  local plot="" s k=0
  for s in "${panel[@]}"; do
    k=$((k + 1))
    plot+="'$in' using (strcol(2) eq '$s' ? \$$1 : 1/0):(\$$2 - \$$3):(\$$2 + \$$3) with filledcurves fs transparent solid 0.15 noborder lt $k notitle, "
  done
  echo "${plot%, }"
}
panels=""
nrows=0
for g in "${groups[@]}"; do
  mapfile -t members < <(printf '%s\n' "${pairs[@]}" | awk -F'|' -v g="$g" '$1 == g { print $2 }')
  label="$groupName $g"
  [ "$figure" = workers ] && [ "$g" = 0 ] && label="noiseless"
  while read -r c; do
    f=${c%%:*}; count=${c#*:}
    panel=("${members[@]:$((f - 1)):$count}")
    nrows=$((nrows + 1))
    accuracy_round="$(lines 7 10)"
    if [ "$runs" -gt 1 ] 2>/dev/null; then
      accuracy_round="$(bands 7 10 17), $accuracy_round"
    fi
    panels+="unset logscale; unset yrange
set title '$(fl_gp_quote "$label")'
set key top right
set xlabel 'round'
set ylabel 'test loss (cross-entropy, nats)'
plot $(lines 7 9)
set title ''
set key bottom right
set ylabel 'test accuracy (fraction)'
set yrange [0:1]
plot $accuracy_round
unset yrange
"
    if [ "$figure" = perlink ]; then
      panels+="set logscale y
set key top left
set ylabel 'disagreement (1/N) sum ||x_i - mean||^2'
plot $(lines 7 13)
unset logscale y
set key bottom right
set ylabel 'workers own models: test accuracy (fraction)'
set yrange [0:1]
plot $(lines 7 12)
"
    else
      panels+="set xlabel 'simulated time [s]'
$( [ "$logtime" = 1 ] && echo "set logscale x" )
set autoscale y
set key top right
set ylabel 'test loss (cross-entropy, nats)'
plot $(lines 8 9)
set key bottom right
set ylabel 'test accuracy (fraction)'
set yrange [0:1]
plot $(lines 8 10)
"
    fi
  done < <(fl_chunks ${#members[@]})
done
fl_gnuplot <<GP
set datafile separator ','
set terminal pngcairo size 1700,$((nrows * 360 + 50)) font ',8'
set output '$out'
set multiplot layout $nrows,4 title '$(fl_gp_quote "$title")'
$panels
unset multiplot
GP
echo "plot: $out"
