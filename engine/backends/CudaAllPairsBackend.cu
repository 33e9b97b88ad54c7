// nonbonded.mode = all-pairs on the GPU (see CudaAllPairsBackend.h): velocity Verlet around
// the triangular all-pairs kernel, state in double on the device, nothing back to the host
// except on reporting steps and checks.
#include "engine/backends/CudaAllPairsBackend.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <climits>
#include <cmath>

#include "core/Error.h"
#include "engine/backends/CudaPhaseTimer.cuh"
#include "engine/backends/CudaStepPolicy.h"
#include "kernels/common/CudaCheck.h"
#include "kernels/common/CudaOwners.h"
#include "kernels/common/DeviceBuffer.h"
#include "kernels/common/FixedPoint.h"
#include "kernels/common/Launch.h"
#include "kernels/nbody/CudaAllPairs.h"

namespace faraday {
namespace {

using cuda_step::kCheckInterval;
using cuda_step::kThreads;

/// 2^62: the fixed-point forces' range (allPairsForceScale keeps the bound below it).
constexpr double kFixedRange = 4.611686018427388e18;

struct Atoms {
  int n;
  double4_32a* pos;  ///< x, y, z (nm)
  double4_32a* vel;  ///< vx, vy, vz (nm/ps); w = 1/m (1/amu)
  float4* body;      ///< float x, y, z relative to `origin`; w = mass or type (kept)
  double3 origin;    ///< the bodies' reference point (their centroid at setState), nm
  unsigned long long* force;
  std::size_t stride;
  double invScale;   ///< 1 / fixed-point scale
  double forceLimit; ///< |F| component (kJ/mol/nm) beyond which the fixed point nears overflow
  int* firstBad;
};

__device__ __forceinline__ double forceOf(const Atoms& a, int c, int i) {
  return double(static_cast<long long>(a.force[c * a.stride + i])) * a.invScale;
}

/// B then A: v += dt/2 F/m, x += dt v; the float bodies follow; the forces are cleared.
__global__ void kickDriftKernel(Atoms a, double dt) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= a.n) return;
  double4_32a v = a.vel[i], x = a.pos[i];
  const double h = 0.5 * dt * v.w;
  v.x += h * forceOf(a, 0, i), v.y += h * forceOf(a, 1, i), v.z += h * forceOf(a, 2, i);
  x.x += dt * v.x, x.y += dt * v.y, x.z += dt * v.z;
  a.vel[i] = v;
  a.pos[i] = x;
  for (int c = 0; c < 3; ++c) a.force[c * a.stride + i] = 0ull;
  float4 b = a.body[i];
  b.x = float(x.x - a.origin.x), b.y = float(x.y - a.origin.y), b.z = float(x.z - a.origin.z);
  a.body[i] = b;
  if (!isfinite(x.x + x.y + x.z)) atomicMin(a.firstBad, i);
}

/// B: v += dt/2 F/m; with keParts, each block's kinetic energy (fixed order).
__global__ void kickKernel(Atoms a, double dt, double* keParts) {
  __shared__ double partial[kThreads];
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  double ke = 0;
  if (i < a.n) {
    double4_32a v = a.vel[i];
    const double h = 0.5 * dt * v.w;
    const double fx = forceOf(a, 0, i), fy = forceOf(a, 1, i), fz = forceOf(a, 2, i);
    v.x += h * fx, v.y += h * fy, v.z += h * fz;
    a.vel[i] = v;
    const double fMax = fmax(fabs(fx), fmax(fabs(fy), fabs(fz)));
    if (!isfinite(v.x + v.y + v.z) || fMax > a.forceLimit) atomicMin(a.firstBad, i);
    ke = 0.5 * (v.x * v.x + v.y * v.y + v.z * v.z) / v.w;
  }
  if (!keParts) return;
  partial[threadIdx.x] = ke;
  __syncthreads();
  for (int s = kThreads / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) partial[threadIdx.x] += partial[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0) keParts[blockIdx.x] = partial[0];
}

/// The float bodies from the double positions (after setState).
__global__ void bodiesKernel(Atoms a) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= a.n) return;
  const double4_32a x = a.pos[i];
  float4 b = a.body[i];
  b.x = float(x.x - a.origin.x), b.y = float(x.y - a.origin.y), b.z = float(x.z - a.origin.z);
  a.body[i] = b;
}

