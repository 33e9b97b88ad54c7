// GPU PME potential map in a build without CUDA: every entry point says so.
#if !defined(FARADAY_HAVE_CUDA)
#include "engine/Error.h"
#include "kernels/dcs/PmeMap.h"

namespace faraday {
struct CudaPmeMap::Impl {};
CudaPmeMap::CudaPmeMap(const Lattice&, const MapOptions&) {
  throw Error("pme potential map: this build has no CUDA support");
}
CudaPmeMap::~CudaPmeMap() = default;
void CudaPmeMap::addFrame(const std::vector<Vec3>&, const std::vector<double>&, const Box&, Timers*) {
  throw Error("pme potential map: this build has no CUDA support");
}
std::vector<double> CudaPmeMap::sum() const { throw Error("pme potential map: this build has no CUDA support"); }
}  // namespace faraday
#endif
