#pragma once
// A list of GPUs as the configuration (run.devices) and the bench options give it.
#include <string>
#include <vector>

namespace faraday {

/// "0,1,3" -> {0, 1, 3}: distinct device indices below `available`; "all" -> every device.
/// Throws Error naming `key` otherwise.
std::vector<int> parseDevices(const std::string& key, const std::string& text, int available);

}  // namespace faraday
