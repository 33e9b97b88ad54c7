// The run's Ewald setup from [electrostatics] and nonbonded.cutoff, and the check of its
// estimated PME force error (KernelParams.h).
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "core/Error.h"
#include "engine/config/KernelParams.h"
#include "engine/formats/TextParse.h"

namespace faraday {

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
Error pmeGridTooLarge(const Config::ElectrostaticsSection& e, bool derived, const double points[3], const Vec3& L) {
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

EwaldSetup chooseEwaldSetup(const Config::ElectrostaticsSection& e, double cutoff, const Box& box) {
  EwaldSetup s;
  s.method = e.method;
  s.cutoff = cutoff;
  if (s.method == ElectrostaticsMethod::None) return s;
  s.beta = ewaldBetaFromRtol(s.cutoff, e.ewaldRtol);
  s.kspaceRtol = e.ewaldKspaceRtol > 0 ? e.ewaldKspaceRtol : ewaldKspaceRtolFor(e.ewaldRtol);
  s.pme.beta = s.beta;
  s.pme.order = e.pmeOrder;
  // Points along each box vector from its length, as GROMACS sizes a triclinic grid.
  const Vec3 L = box.edgeLengths();
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
    // The 1e-9 keeps an exact multiple (3.6 / 0.12) from rounding up to the next size.
    points[d] = std::ceil(L[d] / spacing - 1e-9);
    derived = true;
  }
  if (std::fmax(points[0], std::fmax(points[1], points[2])) > kMaxPmeGridEdge ||
      points[0] * points[1] * points[2] > kMaxPmeGridPoints) {
    if (s.method == ElectrostaticsMethod::Pme) throw pmeGridTooLarge(e, derived, points, L);
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

EwaldSetup chooseEwaldSetup(const Config& config, const Box& box) {
  return chooseEwaldSetup(config.electrostatics, config.nonbonded.cutoff, box);
}

std::string checkPmeAccuracy(const Config& config, const EwaldSetup& setup, const Box& box, const std::string& what,
                             const std::string& betaFrom) {
  if (setup.pme.grid[0] <= 0 || !(setup.beta > 0)) return "";
  const auto& e = config.electrostatics;
  const Vec3 L = box.edgeLengths();
  double h = 0;
  for (int d = 0; d < 3; ++d) h = std::max(h, L[d] / setup.pme.grid[d]);
  const double estimate = pmeForceErrorEstimate(setup.beta, setup.pme.order, h);
  const double bound = std::max(kPmeErrorRtolFactor * e.ewaldRtol, kPmeErrorFloor);
  if (!(estimate > bound)) return "";
  char text[768];
  std::snprintf(text, sizeof text,
                "%s: estimated relative force error %.2g, above max(%g ewald_rtol, %g) = %.2g: the grid %d x %d x %d "
                "(%s; largest spacing %.3g nm in the %.4g x %.4g x %.4g nm box) with electrostatics.pme_order = %d "
                "and beta = %.4g /nm (%s)",
                what.c_str(), estimate, kPmeErrorRtolFactor, kPmeErrorFloor, bound, setup.pme.grid[0], setup.pme.grid[1],
                setup.pme.grid[2],
                e.grid[0] > 0 ? "electrostatics.grid"
                              : ("electrostatics.fourier_spacing = " +
                                 (e.fourierSpacing == 0 ? std::string("auto") : formatNumber(e.fourierSpacing)))
                                    .c_str(),
                h, L.x, L.y, L.z, setup.pme.order, setup.beta, betaFrom.c_str());
  if (e.acceptForceError) return std::string(text) + "; run anyway (electrostatics.accept_force_error = true)";
  throw Error(std::string(text) + "; refine the grid, raise pme_order or lower beta, or set "
                                  "electrostatics.accept_force_error = true to run anyway");
}

}  // namespace faraday
