// Bad input through the real executable: a one-line error naming the file and line or the
// key, a non-zero exit code, and no output file at all.
#include <gtest/gtest.h>

#include <limits>

#include "engine/formats/PdbFile.h"
#include "engine/formats/TextParse.h"
#include "engine/run/Checkpoint.h"
#include "engine/run/Runaway.h"
#include "tests/EngineTestSupport.h"

namespace faraday::test {
namespace {

class BadInput : public ::testing::Test {
 protected:
  void SetUp() override {
    gro = argonGro(3);  // 108 atoms, box 1.7226 nm
    config = argonConfig();
  }
  /// Writes the inputs, runs `faraday run sim.cfg EXTRA`, and checks the common contract:
  /// exit code 1, one "faraday: error:" line on stderr, nothing in the output folder.
  CommandResult runExpectingError(const std::vector<std::string>& extra = {}) {
    if (!gro.empty()) writeText(dir / "argon.gro", gro);
    writeText(dir / "sim.cfg", config);
    std::vector<std::string> args = {"run", "sim.cfg"};
    args.insert(args.end(), extra.begin(), extra.end());
    CommandResult r = runFaraday(dir.path(), args);
    EXPECT_EQ(r.exitCode, 1) << r.err;
    EXPECT_EQ(r.err.rfind("faraday: error: ", 0), 0u) << r.err;
    EXPECT_EQ(lines(r.err).size(), 1u) << r.err;
    EXPECT_FALSE(fs::exists(dir / "out")) << "an output was created";
    return r;
  }
  /// The gro text with atom line `atom` (0-based) replaced.
  void replaceAtomLine(std::size_t atom, const std::string& line) {
    std::vector<std::string> v = lines(gro);
    v.at(atom + 2) = line;
    gro = joinLines(v);
  }
  std::string groAt(long line) const { return (dir / "argon.gro").string() + ":" + std::to_string(line) + ": "; }
  std::string cfgAt(const std::string& needle) const {
    // The config file is named as given on the command line.
    return "sim.cfg:" + std::to_string(lineOf(config, needle)) + ": ";
  }

