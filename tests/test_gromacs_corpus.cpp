// The GROMACS corpus against GROMACS 2022.5 in double precision (tests/data/gromacs/corpus,
// tools/gromacs_corpus.py): one peptide (adenylate kinase 30-39) under each of the 15 force
// fields GROMACS ships in its recommended water, in the rhombic dodecahedron and the truncated
// octahedron, and in TIP4P, TIP4P-Ew, TIP5P and OPC water, each loaded through the normal
// path (its conf.gro and topol.top) and compared per term, per atom and in the virial, on
// every backend.
#include <gtest/gtest.h>

#include <filesystem>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "core/Error.h"
#include "engine/setup/SystemSetup.h"
#include "tests/BackendTestSystems.h"
#include "tests/EngineTestSupport.h"
#include "tests/GromacsComparison.h"

namespace faraday::test {
namespace {

/// Every system of the corpus (a folder of tests/data/gromacs/corpus each).
const std::vector<std::string> kCorpus = {
    // the 15 force fields, each with the (first) water its watermodels.dat recommends
    "amber03_tip3p", "amber94_tip3p", "amber96_tip3p", "amber99_tip3p", "amber99sb_tip3p", "amber99sb-ildn_tip3p",
    "amberGS_tip3p", "charmm27_tip3p", "gromos43a1_spc", "gromos43a2_spc", "gromos45a3_spc", "gromos53a5_spc",
    "gromos53a6_spc", "gromos54a7_spc", "oplsaa_tip4p",
    // AMBER99SB's other recommended water
    "amber99sb_tip4pew",
    // the triclinic boxes
    "amber99sb-ildn_tip3p_dodecahedron", "charmm27_tip3p_dodecahedron", "amber99sb-ildn_tip4pew_dodecahedron",
    "amber99sb-ildn_tip3p_octahedron", "oplsaa_tip3p_octahedron",
    // the water models with virtual sites
    "amber99sb-ildn_tip4pew", "amber99sb-ildn_tip5p", "amber99sb-ildn_opc"};

/// systems/protein_dodecahedron (tools/build_protein.py --box dodecahedron).
const std::string kExample = "protein_dodecahedron";

using CorpusCase = std::tuple<std::string, std::string>;  // system, backend

class GromacsCorpusTest : public ::testing::TestWithParam<CorpusCase> {};

TEST_P(GromacsCorpusTest, EnergiesForcesAndVirialMatchGromacs) {
  const auto& [name, platform] = GetParam();
  FARADAY_REQUIRE_BACKEND(platform);
  const GromacsReference ref = loadGromacsReference("corpus/" + name);
  ASSERT_FALSE(ref.forces.empty()) << "no forces.npy in " << ref.folder;
  const Config config = gromacsReferenceConfig(ref, platform);
  std::optional<faraday::Setup> setup;
  try {
    setup.emplace(buildSetup(config));
  } catch (const Error& e) {
    FAIL() << name << " does not load: " << e.what();
  }
  expectMatchesGromacs(name, ref, config, *setup, platform);
}

std::string caseName(const ::testing::TestParamInfo<CorpusCase>& info) {
  std::string name = std::get<0>(info.param) + "_" + std::get<1>(info.param);
  for (char& c : name)
    if (c == '-') c = '_';
  return name;
}

INSTANTIATE_TEST_SUITE_P(Corpus, GromacsCorpusTest,
                         ::testing::Combine(::testing::ValuesIn(kCorpus), ::testing::ValuesIn(kBackendNames)),
                         caseName);

/// The list above is the corpus: every folder with a reference is in it and the other way
/// round.
TEST(GromacsCorpus, EveryFolderIsTested) {
  namespace fs = std::filesystem;
  const fs::path root = fs::path(sourceDir()) / "tests" / "data" / "gromacs" / "corpus";
  std::set<std::string> folders;
  for (const auto& entry : fs::directory_iterator(root))
    if (fs::exists(entry.path() / "reference.json")) folders.insert(entry.path().filename().string());
  EXPECT_EQ(folders, std::set<std::string>(kCorpus.begin(), kCorpus.end()));
}

/// The example's two configs (NVT and NPT at 4 fs, bonds to hydrogen constrained, hydrogens of
/// 3 amu) run two steps each on the CPU.
TEST(GromacsCorpus, DodecahedronExampleRunsItsConfigs) {
  const std::string example = sourceDir() + "/systems/" + kExample;
  for (const char* config : {"sim.cfg", "npt.cfg"}) {
    TempDir dir;
    const CommandResult r = runFaraday(dir.path(), {"run", example + "/" + config, "--run.steps=2", "--run.platform=cpu",
                                                    "--run.threads=2", "--output.energy_interval=1",
                                                    "--output.directory=" + (dir / "out").string(),
                                                    "--run.progress_interval=0"});
    ASSERT_EQ(r.exitCode, 0) << config << ": " << r.err;
    EXPECT_EQ(lines(readText(dir / "out" / "energy.csv")).size(), 4u) << config;  // the header and steps 0, 1, 2
  }
}

}  // namespace
}  // namespace faraday::test
