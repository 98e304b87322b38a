#!/usr/bin/env bash
# Sets up a single-node Slurm on this machine for utils/fl-sweep --engine=slurm: installs
# slurm-wlm and munge (Debian packages), writes a configuration with this host as controller and
# only compute node, and starts munged, slurmctld and slurmd in the foreground of background
# shells, each under `timeout` (a hard limit, --timeout), recording their PIDs in the state
# directory. utils/stop-slurm.sh stops them by those PIDs.
set -euo pipefail

usage() {
  cat <<EOF
Usage: utils/setup-slurm.sh [--state DIR] [--timeout SECONDS] [--no-install]
  --state DIR      configuration, logs, spool and PID files (default: /tmp/fl-slurm)
  --timeout S      hard limit of every daemon's life in seconds (default: 3600)
  --no-install     do not install packages (fail if Slurm is missing)
Then: utils/fl-sweep run GRID --engine slurm; utils/stop-slurm.sh --state DIR stops the daemons.
Exit status: 0 Slurm is up (sinfo shows the node idle), 1 it did not come up (the daemons' logs
are printed), 2 bad input.
EOF
}

STATE=/tmp/fl-slurm
LIFE=3600
INSTALL=1
while [ $# -gt 0 ]; do
  case "$1" in
    --state) STATE="${2:?--state needs a directory}"; shift 2 ;;
    --timeout) LIFE="${2:?--timeout needs seconds}"; shift 2 ;;
    --no-install) INSTALL=0; shift ;;
    -h|--help) usage; exit 0 ;;
    *) echo "setup-slurm: unknown option '$1' (fix: see --help)" >&2; exit 2 ;;
  esac
done
case "$LIFE" in
  ''|*[!0-9]*) echo "setup-slurm: --timeout '$LIFE' is not a whole number of seconds (fix: e.g. --timeout 600)" >&2; exit 2 ;;
esac

if ! command -v slurmctld >/dev/null || ! command -v slurmd >/dev/null || ! command -v munged >/dev/null; then
  if [ "$INSTALL" = 0 ]; then
    echo "setup-slurm: Slurm is not installed (fix: drop --no-install, or apt-get install slurm-wlm munge)" >&2
    exit 1
  fi
  SUDO=""; if [ "$(id -u)" -ne 0 ]; then SUDO=sudo; fi
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq slurm-wlm munge
fi

if [ -f "$STATE/pids" ]; then
  echo "setup-slurm: $STATE/pids exists: daemons may be running (fix: utils/stop-slurm.sh --state $STATE first)" >&2
  exit 2
fi
mkdir -p "$STATE"/{spool/ctld,spool/d,log,munge,run}
STATE=$(cd "$STATE" && pwd)
HOST=$(hostname -s)
USER_NAME=$(id -un)
# The node's size as slurmd sees it (CPUs, memory), less 10 % of the memory for the system.
NODE_LINE=$(slurmd -C | head -1)
CPUS=$(echo "$NODE_LINE" | sed -n 's/.*CPUs=\([0-9]*\).*/\1/p')
MEM=$(echo "$NODE_LINE" | sed -n 's/.*RealMemory=\([0-9]*\).*/\1/p')
MEM=$((MEM * 9 / 10))

# munge: a key of our own, its socket in the state directory.
if [ ! -f "$STATE/munge/munge.key" ]; then
  dd if=/dev/urandom of="$STATE/munge/munge.key" bs=1024 count=1 status=none
fi
chmod 700 "$STATE/munge"; chmod 400 "$STATE/munge/munge.key"
SOCKET="$STATE/munge/munge.socket"

cat > "$STATE/slurm.conf" <<EOF
# Single-node Slurm of utils/setup-slurm.sh: $HOST is the controller and the only node.
ClusterName=fl
SlurmctldHost=$HOST
SlurmUser=$USER_NAME
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$SOCKET
CryptoType=crypto/munge
StateSaveLocation=$STATE/spool/ctld
SlurmdSpoolDir=$STATE/spool/d
SlurmctldPidFile=$STATE/run/slurmctld.pid
SlurmdPidFile=$STATE/run/slurmd.pid
SlurmctldLogFile=$STATE/log/slurmctld.log
SlurmdLogFile=$STATE/log/slurmd.log
SlurmctldPort=16817
SlurmdPort=16818
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SwitchType=switch/none
MpiDefault=none
ReturnToService=2
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
MaxArraySize=100001
InactiveLimit=0
KillWait=10
MinJobAge=60
SlurmctldTimeout=60
SlurmdTimeout=60
NodeName=$HOST CPUs=$CPUS RealMemory=$MEM State=UNKNOWN
PartitionName=fl Nodes=$HOST Default=YES MaxTime=INFINITE State=UP
EOF
cat > "$STATE/env.sh" <<EOF
export SLURM_CONF=$STATE/slurm.conf
EOF
export SLURM_CONF="$STATE/slurm.conf"

# Each daemon in the foreground (-D / -F) under timeout, so that its PID is the one recorded and
# it ends by itself after --timeout seconds whatever happens.
: > "$STATE/pids"
timeout --signal=TERM --kill-after=10 "$LIFE" munged -F --socket="$SOCKET" \
  --key-file="$STATE/munge/munge.key" --pid-file="$STATE/run/munged.pid" \
  --log-file="$STATE/log/munged.log" --seed-file="$STATE/munge/munge.seed" --force \
  >"$STATE/log/munged.out" 2>&1 &
echo "munged $!" >> "$STATE/pids"
for i in $(seq 50); do [ -S "$SOCKET" ] && break; sleep 0.1; done
timeout --signal=TERM --kill-after=10 "$LIFE" slurmctld -D -i -f "$SLURM_CONF" \
  >"$STATE/log/slurmctld.out" 2>&1 &
echo "slurmctld $!" >> "$STATE/pids"
timeout --signal=TERM --kill-after=10 "$LIFE" slurmd -D -f "$SLURM_CONF" \
  >"$STATE/log/slurmd.out" 2>&1 &
echo "slurmd $!" >> "$STATE/pids"

for i in $(seq 60); do
  if sinfo -h -o '%T' 2>/dev/null | grep -qE '^(idle|mixed|allocated)'; then
    echo "setup-slurm: Slurm up on $HOST ($CPUS CPUs, $MEM MB) for at most $LIFE s; PIDs in $STATE/pids"
    echo "setup-slurm: use it with: export SLURM_CONF=$STATE/slurm.conf"
    exit 0
  fi
  sleep 1
done
echo "setup-slurm: Slurm did not come up within 60 s; the daemons' logs:" >&2
for f in "$STATE"/log/*; do echo "== $f" >&2; tail -n 15 "$f" >&2; done
sinfo 2>&1 | tail -n 5 >&2 || true
exit 1
