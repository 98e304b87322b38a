#!/usr/bin/env bash
# Plots an fl-ega CSV (experiment,setting,round,client,metric,value) into small PNGs beside it:
#   <base>-sigma.png    codec error sigma of the measured codecs (Fig. 3)
#   <base>-rounds.png   test accuracy against round per setting, with FedAvg's target (Table 2)
#   <base>-algorithms.png  FedAvg, FedProx, loss-weighted FedAvg with and without EGA (Fig. 4)
#   <base>-network.png  uplink bytes per round and simulated round time over Wi-Fi (Fig. 5)
#   <base>-leakage.png  the victim's image, its reconstruction from the raw update and from the
#                       curious server's Eq. 2 estimate under EGA (needs the fl-ega-leak-*.txt
#                       matrices written by fl-ega --imageDir=IMGDIR)
# Curves in the styles of utils/plot-common.sh, at most 6 to a panel (the rounds panel splits its
# settings); titles from the CSV's rows (the settings, rounds and targets it holds).
# Usage: plot-ega.sh IN.csv [IMGDIR]   (IMGDIR defaults to the CSV's folder)
set -euo pipefail
source "$(dirname "$0")/plot-common.sh"
in=${1:?usage: plot-ega.sh IN.csv [IMGDIR]}
imgdir=${2:-$(dirname "$in")}
base=${in%.csv}
[ -f "$in" ] || { echo "plot-ega: no such file: $in" >&2; exit 2; }
command -v gnuplot >/dev/null || { echo "plot-ega: gnuplot missing (utils/install-deps.sh installs it)" >&2; exit 2; }
head -1 "$in" | grep -q '^experiment,setting,round,client,metric,value' ||
  { echo "plot-ega: $in is not an fl-ega CSV" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
has() { grep -q "^$1," "$in"; }
# <base>-<kind>.png, or <base>.png when the CSV is already named after the kind (fl-ega-rounds.csv)
png() { case "$base" in *-"$1") echo "$base.png" ;; *) echo "$base-$1.png" ;; esac; }

if has sigma; then
  awk -F, '$1 == "sigma" && $5 == "sigma" { print $2, $6 }' "$in" > "$tmp/sigma.dat"
  fl_gnuplot <<GP
set terminal pngcairo size 800,450 font ',9'
set output '$(png sigma)'
set title 'EGA Fig. 3: codec error {/Symbol s} (held-out) of the $(wc -l < "$tmp/sigma.dat") measured codecs'
set style fill solid 0.6
set boxwidth 0.6
set logscale y
set xtics rotate by -30
set xlabel 'codec (bits b, hidden h, seed s, clients m, epochs e)'
set ylabel '{/Symbol s} (quantisation units)'
plot '$tmp/sigma.dat' using 0:2:xticlabels(1) with boxes lt 1 notitle
GP
  echo "plot: $(png sigma)"
fi

