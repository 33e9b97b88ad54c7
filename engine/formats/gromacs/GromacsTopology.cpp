// The system of a GROMACS topology: the molecule types of [ molecules ] expanded in order
// into per-particle arrays and one Topology with global atom indices.
#include "engine/formats/gromacs/GromacsTopology.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <limits>
#include <map>
#include <utility>

#include "engine/formats/gromacs/TopParser.h"
#include "engine/formats/gromacs/TopPreprocessor.h"
#include "kernels/vsites/VirtualSites.h"

namespace faraday {
namespace {

/// Appends `from` to `to` with every atom index moved by `offset` (shift(term, offset)).
template <typename T, typename Shift>
void appendShifted(std::vector<T>& to, const std::vector<T>& from, int offset, Shift shift) {
  for (T term : from) {
    shift(term, offset);
    to.push_back(term);
  }
}

/// The terms of one copy of a molecule type, its first atom at `offset`; CMAP grids renamed
/// from [ cmaptypes ] indices to `grid`'s.
void appendMolecule(Topology& t, const Topology& m, int offset, const std::map<int, int>& grid) {
  const auto s2 = [](auto& x, int o) { x.i += o, x.j += o; };
  const auto s3 = [](auto& x, int o) { x.i += o, x.j += o, x.k += o; };
  const auto s4 = [](auto& x, int o) { x.i += o, x.j += o, x.k += o, x.l += o; };
  appendShifted(t.bonds, m.bonds, offset, s2);
  appendShifted(t.g96Bonds, m.g96Bonds, offset, s2);
  appendShifted(t.morseBonds, m.morseBonds, offset, s2);
  appendShifted(t.cubicBonds, m.cubicBonds, offset, s2);
  appendShifted(t.angles, m.angles, offset, s3);
  appendShifted(t.g96Angles, m.g96Angles, offset, s3);
  appendShifted(t.ureyBradleys, m.ureyBradleys, offset, s3);
  appendShifted(t.properDihedrals, m.properDihedrals, offset, s4);
  appendShifted(t.periodicImpropers, m.periodicImpropers, offset, s4);
  appendShifted(t.rbDihedrals, m.rbDihedrals, offset, s4);
  appendShifted(t.impropers, m.impropers, offset, s4);
  appendShifted(t.cmaps, m.cmaps, offset, [&grid](CmapTorsion& x, int o) {
    x.i += o, x.j += o, x.k += o, x.l += o, x.m += o;
    x.grid = grid.at(x.grid);
  });
  appendShifted(t.pairs14, m.pairs14, offset, s2);
  appendShifted(t.positionRestraints, m.positionRestraints, offset, [](PositionRestraint& x, int o) { x.i += o; });
  appendShifted(t.constraints, m.constraints, offset, s2);
  appendShifted(t.settles, m.settles, offset, [](Settle& x, int o) { x.oxygen += o; });
}

/// An atom type's sigma, epsilon where they describe it (see GromacsTopology::types).
AtomType publicType(const TopAtomType& t, int combRule) {
  AtomType a{t.name, t.mass, t.charge, 0.0, 0.0};
  if (combRule != 1) {
    if (t.v >= 0) a.sigma = t.v, a.epsilon = t.w;
  } else if (t.v > 0 && t.w > 0) {
    a.sigma = std::pow(t.w / t.v, 1.0 / 6.0);
    a.epsilon = t.v * t.v / (4 * t.w);
  }
  return a;
}

/// CSR of `pairs` (i < j) in both directions, each row sorted, over `atoms` particles.
void setExclusions(Topology& t, const std::vector<std::pair<int, int>>& pairs, std::size_t atoms) {
  if (pairs.empty()) return;
  t.exclusionOffsets.assign(atoms + 1, 0);
  for (const auto& [i, j] : pairs) ++t.exclusionOffsets[std::size_t(i) + 1], ++t.exclusionOffsets[std::size_t(j) + 1];
  for (std::size_t p = 0; p < atoms; ++p) t.exclusionOffsets[p + 1] += t.exclusionOffsets[p];
  t.exclusions.assign(std::size_t(t.exclusionOffsets[atoms]), 0);
  std::vector<int> fill(t.exclusionOffsets.begin(), t.exclusionOffsets.end() - 1);
  for (const auto& [i, j] : pairs) {
    t.exclusions[std::size_t(fill[std::size_t(i)]++)] = j;
    t.exclusions[std::size_t(fill[std::size_t(j)]++)] = i;
  }
  for (std::size_t p = 0; p < atoms; ++p)
    std::sort(t.exclusions.begin() + t.exclusionOffsets[p], t.exclusions.begin() + t.exclusionOffsets[p + 1]);
}

/// The atoms [ molecules ] lists, checked before any copy is made: at most 2^31 - 1 (the
/// atom indices are ints) and, with `coordinateAtoms` >= 0, as many as the coordinates have.
void checkAtomCount(const ParsedTopology& parsed, const std::string& top, long long coordinateAtoms,
                    const std::string& coordinateFile) {
  long double total = 0;
  for (const TopMoleculeCount& block : parsed.molecules)
    total += (long double)block.count * (long double)parsed.moleculeTypes[std::size_t(block.type)].atoms.size();
  char count[64];
  std::snprintf(count, sizeof count, "%.0Lf", total);
  if (total > (long double)std::numeric_limits<int>::max())
    throw parsed.moleculesLine.error("[ molecules ] lists " + std::string(count) +
                                     " atoms, more than the 2147483647 a system can have");
  if (coordinateAtoms >= 0 && total != (long double)coordinateAtoms)
    throw fileError(coordinateFile, 0, std::to_string(coordinateAtoms) + " atoms, but the topology " + top + " has " +
                                           count + " (its [ molecules ] at " + parsed.moleculesLine.where() + ")");
}

/// What a file that is not a .top is, from its first bytes; "" for text that may be one.
std::string notATopology(const std::filesystem::path& top) {
  std::ifstream in(top, std::ios::binary);
  char head[4096];
  in.read(head, sizeof head);
  const std::string bytes(head, std::size_t(in.gcount()));
  if (bytes.find('\0') != std::string::npos)
    return top.extension() == ".tpr" ? "a binary GROMACS run input (.tpr), not a .top topology: give the .top that "
                                       "grompp read"
                                     : "a binary file, not a GROMACS .top topology";
  if (bytes.rfind("%VERSION", 0) == 0 || bytes.find("%FLAG ") != std::string::npos)
    return "an AMBER prmtop, not a GROMACS .top topology: system.topology reads GROMACS topologies (ParmEd or "
           "acpype convert a prmtop into one)";
  return "";
}

class Assembler {
 public:
  Assembler(const ParsedTopology& parsed, GromacsTopology& out) : parsed_(parsed), out_(out) {}

