#!/usr/bin/env bash
# Runs the whole test suite (GPU tests included) and the GPU benchmarks on a machine with
# a CUDA device, then prints a short summary table last.
#   tools/gpu_check.sh [BIN_DIR] [quick]
# BIN_DIR holds faraday and faraday_tests (default: build, with build/tests/faraday_tests).
# Logs and CSV files go to $OUT (or out/gpu_check).
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bin=$(cd "${1:-$root/build}" && pwd)
mode=${2:-full}
faraday=$bin/faraday
tests=$bin/faraday_tests
[ -x "$tests" ] || tests=$bin/tests/faraday_tests
out=${OUT:-$root/out/gpu_check}
mkdir -p "$out"
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
export FARADAY_EXECUTABLE=$faraday FARADAY_SOURCE_DIR=$root

nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.max.sm --format=csv,noheader
"$faraday" --version

echo "== test suite"
"$tests" --gtest_brief=1 >"$out/tests.log" 2>&1
tests_rc=$?
grep -E "^\[  (PASSED|FAILED|SKIPPED) |^\[  FAILED  \]|tests ran" "$out/tests.log" | tail -25

if [ "$mode" = quick ]; then sizes=10000,100000; else sizes=10000,100000,256000,1000000; fi
echo "== bench pme"
(cd "$out" && "$faraday" bench pme --sizes=$sizes --repeats=20 --warmup=3 --platforms=both --csv=pme_bench.csv) \
  >"$out/bench_pme.log" 2>&1
tail -40 "$out/bench_pme.log"

echo "== bench dcs"
dcs_args=""; [ "$mode" = quick ] && dcs_args=--quick
(cd "$out" && "$faraday" bench dcs $dcs_args) >"$out/bench_dcs.log" 2>&1
tail -45 "$out/bench_dcs.log"

echo "== bench md (CPU backend, all cores)"
md_sizes=10,20,40; [ "$mode" = quick ] && md_sizes=10,20
"$faraday" bench md --sizes=$md_sizes >"$out/bench_md.log" 2>&1
tail -12 "$out/bench_md.log"

echo "== NaCl melt, platform cuda vs cpu (PME every step)"
for p in cpu cuda; do
  "$faraday" run "$root/systems/nacl_melt/sim.cfg" --run.platform=$p --run.steps=500 \
    --output.directory="$out/melt_$p" --run.progress_interval=0 >"$out/melt_$p.log" 2>&1
  echo "$p: rc=$? $(grep -E 'Performance' "$out/melt_$p.log")"
done

echo
echo "================ summary ================"
printf "%-28s %s\n" "device" "$(nvidia-smi --query-gpu=name --format=csv,noheader)"
printf "%-28s %s\n" "test suite" "$(grep -E '^\[==========\].*ran' "$out/tests.log" | tail -1) rc=$tests_rc"
printf "%-28s %s\n" "failed tests" "$(grep -c '^\[  FAILED  \]' "$out/tests.log")"
grep -E "^ *(10000|100000|256000|1000000) (cpu|cuda)" "$out/bench_pme.log" | head -12 | sed 's/^/pme: /'
awk '/^[0-9]+ ions, box/ {n = $1} /cuda vs cpu:/ {sub(/^ *cuda vs cpu: /, ""); print "pme: " n " cuda vs cpu: " $0}' \
  "$out/bench_pme.log"
grep -iE "production|ceiling|cutoff-binned" "$out/bench_dcs.log" | head -8 | sed 's/^/dcs: /'
for p in cpu cuda; do printf "%-28s %s\n" "melt 500 steps ($p)" "$(grep -E 'Performance' "$out/melt_$p.log")"; done
exit $tests_rc
