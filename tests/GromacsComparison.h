#pragma once
// A GROMACS 2022.5 single point (tests/GromacsReference.h) against Faraday's: every bonded
// term, LJ, Coulomb SR + recip, the potential, the forces and the virial, with the tolerances
// of tests/Tolerances.h. Shared by the reference systems and the corpus.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "engine/backends/BackendFactory.h"
#include "engine/formats/GroFile.h"
#include "engine/formats/gromacs/GromacsTopology.h"
#include "engine/setup/SystemSetup.h"
#include "kernels/bonded/Bonded.h"
#include "tests/BackendTestSystems.h"
#include "tests/GromacsReference.h"
#include "tests/Tolerances.h"

namespace faraday::test {

/// |a - b| within rel * max(|b|, 1 kJ/mol): terms near zero are judged in absolute terms.
/// Returns the relative difference.
inline double expectNearGromacs(const std::string& what, double value, double reference, double rel) {
  const double d = std::fabs(value - reference) / std::fmax(std::fabs(reference), 1.0);
  EXPECT_LE(std::fabs(value - reference), rel * std::fmax(std::fabs(reference), 1.0))
      << what << ": " << value << " against GROMACS " << reference << " (relative "
      << (value - reference) / std::fmax(std::fabs(reference), 1.0) << ")";
  return d;
}

/// The single point of `setup` (built from `config` = gromacsReferenceConfig(ref, platform))
/// on `platform` against the reference `ref`; `name` labels the failures and the printed line.
inline void expectMatchesGromacs(const std::string& name, const GromacsReference& ref, const Config& config,
                                 faraday::Setup& setup, const std::string& platform) {
  ASSERT_EQ(setup.system.size(), ref.forces.size());
  if (!ref.restraintCoordinates.empty())
    fillPositionRestraintReferences(setup.system.topology, readGro(ref.folder / ref.restraintCoordinates).positions);
  auto backend = makeBackend(config, setup.system, nullptr);
  backend->setState(setup.state, {});
  const Energies e = backend->computeForces();
  const std::vector<Vec3> forces = backend->forces();
  const bool gpu = onGpu(platform);

  // Every term GROMACS printed is one Faraday computes, and the other way round.
  double bondedWorst = 0;
  std::string worstTerm = "none";
  for (int slot = 0; slot < kBondedSlots; ++slot) {
    if (slot == kExclusionCorrectionSlot) continue;
    const std::string term = bondedSlotName(slot);
    const double d =
        expectNearGromacs(name + ": " + term, e.bonded[std::size_t(slot)], ref.energy(term), tol::kGromacsBondedRel);
    if (d > bondedWorst) bondedWorst = d, worstTerm = term;
  }
  const double nonbondedRel = gpu ? tol::kGromacsGpuNonbondedRel : tol::kGromacsNonbondedRel;
  const double lj = expectNearGromacs(name + ": LJ (SR)", e.lj, ref.energy("LJ (SR)"), nonbondedRel);
  // GROMACS books the self and exclusion corrections in Coulomb (SR), the net-charge term in
  // Coul. recip.: the sum is what both engines define alike.
  const double coulomb = expectNearGromacs(name + ": Coulomb (SR) + Coul. recip.", e.coulomb(),
                                           ref.energy("Coulomb (SR)") + ref.energy("Coul. recip."), nonbondedRel);
  const double potential =
      expectNearGromacs(name + ": Potential", e.potential(), ref.energy("Potential"), nonbondedRel);

  std::vector<double> got, want;
  for (std::size_t i = 0; i < forces.size(); ++i)
    for (int k = 0; k < 3; ++k) got.push_back(forces[i][k]), want.push_back(ref.forces[i][k]);
  const double forceRms = relRms(got, want);
  if (!gpu) {
    EXPECT_LE(forceRms, tol::kGromacsForceRelRms) << name;
  } else {
    // The minimised structures' net forces are small differences of large LJ, bond and
    // Coulomb forces; float pair math rounds relative to those. Their scale: the CPU's LJ and
    // bonded forces alone (electrostatics none).
    Config parts = config;
    parts.run.platform = Platform::Cpu;
    parts.electrostatics.method = ElectrostaticsMethod::None;
    auto cpu = makeBackend(parts, setup.system, nullptr);
    cpu->setState(setup.state, {});
    cpu->computeForces();
    double diff = 0, scale = 0;
    for (std::size_t i = 0; i < forces.size(); ++i)
      diff += norm2(forces[i] - ref.forces[i]), scale += norm2(cpu->forces()[i]);
    const double overTerms = std::sqrt(diff / scale);
    EXPECT_LE(overTerms, tol::kGromacsGpuForceOverTerms) << name;
    std::printf("[ info ] %s on cuda: force difference RMS over the LJ and bonded forces' RMS %.2e\n", name.c_str(),
                overTerms);
  }
  std::printf("[ info ] %s on %s against GROMACS: bonded terms worst %.2e (%s), LJ %.2e, Coulomb %.2e, potential "
              "%.2e, forces relative RMS %.2e\n",
              name.c_str(), platform.c_str(), bondedWorst, worstTerm.c_str(), lj, coulomb, potential, forceRms);

  // W = -2 Xi. A position restraint's virial depends on how its reference follows the box
  // (GROMACS: refcoord-scaling = no; Faraday: the reference scales with the box), so the
  // restrained peptide's virial is not compared; nor that of rigid water, whose constraint
  // virial GROMACS takes from its first leap-frog step and Faraday from the state. With a net
  // charge, GROMACS 2022 (ewald_charge_correction) adds vc = -E_net / V, an energy per volume, to
  // each Xi_dd, where the neutralising background E_net = -c / V has W_dd = E_net (P = -dE/dV =
  // E_net / V), that is Xi_dd = -E_net / 2: the reference is put right by that difference.
  if (setup.system.topology.positionRestraints.empty() && !setup.system.topology.hasConstraints()) {
    static const char* const kAxes = "XYZ";
    const double netCharge = e.coulombNetCharge, vc = -netCharge / setup.state.box.volume();
    double diff = 0, norm = 0;
    for (int a = 0; a < 3; ++a)
      for (int b = 0; b < 3; ++b) {
        const double xi = ref.virial.at(std::string("Vir-") + kAxes[a] + kAxes[b]) - (a == b ? vc + 0.5 * netCharge : 0.0);
        const double w = -2.0 * xi;
        diff += std::pow(e.virial.m[a][b] - w, 2), norm += w * w;
      }
    EXPECT_LE(std::sqrt(diff / norm), gpu ? tol::kGromacsGpuNonbondedRel : tol::kGromacsVirialRel) << name;
    std::printf("[ info ] %s on %s: virial relative difference %.2e\n", name.c_str(), platform.c_str(),
                std::sqrt(diff / norm));
  }
}

}  // namespace faraday::test
