#!/usr/bin/env bash
# Stops the daemons utils/setup-slurm.sh started, by the PIDs it recorded (never by name).
set -euo pipefail

STATE=/tmp/fl-slurm
while [ $# -gt 0 ]; do
  case "$1" in
    --state) STATE="${2:?--state needs a directory}"; shift 2 ;;
    -h|--help)
      echo "Usage: utils/stop-slurm.sh [--state DIR]   (default /tmp/fl-slurm)"
      echo "Stops slurmd, slurmctld and munged by the PIDs in DIR/pids (TERM, then KILL after 10 s)."
      exit 0 ;;
    *) echo "stop-slurm: unknown option '$1' (fix: see --help)" >&2; exit 2 ;;
  esac
done
if [ ! -f "$STATE/pids" ]; then
  echo "stop-slurm: no $STATE/pids: nothing started there (fix: give --state of utils/setup-slurm.sh)" >&2
  exit 0
fi
# Reverse order: slurmd, slurmctld, munged. Each PID is a `timeout` whose child is the daemon:
# TERM to timeout is passed on to the daemon.
tac "$STATE/pids" | while read -r name pid; do
  if kill -0 "$pid" 2>/dev/null; then
    kill -TERM "$pid" 2>/dev/null || true
    for i in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    if kill -0 "$pid" 2>/dev/null; then kill -KILL "$pid" 2>/dev/null || true; fi
    echo "stop-slurm: stopped $name ($pid)"
  fi
done
# The daemons' own PID files (children of the timeouts), in case one outlived its parent.
for f in "$STATE"/run/slurmd.pid "$STATE"/run/slurmctld.pid "$STATE"/run/munged.pid; do
  [ -f "$f" ] || continue
  pid=$(cat "$f")
  if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then kill -KILL "$pid" 2>/dev/null || true; fi
  rm -f "$f"
done
rm -f "$STATE/pids"
