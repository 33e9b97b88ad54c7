// The production CUDA potential maps: the coalesced tile kernel with blocked-double
// accumulation for direct summation (CudaDcsGather.cuh), the binned kernel for a cutoff
// (CudaDcsCutoff.cu), summed over frames on the device.
#include <cub/cub.cuh>

#include <algorithm>
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

/// Adds the direct map of the split atoms (runGatherChunks' lists, from host or device
/// memory) into `map`: the regular atoms with the production tile kernel, then the near-row
/// atoms (usually none) with the per-pair-tested gather.
void runProductionGather(const Lattice& l, const MapOptions& o, const float4* regular, std::size_t regularCount,
                         const float4* nearRow, std::size_t nearCount, cudaMemcpyKind kind, double* map,
                         DeviceBuffer<double>& scratch, cudaStream_t s) {
  const PeriodicBox box = boxOf(o);
  const bool tilted = tiltedImage(o);
  using Acc = BlockedDoubleAccumulator;
  runGatherChunks(
      regular, regularCount, nearRow, nearCount, kind, s,
      [&](int n) {
        if (tilted)
          launchProductionTiles<true, Acc, true>(l, box, n, map, scratch, s);
        else if (o.periodic)
          launchProductionTiles<true, Acc>(l, box, n, map, scratch, s);
        else
          launchProductionTiles<false, Acc>(l, box, n, map, scratch, s);
      },
      [&](int n) {
        if (tilted)
          launchNearRow<true, Acc, true>(l, box, n, map, s);
        else if (o.periodic)
          launchNearRow<true, Acc>(l, box, n, map, s);
        else
          launchNearRow<false, Acc>(l, box, n, map, s);
      });
}

struct PackArgs {
  int n;
  const double4_32a* pos;  // per slot, nm
  const double* charge;    // per slot, e
  bool periodic;
  double box[6];           // a_x, b_x, b_y, c_x, c_y, c_z (nm)
  double origin[3];        // nm
  dcs::NearTest near;
};

/// One thread per slot: the atom as packAtoms makes it on the host (wrapped into the brick
/// when periodic, as Box::wrap: c, then b, then a; relative to the lattice origin, float4 {x,
/// y, z, q}) and the list splitNearRowAtoms puts it in (an uncharged atom in neither).
__global__ void packDeviceAtoms(PackArgs a, float4* packed, unsigned char* regular, unsigned char* nearRow) {
  const int s = blockIdx.x * blockDim.x + threadIdx.x;
  if (s >= a.n) return;
  const double4_32a p = a.pos[s];
  double r[3] = {p.x, p.y, p.z};
  if (a.periodic) {
    double k = floor(r[2] / a.box[5]);
    r[0] -= a.box[3] * k;
    r[1] -= a.box[4] * k;
    r[2] -= a.box[5] * k;
    k = floor(r[1] / a.box[2]);
    r[0] -= a.box[1] * k;
    r[1] -= a.box[2] * k;
    r[0] -= a.box[0] * floor(r[0] / a.box[0]);
  }
  const float4 f = make_float4(float(r[0] - a.origin[0]), float(r[1] - a.origin[1]), float(r[2] - a.origin[2]),
                               float(a.charge[s]));
  packed[s] = f;
  const bool near = dcs::nearLatticeRow(a.near, f.y, f.z);
  regular[s] = f.w != 0.f && !near;
  nearRow[s] = f.w != 0.f && near;
}

/// Pads list[count, padded) as splitNearRowAtoms does: zero charge at the first atom's place
/// (`likeFirst`, the regular list) or far away (the near-row list).
__global__ void padAtoms(float4* list, int count, int padded, bool likeFirst) {
  const int i = count + blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= padded) return;
  list[i] = likeFirst ? make_float4(list[0].x, list[0].y, list[0].z, 0.f) : make_float4(kFarAway, kFarAway, kFarAway, 0.f);
}

int paddedCount(int n) { return (n + kAtomBlock - 1) / kAtomBlock * kAtomBlock; }

}  // namespace

struct CudaMapAccumulator::Impl {
  Lattice lattice;
  MapOptions options;
  CudaStream stream;
  DeviceBuffer<double> sum{"potential map sum", 1};
  DeviceBuffer<float4> bins{"cutoff bins", 1};
  DeviceBuffer<double> tailScratch{"direct map tail parts", 1};
  std::vector<double> hostSum;  // overflow atoms of the cutoff kernel
  // Device frames (direct): the packed atoms, their lists and the lists' lengths.
  int atoms = 0;
  DeviceBuffer<float4> packed{"packed map atoms", 1}, regular{"regular map atoms", 1}, nearRow{"near-row map atoms", 1};
  DeviceBuffer<unsigned char> isRegular{"regular atom flags", 1}, isNearRow{"near-row atom flags", 1};
  DeviceBuffer<int> counts{"map atom list lengths", 2};
  DeviceBuffer<unsigned char> selectScratch{"map atom selection scratch", 1};
  std::size_t selectBytes = 0;
  PinnedBuffer<int> hostCounts{"map atom list lengths", 2};
  CudaEvent prepared{cudaEventDisableTiming}, done{cudaEventDisableTiming};

