#include "kernels/pme/CpuPme.h"

#include <fftw3.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "core/Error.h"
#include "core/Units.h"
#include "core/Virial.h"
#include "kernels/pme/BSpline.h"
#include "kernels/pme/FftwSupport.h"
#include "kernels/pme/PmeConvolution.h"

namespace faraday {

namespace {

Error pmeError(int line, const std::string& what) {
  return Error(std::string(__FILE__) + ":" + std::to_string(line) + ": " + what);
}

/// The grid indices first, first + 1, ..., first + n - 1 modulo K (0 <= first < K, n <= K).
void wrappedIndices(int first, int n, int K, int out[]) {
  for (int c = 0; c < n; ++c) out[c] = first + c < K ? first + c : first + c - K;
}

}  // namespace

CpuPme::CpuPme(const PmeParams& params, int threads)
    : params_(params), threads_(threads > 0 ? threads : omp_get_max_threads()), K_(params.grid) {
  if (params_.order < pme::kMinSplineOrder || params_.order > pme::kMaxSplineOrder)
    throw pmeError(__LINE__, "PME order " + std::to_string(params_.order) + " outside 4..8");
  for (int d = 0; d < 3; ++d)
    if (K_[d] < params_.order)
      throw pmeError(__LINE__, "PME grid dimension " + std::to_string(K_[d]) + " smaller than the order");
  if (!(params_.beta > 0)) throw pmeError(__LINE__, "PME beta must be > 0");
  complexZ_ = K_[2] / 2 + 1;
  for (int d = 0; d < 3; ++d) moduli_[d] = pme::bsplineModuli(K_[d], params_.order);
  realGrid_.assign(std::size_t(K_[0]) * K_[1] * K_[2], 0.0);
  complexGrid_.assign(std::size_t(K_[0]) * K_[1] * complexZ_, {0.0, 0.0});

  std::lock_guard<std::mutex> lock(fftwPlannerMutex());
  // The 3D transforms as x planes and x lines: a 2D r2c/c2r transform of each (y, z) plane
  // and a 1D c2c transform along x of every (y, m_z) column, each by one single-threaded
  // plan, the planes and the rows of columns shared out over the threads. Every transform
  // is then computed by the same code whatever the thread count (the bits do not depend on
  // it), and all threads help at every size. FFTW's own threaded 3D plans (FFTW_ESTIMATE)
  // were measured on 16 cores: 125^3 forward + inverse 56 ms on one thread, 410 ms on 16;
  // planes and lines: 93 ms on one, 10.5 on 8, 16.5 on 16. At 270^3, 76 against 81 ms.
  fftThreads_ = std::max(1, std::min(threads_, std::max(K_[0], K_[1])));
  // FFTW_ESTIMATE: the plans (and so every bit of the result) are the same run to run.
  // FFTW_UNALIGNED: each plan runs on every plane or row, whatever its address.
  const unsigned flags = FFTW_ESTIMATE | FFTW_UNALIGNED;
  auto* cplx = reinterpret_cast<fftw_complex*>(complexGrid_.data());
  const int columnStride = K_[1] * complexZ_;
  planeForward_ = fftw_plan_dft_r2c_2d(K_[1], K_[2], realGrid_.data(), cplx, flags);
  planeInverse_ = fftw_plan_dft_c2r_2d(K_[1], K_[2], cplx, realGrid_.data(), flags);
  lineForward_ = fftw_plan_many_dft(1, &K_[0], complexZ_, cplx, nullptr, columnStride, 1, cplx, nullptr,
                                    columnStride, 1, FFTW_FORWARD, flags);
  lineInverse_ = fftw_plan_many_dft(1, &K_[0], complexZ_, cplx, nullptr, columnStride, 1, cplx, nullptr,
                                    columnStride, 1, FFTW_BACKWARD, flags);
  if (!planeForward_ || !planeInverse_ || !lineForward_ || !lineInverse_)
    throw pmeError(__LINE__, "FFTW could not plan the PME grid");
}

CpuPme::~CpuPme() {
  std::lock_guard<std::mutex> lock(fftwPlannerMutex());
  for (void* plan : {planeForward_, planeInverse_, lineForward_, lineInverse_})
    if (plan) fftw_destroy_plan(static_cast<fftw_plan>(plan));
}

ReciprocalResult CpuPme::compute(const std::vector<Vec3>& positions, const std::vector<double>& charges,
                                 const Box& box, std::vector<Vec3>& forces, Timers* timers) {
  if (!box.isValid()) throw pmeError(__LINE__, "PME needs a box in reduced triclinic form");
  if (charges.size() != positions.size() || forces.size() != positions.size())
    throw pmeError(__LINE__, "positions, charges and forces differ in size");
  {
    ScopedTimer t(timers, "pme.spline");
    computeSplines(positions, charges, box);
  }
  {
    ScopedTimer t(timers, "pme.spread");
    spreadCharges();
  }
  {
    ScopedTimer t(timers, "pme.fft_forward");
    forwardFft();
  }
  ReciprocalResult result;
  {
    ScopedTimer t(timers, "pme.convolve");
    result = convolve(box);
  }
  {
    ScopedTimer t(timers, "pme.fft_inverse");
    inverseFft();
  }
  {
    ScopedTimer t(timers, "pme.gather");
    gatherForces(box, forces);
  }
  return result;
}

// Fractional coordinates s = (a*.r, b*.r, c*.r) wrapped into [0, 1), grid coordinates u = K s, and the
// B-spline weights and derivatives of every charged atom in each dimension.
void CpuPme::computeSplines(const std::vector<Vec3>& positions, const std::vector<double>& charges,
                            const Box& box) {
  charged_.clear();
  q_.clear();
  for (std::size_t i = 0; i < charges.size(); ++i) {
    if (charges[i] != 0.0) {
      charged_.push_back(int(i));
      q_.push_back(charges[i]);
    }
  }
  const int n = params_.order;
  const std::size_t na = charged_.size();
  theta_.resize(na * 3 * n);
  dtheta_.resize(na * 3 * n);
  first_.resize(na * 3);
  const ReciprocalBox recip = box.reciprocal();
#pragma omp parallel for num_threads(threads_) schedule(static)
  for (std::size_t a = 0; a < na; ++a) {
    const Vec3 u = recip.fractional(positions[charged_[a]]);
    for (int d = 0; d < 3; ++d) {
      double s = u[d];
      s -= std::floor(s);
      double w;
      pme::splitGridCoordinate(s * K_[d], K_[d], n, first_[a * 3 + d], w);
      pme::bsplineWeights<double>(w, n, &theta_[(a * 3 + d) * n], &dtheta_[(a * 3 + d) * n]);
    }
  }
  // Counting sort of the atoms by their first x grid index, stable in atom order, so that
  // each x plane can be spread by one thread in a fixed order.
  bucketStart_.assign(K_[0] + 1, 0);
  for (std::size_t a = 0; a < na; ++a) ++bucketStart_[first_[a * 3] + 1];
  for (int b = 0; b < K_[0]; ++b) bucketStart_[b + 1] += bucketStart_[b];
  bucketAtoms_.resize(na);
  std::vector<int> fill(bucketStart_.begin(), bucketStart_.end() - 1);
  for (std::size_t a = 0; a < na; ++a) bucketAtoms_[fill[first_[a * 3]]++] = int(a);
}

// Q(k) = sum_i q_i theta_x theta_y theta_z (Essmann eq. 4.6). Plane ix receives, from the
// atoms whose first x index is (ix - j) mod K_x, the x weight theta_x[j]. Each plane is
// owned by one thread and summed in the same order whatever the thread count.
void CpuPme::spreadCharges() {
  const int n = params_.order;
#pragma omp parallel for num_threads(threads_) schedule(static)
  for (int ix = 0; ix < K_[0]; ++ix) {
    double* plane = &realGrid_[realIndex(ix, 0, 0)];
    std::fill(plane, plane + std::size_t(K_[1]) * K_[2], 0.0);
    for (int j = 0; j < n; ++j) {
      const int bucket = ((ix - j) % K_[0] + K_[0]) % K_[0];
      for (int p = bucketStart_[bucket]; p < bucketStart_[bucket + 1]; ++p) {
        const int a = bucketAtoms_[p];
        const double qx = q_[a] * theta_[(a * 3 + 0) * n + j];
        const double* ty = &theta_[(a * 3 + 1) * n];
        const double* tz = &theta_[(a * 3 + 2) * n];
        int iy[pme::kMaxSplineOrder], iz[pme::kMaxSplineOrder];
        wrappedIndices(first_[a * 3 + 1], n, K_[1], iy);
        wrappedIndices(first_[a * 3 + 2], n, K_[2], iz);
        for (int b = 0; b < n; ++b) {
          const double qxy = qx * ty[b];
          double* row = plane + std::size_t(iy[b]) * K_[2];
          for (int c = 0; c < n; ++c) row[iz[c]] += qxy * tz[c];
        }
      }
    }
  }
}

void CpuPme::forwardFft() { transform(true); }

void CpuPme::inverseFft() { transform(false); }

// Forward: the (y, z) planes (r2c), then the x lines. Inverse: the x lines, then the planes
// (c2r, which overwrites its input plane; the spectrum is not read again).
void CpuPme::transform(bool forward) {
  double* const real = realGrid_.data();
  auto* const cplx = reinterpret_cast<fftw_complex*>(complexGrid_.data());
  const std::size_t realPlane = std::size_t(K_[1]) * K_[2], complexPlane = std::size_t(K_[1]) * complexZ_;
  const auto planes = [&] {
    const auto plan = static_cast<fftw_plan>(forward ? planeForward_ : planeInverse_);
#pragma omp parallel for schedule(static) num_threads(fftThreads_)
    for (int x = 0; x < K_[0]; ++x) {
      if (forward) fftw_execute_dft_r2c(plan, real + x * realPlane, cplx + x * complexPlane);
      else fftw_execute_dft_c2r(plan, cplx + x * complexPlane, real + x * realPlane);
    }
  };
  const auto lines = [&] {
    const auto plan = static_cast<fftw_plan>(forward ? lineForward_ : lineInverse_);
#pragma omp parallel for schedule(static) num_threads(fftThreads_)
    for (int y = 0; y < K_[1]; ++y) {
      fftw_complex* const row = cplx + std::size_t(y) * complexZ_;
      fftw_execute_dft(plan, row, row);
    }
  };
  if (forward) {
    planes();
    lines();
  } else {
    lines();
    planes();
  }
}

// Multiplies S(m) = FFT(Q) by the influence function and sums the energy and the virial
// (pme::convolvePoint) over the half-complex grid: planes 0 < m_z < K_z/2 stand for
// themselves and their conjugates (weight 2); m_z = 0 and the Nyquist plane m_z = K_z/2
// count once. The reciprocal vector of indices (i, j, k) is m = i a* + j b* + k c*; in reduced
// form a* has three components, b* two and c* one.
ReciprocalResult CpuPme::convolve(const Box& box) {
  const ReciprocalBox recip = box.reciprocal();
  const double volume = box.volume();
  const double piOverBeta2 = units::kPi * units::kPi / (params_.beta * params_.beta);
  const double prefactor = units::kCoulomb / (units::kPi * volume);
  // Per-plane partial sums, added in plane order afterwards: deterministic.
  std::vector<pme::ConvolutionSums> partial(K_[0]);
#pragma omp parallel for num_threads(threads_) schedule(static)
  for (int ix = 0; ix < K_[0]; ++ix) {
    pme::ConvolutionSums acc{};
    const int mxi = ix <= K_[0] / 2 ? ix : ix - K_[0];
    const Vec3 ma = recip.a * double(mxi);
    for (int iy = 0; iy < K_[1]; ++iy) {
      const int myi = iy <= K_[1] / 2 ? iy : iy - K_[1];
      const double my = ma.y + myi * recip.b.y, mzab = ma.z + myi * recip.b.z;
      const double bxy = moduli_[0][ix] * moduli_[1][iy];
      std::complex<double>* row = &complexGrid_[(std::size_t(ix) * K_[1] + iy) * complexZ_];
      for (int iz = 0; iz < complexZ_; ++iz) {
        const double weight = (iz == 0 || 2 * iz == K_[2]) ? 1.0 : 2.0;
        pme::convolvePoint(row[iz], ma.x, my, mzab + iz * recip.c.z, bxy, moduli_[2][iz], weight, piOverBeta2, prefactor, acc);
      }
    }
    partial[ix] = acc;
  }
  pme::ConvolutionSums sum{};
  for (const auto& p : partial)
    for (int c = 0; c < 7; ++c) sum[c] += p[c];
  ReciprocalResult r;
  r.energy = sum[0];
  r.virial = symmetricTensor(sum.data() + 1);
  return r;
}

// After the inverse FFT the real grid holds phi(k) = dE/dQ(k) (the convolution
// theta_rec * Q). F_i = -q_i sum_k phi(k) grad(theta_x theta_y theta_z), with
// grad = K_a a* d/du_a + K_b b* d/du_b + K_c c* d/du_c (u the grid coordinates).
void CpuPme::gatherForces(const Box& box, std::vector<Vec3>& forces) {
  const int n = params_.order;
  const ReciprocalBox recip = box.reciprocal();
  const Vec3 sa = recip.a * double(K_[0]), sb = recip.b * double(K_[1]), sc = recip.c * double(K_[2]);
  const std::size_t na = charged_.size();
  // Atoms taken by x plane (the spreading's order), so that neighbouring iterations read
  // neighbouring planes; each atom's sum is the same whatever the order.
#pragma omp parallel for num_threads(threads_) schedule(static)
  for (std::size_t p = 0; p < na; ++p) {
    const std::size_t a = std::size_t(bucketAtoms_[p]);
    const double* tx = &theta_[(a * 3 + 0) * n];
    const double* ty = &theta_[(a * 3 + 1) * n];
    const double* tz = &theta_[(a * 3 + 2) * n];
    const double* dx = &dtheta_[(a * 3 + 0) * n];
    const double* dy = &dtheta_[(a * 3 + 1) * n];
    const double* dz = &dtheta_[(a * 3 + 2) * n];
    int ix[pme::kMaxSplineOrder], iy[pme::kMaxSplineOrder], iz[pme::kMaxSplineOrder];
    wrappedIndices(first_[a * 3], n, K_[0], ix);
    wrappedIndices(first_[a * 3 + 1], n, K_[1], iy);
    wrappedIndices(first_[a * 3 + 2], n, K_[2], iz);
    double gx = 0, gy = 0, gz = 0;
    for (int i = 0; i < n; ++i) {
      for (int j = 0; j < n; ++j) {
        const double* row = &realGrid_[realIndex(ix[i], iy[j], 0)];
        double sumT = 0, sumD = 0;  // sum_c phi tz, sum_c phi dz
        for (int c = 0; c < n; ++c) {
          const double phi = row[iz[c]];
          sumT += phi * tz[c];
          sumD += phi * dz[c];
        }
        gx += dx[i] * ty[j] * sumT;
        gy += tx[i] * dy[j] * sumT;
        gz += tx[i] * ty[j] * sumD;
      }
    }
    const double q = q_[a];
    forces[charged_[a]] -= (sa * gx + sb * gy + sc * gz) * q;
  }
}

}  // namespace faraday
