#!/usr/bin/env bash
# Several GPUs of one host: the tests against one GPU, MD steps on 1, 2 and 4 GPUs (bench md
# --devices: the NaCl melt of 110,592 and 1,000,000 ions, the 256,000-atom argon box and a
# rigid SPC/E box of ~1M atoms at 2 fs; PME split as PME_SPLIT, default auto: bench md's
# --pme-split; the update split as UPDATE_SPLIT, default auto: --update-split), OpenMM on the
# same systems and GPUs (when the openmm module is there; its --device-index), and faraday map
# (pme and direct) over a 2,000-frame trajectory of a 110,592-ion NaCl melt on 1, 2 and 4
# GPUs; a short table last.
#   tools/multigpu_check.sh [BIN_DIR] [FRAMES]
# BIN_DIR holds faraday and faraday_tests (default: build). FRAMES (default 2000; 0 = no maps)
# frames are written every 5 steps by a one-GPU run. MD_SYSTEMS="nacl argon water" (default)
# chooses the MD systems, ANCHOR_STEPS (default 1000; 0 = no OpenMM) OpenMM's steps, TESTS=0
# leaves the tests out. Logs go to $OUT/multigpu (or out/multigpu).
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bin=$(cd "${1:-$root/build}" && pwd)
frames=${2:-2000}
faraday=$bin/faraday
tests=$bin/faraday_tests
[ -x "$tests" ] || tests=$bin/tests/faraday_tests
out=${OUT:-$root/out}/multigpu
mkdir -p "$out"
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
export FARADAY_EXECUTABLE=$faraday FARADAY_SOURCE_DIR=$root NCCL_NVLS_ENABLE=0
gpus=$(nvidia-smi -L | wc -l)
nvidia-smi --query-gpu=name,memory.total --format=csv,noheader | sort | uniq -c
counts=1
[ "$gpus" -ge 2 ] && counts=1,2
[ "$gpus" -ge 4 ] && counts=1,2,4

tests_rc=0
if [ "${TESTS:-1}" != 0 ]; then
  echo "== tests (several GPUs against one)"
  "$tests" --gtest_filter='MapFrames*:GpuGroup*:MultiGpuMd*' >"$out/tests.log" 2>&1
  tests_rc=$?
  grep -E "^\[  (PASSED|FAILED|SKIPPED) |^\[  FAILED  \]|^\[ info \]|skipped" "$out/tests.log" | tail -20
fi

systems=" ${MD_SYSTEMS:-nacl argon water} "
nacl=; argon=; configs=
[[ $systems == *" nacl "* ]] && nacl=110592,1000000
[[ $systems == *" argon "* ]] && argon=256000
if [[ $systems == *" water "* ]]; then
  python3 "$root/tools/build_water.py" --atoms 1000000 --rigid --dt 0.002 --out "$out/water" >/dev/null &&
    configs=$out/water/sim.cfg
fi
echo "== bench md on $counts GPU(s)"
(cd "$out" && "$faraday" bench md --nacl="$nacl" --argon="$argon" --configs="$configs" --devices=$counts --kernels=0 \
  --gro-dir="$out/gro" --csv=md_multigpu.csv --pme-split="${PME_SPLIT:-auto}" \
  --update-split="${UPDATE_SPLIT:-auto}") >"$out/bench_md.log" 2>&1
tail -16 "$out/bench_md.log"

