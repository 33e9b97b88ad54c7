// GPU PME potential map (PmeMap.h). Per frame, on the device and without host
// synchronisation:
//   prepare (frame's stream): wrap the state into the box as double sites, count atoms per cell
//   -> [map stream, one graph] spread the charges in 64-bit fixed point, cuFFT D2Z, influence
//   function, cuFFT Z2D (double) | scan the cell counts, scatter the sites into cell order,
//   sort each cell by slot -> one kernel over the lattice: B-spline interpolation of the
//   reciprocal grid (double) plus, for map.method = pme, the real-space sum gathered by warps.
#include <cub/cub.cuh>
#include <cufft.h>

#include <algorithm>
#include <cmath>

#include "core/Error.h"
#include "core/Units.h"
#include "kernels/common/CudaCheck.h"
#include "kernels/common/CudaOwners.h"
#include "kernels/common/DeviceBuffer.h"
#include "kernels/common/Launch.h"
#include "kernels/dcs/DcsPair.h"
#include "kernels/dcs/PmeMap.h"
#include "kernels/dcs/PmeMapDetail.h"
#include "kernels/dcs/ShearedBox.h"
#include "kernels/pme/BSpline.h"
#include "kernels/pme/PmeGridGeometry.h"

namespace faraday {

namespace {

constexpr int kThreads = 256;
constexpr unsigned kFullWarp = 0xffffffffu;
// Fixed-point scale of the charge grid: 2^40 e^-1, resolution 9e-13 e (rounded to nearest),
// range +-8.4e6 e per grid point; a grid value is at most the sum of |q| within the spline
// support of that point.
constexpr double kGridScale = 1099511627776.0;
// The lattice kernel's block: 4 warps, each 8 x 4 points of one z-plane.
constexpr int kWarpX = 8, kWarpY = 4, kWarpsPerBlock = 4;


/// floor(a / b) for b > 0.
__device__ __forceinline__ int floorDiv(int a, int b) {
  const int q = a / b;
  return (a % b < 0) ? q - 1 : q;
}

/// The box cut into n[d] cells per sheared axis (ShearedBox.h) for the real-space sum
/// (map.method = pme).
struct CellGrid {
  int n[3] = {1, 1, 1};
  int count() const { return n[0] * n[1] * n[2]; }
};

/// Cells of side >= rc/2 (a warp's neighbourhood spans a few cells per axis) and >=
/// (8 V/N)^(1/3), about 8 atoms per cell on average, so a sparse system does not make
/// millions of empty cells; the side is measured across the cell's faces (the sheared
/// width over the axis' stretch).
CellGrid chooseCells(const Box& box, int atoms, double cutoff) {
  const dcs::ShearedBox sheared = dcs::shearedBoxOf(box);
  const double side = std::max(0.5 * cutoff, std::cbrt(8.0 * box.volume() / double(std::max(atoms, 1))));
  CellGrid c;
  for (int d = 0; d < 3; ++d) c.n[d] = std::max(1, int(std::floor(sheared.period(d) / (side * sheared.stretch(d)))));
  return c;
}

struct PrepareArgs {
  int n;
  const double4_32a* pos;  // per slot, nm
  const double* charge;    // per slot, e
  dcs::ShearedBox box;
  pmemap::Site* sites;     // out: wrapped into the cell, per slot
  // Cells (null cellOf: no real-space sum). cellCount is all zero on entry.
  int cells[3];
  int* cellOf;
  int* rank;
  int* cellCount;
};

/// One thread per slot: the site wrapped into the box (a non-finite position or charge gives
/// an uncharged site at the origin; the callers refuse such frames before), and for the real
/// space its cell and its arrival rank in that cell (integer atomics: the ranks' order varies,
/// sortCells restores a fixed one).
__global__ void prepareSites(PrepareArgs a) {
  const int s = blockIdx.x * blockDim.x + threadIdx.x;
  if (s >= a.n) return;
  const double4_32a p = a.pos[s];
  double r[3] = {p.x, p.y, p.z};
  double q = a.charge[s];
  const bool finite = isfinite(r[0]) && isfinite(r[1]) && isfinite(r[2]) && isfinite(q);
  double t[3] = {0, 0, 0};
  if (finite) {
    a.box.wrapIntoCell(r, t);
  } else {
    r[0] = r[1] = r[2] = 0;
    q = 0;
  }
  a.sites[s] = pmemap::Site{r[0], r[1], r[2], q};
  if (!a.cellOf) return;
  int cell = -1, rank = 0;
  if (q != 0) {
    int c[3];
    for (int d = 0; d < 3; ++d) c[d] = int(fmin(fmax(t[d] / a.box.period(d) * a.cells[d], 0.0), a.cells[d] - 1.0));
    cell = (c[2] * a.cells[1] + c[1]) * a.cells[0] + c[0];
    rank = atomicAdd(&a.cellCount[cell], 1);
  }
  a.cellOf[s] = cell;
  a.rank[s] = rank;
}

/// Q(k) = sum_i q_i theta_x theta_y theta_z, one thread per charged site, every term added
/// in 64-bit fixed point (integer atomics: the sum does not depend on the order).
__global__ void spreadFixed(const pmemap::Site* sites, int n, pmemap::GridView g, unsigned long long* grid) {
  const int a = blockIdx.x * blockDim.x + threadIdx.x;
  if (a >= n) return;
  const pmemap::Site s = sites[a];
  if (s.q == 0) return;
  const double p[3] = {s.x, s.y, s.z};
  double theta[3][pme::kMaxSplineOrder];
  int first[3];
  pmemap::splineSupport(g, p, theta, first);
  for (int i = 0; i < g.order; ++i) {
    const int ix = (first[0] + i) % g.K[0];
    const double qx = s.q * theta[0][i];
    for (int j = 0; j < g.order; ++j) {
      const int iy = (first[1] + j) % g.K[1];
      const double qxy = qx * theta[1][j];
      unsigned long long* row = grid + ((long long)ix * g.K[1] + iy) * (long long)g.K[2];
      for (int k = 0; k < g.order; ++k)
        atomicAdd(&row[(first[2] + k) % g.K[2]], (unsigned long long)llrint(qxy * theta[2][k] * kGridScale));
    }
  }
}

__global__ void fixedToDouble(const unsigned long long* in, double* out, long long n) {
  const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = double((long long)in[i]) * (1.0 / kGridScale);
}

__global__ void applyInfluence(cufftDoubleComplex* grid, const double* eterm, long long n) {
  const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  grid[i].x *= eterm[i];
  grid[i].y *= eterm[i];
}

/// One thread per charged slot: its site into the cell-ordered array at start[cell] + rank,
/// with its slot as the sort key. Clears the cell's count for the next frame (the scan that
/// read it has run).
__global__ void scatterSites(int n, const pmemap::Site* sites, const int* cellOf, const int* rank, const int* start,
                             int* cellCount, pmemap::Site* sorted, int* key) {
  const int s = blockIdx.x * blockDim.x + threadIdx.x;
  if (s >= n) return;
  const int c = cellOf[s];
  if (c < 0) return;
  const int d = start[c] + rank[s];
  sorted[d] = sites[s];
  key[d] = s;
  cellCount[c] = 0;
}

/// One thread per cell: insertion sort of its sites by slot (a few atoms per cell), so the
/// real-space terms are summed in a fixed order.
__global__ void sortCells(int cells, const int* start, pmemap::Site* sorted, int* key) {
  const int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c >= cells) return;
  const int begin = start[c], end = start[c + 1];
  for (int i = begin + 1; i < end; ++i) {
    const pmemap::Site v = sorted[i];
    const int k = key[i];
    int j = i - 1;
    for (; j >= begin && key[j] > k; --j) {
      sorted[j + 1] = sorted[j];
      key[j + 1] = key[j];
    }
    sorted[j + 1] = v;
    key[j + 1] = k;
  }
}

/// What the lattice kernel reads.
struct PointArgs {
  int nx, ny, nz;
  double origin[3], spacing[3], tilt[3];  // nm (Lattice)
  pmemap::GridView grid;         // dE_rec/dQ(k), kJ/(mol e)
  double kCoulomb, background;   // kJ nm/(mol e^2), kJ/(mol e)
  // Real space (map.method = pme).
  int cells[3];
  dcs::ShearedBox box;   // nm
  double side[3];        // cell sides along the sheared axes, nm
  double reach[3];       // the cutoff times each sheared axis' stretch, nm
  float rc2, beta;       // nm^2, 1/nm
  const int* cellStart;  // cells + 1
  const pmemap::Site* sites;  // in cell order, each cell by slot
};

/// sum_i q_i erfc(beta r_i)/r_i (e/nm) at this lane's point over the atoms within the cutoff,
/// gathered by the whole warp. The warp's 8 x 4 points span the box [lo, lo + ext] (nm) and
/// the sheared coordinates [tlo, thi]; p is the lane's point relative to lo. The cells
/// within the cutoff of those points (sheared coordinates within the cutoff's reach) are
/// visited in z, y, x order over their periodic images (an image shift by whole box vectors
/// per row segment, so no minimum-image rounding per pair; with rc below Box::maxCutoff at
/// most one image of an atom lies within rc of a point, so this is the minimum-image sum).
/// Each lane loads one atom of a chunk of 32 relative to lo and tests it against the warp's
/// box; the warp then walks the atoms near the box, each lane adding its term (float, summed
/// in double). Per pair: 3 FADD, 3 FMA/FMUL, rsqrt, erfc, 2 FMUL, 1 DADD, 4 shuffles.
__device__ double realSpaceWarp(const PointArgs& a, const double lo[3], const float ext[3], const double tlo[3],
                                const double thi[3], const float p[3], bool valid) {
  const int lane = threadIdx.x & 31;
  int first[3], last[3];
  for (int d = 0; d < 3; ++d) {
    first[d] = int(floor((tlo[d] - a.reach[d]) / a.side[d]));
    last[d] = int(floor((thi[d] + a.reach[d]) / a.side[d]));
  }
  const float minR2 = float(dcs::kMinDistance2);
  double sum = 0;
  for (int cz = first[2]; cz <= last[2]; ++cz) {
    const int imageZ = floorDiv(cz, a.cells[2]);
    const double shiftZ = imageZ * a.box.cz - lo[2];
    for (int cy = first[1]; cy <= last[1]; ++cy) {
      const int imageY = floorDiv(cy, a.cells[1]);
      const double shiftY = imageY * a.box.by + imageZ * a.box.cy - lo[1];
      const int row = ((cz - imageZ * a.cells[2]) * a.cells[1] + (cy - imageY * a.cells[1])) * a.cells[0];
      for (int imageX = floorDiv(first[0], a.cells[0]); imageX <= floorDiv(last[0], a.cells[0]); ++imageX) {
        const int x0 = max(first[0] - imageX * a.cells[0], 0), x1 = min(last[0] - imageX * a.cells[0], a.cells[0] - 1);
        const double shiftX = imageX * a.box.ax + imageY * a.box.bx + imageZ * a.box.cx - lo[0];
        const int end = a.cellStart[row + x1 + 1];
        for (int base = a.cellStart[row + x0]; base < end; base += 32) {
          float4 atom = make_float4(0.f, 0.f, 0.f, 0.f);
          bool near = false;
          if (base + lane < end) {
            const pmemap::Site s = a.sites[base + lane];
            atom = make_float4(float(s.x + shiftX), float(s.y + shiftY), float(s.z + shiftZ), float(s.q));
            const float ox = fmaxf(fmaxf(-atom.x, atom.x - ext[0]), 0.f);
            const float oy = fmaxf(fmaxf(-atom.y, atom.y - ext[1]), 0.f);
            const float oz = fmaxf(fmaxf(-atom.z, atom.z - ext[2]), 0.f);
            near = fmaf(ox, ox, fmaf(oy, oy, oz * oz)) < a.rc2;
          }
          unsigned mask = __ballot_sync(kFullWarp, near);
          while (mask) {
            const int b = __ffs(mask) - 1;
            mask &= mask - 1;
            const float dx = p[0] - __shfl_sync(kFullWarp, atom.x, b);
            const float dy = p[1] - __shfl_sync(kFullWarp, atom.y, b);
            const float dz = p[2] - __shfl_sync(kFullWarp, atom.z, b);
            const float q = __shfl_sync(kFullWarp, atom.w, b);
            const float r2 = fmaf(dx, dx, fmaf(dy, dy, dz * dz));
            if (valid && r2 < a.rc2 && r2 >= minR2) {
              const float rinv = rsqrtf(r2);
              sum += double(q * erfcf(a.beta * r2 * rinv) * rinv);
            }
          }
        }
      }
    }
  }
  return sum;
}

/// One thread per lattice point (a warp per 8 x 4 points of a z-plane): k_C times the
/// real-space sum (map.method = pme) + the interpolated reciprocal potential + the
/// background, added to the point's running sum over frames.
template <bool kRealSpace>
__global__ void __launch_bounds__(kWarpsPerBlock * 32) mapPoints(PointArgs a, double* sum) {
  const int lane = threadIdx.x & 31;
  const int i0 = blockIdx.x * kWarpX, j0 = blockIdx.y * kWarpY;
  const int k = blockIdx.z * kWarpsPerBlock + (threadIdx.x >> 5);
  if (k >= a.nz) return;  // the whole warp
  const int i = i0 + (lane % kWarpX), j = j0 + (lane / kWarpX);
  const bool valid = i < a.nx && j < a.ny;
  double real = 0;
  if constexpr (kRealSpace) {
    // The warp's points: the parallelogram p0 + di u + dj v (di <= ei, dj <= ej) of the
    // lattice's steps u = (h_x, 0, 0), v = (t_yx, h_y, 0); lo is the low corner of its box.
    const int ei = min(i0 + kWarpX, a.nx) - 1 - i0, ej = min(j0 + kWarpY, a.ny) - 1 - j0;
    const double p0[3] = {a.origin[0] + i0 * a.spacing[0] + j0 * a.tilt[0] + k * a.tilt[1],
                          a.origin[1] + j0 * a.spacing[1] + k * a.tilt[2], a.origin[2] + k * a.spacing[2]};
    const double tiltX = ej * a.tilt[0], below = fmin(tiltX, 0.0);
    const double lo[3] = {p0[0] + below, p0[1], p0[2]};
    const float ext[3] = {float(ei * a.spacing[0] + fabs(tiltX)), float(ej * a.spacing[1]), 0.f};
    const float p[3] = {float((i - i0) * a.spacing[0] + (j - j0) * a.tilt[0] - below), float((j - j0) * a.spacing[1]),
                        0.f};
    // Sheared coordinates of the parallelogram's corners: their bounds are the points'.
    double tlo[3] = {INFINITY, INFINITY, INFINITY}, thi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (int c = 0; c < 4; ++c) {
      const int di = c & 1 ? ei : 0, dj = c & 2 ? ej : 0;
      double t[3];
      a.box.sheared(p0[0] + di * a.spacing[0] + dj * a.tilt[0], p0[1] + dj * a.spacing[1], p0[2], t);
      for (int d = 0; d < 3; ++d) {
        tlo[d] = fmin(tlo[d], t[d]);
        thi[d] = fmax(thi[d], t[d]);
      }
    }
    real = realSpaceWarp(a, lo, ext, tlo, thi, p, valid);
  }
  if (!valid) return;
  const double px = a.origin[0] + i * a.spacing[0] + j * a.tilt[0] + k * a.tilt[1],
               py = a.origin[1] + j * a.spacing[1] + k * a.tilt[2], pz = a.origin[2] + k * a.spacing[2];
  sum[(std::size_t(k) * a.ny + j) * a.nx + i] +=
      a.kCoulomb * real + pmemap::interpolateGrid(a.grid, px, py, pz) + a.background;
}

double sumOf(const std::vector<double>& v) {
  double s = 0;
  for (double x : v) s += x;
  return s;
}

}  // namespace

