// Smooth PME on the GPU, phase for phase like CpuPme (the double-precision oracle):
//   1 spline    one thread per atom: fractional coordinates (uploaded as fixed point,
//               expanded in double), first grid index (the atom's cell), the B-spline
//               values and derivatives, and its place in the bin of kBinEdge^3 cells that
//               holds that cell (a slot from an integer counter), where its entry goes: a
//               tag (atom index and cell), the values and the derivatives (Entry)
//   2 spread    two-phase collection without float atomics: one thread block per brick of
//               kBrickEdge^3 grid points stages the atoms of the bins that reach it, in a
//               fixed order (bins in a fixed order, atoms of a bin by atom index), with
//               their B-spline values laid over the brick; each warp then sums its
//               grid points over exactly those atoms, in that order, by FP64 matrix
//               products on the tensor cores (mma.m8n8k4, double accumulators)
//   3 fft_forward  cuFFT R2C: the (y, z) transforms of every x plane (batched 2D plans), or
//               the 3D transform where the x transforms cannot run by lines
//   4 convolve  by lines (LineFft.h): per tile of (m_y, m_z) columns, the x transform, the
//               influence function with the energy and virial terms, and the inverse x
//               transform, in shared memory; else the influence function alone. Energy and
//               virial by CUB block reductions in double (per-block partials, summed in
//               index order by the gather's first block: deterministic)
//   5 fft_inverse  cuFFT C2R, (y, z) or 3D as phase 3
//   6 gather    one thread block per brick stages the potential its atoms reach in shared
//               memory; one thread per atom interpolates its force from the staged
//               potential with the values and derivatives of its entry
// Every floating-point sum runs in a fixed order, so results are bitwise reproducible on one
// GPU. The phases live in their own files: 1 and 2 in CudaPmeSpread.cu, 4 (with the x
// transforms of 3 and 5 when by lines) in CudaPmeConvolve.cu, 6 in CudaPmeGather.cu; what they
// share, with a launch function per phase, in CudaPmeDetail.cuh. This file is the host
// driver (class CudaPme): buffers, plans, transfers, and the evaluation as a CUDA graph.
#include <cuda_runtime.h>
#include <cufft.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "core/Error.h"
#include "core/Units.h"
#include "core/Virial.h"
#include "kernels/common/CudaCheck.h"
#include "kernels/common/CudaOwners.h"
#include "kernels/common/DeviceBuffer.h"
#include "kernels/pme/BSpline.h"
#include "kernels/pme/CudaPme.h"
#include "kernels/pme/CudaPmeDetail.cuh"
#include "kernels/pme/LineFft.h"
#include "kernels/pme/PmeGridGeometry.h"
#include "kernels/pme/PmeHostTransfer.h"
#include "kernels/pme/SlabPme.h"

