#pragma once
// MD of one system on several GPUs of one host (run.devices = all or a list): one process,
// one host thread per GPU, each GPU with its own CudaBackend (its own CUDA graphs) and NCCL
// communicator. Every GPU holds the whole state and runs the same list builds and integrator
// kernels; the force work is split (WorkShare.h: tiles by block, bonded terms by warp, PME on
// rank 0) and the partial 64-bit fixed-point forces and energy sums are summed across the GPUs
// by an NCCL all-reduce inside each GPU's step graph, between the forces and the integrator's
// second half. Integer sums are exact, so every GPU integrates the one-GPU forces and the
// trajectory is the one-GPU trajectory, bit for bit, on any number of GPUs. With the update
// split (run.update_split, where the sum runs by direct stores) the sum is a reduce-scatter
// by runs of slots, each GPU integrates and constrains its own run, and the positions come
// back by an all-gather: the same arithmetic per atom, so the same bits.
#include <memory>
#include <vector>

#include "engine/backends/Backend.h"

namespace faraday {

/// The backend of several GPUs (device indices) for `params` (multiGpuRunParams). Throws
/// Error when NCCL cannot be loaded, or for a build without CUDA.
std::unique_ptr<Backend> makeCudaMultiBackend(const MultiGpuRunParams& params, const System& system, Timers* timers,
                                              const std::vector<int>& devices);

/// The fraction of a GPU's tiles that rank 0, which also runs PME, takes (cost model of
/// WorkShare.h): the tile count estimated from the density, cutoff and buffer of `run`.
double multiGpuRank0Weight(const CutoffRunParams& run, const System& system, int ranks);

/// Whether each GPU can update its own run of slots: every water and constraint cluster lies
/// within one slot group (a heavy atom and its hydrogens, SlotGroups.h), which a GPU's run
/// never cuts.
bool updateSplitPossible(const System& system);

}  // namespace faraday
