// The dependency direction of the source tree, as rules on `#include "..."` lines.
// The layers:
//   core/         includes only core/;
//   kernels/      includes core/ and kernels/;
//   integrators/  includes core/, kernels/ and integrators/;
//   engine/       is the roof and may include any layer.
// Inside kernels/ and engine/, each folder may include itself and the folders its row of the
// tables below names (kKernelFolders, kEngineFolders). A row names only rows above it, so the
// folders form no cycle. GPU kernels (__global__) live in kernels/ and integrators/; under
// engine/ only the benchmark studies (engine/bench) have their own.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <string>
#include <vector>

#include "tests/TestSupport.h"

namespace faraday {
namespace {

/// A folder and the folders (or whole layers) it may include besides itself.
struct FolderRule {
  std::string folder;
  std::vector<std::string> mayInclude;
};

const std::vector<FolderRule> kLayers = {
    {"core", {}},
    {"kernels", {"core"}},
    {"integrators", {"core", "kernels"}},
    {"engine", {"core", "kernels", "integrators"}},
};

/// common/ below every concept; the several-GPU plain data (WorkShare, PeerFloats) and the
/// device atom layout are in common/, so multigpu/ sits beside the concepts, above common/.
const std::vector<FolderRule> kKernelFolders = {
    {"kernels/common", {"core"}},
    {"kernels/neighbor", {"core", "kernels/common"}},
    {"kernels/nonbonded", {"core", "kernels/common", "kernels/neighbor"}},
    {"kernels/bonded", {"core", "kernels/common", "kernels/neighbor", "kernels/nonbonded"}},
    {"kernels/nbody", {"core", "kernels/common", "kernels/nonbonded"}},
    {"kernels/pme", {"core", "kernels/common"}},
    {"kernels/dcs", {"core", "kernels/common", "kernels/pme"}},
    {"kernels/multigpu", {"core", "kernels/common"}},
    {"kernels/vsites", {"core", "kernels/common", "kernels/neighbor"}},
};

/// File formats at the bottom; the configuration on them; the setup and the backends on the
/// configuration; the output helpers (reporter interface, output folder, progress, stop
/// signals) under both the run loop and the maps, which do not include each other; the atom
/// selections on the formats and the configuration, under the maps; the commands on top.
const std::vector<FolderRule> kEngineFolders = {
    {"engine/formats", {"core", "kernels"}},
    {"engine/config", {"core", "kernels", "integrators", "engine/formats"}},
    {"engine/setup", {"core", "kernels", "integrators", "engine/formats", "engine/config"}},
    {"engine/backends", {"core", "kernels", "integrators", "engine/formats", "engine/config"}},
    {"engine/output", {"core", "engine/formats", "engine/config", "engine/backends"}},
    {"engine/run",
     {"core", "kernels", "integrators", "engine/formats", "engine/config", "engine/setup", "engine/backends",
      "engine/output"}},
    {"engine/select", {"core", "engine/formats", "engine/config"}},
    {"engine/maps",
     {"core", "kernels", "integrators", "engine/formats", "engine/config", "engine/setup", "engine/backends",
      "engine/output", "engine/select"}},
    {"engine/bench",
     {"core", "kernels", "integrators", "engine/formats", "engine/config", "engine/setup", "engine/backends",
      "engine/output", "engine/run"}},
    {"engine/cli",
     {"core", "kernels", "integrators", "engine/formats", "engine/config", "engine/setup", "engine/backends",
      "engine/output", "engine/run", "engine/select", "engine/maps", "engine/bench"}},
};

bool within(const std::string& path, const std::string& folder) { return path.rfind(folder + "/", 0) == 0; }

/// "file: header" for every project header included by a file below `root`/`rule.folder`
/// that lies in neither the folder itself nor one the rule allows.
std::vector<std::string> brokenIncludes(const std::filesystem::path& root, const FolderRule& rule) {
  static const std::regex include(R"(^\s*#\s*include\s*"((core|kernels|integrators|engine)/[^"]+)\")");
  std::vector<std::string> found;
  if (!std::filesystem::exists(root / rule.folder)) return found;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(root / rule.folder)) {
    if (!entry.is_regular_file()) continue;
    std::ifstream in(entry.path());
    std::string line;
    std::smatch m;
    while (std::getline(in, line)) {
      if (!std::regex_search(line, m, include)) continue;
      const std::string header = m[1].str();
      bool ok = within(header, rule.folder);
      for (const std::string& a : rule.mayInclude) ok = ok || within(header, a);
      if (!ok) found.push_back(entry.path().string() + ": " + header);
    }
  }
  return found;
}

std::string listOf(const std::vector<std::string>& found) {
  std::string list;
  for (const std::string& f : found) list += "\n  " + f;
  return list;
}

void expectRulesHold(const std::vector<FolderRule>& rules) {
  const std::filesystem::path root = test::sourceDir();
  for (const FolderRule& rule : rules) {
    const auto found = brokenIncludes(root, rule);
    EXPECT_TRUE(found.empty()) << rule.folder << "/ includes headers its rule does not allow:" << listOf(found);
  }
}

/// Each row names only rows above it (or whole layers outside the table): no cycle.
void expectOrdered(const std::vector<FolderRule>& rules) {
  for (std::size_t r = 0; r < rules.size(); ++r)
    for (const std::string& a : rules[r].mayInclude)
      for (std::size_t later = r; later < rules.size(); ++later)
        EXPECT_NE(a, rules[later].folder) << rules[r].folder << " may include " << a << ", which is not above it";
}

TEST(Layering, EachLayerIncludesOnlyTheLayersBelowIt) { expectRulesHold(kLayers); }

TEST(Layering, KernelFoldersFollowTheirOrder) {
  expectOrdered(kKernelFolders);
  expectRulesHold(kKernelFolders);
}

TEST(Layering, EngineFoldersFollowTheirOrder) {
  expectOrdered(kEngineFolders);
  expectRulesHold(kEngineFolders);
}

TEST(Layering, EveryFolderHasARule) {
  const std::filesystem::path root = test::sourceDir();
  for (const auto& [layer, rules] : {std::pair{"kernels", &kKernelFolders}, std::pair{"engine", &kEngineFolders}})
    for (const auto& entry : std::filesystem::directory_iterator(root / layer)) {
      if (!entry.is_directory()) continue;
      const std::string folder = std::string(layer) + "/" + entry.path().filename().string();
      bool listed = false;
      for (const FolderRule& rule : *rules) listed = listed || rule.folder == folder;
      EXPECT_TRUE(listed) << folder << "/ has no row in the layering rules";
    }
}

TEST(Layering, NoGpuKernelUnderEngineOutsideTheBenchmarks) {
  const std::filesystem::path root = test::sourceDir();
  static const std::regex kernel(R"(\b__global__\b)");
  for (const auto& entry : std::filesystem::recursive_directory_iterator(root / "engine")) {
    if (!entry.is_regular_file() || within(entry.path().lexically_relative(root).string(), "engine/bench")) continue;
    std::ifstream in(entry.path());
    std::string line;
    for (int number = 1; std::getline(in, line); ++number)
      EXPECT_FALSE(std::regex_search(line, kernel)) << entry.path().string() << ":" << number << ": a __global__ kernel";
  }
}

/// Writes `files` (name, text) into a temporary tree and returns what `rule` finds there.
std::vector<std::string> probe(const FolderRule& rule, const std::vector<std::pair<std::string, std::string>>& files) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / "faraday_layering_probe";
  std::filesystem::remove_all(dir);
  for (const auto& [name, text] : files) {
    std::filesystem::create_directories((dir / name).parent_path());
    std::ofstream(dir / name) << text;
  }
  const auto found = brokenIncludes(dir, rule);
  std::filesystem::remove_all(dir);
  return found;
}

TEST(Layering, TheLayerRuleSeesAViolation) {
  // A kernels/ file of a temporary tree that includes an engine header is found.
  const auto found = probe(kLayers[1], {{"kernels/Probe.h", "#include \"core/Vec3.h\"\n#include \"engine/config/Config.h\"\n"}});
  ASSERT_EQ(found.size(), 1u);
  EXPECT_NE(found[0].find("engine/config/Config.h"), std::string::npos);
}

TEST(Layering, TheFolderRulesSeeAViolation) {
  // engine/run including engine/maps (the cycle with maps' reporter), and a concept of
  // kernels/ including kernels/multigpu, are found; their allowed neighbours are not.
  const auto run = probe(kEngineFolders[5], {{"engine/run/Probe.cpp", "#include \"engine/output/Reporter.h\"\n"
                                                                      "#include \"engine/maps/MapReporter.h\"\n"}});
  ASSERT_EQ(run.size(), 1u);
  EXPECT_NE(run[0].find("engine/maps/MapReporter.h"), std::string::npos);
  const auto pme = probe(kKernelFolders[5], {{"kernels/pme/Probe.h", "#include \"kernels/common/DeviceBuffer.h\"\n"
                                                                     "#include \"kernels/multigpu/GpuGroup.h\"\n"}});
  ASSERT_EQ(pme.size(), 1u);
  EXPECT_NE(pme[0].find("kernels/multigpu/GpuGroup.h"), std::string::npos);
}

}  // namespace
}  // namespace faraday
