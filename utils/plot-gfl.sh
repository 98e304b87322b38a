#!/usr/bin/env bash
# Plots an fl-gfl / fl-ghp CSV (iteration,variant,metric,value) with gnuplot:
#  * figures gfl, fl, ghp: centroid MSD and average individual MSD [dB] against iteration, one
#    line per variant; with epsilon rows (--clip > 0) a third panel with epsilon(i);
#  * sweeps gfl3, gfl4, fl6 (variants "<figure>/<scheme>/<parameter>=<value>"): one column per
#    <figure>/<scheme>, one line per value; top row centroid MSD, bottom row average individual
#    MSD (not for fl6: one server, the two are the same); common y range per row;
#  * class (test_error rows): centroid and servers' mean test error, one line per variant.
# Usage: plot-gfl.sh IN.csv [OUT.png]
#
# GHP over the network (a separate function, see plot_ghp_network below):
#   plot-gfl.sh --ghp-network OUT.csv SETTING=IN.csv [SETTING=IN.csv ...]
# merges fl-ghp --mode=network CSVs of several settings (e.g. lossless=a.csv lossy=b.csv) into
# one tidy CSV OUT.csv (variant = SETTING/ghp/<noise>; iteration 0, then means over blocks of 10
# iterations labelled by the block's last iteration, MSDs averaged in linear scale before dB) and
# plots OUT.png: centroid MSD, average MSD, loss rate and centroid drift, one line per (setting,
# noise).
set -euo pipefail

