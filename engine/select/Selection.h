#pragma once
// Atom selections in a small language, as MDAnalysis, VMD and GROMACS users know them:
//
//   all | none | protein | nucleic | water | ions
//   name PATTERN...        atom names, with the wildcards * (any run) and ? (one character)
//   resname PATTERN...     residue names, with the same wildcards
//   resid VALUE...         residue numbers as in the coordinate file: N, N-M or N:M (inclusive)
//   index VALUE...         0-based atom indices, with the same values and ranges
//   molecule PATTERN...    topology molecule types ([ moleculetype ] names)
//   group NAME...          groups of a GROMACS .ndx index file
//   not X | X and Y | X or Y | ( X )
//
// Keywords are case-sensitive; tokens are separated by blanks ( "(" and ")" need none);
// `not` binds tighter than `and`, `and` tighter than `or`. A value list ends at the next
// keyword, operator or parenthesis, so `name CA CB and resid 1-10` is (name CA CB) and
// (resid 1-10). The residue sets of protein, nucleic, water and ions are those of GROMACS's
// residuetypes.dat with the AMBER, CHARMM and OPLS variants (HSD, CYX, NALA, CALA, TIP3, SOD,
// ...); the lists are in Selection.cpp.
#include <cstddef>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "core/System.h"

namespace faraday {

/// Index groups by name, as 0-based atom indices in the file's order.
using IndexGroups = std::map<std::string, std::vector<int>>;

/// What a selection is evaluated on, per particle: all vectors hold size() entries except
/// moleculeName, which is empty for a system without topology.
struct SelectionContext {
  std::vector<std::string> atomName;
  std::vector<std::string> residueName;
  std::vector<int> residueId;             ///< as in the coordinate file
  std::vector<std::string> moleculeName;  ///< the [ moleculetype ] of each particle's molecule
  IndexGroups groups;                     ///< for `group`; empty when no .ndx file is given
  std::string groupFile;                  ///< the .ndx file the groups come from, for messages

  std::size_t size() const { return atomName.size(); }
};

/// The names, residues and molecule types of `system`, with the groups of the .ndx file
/// `indexFile` when it is not empty.
SelectionContext selectionContext(const System& system, const std::filesystem::path& indexFile = {});

/// The groups of a GROMACS .ndx file ("[ name ]" lines, each followed by 1-based atom
/// numbers), converted to 0-based indices. Throws Error naming the file and line for a number
/// that is not a positive integer, numbers before the first group, a repeated group name, or a
/// file without groups.
IndexGroups readNdx(const std::filesystem::path& file);

/// The sorted 0-based indices of the particles that `text` selects. Throws Error naming `key`
/// (the configuration key the text comes from, e.g. "map.atoms") and the 1-based character
/// position for a syntax error, an unknown keyword (with the nearest keyword), an unknown
/// group (naming the .ndx file), an index beyond the system; and for an empty text or a
/// selection of no particle.
std::vector<int> select(const std::string& text, const SelectionContext& context, const std::string& key);

}  // namespace faraday
