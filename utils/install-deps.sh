#!/usr/bin/env bash
# Installs exactly the Debian (bookworm) packages the fl module needs to build, test and plot.
# Idempotent: packages already present are skipped; `apt-get update` runs once, only if needed.
set -euo pipefail

PACKAGES=(
  cmake g++ make pkg-config          # toolchain
  ccache                             # compiler cache: a fresh clone rebuilds in minutes
  libns3-dev ns3                     # ns-3.37 libraries, headers, CMake package (+ its helper binaries)
  libgsl-dev libsqlite3-dev libxml2-dev libpython3-dev  # needed by ns-3's CMake package config
  libeigen3-dev                      # linear algebra
  libboost-dev                       # header-only Boost (math distributions in tests)
  zlib1g-dev                         # gzip IDX/CSV reader, CRC-32
  libsodium-dev                      # X25519, BLAKE2b, ChaCha20: GFL secure-aggregation masks (required)
  libgtest-dev                       # GoogleTest
  gnuplot-nox                        # plots (PNG)
  parallel                           # GNU parallel: utils/fl-sweep runs the jobs of a sweep on all cores
  dataset-fashion-mnist              # real data (gzipped IDX files), used with --dataset=fashion-mnist
  python3-sphinx                     # builds doc/ (ctest doc.sphinx, warnings as errors)
)

missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#PACKAGES[@]} packages already installed"
  exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
echo "install-deps: installing ${missing[*]}"
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}"
