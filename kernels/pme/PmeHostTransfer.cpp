#include "kernels/pme/PmeHostTransfer.h"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstring>

#include "kernels/pme/PmeGridGeometry.h"

namespace faraday::pme {

namespace {
// Below this, one thread is faster than a parallel region (whose start costs a few us
// with warm threads; one core streams ~10 GB/s, so 256 KB take ~25 us alone).
constexpr std::size_t kParallelBytes = std::size_t(1) << 18;
}  // namespace

void parallelCopy(void* dst, const void* src, std::size_t bytes) {
  if (bytes < kParallelBytes) {
    std::memcpy(dst, src, bytes);
    return;
  }
  const int threads = std::min(omp_get_max_threads(), 16);
  const std::size_t chunk = (bytes + threads - 1) / threads;
#pragma omp parallel for num_threads(threads) schedule(static)
  for (int t = 0; t < threads; ++t) {
    const std::size_t begin = std::size_t(t) * chunk;
    if (begin < bytes)
      std::memcpy(static_cast<char*>(dst) + begin, static_cast<const char*>(src) + begin,
                  std::min(chunk, bytes - begin));
  }
}

bool copyIfChanged(double* cache, const double* src, std::size_t n) {
  int changed = 0;
#pragma omp parallel for reduction(| : changed) schedule(static) if (n * sizeof(double) >= kParallelBytes)
  for (std::size_t i = 0; i < n; ++i) {
    if (cache[i] != src[i] || std::signbit(cache[i]) != std::signbit(src[i])) {
      cache[i] = src[i];
      changed = 1;
    }
  }
  return changed != 0;
}

void fixedPointPositions(const Vec3* positions, std::size_t n, const FractionScales& scales, std::uint32_t* out) {
#pragma omp parallel for schedule(static) if (n * sizeof(Vec3) >= kParallelBytes)
  for (std::size_t i = 0; i < n; ++i)
    fractionalFixedPoints(positions[i].x, positions[i].y, positions[i].z, scales, out + 3 * i);
}

void addFloatForces(const float* f, Vec3* forces, std::size_t n) {
#pragma omp parallel for schedule(static) if (n * 12 >= kParallelBytes)
  for (std::size_t i = 0; i < n; ++i) {
    forces[i].x += double(f[3 * i]);
    forces[i].y += double(f[3 * i + 1]);
    forces[i].z += double(f[3 * i + 2]);
  }
}

}  // namespace faraday::pme
