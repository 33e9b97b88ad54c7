#include "engine/backends/CpuBackend.h"

#include <cstdio>

#include "core/Error.h"
#include "integrators/BoxScaling.h"

namespace faraday {

namespace {

/// The pair options with the backend's resolved thread count.
NonbondedOptions withThreads(NonbondedOptions options, int threads) {
  options.threads = threads;
  return options;
}

}  // namespace

CpuBackend::CpuBackend(const CutoffRunParams& params, const System& system, Timers* timers, bool useCudaReciprocal)
    : CpuBackendBase(params.threads, params.integrator, system, timers),
      useCudaReciprocal_(useCudaReciprocal),
      ewald_(params.ewald),
      list_(params.nonbonded.cutoff, params.buffer, threads_),
      nonbonded_(system, withThreads(params.nonbonded, threads_)),
      netCharge_(system.netCharge()) {
  if (params.dispersionCorrection)
    dispersionAtUnitVolume_ = dispersionCorrection(system, params.nonbonded.cutoff, params.nonbonded.ljShift, 1.0);
  reciprocal_ = makeReciprocalSolver(ewald_, system, useCudaReciprocal, threads_);
  const Topology& top = system.topology;
  const BondedParams bondedParams{ewald_.method == ElectrostaticsMethod::None ? 0.0 : ewald_.beta};
  if (top.hasBondedTerms() || (top.hasExclusions() && bondedParams.ewaldBeta > 0))
    bonded_ = std::make_unique<CpuBonded>(top, system.charge, bondedParams);
  if (ewald_.method != ElectrostaticsMethod::None) {
    coulombSelf_ = ewaldSelfEnergy(ewald_.beta, system.charge);
    std::fprintf(stderr, "%s\n", describe(ewald_).c_str());
  } else if (system.hasCharges()) {
    std::fprintf(stderr, "electrostatics.method = none: the particles' charges are ignored\n");
  }
}

std::string CpuBackend::name() const {
  return useCudaReciprocal_ ? "cpu (reciprocal space on CUDA)" : "cpu";
}

void CpuBackend::setState(const State& state, const std::vector<Vec3>& listReference) {
  if (!listReference.empty() && listReference.size() != system_.size())
    throw Error("state: the neighbor-list reference must have one entry per particle");
  takeState(state);
  if (!state_.box.isValid()) throw Error("state: the box must be rectangular with positive edges");
  if (!(2 * list_.cutoff() < state_.box.shortestEdge()))
    throw keyError("nonbonded.cutoff", "must be below half the shortest edge of the state's box");
  ScopedTimer t(timers_, "neighbor");
  // A restart rebuilds from the saved reference, so the list (and the steps at which it is
  // rebuilt later) match the uninterrupted run exactly.
  list_.build(listReference.empty() ? state_.positions : listReference, state_.box);
}

void CpuBackend::updateNeighborList() {
  ScopedTimer t(timers_, "neighbor");
  if (list_.needsRebuild(state_.positions, state_.box)) list_.build(state_.positions, state_.box);
}

void CpuBackend::addDispersionCorrection(Energies& e) const {
  const double invVolume = 1.0 / state_.box.volume();
  e.dispersionCorrection = dispersionAtUnitVolume_.energy * invVolume;
  for (int k = 0; k < 3; ++k) e.virial.m[k][k] += dispersionAtUnitVolume_.virialDiagonal * invVolume;
}

void CpuBackend::addReciprocal(Energies& e) {
  if (!reciprocal_) return;
  // The solver adds its forces to the short-range ones already in forces_.
  const ReciprocalResult r = reciprocal_->compute(state_.positions, system_.charge, state_.box, forces_, timers_);
  e.coulombRecip = r.energy;
  e.virial += r.virial;
  e.coulombSelf = coulombSelf_;
  e.coulombNetCharge = ewaldNetChargeEnergy(ewald_.beta, netCharge_, state_.box.volume());
  // E_net = -c/V gives the pressure -dE/dV = E_net/V, i.e. W_kk = E_net on each diagonal
  // element (P = trace W / 3V). The self term does not depend on V.
  for (int k = 0; k < 3; ++k) e.virial.m[k][k] += e.coulombNetCharge;
}

void CpuBackend::addBonded(Energies& e) {
  if (!bonded_) return;
  {
    ScopedTimer t(timers_, "bonded");
    e.addBonded(bonded_->compute(state_.positions, state_.box, forces_, kBondedTermsPart));
  }
  ScopedTimer t(timers_, "exclusion correction");
  e.addBonded(bonded_->compute(state_.positions, state_.box, forces_, kExclusionCorrectionPart));
}

Energies CpuBackend::evaluateForces() {
  if (state_.positions.size() != system_.size()) throw Error("CpuBackend: computeForces() before setState()");
  updateNeighborList();
  Energies e;
  {
    ScopedTimer t(timers_, "nonbonded");
    const NonbondedResult nb = nonbonded_.compute(state_.positions, state_.box, list_, forces_);
    e.lj = nb.lj;
    e.pair = nb.typed;
    e.coulombReal = nb.coulombReal;
    e.virial = nb.virial;
  }
  addReciprocal(e);
  addBonded(e);
  addDispersionCorrection(e);
  energies_ = e;
  return e;
}

}  // namespace faraday

namespace faraday {

Energies CpuBackend::scaleVolume(const Box& box) {
  if (!box.isValid() || !(2 * list_.cutoff() < box.shortestEdge()))
    throw Error("volume move: the box must be rectangular with edges above twice the cutoff");
  if (moleculeStarts_.empty()) moleculeStarts_ = moleculeStarts(system_.topology, int(system_.size()));
  kept_ = std::make_unique<Kept>(Kept{state_.positions, forces_, state_.box, list_, energies_});
  scaleMolecules(state_.positions, system_.mass, moleculeStarts_, boxScaling(state_.box, box));
  state_.box = box;
  {
    ScopedTimer t(timers_, "neighbor");
    list_.build(state_.positions, state_.box);
  }
  evaluateForces();
  return energies();
}

void CpuBackend::finishVolumeMove(bool accept) {
  if (!kept_) throw Error("finishVolumeMove() without scaleVolume()");
  if (!accept) {
    state_.positions = std::move(kept_->positions);
    forces_ = std::move(kept_->forces);
    state_.box = kept_->box;
    list_ = std::move(kept_->list);
    energies_ = kept_->energies;
  }
  kept_.reset();
}

}  // namespace faraday