struct CudaPmeMap::Impl {
  Lattice lattice;
  MapOptions options;
  bool realSpace = false;
  std::array<int, 3> K{};
  std::size_t realCount = 0, complexCount = 0;
  CudaStream stream;  // the map's own; the frame's stream only runs prepareSites
  CufftPlan forward, inverse;
  DeviceBuffer<double> sum{"pme map sum", 1};
  DeviceBuffer<unsigned long long> fixedGrid{"pme map fixed-point grid", 1};
  DeviceBuffer<double> realGrid{"pme map real grid", 1};
  DeviceBuffer<cufftDoubleComplex> complexGrid{"pme map complex grid", 1};
  DeviceBuffer<double> eterm{"pme map influence function", 1};
  // Per frame, sized for `atoms` (slots).
  int atoms = 0;
  DeviceBuffer<double4_32a> hostPositions{"pme map uploaded positions", 1};
  DeviceBuffer<double> hostCharges{"pme map uploaded charges", 1};
  DeviceBuffer<pmemap::Site> sites{"pme map sites", 1};
  // Real space (pme).
  CellGrid cells;
  DeviceBuffer<int> cellOf{"pme map cell of slot", 1}, rank{"pme map rank in cell", 1};
  DeviceBuffer<int> cellCount{"pme map cell counts", 1}, cellStart{"pme map cell starts", 1};
  DeviceBuffer<pmemap::Site> sorted{"pme map sites in cell order", 1};
  DeviceBuffer<int> sortKey{"pme map slot of sorted site", 1};
  DeviceBuffer<unsigned char> scanScratch{"pme map scan scratch", 1};
  std::size_t scanBytes = 0;
  // The map-stream part of a frame, captured for this box and atom count.
  CudaGraphExec graph;
  Box box{};  // the box the graph, the cells and the influence function were made for
  double netCharge = 0;
  CudaEvent prepared{cudaEventDisableTiming}, done{cudaEventDisableTiming};
  CudaEvent start, stop;  // the last frame's first and last work on the map's stream
  bool timing = false;    // start and stop hold a frame not yet counted
  double deviceMs = 0;
  long long timedFrames = 0;

