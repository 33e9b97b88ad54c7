#pragma once

namespace faraday {

/// How the long-range Coulomb sum is taken: smooth PME, the plain Ewald sum (the reference,
/// CPU only), or not at all (charges ignored).
enum class ElectrostaticsMethod { Pme, Ewald, None };

}  // namespace faraday
