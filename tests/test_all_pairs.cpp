// The all-pairs mode (open boundaries, every pair, no cutoff) and the typed pair force:
// the typed evaluator against finite differences of its energy and in float; the CPU
// all-pairs loop against a naive sum over ordered pairs and across thread counts; on every
// backend the reference forces, a two-body Kepler orbit (period and energy), and the energy
// conservation of a Plummer sphere with its dt^2 scaling; the typed force in cutoff mode
// against a direct sum (and the GPU against the CPU); the examples; the new keys' errors.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <map>
#include <random>

#include "engine/backends/AllPairsCpuBackend.h"
#include "engine/run/Checkpoint.h"
#include "engine/config/Config.h"
#include "engine/config/KernelParams.h"
#include "engine/setup/SystemSetup.h"
#include "core/Units.h"
#include "integrators/InitialVelocities.h"
#include "kernels/nbody/AllPairs.h"
#include "kernels/nonbonded/PairEvaluators.h"
#include "tests/BackendTestSystems.h"
#include "tests/EngineTestSupport.h"
#include "tests/Tolerances.h"
#include "engine/formats/CoordinateFile.h"
#include "engine/backends/BackendFactory.h"
#include "engine/config/LoadConfig.h"
#include "engine/config/ConfigHelp.h"

namespace faraday::test {
namespace {

// ---- Systems ----------------------------------------------------------------------------

/// Bodies without charge or LJ size, one atom type per distinct mass.
BuiltSystem bodies(const std::vector<double>& masses, const std::vector<Vec3>& positions, double boxEdge = 3.0) {
  BuiltSystem b;
  b.system.box = Box::rectangular(boxEdge, boxEdge, boxEdge);
  for (std::size_t i = 0; i < masses.size(); ++i) {
    int type = -1;
    for (std::size_t t = 0; t < b.system.types.size(); ++t)
      if (b.system.types[t].mass == masses[i]) type = int(t);
    if (type < 0) {
      type = int(b.system.types.size());
      b.system.types.push_back(AtomType{"M" + std::to_string(type), masses[i], 0.0, 0.0, 0.0});
    }
    addParticle(b, type, positions[i]);
  }
  return b;
}

/// A unit vector of uniformly distributed direction.
Vec3 isotropic(std::mt19937_64& rng) {
  std::uniform_real_distribution<double> u(0.0, 1.0);
  const double z = 2 * u(rng) - 1, phi = 2 * units::kPi * u(rng), s = std::sqrt(1 - z * z);
  return {s * std::cos(phi), s * std::sin(phi), z};
}

/// A Plummer sphere of n equal masses in Henon units (G = M = 1, E = -1/4: 1 amu in all,
/// nm, ps, with 1 kJ/mol = 1 amu nm^2/ps^2), sampled as Aarseth, Henon & Wielen (1974):
/// radii from the cumulative mass, speeds by rejection from q^2 (1 - q^2)^(7/2) of the local
/// escape speed, centre of mass at rest at `centre`. Radii beyond 10 scale radii are drawn again.
struct Cluster {
  BuiltSystem b;
  std::vector<Vec3> velocities;
};
Cluster plummerSphere(int n, std::uint64_t seed, Vec3 centre = {}) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  const double lengthScale = 3 * units::kPi / 16, speedScale = 1 / std::sqrt(lengthScale);
  std::vector<Vec3> x, v;
  Vec3 meanX, meanV;
  for (int i = 0; i < n; ++i) {
    double r = 0;
    do r = 1 / std::sqrt(std::pow(u(rng), -2.0 / 3.0) - 1);
    while (!(r < 10));
    double q = 0, y = 0;
    do q = u(rng), y = 0.1 * u(rng);
    while (y > q * q * std::pow(1 - q * q, 3.5));
    const double escape = std::sqrt(2.0) * std::pow(1 + r * r, -0.25);
    x.push_back(isotropic(rng) * (r * lengthScale));
    v.push_back(isotropic(rng) * (q * escape * speedScale));
    meanX += x.back() * (1.0 / n);
    meanV += v.back() * (1.0 / n);
  }
  for (int i = 0; i < n; ++i) x[i] += centre - meanX, v[i] -= meanV;
  return {bodies(std::vector<double>(n, 1.0 / n), x), v};
}

Config allPairsConfig(const std::string& platform, const std::string& potential, double softening, double dt) {
  Config c;
  c.run.platform = platform;
  c.run.threads = 1;
  c.nonbonded.mode = "all-pairs";
  c.nonbonded.potential = potential;
  c.gravity.g = 1;
  c.gravity.softening = softening;
  c.electrostatics.method = "none";
  c.integrator.type = "verlet";
  c.integrator.dt = dt;
  return c;
}

/// Two types A, B with typed parameters for AA, AB, BB: a Coulomb-like c1 of both signs and
/// repulsions of different lengths and exponents.
std::vector<Config::TypedPairSection> typedSections() {
  return {{"A", "A", 60.0, 0.25, 12.0}, {"A", "B", -120.0, 0.30, 9.0}, {"B", "B", 40.0, 0.28, 7.5}};
}

/// The GPU's error relative to what its float sums add up: the RMS over particles of
/// |F_gpu - F_ref| over the RMS of sum_j |F_ij| (double). A float sum's rounding is bounded by
/// the magnitudes of its terms, not by the net force, which mixed-sign pairs can cancel.
double relRmsOfTerms(const std::vector<Vec3>& a, const std::vector<Vec3>& ref, const std::vector<Vec3>& x,
                     const std::vector<double>& mass, const std::vector<int>& type, const AllPairsParams& p) {
  double num = 0, den = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    double terms = 0;
    for (std::size_t j = 0; j < x.size(); ++j) {
      if (j == i) continue;
      const Vec3 d = x[i] - x[j];
      const double r2 = dot(d, d);
      const double fOverR = p.potential == AllPairsPotential::Gravity
                                ? softenedGravityPair(r2, p.G * mass[i] * mass[j], p.softening * p.softening).fOverR
                                : typedPair(r2, p.typed.at(type[i], type[j]), p.typed.rmin * p.typed.rmin).fOverR;
      terms += std::fabs(fOverR) * std::sqrt(r2);
    }
    num += norm2(a[i] - ref[i]);
    den += terms * terms;
  }
  return std::sqrt(num / std::max(den, 1e-300));
}

