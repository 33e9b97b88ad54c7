#pragma once
// GROMACS topologies (.top with its .itp includes), read with grompp's semantics into the
// System's plain arrays: the preprocessor (TopPreprocessor.h), the directives
// (TopParser.h), the type lookups (TopTypes.h), each molecule type's interactions
// (TopMolecule.h), and here the system of [ molecules ] expanded in order.
//
// Supported: nbfunc 1 (LJ) with combination rules 1, 2, 3; bonds 1, 3, 5; angles 1, 5;
// dihedrals 1, 2, 3, 4, 5 (as RB), 9; pairs 1, 2; cmap 1; constraints 1, 2; settles 1;
// position_restraints 1; [ exclusions ]; particle types A, V and D; virtual_sites1 1,
// virtual_sites2 1 and 2, virtual_sites3 1 to 4, virtual_sites4 2 and virtual_sitesn 1 to 3
// (Topology::virtualSites). Everything else (other function types, shells, free-energy B
// states that differ from A, [ intermolecular_interactions ], ...) stops with an Error naming
// the file, line and what is not supported.
#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

#include "core/System.h"
#include "core/Topology.h"
#include "engine/formats/Coordinates.h"
#include "engine/formats/gromacs/TopTypes.h"

namespace faraday {

/// One [ molecules ] line.
struct GromacsMoleculeBlock {
  std::string name;  ///< its molecule type
  long count = 0;
  int atomsPerMolecule = 0;
};

/// What a topology defines: the particles of all molecules in [ molecules ] order, their
/// types and the Topology with global 0-based atom indices.
struct GromacsTopology {
  std::filesystem::path file;  ///< the .top read
  TopDefaults defaults;        ///< nbfunc, comb-rule, gen-pairs, fudgeLJ, fudgeQQ
  std::string systemName;      ///< [ system ]

  /// The atom types the particles use, in order of first use. Charge and mass are the
  /// type's defaults ([ atoms ] may override them per particle). sigma, epsilon: as written
  /// for combination rules 2 and 3; for rule 1 sigma = (c12/c6)^(1/6), epsilon =
  /// c6^2/(4 c12) when c6, c12 > 0. Both are 0 where they do not describe the type (a zero
  /// c6 or c12, a negative sigma); Topology::ljC6/ljC12 hold the pair coefficients in any case.
  std::vector<AtomType> types;
  std::vector<int> type;                 ///< per particle: index into types
  std::vector<double> charge;            ///< per particle, e
  std::vector<double> mass;              ///< per particle, amu
  std::vector<std::string> atomName;     ///< per particle, from [ atoms ]
  std::vector<std::string> residueName;  ///< per particle, from [ atoms ]
  std::vector<int> residueNumber;        ///< per particle, from [ atoms ] (repeats in each copy)
  /// Bonded terms, 1-4 pairs, exclusions, constraints, settles, molecules, the LJ table over
  /// `types` and the atomic numbers. Position restraints have their reference at 0: it comes
  /// from the coordinates (fillPositionRestraintReferences).
  Topology topology;
  std::vector<GromacsMoleculeBlock> molecules;  ///< the [ molecules ] list
  std::vector<std::string> warnings;            ///< "file:line: what", one per line

  std::string moleculesFile;  ///< where [ molecules ] is, for checkNetCharge's message
  long moleculesLine = 0;

  std::size_t size() const { return type.size(); }
  double netCharge() const;
};

/// Reads `top` and its includes. `defines` are grompp's -DNAME / -DNAME=value options (the
/// mdp `define` split at blanks); `includeDirs` are searched after the including file's
/// directory and before GMXLIB and the GROMACS data directory. Throws Error naming file and
/// line for bad input. With `coordinateAtoms` >= 0 (the atoms of `coordinateFile`), the atom
/// count of [ molecules ] is compared with it before any molecule is expanded, so that absurd
/// counts fail at once instead of filling the memory; more than 2^31 - 1 atoms are an error
/// at the [ molecules ] line in any case. An empty file, a binary file (a .tpr) and an AMBER
/// prmtop are errors naming the file and what it is.
GromacsTopology readGromacsTopology(const std::filesystem::path& top, const std::vector<std::string>& defines,
                                    const std::vector<std::filesystem::path>& includeDirs = {},
                                    long long coordinateAtoms = -1, const std::string& coordinateFile = {});

/// Throws Error at the [ molecules ] line when the net charge is more than `tolerance` (e)
/// from the nearest integer, listing the molecule types with a non-integer charge.
void checkNetCharge(const GromacsTopology& top, double tolerance = 0.01);

/// A warning when the coordinates' atom names differ from the topology's (grompp's
/// "atom names do not match" warning): how many differ and the first `listed` of them;
/// empty when all agree. The counts must already be equal.
std::string atomNameWarning(const GromacsTopology& top, const Coordinates& coordinates,
                            const std::string& coordinateFile, std::size_t listed = 5);

/// Sets each position restraint's reference to the particle's position in `positions`
/// (what grompp takes from -r, by default the starting coordinates).
void fillPositionRestraintReferences(Topology& topology, const std::vector<Vec3>& positions);

}  // namespace faraday
