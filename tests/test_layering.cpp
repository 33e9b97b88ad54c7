// The dependency direction of the source tree: kernels/ and integrators/ build on a small
// base of plain types (vectors, box, units, errors, the host/device macro, the system's
// arrays, timers) and never on the configuration, the run loop, reporters or outputs of
// the engine above them.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <string>
#include <vector>

namespace faraday {
namespace {

const std::set<std::string> kBaseHeaders = {"engine/Box.h",  "engine/Error.h",  "engine/HostDevice.h",
                                            "engine/System.h", "engine/Timers.h", "engine/Units.h",
                                            "engine/Vec3.h"};

/// "file: header" for every engine/ header outside the base included by a file below `folder`.
std::vector<std::string> engineIncludesBelow(const std::filesystem::path& folder) {
  static const std::regex include(R"(^\s*#\s*include\s*"(engine/[^"]+)\")");
  std::vector<std::string> found;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(folder)) {
    if (!entry.is_regular_file()) continue;
    std::ifstream in(entry.path());
    std::string line;
    std::smatch m;
    while (std::getline(in, line))
      if (std::regex_search(line, m, include) && !kBaseHeaders.count(m[1].str()))
        found.push_back(entry.path().string() + ": " + m[1].str());
  }
  return found;
}

TEST(Layering, KernelsAndIntegratorsIncludeOnlyTheBaseOfTheEngine) {
  const std::filesystem::path root = FARADAY_SOURCE_DIR;
  for (const char* folder : {"kernels", "integrators"}) {
    const std::vector<std::string> found = engineIncludesBelow(root / folder);
    std::string list;
    for (const std::string& f : found) list += "\n  " + f;
    EXPECT_TRUE(found.empty()) << folder << "/ includes engine headers above the base:" << list;
  }
}

}  // namespace
}  // namespace faraday
