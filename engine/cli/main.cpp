// The `faraday` command line: run, bench, --help, --version.
#include <cstdio>
#include <exception>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include "engine/config/Config.h"
#include "core/Error.h"
#include "engine/maps/MapCommand.h"
#include "engine/run/OpenMpWaiting.h"
#include "engine/run/Rerun.h"
#include "engine/run/RunLog.h"
#include "engine/run/Simulation.h"
#include "engine/bench/Bench.h"
#include "kernels/common/Device.h"

namespace {

constexpr const char* kVersion = "0.1.0";

const char* const kUsage =
    "usage: faraday run CONFIG [--section.key=value ...] [--dry-run] [--restart FILE]\n"
    "       faraday run --help        list every configuration key with default and unit\n"
    "       faraday map CONFIG [--section.key=value ...]  average a potential map over map.trajectory\n"
    "       faraday rerun CONFIG [--section.key=value ...]  energies (and forces) of every frame of rerun.trajectory\n"
    "       faraday bench md|pme|dcs|nbody  benchmarks\n"
    "       faraday --version | --help\n";

struct RunArguments {
  std::string config;
  std::vector<std::string> overrides;
  faraday::RunOptions options;
};

RunArguments parseRunArguments(const std::vector<std::string>& args) {
  RunArguments r;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--dry-run") {
      r.options.dryRun = true;
    } else if (a == "--restart" || a.rfind("--restart=", 0) == 0) {
      if (a == "--restart" && i + 1 >= args.size()) throw faraday::Error("--restart needs a checkpoint file");
      r.options.restart = a == "--restart" ? args[++i] : a.substr(10);
    } else if (a.rfind("--", 0) == 0) {
      r.overrides.push_back(a);
      if (a.find('=') == std::string::npos && i + 1 < args.size() && args[i + 1].rfind("--", 0) != 0)
        r.overrides.push_back(args[++i]);
    } else if (r.config.empty()) {
      r.config = a;
    } else {
      throw faraday::Error("unexpected argument '" + a + "' (only one config file)");
    }
  }
  return r;
}

bool wantsHelp(const std::vector<std::string>& args) {
  for (const std::string& a : args)
    if (a == "--help" || a == "-h") {
      std::cout << kUsage << "\n" << faraday::configHelp();
      return true;
    }
  return false;
}

/// The config of `faraday COMMAND CONFIG [--key=value ...]`, its warnings printed.
faraday::Config loadCommandConfig(const RunArguments& r, const std::string& command) {
  if (r.config.empty())
    throw faraday::Error("faraday " + command + " needs a config file (see faraday " + command + " --help)");
  faraday::Config config = faraday::loadConfig(r.config, r.overrides);
  for (const std::string& warning : config.warnings) std::cerr << "faraday: warning: " << warning << "\n";
  return config;
}

int runCommand(const std::vector<std::string>& args) {
  if (wantsHelp(args)) return 0;
  const RunArguments r = parseRunArguments(args);
  const faraday::Config config = loadCommandConfig(r, "run");
  faraday::RunLog log(std::cout);
  std::string command = "faraday run";
  for (const std::string& a : args) command += " " + a;
  log.fileOnly("faraday " + std::string(kVersion) + "\nCommand line: " + command + "\nWorking folder: " +
               std::filesystem::current_path().string() + "\n");
  for (const std::string& warning : config.warnings) log.fileOnly("Warning: " + warning + "\n");
  faraday::RunResult result;
  try {
    result = faraday::runFromConfig(config, r.options, log);
  } catch (const std::exception& e) {
    log.fileOnly(std::string("faraday: error: ") + e.what() + "\n");
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

int rerunCommand(const std::vector<std::string>& args) {
  if (wantsHelp(args)) return 0;
  const RunArguments r = parseRunArguments(args);
  if (r.options.dryRun || !r.options.restart.empty())
    throw faraday::Error("faraday rerun takes neither --dry-run nor --restart");
  return faraday::rerunMain(loadCommandConfig(r, "rerun"), std::cout);
}

int benchCommand(const std::vector<std::string>& args) {
  if (args.empty() || args[0] == "--help" || args[0] == "-h") {
    std::cout << faraday::benchUsage();
    return args.empty() ? 1 : 0;
  }
  const std::vector<std::string> rest(args.begin() + 1, args.end());
  if (args[0] == "md") return faraday::benchMd(rest);
  if (args[0] == "pme") return faraday::benchPme(rest);
  if (args[0] == "dcs") return faraday::benchDcs(rest);
  if (args[0] == "nbody") return faraday::benchNbody(rest);
  std::cerr << "faraday bench: no '" << args[0] << "' benchmark in this build\n" << faraday::benchUsage();
  return 1;
}

int dispatch(const std::vector<std::string>& args) {
  if (args.empty() || args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
    std::cout << "faraday " << kVersion << ": GPU molecular dynamics with PME and potential maps\n" << kUsage;
    return args.empty() ? 1 : 0;
  }
  if (args[0] == "--version") {
    std::cout << "faraday " << kVersion << " (" << faraday::cudaDeviceDescription() << ")\n";
    return 0;
  }
  const std::vector<std::string> rest(args.begin() + 1, args.end());
  if (args[0] == "run") return runCommand(rest);
  if (args[0] == "bench") return benchCommand(rest);
  if (args[0] == "map") return faraday::mapCommand(rest);
  if (args[0] == "rerun") return rerunCommand(rest);
  throw faraday::Error("unknown command '" + args[0] + "' (expected run, rerun, map or bench; see faraday --help)");
}

}  // namespace

int main(int argc, char** argv) {
  faraday::limitOpenMpSpinning(argv);
  try {
    return dispatch(std::vector<std::string>(argv + 1, argv + argc));
  } catch (const faraday::Error& e) {
    std::cerr << "faraday: error: " << e.what() << std::endl;
  } catch (const std::exception& e) {
    std::cerr << "faraday: error: " << e.what() << std::endl;
  } catch (...) {
    std::cerr << "faraday: error: unknown failure" << std::endl;
  }
  return 1;
}
