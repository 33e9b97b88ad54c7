#pragma once
// The GPUs of one host working together through NCCL: one communicator per GPU, made by
// ncclCommInitAll in this process (a host thread drives each GPU). NCCL is loaded when a
// group is first made (libnccl.so.2, found by the dynamic loader: LD_LIBRARY_PATH), so a
// build and its single-GPU runs never need it. NVLink multicast (NVLS) stays off:
// NCCL_NVLS_ENABLE=0 unless the environment already sets it.
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "kernels/common/PeerFloats.h"

namespace faraday {

/// Whether this build can use several GPUs (CUDA and NCCL's header were found).
bool builtWithNccl();

class GpuGroup {
 public:
  /// A communicator for each of `devices` (device indices). Throws Error when NCCL cannot be
  /// loaded or initialised, with NCCL's message.
  explicit GpuGroup(const std::vector<int>& devices);
  ~GpuGroup();
  GpuGroup(const GpuGroup&) = delete;
  GpuGroup& operator=(const GpuGroup&) = delete;

  int size() const;
  int device(int rank) const;
  /// NCCL's version as NCCL reports it (e.g. 22809).
  int ncclVersion() const;

  /// The deterministic sum of one array of `count` doubles per GPU: every rank's `partial`
  /// (device memory of that rank's GPU) is gathered on every GPU by NCCL, then each GPU adds
  /// the ranks' arrays in rank order into its `sum`. The result is the same on every GPU and
  /// in every run with the same number of GPUs, whatever order NCCL moves data in.
  /// `gathered[rank]` has room for size() * count doubles on that GPU. Returns when done.
  void sumInRankOrder(const std::vector<const double*>& partial, const std::vector<double*>& gathered,
                      const std::vector<double*>& sum, std::size_t count);

  /// Sums 64-bit integers over the GPUs in place (wrapping, as two's complement: fixed-point
  /// forces and energies, exact in any order): `first` (firstCount) and `second` (secondCount;
  /// null: none) on rank `rank`'s GPU, enqueued on its `stream` (a cudaStream_t) in one NCCL
  /// group without waiting. Each rank calls it from its own host thread (the calls meet in
  /// NCCL); inside a stream capture it becomes part of that GPU's graph.
  void allReduceSum(int rank, unsigned long long* first, std::size_t firstCount, unsigned long long* second,
                    std::size_t secondCount, void* stream);

  /// One exchange among the GPUs, enqueued on rank `rank`'s `stream` in one NCCL group: each
  /// send to its peer, each receive from its peer (an all-to-all where every pair of ranks
  /// meets once). Called by every rank from its own host thread at the same point; inside a
  /// stream capture it becomes part of that GPU's graph. No peer may be `rank` itself.
  void exchange(int rank, const std::vector<PeerFloats>& sends, const std::vector<PeerFloats>& recvs, void* stream);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace faraday
