#pragma once
// The Monte Carlo barostat's move (engine/run/Barostat.h): the box scaled isotropically and
// every molecule moved as a whole, its centre of mass scaled by the ratio of the box lengths,
// its shape kept. Written once for host and device; the loops are per backend (BoxScaling.cpp,
// CudaBoxScaling.cu).
#include <cmath>
#include <vector>

#include "core/Box.h"
#include "core/HostDevice.h"
#include "core/Topology.h"
#include "core/Vec3.h"

namespace faraday {

/// What one molecule's move needs: the old box's diagonal and tilts, and the length factor
/// s = L'/L (nm, 1; the same in every direction for the isotropic move, which keeps the shape).
struct BoxScalingParams {
  double length[3];  ///< old box's diagonal a_x, b_y, c_z, nm
  double tilt[3];    ///< old box's b_x, c_x, c_y, nm (zero when rectangular)
  double factor[3];  ///< new diagonal element / old
};

/// The lattice counts (n_a, n_b, n_c) of the minimum image of d (c first, then b, then a, as
/// Box::minimumImage): d - n_a a - n_b b - n_c c lies in the brick.
FARADAY_HD void imageCounts(double dx, double dy, double dz, const BoxScalingParams& p, double n[3]) {
  n[2] = nearbyint(dz / p.length[2]);
  n[1] = nearbyint((dy - p.tilt[2] * n[2]) / p.length[1]);
  n[0] = nearbyint((dx - p.tilt[1] * n[2] - p.tilt[0] * n[1]) / p.length[0]);
}

/// Component c of the lattice vector n_a a + n_b b + n_c c subtracted from d_c, in the order
/// that leaves a rectangular box's d_c - L_c n_c unchanged by the zero tilts.
FARADAY_HD double shifted(double d, int c, const double n[3], const BoxScalingParams& p) {
  if (c == 0) return d - p.length[0] * n[0] - p.tilt[0] * n[1] - p.tilt[1] * n[2];
  if (c == 1) return d - p.length[1] * n[1] - p.tilt[2] * n[2];
  return d - p.length[2] * n[2];
}

/// Moves one molecule of `count` atoms. `x(k, c)` reads and `set(k, c, v)` writes atom k's
/// coordinate component c (nm); `mass(k)` amu. The molecule is unwrapped along its atom order
/// (u_0 = x_0, u_k = u_{k-1} + minimum image of x_k - x_{k-1}: whole even when it spans more
/// than half the box, as long as consecutive atoms are closer than half a diagonal element);
/// its centre of mass R = sum m u / M moves to s R, so atom k goes to u_k + (s - 1) R,
/// unwrapped. Atom k's coordinates are read before they are written and after atom k - 1's
/// are, so the update may be in place.
template <typename Read, typename Write, typename Mass>
FARADAY_HD void scaleMolecule(int count, const BoxScalingParams& p, Read x, Write set, Mass mass) {
  double u[3] = {x(0, 0), x(0, 1), x(0, 2)}, previous[3] = {u[0], u[1], u[2]};
  double weighted[3] = {0, 0, 0}, total = 0;
  const auto advance = [&](int k) {
    if (k == 0) return;
    const double xk[3] = {x(k, 0), x(k, 1), x(k, 2)};
    double n[3];
    imageCounts(xk[0] - previous[0], xk[1] - previous[1], xk[2] - previous[2], p, n);
    for (int c = 0; c < 3; ++c) {
      u[c] += shifted(xk[c] - previous[c], c, n, p);
      previous[c] = xk[c];
    }
  };
  for (int k = 0; k < count; ++k) {
    advance(k);
    for (int c = 0; c < 3; ++c) weighted[c] += mass(k) * u[c];
    total += mass(k);
  }
  double shift[3];
  for (int c = 0; c < 3; ++c) shift[c] = (p.factor[c] - 1.0) * (weighted[c] / total);
  for (int c = 0; c < 3; ++c) u[c] = previous[c] = x(0, c);
  for (int k = 0; k < count; ++k) {
    advance(k);
    for (int c = 0; c < 3; ++c) set(k, c, u[c] + shift[c]);
  }
}

/// Start of every molecule in atom order, and the end (n) last: the topology's molecules, or,
/// without them, every atom a molecule of its own. Atoms outside every listed molecule are
/// molecules of one atom each.
std::vector<int> moleculeStarts(const Topology& topology, int n);

/// The parameters of the move from box `from` to box `to` (rectangular).
BoxScalingParams boxScaling(const Box& from, const Box& to);

/// The CPU loop: every molecule of `starts` (moleculeStarts) moved by scaleMolecule.
void scaleMolecules(std::vector<Vec3>& positions, const std::vector<double>& mass, const std::vector<int>& starts,
                    const BoxScalingParams& params);

}  // namespace faraday
