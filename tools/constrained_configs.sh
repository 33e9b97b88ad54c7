#!/usr/bin/env bash
# Writes the configs of the constrained benchmarks and prints them comma-separated (for
# gpu_check.sh's MD_CONFIGS): systems/protein with h-bonds constraints and rigid water, and
# rigid SPC/E boxes of tools/build_water.py, each at 2 fs, and at 4 fs with 1.5 amu hydrogens,
# NVT and with the Monte Carlo barostat at 1 bar every 25 steps.
#   tools/constrained_configs.sh OUT_DIR [WATER_ATOMS]   (default 25000,100000,1000000)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=${1:?usage: tools/constrained_configs.sh OUT_DIR [WATER_ATOMS]}
waters=${2-25000,100000,1000000}
mkdir -p "$out"
out=$(cd "$out" && pwd)
protein=$root/systems/protein
configs=()
# name dt hydrogen_mass(0 = none) barostat(0/1)
for spec in "nvt2 0.002 0 0" "npt2 0.002 0 1" "nvt4 0.004 1.5 0" "npt4 0.004 1.5 1"; do
  set -- $spec
  dir=$out/protein_$1
  mkdir -p "$dir"
  extra="constraints = h-bonds"
  [ "$3" != 0 ] && extra="$extra\nhydrogen_mass = $3"
  {
    echo "# systems/protein: h-bonds constraints, rigid TIP3P, dt $2 ps, hydrogens $3 amu (0: as given), barostat $4 (tools/constrained_configs.sh)"
    sed -e '/^# /d' -e "s#^coordinates = conf.gro#coordinates = $protein/conf.gro#" \
        -e "s#^topology = topol.top#topology = $protein/topol.top#" \
        -e '/^defines/d' -e "s/^dt = .*/dt = $2/" -e "s/^\[system\]/[system]\n$extra/" "$protein/sim.cfg"
    [ "$4" = 1 ] && printf '\n[barostat]\npressure = 1\ninterval = 25\n'
    true
  } >"$dir/sim.cfg"
  configs+=("$dir/sim.cfg")
done
for n in ${waters//,/ }; do
  for spec in "nvt2 0.002 0 -" "npt2 0.002 0 1" "nvt4 0.004 1.5 -" "npt4 0.004 1.5 1"; do
    set -- $spec
    args=(--atoms "$n" --rigid --dt "$2" --out "$out/w${n}_$1")
    [ "$3" != 0 ] && args+=(--hydrogen-mass "$3")
    [ "$4" != - ] && args+=(--pressure "$4")
    python3 "$root/tools/build_water.py" "${args[@]}" >/dev/null
    configs+=("$out/w${n}_$1/sim.cfg")
  done
done
(IFS=,; echo "${configs[*]}")
