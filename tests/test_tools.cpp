// The tools and commands around the engine behave on a machine without a GPU as they should:
// the README's tools run as written (executable), map_cost.sh fails when its runs fail,
// gpu_check.sh stops at once, bench md runs the CPU path and bench nbody prints no empty GPU
// columns; and `faraday map` and `faraday run` refuse an unknown map format when they load
// the configuration.
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <regex>
#include <set>

#include "tests/EngineTestSupport.h"

namespace faraday::test {
namespace {

/// Runs `command` (a shell line) in `dir`: its stdout read through a pipe, stderr from tool.err.
CommandResult shell(const fs::path& dir, const std::string& command) {
  const std::string line = "cd " + shellQuote(dir.string()) + " && " + command + " 2> tool.err";
  CommandResult r;
  if (FILE* pipe = ::popen(line.c_str(), "r")) {
    char buffer[4096];
    for (std::size_t n; (n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0;) r.out.append(buffer, n);
    const int status = ::pclose(pipe);
    r.exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }
  r.err = readText(dir / "tool.err");
  return r;
}

/// An executable script `name` in `dir` that prints nothing and exits with `code`.
void fakeProgram(const fs::path& dir, const std::string& name, int code) {
  writeText(dir / name, "#!/bin/sh\nexit " + std::to_string(code) + "\n");
  fs::permissions(dir / name, fs::perms::owner_all);
}

/// Every tools/NAME.py or .sh the README runs at the start of a command line is executable
/// (and starts with #!), so that it runs as written.
TEST(Tools, TheReadmesToolsAreExecutable) {
  const std::string readme = readText(sourceDir() + "/README.md");
  const std::regex command(R"((?:^|\n)\s*(tools/[A-Za-z_0-9]+\.(?:py|sh))\b)");
  std::set<std::string> tools;
  for (auto it = std::sregex_iterator(readme.begin(), readme.end(), command); it != std::sregex_iterator(); ++it)
    tools.insert((*it)[1]);
  for (const char* expected : {"tools/build_water.py", "tools/build_plummer.py", "tools/plot.py", "tools/map_cost.sh"})
    EXPECT_TRUE(tools.count(expected)) << expected << " is not found as a README command";
  for (const std::string& tool : tools) {
    const fs::path file = fs::path(sourceDir()) / tool;
    ASSERT_TRUE(fs::exists(file)) << tool;
    EXPECT_EQ(::access(file.c_str(), X_OK), 0) << tool << " is not executable";
    EXPECT_EQ(readText(file).rfind("#!", 0), 0u) << tool << " has no #! line";
  }
}

TEST(Tools, MapCostFailsWhenItsRunsFail) {
  TempDir dir;
  fs::create_directories(dir / "bin");
  fakeProgram(dir / "bin", "faraday", 1);
  const CommandResult r = shell(dir.path(), "OUT=" + shellQuote((dir / "out").string()) + " " +
                                                shellQuote(sourceDir() + "/tools/map_cost.sh") + " bin 10 1");
  EXPECT_NE(r.exitCode, 0) << r.out << r.err;
  EXPECT_HAS(r.err, "map_cost.sh: runs failed for map.method: none pme pmepot direct");
}

/// Without a GPU (an nvidia-smi that lists none), gpu_check.sh says so in one line and stops
/// before the tests: no output folder, no test log.
TEST(Tools, GpuCheckWithoutAGpuStopsAtOnce) {
  TempDir dir;
  fs::create_directories(dir / "bin");
  fakeProgram(dir / "bin", "nvidia-smi", 9);
  const auto start = std::chrono::steady_clock::now();
  const CommandResult r = shell(dir.path(), "PATH=" + shellQuote((dir / "bin").string()) + ":/usr/bin:/bin OUT=" +
                                                shellQuote((dir / "out").string()) + " " +
                                                shellQuote(sourceDir() + "/tools/gpu_check.sh"));
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 5.0);
  EXPECT_NE(r.exitCode, 0);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(lines(r.err).size(), 1u) << r.err;
  EXPECT_HAS(r.err, "gpu_check.sh: no NVIDIA GPU on this machine");
  EXPECT_FALSE(fs::exists(dir / "out"));
}

TEST(Tools, BenchMdWithoutAGpuRunsTheCpuPath) {
  if (cudaDeviceCount() > 0) GTEST_SKIP() << "a GPU is present: bench md runs on it";
  TempDir dir;
  const CommandResult r =
      runFaraday(dir.path(), {"bench", "md", "--nacl=", "--argon=4000", "--steps=2", "--threads=1", "--csv=md.csv"});
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_HAS(r.out, "faraday bench md: no CUDA device (");
  EXPECT_HAS(r.out, "): the CPU path alone");
  const std::vector<std::string> rows = lines(readText(dir / "md.csv"));
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[1].rfind("argon,4000,cpu,2,", 0), 0u) << rows[1];
}

TEST(Tools, BenchNbodyWithoutAGpuLeavesOutTheGpuColumns) {
  if (cudaDeviceCount() > 0) GTEST_SKIP() << "a GPU is present: its columns have values";
  TempDir dir;
  const CommandResult r = runFaraday(dir.path(), {"bench", "nbody", "--sizes=256,512", "--threads=1", "--csv=nbody.csv"});
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_EQ(r.out.find("nan"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("tri ms"), std::string::npos) << r.out;
  EXPECT_HAS(r.out, ": the CPU loop alone");
  const std::vector<std::string> rows = lines(readText(dir / "nbody.csv"));
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0], "n,cpu_ms,cpu_interactions_per_s");
  EXPECT_EQ(readText(dir / "nbody.csv").find("nan"), std::string::npos);
}