  TempDir dir;
  std::string gro, config;
};

TEST_F(BadInput, NonNumericGroCoordinate) {
  std::string line = lines(gro)[5];
  line.replace(28, 8, "   1.x2a");
  replaceAtomLine(3, line);
  const CommandResult r = runExpectingError();
  EXPECT_HAS(r.err, groAt(6) + "non-numeric y coordinate: '   1.x2a'");
}

TEST_F(BadInput, MalformedGroAtomLine) {
  replaceAtomLine(10, "    1AR      AR   11   0.1");
  EXPECT_HAS(runExpectingError().err, groAt(13) + "atom line too short");
}

TEST_F(BadInput, TruncatedGro) {
  std::vector<std::string> v = lines(gro);
  v.resize(52);
  gro = joinLines(v);
  EXPECT_HAS(runExpectingError().err, groAt(53) + "truncated: the file ends after 50 of 108 atoms");
}

TEST_F(BadInput, AtomCountTooLarge) {
  std::vector<std::string> v = lines(gro);
  v[1] = "  110";
  gro = joinLines(v);
  EXPECT_HAS(runExpectingError().err, groAt(111) + "wrong atom count: line 2 gives 110 atoms but the box line comes after 108");
}

TEST_F(BadInput, AtomCountTooSmall) {
  std::vector<std::string> v = lines(gro);
  v[1] = "  100";
  gro = joinLines(v);
  const CommandResult r = runExpectingError();
  EXPECT_HAS(r.err, groAt(103) + "expected the box line");
  EXPECT_HAS(r.err, "atom count on line 2");
}

TEST_F(BadInput, UnknownAtomName) {
  std::string line = lines(gro)[8];
  line.replace(10, 5, "   XE");
  replaceAtomLine(6, line);
  const CommandResult r = runExpectingError();
  EXPECT_HAS(r.err, groAt(9) + "unknown atom name 'XE'");
  EXPECT_HAS(r.err, "known: AR");
}

TEST_F(BadInput, ControlBytesFromTheFileAreEscapedInTheMessage) {
  std::string line = lines(gro)[8];
  line.replace(10, 5, "\x1b[2J\x07");
  replaceAtomLine(6, line);
  const CommandResult r = runExpectingError();
  EXPECT_HAS(r.err, groAt(9) + "unknown atom name '\\x1b[2J\\x07'");
  EXPECT_EQ(r.err.find('\x1b'), std::string::npos);
  EXPECT_EQ(r.err.find('\x07'), std::string::npos);
}

TEST_F(BadInput, NaNCoordinate) {
  std::string line = lines(gro)[2];
  line.replace(20, 8, "     nan");
  replaceAtomLine(0, line);
  EXPECT_HAS(runExpectingError().err, groAt(3) + "non-finite x coordinate");
}

TEST_F(BadInput, NonPositiveBox) {
  std::vector<std::string> v = lines(gro);
  v.back() = "   1.72260   0.00000   1.72260";
  gro = joinLines(v);
  EXPECT_HAS(runExpectingError().err, groAt(111) + "non-positive box length");
}

/// A box whose first vector leaves the x axis cannot be brought to the reduced triclinic form.
TEST_F(BadInput, BoxThatCannotBeReduced) {
  std::vector<std::string> v = lines(gro);
  v.back() = "   1.72260   1.72260   1.72260   0.50000   0.00000   0.00000   0.00000   0.00000   0.00000";
  gro = joinLines(v);
  EXPECT_HAS(runExpectingError().err, groAt(111) + "box '" + trimmed(v.back()) +
                                          "' cannot be brought to the reduced triclinic form: v1(y), v1(z) and v2(z) "
                                          "must be 0");
}

/// PDB CRYST1 angles that no cell has (alpha > beta + gamma): one line naming the record.
TEST_F(BadInput, Cryst1AnglesOfNoCell) {
  writeText(dir / "argon.gro", gro);
  std::string pdb = pdbText(readGro(dir / "argon.gro"));
  pdb.replace(pdb.find("CRYST1") + 33, 21, " 150.00  30.00  30.00");
  writeText(dir / "argon.pdb", pdb);
  config.replace(config.find("coordinates = argon.gro"), 23, "coordinates = argon.pdb");
  gro.clear();
  EXPECT_HAS(runExpectingError().err, (dir / "argon.pdb").string() + ":" + std::to_string(lineOf(pdb, "CRYST1")) +
                                          ": CRYST1 alpha 150, beta 30, gamma 30 degrees describe no cell");
}

TEST_F(BadInput, BoxTooLargeForItsVolume) {
  std::vector<std::string> v = lines(gro);
  v.back() = "   1e300   1e300   1e300";
  gro = joinLines(v);
  EXPECT_HAS(runExpectingError({"--dry-run"}).err, groAt(111) + "box '1e300   1e300   1e300' too large: its volume overflows");
}

/// A hexadecimal number is no number here (strtod would read 0x10 as 16), in the file and on
/// the command line, for every kind of number key.
TEST_F(BadInput, HexadecimalNumbersAreRejected) {
  EXPECT_HAS(runExpectingError({"--integrator.dt=0x10"}).err, "command line: key 'integrator.dt': not a number: '0x10'");
  EXPECT_HAS(runExpectingError({"--atom.AR.mass=0x28", "--dry-run"}).err, "key 'atom.AR.mass': not a number: '0x28'");
  EXPECT_HAS(runExpectingError({"--run.steps=0x10"}).err, "key 'run.steps': not an integer: '0x10'");
  config.replace(config.find("cutoff = 0.7"), 12, "cutoff = 0x1p-1");
  EXPECT_HAS(runExpectingError().err, cfgAt("cutoff = 0x1p-1") + "key 'nonbonded.cutoff': not a number: '0x1p-1'");
}

/// output.directory names an existing file: an error naming the key, from the dry run on.
TEST_F(BadInput, OutputDirectoryThatIsAFile) {
  writeText(dir / "taken", "");
  EXPECT_HAS(runExpectingError({"--output.directory=taken", "--dry-run"}).err,
             "command line: key 'output.directory': " + (dir / "taken").string() + " cannot be a folder: " +
                 (dir / "taken").string() + " is a file");
  config.replace(config.find("directory = out"), 15, "directory = taken/out");
  EXPECT_HAS(runExpectingError({"--dry-run"}).err,
             cfgAt("directory = taken/out") + "key 'output.directory': " + (dir / "taken" / "out").string() +
                 " cannot be a folder: " + (dir / "taken").string() + " is a file");
}

/// A PME grid derived from fourier_spacing is capped as a given one is, at load time (the dry
/// run too): the error names the key and the memory the grid would take.
TEST_F(BadInput, APmeGridTooLargeForMemoryNamesTheKey) {
  const std::vector<std::string> pme = {"--electrostatics.method=pme", "--atom.AR.charge=0"};
  std::vector<std::string> args = pme;
  args.insert(args.end(), {"--electrostatics.fourier_spacing=1e-6", "--dry-run"});
  EXPECT_HAS(runExpectingError(args).err, "key 'electrostatics.fourier_spacing': 1e-06 nm gives a PME grid of 1722600 x "
                                          "1722600 x 1722600 points for the 1.7226 x 1.7226 x 1.7226 nm box, which "
                                          "would take 81.8 EB of memory");
  args = pme;
  args.push_back("--electrostatics.grid=4096 4096 4096");
  EXPECT_HAS(runExpectingError(args).err, "key 'electrostatics.grid': 4096 x 4096 x 4096 points, which would take 1.1 TB "
                                          "of memory; a PME grid has at most 4096 points along an edge and 2e+09 in all");
  // Two atoms in a 1000 nm box at the default 0.12 nm.
  gro = "two\n    2\n    1AR      AR    1 100.000 100.000 100.000\n    2AR      AR    2 500.000 500.000 500.000\n"
        "1000.00000 1000.00000 1000.00000\n";
  EXPECT_HAS(runExpectingError(pme).err, "key 'electrostatics.fourier_spacing': 0.12 nm gives a PME grid of 8334 x 8334 x "
                                         "8334 points for the 1000 x 1000 x 1000 nm box, which would take 9.26 TB");
}

TEST_F(BadInput, NonNumericConfigValue) {
  config.replace(config.find("cutoff = 0.7"), 12, "cutoff = 0.7nm");
  EXPECT_HAS(runExpectingError().err, cfgAt("cutoff = 0.7nm") + "key 'nonbonded.cutoff': not a number: '0.7nm'");
}

TEST_F(BadInput, NegativeSigma) {
  config.replace(config.find("sigma = 0.3405"), 14, "sigma = -0.3405");
  EXPECT_HAS(runExpectingError().err, cfgAt("sigma = -0.3405") + "key 'atom.AR.sigma': must be >= 0 nm");
}

TEST_F(BadInput, NegativeEpsilon) {
  config.replace(config.find("epsilon = 0.99774"), 17, "epsilon = -0.99774");
  EXPECT_HAS(runExpectingError().err, cfgAt("epsilon = -0.99774") + "key 'atom.AR.epsilon': must be >= 0 kJ/mol");
}

TEST_F(BadInput, CutoffLongerThanHalfTheBox) {
  const CommandResult r = runExpectingError({"--nonbonded.cutoff=0.9"});
  EXPECT_HAS(r.err, "key 'nonbonded.cutoff': cutoff 0.9 nm must be shorter than half the shortest box edge (0.8613 nm)");
}

TEST_F(BadInput, MissingCoordinatesFile) {
  gro.clear();
  EXPECT_HAS(runExpectingError().err, (dir / "argon.gro").string() + ": coordinates file not found");
}

TEST_F(BadInput, MissingConfigFile) {
  const CommandResult r = runFaraday(dir.path(), {"run", "nothere.cfg"});
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_HAS(r.err, "faraday: error: nothere.cfg: config file not found");
}

TEST_F(BadInput, UnknownKeySuggestsTheClosestKey) {
  config.replace(config.find("[run]\n"), 6, "[run]\nstpes = 10\n");
  EXPECT_HAS(runExpectingError().err, cfgAt("stpes") + "unknown key 'run.stpes'; did you mean 'run.steps'?");
  config = argonConfig();
  EXPECT_HAS(runExpectingError({"--nonbonded.cutof=0.8"}).err,
             "command line: unknown key 'nonbonded.cutof'; did you mean 'nonbonded.cutoff'?");
}

TEST_F(BadInput, TwoOutputsWithTheSameNameAreRejectedNamingBothKeys) {
  CommandResult r = runExpectingError({"--output.energy_file=out.dat", "--output.trajectory_file=out.dat"});
  EXPECT_HAS(r.err, "command line: key 'output.trajectory_file': names " + (dir / "out" / "out.dat").string());
  EXPECT_HAS(r.err, "which is also the file of key 'output.energy_file'");
  r = runExpectingError({"--output.checkpoint_file=final.gro"});
  EXPECT_HAS(r.err, "command line: key 'output.checkpoint_file'");
  EXPECT_HAS(r.err, "key 'output.final_coordinates'");
  // The companions count too: the checkpoint's previous version and temporary file.
  r = runExpectingError({"--output.energy_file=state.chk.prev"});
  EXPECT_HAS(r.err, "key 'output.energy_file': names " + (dir / "out" / "state.chk.prev").string() +
                        ", which is also the previous version of key 'output.checkpoint_file'");
  r = runExpectingError({"--output.trajectory_file=../out/final.gro.tmp"});
  EXPECT_HAS(r.err, "the temporary file of key 'output.final_coordinates'");
  // Set in the file: the file and line are named.
  config += "energy_file = traj.dcd\n";
  EXPECT_HAS(runExpectingError().err, cfgAt("energy_file = traj.dcd") + "key 'output.energy_file': names ");
  config = argonConfig();
  // An output never overwrites an input.
  r = runExpectingError({"--output.directory=.", "--output.final_coordinates=argon.gro"});
  EXPECT_HAS(r.err, "which is also the input file of key 'system.coordinates'");
}

TEST_F(BadInput, AKeyGivenTwiceOnTheCommandLine) {
  EXPECT_HAS(runExpectingError({"--run.steps=10", "--run.steps", "20"}).err,
             "faraday: error: command line: key 'run.steps' is given twice");
}

/// A checkpoint with a NaN velocity does not pass a dry run.
TEST_F(BadInput, ACheckpointWithANonFiniteVelocityFailsTheDryRun) {
  writeText(dir / "argon.gro", gro);
  writeText(dir / "sim.cfg", config);
  Checkpoint c;
  c.box = Box::rectangular(1.7226, 1.7226, 1.7226);
  const std::vector<std::string> groLines = lines(gro);
  for (auto line = groLines.begin() + 2; line + 1 != groLines.end(); ++line) {
    c.positions.push_back({std::stod(line->substr(20, 8)), std::stod(line->substr(28, 8)), std::stod(line->substr(36, 8))});
    c.velocities.push_back({0, 0, 0});
  }
  c.velocities[7].y = std::numeric_limits<double>::quiet_NaN();
  writeCheckpoint(dir / "nan.chk", c);
  EXPECT_HAS(runExpectingError({"--dry-run", "--restart", "nan.chk"}).err,
             "faraday: error: nan.chk: checkpoint holds a non-finite velocity of atom 8");
}

/// A failed write says why, as the system gives it. (The trajectory's format follows its
/// extension: links named .dcd and .xtc lead to /dev/full.)
TEST_F(BadInput, WriteErrorsGiveTheSystemsReason) {
  writeText(dir / "argon.gro", gro);
  writeText(dir / "sim.cfg", config);
  std::vector<std::pair<std::string, std::string>> cases = {{"--output.energy_file=/dev/full", "/dev/full"}};
  for (const char* name : {"full.dcd", "full.xtc"}) {
    fs::create_symlink("/dev/full", dir / name);
    cases.push_back({"--output.trajectory_file=" + (dir / name).string(), (dir / name).string()});
  }
  for (const auto& [key, file] : cases) {
    const CommandResult r = runFaraday(dir.path(), {"run", "sim.cfg", key});
    EXPECT_EQ(r.exitCode, 1) << key;
    EXPECT_HAS(r.err, "faraday: error: " + file + ": write failed: No space left on device");
  }
}

/// final.gro cannot be written (its name is taken by a folder): the run still ends with
/// its final checkpoint and its energy log, and the error names the file.
TEST_F(BadInput, AnUnwritableFinalGroDoesNotCostTheFinalCheckpoint) {
  writeText(dir / "argon.gro", gro);
  writeText(dir / "sim.cfg", config);
  fs::create_directories(dir / "out" / "final.gro" / "occupied");
  const CommandResult r = runFaraday(dir.path(), {"run", "sim.cfg"});
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_HAS(r.err, "faraday: error: " + (dir / "out" / "final.gro").string() + ": cannot rename");
  EXPECT_EQ(readCheckpoint(dir / "out" / "state.chk", 108, "").step, 20);
  EXPECT_EQ(lines(readText(dir / "out" / "energy.csv")).size(), 4u);  // header + steps 0, 10, 20
  EXPECT_FALSE(fs::exists(dir / "out" / "final.gro.tmp"));
}

TEST_F(BadInput, DryRunValidatesAndWritesNothing) {
  writeText(dir / "argon.gro", gro);
  writeText(dir / "sim.cfg", config);
  const CommandResult ok = runFaraday(dir.path(), {"run", "sim.cfg", "--dry-run"});
  EXPECT_EQ(ok.exitCode, 0) << ok.err;
  EXPECT_HAS(ok.out, "nonbonded.cutoff = 0.7");
  EXPECT_HAS(ok.out, "atoms: 108");
  EXPECT_FALSE(fs::exists(dir / "out"));
  // The dry run reads the coordinates too.
  replaceAtomLine(0, "garbage");
  EXPECT_HAS(runExpectingError({"--dry-run"}).err, groAt(3));
}

/// dt = 0.08 ps is 20 times too long for argon: the run is stopped as a runaway (a particle
/// would move more than 0.1 nm in one step) before any value is non-finite, naming the step,
/// the particle and its closest neighbour, and the checkpoint holds the last state within
/// the bound, not merely a finite one.
TEST_F(BadInput, BlowUpStopsEarlyNamingStepAndParticleAndKeepsTheLastGoodState) {
  writeText(dir / "argon.gro", gro);
  writeText(dir / "sim.cfg", config);
  const CommandResult r = runFaraday(dir.path(), {"run", "sim.cfg", "--integrator.dt=0.08", "--run.steps=1000",
                                                  "--output.energy_interval=1", "--output.trajectory_interval=1"});
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_EQ(r.err.rfind("faraday: error: runaway: one step would move a particle ", 0), 0u) << r.err;
  EXPECT_HAS(r.err, "above the bound of 0.1 nm per step");
  EXPECT_HAS(r.err, " at step ");
  EXPECT_HAS(r.err, "(atom name AR, 0-based index); its closest neighbour is particle ");
  EXPECT_HAS(r.err, "last good state (step ");
  EXPECT_EQ(lines(r.err).size(), 1u) << r.err;
  EXPECT_FALSE(fs::exists(dir / "out" / "final.gro"));
  const long long failed = std::stoll(r.err.substr(r.err.find(" at step ") + 9));
  EXPECT_GT(failed, 1);
  const Checkpoint c = readCheckpoint(dir / "out" / "state.chk", 108, "");
  EXPECT_EQ(c.step, failed - 1);  // the state is checked every step here
  for (const Vec3& v : c.velocities) EXPECT_LT(std::sqrt(norm2(v)) * 0.08, kMaxStepDisplacement);
}

/// Two atoms 0.02 nm apart: the run stops at step 0, before writing anything, naming the
/// pair; the dry run reports the close contact.
TEST_F(BadInput, OverlappingAtomsAreReportedAndStopTheRunAtOnce) {
  std::vector<std::string> v = lines(gro);
  std::string moved = v[3];
  char x[16];
  std::snprintf(x, sizeof x, "%8.3f", std::stod(v[2].substr(20, 8)) + 0.02);
  moved.replace(20, 8, x);
  moved.replace(28, 16, v[2].substr(28, 16));  // atom 1 (0-based) onto atom 0, 0.02 nm along x
  v[3] = moved;
  gro = joinLines(v);
  const CommandResult r = runExpectingError();
  EXPECT_HAS(r.err, "faraday: error: runaway: potential energy ");
  EXPECT_HAS(r.err, " at step 0: particle ");
  EXPECT_TRUE(r.err.find("particle 0 (atom name AR, 0-based index); its closest neighbour is particle 1 (AR) at 0.02 nm") !=
                  std::string::npos ||
              r.err.find("particle 1 (atom name AR, 0-based index); its closest neighbour is particle 0 (AR) at 0.02 nm") !=
                  std::string::npos)
      << r.err;
  EXPECT_HAS(r.err, "the initial state is already bad (nothing written)");
  const CommandResult dry = runFaraday(dir.path(), {"run", "sim.cfg", "--dry-run"});
  EXPECT_EQ(dry.exitCode, 0) << dry.err;
  EXPECT_HAS(dry.out, "Close contacts: 1 pair(s) closer than 0.6 sigma_ij");
  EXPECT_HAS(dry.out, "  particles 0 (AR) and 1 (AR), 0-based: 0.02 nm (threshold 0.2043 nm)");
  gro = argonGro(3);
  writeText(dir / "argon.gro", gro);
  EXPECT_HAS(runFaraday(dir.path(), {"run", "sim.cfg", "--dry-run"}).out, "Close contacts: none");
}

}  // namespace
}  // namespace faraday::test
