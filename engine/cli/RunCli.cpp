// `faraday run CONFIG [--section.key=value ...] [--dry-run] [--restart FILE]`.
#include <exception>
#include <filesystem>
#include <iostream>

#include "engine/cli/CliArguments.h"
#include "engine/cli/Commands.h"
#include "engine/cli/RunFromConfig.h"
#include "engine/run/RunLog.h"

namespace faraday {

int runCommand(const std::vector<std::string>& args) {
  const CommandArguments a = parseCommandArguments(args);
  if (a.help) return printCommandHelp(Command::Run, kFaradayUsage);
  const Config config = loadCommandConfig(Command::Run, a);
  RunLog log(std::cout);
  std::string command = "faraday run";
  for (const std::string& arg : args) command += " " + arg;
  log.fileOnly("faraday " + std::string(kFaradayVersion) + "\nCommand line: " + command + "\nWorking folder: " +
               std::filesystem::current_path().string() + "\n");
  for (const std::string& warning : config.warnings) log.fileOnly("Warning: " + warning + "\n");
  RunResult result;
  try {
    result = runFromConfig(config, RunOptions{a.dryRun, a.restart}, log);
  } catch (const std::exception& e) {
    try {
      log.fileOnly(std::string("faraday: error: ") + e.what() + "\n");
    } catch (const std::exception&) {
      // The run log cannot be written (the error may be just that): the error itself goes on.
    }
    throw;
  }
  if (!result.interrupted) return 0;
  std::string where = "no checkpoint (output.checkpoint_file is empty)";
  if (!config.output.checkpointFile.empty())
    where = "checkpoint " + (config.output.directory / config.output.checkpointFile).string();
  const std::string interrupted = "faraday: interrupted at step " + std::to_string(result.finalStep) + ", " + where + "\n";
  log.fileOnly(interrupted);
  std::cerr << interrupted;
  return 128 + result.signal;
}

}  // namespace faraday
