#pragma once
// The long-range electrostatics parameters, as the [electrostatics] configuration keys give
// them; chooseEwaldSetup (Electrostatics.h) turns them into the Ewald split and PME grid.
#include <array>
#include <string>

namespace faraday {

struct ElectrostaticsParams {
  std::string method = "pme";        ///< electrostatics.method: pme | ewald | none
  double ewaldRtol = 1e-5;           ///< electrostatics.ewald_rtol: erfc(beta rc) = rtol
  double fourierSpacing = 0.12;      ///< electrostatics.fourier_spacing, nm (0 = auto: from ewald_rtol and pme_order)
  int pmeOrder = 4;                  ///< electrostatics.pme_order: 4..8
  std::array<int, 3> grid{0, 0, 0};  ///< electrostatics.grid: "NX NY NZ", 0 0 0 = from spacing
  double ewaldKspaceRtol = 0;        ///< electrostatics.ewald_kspace_rtol: plain Ewald k cut (0 = auto: converged)
  /// electrostatics.accept_force_error: run with an estimated PME force error beyond the bound
  /// (a warning instead of the error; engine/config/KernelParams.h, checkPmeAccuracy)
  bool acceptForceError = false;
};

}  // namespace faraday
