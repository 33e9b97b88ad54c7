#pragma once
// Transforms along x of the GPU PME's half-complex spectrum (CudaPmeConvolve.cu): a mixed-radix,
// self-sorting (Stockham) FFT of length K_x, done in shared memory by one thread block per
// tile of (m_y, m_z) columns, with the convolution between the forward and the inverse
// transform. cuFFT does the (y, z) transforms as batched 2D plans, so the spectrum is read
// and written once for the x transforms and the convolution together, not three times.
//
// Pass p of radix R (Ns = product of the radices before it, m = n / R butterflies): for
// butterfly j, with k = j mod Ns,
//   v[r] = in[j + r m] * w_n^(r k n / (Ns R)),  r = 0..R-1        (w_n = exp(-2 pi i / n))
//   v    = DFT_R(v)
//   out[(j - k) R + k + r Ns] = v[r]
// After the last pass the transform is in natural order. Written once for host and device:
// the tests replay it in double against a direct DFT.
#include <cstddef>

#include "core/HostDevice.h"

namespace faraday::pme {

inline constexpr int kMaxLinePasses = 16;

/// The radices of a line transform of length n, first pass first.
struct LinePlan {
  int n = 0;
  int passes = 0;
  int radix[kMaxLinePasses] = {};
};

/// The plan for length n: radix-4 passes while 4 divides n, then 2, 3, 5 and 7. False when n
/// has another prime factor (the caller then uses a 3D transform).
inline bool makeLinePlan(int n, LinePlan& plan) {
  plan = LinePlan{};
  if (n < 1) return false;
  plan.n = n;
  int r = n;
  for (int radix : {4, 2, 3, 5, 7})
    while (r % radix == 0) {
      if (plan.passes == kMaxLinePasses) return false;
      plan.radix[plan.passes++] = radix;
      r /= radix;
    }
  return r == 1;
}

/// The constants of one pass for threads that take every J-th butterfly (J <= 64): radix R,
/// Ns (product of the radices before it), perK = n / (R Ns) (twiddle power per unit of k),
/// J mod Ns and (J - J mod Ns) R (the steps of k and of the output base), and 1 / Ns.
struct LinePass {
  int radix, ns, perK, stepK, stepDst;
  float invNs;
};

inline constexpr int kMaxLineStride = 64;

/// The passes of a line transform as one value (a kernel parameter: read through the
/// constant cache, with no copy to shared memory).
struct LinePassTable {
  int count = 0;
  LinePass pass[kMaxLinePasses] = {};
};

/// The passes of `plan` for butterfly stride J (1 <= J <= kMaxLineStride).
inline int linePasses(const LinePlan& plan, int J, LinePass out[kMaxLinePasses]) {
  int ns = 1;
  for (int p = 0; p < plan.passes; ++p) {
    const int R = plan.radix[p];
    out[p] = LinePass{R, ns, plan.n / (R * ns), J % ns, (J - J % ns) * R, float(1.0 / ns)};
    ns *= R;
  }
  return plan.passes;
}

/// Butterflies j0, j0 + J, j0 + 2 J, ... (j0 < J) of a pass: k = j mod Ns and the output base
/// (j - k) R + k, advanced without a division (j0 mod Ns from 1 / Ns in float: exact for
/// j0 < 64, whose quotient is at least 0.5 / Ns away from an integer).
struct LineWalk {
  int j, k, dst;
  FARADAY_HD LineWalk(int j0, const LinePass& p) : j(j0) {
    k = p.ns > j0 ? j0 : j0 - p.ns * int((float(j0) + 0.5f) * p.invNs);
    dst = (j0 - k) * p.radix + k;
  }
  FARADAY_HD void next(int J, const LinePass& p) {
    j += J;
    k += p.stepK;
    dst += p.stepDst + p.stepK;
    if (k >= p.ns) {
      k -= p.ns;
      dst += (p.radix - 1) * p.ns;
    }
  }
  /// Input r of the butterfly at j + r n / R, output r at dst + r Ns, twiddle power
  /// r k perK of w_n.
  FARADAY_HD int twiddleStep(const LinePass& p) const { return k * p.perK; }
};

/// Rows of a line tile in shared memory: n, rounded up to a multiple of 4 (the kernel
/// permutes rows inside aligned groups of up to 4 to spread them over the banks).
FARADAY_HD int lineTileRows(int n) { return (n + 3) / 4 * 4; }

/// Shared memory of a line tile: the n twiddles, n per-m_x convolution factors (two floats
/// each), and two tiles of lineTileRows(n) 2^logW complex floats.
inline std::size_t lineSharedBytes(int n, int logW) {
  return (2 * std::size_t(n) + 2 * (std::size_t(lineTileRows(n)) << logW)) * 2 * sizeof(float);
}

/// Shared memory a line tile may take and still leave room for two blocks per SM.
inline constexpr std::size_t kLineSharedBudget = 100 * 1024;

/// log2 of the tile width (2 to 5: 4 to 32 columns) for x length n over ny m_y rows of kh
/// m_z columns: the widest tile within `budget` bytes of shared memory that still gives
/// `minBlocks` blocks; failing that, the narrowest within `maxShared`; -1 when none fits.
inline int lineTileLog(int n, int ny, int kh, int minBlocks, std::size_t budget, std::size_t maxShared) {
  int narrowest = -1;
  for (int logW = 5; logW >= 2; --logW) {
    const std::size_t bytes = lineSharedBytes(n, logW);
    if (bytes > maxShared) continue;
    const long long blocks = (long long)ny * ((kh + (1 << logW) - 1) >> logW);
    if (bytes <= budget && blocks >= minBlocks) return logW;
    narrowest = logW;
  }
  return narrowest;
}

}  // namespace faraday::pme