  void prepareFor(int n) {
    if (n == atoms) return;
    FARADAY_CUDA_CHECK(cudaStreamSynchronize(stream.get()));
    atoms = n;
    packed.resize(n);
    regular.resize(paddedCount(n) + kAtomBlock);
    nearRow.resize(paddedCount(n) + kAtomBlock);
    isRegular.resize(n);
    isNearRow.resize(n);
    FARADAY_CUDA_CHECK(cub::DeviceSelect::Flagged(nullptr, selectBytes, packed.data(), isRegular.data(),
                                                  regular.data(), counts.data(), n, stream.get()));
    selectScratch.resize(std::max<std::size_t>(selectBytes, 1));
  }
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
    std::vector<float4> regular, nearRow;
    splitNearRowAtoms(impl_->lattice, o, atoms, regular, nearRow);
    runProductionGather(impl_->lattice, o, regular.data(), regular.size(), nearRow.data(), nearRow.size(),
                        cudaMemcpyHostToDevice, impl_->sum.data(), impl_->tailScratch, s);
  }
  FARADAY_CUDA_CHECK(cudaStreamSynchronize(s));
}

void CudaMapAccumulator::addFrame(const DeviceFrame& frame, const Box& box, Timers* timers) {
  ScopedTimer timer(timers, "map.gpu");
  Impl& m = *impl_;
  MapOptions o = m.options;
  if (o.method != MapMethod::Direct) throw Error("potential map: only map.method = direct reads device frames");
  if (!frame.valid()) throw Error("potential map: the frame has no device positions and charges");
  if (o.periodic) o.box = box;
  checkMapOptions(o);
  m.prepareFor(frame.n);
  const cudaStream_t frameStream = static_cast<cudaStream_t>(frame.stream), s = m.stream.get();
  // Pack on the frame's stream (after the step that wrote the state), the rest on the map's.
  FARADAY_CUDA_CHECK(cudaStreamWaitEvent(frameStream, m.done.get(), 0));
  PackArgs a{};
  a.n = frame.n;
  a.pos = reinterpret_cast<const double4_32a*>(frame.positions);
  a.charge = frame.charges;
  a.periodic = o.periodic;
  const double cell[6] = {o.box.a.x, o.box.b.x, o.box.b.y, o.box.c.x, o.box.c.y, o.box.c.z};
  for (int d = 0; d < 6; ++d) a.box[d] = cell[d];
  for (int d = 0; d < 3; ++d) a.origin[d] = m.lattice.origin[d];
  a.near = nearTestOf(m.lattice, o.box, o.periodic);
  packDeviceAtoms<<<(frame.n + 255) / 256, 256, 0, frameStream>>>(a, m.packed.data(), m.isRegular.data(),
                                                                   m.isNearRow.data());
  FARADAY_CUDA_CHECK_LAUNCH("packDeviceAtoms");
  FARADAY_CUDA_CHECK(cudaEventRecord(m.prepared.get(), frameStream));
  FARADAY_CUDA_CHECK(cudaStreamWaitEvent(s, m.prepared.get(), 0));
  // Both lists keep the slot order (CUB's selection is stable): a fixed order per state.
  FARADAY_CUDA_CHECK(cub::DeviceSelect::Flagged(m.selectScratch.data(), m.selectBytes, m.packed.data(),
                                                m.isRegular.data(), m.regular.data(), m.counts.data(), frame.n, s));
  FARADAY_CUDA_CHECK(cub::DeviceSelect::Flagged(m.selectScratch.data(), m.selectBytes, m.packed.data(),
                                                m.isNearRow.data(), m.nearRow.data(), m.counts.data() + 1, frame.n, s));
  m.counts.download(m.hostCounts.data(), 2, s);
  FARADAY_CUDA_CHECK(cudaStreamSynchronize(s));  // the launches depend on the lengths
  const int regularCount = m.hostCounts.data()[0], nearCount = m.hostCounts.data()[1];
  const int regularPadded = paddedCount(regularCount), nearPadded = paddedCount(nearCount);
  if (regularPadded > regularCount)
    padAtoms<<<1, kAtomBlock, 0, s>>>(m.regular.data(), regularCount, regularPadded, true);
  if (nearPadded > nearCount) padAtoms<<<1, kAtomBlock, 0, s>>>(m.nearRow.data(), nearCount, nearPadded, false);
  FARADAY_CUDA_CHECK_LAUNCH("padAtoms");
  runProductionGather(m.lattice, o, m.regular.data(), std::size_t(regularPadded), m.nearRow.data(),
                      std::size_t(nearPadded), cudaMemcpyDeviceToDevice, m.sum.data(), m.tailScratch, s);
  FARADAY_CUDA_CHECK(cudaEventRecord(m.done.get(), s));
}

std::vector<double> CudaMapAccumulator::sum() const {
  std::vector<double> out = impl_->sum.toHost(impl_->stream.get());
  for (std::size_t p = 0; p < out.size(); ++p) out[p] += impl_->hostSum[p];
  return out;
}

std::vector<double> CudaMapAccumulator::takeSum() {
  std::vector<double> out = sum();
  impl_->sum.zero(impl_->stream.get());
  impl_->hostSum.assign(impl_->hostSum.size(), 0.0);
  return out;
}

}  // namespace faraday
