// Energy conservation of a NaCl melt with PME electrostatics on the CPU backend: the
// total energy drift of a short NVE run after a Langevin relaxation, measured by a
// least-squares slope and bounded.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

#include "engine/Backend.h"
#include "engine/FccLattice.h"
#include "integrators/InitialVelocities.h"
#include "integrators/Integrator.h"
#include "tests/ElectrostaticsTestSupport.h"
#include "tests/Tolerances.h"

namespace faraday {
namespace {

/// Joung-Cheatham (2008) SPC/E-compatible ion parameters.
std::vector<AtomType> naclTypes() {
  return {AtomType{"NA", 22.98977, 1.0, 0.2159538, 1.4754532}, AtomType{"CL", 35.453, -1.0, 0.4830453, 0.0534924}};
}

/// Rock-salt lattice of 8 cells^3 ions expanded to the melt density 1.55 g/cm^3
/// (a = (4 x 58.443 g/mol / N_A / 1.55 g/cm^3)^(1/3) = 0.6305 nm): a hot, disordering ionic
/// system at 1300 K without the huge forces of a random start.
BuiltSystem expandedRockSalt(int cells) {
  const double a = std::cbrt(4 * 58.443 / units::kAvogadro / 1.55e-21);
  const test::Ions ions = test::rockSalt(cells, a);
  BuiltSystem b;
  b.system.types = naclTypes();
  b.system.box = ions.box;
  for (std::size_t i = 0; i < ions.positions.size(); ++i) {
    const int t = ions.charges[i] > 0 ? 0 : 1;
    b.system.type.push_back(t);
    b.system.charge.push_back(b.system.types[t].charge);
    b.system.mass.push_back(b.system.types[t].mass);
    b.system.atomName.push_back(b.system.types[t].name);
    b.system.residueName.push_back(b.system.types[t].name);
    b.system.residueId.push_back(int(i) + 1);
    b.positions.push_back(ions.positions[i]);
  }
  return b;
}

Config meltConfig(const std::string& integrator, double dt) {
  Config c;
  c.run.platform = "cpu";
  c.run.threads = 0;
  c.nonbonded.cutoff = 1.0;
  c.nonbonded.buffer = 0.1;
  c.nonbonded.ljShift = true;
  c.electrostatics.method = "pme";
  c.electrostatics.ewaldRtol = 1e-5;
  c.electrostatics.fourierSpacing = 0.12;
  c.electrostatics.pmeOrder = 4;
  c.integrator.type = integrator;
  c.integrator.dt = dt;
  c.integrator.temperature = 1300;
  c.integrator.friction = 10;
  return c;
}

TEST(PmeNve, NaClMeltEnergyDriftIsBounded) {
  const BuiltSystem melt = expandedRockSalt(5);
  const int n = int(melt.system.size());  // 1000 ions
  State state;
  state.positions = melt.positions;
  state.velocities = maxwellBoltzmannVelocities(melt.system, 1300, 7, "langevin");
  state.box = melt.system.box;
  {  // Melt at 1300 K (Langevin BAOAB, friction 10/ps, 2 fs).
    auto relax = makeBackend(meltConfig("langevin", 0.002), melt.system, nullptr);
    relax->setState(state, {});
    relax->computeForces();
    for (int s = 0; s < 150; ++s) relax->step();
    relax->getState(state);
  }
  const double dt = 0.002;  // ps
  auto nve = makeBackend(meltConfig("verlet", dt), melt.system, nullptr);
  nve->setState(state, {});
  Energies e = nve->computeForces();
  const int steps = 300;
  std::vector<double> t, total;
  double ke = nve->kineticEnergy();
  for (int s = 0; s <= steps; ++s) {
    if (s > 0) {
      e = nve->step();
      ke = nve->kineticEnergy();
    }
    t.push_back(s * dt);
    total.push_back(e.potential() + ke);
  }
  // Least-squares slope of E_total(t), kJ/mol/ps, and the RMS residual about the line.
  double mt = 0, me = 0;
  for (std::size_t i = 0; i < t.size(); ++i) { mt += t[i]; me += total[i]; }
  mt /= t.size();
  me /= t.size();
  double stt = 0, ste = 0;
  for (std::size_t i = 0; i < t.size(); ++i) { stt += (t[i] - mt) * (t[i] - mt); ste += (t[i] - mt) * (total[i] - me); }
  const double slope = ste / stt;
  double res = 0;
  for (std::size_t i = 0; i < t.size(); ++i) { const double d = total[i] - me - slope * (t[i] - mt); res += d * d; }
  res = std::sqrt(res / t.size());
  const double temperature = temperatureOf(degreesOfFreedom(melt.system, "verlet"), ke);
  const double driftPerAtom = slope / n;
  std::printf("  NaCl melt, %d ions, %d NVE steps of %.3f ps, T = %.0f K: drift %.3e kJ/mol/ps per atom, "
              "RMS fluctuation %.3e kJ/mol (kinetic %.1f kJ/mol)\n",
              n, steps, dt, temperature, driftPerAtom, res, ke);
  EXPECT_LT(std::fabs(driftPerAtom), tol::kNveDriftPerAtom);
  EXPECT_LT(res / ke, tol::kNveFluctuationOverKinetic);
}

}  // namespace
}  // namespace faraday
