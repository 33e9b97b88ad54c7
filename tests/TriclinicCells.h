#pragma once
// Triclinic test cells: the rhombic dodecahedron and the truncated octahedron of `gmx
// editconf -bt dodecahedron | octahedron`, each with the rectangular supercell that holds
// whole copies of it, and ions placed in them.
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "core/Box.h"
#include "tests/ElectrostaticsTestSupport.h"

namespace faraday::test {

/// A reduced triclinic cell, a rectangular supercell whose edges are integer combinations of
/// the cell's vectors, and the lattice vectors whose translates of the cell fill it once.
struct CellCase {
  std::string name;
  Box cell;
  Box supercell;
  std::vector<Vec3> images;
};

/// xy-square rhombic dodecahedron of image distance d: a = (d, 0, 0), b = (0, d, 0),
/// c = (d/2, d/2, d/sqrt 2); 2c - a - b = (0, 0, d sqrt 2) closes the supercell.
inline CellCase dodecahedron(double d) {
  const Vec3 a{d, 0, 0}, b{0, d, 0}, c{d / 2, d / 2, d / std::sqrt(2.0)};
  return {"dodecahedron", Box::fromVectors(a, b, c), Box::rectangular(d, d, d * std::sqrt(2.0)), {Vec3{}, c}};
}

/// Truncated octahedron of image distance d: a = (d, 0, 0), b = (d/3, 2 sqrt2 d/3, 0),
/// c = (-d/3, sqrt2 d/3, sqrt6 d/3). 3b - a = (0, 2 sqrt2 d, 0) and 6c + 3a - 3b =
/// (0, 0, 2 sqrt6 d): 18 copies j b + k c (j < 3, k < 6).
inline CellCase truncatedOctahedron(double d) {
  const double s2 = std::sqrt(2.0), s6 = std::sqrt(6.0);
  const Vec3 a{d, 0, 0}, b{d / 3, 2 * s2 * d / 3, 0}, c{-d / 3, s2 * d / 3, s6 * d / 3};
  CellCase out{"octahedron", Box::fromVectors(a, b, c), Box::rectangular(d, 2 * s2 * d, 2 * s6 * d), {}};
  for (int j = 0; j < 3; ++j)
    for (int k = 0; k < 6; ++k) out.images.push_back(b * double(j) + c * double(k));
  return out;
}

/// Image distances that leave the cutoff plus buffer (1.1 nm) inside half the smallest height.
inline std::vector<CellCase> cellCases() { return {dodecahedron(3.3), truncatedOctahedron(2.9)}; }

/// n ions (+1/-1 alternating) at uniform random fractional positions of `cell`, no two
/// closer than minDistance (nm); every fifth moved by a lattice vector, so that unwrapped
/// coordinates are exercised.
inline Ions ionsIn(const Box& cell, int n, unsigned seed, double minDistance = 0.25) {
  Ions s;
  s.box = cell;
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  while (int(s.positions.size()) < n) {
    const Vec3 r = cell.fromFractional(Vec3{u(rng), u(rng), u(rng)});
    bool ok = true;
    for (const Vec3& p : s.positions) ok = ok && norm2(cell.minimumImage(r - p)) >= minDistance * minDistance;
    if (!ok) continue;
    const int k = int(s.positions.size());
    s.positions.push_back(k % 5 == 0 ? r + cell.a - cell.b * 2.0 + cell.c : r);
    s.charges.push_back(k % 2 ? -1.0 : 1.0);
  }
  return s;
}

/// The supercell's ions: every image of every ion, wrapped into the supercell; copy m of
/// ion i is at index m n + i.
inline Ions supercellOf(const Ions& cell, const CellCase& c) {
  Ions s;
  s.box = c.supercell;
  for (const Vec3& shift : c.images)
    for (std::size_t i = 0; i < cell.positions.size(); ++i) {
      s.positions.push_back(c.supercell.wrap(cell.positions[i] + shift));
      s.charges.push_back(cell.charges[i]);
    }
  return s;
}

}  // namespace faraday::test
