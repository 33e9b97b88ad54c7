#pragma once
// The molecular topology as plain arrays: what the bonded kernels, the exclusion lists, the
// constraint solvers and the barostat read. Atom indices are 0-based indices into the
// System's particles. Units: nm, rad, kJ/mol, e, amu. Each term's formula is in its
// evaluator (kernels/bonded/BondedEvaluators.h); the GROMACS function type it comes from is
// named beside it. A system built from [atom.NAME] sections alone has an empty topology.
#include <cstddef>
#include <string>
#include <vector>

#include "core/Vec3.h"

namespace faraday {

/// Harmonic bond (GROMACS bonds type 1): U = kb/2 (r - b0)^2.
struct HarmonicBond {
  int i, j;
  double b0;  ///< nm
  double kb;  ///< kJ/mol/nm^2
};

/// GROMOS-96 bond (bonds type 2): U = kb/4 (r^2 - b0^2)^2, harmonic in r^2.
struct G96Bond {
  int i, j;
  double b0;  ///< nm
  double kb;  ///< kJ/mol/nm^4
};

/// Morse bond (bonds type 3): U = D (1 - exp(-beta (r - b0)))^2.
struct MorseBond {
  int i, j;
  double b0;    ///< nm
  double D;     ///< kJ/mol
  double beta;  ///< 1/nm
};

/// Cubic bond (bonds type 4): U = kb (r - b0)^2 + kb kcub (r - b0)^3.
struct CubicBond {
  int i, j;
  double b0;    ///< nm
  double kb;    ///< kJ/mol/nm^2
  double kcub;  ///< 1/nm
};

/// Harmonic angle (angles type 1): U = kTheta/2 (theta - theta0)^2, theta the angle i-j-k.
struct HarmonicAngle {
  int i, j, k;
  double theta0;  ///< rad
  double kTheta;  ///< kJ/mol/rad^2
};

/// GROMOS-96 angle (angles type 2): U = kTheta/2 (cos(theta) - cos(theta0))^2, theta the
/// angle i-j-k.
struct G96Angle {
  int i, j, k;
  double theta0;  ///< rad
  double kTheta;  ///< kJ/mol
};

/// Urey-Bradley (angles type 5): the harmonic angle plus a harmonic 1-3 bond i-k,
/// U = kTheta/2 (theta - theta0)^2 + kUB/2 (r_ik - r13)^2.
struct UreyBradleyAngle {
  int i, j, k;
  double theta0;  ///< rad
  double kTheta;  ///< kJ/mol/rad^2
  double r13;     ///< nm
  double kUB;     ///< kJ/mol/nm^2
};

/// Periodic torsion (dihedrals type 1, 9 and the periodic improper type 4):
/// U = kPhi (1 + cos(n phi - phi0)), phi the IUPAC dihedral angle i-j-k-l. Several terms on
/// one quadruple (type 9 multiplicities) are several entries.
struct PeriodicTorsion {
  int i, j, k, l;
  double phi0;  ///< rad
  double kPhi;  ///< kJ/mol
  int n;        ///< multiplicity
};

/// Ryckaert-Bellemans (dihedrals type 3): U = sum_{m=0..5} C_m cos^m(psi), psi = phi - 180 deg.
struct RbTorsion {
  int i, j, k, l;
  double c[6];  ///< kJ/mol
};

/// Harmonic improper (dihedrals type 2): U = kXi/2 (xi - xi0)^2 with xi - xi0 taken into
/// (-pi, pi], xi the dihedral angle i-j-k-l.
struct HarmonicImproper {
  int i, j, k, l;
  double xi0;  ///< rad
  double kXi;  ///< kJ/mol/rad^2
};

/// CMAP correction (cmap type 1) on the dihedrals phi = i-j-k-l and psi = j-k-l-m, with the
/// grid Topology::cmapGrids[grid].
struct CmapTorsion {
  int i, j, k, l, m;
  int grid;
};

/// A CMAP grid: `size` x `size` energies (kJ/mol) at phi, psi = -pi + 2 pi a / size,
/// -pi + 2 pi b / size, stored as energy[a * size + b] (phi major), periodic in both angles:
/// the order of the values of a [cmaptypes] entry as grompp reads them (kernels/bonded/CmapTable.h).
struct CmapGrid {
  int size = 0;
  std::vector<double> energy;
};

/// A 1-4 pair (pairs type 1 or 2), computed in full whatever its distance, without Ewald
/// splitting and without cutoff: U = c12/r^12 - c6/r^6 + k_C qq / r.
struct Pair14 {
  int i, j;
  double c6;   ///< kJ/mol nm^6 (the generated pair already scaled by fudgeLJ)
  double c12;  ///< kJ/mol nm^12
  double qq;   ///< e^2: q_i q_j times fudgeQQ (type 1) or as given (type 2)
};

/// Harmonic position restraint (position_restraints type 1), per dimension:
/// U = sum_d k_d/2 (x_d - ref_d)^2, the displacement taken as a minimum image.
struct PositionRestraint {
  int i;
  Vec3 ref;  ///< nm, from the coordinates the run starts from
  Vec3 k;    ///< kJ/mol/nm^2 in x, y, z
};

/// A distance constraint |x_i - x_j| = length ([constraints] type 1 and 2, or a bond made
/// rigid by system.constraints).
struct Constraint {
  int i, j;
  double length;  ///< nm
};

/// Rigid three-site water ([settles]): atoms oxygen, oxygen + 1, oxygen + 2 (O, H, H).
struct Settle {
  int oxygen;
  double dOH;  ///< nm
  double dHH;  ///< nm
};

/// The construction of a virtual site (GROMACS's [ virtual_sitesN ] function types). Each
/// site sits at its first constructing atom i plus an offset built from the minimum-image
/// vectors x_ij = x_j - x_i, x_ik, x_il (formulas in kernels/vsites/VirtualSiteMath.h):
enum class VirtualSiteType : int {
  One,       ///< virtual_sites1 1: on atom i
  Two,       ///< virtual_sites2 1 ("2"): a x_ij
  TwoFD,     ///< virtual_sites2 2 ("2fd"): a x_ij / |x_ij|, a in nm
  Three,     ///< virtual_sites3 1 ("3"): a x_ij + b x_ik
  ThreeFD,   ///< virtual_sites3 2 ("3fd"): b r / |r|, r = x_ij + a x_jk, b in nm
  ThreeFAD,  ///< virtual_sites3 3 ("3fad"): at d nm from i, at angle theta to x_ij in plane ijk
  ThreeOut,  ///< virtual_sites3 4 ("3out"): a x_ij + b x_ik + c (x_ij x x_ik), c in 1/nm
  FourFDN,   ///< virtual_sites4 2 ("4fdn"): c n, n the unit normal of (a x_ik - x_ij) x (b x_il - x_ij)
  Weighted,  ///< virtual_sitesn 1, 2, 3 (COG, COM, COW): sum of w_k x_k, the weights summing to 1
};

/// One virtual site: particle `site`, at the place `type` and `p` give its constructing atoms
/// VirtualSites::atoms[first .. first + count) (i, j, k, l in this order). Parameters as
/// GROMACS keeps them after grompp: p = {a} (2, 2fd), {a, b} (3, 3fd), {d cos theta,
/// d sin theta} (3fad, from the line's theta in degrees and d in nm), {a, b, c} (3out, 4fdn).
struct VirtualSite {
  int site = 0;
  VirtualSiteType type = VirtualSiteType::One;
  int first = 0, count = 0;
  double p[3] = {0, 0, 0};
};

/// The virtual sites of a system: massless particles placed from other particles' positions
/// after every position update, whose forces are spread onto those particles. Sites built
/// from sites come after them: level k holds the sites whose constructing particles are
/// atoms or sites of levels below k, sites[levels[k] .. levels[k + 1]); sites are built level
/// by level upwards and their forces spread downwards.
struct VirtualSites {
  std::vector<VirtualSite> sites;
  std::vector<int> atoms;        ///< the constructing particles of every site, end to end
  std::vector<double> weights;   ///< per entry of `atoms`: Weighted's normalised weight, else 0
  std::vector<int> levels;       ///< level starts into `sites`, and its size at the end

