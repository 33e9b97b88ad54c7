#pragma once
// The benchmark's map kernels: the steps of the source documents' progression (scatter,
// gather, coarsened, coalesced), the accumulation modes compared with the production one
// (float, Kahan), the tuning variants of the coalesced kernel and the rsqrt ceiling. Compiled
// for `faraday bench dcs` (and its tests); `faraday run` and `faraday map` use
// kernels/dcs/CudaDcs.h alone. Every variant but the scatter is deterministic.
#include <vector>

#include "kernels/dcs/Dcs.h"

namespace faraday {

/// The kernels of the source documents' progression (SEEDS.md 000/001).
enum class DcsKernel {
  Scatter,       ///< thread per atom, float atomicAdd on the lattice: benchmark only (order, so
                 ///< the result, varies run to run; never used for results)
  Gather,        ///< thread per lattice point, atoms in __constant__ memory in chunks
  Coarsened,     ///< thread per 8 adjacent points of a row, dy^2+dz^2 and q reused
  Coalesced,     ///< coarsened, a thread's points blockDim.x apart (coalesced writes): production direct
  CutoffBinned,  ///< fixed-capacity bins, neighbour-bin offsets in __constant__, shared-memory staging,
                 ///< host overflow list summed while the kernel runs: production cutoff
};
const char* dcsKernelName(DcsKernel kernel);

/// How a lattice point accumulates its float pair terms.
enum class DcsAccumulation {
  Float,          ///< one float accumulator per point and constant-memory chunk (then added to the double map)
  Kahan,          ///< compensated float sum per point and chunk
  BlockedDouble,  ///< float over blocks of atoms (128 in production), each block folded into a double (production)
};
const char* dcsAccumulationName(DcsAccumulation accumulation);

struct DcsKernelStats {
  double seconds = 0;               ///< device time of the map computation (median over repeats)
  double effectiveEvaluations = 0;  ///< lattice points x atoms
  double actualEvaluations = 0;     ///< pair terms the kernel evaluated (cutoff: points x loaded bin slots)
  long long overflowAtoms = 0;      ///< cutoff: atoms summed on the host
  double hostOverflowSeconds = 0;   ///< cutoff: host time for the overflow atoms (overlapped with the kernel)
  double binningSeconds = 0;        ///< cutoff: host binning and upload of the bins (last repeat)
  double kernelSeconds = 0;         ///< cutoff: the binned kernel alone (device events, last repeat)
};

/// Benchmark ceiling: atom evaluations per second of a loop that does nothing but
/// accumulate rsqrt (1 MUFU.RSQ + 2 adds per evaluation) on every SM of device 0.
double cudaRsqrtCeiling();

/// Benchmark-only variations of the coalesced direct kernel (timing studies; non-periodic).
struct DcsGatherTuning {
  int coarsening = 8;           ///< points per thread: 8 or 16
  int minBlocksPerSm = 10;      ///< __launch_bounds__ minimum blocks per SM (caps registers): 5, 6, 8 or 10
  bool perPairTest = false;     ///< the near-atom test on every pair instead of once per atom and row
  int foldAtoms = 32;           ///< atoms summed in float before each fold into the double: 32, 64 or 128
  bool tileKernel = false;      ///< the production tile kernel (1-D grid of tiles) instead of gatherKernel
  bool splitTail = true;        ///< tile kernel: split the last partial wave's tiles over atom ranges
  int unroll = 4;               ///< tile kernel: atoms per unrolled inner iteration, 4 or 8
};

/// One frame's map, kJ/(mol e), x fastest, computed with `kernel` on device 0.
/// Direct kernels use options.periodic (minimum image); CutoffBinned uses options.cutoff,
/// binCapacity, binSide. `repeats` > 1 times the computation that many times (median).
std::vector<double> cudaPotentialMap(DcsKernel kernel, DcsAccumulation accumulation, const Lattice& lattice,
                                     const std::vector<Vec3>& positions, const std::vector<double>& charges,
                                     const MapOptions& options, DcsKernelStats* stats = nullptr, int repeats = 1,
                                     const DcsGatherTuning* study = nullptr);

/// The production path: Coalesced/BlockedDouble for direct, CutoffBinned for cutoff.
DcsKernel productionKernel(MapMethod method);
inline constexpr DcsAccumulation kProductionAccumulation = DcsAccumulation::BlockedDouble;

}  // namespace faraday
