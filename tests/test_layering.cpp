// The dependency direction of the source tree, one rule per layer:
//   core/                      includes only core/ (vectors, box, units, errors, timers, the System);
//   kernels/ and integrators/  include core/, kernels/ and integrators/, never engine/;
//   engine/                    is the roof and may include any layer.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <string>
#include <vector>

#include "tests/TestSupport.h"

namespace faraday {
namespace {

/// "file: header" for every project header included by a file below `folder` whose top-level
/// folder is not one of `allowed`.
std::vector<std::string> includesOutside(const std::filesystem::path& folder, const std::vector<std::string>& allowed) {
  static const std::regex include(R"(^\s*#\s*include\s*"((core|kernels|integrators|engine)/[^"]+)\")");
  std::vector<std::string> found;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(folder)) {
    if (!entry.is_regular_file()) continue;
    std::ifstream in(entry.path());
    std::string line;
    std::smatch m;
    while (std::getline(in, line)) {
      if (!std::regex_search(line, m, include)) continue;
      bool ok = false;
      for (const std::string& a : allowed) ok = ok || m[2].str() == a;
      if (!ok) found.push_back(entry.path().string() + ": " + m[1].str());
    }
  }
  return found;
}

std::string listOf(const std::vector<std::string>& found) {
  std::string list;
  for (const std::string& f : found) list += "\n  " + f;
  return list;
}

TEST(Layering, CoreIncludesOnlyItself) {
  const std::filesystem::path root = test::sourceDir();
  const auto found = includesOutside(root / "core", {"core"});
  EXPECT_TRUE(found.empty()) << "core/ includes headers of the layers above it:" << listOf(found);
}

TEST(Layering, KernelsAndIntegratorsIncludeNoEngineFile) {
  const std::filesystem::path root = test::sourceDir();
  for (const char* folder : {"kernels", "integrators"}) {
    const auto found = includesOutside(root / folder, {"core", "kernels", "integrators"});
    EXPECT_TRUE(found.empty()) << folder << "/ includes engine/ headers:" << listOf(found);
  }
}

TEST(Layering, TheRuleSeesAViolation) {
  // The scanner itself: a file of a temporary tree that includes an engine header is found.
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / "faraday_layering_probe";
  std::filesystem::create_directories(dir / "kernels");
  std::ofstream(dir / "kernels" / "Probe.h") << "#include \"core/Vec3.h\"\n#include \"engine/config/Config.h\"\n";
  const auto found = includesOutside(dir / "kernels", {"core", "kernels", "integrators"});
  std::filesystem::remove_all(dir);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_NE(found[0].find("engine/config/Config.h"), std::string::npos);
}

}  // namespace
}  // namespace faraday
