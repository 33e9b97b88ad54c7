#!/usr/bin/env bash
# Runs the whole test suite (GPU tests included) and the benchmarks on a machine with a CUDA
# device, then prints a short summary table last.
#   tools/gpu_check.sh [BIN_DIR] [quick|full|md|nve|ensemble|bits]
# BIN_DIR holds faraday and faraday_tests (default: build, with build/tests/faraday_tests).
#   quick  tests, small PME/map/nbody benches, the map's cost in a run, bench md at the
#          smallest sizes
#   full   tests, PME/map/nbody benches, the map's cost in a run, bench md at every size with
#          the OpenMM anchor, CPU phases, NVE drift (GPU and OpenMM 100 ps, CPU 10 ps) of the NaCl melt at dt 1 and 2 fs
#   md     bench md with the OpenMM anchor only
#   ensemble  the Langevin ensembles alone (tools/langevin_ensemble.py: the peptides' mean
#          temperature and potential energy on the GPU and the CPU, OpenMM beside when it is
#          there, the peptide's NVE drift, systems/protein/npt.cfg's mean temperature and density)
# MD_CONFIGS (default: systems/protein/sim.cfg and a flexible SPC/E box of ~1M atoms from
# tools/build_water.py) adds the systems of those configs to bench md and the anchor (--top, with
# the config's constraints, hydrogen_mass, barostat pressure, and rigid water unless -DFLEXIBLE);
# WATER_ATOMS (default 1000000; "" = none) sets the water boxes built, comma-separated;
# the constrained benchmarks of the README: MD_CONFIGS=$(tools/constrained_configs.sh DIR)
# NACL_SIZES= ARGON_SIZES= ANCHOR_STEPS=2000 tools/gpu_check.sh BIN md;
# NACL_SIZES and ARGON_SIZES ("" = none) replace the mode's NaCl and argon sizes.
# BASELINE_BIN (a folder with another build's faraday) also compares the bits of fixed-seed CUDA
# runs of both builds (systems/nacl_melt/sim.cfg 2000 steps, systems/protein/npt.cfg 1000 steps:
# checkpoint, trajectory, energy file; mode "bits" does only that) and runs that build's bench md on the
# same systems in the same call and prints new against old (ms per step and the main phases).
#   nve    the NVE drift alone; NVE_PLATFORMS (default "cuda cpu"), NVE_DTS (default
#          "0.001 0.002") and NVE_CPU_PS (default 10; 100 ps on the CPU takes ~8 min at 1 fs
#          on 16 cores, so run one dt per call) and NVE_OPENMM (default 1) choose what runs
# The OpenMM anchor runs when `python3 -c "import openmm"` works (carry its wheels: see
# openmm_anchor.py); it is looked up in BIN_DIR, then tools/.
# Logs and CSV files go to $OUT (or out/gpu_check).
set -uo pipefail
# Nothing here means anything without a GPU: one line and stop, before any test or benchmark.
if ! command -v nvidia-smi >/dev/null 2>&1 || ! nvidia-smi -L >/dev/null 2>&1; then
  echo "gpu_check.sh: no NVIDIA GPU on this machine (nvidia-smi is missing or lists none); run it where one is" >&2
  exit 2
fi
root=$(cd "$(dirname "$0")/.." && pwd)
bin=$(cd "${1:-$root/build}" && pwd)
mode=${2:-full}
case "$mode" in
  quick | full | md | nve | ensemble | bits) ;;
  *) echo "gpu_check.sh: unknown mode '$mode' (quick | full | md | nve | ensemble | bits)" >&2; exit 2 ;;
esac
if [ "$mode" = bits ] && [ -z "${BASELINE_BIN:-}" ]; then
  echo "gpu_check.sh: mode bits needs BASELINE_BIN, a folder with the other build's faraday" >&2
  exit 2
fi
faraday=$bin/faraday
tests=$bin/faraday_tests
[ -x "$tests" ] || tests=$bin/tests/faraday_tests
out=${OUT:-$root/out/gpu_check}
mkdir -p "$out"
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
export FARADAY_EXECUTABLE=$faraday FARADAY_SOURCE_DIR=$root
anchor=$bin/openmm_anchor.py
[ -f "$anchor" ] || anchor=$root/tools/openmm_anchor.py
have_openmm=0
python3 -c "import openmm" 2>/dev/null && [ -f "$anchor" ] && have_openmm=1

nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.max.sm --format=csv,noheader
"$faraday" --version
tests_rc=0

