#pragma once
// The positions and charges of one state where a GPU backend keeps them, so that a consumer
// on the device (the potential maps) reads them in place instead of a copy to the host.
// Plain types only: the engine's Backend interface hands it out in builds without CUDA too.

namespace faraday {

/// Device-resident per-slot arrays of the current state. Slots are a permutation of the
/// particles that may change at every neighbor-list rebuild; positions and charges are
/// permuted together, so slot s of both is one particle. Valid until the backend's next step.
struct DeviceFrame {
  int n = 0;                          ///< particles (slots)
  const double* positions = nullptr;  ///< 4 doubles per slot, 32-byte aligned: x, y, z (nm, unwrapped), unused
  const double* charges = nullptr;    ///< e per slot
  double netCharge = 0;               ///< e, the sum of the charges
  /// The cudaStream_t on which the backend writes these arrays: work enqueued on it after a
  /// step reads that step's state.
  void* stream = nullptr;

  bool valid() const { return positions != nullptr && charges != nullptr && n > 0; }
};

}  // namespace faraday
