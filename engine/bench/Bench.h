#pragma once
#include <string>
#include <vector>

namespace faraday {

/// `faraday bench md|pme|dcs ARGS...`: each takes the arguments after its name and
/// returns the process exit code. Implemented next to the code they measure.

/// `faraday bench md [--sizes C1,C2,..] [--steps N] [--threads T] [--dt PS]`: short MD of
/// fcc argon liquids (4 C^3 atoms each; default C = 10, 20, 40: 4k, 32k, 256k atoms) on the
/// CPU backend; prints atoms, threads, ms/step, ns/day and the phase split. Returns the
/// process exit code.
int benchMd(const std::vector<std::string>& args);
int benchPme(const std::vector<std::string>& args);
int benchDcs(const std::vector<std::string>& args);

/// Usage text of `faraday bench`.
std::string benchUsage();

}  // namespace faraday
