#pragma once
// CUDA potential maps (DCS). The production kernels compute the same map as the CPU
// reference in Dcs.h: float pair math (MUFU rsqrt), accumulation per lattice point in a fixed
// order, the map itself in double on the device. Host-only types here; the kernels live in
// CudaDcs.cu (direct) and CudaDcsCutoff.cu (cutoff); the benchmark's study variants in
// engine/bench/CudaDcsStudy.h.
#include <memory>
#include <vector>

#include "core/Timers.h"
#include "kernels/common/DeviceFrame.h"
#include "kernels/dcs/Dcs.h"

namespace faraday {

/// Sum of maps over frames, kept on the device in double (plus the host's overflow part
/// for the cutoff kernel). Deterministic: the same frames give the same bits.
class CudaMapAccumulator {
 public:
  CudaMapAccumulator(const Lattice& lattice, const MapOptions& options);
  ~CudaMapAccumulator();
  CudaMapAccumulator(const CudaMapAccumulator&) = delete;
  CudaMapAccumulator& operator=(const CudaMapAccumulator&) = delete;
  /// Adds the map of one frame (positions nm, charges e); box (nm) replaces options.box when periodic.
  void addFrame(const std::vector<Vec3>& positions, const std::vector<double>& charges, const Box& box,
                Timers* timers);
  /// Direct method only: adds the map of the device-resident state `frame` (a GPU backend's
  /// own arrays), packed and split on the device (one small read of the two list lengths,
  /// the only wait), ordered after the work already enqueued on frame.stream.
  void addFrame(const DeviceFrame& frame, const Box& box, Timers* timers);
  /// The sum over frames so far, kJ/(mol e), x fastest.
  std::vector<double> sum() const;
  /// sum(), then the sum restarted at zero.
  std::vector<double> takeSum();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace faraday
