#pragma once
// The sections whose names the user chooses: [atom.NAME] (the atom types) and [typed.A-B]
// (the typed pair force between two of them), read from the entries of a configuration.
#include <string>
#include <vector>

#include "engine/config/Config.h"
#include "engine/config/ConfigEntries.h"

namespace faraday::config {

/// Whether `key` is a field of a named section ("atom.NA.mass"); `sectionName` is then
/// "PREFIX.NAME" (e.g. "atom.NA").
bool isNamedKey(const std::string& key, std::string& sectionName);

/// The [atom.NAME] sections in the order they first appear; every field required.
/// Throws Error naming the key and where it was set.
std::vector<AtomType> buildAtomTypes(const std::vector<RawEntry>& entries);

/// The [typed.A-B] sections: c1, c2 >= 0 and c3 > 2 each required, A and B atom types of
/// `types`; A-B and B-A are one entry (given both, they must agree).
std::vector<Config::TypedPairSection> buildTypedPairs(const std::vector<RawEntry>& entries,
                                                      const std::vector<AtomType>& types);

}  // namespace faraday::config
