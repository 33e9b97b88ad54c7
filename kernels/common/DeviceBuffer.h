#pragma once
#if defined(FARADAY_HAVE_CUDA)
#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "kernels/common/CudaCheck.h"

namespace faraday {

/// Move-only owner of a device array of T that knows its name and size. Out of device
/// memory is reported with the name and the number of bytes asked for.
template <typename T>
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  DeviceBuffer(std::string name, std::size_t count) : name_(std::move(name)) { resize(count); }
  ~DeviceBuffer() { release(); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  DeviceBuffer(DeviceBuffer&& o) noexcept : name_(std::move(o.name_)), ptr_(o.ptr_), count_(o.count_) {
    o.ptr_ = nullptr;
    o.count_ = 0;
  }
  DeviceBuffer& operator=(DeviceBuffer&& o) noexcept {
    if (this != &o) {
      release();
      name_ = std::move(o.name_);
      ptr_ = std::exchange(o.ptr_, nullptr);
      count_ = std::exchange(o.count_, 0);
    }
    return *this;
  }

  /// Reallocates when the size changes (contents are not kept).
  void resize(std::size_t count) {
    if (count == count_) return;
    release();
    if (count == 0) return;
    const std::size_t bytes = count * sizeof(T);
    cudaError_t e = cudaMalloc(reinterpret_cast<void**>(&ptr_), bytes);
    if (e != cudaSuccess) {
      cudaGetLastError();
      ptr_ = nullptr;
      std::size_t freeBytes = 0, totalBytes = 0;
      cudaMemGetInfo(&freeBytes, &totalBytes);
      throw Error("out of device memory allocating '" + name_ + "': asked for " + std::to_string(bytes) +
                  " bytes (" + std::to_string(bytes >> 20) + " MiB), " + std::to_string(freeBytes >> 20) +
                  " MiB free of " + std::to_string(totalBytes >> 20) + " MiB");
    }
    count_ = count;
  }

  void upload(const T* host, std::size_t count, cudaStream_t stream = nullptr) {
    resize(count);
    if (count) FARADAY_CUDA_CHECK(cudaMemcpyAsync(ptr_, host, count * sizeof(T), cudaMemcpyHostToDevice, stream));
  }
  void upload(const std::vector<T>& host, cudaStream_t stream = nullptr) { upload(host.data(), host.size(), stream); }
  /// Device-to-device copy of all of `from` on `stream`, resized to match first (a no-op when
  /// the sizes agree, as in captured graphs).
  void copyFrom(const DeviceBuffer& from, cudaStream_t stream) {
    resize(from.count_);
    if (count_) FARADAY_CUDA_CHECK(cudaMemcpyAsync(ptr_, from.ptr_, bytes(), cudaMemcpyDeviceToDevice, stream));
  }
  void download(T* host, std::size_t count, cudaStream_t stream = nullptr) const {
    if (count) FARADAY_CUDA_CHECK(cudaMemcpyAsync(host, ptr_, count * sizeof(T), cudaMemcpyDeviceToHost, stream));
  }
  /// Synchronous download of the whole buffer.
  std::vector<T> toHost(cudaStream_t stream = nullptr) const {
    std::vector<T> h(count_);
    download(h.data(), count_, stream);
    FARADAY_CUDA_CHECK(cudaStreamSynchronize(stream));
    return h;
  }
  void zero(cudaStream_t stream = nullptr) {
    if (count_) FARADAY_CUDA_CHECK(cudaMemsetAsync(ptr_, 0, count_ * sizeof(T), stream));
  }

  T* data() { return ptr_; }
  const T* data() const { return ptr_; }
  std::size_t size() const { return count_; }
  std::size_t bytes() const { return count_ * sizeof(T); }
  const std::string& name() const { return name_; }

 private:
  void release() {
    if (ptr_) cudaFree(ptr_);
    ptr_ = nullptr;
    count_ = 0;
  }
  std::string name_ = "buffer";
  T* ptr_ = nullptr;
  std::size_t count_ = 0;
};

/// One T in device memory that kernels read through its pointer, with the host copy it was
/// written from: values that change between launches of a captured graph (the box's terms)
/// live here rather than in kernel arguments, so the graph stays valid. set() is an ordered
/// copy on `stream`, never inside a capture.
template <typename T>
class DeviceValue {
 public:
  explicit DeviceValue(std::string name) : buffer_(std::move(name), 1) {}
  void set(const T& value, cudaStream_t stream) {
    host_ = value;
    FARADAY_CUDA_CHECK(cudaMemcpyAsync(buffer_.data(), &host_, sizeof(T), cudaMemcpyHostToDevice, stream));
  }
  const T* data() const { return buffer_.data(); }

 private:
  DeviceBuffer<T> buffer_;
  T host_{};
};

/// A device copy of `host`, named `name` (uploaded on the default stream).
template <typename T>
DeviceBuffer<T> deviceCopy(const char* name, const std::vector<T>& host) {
  DeviceBuffer<T> d(name, 0);
  d.upload(host);
  return d;
}

}  // namespace faraday
#endif