# The same bits from two builds: fixed-seed CUDA runs, every output file compared byte for byte.
same_bits() {  # config steps
  local cfg=$1 steps=$2 name b dir
  name=$(basename "$(dirname "$cfg")")_$(basename "$cfg" .cfg)
  for b in new old; do
    dir=$out/bits/${name}_$b
    rm -rf "$dir"
    local exe=$faraday; [ $b = old ] && exe=$BASELINE_BIN/faraday
    (cd "$root" && "$exe" run "$cfg" --run.platform=cuda --run.steps="$steps" --output.directory="$dir" \
       --output.checkpoint_interval="$steps" --run.progress_interval=0) >"$out/bits/${name}_$b.log" 2>&1 ||
      { echo "$name: the $b build's run failed (see $out/bits/${name}_$b.log)"; return; }
  done
  local verdict=same f
  for f in $(cd "$out/bits/${name}_new" && ls | grep -v '\.log$'); do
    [ "$f" = run.log ] && continue  # wall times
    if [ "${f##*.}" = csv ]; then  # the speed column is wall time
      cmp -s <(cut -d, -f1-6,8- "$out/bits/${name}_new/$f") <(cut -d, -f1-6,8- "$out/bits/${name}_old/$f") || verdict="DIFFERENT ($f)"
    else
      cmp -s "$out/bits/${name}_new/$f" "$out/bits/${name}_old/$f" || verdict="DIFFERENT ($f)"
    fi
  done
  echo "$name ($steps steps): $verdict"
}
if [ -n "${BASELINE_BIN:-}" ]; then
  echo "== bits, new against $BASELINE_BIN"
  mkdir -p "$out/bits"
  { same_bits systems/nacl_melt/sim.cfg 2000; same_bits systems/protein/npt.cfg 1000; } | tee "$out/bits.txt"
  [ "$mode" = bits ] && exit 0
fi

if [ "$mode" = ensemble ]; then
  openmm=(); [ $have_openmm = 1 ] && openmm=(--openmm "$anchor")
  python3 "$root/tools/langevin_ensemble.py" --faraday "$faraday" --platforms cpu,cuda "${openmm[@]}" --nve --npt 25000 \
    --out "$out/ensemble" 2>&1 | tee "$out/ensemble.log" | tail -20
  exit "${PIPESTATUS[0]}"
fi

if [ "$mode" != md ] && [ "$mode" != nve ]; then
  echo "== test suite"
  "$tests" --gtest_brief=1 >"$out/tests.log" 2>&1
  tests_rc=$?
  grep -E "^\[  (PASSED|FAILED|SKIPPED) |^\[  FAILED  \]|tests ran|^\[ info \]" "$out/tests.log" | tail -40

  if [ "$mode" = quick ]; then sizes=10000,100000; else sizes=10000,100000,256000,1000000; fi
  echo "== bench pme"
  (cd "$out" && "$faraday" bench pme --sizes=$sizes --repeats=20 --warmup=3 --platforms=both --csv=pme_bench.csv) \
    >"$out/bench_pme.log" 2>&1
  tail -30 "$out/bench_pme.log"

  echo "== bench dcs"
  (cd "$out" && "$faraday" bench dcs --quick) >"$out/bench_dcs.log" 2>&1
  tail -25 "$out/bench_dcs.log"

  if [ "$mode" = quick ]; then bodies=4096,65536; else bodies=1024,4096,16384,65536,262144,1048576; fi
  echo "== bench nbody"
  (cd "$out" && "$faraday" bench nbody --sizes=$bodies --csv=nbody_bench.csv) >"$out/bench_nbody.log" 2>&1
  tail -16 "$out/bench_nbody.log"

  echo "== map cost in a CUDA run (NaCl melt, 5000 steps, map every 100 steps; tools/map_cost.sh)"
  OUT="$out" "$root/tools/map_cost.sh" "$bin" 5000 3 >"$out/map_cost.log" 2>&1
  cat "$out/map_cost.log"
fi

if [ "$mode" != nve ]; then
if [ "$mode" = quick ]; then nacl=4096,32768; argon=4000; else nacl=4096,32768,110592,1000000; argon=4000,256000; fi
nacl=${NACL_SIZES-$nacl}; argon=${ARGON_SIZES-$argon}
configs=${MD_CONFIGS-}
if [ -z "${MD_CONFIGS+x}" ]; then
  configs=$root/systems/protein/sim.cfg
  for n in $(echo "${WATER_ATOMS-1000000}" | tr ',' ' '); do
    python3 "$root/tools/build_water.py" --atoms "$n" --out "$out/water/water_$n" >/dev/null && configs="$configs,$out/water/water_$n/sim.cfg"
  done