  // eterm(m) = k_C exp(-pi^2 m^2/beta^2) B(m) / (pi V m^2) on the half-complex grid, with
  // m = i a* + j b* + k c* (the influence function of CpuPme::convolve), 0 at m = 0.
  void updateInfluence(const Box& b) {
    std::array<std::vector<double>, 3> moduli;
    for (int d = 0; d < 3; ++d) moduli[d] = pme::bsplineModuli(K[d], options.pme.order);
    const ReciprocalBox recip = b.reciprocal();
    const int kzc = K[2] / 2 + 1;
    std::vector<double> h(complexCount);
    const double pref = units::kCoulomb / (units::kPi * b.volume());
    const double piOverBeta2 = units::kPi * units::kPi / (options.pme.beta * options.pme.beta);
    for (int ix = 0; ix < K[0]; ++ix) {
      const Vec3 ma = recip.a * double(ix <= K[0] / 2 ? ix : ix - K[0]);
      for (int iy = 0; iy < K[1]; ++iy) {
        const double myi = iy <= K[1] / 2 ? iy : iy - K[1];
        const double my = ma.y + myi * recip.b.y, mzab = ma.z + myi * recip.b.z;
        for (int iz = 0; iz < kzc; ++iz) {
          const double mz = mzab + iz * recip.c.z;
          const double m2 = ma.x * ma.x + my * my + mz * mz;
          h[(std::size_t(ix) * K[1] + iy) * kzc + iz] =
              m2 == 0 ? 0.0 : pref * std::exp(-piOverBeta2 * m2) / m2 * moduli[0][ix] * moduli[1][iy] * moduli[2][iz];
        }
      }
    }
    FARADAY_CUDA_CHECK(cudaStreamSynchronize(stream.get()));  // no frame still reads the old one
    eterm.upload(h, stream.get());
    FARADAY_CUDA_CHECK(cudaStreamSynchronize(stream.get()));
  }

