#!/usr/bin/env bash
# Nsight Compute on a GPU machine: the short-range tile kernel (the steps' variant: no
# energies) and the list's tile search of one config's system, each profiled once with the
# sections that say what bounds it, then every kernel of the first steps with its time.
# The step graph's kernels cannot be profiled as nodes (ncu skips graphs that hold
# conditional nodes), so the two kernels are taken from `bench md --kernels=1`, which runs
# them outside the graph after the timed steps.
#   tools/profile_step.sh BIN_DIR CONFIG   (logs to $OUT or out/profile)
set -uo pipefail
bin=$(cd "${1:?usage: tools/profile_step.sh BIN_DIR CONFIG}" && pwd)
config=$(realpath "${2:?usage: tools/profile_step.sh BIN_DIR CONFIG}")
out=${OUT:-out/profile}
mkdir -p "$out"
export PATH=/usr/local/cuda/bin:$PATH LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
bench=("$bin/faraday" bench md --nacl= --argon= --configs="$config" --steps=20 --csv=)
sections=(--section SpeedOfLight --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis
          --section Occupancy --section SchedulerStats --section WarpStateStats --section InstructionStats
          --section LaunchStats --section SourceCounters)
# The tile kernel's template arguments are <energies, Coulomb, exclusions, typed>.
ncu --kernel-name-base demangled -k 'regex:tileKernel<\(bool\)0' -c 1 "${sections[@]}" "${bench[@]}" \
  >"$out/tile_kernel.txt" 2>&1
# The first tile search is setState's; the second, the first of the timed rebuilds.
ncu -k regex:tilesKernel -s 1 -c 1 "${sections[@]}" "${bench[@]}" >"$out/tile_search.txt" 2>&1
ncu --print-summary per-kernel --metrics gpu__time_duration.sum -c 200 "${bench[@]}" >"$out/kernels.txt" 2>&1
for f in tile_kernel tile_search; do
  echo "== $f"
  grep -E "Duration|Registers Per|Achieved Occupancy|Issue Slots Busy|No Eligible|Warp Cycles Per Issued|Executed Ipc A|highest-utilized|Est. Speedup" \
    "$out/$f.txt" | head -20
done
