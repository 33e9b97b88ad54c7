#include "kernels/pme/Electrostatics.h"

#include <cmath>
#include <cstdio>
#include <string>

#include "core/Error.h"
#include "core/Units.h"

namespace faraday {

double ewaldBetaFromRtol(double cutoff, double rtol) {
  if (!(cutoff > 0)) throw Error("Ewald splitting: the real-space cutoff must be > 0 nm");
  if (!(rtol > 0 && rtol < 1)) throw Error("Ewald splitting: the relative tolerance must lie in (0, 1)");
  // erfc(beta rc) decreases monotonically in beta: bisect on [0, hi].
  double lo = 0, hi = 5;
  while (std::erfc(hi * cutoff) > rtol) hi *= 2;
  for (int i = 0; i < 200 && hi - lo > 1e-15 * hi; ++i) {
    const double mid = 0.5 * (lo + hi);
    (std::erfc(mid * cutoff) > rtol ? lo : hi) = mid;
  }
  return 0.5 * (lo + hi);
}

namespace {
/// A_p of the PME force-error model A_p (beta h)^p, p = 4..8 (see pmeSpacingForRtol).
constexpr double kPmeErrorEnvelope[5] = {0.2, 0.04, 0.035, 0.03, 0.025};

void checkPmeOrder(int order) {
  if (order < kMinPmeOrder || order > kMaxPmeOrder) throw Error("PME: the B-spline order must be 4..8");
}
}  // namespace

double pmeSpacingForRtol(double beta, int order, double rtol) {
  checkPmeOrder(order);
  if (!(rtol > 0 && rtol < 1)) throw Error("PME spacing: the relative tolerance must lie in (0, 1)");
  if (!(beta > 0)) throw Error("PME spacing: beta must be > 0");
  const double betaH = std::fmin(0.5, std::pow(rtol / kPmeErrorEnvelope[order - 4], 1.0 / order));
  return betaH / beta;
}

double pmeForceErrorEstimate(double beta, int order, double spacing) {
  checkPmeOrder(order);
  return kPmeErrorEnvelope[order - 4] * std::pow(beta * spacing, order);
}

double ewaldKspaceRtolFor(double ewaldRtol) {
  if (!(ewaldRtol > 0 && ewaldRtol < 1)) throw Error("Ewald k-space cut: the relative tolerance must lie in (0, 1)");
  // x = pi m_cut / beta solves erfc(x) = target (the same bisection as beta rc for erfc = rtol).
  const double x = ewaldBetaFromRtol(1.0, std::fmin(1e-10, 1e-5 * ewaldRtol));
  return std::exp(-x * x);
}

int nextFftSize(int n) {
  if (n < 1) n = 1;
  for (int m = n;; ++m) {
    int r = m;
    for (int p : {2, 3, 5, 7})
      while (r % p == 0) r /= p;
    if (r == 1) return m;
  }
}

double pmeGridBytes(double nx, double ny, double nz) { return 8 * nx * ny * nz + 16 * nx * ny * (std::floor(nz / 2) + 1); }

std::string describe(const EwaldSetup& s) {
  char buf[256];
  if (s.method == ElectrostaticsMethod::None) return "electrostatics: none";
  if (s.method == ElectrostaticsMethod::Ewald) {
    std::snprintf(buf, sizeof buf, "electrostatics: plain Ewald, cutoff %.4g nm, beta %.6g /nm, k-space rtol %.3g",
                  s.cutoff, s.beta, s.kspaceRtol);
  } else {
    std::snprintf(buf, sizeof buf, "electrostatics: PME, cutoff %.4g nm, beta %.6g /nm, grid %dx%dx%d, order %d",
                  s.cutoff, s.beta, s.pme.grid[0], s.pme.grid[1], s.pme.grid[2], s.pme.order);
  }
  return buf;
}

double ewaldSelfEnergy(double beta, const std::vector<double>& charges) {
  double q2 = 0;
  for (double q : charges) q2 += q * q;
  return -units::kCoulomb * beta / std::sqrt(units::kPi) * q2;
}

void warnIfCharged(const System& system) {
  const double q = system.netCharge();
  if (std::fabs(q) > kNetChargeWarningThreshold)
    std::fprintf(stderr,
                 "faraday: warning: net charge %.6g e; Ewald adds a uniform neutralising background "
                 "(energy -k_C pi Q^2 / (2 V beta^2))\n",
                 q);
}

double ewaldNetChargeEnergy(double beta, double netCharge, double volume) {
  return -units::kCoulomb * units::kPi * netCharge * netCharge / (2.0 * volume * beta * beta);
}

}  // namespace faraday
