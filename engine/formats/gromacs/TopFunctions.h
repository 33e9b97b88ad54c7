#pragma once
// The directives of a GROMACS topology and the interaction function types Faraday reads:
// which (directive, function type) pairs are supported and how many parameters each takes.
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "engine/formats/gromacs/TopLine.h"

namespace faraday {

/// A [ directive ]. Parameter directives (defaults .. cmaptypes) must all come before the
/// first [ moleculetype ].
enum class TopSection {
  None,  ///< before the first directive (grompp ignores such lines)
  Defaults,
  AtomTypes,
  BondTypes,
  ConstraintTypes,
  PairTypes,
  AngleTypes,
  DihedralTypes,
  NonbondParams,
  ImplicitGenbornParams,  ///< read and skipped, as grompp does
  ImplicitSurfaceParams,  ///< read and skipped, as grompp does
  CmapTypes,
  MoleculeType,
  Atoms,
  Bonds,
  Pairs,
  Angles,
  Dihedrals,
  Exclusions,
  Constraints,
  Settles,
  PositionRestraints,
  Cmap,
  VirtualSites1,  ///< [ virtual_sites1 ] .. [ virtual_sitesn ] (or the old [ dummiesN ])
  VirtualSites2,
  VirtualSites3,
  VirtualSites4,
  VirtualSitesN,
  System,
  Molecules,
  Unsupported,  ///< a GROMACS directive Faraday does not read (polarization, restraints, ...)
  Unknown,      ///< not a GROMACS directive
};

/// The section of "[ name ]" (name without brackets and blanks).
TopSection topSection(const std::string& name);
/// Whether the section holds force-field parameters (must precede [ moleculetype ]).
bool isParameterSection(TopSection section);
/// Whether the section belongs to the current [ moleculetype ] and needs its [ atoms ].
bool isMoleculeSection(TopSection section);

/// The interaction functions Faraday reads, each a GROMACS (directive, function type).
enum class TopFunction {
  Bond,              ///< bonds 1: b0 (nm), kb (kJ/mol/nm^2)
  G96Bond,           ///< bonds 2: b0 (nm), kb (kJ/mol/nm^4)
  Morse,             ///< bonds 3: b0 (nm), D (kJ/mol), beta (1/nm)
  CubicBond,         ///< bonds 4: b0 (nm), kb (kJ/mol/nm^2), kcub (1/nm)
  Connection,        ///< bonds 5: no parameters, exclusions only
  Angle,             ///< angles 1: theta0 (deg), k (kJ/mol/rad^2)
  G96Angle,          ///< angles 2: theta0 (deg), k (kJ/mol)
  UreyBradley,       ///< angles 5: theta0 (deg), k (kJ/mol/rad^2), r13 (nm), kUB (kJ/mol/nm^2)
  ProperDihedral,    ///< dihedrals 1 and 9: phi0 (deg), k (kJ/mol), multiplicity
  ImproperDihedral,  ///< dihedrals 2: xi0 (deg), k (kJ/mol/rad^2)
  RbDihedral,        ///< dihedrals 3: C0..C5 (kJ/mol)
  PeriodicImproper,  ///< dihedrals 4: phi0 (deg), k (kJ/mol), multiplicity
  FourierDihedral,   ///< dihedrals 5: F1..F4 (kJ/mol), turned into RB coefficients
  Constraint,        ///< constraints 1: b0 (nm), generates exclusions
  ConstraintNoExclusion,  ///< constraints 2: b0 (nm), no exclusions
  Pair,              ///< pairs 1: V, W (c6, c12 or sigma, epsilon by the combination rule)
  PairQ,             ///< pairs 2: fudgeQQ, qi (e), qj (e), V, W
  PositionRestraint, ///< position_restraints 1: kx, ky, kz (kJ/mol/nm^2)
  Settle,            ///< settles 1: dOH (nm), dHH (nm)
  Cmap,              ///< cmap 1: the grid from [ cmaptypes ]
  VirtualSite1,      ///< virtual_sites1 1: on its atom
  VirtualSite2,      ///< virtual_sites2 1 ("2"): a
  VirtualSite2FD,    ///< virtual_sites2 2 ("2fd"): a (nm)
  VirtualSite3,      ///< virtual_sites3 1 ("3"): a, b
  VirtualSite3FD,    ///< virtual_sites3 2 ("3fd"): a, b (nm)
  VirtualSite3FAD,   ///< virtual_sites3 3 ("3fad"): theta (deg), d (nm)
  VirtualSite3OUT,   ///< virtual_sites3 4 ("3out"): a, b, c (1/nm)
  VirtualSite4FDN,   ///< virtual_sites4 2 ("4fdn"): a, b, c (nm)
};

struct TopFunctionInfo {
  int atoms;        ///< atom indices on an interaction line ([ settles ]: the oxygen only; a site's line: the site too)
  int parameters;   ///< parameters of state A
  int parametersB;  ///< parameters of state B that may follow (must equal A's)
  const char* name; ///< "harmonic bond", for messages
};

const TopFunctionInfo& functionInfo(TopFunction function);

/// The function of function type `type` in an interaction or type section; nullopt when
/// Faraday does not support it (also for sections without function types).
std::optional<TopFunction> topFunction(TopSection section, long type);

/// The state-A parameters of `function` written from field `first` of `f` on: none (then
/// the caller looks them up), the state-A count, or state A and an identical state B.
/// Throws Error for another count, or for a state B that differs (free-energy
/// perturbation is not supported).
std::vector<double> stateAParameters(const TopFields& f, std::size_t first, TopFunction function);

/// "[ name ]" of a section, for messages.
std::string sectionName(TopSection section);

}  // namespace faraday
