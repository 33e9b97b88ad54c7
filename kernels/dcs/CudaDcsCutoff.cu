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
#include "kernels/dcs/ShearedBox.h"

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

/// Bins of the frame's coordinates: for a periodic map the box's sheared coordinates
/// (ShearedBox.h: the cell is the brick [0, L), periodic along each axis), else Cartesian
/// coordinates (zero shears) over the atoms' bounding box.
struct BinGrid {
  int nb[3];        // bins per axis
  float side[3];    // nm of frame coordinate
  float origin[3];  // nm, frame coordinates relative to the lattice origin
  float L[3];       // nm: the periods a_x, b_y, c_z (periodic)
  float bx, cx, cy;     // nm: the box's tilts, for the images' Cartesian shifts (periodic)
  float sxy, sxz, syz;  // the frame's shears (zero for Cartesian bins)
  int capacity;     // atoms per bin (padded with zero charges)
  int nOffsets;     // entries of c_binOffsets
  float inv_rc2;    // 1/nm^2
};

__device__ inline int floorDiv(int a, int b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }

/// The block stages (blockDim / capacity) neighbour bins at a time in shared memory; each
/// thread tests its kPointsZ points (z = k0, k0 + 2, k0 + 4, k0 + 6) against every staged
/// atom (cutoffTerm is 0 beyond rc). Per staged atom and thread: 1 shared load (broadcast),
/// dx^2 + dy^2 once, then per point 1 sub, 1 fma, 1 rsqrt and the switched term. kTilted:
/// the lattice's z step has x or y components (a lattice along a triclinic cell), so dx and
/// dy are per point too (2 sub and 1 fma more).
template <bool kPeriodic, bool kTilted>
__global__ void __launch_bounds__(kBrickThreads) cutoffBinnedKernel(LatticeDims g, BinGrid b,
                                                                    const float4* __restrict__ bins,
                                                                    double* map) {
  __shared__ float4 staged[kBrickThreads];
  const int tid = threadIdx.x + kBrick * (threadIdx.y + kBrick * threadIdx.z);
  const int i = blockIdx.x * kBrick + threadIdx.x;
  const int j = blockIdx.y * kBrick + threadIdx.y;
  const int k0 = blockIdx.z * kBrick + threadIdx.z;
  constexpr int kStepZ = kBrick / kPointsZ;
  const float x = i * g.hx + j * g.tyx, y = j * g.hy;
  float z[kPointsZ], px[kPointsZ], py[kPointsZ];
#pragma unroll
  for (int c = 0; c < kPointsZ; ++c) {
    const int k = k0 + c * kStepZ;
    z[c] = k * g.hz;
    px[c] = x + k * g.tzx;
    py[c] = y + k * g.tzy;
  }
  // Home bin: the bin holding the brick's first point (the offsets were built for that),
  // from its frame coordinates.
  int home[3];
  {
    const int i0 = blockIdx.x * kBrick, j0 = blockIdx.y * kBrick, kc = blockIdx.z * kBrick;
    const float cz = kc * g.hz, cy = j0 * g.hy + kc * g.tzy, cx = i0 * g.hx + j0 * g.tyx + kc * g.tzx;
    const float ty = cy - b.syz * cz;
    const float corner[3] = {cx - b.sxy * ty - b.sxz * cz, ty, cz};
#pragma unroll
    for (int d = 0; d < 3; ++d) home[d] = int(floorf((corner[d] - b.origin[d]) / b.side[d]));
  }
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
      float wraps[3] = {0.f, 0.f, 0.f};
      bool inside = true;
#pragma unroll
      for (int d = 0; d < 3; ++d) {
        if (kPeriodic) {
          const int w = floorDiv(idx[d], b.nb[d]);
          idx[d] -= w * b.nb[d];
          wraps[d] = float(w);
        } else {
          inside = inside && idx[d] >= 0 && idx[d] < b.nb[d];
        }
      }
      if (inside) {
        atom = bins[((std::size_t(idx[2]) * b.nb[1] + idx[1]) * b.nb[0] + idx[0]) * b.capacity + mySlot];
        // The image's shift: wraps[0] a + wraps[1] b + wraps[2] c (tilts zero in a rectangular box).
        atom.x += wraps[0] * b.L[0] + wraps[1] * b.bx + wraps[2] * b.cx;
        atom.y += wraps[1] * b.L[1] + wraps[2] * b.cy;
        atom.z += wraps[2] * b.L[2];
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
        float r2;
        if constexpr (kTilted) {
          const float dxc = px[c] - s.x, dyc = py[c] - s.y;
          r2 = fmaf(dz, dz, fmaf(dxc, dxc, dyc * dyc));
        } else {
          r2 = fmaf(dz, dz, dxy2);
        }
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

/// The frame of the bins: the box's sheared coordinates for a periodic map, Cartesian ones
/// (zero shears) otherwise.
ShearedBox binFrame(const MapOptions& o) {
  if (o.periodic) return shearedBoxOf(o.box);
  ShearedBox cartesian;
  cartesian.ax = cartesian.by = cartesian.cz = 1;
  return cartesian;
}

/// The bins' layout for the atoms `pos`: their number per axis, side, origin relative to the
/// lattice (frame coordinates), the periods and tilts of the box, the frame's shears, over the
/// cell (periodic) or the atoms' bounding box. Returns the low corner of the region binned
/// (frame coordinates).
Vec3 layOutBins(const Lattice& l, const std::vector<Vec3>& pos, const MapOptions& o, const ShearedBox& frame,
                BinGrid& b) {
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
  double originFrame[3];
  frame.sheared(l.origin.x, l.origin.y, l.origin.z, originFrame);
  for (int d = 0; d < 3; ++d) {
    if (o.periodic) {
      b.nb[d] = std::max(1, int(std::floor(extent[d] / side)));
      b.side[d] = float(extent[d] / b.nb[d]);
    } else {
      b.nb[d] = std::max(1, int(std::floor(extent[d] / side)) + 1);
      b.side[d] = float(side);
    }
    b.origin[d] = float(lo[d] - originFrame[d]);
    b.L[d] = float(o.box.diagonal()[d]);
  }
  if (o.periodic) {
    b.bx = float(o.box.b.x);
    b.cx = float(o.box.c.x);
    b.cy = float(o.box.c.y);
  }
  b.sxy = float(frame.sxy);
  b.sxz = float(frame.sxz);
  b.syz = float(frame.syz);
  return lo;
}

/// Every charged atom into its bin (positions relative to the lattice origin, the bin from
/// its frame coordinates), or to the host list when its bin is full or it is near a lattice
/// point: within 2 kMinDistance of the lattice planes in all three axes (any periodic image)
/// it could come within kMinDistance of a lattice point (float rounding included); the host
/// list applies the near-atom test, so the kernel needs none.
void fillBins(const Lattice& l, const std::vector<Vec3>& pos, const std::vector<double>& q, const MapOptions& o,
              const ShearedBox& frame, const Vec3& lo, long long nbins, Binning& bn) {
  const BinGrid& b = bn.grid;
  bn.slots.assign(std::size_t(nbins) * b.capacity, make_float4(kFarAway, kFarAway, kFarAway, 0.f));
  std::vector<int> fill(nbins, 0);
  const NearTest test = nearTestOf(l, o.box, o.periodic);
  for (std::size_t a = 0; a < pos.size(); ++a) {
    if (q[a] == 0.0) continue;
    double r[3] = {pos[a].x, pos[a].y, pos[a].z}, t[3];
    if (o.periodic)
      frame.wrapIntoCell(r, t);
    else
      frame.sheared(r[0], r[1], r[2], t);
    int idx[3];
    for (int d = 0; d < 3; ++d) idx[d] = std::clamp(int(std::floor((t[d] - lo[d]) / b.side[d])), 0, b.nb[d] - 1);
    const std::size_t bin = (std::size_t(idx[2]) * b.nb[1] + idx[1]) * b.nb[0] + idx[0];
    const Vec3 rel = Vec3{r[0], r[1], r[2]} - l.origin;
    const bool nearPoint = nearLatticePoint(test, rel.x, rel.y, rel.z);
    if (!nearPoint && fill[bin] < b.capacity) {
      bn.slots[bin * b.capacity + fill[bin]++] = make_float4(float(rel.x), float(rel.y), float(rel.z), float(q[a]));
    } else {
      bn.overflowPositions.push_back({r[0], r[1], r[2]});
      bn.overflowCharges.push_back(q[a]);
    }
  }
}

/// min |S f| over f in the box [lo, hi] (per axis), S the frame's map to Cartesian
/// coordinates (x = f_x + s_xy f_y + s_xz f_z, y = f_y + s_yz f_z, z = f_z): the convex
/// minimum lies inside one face of the box (of dimension 0 to 3), where it is the minimum
/// over that face's affine hull; every face is tried. With zero shears it is the norm of the
/// per-axis gaps.
double minDistanceOverBox(const ShearedBox& f, const double lo[3], const double hi[3]) {
  const auto gap = [&](int d) { return std::max({0.0, lo[d], -hi[d]}); };
  if (f.sxy == 0 && f.sxz == 0 && f.syz == 0) {
    const double gx = gap(0), gy = gap(1), gz = gap(2);
    return std::sqrt(gx * gx + gy * gy + gz * gz);
  }
  const double S[3][3] = {{1, f.sxy, f.sxz}, {0, 1, f.syz}, {0, 0, 1}};
  double best = INFINITY;
  // Each axis free (0), at its low end (1) or at its high end (2).
  for (int face = 0; face < 27; ++face) {
    const int kind[3] = {face % 3, face / 3 % 3, face / 9};
    double v[3] = {0, 0, 0};  // S times the fixed part
    int freeAxes[3], nFree = 0;
    for (int d = 0; d < 3; ++d) {
      if (kind[d] == 0) {
        freeAxes[nFree++] = d;
        continue;
      }
      const double x = kind[d] == 1 ? lo[d] : hi[d];
      for (int r = 0; r < 3; ++r) v[r] += S[r][d] * x;
    }
    // Normal equations G u = -S_free^T v, G = S_free^T S_free (at most 3 x 3, by Cramer's rule).
    double G[3][3] = {}, rhs[3] = {};
    for (int p = 0; p < nFree; ++p) {
      for (int r = 0; r < 3; ++r) rhs[p] -= S[r][freeAxes[p]] * v[r];
      for (int q = 0; q < nFree; ++q)
        for (int r = 0; r < 3; ++r) G[p][q] += S[r][freeAxes[p]] * S[r][freeAxes[q]];
    }
    double u[3] = {0, 0, 0};
    if (nFree == 1) {
      u[0] = rhs[0] / G[0][0];
    } else if (nFree == 2) {
      const double det = G[0][0] * G[1][1] - G[0][1] * G[1][0];
      u[0] = (rhs[0] * G[1][1] - G[0][1] * rhs[1]) / det;
      u[1] = (G[0][0] * rhs[1] - rhs[0] * G[1][0]) / det;
    } else if (nFree == 3) {
      u[0] = u[1] = u[2] = 0;  // S is invertible: the unconstrained minimum is f = 0
    }
    bool inside = true;
    double point[3] = {0, 0, 0};
    for (int d = 0; d < 3; ++d) point[d] = kind[d] == 1 ? lo[d] : kind[d] == 2 ? hi[d] : 0;
    for (int p = 0; p < nFree; ++p) {
      const int d = freeAxes[p];
      inside = inside && u[p] >= lo[d] && u[p] <= hi[d];
      point[d] = u[p];
    }
    if (!inside) continue;
    double n2 = 0;
    for (int r = 0; r < 3; ++r) {
      double c = 0;
      for (int d = 0; d < 3; ++d) c += S[r][d] * point[d];
      n2 += c * c;
    }
    best = std::min(best, n2);
  }
  return std::sqrt(best);
}

/// Neighbourhood: bins that can hold an atom within rc of some point of a brick. In frame
/// coordinates relative to the brick's first point the brick's points span [emin, emax] (the
/// box around its corners), and that point lies in [0, side] from the home bin's low corner,
/// so the points lie in [emin, side + emax]; bin offset n spans [n side, (n + 1) side]. Keep
/// it when the Cartesian distance between the two, minDistanceOverBox of the difference
/// (atom - point in [n side - side - emax, (n + 1) side - emin]), is below rc.
void neighbourOffsets(const Lattice& l, double rc, const ShearedBox& frame, Binning& bn) {
  BinGrid& b = bn.grid;
  double emin[3] = {0, 0, 0}, emax[3] = {0, 0, 0}, s[3];
  for (int c = 0; c < 8; ++c) {
    const Vec3 r = l.stepX() * double(c & 1 ? kBrick - 1 : 0) + l.stepY() * double(c & 2 ? kBrick - 1 : 0) +
                   l.stepZ() * double(c & 4 ? kBrick - 1 : 0);
    double t[3];
    frame.sheared(r.x, r.y, r.z, t);
    for (int d = 0; d < 3; ++d) {
      emin[d] = std::min(emin[d], t[d]);
      emax[d] = std::max(emax[d], t[d]);
    }
  }
  int reach[3];
  for (int d = 0; d < 3; ++d) {
    s[d] = b.side[d];
    reach[d] = int(std::ceil((rc * frame.stretch(d) + s[d] + emax[d] - emin[d]) / s[d])) + 1;
  }
  const double rcSafe = rc * (1 + 1e-5) + 1e-6;  // float rounding of coordinates must not drop a bin
  for (int nz = -reach[2]; nz <= reach[2]; ++nz)
    for (int ny = -reach[1]; ny <= reach[1]; ++ny)
      for (int nx = -reach[0]; nx <= reach[0]; ++nx) {
        const int n[3] = {nx, ny, nz};
        double lo[3], hi[3];
        for (int d = 0; d < 3; ++d) {
          lo[d] = n[d] * s[d] - (s[d] + emax[d]);
          hi[d] = (n[d] + 1) * s[d] - emin[d];
        }
        if (minDistanceOverBox(frame, lo, hi) >= rcSafe) continue;
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
  const ShearedBox frame = binFrame(o);
  const Vec3 lo = layOutBins(l, pos, o, frame, b);
  long long nbins = 1;
  for (int d = 0; d < 3; ++d) nbins *= b.nb[d];
  if (double(nbins) * b.capacity * sizeof(float4) > 8e9)
    throw Error("potential map: cutoff bins would need more than 8 GB; use a larger bin side");
  fillBins(l, pos, q, o, frame, lo, nbins, bn);
  neighbourOffsets(l, rc, frame, bn);
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
    const bool tilted = l.tilt.y != 0 || l.tilt.z != 0;  // the z step leaves the z axis
    if (o.periodic)
      tilted ? cutoffBinnedKernel<true, true><<<grid, block, 0, s>>>(dimsOf(l), bn.grid, dBins.data(), map.data())
             : cutoffBinnedKernel<true, false><<<grid, block, 0, s>>>(dimsOf(l), bn.grid, dBins.data(), map.data());
    else
      tilted ? cutoffBinnedKernel<false, true><<<grid, block, 0, s>>>(dimsOf(l), bn.grid, dBins.data(), map.data())
             : cutoffBinnedKernel<false, false><<<grid, block, 0, s>>>(dimsOf(l), bn.grid, dBins.data(), map.data());
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
