// The `faraday` command line: dispatches to run, rerun, map and bench (Commands.h); --help,
// --version. Errors end as one line on stderr and exit code 1.
#include <exception>
#include <iostream>
#include <string>
#include <vector>

#include "core/Error.h"
#include "engine/cli/Commands.h"
#include "engine/run/OpenMpWaiting.h"
#include "kernels/common/Device.h"

namespace {

int dispatch(const std::vector<std::string>& args) {
  if (args.empty() || args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
    std::cout << "faraday " << faraday::kFaradayVersion << ": GPU molecular dynamics with PME and potential maps\n"
              << faraday::kFaradayUsage;
    return args.empty() ? 1 : 0;
  }
  if (args[0] == "--version") {
    std::cout << "faraday " << faraday::kFaradayVersion << " (" << faraday::cudaDeviceDescription() << ")\n";
    return 0;
  }
  const std::vector<std::string> rest(args.begin() + 1, args.end());
  if (args[0] == "run") return faraday::runCommand(rest);
  if (args[0] == "bench") return faraday::benchCommand(rest);
  if (args[0] == "map") return faraday::mapCommand(rest);
  if (args[0] == "rerun") return faraday::rerunCommand(rest);
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
