// systems/protein: adenylate kinase with CHARMM27 in TIP3P and NaCl runs from its config, logs
// its bonded terms, and its trajectory opens in MDAnalysis with its own GROMACS topology; its
// map.cfg maps that trajectory, and the shipped protein configs map with pmepot.
#include <gtest/gtest.h>

#include <sys/wait.h>

#include <cstdlib>
#include <string>

#include "engine/config/LoadConfig.h"
#include "tests/EngineTestSupport.h"

namespace faraday::test {
namespace {

TEST(ProteinExample, RunsAndItsTrajectoryOpensInMDAnalysisWithItsTopology) {
  TempDir dir;
  const std::string example = sourceDir() + "/systems/protein";
  const CommandResult r =
      runFaraday(dir.path(), {"run", example + "/sim.cfg", "--run.steps=2", "--run.platform=cpu", "--run.threads=2",
                              "--output.trajectory_interval=1", "--output.energy_interval=1",
                              "--output.directory=" + (dir / "out").string(), "--run.progress_interval=0"});
  ASSERT_EQ(r.exitCode, 0) << r.err;
  const std::vector<std::string> log = lines(readText(dir / "out" / "energy.csv"));
  ASSERT_EQ(log.size(), 4u);  // the header and steps 0, 1, 2
  for (const char* column : {"\"Bond (kJ/mole)\"", "\"U-B (kJ/mole)\"", "\"Proper Dih. (kJ/mole)\"",
                             "\"Improper Dih. (kJ/mole)\"", "\"CMAP Dih. (kJ/mole)\"", "\"LJ-14 (kJ/mole)\"",
                             "\"Coulomb-14 (kJ/mole)\""})
    EXPECT_NE(log[0].find(column), std::string::npos) << column;

  // MDAnalysis reads the topology (its ITP parser, includes beside it) and the XTC frames.
  const std::string script =
      "import sys\n"
      "try:\n"
      "    import MDAnalysis as mda\n"
      "except ImportError:\n"
      "    sys.exit(77)\n"
      "import warnings\n"
      "warnings.filterwarnings('ignore')\n"
      "u = mda.Universe(sys.argv[1] + '/topol.top', sys.argv[2], topology_format='ITP', include_dir=sys.argv[1])\n"
      "print(u.atoms.n_atoms, len(u.trajectory), len(u.select_atoms('protein')), len(u.atoms.bonds))\n";
  writeText(dir / "check.py", script);
  const std::string command = "python3 " + shellQuote((dir / "check.py").string()) + " " + shellQuote(example) + " " +
                              shellQuote((dir / "out" / "traj.xtc").string()) + " > " +
                              shellQuote((dir / "check.out").string()) + " 2>&1";
  const int status = std::system(command.c_str());
  const int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  if (code == 77) GTEST_SKIP() << "MDAnalysis is not importable (pip install MDAnalysis)";
  ASSERT_EQ(code, 0) << readText(dir / "check.out");
  // 27,266 atoms, frames at steps 0, 1 and 2, the 3,341 protein atoms, every bond of the
  // topology (the water's O-H and H-H bonds of -DFLEXIBLE included).
  EXPECT_EQ(readText(dir / "check.out"), "27266 3 3341 19279\n");
}

/// systems/protein/map.cfg names the trajectory that sim.cfg writes beside it (pmepot, 0.1 nm,
/// OpenDX), passes the dry run on a 2-frame trajectory of a 2-step run, and maps it.
TEST(ProteinExample, TheShippedMapConfigMapsTheRunsTrajectory) {
  const fs::path example = fs::path(sourceDir()) / "systems" / "protein";
  const Config sim = loadConfig(example / "sim.cfg", {});
  const Config map = loadConfig(example / "map.cfg", {});
  EXPECT_TRUE(map.warnings.empty()) << map.warnings.front();
  EXPECT_EQ(fs::path(map.map.trajectory), (example / sim.output.trajectoryFile).lexically_normal());
  EXPECT_EQ(map.map.method, MapMethod::PmePot);
  EXPECT_DOUBLE_EQ(map.map.spacing, 0.1);
  EXPECT_EQ(fs::path(map.map.file).extension(), ".dx");
  EXPECT_EQ(map.system.topology, sim.system.topology);
  EXPECT_EQ(map.system.defines, sim.system.defines);

  TempDir dir;
  const CommandResult run = runFaraday(
      dir.path(), {"run", (example / "sim.cfg").string(), "--run.steps=2", "--run.platform=cpu", "--run.threads=2",
                   "--output.trajectory_interval=2", "--output.directory=out", "--run.progress_interval=0"});
  ASSERT_EQ(run.exitCode, 0) << run.err;
  const std::vector<std::string> args = {"map", (example / "map.cfg").string(), "--map.trajectory=out/traj.xtc",
                                         "--output.directory=out", "--run.platform=cpu", "--run.threads=2",
                                         "--run.progress_interval=0"};
  std::vector<std::string> dry = args;
  dry.push_back("--dry-run");
  const CommandResult check = runFaraday(dir.path(), dry);
  ASSERT_EQ(check.exitCode, 0) << check.err;
  EXPECT_TRUE(check.err.empty()) << check.err;
  EXPECT_HAS(check.out, ", 2 frames of 27266 atoms");
  EXPECT_HAS(check.out, "Map: pmepot on ");
  EXPECT_FALSE(fs::exists(dir / "out" / "potential.dx"));
  const CommandResult r = runFaraday(dir.path(), args);
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_HAS(r.out, "potential map: 2 frames x 27266 atoms");
  EXPECT_HAS(readText(dir / "out" / "potential.dx"), "object 1 class gridpositions counts ");
}

/// The shipped protein configs' maps are pmepot's smooth potential, not pme's, which is
/// singular at the atoms.
TEST(ProteinExample, ShippedMapsArePmepot) {
  for (const char* cfg : {"protein/sim.cfg", "protein/npt.cfg", "protein/map.cfg", "protein_dodecahedron/sim.cfg",
                          "protein_dodecahedron/npt.cfg"})
    EXPECT_EQ(loadConfig(fs::path(sourceDir()) / "systems" / cfg, {}).map.method, MapMethod::PmePot) << cfg;
}

}  // namespace
}  // namespace faraday::test
