#!/usr/bin/env bash
# Plots fl-fedavg-lossy's summary CSV: final accuracy and time to the target accuracy against the
# packet loss rate, one curve per hole policy in its own style (utils/plot-common.sh). The title
# says what ran (from the CSV's columns). Usage: plot-lossy.sh IN.csv [OUT.png]
set -euo pipefail
source "$(dirname "$0")/plot-common.sh"
in=${1:?usage: plot-lossy.sh IN.csv [OUT.png]}
out=${2:-${in%.csv}.png}
[ -f "$in" ] || { echo "plot-lossy: no such file: $in" >&2; exit 2; }
command -v gnuplot >/dev/null || { echo "plot-lossy: gnuplot missing (utils/install-deps.sh installs it)" >&2; exit 2; }
head -1 "$in" | grep -q '^loss,policy,final_accuracy,final_loss,time_to_accuracy_s' ||
  { echo "plot-lossy: $in is not an fl-fedavg-lossy summary CSV" >&2; exit 2; }
policies=$(tail -n +2 "$in" | cut -d, -f2 | awk '!seen[$0]++' | tr '\n' ' ')
target=$(sed -n 2p "$in" | cut -d, -f6)
n=$(echo $policies | wc -w)
[ "$n" -le "$FL_PLOT_MAX_CURVES" ] ||
  { echo "plot-lossy: $n policies, more than $FL_PLOT_MAX_CURVES curves in a panel" >&2; exit 2; }
acc=""; tta=""; k=0
for p in $policies; do
  k=$((k + 1))
  rows="< grep -F ',$p,' $in"   # the policy column (names contain no comma)
  acc+="\"$rows\" using 1:3 with linespoints lt $k title '$p', "
  tta+="\"$rows\" using 1:5 with linespoints lt $k title '$p', "
done
# whether any run reached the target (else the time panel has no point), and the loss range
read -r reached lo hi < <(awk -F, 'NR > 1 { if ($5 != "nan" && $5 != "") r = 1; if (lo == "" || $1 < lo) lo = $1; if ($1 > hi) hi = $1 }
  END { print r + 0, lo + 0, (hi > lo ? hi : lo + 1) }' "$in")
read -r losses rounds < <(awk -F, 'NR > 1 { if (!($1 in l)) { l[$1]; n++ } if ($8 > r) r = $8 } END { print n + 0, r + 0 }' "$in")
title="FedAvg over lossy UDP: $n hole policies at $losses loss rates, up to $rounds rounds each"
fl_gnuplot <<GP
set datafile separator ','
set datafile missing 'nan'
set terminal pngcairo size 1200,500 font ',11'
set output '$out'
set multiplot layout 1,2 title '$(fl_gp_quote "$title")'
set key bottom left
set xlabel 'packet loss rate (fraction of packets)'
set ylabel 'final test accuracy (fraction)'
plot ${acc%, }
set key top left
set ylabel 'simulated time to test accuracy $target [s]'
$(if [ "$reached" = 1 ]; then
    echo "plot ${tta%, }"
  else
    echo "set label 1 'no run reached test accuracy $target' at graph 0.5,0.5 center"
    echo "plot [$lo:$hi] [0:1] NaN lt 1 title 'none reached $target'"
  fi)
unset multiplot
GP
echo "plot: $out"