  void run() {
    const TopForceField& ff = parsed_.forceField;
    std::vector<std::pair<int, int>> exclusions;
    std::map<int, std::vector<std::pair<int, int>>> moleculeExclusions;  // by molecule type
    for (const TopMoleculeCount& block : parsed_.molecules) {
      const TopMoleculeType& m = parsed_.moleculeTypes[std::size_t(block.type)];
      out_.molecules.push_back({m.name, block.count, int(m.atoms.size())});
      auto [it, fresh] = moleculeExclusions.try_emplace(block.type);
      if (fresh) it->second = excludedPairs(m);
      if (block.count > 0)
        for (const CmapTorsion& c : m.topology.cmaps) useCmapGrid(c.grid);
      for (long copy = 0; copy < block.count; ++copy) {
        const int first = int(out_.size());
        for (const TopAtom& a : m.atoms) addParticle(a);
        out_.topology.molecules.push_back({first, int(m.atoms.size()), m.name});
        appendMolecule(out_.topology, m.topology, first, cmapGrid_);
        for (const TopVirtualSite& v : m.virtualSites) addSite(v, first);
        for (const auto& [i, j] : it->second) exclusions.emplace_back(first + i, first + j);
      }
    }
    setExclusions(out_.topology, exclusions, out_.size());
    orderVirtualSites(out_.topology.virtualSites, out_.size());
    const std::size_t n = out_.types.size();
    out_.topology.ljC6.assign(n * n, 0.0);
    out_.topology.ljC12.assign(n * n, 0.0);
    for (std::size_t a = 0; a < n; ++a)
      for (std::size_t b = 0; b < n; ++b) {
        const auto [c6, c12] = ff.lj(usedTypes_[a], usedTypes_[b]);
        out_.topology.ljC6[a * n + b] = c6;
        out_.topology.ljC12[a * n + b] = c12;
      }
  }

