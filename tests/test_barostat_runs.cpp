// The barostat through the real executable and on water: bad input, the energy log's volume
// and density, the timing table, restarts that continue bit for bit with rigid water and the
// barostat, the examples, and the density of SPC/E water (GPU) and its approach (CPU).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstring>

#include "core/Units.h"
#include "engine/backends/BackendFactory.h"
#include "engine/config/LoadConfig.h"
#include "engine/run/Barostat.h"
#include "engine/run/Checkpoint.h"
#include "engine/setup/ConstraintSetup.h"
#include "engine/setup/SystemSetup.h"
#include "integrators/BoxScaling.h"
#include "tests/EngineTestSupport.h"
#include "tests/Tolerances.h"

namespace faraday::test {
namespace {

/// A config of tests/data/gromacs/spce_water (884 rigid SPC/E waters, 3 nm box) with PME, the
/// dispersion correction, Langevin at `temperature` and the barostat at 1 bar every `interval`.
std::string waterConfig(const std::string& platform, double temperature, long long interval, long long steps) {
  const std::string folder = sourceDir() + "/tests/data/gromacs/spce_water";
  std::ostringstream s;
  s << "[system]\ncoordinates = " << folder << "/conf.gro\ntopology = " << folder << "/topol.top\n"
    << "temperature = " << temperature << "\n"
    << "[nonbonded]\ncutoff = 1.0\nbuffer = 0.1\ndispersion_correction = true\n"
    << "[electrostatics]\nmethod = pme\nfourier_spacing = 0.12\n"
    << "[integrator]\ntype = langevin\ndt = 0.002\ntemperature = " << temperature << "\nfriction = 1\nseed = 5\n"
    << "[barostat]\npressure = 1\ninterval = " << interval << "\n"
    << "[run]\nsteps = " << steps << "\nplatform = " << platform << "\nthreads = 2\nprogress_interval = 0\n"
    << "[output]\ndirectory = out\nenergy_interval = 10\ntrajectory_file =\ncheckpoint_interval = 1000\n";
  return s.str();
}

/// Density in g/mL of `system` in `box`.
double densityOf(const System& system, const Box& box) {
  double mass = 0;
  for (double m : system.mass) mass += m;
  return mass / box.volume() * units::kGramPerMlPerAmuNm3;
}

/// One clear line and exit 1 for each bad barostat setting; nothing written.
TEST(BarostatBadInput, OneLineEach) {
  TempDir dir;
  writeText(dir / "argon.gro", argonGro(3));
  writeText(dir / "sim.cfg", argonConfig(10, 0.7) + "[barostat]\npressure = 1\n");
  // Velocity Verlet without integrator.temperature: the barostat has no temperature.
  std::string verlet = argonConfig(10, 0.7) + "[barostat]\npressure = 1\n";
  verlet.replace(verlet.find("type = langevin\ndt = 0.004\ntemperature = 90\n"), 44, "type = verlet\ndt = 0.004\n");
  writeText(dir / "verlet.cfg", verlet);
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"--barostat.pressure=-1"}, "barostat.pressure"},
      {{"--barostat.pressure=nan"}, "barostat.pressure"},
      {{"--barostat.pressure=inf"}, "barostat.pressure"},
      {{"--barostat.interval=0"}, "barostat.interval"},
      {{"--config=verlet.cfg"}, "key 'integrator.temperature': required key is missing: the barostat's temperature"},
      {{"--integrator.temperature=0"}, "the barostat needs a temperature > 0 K"},
      {{"--nonbonded.mode=all-pairs", "--nonbonded.potential=gravity", "--gravity.softening=0.1",
        "--integrator.type=verlet"},
       "the barostat needs a periodic box (nonbonded.mode = cutoff)"},
  };
  for (const auto& [extra, message] : cases) {
    const bool other = extra.front() == "--config=verlet.cfg";
    std::vector<std::string> args = {"run", other ? "verlet.cfg" : "sim.cfg"};
    if (!other) args.insert(args.end(), extra.begin(), extra.end());
    const CommandResult r = runFaraday(dir.path(), args);
    EXPECT_EQ(r.exitCode, 1) << extra.front();
    EXPECT_HAS(r.err, message);
    EXPECT_EQ(lines(r.err).size(), 1u) << r.err;
    EXPECT_FALSE(fs::exists(dir / "out")) << extra.front();
  }
  // With velocity Verlet the barostat's temperature set explicitly is enough.
  const CommandResult ok = runFaraday(dir.path(), {"run", "verlet.cfg", "--integrator.temperature=90"});
  EXPECT_EQ(ok.exitCode, 0) << ok.err;
  // --help lists the keys with their defaults and units.
  const CommandResult help = runFaraday(dir.path(), {"run", "--help"});
  EXPECT_HAS(help.out, "barostat.pressure");
  EXPECT_HAS(help.out, "barostat.interval");
}