anchor=$bin/openmm_anchor.py
[ -f "$anchor" ] || anchor=$root/../shared/tools/openmm_anchor.py
if [ "${ANCHOR_STEPS:-1000}" != 0 ] && python3 -c "import openmm" 2>/dev/null && [ -f "$anchor" ]; then
  echo "== OpenMM on the same systems and GPUs"
  for n in ${counts//,/ }; do
    devs=$(seq -s, 0 $((n - 1)))
    { for gro in $(ls "$out"/gro/nacl_1000000*.gro 2>/dev/null); do
      python3 "$anchor" "$gro" --device-index "$devs" --steps "${ANCHOR_STEPS:-1000}" --dt 0.002 --temperature 1300
    done
    for gro in $(ls "$out"/gro/argon_*.gro 2>/dev/null); do
      python3 "$anchor" "$gro" --device-index "$devs" --steps "${ANCHOR_STEPS:-1000}" --dt 0.004 --temperature 86.6404
    done
    for gro in $(ls "$out"/gro/water_*.gro 2>/dev/null); do
      python3 "$anchor" "$gro" --top "$out/water/topol.top" --rigid-water --device-index "$devs" \
        --steps "${ANCHOR_STEPS:-1000}" --dt 0.002 --temperature 300
    done; } 2>&1 | sed "s/^/[$n GPU] /"
  done >"$out/openmm.log" 2>&1
  grep -E "ns/day" "$out/openmm.log"
fi

declare -A mapsec
melt=$out/melt110k
[ "$frames" = 0 ] && methods= || methods="pme direct"
[ -n "$methods" ] && echo "== trajectory: 110,592-ion melt, $frames frames every 5 steps (one GPU)"
if [ -n "$methods" ] && [ ! -s "$melt/traj.dcd" ]; then
  python3 "$root/tools/build_ionic.py" melt --cells 24 --out "$melt" >/dev/null
  (cd "$melt" && "$faraday" run sim.cfg --run.platform=cuda --run.steps=$((5 * frames)) \
    --output.trajectory_file=traj.dcd --output.trajectory_interval=5 --output.energy_interval=1000 \
    --run.progress_interval=0) >"$out/traj_run.log" 2>&1 || tail -5 "$out/traj_run.log"
fi
[ -n "$methods" ] && ls -la "$melt/traj.dcd"

for method in $methods; do
  spacing=0.1
  [ "$method" = direct ] && spacing=0.25  # direct: atoms x points per frame
  for n in ${counts//,/ }; do
    devs=$(seq -s, 0 $((n - 1)))
    log=$out/map_${method}_$n.log
    (cd "$melt" && "$faraday" map sim.cfg --run.platform=cuda --run.devices="$devs" --map.method=$method \
      --map.spacing=$spacing --map.trajectory="$melt/traj.dcd" --map.file="$out/map_${method}_$n.dx" \
      --run.progress_interval=0) >"$log" 2>&1
    mapsec[$method,$n]=$(sed -n 's/^potential map: .* in \([0-9.]*\) s .*/\1/p' "$log" | tail -1)
    echo "$method on $n GPU(s): ${mapsec[$method,$n]:-fail} s"
  done
  for n in ${counts//,/ }; do
    [ "$n" = 1 ] && continue
    if cmp -s "$out/map_${method}_1.dx" "$out/map_${method}_$n.dx"; then echo "$method: $n-GPU map = 1-GPU map (same bytes)"
    else echo "$method: $n-GPU map DIFFERS from the 1-GPU map"; fi
  done
done

echo
echo "== summary"
[ "${TESTS:-1}" != 0 ] && printf "%-34s %s\n" "tests (MapFrames, GpuGroup, MultiGpuMd)" "$([ $tests_rc = 0 ] && echo pass || echo FAIL)"
for method in $methods; do
  line=""
  for n in ${counts//,/ }; do
    s=${mapsec[$method,$n]:-}
    sp=$(python3 -c "print('%.2fx' % (float('${mapsec[$method,1]:-0}')/float('$s')))" 2>/dev/null || echo "?")
    line="$line  ${n} GPU: ${s:-fail} s ($sp)"
  done
  printf "%-34s%s\n" "map $method, $frames frames" "$line"
done
python3 - "$out/md_multigpu.csv" "$out/openmm.log" <<'PY'
import csv, os, re, sys
rows = list(csv.DictReader(open(sys.argv[1]))) if os.path.exists(sys.argv[1]) else []
base = {(r["system"], r["atoms"]): float(r["ms_per_step"]) for r in rows if r["platform"] == "cuda"}
for r in rows:
    ms = float(r["ms_per_step"])
    b = base.get((r["system"], r["atoms"]))
    print("%-34s %8.4f ms/step %9.1f ns/day %s" % ("md %s %s on %s" % (r["system"], r["atoms"], r["platform"]), ms,
                                                 float(r["ns_per_day"]), "(%.2fx)" % (b / ms) if b else ""))
omm = {}
if os.path.exists(sys.argv[2]):
    for line in open(sys.argv[2]):
        m = re.search(r"^\[(\d+) GPU\] .*?([A-Za-z0-9]+)_\d+\.gro: atoms (\d+) ns/day ([0-9.]+)", line)
        if m: omm[(m.group(2), m.group(3), int(m.group(1)))] = float(m.group(4))
for (system, atoms, n), v in sorted(omm.items()):
    one = omm.get((system, atoms, 1))
    print("%-34s %9.1f ns/day %s" % ("openmm %s %s on %d GPU(s)" % (system, atoms, n), v,
                                     "(%.2fx)" % (v / one) if one else ""))
PY
