#include "kernels/bonded/CmapTable.h"

#include <string>

#include "core/Error.h"

namespace faraday {

namespace {

/// c = A f with A the cubic Hermite matrix: the coefficients of the cubic p(t) = sum c_k t^k
/// on [0, 1] with p(0) = f[0], p(1) = f[1], p'(0) = f[2], p'(1) = f[3].
void hermiteCoefficients(const double* f, int stride, double* c, int cstride) {
  const double f0 = f[0], f1 = f[stride], d0 = f[2 * stride], d1 = f[3 * stride];
  c[0] = f0;
  c[cstride] = d0;
  c[2 * cstride] = -3.0 * f0 + 3.0 * f1 - 2.0 * d0 - d1;
  c[3 * cstride] = 2.0 * f0 - 2.0 * f1 + d0 + d1;
}

}  // namespace

std::vector<double> CmapTable::lineSlopes(const std::vector<double>& y) {
  const int n = int(y.size());
  const int len = 2 * n, shift = n / 2;
  std::vector<double> ext(len);
  for (int e = 0; e < len; ++e) ext[std::size_t(e)] = y[std::size_t(((e - shift) % n + n) % n)];
  // Natural spline, unit spacing: M_{e-1} + 4 M_e + M_{e+1} = 6 (y_{e+1} - 2 y_e + y_{e-1})
  // for e = 1 .. len-2, M_0 = M_{len-1} = 0; the Thomas algorithm (diagonally dominant).
  std::vector<double> M(len, 0.0), cPrime(len, 0.0), dPrime(len, 0.0);
  for (int e = 1; e < len - 1; ++e) {
    const double rhs = 6.0 * (ext[e + 1] - 2.0 * ext[e] + ext[e - 1]);
    const double denom = 4.0 - (e > 1 ? cPrime[e - 1] : 0.0);
    cPrime[e] = 1.0 / denom;
    dPrime[e] = (rhs - (e > 1 ? dPrime[e - 1] : 0.0)) / denom;
  }
  for (int e = len - 2; e >= 1; --e) M[e] = dPrime[e] - cPrime[e] * M[e + 1];
  // The spline's slope at point e, from its piece on [e, e + 1].
  std::vector<double> slope(n);
  for (int b = 0; b < n; ++b) {
    const int e = b + shift;
    slope[b] = ext[e + 1] - ext[e] - (2.0 * M[e] + M[e + 1]) / 6.0;
  }
  return slope;
}

CmapTable::CmapTable(const std::vector<CmapGrid>& grids) {
  int cells = 0;
  for (std::size_t g = 0; g < grids.size(); ++g) {
    const int n = grids[g].size;
    if (n < 4 || grids[g].energy.size() != std::size_t(n) * std::size_t(n))
      throw Error("CMAP grid " + std::to_string(g + 1) + ": " + std::to_string(grids[g].energy.size()) +
                  " energies for a grid of size " + std::to_string(n) + " (needs size >= 4 and size x size values)");
    firstCell_.push_back(cells);
    size_.push_back(n);
    cells += n * n;
  }
  coefficients_.assign(std::size_t(cells) * 16, 0.0);

  for (std::size_t g = 0; g < grids.size(); ++g) {
    const int n = grids[g].size;
    const std::vector<double>& v = grids[g].energy;
    auto at = [n](int a, int b) { return std::size_t(a) * n + b; };
    // Slopes in grid units (per spacing): dU/dpsi along rows, dU/dphi and the cross
    // derivative along columns.
    std::vector<double> dPsi(v.size()), dPhi(v.size()), dPhiPsi(v.size()), line(n);
    for (int a = 0; a < n; ++a) {
      for (int b = 0; b < n; ++b) line[b] = v[at(a, b)];
      const std::vector<double> s = lineSlopes(line);
      for (int b = 0; b < n; ++b) dPsi[at(a, b)] = s[b];
    }
    for (int b = 0; b < n; ++b) {
      for (int a = 0; a < n; ++a) line[a] = v[at(a, b)];
      const std::vector<double> s = lineSlopes(line);
      for (int a = 0; a < n; ++a) line[a] = dPsi[at(a, b)];
      const std::vector<double> s2 = lineSlopes(line);
      for (int a = 0; a < n; ++a) dPhi[at(a, b)] = s[a], dPhiPsi[at(a, b)] = s2[a];
    }
    // Each cell: F[r][s] holds, for r = value at t = 0, value at t = 1, slope at 0, slope at 1
    // (in phi) and s likewise in psi, the corner data; C = A F A^T with the Hermite matrix A.
    for (int a = 0; a < n; ++a) {
      const int a1 = (a + 1) % n;
      for (int b = 0; b < n; ++b) {
        const int b1 = (b + 1) % n;
        const double F[4][4] = {
            {v[at(a, b)], v[at(a, b1)], dPsi[at(a, b)], dPsi[at(a, b1)]},
            {v[at(a1, b)], v[at(a1, b1)], dPsi[at(a1, b)], dPsi[at(a1, b1)]},
            {dPhi[at(a, b)], dPhi[at(a, b1)], dPhiPsi[at(a, b)], dPhiPsi[at(a, b1)]},
            {dPhi[at(a1, b)], dPhi[at(a1, b1)], dPhiPsi[at(a1, b)], dPhiPsi[at(a1, b1)]},
        };
        double AF[4][4];  // A F: the cubic in t of each psi datum
        for (int s = 0; s < 4; ++s) hermiteCoefficients(&F[0][s], 4, &AF[0][s], 4);
        double* c = coefficients_.data() + 16 * (std::size_t(firstCell_[g]) + at(a, b));
        for (int p = 0; p < 4; ++p) hermiteCoefficients(AF[p], 1, c + 4 * p, 1);  // (A F) A^T
      }
    }
  }
}

}  // namespace faraday
