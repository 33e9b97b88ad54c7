#include "engine/config/DeviceList.h"

#include <algorithm>
#include <sstream>

#include "core/Error.h"

namespace faraday {

std::vector<int> parseDevices(const std::string& key, const std::string& text, int available) {
  std::vector<int> devices;
  if (text == "all") {
    for (int d = 0; d < available; ++d) devices.push_back(d);
    if (devices.empty()) throw keyError(key, "'all': no CUDA device is usable here");
    return devices;
  }
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    std::size_t used = 0;
    int d = -1;
    try {
      d = std::stoi(item, &used);
    } catch (...) {
      used = 0;
    }
    if (used == 0 || used != item.size() || d < 0)
      throw keyError(key, "'" + text + "' is not a comma-separated list of device indices or 'all'");
    if (d >= available)
      throw keyError(key, "device " + std::to_string(d) + " does not exist (" + std::to_string(available) +
                              " usable here)");
    if (std::find(devices.begin(), devices.end(), d) != devices.end())
      throw keyError(key, "device " + std::to_string(d) + " is listed twice");
    devices.push_back(d);
  }
  if (devices.empty()) throw keyError(key, "no device given");
  return devices;
}

}  // namespace faraday