/// Argon under 1000 bar: the energy log gains the volume and density columns (the density is
/// the total mass over the volume), the box changes, and the timing table has the barostat's row.
TEST(BarostatRun, EnergyLogHasVolumeAndDensityAndTheTimingTableTheBarostat) {
  TempDir dir;
  writeText(dir / "argon.gro", argonGro(3));
  writeText(dir / "sim.cfg", argonConfig(200, 0.7) + "[barostat]\npressure = 1000\ninterval = 5\n");
  const CommandResult r = runFaraday(dir.path(), {"run", "sim.cfg"});
  ASSERT_EQ(r.exitCode, 0) << r.err;
  const std::vector<std::string> log = lines(readText(dir / "out" / "energy.csv"));
  EXPECT_HAS(log[0], ",\"Pressure (bar)\",\"Box Volume (nm^3)\",\"Density (g/mL)\"");
  const std::vector<double> volume = csvColumn(dir / "out" / "energy.csv", 15),
                            density = csvColumn(dir / "out" / "energy.csv", 16);
  ASSERT_EQ(volume.size(), 21u);
  const double mass = 108 * 39.948;
  for (std::size_t k = 0; k < volume.size(); ++k)
    EXPECT_NEAR(density[k], mass / volume[k] * 1.66053906660e-3, 1e-6 * density[k]);  // 1 amu/nm^3 = 1.6605e-3 g/mL
  EXPECT_NE(volume.front(), volume.back());
  EXPECT_HAS(r.out, "barostat");
  EXPECT_HAS(r.out, "Barostat: 40 volume moves");
}

