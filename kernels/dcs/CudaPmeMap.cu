// GPU PME potential map (PmeMap.h): a double-precision smooth PME of its own for the
// reciprocal grid, then one thread per lattice point for interpolation plus the real-space
// gather, all in double. The map is computed once per sampled frame, far from the MD inner
// loop, so double precision costs little and keeps the map at the CPU reference's accuracy.
#include <cufft.h>

#include <algorithm>
#include <cmath>

#include "engine/Error.h"
#include "engine/Units.h"
#include "kernels/common/CudaCheck.h"
#include "kernels/common/CudaOwners.h"
#include "kernels/common/DeviceBuffer.h"
#include "kernels/dcs/PmeMap.h"
#include "kernels/dcs/PmeMapDetail.h"
#include "kernels/pme/BSpline.h"
#include "kernels/pme/PmeGridGeometry.h"

namespace faraday {

namespace {

constexpr int kThreads = 256;
// Fixed-point scale of the charge grid: 2^40 e^-1, resolution 9e-13 e (rounded to nearest),
// range +-8.4e6 e per grid point; a grid value is at most the sum of |q| within the spline
// support of that point.
constexpr double kGridScale = 1099511627776.0;

int blocksFor(std::size_t n) { return int((n + kThreads - 1) / kThreads); }

// Q(k) = sum_i q_i theta_x theta_y theta_z, one thread per charged atom, every term added
// in 64-bit fixed point (integer atomics: the sum does not depend on the order).
__global__ void spreadFixed(const pmemap::Site* sites, int n, pmemap::GridView g, unsigned long long* grid) {
  const int a = blockIdx.x * blockDim.x + threadIdx.x;
  if (a >= n) return;
  const pmemap::Site s = sites[a];
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

// One thread per lattice point: k_C * real-space sum + interpolated reciprocal potential +
// background, added to the point's running sum over frames.
__global__ void mapPoints(pmemap::CellView cells, pmemap::GridView grid, double ox, double oy, double oz, double hx,
                          double hy, double hz, int nx, int ny, long long points, double kCoulomb,
                          double background, double* sum) {
  const long long idx = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (idx >= points) return;
  const int i = int(idx % nx);
  const long long row = idx / nx;
  const int j = int(row % ny);
  const int k = int(row / ny);
  const double px = ox + i * hx, py = oy + j * hy, pz = oz + k * hz;
  sum[idx] += kCoulomb * pmemap::realSpaceSum(cells, px, py, pz) + pmemap::interpolateGrid(grid, px, py, pz) +
              background;
}

}  // namespace

struct CudaPmeMap::Impl {
  Lattice lattice;
  MapOptions options;
  std::array<int, 3> K{};
  std::size_t realCount = 0, complexCount = 0;
  CudaStream stream;
  CufftPlan forward, inverse;
  DeviceBuffer<double> sum{"pme map sum", 1};
  DeviceBuffer<unsigned long long> fixedGrid{"pme map fixed-point grid", 1};
  DeviceBuffer<double> realGrid{"pme map real grid", 1};
  DeviceBuffer<cufftDoubleComplex> complexGrid{"pme map complex grid", 1};
  DeviceBuffer<double> eterm{"pme map influence function", 1};
  DeviceBuffer<pmemap::Site> sites{"pme map sites", 1};
  DeviceBuffer<int> cellStart{"pme map cell starts", 1};
  Vec3 etermBox{0, 0, 0};  // box edges the influence function was computed for

