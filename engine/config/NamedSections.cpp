#include "engine/config/NamedSections.h"

#include <algorithm>
#include <map>

#include "core/Error.h"
#include "engine/config/ConfigKeys.h"

namespace faraday::config {
namespace {

/// Splits "PREFIX.NAME.field" of `section`; false when `key` is not of that form.
bool splitNamedKey(const std::string& key, const NamedSectionSpec& section, std::string& name, std::string& field) {
  const std::string prefix = section.prefix;
  if (key.rfind(prefix, 0) != 0) return false;
  const std::size_t dot = key.rfind('.');
  if (dot <= prefix.size()) return false;
  name = key.substr(prefix.size(), dot - prefix.size());
  field = key.substr(dot + 1);
  return section.find(field) && !name.empty();
}

/// The keys of one named section ([atom.NA], [typed.NA-CL]), by field.
struct NamedFields {
  std::string name;
  std::map<std::string, Value> values;  ///< field -> value
  Origin firstSeen;

  /// Field `f` converted by the section's check; errors name the key.
  double required(const NamedSectionSpec& section, const char* f) const {
    const std::string key = section.prefix + name + "." + f;
    const auto it = values.find(f);
    if (it == values.end()) throw Error(firstSeen.where(key) + ": required key is missing");
    try {
      return section.find(f)->check(toDouble(it->second.text));
    } catch (const BadValue& b) {
      throw Error(it->second.origin.where(key) + ": " + b.what);
    }
  }
  /// "FILE:LINE: key 'K'" of the section's first key, for errors about the whole section.
  std::string where(const NamedSectionSpec& section) const {
    return firstSeen.where(section.prefix + name + "." + values.begin()->first);
  }
};

/// The named sections of `section`'s kind, in the order they first appear.
std::vector<NamedFields> namedFields(const std::vector<RawEntry>& entries, const NamedSectionSpec& section) {
  std::vector<NamedFields> out;
  for (const RawEntry& e : entries) {
    std::string name, field;
    if (!splitNamedKey(e.key, section, name, field)) continue;
    auto it = std::find_if(out.begin(), out.end(), [&](const NamedFields& f) { return f.name == name; });
    if (it == out.end()) it = out.insert(out.end(), NamedFields{name, {}, e.value.origin});
    it->values[field] = e.value;
  }
  return out;
}

std::string knownAtomNames(const std::vector<AtomType>& types) {
  std::string list;
  for (const AtomType& t : types) list += (list.empty() ? "" : ", ") + t.name;
  return list;
}

/// "A-B" split at the '-' that leaves two atom type names (names may hold '-' themselves).
bool splitTypePair(const std::string& name, const std::vector<AtomType>& types, std::string& a, std::string& b) {
  const auto known = [&types](const std::string& n) {
    return std::any_of(types.begin(), types.end(), [&n](const AtomType& t) { return t.name == n; });
  };
  for (std::size_t dash = name.find('-'); dash != std::string::npos; dash = name.find('-', dash + 1))
    if (known(name.substr(0, dash)) && known(name.substr(dash + 1))) {
      a = name.substr(0, dash), b = name.substr(dash + 1);
      return true;
    }
  return false;
}

}  // namespace

bool isNamedKey(const std::string& key, std::string& sectionName) {
  std::string name, field;
  for (const NamedSectionSpec* s : namedSectionSpecs())
    if (splitNamedKey(key, *s, name, field)) return sectionName = s->prefix + name, true;
  return false;
}

std::vector<AtomType> buildAtomTypes(const std::vector<RawEntry>& entries) {
  const NamedSectionSpec& atom = atomSection();
  std::vector<AtomType> types;
  for (const NamedFields& f : namedFields(entries, atom)) {
    AtomType t;
    t.name = f.name;
    t.mass = f.required(atom, "mass");
    t.charge = f.required(atom, "charge");
    t.sigma = f.required(atom, "sigma");
    t.epsilon = f.required(atom, "epsilon");
    types.push_back(t);
  }
  return types;
}

std::vector<Config::TypedPairSection> buildTypedPairs(const std::vector<RawEntry>& entries,
                                                      const std::vector<AtomType>& types) {
  const NamedSectionSpec& typed = typedSection();
  std::vector<Config::TypedPairSection> out;
  std::vector<std::string> sectionOf;
  for (const NamedFields& f : namedFields(entries, typed)) {
    Config::TypedPairSection p;
    if (!splitTypePair(f.name, types, p.a, p.b))
      throw Error(f.where(typed) + ": [typed." + f.name + "] does not name two atom types as A-B (known: " +
                  knownAtomNames(types) + ")");
    p.c1 = f.required(typed, "c1");
    p.c2 = f.required(typed, "c2");
    p.c3 = f.required(typed, "c3");
    bool duplicate = false;
    for (std::size_t k = 0; k < out.size(); ++k) {
      const auto& q = out[k];
      if (!(q.a == p.b && q.b == p.a)) continue;
      if (q.c1 != p.c1 || q.c2 != p.c2 || q.c3 != p.c3)
        throw Error(f.where(typed) + ": [typed." + f.name + "] differs from [typed." + sectionOf[k] +
                    "]: the table is symmetric, give one of them");
      duplicate = true;
    }
    if (duplicate) continue;
    out.push_back(p);
    sectionOf.push_back(f.name);
  }
  return out;
}

}  // namespace faraday::config
