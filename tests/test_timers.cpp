#include <gtest/gtest.h>

#include "core/Timers.h"

using faraday::ScopedTimer;
using faraday::Timers;

TEST(Timers, NestedPhasesAreIndentedAndNotCountedTwice) {
  Timers t;
  t.add("nonbonded", 2.0);
  {
    ScopedTimer outer(&t, "output");
    t.add("map", 1.5);  // timed inside "output"
  }
  const auto phases = t.ordered();
  ASSERT_EQ(phases.size(), 3u);
  EXPECT_EQ(phases[0].first, "nonbonded");
  EXPECT_EQ(phases[1].first, "output");  // registered when opened, before its child
  EXPECT_EQ(phases[2].first, "map");
  EXPECT_EQ(phases[2].second.depth, 1);
  // The total counts "output" (which contains "map") once: 2.0 + output's own wall time.
  EXPECT_GE(t.total(), 2.0);
  EXPECT_LT(t.total(), 3.0);
  EXPECT_NE(t.table("t", 0).find("\n  map"), std::string::npos);
}
