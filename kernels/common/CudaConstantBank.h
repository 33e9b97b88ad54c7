#pragma once
// Uses of a __constant__ array by several streams of one GPU, one after another. A
// __constant__ array exists once per device, not once per object or stream: two host
// threads that each copy their data into it and launch a kernel reading it, on their own
// streams of the same GPU, can have the second copy land before the first kernel has read
// its data (the first kernel then sums the other thread's atoms). Each translation unit that
// owns such an array keeps one ConstantBankTurns next to it and enqueues every copy into
// the array, with the kernels that read it, inside take().
#if defined(FARADAY_HAVE_CUDA)
#include <map>
#include <memory>
#include <mutex>
#include <utility>

#include "kernels/common/CudaCheck.h"
#include "kernels/common/CudaOwners.h"

namespace faraday {

class ConstantBankTurns {
 public:
  /// Enqueues `copyAndRead` (a copy into the array and the kernels that read it, all on
  /// stream `s` of the current device) after the last turn taken on this device, from any
  /// stream, has been read; the next turn waits for these kernels in turn. The host waits
  /// for nothing but the lock, held while the work is enqueued.
  template <class CopyAndRead>
  void take(cudaStream_t s, CopyAndRead&& copyAndRead) {
    Device& d = current();
    std::lock_guard<std::mutex> lock(d.mutex);
    if (d.used) FARADAY_CUDA_CHECK(cudaStreamWaitEvent(s, d.read.get(), 0));
    d.used = true;
    try {
      std::forward<CopyAndRead>(copyAndRead)();
    } catch (...) {
      // What was enqueued before the failure still goes before the next turn.
      cudaEventRecord(d.read.get(), s);
      throw;
    }
    FARADAY_CUDA_CHECK(cudaEventRecord(d.read.get(), s));
  }

 private:
  struct Device {
    std::mutex mutex;
    CudaEvent read{cudaEventDisableTiming};  // after the last turn's kernels
    bool used = false;
  };

  /// The current device's state, made (with its event on that device) on first use.
  Device& current() {
    int device = 0;
    FARADAY_CUDA_CHECK(cudaGetDevice(&device));
    std::lock_guard<std::mutex> lock(devicesMutex_);
    std::unique_ptr<Device>& d = devices_[device];
    if (!d) d = std::make_unique<Device>();
    return *d;
  }

  std::mutex devicesMutex_;
  std::map<int, std::unique_ptr<Device>> devices_;
};

}  // namespace faraday
#endif