double relRmsVec(const std::vector<Vec3>& a, const std::vector<Vec3>& ref) {
  double num = 0, den = 0;
  for (std::size_t i = 0; i < a.size(); ++i) num += norm2(a[i] - ref[i]), den += norm2(ref[i]);
  return std::sqrt(num / std::max(den, 1e-300));
}

// ---- The typed evaluator -------------------------------------------------------------------

/// The seed's typed force as written: U = c1/r + (c2/r)^c3 r^2/(c3 - 2) above rmin.
double typedEnergy(double r, const TypedPairParams<double>& p) {
  return p.c1 / r + std::pow(p.c2 / r, p.c3) * r * r / (p.c3 - 2);
}

TEST(TypedPair, ForceIsMinusTheEnergyDerivativeAboveAndBelowRmin) {
  const TypedPairParams<double> cases[] = {{138.9, 0.3, 12}, {-138.9, 0.32, 9}, {0.0, 0.25, 2.5}, {-20, 0.05, 6}};
  const double rmin = 0.05;
  for (const auto& p : cases)
    for (const double r : {0.01, 0.03, 0.049, 0.051, 0.08, 0.2, 0.31, 0.5, 1.1}) {
      const double h = 1e-6 * r;
      const auto at = [&](double s) { return typedPair(s * s, p, rmin * rmin); };
      const PairResult<double> mid = at(r);
      const double dUdr = (at(r + h).energy - at(r - h).energy) / (2 * h);
      const double scale = std::fabs(mid.fOverR) + std::fabs(mid.energy) / (r * r);
      EXPECT_NEAR(mid.fOverR, -dUdr / r, tol::kPairDerivative * scale) << "c1 " << p.c1 << " c3 " << p.c3 << " r " << r;
      if (r > rmin) EXPECT_NEAR(mid.energy, typedEnergy(r, p), tol::kDoubleSum * scale * r * r) << r;
    }
}

TEST(TypedPair, FloatAgreesWithDouble) {
  const TypedPairParams<double> cases[] = {{138.9, 0.3, 12}, {-138.9, 0.32, 9}, {0.0, 0.25, 2.5}, {-20, 0.05, 6}};
  const double rmin = 0.05;
  for (const auto& p : cases)
    for (const double r : {0.03, 0.08, 0.2, 0.31, 0.5, 1.1}) {
      const PairResult<double> d = typedPair(r * r, p, rmin * rmin);
      const PairResult<float> f = typedPair(float(r * r), TypedPairParams<float>{float(p.c1), float(p.c2), float(p.c3)},
                                            float(rmin * rmin));
      const double rc = std::max(r, rmin), power = std::pow(p.c2 / rc, p.c3);
      // Scales without the cancellation of the Coulomb-like and the repulsive term.
      const double forceScale = std::fabs(p.c1) / (rc * rc * rc) + power;
      const double energyScale = std::fabs(p.c1) / rc + power * rc * rc / (p.c3 - 2) + forceScale * rmin * rmin;
      EXPECT_NEAR(f.fOverR, d.fOverR, tol::kFloatTypedPair * forceScale) << "c3 " << p.c3 << " r " << r;
      EXPECT_NEAR(f.energy, d.energy, tol::kFloatTypedPair * energyScale) << "c3 " << p.c3 << " r " << r;
    }
}

// ---- The CPU all-pairs loop ----------------------------------------------------------------------

/// F_i = sum over j != i, U = 1/2 sum over ordered pairs, W = sum_i x_i (x) F_i (open
/// boundaries): every pair twice, from the formulas, not the evaluators.
struct NaiveSum {
  std::vector<Vec3> forces;
  double energy = 0;
};
NaiveSum naiveGravity(const std::vector<Vec3>& x, const std::vector<double>& m, double G, double eps) {
  NaiveSum s;
  s.forces.assign(x.size(), Vec3{});
  for (std::size_t i = 0; i < x.size(); ++i)
    for (std::size_t j = 0; j < x.size(); ++j) {
      if (i == j) continue;
      const Vec3 d = x[j] - x[i];
      const double s2 = norm2(d) + eps * eps;
      s.forces[i] += d * (G * m[i] * m[j] / (s2 * std::sqrt(s2)));
      s.energy -= 0.5 * G * m[i] * m[j] / std::sqrt(s2);
    }
  return s;
}
NaiveSum naiveTyped(const std::vector<Vec3>& x, const std::vector<int>& type, const TypedPairTable& t) {
  NaiveSum s;
  s.forces.assign(x.size(), Vec3{});
  for (std::size_t i = 0; i < x.size(); ++i)
    for (std::size_t j = 0; j < x.size(); ++j) {
      if (i == j) continue;
      const TypedPairParams<double>& p = t.at(type[i], type[j]);
      const Vec3 R = x[i] - x[j];
      const double r = std::sqrt(norm2(R)), rc = std::max(r, t.rmin);
      const double g = p.c1 / (rc * rc * rc) + std::pow(p.c2 / rc, p.c3);
      s.forces[i] += R * g;
      s.energy += 0.5 * (typedEnergy(rc, p) + g * (rc * rc - r * r) / 2);
    }
  return s;
}

