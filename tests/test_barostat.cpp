// The Monte Carlo barostat on every backend: the ideal gas's isobaric mean volume, a rejected
// move that leaves the state bit for bit, an accepted move equal to a restart from the scaled
// state, molecules moved whole, and the GPU's moves against the CPU's.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <random>

#include "core/Units.h"
#include "engine/backends/BackendFactory.h"
#include "engine/run/Barostat.h"
#include "engine/setup/SystemSetup.h"
#include "integrators/BoxScaling.h"
#include "tests/BackendTestSystems.h"
#include "tests/GromacsReference.h"
#include "tests/Tolerances.h"

namespace faraday::test {
namespace {

/// n particles of one type with no interaction (epsilon 0, no charge) in a cube of edge L.
BuiltSystem idealGas(int n, double L, unsigned seed) {
  BuiltSystem b;
  b.system.types = {AtomType{"G", 39.948, 0.0, 0.3, 0.0}};
  b.system.box = Box::rectangular(L, L, L);
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(0.0, L);
  for (int i = 0; i < n; ++i) addParticle(b, 0, {u(rng), u(rng), u(rng)});
  return b;
}

State startState(const BuiltSystem& b) {
  State s;
  s.positions = b.positions;
  s.velocities.assign(b.positions.size(), Vec3{});
  s.box = b.system.box;
  return s;
}

Config langevinLj(const std::string& platform) {
  Config c = ljConfig(platform, 1.0, 0.1);
  c.integrator.type = IntegratorType::Langevin;
  c.integrator.dt = 0.004;
  c.integrator.temperature = 300;
  c.integrator.friction = 5;
  c.integrator.seed = 11;
  return c;
}

class BarostatBackends : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override { FARADAY_REQUIRE_BACKEND(GetParam()); }
};

/// Non-interacting particles: the isothermal-isobaric distribution of the volume is
/// V^N exp(-P V / kT), whose mean is (N + 1) kT / P. 100 particles at 300 K and 100 bar
/// (<V> = 41.8 nm^3, relative spread 10%), a trial move after every step: the mean of 19,000
/// moves, its error from 20 block averages of 950 moves (the volume forgets within ~10 moves).
TEST_P(BarostatBackends, IdealGasMeanVolumeIsNPlusOneKTOverP) {
  const int n = 100, moves = 20000, discard = 1000;
  const double pressure = 100, kT = units::kBoltzmann * 300;
  const double expected = (n + 1) * kT / (pressure * units::kKjMolNm3PerBar);
  const BuiltSystem gas = idealGas(n, std::cbrt(expected), 3);
  const Config c = langevinLj(GetParam());
  auto backend = makeBackend(c, gas.system, nullptr);
  backend->setState(startState(gas), {});
  backend->computeForces();
  MonteCarloBarostat barostat({pressure, 300, 1, 5, c.nonbonded.cutoff}, n);
  Box box = gas.system.box;
  std::vector<double> volumes;
  for (int s = 0; s < moves; ++s) {
    backend->advance(true);
    barostat.attempt(*backend, box);
    if (s >= discard) volumes.push_back(box.volume());
  }
  const auto [mean, error] = blockAverage(volumes, 20);
  std::printf("[ info ] ideal gas on %s: <V> %.3f +- %.3f nm^3, expected %.3f; %s", GetParam().c_str(), mean, error,
              expected, barostat.summary().c_str());
  EXPECT_LT(error, tol::kBarostatIdealGasResolution * expected);
  EXPECT_LT(std::fabs(mean - expected), tol::kBarostatMeanSigmas * error);
  const double rate = double(barostat.state().accepted) / double(barostat.state().attempts);
  EXPECT_GT(rate, 0.2);  // the step size adapts towards 25..75% acceptance
  EXPECT_LT(rate, 0.8);
}

/// A rejected move leaves positions, velocities, box, forces and energies as they were, bit
/// for bit: the run goes on as if it had not been tried. An accepted one is the run that
/// restarts from the scaled state (positions, box and list reference).
TEST_P(BarostatBackends, RejectedMoveIsInvisibleAndAcceptedMoveIsARestartFromTheScaledState) {
  const BuiltSystem liquid = randomLjSystem(600, {3.2, 3.2, 3.2}, 17);
  const Config c = langevinLj(GetParam());
  const auto fresh = [&](const State& s, const std::vector<Vec3>& reference) {
    auto b = makeBackend(c, liquid.system, nullptr);
    b->setState(s, reference);
    b->computeForces();
    return b;
  };
  auto tried = fresh(startState(liquid), {}), plain = fresh(startState(liquid), {});
  for (int s = 0; s < 10; ++s) tried->advance(false), plain->advance(false);
  tried->advance(true), plain->advance(true);
  const Energies before = tried->energies();
  const std::vector<Vec3> forcesBefore = tried->forces();
  const Box larger = Box::rectangular(3.25, 3.25, 3.25);
  const Energies scaled = tried->scaleVolume(larger);
  EXPECT_NE(scaled.potential(), before.potential());
  tried->finishVolumeMove(false);
  EXPECT_EQ(tried->energies().potential(), before.potential());
  EXPECT_EQ(std::memcmp(tried->forces().data(), forcesBefore.data(), forcesBefore.size() * sizeof(Vec3)), 0);
  for (int s = 0; s < 10; ++s) tried->advance(false), plain->advance(false);
  State a, b;
  tried->getState(a);
  plain->getState(b);
  EXPECT_EQ(a.box.diagonal(), b.box.diagonal());
  EXPECT_EQ(std::memcmp(a.positions.data(), b.positions.data(), a.positions.size() * sizeof(Vec3)), 0);
  EXPECT_EQ(std::memcmp(a.velocities.data(), b.velocities.data(), a.velocities.size() * sizeof(Vec3)), 0);

  // Accepted: the scaled positions are scaleMolecules' (to rounding: the GPU fuses
  // multiply-adds), and the run goes on as one restarted from them with the list built there.
  tried->advance(true);
  State start;
  tried->getState(start);
  tried->scaleVolume(larger);
  tried->finishVolumeMove(true);
  State afterMove;
  tried->getState(afterMove);
  std::vector<Vec3> expected = start.positions;
  scaleMolecules(expected, liquid.system.mass, moleculeStarts(liquid.system.topology, 600), boxScaling(start.box, larger));
  EXPECT_EQ(afterMove.box.diagonal(), larger.diagonal());
  double worst = 0;
  for (std::size_t i = 0; i < expected.size(); ++i)
    worst = std::max(worst, std::sqrt(norm2(afterMove.positions[i] - expected[i])));
  EXPECT_LT(worst, tol::kGpuScaledPositionNm);
  auto restarted = fresh(afterMove, afterMove.positions);
  for (int s = 0; s < 10; ++s) tried->advance(false), restarted->advance(false);
  tried->getState(a);
  restarted->getState(b);
  EXPECT_EQ(std::memcmp(a.positions.data(), b.positions.data(), a.positions.size() * sizeof(Vec3)), 0);
  EXPECT_EQ(std::memcmp(a.velocities.data(), b.velocities.data(), a.velocities.size() * sizeof(Vec3)), 0);
}

INSTANTIATE_TEST_SUITE_P(Backends, BarostatBackends, ::testing::ValuesIn(kBackendNames), backendTestName);

/// Rigid SPC/E waters wrapped atom by atom into the box (molecules split across its faces)
/// and scaled by 3%: every intramolecular distance is kept, and each molecule's centre of mass
/// (unwrapped) is scaled by the length factor.
TEST(BoxScaling, MoleculesStayWholeAndTheirCentresScale) {
  const GromacsReference r = loadGromacsReference("spce_water");
  Config c = gromacsReferenceConfig(r, "cpu");
  c.system.defines = "";
  const faraday::Setup setup = buildSetup(c);
  const System& system = setup.system;
  const std::vector<int> starts = moleculeStarts(system.topology, int(system.size()));
  ASSERT_EQ(starts.size(), 885u);
  std::vector<Vec3> x = setup.state.positions;
  for (Vec3& p : x) p = system.box.wrap(p);
  const std::vector<Vec3> before = x;
  const double s = 1.03;
  const Box to = Box::rectangular(system.box.a.x * s, system.box.b.y * s, system.box.c.z * s);
  scaleMolecules(x, system.mass, starts, boxScaling(system.box, to));
  double worst = 0, worstCentre = 0;
  int split = 0;
  for (std::size_t m = 0; m + 1 < starts.size(); ++m) {
    const int first = starts[m], count = starts[m + 1] - first;
    Vec3 centreBefore{}, centreAfter{};
    double mass = 0;
    for (int k = 0; k < count; ++k) {
      const std::size_t i = std::size_t(first + k);
      const Vec3 u = before[std::size_t(first)] + system.box.minimumImage(before[i] - before[std::size_t(first)]);
      if (norm2(u - before[i]) > 0) ++split;
      centreBefore = centreBefore + system.mass[i] * u;
      centreAfter = centreAfter + system.mass[i] * x[i];
      mass += system.mass[i];
      for (int l = 0; l < k; ++l) {
        const std::size_t j = std::size_t(first + l);
        const double d0 = std::sqrt(norm2(system.box.minimumImage(before[i] - before[j])));
        worst = std::max(worst, std::fabs(std::sqrt(norm2(x[i] - x[j])) - d0));
      }
    }
    worstCentre = std::max(worstCentre, std::sqrt(norm2((1.0 / mass) * centreAfter - (s / mass) * centreBefore)));
  }
  EXPECT_GT(split, 0);  // some molecules were split by the wrapping
  EXPECT_LT(worst, tol::kRigidMoleculeDistanceNm);
  EXPECT_LT(worstCentre, tol::kRigidMoleculeDistanceNm);
}

/// A backend whose energy is a function of the volume alone, to test the decision.
class VolumeOnlyBackend : public Backend {
 public:
  explicit VolumeOnlyBackend(std::function<double(double)> u) : u_(std::move(u)) {}
  std::string name() const override { return "volume-only"; }
  void setState(const State&, const std::vector<Vec3>&) override {}
  void getState(State&) override {}
  std::vector<Vec3> listReference() override { return {}; }
  Energies computeForces() override { return energies(); }
  const std::vector<Vec3>& forces() override { return forces_; }
  void advance(bool) override {}
  Energies energies() override {
    Energies e;
    e.lj = u_(volume_);
    return e;
  }
  double kineticEnergy() override { return 0; }
  long nonFiniteParticle() override { return -1; }
  long long neighborListBuilds() const override { return 0; }
  Energies scaleVolume(const Box& box) override {
    kept_ = volume_;
    volume_ = box.volume();
    return energies();
  }
  void finishVolumeMove(bool accept) override {
    if (!accept) volume_ = kept_;
  }
  double volume_ = 27, kept_ = 0;

