#!/usr/bin/env bash
# Plots an fl-gfl / fl-ghp CSV (iteration,variant,metric,value) with gnuplot, at most 6 curves per
# panel (utils/plot-common.sh), titles from the figures the CSV holds:
#  * figures gfl, fl, ghp (all: the three): one row of panels per figure (the variant's prefix):
#    centroid MSD and average individual MSD [dB] against iteration, one curve per variant; with
#    epsilon rows (--clip > 0) three more panels, epsilon(i) against an eavesdropper on one link,
#    on all links of a node, and against a neighbouring node;
#  * sweeps gfl3, gfl4, fl6 (variants "<figure>/<scheme>/<parameter>=<value>"): one column per
#    <figure>/<scheme> (split when it has more than 6 values), one curve per value; top row
#    centroid MSD, bottom row average individual MSD (not for fl6: one server, the two are the
#    same); common y range per row;
#  * class (test_error rows): centroid and servers' mean test error, one curve per variant.
# Usage: plot-gfl.sh IN.csv [OUT.png]
#
# GHP over the network (a separate function, see plot_ghp_network below):
#   plot-gfl.sh --ghp-network OUT.csv SETTING=IN.csv [SETTING=IN.csv ...]
# merges fl-ghp --mode=network CSVs of several settings (e.g. lossless=a.csv lossy=b.csv) into
# one tidy CSV OUT.csv (variant = SETTING/ghp/<noise>; iteration 0, then means over blocks of 10
# iterations labelled by the block's last iteration, MSDs averaged in linear scale before dB) and
# plots OUT.png: centroid MSD, average MSD, loss rate and centroid drift, one curve per (setting,
# noise), one row of panels per 6 of them.
set -euo pipefail
source "$(dirname "$0")/plot-common.sh"

# The figure a variant prefix stands for (the papers' own figure numbers).
figure_name() {
  case "$1" in
    gfl) echo "GFL Fig. 2 (Rizk, Vlaski, Sayed 2022): noise at the servers" ;;
    fl) echo "GFL journal Fig. 5: noisy models against noisy updates" ;;
    ghp) echo "GHP Fig. 1 (Vlaski, Sayed, ICASSP 2021): diffusion" ;;
    gfl3) echo "GFL Fig. 3: steady state against the noise variance" ;;
    gfl4) echo "GFL Fig. 4: against the step size" ;;
    fl6) echo "GFL journal Fig. 6" ;;
    class) echo "two Fashion-MNIST classes" ;;
    *) echo "$1" ;;
  esac
}

