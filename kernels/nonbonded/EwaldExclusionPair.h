#pragma once
// The Ewald exclusion correction of an excluded pair, written once for the host and the
// device (the conventions of PairEvaluators.h).
#include <math.h>

#include <type_traits>

#include "core/HostDevice.h"
#include "kernels/nonbonded/PairEvaluators.h"

namespace faraday {

/// The Ewald exclusion correction of an excluded pair, qq = k_C q_i q_j (kJ/mol nm), beta
/// (1/nm): it removes the pair's share of the reciprocal-space energy, whatever r. With
/// x = beta r,
///   U = -qq erf(x)/r,
///   F/r = qq (2 beta/sqrt(pi) exp(-x^2) r - erf(x)) / r^3 = qq beta^3 g(x),
///   g(x) = [2/sqrt(pi) x exp(-x^2) - erf(x)] / x^3,
/// finite at r = 0: U -> -qq 2 beta/sqrt(pi), F/r -> -qq 4 beta^3/(3 sqrt(pi)). Where x is
/// small (an O-H bond at a 1 nm cutoff: x = 0.31) the bracket's terms cancel, so there the
/// precisions take series (each keeps the series and the bits of its backend):
///   double (the CPU loops and the GPU bonded kernels): below x = 0.5 both U and F/r from
///     erf(x)/x = 2/sqrt(pi) S(x^2), S(s) = sum_k (-1)^k s^k / (k! (2k+1)), 13 terms (the next
///     is below 1e-17 at x = 0.5); above, from erf and exp. Error: a few ulp, ~1e-15 relative.
///   float (the GPU tile kernel's excluded pairs inside tiles): U from erff at every x; below
///     x = 0.6, g from 2/sqrt(pi) sum_n (-1)^(n+1) 2 x^(2n) / (n! (2n + 3)) to n = 7 (the next
///     term is below 1e-9 of g there); above, from erff and the hardware exp. Error: U within
///     ~3e-7 relative (erff and the reciprocal square root, 2 ulp each); F/r within ~1e-6
///     relative, largest just above x = 0.6, where the bracket loses a factor ~5 to cancellation.
/// kEnergy = false: F/r alone (the energy is 0), for steps without energies; in float erf(x) is
/// then evaluated only above x = 0.6.
template <typename T, bool kEnergy = true>
FARADAY_HD PairResult<T> ewaldExclusionPair(T r2, T qq, T beta) {
  T energy = 0, fOverR;
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, double>, "float or double");
  if constexpr (std::is_same_v<T, double>) {
    constexpr double kTwoOverSqrtPi = 1.12837916709551257390;
    const double s = beta * beta * r2;  // x^2
    if (s < 0.25) {
      // S(s) = sum_k (-1)^k s^k/(k! (2k+1)) and S'(s) = sum_{k>=1} (-1)^k s^(k-1)/((k-1)! (2k+1)),
      // so that erf(beta r)/r = beta 2/sqrt(pi) S and d/dr (erf(beta r)/r) / r = 2 beta^3 2/sqrt(pi) S'.
      double S = 0, dS = 0, fact = 1;  // fact = k! as k runs down: start from 12!
      for (int k = 2; k <= 12; ++k) fact *= k;
      for (int k = 12; k >= 0; --k) {
        const double sign = (k % 2) ? -1.0 : 1.0;
        S = S * s + sign / (fact * (2 * k + 1));
        if (k >= 1) dS = dS * s + sign * k / (fact * (2 * k + 1));
        if (k >= 1) fact /= k;
      }
      if constexpr (kEnergy) energy = -qq * beta * kTwoOverSqrtPi * S;
      fOverR = qq * 2.0 * beta * beta * beta * kTwoOverSqrtPi * dS;
      return {energy, fOverR};
    }
    const double r = sqrt(r2);
    const double ir = 1.0 / r;
    const double e = erf(beta * r);
    const double g = kTwoOverSqrtPi * beta * exp(-s);
    if constexpr (kEnergy) energy = -qq * e * ir;
    fOverR = qq * (g * r - e) * ir * ir * ir;
    return {energy, fOverR};
  } else {
    constexpr float kTwoOverSqrtPi = 1.12837916709551f;
#if defined(__CUDA_ARCH__)
    const float rinv = rsqrtf(r2);
#else
    const float rinv = 1.0f / sqrtf(r2);
#endif
    const float x = beta * r2 * rinv;
    const float erfx = erff(x);
    if constexpr (kEnergy) energy = -qq * erfx * rinv;
    float g;
    if (x < 0.6f) {
      const float y = x * x;
      g = kTwoOverSqrtPi *
          (-0.666666667f +
           y * (0.4f + y * (-0.142857143f +
                            y * (0.0370370370f +
                                 y * (-0.00757575758f +
                                      y * (0.00128205128f + y * (-0.000185185185f + y * 0.0000233426704f)))))));
    } else {
      g = (kTwoOverSqrtPi * x * pairmath::expFast(-x * x) - erfx) / (x * x * x);
    }
    fOverR = qq * beta * beta * beta * g;
    return {energy, fOverR};
  }
}

}  // namespace faraday
