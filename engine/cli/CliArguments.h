#pragma once
// The arguments of the commands that read a config file:
// `faraday COMMAND CONFIG [--section.key=value ...]`, with --dry-run and --restart FILE where
// the command takes them, and --help.
#include <filesystem>
#include <string>
#include <vector>

#include "engine/config/Command.h"
#include "engine/config/Config.h"

namespace faraday {

struct CommandArguments {
  std::string config;                  ///< the config file ("" = none given)
  std::vector<std::string> overrides;  ///< "--section.key=value" or "--section.key", "value" tokens
  bool help = false;                   ///< --help or -h anywhere (nothing else is then read)
  bool dryRun = false;
  std::filesystem::path restart;  ///< --restart FILE (empty: none)
};

/// Reads `args`, the arguments after the command's name. Throws Error for a second config
/// file or --restart without a file.
CommandArguments parseCommandArguments(const std::vector<std::string>& args);

/// The config of `faraday COMMAND CONFIG [--key=value ...]`, its warnings printed on stderr.
/// Throws Error when no config file was given.
Config loadCommandConfig(Command command, const CommandArguments& arguments);

/// `faraday COMMAND --help`: prints `usage`, then the configuration keys the command reads,
/// on stdout; returns the exit code, 0.
int printCommandHelp(Command command, const std::string& usage);

}  // namespace faraday
