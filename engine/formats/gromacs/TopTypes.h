#pragma once
// The force-field parameter directives of a GROMACS topology and their lookups, with
// grompp's rules:
//  - [ atomtypes ]: name, then optionally bond_type and atomic number, mass, charge, particle
//    type, V, W. Which optional columns are present is told by where the one-letter particle
//    type stands (field 6: both, field 4: neither, field 5: the second field is the atomic
//    number when it is an integer, else the bond type). Bonded types are looked up by bond
//    type (the name itself when the column is absent), LJ and pair types by name.
//  - Bonded types match an interaction's atom types forward or reversed, the first line in
//    file order that matches; redefining one with other values overrides it with a warning.
//  - Dihedral types may hold the wildcard X: of all lines that match (forward or reversed)
//    the first with the most non-wildcard matches wins. Consecutive type-9 lines with the
//    same atom types form one block whose lines all apply (several terms); a later block for
//    the same atom types is a redefinition: dropped when identical, an error when it differs
//    (grompp does not support overriding type-9 blocks).
//  - LJ: V, W are c6, c12 for combination rule 1 (geometric mean of each) and sigma,
//    epsilon for rules 2 (arithmetic sigma, geometric epsilon) and 3 (both geometric);
//    a negative sigma means c6 = 0 and c12 = 4 epsilon |sigma|^12. [ nonbond_params ]
//    replaces the mixed value of one pair. Generated 1-4 pairs (gen-pairs = yes) take the
//    pair's value after [ nonbond_params ] times fudgeLJ; [ pairtypes ] replaces them.
#include <array>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "engine/formats/gromacs/TopFunctions.h"
#include "engine/formats/gromacs/TopLine.h"

namespace faraday {

/// [ defaults ]: nbfunc comb-rule gen-pairs fudgeLJ fudgeQQ.
struct TopDefaults {
  int nbfunc = 1;    ///< 1: Lennard-Jones (2, Buckingham, is not supported)
  int combRule = 1;  ///< 1, 2 or 3 (see above)
  bool genPairs = false;
  double fudgeLJ = 1;
  double fudgeQQ = 1;
};

struct TopAtomType {
  std::string name;
  int bondType = -1;      ///< index into the bond type names
  int atomicNumber = 0;   ///< 0 when the column is absent
  double mass = 0;        ///< amu
  double charge = 0;      ///< e
  char particleType = 'A';
  double v = 0, w = 0;    ///< c6, c12 (rule 1) or sigma, epsilon (rules 2, 3) as written
  std::string where;      ///< "file:line" of its definition
};

/// A line (or a type-9 block of lines) of bonded parameters.
struct BondedTypeEntry {
  std::vector<int> types;                  ///< bond type indices, -1 for the wildcard X
  std::vector<std::vector<double>> terms;  ///< one parameter list per term, as written
  std::string where;                       ///< "file:line" of its first line
};

/// The bonded types of one function.
class BondedTypeTable {
 public:
  /// Adds a line; `block` lines (dihedral type 9) with the same types as the line before
  /// join its block. Throws Error for a differing second type-9 block.
  void add(const std::vector<int>& types, const std::vector<double>& params, bool block, const TopLine& line,
           std::vector<std::string>& warnings);
  /// Ends the block being read (before the first lookup).
  void finish(std::vector<std::string>& warnings);

  /// The first entry whose types equal `types` forward or reversed.
  const BondedTypeEntry* findExact(const std::vector<int>& types) const;
  /// The first entry with the most non-wildcard matches, forward or reversed.
  const BondedTypeEntry* findDihedral(const std::vector<int>& types) const;

 private:
  void commit(std::vector<std::string>& warnings);

  std::vector<BondedTypeEntry> entries_;
  std::optional<BondedTypeEntry> pending_;  ///< the block being read
  bool pendingBlock_ = false;
  TopLine pendingLine_;
};

struct CmapTypeEntry {
  std::array<int, 5> types;    ///< bond type indices
  int size = 0;                ///< grid points per angle
  /// size x size values (kJ/mol) in file order. grompp reads them as grid[a * size + b] at
  /// phi = -180 + 360 a / size, psi = -180 + 360 b / size degrees (setup_cmap in grompp.cpp):
  /// each row of the file's grid is one phi, psi running along it. That is CmapGrid's layout.
  std::vector<double> energy;
  std::string where;
};

/// Everything the parameter directives define.
class TopForceField {
 public:
  TopDefaults defaults;

  void setDefaults(const TopFields& f);
  void addAtomType(const TopFields& f, std::vector<std::string>& warnings);
  /// [ bondtypes ], [ angletypes ], [ constrainttypes ].
  void addBondedType(TopSection section, const TopFields& f, std::vector<std::string>& warnings);
  void addDihedralType(const TopFields& f, std::vector<std::string>& warnings);
  void addPairType(const TopFields& f, std::vector<std::string>& warnings);
  void addNonbondParam(const TopFields& f, std::vector<std::string>& warnings);
  void addCmapType(const TopFields& f);
  /// After the last parameter directive: ends pending blocks.
  void finish(std::vector<std::string>& warnings);

  /// The index of atom type `name`, -1 when undefined.
  int atomTypeIndex(const std::string& name) const;
  const TopAtomType& atomType(int index) const { return atomTypes_[std::size_t(index)]; }
  const std::string& bondTypeName(int index) const { return bondTypeNames_[std::size_t(index)]; }
  /// The bonded types of `function` (nullptr when none were defined).
  const BondedTypeTable* table(TopFunction function) const;
  /// The first [ cmaptypes ] entry for these bond types (forward only), -1 when none.
  int findCmapType(const std::array<int, 5>& bondTypes) const;
  const CmapTypeEntry& cmapType(int index) const { return cmapTypes_[std::size_t(index)]; }

  /// c6 (kJ/mol nm^6), c12 (kJ/mol nm^12) from V, W as written, by the combination rule.
  std::pair<double, double> c6c12(double v, double w) const;
  /// LJ c6, c12 between atom types ti, tj: [ nonbond_params ] or the combination rule.
  std::pair<double, double> lj(int ti, int tj) const;
  /// 1-4 c6, c12 between atom types: [ pairtypes ], else generated (gen-pairs), else none.
  std::optional<std::pair<double, double>> pair14(int ti, int tj) const;

 private:
  struct PairValue {
    double v, w;  ///< as written
    std::string where;
  };
  int bondTypeIndex(const std::string& name, const TopFields& f) const;
  int addBondTypeName(const std::string& name);
  /// V, W of the combination rule applied to two atom types.
  std::pair<double, double> mixed(int ti, int tj) const;
  void setPairValue(std::map<std::pair<int, int>, PairValue>& table, const TopFields& f, const char* what,
                    std::vector<std::string>& warnings);

  std::vector<TopAtomType> atomTypes_;
  std::map<std::string, int> atomTypeIndex_;
  std::vector<std::string> bondTypeNames_;
  std::map<std::string, int> bondTypeIndex_;
  std::map<TopFunction, BondedTypeTable> tables_;
  std::map<std::pair<int, int>, PairValue> nonbondParams_, pairTypes_;  ///< key (min, max) type index
  std::vector<CmapTypeEntry> cmapTypes_;
};

}  // namespace faraday