/// Rigid SPC/E with the barostat every 5 steps: 40 steps in one run and 20 + 20 with a restart
/// give the same checkpoint (positions, velocities, box, barostat state) and final.gro.
TEST(BarostatRun, RestartWithRigidWaterAndBarostatIsBitwiseTheUninterruptedRun) {
  TempDir dir;
  writeText(dir / "sim.cfg", waterConfig("cpu", 300, 5, 40));
  const auto run = [&](const std::string& out, long long steps, std::vector<std::string> extra = {}) {
    std::vector<std::string> args = {"run", "sim.cfg", "--output.directory=" + out,
                                     "--run.steps=" + std::to_string(steps)};
    args.insert(args.end(), extra.begin(), extra.end());
    return runFaraday(dir.path(), args);
  };
  const CommandResult full = run("full", 40), half = run("split", 20);
  ASSERT_EQ(full.exitCode, 0) << full.err;
  ASSERT_EQ(half.exitCode, 0) << half.err;
  const CommandResult rest = run("split", 40, {"--restart", "split/state.chk"});
  ASSERT_EQ(rest.exitCode, 0) << rest.err;
  const Checkpoint a = readCheckpoint(dir / "full" / "state.chk", 2652, ""),
                   b = readCheckpoint(dir / "split" / "state.chk", 2652, "");
  EXPECT_EQ(b.step, 40);
  EXPECT_EQ(a.barostat.attempts, 8);
  EXPECT_EQ(b.barostat.attempts, 8);
  EXPECT_EQ(a.barostat.accepted, b.barostat.accepted);
  EXPECT_EQ(a.barostat.maxVolumeChange, b.barostat.maxVolumeChange);
  EXPECT_GT(a.barostat.accepted, 0);
  EXPECT_EQ(a.box.diagonal(), b.box.diagonal());
  EXPECT_EQ(std::memcmp(a.positions.data(), b.positions.data(), a.positions.size() * sizeof(Vec3)), 0);
  EXPECT_EQ(std::memcmp(a.velocities.data(), b.velocities.data(), a.velocities.size() * sizeof(Vec3)), 0);
  EXPECT_EQ(readText(dir / "full" / "final.gro"), readText(dir / "split" / "final.gro"));
  // The energy logs agree on every column but the speed (column 7).
  const auto withoutSpeed = [](const fs::path& file) {
    std::vector<std::string> rows;
    for (const std::string& row : lines(readText(file))) {
      std::vector<std::string> f;
      std::stringstream s(row);
      for (std::string x; std::getline(s, x, ',');) f.push_back(x);
      if (f.size() > 6) f[6] = "";
      std::string joined;
      for (const std::string& x : f) joined += x + ",";
      rows.push_back(joined);
    }
    return rows;
  };
  EXPECT_EQ(withoutSpeed(dir / "full" / "energy.csv"), withoutSpeed(dir / "split" / "energy.csv"));
  // Another pressure makes another trajectory: such a restart is refused.
  const CommandResult other = run("other", 40, {"--restart", "split/state.chk", "--barostat.pressure=2"});
  EXPECT_EQ(other.exitCode, 1);
  EXPECT_HAS(other.err, "barostat.pressure");
}

/// `setup`'s water expanded by 3% in volume (molecules moved whole): density 3% below its own.
void expandWater(faraday::Setup& setup, State& state, double volumeFactor) {
  const Box from = setup.system.box;
  const double s = std::cbrt(volumeFactor);
  const Box to = Box::rectangular(from.a.x * s, from.b.y * s, from.c.z * s);
  scaleMolecules(state.positions, setup.system.mass, moleculeStarts(setup.system.topology, int(setup.system.size())),
                 boxScaling(from, to));
  state.box = to;
}

/// The CPU's short check of the machinery on water: SPC/E expanded to 0.955 g/mL (pressure of
/// about -700 bar) is compressed by the barostat towards its density within 200 steps (20
/// moves at 1 bar): it gains at least 1.5% (equilibrium is ~0.99..1.0 g/mL).
TEST(BarostatWater, ExpandedWaterIsCompressedTowardsItsDensity) {
  TempDir dir;
  writeText(dir / "sim.cfg", waterConfig("cpu", 300, 10, 200));
  const Config c = loadConfig(dir / "sim.cfg", {});
  faraday::Setup setup = buildSetup(c);
  State state = setup.state;
  constrainInitialState(c, setup.system, state, 300);
  expandWater(setup, state, 1.03);
  const double start = densityOf(setup.system, state.box);
  auto backend = makeBackend(c, setup.system, nullptr);
  backend->setState(state, {});
  backend->computeForces();
  MonteCarloBarostat barostat({1, 300, 10, 5, 1.0}, 884);
  Box box = state.box;
  for (int s = 1; s <= 200; ++s) {
    backend->advance(s % 10 == 0);
    if (s % 10 == 0) barostat.attempt(*backend, box);
  }
  const double end = densityOf(setup.system, box);
  std::printf("[ info ] expanded SPC/E on the CPU: density %.4f -> %.4f g/mL; %s", start, end,
              barostat.summary().c_str());
  EXPECT_GT(end, start * 1.015);
  EXPECT_LT(end, 1.02);
}

