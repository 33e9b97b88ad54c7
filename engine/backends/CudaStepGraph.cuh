#pragma once
// The CUDA backend's step as one CUDA graph: the constraints' and the integrator's first
// halves (the latter sets the condition of a conditional node whose body is the list build,
// captured on a stream of its own), then the forces and the second halves. Four variants,
// captured on first use: with energies (bit 0) and timed (bit 1: event nodes between the
// phases, the forces' phases one after the other); instantiated with node priority, so that
// kernels keep their streams' priorities.
#if defined(FARADAY_HAVE_CUDA)
#include <cuda_runtime.h>

#include <array>

#include <vector>

#include "engine/backends/CudaForceTerm.cuh"
#include "engine/backends/CudaPhaseTimer.cuh"
#include "kernels/common/CudaOwners.h"

namespace faraday {

/// What a step enqueues, implemented by the backend. `stream` is the stream being captured:
/// the main one, or the conditional node's body stream for enqueueRebuild.
class CudaStepWork {
 public:
  /// The constraints' share of a half step (nothing without constraints): before the
  /// integrator's first half (`first`) or second half [with the constraint virial].
  virtual void enqueueConstraints(cudaStream_t stream, bool first, bool energies) = 0;
  /// The integrator's first half [with the step's kinetic energy]; its last block sets
  /// `rebuild` when an atom moved more than half the buffer.
  virtual void enqueueFirstHalf(cudaStream_t stream, cudaGraphConditionalHandle rebuild, bool energies) = 0;
  /// The list build at the current positions (sort, permutation, tiles).
  virtual void enqueueRebuild(cudaStream_t stream) = 0;
  /// Short-range tiles, bonded terms and PME into the cleared forces, PME beside the rest when
  /// `concurrent`; with `timer`, an event after each phase (from event kFirstForceEvent on);
  /// `inStep`: inside a step (with the update split, the sum leaves each GPU its own slots).
  virtual void enqueueForces(cudaStream_t stream, bool energies, CudaPhaseTimer* timer, bool concurrent,
                             bool inStep) = 0;
  /// The integrator's second half [and the energies].
  virtual void enqueueSecondHalf(cudaStream_t stream, bool energies) = 0;
  /// Forces and energies at the current positions, outside steps (into the cleared forces).
  virtual void enqueueEvaluation(cudaStream_t stream) = 0;
  /// A copy of the list, which a rejected volume move puts back (its storage prepared).
  virtual void enqueueKeepList(cudaStream_t stream) = 0;
  /// A rejected volume move's roll-back: the kept list put back, the saved state restored.
  virtual void enqueueUndo(cudaStream_t stream) = 0;
  /// The force terms' rows of the phase table (CudaForceTerm::phaseRows, all terms).
  virtual int forceRows() const = 0;

 protected:
  ~CudaStepWork() = default;
};

class CudaStepGraph {
 public:
  /// The events of a timed step: 0 constraints, 1 first half, 2 list build, 3 forces, each
  /// force term's row ending at the next event (kFirstForceEvent on); then the sum over the
  /// GPUs (empty on one), the constraints and the second half, ending at the last three events.
  static constexpr int kFirstForceEvent = 4;
  /// The events of a timed step with `forceRows` rows of force terms (0 .. stepEvents() - 1);
  /// the terms' detail events come after them, term after term.
  static constexpr int stepEvents(int forceRows) { return forceRows + 7; }
  /// The phase table of a timed step: the integrator, the list, the terms' rows and detail
  /// rows, a constraints row where there are constraints, the sum of the forces over the GPUs
  /// on one of `several`, the spreading of the virtual sites' forces (which runs there on one
  /// GPU) with `sites`.
  static std::vector<CudaTimedPhase> phases(const std::vector<const CudaForceTerm*>& terms, bool constraints,
                                            bool several, bool sites = false);

  /// `timer`: the events of the timed variants (integrate, neighbor, the forces' phases,
  /// integrate; the last step event ends the step).
  CudaStepGraph(CudaStepWork& work, CudaPhaseTimer& timer) : work_(work), timer_(timer) {}

  /// Launches one step on `stream`, capturing its variant first if needed.
  void launch(cudaStream_t stream, bool energies, bool timed);
  /// Whether the next launch of this variant captures it first.
  bool needsCapture(bool energies, bool timed) const { return !graphs_[(energies ? 1 : 0) + (timed ? 2 : 0)].captured(); }
  /// A volume move's trial as one graph (captured on first use): the list's copy
  /// (enqueueKeepList), the list built at the current positions (enqueueRebuild), then
  /// enqueueEvaluation. The box is read from device memory, so one capture serves every move.
  void launchTrial(cudaStream_t stream);
  /// A rejected move's enqueueUndo as one graph (captured on first use).
  void launchUndo(cudaStream_t stream);
  /// Drops the captured graphs (after the list or the PME bins grew: they hold the old storage).
  void reset() {
    for (auto& g : graphs_) g.reset();
    trial_.reset();
    undo_.reset();
  }

 private:
  void capture(int variant, cudaStream_t stream);
  void captureListBuild(cudaGraph_t body);

  CudaStepWork& work_;
  CudaPhaseTimer& timer_;
  CudaStream bodyStream_;  ///< captures the conditional list build
  std::array<CudaGraphExec, 4> graphs_;  ///< by variant: energies (bit 0), timed (bit 1)
  CudaGraphExec trial_, undo_;
  cudaGraphConditionalHandle handles_[4] = {};
};

}  // namespace faraday
#endif
