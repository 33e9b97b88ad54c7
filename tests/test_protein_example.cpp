// systems/protein: adenylate kinase with CHARMM27 in TIP3P and NaCl runs from its config, logs
// its bonded terms, and its trajectory opens in MDAnalysis with its own GROMACS topology.
#include <gtest/gtest.h>

#include <sys/wait.h>

#include <cstdlib>
#include <string>

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

}  // namespace
}  // namespace faraday::test