  bool empty() const { return sites.empty(); }
  std::size_t size() const { return sites.size(); }
  /// Per particle of a system of `particles`: 1 for a virtual site.
  std::vector<char> mask(std::size_t particles) const {
    std::vector<char> m(particles, 0);
    for (const VirtualSite& s : sites) m[std::size_t(s.site)] = 1;
    return m;
  }
};

/// One molecule of the system: atoms first .. first + count - 1.
struct Molecule {
  int first = 0;
  int count = 0;
  std::string name;  ///< its [moleculetype] name
};

/// Everything the topology adds to a System of particles. Empty for atomic systems.
struct Topology {
  std::vector<Molecule> molecules;

  /// Lennard-Jones coefficients of every pair of the System's atom types (types x types,
  /// row-major, symmetric): c6 (kJ/mol nm^6) and c12 (kJ/mol nm^12) after the combination
  /// rule and [nonbond_params]. Empty: Lorentz-Berthelot mixing of AtomType sigma/epsilon.
  std::vector<double> ljC6, ljC12;
  /// Per particle: the element's atomic number from [atomtypes] (0 where unknown).
  std::vector<int> atomicNumber;

  std::vector<HarmonicBond> bonds;
  std::vector<G96Bond> g96Bonds;
  std::vector<MorseBond> morseBonds;
  std::vector<CubicBond> cubicBonds;
  std::vector<HarmonicAngle> angles;
  std::vector<G96Angle> g96Angles;
  std::vector<UreyBradleyAngle> ureyBradleys;
  std::vector<PeriodicTorsion> properDihedrals;    ///< types 1 and 9 ("Proper Dih.")
  std::vector<PeriodicTorsion> periodicImpropers;  ///< type 4 ("Per. Imp. Dih.")
  std::vector<RbTorsion> rbDihedrals;              ///< type 3 ("Ryckaert-Bell.")
  std::vector<HarmonicImproper> impropers;         ///< type 2 ("Improper Dih.")
  std::vector<CmapTorsion> cmaps;
  std::vector<CmapGrid> cmapGrids;
  std::vector<Pair14> pairs14;
  std::vector<PositionRestraint> positionRestraints;

