#pragma once
// The GPU PME's host driver, class CudaPme, shared by its two files: CudaPme.cu makes the
// buffers, plans and box terms and runs compute() with its host transfers; CudaPmeEnqueue.cu
// puts the six phases on a stream (captured as a CUDA graph, or on the caller's stream) with
// the transposes of a split over GPUs.
#include <cuda_runtime.h>
#include <cufft.h>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "core/Error.h"
#include "kernels/common/CudaCheck.h"
#include "kernels/common/CudaOwners.h"
#include "kernels/common/DeviceBuffer.h"
#include "kernels/pme/CudaPme.h"
#include "kernels/pme/CudaPmeDetail.cuh"
#include "kernels/pme/LineFft.h"
#include "kernels/pme/PmeGridGeometry.h"

namespace faraday::pme::gpu {

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

/// An error naming the file and line that throws it.
inline Error pmeError(const char* file, int line, const std::string& what) {
  return Error(std::string(file) + ":" + std::to_string(line) + ": " + what);
}

class CudaPme final : public ReciprocalSolver, public CudaPmeOnDevice {
 public:
  CudaPme(const PmeParams& params, std::size_t numAtoms);
  ~CudaPme() override { cudaStreamSynchronize(stream_.get()); }

  // ---- On device data (CudaPmeOnDevice) ----
  void enqueue(cudaStream_t stream, int n, const std::uint32_t* fractions, const double* charges,
               unsigned long long* force, std::size_t stride, const std::function<void(int)>& mark) override;
  const double* energyAndVirial() const override { return sums_.data()->sums.v; }
  const int* binsNeeded() const override { return &sums_.data()->binsNeeded; }
  int binCapacity() const override { return bins_.cap; }
  void growBins(int needed) override {
    FARADAY_CUDA_CHECK(cudaDeviceSynchronize());
    growBinsTo(needed);
  }
  void setBox(const Box& box) override;
  void splitSlabs(const PmeSlabSplit& split) override;
  PmeSlabPeer slabPeer() override {
    PmeSlabPeer p;
    p.rows = rowsGrid_.data();
    p.spectrum = complexGrid_.data();
    p.flags = flags_.data();
    return p;
  }
  void connectSlabPeers(const std::vector<PmeSlabPeer>& peers) override;

  std::string name() const override { return "cuda-pme"; }

  /// From the event before the evaluation's graph launch to the end of its last kernel (the
  /// untimed graph unless the call had timers, whose graph has an event node per phase).
  double lastEvaluationSeconds() const override { return evaluationTimed_ ? elapsedSeconds(1, 7) : -1.0; }

  ReciprocalResult compute(const std::vector<Vec3>& positions, const std::vector<double>& charges, const Box& box,
                           std::vector<Vec3>& forces, Timers* timers) override;

 private:
  double elapsedSeconds(int from, int to) const {
    return 1e-3 * double(CudaEvent::elapsedMs(events_[from], events_[to]));
  }

  // ---- Plans and buffers (CudaPme.cu) ----
  void checkParams() const;
  void makeBrickTable();
  void planTransforms(int device);
  void reserve(std::size_t n);
  void growBinsTo(int cap);
  void updateBox(const Box& box, bool wait = true);

  // ---- compute()'s transfers (CudaPme.cu) ----
  /// Atoms per transfer chunk: whole arrays below 128k atoms, else up to kMaxChunks pieces.
  static std::size_t transferChunk(int n) {
    const std::size_t chunks = std::clamp<std::size_t>(std::size_t(n) / 131072, 1, kMaxChunks);
    return (std::size_t(n) + chunks - 1) / chunks;
  }
  void markEvent(int i, bool timed) {
    if (timed) FARADAY_CUDA_CHECK(cudaEventRecord(events_[i].get(), stream_.get()));
  }
  void upload(const std::vector<Vec3>& positions, const std::vector<double>& charges, int n, bool timed);
  void evaluateAndDownload(int n, bool timed, std::vector<Vec3>& forces);
  void addPhaseTimes(Timers& timers) const;

  // ---- The phases on a stream (CudaPmeEnqueue.cu) ----
  void launchEvaluation(int n, bool timed);
  void dispatchPhases(int n, bool timed);
  template <int P>
  void runPhases(int n, bool timed);
  int convolvePhase(int x0, int x1, int y0, int y1, cudaStream_t stream);

  /// This GPU's part of the split: values per row of the spectrum (and their bytes), its
  /// planes and rows, where its planes start in its spectrum.
  struct SlabShape {
    std::size_t kh, rowBytes, planes, rows;
    float2* slab;
  };
  SlabShape slabShape();
  void transpose(int direction, cudaStream_t s);
  void exchangeToRows(cudaStream_t s);
  void exchangeToPlanes(cudaStream_t s);

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
  Box box_{};              ///< the box of the factors and box terms (haveBox_)
  bool triclinic_ = false;  ///< box_ is not rectangular: the convolution's kTriclinic variants

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

}  // namespace faraday::pme::gpu
