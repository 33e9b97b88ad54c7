// CPU double-precision reference for potential maps (see Dcs.h).
#include <omp.h>

#include <algorithm>
#include <cmath>

#include "core/Error.h"
#include "core/Units.h"
#include "kernels/dcs/Dcs.h"
#include "kernels/dcs/DcsPair.h"
#include "kernels/dcs/PmeMap.h"

namespace faraday {

void checkMapOptions(const MapOptions& o) {
  const auto fail = [](const std::string& what) { throw Error("potential map: " + what); };
  if (isPmeMethod(o.method)) {
    if (!o.periodic) fail("a PME map must be periodic");
    if (!(o.pme.beta > 0) || !std::isfinite(o.pme.beta)) fail("beta must be a positive number of 1/nm");
  }
  const std::string half = o.box.isValid() ? std::string("half ") + o.box.maxCutoffMeaning() + " (" +
                                                 std::to_string(o.box.maxCutoff()) + " nm)"
                                           : "";
  if (o.method == MapMethod::Pme) {
    if (!(o.ewaldCutoff > 0)) fail("the real-space cutoff must be > 0 nm");
    if (o.box.isValid() && !(o.ewaldCutoff < o.box.maxCutoff())) fail("the real-space cutoff must be below " + half);
  }
  if (o.periodic && !o.box.isValid()) fail("a periodic map needs a box in reduced triclinic form");
  if (o.method == MapMethod::Cutoff) {
    if (!(o.cutoff > 0) || !std::isfinite(o.cutoff)) fail("the cutoff must be a positive number of nm");
    if (o.periodic && !(o.cutoff < o.box.maxCutoff())) fail("the cutoff must be below " + half + " for a periodic map");
  }
  if (o.binCapacity < 1) fail("bin capacity must be >= 1");
}

namespace {
void checkSizes(const Lattice& lattice, const std::vector<Vec3>& positions, const std::vector<double>& charges,
                std::vector<double>& map) {
  if (positions.size() != charges.size()) throw Error("potential map: positions and charges differ in count");
  if (map.size() != lattice.size()) map.assign(lattice.size(), 0.0);
}
}  // namespace

void cpuDirectMap(const Lattice& lattice, const std::vector<Vec3>& positions, const std::vector<double>& charges,
                  const MapOptions& options, std::vector<double>& map) {
  checkSizes(lattice, positions, charges, map);
  const std::size_t n = positions.size();
  const Box box = options.box;
  const bool periodic = options.periodic;
#pragma omp parallel for schedule(dynamic) collapse(2)
  for (int k = 0; k < lattice.nz; ++k)
    for (int j = 0; j < lattice.ny; ++j)
      for (int i = 0; i < lattice.nx; ++i) {
        const Vec3 p = lattice.point(i, j, k);
        double phi = 0;
        for (std::size_t a = 0; a < n; ++a) {
          Vec3 d = p - positions[a];
          if (periodic) d = box.nearestImage(d);
          const double r2 = norm2(d);
          phi += dcs::directTerm(charges[a], r2, 1.0 / std::sqrt(r2));
        }
        map[lattice.index(i, j, k)] += units::kCoulomb * phi;
      }
}

namespace {

/// The fractional coordinates (a*.r, b*.r, c*.r) that the lattice's points span, from its
/// eight corners (the point set is a parallelepiped): lo and hi per axis.
void latticeFractionalRange(const Lattice& l, const Box& box, Vec3& lo, Vec3& hi) {
  lo = Vec3{INFINITY, INFINITY, INFINITY};
  hi = -lo;
  for (int c = 0; c < 8; ++c) {
    const Vec3 f = box.fractional(l.point(c & 1 ? l.nx - 1 : 0, c & 2 ? l.ny - 1 : 0, c & 4 ? l.nz - 1 : 0));
    for (int d = 0; d < 3; ++d) {
      lo[d] = std::min(lo[d], f[d]);
      hi[d] = std::max(hi[d], f[d]);
    }
  }
}

}  // namespace

void cpuCutoffMap(const Lattice& lattice, const std::vector<Vec3>& positions, const std::vector<double>& charges,
                  const MapOptions& options, std::vector<double>& map) {
  checkSizes(lattice, positions, charges, map);
  const double rc = options.cutoff, rc2 = rc * rc, inv_rc2 = 1.0 / rc2;
  const bool periodic = options.periodic;
  const Box box = periodic ? options.box : Box{};  // the image shifts (none when not periodic)
  std::vector<Vec3> atoms(positions);
  if (periodic)
    for (Vec3& r : atoms) r = box.wrap(r);
  // Images n a + m b + l c of an atom reach a point within rc only when its fractional
  // coordinates plus (n, m, l) lie within rc / planeSpacing of those the lattice spans.
  Vec3 fLo{0, 0, 0}, fHi{0, 0, 0}, reach{0, 0, 0};
  if (periodic) {
    latticeFractionalRange(lattice, box, fLo, fHi);
    const Vec3 spacing = box.planeSpacings();
    for (int d = 0; d < 3; ++d) reach[d] = rc / spacing[d] + 1e-9;
  }
  const Vec3 o = lattice.origin, h = lattice.spacing, t = lattice.tilt;
  // Index range of points along one axis within `reach` of coordinate c: [lo, hi] clipped.
  auto range = [](double c, double reach, double origin, double step, int count, int& lo, int& hi) {
    lo = std::max(0, int(std::ceil((c - reach - origin) / step)));
    hi = std::min(count - 1, int(std::floor((c + reach - origin) / step)));
  };
#pragma omp parallel for schedule(dynamic)
  for (int k = 0; k < lattice.nz; ++k) {
    // Slice k: z fixed; its rows start at y = o.y + k w_y, and row j at x = o.x + j v_x + k w_x.
    const double z = o.z + k * h.z, rowY = o.y + k * t.z, sliceX = o.x + k * t.y;
    for (std::size_t a = 0; a < atoms.size(); ++a) {
      const double q = charges[a];
      if (q == 0.0) continue;
      int first[3] = {0, 0, 0}, last[3] = {0, 0, 0};
      if (periodic) {
        const Vec3 f = box.fractional(atoms[a]);
        for (int d = 0; d < 3; ++d) {
          first[d] = int(std::ceil(fLo[d] - reach[d] - f[d]));
          last[d] = int(std::floor(fHi[d] + reach[d] - f[d]));
        }
      }
      for (int sz = first[2]; sz <= last[2]; ++sz) {
        const double dz = z - (atoms[a].z + sz * box.c.z);
        const double ryz2 = rc2 - dz * dz;
        if (ryz2 <= 0) continue;
        for (int sy = first[1]; sy <= last[1]; ++sy) {
          const double ay = atoms[a].y + sy * box.b.y + sz * box.c.y;
          int j0, j1;
          range(ay, std::sqrt(ryz2), rowY, h.y, lattice.ny, j0, j1);
          for (int j = j0; j <= j1; ++j) {
            const double dy = rowY + j * h.y - ay;
            const double rx2 = ryz2 - dy * dy;
            if (rx2 <= 0) continue;
            const double rowX = sliceX + j * t.x;
            for (int sx = first[0]; sx <= last[0]; ++sx) {
              const double ax = atoms[a].x + sx * box.a.x + sy * box.b.x + sz * box.c.x;
              int i0, i1;
              range(ax, std::sqrt(rx2), rowX, h.x, lattice.nx, i0, i1);
              double* row = &map[lattice.index(0, j, k)];
              for (int i = i0; i <= i1; ++i) {
                const double dx = rowX + i * h.x - ax;
                const double r2 = dx * dx + dy * dy + dz * dz;
                row[i] += units::kCoulomb * dcs::cutoffTerm(q, r2, 1.0 / std::sqrt(r2), inv_rc2);
              }
            }
          }
        }
      }
    }
  }
}

void cpuPotentialMap(const Lattice& lattice, const std::vector<Vec3>& positions, const std::vector<double>& charges,
                     const MapOptions& options, std::vector<double>& map) {
  checkMapOptions(options);
  if (options.method == MapMethod::Direct)
    cpuDirectMap(lattice, positions, charges, options, map);
  else if (isPmeMethod(options.method))
    cpuPmeMap(lattice, positions, charges, options, map);
  else
    cpuCutoffMap(lattice, positions, charges, options, map);
}

}  // namespace faraday
