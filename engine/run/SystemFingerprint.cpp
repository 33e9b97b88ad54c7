#include "engine/run/SystemFingerprint.h"

#include <cstdio>
#include <cstring>
#include <functional>

namespace faraday {
namespace {

/// FNV-1a over the values given, each by its bytes (no padding: fields one at a time).
struct Hash {
  std::uint64_t value = 14695981039346656037ull;
  template <typename... T>
  Hash& add(const T&... v) {
    (bytes(&v, sizeof v), ...);
    return *this;
  }
  void bytes(const void* data, std::size_t n) {
    const auto* p = static_cast<const unsigned char*>(data);
    for (std::size_t i = 0; i < n; ++i) value = (value ^ p[i]) * 1099511628211ull;
  }
};

std::uint64_t bitsOf(double x) {
  std::uint64_t b;
  std::memcpy(&b, &x, sizeof b);
  return b;
}

double doubleOf(std::uint64_t b) {
  double x;
  std::memcpy(&x, &b, sizeof x);
  return x;
}

/// One kind of item: how many `system` has, the value of item k, and its atoms (for messages).
struct SectionKind {
  const char* name;
  std::function<std::size_t(const System&)> count;
  std::function<std::uint64_t(const System&, std::size_t)> item;
  std::function<std::vector<int>(const System&, std::size_t)> atoms;
  const char* unit = nullptr;  ///< per-atom numbers stored as values ("amu", "e"); null: hashes
};

/// A section over the terms `terms(system)` of type T: hash(fields(term)), atoms(term).
template <typename T, typename Terms, typename Fields, typename Atoms>
SectionKind terms(const char* name, Terms list, Fields fields, Atoms atoms) {
  return {name, [list](const System& s) { return list(s).size(); },
          [list, fields](const System& s, std::size_t k) { return fields(list(s)[k]).value; },
          [list, atoms](const System& s, std::size_t k) { return atoms(list(s)[k]); }};
}

/// The excluded pairs p < q of the CSR lists, in order.
std::vector<std::pair<int, int>> exclusionPairs(const Topology& t) {
  std::vector<std::pair<int, int>> pairs;
  for (std::size_t p = 0; p + 1 < t.exclusionOffsets.size(); ++p)
    for (int k = t.exclusionOffsets[p]; k < t.exclusionOffsets[p + 1]; ++k)
      if (t.exclusions[std::size_t(k)] > int(p)) pairs.emplace_back(int(p), t.exclusions[std::size_t(k)]);
  return pairs;
}

std::vector<SectionKind> atomKinds() {
  const auto one = [](const System&, std::size_t k) { return std::vector<int>{int(k)}; };
  const auto atoms = [](const System& s) { return s.size(); };
  return {
      {"mass", atoms, [](const System& s, std::size_t k) { return bitsOf(s.mass[k]); }, one, "amu"},
      {"charge", atoms, [](const System& s, std::size_t k) { return bitsOf(s.charge[k]); }, one, "e"},
      {"LJ parameters", atoms,
       [](const System& s, std::size_t k) {
         const AtomType& t = s.types[std::size_t(s.type[k])];
         return Hash().add(s.type[k], t.sigma, t.epsilon).value;
       },
       one},
      {"LJ table entry", [](const System& s) { return s.topology.ljC6.size(); },
       [](const System& s, std::size_t k) { return Hash().add(s.topology.ljC6[k], s.topology.ljC12[k]).value; },
       [](const System& s, std::size_t k) {
         // The first atoms of the two types of entry k (types x types, row-major).
         const std::size_t n = s.types.size();
         std::vector<int> out(2, -1);
         for (std::size_t i = 0; i < s.size(); ++i)
           for (int e = 0; e < 2; ++e)
             if (out[std::size_t(e)] < 0 && std::size_t(s.type[i]) == (e == 0 ? k / n : k % n)) out[std::size_t(e)] = int(i);
         return out;
       }},
  };
}

std::vector<SectionKind> termKinds() {
  using V = std::vector<int>;
  const auto ij = [](const auto& x) { return V{x.i, x.j}; };
  const auto ijk = [](const auto& x) { return V{x.i, x.j, x.k}; };
  const auto ijkl = [](const auto& x) { return V{x.i, x.j, x.k, x.l}; };
  const auto torsion = [](const PeriodicTorsion& x) { return Hash().add(x.i, x.j, x.k, x.l, x.phi0, x.kPhi, x.n); };
  const auto top = [](auto member) { return [member](const System& s) -> const auto& { return s.topology.*member; }; };
  return {
      terms<HarmonicBond>("harmonic bond", top(&Topology::bonds), [](const auto& x) { return Hash().add(x.i, x.j, x.b0, x.kb); }, ij),
      terms<G96Bond>("G96 bond", top(&Topology::g96Bonds), [](const auto& x) { return Hash().add(x.i, x.j, x.b0, x.kb); }, ij),
      terms<MorseBond>("Morse bond", top(&Topology::morseBonds),
                       [](const auto& x) { return Hash().add(x.i, x.j, x.b0, x.D, x.beta); }, ij),
      terms<CubicBond>("cubic bond", top(&Topology::cubicBonds),
                       [](const auto& x) { return Hash().add(x.i, x.j, x.b0, x.kb, x.kcub); }, ij),
      terms<HarmonicAngle>("angle", top(&Topology::angles),
                           [](const auto& x) { return Hash().add(x.i, x.j, x.k, x.theta0, x.kTheta); }, ijk),
      terms<G96Angle>("G96 angle", top(&Topology::g96Angles),
                      [](const auto& x) { return Hash().add(x.i, x.j, x.k, x.theta0, x.kTheta); }, ijk),
      terms<UreyBradleyAngle>("Urey-Bradley angle", top(&Topology::ureyBradleys),
                              [](const auto& x) { return Hash().add(x.i, x.j, x.k, x.theta0, x.kTheta, x.r13, x.kUB); }, ijk),
      terms<PeriodicTorsion>("proper dihedral", top(&Topology::properDihedrals), torsion, ijkl),
      terms<PeriodicTorsion>("periodic improper dihedral", top(&Topology::periodicImpropers), torsion, ijkl),
      terms<RbTorsion>("Ryckaert-Bellemans dihedral", top(&Topology::rbDihedrals),
                       [](const auto& x) { return Hash().add(x.i, x.j, x.k, x.l, x.c); }, ijkl),
      terms<HarmonicImproper>("harmonic improper dihedral", top(&Topology::impropers),
                              [](const auto& x) { return Hash().add(x.i, x.j, x.k, x.l, x.xi0, x.kXi); }, ijkl),
      terms<CmapTorsion>("CMAP term", top(&Topology::cmaps),
                         [](const auto& x) { return Hash().add(x.i, x.j, x.k, x.l, x.m, x.grid); },
                         [](const auto& x) { return V{x.i, x.j, x.k, x.l, x.m}; }),
      terms<CmapGrid>("CMAP grid", top(&Topology::cmapGrids),
                      [](const auto& x) {
                        Hash h;
                        h.add(x.size);
                        h.bytes(x.energy.data(), x.energy.size() * sizeof(double));
                        return h;
                      },
                      [](const auto&) { return V{}; }),
      terms<Pair14>("1-4 pair", top(&Topology::pairs14), [](const auto& x) { return Hash().add(x.i, x.j, x.c6, x.c12, x.qq); }, ij),
      terms<PositionRestraint>("position restraint", top(&Topology::positionRestraints),
                               [](const auto& x) { return Hash().add(x.i, x.ref.x, x.ref.y, x.ref.z, x.k.x, x.k.y, x.k.z); },
                               [](const auto& x) { return V{x.i}; }),
      terms<Constraint>("constraint", top(&Topology::constraints), [](const auto& x) { return Hash().add(x.i, x.j, x.length); }, ij),
      terms<Settle>("settle (rigid water)", top(&Topology::settles),
                    [](const auto& x) { return Hash().add(x.oxygen, x.dOH, x.dHH); },
                    [](const auto& x) { return V{x.oxygen, x.oxygen + 1, x.oxygen + 2}; }),
      {"virtual site", [](const System& s) { return s.topology.virtualSites.size(); },
       [](const System& s, std::size_t k) {
         const VirtualSites& v = s.topology.virtualSites;
         const VirtualSite& x = v.sites[k];
         Hash h;
         h.add(x.site, int(x.type), x.p[0], x.p[1], x.p[2]);
         for (int q = x.first; q < x.first + x.count; ++q) h.add(v.atoms[std::size_t(q)], v.weights[std::size_t(q)]);
         return h.value;
       },
       [](const System& s, std::size_t k) {
         const VirtualSites& v = s.topology.virtualSites;
         const VirtualSite& x = v.sites[k];
         V atoms{x.site};
         atoms.insert(atoms.end(), v.atoms.begin() + x.first, v.atoms.begin() + x.first + x.count);
         return atoms;
       }},
      {"exclusion", [](const System& s) { return exclusionPairs(s.topology).size(); },
       [](const System& s, std::size_t k) {
         const auto p = exclusionPairs(s.topology)[k];
         return Hash().add(p.first, p.second).value;
       },
       [](const System& s, std::size_t k) {
         const auto p = exclusionPairs(s.topology)[k];
         return V{p.first, p.second};
       }},
  };
}

std::vector<SectionKind> allKinds() {
  std::vector<SectionKind> kinds = atomKinds();
  for (SectionKind& k : termKinds()) kinds.push_back(std::move(k));
  return kinds;
}

/// "atom 5 (OW, 0-based)" or "atoms 5 (OW) and 6 (HW1), 0-based".
std::string atomList(const System& system, const std::vector<int>& atoms) {
  const auto name = [&system](int i) {
    return i >= 0 && std::size_t(i) < system.atomName.size() ? system.atomName[std::size_t(i)] : std::string("?");
  };
  if (atoms.size() == 1) return "atom " + std::to_string(atoms[0]) + " (" + name(atoms[0]) + ", 0-based)";
  std::string out = "atoms ";
  for (std::size_t a = 0; a < atoms.size(); ++a) {
    if (a > 0) out += a + 1 == atoms.size() ? " and " : ", ";
    out += std::to_string(atoms[a]) + " (" + name(atoms[a]) + ")";
  }
  return out + ", 0-based";
}

}  // namespace

SystemFingerprint systemFingerprint(const System& system) {
  SystemFingerprint f;
  for (const SectionKind& kind : allKinds()) {
    FingerprintSection s{kind.name, {}};
    const std::size_t n = kind.count(system);
    s.items.reserve(n);
    if (std::string(kind.name) == "exclusion") {  // the pairs once, not once per item
      for (const auto& [p, q] : exclusionPairs(system.topology)) s.items.push_back(Hash().add(p, q).value);
    } else {
      for (std::size_t k = 0; k < n; ++k) s.items.push_back(kind.item(system, k));
    }
    f.push_back(std::move(s));
  }
  return f;
}

std::string fingerprintDifference(const SystemFingerprint& saved, const SystemFingerprint& current,
                                  const System& system) {
  const std::vector<SectionKind> kinds = allKinds();
  for (const FingerprintSection& now : current) {
    const FingerprintSection* then = nullptr;
    for (const FingerprintSection& s : saved)
      if (s.name == now.name) then = &s;
    const std::size_t before = then ? then->items.size() : 0;
    if (before != now.items.size())
      return "the checkpoint's system has " + std::to_string(before) + " " + now.name + " item(s), this one " +
             std::to_string(now.items.size());
    for (std::size_t k = 0; k < before; ++k) {
      if (then->items[k] == now.items[k]) continue;
      const SectionKind* kind = nullptr;
      for (const SectionKind& c : kinds)
        if (now.name == c.name) kind = &c;
      const std::string where = kind ? atomList(system, kind->atoms(system, k)) : "item " + std::to_string(k);
      if (kind && kind->unit) {
        char text[256];
        std::snprintf(text, sizeof text, "the %s of %s is %.10g %s in the checkpoint, %.10g %s now", now.name.c_str(),
                      where.c_str(), doubleOf(then->items[k]), kind->unit, doubleOf(now.items[k]), kind->unit);
        return text;
      }
      return "the " + now.name + " of " + where + " (" + now.name + " " + std::to_string(k) +
             " of the system) differs from the checkpoint's: other atoms or parameters";
    }
  }
  return "";
}

}  // namespace faraday
