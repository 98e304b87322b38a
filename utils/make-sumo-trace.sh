#!/usr/bin/env bash
# Makes the SUMO vehicle trace of the vehicular examples and tests, data/sumo/highway-2km.ns2:
# a straight 2 km road, two lanes each way, speed limit 25 m/s (90 km/h), cars entering at
# either end as Poisson flows of 0.1 car/s per direction for 240 s, simulated for 300 s in
# 1 s steps by SUMO, exported as an ns-2 movement trace (one $node_(i) per car, in order of
# first appearance) for ns-3's Ns2MobilityHelper.
#
# Usage: utils/make-sumo-trace.sh [SEED]   (default 1; the same seed and SUMO release give the
# same trace). Needs SUMO (Debian: apt-get install sumo sumo-tools; made with SUMO 1.15.0).
# Writes data/sumo/highway-2km.{net.xml,rou.xml,ns2} and data/sumo/highway-2km-activity.ns2
# (each car's first and last time, as SUMO's exporter writes them).
set -euo pipefail
seed="${1:-1}"
here="$(cd "$(dirname "$0")/.." && pwd)"
out="$here/data/sumo"
export SUMO_HOME="${SUMO_HOME:-/usr/share/sumo}"
tools="$SUMO_HOME/tools"
for p in netconvert sumo python3; do
  command -v "$p" >/dev/null || { echo "make-sumo-trace: $p not found (apt-get install sumo sumo-tools)" >&2; exit 2; }
done
[ -f "$tools/traceExporter.py" ] || { echo "make-sumo-trace: $tools/traceExporter.py not found (apt-get install sumo-tools, or set SUMO_HOME)" >&2; exit 2; }
mkdir -p "$out"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# The road: two nodes 2 km apart, one edge each way, two lanes each.
cat > "$work/road.nod.xml" <<'XML'
<nodes>
  <node id="W" x="0" y="0"/>
  <node id="E" x="2000" y="0"/>
</nodes>
XML
cat > "$work/road.edg.xml" <<'XML'
<edges>
  <edge id="east" from="W" to="E" numLanes="2" speed="25"/>
  <edge id="west" from="E" to="W" numLanes="2" speed="25"/>
</edges>
XML
netconvert --node-files "$work/road.nod.xml" --edge-files "$work/road.edg.xml" \
  --no-turnarounds true --output-file "$work/road.net.xml" >/dev/null
# (without netconvert's header comment, which holds the date and the temporary paths)
sed '/^<!-- generated on/,/^-->/d' "$work/road.net.xml" > "$out/highway-2km.net.xml"

# The traffic: Krauss cars (SUMO's default model), speed factor normal(1, 0.1) cut to
# [0.8, 1.2], driver imperfection 0.5; exponential headways of mean 10 s per direction.
cat > "$out/highway-2km.rou.xml" <<'XML'
<routes>
  <vType id="car" accel="2.6" decel="4.5" sigma="0.5" length="5" maxSpeed="33"
         speedFactor="normc(1,0.1,0.8,1.2)"/>
  <flow id="e" type="car" from="east" to="east" begin="0" end="240" period="exp(0.1)"
        departLane="random" departSpeed="max"/>
  <flow id="w" type="car" from="west" to="west" begin="0" end="240" period="exp(0.1)"
        departLane="random" departSpeed="max"/>
</routes>
XML
sumo --net-file "$out/highway-2km.net.xml" --route-files "$out/highway-2km.rou.xml" \
  --begin 0 --end 300 --step-length 1 --seed "$seed" --no-step-log true \
  --fcd-output "$work/fcd.xml" >/dev/null
python3 "$tools/traceExporter.py" --fcd-input "$work/fcd.xml" \
  --ns2mobility-output "$out/highway-2km.ns2" \
  --ns2activity-output "$out/highway-2km-activity.ns2" \
  --ns2config-output "$work/config.tcl" >/dev/null 2>&1
nodes=$(grep -o 'opt(nn) [0-9]*' "$work/config.tcl" | cut -d' ' -f2)
echo "make-sumo-trace: $nodes cars, $(wc -c < "$out/highway-2km.ns2") bytes: $out/highway-2km.ns2"
