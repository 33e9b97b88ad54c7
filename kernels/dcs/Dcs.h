#pragma once
// Electrostatic potential maps by direct Coulomb summation (DCS): the potential
// phi(r_j) = k_C sum_i q_i / |r_j - r_i| (kJ/(mol e)) on every point of a lattice, the
// cutoff-switched variant, and the CPU double-precision reference that the CUDA kernels
// (CudaDcs.h) are tested against.
#include <string>
#include <vector>

#include "core/Box.h"
#include "core/Vec3.h"
#include "kernels/dcs/Lattice.h"
#include "kernels/dcs/MapMethod.h"
#include "kernels/pme/ReciprocalSolver.h"

namespace faraday {

struct MapOptions {
  MapMethod method = MapMethod::Direct;
  /// Minimum image per pair in `box` (reduced triclinic form; shifts by c, b, a as
  /// Box::minimumImage). Direct: each atom contributes its image in the brick |x| <= a_x/2,
  /// |y| <= b_y/2, |z| <= c_z/2 around the lattice point (the nearest one when it is closer
  /// than half the smallest diagonal element), a sum over the one minimum-image cell (not an
  /// Ewald sum; costs ~3 extra flops per pair, for y and z are hoisted per row). Cutoff: all
  /// images within the cutoff (the cutoff must be below Box::maxCutoff()).
  bool periodic = false;
  Box box;                ///< nm (periodic only)
  double cutoff = 1.2;    ///< nm (method = cutoff)
  int binCapacity = 16;   ///< atoms per bin of the GPU cutoff kernel (the rest overflow to the host)
  double binSide = 0;     ///< nm; 0 = chosen so bins are ~60% full on average
  /// method = pme: beta (1/nm), grid and order of the run's electrostatics; pmepot: the
  /// same grid and order with beta = map.ewald_factor.
  PmeParams pme;
  double ewaldCutoff = 0; ///< nm, method = pme: real-space cutoff of the Ewald split (nonbonded.cutoff)
};

/// Throws Error naming the option when the options cannot be used (cutoff >= half the box,
/// ...); the engine checks the settings behind them first, naming their keys (mapOptions,
/// engine/config/KernelParams.h).
void checkMapOptions(const MapOptions& options);

/// CPU reference, double precision, OpenMP over z-slices. Adds the map of one frame,
/// kJ/(mol e), to `map` (size lattice.size(), x fastest). positions nm, charges e.
/// Each point sums its atoms in input order (deterministic for any thread count).
void cpuDirectMap(const Lattice& lattice, const std::vector<Vec3>& positions, const std::vector<double>& charges,
                  const MapOptions& options, std::vector<double>& map);
/// Cutoff-switched sum (DcsPair.h cutoffTerm), atom-outer over the points within the
/// cutoff, each z-slice owned by one thread (no write conflicts; each point still sums its
/// atoms in input order). Used as the reference and for the GPU kernel's overflow atoms.
void cpuCutoffMap(const Lattice& lattice, const std::vector<Vec3>& positions, const std::vector<double>& charges,
                  const MapOptions& options, std::vector<double>& map);
/// Dispatches on options.method (Pme: cpuPmeMap of PmeMap.h).
void cpuPotentialMap(const Lattice& lattice, const std::vector<Vec3>& positions, const std::vector<double>& charges,
                     const MapOptions& options, std::vector<double>& map);

}  // namespace faraday
