#pragma once
#include <string>
#include <vector>

namespace faraday {

/// `faraday bench md|pme|dcs|nbody ARGS...`: each takes the arguments after its name, parses them
/// with the shared BenchOptions (`--help` lists every option with its default and unit),
/// prints a table and writes the same rows to a CSV file (--csv), and returns the process
/// exit code. md: CPU MD throughput on fcc argon liquids; pme: every PME phase, CPU vs GPU
/// (BenchPme.h); dcs: the potential-map kernels (BenchDcs.h); nbody: all-pairs gravity,
/// triangular tiles vs the one-sided kernel vs the CPU loop.
int benchMd(const std::vector<std::string>& args);
int benchPme(const std::vector<std::string>& args);
int benchDcs(const std::vector<std::string>& args);
int benchNbody(const std::vector<std::string>& args);

/// Usage text of `faraday bench`.
std::string benchUsage();

}  // namespace faraday
