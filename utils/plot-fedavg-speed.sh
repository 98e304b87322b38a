#!/usr/bin/env bash
# Plots a speed sweep of a FedAvg example (the merged.csv of utils/fl-sweep over --mobility
# specifications with min = max speed, e.g. doc/figures/fl-fedavg-speed.grid): against the
# clients' speed, the mean over the seeds of (a) the final test accuracy, (b) the simulated time
# to the target accuracy (runs that never reach it are left out and counted in the title), and
# (c) the uploads lost per round. Usage: plot-fedavg-speed.sh MERGED.csv [OUT.png] [TARGET]
set -euo pipefail
source "$(dirname "$0")/plot-common.sh"
in=${1:?usage: plot-fedavg-speed.sh MERGED.csv [OUT.png] [TARGET]}
out=${2:-${in%.csv}.png}
target=${3:-0.8}
[ -f "$in" ] || { echo "plot-fedavg-speed: no such file: $in" >&2; exit 2; }
command -v gnuplot >/dev/null || { echo "plot-fedavg-speed: gnuplot missing (utils/install-deps.sh installs it)" >&2; exit 2; }
head -1 "$in" | grep -q '^mobility,rng_run,round,time_s,' ||
  { echo "plot-fedavg-speed: $in is not a merged sweep CSV of --mobility (mobility,rng_run,round,time_s,...)" >&2; exit 2; }
per=$(mktemp)
mean=$(mktemp)
trap 'rm -f "$per" "$mean"' EXIT
# per (speed, seed): final accuracy, time to target (-1: never), lost uploads per round
/usr/bin/python3 - "$in" "$target" > "$per" <<'PY'
import csv, re, sys
rows = csv.DictReader(open(sys.argv[1]))
target = float(sys.argv[2])
runs = {}
for r in rows:
    m = re.search(r"min=([0-9.eE+-]+)", r["mobility"])
    if not m:
        sys.exit("plot-fedavg-speed: mobility '%s' has no min= speed" % r["mobility"])
    runs.setdefault((float(m.group(1)), r["rng_run"]), []).append(r)
for (speed, seed), rs in sorted(runs.items()):
    rs.sort(key=lambda r: int(r["round"]))
    t = next((float(r["time_s"]) for r in rs if float(r["test_accuracy"]) >= target), -1.0)
    rounds = max(1, len(rs) - 1)
    lost = sum(int(r["lost"]) for r in rs) / rounds
    print("%g,%s,%s,%g,%g" % (speed, seed, rs[-1]["test_accuracy"], t, lost))
PY
awk -F, '{ n[$1]++; a[$1] += $3; l[$1] += $5; if ($4 >= 0) { tn[$1]++; t[$1] += $4 } else never++ }
         END { for (s in n) printf "%s,%g,%s,%g\n", s, a[s] / n[s], (s in tn) ? t[s] / tn[s] : "nan", l[s] / n[s] }' "$per" |
  sort -t, -k1,1g > "$mean"
seeds=$(cut -d, -f2 "$per" | sort -u | wc -l)
never=$(awk -F, '$4 < 0' "$per" | wc -l)
title="FedAvg, moving clients: mean over $seeds seed(s); $never run(s) never reached accuracy $target"
if awk -F, '$4 >= 0 { found = 1 } END { exit !found }' "$per"; then
  timeplot="plot '$per' using 1:(\$4 >= 0 ? \$4 : 1/0) with points pt 7 ps 0.5 lc rgb '#999999', '$mean' using 1:3 with linespoints $(fl_curve 2 5)"
else
  # no run reached the target: an empty panel that says so (gnuplot cannot plot no point)
  timeplot="set label 1 'no run reached accuracy $target' at graph 0.5, graph 0.5 center
plot '$per' using 1:(0) with points lc rgb '#ffffff' notitle
unset label 1"
fi
fl_gnuplot <<GP
set datafile separator ','
set terminal pngcairo size 1200,380 font ',8'
set output '$out'
set multiplot layout 1,3 title '$(fl_gp_quote "$title")'
set xlabel 'speed of the clients [m/s]'
set logscale x
set autoscale xfix
set offsets graph 0.05, graph 0.05, 0, 0
set key off
set ylabel 'final test accuracy'
plot '$per' using 1:3 with points pt 7 ps 0.5 lc rgb '#999999', '$mean' using 1:2 with linespoints $(fl_curve 1 5)
set ylabel 'simulated time to accuracy $target [s]'
$timeplot
set ylabel 'uploads lost per round (count)'
plot '$per' using 1:5 with points pt 7 ps 0.5 lc rgb '#999999', '$mean' using 1:4 with linespoints $(fl_curve 3 5)
unset multiplot
GP
echo "plot: $out"
