#pragma once
#include <vector>

#include "core/System.h"

namespace faraday {

/// A System and its starting positions, built in memory (benchmarks and tests).
struct BuiltSystem {
  System system;
  std::vector<Vec3> positions;  ///< nm
};

/// Argon LJ parameters (Rahman 1964; White 1999): sigma 0.3405 nm, eps/k_B = 119.8 K, 39.948 amu.
AtomType argonType();
/// fcc lattice constant (nm) giving the liquid-argon number density 21.1 /nm^3 (1.40 g/cm^3):
/// a = (4 / 21.1)^(1/3).
inline constexpr double kArgonLiquidLattice = 0.5742;

/// cells^3 fcc unit cells of argon (4 atoms each) with lattice constant `a` (nm), in a cubic
/// periodic box of edge cells * a. Atoms sit a/4 inside the cell so none lies on a face.
BuiltSystem fccArgon(int cells, double a = kArgonLiquidLattice);

}  // namespace faraday

namespace faraday {

/// Sodium and chloride as in systems/nacl_melt (Joung-Cheatham-like LJ, charges +-1 e).
AtomType sodiumType();
AtomType chlorideType();
/// Rock-salt lattice constant (nm) at the NaCl melt density 1.4534 g/cm^3:
/// a = (4 (m_Na + m_Cl) / rho)^(1/3).
inline constexpr double kNaClMeltLattice = 0.644004;
/// cells^3 rock-salt unit cells (8 ions each) of lattice constant `a` in a cubic periodic
/// box of edge cells * a: the start of the NaCl melt benchmarks.
BuiltSystem rockSalt(int cells, double a = kNaClMeltLattice);

}  // namespace faraday