fi
echo "== bench md (whole step on the GPU)"
(cd "$out" && "$faraday" bench md --platforms=cuda --nacl "$nacl" --argon "$argon" --configs="$configs" \
   --gro-dir="$out/gro" --csv=md_bench.csv) >"$out/bench_md.log" 2>&1
grep -vE "^(electrostatics:|nonbonded.buffer|faraday: warning)" "$out/bench_md.log" | tail -16

if [ -n "${BASELINE_BIN:-}" ]; then
  echo "== bench md, baseline $BASELINE_BIN (same systems, same call)"
  (cd "$out" && "$BASELINE_BIN/faraday" bench md --platforms=cuda --nacl "$nacl" --argon "$argon" --configs="$configs" \
     --gro-dir="$out/gro_baseline" --csv=md_bench_baseline.csv) >"$out/bench_md_baseline.log" 2>&1
  python3 - "$out/md_bench.csv" "$out/md_bench_baseline.csv" >"$out/baseline.txt" <<'PY'
import csv, sys
def rows(path):
    return {(r["system"], r["atoms"]): r for r in csv.DictReader(open(path)) if r["platform"] == "cuda"}
new, old = rows(sys.argv[1]), rows(sys.argv[2])
cols = ["ms_per_step", "nonbonded_ms", "neighbor_ms", "constraints_ms", "bonded_ms", "exclusion_ms"]
print(f"{'system':14s} {'atoms':>9s} " + " ".join(f"{c[:-3] + ' new/old':>22s}" for c in cols) + f" {'speedup':>8s}")
for key, r in new.items():
    o = old.get(key)
    if not o: continue
    cells = " ".join(f"{float(r[c]):10.4f}/{float(o[c]):<11.4f}" for c in cols)
    print(f"{key[0]:14s} {int(key[1]):9d} {cells} {float(o['ms_per_step']) / float(r['ms_per_step']):8.3f}")
PY
  cat "$out/baseline.txt"
fi

if [ $have_openmm = 1 ]; then
  echo "== OpenMM anchor (same systems, same call)"
  nacl_gro=$(ls "$out"/gro/nacl_*.gro 2>/dev/null | sort -t_ -k2 -n)
  argon_gro=$(ls "$out"/gro/argon_*.gro 2>/dev/null | sort -t_ -k2 -n)
  { [ -n "$nacl_gro" ] && python3 "$anchor" $nacl_gro --steps 2000 --dt 0.002 --temperature 1300
    [ -n "$argon_gro" ] && python3 "$anchor" $argon_gro --steps 2000 --dt 0.004 --temperature 86.6404
    # The systems of configs: their topology, defines, time step and temperature.
    for cfg in $(echo "$configs" | tr ',' ' '); do
      dir=$(dirname "$cfg"); name=$(basename "$dir")
      key() { sed -n "s/^ *$1 *= *\([^ #;]*\).*/\1/p" "$cfg" | head -1; }
      defines=$(sed -n 's/^ *defines *= *\([^#;]*\).*/\1/p' "$cfg" | head -1 | sed 's/-D//g; s/ *$//; s/  */,/g')
      gro=$(ls "$out"/gro/${name}_*.gro 2>/dev/null | head -1)
      # Constraints, heavy hydrogens and pressure as the config sets them; water is rigid
      # unless the topology is made flexible (as the topology's settles are used).
      constraints=$(key constraints)
      opts=(--constraints "${constraints:-none}")
      [ -n "$(key hydrogen_mass)" ] && opts+=(--hydrogen-mass "$(key hydrogen_mass)")
      [ -n "$(key pressure)" ] && opts+=(--pressure "$(key pressure)")
      echo ",$defines," | grep -q ",FLEXIBLE," || opts+=(--rigid-water)
      [ -n "$gro" ] && python3 "$anchor" "$gro" --top "$(cd "$dir" && realpath "$(key topology)")" --defines "$defines" "${opts[@]}" \
        --steps "${ANCHOR_STEPS:-1000}" --dt "$(key dt)" --temperature "$(key temperature)"
    done; } >"$out/openmm.log" 2>&1
  grep -E "atoms|OpenMM" "$out/openmm.log"
  python3 - "$out/md_bench.csv" "$out/openmm.log" >"$out/ratio.txt" <<'PY'
