#include "engine/backends/CpuBackend.h"

#include <cstdio>

#include "core/Error.h"
#include "engine/backends/CpuTerms.h"
#include "integrators/BoxScaling.h"
#include "kernels/vsites/VirtualSites.h"

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
      list_(params.nonbonded.cutoff, params.buffer, threads_) {
  if (params.dispersionCorrection)
    dispersionAtUnitVolume_ = dispersionCorrection(system, params.nonbonded.cutoff, params.nonbonded.ljShift, 1.0);
  const Topology& top = system.topology;
  const BondedParams bondedParams{ewald_.method == ElectrostaticsMethod::None ? 0.0 : ewald_.beta};
  // The force terms, in the order of their forces and energies.
  terms_.push_back(std::make_unique<CpuPairTerm>(system, withThreads(params.nonbonded, threads_)));
  if (auto solver = makeReciprocalSolver(ewald_, system, useCudaReciprocal, threads_))
    terms_.push_back(std::make_unique<CpuReciprocalTerm>(std::move(solver), ewald_, system));
  if (top.hasBondedTerms() || (top.hasExclusions() && bondedParams.ewaldBeta > 0))
    terms_.push_back(std::make_unique<CpuBondedTerm>(std::make_unique<CpuBonded>(top, system.charge, bondedParams)));
  if (ewald_.method != ElectrostaticsMethod::None) {
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
  if (!state_.box.isValid()) throw Error("state: the box must be in reduced triclinic form with a finite volume");
  if (!(list_.cutoff() < state_.box.maxCutoff()))
    throw keyError("nonbonded.cutoff", std::string("must be below half ") + state_.box.maxCutoffMeaning() +
                                           " of the state's box");
  constructSites();
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

void CpuBackend::constructSites() {
  if (system_.topology.virtualSites.empty()) return;
  ScopedTimer t(timers_, "virtual sites");
  constructVirtualSites(system_.topology.virtualSites, state_.positions, state_.box);
}

Energies CpuBackend::evaluateForces() {
  if (state_.positions.size() != system_.size()) throw Error("CpuBackend: computeForces() before setState()");
  constructSites();  // where the update (or a volume move) left their atoms
  updateNeighborList();
  Energies e;
  const CpuTermInput in{state_.positions, state_.box, list_, timers_};
  for (const auto& t : terms_) t->compute(in, forces_, e);
  if (!system_.topology.virtualSites.empty()) {
    ScopedTimer t(timers_, "virtual sites");
    e.virial += spreadVirtualSiteForces(system_.topology.virtualSites, state_.positions, forces_, state_.box);
  }
  addDispersionCorrection(e);
  energies_ = e;
  return e;
}

}  // namespace faraday

namespace faraday {

Energies CpuBackend::scaleVolume(const Box& box) {
  if (!box.isValid() || !(list_.cutoff() < box.maxCutoff()))
    throw Error(std::string("volume move: the box must be in reduced form with half ") + box.maxCutoffMeaning() +
                " above the cutoff");
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