void expectMatchesNaive(const std::vector<Vec3>& x, const AllPairsResult& r, const std::vector<Vec3>& f,
                        const NaiveSum& naive) {
  EXPECT_LT(relRmsVec(f, naive.forces), tol::kDoubleSum);
  EXPECT_NEAR(r.energy, naive.energy, tol::kDoubleSum * std::fabs(naive.energy));
  Vec3 total;
  double sumAbs = 0;
  Tensor3 w;
  for (std::size_t i = 0; i < f.size(); ++i) {
    total += f[i];
    sumAbs += std::sqrt(norm2(f[i]));
    for (int a = 0; a < 3; ++a)
      for (int b = 0; b < 3; ++b) w.m[a][b] += x[i][a] * f[i][b];
  }
  EXPECT_LT(std::sqrt(norm2(total)), tol::kDoubleSum * sumAbs) << "Newton's third law";
  double wScale = 0;
  for (int a = 0; a < 3; ++a)
    for (int b = 0; b < 3; ++b) wScale = std::max(wScale, std::fabs(w.m[a][b]));
  for (int a = 0; a < 3; ++a)
    for (int b = 0; b < 3; ++b) EXPECT_NEAR(r.virial.m[a][b], w.m[a][b], tol::kDoubleSum * wScale) << a << b;
}

TEST(AllPairsForces, GravityMatchesTheNaiveSumOverOrderedPairs) {
  const Cluster c = plummerSphere(300, 3, {4.0, -7.0, 2.0});
  AllPairsParams p;
  p.potential = AllPairsPotential::Gravity;
  p.G = 2.5;
  p.softening = 0.03;
  std::vector<Vec3> f;
  const AllPairsResult r = allPairsForces(c.b.positions, c.b.system.mass, c.b.system.type, p, f, 1);
  expectMatchesNaive(c.b.positions, r, f, naiveGravity(c.b.positions, c.b.system.mass, p.G, p.softening));
  EXPECT_LT(r.energy, 0.0);
}

TEST(AllPairsForces, TypedMatchesTheNaiveSumIncludingPairsBelowRmin) {
  BuiltSystem b = randomLjSystem(250, {2.0, 2.0, 2.0}, 17, 0.2);
  // Three pairs closer than rmin = 0.1 nm, where the force is clamped (one at r = 0).
  addParticle(b, 0, b.positions[0] + Vec3{0.04, 0, 0});
  addParticle(b, 1, b.positions[1] + Vec3{0, -0.07, 0.02});
  addParticle(b, 1, b.positions[2]);
  Config config = allPairsConfig("cpu", "typed", 0, 0.001);
  config.atomTypes = b.system.types;
  config.typedPairs = typedSections();
  config.nonbonded.typedRmin = 0.1;
  const AllPairsParams p = allPairsParams(config, b.system);
  ASSERT_EQ(p.potential, AllPairsPotential::Typed);
  std::vector<Vec3> f;
  const AllPairsResult r = allPairsForces(b.positions, b.system.mass, b.system.type, p, f, 1);
  expectMatchesNaive(b.positions, r, f, naiveTyped(b.positions, b.system.type, p.typed));
}

/// The rows are cut into chunks independent of the thread count and summed in chunk order.
TEST(AllPairsForces, SameBitsForAnyThreadCount) {
  const Cluster c = plummerSphere(700, 5);
  AllPairsParams p;
  p.softening = 0.01;
  std::vector<Vec3> one, other;
  const AllPairsResult r1 = allPairsForces(c.b.positions, c.b.system.mass, c.b.system.type, p, one, 1);
  for (int threads : {2, 3, 8}) {
    const AllPairsResult rn = allPairsForces(c.b.positions, c.b.system.mass, c.b.system.type, p, other, threads);
    ASSERT_EQ(rn.energy, r1.energy) << threads;
    for (int a = 0; a < 3; ++a)
      for (int b = 0; b < 3; ++b) ASSERT_EQ(rn.virial.m[a][b], r1.virial.m[a][b]) << threads;
    for (std::size_t i = 0; i < one.size(); ++i) ASSERT_TRUE(other[i] == one[i]) << "particle " << i << ", " << threads;
  }
}

TEST(AllPairsForces, FewParticles) {
  AllPairsParams p;
  p.softening = 0.1;
  std::vector<Vec3> f;
  EXPECT_EQ(allPairsForces({}, {}, {}, p, f, 1).energy, 0.0);
  EXPECT_TRUE(f.empty());
  EXPECT_EQ(allPairsForces({Vec3{1, 2, 3}}, {2.0}, {0}, p, f, 2).energy, 0.0);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_TRUE(f[0] == Vec3{});
  // Two bodies at distance 0.3 with softening 0.4: U = -G m1 m2 / 0.5, F = G m1 m2 0.3 / 0.5^3.
  p.softening = 0.4;
  const AllPairsResult r = allPairsForces({Vec3{0, 0, 0}, Vec3{0.3, 0, 0}}, {2.0, 3.0}, {0, 0}, p, f, 1);
  EXPECT_NEAR(r.energy, -6.0 / 0.5, tol::kDoubleSum * 12);
  EXPECT_NEAR(f[0].x, 6.0 * 0.3 / (0.5 * 0.5 * 0.5), tol::kDoubleSum * 15);  // towards the other body
  EXPECT_EQ(f[1].x, -f[0].x);
}

// ---- Every backend -------------------------------------------------------------------------------

class AllPairsBackends : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override { FARADAY_REQUIRE_BACKEND(GetParam()); }
};

