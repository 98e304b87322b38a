# Shared by the utils/plot-*.sh scripts (sourced, not run): one look for every plot.
#  * At most FL_PLOT_MAX_CURVES (6) curves in a panel; a script with more splits them over panels.
#  * Curve k of a panel (1..6) is "lt k": its own colour (Okabe and Ito's palette, distinct for
#    colour-blind readers too), marker and dash pattern, so that curves that coincide stay
#    visible (fl_curve also spaces each curve's markers differently).
#  * Every axis is labelled with its unit; titles say what ran (from the CSV's columns and '#'
#    lines), never a file name.
# fl_gnuplot runs gnuplot with this style ahead of the script on its standard input; with
# FL_PLOT_SCRIPT=FILE it also appends the whole gnuplot program to FILE (test/check-plots.py
# checks these rules on it).

FL_PLOT_MAX_CURVES=6

fl_plot_style() {
  cat <<'GP'
set linetype 1 lc rgb '#0072B2' lw 2 pt 7 ps 0.8 dt 1
set linetype 2 lc rgb '#D55E00' lw 2 pt 5 ps 0.8 dt 2
set linetype 3 lc rgb '#009E73' lw 2 pt 9 ps 0.9 dt 4
set linetype 4 lc rgb '#CC79A7' lw 2 pt 13 ps 0.9 dt 5
set linetype 5 lc rgb '#E69F00' lw 2 pt 11 ps 0.9 dt 3
set linetype 6 lc rgb '#000000' lw 2 pt 3 ps 0.9 dt (8,4,2,4)
set linetype cycle 6
set grid
GP
}

fl_gnuplot() {
  local program
  program=$(fl_plot_style; cat)
  if [ -n "${FL_PLOT_SCRIPT:-}" ]; then
    printf '%s\n# --- end of program\n' "$program" >> "$FL_PLOT_SCRIPT"
  fi
  printf '%s\n' "$program" | gnuplot
}

# fl_curve K ROWS: the style of curve K of a panel whose curves have about ROWS points: its line
# type, and a marker every few points (about 8 per curve; curve K every (n + K - 1) points, so
# that the markers of curves that coincide do not cover each other).
fl_curve() {
  local k=$1 rows=${2:-8} every
  every=$(( rows / 8 ))
  [ "$every" -lt 1 ] && every=1
  echo "lt $k pi $(( every + k - 1 ))"
}

# fl_chunks N: the panels for N curves, at most FL_PLOT_MAX_CURVES each, as "first:count" pairs
# (1-based) of sizes as even as possible.
fl_chunks() {
  local n=$1 panels size first=1 i
  panels=$(( (n + FL_PLOT_MAX_CURVES - 1) / FL_PLOT_MAX_CURVES ))
  [ "$panels" -lt 1 ] && panels=1
  for ((i = 0; i < panels; i++)); do
    size=$(( (n - first + 1 + panels - i - 1) / (panels - i) ))
    echo "$first:$size"
    first=$(( first + size ))
  done
}

# fl_gp_quote TEXT: TEXT for a gnuplot string in single quotes (a quote is doubled).
fl_gp_quote() {
  printf '%s' "${1//\'/\'\'}"
}
