#pragma once
// A step's energies gathered on the device in one block: the kinetic partials summed in a
// fixed order, the 64-bit fixed-point sums converted to double (and cleared for the next
// evaluation), PME's own sums copied.
#if defined(FARADAY_HAVE_CUDA)
#include <cuda_runtime.h>

namespace faraday {

/// At most this many fixed-point sums (one thread each).
inline constexpr int kEnergySumsThreads = 256;

/// Where the sums go, in device memory.
struct EnergySumsOut {
  double* kinetic;  ///< the sum of the kinetic partials
  double* sums;     ///< the fixed-point sums as double, `count` of them
  double* recip;    ///< PME's 7 (E and virial): from `pme`, or the fixed sums at pmeAt when it is null
};

/// keParts: `keCount` kinetic partials; fixedSums: `count` (<= kEnergySumsThreads) sums of
/// fixed::kEnergyScale, cleared after reading; pme: PME's own 7 sums, or null (PME split over
/// GPUs: its sums are the fixed-point ones at pmeAt).
void launchEnergySums(cudaStream_t stream, const double* keParts, int keCount, unsigned long long* fixedSums,
                      int count, int pmeAt, const double* pme, const EnergySumsOut& out);

}  // namespace faraday
#endif
