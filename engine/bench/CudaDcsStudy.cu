// The benchmark's map kernels (CudaDcsStudy.h): the production direct kernels of
// CudaDcsGather.cuh in their other shapes and accumulations, the scatter with float atomics,
// the rsqrt ceiling, and one driver that runs any of them (and the cutoff kernel) timed.
#include <algorithm>
#include <string>

#include "core/Error.h"
#include "core/Units.h"
#include "engine/bench/CudaDcsStudy.h"
#include "kernels/common/CudaCheck.h"
#include "kernels/common/CudaOwners.h"
#include "kernels/common/DeviceBuffer.h"
#include "kernels/dcs/CudaDcsGather.cuh"
#include "kernels/dcs/DcsPair.h"

namespace faraday {
using namespace dcs::detail;

const char* dcsKernelName(DcsKernel k) {
  switch (k) {
    case DcsKernel::Scatter: return "scatter (atomics)";
    case DcsKernel::Gather: return "gather";
    case DcsKernel::Coarsened: return "gather coarsened x8";
    case DcsKernel::Coalesced: return "gather coarsened+coalesced";
    case DcsKernel::CutoffBinned: return "cutoff binned";
  }
  return "?";
}
const char* dcsAccumulationName(DcsAccumulation a) {
  switch (a) {
    case DcsAccumulation::Float: return "float";
    case DcsAccumulation::Kahan: return "kahan";
    case DcsAccumulation::BlockedDouble: return "blocked-double";
  }
  return "?";
}
DcsKernel productionKernel(MapMethod method) {
  return method == MapMethod::Cutoff ? DcsKernel::CutoffBinned : DcsKernel::Coalesced;
}


namespace {

// ---- accumulators compared with the production one --------------------------------
/// One float accumulator per point and constant-memory chunk.
struct FloatAccumulator {
  float s = 0.f;
  __device__ void add(float t) { s += t; }
  __device__ void endBlock() {}
  __device__ double total() const { return double(s); }
};
/// Compensated float sum per point and chunk.
struct KahanAccumulator {
  float s = 0.f, c = 0.f;  // c: the low-order part lost so far (Kahan 1965)
  __device__ void add(float t) {
    const float y = t - c;
    const float u = s + y;
    c = (u - s) - y;
    s = u;
  }
  __device__ void endBlock() {}
  __device__ double total() const { return double(s) - double(c); }
};

/// Calls f(Accumulator{}) with the accumulator type of `a`.
template <class F>
void withAccumulator(DcsAccumulation a, F f) {
  switch (a) {
    case DcsAccumulation::Float: f(FloatAccumulator{}); break;
    case DcsAccumulation::Kahan: f(KahanAccumulator{}); break;
    case DcsAccumulation::BlockedDouble: f(BlockedDoubleAccumulator{}); break;
  }
}

// ---- (a) scatter: thread per atom, float atomics (benchmark only) -----------------
/// Each thread walks every lattice point, starting its rows at its own offset so that a
/// warp's 32 atomics hit 32 different addresses. Order of the additions is not fixed.
__global__ void scatterKernel(LatticeDims g, const float4* __restrict__ atoms, int nAtoms, float* map) {
  const int a = blockIdx.x * blockDim.x + threadIdx.x;
  if (a >= nAtoms) return;
  const float4 atom = atoms[a];
  const int shift = a % g.nx;
  for (int k = 0; k < g.nz; ++k) {
    const float dz = k * g.hz - atom.z;
    for (int j = 0; j < g.ny; ++j) {
      const float dy = j * g.hy - atom.y;
      const float dyz2 = fmaf(dy, dy, dz * dz);
      float* row = map + (std::size_t(k) * g.ny + j) * g.nx;
      for (int ii = 0; ii < g.nx; ++ii) {
        int i = ii + shift;
        if (i >= g.nx) i -= g.nx;
        const float dx = i * g.hx - atom.x;
        const float r2 = fmaf(dx, dx, dyz2);
        atomicAdd(&row[i], dcs::directTerm(atom.w, r2, dcs::fastRsqrt(r2)));
      }
    }
  }
}
/// The throughput ceiling of any DCS kernel: 8 independent rsqrt accumulations per thread.
__global__ void rsqrtCeilingKernel(int iterations, float* out) {
  float x[8], acc[8];
#pragma unroll
  for (int c = 0; c < 8; ++c) {
    x[c] = 1.0f + 1e-3f * (threadIdx.x + c);
    acc[c] = 0.f;
  }
  for (int it = 0; it < iterations; ++it)
#pragma unroll
    for (int c = 0; c < 8; ++c) {
      acc[c] += dcs::fastRsqrt(x[c]);
      x[c] += 1e-6f;
    }
  float s = 0.f;
#pragma unroll
  for (int c = 0; c < 8; ++c) s += acc[c];
  out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}

__global__ void floatToDoubleKernel(const float* in, std::size_t n, double scale, double* out) {
  const std::size_t t = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (t < n) out[t] += scale * double(in[t]);
}
// ---- host side -----------------------------------------------------------------------
template <bool kPeriodic>
void launchGatherVariant(DcsKernel k, DcsAccumulation a, const Lattice& l, const PeriodicBox& box, int n,
                         double* map, DeviceBuffer<double>& scratch, cudaStream_t s) {
  withAccumulator(a, [&](auto acc) {
    using Acc = decltype(acc);
    switch (k) {
      case DcsKernel::Gather: launchGather<1, false, kPeriodic, Acc>(l, box, n, map, s); break;
      case DcsKernel::Coarsened: launchGather<8, false, kPeriodic, Acc>(l, box, n, map, s); break;
      case DcsKernel::Coalesced: launchProductionTiles<kPeriodic, Acc>(l, box, n, map, scratch, s); break;
      default: throw Error("launchGatherVariant: not a gather kernel");
    }
  });
}

/// The benchmark's timing studies of the coalesced kernel (non-periodic only).
void launchGatherStudy(const DcsGatherTuning& t, DcsAccumulation a, const Lattice& l, const PeriodicBox& box, int n,
                       double* map, DeviceBuffer<double>& scratch, cudaStream_t s) {
  using B = BlockedDoubleAccumulator;
  using F = FloatAccumulator;
  if (a != DcsAccumulation::BlockedDouble && a != DcsAccumulation::Float)
    throw Error("gather study: float or blocked-double accumulation only");
  const bool blocked = a == DcsAccumulation::BlockedDouble;
  const int c = t.coarsening, mb = t.minBlocksPerSm, fold = t.foldAtoms, unroll = t.unroll;
  const bool pp = t.perPairTest, tiles1d = t.tileKernel, split = t.splitTail;
#define FARADAY_STUDY(C, MB, PP, FOLD)                                                                      \
  if (!tiles1d && c == C && mb == MB && pp == PP && fold == FOLD) {                                         \
    blocked ? launchGather<C, true, false, B, MB, PP, FOLD>(l, box, n, map, s)                             \
            : launchGather<C, true, false, F, MB, PP, FOLD>(l, box, n, map, s);                            \
    return;                                                                                                 \
  }
  FARADAY_STUDY(8, 10, false, 32)
  FARADAY_STUDY(8, 10, false, 128)
  FARADAY_STUDY(8, 10, true, 32)
#undef FARADAY_STUDY
#define FARADAY_STUDY_TILES(C, MB, FOLD, U)                                                                 \
  if (tiles1d && !pp && c == C && mb == MB && fold == FOLD && unroll == U) {                                \
    blocked ? launchTiles<C, false, B, MB, FOLD, U>(l, box, n, map, scratch, s, split)                     \
            : launchTiles<C, false, F, MB, FOLD, U>(l, box, n, map, scratch, s, split);                    \
    return;                                                                                                 \
  }
  FARADAY_STUDY_TILES(8, 10, 128, 4)
  FARADAY_STUDY_TILES(8, 10, 128, 8)
  FARADAY_STUDY_TILES(8, 10, 64, 4)
  FARADAY_STUDY_TILES(8, 8, 128, 8)
  FARADAY_STUDY_TILES(16, 5, 128, 4)
  FARADAY_STUDY_TILES(16, 6, 128, 4)
#undef FARADAY_STUDY_TILES
  throw Error("gather study: combination not compiled");
}


/// Adds the direct map of `atoms` (packed) into `map` with kernel `k` (or the study's
/// tuning), the near-row atoms with the per-pair-tested gather, both in accumulation `a`.
void runGather(DcsKernel k, DcsAccumulation a, const Lattice& l, const MapOptions& o,
               const std::vector<float4>& atoms, double* map, DeviceBuffer<double>& scratch, cudaStream_t s,
               const DcsGatherTuning* study) {
  if (study && o.periodic) throw Error("gather study: non-periodic only");
  const PeriodicBox box = boxOf(o);
  std::vector<float4> regular, nearRow;
  if (study && study->perPairTest)
    regular = atoms;  // timing study: every atom through the per-pair test
  else
    splitNearRowAtoms(l, o, atoms, regular, nearRow);
  runGatherChunks(
      regular, nearRow, s,
      [&](int n) {
        if (study)
          launchGatherStudy(*study, a, l, box, n, map, scratch, s);
        else if (o.periodic)
          launchGatherVariant<true>(k, a, l, box, n, map, scratch, s);
        else
          launchGatherVariant<false>(k, a, l, box, n, map, scratch, s);
      },
      [&](int n) {
        withAccumulator(a, [&](auto acc) {
          using Acc = decltype(acc);
          o.periodic ? launchNearRow<true, Acc>(l, box, n, map, s) : launchNearRow<false, Acc>(l, box, n, map, s);
        });
      });
}

/// The start and stop of a timed interval.
struct Events {
  CudaEvent start, stop;
};

}  // namespace

std::vector<double> cudaPotentialMap(DcsKernel kernel, DcsAccumulation accumulation, const Lattice& l,
                                     const std::vector<Vec3>& pos, const std::vector<double>& q,
                                     const MapOptions& o, DcsKernelStats* stats, int repeats,
                                     const DcsGatherTuning* study) {
  checkInputs(l, pos, q, o);
  // The study's kernels take an orthogonal lattice in a rectangular box; the production map
  // (CudaMapAccumulator, and the cutoff-binned kernel here) takes any lattice and box.
  if (kernel != DcsKernel::CutoffBinned && (!l.isOrthogonal() || (o.periodic && !o.box.isRectangular())))
    throw Error("benchmark map kernels: an orthogonal lattice and a rectangular box only");
  CudaStream stream;
  Events ev;
  DeviceBuffer<double> map("potential map", l.size());
  DeviceBuffer<float> fmap;
  DeviceBuffer<float4> dAtoms, dBins("cutoff bins", 1);
  DeviceBuffer<double> tailScratch("direct map tail parts", 1);
  std::vector<double> hostPart;
  CutoffStats cutoff;
  std::vector<float> times;
  const bool wrap = o.periodic && kernel != DcsKernel::CutoffBinned;
  const std::vector<float4> atoms = packAtoms(l, pos, q, wrap, o.box);
  if (kernel == DcsKernel::Scatter) {
    if (o.periodic) throw Error("the scatter map kernel is non-periodic only (benchmark)");
    fmap = DeviceBuffer<float>("potential map (float, scatter)", l.size());
    dAtoms.upload(atoms, stream.get());
  }
  for (int r = 0; r < std::max(1, repeats); ++r) {
    map.zero(stream.get());
    hostPart.assign(l.size(), 0.0);
    FARADAY_CUDA_CHECK(cudaEventRecord(ev.start.get(), stream.get()));
    switch (kernel) {
      case DcsKernel::Scatter: {
        fmap.zero(stream.get());
        scatterKernel<<<(int(atoms.size()) + 127) / 128, 128, 0, stream.get()>>>(dimsOf(l), dAtoms.data(),
                                                                                    int(atoms.size()), fmap.data());
        FARADAY_CUDA_CHECK_LAUNCH("scatterKernel");
        floatToDoubleKernel<<<int((l.size() + 255) / 256), 256, 0, stream.get()>>>(fmap.data(), l.size(),
                                                                                     units::kCoulomb, map.data());
        FARADAY_CUDA_CHECK_LAUNCH("floatToDoubleKernel");
        break;
      }
      case DcsKernel::CutoffBinned:
        if (o.method != MapMethod::Cutoff) throw Error("the cutoff-binned kernel needs map.method = cutoff");
        runCutoffBinned(l, o, pos, q, map, dBins, hostPart, stream.get(), &cutoff);
        break;
      default: runGather(kernel, accumulation, l, o, atoms, map.data(), tailScratch, stream.get(), study); break;
    }
    FARADAY_CUDA_CHECK(cudaEventRecord(ev.stop.get(), stream.get()));
    FARADAY_CUDA_CHECK(cudaEventSynchronize(ev.stop.get()));
    const float ms = CudaEvent::elapsedMs(ev.start, ev.stop);
    times.push_back(ms);
  }
  std::sort(times.begin(), times.end());
  std::vector<double> out = map.toHost(stream.get());
  for (std::size_t p = 0; p < out.size(); ++p) out[p] += hostPart[p];
  if (stats) {
    *stats = DcsKernelStats{};
    stats->overflowAtoms = cutoff.overflowAtoms;
    stats->hostOverflowSeconds = cutoff.hostOverflowSeconds;
    stats->binningSeconds = cutoff.binningSeconds;
    stats->kernelSeconds = cutoff.kernelSeconds;
    stats->actualEvaluations = cutoff.actualEvaluations;
    stats->seconds = 1e-3 * times[times.size() / 2];
    stats->effectiveEvaluations = double(l.size()) * double(pos.size());
    if (kernel != DcsKernel::CutoffBinned) stats->actualEvaluations = stats->effectiveEvaluations;
  }
  return out;
}

double cudaRsqrtCeiling() {
  int sms = 0;
  FARADAY_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  const int blocks = sms * 16, threads = 256, iterations = 20000;
  DeviceBuffer<float> out("rsqrt ceiling output", std::size_t(blocks) * threads);
  CudaStream stream;
  Events ev;
  float best = 1e30f;
  for (int r = 0; r < 4; ++r) {  // the first launch warms up
    FARADAY_CUDA_CHECK(cudaEventRecord(ev.start.get(), stream.get()));
    rsqrtCeilingKernel<<<blocks, threads, 0, stream.get()>>>(iterations, out.data());
    FARADAY_CUDA_CHECK_LAUNCH("rsqrtCeilingKernel");
    FARADAY_CUDA_CHECK(cudaEventRecord(ev.stop.get(), stream.get()));
    FARADAY_CUDA_CHECK(cudaEventSynchronize(ev.stop.get()));
    const float ms = CudaEvent::elapsedMs(ev.start, ev.stop);
    if (r > 0) best = std::min(best, ms);
  }
  return double(blocks) * threads * iterations * 8 / (1e-3 * best);
}

}  // namespace faraday
