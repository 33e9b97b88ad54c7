#pragma once
// Helpers for the GROMACS topology tests: the fixtures under tests/data/top, and small
// topologies written to a temporary folder for the bad-input cases.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
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
