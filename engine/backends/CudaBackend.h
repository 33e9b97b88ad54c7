#pragma once
#include <memory>
#include <string>
#include <vector>

#include "engine/backends/Backend.h"
#include "engine/backends/CudaShare.h"
#include "kernels/multigpu/PeerSum.h"
#include "kernels/pme/SlabPme.h"
#include "kernels/neighbor/TileList.h"

namespace faraday {

/// Counts of the GPU tile list, for benchmarks and tests.
struct TileListStats {
  long long tiles = 0;           ///< tiles of the last build (diagonal included)
  long long pairsEvaluated = 0;  ///< 32 x 32 per tile minus the diagonal tiles' halves and empty lanes
  long long pairsInCutoff = 0;   ///< listed pairs within the cutoff at the reference positions
  long long builds = 0;
  std::size_t deviceBytes = 0;   ///< device memory of the whole backend
};

/// The whole step on the GPU. The state (positions and velocities in double, the 64-bit
/// fixed-point forces, the tile list, the PME grids) lives on the device for the whole run,
/// in slots sorted along a space-filling curve (TileList.h). A step is one CUDA graph:
///   first half of the integrator (and the displacement test) -> [if an atom moved more
///   than half the buffer: sort, permute, build the tile list] -> short-range tiles ->
///   PME -> second half of the integrator [-> energies, on reporting steps].
/// The host reads a few flags every check (reporting steps and every kCheckInterval steps):
/// a list or PME bin overflow rolls the state back to the last check, grows the storage
/// and runs those steps again, so no step ever runs with a truncated list.
class CudaBackend : public Backend {
 public:
  /// `exclusionOffsets`/`exclusions`: optional CSR lists of the partners whose pair
  /// interactions each particle skips (both directions).
  /// `params`: checked by checkCutoffRun for `system`'s box on the GPU (cutoffRunParams does).
  CudaBackend(const CutoffRunParams& params, const System& system, Timers* timers,
              const std::vector<int>* exclusionOffsets = nullptr, const std::vector<int>* exclusions = nullptr);
  ~CudaBackend() override;

  std::string name() const override;
  void setState(const State& state, const std::vector<Vec3>& listReference) override;
  void getState(State& state) override;
  std::vector<Vec3> listReference() override;
  void snapshot(State& state, std::vector<Vec3>& listReference) override;
  Energies computeForces() override;
  const std::vector<Vec3>& forces() override;
  void advance(bool withEnergies) override;
  Energies energies() override;
  double kineticEnergy() override;
  long nonFiniteParticle() override;
  long long neighborListBuilds() const override;
  /// pos (double4 per slot) and charge of the slots, on the stream every step runs on.
  DeviceFrame deviceFrame() override;
  void settle() override;
  /// The volume move (CudaVolumeMove.cu): the molecules scaled on the device, the list sorted
  /// and built, forces and energies evaluated; a rejected move goes back to the copy the
  /// roll-back keeps (CudaDeviceState::save).
  Energies scaleVolume(const Box& box) override;
  void finishVolumeMove(bool accept) override;

  /// The tile list of the last build, for the CPU walker and tests.
  HostTileList tileList();
  TileListStats tileListStats();
  /// The list build (sort, permutation, cells, bounds, tiles), the short-range kernel
  /// (forces only), the constraint kernels of a step (both halves; 0 without constraints)
  /// and the integrator's two halves alone, ms per call, each averaged over `repeats` calls
  /// timed by CUDA events. The list is rebuilt at the current positions; the constraint and
  /// integrator kernels run on a saved state, put back after them; the forces are evaluated
  /// again.
  struct KernelTimes {
    double buildMs = 0, tilesMs = 0, constraintsMs = 0, firstHalfMs = 0, secondHalfMs = 0;
  };
  KernelTimes timeKernels(int repeats);
  /// Steps rolled back and run again after an overflow, so far.
  long long stepsRedone() const;
  /// Shrinks the tile list's storage to `tiles` (for tests of its growth).
  void limitTileCapacityForTesting(int tiles);
  /// Makes this backend one GPU of several (CudaShare.h): it computes its share of the forces
  /// (PME only where share.work.pme) and sums the partial forces with the others at every
  /// evaluation. Call before setState, on the thread that drives this GPU.
  void shareWork(const CudaBackendShare& share);
  /// PME split in slabs (after shareWork): this GPU's buffers for its peers, and the
  /// connection to every rank's (by rank; peer access enabled), which turns the transposes
  /// into direct stores.
  PmeSlabPeer pmeSlabPeer();
  void connectPmeSlabPeers(const std::vector<PmeSlabPeer>& peers);
  /// The direct sum of the forces (share.directSum, after shareWork): this GPU's buffers for
  /// its peers, and the connection to every rank's (by rank; peer access enabled).
  PeerSumAddresses peerSumAddresses();
  void connectPeerSum(const std::vector<PeerSumAddresses>& all);
  /// With the update split (share.work.updateSplit): this GPU's velocities and forces of its
  /// own slots into every other GPU's (every GPU calls it at the same point; a barrier first).
  void shareOwnSlots();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace faraday