/// Forces, energy and virial against the double reference: equal bits on the CPU (the backend
/// calls it), float pair math and fixed-point sums on the GPU.
TEST_P(AllPairsBackends, ForcesEnergyAndVirialMatchTheReference) {
  struct Case {
    std::string name;
    BuiltSystem b;
    Config config;
  };
  std::vector<Case> cases;
  const Cluster plummer = plummerSphere(1000, 9, {12.0, -3.0, 30.0});  // far outside its box
  cases.push_back({"gravity", plummer.b, allPairsConfig(GetParam(), "gravity", 0.02, 0.005)});
  BuiltSystem ions = randomLjSystem(600, {3.0, 3.0, 3.0}, 23, 0.25);
  Config typed = allPairsConfig(GetParam(), "typed", 0, 0.001);
  typed.atomTypes = ions.system.types;
  typed.typedPairs = typedSections();
  cases.push_back({"typed", ions, typed});
  for (Case& k : cases) {
    auto backend = makeBackend(k.config, k.b.system, nullptr);
    backend->setState(stateOf(k.b), {});
    const Energies e = backend->computeForces();
    std::vector<Vec3> ref;
    const AllPairsResult r = allPairsForces(k.b.positions, k.b.system.mass, k.b.system.type,
                                            allPairsParams(k.config, k.b.system), ref, 1);
    EXPECT_EQ(e.lj, 0.0);
    EXPECT_EQ(e.coulomb(), 0.0);
    EXPECT_EQ(backend->listReference().size(), 0u) << k.name;
    EXPECT_EQ(backend->neighborListBuilds(), 0) << k.name;
    if (!onGpu(GetParam())) {
      EXPECT_EQ(e.pair, r.energy) << k.name;
      for (std::size_t i = 0; i < ref.size(); ++i) ASSERT_TRUE(backend->forces()[i] == ref[i]) << k.name << " " << i;
      continue;
    }
    const AllPairsParams params = allPairsParams(k.config, k.b.system);
    const double err = relRmsOfTerms(backend->forces(), ref, k.b.positions, k.b.system.mass, k.b.system.type, params);
    std::printf("[ info ] %s on the GPU: force error %.2e of the summed terms (%.2e of the net forces)\n",
                k.name.c_str(), err, relRmsVec(backend->forces(), ref));
    EXPECT_LT(err, tol::kGpuAllPairsForceRelRms) << k.name;
    EXPECT_NEAR(e.pair, r.energy, tol::kGpuEnergyRel * std::fabs(r.energy)) << k.name;
    EXPECT_NEAR(e.virial.trace(), r.virial.trace(), tol::kGpuEnergyRel * std::fabs(r.virial.trace())) << k.name;
  }
}

/// Two bodies (m1 = 1, m2 = 0.5 amu, G = 1) on an orbit of semi-major axis a = 1 nm and
/// eccentricity 0.5, softening 1e-3 a, 5000 steps per period, started at apocentre with the
/// centre of mass at rest far outside the box: the period measured from three pericentre
/// passages against Kepler's 2 pi sqrt(a^3 / (G (m1 + m2))), the initial energy against
/// -G m1 m2 / (2a), the energy error over the orbit against velocity Verlet's estimate, and
/// the centre of mass where it started (nothing wrapped).
TEST_P(AllPairsBackends, KeplerOrbitPeriodAndEnergy) {
  const double G = 1, m1 = 1.0, m2 = 0.5, M = m1 + m2, a = 1.0, e = 0.5, eps = 1e-3 * a;
  const double period = 2 * units::kPi * std::sqrt(a * a * a / (G * M));
  const double dt = period / 5000;
  const double rApo = a * (1 + e), vApo = std::sqrt(G * M * (1 - e) / (a * (1 + e)));
  const Vec3 centre{7.3, -2.1, 0.4};
  BuiltSystem b = bodies({m1, m2}, {centre - Vec3{m2 / M * rApo, 0, 0}, centre + Vec3{m1 / M * rApo, 0, 0}});
  State s = stateOf(b);
  s.velocities = {Vec3{0, -m2 / M * vApo, 0}, Vec3{0, m1 / M * vApo, 0}};
  auto backend = makeBackend(allPairsConfig(GetParam(), "gravity", eps, dt), b.system, nullptr);
  backend->setState(s, {});
  const double e0 = backend->computeForces().potential() + backend->kineticEnergy();
  const double kepler = -G * m1 * m2 / (2 * a);

  std::vector<double> passages;  // pericentre: the relative vector crosses y = 0 at x < 0
  double yPrevious = 0, maxError = 0;
  State now;
  for (int step = 1; passages.size() < 3 && step < 14000; ++step) {
    const double total = backend->step().potential() + backend->kineticEnergy();
    maxError = std::max(maxError, std::fabs(total - e0));
    backend->getState(now);
    const Vec3 r = now.positions[1] - now.positions[0];
    if (yPrevious > 0 && r.y <= 0 && r.x < 0) passages.push_back((step - 1 + yPrevious / (yPrevious - r.y)) * dt);
    yPrevious = r.y;
  }
  ASSERT_EQ(passages.size(), 3u);
  const double measured = 0.5 * (passages[2] - passages[0]);
  // Velocity Verlet's energy error, from its shadow Hamiltonian H + dt^2 (p.V''.p / 12 m^2 -
  // |V'|^2 / 24 m) per reduced mass at pericentre, where both terms are largest.
  const double rPeri = a * (1 - e), vPeri2 = G * M * (1 + e) / (a * (1 - e)), gPeri = G * M / (rPeri * rPeri);
  const double verletEstimate = dt * dt * (2 * vPeri2 * gPeri / rPeri / 12 + gPeri * gPeri / 24) / (G * M / (2 * a));
  std::printf("[ info ] %s: Kepler e = 0.5: period %.9g ps (Kepler %.9g, relative %.2e); E0 %.9g (Kepler %.9g, "
              "relative %.2e); max |E - E0| / |E| %.2e (Verlet estimate %.2e)\n",
              GetParam().c_str(), measured, period, measured / period - 1, e0, kepler, e0 / kepler - 1,
              maxError / std::fabs(kepler), verletEstimate);
  EXPECT_NEAR(measured / period, 1.0, tol::kKeplerPeriod);
  EXPECT_NEAR(e0 / kepler, 1.0, tol::kKeplerInitialEnergy);
  EXPECT_LT(maxError / std::fabs(kepler), tol::kKeplerEnergyOverVerletEstimate * verletEstimate);
  const Vec3 com = (now.positions[0] * m1 + now.positions[1] * m2) * (1 / M);
  EXPECT_LT(std::sqrt(norm2(com - centre)), tol::kKeplerCentreOfMass);
}

