// The shared option parser of `faraday bench`: --help for every bench, units in the help,
// unknown options and malformed values as errors naming the bench and the option.
#include <gtest/gtest.h>

#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "core/Error.h"
#include "engine/bench/Bench.h"
#include "engine/bench/BenchOptions.h"

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

}  // namespace
}  // namespace faraday
