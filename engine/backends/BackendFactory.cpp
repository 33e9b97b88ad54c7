// makeBackend: the platform choice (cpu | cuda | auto) and, for each, the backend of
// nonbonded.mode (cutoff | all-pairs).
#include <cstdio>

#include "engine/backends/AllPairsCpuBackend.h"
#include "engine/backends/BackendFactory.h"
#include "engine/backends/CpuBackend.h"
#include "engine/backends/CudaAllPairsBackend.h"
#include "engine/backends/CudaBackend.h"
#include "engine/backends/CudaMultiBackend.h"
#include "engine/config/DeviceList.h"
#include "engine/config/KernelParams.h"
#include "core/Error.h"
#include "kernels/common/Device.h"
#include "kernels/multigpu/GpuGroup.h"

namespace faraday {
namespace {

bool cudaUsable() { return builtWithCuda() && cudaDeviceCount() > 0; }

/// The CPU platform: the double-precision oracle of the mode.
std::unique_ptr<Backend> makeCpuBackend(const Config& config, const System& system, Timers* timers) {
  if (config.nonbonded.allPairs())
    return std::make_unique<AllPairsCpuBackend>(allPairsRunParams(config, system), system, timers);
  return std::make_unique<CpuBackend>(cutoffRunParams(config, system, false), system, timers);
}

/// The CUDA platform: the whole step on the GPU (run.devices: which one, or several sharing it).
std::unique_ptr<Backend> makeCudaBackend(const Config& config, const System& system, Timers* timers) {
#if defined(FARADAY_HAVE_CUDA)
  if (!config.run.devices.empty()) {
    const std::vector<int> devices = parseDevices("run.devices", config.run.devices, cudaDeviceCount());
    if (devices.size() > 1) {
      if (config.nonbonded.allPairs())
        throw keyError("run.devices", "all-pairs runs on one GPU (nonbonded.mode = all-pairs)");
      if (!system.topology.virtualSites.empty())
        throw keyError("run.devices", "a system with virtual sites runs on one GPU");
      return makeCudaMultiBackend(multiGpuRunParams(config, system), system, timers, devices);
    }
    useCudaDevice(devices[0]);
  }
  if (config.nonbonded.allPairs()) return makeCudaAllPairsBackend(allPairsRunParams(config, system), system, timers);
  return std::make_unique<CudaBackend>(cutoffRunParams(config, system, true), system, timers);
#else
  if (config.nonbonded.allPairs()) return makeCudaAllPairsBackend(allPairsRunParams(config, system), system, timers);
  (void)config, (void)system, (void)timers;
  throw Error("run.platform = cuda: this build has no CUDA backend");
#endif
}

}  // namespace

bool platformUsesCuda(Platform platform) {
  return platform == Platform::Cuda || (platform == Platform::Auto && cudaUsable());
}

std::unique_ptr<Backend> makeBackend(const Config& config, const System& system, Timers* timers) {
  if (!system.topology.virtualSites.empty() && config.nonbonded.allPairs())
    throw keyError("nonbonded.mode", "all-pairs has no virtual sites: the topology's need the cutoff mode");
  switch (config.run.platform) {
    case Platform::Cpu:
      return makeCpuBackend(config, system, timers);
    case Platform::Cuda:
      if (!cudaUsable()) throw Error("run.platform = cuda: " + cudaDeviceDescription());
      return makeCudaBackend(config, system, timers);
    case Platform::Auto:
      break;
  }
  if (cudaUsable()) return makeCudaBackend(config, system, timers);
  std::fprintf(stderr, "run.platform = auto: no usable CUDA device (%s); using the CPU backend\n",
               cudaDeviceDescription().c_str());
  return makeCpuBackend(config, system, timers);
}

}  // namespace faraday
