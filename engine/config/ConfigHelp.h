#pragma once
// What each command reads, from the key table: the key list of `faraday COMMAND --help`
// and the settings a dry run prints.
#include <string>
#include <utility>
#include <vector>

#include "engine/config/Command.h"
#include "engine/config/Config.h"

namespace faraday {

/// The configuration keys `command` reads, section by section, each with its default, unit
/// and description. Command::Run lists every key: it is the list unknown-key messages
/// point to.
std::string configHelp(Command command = Command::Run);

/// KEY = VALUE of every key `command` reads, as `config` holds them, in --help order; the
/// named sections' fields by name ("atom.NA.mass").
std::vector<std::pair<std::string, std::string>> settingsReadBy(const Config& config, Command command);

/// One line of a --help table, in the columns every command's help uses:
/// "  NAME  default DEFAULT  UNIT  DESCRIPTION".
std::string helpLine(const std::string& name, const std::string& defaultText, const std::string& unit,
                     const std::string& description);

}  // namespace faraday
