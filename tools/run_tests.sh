#!/usr/bin/env bash
# Installs what is missing, builds Faraday and runs the whole test suite.
# GPU tests skip with a message when no CUDA device is present.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/tools/install_deps.sh"
"$root/tools/build.sh"
build=${FARADAY_BUILD_DIR:-$root/build}
cd "$build"
ctest --output-on-failure -j "${FARADAY_JOBS:-$(nproc)}"
