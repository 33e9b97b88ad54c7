#pragma once
// The CUDA backend's insides (CudaBackend.h): the device state, the list of force terms
// (CudaForceTerm.cuh), the step graph's pieces and the host-side control, shared by
// CudaBackend.cu (the Backend interface, the checks and roll-back), CudaBackendSetup.cu (the
// setup and the terms' registration) and CudaVolumeMove.cu (the barostat's volume moves).
#if defined(FARADAY_HAVE_CUDA)
#include <cuda_runtime.h>

#include <algorithm>
#include <array>
#include <optional>
#include <climits>
#include <cstddef>
#include <cstdio>

#include "engine/backends/CudaBackend.h"
#include "core/Error.h"
#include "core/Units.h"
#include "core/Virial.h"
#include "engine/backends/CudaDeviceState.cuh"
#include "engine/backends/CudaForceTerm.cuh"
#include "engine/backends/CudaPmeTerm.cuh"
#include "engine/backends/CudaTileTerm.cuh"
#include "engine/backends/CudaPhaseTimer.cuh"
#include "engine/backends/CudaStepGraph.cuh"
#include "engine/backends/CudaStepPolicy.h"
#include "engine/config/RunParams.h"
#include "integrators/CudaConstraints.h"
#include "integrators/CudaIntegrator.h"
#include "kernels/common/CudaCheck.h"
#include "kernels/common/CudaOwners.h"
#include "kernels/common/DeviceBuffer.h"
#include "kernels/multigpu/CudaPeerSum.h"
#include "kernels/neighbor/CudaTileList.h"
#include "kernels/nonbonded/CpuNonbonded.h"
#include "kernels/nonbonded/CpuTileWalker.h"
#include "kernels/nonbonded/LjTable.h"
#include "kernels/pme/Electrostatics.h"
#include "kernels/pme/PmeGridGeometry.h"
#include "kernels/vsites/CudaVirtualSites.h"

namespace faraday::cuda_backend {

/// The device's highest stream priority: PME's kernels take SMs before the waiting tile blocks.
inline int highestPriority() {
  int least = 0, greatest = 0;
  FARADAY_CUDA_CHECK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
  return greatest;
}

/// Whether the topology gives the bonded kernels work (terms, or exclusions to correct).
inline bool hasBondedWork(const Topology& t) { return t.hasBondedTerms() || t.hasExclusions(); }

/// A force term's stream beside the main one, and the event the main stream waits for.
struct SideStream {
  explicit SideStream(bool highPriority) : stream(highPriority ? highestPriority() : 0) {}
  CudaStream stream;
  CudaEvent join{cudaEventDisableTiming};
};

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
  CudaStream mainStream;
  /// Per force term, its stream beside the tiles (null: it runs on the main stream).
  std::vector<std::unique_ptr<cuda_backend::SideStream>> sideStreams;
  CudaEvent fork{cudaEventDisableTiming};                    ///< the side streams start here
  DeviceValue<IntegratorBox> integratorBox{"integrator box"};  ///< integ.box
  CudaPhaseTimer phases{timers, {}};  ///< the table is the terms' (phaseTable), set once they are made
  std::array<CudaEvent, 3> kernelEvents = makeCudaEvents<3>();  ///< timeKernels()

  std::unique_ptr<CudaDeviceState> dev;
  std::vector<int> exclusionOffsets_, exclusions_;
  SlotGroups slotGroups;  ///< hydrogens kept beside their heavy atoms in the slot order
  /// The tile kernel corrects the excluded pairs inside slot groups (TileGroupExclusions).
  bool groupCorrection = false;
  std::unique_ptr<CudaTileList> list;
  /// The step's force terms in registration order (CudaBackendSetup.cu: makeForceTerms):
  /// their rows of the phase table, their sums end to end, their energies added in this order.
  std::vector<std::unique_ptr<CudaForceTerm>> terms;
  CudaTileTerm* tiles = nullptr;      ///< the tiles' term (timeKernels)
  CudaPmeOnDevice* pme = nullptr;     ///< PME's solver, in its term (null without PME)
  std::unique_ptr<CudaConstraints> constraints;  ///< null without constraints
  /// The virtual sites (null without): built after the first half, their forces spread after
  /// the force terms.
  std::unique_ptr<CudaVirtualSites> sites;
  std::vector<int> pairType;           ///< per particle: the tile kernel's LJ class (or typed type)
  CudaStepGraph graph{*this, phases};
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