/// An unknown map format is refused when the configuration is loaded, naming map.file and
/// the formats there are: `faraday map` reads no frame, `faraday run` takes no step, and
/// neither makes its output folder.
TEST_F(ArgonFolderTest, MapRefusesAnUnknownFormatBeforeReadingFrames) {
  ASSERT_EQ(runFaraday(dir.path(), {"run", "sim.cfg"}).exitCode, 0);
  const std::string expected = " (expected .dx (OpenDX), .mrc, .ccp4 or .map (MRC/CCP4))";
  const std::string txt = (dir / "maps" / "potential.txt").string();
  const CommandResult r = runFaraday(dir.path(), {"map", "sim.cfg", "--map.trajectory=out/traj.dcd", "--map.file=" + txt});
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_EQ(r.err, "faraday: error: command line: key 'map.file': unknown map format '.txt' in " + txt + expected + "\n");
  EXPECT_EQ(r.out.find("Time per phase"), std::string::npos) << r.out;
  EXPECT_FALSE(fs::exists(dir / "maps"));
  const CommandResult cube = runFaraday(dir.path(), {"map", "sim.cfg", "--map.trajectory=out/traj.dcd",
                                                     "--map.file=potential.cube", "--output.directory=cube"});
  EXPECT_EQ(cube.exitCode, 1);
  EXPECT_HAS(cube.err, "command line: key 'map.file': unknown map format '.cube' in potential.cube" + expected);
  EXPECT_FALSE(fs::exists(dir / "cube"));
  // In the file: its name and line; a run with the map on stops before its first step.
  const std::string config = argonConfig() + "\n[map]\nmethod = direct\nfile = potential.cube\n";
  writeText(dir / "map.cfg", config);
  const long line = lineOf(config, "potential.cube");
  const CommandResult run = runFaraday(dir.path(), {"run", "map.cfg", "--output.directory=run"});
  EXPECT_EQ(run.exitCode, 1);
  EXPECT_HAS(run.err, "faraday: error: map.cfg:" + std::to_string(line) +
                          ": key 'map.file': unknown map format '.cube' in potential.cube" + expected);
  EXPECT_EQ(run.out.find("Step"), std::string::npos) << run.out;
  EXPECT_FALSE(fs::exists(dir / "run"));
  const CommandResult none = runFaraday(dir.path(), {"run", "sim.cfg", "--map.file=potential", "--output.directory=run"});
  EXPECT_EQ(none.exitCode, 1);
  EXPECT_HAS(none.err, "command line: key 'map.file': no map format in potential" + expected);
  EXPECT_FALSE(fs::exists(dir / "run"));
}

}  // namespace
}  // namespace faraday::test
