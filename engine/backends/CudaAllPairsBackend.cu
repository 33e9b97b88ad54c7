// nonbonded.mode = all-pairs on the GPU (see CudaAllPairsBackend.h): velocity Verlet
// (integrators/CudaAllPairsUpdate.h) around the triangular all-pairs kernel, state in double
// on the device, nothing back to the host except on reporting steps and checks.
#include "engine/backends/CudaAllPairsBackend.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <climits>
#include <cmath>

#include "core/Error.h"
#include "engine/backends/CudaAllPairsTerm.cuh"
#include "engine/backends/CudaPhaseTimer.cuh"
#include "engine/backends/CudaStepPolicy.h"
#include "kernels/common/CudaCheck.h"
#include "kernels/common/CudaOwners.h"
#include "kernels/common/DeviceBuffer.h"
#include "kernels/common/FixedPoint.h"
#include "kernels/common/Launch.h"
#include "kernels/nbody/CudaAllPairs.h"
#include "integrators/CudaAllPairsUpdate.h"

namespace faraday {
namespace {

using cuda_step::kCheckInterval;

/// 2^62: the fixed-point forces' range (allPairsForceScale keeps the bound below it).
constexpr double kFixedRange = 4.611686018427388e18;

static_assert(kAllPairsUpdateThreads == kAllPairsVirialThreads, "one block size for the partials");
constexpr int kThreads = kAllPairsUpdateThreads;

/// The events of a timed step (0 to 3: kick and drift, all pairs, kick) and the phases
/// between them.
std::vector<CudaTimedPhase> stepPhases() { return {{"integrate", {0, 2}}, {CudaAllPairsTerm::kRow, {1}}}; }

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
        term_(int(system.size()), params.pairs, uniformMass(system, params.pairs)),
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
    launchAllPairsBodies(stream_.get(), atoms());
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
    launchAllPairsKickDrift(stream_.get(), atoms(), dt_);
    if (timed) phases_.record(1, stream_.get());
    evaluate(withEnergies);
    if (timed) phases_.record(2, stream_.get());
    launchAllPairsKick(stream_.get(), atoms(), dt_, withEnergies ? keParts_.data() : nullptr);
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
    const double sums[1] = {fixed::energyFromFixed(static_cast<long long>(e))};
    term_.addEnergies(CudaStepSums{sums, nullptr}, energies_);
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
  AllPairsAtoms atoms() {
    return AllPairsAtoms{n_,           pos_.data(), vel_.data(),        body_.data(), origin_, force_.data(), stride_,
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
    CudaTermArrays a;
    a.n = n_;
    a.body = body_.data();
    a.force = force_.data();
    a.stride = stride_;
    a.sums = energy_.data();
    if (withEnergy) {
      energy_.zero(stream_.get());
      energiesPending_ = true;
    }
    term_.setForceScale(scale_);
    term_.enqueue(stream_.get(), a, withEnergy, nullptr);
    if (withEnergy) {
      launchAllPairsVirial(stream_.get(), atoms(), virialParts_.data());
    }
  }

  void launchKinetic() {
    // B with dt = 0 leaves the velocities and writes the partials.
    launchAllPairsKick(stream_.get(), atoms(), 0.0, keParts_.data());
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
  CudaAllPairsTerm term_;  ///< the step's one force term
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
