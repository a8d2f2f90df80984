#!/usr/bin/env bash
# Installs the Debian packages dem needs to build, test and post-process (run as root).
set -euo pipefail
packages=(build-essential cmake pkg-config libhdf5-dev hdf5-tools libyaml-dev check
          python3 python3-numpy python3-h5py python3-matplotlib
          clang libclang-rt-14-dev libomp-14-dev)  # clang: tools/fuzz.sh (libFuzzer)
missing=()
for p in "${packages[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi
