#pragma once
// The CUDA backend's insides (CudaBackend.h): the device state, the step graph's pieces and the
// host-side control, shared by CudaBackend.cu (the Backend interface, the checks and roll-back)
// and CudaVolumeMove.cu (the barostat's volume moves).
#if defined(FARADAY_HAVE_CUDA)
#include <cuda_runtime.h>

#include <algorithm>
#include <array>
#include <climits>
#include <cstddef>
#include <cstdio>

#include "engine/backends/CudaBackend.h"
#include "core/Error.h"
#include "core/Units.h"
#include "core/Virial.h"
#include "engine/backends/CudaDeviceState.cuh"
#include "engine/backends/CudaPhaseTimer.cuh"
#include "engine/backends/CudaStepGraph.cuh"
#include "engine/backends/CudaStepPolicy.h"
#include "engine/config/RunParams.h"
#include "integrators/CudaConstraints.h"
#include "integrators/CudaIntegrator.h"
#include "kernels/bonded/CudaBonded.h"
#include "kernels/common/CudaCheck.h"
#include "kernels/common/CudaOwners.h"
#include "kernels/common/DeviceBuffer.h"
#include "kernels/multigpu/CudaPeerSum.h"
#include "kernels/neighbor/CudaTileList.h"
#include "kernels/nonbonded/CpuNonbonded.h"
#include "kernels/nonbonded/CpuTileWalker.h"
#include "kernels/nonbonded/CudaNonbonded.h"
#include "kernels/nonbonded/LjTable.h"
#include "kernels/pme/CudaPme.h"
#include "kernels/pme/Electrostatics.h"
#include "kernels/pme/PmeGridGeometry.h"

namespace faraday::cuda_backend {

/// The device's highest stream priority: PME's kernels take SMs before the waiting tile blocks.
inline int highestPriority() {
  int least = 0, greatest = 0;
  FARADAY_CUDA_CHECK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
  return greatest;
}

/// Whether the topology gives the bonded kernels work (terms, or exclusions to correct).
inline bool hasBondedWork(const Topology& t) { return t.hasBondedTerms() || t.hasExclusions(); }

}  // namespace faraday::cuda_backend

namespace faraday {

struct CudaBackend::Impl final : CudaStepWork {
  const System& system;
  Timers* timers;
  int n;
  EwaldSetup ewald;
  CudaIntegratorParams integ;
  double cutoff, buffer;
  /// The current box. The step graph's kernels read it from device copies (writeBox), so a
  /// change of box (setState, a volume move) keeps the captured graphs.
  Box box;
  bool typed = false;  ///< the typed pair force instead of LJ (its energy in Energies::pair)
  DispersionCorrection dispersionAtUnitVolume;
  double coulombSelf = 0, netCharge = 0;

  // First, so that they are destroyed last (a stream's release waits for its work).
  CudaStream mainStream, pmeStream{cuda_backend::highestPriority()}, bondedStream;
  CudaEvent fork{cudaEventDisableTiming}, join{cudaEventDisableTiming};  ///< PME beside the tiles
  CudaEvent bondedJoin{cudaEventDisableTiming};                         ///< the bonded kernels beside them
  DeviceValue<IntegratorBox> integratorBox{"integrator box"};           ///< integ.box
  CudaPhaseTimer phases{timers, phaseTable(false)};
  std::array<CudaEvent, 3> kernelEvents = makeCudaEvents<3>();  ///< timeKernels()

  std::unique_ptr<CudaDeviceState> dev;
  std::vector<int> exclusionOffsets_, exclusions_;
  SlotGroups slotGroups;  ///< hydrogens kept beside their heavy atoms in the slot order
  /// Per particle its group's anchor where the tile kernel corrects the groups' excluded
  /// pairs (TileGroupExclusions); empty otherwise.
  DeviceBuffer<int> groupOfAtom{"group of atom", 0};
  std::unique_ptr<CudaTileList> list;
  std::unique_ptr<CudaNonbonded> nonbonded;
  std::unique_ptr<CudaPmeOnDevice> pme;
  std::unique_ptr<CudaBonded> bonded;  ///< null without a topology's terms or exclusions
  std::unique_ptr<CudaConstraints> constraints;  ///< null without constraints
  std::vector<int> pairType;           ///< per particle: the tile kernel's LJ class (or typed type)
  CudaStepGraph graph{*this, phases, cuda_backend::hasBondedWork(system.topology)};
  std::unique_ptr<CudaBackendShare> share;  ///< one GPU of several (null: the whole step here)
  std::unique_ptr<CudaPeerSum> peerSum;     ///< the sum over the GPUs by direct stores (share->directSum)
  bool wholeList = false;                   ///< work() is the whole work (cutTiles)

  long long step = 0;           ///< steps advanced since setState (host count)
  long long stateStep = 0;      ///< State::step at setState
  double stateTime = 0;
  long long energiesStep = -1;  ///< the step whose energies deviceEnergies holds
  long long stepsRedone = 0;
  long long savedStep = 0;      ///< the step of the roll-back copy
  long firstBad = -1;
  long long statusReadAt = -1;  ///< the step whose flags check() last read (firstBad holds them)
  bool stateSet = false;
  bool forcesValid = false;  ///< the force buffer holds F(x) of the current positions
  /// The last work enqueued was a step (update split: a step's first all-gather stores into
  /// the other GPUs' arrays at once, so after other work every GPU waits for the others first).
  bool lastWasStep = false;
  std::vector<bool> energyAt;   ///< since the last check: whether step k computed energies
  Energies lastEnergies;
  double kinetic = 0;
  /// A Langevin step's kinetic energy (of its midpoint velocities, langevinMidpointKinetic)
  /// and the step it belongs to (-1: none).
  double stepKinetic = 0;
  long long stepKineticAt = -1;
  std::vector<Vec3> hostForces;

  // Volume moves (CudaVolumeMove.cu): the molecules (moleculeStarts) and masses in input
  // order, uploaded at the first move; what a rejected move puts back besides the saved
  // device state.
  DeviceBuffer<int> moleculeStarts;
  DeviceBuffer<int> largeMolecules;  ///< molecules of at least kLargeMolecule atoms
  int largeMoleculeCount = 0;
  DeviceBuffer<double> moleculeMass;
  int molecules = 0;
  bool moveOpen = false;
  Box keptBox;
  Energies keptEnergies;
  double keptKinetic = 0;

  /// `params`: checked by checkCutoffRun for the system's box on the GPU (cutoffRunParams does).
  /// The setup (CudaBackendSetup.cu): the integrator's step parameters, the device state, the
  /// step's force terms and the box's device copies.
  Impl(const CutoffRunParams& params, const System& s, Timers* t, const std::vector<int>* exclusionOffsets,
       const std::vector<int>* exclusions);
  /// The integrator's step parameters: velocity Verlet, or Langevin BAOAB with the decay and
  /// noise variance of Langevin.h.
  void setIntegrator(const IntegratorParams& ip);
  /// The device state and the step's force terms: tiles, bonded terms and exclusion
  /// correction, constraints, the tile list and PME.
  void makeForceTerms(const CutoffRunParams& params, const std::vector<int>* exclusionOffsets,
                      const std::vector<int>* exclusions);
  /// The box, and the device copies of it that the step's kernels read (the integrator's and
  /// constraints', the tile kernel's, the bonded terms', the list's): ordered writes on the
  /// main stream, so that captured graphs read the new box at their next launch.
  void writeBox(const Box& b);
  /// A new box for everything that depends on it, after the stream's work (PME's box terms
  /// are written on its own stream). The captured graphs stay valid.
  void applyBox(const Box& b);

  /// The phase table of this system's step, on one GPU or one of `several`.
  std::vector<CudaTimedPhase> phaseTable(bool several) const {
    return CudaStepGraph::phases(cuda_backend::hasBondedWork(system.topology),
                                 system.topology.hasConstraints(), ewald.method == ElectrostaticsMethod::Pme, several);
  }

