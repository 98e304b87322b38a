#!/usr/bin/env bash
# Plots fl-stragglers' per-round CSV (fl-stragglers-rounds.csv): test accuracy against simulated time, one line per round
# deadline in its own style (utils/plot-common.sh), one panel per straggler policy (and per 6
# deadlines). The title says what ran (from the CSV's columns).
# Usage: plot-stragglers.sh IN.csv [OUT.png]
set -euo pipefail
source "$(dirname "$0")/plot-common.sh"
in=${1:?usage: plot-stragglers.sh IN.csv [OUT.png]}
out=${2:-${in%.csv}.png}
[ -f "$in" ] || { echo "plot-stragglers: no such file: $in" >&2; exit 2; }
command -v gnuplot >/dev/null || { echo "plot-stragglers: gnuplot missing (utils/install-deps.sh installs it)" >&2; exit 2; }
head -1 "$in" | grep -q '^deadline_s,policy,round,time_s,duration_s,test_loss,test_accuracy' ||
  { echo "plot-stragglers: $in is not an fl-stragglers CSV" >&2; exit 2; }
policies=$(tail -n +2 "$in" | cut -d, -f2 | awk '!seen[$0]++' | tr '\n' ' ')
deadlines=$(tail -n +2 "$in" | cut -d, -f1 | awk '!seen[$0]++' | tr '\n' ' ')
read -r -a dl <<<"$deadlines"
mapfile -t chunks < <(fl_chunks ${#dl[@]})
n=0
panels=""
for p in $policies; do
  for c in "${chunks[@]}"; do
    first=${c%%:*}; count=${c#*:}
    plot=""; k=0
    for d in "${dl[@]:$((first - 1)):$count}"; do
      k=$((k + 1))
      title="deadline $d s"; [ "$d" = 0 ] && title="no deadline"
      # the no-deadline run is shared by every policy
      cond="(\$1 == $d && (strcol(2) eq '$p' || \$1 == 0))"
      rows=$(awk -F, -v d="$d" 'NR > 1 && $1 == d { r++ } END { print r + 0 }' "$in")
      plot+="'$in' using ($cond ? \$4 : 1/0):($cond ? \$7 : 1/0) with linespoints $(fl_curve $k "$rows") title '$title', "
    done
    panels+="set title 'straggler policy: $p'
plot ${plot%, }
"
    n=$((n + 1))
  done
done
span=$(awk -F, 'NR > 1 && $4 > t { t = $4 } END { printf "%.3g", t }' "$in")
title="FedAvg with heterogeneous devices: ${#dl[@]} round deadlines x $(echo $policies | wc -w) straggler policies, $span s of simulated time each"
fl_gnuplot <<GP
set datafile separator ','
set terminal pngcairo size $((600 * n)),500 font ',11'
set output '$out'
set multiplot layout 1,$n title '$(fl_gp_quote "$title")'
set key bottom right
set xlabel 'simulated time [s]'
set ylabel 'test accuracy (fraction)'
set yrange [0:1]
$panels
unset multiplot
GP
echo "plot: $out"
