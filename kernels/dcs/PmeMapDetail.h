#pragma once
// The per-point work of the PME potential map (PmeMap.h), written once for the CPU
// reference (double, OpenMP over points) and the CUDA kernels (double, a thread per
// point): the real-space gather over neighbour cells and the B-spline interpolation of
// the reciprocal potential grid. Both visit their terms in the same fixed order.
#include <math.h>

#include <vector>

#include "core/Box.h"
#include "core/HostDevice.h"
#include "core/Vec3.h"
#include "kernels/dcs/DcsPair.h"
#include "kernels/dcs/ShearedBox.h"
#include "kernels/pme/BSpline.h"

namespace faraday::pmemap {

/// A charged atom wrapped into the box: position nm, charge e.
struct alignas(32) Site {
  double x, y, z, q;
};

/// Atoms sorted into cells of the box's sheared coordinates (ShearedBox.h) of width >= the
/// real-space cutoff times the axis' stretch (so a point's neighbours within the cutoff lie in
/// the cells next to its own; at least one cell per axis); the atoms of cell (cx, cy, cz),
/// c = (cz n_y + cy) n_x + cx, are sites[start[c] .. start[c + 1]), in input order.
struct CellView {
  dcs::ShearedBox box;  ///< nm
  int n[3];             ///< cells per axis
  double rc2;           ///< cutoff^2, nm^2
  double beta;          ///< 1/nm
  const int* start;
  const Site* sites;
};

/// Cells per sheared axis d of `box` for a cutoff: the cell width period(d) / n is at least
/// cutoff stretch(d).
inline int cellsAlong(const dcs::ShearedBox& box, int d, double cutoff) {
  const int n = int(floor(box.period(d) / (cutoff * box.stretch(d))));
  return n < 1 ? 1 : n;
}

/// Cell index along one axis of a sheared coordinate t (nm) of period L, wrapped into [0, n).
FARADAY_HD int cellIndex(double t, double L, int n) {
  double s = t / L;
  s -= floor(s);
  int c = int(s * n);
  return c >= n ? n - 1 : (c < 0 ? 0 : c);
}

/// Cell index of a sheared coordinate t already wrapped into [0, L] (L itself, from rounding,
/// goes to the last cell).
FARADAY_HD int cellOfWrapped(double t, double L, int n) {
  const int c = int(t / L * n);
  return c >= n ? n - 1 : (c < 0 ? 0 : c);
}

/// Host: builds the sorted sites (wrapped into the cell) and cell starts for `box` (skips q = 0).
inline void buildCells(const std::vector<Vec3>& positions, const std::vector<double>& charges, const Box& box,
                       double cutoff, double beta, CellView& view, std::vector<int>& start,
                       std::vector<Site>& sites) {
  view.box = dcs::shearedBoxOf(box);
  for (int d = 0; d < 3; ++d) view.n[d] = cellsAlong(view.box, d, cutoff);
  view.rc2 = cutoff * cutoff;
  view.beta = beta;
  const int cells = view.n[0] * view.n[1] * view.n[2];
  std::vector<int> cellOf(positions.size(), -1);
  std::vector<Site> wrapped(positions.size());
  start.assign(cells + 1, 0);
  for (std::size_t a = 0; a < positions.size(); ++a) {
    if (charges[a] == 0.0) continue;
    double r[3] = {positions[a].x, positions[a].y, positions[a].z}, t[3];
    view.box.wrapIntoCell(r, t);
    int c[3];
    for (int d = 0; d < 3; ++d) c[d] = cellOfWrapped(t[d], view.box.period(d), view.n[d]);
    cellOf[a] = (c[2] * view.n[1] + c[1]) * view.n[0] + c[0];
    wrapped[a] = Site{r[0], r[1], r[2], charges[a]};
    ++start[cellOf[a] + 1];
  }
  for (int c = 0; c < cells; ++c) start[c + 1] += start[c];
  sites.resize(start[cells]);
  std::vector<int> fill(start.begin(), start.end() - 1);
  for (std::size_t a = 0; a < positions.size(); ++a)
    if (cellOf[a] >= 0) sites[fill[cellOf[a]]++] = wrapped[a];
  view.start = start.data();
  view.sites = sites.data();
}

/// sum_i q_i erfc(beta r_i)/r_i (e/nm; times k_C for kJ/(mol e)) over the atoms within the
/// cutoff of point p (nm), minimum image (cutoff below half the smallest diagonal element,
/// Box::maxCutoff). With >= 3 cells on an axis the neighbour cells are c-1, c, c+1; with
/// fewer, every cell of that axis once. Cells in z, y, x order, atoms in cell order.
FARADAY_HD double realSpaceSum(const CellView& v, double px, double py, double pz) {
  double t[3];
  v.box.sheared(px, py, pz, t);
  const int cx = cellIndex(t[0], v.box.ax, v.n[0]);
  const int cy = cellIndex(t[1], v.box.by, v.n[1]);
  const int cz = cellIndex(t[2], v.box.cz, v.n[2]);
  const int mx = v.n[0] >= 3 ? 3 : v.n[0], my = v.n[1] >= 3 ? 3 : v.n[1], mz = v.n[2] >= 3 ? 3 : v.n[2];
  double sum = 0;
  for (int c = 0; c < mz; ++c) {
    const int z = v.n[2] >= 3 ? (cz - 1 + c + v.n[2]) % v.n[2] : c;
    for (int b = 0; b < my; ++b) {
      const int y = v.n[1] >= 3 ? (cy - 1 + b + v.n[1]) % v.n[1] : b;
      for (int a = 0; a < mx; ++a) {
        const int x = v.n[0] >= 3 ? (cx - 1 + a + v.n[0]) % v.n[0] : a;
        const int cell = (z * v.n[1] + y) * v.n[0] + x;
        for (int s = v.start[cell]; s < v.start[cell + 1]; ++s) {
          const Site at = v.sites[s];
          double d[3] = {px - at.x, py - at.y, pz - at.z};
          v.box.minimumImage(d);
          const double r2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
          if (r2 >= v.rc2 || r2 < dcs::kMinDistance2) continue;
          const double r = sqrt(r2);
          sum += at.q * erfc(v.beta * r) / r;
        }
      }
    }
  }
  return sum;
}

/// The reciprocal potential grid dE_rec/dQ(k) (kJ/(mol e)), x slowest, z fastest, of the
/// box `box`: grid point (k_x, k_y, k_z) sits at fractional coordinates k / K.
struct GridView {
  int K[3];
  int order;
  dcs::ShearedBox box;  ///< nm
  const double* grid;
};

/// For point p (nm): per dimension the first grid index of the spline support and the
/// order weights theta (BSpline.h convention), from the point's fractional coordinate
/// t_d / period(d) (sheared coordinates: x / L exactly in a rectangular box).
FARADAY_HD void splineSupport(const GridView& g, const double p[3], double theta[3][pme::kMaxSplineOrder],
                              int first[3]) {
  double t[3];
  g.box.sheared(p[0], p[1], p[2], t);
  for (int d = 0; d < 3; ++d) {
    double s = t[d] / g.box.period(d);
    s -= floor(s);
    double w;
    pme::splitGridCoordinate<double>(s * g.K[d], g.K[d], g.order, first[d], w);
    pme::bsplineWeights<double>(w, g.order, theta[d], nullptr);
  }
}

/// sum_k theta_x theta_y theta_z grid(k) at point p (nm): the smooth-PME reciprocal
/// potential, with the weights of the force gathering (BSpline.h convention).
FARADAY_HD double interpolateGrid(const GridView& g, double px, double py, double pz) {
  const double p[3] = {px, py, pz};
  double theta[3][pme::kMaxSplineOrder];
  int first[3];
  splineSupport(g, p, theta, first);
  // Wrapped grid indices once per axis (no modulo in the inner loops).
  int iz[pme::kMaxSplineOrder];
  long long rowOfX[pme::kMaxSplineOrder];
  int iy[pme::kMaxSplineOrder];
  for (int t = 0; t < g.order; ++t) {
    int x = first[0] + t, y = first[1] + t, z = first[2] + t;
    if (x >= g.K[0]) x -= g.K[0];
    if (y >= g.K[1]) y -= g.K[1];
    if (z >= g.K[2]) z -= g.K[2];
    rowOfX[t] = (long long)x * g.K[1];
    iy[t] = y;
    iz[t] = z;
  }
  double phi = 0;
  for (int i = 0; i < g.order; ++i) {
    for (int j = 0; j < g.order; ++j) {
      const double* row = g.grid + (rowOfX[i] + iy[j]) * (long long)g.K[2];
      double t = 0;
      for (int k = 0; k < g.order; ++k) t += theta[2][k] * row[iz[k]];
      phi += theta[0][i] * theta[1][j] * t;
    }
  }
  return phi;
}

}  // namespace faraday::pmemap
