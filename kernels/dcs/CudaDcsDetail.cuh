#pragma once
// Pieces shared by the CUDA map kernels' translation units (each has its own 64 KB of
// __constant__ memory: the gather kernels' atom chunks, the cutoff kernel's offset list).
// Host side of the cutoff kernel; the direct kernels are in CudaDcsGather.cuh.
#include <vector>

#include "kernels/common/DeviceBuffer.h"
#include "kernels/dcs/CudaDcs.h"
#include "kernels/dcs/DcsPair.h"

namespace faraday::dcs::detail {

/// The lattice as the kernels read it: point (i, j, k) at (i hx + j tyx + k tzx, j hy + k tzy,
/// k hz) relative to the origin (Lattice's spacing and tilt; the tilts are zero for an
/// orthogonal lattice).
struct LatticeDims {
  int nx, ny, nz;
  float hx, hy, hz;     // nm
  float tyx, tzx, tzy;  // nm
};
inline LatticeDims dimsOf(const Lattice& l) {
  return {l.nx, l.ny, l.nz, float(l.spacing.x), float(l.spacing.y), float(l.spacing.z),
          float(l.tilt.x), float(l.tilt.y), float(l.tilt.z)};
}

/// The near-atom tests' geometry (DcsPair.h) of lattice `l`, with the images of `box` when
/// `periodic`.
inline NearTest nearTestOf(const Lattice& l, const Box& box, bool periodic) {
  NearTest n{};
  n.lattice = shearedBoxOf(Box::fromVectors(l.stepX(), l.stepY(), l.stepZ()));
  for (int d = 0; d < 3; ++d) {
    n.h[d] = l.spacing[d];
    n.margin[d] = 2 * kMinDistance * n.lattice.stretch(d);
  }
  n.periodic = periodic;
  if (periodic) n.box = shearedBoxOf(box);
  return n;
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
