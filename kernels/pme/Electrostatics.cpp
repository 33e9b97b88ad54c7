#include "kernels/pme/Electrostatics.h"

#include <cmath>
#include <cstdio>
#include <string>

#include "core/Error.h"
#include "core/Units.h"

namespace faraday {

double ewaldBetaFromRtol(double cutoff, double rtol) {
  if (!(cutoff > 0)) throw keyError("nonbonded.cutoff", "must be > 0 for Ewald electrostatics");
  if (!(rtol > 0 && rtol < 1)) throw keyError("electrostatics.ewald_rtol", "must lie in (0, 1)");
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
}  // namespace

double pmeSpacingForRtol(double beta, int order, double rtol) {
  if (order < 4 || order > 8) throw keyError("electrostatics.pme_order", "must be 4..8");
  if (!(rtol > 0 && rtol < 1)) throw keyError("electrostatics.ewald_rtol", "must lie in (0, 1)");
  if (!(beta > 0)) throw Error(std::string(__FILE__) + ": pmeSpacingForRtol needs beta > 0");
  const double betaH = std::fmin(0.5, std::pow(rtol / kPmeErrorEnvelope[order - 4], 1.0 / order));
  return betaH / beta;
}

double pmeForceErrorEstimate(double beta, int order, double spacing) {
  if (order < 4 || order > 8) throw keyError("electrostatics.pme_order", "must be 4..8");
  return kPmeErrorEnvelope[order - 4] * std::pow(beta * spacing, order);
}

double ewaldKspaceRtolFor(double ewaldRtol) {
  if (!(ewaldRtol > 0 && ewaldRtol < 1)) throw keyError("electrostatics.ewald_rtol", "must lie in (0, 1)");
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

namespace {

/// "9.35 TB": `bytes` with a decimal unit.
std::string byteText(double bytes) {
  const char* unit[] = {"B", "kB", "MB", "GB", "TB", "PB", "EB"};
  int u = 0;
  while (bytes >= 1000 && u < 6) bytes /= 1000, ++u;
  char text[64];
  std::snprintf(text, sizeof text, "%.3g %s", bytes, unit[u]);
  return text;
}

/// The Error for a PME grid of `points` (before rounding to FFT sizes where derived) that
/// exceeds the limits; `derived`: from fourier_spacing (else the explicit grid).
Error pmeGridTooLarge(const ElectrostaticsParams& e, bool derived, const double points[3], const Vec3& L) {
  char grid[160], limit[160];
  std::snprintf(grid, sizeof grid, "%.0f x %.0f x %.0f points", points[0], points[1], points[2]);
  std::snprintf(limit, sizeof limit, ", which would take %s of memory; a PME grid has at most %d points along an edge "
                "and %.0e in all", byteText(pmeGridBytes(points[0], points[1], points[2])).c_str(), kMaxPmeGridEdge,
                kMaxPmeGridPoints);
  if (!derived) return keyError("electrostatics.grid", std::string(grid) + limit);
  char spacing[64], box[128];
  std::snprintf(spacing, sizeof spacing, e.fourierSpacing == 0 ? "auto" : "%g nm", e.fourierSpacing);
  std::snprintf(box, sizeof box, "%g x %g x %g nm box", L.x, L.y, L.z);
  return keyError("electrostatics.fourier_spacing", std::string(spacing) + " gives a PME grid of " + grid + " for the " +
                                                        box + limit +
                                                        " (set a coarser fourier_spacing or an explicit electrostatics.grid)");
}

}  // namespace

EwaldSetup chooseEwaldSetup(const ElectrostaticsParams& e, double cutoff, const Box& box) {
  EwaldSetup s;
  s.method = e.method;
  s.cutoff = cutoff;
  if (s.method == "none") return s;
  if (s.method != "pme" && s.method != "ewald")
    throw keyError("electrostatics.method", "'" + s.method + "' is not one of pme, ewald, none");
  s.beta = ewaldBetaFromRtol(s.cutoff, e.ewaldRtol);
  s.kspaceRtol = e.ewaldKspaceRtol > 0 ? e.ewaldKspaceRtol : ewaldKspaceRtolFor(e.ewaldRtol);
  if (e.pmeOrder < 4 || e.pmeOrder > 8) throw keyError("electrostatics.pme_order", "must be 4..8");
  s.pme.beta = s.beta;
  s.pme.order = e.pmeOrder;
  const Vec3 L = box.lengths();
  // fourier_spacing = auto (stored as 0): the spacing at which the PME reciprocal force
  // error stays below ewald_rtol for this order (pmeSpacingForRtol).
  const double spacing = e.fourierSpacing == 0 ? pmeSpacingForRtol(s.beta, s.pme.order, e.ewaldRtol) : e.fourierSpacing;
  // The points asked for, checked in double before any int holds them.
  double points[3];
  bool derived = false;
  for (int d = 0; d < 3; ++d) {
    if (e.grid[d] > 0) {
      points[d] = e.grid[d];
      continue;
    }
    if (!(spacing > 0)) throw keyError("electrostatics.fourier_spacing", "must be > 0 or auto");
    // The 1e-9 keeps an exact multiple (3.6 / 0.12) from rounding up to the next size.
    points[d] = std::ceil(L[d] / spacing - 1e-9);
    derived = true;
  }
  if (std::fmax(points[0], std::fmax(points[1], points[2])) > kMaxPmeGridEdge ||
      points[0] * points[1] * points[2] > kMaxPmeGridPoints) {
    if (s.method == "pme") throw pmeGridTooLarge(e, derived, points, L);
    return s;  // plain Ewald has no grid
  }
  for (int d = 0; d < 3; ++d) {
    if (e.grid[d] > 0) {
      if (e.grid[d] < s.pme.order)
        throw keyError("electrostatics.grid", "each dimension must be at least pme_order (" +
                                                  std::to_string(s.pme.order) + ")");
      s.pme.grid[d] = e.grid[d];
      continue;  // an explicit grid is used as given
    } else {
      s.pme.grid[d] = nextFftSize(int(points[d]));
    }
    if (s.pme.grid[d] < 2 * s.pme.order)
      s.pme.grid[d] = nextFftSize(2 * s.pme.order);  // the spline support must fit the grid twice
  }
  return s;
}

std::string describe(const EwaldSetup& s) {
  char buf[256];
  if (s.method == "none") return "electrostatics: none";
  if (s.method == "ewald") {
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
