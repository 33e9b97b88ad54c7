#pragma once
// Helpers for the GROMACS topology tests: the fixtures under tests/data/top, and small
// topologies written to a temporary folder for the bad-input cases.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "engine/formats/gromacs/GromacsTopology.h"
#include "tests/EngineTestSupport.h"

namespace faraday::test {

/// tests/data/top/NAME in the source tree.
inline fs::path topData(const std::string& name) { return fs::path(sourceDir()) / "tests" / "data" / "top" / name; }

/// Reads fixture NAME with `defines`.
inline GromacsTopology readTopData(const std::string& name, const std::vector<std::string>& defines = {}) {
  return readGromacsTopology(topData(name), defines, {});
}

/// The whole system's counts of each kind of term, its excluded pairs and its net charge, by
/// the names tools/check_topology_counts.py gives grompp's (as `gmx dump` counts them).
inline std::map<std::string, double> gromppCounts(const GromacsTopology& top) {
  const Topology& t = top.topology;
  return {{"atoms", double(top.size())},
          {"bonds", double(t.bonds.size())},
          {"g96_bonds", double(t.g96Bonds.size())},
          {"morse", double(t.morseBonds.size())},
          {"cubic_bonds", double(t.cubicBonds.size())},
          {"angles", double(t.angles.size())},
          {"g96_angles", double(t.g96Angles.size())},
          {"urey_bradley", double(t.ureyBradleys.size())},
          {"proper_dihedrals", double(t.properDihedrals.size())},
          {"periodic_impropers", double(t.periodicImpropers.size())},
          {"impropers", double(t.impropers.size())},
          {"rb_dihedrals", double(t.rbDihedrals.size())},
          {"cmaps", double(t.cmaps.size())},
          {"pairs14", double(t.pairs14.size())},
          {"exclusions", double(t.exclusions.size() / 2)},
          {"constraints", double(t.constraints.size())},
          {"settles", double(t.settles.size())},
          {"position_restraints", double(t.positionRestraints.size())},
          {"other", 0.0},  // terms of functions Faraday does not read
          {"charge", top.netCharge()}};
}

/// A [ defaults ] and [ atomtypes ] header for the inline topologies: types A, B (sigma,
/// epsilon) and a bonded type A A.
inline const char* kSmallForceField =
    "[ defaults ]\n"
    "1 2 yes 0.5 0.8333\n"
    "[ atomtypes ]\n"
    "A 6 12.0 0.0 A 0.3 0.5\n"
    "B 8 16.0 0.0 A 0.3 0.5\n"
    "[ bondtypes ]\n"
    "A A 1 0.15 1000.0\n";

/// Writes `files` (name, text) into a fresh folder and reads the first as the topology;
/// returns the message of the Error it throws ("" when none).
inline std::string topologyError(const std::vector<std::pair<std::string, std::string>>& files,
                                 const std::vector<std::string>& defines = {}) {
  TempDir dir;
  for (const auto& [name, text] : files) writeText(dir / name, text);
  return errorOf([&] { readGromacsTopology(dir / files.front().first, defines, {}); });
}

/// The error of topology `text` (as t.top) names t.top, the line marked "; HERE", and `what`.
inline void expectErrorAt(const std::string& text, const std::string& what) {
  const long line = lineOf(text, "; HERE");
  ASSERT_GT(line, 0) << "no marked line in the input";
  const std::string e = topologyError({{"t.top", text}});
  EXPECT_NE(e.find("t.top:" + std::to_string(line) + ": "), std::string::npos) << "error: " << e;
  EXPECT_NE(e.find(what), std::string::npos) << "error: " << e;
}

/// Sets an environment variable for the lifetime of the object, then restores it.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const std::string& value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    ::setenv(name, value.c_str(), 1);
  }
  ~ScopedEnv() {
    if (old_) ::setenv(name_, old_->c_str(), 1);
    else ::unsetenv(name_);
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  const char* name_;
  std::optional<std::string> old_;
};

}  // namespace faraday::test