  // eterm(m) = k_C exp(-pi^2 m^2/beta^2) B(m) / (pi V m^2) on the half-complex grid
  // (the influence function of CpuPme::convolve), 0 at m = 0.
  void updateInfluence(const Box& box) {
    const Vec3 L = box.lengths();
    if (L.x == etermBox.x && L.y == etermBox.y && L.z == etermBox.z) return;
    std::array<std::vector<double>, 3> f;
    for (int d = 0; d < 3; ++d)
      f[d] = pme::influenceFactors(pme::bsplineModuli(K[d], options.pme.order), L[d], options.pme.beta);
    const int kzc = K[2] / 2 + 1;
    std::vector<double> h(complexCount);
    const double pref = units::kCoulomb / (units::kPi * box.volume());
    for (int ix = 0; ix < K[0]; ++ix) {
      const double mx = (ix <= K[0] / 2 ? ix : ix - K[0]) / L.x;
      for (int iy = 0; iy < K[1]; ++iy) {
        const double my = (iy <= K[1] / 2 ? iy : iy - K[1]) / L.y;
        for (int iz = 0; iz < kzc; ++iz) {
          const double mz = iz / L.z;
          const double m2 = mx * mx + my * my + mz * mz;
          h[(std::size_t(ix) * K[1] + iy) * kzc + iz] = m2 == 0 ? 0.0 : pref / m2 * f[0][ix] * f[1][iy] * f[2][iz];
        }
      }
    }
    eterm.upload(h, stream.get());
    FARADAY_CUDA_CHECK(cudaStreamSynchronize(stream.get()));
    etermBox = L;
  }
};

CudaPmeMap::CudaPmeMap(const Lattice& lattice, const MapOptions& options) {
  checkMapOptions(options);
  if (options.method != MapMethod::Pme) throw Error("CudaPmeMap: map method is not pme");
  impl_ = std::make_unique<Impl>();
  Impl& m = *impl_;
  m.lattice = lattice;
  m.options = options;
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
  FARADAY_CUDA_CHECK(cudaStreamSynchronize(m.stream.get()));
}

CudaPmeMap::~CudaPmeMap() = default;

void CudaPmeMap::addFrame(const std::vector<Vec3>& positions, const std::vector<double>& charges, const Box& box,
                          Timers* timers) {
  ScopedTimer timer(timers, "map.gpu");
  Impl& m = *impl_;
  if (positions.size() != charges.size()) throw Error("pme potential map: positions and charges differ in count");
  if (!box.isValid()) throw Error("pme potential map: needs a valid rectangular box");
  if (!(m.options.ewaldCutoff < 0.5 * box.shortestEdge()))
    throw keyError("nonbonded.cutoff", "pme potential map: the real-space cutoff must be below half the shortest box edge (" +
                                           std::to_string(0.5 * box.shortestEdge()) + " nm)");
  m.updateInfluence(box);
  // Atoms sorted into cells on the host (also the spreading order; the integer sums make
  // that order irrelevant for the grid).
  pmemap::CellView cells;
  std::vector<int> start;
  std::vector<pmemap::Site> sites;
  pmemap::buildCells(positions, charges, box, m.options.ewaldCutoff, m.options.pme.beta, cells, start, sites);
  m.cellStart.upload(start, m.stream.get());
  if (!sites.empty()) m.sites.upload(sites, m.stream.get());
  cells.start = m.cellStart.data();
  cells.sites = m.sites.data();
  const Vec3 L = box.lengths();
  pmemap::GridView grid{{m.K[0], m.K[1], m.K[2]}, m.options.pme.order, {L.x, L.y, L.z}, m.realGrid.data()};
  const int n = int(sites.size());
  const cudaStream_t stream = m.stream.get();
  m.fixedGrid.zero(stream);
  if (n > 0) {
    spreadFixed<<<blocksFor(n), kThreads, 0, stream>>>(m.sites.data(), n, grid, m.fixedGrid.data());
    FARADAY_CUDA_CHECK_LAUNCH("spreadFixed");
  }
  fixedToDouble<<<blocksFor(m.realCount), kThreads, 0, stream>>>(m.fixedGrid.data(), m.realGrid.data(),
                                                              (long long)m.realCount);
  FARADAY_CUDA_CHECK_LAUNCH("fixedToDouble");
  FARADAY_CUDA_CHECK(cufftExecD2Z(m.forward.get(), m.realGrid.data(), m.complexGrid.data()));
  applyInfluence<<<blocksFor(m.complexCount), kThreads, 0, stream>>>(m.complexGrid.data(), m.eterm.data(),
                                                                 (long long)m.complexCount);
  FARADAY_CUDA_CHECK_LAUNCH("applyInfluence");
  FARADAY_CUDA_CHECK(cufftExecZ2D(m.inverse.get(), m.complexGrid.data(), m.realGrid.data()));
  double q = 0;
  for (double c : charges) q += c;
  const double background = ewaldBackgroundPotential(m.options.pme.beta, q, box.volume());
  const Lattice& l = m.lattice;
  const long long points = (long long)l.size();
  if (points > 0) {
    mapPoints<<<blocksFor(l.size()), kThreads, 0, stream>>>(cells, grid, l.origin.x, l.origin.y, l.origin.z,
                                                        l.spacing.x, l.spacing.y, l.spacing.z, l.nx, l.ny,
                                                        points, units::kCoulomb, background, m.sum.data());
    FARADAY_CUDA_CHECK_LAUNCH("mapPoints");
  }
  FARADAY_CUDA_CHECK(cudaStreamSynchronize(m.stream.get()));
}

std::vector<double> CudaPmeMap::sum() const { return impl_->sum.toHost(impl_->stream.get()); }

}  // namespace faraday