import csv, re, sys
rows = [r for r in csv.DictReader(open(sys.argv[1])) if r["platform"] == "cuda"]
omm = {}
for line in open(sys.argv[2]):
    m = re.search(r"([A-Za-z0-9_]+?)_(\d+)\.gro: atoms (\d+) ns/day ([0-9.]+)", line)
    if m: omm[(m.group(1), int(m.group(3)))] = float(m.group(4))
print(f"{'system':8s} {'atoms':>9s} {'faraday ns/day':>15s} {'openmm ns/day':>14s} {'ratio':>7s}")
for r in rows:
    o = omm.get((r["system"], int(r["atoms"])))
    f = float(r["ns_per_day"])
    print(f"{r['system']:8s} {int(r['atoms']):9d} {f:15.1f} {o if o else float('nan'):14.1f} {f / o if o else float('nan'):7.2f}")
PY
  cat "$out/ratio.txt"
else
  echo "== OpenMM anchor: not run (no openmm module or no openmm_anchor.py)"
fi
fi

if [ "$mode" = full ]; then
  echo "== bench md (CPU backend, all cores) for the per-phase speedups"
  (cd "$out" && "$faraday" bench md --platforms=cpu --nacl=4096,32768 --argon=4000 --csv=md_bench_cpu.csv) \
    >"$out/bench_md_cpu.log" 2>&1
  grep -vE "^electrostatics:" "$out/bench_md_cpu.log" | tail -5
fi

if [ "$mode" = full ] || [ "$mode" = nve ]; then
  echo "== NVE drift of the NaCl melt (4096 ions, 1300 K start, velocity Verlet)"
  melt="$root/systems/nacl_melt"
  for dt in ${NVE_DTS:-0.001 0.002}; do
    for p in ${NVE_PLATFORMS:-cuda cpu}; do
      ps=100; [ $p = cpu ] && ps=${NVE_CPU_PS:-10}
      steps=$(python3 -c "print(round($ps / $dt))")
      "$faraday" run "$melt/sim.cfg" --run.platform=$p --integrator.type=verlet --integrator.dt=$dt \
        --run.steps=$steps --output.energy_interval=100 --output.trajectory_file= \
        --output.checkpoint_file= --output.directory="$out/nve_${p}_$dt" --run.progress_interval=0 \
        >"$out/nve_${p}_$dt.log" 2>&1
      energy=$(ls "$out/nve_${p}_$dt"/*.csv | head -1)
      echo "dt $dt $p ($ps ps): $(python3 "$root/tools/nve_drift.py" faraday "$energy" --atoms 4096)"
    done
    [ $have_openmm = 1 ] && [ "${NVE_OPENMM:-1}" = 1 ] && echo "dt $dt openmm (100 ps): $(python3 "$root/tools/nve_drift.py" openmm "$melt/system.gro" \
      --anchor "$anchor" --dt $dt --ps 100 2>&1 | tail -1)"
  done | tee "$out/nve.txt"
fi

echo
echo "================ summary ================"
printf "%-28s %s\n" "device" "$(nvidia-smi --query-gpu=name --format=csv,noheader)"
if [ "$mode" != md ] && [ "$mode" != nve ]; then
  printf "%-28s %s\n" "test suite" "$(grep -E '^\[==========\].*ran' "$out/tests.log" | tail -1) rc=$tests_rc"
  printf "%-28s %s\n" "failed tests" "$(grep -c '^\[  FAILED  \]' "$out/tests.log")"
  awk '/^[0-9]+ ions, box/ {n = $1} /cuda vs cpu:/ {sub(/^ *cuda vs cpu: /, ""); print "pme: " n " cuda vs cpu: " $0}' \
    "$out/bench_pme.log"
  grep -iE "production|ceiling|cutoff-binned" "$out/bench_dcs.log" | head -6 | sed 's/^/dcs: /'
  awk '$1 ~ /^[0-9]+$/ && NF >= 12 {print "nbody: N " $1 " triangular " $3 " int/s, one-sided " $6 ", sum=0 " $NF}
       /uniform-mass path/ {print "nbody:   uniform masses " $5 " int/s"}' "$out/bench_nbody.log"
fi
[ -f "$out/map_cost/map_cost.txt" ] && sed 's/^/map: /' "$out/map_cost/map_cost.txt"
[ -f "$out/ratio.txt" ] && sed 's/^/md: /' "$out/ratio.txt"
[ -f "$out/baseline.txt" ] && sed 's/^/new vs old: /' "$out/baseline.txt"
[ -f "$out/bits.txt" ] && sed 's/^/bits new vs old: /' "$out/bits.txt"
[ -f "$out/nve.txt" ] && sed 's/^/nve: /' "$out/nve.txt"
exit $tests_rc
