#pragma once
// The CPU backend's force terms (CpuForceTerm.h).
#include <memory>

#include "core/System.h"
#include "engine/backends/CpuForceTerm.h"
#include "kernels/bonded/CpuBonded.h"
#include "kernels/nonbonded/CpuNonbonded.h"
#include "kernels/pme/Electrostatics.h"

namespace faraday {

/// LJ (or the typed pair force) and real-space Coulomb over the Verlet list; phase "nonbonded".
/// It writes the evaluation's forces (the first term).
class CpuPairTerm final : public CpuForceTerm {
 public:
  CpuPairTerm(const System& system, const NonbondedOptions& options) : kernel_(system, options) {}
  void compute(const CpuTermInput& in, std::vector<Vec3>& forces, Energies& e) override;

 private:
  CpuNonbonded kernel_;
};

/// Reciprocal space through a ReciprocalSolver (FFTW PME, Ewald, or the CUDA PME), with the
/// Ewald self and net-charge energies; the solver times its phases ("pme.*").
class CpuReciprocalTerm final : public CpuForceTerm {
 public:
  CpuReciprocalTerm(std::unique_ptr<ReciprocalSolver> solver, const EwaldSetup& ewald, const System& system);
  void compute(const CpuTermInput& in, std::vector<Vec3>& forces, Energies& e) override;

 private:
  std::unique_ptr<ReciprocalSolver> solver_;
  const std::vector<double>& charges_;
  double beta_, self_, netCharge_;
};

/// The topology's bonded terms, then the Ewald exclusion correction of its excluded pairs;
/// phases "bonded" and "exclusion correction".
class CpuBondedTerm final : public CpuForceTerm {
 public:
  explicit CpuBondedTerm(std::unique_ptr<CpuBonded> kernel) : kernel_(std::move(kernel)) {}
  void compute(const CpuTermInput& in, std::vector<Vec3>& forces, Energies& e) override;

 private:
  std::unique_ptr<CpuBonded> kernel_;
};

}  // namespace faraday
