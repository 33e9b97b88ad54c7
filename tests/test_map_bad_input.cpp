// Bad map input: spacing and lattice size, map keys, trajectories that do not match,
// PME maps without Ewald electrostatics.
#include <gtest/gtest.h>

#include "core/Error.h"
#include "tests/MapTestSupport.h"
#include "tests/Tolerances.h"
#include "engine/config/KernelParams.h"
#include "engine/config/LoadConfig.h"

namespace faraday {
namespace {

using namespace test;

// ---- bad input ---------------------------------------------------------------------------

TEST(DcsErrors, BadSpacingAndHugeLattice) {
  const Box box = Box::rectangular(10, 10, 10);
  EXPECT_NE(errorOf([&] { Lattice::fromBox(box, 0.0); }).find("lattice spacing"), std::string::npos);
  EXPECT_NE(errorOf([&] { Lattice::fromBox(box, -0.1); }).find("lattice spacing"), std::string::npos);
  const std::string huge = errorOf([&] { Lattice::fromBox(box, 1e-5); });
  EXPECT_NE(huge.find("bytes"), std::string::npos) << huge;
  EXPECT_NE(huge.find("16000000000000000000"), std::string::npos) << huge;  // 1e18 points x 16 bytes
  // The map's lattice names the key that set its spacing.
  Config::MapSection map;
  map.spacing = 1e-5;
  EXPECT_NE(errorOf([&] { mapLattice(map, box); }).find("key 'map.spacing': the potential-map lattice"),
            std::string::npos);
}

TEST(DcsErrors, BadMapKeys) {
  const Box box = Box::rectangular(2, 2, 2);
  const System sys = smallSystem(10, box);
  Config cfg = mapConfig(tempDir("keys"), "pme", "x.dx");
  cfg.electrostatics.method = ElectrostaticsMethod::None;  // a pme map needs the run's Ewald splitting
  EXPECT_NE(errorOf([&] { makeMapReporter(cfg, sys, false, nullptr); }).find("electrostatics.method"),
            std::string::npos);
  cfg.map.method = MapMethod::Cutoff;
  cfg.map.cutoff = 1.5;  // > half of the 2 nm box
  EXPECT_NE(errorOf([&] { makeMapReporter(cfg, sys, false, nullptr); }).find("map.cutoff"), std::string::npos);
  cfg.map.cutoff = 0.8;
  cfg.map.units = MapUnits::Volt;
  cfg.map.file = "x.txt";
  EXPECT_NE(errorOf([&] { makeMapReporter(cfg, sys, false, nullptr); }).find("map.file"), std::string::npos);
}

TEST(DcsErrors, TrajectoryAtomCountMismatch) {
  const Box box = Box::rectangular(2, 2, 2);
  const System sys = smallSystem(7, box);
  const auto dir = tempDir("mismatch");
  Config cfg = mapConfig(dir, "direct", "m.dx");
  cfg.map.trajectory = (dir / "five.dcd").string();
  writeDcd(cfg.map.trajectory, frames(5, box, 2), box);
  const std::string e = errorOf([&] { mapMain(cfg, sys, false); });
  EXPECT_NE(e.find("five.dcd"), std::string::npos) << e;
  EXPECT_NE(e.find("5 atoms"), std::string::npos) << e;
  EXPECT_NE(e.find("has 7"), std::string::npos) << e;
  EXPECT_FALSE(std::filesystem::exists(dir / "m.dx"));
}

TEST(PmeMapErrors, NeedsEwaldElectrostaticsAndPeriodicMap) {
  const MapCase c = writeMapCase("errors", "cpu");
  const System sys = mapCaseSystem(c);
  Config config = loadConfig(c.dir / "map.cfg", {});
  config.electrostatics.method = ElectrostaticsMethod::None;
  std::string e = errorOf([&] { makeMapReporter(config, sys, false, nullptr); });
  EXPECT_NE(e.find("electrostatics.method"), std::string::npos) << e;
  config.electrostatics.method = ElectrostaticsMethod::Pme;
  config.map.periodic = false;
  e = errorOf([&] { makeMapReporter(config, sys, false, nullptr); });
  EXPECT_NE(e.find("map.periodic"), std::string::npos) << e;
  config.map.periodic = true;
  config.nonbonded.cutoff = 1.3;  // above half of the 2.4 nm edge
  e = errorOf([&] { makeMapReporter(config, sys, false, nullptr); });
  EXPECT_NE(e.find("nonbonded.cutoff"), std::string::npos) << e;
  config.nonbonded.cutoff = 1.0;
  EXPECT_EQ(errorOf([&] { makeMapReporter(config, sys, false, nullptr); }), "");
}

}  // namespace
}  // namespace faraday
