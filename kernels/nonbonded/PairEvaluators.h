#pragma once
// Pair interactions written once for the host (double, the oracle) and the device
// (float pair math). Each evaluator takes the squared distance r2 (nm^2) and returns the
// pair energy (kJ/mol) and the scalar F/r (kJ/mol/nm^2), with the convention
//   F_i = fOverR * (x_i - x_j),   F_j = -F_i,   fOverR = -(dU/dr) / r,
// so callers form the force vector from the displacement they already hold and the
// pair virial is r_ij (x) F_ij = fOverR * r_ij (x) r_ij.
#include <math.h>

#include "core/HostDevice.h"

namespace faraday {

/// Energy (kJ/mol) and F/r (kJ/mol/nm^2) of one pair.
template <typename T>
struct PairResult {
  T energy;
  T fOverR;
};

namespace pairmath {
// Overloads by precision, usable on host and device without relying on <cmath> overload sets.
FARADAY_HD float sqrtT(float x) { return sqrtf(x); }
FARADAY_HD double sqrtT(double x) { return sqrt(x); }
FARADAY_HD float expT(float x) { return expf(x); }
FARADAY_HD double expT(double x) { return exp(x); }
FARADAY_HD float erfcT(float x) { return erfcf(x); }
FARADAY_HD double erfcT(double x) { return erfc(x); }
// The fast evaluators' hardware approximations on the device (rsqrt, reciprocal and exp2
// units: a few ulp); exact on the host and in double.
// The device's are the flush-to-zero forms: no operand here is subnormal (r^2 and 1 + p x of
// a pair), and the non-ftz forms add four instructions each to scale such operands.
FARADAY_HD float rsqrtFast(float x) {
#if defined(__CUDA_ARCH__)
  float y;
  asm("rsqrt.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
#else
  return 1.0f / sqrtf(x);
#endif
}
FARADAY_HD double rsqrtFast(double x) { return 1.0 / sqrt(x); }
FARADAY_HD float rcpFast(float x) {
#if defined(__CUDA_ARCH__)
  float y;
  asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
#else
  return 1.0f / x;
#endif
}
FARADAY_HD double rcpFast(double x) { return 1.0 / x; }
FARADAY_HD float expFast(float x) {
#if defined(__CUDA_ARCH__)
  return __expf(x);
#else
  return expf(x);
#endif
}
FARADAY_HD double expFast(double x) { return exp(x); }
FARADAY_HD float exp2Fast(float x) {
#if defined(__CUDA_ARCH__)
  float y;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));  // the exp2 unit alone, as __expf uses it
  return y;
#else
  return exp2f(x);
#endif
}
FARADAY_HD double exp2Fast(double x) { return exp2(x); }
// powf, not the __powf intrinsic: the intrinsic's log2/exp2 approximations lose ~1e-5 of
// the typed force's (c2/r)^c3 at c3 = 12 near contact.
FARADAY_HD float powT(float x, float y) { return powf(x, y); }
FARADAY_HD double powT(double x, double y) { return pow(x, y); }
}  // namespace pairmath

/// Lennard-Jones coefficients of one type pair, in the c6/c12 form
///   U(r) = c12 / r^12 - c6 / r^6 - shift,  c6 = 4 eps sigma^6, c12 = 4 eps sigma^12,
/// which equals 4 eps ((sigma/r)^12 - (sigma/r)^6) - shift.
/// shift = c12/rc^12 - c6/rc^6 (potential-shift, GROMACS' default) or 0.
template <typename T>
struct LjParams {
  T c6;     ///< kJ/mol nm^6
  T c12;    ///< kJ/mol nm^12
  T shift;  ///< kJ/mol, subtracted from every pair inside the cutoff
};

