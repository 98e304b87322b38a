#!/usr/bin/env bash
# Plots the aggregate error of an fl-dwfl run (--aggregateOutput CSV): per round, the mean over
# the receivers of ||v_i / c - sum_{k != i} x_k||^2 / d (receiver and artificial noise, and on a
# moving channel the misalignment of senders aligned on aged estimates), averaged over the seeds,
# one curve per series (log scale), at most 6 curves per panel (utils/plot-common.sh).
# Usage: plot-dwfl-aggregate.sh IN.csv [OUT.png]
set -euo pipefail
source "$(dirname "$0")/plot-common.sh"
in=${1:?usage: plot-dwfl-aggregate.sh IN.csv [OUT.png]}
out=${2:-${in%.csv}.png}
[ -f "$in" ] || { echo "plot-dwfl-aggregate: no such file: $in" >&2; exit 2; }
command -v gnuplot >/dev/null || { echo "plot-dwfl-aggregate: gnuplot missing (utils/install-deps.sh installs it)" >&2; exit 2; }
head -1 "$in" | grep -q '^figure,series,rng_run,round,aggregate_mse,receivers' ||
  { echo "plot-dwfl-aggregate: $in is not an fl-dwfl --aggregateOutput CSV" >&2; exit 2; }
mean=$(mktemp)
trap 'rm -f "$mean"' EXIT
# the mean over the seeds of every (series, round), in order of appearance
awk -F, 'NR > 1 { k = $2 "," $4; if (!(k in n)) order[++m] = k; n[k]++; s[k] += $5;
                  if (!($2 in seeds)) seeds[$2] = 0; if ($3 > 0 && !(($2, $3) in seen)) { seen[$2, $3]; seeds[$2]++ } }
         END { for (i = 1; i <= m; i++) { split(order[i], p, ","); print p[1] "," p[2] "," s[order[i]] / n[order[i]] } }' \
  "$in" > "$mean"
figure=$(awk -F, 'NR == 2 { print $1; exit }' "$in")
runs=$(awk -F, 'NR > 1 { seen[$3] } END { print length(seen) }' "$in")
rounds=$(awk -F, 'NR > 1 && $4 > n { n = $4 } END { print n + 0 }' "$in")
mapfile -t series < <(cut -d, -f1 "$mean" | awk '!seen[$0]++')
title="DWFL aggregate error, --figure=$figure: mean over the receivers of ||v_i/c - sum_(k!=i) x_k||^2/d, $runs seed(s), $rounds rounds"
panels=""
nrows=0
while read -r c; do
  f=${c%%:*}; count=${c#*:}
  panel=("${series[@]:$((f - 1)):$count}")
  nrows=$((nrows + 1))
  plot="" k=0
  for s in "${panel[@]}"; do
    k=$((k + 1))
    q=$(fl_gp_quote "$s")
    plot+="'$mean' using (strcol(1) eq '$q' ? \$2 : 1/0):(strcol(1) eq '$q' ? \$3 : 1/0) with linespoints $(fl_curve $k $((rounds + 1))) title '$q', "
  done
  panels+="set key top left
set xlabel 'round'
set ylabel 'aggregate error (squared, per coordinate)'
set logscale y
plot ${plot%, }
"
done < <(fl_chunks ${#series[@]})
fl_gnuplot <<GP
set datafile separator ','
set terminal pngcairo size 900,$((nrows * 360 + 50)) font ',8'
set output '$out'
set multiplot layout $nrows,1 title '$(fl_gp_quote "$title")'
$panels
unset multiplot
GP
echo "plot: $out"
