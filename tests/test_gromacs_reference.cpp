// Molecules against GROMACS 2022.5 in double precision (gmx_d mdrun -rerun with analytical
// Ewald; tools/gromacs_reference.py): single-point energies per term, per-atom forces and the
// virial of five systems (flexible SPC/E water; an AMBER99SB-ILDN peptide in vacuum with net
// charge and position restraints; a CHARMM27 protein fragment in TIP3P with NaCl, CMAP and
// Urey-Bradley; an OPLS-AA peptide in TIP3P, combination rule 3 and RB dihedrals; a GROMOS
// 54A7 peptide in vacuum, G96 bonds and angles and [ pairtypes ] of combination rule 1) and of
// the systems with virtual sites, read from their own topologies, on every backend.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <string>
#include <tuple>

#include "engine/backends/BackendFactory.h"
#include "engine/formats/GroFile.h"
#include "engine/formats/gromacs/GromacsTopology.h"
#include "engine/setup/SystemSetup.h"
#include "tests/BackendTestSystems.h"
#include "tests/GromacsComparison.h"
#include "tests/Tolerances.h"

namespace faraday::test {
namespace {

using GromacsCase = std::tuple<std::string, std::string>;  // system, backend

class GromacsReferenceTest : public ::testing::TestWithParam<GromacsCase> {};

TEST_P(GromacsReferenceTest, EnergiesForcesAndVirialMatchGromacs) {
  const auto& [name, platform] = GetParam();
  FARADAY_REQUIRE_BACKEND(platform);
  const GromacsReference ref = loadGromacsReference(name);
  const Config config = gromacsReferenceConfig(ref, platform);
  faraday::Setup setup = buildSetup(config);
  expectMatchesGromacs(name, ref, config, setup, platform);
}

/// The exclusion correction of the GPU, whose tile kernel takes the excluded pairs inside slot
/// groups and whose bonded kernel the rest, against the CPU's (the forces with it are those
/// of GromacsReferenceTest on cuda).
TEST(GromacsReferenceGpu, ExclusionCorrectionSplitBetweenTilesAndBondedMatchesTheCpu) {
  FARADAY_REQUIRE_GPU();
  for (const std::string name : {"spce_water", "peptide_amber_vacuum", "protein_charmm_tip3p", "peptide_oplsaa_tip3p",
                                  "peptide_gromos54a7_vacuum"}) {
    const GromacsReference ref = loadGromacsReference(name);
    double correction[2] = {0, 0};
    int k = 0;
    for (const std::string platform : {"cpu", "cuda"}) {
      const Config config = gromacsReferenceConfig(ref, platform);
      faraday::Setup setup = buildSetup(config);
      if (!ref.restraintCoordinates.empty())
        fillPositionRestraintReferences(setup.system.topology, readGro(ref.folder / ref.restraintCoordinates).positions);
      auto backend = makeBackend(config, setup.system, nullptr);
      backend->setState(setup.state, {});
      correction[k++] = backend->computeForces().coulombExclusion;
    }
    const double cpu = correction[0], gpu = correction[1];
    EXPECT_NE(cpu, 0.0) << name;
    EXPECT_LE(std::fabs(gpu - cpu), tol::kGpuExclusionCorrectionRel * std::fabs(cpu)) << name << ": " << gpu << " vs " << cpu;
    std::printf("[ info ] %s: exclusion correction GPU %.6f, CPU %.6f kJ/mol (relative %.1e)\n", name.c_str(), gpu, cpu,
                (gpu - cpu) / std::fabs(cpu));
  }
}

std::string caseName(const ::testing::TestParamInfo<GromacsCase>& info) {
  return std::get<0>(info.param) + "_" + std::get<1>(info.param);
}

INSTANTIATE_TEST_SUITE_P(Systems, GromacsReferenceTest,
                         ::testing::Combine(::testing::Values("spce_water", "peptide_amber_vacuum",
                                                              "protein_charmm_tip3p", "peptide_oplsaa_tip3p",
                                                              "peptide_gromos54a7_vacuum"),
                                            ::testing::ValuesIn(kBackendNames)),
                         caseName);

// With virtual sites (the reference a 0-step run that builds them: Faraday builds them from
// conf.gro's atoms too): the shipped four- and five-site waters, OPC, and every construction
// (vsite_types, whose virial checks the spread forces' non-linear correction).
INSTANTIATE_TEST_SUITE_P(VirtualSites, GromacsReferenceTest,
                         ::testing::Combine(::testing::Values("tip4pew_water", "tip4p_oplsaa", "tip5p_oplsaa",
                                                              "opc_water", "vsite_types"),
                                            ::testing::ValuesIn(kBackendNames)),
                         caseName);

}  // namespace
}  // namespace faraday::test