  /// Buffers, cells, influence function and graph for `n` slots in box `b` (remade only
  /// when these change: once per run).
  void prepareFor(int n, const Box& b) {
    if (n == atoms && b == box) return;
    FARADAY_CUDA_CHECK(cudaStreamSynchronize(stream.get()));
    graph.reset();
    if (n != atoms) {
      atoms = n;
      sites.resize(n);
      if (realSpace) {
        cellOf.resize(n);
        rank.resize(n);
        sorted.resize(n);
        sortKey.resize(n);
      }
    }
    if (!(b == box)) updateInfluence(b);
    box = b;
    if (realSpace) {
      cells = chooseCells(b, n, options.ewaldCutoff);
      cellCount.resize(cells.count() + 1);
      cellCount.zero(stream.get());
      cellStart.resize(cells.count() + 1);
      FARADAY_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, scanBytes, cellCount.data(), cellStart.data(),
                                                       cells.count() + 1, stream.get()));
      scanScratch.resize(std::max<std::size_t>(scanBytes, 1));
    }
    FARADAY_CUDA_CHECK(cudaStreamSynchronize(stream.get()));
  }

  pmemap::GridView gridView() {
    return {{K[0], K[1], K[2]}, options.pme.order, dcs::shearedBoxOf(box), realGrid.data()};
  }

  void enqueuePrepare(cudaStream_t s, const DeviceFrame& f) {
    PrepareArgs p{};
    p.n = atoms;
    p.pos = reinterpret_cast<const double4_32a*>(f.positions);
    p.charge = f.charges;
    p.box = dcs::shearedBoxOf(box);
    for (int d = 0; d < 3; ++d) p.cells[d] = cells.n[d];
    p.sites = sites.data();
    if (realSpace) {
      p.cellOf = cellOf.data();
      p.rank = rank.data();
      p.cellCount = cellCount.data();
    }
    prepareSites<<<blocksFor(atoms, kThreads), kThreads, 0, s>>>(p);
    FARADAY_CUDA_CHECK_LAUNCH("prepareSites");
  }

  /// Everything after prepareSites, on the map's stream (captured once into `graph`).
  void enqueueFrame(cudaStream_t s) {
    const pmemap::GridView grid = gridView();
    fixedGrid.zero(s);
    spreadFixed<<<blocksFor(atoms, kThreads), kThreads, 0, s>>>(sites.data(), atoms, grid, fixedGrid.data());
    FARADAY_CUDA_CHECK_LAUNCH("spreadFixed");
    fixedToDouble<<<blocksFor(realCount, kThreads), kThreads, 0, s>>>(fixedGrid.data(), realGrid.data(), (long long)realCount);
    FARADAY_CUDA_CHECK_LAUNCH("fixedToDouble");
    FARADAY_CUDA_CHECK(cufftExecD2Z(forward.get(), realGrid.data(), complexGrid.data()));
    applyInfluence<<<blocksFor(complexCount, kThreads), kThreads, 0, s>>>(complexGrid.data(), eterm.data(),
                                                               (long long)complexCount);
    FARADAY_CUDA_CHECK_LAUNCH("applyInfluence");
    FARADAY_CUDA_CHECK(cufftExecZ2D(inverse.get(), complexGrid.data(), realGrid.data()));
    PointArgs a{};
    a.nx = lattice.nx;
    a.ny = lattice.ny;
    a.nz = lattice.nz;
    a.box = dcs::shearedBoxOf(box);
    for (int d = 0; d < 3; ++d) {
      a.origin[d] = lattice.origin[d];
      a.spacing[d] = lattice.spacing[d];
      a.tilt[d] = lattice.tilt[d];
      a.cells[d] = cells.n[d];
      a.side[d] = a.box.period(d) / cells.n[d];
      a.reach[d] = options.ewaldCutoff * a.box.stretch(d);
    }
    a.grid = grid;
    a.kCoulomb = units::kCoulomb;
    a.background = ewaldBackgroundPotential(options.pme.beta, netCharge, box.volume());
    const dim3 blocks((lattice.nx + kWarpX - 1) / kWarpX, (lattice.ny + kWarpY - 1) / kWarpY,
                      (lattice.nz + kWarpsPerBlock - 1) / kWarpsPerBlock);
    if (!realSpace) {
      mapPoints<false><<<blocks, kWarpsPerBlock * 32, 0, s>>>(a, sum.data());
      FARADAY_CUDA_CHECK_LAUNCH("mapPoints");
      return;
    }
    const int nCells = cells.count();
    FARADAY_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(scanScratch.data(), scanBytes, cellCount.data(),
                                                     cellStart.data(), nCells + 1, s));
    scatterSites<<<blocksFor(atoms, kThreads), kThreads, 0, s>>>(atoms, sites.data(), cellOf.data(), rank.data(),
                                                       cellStart.data(), cellCount.data(), sorted.data(),
                                                       sortKey.data());
    FARADAY_CUDA_CHECK_LAUNCH("scatterSites");
    sortCells<<<blocksFor(nCells, kThreads), kThreads, 0, s>>>(nCells, cellStart.data(), sorted.data(), sortKey.data());
    FARADAY_CUDA_CHECK_LAUNCH("sortCells");
    a.rc2 = float(options.ewaldCutoff * options.ewaldCutoff);
    a.beta = float(options.pme.beta);
    a.cellStart = cellStart.data();
    a.sites = sorted.data();
    mapPoints<true><<<blocks, kWarpsPerBlock * 32, 0, s>>>(a, sum.data());
    FARADAY_CUDA_CHECK_LAUNCH("mapPoints");
  }

  /// Adds the previous frame's GPU time. Called at the next frame: in a run that frame
  /// ended many steps ago, and a host frame's upload has waited for it already.
  void collectTiming() {
    if (!timing) return;
    FARADAY_CUDA_CHECK(cudaEventSynchronize(stop.get()));
    deviceMs += CudaEvent::elapsedMs(start, stop);
    ++timedFrames;
    timing = false;
  }

  void addFrame(const DeviceFrame& f, const Box& b) {
    if (!b.isValid()) throw Error("pme potential map: needs a box in reduced triclinic form");
    if (realSpace && !(options.ewaldCutoff < b.maxCutoff()))
      throw Error(std::string("pme potential map: the real-space cutoff must be below half ") + b.maxCutoffMeaning() +
                  " (" + std::to_string(b.maxCutoff()) + " nm)");
    if (!f.valid()) throw Error("pme potential map: the frame has no device positions and charges");
    prepareFor(f.n, b);
    netCharge = f.netCharge;
    const cudaStream_t frameStream = static_cast<cudaStream_t>(f.stream), s = stream.get();
    // The previous frame has finished with the sites before prepareSites overwrites them.
    FARADAY_CUDA_CHECK(cudaStreamWaitEvent(frameStream, done.get(), 0));
    enqueuePrepare(frameStream, f);
    FARADAY_CUDA_CHECK(cudaEventRecord(prepared.get(), frameStream));
    FARADAY_CUDA_CHECK(cudaStreamWaitEvent(s, prepared.get(), 0));
    collectTiming();
    FARADAY_CUDA_CHECK(cudaEventRecord(start.get(), s));
    // The background is a kernel parameter: a new net charge needs a new graph.
    if (!graph.captured() || netCharge != capturedNetCharge) {
      graph.capture(s, [&] { enqueueFrame(s); });
      capturedNetCharge = netCharge;
    }
    graph.launch(s);
    FARADAY_CUDA_CHECK(cudaEventRecord(stop.get(), s));
    timing = true;
    FARADAY_CUDA_CHECK(cudaEventRecord(done.get(), s));
  }
  double capturedNetCharge = 0;
};

