// The GPU PME's phases on a stream: from enqueue() on the caller's device data, or captured
// once per atom count and timing mode as a CUDA graph and replayed (compute()); with the
// transposes of the spectrum when the grid is split over GPUs. The class and its plans and
// buffers: CudaPmeSolver.cuh, CudaPme.cu.
#include <cuda_runtime.h>
#include <cufft.h>

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "kernels/common/CudaCheck.h"
#include "kernels/pme/CudaPmeSolver.cuh"

namespace faraday::pme::gpu {

void CudaPme::enqueue(cudaStream_t stream, int n, const std::uint32_t* fractions, const double* charges,
                    unsigned long long* force, std::size_t stride, const std::function<void(int)>& mark) {
  if (n <= 0) return;
  if (std::size_t(n) > capacity_) throw pmeError(__FILE__, __LINE__, "more atoms than the GPU PME was made for");
  io_ = Io{stream, fractions, charges, ForceOut{forceOut_.data(), force, stride}, mark ? &mark : nullptr};
  try {
    dispatchPhases(n, false);
  } catch (...) {
    io_ = Io{};
    throw;
  }
  io_ = Io{};
}
/// The evaluation (binning to forces: ~11 nodes with the FFTs) as a CUDA graph
/// per atom count and timing mode, captured on first use and replayed: one launch, and no
/// gaps between the kernels. Box-dependent values are read from boxTerms_.
void CudaPme::launchEvaluation(int n, bool timed) {
  EvaluationGraph& graph = graphs_[timed ? 1 : 0];
  if (graph.atoms != n) {
    graph.reset();
    graph.exec.capture(stream_.get(), [&] {
      dispatchPhases(n, timed);
    });
    graph.atoms = n;
  }
  if (!countsZero_)
    FARADAY_CUDA_CHECK(cudaMemsetAsync(binCount_.data(), 0, binCount_.size() * sizeof(int), stream_.get()));
  countsZero_ = false;  // until this evaluation is known to have finished
  graph.exec.launch(stream_.get());
}
void CudaPme::dispatchPhases(int n, bool timed) {
  switch (params_.order) {
    case 4: runPhases<4>(n, timed); break;
    case 5: runPhases<5>(n, timed); break;
    case 6: runPhases<6>(n, timed); break;
    case 7: runPhases<7>(n, timed); break;
    case 8: runPhases<8>(n, timed); break;
    default: throw pmeError(__FILE__, __LINE__, "PME order outside 4..8");
  }
}
/// The phases on the caller's device data (io_.stream set: enqueue) or on the solver's own
/// buffers and stream (compute).
template <int P>
void CudaPme::runPhases(int n, bool timed) {
  const cudaStream_t stream = io_.stream ? io_.stream : stream_.get();
  const std::uint32_t* fractions = io_.stream ? io_.fractions : fractions_.data();
  const double* charges = io_.stream ? io_.charges : charges_.data();
  const ForceOut out = io_.stream ? io_.out : ForceOut{forceOut_.data(), nullptr, 0};
  auto mark = [&](int i) {
    // Under capture: an event-record node of the graph.
    if (timed) FARADAY_CUDA_CHECK(cudaEventRecordWithFlags(events_[i].get(), stream, cudaEventRecordExternal));
  };
  auto hook = [&](int k) {  // the caller's marks (enqueue)
    if (io_.mark) (*io_.mark)(k);
  };
  hook(0);
  // Split over GPUs: this GPU's x planes (whole bricks) and y rows; else all of them.
  const bool split = split_.ranks > 1;
  const auto [x0, x1] = split ? planes_[std::size_t(split_.rank)] : std::pair{0, dims_.k[0]};
  const auto [y0, y1] = split ? rows_[std::size_t(split_.rank)] : std::pair{0, dims_.k[1]};

  // 1: cells, B-spline values and derivatives, bin entries of the atoms that reach the
  // slab (the counts are zero: see countsZero_).
  launchBinning<P>(n, fractions, charges, dims_, bins_, binCount_.data(), binEntries_.data(), forceOut_.data(), x0, x1,
                   stream);
  mark(2);
  hook(1);
  const std::size_t realAt = std::size_t(x0) * dims_.k[1] * dims_.k[2];
  const std::size_t complexAt = std::size_t(x0) * dims_.k[1] * (dims_.k[2] / 2 + 1);

  // 2: every brick (of the slab) gathers its charge.
  const int3 nBricks = make_int3(nBricks_[0], nBricks_[1], nBricks_[2]);
  const int brickRow = nBricks_[1] * nBricks_[2];  // bricks per brick of x planes
  const int bx0 = x0 / kBrickEdge, bx1 = (x1 + kBrickEdge - 1) / kBrickEdge;
  launchSpreading<P>(dims_, bins_, nBricks, bx0 * brickRow, (bx1 - bx0) * brickRow, brickTable_.data(), tableRows_,
                     binCount_.data(), binEntries_.data(), realGrid_.data(), stream);
  mark(3);
  hook(2);

  // 3: forward FFT (by lines: the (y, z) transforms of the slab's planes).
  FARADAY_CUDA_CHECK(cufftSetStream(forwardPlan_.get(), stream));  // the caller's stream on device data
  FARADAY_CUDA_CHECK(cufftExecR2C(forwardPlan_.get(), realGrid_.data() + realAt, complexGrid_.data() + complexAt));
  hook(3);
  if (split) transpose(0, stream);
  mark(4);
  hook(4);

  // 4: influence function, energy and virial block partials.
  const int partialCount = convolvePhase(x0, x1, y0, y1, stream);
  mark(5);
  hook(5);

  // 5: inverse FFT (by lines: the (y, z) transforms); the potential grid replaces the
  // charge grid.
  if (split) transpose(1, stream);
  hook(6);
  FARADAY_CUDA_CHECK(cufftSetStream(inversePlan_.get(), stream));
  FARADAY_CUDA_CHECK(cufftExecC2R(inversePlan_.get(), complexGrid_.data() + complexAt, realGrid_.data() + realAt));
  mark(6);
  hook(7);

  // 6: forces (from the slab's planes); block 0 also sums the energy and virial partials.
  launchGather<P>(dims_, bins_, nBricks, binCount_.data(), binEntries_.data(), realGrid_.data(), boxTerms_.data(),
                  out, GatherSlab{x0, x1, split ? split_.fixedSums : nullptr}, partials_.data(), partialCount,
                  binCount_.data() + bins_.total, sums_.data(), stream);
  mark(7);
  hook(8);
}

/// Phase 4 on this GPU's planes x0..x1 and rows y0..y1: the influence function with the
/// energy and virial block partials (by lines: with the x transforms both ways, on this
/// GPU's rows). Returns the number of partials.
int CudaPme::convolvePhase(int x0, int x1, int y0, int y1, cudaStream_t stream) {
  if (lineLogW_ < 0) {
    launchConvolution(reduceBlocks_, dims_, complexGrid_.data(), factors_[0].data(), factors_[1].data(),
                      factors_[2].data(), boxTerms_.data(), triclinic_, partials_.data(), stream);
    return reduceBlocks_;
  }
  const bool split = split_.ranks > 1;
  const LineOwnPlanes own = split ? LineOwnPlanes{complexGrid_.data(), x0, x1} : LineOwnPlanes{nullptr, 0, 0};
  launchLineConvolution(lineLogW_, lineTilesZ_, y0, y1 - y0, dims_, linePasses_,
                        split ? rowsGrid_.data() : complexGrid_.data(), own, twiddles_.data(), factors_[0].data(),
                        factors_[1].data(), factors_[2].data(), boxTerms_.data(), triclinic_, partials_.data(), stream);
  return (y1 - y0) * lineTilesZ_;
}

CudaPme::SlabShape CudaPme::slabShape() {
  const auto [x0, x1] = planes_[std::size_t(split_.rank)];
  const auto [y0, y1] = rows_[std::size_t(split_.rank)];
  const std::size_t kh = std::size_t(dims_.k[2] / 2 + 1);
  return {kh, kh * sizeof(float2), std::size_t(x1 - x0), std::size_t(y1 - y0),
          complexGrid_.data() + std::size_t(x0) * dims_.k[1] * kh};
}
/// Split over GPUs, the transposes of the spectrum. Direction 0, after the forward plane
/// transforms: every GPU's rows of this GPU's planes go to it, so that each GPU holds every
/// x of its rows (rowsGrid_: rank p's planes at rank p's first plane; its own planes stay in
/// its spectrum, where the line kernel reads them). Direction 1, after the x lines: each
/// GPU's planes of this GPU's rows go back into its spectrum. Direct stores into the peers'
/// memory when connected (connectSlabPeers), else the split's exchange.
void CudaPme::transpose(int direction, cudaStream_t s) {
  if (direct_) {
    if (direction == 0) launchScatterToRows(exchange_, complexGrid_.data(), s);
    else launchScatterToPlanes(exchange_, rowsGrid_.data(), s);
    launchWaitForPeers(exchange_, direction, s);
  } else if (direction == 0) {
    exchangeToRows(s);
  } else {
    exchangeToPlanes(s);
  }
}
/// transpose(0) by the exchange: blocks packed in staging_ (a peer's rows of this GPU's
/// planes, x slowest) by 2D copies, then sent.
void CudaPme::exchangeToRows(cudaStream_t s) {
  const SlabShape g = slabShape();
  std::vector<PmeSlabSplit::Block> sends, recvs;
  for (int p = 0; p < split_.ranks; ++p) {
    if (p == split_.rank) continue;
    const auto [px0, px1] = planes_[std::size_t(p)];
    const auto [py0, py1] = rows_[std::size_t(p)];
    const std::size_t peerRows = std::size_t(py1 - py0);
    float2* block = staging_.data() + g.planes * py0 * g.kh;
    FARADAY_CUDA_CHECK(cudaMemcpy2DAsync(block, peerRows * g.rowBytes, g.slab + std::size_t(py0) * g.kh,
                                         std::size_t(dims_.k[1]) * g.rowBytes, peerRows * g.rowBytes, g.planes,
                                         cudaMemcpyDeviceToDevice, s));
    sends.push_back({p, reinterpret_cast<float*>(block), 2 * g.planes * peerRows * g.kh});
    recvs.push_back({p, reinterpret_cast<float*>(rowsGrid_.data() + std::size_t(px0) * g.rows * g.kh),
                     2 * std::size_t(px1 - px0) * g.rows * g.kh});
  }
  split_.exchange(s, sends, recvs);
}
/// transpose(1) by the exchange into staging_, then 2D copies into place.
void CudaPme::exchangeToPlanes(cudaStream_t s) {
  const SlabShape g = slabShape();
  const std::size_t slabPitch = std::size_t(dims_.k[1]) * g.rowBytes;
  std::vector<PmeSlabSplit::Block> sends, recvs;
  for (int p = 0; p < split_.ranks; ++p) {
    if (p == split_.rank) continue;
    const auto [px0, px1] = planes_[std::size_t(p)];
    const auto [py0, py1] = rows_[std::size_t(p)];
    float2* theirs = rowsGrid_.data() + std::size_t(px0) * g.rows * g.kh;  // rank p's planes of my rows
    sends.push_back({p, reinterpret_cast<float*>(theirs), 2 * std::size_t(px1 - px0) * g.rows * g.kh});
    recvs.push_back({p, reinterpret_cast<float*>(staging_.data() + g.planes * py0 * g.kh),
                     2 * g.planes * std::size_t(py1 - py0) * g.kh});
  }
  split_.exchange(s, sends, recvs);
  for (int p = 0; p < split_.ranks; ++p) {
    if (p == split_.rank) continue;
    const auto [py0, py1] = rows_[std::size_t(p)];
    const std::size_t peerRows = std::size_t(py1 - py0);
    FARADAY_CUDA_CHECK(cudaMemcpy2DAsync(g.slab + std::size_t(py0) * g.kh, slabPitch,
                                         staging_.data() + g.planes * py0 * g.kh, peerRows * g.rowBytes,
                                         peerRows * g.rowBytes, g.planes, cudaMemcpyDeviceToDevice, s));
  }
}
}  // namespace faraday::pme::gpu
