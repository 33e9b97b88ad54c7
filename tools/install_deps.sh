#!/usr/bin/env bash
# Installs the Debian packages Faraday builds with, when they are missing:
# a C++20 compiler, CMake, Ninja, FFTW 3 (static libraries included), Boost.Program_options,
# GoogleTest. The CUDA toolkit is optional (the CUDA backend is built when nvcc is found).
set -euo pipefail
need=()
have_pkg() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"; }
for pkg in g++ cmake ninja-build libfftw3-dev libboost-program-options-dev libgtest-dev python3; do
  have_pkg "$pkg" || need+=("$pkg")
done
if [ ${#need[@]} -eq 0 ]; then
  echo "install_deps: all build dependencies present"
  exit 0
fi
echo "install_deps: installing ${need[*]}"
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${need[@]}"