/// Total energy over `time` ps of a Plummer sphere from its initial state: the RMS of
/// E(t) - E0 and the least-squares drift, both relative to |E0| (drift per ps).
struct NveError {
  double rms = 0, drift = 0;
};
NveError plummerNve(const std::string& platform, const Cluster& c, double softening, double dt, double time) {
  auto backend = makeBackend(allPairsConfig(platform, "gravity", softening, dt), c.b.system, nullptr);
  State s = stateOf(c.b);
  s.velocities = c.velocities;
  backend->setState(s, {});
  const double e0 = backend->computeForces().potential() + backend->kineticEnergy();
  const int steps = int(std::lround(time / dt));
  std::vector<double> error;
  for (int k = 0; k < steps; ++k) error.push_back((backend->step().potential() + backend->kineticEnergy() - e0) / std::fabs(e0));
  const double n = double(steps), mid = (n - 1) / 2;
  NveError r;
  double mean = 0, sxy = 0, sxx = 0;
  for (double v : error) mean += v / n, r.rms += v * v / n;
  for (int k = 0; k < steps; ++k) sxy += (k - mid) * (error[k] - mean), sxx += (k - mid) * (k - mid);
  r.rms = std::sqrt(r.rms);
  r.drift = sxy / sxx / dt;
  return r;
}

/// 512 equal masses in Henon units (crossing time 2 sqrt(2) ps), softening 0.05 nm, dt 1/128
/// ps, 4 ps: the relative energy drift and error are bounded.
TEST_P(AllPairsBackends, PlummerSphereConservesEnergy) {
  const Cluster c = plummerSphere(512, 2026);
  const NveError r = plummerNve(GetParam(), c, 0.05, 1.0 / 128, 4.0);
  std::printf("[ info ] %s: Plummer N = 512, eps 0.05, dt 1/128 ps, 4 ps: rms |E - E0| / |E0| %.3e, drift %.3e /ps\n",
              GetParam().c_str(), r.rms, r.drift);
  EXPECT_LT(std::fabs(r.drift), tol::kPlummerDriftPerPs);
  EXPECT_LT(r.rms, tol::kPlummerEnergyError);
}

/// The same sphere at dt = 1/64 and 1/128 ps over 4 ps: velocity Verlet's energy error is
/// second order, so halving dt divides it by 4.
TEST_P(AllPairsBackends, PlummerEnergyErrorScalesAsDtSquared) {
  const Cluster c = plummerSphere(512, 2026);
  const NveError coarse = plummerNve(GetParam(), c, 0.05, 1.0 / 64, 4.0);
  const NveError fine = plummerNve(GetParam(), c, 0.05, 1.0 / 128, 4.0);
  const double ratio = coarse.rms / fine.rms;
  std::printf("[ info ] %s: Plummer rms |E - E0| / |E0|: dt 1/64 %.3e, dt 1/128 %.3e, ratio %.3f\n", GetParam().c_str(),
              coarse.rms, fine.rms, ratio);
  EXPECT_GT(ratio, tol::kPlummerScalingMin);
  EXPECT_LT(ratio, tol::kPlummerScalingMax);
}

INSTANTIATE_TEST_SUITE_P(Backends, AllPairsBackends, ::testing::ValuesIn(kBackendNames), backendTestName);

// ---- The typed force in cutoff mode ------------------------------------------------------------

Config typedCutoffConfig(const std::string& platform, const BuiltSystem& b, const std::string& electrostatics) {
  Config c = ljConfig(platform, 1.0, 0.1);
  c.nonbonded.potential = "typed";
  c.electrostatics.method = electrostatics;
  c.electrostatics.ewaldRtol = 1e-5;
  c.electrostatics.fourierSpacing = 0.1;
  c.atomTypes = b.system.types;
  c.typedPairs = typedSections();
  return c;
}

Energies evaluate(const Config& config, const BuiltSystem& b, std::vector<Vec3>& forces) {
  auto backend = makeBackend(config, b.system, nullptr);
  backend->setState(stateOf(b), {});
  const Energies e = backend->computeForces();
  forces = backend->forces();
  return e;
}

/// The shifted typed force within the cutoff, minimum image: every pair of the periodic system.
TEST(TypedCutoff, CpuMatchesADirectSum) {
  const BuiltSystem b = randomLjSystem(400, {2.6, 2.5, 2.7}, 31, 0.25);
  const Config config = typedCutoffConfig("cpu", b, "none");
  std::vector<Vec3> f;
  const Energies e = evaluate(config, b, f);
  const TypedPairTable t = typedPairTable(config, b.system);
  const double rc = config.nonbonded.cutoff;
  std::vector<Vec3> direct(b.positions.size());
  double energy = 0;
  for (std::size_t i = 0; i < b.positions.size(); ++i)
    for (std::size_t j = i + 1; j < b.positions.size(); ++j) {
      const Vec3 R = b.system.box.minimumImage(b.positions[i] - b.positions[j]);
      const double r = std::sqrt(norm2(R));
      if (r >= rc) continue;
      const TypedPairParams<double>& p = t.at(b.system.type[i], b.system.type[j]);
      const Vec3 fij = R * (p.c1 / (r * r * r) + std::pow(p.c2 / r, p.c3));
      direct[i] += fij, direct[j] -= fij;
      energy += typedEnergy(r, p) - typedEnergy(rc, p);
    }
  EXPECT_EQ(e.lj, 0.0);
  EXPECT_NEAR(e.pair, energy, tol::kDoubleSum * std::fabs(energy));
  EXPECT_LT(relRmsVec(f, direct), tol::kDoubleSum);
}

