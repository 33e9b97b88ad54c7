// makeBackend: the platform choice (cpu | cuda | auto).
#include <cstdio>

#include "engine/Backend.h"
#include "engine/CpuBackend.h"
#include "engine/Error.h"
#include "kernels/common/Device.h"

namespace faraday {
namespace {

bool cudaUsable() { return builtWithCuda() && cudaDeviceCount() > 0; }

/// The CUDA platform: for now the CPU backend with the reciprocal space (PME) on the GPU.
std::unique_ptr<Backend> makeCudaBackend(const Config& config, const System& system, Timers* timers) {
  return std::make_unique<CpuBackend>(config, system, timers, /*useCudaReciprocal=*/true);
}

}  // namespace

bool platformUsesCuda(const std::string& platform) {
  return platform == "cuda" || (platform == "auto" && cudaUsable());
}

std::unique_ptr<Backend> makeBackend(const Config& config, const System& system, Timers* timers) {
  const std::string& platform = config.run.platform;
  if (platform == "cpu") return std::make_unique<CpuBackend>(config, system, timers);
  if (platform == "cuda") {
    if (!cudaUsable()) throw Error("run.platform = cuda: " + cudaDeviceDescription());
    return makeCudaBackend(config, system, timers);
  }
  if (platform == "auto") {
    if (cudaUsable()) return makeCudaBackend(config, system, timers);
    std::fprintf(stderr, "run.platform = auto: no usable CUDA device (%s); using the CPU backend\n",
                 cudaDeviceDescription().c_str());
    return std::make_unique<CpuBackend>(config, system, timers);
  }
  throw keyError("run.platform", "'" + platform + "' is not one of auto, cpu, cuda");
}

}  // namespace faraday
