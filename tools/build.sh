#!/usr/bin/env bash
# Configures (once) and builds Faraday into ${FARADAY_BUILD_DIR:-build}.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${FARADAY_BUILD_DIR:-$root/build}
if [ ! -f "$build/CMakeCache.txt" ]; then
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release "$@"
fi
jobs=${FARADAY_JOBS:-$(nproc)}
cmake --build "$build" -j "$jobs"
