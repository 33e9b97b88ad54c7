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
// share, with a launch function per phase, in CudaPmeDetail.cuh. The host driver, class
// CudaPme (CudaPmeSolver.cuh): its buffers, plans, box terms and compute()'s transfers here;
// the phases on a stream, as a CUDA graph, and a split's transposes in CudaPmeEnqueue.cu.
#include <cuda_runtime.h>
#include <cufft.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "core/Error.h"
#include "core/Units.h"
#include "core/Virial.h"
#include "kernels/common/CudaCheck.h"
#include "kernels/pme/BSpline.h"
#include "kernels/pme/CudaPmeSolver.cuh"
#include "kernels/pme/PmeHostTransfer.h"
#include "kernels/pme/SlabPme.h"

namespace faraday {
namespace pme::gpu {

CudaPme::CudaPme(const PmeParams& params, std::size_t numAtoms) : params_(params) {
  checkParams();
  for (int d = 0; d < 3; ++d) dims_.k[d] = params_.grid[d];
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
  makeBrickTable();
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
  planTransforms(device);
  reserve(numAtoms);
}

void CudaPme::checkParams() const {
  if (params_.order < pme::kMinSplineOrder || params_.order > pme::kMaxSplineOrder)
    throw pmeError(__FILE__, __LINE__, "PME order " + std::to_string(params_.order) + " outside 4..8");
  for (int d = 0; d < 3; ++d)
    if (params_.grid[d] < params_.order)
      throw pmeError(__FILE__, __LINE__,
                     "PME grid dimension " + std::to_string(params_.grid[d]) + " smaller than the order");
  if (double(params_.grid[0]) * params_.grid[1] * params_.grid[2] > 2.0e9)
    throw pmeError(__FILE__, __LINE__, "PME grid too large: at most 2e9 points (32-bit bin and grid indices)");
  if (!(params_.beta > 0)) throw pmeError(__FILE__, __LINE__, "PME beta must be > 0");
}

/// The bins each brick needs, per dimension (brickBins()), as kernel-readable rows.
void CudaPme::makeBrickTable() {
  tableRows_ = std::max({nBricks_[0], nBricks_[1], nBricks_[2]});
  std::vector<int> table(std::size_t(3) * tableRows_ * kBrickTableEntry, 0);
  for (int d = 0; d < 3; ++d)
    for (int b = 0; b < nBricks_[d]; ++b) {
      int* row = &table[(std::size_t(d) * tableRows_ + b) * kBrickTableEntry];
      row[0] = pme::brickBins(dims_.k[d], params_.order, b * pme::kBrickEdge, row + 1);
    }
  brickTable_ = DeviceBuffer<int>("pme brick bin table", table.size());
  FARADAY_CUDA_CHECK(cudaMemcpy(brickTable_.data(), table.data(), table.size() * sizeof(int), cudaMemcpyHostToDevice));
}

/// Phases 3-5: by lines (2D cuFFT plans over (y, z), x transforms with the convolution in
/// lineConvolveKernel) when K_x has no prime factor above 7 and a tile fits in shared
/// memory; else 3D plans and convolveKernel.
void CudaPme::planTransforms(int device) {
  int maxShared = 0;
  FARADAY_CUDA_CHECK(cudaDeviceGetAttribute(&maxShared, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
  pme::LinePlan linePlan;
  if (pme::makeLinePlan(dims_.k[0], linePlan))
    lineLogW_ = pme::lineTileLog(dims_.k[0], dims_.k[1], dims_.k[2] / 2 + 1, 2 * numSms_, pme::kLineSharedBudget,
                                 std::size_t(maxShared) - lineConvolutionStaticShared());
  if (lineLogW_ < 0) {
    forwardPlan_.make(params_.grid, CUFFT_R2C, stream_.get());
    inversePlan_.make(params_.grid, CUFFT_C2R, stream_.get());
    return;
  }
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
  FARADAY_CUDA_CHECK(cudaMemcpy(twiddles_.data(), tw.data(), tw.size() * sizeof(float2), cudaMemcpyHostToDevice));
  setLineConvolutionShared(lineLogW_, int(pme::lineSharedBytes(dims_.k[0], lineLogW_)));
  forwardPlan_.makePlanes(params_.grid, CUFFT_R2C, stream_.get());
  inversePlan_.makePlanes(params_.grid, CUFFT_C2R, stream_.get());
}

void CudaPme::setBox(const Box& box) {
  updateBox(box, /*wait=*/false);
  // On PME's stream and waited for: the legacy default stream does not order the backend's
  // non-blocking streams, whose next spreading reads these counts.
  FARADAY_CUDA_CHECK(cudaMemsetAsync(binCount_.data(), 0, binCount_.size() * sizeof(int), stream_.get()));
  FARADAY_CUDA_CHECK(cudaStreamSynchronize(stream_.get()));
  countsZero_ = true;
}

void CudaPme::splitSlabs(const PmeSlabSplit& split) {
  if (split.ranks < 1 || split.rank < 0 || split.rank >= split.ranks)
    throw pmeError(__FILE__, __LINE__, "PME split: rank " + std::to_string(split.rank) + " of " + std::to_string(split.ranks));
  if (!slabSplitPossible(params_, split.ranks) || lineLogW_ < 0)
    throw pmeError(__FILE__, __LINE__, "a PME grid of " + std::to_string(dims_.k[0]) + " x " + std::to_string(dims_.k[1]) +
                                 " x " + std::to_string(dims_.k[2]) + " cannot be split over " +
                                 std::to_string(split.ranks) + " GPUs");
  if (split.ranks > 1 && (!split.exchange || !split.fixedSums))
    throw pmeError(__FILE__, __LINE__, "PME split: the exchange and the fixed-point sums are needed");
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
void CudaPme::connectSlabPeers(const std::vector<PmeSlabPeer>& peers) {
  if (split_.ranks < 2 || int(peers.size()) != split_.ranks || split_.ranks > kMaxSlabRanks)
    throw pmeError(__FILE__, __LINE__, "PME split: one peer per GPU of the split (at most 8) is needed");
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
ReciprocalResult CudaPme::compute(const std::vector<Vec3>& positions, const std::vector<double>& charges,
                                  const Box& box, std::vector<Vec3>& forces, Timers* timers) {
  if (!box.isValid()) throw pmeError(__FILE__, __LINE__, "PME needs a box in reduced triclinic form");
  if (split_.ranks > 1) throw pmeError(__FILE__, __LINE__, "a PME split over GPUs runs on device data only");
  if (charges.size() != positions.size() || forces.size() != positions.size())
    throw pmeError(__FILE__, __LINE__, "positions, charges and forces differ in size");
  static_assert(sizeof(Vec3) == 3 * sizeof(double), "Vec3 must be three packed doubles");
  const int n = int(positions.size());
  if (n == 0) return {};
  reserve(std::size_t(n));
  updateBox(box);
  const bool timed = timers != nullptr;
  evaluationTimed_ = false;
  upload(positions, charges, n, timed);
  evaluateAndDownload(n, timed, forces);
  FARADAY_CUDA_CHECK(cudaStreamSynchronize(stream_.get()));
  countsZero_ = true;
  evaluationTimed_ = true;
  if (timed) addPhaseTimes(*timers);
  const Sums7& s = hostSums_.data()->sums;
  ReciprocalResult r;
  r.energy = s.v[0];
  r.virial = symmetricTensor(s.v + 1);
  return r;
}

/// Up: charges when they changed since the last call; positions always, as fixed-point
/// fractional coordinates (12 bytes per atom) in chunks, the host converting chunk k + 1
/// into pinned memory while chunk k is on the bus.
void CudaPme::upload(const std::vector<Vec3>& positions, const std::vector<double>& charges, int n, bool timed) {
  bool chargesChanged = chargesCount_ != std::size_t(n);
  if (chargesChanged) pme::parallelCopy(hostCharges_.data(), charges.data(), n * sizeof(double));
  else chargesChanged = pme::copyIfChanged(hostCharges_.data(), charges.data(), n);
  chargesCount_ = n;
  markEvent(0, timed);
  if (chargesChanged)
    FARADAY_CUDA_CHECK(cudaMemcpyAsync(charges_.data(), hostCharges_.data(), std::size_t(n) * sizeof(double),
                                       cudaMemcpyHostToDevice, stream_.get()));
  const std::size_t chunk = transferChunk(n);
  for (std::size_t b = 0; b < std::size_t(n); b += chunk) {
    const std::size_t count = std::min(chunk, std::size_t(n) - b);
    pme::fixedPointPositions(&positions[b], count, pme::fractionScalesOf(box_), hostFractions_.data() + 3 * b);
    FARADAY_CUDA_CHECK(cudaMemcpyAsync(fractions_.data() + 3 * b, hostFractions_.data() + 3 * b,
                                       count * 3 * sizeof(std::uint32_t), cudaMemcpyHostToDevice, stream_.get()));
  }
  FARADAY_CUDA_CHECK(cudaEventRecord(events_[1].get(), stream_.get()));  // also the evaluation's start
}

/// The evaluation, then down: the sums, and the forces in chunks, the host adding chunk k
/// while chunk k + 1 is on the bus. A bin that overflowed its capacity (the sums say so,
/// and they arrive before the first chunk) grows the bins and repeats the evaluation.
void CudaPme::evaluateAndDownload(int n, bool timed, std::vector<Vec3>& forces) {
  const std::size_t chunk = transferChunk(n);
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
    markEvent(8, timed);
    FARADAY_CUDA_CHECK(cudaEventSynchronize(chunkDone_[0].get()));
    const int needed = hostSums_.data()->binsNeeded;
    if (needed > bins_.cap) {
      FARADAY_CUDA_CHECK(cudaStreamSynchronize(stream_.get()));
      countsZero_ = true;
      if (attempt > 0) throw pmeError(__FILE__, __LINE__, "PME bins overflowed again after growing to fit");
      growBinsTo(needed + needed / 4 + 4);
      continue;
    }
    chunks = 0;
    for (std::size_t b = 0; b < std::size_t(n); b += chunk, ++chunks) {
      FARADAY_CUDA_CHECK(cudaEventSynchronize(chunkDone_[chunks].get()));
      pme::addFloatForces(hostForces_.data() + 3 * b, &forces[b], std::min(chunk, std::size_t(n) - b));
    }
    return;
  }
}

/// Timers: the six phases from the events between them; "pme.transfer" from the copies
/// (the upload interval includes the host staging of all chunks but the first).
void CudaPme::addPhaseTimes(Timers& timers) const {
  static const char* const kPhase[6] = {"pme.spline",  "pme.spread",      "pme.fft_forward",
                                        "pme.convolve", "pme.fft_inverse", "pme.gather"};
  for (int p = 0; p < 6; ++p) timers.add(kPhase[p], elapsedSeconds(p + 1, p + 2));
  timers.add("pme.transfer", elapsedSeconds(0, 1) + elapsedSeconds(7, 8));
}

/// Device and pinned buffers for n atoms (kept when large enough), and the bins.
void CudaPme::reserve(std::size_t n) {
  if (n <= capacity_) return;
  if (n >= (std::size_t(1) << (31 - kTagBits)))
    throw pmeError(__FILE__, __LINE__, "the GPU PME takes at most " + std::to_string((1 << (31 - kTagBits)) - 1) +
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
void CudaPme::growBinsTo(int cap) {
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
void CudaPme::updateBox(const Box& box, bool wait) {
  if (haveBox_ && box == box_) return;
  const Vec3 L = box.diagonal();
  const bool triclinic = !box.isRectangular();
  // Host copies kept in members until the stream is waited for, once for all four. A
  // triclinic box's exp(-pi^2 m^2 / beta^2) does not factor per dimension: its tables hold
  // the moduli only (an infinite length gives m = 0 in influenceFactors).
  for (int d = 0; d < 3; ++d) {
    const std::vector<double> fd = pme::influenceFactors(moduli_[d], triclinic ? INFINITY : L[d], params_.beta);
    hostFactors_[d].assign(fd.begin(), fd.end());
    FARADAY_CUDA_CHECK(cudaMemcpyAsync(factors_[d].data(), hostFactors_[d].data(), hostFactors_[d].size() * sizeof(float),
                                       cudaMemcpyHostToDevice, stream_.get()));
  }
  const ReciprocalBox r = box.reciprocal();
  BoxTerms& t = hostBoxTerms_;
  t.invLength = make_float3(float(1.0 / L.x), float(1.0 / L.y), float(1.0 / L.z));
  t.prefactor = float(units::kCoulomb / (units::kPi * L.x * L.y * L.z));
  t.piOverBeta2 = float(units::kPi * units::kPi / (params_.beta * params_.beta));
  t.scale = make_float3(float(dims_.k[0] / L.x), float(dims_.k[1] / L.y), float(dims_.k[2] / L.z));
  t.recipTilt = make_float3(float(r.a.y), float(r.a.z), float(r.b.z));
  t.scaleTilt = make_float3(float(dims_.k[0] * r.a.y), float(dims_.k[0] * r.a.z), float(dims_.k[1] * r.b.z));
  FARADAY_CUDA_CHECK(cudaMemcpyAsync(boxTerms_.data(), &t, sizeof(t), cudaMemcpyHostToDevice, stream_.get()));
  if (wait) FARADAY_CUDA_CHECK(cudaStreamSynchronize(stream_.get()));
  box_ = box;
  triclinic_ = triclinic;
  haveBox_ = true;
}
}  // namespace pme::gpu

std::unique_ptr<ReciprocalSolver> makeCudaPme(const PmeParams& params, std::size_t numAtoms) {
  return std::make_unique<pme::gpu::CudaPme>(params, numAtoms);
}

std::unique_ptr<CudaPmeOnDevice> makeCudaPmeOnDevice(const PmeParams& params, std::size_t numAtoms) {
  return std::make_unique<pme::gpu::CudaPme>(params, numAtoms);
}

}  // namespace faraday