  /// The stream every step and copy runs on.
  cudaStream_t stream() const { return mainStream.get(); }
  /// Each GPU of several updates its own slots (CudaBackendShare, WorkShare::updateSplit).
  bool updateSplit() const { return peerSum && share && share->work.updateSplit; }
  /// The per-slot arrays of this GPU's updates: its own slots with the update split.
  DeviceAtoms atoms() {
    DeviceAtoms a = dev->atoms(pme != nullptr);
    if (updateSplit()) {
      a.own = dev->bounds.data() + share->work.rank;
      a.packedOthers = peerSum->packedPositions();
    }
    return a;
  }
  /// Every slot.
  DeviceAtoms allAtoms() { return dev->atoms(pme != nullptr); }
  /// With the update split: this GPU's slots of `what` (CudaPeerSum::kPositions, ...) into
  /// every other GPU's, and `extra` summed over the GPUs.
  void enqueueShareOwn(cudaStream_t s, unsigned what, unsigned long long* extra = nullptr, int extraCount = 0) {
    peerSum->enqueueShareOwn(s, dev->bounds.data(), what, extra, extraCount);
  }
  /// PME's own sums (null without PME, or when split: then the fixed-point sums at kPmeSumsAt).
  const double* pmeSums() const { return pme && !pmeSplit() ? pme->energyAndVirial() : nullptr; }
  /// PME split over the GPUs of a step in slabs (CudaBackend::shareWork).
  bool pmeSplit() const { return pme && share && share->work.pmeSlabs; }

  // ---- The pieces of a step (CudaStepWork) ---------------------------------------------

  /// The integrator's parameters of a step's first halves: with Langevin and energies, the
  /// step's midpoint kinetic energy into its sum.
  CudaIntegratorParams firstHalfParams(bool energies) const {
    CudaIntegratorParams p = integ;
    if (energies && integ.langevin) p.stepKinetic = dev->nbSums.data() + kStepKineticSumAt;
    return p;
  }

  void enqueueConstraints(cudaStream_t s, bool first, bool energies) override {
    if (!constraints) return;
    if (first)
      constraints->enqueueFirstHalf(s, atoms(), firstHalfParams(energies), dev->status.data(), dev->slotOfAtom.data());
    else
      constraints->enqueueSecondHalf(s, atoms(), integ, dev->status.data(), dev->slotOfAtom.data(),
                                     energies ? dev->nbSums.data() + kConstraintSumsAt : nullptr, true);
  }

  /// The first half; with the update split of this GPU's slots, then the positions'
  /// all-gather and the other slots' wrapped positions, fractions and displacement test.
  void enqueueFirstHalf(cudaStream_t s, cudaGraphConditionalHandle rebuild, bool energies) override {
    const CudaIntegratorParams params = firstHalfParams(energies);
    if (!updateSplit()) {
      launchFirstHalf(s, atoms(), params, dev->status.data(), &rebuild);
      return;
    }
    launchFirstHalf(s, atoms(), params, dev->status.data(), nullptr);
    enqueueShareOwn(s, CudaPeerSum::kPositions);
    launchWrapOthers(s, atoms(), integ, dev->status.data(), &rebuild);
  }

  /// A rebuild at the current positions: they become the reference, then enqueueSortAndBuild
  /// (with the update split, every GPU's velocities gathered first: the sort moves atoms
  /// between the GPUs' slots).
  void enqueueRebuild(cudaStream_t s) override {
    if (updateSplit()) enqueueShareOwn(s, CudaPeerSum::kVelocities);
    dev->ref.copyFrom(dev->pos, s);
    enqueueSortAndBuild(s);
  }

  /// Sort by the reference positions, permute every per-slot array, rebuild the list.
  void enqueueSortAndBuild(cudaStream_t s) {
    list->enqueueSort(s, dev->ref.data(), dev->atom.data(), dev->slotOfAtom.data());
    dev->enqueuePermute(s, list->newToOld());
    if (updateSplit())
      launchUpdateBounds(s, n, share->work.ranks, list->groupSortedKeys(), SlotGroups::kRankBits, dev->bounds.data(),
                         share->work.contiguous ? share->work.cuts : nullptr);
    if (constraints) constraints->enqueueOrder(s, dev->atom.data());
    launchWrapPositions(s, atoms(), integ);
    list->enqueueBuild(s, dev->ref.data(), dev->atom.data(), dev->slotOfAtom.data(), work());
  }

