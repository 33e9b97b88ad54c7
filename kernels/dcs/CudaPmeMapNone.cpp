// GPU PME potential map in a build without CUDA: every entry point says so.
#if !defined(FARADAY_HAVE_CUDA)
#include "core/Error.h"
#include "kernels/dcs/PmeMap.h"

namespace faraday {
namespace {
[[noreturn]] void noCuda() { throw Error("pme potential map: this build has no CUDA support"); }
}  // namespace
struct CudaPmeMap::Impl {};
CudaPmeMap::CudaPmeMap(const Lattice&, const MapOptions&) { noCuda(); }
CudaPmeMap::~CudaPmeMap() = default;
void CudaPmeMap::addFrame(const std::vector<Vec3>&, const std::vector<double>&, const Box&, Timers*) { noCuda(); }
void CudaPmeMap::addFrame(const DeviceFrame&, const Box&, Timers*) { noCuda(); }
std::vector<double> CudaPmeMap::sum() const { noCuda(); }
std::vector<double> CudaPmeMap::takeSum() { noCuda(); }
double CudaPmeMap::deviceMsPerFrame() const { noCuda(); }
}  // namespace faraday
#endif
