#!/usr/bin/env bash
# Plots an fl-gfl / fl-ghp CSV (iteration,variant,metric,value): centroid MSD and average
# individual MSD [dB] against iteration, one line per variant; with epsilon rows (--clip > 0) a
# third panel with epsilon(i) of one node's releases. Usage: plot-gfl.sh IN.csv [OUT.png]
set -euo pipefail
in=${1:?usage: plot-gfl.sh IN.csv [OUT.png]}
out=${2:-${in%.csv}.png}
[ -f "$in" ] || { echo "plot-gfl: no such file: $in" >&2; exit 2; }
command -v gnuplot >/dev/null || { echo "plot-gfl: gnuplot missing (utils/install-deps.sh installs it)" >&2; exit 2; }
head -1 "$in" | grep -q '^iteration,variant,metric,value' ||
  { echo "plot-gfl: $in is not an fl-gfl CSV" >&2; exit 2; }
mapfile -t variants < <(tail -n +2 "$in" | awk -F, '$3 == "msd_centroid_db" && !seen[$2]++ { print $2 }')
[ ${#variants[@]} -gt 0 ] || { echo "plot-gfl: no msd_centroid_db rows in $in" >&2; exit 2; }
haveEps=$(awk -F, 'NR > 1 && $3 == "epsilon" { f = 1 } END { if (f) print 1 }' "$in")
lines() { # $1 = metric
  local plot="" v
  for v in "${variants[@]}"; do
    plot+="'$in' using (strcol(2) eq '$v' && strcol(3) eq '$1' ? \$1 : 1/0):(strcol(2) eq '$v' && strcol(3) eq '$1' ? \$4 : 1/0) with lines lw 2 title '$v', "
  done
  echo "${plot%, }"
}
panels=2
[ -n "$haveEps" ] && panels=3
gnuplot <<GP
set datafile separator ','
set terminal pngcairo size $((panels * 420)),520 font ',9'
set output '$out'
set multiplot layout 1,$panels title "$(basename "$in")"
set grid
set key below
set xlabel 'iteration'
set ylabel 'centroid MSD [dB]'
plot $(lines msd_centroid_db)
set ylabel 'average individual MSD [dB]'
plot $(lines msd_average_db)
$( [ -n "$haveEps" ] && echo "set ylabel 'epsilon(i) of one node'; set logscale y; set key top left; plot $(lines epsilon)" )
unset multiplot
GP
echo "plot: $out"