  /// Excluded pairs in CSR form, both directions, each row sorted ascending without the atom
  /// itself: the partners of particle p are exclusions[exclusionOffsets[p] ..
  /// exclusionOffsets[p + 1]). They get no real-space LJ or Coulomb term; their
  /// reciprocal-space Coulomb is removed by the Ewald exclusion correction. Empty offsets: none.
  std::vector<int> exclusionOffsets, exclusions;

  std::vector<Constraint> constraints;
  std::vector<Settle> settles;
  VirtualSites virtualSites;

  bool hasExclusions() const { return !exclusions.empty(); }
  bool hasConstraints() const { return !constraints.empty() || !settles.empty(); }
  /// Whether any bonded term, 1-4 pair or position restraint is present.
  bool hasBondedTerms() const {
    return !bonds.empty() || !g96Bonds.empty() || !morseBonds.empty() || !cubicBonds.empty() || !angles.empty() ||
           !g96Angles.empty() || !ureyBradleys.empty() || !properDihedrals.empty() || !periodicImpropers.empty() ||
           !rbDihedrals.empty() || !impropers.empty() || !cmaps.empty() || !pairs14.empty() ||
           !positionRestraints.empty();
  }
  bool empty() const {
    return molecules.empty() && !hasBondedTerms() && !hasExclusions() && !hasConstraints() && ljC6.empty() &&
           virtualSites.empty();
  }
};

}  // namespace faraday
