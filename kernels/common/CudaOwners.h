#pragma once
// Move-only owners of the CUDA runtime and cuFFT objects that are not device arrays
// (DeviceBuffer.h owns those): page-locked host buffers, cuFFT plans, streams, events and
// instantiated graphs. Each releases what it holds in its destructor, so nothing leaks when
// a checked call throws; a constructor that throws has released what it made before.
#if defined(FARADAY_HAVE_CUDA)
#include <array>
#include <cstddef>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>

#include "kernels/common/CudaCheck.h"

namespace faraday {

namespace detail {
// What the owners below call to release their handle (the stream after its work is done).
struct FreeHost {
  void operator()(void* p) const { cudaFreeHost(p); }
};
struct DestroyStream {
  void operator()(cudaStream_t s) const {
    cudaStreamSynchronize(s);
    cudaStreamDestroy(s);
  }
};
struct DestroyEvent {
  void operator()(cudaEvent_t e) const { cudaEventDestroy(e); }
};
struct DestroyGraphExec {
  void operator()(cudaGraphExec_t g) const { cudaGraphExecDestroy(g); }
};
}  // namespace detail

/// Page-locked host array of T (transfers at full DMA speed) that knows its name and size.
template <typename T>
class PinnedBuffer {
 public:
  explicit PinnedBuffer(std::string name = "pinned buffer", std::size_t count = 0) : name_(std::move(name)) {
    resize(count);
  }

  /// Reallocates when the size changes (contents are not kept).
  void resize(std::size_t count) {
    if (count == size()) return;
    ptr_.reset();
    count_ = 0;
    if (count == 0) return;
    T* p = nullptr;
    if (cudaMallocHost(reinterpret_cast<void**>(&p), count * sizeof(T)) != cudaSuccess) {
      cudaGetLastError();
      throw Error("out of pinned host memory allocating '" + name_ + "': " + std::to_string(count * sizeof(T)) +
                  " bytes");
    }
    ptr_.reset(p);
    count_ = count;
  }

  T* data() { return ptr_.get(); }
  const T* data() const { return ptr_.get(); }
  std::size_t size() const { return ptr_ ? count_ : 0; }
  const std::string& name() const { return name_; }

 private:
  std::string name_;
  std::unique_ptr<T, detail::FreeHost> ptr_;
  std::size_t count_ = 0;
};

/// A cuFFT plan bound to a stream. The handle is created before the plan is made, so a
/// failed plan is still destroyed.
class CufftPlan {
 public:
  CufftPlan() = default;
  ~CufftPlan() { release(); }
  CufftPlan(const CufftPlan&) = delete;
  CufftPlan& operator=(const CufftPlan&) = delete;
  CufftPlan(CufftPlan&& o) noexcept : plan_(o.plan_), made_(std::exchange(o.made_, false)) {}
  CufftPlan& operator=(CufftPlan&& o) noexcept {
    if (this != &o) {
      release();
      plan_ = o.plan_;
      made_ = std::exchange(o.made_, false);
    }
    return *this;
  }

  /// The 3D transform of a K[0] x K[1] x K[2] grid (z fastest).
  void make(const std::array<int, 3>& K, cufftType type, cudaStream_t stream) {
    create();
    std::size_t work = 0;
    FARADAY_CUDA_CHECK(cufftMakePlan3d(plan_, K[0], K[1], K[2], type, &work));
    FARADAY_CUDA_CHECK(cufftSetStream(plan_, stream));
  }
  /// The (y, z) transforms of every x plane: K_x batched 2D transforms, real planes of
  /// K_y K_z points, half-complex planes of K_y (K_z / 2 + 1).
  void makePlanes(const std::array<int, 3>& K, cufftType type, cudaStream_t stream) {
    int n[2] = {K[1], K[2]};
    int realEmbed[2] = {K[1], K[2]};
    int complexEmbed[2] = {K[1], K[2] / 2 + 1};
    const int realDist = K[1] * K[2], complexDist = K[1] * (K[2] / 2 + 1);
    const bool forward = type == CUFFT_R2C || type == CUFFT_D2Z;
    create();
    std::size_t work = 0;
    FARADAY_CUDA_CHECK(cufftMakePlanMany(plan_, 2, n, forward ? realEmbed : complexEmbed, 1,
                                         forward ? realDist : complexDist, forward ? complexEmbed : realEmbed, 1,
                                         forward ? complexDist : realDist, type, K[0], &work));
    FARADAY_CUDA_CHECK(cufftSetStream(plan_, stream));
  }
  cufftHandle get() const { return plan_; }

