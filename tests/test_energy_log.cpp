// The CSV energy log: OpenMM's column names, the speed averaged since the start, no "-0".
#include <gtest/gtest.h>

#include <thread>

#include "engine/run/EnergyLog.h"
#include "tests/EngineTestSupport.h"

namespace faraday::test {
namespace {

/// "-0", "-0.000000": a zero printed with a minus sign.
bool negativeZero(const std::string& value) {
  return value.rfind("-0", 0) == 0 && value.find_first_of("123456789") == std::string::npos;
}

std::vector<std::string> fields(const std::string& row) {
  std::vector<std::string> out;
  std::stringstream s(row);
  for (std::string f; std::getline(s, f, ',');) out.push_back(f);
  return out;
}

TEST(EnergyLog, OpenMmColumnNamesSpeedSinceTheStartAndNoNegativeZero) {
  TempDir dir;
  State state;
  state.box = Box::rectangular(2, 2, 2);
  Energies e;
  e.lj = -0.0;
  e.coulombNetCharge = -1e-300;                          // prints as a tiny negative number, not -0
  e.virial.m[0][0] = e.virial.m[1][1] = e.virial.m[2][2] = -1e-12;  // pressure rounds to zero
  {
    EnergyLog log(dir / "e.csv", 3.0 * 10, 10, 0.002, -1);
    log.report(state, e, 0.0);
    for (long long step : {10, 20}) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      state.step = step;
      state.time = 0.002 * double(step);
      log.report(state, e, 0.0);
    }
    log.finish(state);
  }
  const std::vector<std::string> rows = lines(readText(dir / "e.csv"));
  ASSERT_EQ(rows.size(), 4u);
  EXPECT_EQ(rows[0].rfind("#\"Step\",\"Time (ps)\",\"Potential Energy (kJ/mole)\",\"Kinetic Energy (kJ/mole)\","
                          "\"Total Energy (kJ/mole)\",\"Temperature (K)\",\"Speed (ns/day)\",",
                          0),
            0u)
      << rows[0];
  const std::vector<std::string> header = fields(rows[0]);
  for (std::size_t r = 1; r < rows.size(); ++r) {
    const std::vector<std::string> f = fields(rows[r]);
    ASSERT_EQ(f.size(), header.size()) << rows[r];
    for (const std::string& value : f) EXPECT_FALSE(negativeZero(value)) << rows[r];
  }
  EXPECT_EQ(fields(rows[1])[6], "--");  // nothing timed at the first row
  // Averaged since the start: 20 steps of 2 fs in at least 40 ms is at most 0.04 ps in 0.04 s.
  const double at10 = std::stod(fields(rows[2])[6]), at20 = std::stod(fields(rows[3])[6]);
  const double bound = 0.04 / 1000 * 86400 / 0.04;  // ns/day
  EXPECT_GT(at10, 0.0);
  EXPECT_LE(at20, bound * 1.0001);
  EXPECT_EQ(fields(rows[1])[14], "0.000000");  // the pressure that rounds to zero
  EXPECT_EQ(fields(rows[1])[7], "0");          // lj = -0.0
}

/// nonbonded.mode = all-pairs: the all-pairs energy in its column, no pressure (no volume).
TEST(EnergyLog, OpenSystemLogsThePairEnergyAndNoPressure) {
  TempDir dir;
  State state;
  state.box = Box::rectangular(2, 2, 2);
  Energies e;
  e.pair = -0.25;
  e.virial.m[0][0] = e.virial.m[1][1] = e.virial.m[2][2] = -1;
  {
    EnergyLog log(dir / "e.csv", 3.0 * 10 - 3, 10, 0.005, -1, false);
    log.report(state, e, 0.125);
    log.finish(state);
  }
  const std::vector<std::string> rows = lines(readText(dir / "e.csv"));
  ASSERT_EQ(rows.size(), 2u);
  const std::vector<std::string> header = fields(rows[0]), f = fields(rows[1]);
  ASSERT_EQ(f.size(), header.size());
  EXPECT_EQ(header[13], "\"Gravity or Typed Pair (kJ/mole)\"");
  EXPECT_EQ(f[13], "-0.25");
  EXPECT_EQ(f[2], "-0.25");    // potential
  EXPECT_EQ(f[4], "-0.125");   // total
  EXPECT_EQ(f.back(), "--");   // pressure
}

}  // namespace
}  // namespace faraday::test
