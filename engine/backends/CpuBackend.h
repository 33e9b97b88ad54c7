#pragma once
#include <memory>
#include <string>
#include <vector>

#include "engine/backends/CpuBackendBase.h"
#include "engine/backends/CpuForceTerm.h"
#include "kernels/neighbor/NeighborList.h"
#include "kernels/pme/Electrostatics.h"

namespace faraday {

/// The double-precision oracle: cell-list Verlet list and its force terms (CpuTerms.h: the
/// OpenMP pair loop, reciprocal space through a ReciprocalSolver (CPU FFTW PME, or the CUDA
/// PME when `useCudaReciprocal`), the topology's bonded terms and the Ewald exclusion
/// correction), velocity Verlet or Langevin BAOAB. Virtual sites are built from their atoms before
/// every evaluation and their forces spread back after it (the virial with their correction).
/// Phase times: "neighbor", "nonbonded", "bonded", "exclusion correction", "pme.*" (timed by the
/// solver), "virtual sites", "integrate".
/// The virial holds the pair virial, the reciprocal solver's tensor, and two isotropic
/// terms that come from the volume dependence of energies rather than from forces: the
/// dispersion correction (DispersionCorrection::virialDiagonal) and the net-charge term
/// (E_net on each diagonal element, since E_net ~ 1/V).
class CpuBackend : public CpuBackendBase {
 public:
  /// `params`: checked by checkCutoffRun for `system`'s box (cutoffRunParams does).
  CpuBackend(const CutoffRunParams& params, const System& system, Timers* timers, bool useCudaReciprocal = false);

  std::string name() const override;
  void setState(const State& state, const std::vector<Vec3>& listReference) override;
  std::vector<Vec3> listReference() override { return list_.reference(); }
  long long neighborListBuilds() const override { return list_.builds(); }

  const EwaldSetup& ewaldSetup() const { return ewald_; }

  Energies scaleVolume(const Box& box) override;
  void finishVolumeMove(bool accept) override;

 protected:
  Energies evaluateForces() override;

 private:
  void updateNeighborList();
  /// The virtual sites at the current positions of their atoms.
  void constructSites();
  void addDispersionCorrection(Energies& e) const;

  bool useCudaReciprocal_;
  EwaldSetup ewald_;
  NeighborList list_;
  /// The evaluation's force terms in order: pairs, reciprocal space, bonded terms.
  std::vector<std::unique_ptr<CpuForceTerm>> terms_;
  /// Dispersion correction at V = 1 nm^3 (zero when off): both terms scale as 1/V, so a
  /// step only divides by the current volume.
  DispersionCorrection dispersionAtUnitVolume_;
  std::vector<int> moleculeStarts_;  ///< moleculeStarts() (filled at the first volume move)
  /// What a rejected volume move puts back.
  struct Kept {
    std::vector<Vec3> positions, forces;
    Box box;
    NeighborList list;
    Energies energies;
  };
  std::unique_ptr<Kept> kept_;
};

}  // namespace faraday
