// `faraday rerun CONFIG [--section.key=value ...]`.
#include <iostream>

#include "core/Error.h"
#include "engine/cli/CliArguments.h"
#include "engine/cli/Commands.h"
#include "engine/cli/Rerun.h"

namespace faraday {
namespace {

const char* const kRerunUsage =
    "usage: faraday rerun CONFIG [--section.key=value ...]\n"
    "  energies (and forces) of every frame of rerun.trajectory (or of system.coordinates\n"
    "  when it is empty): rerun.energy_file and output.forces_file in output.directory\n";

}  // namespace

int rerunCommand(const std::vector<std::string>& args) {
  const CommandArguments a = parseCommandArguments(args);
  if (a.help) return printCommandHelp(Command::Rerun, kRerunUsage);
  if (a.dryRun || !a.restart.empty()) throw Error("faraday rerun takes neither --dry-run nor --restart");
  return rerunMain(loadCommandConfig(Command::Rerun, a), std::cout);
}

}  // namespace faraday
