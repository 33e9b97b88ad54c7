#include "engine/backends/CpuTerms.h"

namespace faraday {

void CpuPairTerm::compute(const CpuTermInput& in, std::vector<Vec3>& forces, Energies& e) {
  ScopedTimer t(in.timers, "nonbonded");
  const NonbondedResult nb = kernel_.compute(in.positions, in.box, in.list, forces);
  e.lj = nb.lj;
  e.pair = nb.typed;
  e.coulombReal = nb.coulombReal;
  e.virial = nb.virial;
}

CpuReciprocalTerm::CpuReciprocalTerm(std::unique_ptr<ReciprocalSolver> solver, const EwaldSetup& ewald,
                                     const System& system)
    : solver_(std::move(solver)),
      charges_(system.charge),
      beta_(ewald.beta),
      self_(ewaldSelfEnergy(ewald.beta, system.charge)),
      netCharge_(system.netCharge()) {}

void CpuReciprocalTerm::compute(const CpuTermInput& in, std::vector<Vec3>& forces, Energies& e) {
  // The solver adds its forces to those already in `forces`.
  const ReciprocalResult r = solver_->compute(in.positions, charges_, in.box, forces, in.timers);
  e.coulombRecip = r.energy;
  e.virial += r.virial;
  e.coulombSelf = self_;
  e.coulombNetCharge = ewaldNetChargeEnergy(beta_, netCharge_, in.box.volume());
  // E_net = -c/V gives the pressure -dE/dV = E_net/V, i.e. W_kk = E_net on each diagonal
  // element (P = trace W / 3V). The self term does not depend on V.
  for (int k = 0; k < 3; ++k) e.virial.m[k][k] += e.coulombNetCharge;
}

void CpuBondedTerm::compute(const CpuTermInput& in, std::vector<Vec3>& forces, Energies& e) {
  {
    ScopedTimer t(in.timers, "bonded");
    e.addBonded(kernel_->compute(in.positions, in.box, forces, kBondedTermsPart));
  }
  ScopedTimer t(in.timers, "exclusion correction");
  e.addBonded(kernel_->compute(in.positions, in.box, forces, kExclusionCorrectionPart));
}

}  // namespace faraday