  /// Registers a force term (CudaBackendSetup.cu: makeForceTerms): its sums after the
  /// others', its stream beside the tiles where it runs there.
  template <class Term>
  Term* addTerm(std::unique_ptr<Term> term) {
    Term* t = term.get();
    t->placeSums(forceTermSums());
    sideStreams.push_back(t->besideOthers() ? std::make_unique<cuda_backend::SideStream>(t->highPriority()) : nullptr);
    terms.push_back(std::move(term));
    return t;
  }
  /// The terms' fixed-point sums, end to end.
  int forceTermSums() const {
    int at = 0;
    for (const auto& t : terms) at = std::max(at, t->sumsAt() + t->sumCount());
    return at;
  }
  /// Drops PME's term (PME computed on another GPU of the group; the sums keep their layout).
  void dropPme();
  /// The terms' rows of the phase table, for CudaStepGraph::phases.
  int forceRows() const override {
    int rows = 0;
    for (const auto& t : terms) rows += int(t->phaseRows().size());
    return rows;
  }
  /// The phase table of this system's step, on one GPU or one of `several`.
  std::vector<CudaTimedPhase> phaseTable(bool several) const;
  /// Where the finalize kernel finds PME's fixed-point sums when it is split (past the sums
  /// without PME: zeros).
  int pmeSumsAt() const;
  /// The arrays the force terms read and write.
  CudaTermArrays termArrays() const;

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
  /// PME's own sums (null without PME, or when split: then its fixed-point sums, pmeSumsAt).
  const double* pmeSums() const { return pme && !pmeSplit() ? pme->energyAndVirial() : nullptr; }
  /// PME split over the GPUs of a step in slabs (CudaBackend::shareWork).
  bool pmeSplit() const { return pme && share && share->work.pmeSlabs; }

  // ---- The pieces of a step (CudaStepWork) ---------------------------------------------

  /// The integrator's parameters of a step's first halves: with Langevin and energies, the
  /// step's midpoint kinetic energy into its sum.
  CudaIntegratorParams firstHalfParams(bool energies) const {
    CudaIntegratorParams p = integ;
    if (energies && integ.langevin) p.stepKinetic = dev->nbSums.data() + dev->sumLayout.stepKineticAt();
    return p;
  }

  void enqueueConstraints(cudaStream_t s, bool first, bool energies) override {
    if (!constraints) return;
    if (first)
      constraints->enqueueFirstHalf(s, atoms(), firstHalfParams(energies), dev->status.data(), dev->slotOfAtom.data());
    else
      constraints->enqueueSecondHalf(s, atoms(), integ, dev->status.data(), dev->slotOfAtom.data(),
                                     energies ? dev->nbSums.data() + dev->sumLayout.constraintsAt() : nullptr, true);
  }

