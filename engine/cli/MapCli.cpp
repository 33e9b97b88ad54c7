// `faraday map CONFIG [--section.key=value ...] [--dry-run]`.
#include <iostream>

#include "core/Error.h"
#include "engine/cli/CliArguments.h"
#include "engine/cli/Commands.h"
#include "engine/maps/MapCommand.h"

namespace faraday {
namespace {

const char* const kMapUsage =
    "usage: faraday map CONFIG [--section.key=value ...] [--dry-run]\n"
    "  averages the potential map over map.trajectory and writes map.file; --dry-run checks\n"
    "  the configuration and the inputs and prints the settings, writing nothing\n";

}  // namespace

int mapCommand(const std::vector<std::string>& args) {
  const CommandArguments a = parseCommandArguments(args);
  if (a.help) return printCommandHelp(Command::Map, kMapUsage);
  if (!a.restart.empty()) throw Error("faraday map takes no --restart");
  const Config config = loadCommandConfig(Command::Map, a);
  if (a.dryRun) {
    mapDryRun(config, std::cout);
    return 0;
  }
  return mapMain(config);
}

}  // namespace faraday
