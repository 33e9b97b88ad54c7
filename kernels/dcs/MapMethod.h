#pragma once

namespace faraday {

/// Direct: Coulomb summed over every atom. Cutoff: the cutoff-switched sum. Pme: the run's
/// full Ewald potential (real space + PME reciprocal part). PmePot: the reciprocal part alone
/// with VMD PMEpot's Ewald factor, i.e. the potential of Gaussian charges (PmeMap.h).
enum class MapMethod { Direct, Cutoff, Pme, PmePot };

/// Whether `method` is computed by smooth PME (pme or pmepot).
inline bool isPmeMethod(MapMethod method) { return method == MapMethod::Pme || method == MapMethod::PmePot; }

}  // namespace faraday
