#include "engine/backends/CudaMultiBackend.h"

#include <cmath>

#include "core/Error.h"
#include "core/Units.h"
#include "integrators/Constraints.h"
#include "kernels/neighbor/SlotGroups.h"
#include "kernels/common/Device.h"
#include "kernels/common/WorkShare.h"
#include "kernels/pme/Electrostatics.h"
#include "kernels/pme/SlabPme.h"
#if defined(FARADAY_HAVE_CUDA)
#include "engine/backends/CudaBackend.h"
#include "engine/backends/RankThreads.h"
#include "kernels/multigpu/GpuGroup.h"
#endif

namespace faraday {

double multiGpuRank0Weight(const CutoffRunParams& run, const System& system, int ranks) {
  const double n = double(system.size()), volume = system.box.volume();
  // Tiles: each atom's partners within cutoff + buffer, each pair once, 32 x 32 pairs per
  // tile of which about a third lie within that reach (the blocks' bounding boxes).
  const double reach = run.nonbonded.cutoff + run.buffer;
  const double partners = n / volume * 4.0 / 3.0 * units::kPi * reach * reach * reach;
  const double tiles = n * partners / 2.0 / (32.0 * 32.0 / 3.0) + n / 32.0;
  const EwaldSetup& ewald = run.ewald;
  const double grid = ewald.method == ElectrostaticsMethod::Pme ? double(ewald.pme.grid[0]) * ewald.pme.grid[1] * ewald.pme.grid[2] : 0.0;
  return rank0TileWeight(ranks, tiles, grid, grid > 0 ? n : 0.0);
}

bool updateSplitPossible(const System& system) {
  if (!system.topology.hasConstraints()) return true;
  const ConstraintSet set = makeConstraintSet(system);
  const SlotGroups groups = hydrogenSlotGroups(system);
  if (groups.empty()) return false;
  const auto oneGroup = [&](const int* atoms, int count) {
    for (int k = 1; k < count; ++k)
      if (groups.anchor[std::size_t(atoms[k])] != groups.anchor[std::size_t(atoms[0])]) return false;
    return true;
  };
  for (const SettleWater& w : set.waters) {
    const int atoms[3] = {w.oxygen, w.oxygen + 1, w.oxygen + 2};
    if (!oneGroup(atoms, 3)) return false;
  }
  for (const ConstraintCluster& c : set.clusters)
    if (!oneGroup(set.clusterAtoms.data() + c.firstAtom, c.atomCount)) return false;
  return true;
}

#if defined(FARADAY_HAVE_CUDA)
namespace {

class CudaMultiBackend final : public Backend {
 public:
  CudaMultiBackend(const MultiGpuRunParams& multi, const System& system, Timers* timers,
                   const std::vector<int>& devices)
      : group_(devices), threads_(devices), ranks_(devices.size()) {
    const int ranks = int(devices.size());
    const CutoffRunParams& params = multi.run;
    const EwaldSetup& ewald = params.ewald;
    const PmeSplit split = multi.pmeSplit;
    pmeSlabs_ = ewald.method == ElectrostaticsMethod::Pme && slabSplitPossible(ewald.pme, ranks) &&
                (split == PmeSplit::Slabs || split == PmeSplit::SlabsNccl ||
                 (split == PmeSplit::Auto && slabSplitPays(ewald.pme)));
    // The transposes as direct stores into the peers' memory where every pair of GPUs has
    // peer access (NVLink, or PCIe where allowed); else by NCCL send and receive.
    const bool peers = allPeersReachable(devices);
    pmeDirect_ = pmeSlabs_ && split != PmeSplit::SlabsNccl && peers;
    directSum_ = multi.gpuSum == GpuSum::Auto && peers;
    // auto: where constraints make the update a large share of the step, or with PME in slabs
    // on 4 GPUs or more, where the reduce-scatter saves more than the positions' all-gather
    // costs (4 H200: NaCl 1M 0.727 -> 0.717 ms a step; on 2, 1.077 -> 1.116; argon 256k,
    // no PME, 0.123 -> 0.134 on 4).
    const UpdateSplit mode = multi.updateSplit;
    const bool splitPays = system.topology.hasConstraints() || (pmeSlabs_ && ranks >= 4);
    updateSplit_ = directSum_ && (mode == UpdateSplit::On || (mode == UpdateSplit::Auto && splitPays)) &&
                   updateSplitPossible(system);
    std::vector<WorkShare> shares =
        pmeSlabs_ ? makeSlabWorkShares(ranks) : makeWorkShares(ranks, multiGpuRank0Weight(params, system, ranks));
    for (WorkShare& w : shares) w.updateSplit = updateSplit_;
    threads_.run([&](int r) {
      // The phase table is rank 0's (it runs PME and its tiles); the others keep no timers.
      auto backend = std::make_unique<CudaBackend>(params, system, r == 0 ? timers : nullptr);
      CudaBackendShare share;
      share.work = shares[std::size_t(r)];
      share.directSum = directSum_;
      share.reduce = [this, r](void* stream, unsigned long long* force, std::size_t forces, unsigned long long* sums,
                               std::size_t sumCount) { group_.allReduceSum(r, force, forces, sums, sumCount, stream); };
      share.any = [this](bool flag) { return threads_.any(flag); };
      share.minimum = [this](unsigned long long value) { return threads_.minimum(value); };
      share.exchange = [this, r](void* stream, const std::vector<PeerFloats>& sends,
                                 const std::vector<PeerFloats>& recvs) { group_.exchange(r, sends, recvs, stream); };
      backend->shareWork(share);
      ranks_[std::size_t(r)] = std::move(backend);
    });
    if (pmeDirect_ || directSum_) {
      std::vector<PmeSlabPeer> slabPeers(devices.size());
      std::vector<PeerSumAddresses> sumPeers(devices.size());
      threads_.run([&](int r) {
        for (int d : devices)
          if (d != devices[std::size_t(r)]) enablePeerAccess(d);
        if (pmeDirect_) slabPeers[std::size_t(r)] = ranks_[std::size_t(r)]->pmeSlabPeer();
        if (directSum_) sumPeers[std::size_t(r)] = ranks_[std::size_t(r)]->peerSumAddresses();
      });
      threads_.run([&](int r) {
        if (pmeDirect_) ranks_[std::size_t(r)]->connectPmeSlabPeers(slabPeers);
        if (directSum_) ranks_[std::size_t(r)]->connectPeerSum(sumPeers);
      });
    }
  }