plot_ghp_network() { # OUT.csv SETTING=IN.csv ...
  local out=${1:?usage: plot-gfl.sh --ghp-network OUT.csv SETTING=IN.csv ...}
  shift
  [ $# -gt 0 ] || { echo "plot-gfl: --ghp-network needs SETTING=IN.csv arguments" >&2; exit 2; }
  command -v gnuplot >/dev/null || { echo "plot-gfl: gnuplot missing (utils/install-deps.sh installs it)" >&2; exit 2; }
  echo "iteration,variant,metric,value" > "$out"
  local arg setting file
  for arg in "$@"; do
    setting=${arg%%=*}
    file=${arg#*=}
    [ -f "$file" ] || { echo "plot-gfl: no such file: $file" >&2; exit 2; }
    head -1 "$file" | grep -q '^iteration,variant,metric,value' ||
      { echo "plot-gfl: $file is not an fl-ghp CSV" >&2; exit 2; }
    tail -n +2 "$file" | awk -F, -v s="$setting" '
      $2 !~ /^ghp\// { next }
      {
        db = ($3 ~ /_db$/); v = db ? 10 ^ ($4 / 10) : $4
        b = $1 == 0 ? 0 : int(($1 + 9) / 10) * 10
        k = $2 SUBSEP $3 SUBSEP b
        if (!(k in n)) { order[++m] = k }
        sum[k] += v; n[k]++; isdb[k] = db
      }
      END {
        for (j = 1; j <= m; j++) {
          k = order[j]; split(k, f, SUBSEP); mean = sum[k] / n[k]
          printf "%d,%s/%s,%s,%.10g\n", f[3], s, f[1], f[2], isdb[k] ? 10 * log(mean) / log(10) : mean
        }
      }' >> "$out"
  done
  local png=${out%.csv}.png
  local -a vs
  mapfile -t vs < <(tail -n +2 "$out" | awk -F, '$3 == "msd_centroid_db" && !seen[$2]++ { print $2 }')
  [ ${#vs[@]} -gt 0 ] || { echo "plot-gfl: no GHP msd_centroid_db rows" >&2; exit 2; }
  glines() { # $1 = metric; dashed lines for the second and later settings
    local plot="" v n=0 first=${vs[0]%%/*}
    for v in "${vs[@]}"; do
      n=$((n + 1))
      local dt=1
      [ "${v%%/*}" != "$first" ] && dt=2
      plot+="'$out' using (strcol(2) eq '$v' && strcol(3) eq '$1' ? \$1 : 1/0):(strcol(2) eq '$v' && strcol(3) eq '$1' ? \$4 : 1/0) with lines lw 1.5 dt $dt lc $(( (n - 1) % 3 + 1 )) title '$v', "
    done
    echo "${plot%, }"
  }
  gnuplot <<GP
set datafile separator ','
set terminal pngcairo size 1000,700 font ',8'
set output '$png'
set multiplot layout 2,2 title "GHP Fig. 1 over 802.11 ad hoc broadcast (block means of 10 iterations): $(basename "$out")"
set grid
set key below
set xlabel 'iteration'
set ylabel 'centroid MSD [dB]'
plot $(glines msd_centroid_db)
set ylabel 'average individual MSD [dB]'
plot $(glines msd_average_db)
set ylabel 'lost neighbour messages / directed links'
plot $(glines loss_rate)
set ylabel 'centroid drift'
set logscale y
plot $(glines centroid_drift)
unset multiplot
GP
  echo "plot: $png ($out)"
}

if [ "${1:-}" = "--ghp-network" ]; then
  shift
  plot_ghp_network "$@"
  exit 0
fi

in=${1:?usage: plot-gfl.sh IN.csv [OUT.png]}
out=${2:-${in%.csv}.png}
[ -f "$in" ] || { echo "plot-gfl: no such file: $in" >&2; exit 2; }
command -v gnuplot >/dev/null || { echo "plot-gfl: gnuplot missing (utils/install-deps.sh installs it)" >&2; exit 2; }
head -1 "$in" | grep -q '^iteration,variant,metric,value' ||
  { echo "plot-gfl: $in is not an fl-gfl CSV" >&2; exit 2; }
mapfile -t variants < <(tail -n +2 "$in" | awk -F, '$3 == "msd_centroid_db" && !seen[$2]++ { print $2 }')
mapfile -t classVariants < <(tail -n +2 "$in" | awk -F, '$3 == "test_error" && !seen[$2]++ { print $2 }')
[ ${#variants[@]} -gt 0 ] || [ ${#classVariants[@]} -gt 0 ] ||
  { echo "plot-gfl: no msd_centroid_db or test_error rows in $in" >&2; exit 2; }
# $1 = metric, $2 = title mode (full: the variant; last: after the last '/'), rest = variants
lines() {
  local metric=$1 mode=$2 plot="" v t
  shift 2
  for v in "$@"; do
    t=$v
    [ "$mode" = last ] && t=${v##*/}
    plot+="'$in' using (strcol(2) eq '$v' && strcol(3) eq '$metric' ? \$1 : 1/0):(strcol(2) eq '$v' && strcol(3) eq '$metric' ? \$4 : 1/0) with lines lw 2 title '$t', "
  done
  echo "${plot%, }"
}

if [ ${#variants[@]} -eq 0 ]; then # classification: test errors
  gnuplot <<GP
set datafile separator ','
set terminal pngcairo size 840,480 font ',9'
set output '$out'
set multiplot layout 1,2 title "$(basename "$in")"
set grid
set key below
set xlabel 'iteration'
set ylabel 'centroid test error'
plot $(lines test_error full "${classVariants[@]}")
set ylabel "servers' mean test error"
plot $(lines test_error_average full "${classVariants[@]}")
unset multiplot
GP
  echo "plot: $out"
  exit 0
fi

if [[ ${variants[0]} == */*/* ]]; then # a sweep: one column per figure/scheme
  mapfile -t groups < <(printf '%s\n' "${variants[@]}" | awk -F/ '!seen[$1"/"$2]++ { print $1"/"$2 }')
  range() { # $1 = metric: "[lo:hi]" over all rows, 1 dB margins
    awk -F, -v m="$1" 'NR > 1 && $3 == m { if (lo == "" || $4 < lo) lo = $4; if (hi == "" || $4 > hi) hi = $4 }
      END { printf "[%d:%d]", lo - 1, hi + 6 }' "$in"
  }
  rows=2
  [[ ${variants[0]} == fl6* ]] && rows=1
  cols=${#groups[@]}
  {
    echo "set datafile separator ','"
    echo "set terminal pngcairo size $((cols * 300)),$((rows * 280 + 40)) font ',8'"
    echo "set output '$out'"
    echo "set multiplot layout $rows,$cols title \"$(basename "$in")\""
    echo "set grid; set key top right font ',7' samplen 2 spacing 0.8; set xlabel 'iteration'"
    for metric in msd_centroid_db msd_average_db; do
      [ "$metric" = msd_average_db ] && [ $rows -eq 1 ] && continue
      label='centroid MSD [dB]'
      [ "$metric" = msd_average_db ] && label='average MSD [dB]'
      echo "set yrange $(range $metric)"
      for g in "${groups[@]}"; do
        mapfile -t members < <(printf '%s\n' "${variants[@]}" | awk -v g="$g/" 'index($0, g) == 1')
        echo "set title '$g'; set ylabel '$label'"
        echo "plot $(lines $metric last "${members[@]}")"
      done
    done
    echo "unset multiplot"
  } | gnuplot
  echo "plot: $out"
  exit 0
fi

haveEps=$(awk -F, 'NR > 1 && $3 == "epsilon_one_link" { f = 1 } END { if (f) print 1 }' "$in")
panels=2
[ -n "$haveEps" ] && panels=5
gnuplot <<GP
set datafile separator ','
set terminal pngcairo size $((panels * 420)),520 font ',9'
set output '$out'
set multiplot layout 1,$panels title "$(basename "$in")"
set grid
set key below
set xlabel 'iteration'
set ylabel 'centroid MSD [dB]'
plot $(lines msd_centroid_db full "${variants[@]}")
set ylabel 'average individual MSD [dB]'
plot $(lines msd_average_db full "${variants[@]}")
$( [ -n "$haveEps" ] && echo "set ylabel 'epsilon(i), an eavesdropper on one link'; set logscale y; set key top left; plot $(lines epsilon_one_link full "${variants[@]}")" )
$( [ -n "$haveEps" ] && echo "set ylabel 'epsilon(i), an eavesdropper on all links of a node'; set logscale y; set key top left; plot $(lines epsilon_all_links full "${variants[@]}")" )
$( [ -n "$haveEps" ] && echo "set ylabel 'epsilon(i), a neighbouring node'; set logscale y; set key top left; plot $(lines epsilon_neighbour full "${variants[@]}")" )
unset multiplot
GP
echo "plot: $out"
