#pragma once
// The commands of the `faraday` executable, each reading the arguments after its name and
// returning the process exit code; main.cpp dispatches to them.
#include <string>
#include <vector>

namespace faraday {

/// The version `faraday --version` prints and the run log records.
inline constexpr const char* kFaradayVersion = "0.1.0";

/// The usage of every command (`faraday --help`, `faraday run --help`).
inline constexpr const char* kFaradayUsage =
    "usage: faraday run CONFIG [--section.key=value ...] [--dry-run] [--restart FILE]\n"
    "       faraday run --help        list every configuration key with default and unit\n"
    "       faraday map CONFIG [--section.key=value ...] [--dry-run]  average a potential map over map.trajectory\n"
    "       faraday rerun CONFIG [--section.key=value ...]  energies (and forces) of every frame of rerun.trajectory\n"
    "       faraday bench md|pme|dcs|nbody [options]  benchmarks\n"
    "       faraday map|rerun --help  the keys the command reads; faraday bench NAME --help: its options\n"
    "       faraday --version | --help\n";

/// `faraday run CONFIG [--section.key=value ...] [--dry-run] [--restart FILE]` (RunCli.cpp).
int runCommand(const std::vector<std::string>& args);
/// `faraday rerun CONFIG [--section.key=value ...]` (RerunCli.cpp).
int rerunCommand(const std::vector<std::string>& args);
/// `faraday map CONFIG [--section.key=value ...] [--dry-run]` (MapCli.cpp).
int mapCommand(const std::vector<std::string>& args);
/// `faraday bench NAME [options]` (BenchCli.cpp).
int benchCommand(const std::vector<std::string>& args);

}  // namespace faraday
