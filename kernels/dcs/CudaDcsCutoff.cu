// CUDA cutoff-binned potential map (SEEDS.md 000/001, Rodrigues et al. 2008): atoms in
// fixed-capacity bins padded with zero charges, a neighbourhood list of bin offsets in
// __constant__ memory, each block stages neighbour bins in shared memory for its brick of
// lattice points; atoms that do not fit, and the rare atoms that could come within
// kMinDistance of a lattice point, go to a list summed on the host while the kernel runs.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <optional>
#include <string>

#include "core/Error.h"
#include "core/Units.h"
#include "kernels/common/CudaCheck.h"
#include "kernels/common/CudaConstantBank.h"
#include "kernels/common/CudaOwners.h"
#include "kernels/dcs/CudaDcsDetail.cuh"
#include "kernels/dcs/DcsPair.h"

namespace faraday::dcs::detail {

namespace {

/// Neighbour-bin offsets (relative to a brick's home bin), 4 bytes each.
constexpr int kMaxBinOffsets = 8192;
__constant__ char4 c_binOffsets[kMaxBinOffsets];
/// One c_binOffsets per GPU: accumulators sharing a GPU take turns with it (CudaConstantBank.h).
ConstantBankTurns g_offsetTurns;

constexpr int kBrick = 8;       // a block covers a brick of 8 x 8 x 8 lattice points
constexpr int kPointsZ = 4;     // each thread computes 4 points of a z-column, reusing dx^2 + dy^2
constexpr int kBrickThreads = kBrick * kBrick * (kBrick / kPointsZ);  // 128: block (8, 8, 2)

struct BinGrid {
  int nb[3];        // bins per axis
  float side[3];    // nm
  float origin[3];  // nm, relative to the lattice origin
  float L[3];       // nm (periodic)
  int capacity;     // atoms per bin (padded with zero charges)
  int nOffsets;     // entries of c_binOffsets
  float inv_rc2;    // 1/nm^2
};

__device__ inline int floorDiv(int a, int b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }

/// The block stages (blockDim / capacity) neighbour bins at a time in shared memory; each
/// thread tests its kPointsZ points (z = k0, k0 + 2, k0 + 4, k0 + 6) against every staged
/// atom (cutoffTerm is 0 beyond rc). Per staged atom and thread: 1 shared load (broadcast),
/// dx^2 + dy^2 once, then per point 1 sub, 1 fma, 1 rsqrt and the switched term.
template <bool kPeriodic>
__global__ void __launch_bounds__(kBrickThreads) cutoffBinnedKernel(LatticeDims g, BinGrid b,
                                                                    const float4* __restrict__ bins,
                                                                    double* map) {
  __shared__ float4 staged[kBrickThreads];
  const int tid = threadIdx.x + kBrick * (threadIdx.y + kBrick * threadIdx.z);
  const int i = blockIdx.x * kBrick + threadIdx.x;
  const int j = blockIdx.y * kBrick + threadIdx.y;
  const int k0 = blockIdx.z * kBrick + threadIdx.z;
  constexpr int kStepZ = kBrick / kPointsZ;
  const float x = i * g.hx, y = j * g.hy;
  float z[kPointsZ];
#pragma unroll
  for (int c = 0; c < kPointsZ; ++c) z[c] = (k0 + c * kStepZ) * g.hz;
  // Home bin: the bin holding the brick's first point (the offsets were built for that).
  int home[3];
  const float corner[3] = {blockIdx.x * kBrick * g.hx, blockIdx.y * kBrick * g.hy, blockIdx.z * kBrick * g.hz};
#pragma unroll
  for (int d = 0; d < 3; ++d) home[d] = int(floorf((corner[d] - b.origin[d]) / b.side[d]));
  const int binsPerBatch = kBrickThreads / b.capacity;
  const int mySlotBin = tid / b.capacity, mySlot = tid % b.capacity;
  double total[kPointsZ];
#pragma unroll
  for (int c = 0; c < kPointsZ; ++c) total[c] = 0.0;
  for (int first = 0; first < b.nOffsets; first += binsPerBatch) {
    float4 atom = make_float4(kFarAway, kFarAway, kFarAway, 0.f);
    if (mySlotBin < binsPerBatch && first + mySlotBin < b.nOffsets) {
      const char4 off = c_binOffsets[first + mySlotBin];
      int idx[3] = {home[0] + off.x, home[1] + off.y, home[2] + off.z};
      float shift[3] = {0.f, 0.f, 0.f};
      bool inside = true;
#pragma unroll
      for (int d = 0; d < 3; ++d) {
        if (kPeriodic) {
          const int wraps = floorDiv(idx[d], b.nb[d]);
          idx[d] -= wraps * b.nb[d];
          shift[d] = wraps * b.L[d];
        } else {
          inside = inside && idx[d] >= 0 && idx[d] < b.nb[d];
        }
      }
      if (inside) {
        atom = bins[((std::size_t(idx[2]) * b.nb[1] + idx[1]) * b.nb[0] + idx[0]) * b.capacity + mySlot];
        atom.x += shift[0];
        atom.y += shift[1];
        atom.z += shift[2];
      }
    }
    staged[tid] = atom;
    __syncthreads();
    const int nStaged = min(binsPerBatch, b.nOffsets - first) * b.capacity;
    float part[kPointsZ];  // at most blockDim terms each, then folded into the double totals
#pragma unroll
    for (int c = 0; c < kPointsZ; ++c) part[c] = 0.f;
#pragma unroll 2
    for (int a = 0; a < nStaged; ++a) {
      const float4 s = staged[a];
      const float dx = x - s.x, dy = y - s.y;
      const float dxy2 = fmaf(dx, dx, dy * dy);
#pragma unroll
      for (int c = 0; c < kPointsZ; ++c) {
        const float dz = z[c] - s.z;
        const float r2 = fmaf(dz, dz, dxy2);
        // No near-atom test: atoms that could come within kMinDistance of a lattice
        // point are summed on the host (buildBins), so r >= kMinDistance here.
        part[c] += dcs::cutoffTermFar(s.w, r2, dcs::fastRsqrt(r2), b.inv_rc2);
      }
    }
#pragma unroll
    for (int c = 0; c < kPointsZ; ++c) total[c] += double(part[c]);
    __syncthreads();
  }
  if (i >= g.nx || j >= g.ny) return;
#pragma unroll
  for (int c = 0; c < kPointsZ; ++c) {
    const int k = k0 + c * kStepZ;
    if (k < g.nz) map[(std::size_t(k) * g.ny + j) * g.nx + i] += units::kCoulomb * total[c];
  }
}

/// Host-side binning of the cutoff kernel.
struct Binning {
  BinGrid grid{};
  std::vector<float4> slots;         // nbins x capacity
  std::vector<char4> offsets;
  std::vector<Vec3> overflowPositions;
  std::vector<double> overflowCharges;
};

/// The bins' layout for the atoms `pos`: their number per axis, side, origin relative to the
/// lattice and the box lengths, over the box (periodic) or the atoms' bounding box. Returns
/// the low corner of the region binned.
Vec3 layOutBins(const Lattice& l, const std::vector<Vec3>& pos, const MapOptions& o, BinGrid& b) {
  Vec3 lo{0, 0, 0}, hi = o.box.diagonal();
  if (!o.periodic) {
    lo = hi = pos.empty() ? l.origin : pos[0];
    for (const Vec3& r : pos)
      for (int d = 0; d < 3; ++d) {
        lo[d] = std::min(lo[d], r[d]);
        hi[d] = std::max(hi[d], r[d]);
      }
  }
  Vec3 extent = hi - lo;
  for (int d = 0; d < 3; ++d) extent[d] = std::max(extent[d], 1e-3);
  double side = o.binSide;
  if (!(side > 0)) {
    // Mean occupancy 60% of capacity: few overflow atoms, little padding.
    const double density = double(std::max<std::size_t>(pos.size(), 1)) / (extent.x * extent.y * extent.z);
    side = std::cbrt(0.6 * b.capacity / density);
  }
  for (int d = 0; d < 3; ++d) {
    if (o.periodic) {
      b.nb[d] = std::max(1, int(std::floor(extent[d] / side)));
      b.side[d] = float(extent[d] / b.nb[d]);
    } else {
      b.nb[d] = std::max(1, int(std::floor(extent[d] / side)) + 1);
      b.side[d] = float(side);
    }
    b.origin[d] = float(lo[d] - l.origin[d]);
    b.L[d] = float(o.box.diagonal()[d]);
  }
  return lo;
}

/// Every charged atom into its bin (relative to the lattice origin), or to the host list when
/// its bin is full or it is near a lattice point: within 2 kMinDistance of a lattice plane in
/// all three axes (any periodic image) it could come within kMinDistance of a lattice point
/// (float rounding included); the host list applies the near-atom test, so the kernel needs none.
void fillBins(const Lattice& l, const std::vector<Vec3>& pos, const std::vector<double>& q, const MapOptions& o,
              const Vec3& lo, long long nbins, Binning& bn) {
  const BinGrid& b = bn.grid;
  bn.slots.assign(std::size_t(nbins) * b.capacity, make_float4(kFarAway, kFarAway, kFarAway, 0.f));
  std::vector<int> fill(nbins, 0);
  auto nearPlanes = [&](double c, double h, double period) { return dcs::nearLatticePlane(c, h, period, o.periodic); };
  const Vec3 L = o.box.diagonal();
  for (std::size_t a = 0; a < pos.size(); ++a) {
    if (q[a] == 0.0) continue;
    const Vec3 r = o.periodic ? o.box.wrap(pos[a]) : pos[a];
    int idx[3];
    for (int d = 0; d < 3; ++d)
      idx[d] = std::clamp(int(std::floor((r[d] - lo[d]) / b.side[d])), 0, b.nb[d] - 1);
    const std::size_t bin = (std::size_t(idx[2]) * b.nb[1] + idx[1]) * b.nb[0] + idx[0];
    const Vec3 rel = r - l.origin;
    const bool nearPoint = nearPlanes(rel.x, l.spacing.x, L.x) && nearPlanes(rel.y, l.spacing.y, L.y) &&
                           nearPlanes(rel.z, l.spacing.z, L.z);
    if (!nearPoint && fill[bin] < b.capacity) {
      bn.slots[bin * b.capacity + fill[bin]++] = make_float4(float(rel.x), float(rel.y), float(rel.z), float(q[a]));
    } else {
      bn.overflowPositions.push_back(r);
      bn.overflowCharges.push_back(q[a]);
    }
  }
}

/// Neighbourhood: bins that can hold an atom within rc of some point of a brick. Points of
/// a brick lie in [0, side + E] from the home bin's low corner (E = brick extent); bin
/// offset n spans [n side, (n+1) side]; keep it when the gap between the two boxes < rc.
void neighbourOffsets(const Lattice& l, double rc, Binning& bn) {
  BinGrid& b = bn.grid;
  double E[3], s[3];
  int reach[3];
  for (int d = 0; d < 3; ++d) {
    E[d] = (kBrick - 1) * l.spacing[d];
    s[d] = b.side[d];
    reach[d] = int(std::ceil((rc + s[d] + E[d]) / s[d])) + 1;
  }
  auto gap = [&](int d, int n) {
    const double binLo = n * s[d], binHi = (n + 1) * s[d];
    return std::max({0.0, binLo - (s[d] + E[d]), 0.0 - binHi});
  };
  const double rcSafe = rc * (1 + 1e-5) + 1e-6;  // float rounding of coordinates must not drop a bin
  for (int nz = -reach[2]; nz <= reach[2]; ++nz)
    for (int ny = -reach[1]; ny <= reach[1]; ++ny)
      for (int nx = -reach[0]; nx <= reach[0]; ++nx) {
        const double gx = gap(0, nx), gy = gap(1, ny), gz = gap(2, nz);
        if (gx * gx + gy * gy + gz * gz >= rcSafe * rcSafe) continue;
        if (std::abs(nx) > 127 || std::abs(ny) > 127 || std::abs(nz) > 127)
          throw Error("potential map: cutoff / bin side too large for the neighbour-bin list");
        bn.offsets.push_back(make_char4(char(nx), char(ny), char(nz), 0));
      }
  if (bn.offsets.size() > std::size_t(kMaxBinOffsets))
    throw Error("potential map: " + std::to_string(bn.offsets.size()) +
                " neighbour bins exceed the constant-memory list; use a larger bin side");
  b.nOffsets = int(bn.offsets.size());
}

Binning buildBins(const Lattice& l, const std::vector<Vec3>& pos, const std::vector<double>& q, const MapOptions& o) {
  Binning bn;
  BinGrid& b = bn.grid;
  b.capacity = std::clamp(o.binCapacity, 1, kBrickThreads);
  const double rc = o.cutoff;
  b.inv_rc2 = float(1.0 / (rc * rc));
  const Vec3 lo = layOutBins(l, pos, o, b);
  long long nbins = 1;
  for (int d = 0; d < 3; ++d) nbins *= b.nb[d];
  if (double(nbins) * b.capacity * sizeof(float4) > 8e9)
    throw Error("potential map: cutoff bins would need more than 8 GB; use a larger bin side");
  fillBins(l, pos, q, o, lo, nbins, bn);
  neighbourOffsets(l, rc, bn);
  return bn;
}

}  // namespace

void runCutoffBinned(const Lattice& l, const MapOptions& o, const std::vector<Vec3>& pos,
                     const std::vector<double>& q, DeviceBuffer<double>& map, DeviceBuffer<float4>& dBins,
                     std::vector<double>& hostPart, cudaStream_t s, CutoffStats* stats) {
  const auto tb = std::chrono::steady_clock::now();
  Binning bn = buildBins(l, pos, q, o);
  dBins.upload(bn.slots, s);
  std::optional<CudaEvent> k0, k1;  // the kernel's interval, when timed
  if (stats) {
    FARADAY_CUDA_CHECK(cudaStreamSynchronize(s));  // the upload is part of the binning time
    stats->binningSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - tb).count();
    k0.emplace();
    k1.emplace();
    FARADAY_CUDA_CHECK(cudaEventRecord(k0->get(), s));
  }
  const dim3 block(kBrick, kBrick, kBrick / kPointsZ);
  const dim3 grid((l.nx + kBrick - 1) / kBrick, (l.ny + kBrick - 1) / kBrick, (l.nz + kBrick - 1) / kBrick);
  g_offsetTurns.take(s, [&] {
    FARADAY_CUDA_CHECK(cudaMemcpyToSymbolAsync(c_binOffsets, bn.offsets.data(), bn.offsets.size() * sizeof(char4), 0,
                                               cudaMemcpyHostToDevice, s));
    if (o.periodic)
      cutoffBinnedKernel<true><<<grid, block, 0, s>>>(dimsOf(l), bn.grid, dBins.data(), map.data());
    else
      cutoffBinnedKernel<false><<<grid, block, 0, s>>>(dimsOf(l), bn.grid, dBins.data(), map.data());
    FARADAY_CUDA_CHECK_LAUNCH("cutoffBinnedKernel");
  });
  if (stats) FARADAY_CUDA_CHECK(cudaEventRecord(k1->get(), s));
  // The kernel is queued; the host sums the overflow atoms meanwhile.
  const auto t0 = std::chrono::steady_clock::now();
  if (!bn.overflowPositions.empty()) {
    MapOptions ho = o;
    ho.method = MapMethod::Cutoff;
    cpuCutoffMap(l, bn.overflowPositions, bn.overflowCharges, ho, hostPart);
  }
  const double hostSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (stats) {
    stats->overflowAtoms = (long long)bn.overflowPositions.size();
    stats->hostOverflowSeconds = hostSeconds;
    stats->actualEvaluations = double(l.size()) * double(bn.grid.nOffsets) * bn.grid.capacity;
    FARADAY_CUDA_CHECK(cudaEventSynchronize(k1->get()));
    stats->kernelSeconds = 1e-3 * CudaEvent::elapsedMs(*k0, *k1);
  }
}

}  // namespace faraday::dcs::detail