/// Per-block sums of x_i (x) F_i (9 components, row-major): without periodic images the pair
/// virial sum over pairs r_ij (x) F_ij equals sum over i of x_i (x) F_i.
__global__ void virialKernel(Atoms a, double* parts) {
  __shared__ double partial[9][kThreads];
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  double w[9] = {0, 0, 0, 0, 0, 0, 0, 0, 0};
  if (i < a.n) {
    const double4_32a x = a.pos[i];
    const double xs[3] = {x.x - a.origin.x, x.y - a.origin.y, x.z - a.origin.z};
    const double f[3] = {forceOf(a, 0, i), forceOf(a, 1, i), forceOf(a, 2, i)};
    for (int r = 0; r < 3; ++r)
      for (int c = 0; c < 3; ++c) w[3 * r + c] = xs[r] * f[c];
  }
  for (int k = 0; k < 9; ++k) partial[k][threadIdx.x] = w[k];
  __syncthreads();
  for (int s = kThreads / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      for (int k = 0; k < 9; ++k) partial[k][threadIdx.x] += partial[k][threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0)
    for (int k = 0; k < 9; ++k) parts[9 * blockIdx.x + k] = partial[k][0];
}

/// The events of a timed step (0 to 3: kick and drift, all pairs, kick) and the phases
/// between them.
std::vector<CudaTimedPhase> stepPhases() { return {{"integrate", {0, 2}}, {"all-pairs", {1}}}; }

/// Gravity with every mass equal: that mass (the kernel's uniform-mass path); else 0.
double uniformMass(const System& system, const AllPairsParams& params) {
  if (params.potential != AllPairsPotential::Gravity || system.mass.empty()) return 0;
  for (double m : system.mass)
    if (m != system.mass[0]) return 0;
  return system.mass[0];
}

class CudaAllPairsBackend : public Backend {
 public:
  CudaAllPairsBackend(const AllPairsRunParams& params, const System& system, Timers* timers)
      : system_(system),
        params_(params.pairs),
        dt_(params.integrator.dt),
        n_(int(system.size())),
        stride_((system.size() + 31) / 32 * 32),
        kernel_(int(system.size()), params.pairs, uniformMass(system, params.pairs)),
        pos_("all-pairs positions", system.size()),
        vel_("all-pairs velocities", system.size()),
        body_("all-pairs bodies", system.size()),
        force_("all-pairs forces", 3 * stride_),
        energy_("all-pairs energy", 1),
        keParts_("all-pairs kinetic partials", std::size_t(blocksFor(n_, kThreads))),
        virialParts_("all-pairs virial partials", 9 * std::size_t(blocksFor(n_, kThreads))),
        firstBad_("all-pairs first bad", 1),
        phases_(timers, stepPhases()) {
    for (double m : system.mass)
      if (!(m > 0)) throw Error("all-pairs: every particle needs a positive mass");
    scale_ = allPairsForceScale(params_, system.mass, system.type);
    std::vector<float4> body(system.size());
    for (std::size_t i = 0; i < system.size(); ++i)
      body[i] = make_float4(0.f, 0.f, 0.f,
                            params_.potential == AllPairsPotential::Gravity ? float(system.mass[i])
                                                                           : float(system.type[i]));
    body_.upload(body, stream_.get());
    force_.zero(stream_.get());
    const int none = INT_MAX;
    firstBad_.upload(&none, 1, stream_.get());
  }

  std::string name() const override { return "cuda (all pairs)"; }

  void setState(const State& state, const std::vector<Vec3>&) override {
    if (state.positions.size() != system_.size() || state.velocities.size() != system_.size())
      throw Error("state: positions and velocities must have one entry per particle");
    std::vector<double4_32a> x(system_.size()), v(system_.size());
    for (std::size_t i = 0; i < system_.size(); ++i) {
      x[i] = double4_32a{state.positions[i].x, state.positions[i].y, state.positions[i].z, 0.0};
      v[i] = double4_32a{state.velocities[i].x, state.velocities[i].y, state.velocities[i].z, 1.0 / system_.mass[i]};
    }
    // Float bodies relative to the centroid: the pair math sees differences, and a system far
    // from the coordinate origin keeps its float resolution.
    origin_ = double3{0, 0, 0};
    for (const Vec3& p : state.positions) origin_.x += p.x, origin_.y += p.y, origin_.z += p.z;
    const double inv = state.positions.empty() ? 0.0 : 1.0 / double(state.positions.size());
    origin_.x *= inv, origin_.y *= inv, origin_.z *= inv;
    pos_.upload(x, stream_.get());
    vel_.upload(v, stream_.get());
    state_ = state;
    state_.positions.clear();
    state_.velocities.clear();
    bodiesKernel<<<blocksFor(n_, kThreads), kThreads, 0, stream_.get()>>>(atoms());
    FARADAY_CUDA_CHECK_LAUNCH("bodiesKernel");
    force_.zero(stream_.get());
    evaluate(true);
    forcesValid_ = true;
    kineticValid_ = false;
    if (params_.potential == AllPairsPotential::Typed) fitTypedScale();
  }

  void getState(State& state) override {
    const std::vector<double4_32a> x = pos_.toHost(stream_.get()), v = vel_.toHost(stream_.get());
    state = state_;
    state.positions.resize(x.size());
    state.velocities.resize(v.size());
    for (std::size_t i = 0; i < x.size(); ++i) {
      state.positions[i] = Vec3{x[i].x, x[i].y, x[i].z};
      state.velocities[i] = Vec3{v[i].x, v[i].y, v[i].z};
    }
  }

  std::vector<Vec3> listReference() override { return {}; }

  Energies computeForces() override {
    requireState();
    force_.zero(stream_.get());
    evaluate(true);
    return energies();
  }

  const std::vector<Vec3>& forces() override {
    requireState();
    const std::vector<unsigned long long> f = force_.toHost(stream_.get());
    forces_.resize(system_.size());
    for (std::size_t i = 0; i < system_.size(); ++i)
      forces_[i] = Vec3{double((long long)f[i]), double((long long)f[stride_ + i]), double((long long)f[2 * stride_ + i])} *
                   (1.0 / scale_);
    return forces_;
  }

  void advance(bool withEnergies) override {
    requireState();
    const bool timed = phases_.samples(state_.step);
    if (timed) {
      phases_.collect();
      phases_.record(0, stream_.get());
    }
    kickDriftKernel<<<blocksFor(n_, kThreads), kThreads, 0, stream_.get()>>>(atoms(), dt_);
    FARADAY_CUDA_CHECK_LAUNCH("kickDriftKernel");
    if (timed) phases_.record(1, stream_.get());
    evaluate(withEnergies);
    if (timed) phases_.record(2, stream_.get());
    kickKernel<<<blocksFor(n_, kThreads), kThreads, 0, stream_.get()>>>(atoms(), dt_, withEnergies ? keParts_.data() : nullptr);
    FARADAY_CUDA_CHECK_LAUNCH("kickKernel");
    if (timed) {
      phases_.record(3, stream_.get());
      phases_.markPending();
    }
    ++state_.step;
    state_.time += dt_;
    kineticValid_ = withEnergies;
    if (withEnergies || state_.step % kCheckInterval == 0) checkFlags();
  }

  Energies energies() override {
    requireState();
    if (!energiesPending_) return energies_;
    unsigned long long e = 0;
    energy_.download(&e, 1, stream_.get());
    std::vector<double> parts(virialParts_.size());
    virialParts_.download(parts.data(), parts.size(), stream_.get());
    FARADAY_CUDA_CHECK(cudaStreamSynchronize(stream_.get()));
    energies_ = Energies{};
    energies_.pair = fixed::energyFromFixed(static_cast<long long>(e));
    for (std::size_t b = 0; b < parts.size() / 9; ++b)  // blocks in order: the same sum every time
      for (int k = 0; k < 9; ++k) energies_.virial.m[k / 3][k % 3] += parts[9 * b + k];
    energiesPending_ = false;
    return energies_;
  }

  double kineticEnergy() override {
    requireState();
    if (!kineticValid_) {
      launchKinetic();
      kineticValid_ = true;
    }
    const std::vector<double> parts = keParts_.toHost(stream_.get());
    double ke = 0;
    for (double p : parts) ke += p;
    return ke;
  }

  long nonFiniteParticle() override {
    checkFlags();
    return firstBadHost_;
  }

  long long neighborListBuilds() const override { return 0; }

  ~CudaAllPairsBackend() override {
    try {
      phases_.collect();
    } catch (...) {
    }
  }

 private:
  Atoms atoms() {
    return Atoms{n_,           pos_.data(), vel_.data(),        body_.data(), origin_, force_.data(), stride_,
                 1.0 / scale_, 0.125 * kFixedRange / scale_, firstBad_.data()};
  }
  void requireState() const {
    if (!forcesValid_) throw Error("CudaAllPairsBackend: setState() first");
  }

  /// The typed force's only hard bound (N times the pair force at the clamp) is far above what
  /// a system meets, and would leave a coarse fixed point: the scale is fitted instead to the
  /// largest force of the starting state with a margin of 2^20, and a force that later comes
  /// within 1/8 of the fixed-point range stops the run as a runaway (kickKernel).
  void fitTypedScale() {
    double largest = 0;
    for (const Vec3& f : forces()) largest = std::max({largest, std::fabs(f.x), std::fabs(f.y), std::fabs(f.z)});
    if (!(largest > 0) || !std::isfinite(largest)) return;
    const int e = std::clamp(int(std::floor(std::log2(kFixedRange / (largest * 1048576.0)))), 0, 80);
    if (std::ldexp(1.0, e) == scale_) return;
    scale_ = std::ldexp(1.0, e);
    force_.zero(stream_.get());
    evaluate(true);
  }

  /// Adds the all-pairs forces (and the energy) of the current bodies to the force buffer.
  void evaluate(bool withEnergy) {
    AllPairsDeviceInput in;
    in.n = n_;
    in.body = body_.data();
    in.force = force_.data();
    in.stride = stride_;
    in.scale = scale_;
    if (withEnergy) {
      energy_.zero(stream_.get());
      in.energy = energy_.data();
      energiesPending_ = true;
    }
    kernel_.enqueue(stream_.get(), in);
    if (withEnergy) {
      virialKernel<<<blocksFor(n_, kThreads), kThreads, 0, stream_.get()>>>(atoms(), virialParts_.data());
      FARADAY_CUDA_CHECK_LAUNCH("virialKernel");
    }
  }

  void launchKinetic() {
    // B with dt = 0 leaves the velocities and writes the partials.
    kickKernel<<<blocksFor(n_, kThreads), kThreads, 0, stream_.get()>>>(atoms(), 0.0, keParts_.data());
    FARADAY_CUDA_CHECK_LAUNCH("kickKernel");
  }

  void checkFlags() {
    int bad = INT_MAX;
    firstBad_.download(&bad, 1, stream_.get());
    FARADAY_CUDA_CHECK(cudaStreamSynchronize(stream_.get()));
    if (bad != INT_MAX && firstBadHost_ < 0) firstBadHost_ = bad;
    phases_.collect();
  }

  const System& system_;
  AllPairsParams params_;
  double dt_;
  int n_;
  std::size_t stride_;
  double scale_ = fixed::kScale;
  double3 origin_{0, 0, 0};
  CudaStream stream_;
  CudaAllPairs kernel_;
  DeviceBuffer<double4_32a> pos_, vel_;
  DeviceBuffer<float4> body_;
  DeviceBuffer<unsigned long long> force_, energy_;
  DeviceBuffer<double> keParts_, virialParts_;
  DeviceBuffer<int> firstBad_;
  CudaPhaseTimer phases_;
  bool forcesValid_ = false;
  bool energiesPending_ = false;
  bool kineticValid_ = false;
  long firstBadHost_ = -1;
  State state_;
  std::vector<Vec3> forces_;
  Energies energies_;
};

}  // namespace

std::unique_ptr<Backend> makeCudaAllPairsBackend(const AllPairsRunParams& params, const System& system, Timers* timers) {
  return std::make_unique<CudaAllPairsBackend>(params, system, timers);
}

}  // namespace faraday