/// The Coulomb of [electrostatics] stays as it is: typed + PME = typed alone + PME with an LJ
/// of zero size and depth, term by term.
TEST(TypedCutoff, ElectrostaticsAddAsWithLj) {
  BuiltSystem b = randomLjSystem(300, {2.5, 2.5, 2.5}, 37, 0.25);  // types A : B = 2 : 1, neutral
  b.system.types[0].charge = 0.5, b.system.types[1].charge = -1;
  for (auto& t : b.system.types) t.sigma = t.epsilon = 0;
  for (std::size_t i = 0; i < b.system.size(); ++i) b.system.charge[i] = b.system.types[b.system.type[i]].charge;
  std::vector<Vec3> both, typedOnly, coulombOnly;
  const Energies eb = evaluate(typedCutoffConfig("cpu", b, "pme"), b, both);
  const Energies et = evaluate(typedCutoffConfig("cpu", b, "none"), b, typedOnly);
  Config lj = typedCutoffConfig("cpu", b, "pme");
  lj.nonbonded.potential = "lj-coulomb";
  const Energies ec = evaluate(lj, b, coulombOnly);
  for (std::size_t i = 0; i < both.size(); ++i) typedOnly[i] += coulombOnly[i];
  EXPECT_LT(relRmsVec(both, typedOnly), tol::kDoubleSum);
  EXPECT_EQ(eb.pair, et.pair);
  EXPECT_NEAR(eb.coulomb(), ec.coulomb(), tol::kDoubleSum * std::fabs(ec.coulomb()));
  EXPECT_NE(eb.coulombRecip, 0.0);
}

/// Potential-shifted: a pair just inside the cutoff has an energy of about F(rc) times the
/// distance to the cutoff, not U(rc).
TEST(TypedCutoff, EnergyIsContinuousAtTheCutoff) {
  BuiltSystem b;
  b.system.types = twoLjTypes();
  b.system.box = Box::rectangular(3, 3, 3);
  addParticle(b, 0, {1.0, 1.0, 1.0});
  addParticle(b, 1, {1.0 + 0.999, 1.0, 1.0});
  std::vector<Vec3> f;
  const Energies e = evaluate(typedCutoffConfig("cpu", b, "none"), b, f);
  const Config::TypedPairSection& ab = typedSections()[1];
  const TypedPairParams<double> p{ab.c1, ab.c2, ab.c3};
  const double fAtCutoff = std::fabs(p.c1) + std::pow(p.c2, p.c3);  // |F(rc)| at rc = 1 nm
  EXPECT_LT(std::fabs(e.pair), 2 * fAtCutoff * 0.001);
  EXPECT_GT(std::fabs(typedEnergy(1.0, p)), 100 * std::fabs(e.pair)) << "the unshifted energy would be far larger";
}

/// GPU tile kernel with the typed table against the CPU backend, without and with PME.
TEST(TypedCutoff, GpuMatchesCpu) {
  FARADAY_REQUIRE_GPU();
  BuiltSystem b = randomLjSystem(2000, {4.2, 4.0, 4.4}, 41, 0.25);
  b.system.types[0].charge = 0.5, b.system.types[1].charge = -1;
  for (std::size_t i = 0; i < b.system.size(); ++i) b.system.charge[i] = b.system.types[b.system.type[i]].charge;
  for (const char* method : {"none", "pme"}) {
    std::vector<Vec3> gpu, cpu;
    const Energies eg = evaluate(typedCutoffConfig("cuda", b, method), b, gpu);
    const Energies ec = evaluate(typedCutoffConfig("cpu", b, method), b, cpu);
    EXPECT_LT(relRmsVec(gpu, cpu), tol::kGpuForceRelRms) << method;
    EXPECT_EQ(eg.lj, 0.0) << method;
    EXPECT_NEAR(eg.pair, ec.pair, tol::kGpuEnergyRel * std::fabs(ec.potential())) << method;
    EXPECT_NEAR(eg.potential(), ec.potential(), tol::kGpuEnergyRel * std::fabs(ec.potential())) << method;
    EXPECT_NEAR(eg.virial.trace(), ec.virial.trace(), tol::kGpuEnergyRel * std::fabs(ec.virial.trace())) << method;
  }
}

// ---- Configuration -------------------------------------------------------------------------------

/// Argon's config in all-pairs mode with gravity; its [nonbonded] cutoff and buffer stay.
std::string gravityConfig() {
  std::string text = argonConfig();
  const std::string langevin = "type = langevin\ndt = 0.004\ntemperature = 90\n";
  text.replace(text.find(langevin), langevin.size(), "type = verlet\ndt = 0.004\n");
  const std::string electrostatics = "[electrostatics]\nmethod = none\n";
  text.replace(text.find(electrostatics), electrostatics.size(), "");
  return text + "[nonbonded]\nmode = all-pairs\npotential = gravity\n[gravity]\ng = 2e-6\nsoftening = 0.01\n";
}

class AllPairsConfig : public ::testing::Test {
 protected:
  fs::path write(const std::string& text) {
    writeText(dir / "sim.cfg", text);
    return dir / "sim.cfg";
  }
  TempDir dir;
};

