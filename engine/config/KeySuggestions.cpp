#include "engine/config/KeySuggestions.h"

#include <algorithm>
#include <vector>

#include "engine/config/ConfigKeys.h"

namespace faraday::config {
namespace {

/// Levenshtein distance: the fewest insertions, deletions and substitutions from a to b.
std::size_t editDistance(const std::string& a, const std::string& b) {
  std::vector<std::size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t sub = prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, sub});
    }
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

/// Every fixed key, and every key of the named sections seen ("atom.NA", "typed.NA-CL").
std::vector<std::string> validKeys(const std::set<std::string>& sectionNames) {
  std::vector<std::string> keys;
  for (const KeySpec* k : allKeys()) keys.push_back(k->key);
  for (const std::string& name : sectionNames)
    for (const NamedSectionSpec* s : namedSectionSpecs())
      if (name.rfind(s->prefix, 0) == 0)
        for (const NamedFieldSpec& f : s->fields) keys.push_back(name + "." + f.field);
  return keys;
}

}  // namespace

std::string closestWord(const std::string& word, const std::vector<std::string>& candidates) {
  std::string best;
  std::size_t bestDistance = std::string::npos;
  for (const std::string& k : candidates) {
    const std::size_t d = editDistance(word, k);
    if (d < bestDistance) bestDistance = d, best = k;
  }
  return !best.empty() && bestDistance <= std::max<std::size_t>(3, word.size() / 3) ? best : std::string();
}

std::string unknownKeyMessage(const std::string& key, const std::set<std::string>& sectionNames) {
  const std::string best = closestWord(key, validKeys(sectionNames));
  std::string msg = "unknown key '" + key + "'";
  if (!best.empty())
    msg += "; did you mean '" + best + "'?";
  else
    msg += " (see 'faraday run --help' for the list of keys)";
  return msg;
}

}  // namespace faraday::config