CudaPmeMap::CudaPmeMap(const Lattice& lattice, const MapOptions& options) {
  checkMapOptions(options);
  if (!isPmeMethod(options.method)) throw Error("CudaPmeMap: map method is not pme or pmepot");
  if (lattice.size() == 0) throw Error("pme potential map: empty lattice");
  impl_ = std::make_unique<Impl>();
  Impl& m = *impl_;
  m.lattice = lattice;
  m.options = options;
  m.realSpace = options.method == MapMethod::Pme;
  m.K = options.pme.grid;
  m.realCount = std::size_t(m.K[0]) * m.K[1] * m.K[2];
  m.complexCount = std::size_t(m.K[0]) * m.K[1] * (m.K[2] / 2 + 1);
  m.forward.make(m.K, CUFFT_D2Z, m.stream.get());
  m.inverse.make(m.K, CUFFT_Z2D, m.stream.get());
  m.sum.resize(lattice.size());
  m.sum.zero(m.stream.get());
  m.fixedGrid.resize(m.realCount);
  m.realGrid.resize(m.realCount);
  m.complexGrid.resize(m.complexCount);
  m.eterm.resize(m.complexCount);
  FARADAY_CUDA_CHECK(cudaStreamSynchronize(m.stream.get()));
}

CudaPmeMap::~CudaPmeMap() = default;

