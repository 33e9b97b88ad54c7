// Builds without NCCL (or without CUDA): a GpuGroup cannot be made.
#if !defined(FARADAY_HAVE_NCCL)
#include "core/Error.h"
#include "kernels/multigpu/GpuGroup.h"

namespace faraday {

bool builtWithNccl() { return false; }

struct GpuGroup::Impl {};

GpuGroup::GpuGroup(const std::vector<int>&) {
  throw Error("several GPUs need a build with CUDA and NCCL (nccl.h was not found when this one was configured)");
}
GpuGroup::~GpuGroup() = default;
int GpuGroup::size() const { return 0; }
int GpuGroup::device(int) const { return 0; }
int GpuGroup::ncclVersion() const { return 0; }
void GpuGroup::sumInRankOrder(const std::vector<const double*>&, const std::vector<double*>&,
                              const std::vector<double*>&, std::size_t) {}
void GpuGroup::allReduceSum(int, unsigned long long*, std::size_t, unsigned long long*, std::size_t, void*) {}
void GpuGroup::exchange(int, const std::vector<PeerFloats>&, const std::vector<PeerFloats>&, void*) {}

}  // namespace faraday
#endif
