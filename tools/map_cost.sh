#!/usr/bin/env bash
# What a potential map costs a CUDA run: the NaCl melt (systems/nacl_melt, 4096 ions) for
# STEPS steps without a map and with map.interval = 100 for each method, REPEATS runs each
# (interleaved), the median ns/day of each; the overhead is the extra wall time per step
# over the run without a map, also given per sampled frame. The target for map.method = pme
# is at most 5%.
#   tools/map_cost.sh [BIN_DIR] [STEPS] [REPEATS]
# BIN_DIR holds faraday (default: build). Run folders and logs go to $OUT/map_cost (or
# out/map_cost); the table is printed last and written to map_cost.txt there.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bin=$(cd "${1:-$root/build}" && pwd)
steps=${2:-5000}
repeats=${3:-3}
interval=100
out=${OUT:-$root/out}/map_cost
mkdir -p "$out"
cfg="$root/systems/nacl_melt/sim.cfg"
methods="none pme pmepot direct"

# ns/day of one run (the loop's own figure, setup excluded), or "fail".
run_once() {  # method repeat
  local method=$1 r=$2 dir="$out/$1_$2" map_args
  if [ "$method" = none ]; then map_args=(--map.enabled=false)
  else map_args=(--map.enabled=true --map.method="$method" --map.interval=$interval); fi
  "$bin/faraday" run "$cfg" --run.platform=cuda --run.steps="$steps" --run.progress_interval=0 \
    --output.directory="$dir" "${map_args[@]}" >"$dir.log" 2>&1 || { echo fail; return; }
  sed -n 's/^Performance: \([0-9.e+]*\) ns\/day.*/\1/p' "$dir.log" | tail -1
}

declare -A rates
for r in $(seq 1 "$repeats"); do
  for m in $methods; do rates[$m]="${rates[$m]:-} $(run_once "$m" "$r")"; done
done

python3 - "$steps" "$interval" "$(sed -n 's/^dt *= *//p' "$cfg")" $(for m in $methods; do echo "$m=${rates[$m]// /,}"; done) \
  <<'PY' | tee "$out/map_cost.txt"
import statistics, sys
steps, interval, dt = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3])
rates = {}
for arg in sys.argv[4:]:
    name, values = arg.split("=", 1)
    vals = [float(v) for v in values.split(",") if v and v != "fail"]
    rates[name] = statistics.median(vals) if vals else None
def step_seconds(ns_per_day):  # wall seconds per step
    return dt * 1e-3 / ns_per_day * 86400.0
base = rates.get("none")
print(f"map cost, NaCl melt 4096 ions, {steps} steps, map.interval {interval} (median of the runs)")
print(f"{'map.method':12s} {'ns/day':>10s} {'overhead %':>11s} {'us/frame':>10s}")
for name, r in rates.items():
    if r is None:
        print(f"{name:12s} {'failed':>10s}")
        continue
    if name == "none" or base is None:
        print(f"{name:12s} {r:10.1f} {'-':>11s} {'-':>10s}")
        continue
    extra = step_seconds(r) - step_seconds(base)
    note = "  (target <= 5%)" if name == "pme" else ""
    print(f"{name:12s} {r:10.1f} {100.0 * extra / step_seconds(base):11.2f} {1e6 * extra * interval:10.1f}{note}")
PY
for m in $methods; do sed -n "s/^potential map: /  $m: /p" "$out/${m}_1.log" 2>/dev/null; done
# A table of failed runs is no measurement: say so and fail.
failed=""
for m in $methods; do case " ${rates[$m]} " in *" fail "*) failed="$failed $m";; esac; done
if [ -n "$failed" ]; then
  echo "map_cost.sh: runs failed for map.method:$failed (logs in $out)" >&2
  exit 1
fi
