// makeBackend: the platform choice (cpu | cuda | auto) and, for each, the backend of
// nonbonded.mode (cutoff | all-pairs).
#include <cstdio>

#include "engine/backends/AllPairsCpuBackend.h"
#include "engine/backends/BackendFactory.h"
#include "engine/backends/CpuBackend.h"
#include "engine/backends/CudaAllPairsBackend.h"
#include "engine/backends/CudaBackend.h"
#include "engine/backends/CudaMultiBackend.h"
#include "core/Error.h"
#include "kernels/common/Device.h"
#include "kernels/multigpu/GpuGroup.h"

namespace faraday {
namespace {

bool cudaUsable() { return builtWithCuda() && cudaDeviceCount() > 0; }

/// The CPU platform: the double-precision oracle of the mode.
std::unique_ptr<Backend> makeCpuBackend(const Config& config, const System& system, Timers* timers) {
  if (config.nonbonded.allPairs()) return std::make_unique<AllPairsCpuBackend>(config, system, timers);
  return std::make_unique<CpuBackend>(config, system, timers);
}

/// The CUDA platform: the whole step on the GPU (run.devices: which one, or several sharing it).
std::unique_ptr<Backend> makeCudaBackend(const Config& config, const System& system, Timers* timers) {
#if defined(FARADAY_HAVE_CUDA)
  if (!config.run.devices.empty()) {
    const std::vector<int> devices = parseDevices("run.devices", config.run.devices, cudaDeviceCount());
    if (devices.size() > 1) return makeCudaMultiBackend(config, system, timers, devices);
    useCudaDevice(devices[0]);
  }
  if (config.nonbonded.allPairs()) return makeCudaAllPairsBackend(config, system, timers);
  return std::make_unique<CudaBackend>(config, system, timers);
#else
  if (config.nonbonded.allPairs()) return makeCudaAllPairsBackend(config, system, timers);
  (void)config, (void)system, (void)timers;
  throw Error("run.platform = cuda: this build has no CUDA backend");
#endif
}

}  // namespace

bool platformUsesCuda(const std::string& platform) {
  return platform == "cuda" || (platform == "auto" && cudaUsable());
}

std::unique_ptr<Backend> makeBackend(const Config& config, const System& system, Timers* timers) {
  const std::string& platform = config.run.platform;
  if (platform == "cpu") return makeCpuBackend(config, system, timers);
  if (platform == "cuda") {
    if (!cudaUsable()) throw Error("run.platform = cuda: " + cudaDeviceDescription());
    return makeCudaBackend(config, system, timers);
  }
  if (platform == "auto") {
    if (cudaUsable()) return makeCudaBackend(config, system, timers);
    std::fprintf(stderr, "run.platform = auto: no usable CUDA device (%s); using the CPU backend\n",
                 cudaDeviceDescription().c_str());
    return makeCpuBackend(config, system, timers);
  }
  throw keyError("run.platform", "'" + platform + "' is not one of auto, cpu, cuda");
}

}  // namespace faraday