/// Lorentz-Berthelot mixing: sigma_ij = (s_i + s_j)/2 (nm), eps_ij = sqrt(e_i e_j) (kJ/mol);
/// `cutoff` (nm) and `shift` select the potential shift.
inline LjParams<double> mixLorentzBerthelot(double sigmaI, double epsI, double sigmaJ, double epsJ,
                                            double cutoff, bool shift) {
  const double s = 0.5 * (sigmaI + sigmaJ), e = sqrt(epsI * epsJ);
  const double s6 = s * s * s * s * s * s;
  LjParams<double> p{4 * e * s6, 4 * e * s6 * s6, 0.0};
  if (shift) {
    const double ir6 = 1.0 / (cutoff * cutoff * cutoff * cutoff * cutoff * cutoff);
    p.shift = p.c12 * ir6 * ir6 - p.c6 * ir6;
  }
  return p;
}

/// Lennard-Jones:  U = c12/r^12 - c6/r^6 - shift,
///   F/r = (12 c12/r^12 - 6 c6/r^6) / r^2.
/// 12 flops: 1 division, 3 multiplications for 1/r^6, 4 for the terms, 4 adds/subtracts.
template <typename T>
FARADAY_HD PairResult<T> ljPair(T r2, const LjParams<T>& p) {
  const T ir2 = T(1) / r2;
  const T ir6 = ir2 * ir2 * ir2;
  const T rep = p.c12 * ir6 * ir6;  // c12 / r^12
  const T dis = p.c6 * ir6;         // c6 / r^6
  return {rep - dis - p.shift, (T(12) * rep - T(6) * dis) * ir2};
}

/// Potential shift of the real-space Ewald Coulomb at cutoff rc (nm): erfc(beta rc)/rc (1/nm),
/// the value of erfc(beta r)/r at the cutoff (GROMACS' coulomb-modifier = Potential-shift).
template <typename T>
FARADAY_HD T ewaldRealShift(T beta, T cutoff) {
  return pairmath::erfcT(beta * cutoff) / cutoff;
}

/// Real-space Ewald Coulomb with qq = k_C q_i q_j (kJ/mol nm), beta (1/nm) and the potential
/// shift `shift` (1/nm: ewaldRealShift(beta, rc) so that U(rc) = 0, or 0 for none):
///   U = qq (erfc(beta r)/r - shift),
///   F/r = qq (erfc(beta r)/r + 2 beta/sqrt(pi) exp(-beta^2 r^2)) / r^2   (the shift is a constant).
/// About 13 flops plus sqrt, erfc and exp.
template <typename T>
FARADAY_HD PairResult<T> ewaldRealPair(T r2, T qq, T beta, T shift) {
  constexpr T kTwoOverSqrtPi = T(1.12837916709551257390);
  const T r = pairmath::sqrtT(r2);
  const T ir = T(1) / r;
  const T u = qq * pairmath::erfcT(beta * r) * ir;
  const T g = qq * kTwoOverSqrtPi * beta * pairmath::expT(-beta * beta * r2);
  return {u - qq * shift, (u + g) * ir * ir};
}

/// ewaldRealPair with erfc(x) from Abramowitz & Stegun 7.1.26,
///   erfc(x) ~ t (a1 + t (a2 + t (a3 + t (a4 + t a5)))) exp(-x^2),  t = 1 / (1 + p x),
/// which reuses the exp(-beta^2 r^2) of the force: one division instead of an erfc call.
/// Its absolute error in erfc is below 1.5e-7 for x >= 0, so the pair energy is off by at
/// most 1.5e-7 qq / r (tested against the double evaluator). About 20 flops plus sqrt, exp
/// and one reciprocal.
template <typename T>
FARADAY_HD PairResult<T> ewaldRealPairFast(T r2, T qq, T beta) {
  constexpr T kTwoOverSqrtPi = T(1.12837916709551257390);
  const T r = pairmath::sqrtT(r2);
  const T ir = T(1) / r;
  const T x = beta * r;
  const T e = pairmath::expT(-x * x);
  const T t = T(1) / (T(1) + T(0.3275911) * x);
  const T poly = t * (T(0.254829592) + t * (T(-0.284496736) + t * (T(1.421413741) + t * (T(-1.453152027) +
                                                                                       t * T(1.061405429)))));
  const T u = qq * poly * e * ir;
  const T g = qq * kTwoOverSqrtPi * beta * e;
  return {u, (u + g) * ir * ir};
}