TEST_F(AllPairsConfig, KeysLoadAndAppearInHelpAndEffective) {
  const Config c = loadConfig(write(gravityConfig()), {});
  EXPECT_TRUE(c.nonbonded.allPairs());
  EXPECT_EQ(c.nonbonded.potential, "gravity");
  EXPECT_DOUBLE_EQ(c.gravity.g, 2e-6);
  EXPECT_DOUBLE_EQ(c.gravity.softening, 0.01);
  const Config defaults = loadConfig(write(argonConfig()), {});
  EXPECT_EQ(defaults.nonbonded.mode, "cutoff");
  EXPECT_EQ(defaults.nonbonded.potential, "lj-coulomb");
  EXPECT_DOUBLE_EQ(defaults.nonbonded.typedRmin, 0.01);
  const std::string help = configHelp();
  for (const char* key : {"nonbonded.mode", "nonbonded.potential", "nonbonded.typed_rmin", "gravity.g", "gravity.softening",
                          "typed.A-B.c1", "typed.A-B.c3"})
    EXPECT_HAS(help, key);
  std::map<std::string, std::string> effective(c.effective.begin(), c.effective.end());
  EXPECT_EQ(effective["nonbonded.mode"], "all-pairs");
  EXPECT_EQ(effective["gravity.softening"], "0.01");
}

TEST_F(AllPairsConfig, CutoffModeKeysWarnThatTheyHaveNoEffect) {
  const std::string text = gravityConfig();
  const fs::path file = write(text);
  const Config c = loadConfig(file, {"--electrostatics.method=pme", "--nonbonded.typed_rmin=0.02"});
  const std::string why = "has no effect with nonbonded.mode = all-pairs";
  ASSERT_EQ(c.warnings.size(), 4u);
  EXPECT_EQ(c.warnings[0], file.string() + ":" + std::to_string(lineOf(text, "cutoff =")) + ": key 'nonbonded.cutoff': " + why +
                               " (open boundaries, no cutoff, no electrostatics)");
  EXPECT_HAS(c.warnings[1], "key 'nonbonded.buffer': " + why);
  EXPECT_EQ(c.warnings[2], "command line: key 'nonbonded.typed_rmin': has no effect with nonbonded.potential = gravity");
  EXPECT_HAS(c.warnings[3], "command line: key 'electrostatics.method': " + why);
  // The typed sections and gravity's keys outside their potential.
  const Config lj = loadConfig(write(argonConfig() + "[gravity]\ng = 3\n[typed.AR-AR]\nc1 = 0\nc2 = 0.3\nc3 = 12\n"), {});
  ASSERT_EQ(lj.warnings.size(), 4u);
  EXPECT_HAS(lj.warnings[0], "key 'gravity.g': has no effect with nonbonded.potential = lj-coulomb");
  EXPECT_HAS(lj.warnings[1], "key 'typed.AR-AR.c1': has no effect with nonbonded.potential = lj-coulomb");
}

TEST_F(AllPairsConfig, TypedTableIsSymmetric) {
  const std::string types = "[atom.NE]\nmass = 20.18\ncharge = 0\nsigma = 0.28\nepsilon = 0.3\n";
  const std::string ab = "[typed.AR-NE]\nc1 = 5\nc2 = 0.3\nc3 = 12\n";
  std::string same = argonConfig() + types + ab + "[typed.NE-AR]\nc1 = 5\nc2 = 0.3\nc3 = 12\n";
  const Config c = loadConfig(write(same + "[nonbonded]\npotential = typed\n"), {});
  ASSERT_EQ(c.typedPairs.size(), 1u);
  EXPECT_EQ(c.typedPairs[0].a + "-" + c.typedPairs[0].b, "AR-NE");
  const std::string differ = argonConfig() + types + ab + "[typed.NE-AR]\nc1 = 6\nc2 = 0.3\nc3 = 12\n";
  const fs::path file = write(differ);
  const std::string msg = errorOf([&] { loadConfig(file, {}); });
  EXPECT_HAS(msg, file.string() + ":" + std::to_string(lineOf(differ, "c1 = 6")));
  EXPECT_HAS(msg, "[typed.NE-AR] differs from [typed.AR-NE]: the table is symmetric");
  const std::string unknown = argonConfig() + "[typed.AR-XE]\nc1 = 5\nc2 = 0.3\nc3 = 12\n";
  EXPECT_HAS(errorOf([&] { loadConfig(write(unknown), {}); }), "[typed.AR-XE] does not name two atom types as A-B (known: AR)");
}

/// A restarted all-pairs run continues bit for bit (its checkpoint holds no list reference),
/// and the box of the coordinate file stays as it was.
TEST(AllPairsRun, RestartContinuesBitwise) {
  TempDir dir;
  writeText(dir / "argon.gro", argonGro(3));
  writeText(dir / "sim.cfg", gravityConfig());
  const auto run = [&dir](const std::string& out, int steps, std::vector<std::string> extra = {}) {
    std::vector<std::string> args = {"run", "sim.cfg", "--output.directory=" + out, "--run.steps=" + std::to_string(steps)};
    args.insert(args.end(), extra.begin(), extra.end());
    const CommandResult r = runFaraday(dir.path(), args);
    EXPECT_EQ(r.exitCode, 0) << r.err;
  };
  run("full", 20);
  run("split", 10);
  const Checkpoint middle = readCheckpoint(dir / "split" / "state.chk", 108, "");
  run("split", 20, {"--restart", "split/state.chk"});
  const Checkpoint a = readCheckpoint(dir / "full" / "state.chk", 108, "");
  const Checkpoint b = readCheckpoint(dir / "split" / "state.chk", 108, "");
  EXPECT_EQ(a.step, 20);
  EXPECT_EQ(b.step, 20);
  EXPECT_TRUE(a.listReference.empty());
  ASSERT_EQ(a.positions.size(), b.positions.size());
  bool moved = false;
  for (std::size_t i = 0; i < a.positions.size(); ++i) {
    ASSERT_TRUE(a.positions[i] == b.positions[i] && a.velocities[i] == b.velocities[i]) << i;
    moved |= !(a.positions[i] == middle.positions[i]);
  }
  EXPECT_TRUE(moved) << "the comparison is not of two copies of the input";
  EXPECT_TRUE(a.box.lengths() == readCoordinates(dir / "argon.gro").box.lengths()) << "the coordinate file's box, carried along";
  EXPECT_EQ(readText(dir / "full" / "final.gro"), readText(dir / "split" / "final.gro"));
}