# $1 = file, $2 = metric, $3 = title mode (full: the variant; last: after the last '/'), rest =
# variants (at most 6): one curve each, with its own style
lines() {
  local file=$1 metric=$2 mode=$3 plot="" v t k=0 rows
  shift 3
  rows=$(awk -F, -v m="$metric" -v v="$1" 'NR > 1 && $2 == v && $3 == m { n++ } END { print n + 0 }' "$file")
  for v in "$@"; do
    k=$((k + 1))
    t=$v
    [ "$mode" = last ] && t=${v##*/}
    plot+="'$file' using (strcol(2) eq '$v' && strcol(3) eq '$metric' ? \$1 : 1/0):(strcol(2) eq '$v' && strcol(3) eq '$metric' ? \$4 : 1/0) with linespoints $(fl_curve $k "$rows") title '$(fl_gp_quote "$t")', "
  done
  echo "${plot%, }"
}

plot_ghp_network() { # OUT.csv SETTING=IN.csv ...
  local out=${1:?usage: plot-gfl.sh --ghp-network OUT.csv SETTING=IN.csv ...}
  shift
  [ $# -gt 0 ] || { echo "plot-gfl: --ghp-network needs SETTING=IN.csv arguments" >&2; exit 2; }
  command -v gnuplot >/dev/null || { echo "plot-gfl: gnuplot missing (utils/install-deps.sh installs it)" >&2; exit 2; }
  echo "iteration,variant,metric,value" > "$out"
  local arg setting file settings=""
  for arg in "$@"; do
    setting=${arg%%=*}
    file=${arg#*=}
    settings+="${settings:+, }$setting"
    [ -f "$file" ] || { echo "plot-gfl: no such file: $file" >&2; exit 2; }
    head -1 "$file" | grep -q '^iteration,variant,metric,value' ||
      { echo "plot-gfl: $file is not an fl-ghp CSV" >&2; exit 2; }
    tail -n +2 "$file" | awk -F, -v s="$setting" '
      /^#/ { next }
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
  local -a vs chunks
  mapfile -t vs < <(tail -n +2 "$out" | awk -F, '$3 == "msd_centroid_db" && !seen[$2]++ { print $2 }')
  [ ${#vs[@]} -gt 0 ] || { echo "plot-gfl: no GHP msd_centroid_db rows" >&2; exit 2; }
  mapfile -t chunks < <(fl_chunks ${#vs[@]})
  local c first count
  {
    echo "set datafile separator ','"
    echo "set terminal pngcairo size 1400,$(( 330 * ${#chunks[@]} + 60 )) font ',8'"
    echo "set output '$png'"
    echo "set multiplot layout ${#chunks[@]},4 title '$(fl_gp_quote "GHP Fig. 1 over 802.11 ad hoc broadcast, settings $settings (means over blocks of 10 iterations)")'"
    echo "set key below"
    echo "set xlabel 'iteration'"
    for c in "${chunks[@]}"; do
      first=${c%%:*}; count=${c#*:}
      local part=("${vs[@]:$((first - 1)):$count}")
      echo "unset logscale y"
      echo "set ylabel 'centroid MSD [dB]'"
      echo "plot $(lines "$out" msd_centroid_db full "${part[@]}")"
      echo "set ylabel 'average individual MSD [dB]'"
      echo "plot $(lines "$out" msd_average_db full "${part[@]}")"
      echo "set ylabel 'lost neighbour messages per directed link'"
      echo "plot $(lines "$out" loss_rate full "${part[@]}")"
      echo "set ylabel 'centroid drift (squared norm)'"
      echo "set logscale y"
      echo "plot $(lines "$out" centroid_drift full "${part[@]}")"
    done
    echo "unset multiplot"
  } | fl_gnuplot
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
mapfile -t variants < <(tail -n +2 "$in" | awk -F, '!/^#/ && $3 == "msd_centroid_db" && !seen[$2]++ { print $2 }')
mapfile -t classVariants < <(tail -n +2 "$in" | awk -F, '!/^#/ && $3 == "test_error" && !seen[$2]++ { print $2 }')
[ ${#variants[@]} -gt 0 ] || [ ${#classVariants[@]} -gt 0 ] ||
  { echo "plot-gfl: no msd_centroid_db or test_error rows in $in" >&2; exit 2; }
iterations=$(awk -F, 'NR > 1 && !/^#/ && $1 > n { n = $1 } END { print n + 0 }' "$in")

if [ ${#variants[@]} -eq 0 ]; then # classification: test errors
  mapfile -t chunks < <(fl_chunks ${#classVariants[@]})
  {
    echo "set datafile separator ','"
    echo "set terminal pngcairo size 840,$(( 420 * ${#chunks[@]} + 60 )) font ',9'"
    echo "set output '$out'"
    echo "set multiplot layout ${#chunks[@]},2 title '$(fl_gp_quote "$(figure_name class): GFL, $iterations iterations")'"
    echo "set key below"
    echo "set xlabel 'iteration'"
    for c in "${chunks[@]}"; do
      first=${c%%:*}; count=${c#*:}
      part=("${classVariants[@]:$((first - 1)):$count}")
      echo "set ylabel 'centroid test error (fraction)'"
      echo "plot $(lines "$in" test_error full "${part[@]}")"
      echo "set ylabel 'servers'' mean test error (fraction)'"
      echo "plot $(lines "$in" test_error_average full "${part[@]}")"
    done
    echo "unset multiplot"
  } | fl_gnuplot
  echo "plot: $out"
  exit 0
fi

if [[ ${variants[0]} == */*/* ]]; then # a sweep: one column per figure/scheme (and chunk)
  mapfile -t groups < <(printf '%s\n' "${variants[@]}" | awk -F/ '!seen[$1"/"$2]++ { print $1"/"$2 }')
  range() { # $1 = metric: "[lo:hi]" over all rows, 1 dB margins
    awk -F, -v m="$1" 'NR > 1 && !/^#/ && $3 == m { if (lo == "" || $4 < lo) lo = $4; if (hi == "" || $4 > hi) hi = $4 }
      END { printf "[%d:%d]", lo - 1, hi + 6 }' "$in"
  }
  # the panels: (group, first, count) with at most 6 values each
  panels=()
  for g in "${groups[@]}"; do
    mapfile -t members < <(printf '%s\n' "${variants[@]}" | awk -v g="$g/" 'index($0, g) == 1')
    while read -r c; do panels+=("$g|$c"); done < <(fl_chunks ${#members[@]})
  done
  rows=2
  [[ ${variants[0]} == fl6* ]] && rows=1
  cols=${#panels[@]}
  fig=${variants[0]%%/*}
  {
    echo "set datafile separator ','"
    echo "set terminal pngcairo size $((cols * 320)),$((rows * 300 + 40)) font ',8'"
    echo "set output '$out'"
    echo "set multiplot layout $rows,$cols title '$(fl_gp_quote "$(figure_name "$fig"), $iterations iterations")'"
    echo "set key top right font ',7' samplen 2 spacing 0.8; set xlabel 'iteration'"
    for metric in msd_centroid_db msd_average_db; do
      [ "$metric" = msd_average_db ] && [ $rows -eq 1 ] && continue
      label='centroid MSD [dB]'
      [ "$metric" = msd_average_db ] && label='average individual MSD [dB]'
      echo "set yrange $(range $metric)"
      for p in "${panels[@]}"; do
        g=${p%%|*}; c=${p#*|}; first=${c%%:*}; count=${c#*:}
        mapfile -t members < <(printf '%s\n' "${variants[@]}" | awk -v g="$g/" 'index($0, g) == 1')
        part=("${members[@]:$((first - 1)):$count}")
        echo "set title '$(fl_gp_quote "${g#*/}")'; set ylabel '$label'"
        echo "plot $(lines "$in" $metric last "${part[@]}")"
      done
    done
    echo "unset multiplot"
  } | fl_gnuplot
  echo "plot: $out"
  exit 0
fi

# figures: one row of panels per figure (variant prefix), split at 6 variants
haveEps=$(awk -F, 'NR > 1 && !/^#/ && $3 == "epsilon_one_link" { f = 1 } END { if (f) print 1 }' "$in")
panels=2
[ -n "$haveEps" ] && panels=5
mapfile -t figures < <(printf '%s\n' "${variants[@]}" | awk -F/ '!seen[$1]++ { print $1 }')
rowsOut=()
for f in "${figures[@]}"; do
  mapfile -t members < <(printf '%s\n' "${variants[@]}" | awk -v g="$f/" 'index($0, g) == 1')
  while read -r c; do rowsOut+=("$f|$c"); done < <(fl_chunks ${#members[@]})
done
if [ ${#figures[@]} -eq 1 ]; then
  names=$(figure_name "${figures[0]}")
else
  names="GFL and GHP, ${#figures[@]} figures (one per row)"
fi
{
  echo "set datafile separator ','"
  echo "set terminal pngcairo size $((panels * 420)),$(( ${#rowsOut[@]} * 400 + 60 )) font ',9'"
  echo "set output '$out'"
  echo "set multiplot layout ${#rowsOut[@]},$panels title '$(fl_gp_quote "$names; $iterations iterations")'"
  echo "set key below"
  echo "set xlabel 'iteration'"
  for r in "${rowsOut[@]}"; do
    f=${r%%|*}; c=${r#*|}; first=${c%%:*}; count=${c#*:}
    mapfile -t members < <(printf '%s\n' "${variants[@]}" | awk -v g="$f/" 'index($0, g) == 1')
    part=("${members[@]:$((first - 1)):$count}")
    echo "unset logscale y; set key below"
    echo "set title '$(fl_gp_quote "$(figure_name "$f")")'"
    echo "set ylabel 'centroid MSD [dB]'"
    echo "plot $(lines "$in" msd_centroid_db last "${part[@]}")"
    echo "set title ''"
    echo "set ylabel 'average individual MSD [dB]'"
    echo "plot $(lines "$in" msd_average_db last "${part[@]}")"
    if [ -n "$haveEps" ]; then
      echo "set ylabel 'epsilon(i), an eavesdropper on one link (dimensionless)'; set logscale y; set key top left"
      echo "plot $(lines "$in" epsilon_one_link last "${part[@]}")"
      echo "set ylabel 'epsilon(i), an eavesdropper on all links of a node (dimensionless)'"
      echo "plot $(lines "$in" epsilon_all_links last "${part[@]}")"
      echo "set ylabel 'epsilon(i), a neighbouring node (dimensionless)'"
      echo "plot $(lines "$in" epsilon_neighbour last "${part[@]}")"
    fi
  done
  echo "unset multiplot"
} | fl_gnuplot
echo "plot: $out"
