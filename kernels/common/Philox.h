#pragma once
// Philox4x32-10 counter-based random numbers (Salmon et al., SC'11, "Parallel random
// numbers: as easy as 1, 2, 3"). A stream is a pure function of (key, counter), so the
// CPU and the GPU draw identical bits for (seed, step, particle) (their normals agree to the
// last place of log, sin and cos), and a restart at step s continues exactly without saving
// any generator state.
#include <cmath>
#include <cstdint>

#include "core/HostDevice.h"

namespace faraday::philox {

struct U4 {
  std::uint32_t v[4];
};

FARADAY_HD void mulhilo(std::uint32_t a, std::uint32_t b, std::uint32_t& hi, std::uint32_t& lo) {
  const std::uint64_t p = std::uint64_t(a) * std::uint64_t(b);
  hi = std::uint32_t(p >> 32);
  lo = std::uint32_t(p);
}

/// Ten rounds of Philox4x32 on `ctr` with the 64-bit key (k0, k1).
FARADAY_HD U4 philox4x32_10(U4 ctr, std::uint32_t k0, std::uint32_t k1) {
  constexpr std::uint32_t M0 = 0xD2511F53u, M1 = 0xCD9E8D57u;
  constexpr std::uint32_t W0 = 0x9E3779B9u, W1 = 0xBB67AE85u;
  for (int r = 0; r < 10; ++r) {
    std::uint32_t hi0, lo0, hi1, lo1;
    mulhilo(M0, ctr.v[0], hi0, lo0);
    mulhilo(M1, ctr.v[2], hi1, lo1);
    ctr = U4{{hi1 ^ ctr.v[1] ^ k0, lo1, hi0 ^ ctr.v[3] ^ k1, lo0}};
    k0 += W0;
    k1 += W1;
  }
  return ctr;
}

/// Uniform double in (0, 1) from 32 random bits (never 0, so log() is safe).
FARADAY_HD double toUniform(std::uint32_t x) { return (double(x) + 0.5) * (1.0 / 4294967296.0); }

/// sin and cos of 2 pi u. The device's sincospi reduces its argument in half turns, exactly,
/// with no table and no slow path (cos and sin of a radian argument load coefficient tables
/// and keep a Payne-Hanek branch, which left the memory-latency-bound Langevin first half
/// waiting on them); the host's reduction of the rounded 2 pi u differs from it by about one
/// unit in the last place.
FARADAY_HD void sinCosTwoPi(double u, double& s, double& c) {
#if defined(__CUDA_ARCH__)
  sincospi(2.0 * u, &s, &c);
#else
  constexpr double kTwoPi = 6.283185307179586476925;
  s = std::sin(kTwoPi * u);
  c = std::cos(kTwoPi * u);
#endif
}

/// Four standard normal deviates for (seed, stream, step, particle) by Box-Muller.
/// `stream` separates independent uses (initial velocities, Langevin noise, ...).
struct Normal4 {
  double n[4];
};
FARADAY_HD Normal4 normals(std::uint64_t seed, std::uint32_t stream, std::uint64_t step, std::uint32_t particle) {
  const U4 ctr{{std::uint32_t(step), std::uint32_t(step >> 32), particle, stream}};
  const U4 r = philox4x32_10(ctr, std::uint32_t(seed), std::uint32_t(seed >> 32));
  Normal4 out;
  for (int k = 0; k < 2; ++k) {
    const double u1 = toUniform(r.v[2 * k]);
    const double u2 = toUniform(r.v[2 * k + 1]);
    const double rad = sqrt(-2.0 * log(u1));
    double s, c;
    sinCosTwoPi(u2, s, c);
    out.n[2 * k] = rad * c;
    out.n[2 * k + 1] = rad * s;
  }
  return out;
}

/// Stream identifiers.
inline constexpr std::uint32_t kStreamInitialVelocities = 1;
inline constexpr std::uint32_t kStreamLangevin = 2;
inline constexpr std::uint32_t kStreamBarostat = 3;  ///< counter (attempt, 0): engine/run/Barostat

}  // namespace faraday::philox
