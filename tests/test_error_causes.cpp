// Errors name their real cause: a time step too long for the starting state (not "the initial
// state is already bad"), constraints no positions satisfy (not "time step too long"), a
// negative LJ epsilon (at its line, not a non-finite energy), a topology that is empty, a
// .tpr or an AMBER prmtop, a run log on a full device (ENOSPC, not a stale errno).
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "engine/formats/gromacs/GromacsTopology.h"
#include "tests/EngineTestSupport.h"
#include "tests/TopologyTestSupport.h"

namespace faraday::test {
namespace {

/// A molecule type "M" of `atoms` then `sections`, `count` copies in [ molecules ].
std::string molecule(const std::string& atoms, const std::string& sections, const std::string& count = "1") {
  return std::string(kSmallForceField) + "[ moleculetype ]\nM 3\n[ atoms ]\n" + atoms + sections +
         "[ system ]\ntest\n[ molecules ]\nM " + count + "\n";
}

const char* kThreeAtoms =
    "1 A 1 M A1 1 0.0 12.0\n"
    "2 A 1 M A2 1 0.0 12.0\n"
    "3 A 1 M A3 1 0.0 12.0\n";

TEST_F(ArgonFolderTest, ATimeStepTooLongForTheStartIsNamedAsSuch) {
  const CommandResult r = runFaraday(dir.path(), {"run", "sim.cfg", "--integrator.dt=1"});
  EXPECT_NE(r.exitCode, 0);
  EXPECT_HAS(r.err, "faraday: error: integrator.dt = 1 ps is too long for the state at step 0 (a time step below ");
  EXPECT_HAS(r.err, "runaway: one step would move a particle ");
  // The step it names keeps the fastest argon atom (~0.5 nm/ps at 90 K) within 0.1 nm.
  const std::size_t at = r.err.find("a time step below ");
  ASSERT_NE(at, std::string::npos);
  const double longest = std::stod(r.err.substr(at + 18));
  EXPECT_GT(longest, 0.05);
  EXPECT_LT(longest, 1.0);
  EXPECT_EQ(r.err.find("initial state is already bad"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(dir / "out" / "energy.csv"));
}

TEST(ErrorCauses, ConstraintsThatMakeNoTriangleAreRefusedAtTheirLine) {
  const std::string top =
      molecule(kThreeAtoms, "[ constraints ]\n1 2 1 0.1\n2 3 1 0.1\n1 3 1 0.5\n");
  const std::string e = topologyError({{"t.top", top}});
  EXPECT_HAS(e, "t.top:" + std::to_string(lineOf(top, "1 3 1 0.5")) + ": the constraints of atoms 1, 3 and 2");
  EXPECT_HAS(e, "(0.5, 0.1 and 0.1 nm) cannot all hold");
  const std::string water = molecule(kThreeAtoms, "[ settles ]\n1 1 0.1 0.3\n");
  EXPECT_HAS(topologyError({{"w.top", water}}), "w.top:" + std::to_string(lineOf(water, "1 1 0.1 0.3")) +
                                                    ": [ settles ] distances d(O-H) = 0.1 nm and d(H-H) = 0.3 nm make no water");
}

TEST(ErrorCauses, ANegativeEpsilonIsRefusedAtItsLine) {
  std::string top = molecule(kThreeAtoms, "");
  top.replace(top.find("B 8 16.0 0.0 A 0.3 0.5"), 22, "B 8 16.0 0.0 A 0.3 -0.5");
  EXPECT_HAS(topologyError({{"t.top", top}}),
             "t.top:" + std::to_string(lineOf(top, "-0.5")) + ": atom type B: negative epsilon -0.5 kJ/mol (must be >= 0)");
  const std::string params = molecule(kThreeAtoms, "").insert(std::string(kSmallForceField).size(),
                                                               "[ nonbond_params ]\nA B 1 0.3 -1\n");
  EXPECT_HAS(topologyError({{"p.top", params}}), "p.top:" + std::to_string(lineOf(params, "A B 1 0.3 -1")) +
                                                     ": [ nonbond_params ] of A and B: negative epsilon -1 kJ/mol");
}

TEST(ErrorCauses, EmptyBinaryAndAmberTopologiesNameTheFileAndWhatItIs) {
  TempDir dir;
  writeText(dir / "empty.top", "; nothing but a comment\n");
  EXPECT_EQ(errorOf([&] { readGromacsTopology(dir / "empty.top", {}); }),
            (dir / "empty.top").string() + ": the topology is empty: no directive in the lines read (only comments, blank lines or skipped regions)");
  writeText(dir / "run.tpr", std::string("\0\0\0\x0dVERSION 2022.5\0\0", 20));
  EXPECT_HAS(errorOf([&] { readGromacsTopology(dir / "run.tpr", {}); }),
             (dir / "run.tpr").string() + ": this is a binary GROMACS run input (.tpr), not a .top topology");
  writeText(dir / "sys.prmtop", "%VERSION  VERSION_STAMP = V0001.000  DATE = 01/01/26\n%FLAG TITLE\n%FORMAT(20a4)\n");
  EXPECT_HAS(errorOf([&] { readGromacsTopology(dir / "sys.prmtop", {}); }),
             (dir / "sys.prmtop").string() + ": this is an AMBER prmtop, not a GROMACS .top topology");
}

TEST_F(ArgonFolderTest, ARunLogOnAFullDeviceSaysTheDiskIsFull) {
  if (::mknod((dir / "full").c_str(), S_IFCHR | 0666, ::makedev(1, 7)) != 0)
    GTEST_SKIP() << "mknod is not permitted here (" << std::strerror(errno) << ")";
  const CommandResult r = runFaraday(dir.path(), {"run", "sim.cfg", "--output.log_file=" + (dir / "full").string()});
  EXPECT_NE(r.exitCode, 0);
  EXPECT_HAS(r.err, (dir / "full").string() + ": write failed: No space left on device");
  EXPECT_EQ(r.err.find("Is a directory"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace faraday::test
