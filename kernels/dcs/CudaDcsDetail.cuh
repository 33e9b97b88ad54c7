#pragma once
// Pieces shared by the CUDA map kernels' translation units (each has its own 64 KB of
// __constant__ memory: the gather kernels' atom chunks, the cutoff kernel's offset list).
// Host side of the cutoff kernel; the direct kernels are in CudaDcsGather.cuh.
#include <vector>

#include "kernels/common/DeviceBuffer.h"
#include "kernels/dcs/CudaDcs.h"

namespace faraday::dcs::detail {

struct LatticeDims {
  int nx, ny, nz;
  float hx, hy, hz;  // nm
};
inline LatticeDims dimsOf(const Lattice& l) {
  return {l.nx, l.ny, l.nz, float(l.spacing.x), float(l.spacing.y), float(l.spacing.z)};
}
/// A padding atom: zero charge, far from every lattice point (r^2 ~ 3e12 nm^2, finite in float).
constexpr float kFarAway = 1.0e6f;

/// What the cutoff-binned path measures when asked (the benchmark's figures).
struct CutoffStats {
  double actualEvaluations = 0;    ///< points x loaded bin slots
  long long overflowAtoms = 0;     ///< atoms summed on the host
  double hostOverflowSeconds = 0;  ///< host time for the overflow atoms (overlapped with the kernel)
  double binningSeconds = 0;       ///< host binning and upload of the bins
  double kernelSeconds = 0;        ///< the binned kernel alone (device events)
};

/// Launches the cutoff-binned kernel asynchronously on `s` (adding into `map`), sums the
/// overflow atoms on the host (OpenMP) into `hostPart` while it runs, and returns without
/// waiting for the device (the caller synchronises before reading either part).
void runCutoffBinned(const Lattice& l, const MapOptions& o, const std::vector<Vec3>& pos,
                     const std::vector<double>& q, DeviceBuffer<double>& map, DeviceBuffer<float4>& dBins,
                     std::vector<double>& hostPart, cudaStream_t s, CutoffStats* stats);

}  // namespace faraday::dcs::detail