 private:
  std::function<double(double)> u_;
  std::vector<Vec3> forces_;
};

/// The Metropolis rule and the step's adaptation: with P = 0 and one molecule a flat energy
/// accepts a move with probability min(1, V'/V); an energy of 1e6 kJ/mol per nm^3 of expansion
/// rejects every expansion and accepts every compression (w = dU < 0); every 10 moves of
/// acceptance below 25% shrink dVmax by 0.9; the draws depend only on (seed, move).
TEST(BarostatDecision, MetropolisRuleAndAdaptation) {
  double a0 = 0, b0 = 0, a1 = 0, b1 = 0;
  MonteCarloBarostat::draws(5, 12, a0, b0);
  MonteCarloBarostat::draws(5, 12, a1, b1);
  EXPECT_EQ(a0, a1);
  EXPECT_EQ(b0, b1);
  MonteCarloBarostat::draws(5, 13, a1, b1);
  EXPECT_NE(a0, a1);

  VolumeOnlyBackend steep([](double v) { return 1e6 * (v - 27); });
  MonteCarloBarostat barostat({0, 300, 1, 5, 0.1}, 1);
  Box box = Box::rectangular(3, 3, 3);
  for (int k = 0; k < 200; ++k) {
    double step = 0, accept = 0;
    MonteCarloBarostat::draws(5, k, step, accept);
    const double before = box.volume();
    const bool accepted = barostat.attempt(steep, box);
    EXPECT_EQ(accepted, step < 0.5) << k;  // dV = dVmax (2 step - 1): compressions only
    EXPECT_EQ(steep.volume_, box.volume());
    if (!accepted) EXPECT_EQ(box.volume(), before);
  }
  // ~50% accepted: dVmax stays at 1% of the first volume (27 nm^3) unless a window of 10 fell
  // below 25% or rose above 75%.
  EXPECT_GT(barostat.state().accepted, 60);
  EXPECT_EQ(barostat.state().attempts, 200);

  VolumeOnlyBackend wall([](double v) { return v == 27 ? 0.0 : 1e9; });  // every move rejected
  MonteCarloBarostat stuck({0, 300, 1, 5, 0.1}, 1);
  Box cube = Box::rectangular(3, 3, 3);
  for (int k = 0; k < 30; ++k) EXPECT_FALSE(stuck.attempt(wall, cube));
  EXPECT_EQ(cube.volume(), 27);
  EXPECT_NEAR(stuck.state().maxVolumeChange, 0.27 * 0.9 * 0.9 * 0.9, 1e-15);
}

/// Without a topology every atom is a molecule; atoms outside the topology's molecules too.
TEST(BoxScaling, MoleculeStarts) {
  Topology t;
  EXPECT_EQ(moleculeStarts(t, 3), (std::vector<int>{0, 1, 2, 3}));
  t.molecules = {{1, 3, "W"}, {4, 2, "X"}};
  EXPECT_EQ(moleculeStarts(t, 8), (std::vector<int>{0, 1, 4, 6, 7, 8}));
  t.molecules = {{0, 3, "W"}, {2, 2, "X"}};
  EXPECT_THROW(moleculeStarts(t, 8), Error);
}

/// The same state and the same trial box on the GPU and the CPU: the scaled positions agree
/// (both in double), the energies of the scaled state to float precision; then 12 moves of a
/// short run (60 steps: the float and double trajectories stay close) make the same decisions,
/// so the volumes are the same numbers.
TEST(BarostatGpu, VolumeMovesAgreeWithTheCpu) {
  FARADAY_REQUIRE_GPU();
  const BuiltSystem liquid = randomLjSystem(500, {3.1, 3.1, 3.1}, 23);
  std::vector<std::unique_ptr<Backend>> backends;
  for (const char* p : {"cpu", "cuda"}) {
    Config c = langevinLj(p);
    backends.push_back(makeBackend(c, liquid.system, nullptr));
    backends.back()->setState(startState(liquid), {});
    backends.back()->computeForces();
  }
  const Box trial = Box::rectangular(3.12, 3.12, 3.12);
  double dU[2];
  State scaled[2];
  for (int k = 0; k < 2; ++k) {
    const double u0 = backends[std::size_t(k)]->computeForces().potential();
    dU[k] = backends[std::size_t(k)]->scaleVolume(trial).potential() - u0;
    backends[std::size_t(k)]->getState(scaled[k]);
    backends[std::size_t(k)]->finishVolumeMove(false);
  }
  double worst = 0;
  for (std::size_t i = 0; i < scaled[0].positions.size(); ++i)
    worst = std::max(worst, std::sqrt(norm2(scaled[0].positions[i] - scaled[1].positions[i])));
  std::printf("[ info ] volume move GPU vs CPU: dU %.6f / %.6f kJ/mol, positions within %.3g nm\n", dU[0], dU[1], worst);
  EXPECT_LT(worst, tol::kGpuScaledPositionNm);
  EXPECT_NEAR(dU[1], dU[0], tol::kGpuVolumeMoveEnergy);

  std::vector<double> volumes[2];
  for (int k = 0; k < 2; ++k) {
    MonteCarloBarostat barostat({1000, 300, 5, 9, 1.0}, 500);
    Box box = liquid.system.box;
    for (int s = 1; s <= 60; ++s) {
      backends[std::size_t(k)]->advance(s % 5 == 0);
      if (s % 5 == 0) barostat.attempt(*backends[std::size_t(k)], box), volumes[k].push_back(box.volume());
    }
  }
  EXPECT_EQ(volumes[0], volumes[1]);
}

}  // namespace
}  // namespace faraday::test
