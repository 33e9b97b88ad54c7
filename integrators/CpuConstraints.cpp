// The CPU constraint solver (see Constraints.h): SETTLE per water, SHAKE / RATTLE sweeps per
// cluster, each water and cluster on its own, shared out over the threads.
#include <omp.h>

#include <algorithm>
#include <climits>
#include <cmath>

#include "core/Error.h"
#include "core/Virial.h"
#include "integrators/Constraints.h"

namespace faraday {
namespace {

/// Waters or clusters below this count run on one thread (the fork costs more).
constexpr long long kParallelMinItems = 2048;

/// One cluster of a ConstraintSet as shakeCluster and rattleCluster read it: positions `x`
/// and values `u` (velocities or accelerations) by particle index; the reference vectors,
/// targets and multipliers by the cluster's constraint index. P: Vec3 where the solve moves
/// the positions (SHAKE), const Vec3 where it reads them.
template <typename P>
struct HostCluster {
  const ClusterConstraint* k;
  int n;
  const double* inverseMass;
  P* positions;
  Vec3* values = nullptr;
  const Vec3* references = nullptr;
  const double* targets = nullptr;
  double* taus = nullptr;

  int count() const { return n; }
  int a(int i) const { return k[i].a; }
  int b(int i) const { return k[i].b; }
  double d2(int i) const { return k[i].d2; }
  Vec3 r0(int i) const { return references[i]; }
  double w(int atom) const { return inverseMass[atom]; }
  P& x(int atom) { return positions[atom]; }
  Vec3& u(int atom) { return values[atom]; }
  double target(int i) const { return targets ? targets[i] : 0.0; }
  void addTau(int i, double g) {
    if (taus) taus[i] += g;
  }
};

/// The relative vectors of water w: H1 - O, H2 - O.
void waterArms(const std::vector<Vec3>& x, int o, const MinimumImage& box, Vec3& b, Vec3& c) {
  b = box.apply(x[std::size_t(o + 1)] - x[std::size_t(o)]);
  c = box.apply(x[std::size_t(o + 2)] - x[std::size_t(o)]);
}

/// r_k of the water's constraints O-H1, O-H2, H1-H2 (ConstraintMath.h's order).
void waterBonds(const std::vector<Vec3>& x, int o, const MinimumImage& box, Vec3 r[3]) {
  Vec3 b, c;
  waterArms(x, o, box, b, c);
  r[0] = -b, r[1] = -c, r[2] = b - c;
}

}  // namespace

CpuConstraints::CpuConstraints(const System& system, double tolerance, int threads)
    : system_(system), set_(makeConstraintSet(system)), tolerance_(tolerance), threads_(threads > 0 ? threads : 1) {
  if (!(tolerance > 0 && tolerance < 1)) throw Error("constraints: the tolerance must be in (0, 1)");
  inverseMass_.resize(system.size());
  for (std::size_t i = 0; i < system.size(); ++i) inverseMass_[i] = system.mass[i] > 0 ? 1 / system.mass[i] : 0.0;
}

long long CpuConstraints::removedDegreesOfFreedom() const {
  return (long long)set_.constraints.size() + 3 * (long long)set_.waters.size();
}

void CpuConstraints::fail(long long code, long long step, const char* what) const {
  throw StepFailure(constraintFailureMessage(system_, set_, code, step, what));
}

void CpuConstraints::constrainPositions(const std::vector<Vec3>& reference, std::vector<Vec3>& positions,
                                        std::vector<Vec3>* velocities, double h, const Box& box, long long step) {
  const MinimumImage image = MinimumImage::fromBox(box);
  const double invH = 1 / h;
  long long failed = LLONG_MAX;
  const long long waters = (long long)set_.waters.size(), clusters = (long long)set_.clusters.size();
#pragma omp parallel for num_threads(threads_) schedule(static) if (waters >= kParallelMinItems) reduction(min : failed)
  for (long long w = 0; w < waters; ++w) {
    const SettleWater& water = set_.waters[std::size_t(w)];
    Vec3 b0, c0, b1, c1, delta[3];
    waterArms(reference, water.oxygen, image, b0, c0);
    waterArms(positions, water.oxygen, image, b1, c1);
    if (!settlePositions(set_.geometries[std::size_t(water.geometry)], b0, c0, b1, c1, delta)) {
      failed = std::min(failed, set_.waterCode(std::size_t(w)));
      continue;
    }
    for (int k = 0; k < 3; ++k) {
      positions[std::size_t(water.oxygen + k)] += delta[k];
      if (velocities) (*velocities)[std::size_t(water.oxygen + k)] += delta[k] * invH;
    }
  }
  int sweeps = 0;
#pragma omp parallel num_threads(threads_) if (clusters >= kParallelMinItems)
  {
    std::vector<Vec3> r0, before;
#pragma omp for schedule(static) reduction(min : failed) reduction(max : sweeps)
    for (long long ci = 0; ci < clusters; ++ci) {
      const ConstraintCluster& c = set_.clusters[std::size_t(ci)];
      const ClusterConstraint* k = set_.constraints.data() + c.firstConstraint;
      const int* atoms = set_.clusterAtoms.data() + c.firstAtom;
      r0.resize(std::size_t(c.constraintCount));
      before.resize(std::size_t(c.atomCount));
      for (int i = 0; i < c.constraintCount; ++i)
        r0[std::size_t(i)] = image.apply(reference[std::size_t(k[i].a)] - reference[std::size_t(k[i].b)]);
      for (int i = 0; i < c.atomCount; ++i) before[std::size_t(i)] = positions[std::size_t(atoms[i])];
      HostCluster<Vec3> view{k, c.constraintCount, inverseMass_.data(), positions.data()};
      view.references = r0.data();
      const ClusterSolve s = shakeCluster<0>(view, image, tolerance_, kMaxConstraintSweeps);
      sweeps = std::max(sweeps, s.sweeps);
      if (s.failed >= 0) failed = std::min(failed, (long long)(c.firstConstraint + s.failed));
      if (velocities)
        for (int i = 0; i < c.atomCount; ++i)
          (*velocities)[std::size_t(atoms[i])] += (positions[std::size_t(atoms[i])] - before[std::size_t(i)]) * invH;
    }
  }
  positionSweeps_ = sweeps;
  if (failed != LLONG_MAX) fail(failed, step, "positions");
}

void CpuConstraints::constrainVelocities(const std::vector<Vec3>& positions, std::vector<Vec3>& velocities,
                                         const Box& box, double dt, long long step) {
  const MinimumImage image = MinimumImage::fromBox(box);
  const long long waters = (long long)set_.waters.size(), clusters = (long long)set_.clusters.size();
#pragma omp parallel for num_threads(threads_) schedule(static) if (waters >= kParallelMinItems)
  for (long long w = 0; w < waters; ++w) {
    const SettleWater& water = set_.waters[std::size_t(w)];
    Vec3 r[3], u[3];
    waterBonds(positions, water.oxygen, image, r);
    for (int k = 0; k < 3; ++k) u[k] = velocities[std::size_t(water.oxygen + k)];
    const double target[3] = {0, 0, 0};
    double tau[3];
    settleMultipliers(set_.geometries[std::size_t(water.geometry)], r, u, target, tau);
    for (int k = 0; k < 3; ++k) velocities[std::size_t(water.oxygen + k)] = u[k];
  }
  long long failed = LLONG_MAX;
  int sweeps = 0;
#pragma omp parallel for num_threads(threads_) schedule(static) if (clusters >= kParallelMinItems) \
    reduction(min : failed) reduction(max : sweeps)
  for (long long ci = 0; ci < clusters; ++ci) {
    const ConstraintCluster& c = set_.clusters[std::size_t(ci)];
    HostCluster<const Vec3> view{set_.constraints.data() + c.firstConstraint, c.constraintCount,
                                 inverseMass_.data(), positions.data(), velocities.data()};
    const ClusterSolve s = rattleCluster<0>(view, image, tolerance_, dt, kMaxConstraintSweeps);
    sweeps = std::max(sweeps, s.sweeps);
    if (s.failed >= 0) failed = std::min(failed, (long long)(c.firstConstraint + s.failed));
  }
  velocitySweeps_ = sweeps;
  if (failed != LLONG_MAX) fail(failed, step, "velocities");
}

Tensor3 CpuConstraints::virial(const std::vector<Vec3>& positions, const std::vector<Vec3>& velocities,
                               const std::vector<Vec3>& forces, const Box& box, double dt) const {
  const MinimumImage image = MinimumImage::fromBox(box);
  double w6[6] = {0, 0, 0, 0, 0, 0};
  for (const SettleWater& water : set_.waters) {
    const SettleGeometry& g = set_.geometries[std::size_t(water.geometry)];
    Vec3 r[3], u[3];
    waterBonds(positions, water.oxygen, image, r);
    const Vec3 v[3] = {velocities[std::size_t(water.oxygen)], velocities[std::size_t(water.oxygen + 1)],
                       velocities[std::size_t(water.oxygen + 2)]};
    for (int k = 0; k < 3; ++k) u[k] = forces[std::size_t(water.oxygen + k)] * (k == 0 ? g.wO : g.wH);
    const double target[3] = {-norm2(v[0] - v[1]), -norm2(v[0] - v[2]), -norm2(v[1] - v[2])};
    double tau[3];
    settleMultipliers(g, r, u, target, tau);
    for (int k = 0; k < 3; ++k) addPairVirial(w6, r[k], r[k] * tau[k]);
  }
  std::vector<Vec3> accel(positions.size());
  std::vector<double> targets, taus;
  for (const ConstraintCluster& c : set_.clusters) {
    const ClusterConstraint* k = set_.constraints.data() + c.firstConstraint;
    for (int i = 0; i < c.atomCount; ++i) {
      const std::size_t a = std::size_t(set_.clusterAtoms[std::size_t(c.firstAtom + i)]);
      accel[a] = forces[a] * inverseMass_[a];
    }
    targets.assign(std::size_t(c.constraintCount), 0.0);
    taus.assign(std::size_t(c.constraintCount), 0.0);
    for (int i = 0; i < c.constraintCount; ++i)
      targets[std::size_t(i)] = -norm2(velocities[std::size_t(k[i].a)] - velocities[std::size_t(k[i].b)]);
    HostCluster<const Vec3> view{k, c.constraintCount, inverseMass_.data(), positions.data(), accel.data()};
    view.targets = targets.data();
    view.taus = taus.data();
    rattleCluster<0>(view, image, tolerance_, dt * dt, kMaxConstraintSweeps);
    for (int i = 0; i < c.constraintCount; ++i) {
      const Vec3 r = image.apply(positions[std::size_t(k[i].a)] - positions[std::size_t(k[i].b)]);
      addPairVirial(w6, r, r * taus[std::size_t(i)]);
    }
  }
  return symmetricTensor(w6);
}

void constrainState(CpuConstraints& constraints, State& state, double dt) {
  if (constraints.empty()) return;
  const std::vector<Vec3> reference = state.positions;
  constraints.constrainPositions(reference, state.positions, nullptr, dt, state.box, state.step);
  constraints.constrainVelocities(state.positions, state.velocities, state.box, dt, state.step);
}

}  // namespace faraday
