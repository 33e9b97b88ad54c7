#pragma once
// The message for a key that is not in the table, with the closest valid key as a
// suggestion ("did you mean ...?").
#include <set>
#include <string>
#include <vector>

namespace faraday::config {

/// "unknown key 'K'; did you mean 'KEY'?" when a key of the table, or a field of one of the
/// named sections in `sectionNames` ("atom.NA", "typed.NA-CL"), is close enough to `key`;
/// else "unknown key 'K' (see 'faraday run --help' for the list of keys)".
std::string unknownKeyMessage(const std::string& key, const std::set<std::string>& sectionNames);

/// The word of `candidates` closest to `word` (fewest insertions, deletions and
/// substitutions) when it is close enough to suggest (at most max(3, size / 3) edits); empty
/// when none is.
std::string closestWord(const std::string& word, const std::vector<std::string>& candidates);

}  // namespace faraday::config
