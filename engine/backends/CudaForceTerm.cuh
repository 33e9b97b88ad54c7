#pragma once
// One force term of a CUDA backend's step: the tiles, the bonded terms with the exclusion
// correction, PME, the all-pairs forces. A term owns its kernels' device buffers; the backend
// owns the device state, the step graph, the roll-back and the term list, and calls each term
// the same way: its box, its forces into the fixed-point force buffer (and, with energies,
// its fixed-point energy and virial sums), its energies read back, its rows of the phase
// table. A new term is its own files and one registration line (CudaBackendSetup.cu).
// CpuForceTerm.h is the CPU backend's seam of the same shape.
#if defined(FARADAY_HAVE_CUDA)
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/Box.h"
#include "engine/backends/Backend.h"
#include "engine/backends/CudaPhaseTimer.cuh"
#include "kernels/common/DeviceAtoms.h"
#include "kernels/common/WorkShare.h"

namespace faraday {

/// The device arrays of a step that a term reads and writes, by slot (null where the
/// backend has no such array).
struct CudaTermArrays {
  int n = 0;
  const double4_32a* pos = nullptr;          ///< positions (nm, double)
  const float4* posq = nullptr;              ///< wrapped float positions, w = k_C^(1/2) q
  const float4* body = nullptr;              ///< all-pairs bodies: x, y, z, mass or type
  const std::uint32_t* fractions = nullptr;  ///< PME's fixed-point fractional coordinates
  const double* charge = nullptr;            ///< e
  const int* type = nullptr;                 ///< the tile kernel's pair type
  const int* atom = nullptr;                 ///< the particle in each slot
  const int* slotOfAtom = nullptr;
  unsigned long long* force = nullptr;       ///< fixed-point forces, planes x, y, z of `stride`
  std::size_t stride = 0;
  unsigned long long* sums = nullptr;        ///< the step's fixed-point energy sums (a term's at sumsAt())
  WorkShare work;                            ///< this GPU's share of the work (all of it on one)
};

/// The step's energy sums as the backend read them back: the fixed-point sums as double (a
/// term's at its sumsAt()) and PME's own seven (energy, then xx yy zz xy xz yz).
struct CudaStepSums {
  const double* sums = nullptr;
  const double* recip = nullptr;
};

/// A timed step's marks as the terms enqueue: endRow() closes the term's next row of the phase
/// table, detail(k) records its k-th detail event.
class CudaTermMarks {
 public:
  CudaTermMarks(CudaPhaseTimer& timer, int firstRowEvent, int firstDetailEvent)
      : timer_(timer), row_(firstRowEvent), detail_(firstDetailEvent) {}
  void endRow(cudaStream_t stream) { timer_.recordInCapture(row_++, stream); }
  void detail(int k, cudaStream_t stream) { timer_.recordInCapture(detail_ + k, stream); }
  /// The next term's detail events follow this one's `count`.
  void nextTerm(int count) { detail_ += count; }
  int nextRowEvent() const { return row_; }

 private:
  CudaPhaseTimer& timer_;
  int row_, detail_;
};

class CudaForceTerm {
 public:
  virtual ~CudaForceTerm() = default;

  /// The term's rows of the phase table, each one interval, in the order its marks end them.
  virtual std::vector<const char*> phaseRows() const = 0;
  /// Rows over the term's own detail events 0 .. detailEvents() - 1 (interval k: event k to
  /// k + 1), e.g. PME's spline, spread, FFT, convolution and gather.
  virtual std::vector<CudaTimedPhase> detailRows() const { return {}; }
  virtual int detailEvents() const { return 0; }

  /// The fixed-point energy sums the term adds into; the backend lays the terms' sums end to
  /// end in registration order and gives each its first (placeSums).
  virtual int sumCount() const { return 0; }
  void placeSums(int at) { sumsAt_ = at; }
  int sumsAt() const { return sumsAt_; }

  /// Whether an untimed step runs the term on a stream of its own beside the others (their
  /// sums are integer atomics: the order does not matter), and that stream's priority.
  virtual bool besideOthers() const { return false; }
  virtual bool highPriority() const { return false; }

  /// A new box: ordered writes on `stream`, which the captured graphs read at their next launch.
  virtual void setBox(const Box& box, cudaStream_t stream) = 0;
  /// Adds the term's forces into a.force and, with `energies`, its sums at a.sums + sumsAt();
  /// `marks` (timed steps only) after each of its rows.
  virtual void enqueue(cudaStream_t stream, const CudaTermArrays& a, bool energies, CudaTermMarks* marks) = 0;
  /// Adds the term's energies and virial from the step's sums.
  virtual void addEnergies(const CudaStepSums& s, Energies& e) const = 0;

 private:
  int sumsAt_ = 0;
};

}  // namespace faraday
#endif
