#include "kernels/dcs/Lattice.h"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "core/Error.h"

namespace faraday {

void checkLatticeSpacing(double spacing) {
  if (!(spacing > 0) || !std::isfinite(spacing))
    throw Error("potential map: the lattice spacing must be a positive number of nm, got " + std::to_string(spacing));
}

void checkLatticeMemory(double nx, double ny, double nz, std::size_t bytesPerPoint) {
  const double points = nx * ny * nz;
  const double bytes = points * double(bytesPerPoint);
  const long pages = sysconf(_SC_PHYS_PAGES), pageSize = sysconf(_SC_PAGE_SIZE);
  const double physical = (pages > 0 && pageSize > 0) ? double(pages) * double(pageSize) : 1e18;
  // A map lives in host memory (the averaged sum in double) and on the device; more than
  // the host holds can never work, and int counts must not overflow.
  if (!std::isfinite(bytes) || bytes > physical || nx > 2e9 || ny > 2e9 || nz > 2e9) {
    char buf[160];
    std::snprintf(buf, sizeof buf, "%.0f x %.0f x %.0f", nx, ny, nz);
    throw LatticeTooLarge("the potential-map lattice of " + std::string(buf) + " points asks for " +
                          std::to_string((unsigned long long)std::min(bytes, 1.8e19)) + " bytes, more than the " +
                          std::to_string((unsigned long long)physical) +
                          " bytes of memory; use a larger spacing or a smaller extent");
  }
}

namespace {
double pointsAlong(double length, double spacing) {
  // 1e-9 slack: a box of 3.0 nm at 0.1 nm is 30 points, not 31 from rounding.
  return std::max(1.0, std::ceil(length / spacing - 1e-9));
}
}  // namespace

Lattice Lattice::fromBox(const Box& box, double spacing) {
  checkLatticeSpacing(spacing);
  if (!box.isValid()) throw Error("potential map: extent = box needs a box in reduced triclinic form");
  const Vec3 L = box.edgeLengths();  // the diagonal, exactly, for a rectangular box
  const double n[3] = {pointsAlong(L.x, spacing), pointsAlong(L.y, spacing), pointsAlong(L.z, spacing)};
  checkLatticeMemory(n[0], n[1], n[2], 2 * sizeof(double));
  Lattice lat;
  lat.origin = {0, 0, 0};
  lat.nx = int(n[0]);
  lat.ny = int(n[1]);
  lat.nz = int(n[2]);
  lat.spacing = {box.a.x / lat.nx, box.b.y / lat.ny, box.c.z / lat.nz};
  lat.tilt = {box.b.x / lat.ny, box.c.x / lat.nz, box.c.y / lat.nz};
  return lat;
}

Lattice Lattice::fromAtoms(const std::vector<Vec3>& positions, double spacing, double padding) {
  checkLatticeSpacing(spacing);
  if (positions.empty()) throw Error("potential map: extent = atoms needs at least one atom");
  if (!(padding >= 0) || !std::isfinite(padding)) throw Error("potential map: the padding must be >= 0 nm");
  Vec3 lo = positions[0], hi = positions[0];
  for (const Vec3& r : positions)
    for (int d = 0; d < 3; ++d) {
      lo[d] = std::min(lo[d], r[d]);
      hi[d] = std::max(hi[d], r[d]);
    }
  Lattice lat;
  double n[3];
  for (int d = 0; d < 3; ++d) {
    lo[d] -= padding;
    hi[d] += padding;
    n[d] = std::floor((hi[d] - lo[d]) / spacing + 1e-9) + 1.0;  // points on [lo, lo + (n-1) h] cover [lo, hi]
    if (lo[d] + (n[d] - 1) * spacing < hi[d] - 1e-12) n[d] += 1;
  }
  checkLatticeMemory(n[0], n[1], n[2], 2 * sizeof(double));
  lat.origin = lo;
  lat.spacing = {spacing, spacing, spacing};
  lat.nx = int(n[0]);
  lat.ny = int(n[1]);
  lat.nz = int(n[2]);
  return lat;
}

}  // namespace faraday
