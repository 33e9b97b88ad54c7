// Virtual sites in runs: the backends build them from their atoms wherever a state comes in
// (input coordinates, restarts, `rerun` frames) and after every step, spread their forces and
// give them no velocity, no mass and no degrees of freedom; `map` frames are built too. Rigid
// TIP4P-Ew water (tests/data/gromacs/tip4pew_water) conserves energy in NVE on both backends; a
// short run on the GPU follows the CPU's.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <string>
#include <tuple>
#include <vector>

#include "engine/backends/BackendFactory.h"
#include "engine/formats/TrajectoryFile.h"
#include "engine/maps/MapCommand.h"
#include "engine/maps/MapFrames.h"
#include "engine/setup/ConstraintSetup.h"
#include "engine/setup/SystemSetup.h"
#include "integrators/Integrator.h"
#include "kernels/dcs/Dcs.h"
#include "kernels/dcs/Lattice.h"
#include "kernels/vsites/VirtualSites.h"
#include "tests/BackendTestSystems.h"
#include "tests/EngineTestSupport.h"
#include "tests/GromacsReference.h"
#include "tests/MapTestSupport.h"
#include "tests/NveRuns.h"
#include "tests/Tolerances.h"

namespace faraday::test {
namespace {

/// tests/data/gromacs/`system` (a box of rigid site water, 2.5 nm) on `platform`, with PME at
/// the usual 0.12 nm spacing.
Config siteWaterConfig(const std::string& system, const std::string& platform) {
  Config c = gromacsReferenceConfig(loadGromacsReference(system), platform);
  c.electrostatics.grid = {0, 0, 0};
  c.electrostatics.fourierSpacing = 0.12;
  c.integrator.dt = 0.002;
  return c;
}

/// tests/data/gromacs/tip4pew_water: 515 rigid TIP4P-Ew waters.
Config tip4pewConfig(const std::string& platform) { return siteWaterConfig("tip4pew_water", platform); }

/// The largest distance of a site from where its atoms put it.
double largestSiteError(const System& system, const State& state) {
  std::vector<Vec3> built = state.positions;
  constructVirtualSites(system.topology.virtualSites, built, state.box);
  double worst = 0;
  for (const VirtualSite& s : system.topology.virtualSites.sites)
    worst = std::fmax(worst, std::sqrt(norm2(state.box.minimumImage(built[std::size_t(s.site)] -
                                                                     state.positions[std::size_t(s.site)]))));
  return worst;
}

using SiteWaterCase = std::tuple<std::string, std::string>;  // system, backend

class SiteWaterRuns : public ::testing::TestWithParam<SiteWaterCase> {
 protected:
  void SetUp() override { FARADAY_REQUIRE_BACKEND(std::get<1>(GetParam())); }
};

TEST_P(SiteWaterRuns, AStateComesInWithItsSitesBuiltAndTheirForcesSpread) {
  const Config c = siteWaterConfig(std::get<0>(GetParam()), std::get<1>(GetParam()));
  faraday::Setup setup = buildSetup(c);
  const System& system = setup.system;
  const std::vector<Settle>& waters = system.topology.settles;
  ASSERT_FALSE(system.topology.virtualSites.empty());
  EXPECT_LT(largestSiteError(system, setup.state), 1e-12);  // the setup built them
  // A state with every site on an atom of its water and moving, as a trajectory or a restart may
  // hold it.
  State misplaced = setup.state;
  for (const VirtualSite& s : system.topology.virtualSites.sites) {
    misplaced.positions[std::size_t(s.site)] = misplaced.positions[std::size_t(s.site - 3)];
    misplaced.velocities[std::size_t(s.site)] = Vec3{1, 2, 3};
  }
  auto backend = makeBackend(c, system, nullptr);
  backend->setState(misplaced, {});
  const Energies e = backend->computeForces();
  State got;
  backend->getState(got);
  EXPECT_LT(largestSiteError(system, got), tol::kGpuVirtualSitePositionNm);
  for (const VirtualSite& s : system.topology.virtualSites.sites) {
    EXPECT_EQ(got.velocities[std::size_t(s.site)], Vec3{});
    EXPECT_EQ(backend->forces()[std::size_t(s.site)], Vec3{});  // spread onto the water's atoms
  }
  // The same energies as from the built sites.
  auto other = makeBackend(c, system, nullptr);
  other->setState(setup.state, {});
  EXPECT_NEAR(other->computeForces().potential(), e.potential(), tol::kDoubleSum * std::fabs(e.potential()));
  // After steps the sites are where their atoms put them, at rest, and the waters rigid (SETTLE
  // on their three atoms).
  for (int s = 0; s < 5; ++s) backend->advance(s == 4);
  backend->getState(got);
  EXPECT_LT(largestSiteError(system, got), tol::kGpuVirtualSitePositionNm);
  for (const VirtualSite& s : system.topology.virtualSites.sites) EXPECT_EQ(got.velocities[std::size_t(s.site)], Vec3{});
  for (const Settle& w : waters)
    for (int h = 1; h <= 2; ++h) {
      const Vec3 oh = got.box.minimumImage(got.positions[std::size_t(w.oxygen + h)] - got.positions[std::size_t(w.oxygen)]);
      EXPECT_NEAR(std::sqrt(norm2(oh)), w.dOH, tol::kSettleExact * w.dOH);
    }
  EXPECT_TRUE(std::isfinite(backend->kineticEnergy()));
  // 6 degrees of freedom a rigid water (less the centre of mass), none for the sites.
  EXPECT_EQ(degreesOfFreedom(system, IntegratorType::Verlet), 6.0 * double(waters.size()) - 3);
}

std::string siteWaterCaseName(const ::testing::TestParamInfo<SiteWaterCase>& info) {
  return std::get<0>(info.param) + "_" + std::get<1>(info.param);
}

INSTANTIATE_TEST_SUITE_P(Waters, SiteWaterRuns,
                         ::testing::Combine(::testing::Values("tip4pew_water", "tip5p_oplsaa", "opc_water"),
                                            ::testing::ValuesIn(kBackendNames)),
                         siteWaterCaseName);

TEST(VirtualSiteRuns, MapFramesGetTheirSitesBuilt) {
  TempDir dir;
  const Config c = tip4pewConfig("cpu");
  const faraday::Setup setup = buildSetup(c);
  // A two-frame DCD of the setup with the sites on their oxygens.
  State misplaced = setup.state;
  for (const VirtualSite& s : setup.system.topology.virtualSites.sites)
    misplaced.positions[std::size_t(s.site)] = misplaced.positions[std::size_t(s.site - 3)];
  {
    auto writer = openTrajectoryWriter(dir / "t.dcd", setup.system.size(), 10, 0.002, -1, 1000);
    for (int f = 0; f < 2; ++f) {
      misplaced.step = 10 * f;
      writer->write(misplaced);
    }
  }
  const auto trajectory = openTrajectory(dir / "t.dcd", (long long)setup.system.size());
  TrajectoryFrame frame;
  readMapFrame(*trajectory, 1, setup.system, frame);
  State read;
  read.positions = frame.positions;
  read.box = frame.hasBox ? frame.box : setup.system.box;
  EXPECT_LT(largestSiteError(setup.system, read), 1e-12);
  // (the DCD keeps single-precision positions: the M built from them sits near the setup's)
  for (const VirtualSite& s : setup.system.topology.virtualSites.sites)
    EXPECT_LT(std::sqrt(norm2(frame.positions[std::size_t(s.site)] - setup.state.positions[std::size_t(s.site)])), 1e-5);
}

/// `faraday map` of TIP4P-Ew frames whose sites sit on their oxygens: the map is that of the
/// sites built from the frame's atoms with their own charges (TIP4P-Ew's -1.04 e on M, none
/// on O), and differs from the map with M's charge on the oxygen.
TEST(VirtualSiteRuns, MapsPutTheSiteChargesWhereTheSitesAre) {
  TempDir dir;
  Config c = tip4pewConfig("cpu");
  const faraday::Setup setup = buildSetup(c);
  State misplaced = setup.state;
  for (const VirtualSite& s : setup.system.topology.virtualSites.sites)
    misplaced.positions[std::size_t(s.site)] = misplaced.positions[std::size_t(s.site - 3)];
  {
    auto writer = openTrajectoryWriter(dir / "t.dcd", setup.system.size(), 10, 0.002, -1, 1000);
    writer->write(misplaced);
  }
  c.map.enabled = true;
  c.map.method = MapMethod::Direct;
  c.map.periodic = true;
  c.map.spacing = 0.25;
  c.map.units = MapUnits::KjPerMolE;
  c.map.trajectory = (dir / "t.dcd").string();
  c.map.file = "sites.dx";
  c.output.directory = (dir / "out").string();
  std::filesystem::create_directories(c.output.directory);
  ASSERT_EQ(mapMain(c, setup.system, false), 0);
  const ParsedDx dx = readDx(dir / "out" / "sites.dx");

  // The frame as the DCD keeps it (float Angstrom), its sites built from its atoms.
  const Box& box = setup.system.box;
  std::vector<Vec3> atoms = misplaced.positions;
  for (Vec3& r : atoms) r = Vec3{float(r.x * 10), float(r.y * 10), float(r.z * 10)} / 10.0;
  constructVirtualSites(setup.system.topology.virtualSites, atoms, box);
  const Lattice l = Lattice::fromBox(box, 0.25);
  std::vector<double> sites, onOxygen;
  cpuDirectMap(l, atoms, setup.system.charge, directOptions(true, box), sites);
  std::vector<double> moved = setup.system.charge;
  for (const VirtualSite& s : setup.system.topology.virtualSites.sites) {
    ASSERT_LT(moved[std::size_t(s.site)], -1.0);
    ASSERT_EQ(moved[std::size_t(s.site - 3)], 0.0);
    moved[std::size_t(s.site - 3)] = moved[std::size_t(s.site)];
    moved[std::size_t(s.site)] = 0;
  }
  cpuDirectMap(l, atoms, moved, directOptions(true, box), onOxygen);
  ASSERT_EQ(dx.values.size(), sites.size());
  EXPECT_LT(relRms(dx.values, sites), tol::kDxRoundTripRel);
  const double apart = relRms(onOxygen, sites);
  std::printf("[ info ] TIP4P-Ew map: with M's charge on O instead, relative RMS difference %.3f\n", apart);
  EXPECT_GT(apart, 100 * tol::kDxRoundTripRel);
}

/// Rigid TIP4P-Ew conserves energy on the CPU: from a state after 0.2 ps of Langevin at 300 K,
/// 0.2 ps of velocity Verlet at 2 fs and at 1 fs. The energy error of the scheme is second order,
/// so halving the step divides its fluctuation by about 4 (measured 4.07); a site force not the
/// gradient of the energy (spread wrong, or not at all) leaves an error that does not scale so.
TEST(VirtualSiteRuns, RigidTip4pewConservesEnergyOnTheCpu) {
  const Config c = tip4pewConfig("cpu");
  const faraday::Setup setup = buildSetup(c);
  const State state = warmedState(c, setup, 100);
  const double coarse = fluctuationRms(nveTotalEnergies(c, setup.system, state, 0.002, 100, 1));
  const double fine = fluctuationRms(nveTotalEnergies(c, setup.system, state, 0.001, 200, 1));
  std::printf("[ info ] rigid TIP4P-Ew NVE on the CPU, 0.2 ps: energy fluctuation %.4g kJ/mol at 2 fs, %.4g at 1 fs "
              "(ratio %.3f)\n", coarse, fine, coarse / fine);
  EXPECT_GT(coarse / fine, tol::kVerletScalingMin);
  EXPECT_LT(coarse / fine, tol::kVerletScalingMax);
}

/// A short run of the TIP4P-Ew box on the GPU against the CPU's from the same start: the float
/// forces keep the GPU's trajectory within the bound of the CPU's over 20 steps.
TEST(VirtualSiteRunsGpu, AShortTip4pewRunFollowsTheCpu) {
  FARADAY_REQUIRE_GPU();
  State start;
  std::vector<State> end(2);
  std::vector<double> potential(2);
  for (int k = 0; k < 2; ++k) {
    const Config c = tip4pewConfig(k == 0 ? "cpu" : "cuda");
    faraday::Setup setup = buildSetup(c);
    constrainInitialState(c, setup.system, setup.state, 300);
    auto backend = makeBackend(c, setup.system, nullptr);
    backend->setState(setup.state, {});
    backend->computeForces();
    for (int s = 0; s < 20; ++s) backend->advance(s == 19);
    potential[std::size_t(k)] = backend->energies().potential();
    backend->getState(end[std::size_t(k)]);
    EXPECT_LT(largestSiteError(setup.system, end[std::size_t(k)]), tol::kGpuVirtualSitePositionNm);
  }
  double worst = 0;
  for (std::size_t a = 0; a < end[0].positions.size(); ++a)
    worst = std::fmax(worst, std::sqrt(norm2(end[1].positions[a] - end[0].positions[a])));
  std::printf("[ info ] TIP4P-Ew, 20 steps: GPU positions within %.3g nm of the CPU's, potential %.6f vs %.6f\n",
              worst, potential[1], potential[0]);
  EXPECT_LT(worst, tol::kGpuSiteWaterPositionNm);
  EXPECT_NEAR(potential[1], potential[0], tol::kGromacsGpuNonbondedRel * std::fabs(potential[0]));
}

/// Rigid TIP4P-Ew in NVE on the GPU: 5 ps of velocity Verlet at 2 fs after 2 ps of Langevin
/// drift by less than rigid SPC/E's bound (the site adds no degree of freedom and no new error:
/// its force is spread exactly, in fixed point). On the CPU the same box drifted -4.0e-5
/// kJ/mol/ps per atom over 2 ps at 2 fs after 2 ps of Langevin, rigid SPC/E -2.0e-4.
TEST(VirtualSiteRunsGpu, RigidTip4pewConservesEnergy) {
  FARADAY_REQUIRE_GPU();
  const Config c = tip4pewConfig("cuda");
  const double drift = nveDriftPerAtom(c, buildSetup(c), 1000, 2500, 10);
  std::printf("[ info ] rigid TIP4P-Ew NVE on the GPU, 5 ps at 2 fs: drift %.3g kJ/mol/ps per atom\n", drift);
  EXPECT_LT(std::fabs(drift), tol::kRigidWaterNveDriftPerAtom);
}

}  // namespace
}  // namespace faraday::test
