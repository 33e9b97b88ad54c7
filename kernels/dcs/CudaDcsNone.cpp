// CUDA potential maps in a build without CUDA: every entry point says so.
#if !defined(FARADAY_HAVE_CUDA)
#include "core/Error.h"
#include "kernels/dcs/CudaDcs.h"

namespace faraday {
namespace {
[[noreturn]] void noCuda() { throw Error("potential map: this build has no CUDA support"); }
}  // namespace
struct CudaMapAccumulator::Impl {};
CudaMapAccumulator::CudaMapAccumulator(const Lattice&, const MapOptions&) { noCuda(); }
CudaMapAccumulator::~CudaMapAccumulator() = default;
void CudaMapAccumulator::addFrame(const std::vector<Vec3>&, const std::vector<double>&, const Box&, Timers*) {
  noCuda();
}
void CudaMapAccumulator::addFrame(const DeviceFrame&, const Box&, Timers*) { noCuda(); }
std::vector<double> CudaMapAccumulator::sum() const { noCuda(); }
std::vector<double> CudaMapAccumulator::takeSum() { noCuda(); }
}  // namespace faraday
#endif
