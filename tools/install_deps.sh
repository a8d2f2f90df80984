#!/usr/bin/env bash
# Installs the Debian packages dem needs to build, test and post-process (run as root); --fuzz adds the clang toolchain of tools/fuzz.sh.
# Usage: bash tools/install_deps.sh [--fuzz]
# apt's own progress lines are shown: on a fresh machine the download and
# installation take minutes, and a silent terminal looks like a hang.
set -euo pipefail
packages=(build-essential cmake pkg-config libhdf5-dev hdf5-tools libyaml-dev check
  libomp5-14 python3 python3-numpy python3-h5py python3-matplotlib python3-yaml)
case "${1:-}" in
  "") ;;
  --fuzz) packages+=(clang libclang-rt-14-dev libomp-14-dev) ;; # libFuzzer, ASan, OpenMP for clang
  -h | --help)
    sed -n '2,5s/^# \{0,1\}//p' "$0"
    exit 0
    ;;
  *)
    echo "install_deps.sh: unknown option '$1' (usage: bash tools/install_deps.sh [--fuzz])" >&2
    exit 2
    ;;
esac

missing=()
for p in "${packages[@]}"; do
  dpkg -s "$p" > /dev/null 2>&1 || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install_deps: the ${#packages[@]} packages are installed"
  exit 0
fi
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
echo "install_deps: updating the package lists (apt-get update)"
$SUDO apt-get update
echo "install_deps: installing ${missing[*]} (and the packages they need)"
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y "${missing[@]}"
echo "install_deps: done"