  /// The first half; with the update split of this GPU's slots, then the positions'
  /// all-gather and the other slots' wrapped positions, fractions and displacement test.
  void enqueueFirstHalf(cudaStream_t s, cudaGraphConditionalHandle rebuild, bool energies) override {
    const CudaIntegratorParams params = firstHalfParams(energies);
    if (!updateSplit() && sites) {  // the sites after their atoms; they decide the list build
      launchFirstHalf(s, atoms(), params, dev->status.data(), nullptr, /*decideRebuild=*/false);
      launchBuildSites(s, atoms(), integ, *sites, dev->slotOfAtom.data(), dev->status.data(), &rebuild);
      return;
    }
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

  /// The force terms into the (cleared) fixed-point forces: one after the other on `s` (timed
  /// steps, so that each row has its interval, and outside graphs), or those that run beside
  /// the others each on its stream (the sums are integer atomics, so the order does not matter).
  void enqueueForces(cudaStream_t s, bool energies, CudaPhaseTimer* timer, bool concurrent, bool inStep) override {
    const CudaTermArrays arrays = termArrays();
    const auto beside = [&](std::size_t k) { return concurrent && sideStreams[k] != nullptr; };
    bool forked = false;
    for (std::size_t k = 0; k < terms.size(); ++k) {
      if (!beside(k)) continue;
      if (!forked) FARADAY_CUDA_CHECK(cudaEventRecord(fork.get(), s));
      forked = true;
      const cudaStream_t on = sideStreams[k]->stream.get();
      FARADAY_CUDA_CHECK(cudaStreamWaitEvent(on, fork.get(), 0));
      terms[k]->enqueue(on, arrays, energies, nullptr);
      FARADAY_CUDA_CHECK(cudaEventRecord(sideStreams[k]->join.get(), on));
    }
    std::optional<CudaTermMarks> marks;
    if (timer) marks.emplace(*timer, CudaStepGraph::kFirstForceEvent, CudaStepGraph::stepEvents(forceRows()));
    for (std::size_t k = 0; k < terms.size(); ++k) {
      if (beside(k)) continue;
      terms[k]->enqueue(s, arrays, energies, marks ? &*marks : nullptr);
      if (marks) marks->nextTerm(terms[k]->detailEvents());
    }
    for (std::size_t k = 0; k < terms.size(); ++k)
      if (beside(k)) FARADAY_CUDA_CHECK(cudaStreamWaitEvent(s, sideStreams[k]->join.get(), 0));
    if (sites)  // every term's force on a site is in: onto its atoms, in fixed point
      sites->enqueueSpread(s, dev->pos.data(), dev->slotOfAtom.data(), dev->force.data(), dev->stride,
                           energies ? dev->nbSums.data() + dev->sumLayout.sitesAt() : nullptr);
    // Several GPUs: every one holds its partial sums; afterwards all hold the totals (in a
    // step with the update split, each GPU those of its own slots).
    if (peerSum && inStep && updateSplit()) peerSum->enqueueScatter(s, dev->bounds.data());
    else if (peerSum) peerSum->enqueue(s, dev->bounds.data());  // the slots cut by cutTiles
    else if (share) share->reduce(s, dev->force.data(), 3 * dev->stride, dev->nbSums.data(),
                                  std::size_t(dev->sumLayout.terms));
    if (marks) timer->recordInCapture(marks->nextRowEvent(), s);
  }
  /// This GPU's share of the work (all of it while wholeList: cutTiles' list).
  WorkShare work() const { return share && !wholeList ? share->work : WorkShare{}; }
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
      enqueueShareOwn(s, CudaPeerSum::kVelocities, dev->nbSums.data() + dev->sumLayout.constraintsAt(),
                      dev->sumLayout.count() - dev->sumLayout.constraintsAt());
      launchKineticEnergy(s, allAtoms(), dev->keParts.data());
    }
    dev->enqueueFinalize(s, pmeSumsAt(), pmeSums());
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
                                     dev->nbSums.data() + dev->sumLayout.constraintsAt(), false);
    launchKineticEnergy(s, allAtoms(), dev->keParts.data());
    dev->enqueueFinalize(s, pmeSumsAt(), pmeSums());
  }

  /// The energies of the last evaluation or step; `afterStep`: of a step with energies, whose
  /// Langevin kinetic energy becomes stepKinetic.
  Energies readEnergies(bool afterStep = false) {
    const DeviceEnergies d = fromDevice(dev->deviceEnergies.data(), stream());
    if (afterStep && integ.langevin) {
      stepKinetic = d.sums[dev->sumLayout.stepKineticAt()];
      stepKineticAt = step;
    }
    Energies e;
    for (const auto& t : terms) t->addEnergies(CudaStepSums{d.sums, d.recip}, e);
    if (constraints) e.virial += symmetricTensor(d.sums + dev->sumLayout.constraintsAt());
    if (sites)
      for (int a = 0; a < 3; ++a)
        for (int b = 0; b < 3; ++b) e.virial.m[a][b] += d.sums[dev->sumLayout.sitesAt() + 3 * a + b];
    const double volume = box.volume();
    if (pme) {
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
    if (c.groupsTooWide && groupCorrection)
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
