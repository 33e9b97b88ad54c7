#include "kernels/nonbonded/LjTable.h"

#include <cmath>

#include "core/Error.h"

namespace faraday {

LjTable makeLjTable(const System& system, double cutoff, bool shift) {
  const std::vector<AtomType>& types = system.types;
  const Topology& top = system.topology;
  LjTable t;
  t.types = int(types.size());
  t.pairs.resize(types.size() * types.size());
  const bool fromTopology = !top.ljC6.empty();
  if (fromTopology && (top.ljC6.size() != t.pairs.size() || top.ljC12.size() != t.pairs.size()))
    throw Error("the topology's LJ table has " + std::to_string(top.ljC6.size()) + " entries for " +
                std::to_string(t.types) + " atom types");
  const double ir6 = 1.0 / std::pow(cutoff, 6);
  for (int a = 0; a < t.types; ++a)
    for (int b = 0; b < t.types; ++b) {
      const std::size_t k = std::size_t(a) * t.types + b;
      if (fromTopology) {
        LjParams<double> p{top.ljC6[k], top.ljC12[k], 0.0};
        if (shift) p.shift = p.c12 * ir6 * ir6 - p.c6 * ir6;
        t.pairs[k] = p;
      } else {
        t.pairs[k] = mixLorentzBerthelot(types[a].sigma, types[a].epsilon, types[b].sigma, types[b].epsilon, cutoff, shift);
      }
    }
  return t;
}

LjClasses ljClasses(const LjTable& table) {
  const int n = table.types;
  const auto sameRow = [&](int a, int b) {
    for (int c = 0; c < n; ++c) {
      const LjParams<double>&p = table.at(a, c), &q = table.at(b, c);
      if (p.c6 != q.c6 || p.c12 != q.c12 || p.shift != q.shift) return false;
    }
    return true;
  };
  LjClasses out;
  std::vector<int> representative;  // the first type of each class
  out.classOfType.assign(std::size_t(n), -1);
  for (int a = 0; a < n; ++a) {
    for (std::size_t k = 0; k < representative.size() && out.classOfType[a] < 0; ++k)
      if (sameRow(a, representative[k])) out.classOfType[a] = int(k);
    if (out.classOfType[a] < 0) {
      out.classOfType[a] = int(representative.size());
      representative.push_back(a);
    }
  }
  const int m = int(representative.size());
  out.table.types = m;
  out.table.pairs.resize(std::size_t(m) * m);
  for (int a = 0; a < m; ++a)
    for (int b = 0; b < m; ++b) out.table.pairs[std::size_t(a) * m + b] = table.at(representative[a], representative[b]);
  return out;
}

}  // namespace faraday
