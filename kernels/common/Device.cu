#include <cstdio>

#include "kernels/common/CudaCheck.h"
#include "kernels/common/Device.h"

namespace faraday {

bool builtWithCuda() { return true; }

int cudaDeviceCount() {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    cudaGetLastError();  // clear the sticky "no device / no driver" error
    return 0;
  }
  return n;
}

std::string cudaDeviceDescription() {
  int n = 0;
  cudaError_t e = cudaGetDeviceCount(&n);
  if (e == cudaErrorInsufficientDriver) {
    cudaGetLastError();
    int runtime = 0;
    cudaRuntimeGetVersion(&runtime);
    char buf[160];
    std::snprintf(buf, sizeof buf, "no usable CUDA device: no NVIDIA driver, or one older than this build's CUDA %d.%d",
                  runtime / 1000, (runtime % 1000) / 10);
    return buf;
  }
  if (e != cudaSuccess) {
    cudaGetLastError();
    return std::string("no usable CUDA device: ") + cudaGetErrorString(e);
  }
  if (n == 0) return "no CUDA device present";
  cudaDeviceProp p{};
  FARADAY_CUDA_CHECK(cudaGetDeviceProperties(&p, 0));
  char buf[256];
  std::snprintf(buf, sizeof buf, "%s, %d SMs, %.1f GiB, compute capability %d.%d", p.name, p.multiProcessorCount,
                double(p.totalGlobalMem) / (1024.0 * 1024.0 * 1024.0), p.major, p.minor);
  return buf;
}

void useCudaDevice(int device) { FARADAY_CUDA_CHECK(cudaSetDevice(device)); }

bool allPeersReachable(const std::vector<int>& devices) {
  for (int a : devices)
    for (int b : devices) {
      if (a == b) continue;
      int can = 0;
      if (cudaDeviceCanAccessPeer(&can, a, b) != cudaSuccess) {
        cudaGetLastError();
        return false;
      }
      if (!can) return false;
    }
  return true;
}

void enablePeerAccess(int peer) {
  const cudaError_t e = cudaDeviceEnablePeerAccess(peer, 0);
  if (e == cudaErrorPeerAccessAlreadyEnabled) {
    cudaGetLastError();
    return;
  }
  FARADAY_CUDA_CHECK(e);
}

}  // namespace faraday