// ---- Bad input through the executable -------------------------------------------------------------

/// `faraday run sim.cfg` with argon.gro (108 atoms, one type AR): exit code 1, one error line
/// holding every one of `expected`, nothing written.
void expectRunError(const std::string& config, const std::vector<std::string>& expected) {
  TempDir dir;
  writeText(dir / "argon.gro", argonGro(3));
  writeText(dir / "sim.cfg", config);
  const CommandResult r = runFaraday(dir.path(), {"run", "sim.cfg"});
  EXPECT_EQ(r.exitCode, 1) << r.err;
  EXPECT_EQ(r.err.rfind("faraday: error: ", 0), 0u) << r.err;
  EXPECT_EQ(lines(r.err).size(), 1u) << r.err;
  EXPECT_FALSE(fs::exists(dir / "out")) << "an output was created";
  for (const std::string& part : expected) EXPECT_HAS(r.err, part);
}

std::string typedConfig(const std::string& typedSection) {
  std::string text = argonConfig();
  text.replace(text.find("[electrostatics]"), 16, "[nonbonded]\npotential = typed\n[electrostatics]");
  return text + typedSection;
}

TEST(AllPairsBadInput, MissingTypedSection) {
  expectRunError(typedConfig(""), {"no [typed.AR-AR] section", "every pair of atom types", "argon.gro"});
}

TEST(AllPairsBadInput, TypedExponentNotAboveTwo) {
  const std::string text = typedConfig("[typed.AR-AR]\nc1 = 0\nc2 = 0.3\nc3 = 2\n");
  expectRunError(text, {"sim.cfg:" + std::to_string(lineOf(text, "c3 = 2")) + ": key 'typed.AR-AR.c3': must be > 2"});
}

TEST(AllPairsBadInput, SofteningNotPositiveOrMissing) {
  std::string text = gravityConfig();
  text.replace(text.find("softening = 0.01"), 16, "softening = 0");
  expectRunError(text, {"sim.cfg:" + std::to_string(lineOf(text, "softening = 0")) + ": key 'gravity.softening': must be > 0"});
  text.replace(text.find("softening = 0"), 13, "");
  expectRunError(text, {"key 'gravity.softening': required key is missing"});
}

TEST(AllPairsBadInput, LangevinWithAllPairs) {
  std::string text = gravityConfig();
  text.replace(text.find("type = verlet"), 13, "type = langevin");
  expectRunError(text, {"sim.cfg:" + std::to_string(lineOf(text, "type = langevin")) + ": key 'integrator.type'",
                        "all-pairs runs with integrator.type = verlet only"});
}

TEST(AllPairsBadInput, GravityInCutoffMode) {
  std::string text = gravityConfig();
  text.replace(text.find("mode = all-pairs\n"), 17, "");
  expectRunError(text, {"sim.cfg:" + std::to_string(lineOf(text, "potential = gravity")) + ": key 'nonbonded.potential'",
                        "gravity needs nonbonded.mode = all-pairs"});
}

TEST(AllPairsBadInput, AllPairsWithLjCoulombOrAMap) {
  std::string text = gravityConfig();
  text.replace(text.find("potential = gravity\n"), 20, "");
  expectRunError(text, {"key 'nonbonded.mode': all-pairs needs nonbonded.potential = gravity or typed"});
  expectRunError(gravityConfig() + "[map]\nspacing = 0.2\n", {"potential maps need nonbonded.mode = cutoff"});
}

// ---- The examples -------------------------------------------------------------------------------

/// systems/plummer is written in virial equilibrium: 2 K = -W with W the softened virial
/// sum r_ij . F_ij, to the precision of the .gro's decimals.
TEST(AllPairsExamples, PlummerIsInVirialEquilibrium) {
  const Config c = loadConfig(fs::path(sourceDir()) / "systems" / "plummer" / "sim.cfg", {"--run.threads=1"});
  const faraday::Setup s = buildSetup(c);
  ASSERT_TRUE(s.velocitiesFromFile);
  std::vector<Vec3> f;
  const AllPairsResult r = allPairsForces(s.state.positions, s.system.mass, s.system.type, allPairsParams(c, s.system), f, 0);
  const double kinetic = kineticEnergy(s.system, s.state.velocities);
  EXPECT_NEAR(2 * kinetic / -r.virial.trace(), 1.0, tol::kGroVirialRatio);
  Vec3 momentum;
  double sumMomenta = 0;
  for (std::size_t i = 0; i < s.system.size(); ++i) {
    momentum += s.state.velocities[i] * s.system.mass[i];
    sumMomenta += std::sqrt(norm2(s.state.velocities[i])) * s.system.mass[i];
  }
  EXPECT_LT(std::sqrt(norm2(momentum)), tol::kGroVirialRatio * sumMomenta) << "centre of mass at rest";
}

TEST(AllPairsExamples, ExamplesPassTheDryRun) {
  for (const char* example : {"plummer", "collision", "typed"}) {
    TempDir dir;
    const std::string cfg = (fs::path(sourceDir()) / "systems" / example / "sim.cfg").string();
    const CommandResult r = runFaraday(dir.path(), {"run", cfg, "--dry-run"});
    EXPECT_EQ(r.exitCode, 0) << example << ": " << r.err;
    EXPECT_TRUE(r.err.empty()) << example << ": " << r.err;  // no warnings either
    EXPECT_HAS(r.out, "Dry run: configuration and input are valid");
  }
}

}  // namespace
}  // namespace faraday::test