/// SPC/E at 298 K and 1 bar: 0.994 g/cm^3 (C. Vega and J. L. F. Abascal, "Simulating water
/// with rigid non-polarizable models: a general perspective", Phys. Chem. Chem. Phys. 13,
/// 19663 (2011), Table 2; PME and the long-range LJ correction). 884 waters, 2 fs, 50 ps to
/// equilibrate, then 300 ps sampled every 0.2 ps; the error of the mean from 10 blocks of 30 ps
/// (the volume of this box forgets in a few ps).
TEST(BarostatWaterGpu, SpceDensityMatchesThePublishedValue) {
  FARADAY_REQUIRE_GPU();
  TempDir dir;
  writeText(dir / "sim.cfg", waterConfig("cuda", 298, 25, 0));
  const Config c = loadConfig(dir / "sim.cfg", {});
  faraday::Setup setup = buildSetup(c);
  State state = setup.state;
  constrainInitialState(c, setup.system, state, 298);
  auto backend = makeBackend(c, setup.system, nullptr);
  backend->setState(state, {});
  backend->computeForces();
  MonteCarloBarostat barostat({1, 298, 25, 5, 1.0}, 884);
  Box box = state.box;
  std::vector<double> density;
  const int equilibrate = 25000, production = 150000;
  for (int s = 1; s <= equilibrate + production; ++s) {
    const bool move = s % 25 == 0;
    backend->advance(move);
    if (move) barostat.attempt(*backend, box);
    if (s > equilibrate && s % 100 == 0) density.push_back(densityOf(setup.system, box));
  }
  const std::size_t per = density.size() / 10;
  std::vector<double> means;
  for (int k = 0; k < 10; ++k) {
    double sum = 0;
    for (std::size_t i = 0; i < per; ++i) sum += density[std::size_t(k) * per + i];
    means.push_back(sum / double(per));
  }
  double mean = 0, var = 0;
  for (double m : means) mean += m / 10;
  for (double m : means) var += (m - mean) * (m - mean) / 9;
  const double error = std::sqrt(var / 10);
  std::printf("[ info ] SPC/E 298 K, 1 bar on the GPU: %.4f +- %.4f g/mL (published 0.994); %s", mean, error,
              barostat.summary().c_str());
  EXPECT_LT(error, 0.25 * tol::kSpceDensityRelative * 0.994);
  EXPECT_NEAR(mean, 0.994, tol::kSpceDensityRelative * 0.994);
}

/// The examples with a barostat run on the CPU: systems/water (rigid SPC/E, 2 fs) and
/// systems/protein/npt.cfg (rigid water, h-bonds, 4 fs with 1.5 amu hydrogens), short runs
/// with the barostat active every few steps.
TEST(BarostatExamples, WaterAndProteinNptRunOnTheCpu) {
  TempDir dir;
  const std::vector<std::pair<std::string, std::vector<std::string>>> examples = {
      {"systems/water/sim.cfg", {"--run.steps=100", "--barostat.interval=10", "--output.energy_interval=10"}},
      {"systems/protein/npt.cfg", {"--run.steps=20", "--barostat.interval=5", "--output.energy_interval=5"}},
  };
  for (const auto& [example, extra] : examples) {
    std::vector<std::string> args = {"run", sourceDir() + "/" + example, "--run.platform=cpu", "--run.threads=2",
                                     "--run.progress_interval=0", "--output.directory=" + (dir / "out").string()};
    args.insert(args.end(), extra.begin(), extra.end());
    const CommandResult r = runFaraday(dir.path(), args);
    ASSERT_EQ(r.exitCode, 0) << example << ": " << r.err;
    EXPECT_HAS(r.out, "Barostat: ");
    EXPECT_HAS(lines(readText(dir / "out" / "energy.csv"))[0], "\"Density (g/mL)\"");
    fs::remove_all(dir / "out");
  }
}

}  // namespace
}  // namespace faraday::test
