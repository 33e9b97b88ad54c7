#pragma once
// Systems and configs of the all-pairs and typed-force tests: bodies of given masses, a
// Plummer sphere, the all-pairs config, the typed sections of two atom types, the relative
// RMS difference of two force sets, the typed energy as the seed writes it, and argon's
// config in all-pairs mode with gravity.
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "core/Units.h"
#include "engine/config/Config.h"
#include "kernels/nonbonded/PairEvaluators.h"
#include "tests/BackendTestSystems.h"
#include "tests/EngineTestSupport.h"

namespace faraday::test {

/// Bodies without charge or LJ size, one atom type per distinct mass.
inline BuiltSystem bodies(const std::vector<double>& masses, const std::vector<Vec3>& positions, double boxEdge = 3.0) {
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
inline Vec3 isotropic(std::mt19937_64& rng) {
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
inline Cluster plummerSphere(int n, std::uint64_t seed, Vec3 centre = {}) {
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

inline Config allPairsConfig(const std::string& platform, const std::string& potential, double softening, double dt) {
  Config c;
  c.run.platform = choiceNamed<Platform>(platform);
  c.run.threads = 1;
  c.nonbonded.mode = NonbondedMode::AllPairs;
  c.nonbonded.potential = choiceNamed<PairPotential>(potential);
  c.gravity.g = 1;
  c.gravity.softening = softening;
  c.electrostatics.method = ElectrostaticsMethod::None;
  c.integrator.type = IntegratorType::Verlet;
  c.integrator.dt = dt;
  return c;
}

/// Two types A, B with typed parameters for AA, AB, BB: a Coulomb-like c1 of both signs and
/// repulsions of different lengths and exponents.
inline std::vector<Config::TypedPairSection> typedSections() {
  return {{"A", "A", 60.0, 0.25, 12.0}, {"A", "B", -120.0, 0.30, 9.0}, {"B", "B", 40.0, 0.28, 7.5}};
}

inline double relRmsVec(const std::vector<Vec3>& a, const std::vector<Vec3>& ref) {
  double num = 0, den = 0;
  for (std::size_t i = 0; i < a.size(); ++i) num += norm2(a[i] - ref[i]), den += norm2(ref[i]);
  return std::sqrt(num / std::max(den, 1e-300));
}

/// The seed's typed force as written: U = c1/r + (c2/r)^c3 r^2/(c3 - 2) above rmin.
inline double typedEnergy(double r, const TypedPairParams<double>& p) {
  return p.c1 / r + std::pow(p.c2 / r, p.c3) * r * r / (p.c3 - 2);
}


/// Argon's config in all-pairs mode with gravity; its [nonbonded] cutoff and buffer stay.
inline std::string gravityConfig() {
  std::string text = argonConfig();
  const std::string langevin = "type = langevin\ndt = 0.004\ntemperature = 90\n";
  text.replace(text.find(langevin), langevin.size(), "type = verlet\ndt = 0.004\n");
  const std::string electrostatics = "[electrostatics]\nmethod = none\n";
  text.replace(text.find(electrostatics), electrostatics.size(), "");
  return text + "[nonbonded]\nmode = all-pairs\npotential = gravity\n[gravity]\ng = 2e-6\nsoftening = 0.01\n";
}

}  // namespace faraday::test