  /// Short-range tiles, the bonded terms, the exclusion correction and PME into the (cleared)
  /// fixed-point forces: one after the other (timed steps, so that each phase has its
  /// interval, and outside graphs), or PME and the bonded kernels each on a stream of its own
  /// beside the tiles (the sums are integer atomics, so the order does not matter).
  void enqueueForces(cudaStream_t s, bool energies, CudaPhaseTimer* timer, bool concurrent, bool inStep) override {
    const auto enqueuePme = [&](cudaStream_t on) {
      const int first = CudaStepGraph::pmeEvent(cuda_backend::hasBondedWork(system.topology));
      std::function<void(int)> mark;
      if (timer) mark = [timer, first, on](int k) { timer->recordInCapture(first + k, on); };
      pme->enqueue(on, n, dev->fractions.data(), dev->charge.data(), dev->force.data(), dev->stride, mark);
    };
    const auto enqueueBonded = [&](cudaStream_t on, int part) {
      bonded->enqueue(on, energies, dev->pos.data(), dev->slotOfAtom.data(), dev->force.data(),
                      dev->stride, dev->nbSums.data() + kBondedSumsAt, part, work());
    };
    const bool besidePme = concurrent && pme, besideBonded = concurrent && bonded;
    if (besidePme || besideBonded) FARADAY_CUDA_CHECK(cudaEventRecord(fork.get(), s));
    if (besidePme) {
      FARADAY_CUDA_CHECK(cudaStreamWaitEvent(pmeStream.get(), fork.get(), 0));
      enqueuePme(pmeStream.get());
      FARADAY_CUDA_CHECK(cudaEventRecord(join.get(), pmeStream.get()));
    }
    if (besideBonded) {
      FARADAY_CUDA_CHECK(cudaStreamWaitEvent(bondedStream.get(), fork.get(), 0));
      enqueueBonded(bondedStream.get(), kAllBondedParts);
      FARADAY_CUDA_CHECK(cudaEventRecord(bondedJoin.get(), bondedStream.get()));
    }
    nonbonded->enqueue(s, energies, *list, dev->posq.data(), dev->type.data(), dev->force.data(),
                       dev->stride, dev->nbSums.data(), work(), groupExclusions());
    int event = CudaStepGraph::kFirstForceEvent;
    if (timer) timer->recordInCapture(event++, s);
    if (bonded && !besideBonded) {
      for (const int part : {kBondedTermsPart, kExclusionCorrectionPart}) {
        enqueueBonded(s, part);
        if (timer) timer->recordInCapture(event++, s);
      }
    }
    if (besideBonded) FARADAY_CUDA_CHECK(cudaStreamWaitEvent(s, bondedJoin.get(), 0));
    if (besidePme) FARADAY_CUDA_CHECK(cudaStreamWaitEvent(s, join.get(), 0));
    else if (pme) enqueuePme(s);
    if (timer) timer->recordInCapture(event, s);
    // Several GPUs: every one holds its partial sums; afterwards all hold the totals (in a
    // step with the update split, each GPU those of its own slots).
    if (peerSum && inStep && updateSplit()) peerSum->enqueueScatter(s, dev->bounds.data());
    else if (peerSum) peerSum->enqueue(s, dev->bounds.data());  // the slots cut by cutTiles
    else if (share) share->reduce(s, dev->force.data(), 3 * dev->stride, dev->nbSums.data(), std::size_t(kConstraintSumsAt));
    if (timer) timer->recordInCapture(event + 1, s);
  }
  /// This GPU's share of the work (all of it while wholeList: cutTiles' list).
  WorkShare work() const { return share && !wholeList ? share->work : WorkShare{}; }
  TileGroupExclusions groupExclusions() const {
    return groupOfAtom.size() > 0 ? TileGroupExclusions{dev->atom.data(), groupOfAtom.data()} : TileGroupExclusions{};
  }
  bool anyGpu(bool flag) const { return share ? share->any(flag) : flag; }  ///< on any GPU of the step

  /// The second half; energies: the kinetic energy (with the update split, of every GPU's
  /// velocities, gathered with the constraint virials and the step's kinetic energies summed)
  /// and the energies' sums.
  void enqueueSecondHalf(cudaStream_t s, bool energies) override {
    const bool split = updateSplit();
    launchSecondHalf(s, atoms(), integ, dev->status.data(), pme ? pme->binsNeeded() : nullptr,
                     energies && !split ? dev->keParts.data() : nullptr);
    if (!energies) return;
    if (split) {
      enqueueShareOwn(s, CudaPeerSum::kVelocities, dev->nbSums.data() + kConstraintSumsAt,
                      kDeviceSums - kConstraintSumsAt);
      launchKineticEnergy(s, allAtoms(), dev->keParts.data());
    }
    dev->enqueueFinalize(s, pmeSums());
  }

