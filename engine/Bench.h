#pragma once
#include <string>
#include <vector>

namespace faraday {

/// `faraday bench md|pme|dcs ARGS...`: each takes the arguments after its name and
/// returns the process exit code. Implemented next to the code they measure.
int benchMd(const std::vector<std::string>& args);
int benchPme(const std::vector<std::string>& args);
int benchDcs(const std::vector<std::string>& args);

/// Usage text of `faraday bench`.
std::string benchUsage();

}  // namespace faraday
