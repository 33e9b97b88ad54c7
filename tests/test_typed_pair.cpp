// The typed pair force: its evaluator against finite differences of its energy and in
// float; in cutoff mode against a direct sum, with electrostatics added as with LJ, shifted
// to zero at the cutoff, and the GPU against the CPU.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "engine/backends/BackendFactory.h"
#include "engine/config/KernelParams.h"
#include "kernels/nonbonded/PairEvaluators.h"
#include "kernels/nonbonded/TypedPairTable.h"
#include "tests/AllPairsTestSupport.h"
#include "tests/BackendTestSystems.h"
#include "tests/Tolerances.h"

namespace faraday::test {
namespace {

// ---- The typed evaluator -------------------------------------------------------------------

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

// ---- The typed force in cutoff mode ------------------------------------------------------------

Config typedCutoffConfig(const std::string& platform, const BuiltSystem& b, const std::string& electrostatics) {
  Config c = ljConfig(platform, 1.0, 0.1);
  c.nonbonded.potential = PairPotential::Typed;
  c.electrostatics.method = choiceNamed<ElectrostaticsMethod>(electrostatics);
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
  lj.nonbonded.potential = PairPotential::LjCoulomb;
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

}  // namespace
}  // namespace faraday::test
