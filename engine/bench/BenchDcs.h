#pragma once
#include <string>
#include <vector>

namespace faraday {

/// `faraday bench dcs [--quick]`: the DCS kernel progression of the source documents on the
/// GPU (scatter with atomics, gather, coarsened, coarsened+coalesced, cutoff binned) in
/// atom evaluations per second, the accumulation modes' accuracy against the CPU reference,
/// CPU timing for one small case, cutoff-binned vs direct for a 1M-atom system; a table last.
int benchDcs(const std::vector<std::string>& args);

}  // namespace faraday