 private:
  void create() {
    release();
    FARADAY_CUDA_CHECK(cufftCreate(&plan_));
    made_ = true;
  }
  void release() {
    if (made_) cufftDestroy(plan_);
    made_ = false;
  }
  cufftHandle plan_ = 0;
  bool made_ = false;
};

/// A non-blocking stream. Its release waits for the stream's work before destroying it, so
/// buffers released after it are no longer in use.
class CudaStream {
 public:
  /// `priority`: as cudaStreamCreateWithPriority (lower numbers run first; 0 is the default).
  explicit CudaStream(int priority = 0) {
    cudaStream_t s = nullptr;
    FARADAY_CUDA_CHECK(cudaStreamCreateWithPriority(&s, cudaStreamNonBlocking, priority));
    stream_.reset(s);
  }
  cudaStream_t get() const { return stream_.get(); }

 private:
  std::unique_ptr<std::remove_pointer_t<cudaStream_t>, detail::DestroyStream> stream_;
};

/// An event (flags as cudaEventCreateWithFlags: cudaEventDefault times, cudaEventDisableTiming
/// only orders).
class CudaEvent {
 public:
  explicit CudaEvent(unsigned int flags = cudaEventDefault) {
    cudaEvent_t e = nullptr;
    FARADAY_CUDA_CHECK(cudaEventCreateWithFlags(&e, flags));
    event_.reset(e);
  }
  cudaEvent_t get() const { return event_.get(); }

  /// Milliseconds from `start` to `stop` (both recorded and complete; timing events).
  static float elapsedMs(const CudaEvent& start, const CudaEvent& stop) {
    float ms = 0.f;
    FARADAY_CUDA_CHECK(cudaEventElapsedTime(&ms, start.get(), stop.get()));
    return ms;
  }

 private:
  std::unique_ptr<std::remove_pointer_t<cudaEvent_t>, detail::DestroyEvent> event_;
};

/// N events with the same flags; those made before a failed creation are destroyed.
template <std::size_t N>
std::array<CudaEvent, N> makeCudaEvents(unsigned int flags = cudaEventDefault) {
  return [flags]<std::size_t... I>(std::index_sequence<I...>) {
    return std::array<CudaEvent, N>{((void)I, CudaEvent(flags))...};
  }(std::make_index_sequence<N>{});
}

/// An instantiated CUDA graph (empty until capture()).
class CudaGraphExec {
 public:
  /// Captures what `record` enqueues on `stream` and instantiates it, replacing the graph
  /// held; the captured graph is destroyed whether or not `record` or the capture throws.
  /// `flags`: as cudaGraphInstantiateWithFlags (cudaGraphInstantiateFlagUseNodePriority: the
  /// kernels keep the priorities of the streams they were captured from).
  template <typename Record>
  void capture(cudaStream_t stream, Record&& record, unsigned long long flags = 0) {
    reset();
    cudaGraph_t captured = nullptr;
    FARADAY_CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeRelaxed));
    try {
      record();
    } catch (...) {
      cudaStreamEndCapture(stream, &captured);
      if (captured) cudaGraphDestroy(captured);
      throw;
    }
    FARADAY_CUDA_CHECK(cudaStreamEndCapture(stream, &captured));
    cudaGraphExec_t exec = nullptr;
    const cudaError_t made = cudaGraphInstantiateWithFlags(&exec, captured, flags);
    cudaGraphDestroy(captured);
    FARADAY_CUDA_CHECK(made);
    exec_.reset(exec);
  }
  void launch(cudaStream_t stream) const { FARADAY_CUDA_CHECK(cudaGraphLaunch(exec_.get(), stream)); }
  void reset() { exec_.reset(); }
  bool captured() const { return exec_ != nullptr; }

 private:
  std::unique_ptr<std::remove_pointer_t<cudaGraphExec_t>, detail::DestroyGraphExec> exec_;
};

}  // namespace faraday
#endif
