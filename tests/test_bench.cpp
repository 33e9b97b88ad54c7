// The shared option parser of `faraday bench`: --help for every bench, units in the help,
// unknown options and malformed values as errors naming the bench and the option; bench md's
// sweep over pair-list buffers.
#include <gtest/gtest.h>

#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "core/Error.h"
#include "engine/bench/Bench.h"
#include "engine/bench/BenchOptions.h"
#include "tests/EngineTestSupport.h"

namespace faraday {
namespace {

TEST(BenchOptions, HelpListsEveryOptionWithItsDefaultAndUnit) {
  double dt = 0.004;
  std::string csv = "x.csv";
  bool quick = false;
  BenchOptions parser("demo", "what it measures");
  parser.add("dt", dt, "ps", "time step");
  parser.add("csv", csv, "path", "CSV output");
  parser.flag("quick", quick, "smaller cases");
  std::ostringstream out;
  EXPECT_FALSE(parser.parse({"--help"}, out));
  const std::string help = out.str();
  EXPECT_NE(help.find("usage: faraday bench demo"), std::string::npos) << help;
  EXPECT_NE(help.find("--dt arg (=0.004)"), std::string::npos) << help;
  EXPECT_NE(help.find("(ps)"), std::string::npos) << help;
  EXPECT_NE(help.find("--quick"), std::string::npos) << help;
}

TEST(BenchOptions, ReadsValuesAndSwitchesInBothSpellings) {
  double dt = 0.004;
  int threads = 0;
  bool quick = false;
  BenchOptions parser("demo", "");
  parser.add("dt", dt, "ps", "time step");
  parser.add("threads", threads, "", "threads");
  parser.flag("quick", quick, "smaller cases");
  std::ostringstream out;
  EXPECT_TRUE(parser.parse({"--dt=0.002", "--threads", "3", "--quick"}, out));
  EXPECT_EQ(dt, 0.002);
  EXPECT_EQ(threads, 3);
  EXPECT_TRUE(quick);
  EXPECT_EQ(parser.numberList("sizes", "4000,32000"), (std::vector<double>{4000, 32000}));
}

TEST(BenchOptions, UnknownOptionsAndBadValuesAreErrorsNamingTheBench) {
  double dt = 0.004;
  BenchOptions parser("demo", "");
  parser.add("dt", dt, "ps", "time step");
  std::ostringstream out;
  try {
    parser.parse({"--bogus=1"}, out);
    FAIL() << "an unknown option was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("faraday bench demo"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("bogus"), std::string::npos) << e.what();
  }
  EXPECT_THROW(parser.parse({"--dt=fast"}, out), Error);
  EXPECT_THROW(parser.numberList("sizes", "4000,many"), Error);
}

TEST(BenchOptions, EveryBenchAnswersHelp) {
  for (auto bench : {benchMd, benchPme, benchDcs, benchNbody}) EXPECT_EQ(bench({"--help"}), 0);
}

/// --buffer with several entries runs every system at each (CPU, liquid argon): one CSV row
/// per buffer, which names the buffer the run used; a malformed entry is an error.
TEST(BenchMd, BufferSweepGivesARowPerBuffer) {
  test::TempDir dir;
  const std::string csv = (dir / "md.csv").string();
  ASSERT_EQ(benchMd({"--platforms=cpu", "--nacl=", "--argon=4000", "--steps=2", "--threads=1", "--buffer=0.05,0.15",
                     "--csv=" + csv}),
            0);
  const std::vector<std::string> rows = test::lines(test::readText(csv));
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_NE(rows[0].find(",buffer_nm"), std::string::npos) << rows[0];
  EXPECT_EQ(rows[1].substr(rows[1].rfind(',') + 1), "0.05") << rows[1];
  EXPECT_EQ(rows[2].substr(rows[2].rfind(',') + 1), "0.15") << rows[2];
  EXPECT_THROW(benchMd({"--platforms=cpu", "--nacl=", "--argon=4000", "--buffer=0.1,wide", "--csv="}), Error);
  EXPECT_THROW(benchMd({"--platforms=cpu", "--nacl=", "--argon=4000", "--buffer=2", "--csv="}), Error);
  // The multi-GPU choices take the values their config keys take.
  EXPECT_THROW(benchMd({"--platforms=cpu", "--nacl=", "--argon=4000", "--pme-split=halves", "--csv="}), Error);
  EXPECT_THROW(benchMd({"--platforms=cpu", "--nacl=", "--argon=4000", "--gpu-sum=fast", "--csv="}), Error);
}

/// A system whose run stops (here rigid water at 200 fs: SETTLE cannot meet its lengths) gets
/// a line naming it and the reason, and no CSV row; the systems after it still run, and the
/// bench ends with an error that counts the stopped runs.
TEST(BenchMd, AStoppedRunGetsItsLineAndTheOtherSystemsStillRun) {
  test::TempDir dir;
  const std::string water = test::sourceDir() + "/systems/water/";
  std::string cfg = test::readText(water + "sim.cfg");
  const auto set = [&](const std::string& key, const std::string& value) {
    const std::size_t at = cfg.find("\n" + key + " = ");
    ASSERT_NE(at, std::string::npos) << key;
    cfg.replace(at + 1, cfg.find('\n', at + 1) - at - 1, key + " = " + value);
  };
  set("coordinates", water + "conf.gro");
  set("topology", water + "topol.top");
  set("dt", "0.2");
  const std::string bad = (dir / "bad.cfg").string(), csv = (dir / "md.csv").string();
  test::writeText(bad, cfg);
  testing::internal::CaptureStdout();
  try {
    benchMd({"--platforms=cpu", "--nacl=", "--argon=4000", "--configs=" + bad + "," + bad, "--steps=2", "--threads=1",
             "--csv=" + csv});
    ADD_FAILURE() << "bench md returned although two runs stopped";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("2 runs stopped"), std::string::npos) << e.what();
  }
  const std::string out = testing::internal::GetCapturedStdout();
  EXPECT_NE(out.find("cpu   failed: constraints failed at step"), std::string::npos) << out;
  const std::vector<std::string> rows = test::lines(test::readText(csv));
  ASSERT_EQ(rows.size(), 2u) << "the header and argon's row";
  EXPECT_EQ(rows[1].rfind("argon,4000,cpu,", 0), 0u) << rows[1];
}

}  // namespace
}  // namespace faraday
