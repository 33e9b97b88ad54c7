#pragma once
// The plain data of an exchange among several GPUs (GpuGroup::exchange), which the kernels
// that take part in one (PME split in slabs) describe without knowing the group.
#include <cstddef>

namespace faraday {

/// `count` floats at `data` (device memory of the caller's GPU) to or from rank `peer`.
struct PeerFloats {
  int peer;
  float* data;
  std::size_t count;
};

}  // namespace faraday
