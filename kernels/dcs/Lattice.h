#pragma once
// A uniform 3D lattice of points on which a potential map is computed.
#include <cstddef>
#include <vector>

#include "core/Box.h"
#include "core/Error.h"
#include "core/Vec3.h"

namespace faraday {

/// Point (i, j, k) sits at origin + i u + j v + k w (nm), with the lattice's step vectors in
/// the orientation of the reduced box: u = (h_x, 0, 0), v = (t_yx, h_y, 0), w = (t_zx, t_zy,
/// h_z), where h is `spacing` and t is `tilt` = {v_x, w_x, w_y} (zero for an orthogonal
/// lattice). A lattice over a triclinic cell steps along the cell's own vectors: u = a/n_x,
/// v = b/n_y, w = c/n_z. Values on the lattice are stored x fastest: index = (k ny + j) nx + i
/// (one z-slice is contiguous, as the GPU kernels walk it); the OpenDX writer reorders to z
/// fastest.
struct Lattice {
  Vec3 origin;            ///< nm
  Vec3 spacing;           ///< nm: the diagonal of the step vectors, h_x, h_y, h_z
  Vec3 tilt;              ///< nm: v_x, w_x, w_y (as the box's b_x, c_x, c_y)
  int nx = 0, ny = 0, nz = 0;

  std::size_t size() const { return std::size_t(nx) * std::size_t(ny) * std::size_t(nz); }
  std::size_t index(int i, int j, int k) const {
    return (std::size_t(k) * std::size_t(ny) + std::size_t(j)) * std::size_t(nx) + std::size_t(i);
  }
  Vec3 point(int i, int j, int k) const {
    return {origin.x + i * spacing.x + j * tilt.x + k * tilt.y, origin.y + j * spacing.y + k * tilt.z,
            origin.z + k * spacing.z};
  }
  /// The step vectors u, v, w (nm).
  Vec3 stepX() const { return {spacing.x, 0, 0}; }
  Vec3 stepY() const { return {tilt.x, spacing.y, 0}; }
  Vec3 stepZ() const { return {tilt.y, tilt.z, spacing.z}; }
  bool isOrthogonal() const { return tilt.x == 0 && tilt.y == 0 && tilt.z == 0; }
  /// The parallelepiped the lattice tiles, n_x u, n_y v, n_z w, as a box (the cell itself
  /// for fromBox).
  Box cell() const { return Box::fromVectors(stepX() * nx, stepY() * ny, stepZ() * nz); }

  /// Lattice that tiles a box exactly along its own vectors: n = ceil(|edge| / spacing)
  /// points per vector, steps a/n_x, b/n_y, c/n_z (each no longer than the requested
  /// spacing), origin at the box corner, so the lattice itself is periodic with the box (as
  /// VMD's PME maps are). spacing in nm.
  static Lattice fromBox(const Box& box, double spacing);
  /// Orthogonal lattice over the bounding box of `positions` (nm) grown by `padding` (nm) on
  /// every side, with exactly the requested spacing (nm); counts round the extent up.
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
