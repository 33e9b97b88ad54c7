#pragma once
// Systems and configs built in code for the backend-parameterised test bodies.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "engine/backends/Backend.h"
#include "engine/config/Config.h"
#include "engine/setup/FccLattice.h"
#include "tests/TestSupport.h"

namespace faraday::test {

/// Backends every parameterised test body runs on.
inline const std::vector<std::string> kBackendNames = {"cpu", "cuda"};
inline bool onGpu(const std::string& platform) { return platform == "cuda"; }
inline std::string backendTestName(const ::testing::TestParamInfo<std::string>& info) { return info.param; }

/// Skips on the cuda instantiation when no device can be used.
#define FARADAY_REQUIRE_BACKEND(name)           \
  do {                                          \
    if (std::string(name) == "cuda") FARADAY_REQUIRE_GPU(); \
  } while (0)

/// LJ only (electrostatics none), velocity Verlet, one thread: the suite runs on shared
/// 2-core CI machines where spinning OpenMP threads of small systems wait on descheduled
/// peers; the multi-threaded paths are covered by the thread-count tests.
inline Config ljConfig(const std::string& platform, double cutoff = 1.0, double buffer = 0.1, bool shift = true) {
  Config c;
  c.run.platform = choiceNamed<Platform>(platform);
  c.run.threads = 1;
  c.electrostatics.method = ElectrostaticsMethod::None;
  c.nonbonded.cutoff = cutoff;
  c.nonbonded.buffer = buffer;
  c.nonbonded.ljShift = shift;
  c.nonbonded.dispersionCorrection = false;
  c.integrator.type = IntegratorType::Verlet;
  return c;
}

/// Two LJ types with different sigma and epsilon (so mixing matters).
inline std::vector<AtomType> twoLjTypes() {
  AtomType a{"A", 39.948, 0.0, 0.34, 1.0};
  AtomType b{"B", 20.18, 0.0, 0.28, 0.3};
  return {a, b};
}

inline void addParticle(BuiltSystem& b, int type, const Vec3& x) {
  b.system.type.push_back(type);
  b.system.charge.push_back(b.system.types[std::size_t(type)].charge);
  b.system.mass.push_back(b.system.types[std::size_t(type)].mass);
  b.system.atomName.push_back(b.system.types[std::size_t(type)].name);
  b.system.residueName.push_back("LJ");
  b.system.residueId.push_back(int(b.system.type.size()));
  b.positions.push_back(x);
}

/// n particles of two types placed uniformly at random in a box of edges L (nm), no two
/// closer than minDistance (nm) so that forces stay moderate. Some positions are shifted by
/// whole box lengths (unwrapped coordinates must work).
inline BuiltSystem randomLjSystem(int n, Vec3 L, unsigned seed, double minDistance = 0.27) {
  BuiltSystem b;
  b.system.types = twoLjTypes();
  b.system.box = Box::rectangular(L.x, L.y, L.z);
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  while (int(b.positions.size()) < n) {
    const Vec3 x{u(rng) * L.x, u(rng) * L.y, u(rng) * L.z};
    bool ok = true;
    for (const Vec3& y : b.positions) ok = ok && norm2(b.system.box.minimumImage(x - y)) >= minDistance * minDistance;
    if (!ok) continue;
    const int k = int(b.positions.size());
    const Vec3 shift = (k % 7 == 0) ? Vec3{L.x, -L.y, 2 * L.z} : Vec3{};
    addParticle(b, k % 3 == 0 ? 1 : 0, x + shift);
  }
  return b;
}

inline State stateOf(const BuiltSystem& b) {
  State s;
  s.positions = b.positions;
  s.velocities.assign(b.positions.size(), Vec3{});
  s.box = b.system.box;
  return s;
}

}  // namespace faraday::test
