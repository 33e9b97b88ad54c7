// tools/plot.py on real outputs: the pictures are written as PNG files, and a malformed
// energy log is refused naming the file and line. Skipped without python3 and matplotlib.
#include <gtest/gtest.h>

#include "tests/EngineTestSupport.h"

namespace faraday::test {
namespace {

using PlotToolTest = ArgonFolderTest;

/// Runs tools/plot.py ARGS in `dir`; returns the exit code, output in plot.out.
int plot(const fs::path& dir, const std::string& args) {
  const std::string command = "cd " + shellQuote(dir.string()) + " && python3 " +
                              shellQuote(sourceDir() + "/tools/plot.py") + " " + args + " > plot.out 2>&1";
  const int status = std::system(command.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

bool isPng(const fs::path& file) { return fs::exists(file) && readText(file).rfind("\x89PNG\r\n\x1a\n", 0) == 0; }

TEST_F(PlotToolTest, EnergyLogAndMapBecomePngPictures) {
  if (std::system("python3 -c 'import matplotlib' > /dev/null 2>&1") != 0) GTEST_SKIP() << "no python3 with matplotlib";
  ASSERT_EQ(runFaraday(dir.path(), {"run", "sim.cfg", "--map.spacing=0.2", "--map.interval=10"}).exitCode, 0);
  ASSERT_EQ(plot(dir.path(), "energy out/energy.csv --out pics"), 0) << readText(dir / "plot.out");
  for (const char* png : {"energy.png", "temperature.png", "pressure.png"}) EXPECT_TRUE(isPng(dir / "pics" / png)) << png;
  ASSERT_EQ(plot(dir.path(), "map out/potential.dx --coordinates out/final.gro --out pics"), 0) << readText(dir / "plot.out");
  EXPECT_TRUE(isPng(dir / "pics" / "map_slice.png"));
  std::string log = readText(dir / "out" / "energy.csv");
  log.insert(log.find('\n') + 1, "0,0.0,1\n");
  writeText(dir / "bad.csv", log);
  EXPECT_NE(plot(dir.path(), "energy bad.csv --out pics"), 0);
  EXPECT_NE(readText(dir / "plot.out").find("bad.csv:2: 3 fields, the header has 15"), std::string::npos)
      << readText(dir / "plot.out");
}

/// An MRC map of `faraday map` (CPU) is drawn as its OpenDX twin: plot.py reads the same
/// lattice and values from both (with mrcfile, and from the header alone without it), and the
/// slice is written as a PNG.
TEST_F(PlotToolTest, MrcMapIsReadAndDrawnAsItsDxTwin) {
  if (std::system("python3 -c 'import matplotlib' > /dev/null 2>&1") != 0) GTEST_SKIP() << "no python3 with matplotlib";
  ASSERT_EQ(runFaraday(dir.path(), {"run", "sim.cfg"}).exitCode, 0);  // out/traj.dcd, 3 frames
  for (const char* file : {"m.mrc", "m.dx"}) {
    const CommandResult map = runFaraday(dir.path(), {"map", "sim.cfg", "--map.trajectory=out/traj.dcd", "--map.method=direct",
                                                      "--atom.AR.charge=0.1", "--map.spacing=0.2", "--output.directory=maps",
                                                      "--map.file=" + std::string(file)});
    ASSERT_EQ(map.exitCode, 0) << file << ": " << map.err;
  }
  ASSERT_EQ(plot(dir.path(), "map maps/m.mrc --coordinates out/final.gro --out mrc"), 0) << readText(dir / "plot.out");
  EXPECT_TRUE(isPng(dir / "mrc" / "map_slice.png"));
  EXPECT_HAS(readText(dir / "plot.out"), "map_slice.png");
  const std::string script =
      "import sys\n"
      "sys.path.insert(0, sys.argv[1])\n"
      "if sys.argv[2] == 'header':\n"
      "    sys.modules['mrcfile'] = None  # import mrcfile fails: the header is read with numpy\n"
      "else:\n"
      "    try:\n"
      "        import mrcfile\n"
      "    except ImportError:\n"
      "        print('no mrcfile')\n"
      "        sys.exit(0)\n"
      "import plot\n"
      "c, o, h, v, _ = plot.read_map('maps/m.mrc')\n"
      "C, O, H, V, _ = plot.read_map('maps/m.dx')\n"
      "assert c == C, (c, C)\n"
      "assert all(abs(a - b) < 1e-4 for a, b in zip(o + h, O + H)), (o, h, O, H)\n"
      "assert len(v) == len(V) and max(abs(a - b) for a, b in zip(v, V)) <= 1e-6 * max(abs(b) for b in V)\n"
      "assert max(abs(b) for b in V) > 0\n"
      "print('same', c)\n";
  writeText(dir / "same.py", script);
  for (const char* reader : {"mrcfile", "header"}) {
    const std::string command = "cd " + shellQuote(dir.path().string()) + " && python3 same.py " +
                                shellQuote(sourceDir() + "/tools") + " " + reader + " > same.out 2>&1";
    EXPECT_EQ(std::system(command.c_str()), 0) << reader << ": " << readText(dir / "same.out");
    const std::string out = readText(dir / "same.out");
    EXPECT_TRUE(out.rfind("same [", 0) == 0 || (std::string(reader) == "mrcfile" && out == "no mrcfile\n")) << out;
  }
}

/// An all-pairs run's log has no pressure ("--"): the energies and the temperature are drawn,
/// no pressure picture.
TEST_F(PlotToolTest, AllPairsEnergyLogHasNoPressurePicture) {
  if (std::system("python3 -c 'import matplotlib' > /dev/null 2>&1") != 0) GTEST_SKIP() << "no python3 with matplotlib";
  const CommandResult run = runFaraday(dir.path(), {"run", "sim.cfg", "--nonbonded.mode=all-pairs",
                                                    "--nonbonded.potential=gravity", "--gravity.g=1e-6", "--gravity.softening=0.05",
                                                    "--integrator.type=verlet"});
  ASSERT_EQ(run.exitCode, 0) << run.err;
  const std::vector<std::string> rows = lines(readText(dir / "out" / "energy.csv"));
  ASSERT_EQ(rows.size(), 4u);
  EXPECT_EQ(rows[1].substr(rows[1].rfind(',')), ",--");
  ASSERT_EQ(plot(dir.path(), "energy out/energy.csv --out pics"), 0) << readText(dir / "plot.out");
  EXPECT_TRUE(isPng(dir / "pics" / "energy.png"));
  EXPECT_TRUE(isPng(dir / "pics" / "temperature.png"));
  EXPECT_FALSE(fs::exists(dir / "pics" / "pressure.png"));
}

/// `faraday bench md` on the CPU writes the CSV; the OpenMM anchor's lines are written here.
TEST_F(PlotToolTest, MdBenchBecomesThroughputAndPhasePictures) {
  if (std::system("python3 -c 'import matplotlib' > /dev/null 2>&1") != 0) GTEST_SKIP() << "no python3 with matplotlib";
  const CommandResult bench =
      runFaraday(dir.path(), {"bench", "md", "--platforms=cpu", "--nacl", "", "--argon=4000", "--steps=2", "--csv=md.csv"});
  ASSERT_EQ(bench.exitCode, 0) << bench.err;
  writeText(dir / "openmm.log", "OpenMM 8.6.1 CUDA {}\nout/gro/argon_4000.gro: atoms 4000 ns/day 5285.1 ms/step 0.0654\n");
  ASSERT_EQ(plot(dir.path(), "md md.csv --openmm openmm.log --out pics"), 0) << readText(dir / "plot.out");
  EXPECT_TRUE(isPng(dir / "pics" / "md_throughput.png"));
  EXPECT_TRUE(isPng(dir / "pics" / "md_phases.png"));
  writeText(dir / "bad.csv", readText(dir / "md.csv") + "argon,many,cpu\n");
  EXPECT_NE(plot(dir.path(), "md bad.csv --out pics"), 0);
  EXPECT_NE(readText(dir / "plot.out").find("bad.csv:3: not a faraday bench md row"), std::string::npos)
      << readText(dir / "plot.out");
}

/// The total energy's drift is printed (and drawn) for an NVE run alone: a thermostat changes
/// the total, so a Langevin run's "drift" would mean nothing.
TEST_F(PlotToolTest, TheEnergyDriftIsGivenForNveRunsAlone) {
  if (std::system("python3 -c 'import matplotlib' > /dev/null 2>&1") != 0) GTEST_SKIP() << "no python3 with matplotlib";
  ASSERT_EQ(runFaraday(dir.path(), {"run", "sim.cfg"}).exitCode, 0);
  ASSERT_EQ(plot(dir.path(), "energy out/energy.csv --out pics"), 0) << readText(dir / "plot.out");
  EXPECT_EQ(readText(dir / "plot.out").find("energy drift"), std::string::npos) << readText(dir / "plot.out");
  const CommandResult nve = runFaraday(dir.path(), {"run", "sim.cfg", "--integrator.type=verlet", "--output.directory=nve"});
  ASSERT_EQ(nve.exitCode, 0) << nve.err;
  ASSERT_EQ(plot(dir.path(), "energy nve/energy.csv --out pics"), 0) << readText(dir / "plot.out");
  EXPECT_HAS(readText(dir / "plot.out"), "nve/energy.csv: NVE energy drift max |E - E(0)| / |E(0)| = ");
}

/// `plot.py --help` and the README describe the atoms a map slice shows in the same words.
TEST(PlotTool, HelpAndReadmeAgreeOnTheAtomsOfAMapSlice) {
  if (std::system("python3 -c 'import matplotlib' > /dev/null 2>&1") != 0) GTEST_SKIP() << "no python3 with matplotlib";
  TempDir dir;
  ASSERT_EQ(plot(dir.path(), "--help"), 0);
  const auto squeezed = [](const std::string& text) {  // every run of white space as one blank
    std::string out;
    bool blank = false;
    for (const char c : text) {
      if (std::isspace(static_cast<unsigned char>(c))) {
        blank = true;
        continue;
      }
      if (blank && !out.empty()) out += ' ';
      blank = false;
      out += c;
    }
    return out;
  };
  const std::string phrase = "the atoms within half a grid spacing of the plane overlaid (a solute's atoms within 0.3 nm)";
  EXPECT_HAS(squeezed(readText(dir / "plot.out")), phrase);
  EXPECT_HAS(squeezed(readText(sourceDir() + "/README.md")), phrase);
}

}  // namespace
}  // namespace faraday::test
