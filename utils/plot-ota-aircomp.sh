#!/usr/bin/env bash
# Plots the CSV of fl-ota-aircomp: MSE of the over-the-air average against the mean SNR per
# sender and against the number of transmitters N; simulated points (with 95 % intervals) beside
# the analytic curve, each in its own style (utils/plot-common.sh). Usage: plot-ota-aircomp.sh
# IN.csv [OUT.png]
set -euo pipefail
source "$(dirname "$0")/plot-common.sh"
in=${1:?usage: plot-ota-aircomp.sh IN.csv [OUT.png]}
out=${2:-${in%.csv}.png}
[ -f "$in" ] || { echo "plot-ota-aircomp: no such file: $in" >&2; exit 2; }
command -v gnuplot >/dev/null || { echo "plot-ota-aircomp: gnuplot missing (utils/install-deps.sh installs it)" >&2; exit 2; }
head -1 "$in" | grep -q '^sweep,n,snr_db,tx_power_dbm,slots,dim,threshold,kappa,mse_sim,mse_sim_se,mse_given_channel,mse_analytic' ||
  { echo "plot-ota-aircomp: $in is not an fl-ota-aircomp CSV" >&2; exit 2; }
n=$(awk -F, '$1=="snr"{print $2; exit}' "$in")
snr=$(awk -F, '$1=="n"{print $3; exit}' "$in")
thr=$(awk -F, 'NR==2{print $7}' "$in")
fl_gnuplot <<GP
set datafile separator ','
set datafile missing 'nan'
set terminal pngcairo size 1300,520 font ',11'
set output '$out'
set multiplot layout 1,2 title "AirComp average, truncated channel inversion (|g|^2 >= $thr), block fading"
set logscale y
set format y '10^{%L}'
set ylabel 'MSE per entry of the estimated average (squared units of the vectors)'
set key top right
set xlabel 'mean SNR per sender P G / {/Symbol s}^2 [dB]'
set title 'N = $n'
plot '$in' using (strcol(1) eq 'snr_curve' ? \$3 : NaN):12 with lines lt 1 title 'analytic', \
     '' using (strcol(1) eq 'snr' ? \$3 : NaN):9:(1.96*\$10) with yerrorbars lt 2 title 'simulated (ns-3)', \
     '' using (strcol(1) eq 'snr' ? \$3 : NaN):11 with points lt 3 title 'given the drawn channels'
set logscale x
set xlabel 'transmitters N (count)'
set title 'SNR = $snr dB'
plot '$in' using (strcol(1) eq 'n_curve' ? \$2 : NaN):12 with lines lt 1 title 'analytic', \
     '' using (strcol(1) eq 'n' ? \$2 : NaN):9:(1.96*\$10) with yerrorbars lt 2 title 'simulated (ns-3)', \
     '' using (strcol(1) eq 'n' ? \$2 : NaN):11 with points lt 3 title 'given the drawn channels'
unset multiplot
GP
echo "plot: $out"