  // ---- Host-side control --------------------------------------------------------------

  void resetStatus() {
    StepStatus s{};
    s.firstBad = INT_MAX;
    s.constraintFailure = kNoConstraintFailure;
    s.step = stateStep + step;
    s.builds = 0;
    FARADAY_CUDA_CHECK(cudaMemcpyAsync(dev->status.data(), &s, sizeof s, cudaMemcpyHostToDevice, stream()));
    FARADAY_CUDA_CHECK(cudaStreamSynchronize(stream()));
  }

  StepStatus readStatus() { return dev->readStatus(stream()); }
  TileCounters readCounters() { return fromDevice(list->counters(), stream()); }

  /// Builds the list at setState (outside any graph) until it fits its storage; with the
  /// direct sum, the tiles are first cut in contiguous runs of blocks (cutTiles).
  void buildFirstList() {
    if (share && share->directSum && !share->work.contiguous) cutTiles();
    buildListToFit();
  }

  /// Several GPUs with the direct sum: the whole list built here once, and each GPU's tiles
  /// cut as a run of blocks holding its share of them (WorkShare::cutContiguous: the same cuts
  /// on every GPU, from the same state); the sum's slots follow the cuts (with the update
  /// split, moved to group boundaries at each sort). Who computes a tile never changes a force.
  void cutTiles() {
    wholeList = true;
    buildListToFit();
    const std::vector<long long> perBlock = list->tilesPerBlock(stream());
    wholeList = false;
    share->work.cutContiguous(perBlock);
    long long own = 0;
    for (int b = share->work.cuts[share->work.rank]; b < share->work.cuts[share->work.rank + 1]; ++b)
      own += perBlock[std::size_t(b)];
    list->shrink(int(own), stream());
    graph.reset();
    launchUpdateBounds(stream(), n, share->work.ranks, nullptr, 0, dev->bounds.data(), share->work.cuts);
    FARADAY_CUDA_CHECK(cudaStreamSynchronize(stream()));
  }

  void buildListToFit() {
    for (int attempt = 0;; ++attempt) {
      enqueueSortAndBuild(stream());
      const TileCounters c = readCounters();
      if (c.tiles <= list->tileCapacity() && c.exclusionTiles <= list->exclusionCapacity()) break;
      if (attempt > 0) throw Error("tile list: the storage overflowed again after growing to fit");
      list->reserve(c.tiles, c.exclusionTiles);
      graph.reset();
    }
  }

  /// A new state (CudaBackendSetup.cu): its box applied, uploaded, the list built, the
  /// roll-back point.
  void setState(const State& state, const std::vector<Vec3>& listReference);

  /// Forces and energies at the current positions, outside the step graph; the state becomes
  /// the roll-back point.
  Energies computeForces() {
    if (!stateSet) throw Error("CudaBackend: computeForces() before setState()");
    evaluate();
    save();
    return readEnergies();
  }

  /// The forces and energy sums of the current positions (outside the step graph).
  void evaluate() {
    {
      ScopedTimer t(timers, "nonbonded");
      enqueueEvaluation(stream(), false);
      FARADAY_CUDA_CHECK(cudaStreamSynchronize(stream()));
    }
    evaluated();
  }

  /// After an evaluation's work: PME's bins checked (grown and evaluated again on overflow),
  /// the forces and energies those of the current state.
  void evaluated() {
    lastWasStep = false;
    checkPmeBins(true);
    energiesStep = step;
    forcesValid = true;
    hostForces.clear();
  }

  void enqueueKeepList(cudaStream_t s) override { list->enqueueKeepCopies(s); }

