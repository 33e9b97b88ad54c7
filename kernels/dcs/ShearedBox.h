#pragma once
// The reduced box in sheared coordinates, written once for the map kernels on the host and
// the device: cells, bins and near-atom tests of a rectangular box serve a triclinic one.
#include <math.h>

#include "core/Box.h"
#include "core/HostDevice.h"

namespace faraday::dcs {

/// A box in reduced form, a = (a_x, 0, 0), b = (b_x, b_y, 0), c = (c_x, c_y, c_z) (nm), and its
/// sheared coordinates
///   t_z = z,  t_y = y - s_yz z,  t_x = x - s_xy t_y - s_xz z
/// (s_xy = b_x/b_y, s_xz = c_x/c_z, s_yz = c_y/c_z). They take the cell onto the brick
/// [0, a_x) x [0, b_y) x [0, c_z) and the box's lattice onto the rectangular lattice of that
/// brick: one period along t_d is the box vector d. Distances are measured in Cartesian
/// coordinates; a displacement of length r moves t_d by at most r stretch(d). For a
/// rectangular box t = r, bit for bit (the shears are zero and x - 0 s = x).
struct ShearedBox {
  double ax = 0, bx = 0, by = 0, cx = 0, cy = 0, cz = 0;
  double sxy = 0, sxz = 0, syz = 0;

  /// The period along t_d: a_x, b_y, c_z.
  FARADAY_HD double period(int d) const { return d == 0 ? ax : d == 1 ? by : cz; }
  FARADAY_HD void sheared(double x, double y, double z, double t[3]) const {
    t[2] = z;
    t[1] = y - syz * z;
    t[0] = x - sxy * t[1] - sxz * z;
  }
  FARADAY_HD void cartesian(const double t[3], double r[3]) const {
    r[2] = t[2];
    r[1] = t[1] + syz * t[2];
    r[0] = t[0] + sxy * t[1] + sxz * t[2];
  }
  /// n_a a + n_b b + n_c c (nm).
  FARADAY_HD void shift(double na, double nb, double nc, double s[3]) const {
    s[0] = na * ax + nb * bx + nc * cx;
    s[1] = nb * by + nc * cy;
    s[2] = nc * cz;
  }
  /// r into the cell (t_d in [0, period(d)), up to the rounding of the last subtraction);
  /// t gets its sheared coordinates.
  FARADAY_HD void wrapIntoCell(double r[3], double t[3]) const {
    sheared(r[0], r[1], r[2], t);
    for (int d = 0; d < 3; ++d) t[d] -= period(d) * floor(t[d] / period(d));
    cartesian(t, r);
  }
  /// The image of displacement d in the brick |d_x| <= a_x/2, |d_y| <= b_y/2, |d_z| <= c_z/2:
  /// shifts by c, then b, then a, as Box::minimumImage.
  FARADAY_HD void minimumImage(double d[3]) const {
    double s = rint(d[2] / cz);
    d[0] -= cx * s;
    d[1] -= cy * s;
    d[2] -= cz * s;
    s = rint(d[1] / by);
    d[0] -= bx * s;
    d[1] -= by * s;
    d[0] -= ax * rint(d[0] / ax);
  }
  /// The largest change of t_d per nm of displacement: the norms of the rows of the map
  /// r -> t, 1 for every axis of a rectangular box.
  FARADAY_HD double stretch(int d) const {
    if (d == 2) return 1.0;
    if (d == 1) return sqrt(1 + syz * syz);
    const double u = sxz - sxy * syz;
    return sqrt(1 + sxy * sxy + u * u);
  }
};

/// `box` (reduced form) as a ShearedBox.
inline ShearedBox shearedBoxOf(const Box& box) {
  ShearedBox s;
  s.ax = box.a.x;
  s.bx = box.b.x;
  s.by = box.b.y;
  s.cx = box.c.x;
  s.cy = box.c.y;
  s.cz = box.c.z;
  s.sxy = box.b.x / box.b.y;
  s.sxz = box.c.x / box.c.z;
  s.syz = box.c.y / box.c.z;
  return s;
}

}  // namespace faraday::dcs