/// LJ and real-space Ewald Coulomb of one pair together, the GPU tile kernel's evaluator:
/// the formulas of ljPair and ewaldRealPairFast, with 1/r from one reciprocal square root
/// (1/r^2 = (1/r)^2) and the hardware reciprocal and exp on the device: three special-
/// function operations per pair instead of five divisions, roots and exponentials. Energies
/// are returned apart (lj, coulomb). Tested against the double evaluators.
template <typename T>
struct PairResult2 {
  T lj, coulomb, fOverR;
};
template <typename T, bool kCoulomb>
FARADAY_HD PairResult2<T> ljEwaldPairFast(T r2, const LjParams<T>& p, T qq, T beta) {
  constexpr T kTwoOverSqrtPi = T(1.12837916709551257390);
  constexpr T kLog2e = T(1.44269504088896340736);
  const T ir = pairmath::rsqrtFast(r2);
  const T ir2 = ir * ir;
  const T ir6 = ir2 * ir2 * ir2;
  const T rep = p.c12 * ir6 * ir6;
  const T dis = p.c6 * ir6;
  PairResult2<T> out{rep - dis - p.shift, T(0), T(0)};
  // r F/r summed over both terms, then one division by r^2.
  T rf = T(12) * rep - T(6) * dis;
  if constexpr (kCoulomb) {
    const T x = beta * r2 * ir;  // beta r
    // exp(-beta^2 r^2) = 2^(-beta^2 log2(e) r^2): one multiplication before the exp2 unit.
    const T e = pairmath::exp2Fast(-(beta * beta * kLog2e) * r2);
    const T t = pairmath::rcpFast(T(1) + T(0.3275911) * x);
    const T poly = t * (T(0.254829592) + t * (T(-0.284496736) + t * (T(1.421413741) + t * (T(-1.453152027) +
                                                                                         t * T(1.061405429)))));
    const T qe = qq * e;
    const T u = qe * poly * ir;  // qq erfc(beta r) / r
    out.coulomb = u;
    rf += u + qe * (kTwoOverSqrtPi * beta);
  }
  out.fOverR = rf * ir2;
  return out;
}

/// The force alone of LJ and real-space Ewald Coulomb (the tile kernel's steps without
/// energies): ljEwaldPairFast's formulas rearranged so that each operation serves the force,
///   F/r = [ir6 (12 c12 ir6 - 6 c6) + qq e (t P(t) / r + 2 beta / sqrt(pi))] / r^2,
/// e = exp(-beta^2 r^2), t = 1 / (1 + p beta r), erfc(beta r) = t P(t) e (Abramowitz-Stegun
/// 7.1.26, P of degree 4). P = a5 Q with Q monic, and a5 goes into the exponential
/// (a5 e = 2^(log2(a5) - beta^2 log2(e) r^2), one fused multiply-add), so Q's innermost step
/// is an addition; the LJ coefficients and the Coulomb constants are multiplied out
/// beforehand: 17 floating-point operations and three special-function ones (46 for
/// ljEwaldPairFast in the compiled loop). Tested against the double evaluators.
template <typename T>
struct LjForceParams {
  T c6x6;    ///< 6 c6 (kJ/mol nm^6)
  T c12x12;  ///< 12 c12 (kJ/mol nm^12)
};
/// The Coulomb constants of ljEwaldForceFast for one beta (1/nm).
template <typename T>
struct EwaldForceConstants {
  T pBeta;       ///< p beta, p = 0.3275911 (1/nm)
  T expScale;    ///< -beta^2 log2(e) (1/nm^2)
  T expOffset;   ///< log2(a5): a5 exp(-beta^2 r^2) = 2^(expScale r^2 + expOffset)
  T gaussOverA5; ///< 2 beta / (sqrt(pi) a5) (1/nm)
  static EwaldForceConstants of(double beta) {
    return {T(0.3275911 * beta), T(-beta * beta * 1.44269504088896340736), T(log2(1.061405429)),
            T(1.12837916709551257390 * beta / 1.061405429)};
  }
};
template <typename T, bool kCoulomb>
FARADAY_HD T ljEwaldForceFast(T r2, const LjForceParams<T>& p, T qq, const EwaldForceConstants<T>& c) {
  const T ir = pairmath::rsqrtFast(r2);
  const T ir2 = ir * ir;
  const T ir6 = ir2 * ir2 * ir2;
  T rf = ir6 * (p.c12x12 * ir6 - p.c6x6);
  if constexpr (kCoulomb) {
    // Q = P / a5, its coefficients a_k / a5 of A-S 7.1.26.
    constexpr T b0 = T(0.254829592 / 1.061405429), b1 = T(-0.284496736 / 1.061405429),
                b2 = T(1.421413741 / 1.061405429), b3 = T(-1.453152027 / 1.061405429);
    const T e = pairmath::exp2Fast(c.expScale * r2 + c.expOffset);  // a5 exp(-beta^2 r^2)
    const T t = pairmath::rcpFast((c.pBeta * r2) * ir + T(1));
    const T q = b0 + t * (b1 + t * (b2 + t * (b3 + t)));
    rf += (qq * e) * (q * (t * ir) + c.gaussOverA5);
  }
  return rf * ir2;
}

