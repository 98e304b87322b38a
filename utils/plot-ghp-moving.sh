#!/usr/bin/env bash
# Plots an fl-ghp-moving CSV: against the moving agents' speed, one curve per hello interval,
# each point the mean over the iterations (from the first) and the runs of (a) the
# stochasticity error of the weights the agents gave, (b) the centroid drift, (c) the
# disagreement, and (d) the centroid MSD ||w_c - w°||^2 at the last iteration (mean over the runs).
# Usage: plot-ghp-moving.sh IN.csv [OUT.png]
set -euo pipefail
source "$(dirname "$0")/plot-common.sh"
in=${1:?usage: plot-ghp-moving.sh IN.csv [OUT.png]}
out=${2:-${in%.csv}.png}
[ -f "$in" ] || { echo "plot-ghp-moving: no such file: $in" >&2; exit 2; }
command -v gnuplot >/dev/null || { echo "plot-ghp-moving: gnuplot missing (utils/install-deps.sh installs it)" >&2; exit 2; }
head -1 "$in" | grep -q '^speed_mps,hello_interval_s,run,iteration,time_s,mean_degree,stochasticity_error,centroid_drift,disagreement,msd_centroid' ||
  { echo "plot-ghp-moving: $in is not an fl-ghp-moving CSV" >&2; exit 2; }
mean=$(mktemp)
trap 'rm -f "$mean"' EXIT
# per (hello, speed): hello, speed, mean error, mean drift, mean disagreement, last MSD, degree
awk -F, 'NR > 1 && $4 > 0 {
           k = $2 "," $1; if (!(k in n)) order[++m] = k
           n[k]++; e[k] += $7; d[k] += $8; g[k] += $9; deg[k] += $6
           if ($4 >= last[k]) { if ($4 > last[k]) { msd[k] = 0; runs[k] = 0 } last[k] = $4; msd[k] += $10; runs[k]++ } }
         END { for (i = 1; i <= m; i++) { k = order[i]
                 print k "," e[k] / n[k] "," d[k] / n[k] "," g[k] / n[k] "," msd[k] / runs[k] "," deg[k] / n[k] } }' \
  "$in" | sort -t, -k1,1g -k2,2g > "$mean"
[ -s "$mean" ] || { echo "plot-ghp-moving: $in has no iteration rows" >&2; exit 2; }
mapfile -t hellos < <(cut -d, -f1 "$mean" | awk '!seen[$0]++')
runs=$(awk -F, 'NR > 1 { seen[$3] } END { print length(seen) }' "$in")
iters=$(awk -F, 'NR > 1 && $4 > n { n = $4 } END { print n + 0 }' "$in")
speeds=$(cut -d, -f2 "$mean" | sort -u | wc -l)
curves() { # $1: column of the metric; $2: "db" for 10 log10 of it
  local plot="" k=0 y="\$$1"
  [ "${2:-}" = db ] && y="10*log10(\$$1)"
  for h in "${hellos[@]}"; do
    k=$((k + 1))
    plot+="'$mean' using (\$1 == $h ? \$2 : 1/0):(\$1 == $h ? $y : 1/0) with linespoints $(fl_curve $k "$speeds") title 'hello every $h s', "
  done
  echo "${plot%, }"
}
title="GHP diffusion between moving agents, graph learned from hellos: $runs run(s), $iters iterations"
fl_gnuplot <<GP
set datafile separator ','
set terminal pngcairo size 1000,760 font ',8'
set output '$out'
set multiplot layout 2,2 title '$(fl_gp_quote "$title")'
set key top left
set xlabel 'speed of the moving agents [m/s]'
set ylabel 'stochasticity error (mean per iteration)'
plot $(curves 3)
set ylabel 'centroid drift (mean per iteration)'
plot $(curves 4)
set ylabel 'disagreement (mean per iteration)'
plot $(curves 5)
set ylabel 'centroid MSD at the last iteration [dB]'
plot $(curves 6 db)
unset multiplot
GP
echo "plot: $out"