if has rounds; then
  mapfile -t settings < <(awk -F, '$1 == "rounds" && $5 == "accuracy" { print $2 }' "$in" | awk '!seen[$0]++')
  target=$(awk -F, '$1 == "rounds" && $5 == "target_accuracy" { print $6; exit }' "$in")
  # panels of at most 5 settings and the target line
  mapfile -t chunks < <(FL_PLOT_MAX_CURVES=5 fl_chunks ${#settings[@]})
  panels=""
  for c in "${chunks[@]}"; do
    first=${c%%:*}; count=${c#*:}
    plot=""; k=0
    for s in "${settings[@]:$((first - 1)):$count}"; do
      k=$((k + 1))
      awk -F, -v s="$s" '$1 == "rounds" && $2 == s && $5 == "accuracy" { print $3, $6 }' "$in" > "$tmp/r-$s.dat"
      plot+="'$tmp/r-$s.dat' using 1:2 with linespoints $(fl_curve $k "$(wc -l < "$tmp/r-$s.dat")") title '$s', "
    done
    panels+="plot ${plot} ${target:-0} with lines lt 6 title 'target (FedAvg best)'
"
  done
  last=$(awk -F, '$1 == "rounds" && $5 == "accuracy" && $3 > r { r = $3 } END { print r + 0 }' "$in")
  fl_gnuplot <<GP
set terminal pngcairo size $((800 * ${#chunks[@]})),500 font ',10'
set output '$(png rounds)'
set multiplot layout 1,${#chunks[@]} title 'EGA Table 2 protocol: test accuracy per round of ${#settings[@]} settings (up to $last rounds); target: FedAvg best in its rounds, ${target:-?}'
set key bottom right
set xlabel 'round'
set ylabel 'test accuracy (fraction)'
$panels
unset multiplot
GP
  echo "plot: $(png rounds)"
fi

if has algorithms; then
  mapfile -t settings < <(awk -F, '$1 == "algorithms" && $5 == "accuracy" { print $2 }' "$in" | awk '!seen[$0]++')
  [ ${#settings[@]} -le "$FL_PLOT_MAX_CURVES" ] ||
    { echo "plot-ega: ${#settings[@]} algorithms, more than $FL_PLOT_MAX_CURVES curves in a panel" >&2; exit 2; }
  plot=""; k=0
  for s in "${settings[@]}"; do
    k=$((k + 1))
    awk -F, -v s="$s" '$1 == "algorithms" && $2 == s && $5 == "accuracy" { print $3, $6 }' "$in" > "$tmp/a-$s.dat"
    plot+="'$tmp/a-$s.dat' using 1:2 with linespoints $(fl_curve $k "$(wc -l < "$tmp/a-$s.dat")") title '$s', "
  done
  fl_gnuplot <<GP
set terminal pngcairo size 800,500 font ',10'
set output '$(png algorithms)'
set title 'EGA Fig. 4: FedAvg, FedProx, loss-weighted FedAvg without and with EGA 1x (-ega)'
set key bottom right
set xlabel 'round'
set ylabel 'test accuracy (fraction)'
plot ${plot%, }
GP
  echo "plot: $(png algorithms)"
fi

if has network; then
  awk -F, '$1 == "network" && $3 == -1 && $5 == "uplink_bytes_per_round" { up[$2] = $6; order[++n] = $2 }
           $1 == "network" && $3 == -1 && $5 == "round_time_s_mean" { t[$2] = $6 }
           END { for (i = 1; i <= n; ++i) print order[i], up[order[i]] / 1000, t[order[i]] * 1000 }' "$in" > "$tmp/net.dat"
  fl_gnuplot <<GP
set terminal pngcairo size 900,420 font ',10'
set output '$(png network)'
set multiplot layout 1,2 title 'EGA Fig. 5: over 802.11n Wi-Fi (TCP), per round, all clients'
set style fill solid 0.6
set boxwidth 0.6
set yrange [0:*]
set xlabel 'setting'
set ylabel 'uplink [kB]'
plot '$tmp/net.dat' using 0:2:xticlabels(1) with boxes lt 1 notitle
set ylabel 'simulated round time [ms]'
plot '$tmp/net.dat' using 0:3:xticlabels(1) with boxes lt 2 notitle
unset multiplot
GP
  echo "plot: $(png network)"
fi

if has leakage && [ -f "$imgdir/fl-ega-leak-original.txt" ]; then
  panels=(original raw)
  for s in ega-linear ega-1x ega-2x ega-4x ega-8x; do
    [ -f "$imgdir/fl-ega-leak-$s.txt" ] && panels+=("$s")
  done
  psnr() { awk -F, -v s="$1" '$1 == "leakage" && $2 == s && $3 == 0 && $5 == "psnr_db" { printf "%.1f dB", $6 }' "$in"; }
  {
    echo "set terminal pngcairo size $((180 * ${#panels[@]})),220 font ',9'"
    echo "set output '$(png leakage)'"
    echo "set multiplot layout 1,${#panels[@]} title 'EGA leakage: input reconstruction from one client update (x = dW row / db)'"
    echo "unset xtics; unset ytics; unset colorbox; set palette gray; set cbrange [0:1]; set yrange [*:*] reverse; set size ratio -1"
    for p in "${panels[@]}"; do
      t=$p
      [ "$p" != original ] && t="$p $(psnr "$p")"
      echo "set title '$t'"
      echo "plot '$imgdir/fl-ega-leak-$p.txt' matrix with image notitle"
    done
    echo "unset multiplot"
  } | fl_gnuplot
  echo "plot: $(png leakage)"
fi
