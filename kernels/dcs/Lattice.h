#pragma once
// A uniform 3D lattice of points on which a potential map is computed.
#include <cstddef>
#include <vector>

#include "core/Box.h"
#include "core/Error.h"
#include "core/Vec3.h"

namespace faraday {

/// Point (i, j, k) sits at origin + (i hx, j hy, k hz), nm. Values on the lattice are
/// stored x fastest: index = (k ny + j) nx + i (one z-slice is contiguous, as the GPU
/// kernels walk it); the OpenDX writer reorders to z fastest.
struct Lattice {
  Vec3 origin;            ///< nm
  Vec3 spacing;           ///< nm, per axis
  int nx = 0, ny = 0, nz = 0;

  std::size_t size() const { return std::size_t(nx) * std::size_t(ny) * std::size_t(nz); }
  std::size_t index(int i, int j, int k) const {
    return (std::size_t(k) * std::size_t(ny) + std::size_t(j)) * std::size_t(nx) + std::size_t(i);
  }
  Vec3 point(int i, int j, int k) const {
    return {origin.x + i * spacing.x, origin.y + j * spacing.y, origin.z + k * spacing.z};
  }

  /// Lattice that tiles a rectangular box exactly: n = ceil(L / spacing) points per axis
  /// with spacing L / n (<= the requested one), origin at the box corner, so the lattice
  /// itself is periodic with the box (as VMD's PME maps are). spacing in nm.
  static Lattice fromBox(const Box& box, double spacing);
  /// Lattice over the bounding box of `positions` (nm) grown by `padding` (nm) on every
  /// side, with exactly the requested spacing (nm); counts round the extent up.
  static Lattice fromAtoms(const std::vector<Vec3>& positions, double spacing, double padding);
};

/// A lattice too large for the host's memory (checkLatticeMemory): the caller can name what
/// set its spacing and extent.
class LatticeTooLarge : public Error {
 public:
  using Error::Error;
};

/// Throws Error when spacing is not a positive finite number.
void checkLatticeSpacing(double spacing);
/// Throws LatticeTooLarge when the lattice needs more than the host's physical memory for
/// `bytesPerPoint` bytes per point (or when the point count overflows); the message says
/// how many bytes were asked for.
void checkLatticeMemory(double nx, double ny, double nz, std::size_t bytesPerPoint);

}  // namespace faraday
