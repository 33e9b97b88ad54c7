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

/// What one molecule's move needs: the old box edges and the length factor s = L'/L (nm, 1).
struct BoxScalingParams {
  double length[3];  ///< old box edges, nm
  double factor[3];  ///< new edge / old edge
};

/// d minus the nearest multiple of the edge L (minimum image along one edge).
FARADAY_HD double minimumImage1(double d, double L) { return d - L * nearbyint(d / L); }

/// Moves one molecule of `count` atoms. `x(k)` reads and `set(k, v)` writes atom k's
/// coordinate component c (nm); `mass(k)` amu. The molecule is unwrapped along its atom order
/// (u_0 = x_0, u_k = u_{k-1} + minimum image of x_k - x_{k-1}: whole even when it spans more
/// than half the box, as long as consecutive atoms are closer than half an edge); its centre
/// of mass R = sum m u / M moves to s R, so atom k goes to u_k + (s - 1) R, unwrapped. Atom k's
/// coordinate is read before it is written and after atom k - 1's is, so the update may be in
/// place.
template <typename Read, typename Write, typename Mass>
FARADAY_HD void scaleMolecule(int count, const BoxScalingParams& p, Read x, Write set, Mass mass) {
  for (int c = 0; c < 3; ++c) {
    double u = x(0, c), previous = u, weighted = 0, total = 0;
    for (int k = 0; k < count; ++k) {
      if (k > 0) {
        const double xk = x(k, c);
        u += minimumImage1(xk - previous, p.length[c]);
        previous = xk;
      }
      weighted += mass(k) * u;
      total += mass(k);
    }
    const double shift = (p.factor[c] - 1.0) * (weighted / total);
    u = x(0, c), previous = u;
    for (int k = 0; k < count; ++k) {
      if (k > 0) {
        const double xk = x(k, c);
        u += minimumImage1(xk - previous, p.length[c]);
        previous = xk;
      }
      set(k, c, u + shift);
    }
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
