#!/usr/bin/env bash
# Plots an fl-gfl-handover CSV: against the clients' speed, one curve per membership (handover:
# a client joins the server whose cell it is in; home: it stays with its first server), each
# point the mean over the runs of (a) the centroid MSD over the last quarter of the iterations
# (the mean of its linear values, in dB), (b) the uploads
# aggregated per iteration (all servers), (c) the sampled clients per iteration whose upload did
# not count, and (d) the simulated time per iteration.
# Usage: plot-gfl-handover.sh IN.csv [OUT.png]
set -euo pipefail
source "$(dirname "$0")/plot-common.sh"
in=${1:?usage: plot-gfl-handover.sh IN.csv [OUT.png]}
out=${2:-${in%.csv}.png}
[ -f "$in" ] || { echo "plot-gfl-handover: no such file: $in" >&2; exit 2; }
command -v gnuplot >/dev/null || { echo "plot-gfl-handover: gnuplot missing (utils/install-deps.sh installs it)" >&2; exit 2; }
head -1 "$in" | grep -q '^membership,speed_mps,run,iteration,time_s,msd_centroid_db,disagreement,uploads,dropped_clients,handovers' ||
  { echo "plot-gfl-handover: $in is not an fl-gfl-handover CSV" >&2; exit 2; }
mean=$(mktemp)
trap 'rm -f "$mean"' EXIT
iters=$(awk -F, 'NR > 1 && $4 > n { n = $4 } END { print n + 0 }' "$in")
# per (membership, speed): membership index, speed, MSD [dB] over the last quarter of the
# iterations (mean of the linear values over those iterations and the runs), uploads and dropped
# clients per iteration, seconds per iteration, handovers per run
awk -F, -v tail="$iters" 'BEGIN { tail = tail - int(tail / 4) }
         NR > 1 {
           if (!($1 in idx)) { idx[$1] = ++nm; name[nm] = $1 }
           k = idx[$1] "," $2; if (!(k in n)) order[++m] = k
           r = k "," $3
           if ($4 > 0) { n[k]++; up[k] += $8; dr[k] += $9 }
           if ($4 >= tail) { ms[k] += 10 ^ ($6 / 10); mn[k]++ }
           if ($4 >= last[r]) { last[r] = $4; t[r] = $5; ho[r] = $10; it[r] = $4 }
           if ($4 == 0) t0[r] = $5; runs[r] = k }
         END {
           for (r in runs) { k = runs[r]; rt[k] += (t[r] - t0[r]) / it[r]; rh[k] += ho[r]; rn[k]++ }
           for (i = 1; i <= m; i++) { k = order[i]
             print k "," 10 * log(ms[k] / mn[k]) / log(10) "," up[k] / n[k] "," dr[k] / n[k] "," rt[k] / rn[k] "," rh[k] / rn[k] } }' \
  "$in" | sort -t, -k1,1n -k2,2g > "$mean"
[ -s "$mean" ] || { echo "plot-gfl-handover: $in has no iteration rows" >&2; exit 2; }
mapfile -t names < <(awk -F, 'NR > 1 && !seen[$1]++ { print $1 }' "$in")
runs=$(awk -F, 'NR > 1 { seen[$3] } END { print length(seen) }' "$in")
speeds=$(cut -d, -f2 "$mean" | sort -u | wc -l)
curves() { # $1: column of the metric
  local plot="" k=0
  for name in "${names[@]}"; do
    k=$((k + 1))
    plot+="'$mean' using (\$1 == $k ? \$2 : 1/0):(\$1 == $k ? \$$1 : 1/0) with linespoints $(fl_curve $k "$speeds") title '$name membership', "
  done
  echo "${plot%, }"
}
title="GFL with clients moving between the servers' cells: $runs run(s), $iters iterations"
fl_gnuplot <<GP
set datafile separator ','
set terminal pngcairo size 1000,760 font ',8'
set output '$out'
set multiplot layout 2,2 title '$(fl_gp_quote "$title")'
set key top left
set xlabel 'speed of the clients [m/s]'
set ylabel 'centroid MSD, last quarter of the iterations [dB]'
plot $(curves 3)
set ylabel 'uploads aggregated per iteration (all servers)'
plot $(curves 4)
set ylabel 'sampled clients whose upload did not count, per iteration'
plot $(curves 5)
set ylabel 'simulated time per iteration [s]'
plot $(curves 6)
unset multiplot
GP
echo "plot: $out"