namespace faraday {

namespace {

using namespace pme::gpu;
using pme::GridDims;

/// An instantiated CUDA graph of the evaluation for `atoms` atoms (-1: none).
struct EvaluationGraph {
  void reset() {
    exec.reset();
    atoms = -1;
  }
  CudaGraphExec exec;
  int atoms = -1;
};

constexpr std::size_t kMaxChunks = 8;  // transfer chunks per direction

Error pmeError(int line, const std::string& what) {
  return Error(std::string(__FILE__) + ":" + std::to_string(line) + ": " + what);
}

class CudaPme final : public ReciprocalSolver, public CudaPmeOnDevice {
 public:
  CudaPme(const PmeParams& params, std::size_t numAtoms) : params_(params) {
    if (params_.order < pme::kMinSplineOrder || params_.order > pme::kMaxSplineOrder)
      throw pmeError(__LINE__, "PME order " + std::to_string(params_.order) + " outside 4..8");
    for (int d = 0; d < 3; ++d) {
      if (params_.grid[d] < params_.order)
        throw pmeError(__LINE__, "PME grid dimension " + std::to_string(params_.grid[d]) + " smaller than the order");
      dims_.k[d] = params_.grid[d];
    }
    if (double(params_.grid[0]) * params_.grid[1] * params_.grid[2] > 2.0e9)
      throw pmeError(__LINE__, "PME grid too large: at most 2e9 points (32-bit bin and grid indices)");
    if (!(params_.beta > 0)) throw pmeError(__LINE__, "PME beta must be > 0");
    int device = 0;
    FARADAY_CUDA_CHECK(cudaGetDevice(&device));
    FARADAY_CUDA_CHECK(cudaDeviceGetAttribute(&numSms_, cudaDevAttrMultiProcessorCount, device));

    const std::size_t cells = pme::numCells(dims_);
    const std::size_t nComplex = std::size_t(dims_.k[0]) * dims_.k[1] * (dims_.k[2] / 2 + 1);
    realGrid_ = DeviceBuffer<float>("pme real grid", cells);
    complexGrid_ = DeviceBuffer<float2>("pme complex grid", nComplex);
    for (int d = 0; d < 3; ++d) {
      bins_.nb[d] = pme::binsAlong(dims_.k[d]);
      nBricks_[d] = pme::bricksAlong(dims_.k[d]);
    }
    bins_.total = unsigned(bins_.nb[0]) * unsigned(bins_.nb[1]) * unsigned(bins_.nb[2]);
    bins_.cap = 0;
    // The bins each brick needs, per dimension (brickBins()), as kernel-readable rows.
    tableRows_ = std::max({nBricks_[0], nBricks_[1], nBricks_[2]});
    std::vector<int> table(std::size_t(3) * tableRows_ * kBrickTableEntry, 0);
    for (int d = 0; d < 3; ++d)
      for (int b = 0; b < nBricks_[d]; ++b) {
        int* row = &table[(std::size_t(d) * tableRows_ + b) * kBrickTableEntry];
        row[0] = pme::brickBins(dims_.k[d], params_.order, b * pme::kBrickEdge, row + 1);
      }
    brickTable_ = DeviceBuffer<int>("pme brick bin table", table.size());
    FARADAY_CUDA_CHECK(cudaMemcpy(brickTable_.data(), table.data(), table.size() * sizeof(int), cudaMemcpyHostToDevice));
    // Bin counts, then the count of the fullest bin when one overflowed.
    binCount_ = DeviceBuffer<int>("pme bin counts", std::size_t(bins_.total) + 1);
    binEntries_ = DeviceBuffer<float4>("pme bin entries", 0);
    const int lines = dims_.k[0] * dims_.k[1];
    reduceBlocks_ = std::clamp(blocksFor(std::size_t(lines) * 32, kReduceThreads), 1, std::min(4 * numSms_, kMaxReduceBlocks));
    partials_ = DeviceBuffer<Sums7>("pme energy partials", reduceBlocks_);
    sums_ = DeviceBuffer<EvaluationSums>("pme energy sums", 1);
    boxTerms_ = DeviceBuffer<BoxTerms>("pme box terms", 1);
    hostSums_.resize(1);
    for (int d = 0; d < 3; ++d) {
      moduli_[d] = pme::bsplineModuli(dims_.k[d], params_.order);
      factors_[d] = DeviceBuffer<float>("pme influence factors", dims_.k[d]);
    }
    // Phases 3-5: by lines (2D cuFFT plans over (y, z), x transforms with the convolution in
    // lineConvolveKernel) when K_x has no prime factor above 7 and a tile fits in shared
    // memory; else 3D plans and convolveKernel.
    int maxShared = 0;
    FARADAY_CUDA_CHECK(cudaDeviceGetAttribute(&maxShared, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
    pme::LinePlan linePlan;
    if (pme::makeLinePlan(dims_.k[0], linePlan))
      lineLogW_ = pme::lineTileLog(dims_.k[0], dims_.k[1], dims_.k[2] / 2 + 1, 2 * numSms_, pme::kLineSharedBudget,
                                   std::size_t(maxShared) - lineConvolutionStaticShared());
    if (lineLogW_ >= 0) {
      lineTilesZ_ = (dims_.k[2] / 2 + 1 + (1 << lineLogW_) - 1) >> lineLogW_;
      const int blocks = dims_.k[1] * lineTilesZ_;
      if (blocks > int(partials_.size())) partials_ = DeviceBuffer<Sums7>("pme energy partials", blocks);
      std::vector<float2> tw(dims_.k[0]);
      for (int m = 0; m < dims_.k[0]; ++m) {
        const double angle = -2.0 * units::kPi * double(m) / double(dims_.k[0]);
        tw[m] = make_float2(float(std::cos(angle)), float(std::sin(angle)));
      }
      twiddles_ = DeviceBuffer<float2>("pme x-transform twiddles", tw.size());
      linePasses_.count = pme::linePasses(linePlan, kLineThreads >> lineLogW_, linePasses_.pass);
      FARADAY_CUDA_CHECK(
          cudaMemcpy(twiddles_.data(), tw.data(), tw.size() * sizeof(float2), cudaMemcpyHostToDevice));
      setLineConvolutionShared(lineLogW_, int(pme::lineSharedBytes(dims_.k[0], lineLogW_)));
      forwardPlan_.makePlanes(params_.grid, CUFFT_R2C, stream_.get());
      inversePlan_.makePlanes(params_.grid, CUFFT_C2R, stream_.get());
    } else {
      forwardPlan_.make(params_.grid, CUFFT_R2C, stream_.get());
      inversePlan_.make(params_.grid, CUFFT_C2R, stream_.get());
    }
    reserve(numAtoms);
  }

  ~CudaPme() override { cudaStreamSynchronize(stream_.get()); }

  // ---- On device data (CudaPmeOnDevice) ----
  void enqueue(cudaStream_t stream, int n, const std::uint32_t* fractions, const double* charges,
               unsigned long long* force, std::size_t stride, const std::function<void(int)>& mark) override {
    if (n <= 0) return;
    if (std::size_t(n) > capacity_) throw pmeError(__LINE__, "more atoms than the GPU PME was made for");
    io_ = Io{stream, fractions, charges, ForceOut{forceOut_.data(), force, stride}, mark ? &mark : nullptr};
    try {
      dispatchPhases(n, false);
    } catch (...) {
      io_ = Io{};
      throw;
    }
    io_ = Io{};
  }
  const double* energyAndVirial() const override { return sums_.data()->sums.v; }
  const int* binsNeeded() const override { return &sums_.data()->binsNeeded; }
  int binCapacity() const override { return bins_.cap; }
  void growBins(int needed) override {
    FARADAY_CUDA_CHECK(cudaDeviceSynchronize());
    growBinsTo(needed);
  }
  void setBox(const Box& box) override {
    updateBox(box, /*wait=*/false);
    // On PME's stream and waited for: the legacy default stream does not order the backend's
    // non-blocking streams, whose next spreading reads these counts.
    FARADAY_CUDA_CHECK(cudaMemsetAsync(binCount_.data(), 0, binCount_.size() * sizeof(int), stream_.get()));
    FARADAY_CUDA_CHECK(cudaStreamSynchronize(stream_.get()));
    countsZero_ = true;
  }

  void splitSlabs(const PmeSlabSplit& split) override {
    if (split.ranks < 1 || split.rank < 0 || split.rank >= split.ranks)
      throw pmeError(__LINE__, "PME split: rank " + std::to_string(split.rank) + " of " + std::to_string(split.ranks));
    if (!slabSplitPossible(params_, split.ranks) || lineLogW_ < 0)
      throw pmeError(__LINE__, "a PME grid of " + std::to_string(dims_.k[0]) + " x " + std::to_string(dims_.k[1]) +
                                   " x " + std::to_string(dims_.k[2]) + " cannot be split over " +
                                   std::to_string(split.ranks) + " GPUs");
    if (split.ranks > 1 && (!split.exchange || !split.fixedSums))
      throw pmeError(__LINE__, "PME split: the exchange and the fixed-point sums are needed");
    FARADAY_CUDA_CHECK(cudaStreamSynchronize(stream_.get()));
    for (auto& g : graphs_) g.reset();
    split_ = split;
    planes_.clear();
    rows_.clear();
    for (int r = 0; r < split.ranks; ++r) {
      planes_.push_back(slabPlanes(dims_.k[0], split.ranks, r, SlabCut::bricks));
      rows_.push_back(slabRange(dims_.k[1], split.ranks, r));
    }
    const auto [x0, x1] = planes_[std::size_t(split.rank)];
    const auto [y0, y1] = rows_[std::size_t(split.rank)];
    const std::size_t kh = std::size_t(dims_.k[2] / 2 + 1);
    rowsGrid_ = DeviceBuffer<float2>("pme spectrum rows of this GPU", std::size_t(dims_.k[0]) * std::size_t(y1 - y0) * kh);
    staging_ = DeviceBuffer<float2>("pme blocks to and from the other GPUs", std::size_t(x1 - x0) * dims_.k[1] * kh);
    flags_ = DeviceBuffer<unsigned long long>("pme exchange flags", 2 * kMaxSlabRanks);
    sent_ = DeviceBuffer<unsigned long long>("pme exchange counts", 2);
    blocksDone_ = DeviceBuffer<unsigned int>("pme exchange blocks", 2);
    FARADAY_CUDA_CHECK(cudaMemset(flags_.data(), 0, flags_.size() * sizeof(unsigned long long)));
    FARADAY_CUDA_CHECK(cudaMemset(sent_.data(), 0, sent_.size() * sizeof(unsigned long long)));
    FARADAY_CUDA_CHECK(cudaMemset(blocksDone_.data(), 0, blocksDone_.size() * sizeof(unsigned int)));
    direct_ = false;
    const std::array<int, 3> slab = {x1 - x0, dims_.k[1], dims_.k[2]};
    forwardPlan_.makePlanes(slab, CUFFT_R2C, stream_.get());
    inversePlan_.makePlanes(slab, CUFFT_C2R, stream_.get());
  }

  PmeSlabPeer slabPeer() override {
    PmeSlabPeer p;
    p.rows = rowsGrid_.data();
    p.spectrum = complexGrid_.data();
    p.flags = flags_.data();
    return p;
  }

  void connectSlabPeers(const std::vector<PmeSlabPeer>& peers) override {
    if (split_.ranks < 2 || int(peers.size()) != split_.ranks || split_.ranks > kMaxSlabRanks)
      throw pmeError(__LINE__, "PME split: one peer per GPU of the split (at most 8) is needed");
    FARADAY_CUDA_CHECK(cudaStreamSynchronize(stream_.get()));
    for (auto& g : graphs_) g.reset();
    SlabExchange& x = exchange_;
    x = SlabExchange{};
    x.me = split_.rank;
    x.ranks = split_.ranks;
    x.kx = dims_.k[0];
    x.ky = dims_.k[1];
    x.kh = dims_.k[2] / 2 + 1;
    for (int p = 0; p < x.ranks; ++p) {
      x.planeStart[p] = planes_[std::size_t(p)].first;
      x.rowStart[p] = rows_[std::size_t(p)].first;
      x.rows[p] = static_cast<float2*>(peers[std::size_t(p)].rows);
      x.spectrum[p] = static_cast<float2*>(peers[std::size_t(p)].spectrum);
      x.flags[p] = peers[std::size_t(p)].flags;
    }
    x.planeStart[x.ranks] = dims_.k[0];
    x.rowStart[x.ranks] = dims_.k[1];
    x.sent = sent_.data();
    x.blocksDone = blocksDone_.data();
    direct_ = true;
    staging_ = DeviceBuffer<float2>();  // the exchange's packing only
  }

  std::string name() const override { return "cuda-pme"; }

  /// From the event before the evaluation's graph launch to the end of its last kernel (the
  /// untimed graph unless the call had timers, whose graph has an event node per phase).
  double lastEvaluationSeconds() const override { return evaluationTimed_ ? elapsedSeconds(1, 7) : -1.0; }

  ReciprocalResult compute(const std::vector<Vec3>& positions, const std::vector<double>& charges, const Box& box,
                           std::vector<Vec3>& forces, Timers* timers) override {
    if (!box.isValid()) throw pmeError(__LINE__, "PME needs a valid rectangular box");
    if (split_.ranks > 1) throw pmeError(__LINE__, "a PME split over GPUs runs on device data only");
    if (charges.size() != positions.size() || forces.size() != positions.size())
      throw pmeError(__LINE__, "positions, charges and forces differ in size");
    static_assert(sizeof(Vec3) == 3 * sizeof(double), "Vec3 must be three packed doubles");
    const int n = int(positions.size());
    if (n == 0) return {};
    reserve(std::size_t(n));
    updateBox(box);
    const bool timed = timers != nullptr;
    auto mark = [&](int i) {
      if (timed) FARADAY_CUDA_CHECK(cudaEventRecord(events_[i].get(), stream_.get()));
    };
    evaluationTimed_ = false;

    // Up: charges when they changed since the last call; positions always, as fixed-point
    // fractional coordinates (12 bytes per atom) in chunks, the host converting chunk k + 1
    // into pinned memory while chunk k is on the bus.
    bool chargesChanged = chargesCount_ != std::size_t(n);
    if (chargesChanged) pme::parallelCopy(hostCharges_.data(), charges.data(), n * sizeof(double));
    else chargesChanged = pme::copyIfChanged(hostCharges_.data(), charges.data(), n);
    chargesCount_ = n;
    mark(0);
    if (chargesChanged)
      FARADAY_CUDA_CHECK(cudaMemcpyAsync(charges_.data(), hostCharges_.data(), std::size_t(n) * sizeof(double),
                                         cudaMemcpyHostToDevice, stream_.get()));
    const std::size_t chunk = transferChunk(n);
    for (std::size_t b = 0; b < std::size_t(n); b += chunk) {
      const std::size_t count = std::min(chunk, std::size_t(n) - b);
      pme::fixedPointPositions(&positions[b], count, boxLengths_, hostFractions_.data() + 3 * b);
      FARADAY_CUDA_CHECK(cudaMemcpyAsync(fractions_.data() + 3 * b, hostFractions_.data() + 3 * b,
                                         count * 3 * sizeof(std::uint32_t), cudaMemcpyHostToDevice, stream_.get()));
    }
    FARADAY_CUDA_CHECK(cudaEventRecord(events_[1].get(), stream_.get()));  // also the evaluation's start
    // The evaluation, then down: the sums, and the forces in chunks, the host adding chunk k
    // while chunk k + 1 is on the bus. A bin that overflowed its capacity (the sums say so,
    // and they arrive before the first chunk) grows the bins and repeats the evaluation.
    for (int attempt = 0;; ++attempt) {
      launchEvaluation(n, timed);
      if (!timed) FARADAY_CUDA_CHECK(cudaEventRecord(events_[7].get(), stream_.get()));  // the evaluation's end
      FARADAY_CUDA_CHECK(cudaMemcpyAsync(hostSums_.data(), sums_.data(), sizeof(EvaluationSums),
                                         cudaMemcpyDeviceToHost, stream_.get()));
      int chunks = 0;
      for (std::size_t b = 0; b < std::size_t(n); b += chunk, ++chunks) {
        const std::size_t count = std::min(chunk, std::size_t(n) - b);
        FARADAY_CUDA_CHECK(cudaMemcpyAsync(hostForces_.data() + 3 * b, forceOut_.data() + 3 * b,
                                           count * 3 * sizeof(float), cudaMemcpyDeviceToHost, stream_.get()));
        FARADAY_CUDA_CHECK(cudaEventRecord(chunkDone_[chunks].get(), stream_.get()));
      }
      mark(8);
      FARADAY_CUDA_CHECK(cudaEventSynchronize(chunkDone_[0].get()));
      const int needed = hostSums_.data()->binsNeeded;
      if (needed > bins_.cap) {
        FARADAY_CUDA_CHECK(cudaStreamSynchronize(stream_.get()));
        countsZero_ = true;
        if (attempt > 0) throw pmeError(__LINE__, "PME bins overflowed again after growing to fit");
        growBinsTo(needed + needed / 4 + 4);
        continue;
      }
      chunks = 0;
      for (std::size_t b = 0; b < std::size_t(n); b += chunk, ++chunks) {
        FARADAY_CUDA_CHECK(cudaEventSynchronize(chunkDone_[chunks].get()));
        pme::addFloatForces(hostForces_.data() + 3 * b, &forces[b], std::min(chunk, std::size_t(n) - b));
      }
      break;
    }
    FARADAY_CUDA_CHECK(cudaStreamSynchronize(stream_.get()));
    countsZero_ = true;
    evaluationTimed_ = true;

    // Timers: the six phases from the events between them; "pme.transfer" from the copies
    // (the upload interval includes the host staging of all chunks but the first).
    if (timed) {
      static const char* const kPhase[6] = {"pme.spline",  "pme.spread",      "pme.fft_forward",
                                            "pme.convolve", "pme.fft_inverse", "pme.gather"};
      for (int p = 0; p < 6; ++p) timers->add(kPhase[p], elapsedSeconds(p + 1, p + 2));
      timers->add("pme.transfer", elapsedSeconds(0, 1) + elapsedSeconds(7, 8));
    }
    const Sums7& s = hostSums_.data()->sums;
    ReciprocalResult r;
    r.energy = s.v[0];
    r.virial = symmetricTensor(s.v + 1);
    return r;
  }

 private:
  double elapsedSeconds(int from, int to) const {
    return 1e-3 * double(CudaEvent::elapsedMs(events_[from], events_[to]));
  }

  /// The evaluation (binning to forces: ~11 nodes with the FFTs) as a CUDA graph
  /// per atom count and timing mode, captured on first use and replayed: one launch, and no
  /// gaps between the kernels. Box-dependent values are read from boxTerms_.
  void launchEvaluation(int n, bool timed) {
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

  /// Atoms per transfer chunk: whole arrays below 128k atoms, else up to kMaxChunks pieces.
  static std::size_t transferChunk(int n) {
    const std::size_t chunks = std::clamp<std::size_t>(std::size_t(n) / 131072, 1, kMaxChunks);
    return (std::size_t(n) + chunks - 1) / chunks;
  }

  /// Device and pinned buffers for n atoms (kept when large enough), and the bins.
  void reserve(std::size_t n) {
    if (n <= capacity_) return;
    if (n >= (std::size_t(1) << (31 - kTagBits)))
      throw pmeError(__LINE__, "the GPU PME takes at most " + std::to_string((1 << (31 - kTagBits)) - 1) +
                                   " atoms, not " + std::to_string(n));
    for (auto& g : graphs_) g.reset();  // they hold the old buffers' addresses
    fractions_ = DeviceBuffer<std::uint32_t>("pme fractional coordinates", 3 * n);
    charges_ = DeviceBuffer<double>("pme charges", n);
    forceOut_ = DeviceBuffer<float>("pme forces", 3 * n);
    hostFractions_.resize(3 * n);
    hostCharges_.resize(n);
    hostForces_.resize(3 * n);
    chargesCount_ = 0;
    capacity_ = n;
    growBinsTo(pme::initialBinCapacity(n, bins_.total));
  }

  /// Bin entry slots for at least `cap` atoms per bin (kept when large enough).
  void growBinsTo(int cap) {
    cap = (cap + 3) / 4 * 4;
    if (cap <= bins_.cap) return;
    for (auto& g : graphs_) g.reset();
    const std::size_t slots = std::size_t(bins_.total) * std::size_t(cap);
    // resize() frees the old slots before allocating the new ones.
    binEntries_.resize(slots * std::size_t(entryFloat4s(params_.order)));
    bins_.cap = cap;
  }

  /// Influence-function factors and box terms for `box` (recomputed when the box changes), on
  /// PME's stream, waited for unless `wait` is false (the caller waits for the stream later).
  void updateBox(const Box& box, bool wait = true) {
    const Vec3 L = box.lengths();
    if (haveBox_ && L == boxLengths_) return;
    // Host copies kept in members until the stream is waited for, once for all four.
    for (int d = 0; d < 3; ++d) {
      const std::vector<double> fd = pme::influenceFactors(moduli_[d], L[d], params_.beta);
      hostFactors_[d].assign(fd.begin(), fd.end());
      FARADAY_CUDA_CHECK(cudaMemcpyAsync(factors_[d].data(), hostFactors_[d].data(), hostFactors_[d].size() * sizeof(float),
                                         cudaMemcpyHostToDevice, stream_.get()));
    }
    BoxTerms& t = hostBoxTerms_;
    t.invLength = make_float3(float(1.0 / L.x), float(1.0 / L.y), float(1.0 / L.z));
    t.prefactor = float(units::kCoulomb / (units::kPi * L.x * L.y * L.z));
    t.piOverBeta2 = float(units::kPi * units::kPi / (params_.beta * params_.beta));
    t.scale = make_float3(float(dims_.k[0] / L.x), float(dims_.k[1] / L.y), float(dims_.k[2] / L.z));
    FARADAY_CUDA_CHECK(cudaMemcpyAsync(boxTerms_.data(), &t, sizeof(t), cudaMemcpyHostToDevice, stream_.get()));
    if (wait) FARADAY_CUDA_CHECK(cudaStreamSynchronize(stream_.get()));
    boxLengths_ = L;
    haveBox_ = true;
  }

  void dispatchPhases(int n, bool timed) {
    switch (params_.order) {
      case 4: runPhases<4>(n, timed); break;
      case 5: runPhases<5>(n, timed); break;
      case 6: runPhases<6>(n, timed); break;
      case 7: runPhases<7>(n, timed); break;
      case 8: runPhases<8>(n, timed); break;
      default: throw pmeError(__LINE__, "PME order outside 4..8");
    }
  }

  /// The phases on the caller's device data (io_.stream set: enqueue) or on the solver's own
  /// buffers and stream (compute).
  template <int P>
  void runPhases(int n, bool timed) {
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

    // 4: influence function, energy and virial block partials (by lines: with the x
    // transforms both ways, on this GPU's rows).
    int partialCount = reduceBlocks_;
    if (lineLogW_ >= 0) {
      partialCount = (y1 - y0) * lineTilesZ_;
      const LineOwnPlanes own = split ? LineOwnPlanes{complexGrid_.data(), x0, x1} : LineOwnPlanes{nullptr, 0, 0};
      launchLineConvolution(lineLogW_, lineTilesZ_, y0, y1 - y0, dims_, linePasses_,
                            split ? rowsGrid_.data() : complexGrid_.data(), own, twiddles_.data(), factors_[0].data(),
                            factors_[1].data(), factors_[2].data(), boxTerms_.data(), partials_.data(), stream);
    } else {
      launchConvolution(reduceBlocks_, dims_, complexGrid_.data(), factors_[0].data(), factors_[1].data(),
                        factors_[2].data(), boxTerms_.data(), partials_.data(), stream);
    }
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

  /// This GPU's part of the split: values per row of the spectrum (and their bytes), its
  /// planes and rows, where its planes start in its spectrum.
  struct SlabShape {
    std::size_t kh, rowBytes, planes, rows;
    float2* slab;
  };
  SlabShape slabShape() {
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
  void transpose(int direction, cudaStream_t s) {
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
  void exchangeToRows(cudaStream_t s) {
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
  void exchangeToPlanes(cudaStream_t s) {
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

  /// Where runPhases reads and writes when called from enqueue().
  struct Io {
    cudaStream_t stream = nullptr;
    const std::uint32_t* fractions = nullptr;
    const double* charges = nullptr;
    ForceOut out{nullptr, nullptr, 0};
    const std::function<void(int)>* mark = nullptr;
  };

  PmeParams params_;
  Io io_;
  CudaStream stream_;  // first: destroyed last, after waiting for the stream's work
  /// 0 before the upload, 1 after it, 2 binning, 3 spreading, 4 forward FFT, 5 convolution,
  /// 6 inverse FFT, 7 gather, 8 after the download.
  std::array<CudaEvent, 9> events_ = makeCudaEvents<9>();
  /// Force chunk k is on the host.
  std::array<CudaEvent, kMaxChunks> chunkDone_ = makeCudaEvents<kMaxChunks>(cudaEventDisableTiming);
  GridDims dims_{};
  int numSms_ = 1;
  BinLayout bins_{};
  std::array<int, 3> nBricks_{};
  int tableRows_ = 1;
  int reduceBlocks_ = 1;
  int lineLogW_ = -1;  ///< log2 of the line tile width; -1: 3D transforms and convolveKernel
  int lineTilesZ_ = 0;
  DeviceBuffer<float2> twiddles_;
  pme::LinePassTable linePasses_;
  std::size_t capacity_ = 0;
  std::size_t chargesCount_ = 0;
  bool haveBox_ = false;
  bool evaluationTimed_ = false;  ///< events 1 and 7 bracket the last evaluation
  /// The bin counts (and the overflow count) are zero: a finished evaluation leaves them so
  /// (the gather resets the counts, its first block the overflow count); a first call, or a
  /// call after an error, clears them before the graph.
  bool countsZero_ = false;
  Vec3 boxLengths_{};

  std::array<std::vector<double>, 3> moduli_;
  std::array<DeviceBuffer<float>, 3> factors_;
  std::array<std::vector<float>, 3> hostFactors_;  ///< updateBox's host copies
  BoxTerms hostBoxTerms_{};
  DeviceBuffer<std::uint32_t> fractions_;
  DeviceBuffer<double> charges_;
  DeviceBuffer<int> binCount_, brickTable_;
  DeviceBuffer<float4> binEntries_;  ///< bins_.total x bins_.cap slots of entryFloat4s(order) float4s
  DeviceBuffer<float> forceOut_, realGrid_;
  DeviceBuffer<float2> complexGrid_;
  DeviceBuffer<Sums7> partials_;
  DeviceBuffer<EvaluationSums> sums_;
  DeviceBuffer<BoxTerms> boxTerms_;
  PinnedBuffer<std::uint32_t> hostFractions_{"pme fractional coordinates"};
  PinnedBuffer<double> hostCharges_{"pme charges"};
  PinnedBuffer<float> hostForces_{"pme forces"};
  PinnedBuffer<EvaluationSums> hostSums_{"pme energy sums"};
  CufftPlan forwardPlan_, inversePlan_;
  std::array<EvaluationGraph, 2> graphs_;  ///< untimed, timed
  // Split over GPUs (splitSlabs; ranks 1: the whole grid here): every rank's x planes and y
  // rows, this GPU's rows of the spectrum (K_x x its rows x (K_z / 2 + 1)), and the staging
  // of the blocks it exchanges.
  PmeSlabSplit split_;
  std::vector<std::pair<int, int>> planes_, rows_;
  DeviceBuffer<float2> rowsGrid_, staging_;
  // Direct stores into the peers' memory (connectSlabPeers): every rank's buffers, this
  // GPU's flags (written by its peers), its counts of scatters and of finished blocks.
  bool direct_ = false;
  SlabExchange exchange_{};
  DeviceBuffer<unsigned long long> flags_, sent_;
  DeviceBuffer<unsigned int> blocksDone_;
};

}  // namespace

std::unique_ptr<ReciprocalSolver> makeCudaPme(const PmeParams& params, std::size_t numAtoms) {
  return std::make_unique<CudaPme>(params, numAtoms);
}

std::unique_ptr<CudaPmeOnDevice> makeCudaPmeOnDevice(const PmeParams& params, std::size_t numAtoms) {
  return std::make_unique<CudaPme>(params, numAtoms);
}

}  // namespace faraday
