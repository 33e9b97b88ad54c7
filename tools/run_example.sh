#!/usr/bin/env bash
# Installs what is missing, builds Faraday and runs the default example system.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/tools/install_deps.sh"
"$root/tools/build.sh"
build=${FARADAY_BUILD_DIR:-$root/build}
example=${1:-$root/systems/argon/sim.cfg}
echo "Running $example (outputs in out/example)"
"$build/faraday" run "$example" --output.directory="$root/out/example"
