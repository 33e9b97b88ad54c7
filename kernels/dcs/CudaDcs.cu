// The production CUDA potential maps: the coalesced tile kernel with blocked-double
// accumulation for direct summation (CudaDcsGather.cuh), the binned kernel for a cutoff
// (CudaDcsCutoff.cu), summed over frames on the device.
#include <memory>
#include <vector>

#include "kernels/common/CudaCheck.h"
#include "kernels/common/CudaOwners.h"
#include "kernels/common/DeviceBuffer.h"
#include "kernels/dcs/CudaDcs.h"
#include "kernels/dcs/CudaDcsGather.cuh"

namespace faraday {
using namespace dcs::detail;

namespace {

/// Adds the direct map of `atoms` (packed) into `map`: the regular atoms with the production
/// tile kernel, then the near-row atoms (usually none) with the per-pair-tested gather.
void runProductionGather(const Lattice& l, const MapOptions& o, const std::vector<float4>& atoms, double* map,
                         DeviceBuffer<double>& scratch, cudaStream_t s) {
  const PeriodicBox box = boxOf(o);
  std::vector<float4> regular, nearRow;
  splitNearRowAtoms(l, o, atoms, regular, nearRow);
  using Acc = BlockedDoubleAccumulator;
  runGatherChunks(
      regular, nearRow, s,
      [&](int n) {
        o.periodic ? launchProductionTiles<true, Acc>(l, box, n, map, scratch, s)
                   : launchProductionTiles<false, Acc>(l, box, n, map, scratch, s);
      },
      [&](int n) {
        o.periodic ? launchNearRow<true, Acc>(l, box, n, map, s) : launchNearRow<false, Acc>(l, box, n, map, s);
      });
}

}  // namespace

struct CudaMapAccumulator::Impl {
  Lattice lattice;
  MapOptions options;
  CudaStream stream;
  DeviceBuffer<double> sum{"potential map sum", 1};
  DeviceBuffer<float4> bins{"cutoff bins", 1};
  DeviceBuffer<double> tailScratch{"direct map tail parts", 1};
  std::vector<double> hostSum;  // overflow atoms of the cutoff kernel
};

CudaMapAccumulator::CudaMapAccumulator(const Lattice& lattice, const MapOptions& options)
    : impl_(std::make_unique<Impl>()) {
  checkMapOptions(options);
  impl_->lattice = lattice;
  impl_->options = options;
  impl_->sum.resize(lattice.size());
  impl_->sum.zero(impl_->stream.get());
  impl_->hostSum.assign(lattice.size(), 0.0);
}
CudaMapAccumulator::~CudaMapAccumulator() = default;

void CudaMapAccumulator::addFrame(const std::vector<Vec3>& positions, const std::vector<double>& charges,
                                  const Box& box, Timers* timers) {
  ScopedTimer timer(timers, "map.gpu");
  MapOptions o = impl_->options;
  if (o.periodic) o.box = box;
  checkInputs(impl_->lattice, positions, charges, o);
  cudaStream_t s = impl_->stream.get();
  if (o.method == MapMethod::Cutoff) {
    runCutoffBinned(impl_->lattice, o, positions, charges, impl_->sum, impl_->bins, impl_->hostSum, s, nullptr);
  } else {
    const std::vector<float4> atoms = packAtoms(impl_->lattice, positions, charges, o.periodic, o.box);
    runProductionGather(impl_->lattice, o, atoms, impl_->sum.data(), impl_->tailScratch, s);
  }
  FARADAY_CUDA_CHECK(cudaStreamSynchronize(s));
}

std::vector<double> CudaMapAccumulator::sum() const {
  std::vector<double> out = impl_->sum.toHost(impl_->stream.get());
  for (std::size_t p = 0; p < out.size(); ++p) out[p] += impl_->hostSum[p];
  return out;
}

}  // namespace faraday
