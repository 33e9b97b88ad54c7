// The CUDA backend: the Backend interface over the device state (CudaDeviceState.cuh) and the
// step graph (CudaStepGraph.cuh); the checks that roll back and run steps again after an
// overflow (see CudaBackend.h).
#include <cuda_runtime.h>
#include "engine/backends/CudaBackendImpl.cuh"

namespace faraday {

CudaBackend::CudaBackend(const CutoffRunParams& params, const System& system, Timers* timers,
                         const std::vector<int>* exclusionOffsets, const std::vector<int>* exclusions)
    : impl_(std::make_unique<Impl>(params, system, timers, exclusionOffsets, exclusions)) {}
CudaBackend::~CudaBackend() = default;

std::string CudaBackend::name() const { return "cuda"; }
void CudaBackend::setState(const State& state, const std::vector<Vec3>& listReference) {
  impl_->setState(state, listReference);
}
void CudaBackend::getState(State& state) { state = impl_->state(); }
std::vector<Vec3> CudaBackend::listReference() {
  std::vector<Vec3> r;
  impl_->download(nullptr, nullptr, &r);
  return r;
}
void CudaBackend::snapshot(State& state, std::vector<Vec3>& listReference) {
  impl_->download(&state.positions, &state.velocities, &listReference);
  state.step = impl_->stateStep + impl_->step;
  state.time = impl_->stateTime + double(impl_->step) * impl_->integ.dt;
  state.box = impl_->box;
}
Energies CudaBackend::computeForces() { return impl_->computeForces(); }
const std::vector<Vec3>& CudaBackend::forces() { return impl_->forces(); }
void CudaBackend::advance(bool withEnergies) { impl_->advance(withEnergies); }
Energies CudaBackend::energies() { return impl_->lastEnergies; }
double CudaBackend::kineticEnergy() {
  Impl& m = *impl_;
  if (m.stepKineticAt == m.step) return m.stepKinetic;
  if (m.energiesStep != m.step) {
    launchKineticEnergy(m.stream(), m.allAtoms(), m.dev->keParts.data());
    m.dev->enqueueFinalize(m.stream(), m.pmeSumsAt(), m.pmeSums());
    m.readEnergies();
    m.energiesStep = m.step;
  }
  return m.kinetic;
}

long CudaBackend::nonFiniteParticle() {
  Impl& m = *impl_;
  if (m.firstBad < 0 && m.statusReadAt != m.step) {
    const StepStatus s = m.readStatus();
    if (m.constraints) m.constraints->throwIfFailed(s.constraintFailure);
    if (s.firstBad != INT_MAX) m.firstBad = s.firstBad;
  }
  return m.firstBad;
}

DeviceFrame CudaBackend::deviceFrame() {
  Impl& m = *impl_;
  DeviceFrame f;
  f.n = m.n;
  f.positions = reinterpret_cast<const double*>(m.dev->pos.data());
  f.charges = m.dev->charge.data();
  f.netCharge = m.netCharge;
  f.stream = m.mainStream.get();
  return f;
}

void CudaBackend::settle() {
  if (!impl_->energyAt.empty()) impl_->check();
}
long long CudaBackend::neighborListBuilds() const { return impl_->readStatus().builds; }

HostTileList CudaBackend::tileList() {
  return impl_->list->toHost(impl_->stream(), impl_->dev->ref.data(), impl_->dev->atom.data());
}

TileListStats CudaBackend::tileListStats() {
  const HostTileList h = tileList();
  const TilePairCounts c = countTilePairs(h, impl_->box, impl_->cutoff);
  return TileListStats{(long long)h.info.size(), c.listed, c.inCutoff, neighborListBuilds(), impl_->list->deviceBytes()};
}

CudaBackend::KernelTimes CudaBackend::timeKernels(int repeats) {
  Impl& m = *impl_;
  CudaDeviceState& d = *m.dev;
  FARADAY_CUDA_CHECK(cudaStreamSynchronize(m.stream()));
  m.phases.collect();
  auto& e = m.kernelEvents;
  FARADAY_CUDA_CHECK(cudaEventRecord(e[0].get(), m.stream()));
  for (int r = 0; r < repeats; ++r) m.enqueueRebuild(m.stream());
  FARADAY_CUDA_CHECK(cudaEventRecord(e[1].get(), m.stream()));
  for (int r = 0; r < repeats; ++r) m.tiles->enqueue(m.stream(), m.termArrays(), false, nullptr);
  FARADAY_CUDA_CHECK(cudaEventRecord(e[2].get(), m.stream()));
  FARADAY_CUDA_CHECK(cudaEventSynchronize(e[2].get()));
  const double build = CudaEvent::elapsedMs(e[0], e[1]), tiles = CudaEvent::elapsedMs(e[1], e[2]);
  double constraints = 0;
  if (m.constraints) {
    d.save(m.stream());
    FARADAY_CUDA_CHECK(cudaEventRecord(e[0].get(), m.stream()));
    for (int r = 0; r < repeats; ++r) {
      m.enqueueConstraints(m.stream(), true, false);
      m.enqueueConstraints(m.stream(), false, false);
    }
    FARADAY_CUDA_CHECK(cudaEventRecord(e[1].get(), m.stream()));
    FARADAY_CUDA_CHECK(cudaEventSynchronize(e[1].get()));
    constraints = CudaEvent::elapsedMs(e[0], e[1]) / repeats;
    d.restore(m.stream());
  }
  // The integrator's two halves (every slot; the state put back after).
  d.save(m.stream());
  FARADAY_CUDA_CHECK(cudaEventRecord(e[0].get(), m.stream()));
  for (int r = 0; r < repeats; ++r) launchFirstHalf(m.stream(), m.atoms(), m.integ, d.status.data(), nullptr);
  FARADAY_CUDA_CHECK(cudaEventRecord(e[1].get(), m.stream()));
  for (int r = 0; r < repeats; ++r)
    launchSecondHalf(m.stream(), m.atoms(), m.integ, d.status.data(), nullptr, d.keParts.data());
  FARADAY_CUDA_CHECK(cudaEventRecord(e[2].get(), m.stream()));
  FARADAY_CUDA_CHECK(cudaEventSynchronize(e[2].get()));
  const double firstHalf = CudaEvent::elapsedMs(e[0], e[1]) / repeats, secondHalf = CudaEvent::elapsedMs(e[1], e[2]) / repeats;
  d.restore(m.stream());
  m.buildFirstList();  // grows the storage if these positions need more tiles
  m.computeForces();
  return {build / repeats, tiles / repeats, constraints, firstHalf, secondHalf};
}

long long CudaBackend::stepsRedone() const { return impl_->stepsRedone; }
void CudaBackend::shareWork(const CudaBackendShare& share) {
  Impl& m = *impl_;
  if (m.sites) throw Error("a system with virtual sites runs on one GPU");
  m.share = std::make_unique<CudaBackendShare>(share);
  m.phases.setPhases(m.phaseTable(true));
  if (share.directSum) {
    PeerSumArrays arrays;
    arrays.force = m.dev->force.data();
    arrays.stride = m.dev->stride;
    arrays.sums = m.dev->nbSums.data();
    arrays.sumCount = std::size_t(m.dev->sumLayout.terms);
    arrays.positions = m.dev->pos.data();
    arrays.velocities = m.dev->vel.data();
    m.peerSum = std::make_unique<CudaPeerSum>(share.work.rank, share.work.ranks, arrays);
  }
  // With the update split, each sort sets the bounds (the first at setState).
  if (share.work.updateSplit && !share.directSum)
    throw Error("the update split needs the forces summed by direct stores");
  if (!share.work.pme) {
    m.dropPme();  // PME runs on another GPU of the group (before setState)
  } else if (m.pme && share.work.pmeSlabs) {
    PmeSlabSplit split;
    split.rank = share.work.rank;
    split.ranks = share.work.ranks;
    split.exchange = [exchange = share.exchange](cudaStream_t s, const std::vector<PeerFloats>& sends,
                                                 const std::vector<PeerFloats>& recvs) { exchange(s, sends, recvs); };
    split.fixedSums = m.dev->nbSums.data() + m.pmeSumsAt();
    m.pme->splitSlabs(split);
  }
}

PmeSlabPeer CudaBackend::pmeSlabPeer() {
  if (!impl_->pmeSplit()) throw Error("PME is not split over GPUs on this backend");
  return impl_->pme->slabPeer();
}

void CudaBackend::connectPmeSlabPeers(const std::vector<PmeSlabPeer>& peers) {
  if (!impl_->pmeSplit()) throw Error("PME is not split over GPUs on this backend");
  impl_->pme->connectSlabPeers(peers);
  impl_->graph.reset();
}

PeerSumAddresses CudaBackend::peerSumAddresses() {
  if (!impl_->peerSum) throw Error("the forces are not summed by direct stores on this backend");
  return impl_->peerSum->addresses();
}

void CudaBackend::connectPeerSum(const std::vector<PeerSumAddresses>& all) {
  if (!impl_->peerSum) throw Error("the forces are not summed by direct stores on this backend");
  impl_->peerSum->connect(all);
  impl_->graph.reset();
}

void CudaBackend::shareOwnSlots() {
  Impl& m = *impl_;
  if (!m.updateSplit()) return;
  FARADAY_CUDA_CHECK(cudaStreamSynchronize(m.stream()));
  m.share->any(false);  // every GPU idle: no step of theirs reads or writes these arrays now
  m.enqueueShareOwn(m.stream(), CudaPeerSum::kVelocities | CudaPeerSum::kForces);
  FARADAY_CUDA_CHECK(cudaStreamSynchronize(m.stream()));
  m.lastWasStep = false;
}

void CudaBackend::limitTileCapacityForTesting(int tiles) {
  Impl& m = *impl_;
  FARADAY_CUDA_CHECK(cudaStreamSynchronize(m.stream()));
  m.list = std::make_unique<CudaTileList>(TileListParams{m.cutoff, m.buffer}, m.n, m.box, m.exclusionOffsets_,
                                          m.exclusions_, m.slotGroups);
  m.list->reserveExactlyForTesting(tiles);
  m.graph.reset();
  // Rebuild at the current reference (no sort): the list now overflows at the next build.
  m.list->enqueueBuild(m.stream(), m.dev->ref.data(), m.dev->atom.data(), m.dev->slotOfAtom.data(), m.work());
  FARADAY_CUDA_CHECK(cudaStreamSynchronize(m.stream()));
}

}  // namespace faraday