  ~CudaMultiBackend() override {
    // Each GPU's backend is released on its own thread (its device current).
    try {
      threads_.run([&](int r) { ranks_[std::size_t(r)].reset(); });
    } catch (...) {
    }
  }

  std::string name() const override {
    return "cuda x " + std::to_string(ranks_.size()) + " GPUs, PME " +
           (pmeSlabs_ ? (pmeDirect_ ? "in slabs" : "in slabs by NCCL") : "on the first") + ", forces summed " +
           (directSum_ ? "by direct stores" : "by NCCL") + (updateSplit_ ? ", each updating its own atoms" : "");
  }

  void setState(const State& state, const std::vector<Vec3>& listReference) override {
    threads_.run([&](int r) { ranks_[std::size_t(r)]->setState(state, listReference); });
  }
  void getState(State& state) override {
    shareOwnSlots();
    first().getState(state);
  }
  std::vector<Vec3> listReference() override { return first().listReference(); }
  void snapshot(State& state, std::vector<Vec3>& listReference) override {
    shareOwnSlots();
    first().snapshot(state, listReference);
  }
  Energies computeForces() override {
    threads_.run([&](int r) { ranks_[std::size_t(r)]->computeForces(); });
    return first().energies();
  }
  const std::vector<Vec3>& forces() override {
    shareOwnSlots();
    return first().forces();
  }
  void advance(bool withEnergies) override {
    threads_.run([&](int r) { ranks_[std::size_t(r)]->advance(withEnergies); });
  }
  Energies energies() override { return first().energies(); }
  double kineticEnergy() override {
    shareOwnSlots();
    return first().kineticEnergy();
  }
  long nonFiniteParticle() override {
    // Each GPU checks its own atoms: the checks of pending steps combine them (settle).
    if (updateSplit_) settle();
    return first().nonFiniteParticle();
  }
  long long neighborListBuilds() const override { return ranks_[0]->neighborListBuilds(); }
  DeviceFrame deviceFrame() override { return first().deviceFrame(); }
  void settle() override {
    threads_.run([&](int r) { ranks_[std::size_t(r)]->settle(); });
  }
  /// A volume move on every GPU at once: each scales its copy of the state alike and takes
  /// part in the trial evaluation (its forces and sums reduced with the others'); rank 0's
  /// energies (with PME's) decide, and every GPU keeps or puts back its state.
  Energies scaleVolume(const Box& box) override {
    threads_.run([&](int r) { ranks_[std::size_t(r)]->scaleVolume(box); });
    return first().energies();
  }
  void finishVolumeMove(bool accept) override {
    threads_.run([&](int r) { ranks_[std::size_t(r)]->finishVolumeMove(accept); });
  }

 private:
  /// Rank 0: every GPU holds the same state; rank 0 also has PME's energies. Its device is
  /// the calling thread's (makeCudaMultiBackend makes it current).
  CudaBackend& first() { return *ranks_[0]; }
  /// With the update split, every GPU's own velocities and forces to every GPU, so that rank
  /// 0 holds them all.
  void shareOwnSlots() {
    if (updateSplit_) threads_.run([&](int r) { ranks_[std::size_t(r)]->shareOwnSlots(); });
  }

  GpuGroup group_;  // first: destroyed after the backends and the threads
  bool pmeSlabs_ = false, pmeDirect_ = false, directSum_ = false, updateSplit_ = false;
  RankThreads threads_;
  std::vector<std::unique_ptr<CudaBackend>> ranks_;
};

}  // namespace
#endif

std::unique_ptr<Backend> makeCudaMultiBackend(const MultiGpuRunParams& params, const System& system, Timers* timers,
                                              const std::vector<int>& devices) {
#if defined(FARADAY_HAVE_CUDA)
  if (devices.size() < 2) throw Error("the multi-GPU backend needs at least two GPUs");
  useCudaDevice(devices[0]);  // the caller's reads (state, energies, device frames) go to rank 0
  return std::make_unique<CudaMultiBackend>(params, system, timers, devices);
#else
  (void)params, (void)system, (void)timers, (void)devices;
  throw keyError("run.devices", "several GPUs need a build with CUDA");
#endif
}

}  // namespace faraday
