#pragma once
// CMAP: the energy correction U(phi, psi) of two consecutive dihedrals, interpolated on a
// periodic grid by bicubic patches, as GROMACS 2022 does (facts established from its
// grompp setup_cmap and bonded cmap_dihs):
//
// - Grid layout. Topology::cmapGrids[g].energy[a * size + b] is the energy at
//   phi = -pi + 2 pi a / size (phi: the dihedral i-j-k-l, the slow index) and
//   psi = -pi + 2 pi b / size (psi: j-k-l-m, the fast index). This is the order in which
//   grompp reads the values of a [cmaptypes] entry (row after row, psi running fastest
//   within a row) and the order its setup_cmap and cmap_dihs index them
//   (grid[phiIndex * size + psiIndex]), so a topology reader copies the values as listed.
// - Derivatives at the grid points. GROMACS does not fit a periodic spline: for each line
//   of the grid it lays 2 size values, the line repeated and shifted by size/2 points
//   (extended index e holds the value of grid index (e - size/2) mod size), fits a natural
//   cubic spline through them (second derivative 0 at both ends) and takes the spline's
//   slope at the original points, which sit in the middle of the extended line. dU/dpsi
//   comes from splines along psi, dU/dphi from splines along phi, and d2U/dphi dpsi from
//   splines along phi through the dU/dpsi values. CmapTable does the same (it solves the
//   same tridiagonal systems), so its derivatives equal GROMACS' to rounding; a truly
//   periodic spline would differ by ~(2 - sqrt 3)^(size/2) of the slopes (1.4e-7 at 24).
//   For an odd size GROMACS evaluates its splines half a spacing off the grid points;
//   CmapTable keeps the consistent shift of (size - 1)/2 points there (CHARMM's grids are
//   24 x 24).
// - Patches. The cell [phi_a, phi_a+1] x [psi_b, psi_b+1] holds the bicubic polynomial
//   E(t, u) = sum_{p,q=0..3} c_pq t^p u^q, t = (phi - phi_a)/h, u = (psi - psi_b)/h,
//   h = 2 pi/size, that matches the value, both slopes and the cross derivative at its four
//   corners (bicubic Hermite interpolation, the polynomial GROMACS builds with its 16 x 16
//   coefficient matrix). Energies and slopes are continuous across cells.
// - Evaluation. t from (phi + pi)/h with phi in [-pi, pi]; phi = pi is the same point as
//   -pi (cell 0, t = 0).
#include <math.h>

#include <cstddef>
#include <vector>

#include "core/HostDevice.h"
#include "core/Topology.h"
#include "core/Units.h"

namespace faraday {

/// Where the patches of every grid are (host or device pointers).
struct CmapView {
  const double* coefficients = nullptr;  ///< 16 per cell: c_pq at [16 cell + 4 p + q]
  const int* firstCell = nullptr;        ///< per grid: index of its cell (0, 0)
  const int* size = nullptr;             ///< per grid: points per angle
};

/// U (kJ/mol) and its derivatives with respect to phi and psi (kJ/mol/rad).
struct CmapResult {
  double energy, dUdPhi, dUdPsi;
};

/// Cell index and fraction of angle (rad, in [-pi, pi]) on a grid of n points from -pi.
FARADAY_HD void cmapCell(double angle, int n, int& cell, double& fraction) {
  const double x = (angle + units::kPi) * (n / (2.0 * units::kPi));
  double f = floor(x);
  cell = int(f);
  fraction = x - f;
  if (cell >= n) cell -= n;  // angle = pi, or rounding just below it
  if (cell < 0) cell += n;
}

/// The bicubic patch at (t, u): E, dE/dt (in dUdPhi) and dE/du (in dUdPsi). 16 multiply-adds
/// for E, 24 for the slopes.
FARADAY_HD CmapResult bicubicPatch(const double* c, double t, double u) {
  double e = 0, dt = 0, du = 0;
  for (int p = 3; p >= 0; --p) {
    const double* row = c + 4 * p;
    const double v = ((row[3] * u + row[2]) * u + row[1]) * u + row[0];        // sum_q c_pq u^q
    const double dv = (3.0 * row[3] * u + 2.0 * row[2]) * u + row[1];          // d/du
    e = e * t + v;
    du = du * t + dv;
    if (p >= 1) dt = dt * t + p * v;
  }
  return {e, dt, du};
}

/// CMAP energy of grid `grid` at (phi, psi) in rad, with dU/dphi and dU/dpsi.
FARADAY_HD CmapResult cmapTerm(const CmapView& view, int grid, double phi, double psi) {
  const int n = view.size[grid];
  int a = 0, b = 0;
  double t = 0, u = 0;
  cmapCell(phi, n, a, t);
  cmapCell(psi, n, b, u);
  const CmapResult r = bicubicPatch(view.coefficients + 16 * (std::size_t(view.firstCell[grid]) + a * n + b), t, u);
  const double perRad = n / (2.0 * units::kPi);  // d t / d phi
  return {r.energy, r.dUdPhi * perRad, r.dUdPsi * perRad};
}

/// The patch coefficients of every grid of a topology, computed once on the host.
class CmapTable {
 public:
  CmapTable() = default;
  /// Throws Error when a grid's size is below 4 or its energies are not size x size.
  explicit CmapTable(const std::vector<CmapGrid>& grids);

  /// Host pointers into this table.
  CmapView view() const { return {coefficients_.data(), firstCell_.data(), size_.data()}; }
  const std::vector<double>& coefficients() const { return coefficients_; }
  const std::vector<int>& firstCell() const { return firstCell_; }
  const std::vector<int>& sizes() const { return size_; }
  bool empty() const { return size_.empty(); }

  /// dy/dx at the points of one periodic line of n values (spacing 1), GROMACS' way: the
  /// slope of the natural cubic spline through the extended line of 2n values (see above).
  static std::vector<double> lineSlopes(const std::vector<double>& y);

 private:
  std::vector<double> coefficients_;
  std::vector<int> firstCell_, size_;
};

}  // namespace faraday
