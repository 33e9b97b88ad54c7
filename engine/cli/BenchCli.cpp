// `faraday bench md|pme|dcs|nbody [options]`.
#include <iostream>

#include "engine/bench/Bench.h"
#include "engine/cli/Commands.h"

namespace faraday {

int benchCommand(const std::vector<std::string>& args) {
  if (args.empty() || args[0] == "--help" || args[0] == "-h") {
    std::cout << benchUsage();
    return args.empty() ? 1 : 0;
  }
  const std::vector<std::string> rest(args.begin() + 1, args.end());
  if (args[0] == "md") return benchMd(rest);
  if (args[0] == "pme") return benchPme(rest);
  if (args[0] == "dcs") return benchDcs(rest);
  if (args[0] == "nbody") return benchNbody(rest);
  std::cerr << "faraday bench: no '" << args[0] << "' benchmark in this build\n" << benchUsage();
  return 1;
}

}  // namespace faraday
