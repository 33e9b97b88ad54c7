#pragma once
#include <string>
#include <vector>

namespace faraday {

/// True when this build has the CUDA backend compiled in.
bool builtWithCuda();
/// Number of usable CUDA devices (0 when built without CUDA or no driver/device).
int cudaDeviceCount();
/// One line describing device 0 (name, SMs, memory, compute capability), or why there is none.
std::string cudaDeviceDescription();
/// Makes `device` the calling thread's current CUDA device (what it allocates and launches
/// goes there). Throws Error when it cannot.
void useCudaDevice(int device);
/// Whether every device of `devices` can read and write every other's memory (peer access).
bool allPeersReachable(const std::vector<int>& devices);
/// Lets the calling thread's current device access `peer`'s memory (already enabled: fine).
/// Throws Error when it cannot.
void enablePeerAccess(int peer);

}  // namespace faraday
