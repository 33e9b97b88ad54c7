#include "engine/cli/CliArguments.h"

#include <iostream>

#include "core/Error.h"
#include "engine/config/ConfigHelp.h"
#include "engine/config/LoadConfig.h"

namespace faraday {

CommandArguments parseCommandArguments(const std::vector<std::string>& args) {
  CommandArguments r;
  for (const std::string& a : args)
    if (a == "--help" || a == "-h") return r.help = true, r;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--dry-run") {
      r.dryRun = true;
    } else if (a == "--restart" || a.rfind("--restart=", 0) == 0) {
      if (a == "--restart" && i + 1 >= args.size()) throw Error("--restart needs a checkpoint file");
      r.restart = a == "--restart" ? args[++i] : a.substr(10);
    } else if (a.rfind("--", 0) == 0) {
      r.overrides.push_back(a);
      if (a.find('=') == std::string::npos && i + 1 < args.size() && args[i + 1].rfind("--", 0) != 0)
        r.overrides.push_back(args[++i]);
    } else if (r.config.empty()) {
      r.config = a;
    } else {
      throw Error("unexpected argument '" + a + "' (only one config file)");
    }
  }
  return r;
}

Config loadCommandConfig(Command command, const CommandArguments& arguments) {
  const std::string name = commandName(command);
  if (arguments.config.empty())
    throw Error("faraday " + name + " needs a config file (see faraday " + name + " --help)");
  Config config = loadConfig(arguments.config, arguments.overrides);
  for (const std::string& warning : config.warnings) std::cerr << "faraday: warning: " << warning << "\n";
  return config;
}

int printCommandHelp(Command command, const std::string& usage) {
  std::cout << usage << "\n" << configHelp(command);
  return 0;
}

}  // namespace faraday