  void enqueueEvaluation(cudaStream_t s) override { enqueueEvaluation(s, true); }
  /// The cleared forces, then enqueueForces with energies (PME beside the tiles where
  /// `concurrent`), then enqueueEnergiesOutsideSteps.
  void enqueueEvaluation(cudaStream_t s, bool concurrent) {
    dev->force.zero(s);
    enqueueForces(s, true, nullptr, concurrent, false);
    if (updateSplit()) enqueueShareOwn(s, CudaPeerSum::kVelocities);  // for the kinetic energy below
    enqueueEnergiesOutsideSteps(s);
  }

  /// A PME bin overflow outside the graph: grow and evaluate again.
  void checkPmeBins(bool redo) {
    int needed = 0;
    if (pme) FARADAY_CUDA_CHECK(cudaMemcpy(&needed, pme->binsNeeded(), sizeof needed, cudaMemcpyDeviceToHost));
    const bool grow = pme && needed > pme->binCapacity();
    if (!anyGpu(grow)) return;
    if (grow) pme->growBins(needed + needed / 4 + 4);
    graph.reset();
    if (!redo) return;
    enqueueEvaluation(stream(), false);
    FARADAY_CUDA_CHECK(cudaStreamSynchronize(stream()));
  }

  /// Kinetic energy and constraint virial, then the energies summed (after enqueueForces, outside
  /// steps; every slot on every GPU).
  void enqueueEnergiesOutsideSteps(cudaStream_t s) {
    if (constraints)
      constraints->enqueueSecondHalf(s, allAtoms(), integ, dev->status.data(), dev->slotOfAtom.data(),
                                     dev->nbSums.data() + kConstraintSumsAt, false);
    launchKineticEnergy(s, allAtoms(), dev->keParts.data());
    dev->enqueueFinalize(s, pmeSums());
  }

  /// The energies of the last evaluation or step; `afterStep`: of a step with energies, whose
  /// Langevin kinetic energy becomes stepKinetic.
  Energies readEnergies(bool afterStep = false) {
    const DeviceEnergies d = fromDevice(dev->deviceEnergies.data(), stream());
    if (afterStep && integ.langevin) {
      stepKinetic = d.sums[kStepKineticSumAt];
      stepKineticAt = step;
    }
    Energies e;
    (typed ? e.pair : e.lj) = d.sums[kSumLj];
    e.coulombReal = d.sums[kSumCoulomb];
    e.virial = symmetricTensor(d.sums + kSumWxx);
    if (bonded) {
      BondedEnergies b;
      for (int k = 0; k < kBondedSlots; ++k) b.energy[std::size_t(k)] = d.sums[kBondedSumsAt + k];
      b.energy[kExclusionCorrectionSlot] += d.sums[kSumExclusionCorrection];  // the groups' pairs, in the tiles
      b.virial = symmetricTensor(d.sums + kBondedSumsAt + kBondedSumWxx);
      e.addBonded(b);
    }
    e.virial += symmetricTensor(d.recip + 1);
    if (constraints) e.virial += symmetricTensor(d.sums + kConstraintSumsAt);
    const double volume = box.volume();
    if (pme) {
      e.coulombRecip = d.recip[0];
      e.coulombSelf = coulombSelf;
      e.coulombNetCharge = ewaldNetChargeEnergy(ewald.beta, netCharge, volume);
      for (int k = 0; k < 3; ++k) e.virial.m[k][k] += e.coulombNetCharge;
    }
    e.dispersionCorrection = dispersionAtUnitVolume.energy / volume;
    for (int k = 0; k < 3; ++k) e.virial.m[k][k] += dispersionAtUnitVolume.virialDiagonal / volume;
    kinetic = d.kinetic;
    lastEnergies = e;
    return e;
  }

  // ---- Steps, checks, roll-back -------------------------------------------------------

  void launchStep(bool energies) {
    if (updateSplit() && !lastWasStep) {
      FARADAY_CUDA_CHECK(cudaStreamSynchronize(stream()));
      share->any(false);
    }
    lastWasStep = true;
    const bool timed = phases.samples(step);
    if (timed) phases.collect();  // the previous timed step of this set
    {
      ScopedTimer t(graph.needsCapture(energies, timed) ? timers : nullptr, "graph capture");
      graph.launch(stream(), energies, timed);
    }
    if (timed) phases.markPending();
    ++step;
    energyAt.push_back(energies);
  }

