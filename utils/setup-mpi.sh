#!/usr/bin/env bash
# Installs Debian's Open MPI (libopenmpi-dev, openmpi-bin) for the distributed GFL run: ns-3's
# mpi module (./ns3 configure --enable-mpi) builds against it. Not part of the module's normal
# set-up (utils/install-deps.sh): only utils/build-mpi-tree.sh needs it.
# Usage: utils/setup-mpi.sh [-h|--help]
set -euo pipefail
case "${1:-}" in
  -h|--help) sed -n '2,5p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
  '') ;;
  *) echo "setup-mpi: unknown option '$1' (fix: run it without arguments)" >&2; exit 2 ;;
esac
if command -v mpicxx >/dev/null && command -v mpirun >/dev/null; then
  echo "setup-mpi: Open MPI is installed ($(mpirun --version 2>/dev/null | head -1))"
  exit 0
fi
sudo=""
[ "$(id -u)" = 0 ] || sudo=sudo
$sudo apt-get update -qq
$sudo apt-get install -y -qq libopenmpi-dev openmpi-bin
mpirun --version | head -1
