#pragma once
// Loading a configuration: a config file and the command-line overrides, converted by the
// key table, checked as a whole (ConfigChecks.h), into a typed Config.
#include <filesystem>
#include <string>
#include <vector>

#include "engine/config/Config.h"

namespace faraday {

/// Parses `file` (may be empty) and the `overrides` ("--key=value" or "--key value" tokens),
/// validates every value and resolves paths. Throws Error naming the file and line or key.
Config loadConfig(const std::filesystem::path& file, const std::vector<std::string>& overrides);

}  // namespace faraday