 private:
  void addParticle(const TopAtom& a) {
    const TopAtomType& t = parsed_.forceField.atomType(a.type);
    auto [it, fresh] = typeIndex_.try_emplace(a.type, int(out_.types.size()));
    if (fresh) {
      out_.types.push_back(publicType(t, parsed_.forceField.defaults.combRule));
      usedTypes_.push_back(a.type);
    }
    out_.type.push_back(it->second);
    out_.charge.push_back(a.charge);
    out_.mass.push_back(a.mass);
    out_.atomName.push_back(a.name);
    out_.residueName.push_back(a.residueName);
    out_.residueNumber.push_back(a.residueNumber);
    out_.topology.atomicNumber.push_back(t.atomicNumber);
  }

  /// A copy of molecule-type site `v` whose molecule starts at particle `offset` (the sites are
  /// put in level order once all are in: orderVirtualSites).
  void addSite(const TopVirtualSite& v, int offset) {
    VirtualSites& all = out_.topology.virtualSites;
    VirtualSite s = v.site;
    s.site += offset;
    s.first = int(all.atoms.size());
    for (std::size_t k = 0; k < v.atoms.size(); ++k) {
      all.atoms.push_back(v.atoms[k] + offset);
      all.weights.push_back(v.weights[k]);
    }
    all.sites.push_back(s);
  }

  /// Gives [ cmaptypes ] entry `type` a grid of the Topology (grids in order of first use).
  void useCmapGrid(int type) {
    if (cmapGrid_.count(type)) return;
    const CmapTypeEntry& c = parsed_.forceField.cmapType(type);
    cmapGrid_[type] = int(out_.topology.cmapGrids.size());
    out_.topology.cmapGrids.push_back({c.size, c.energy});
  }

  const ParsedTopology& parsed_;
  GromacsTopology& out_;
  std::map<int, int> typeIndex_;  ///< force-field atom type -> index into out_.types
  std::vector<int> usedTypes_;    ///< the inverse
  std::map<int, int> cmapGrid_;   ///< [ cmaptypes ] index -> Topology::cmapGrids index
};

}  // namespace

GromacsTopology readGromacsTopology(const std::filesystem::path& top, const std::vector<std::string>& defines,
                                    const std::vector<std::filesystem::path>& includeDirs, long long coordinateAtoms,
                                    const std::string& coordinateFile) {
  GromacsTopology out;
  out.file = top;
  if (const std::string what = notATopology(top); !what.empty()) throw fileError(top.string(), 0, "this is " + what);
  const std::vector<TopLine> lines = preprocessTopology(top, defines, includeDirs, out.warnings);
  if (lines.empty())
    throw fileError(top.string(), 0, "the topology is empty: no directive in the lines read (only comments, blank lines or skipped regions)");
  const ParsedTopology parsed = parseTopology(lines, out.warnings);
  checkAtomCount(parsed, top.string(), coordinateAtoms, coordinateFile);
  out.defaults = parsed.forceField.defaults;
  out.systemName = parsed.systemName;
  out.moleculesFile = parsed.moleculesLine.file;
  out.moleculesLine = parsed.moleculesLine.line;
  Assembler(parsed, out).run();
  return out;
}

}  // namespace faraday
