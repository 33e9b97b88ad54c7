#pragma once
// Cardinal B-splines for smooth PME (Essmann et al., J. Chem. Phys. 103, 8577 (1995)).
//
// M_2(u) = 1 - |u - 1| on [0, 2], zero elsewhere;
// M_n(u) = u/(n-1) M_{n-1}(u) + (n-u)/(n-1) M_{n-1}(u-1)        (Essmann eq. 4.1)
// dM_n/du = M_{n-1}(u) - M_{n-1}(u-1)                            (Essmann eq. 4.2)
//
// Index convention used by every PME implementation in Faraday: for a scaled fractional
// coordinate u = K s (grid units, 0 <= u < K) with integer part i0 = floor(u) and
// fractional part w = u - i0, the n non-zero weights are
//   theta[j] = M_n(w + n - 1 - j),   j = 0..n-1,
// and theta[j] belongs to grid point (i0 - n + 1 + j) mod K. dtheta[j] is dtheta[j]/du
// (per grid unit); multiply by K / L for a derivative per nm.
// The weights sum to 1 and the derivatives sum to 0 for any w.
#include <cmath>
#include <vector>

#include "core/HostDevice.h"

namespace faraday::pme {

/// Largest interpolation order supported (arrays are sized by it).
inline constexpr int kMaxSplineOrder = 8;
/// Smallest supported interpolation order.
inline constexpr int kMinSplineOrder = 4;

/// B-spline weights theta[0..order-1] and their derivatives dtheta (per grid unit) for
/// the fractional part w in [0, 1) of a grid coordinate; order in 2..kMaxSplineOrder.
/// Real is float or double. `dtheta` may be null when derivatives are not needed.
template <typename Real>
FARADAY_HD void bsplineWeights(Real w, int order, Real* theta, Real* dtheta) {
  // Start from M_2: theta[0] = M_2(w + 1) = 1 - w, theta[1] = M_2(w) = w.
  theta[0] = Real(1) - w;
  theta[1] = w;
  // Raise the order from m - 1 to m in place (eq. 4.1), for m = 3..order-1; the
  // derivative of M_order needs M_{order-1}, so the last raise comes after it.
  for (int m = 3; m < order; ++m) {
    const Real inv = Real(1) / Real(m - 1);
    // New theta[j] = M_m(u) with u = w + m - 1 - j; before the update theta[j-1] holds
    // M_{m-1}(u) and theta[j] holds M_{m-1}(u - 1), so eq. 4.1 reads
    // M_m(u) = [u theta[j-1] + (m - u) theta[j]] / (m - 1). Descending j keeps theta[j-1] old.
    theta[m - 1] = inv * w * theta[m - 2];  // u = w: only M_{m-1}(w) contributes
    for (int j = m - 2; j >= 1; --j) {
      const Real u = w + Real(m - 1 - j);
      theta[j] = inv * (u * theta[j - 1] + (Real(m) - u) * theta[j]);
    }
    theta[0] = inv * (Real(1) - w) * theta[0];  // u = w + m - 1: only M_{m-1}(u - 1) contributes
  }
  if (order == 2) {
    if (dtheta) {
      dtheta[0] = Real(-1);
      dtheta[1] = Real(1);
    }
    return;
  }
  // Derivatives of M_order from M_{order-1} (eq. 4.2): dtheta[j] = M_{n-1}(u) - M_{n-1}(u-1)
  // with u = w + n - 1 - j, i.e. old theta[j-1] - old theta[j] (zero outside 0..n-2).
  if (dtheta) {
    dtheta[0] = -theta[0];
    for (int j = 1; j < order - 1; ++j) dtheta[j] = theta[j - 1] - theta[j];
    dtheta[order - 1] = theta[order - 2];
  }
  // Final raise to M_order.
  const int m = order;
  const Real inv = Real(1) / Real(m - 1);
  theta[m - 1] = inv * w * theta[m - 2];
  for (int j = m - 2; j >= 1; --j) {
    const Real u = w + Real(m - 1 - j);
    theta[j] = inv * (u * theta[j - 1] + (Real(m) - u) * theta[j]);
  }
  theta[0] = inv * (Real(1) - w) * theta[0];
}

/// Compile-time-order variant (the loops unroll); Order in 2..kMaxSplineOrder.
template <int Order, typename Real>
FARADAY_HD void bsplineWeights(Real w, Real* theta, Real* dtheta) {
  static_assert(Order >= 2 && Order <= kMaxSplineOrder, "B-spline order out of range");
  bsplineWeights<Real>(w, Order, theta, dtheta);
}

/// floor() for float or double, host and device.
FARADAY_HD float floorReal(float x) { return floorf(x); }
FARADAY_HD double floorReal(double x) { return floor(x); }

/// Splits a scaled fractional coordinate u (grid units, any real) into the index of the
/// first grid point the spline touches, (floor(u) - order + 1) mod K in [0, K), and the
/// fractional part w = u - floor(u) in [0, 1).
template <typename Real>
FARADAY_HD void splitGridCoordinate(Real u, int gridSize, int order, int& firstIndex, Real& w) {
  const Real fl = floorReal(u);
  w = u - fl;
  if (w >= Real(1)) w = Real(0);  // guards rounding of tiny negative u in float
  int i0 = int(fl) - order + 1;
  i0 %= gridSize;
  if (i0 < 0) i0 += gridSize;
  firstIndex = i0;
}

/// |b(m)|^2 for m = 0..K-1 of one dimension (Essmann eq. 4.4 and 4.7-4.8):
///   b(m) = exp(2 pi i (n-1) m / K) / sum_{k=0}^{n-2} M_n(k+1) exp(2 pi i m k / K).
/// For odd n the denominator vanishes at m = K/2 (even K); like GROMACS and OpenMM, a
/// denominator below 1e-7 is replaced by the mean of its neighbours' so that the
/// influence function stays finite. Host only, double precision.
inline std::vector<double> bsplineModuli(int gridSize, int order) {
  constexpr double kPi = 3.14159265358979323846;
  // M_n at the integers 1..n-1: the weights at w = 0 are theta[j] = M_n(n - 1 - j).
  double theta[kMaxSplineOrder + 1] = {};
  bsplineWeights<double>(0.0, order, theta, nullptr);
  std::vector<double> denom(gridSize);
  for (int m = 0; m < gridSize; ++m) {
    double re = 0, im = 0;
    for (int k = 0; k <= order - 2; ++k) {
      const double mk = theta[order - 2 - k];  // M_n(k + 1)
      const double arg = 2.0 * kPi * double(m) * double(k) / double(gridSize);
      re += mk * std::cos(arg);
      im += mk * std::sin(arg);
    }
    denom[m] = re * re + im * im;
  }
  for (int m = 0; m < gridSize; ++m) {
    if (denom[m] < 1e-7) {
      const double left = denom[(m - 1 + gridSize) % gridSize];
      const double right = denom[(m + 1) % gridSize];
      denom[m] = 0.5 * (left + right);
    }
  }
  std::vector<double> moduli(gridSize);
  for (int m = 0; m < gridSize; ++m) moduli[m] = 1.0 / denom[m];
  return moduli;
}

}  // namespace faraday::pme
