#include "engine/backends/Backend.h"

#include "core/Error.h"

namespace faraday {

Energies Backend::scaleVolume(const Box&) {
  throw Error("the " + name() + " backend has no periodic box to scale (the barostat needs nonbonded.mode = cutoff)");
}

void Backend::finishVolumeMove(bool) { throw Error("finishVolumeMove() without scaleVolume()"); }

}  // namespace faraday