  void advance(bool energies) {
    if (!stateSet) throw Error("CudaBackend: advance() before setState()");
    if (!forcesValid) computeForces();
    launchStep(energies);
    if (energies || step % cuda_step::kCheckInterval == 0) check();
    if (energies) {
      energiesStep = step;
      readEnergies(true);
    }
  }

  /// Reads the flags; on an overflow rolls back to the last check, grows and runs the steps
  /// again; else keeps this state as the roll-back point.
  void check() {
    StepStatus s = readStatus();
    phases.collect();
    const TileCounters c = readCounters();
    statusReadAt = step;
    // Steps run with a list or PME bins that overflowed their storage lacked pairs, masks or
    // charges: they run again with more storage before anything they did counts (a constraint
    // that failed there, a hydrogen that flew off, a non-finite value).
    const bool listOverflow = c.tilesNeeded > list->tileCapacity() || c.exclusionNeeded > list->exclusionCapacity();
    const bool binOverflow = pme && s.pmeBinsNeeded > pme->binCapacity();
    if (anyGpu(listOverflow || binOverflow)) {
      if (listOverflow) list->reserve(c.tilesNeeded, c.exclusionNeeded);
      if (binOverflow) pme->growBins(s.pmeBinsNeeded + s.pmeBinsNeeded / 4 + 4);
      graph.reset();
      const std::vector<bool> replay = energyAt;
      restore();
      for (bool e : replay) launchStep(e);
      stepsRedone += (long long)replay.size();
      check();
      return;
    }
    if (updateSplit()) {  // each GPU checked its own atoms
      s.constraintFailure = share->minimum(s.constraintFailure);
      const unsigned long long bad = share->minimum(s.firstBad == INT_MAX ? ~0ull : (unsigned long long)s.firstBad);
      s.firstBad = bad == ~0ull ? INT_MAX : int(bad);
    }
    if (constraints) constraints->throwIfFailed(s.constraintFailure);  // stops the run (StepFailure)
    if (c.groupsTooWide && groupOfAtom.size() > 0)
      throw StepFailure("a hydrogen moved more than half of cutoff + buffer (" +
                        std::to_string(0.5 * (cutoff + buffer)) +
                        " nm) from the heavy atom it is bonded to: the molecule came apart (step " +
                        std::to_string(stateStep + step) + " or before)");
    if (s.firstBad != INT_MAX && firstBad < 0) firstBad = s.firstBad;
    save();
  }

  void save() {
    lastWasStep = false;
    dev->save(stream());
    savedStep = step;
    energyAt.clear();
  }

  /// Back to the saved state; the list is built again from the saved reference positions
  /// (no sort: the slots are those of the saved state), so the steps run again exactly, unless
  /// `listKept`: the list of the saved state was put back already (CudaTileList::takeKept, enqueuePutBackCopies).
  void restore(bool listKept = false) {
    enqueueRestore(stream(), listKept);
    restored();
  }
  void restored() {
    lastWasStep = false;
    step = savedStep;
    energyAt.clear();
  }
  void enqueueRestore(cudaStream_t s, bool listKept) {
    dev->restore(s);
    if (constraints) constraints->enqueueOrder(s, dev->atom.data());
    launchWrapPositions(s, atoms(), integ);
    if (!listKept) list->enqueueBuild(s, dev->ref.data(), dev->atom.data(), dev->slotOfAtom.data(), work());
    // The maxima and the flag of the undone steps go with them (the saved state passed check()).
    list->enqueueClearNeeded(s);
  }
  void enqueueUndo(cudaStream_t s) override {
    list->enqueuePutBackCopies(s);
    enqueueRestore(s, true);
  }

  // ---- Copies back --------------------------------------------------------------------

  void download(std::vector<Vec3>* positions, std::vector<Vec3>* velocities, std::vector<Vec3>* reference) {
    FARADAY_CUDA_CHECK(cudaStreamSynchronize(stream()));
    phases.collect();
    dev->download(positions, velocities, reference, stream());
  }

  State state() {
    State s;
    download(&s.positions, &s.velocities, nullptr);
    s.step = stateStep + step;
    s.time = stateTime + double(step) * integ.dt;
    s.box = box;
    return s;
  }

  const std::vector<Vec3>& forces() {
    hostForces = dev->forces(stream());
    return hostForces;
  }
};

}  // namespace faraday
#endif