void CudaPmeMap::addFrame(const std::vector<Vec3>& positions, const std::vector<double>& charges, const Box& box,
                          Timers* timers) {
  ScopedTimer timer(timers, "map.gpu");
  Impl& m = *impl_;
  if (positions.size() != charges.size()) throw Error("pme potential map: positions and charges differ in count");
  if (positions.empty()) throw Error("pme potential map: the frame has no atoms");
  std::vector<double4_32a> p(positions.size());
  for (std::size_t a = 0; a < positions.size(); ++a) p[a] = make_double4_32a(positions[a].x, positions[a].y, positions[a].z, 0);
  // Pageable uploads return once the data is staged, so the vectors may go at once.
  m.hostPositions.upload(p, m.stream.get());
  m.hostCharges.upload(charges, m.stream.get());
  DeviceFrame f;
  f.n = int(positions.size());
  f.positions = reinterpret_cast<const double*>(m.hostPositions.data());
  f.charges = m.hostCharges.data();
  f.netCharge = sumOf(charges);
  f.stream = m.stream.get();
  m.addFrame(f, box);
}

void CudaPmeMap::addFrame(const DeviceFrame& frame, const Box& box, Timers* timers) {
  ScopedTimer timer(timers, "map.gpu");
  impl_->addFrame(frame, box);
}

std::vector<double> CudaPmeMap::sum() const { return impl_->sum.toHost(impl_->stream.get()); }

std::vector<double> CudaPmeMap::takeSum() {
  std::vector<double> out = sum();
  impl_->sum.zero(impl_->stream.get());
  return out;
}

double CudaPmeMap::deviceMsPerFrame() const {
  Impl& m = *impl_;
  m.collectTiming();
  return m.timedFrames > 0 ? m.deviceMs / double(m.timedFrames) : 0.0;
}

}  // namespace faraday
