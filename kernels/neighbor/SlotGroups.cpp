#include "kernels/neighbor/SlotGroups.h"

namespace faraday {

SlotGroups hydrogenSlotGroups(const System& system) {
  const int n = int(system.size());
  const Topology& t = system.topology;
  std::vector<int> anchor(std::size_t(n), -1);
  std::vector<char> hydrogen(system.size());
  for (int i = 0; i < n; ++i) hydrogen[std::size_t(i)] = isHydrogen(system, std::size_t(i)) ? 1 : 0;
  const auto join = [&](int a, int b) {
    if (a < 0 || b < 0 || a >= n || b >= n || hydrogen[std::size_t(a)] == hydrogen[std::size_t(b)]) return;
    const int h = hydrogen[std::size_t(a)] ? a : b, heavy = h == a ? b : a;
    if (anchor[std::size_t(h)] < 0) anchor[std::size_t(h)] = heavy;
  };
  for (const Settle& s : t.settles) {
    join(s.oxygen, s.oxygen + 1);
    join(s.oxygen, s.oxygen + 2);
  }
  for (const HarmonicBond& b : t.bonds) join(b.i, b.j);
  for (const G96Bond& b : t.g96Bonds) join(b.i, b.j);
  for (const MorseBond& b : t.morseBonds) join(b.i, b.j);
  for (const CubicBond& b : t.cubicBonds) join(b.i, b.j);
  for (const Constraint& c : t.constraints) join(c.i, c.j);

  SlotGroups g;
  g.anchor.resize(std::size_t(n));
  g.rank.assign(std::size_t(n), 0);
  std::vector<int> members(std::size_t(n), 0);
  bool any = false;
  for (int i = 0; i < n; ++i) {
    const int a = anchor[std::size_t(i)];
    g.anchor[std::size_t(i)] = i;
    if (a < 0 || members[std::size_t(a)] == SlotGroups::kMaxRank) continue;
    g.anchor[std::size_t(i)] = a;
    g.rank[std::size_t(i)] = ++members[std::size_t(a)];
    any = true;
  }
  if (!any) return {};
  return g;
}

}  // namespace faraday
