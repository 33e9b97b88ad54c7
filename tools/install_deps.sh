#!/usr/bin/env bash
# Installs the Debian packages Faraday builds with, when they are missing:
# a C++20 compiler, CMake, Ninja, FFTW 3 (static libraries included), Boost.Program_options,
# GoogleTest. The CUDA toolkit is optional (the CUDA backend is built when nvcc is found).
# Then, best effort, from PyPI: MDAnalysis (the XTC and DCD tests check Faraday's files against
# it), GridDataFormats and mrcfile (the map tests read Faraday's OpenDX and MRC maps with them);
# the tests skip with a message where one is missing.
set -euo pipefail
python_package() {  # python_package MODULE PACKAGE WHAT
  python3 -c "import $1" 2>/dev/null && return 0
  echo "install_deps: installing $2 (PyPI) for $3"
  python3 -m pip install --quiet "$2" 2>/dev/null ||
    python3 -m pip install --quiet --break-system-packages "$2" 2>/dev/null ||
    echo "install_deps: $2 could not be installed; $3 will skip"
}
python_tools() {
  python_package MDAnalysis MDAnalysis "the XTC and DCD cross-checks"
  python_package gridData GridDataFormats "the OpenDX map cross-checks"
  python_package mrcfile mrcfile "the MRC map cross-checks"
}
need=()
have_pkg() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"; }
for pkg in g++ cmake ninja-build libfftw3-dev libboost-program-options-dev libgtest-dev python3; do
  have_pkg "$pkg" || need+=("$pkg")
done
if [ ${#need[@]} -eq 0 ]; then
  echo "install_deps: all build dependencies present"
  python_tools
  exit 0
fi
echo "install_deps: installing ${need[*]}"
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${need[@]}"
python_tools
