// Device queries for a build without CUDA.
#if !defined(FARADAY_HAVE_CUDA)
#include "kernels/common/Device.h"

namespace faraday {
bool builtWithCuda() { return false; }
int cudaDeviceCount() { return 0; }
std::string cudaDeviceDescription() { return "this build has no CUDA support (FARADAY_CUDA=OFF or nvcc not found)"; }
void useCudaDevice(int) {}
bool allPeersReachable(const std::vector<int>&) { return false; }
void enablePeerAccess(int) {}
}  // namespace faraday
#endif
