// Bad topologies through `faraday run`: one line naming the file and line (or the key), a
// non-zero exit and nothing written; differing atom names only warn, as grompp does.
#include <gtest/gtest.h>

#include <string>

#include "tests/EngineTestSupport.h"

namespace faraday::test {
namespace {

/// Two flexible SPC/E waters: the topology's pieces, so that each case changes one.
struct WaterFiles {
  std::string defaults = "[ defaults ]\n1 2 no 1.0 1.0\n";
  std::string atomtypes = "[ atomtypes ]\nOW 8 15.9994 0 A 0.316557 0.650629\nHW 1 1.008 0 A 0 0\n";
  std::string bondtypes;
  std::string atoms = "[ atoms ]\n1 OW 1 SOL OW 1 -0.8476\n2 HW 1 SOL HW1 1 0.4238\n3 HW 1 SOL HW2 1 0.4238\n";
  std::string bonds = "[ bonds ]\n1 2 1 0.1 345000\n1 3 1 0.1 345000\n";
  std::string molecules = "[ molecules ]\nSOL 2\n";
  std::string head;  ///< lines before everything (includes)
  std::string atomNames[3] = {"OW", "HW1", "HW2"};
  int waters = 2;

  std::string top() const {
    return head + defaults + atomtypes + bondtypes + "[ moleculetype ]\nSOL 2\n" + atoms + bonds +
           "[ angles ]\n2 1 3 1 109.47 383\n[ system ]\nwater\n" + molecules;
  }
  std::string gro() const {
    std::string g = "two waters\n" + std::to_string(3 * waters) + "\n";
    char line[128];
    for (int w = 0; w < waters; ++w)
      for (int k = 0; k < 3; ++k) {
        const double x = 1.0 + w * 0.5 + (k == 1 ? 0.1 : 0.0), y = 1.0 + (k == 2 ? 0.1 : 0.0);
        std::snprintf(line, sizeof line, "%5d%-5s%5s%5d%8.3f%8.3f%8.3f\n", w + 1, "SOL", atomNames[k].c_str(),
                      3 * w + k + 1, x, y, 1.0);
        g += line;
      }
    return g + "   3.00000   3.00000   3.00000\n";
  }
};

class TopologyBadInput : public ::testing::Test {
 protected:
  /// Writes the files and runs 2 steps into out/.
  CommandResult run(const WaterFiles& f) {
    writeText(dir / "topol.top", f.top());
    writeText(dir / "conf.gro", f.gro());
    return runTopologySteps(dir.path());
  }
  /// One error line naming `where` and saying `what`, a non-zero exit, no output folder.
  void expectRefused(const CommandResult& r, const std::string& where, const std::string& what) {
    expectRefusedRun(r, dir.path(), where, what);
  }
  TempDir dir;
};

TEST_F(TopologyBadInput, TheWatersRun) {
  const CommandResult r = run(WaterFiles{});
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_NE(readText(dir / "out" / "energy.csv").find("\"Bond (kJ/mole)\",\"Angle (kJ/mole)\""), std::string::npos);
}

TEST_F(TopologyBadInput, AMissingInclude) {
  WaterFiles f;
  f.head = "#include \"nowhere.itp\"\n";
  expectRefused(run(f), "topol.top:1", "nowhere.itp");
}

TEST_F(TopologyBadInput, AnUnknownAtomType) {
  WaterFiles f;
  f.atoms = "[ atoms ]\n1 OX 1 SOL OW 1 -0.8476\n2 HW 1 SOL HW1 1 0.4238\n3 HW 1 SOL HW2 1 0.4238\n";
  expectRefused(run(f), "topol.top:", "OX");
}

TEST_F(TopologyBadInput, AMissingBondedParameter) {
  WaterFiles f;
  f.bonds = "[ bonds ]\n1 2 1\n1 3 1 0.1 345000\n";  // no [ bondtypes ] for OW-HW
  expectRefused(run(f), "topol.top:", "OW");
}

TEST_F(TopologyBadInput, ABondToAnAtomThatDoesNotExist) {
  WaterFiles f;
  f.bonds = "[ bonds ]\n1 2 1 0.1 345000\n1 4 1 0.1 345000\n";
  expectRefused(run(f), "topol.top:", "4");
}

TEST_F(TopologyBadInput, MoleculeCountsThatDoNotMatchTheCoordinates) {
  WaterFiles f;
  f.molecules = "[ molecules ]\nSOL 3\n";
  const CommandResult r = run(f);
  expectRefused(r, "conf.gro", "topol.top");
  EXPECT_NE(r.err.find("9"), std::string::npos) << r.err;  // the topology's atom count
}

TEST_F(TopologyBadInput, ANetChargeFarFromAnInteger) {
  WaterFiles f;
  f.atoms = "[ atoms ]\n1 OW 1 SOL OW 1 -0.8\n2 HW 1 SOL HW1 1 0.4238\n3 HW 1 SOL HW2 1 0.4238\n";
  expectRefused(run(f), "topol.top:", "charge");
}

TEST_F(TopologyBadInput, AtomsSectionsBesideATopologyAreAnError) {
  WaterFiles f;
  writeText(dir / "topol.top", f.top());
  writeText(dir / "conf.gro", f.gro());
  writeText(dir / "sim.cfg", "[system]\ncoordinates = conf.gro\ntopology = topol.top\n[atom.OW]\nmass = 16\n"
                             "charge = -0.8\nsigma = 0.3\nepsilon = 0.6\n[output]\ndirectory = out\n");
  const CommandResult r = runFaraday(dir.path(), {"run", "sim.cfg"});
  expectRefused(r, "system.topology", "[atom.OW]");
}

TEST_F(TopologyBadInput, DifferingAtomNamesOnlyWarn) {
  WaterFiles f;
  f.atomNames[1] = "H1";
  const CommandResult r = run(f);
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_NE(r.err.find("warning"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("H1"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace faraday::test