/// Plummer-softened gravity with gmm = G m_i m_j (kJ/mol nm) and softening eps2 = eps^2 (nm^2):
///   U = -gmm / sqrt(r^2 + eps^2),
///   F/r = -gmm / (r^2 + eps^2)^(3/2)   (attractive: F_i points from i towards j).
/// 6 flops plus one sqrt (the classic 20-flop n-body count includes the vector work).
/// The loops share its softened distance's inverse powers (softenedInverse); the GPU
/// all-pairs kernel applies G and the masses to its sums (nbody/CudaAllPairs.cu).
template <typename T>
struct SoftenedInverse {
  T inv;   ///< 1/s, s = sqrt(r^2 + eps^2) (1/nm)
  T inv3;  ///< 1/s^3 (1/nm^3)
};
/// 1/s and 1/s^3 of s2 = r^2 + eps^2 (nm^2); kFast: the hardware reciprocal square root on
/// the device (rsqrtFast: a few ulp), else 1/sqrt.
template <typename T, bool kFast = false>
FARADAY_HD SoftenedInverse<T> softenedInverse(T s2) {
  T inv;
  if constexpr (kFast) inv = pairmath::rsqrtFast(s2);
  else inv = T(1) / pairmath::sqrtT(s2);
  return {inv, inv * inv * inv};
}
template <typename T>
FARADAY_HD PairResult<T> softenedGravityPair(T r2, T gmm, T eps2) {
  const T is = softenedInverse<T>(r2 + eps2).inv;
  const T u = -gmm * is;
  return {u, u * is * is};
}

/// The typed pair force of one type pair: F_i = R (c1 / r^3 + (c2 / r)^c3), R = x_i - x_j,
/// with r clamped below at rmin so that the force stays finite. c1 (kJ/mol nm) is a
/// Coulomb-like term (U = c1 / r), the power term (c3 > 2) a repulsion
/// U = (c2 / r)^c3 r^2 / (c3 - 2). Below rmin the force is g(rmin) R, whose potential
/// U(rmin) + g(rmin) (rmin^2 - r^2) / 2 keeps the energy consistent with the force.
template <typename T>
struct TypedPairParams {
  T c1;  ///< kJ/mol nm
  T c2;  ///< nm (kJ/mol/nm^2)^(1/c3)
  T c3;  ///< exponent, > 2
};
template <typename T>
FARADAY_HD PairResult<T> typedPair(T r2, const TypedPairParams<T>& p, T rmin2) {
  const T rc2 = r2 > rmin2 ? r2 : rmin2;
  const T ir = pairmath::rsqrtFast(rc2);
  const T power = pairmath::powT(p.c2 * ir, p.c3);  // (c2 / r)^c3
  const T g = p.c1 * ir * ir * ir + power;
  T u = p.c1 * ir + power * rc2 / (p.c3 - T(2));
  if (r2 < rmin2) u += g * (rmin2 - r2) * T(0.5);
  return {u, g};
}

}  // namespace faraday
