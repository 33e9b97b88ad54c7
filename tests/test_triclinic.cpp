// Triclinic cells against the rectangular supercells that hold whole copies of them: a
// rhombic dodecahedron (2 copies) and a truncated octahedron (18 copies), the boxes of
// `gmx editconf -bt dodecahedron | octahedron`. The supercell is the same periodic system,
// so its energies are the cell's times the number of copies and every copy of an atom
// feels the cell's force. Checked on the Ewald reference, on PME (against Ewald in the
// cell), on PME in slabs, on the backends' pair list and pair forces, and by an NVE run.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "engine/backends/Backend.h"
#include "engine/backends/BackendFactory.h"
#include "engine/setup/FccLattice.h"
#include "integrators/BoxScaling.h"
#include "integrators/InitialVelocities.h"
#include "kernels/nonbonded/CpuNonbonded.h"
#include "kernels/pme/CpuPme.h"
#include "kernels/pme/Ewald.h"
#include "kernels/pme/SlabPme.h"
#include "tests/BackendTestSystems.h"
#include "tests/ElectrostaticsTestSupport.h"
#include "tests/Tolerances.h"
#include "tests/TriclinicCells.h"

namespace faraday {
namespace {

using test::CellCase;
using test::cellCases;
using test::dodecahedron;
using test::ionsIn;
using test::supercellOf;

/// Largest |F_copy - F_cell| over every copy, relative to the RMS cell force.
double copyForceError(const std::vector<Vec3>& cell, const std::vector<Vec3>& super) {
  const std::size_t n = cell.size();
  double worst = 0;
  for (std::size_t m = 0; m < super.size() / n; ++m)
    for (std::size_t i = 0; i < n; ++i) worst = std::max(worst, std::sqrt(norm2(super[m * n + i] - cell[i])));
  return worst / test::rms(cell);
}

/// Largest component difference over the largest |W_ab| of `expected`, or over its
/// Frobenius norm.
double tensorError(const Tensor3& got, const Tensor3& expected, bool frobenius = false) {
  double worst = 0, scale = 0, norm = 0;
  for (int a = 0; a < 3; ++a)
    for (int b = 0; b < 3; ++b) {
      worst = std::max(worst, std::fabs(got.m[a][b] - expected.m[a][b]));
      scale = std::max(scale, std::fabs(expected.m[a][b]));
      norm += expected.m[a][b] * expected.m[a][b];
    }
  return worst / (frobenius ? std::sqrt(norm) : scale);
}

TEST(TriclinicCell, CasesAreReducedAndFillTheirSupercells) {
  for (const CellCase& c : cellCases()) {
    EXPECT_TRUE(c.cell.isReducedForm()) << c.name;
    EXPECT_FALSE(c.cell.isRectangular()) << c.name;
    EXPECT_NEAR(c.supercell.volume(), double(c.images.size()) * c.cell.volume(), tol::kDoubleSum * c.supercell.volume())
        << c.name;
    // Distinct images: no two differ by a supercell lattice vector.
    for (std::size_t i = 0; i < c.images.size(); ++i)
      for (std::size_t j = 0; j < i; ++j)
        EXPECT_GT(norm2(c.supercell.minimumImage(c.images[i] - c.images[j])), 1e-6) << c.name << " " << i << " " << j;
    // The shortest image distance of both shapes is d, the length of a.
    EXPECT_NEAR(c.cell.shortestImageDistance(), c.cell.a.x, tol::kDoubleSum * c.cell.a.x) << c.name;
  }
}

/// Every ion's minimum image in the cell is the shortest of its periodic images.
TEST(TriclinicCell, MinimumImageIsTheShortestImageWithinTheCutoffRange) {
  for (const CellCase& c : cellCases()) {
    std::mt19937_64 rng(5);
    std::uniform_real_distribution<double> u(-2.0, 2.0);
    const double reach = c.cell.maxCutoff();
    for (int t = 0; t < 20000; ++t) {
      const Vec3 d = c.cell.fromFractional(Vec3{u(rng), u(rng), u(rng)});
      const Vec3 m = c.cell.minimumImage(d);
      double shortest = 1e300;
      for (int i = -3; i <= 3; ++i)
        for (int j = -3; j <= 3; ++j)
          for (int k = -3; k <= 3; ++k)
            shortest = std::min(shortest, norm2(d + c.cell.a * double(i) + c.cell.b * double(j) + c.cell.c * double(k)));
      // Within the cutoff range the image found is the shortest one.
      if (shortest < reach * reach) ASSERT_NEAR(norm2(m), shortest, tol::kDoubleSum * reach * reach) << c.name;
      // It is always a lattice translate of d.
      const Vec3 f = c.cell.fractional(m - d);
      for (int a = 0; a < 3; ++a) ASSERT_NEAR(f[a], std::nearbyint(f[a]), 1e-9) << c.name;
    }
  }
}

/// Exact Ewald (real space by the direct minimum-image loop, k space by EwaldSum) in the

/// nearestImage is the shortest image at every distance (the brick image only within the
/// cutoff range), in the test cells and in boxes of the reduced form's extreme tilts.
TEST(TriclinicCell, NearestImageIsTheShortestImageAtAnyDistance) {
  std::vector<Box> boxes;
  for (const CellCase& c : cellCases()) boxes.push_back(c.cell);
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> tilt(-0.5, 0.5), edge(2.0, 4.0);
  for (int t = 0; t < 40; ++t) {
    const double ax = edge(rng), by = edge(rng), cz = edge(rng);
    const Box b = Box::fromVectors({ax, 0, 0}, {tilt(rng) * ax, by, 0}, {tilt(rng) * ax, tilt(rng) * by, cz});
    ASSERT_TRUE(b.isReducedForm());
    boxes.push_back(b);
  }
  int beyondBrick = 0;
  for (const Box& box : boxes) {
    std::uniform_real_distribution<double> u(-2.0, 2.0);
    for (int t = 0; t < 2000; ++t) {
      const Vec3 d = box.fromFractional(Vec3{u(rng), u(rng), u(rng)});
      const Vec3 n = box.nearestImage(d);
      double shortest = 1e300;
      for (int i = -4; i <= 4; ++i)
        for (int j = -4; j <= 4; ++j)
          for (int k = -4; k <= 4; ++k)
            shortest = std::min(shortest, norm2(d + box.a * double(i) + box.b * double(j) + box.c * double(k)));
      ASSERT_NEAR(norm2(n), shortest, tol::kDoubleSum * norm2(box.diagonal()));
      const Vec3 f = box.fractional(n - d);
      for (int a = 0; a < 3; ++a) ASSERT_NEAR(f[a], std::nearbyint(f[a]), 1e-9);
      if (norm2(box.minimumImage(d)) > shortest * (1 + 1e-9)) ++beyondBrick;
    }
  }
  // The cases where the brick image is not the nearest are there to be found.
  EXPECT_GT(beyondBrick, 100);
}
/// cell is its share of the supercell's: energy, virial and forces.
TEST(TriclinicEwald, CellIsItsShareOfTheSupercell) {
  for (const CellCase& c : cellCases()) {
    const test::Ions cell = ionsIn(c.cell, 60, 3);
    const test::Ions super = supercellOf(cell, c);
    const double rc = 1.0, beta = ewaldBetaFromRtol(rc, 1e-10);
    EwaldSum ewald(beta, 1e-13, 0);
    const test::Electrostatics ec = test::totalElectrostatics(cell, ewald, beta, rc);
    const test::Electrostatics es = test::totalElectrostatics(super, ewald, beta, rc);
    const double copies = double(c.images.size());
    std::printf("[ info ] %s: E_cell %.10g, E_super / copies %.10g kJ/mol; recip %.10g, %.10g\n", c.name.c_str(),
                ec.energy, es.energy / copies, ec.recip, es.recip / copies);
    EXPECT_NEAR(es.energy / copies, ec.energy, tol::kDoubleSum * std::fabs(ec.energy)) << c.name;
    EXPECT_NEAR(es.recip / copies, ec.recip, tol::kDoubleSum * std::fabs(ec.energy)) << c.name;
    Tensor3 scaled = es.virial;
    for (auto& row : scaled.m)
      for (double& w : row) w /= copies;
    EXPECT_LT(tensorError(scaled, ec.virial), tol::kDoubleSum) << c.name;
    EXPECT_LT(copyForceError(ec.forces, es.forces), tol::kDoubleSum) << c.name;
  }
}

/// PME at tight settings in the cell agrees with Ewald in the cell (order 8, grid spacing
/// 0.15 / beta along each cell vector, as CpuPme.MatchesEwaldAtTightSettings): the
/// fractional coordinates through the reciprocal box,
/// the influence function of the cell and the gather's tilt terms. Then PME split in slabs
/// equals PME in one piece.
TEST(TriclinicPme, MatchesEwaldInTheCellAndSlabsMatchOnePiece) {
  for (const CellCase& c : cellCases()) {
    const test::Ions cell = ionsIn(c.cell, 200, 4);
    const double rc = 1.0, beta = ewaldBetaFromRtol(rc, 1e-6);
    EwaldSum ewald(beta, 1e-13, 0);
    PmeParams p;
    p.beta = beta;
    p.order = 8;
    const Vec3 lengths = c.cell.edgeLengths();
    for (int d = 0; d < 3; ++d) p.grid[d] = nextFftSize(int(std::ceil(lengths[d] * beta / 0.15)));
    CpuPme pme(p, 0);
    std::vector<Vec3> fe(cell.positions.size()), fp(cell.positions.size());
    const ReciprocalResult re = ewald.compute(cell.positions, cell.charges, cell.box, fe, nullptr);
    const ReciprocalResult rp = pme.compute(cell.positions, cell.charges, cell.box, fp, nullptr);
    const double fError = test::relativeRmsDifference(fp, fe, fe);
    std::printf("[ info ] %s: PME %.10g, Ewald %.10g kJ/mol, forces rel RMS %.2e\n", c.name.c_str(), rp.energy,
                re.energy, fError);
    EXPECT_NEAR(rp.energy, re.energy, tol::kPmeTightVsEwald * std::fabs(re.energy)) << c.name;
    EXPECT_LT(fError, tol::kPmeTightVsEwald) << c.name;
    EXPECT_LT(tensorError(rp.virial, re.virial, true), tol::kPmeTightVsEwald) << c.name;
    for (int ranks : {2, 3}) {
      std::vector<Vec3> fs(cell.positions.size());
      const ReciprocalResult rs = slabPme(p, ranks, cell.positions, cell.charges, cell.box, fs, SlabCut::planes);
      EXPECT_NEAR(rs.energy, rp.energy, tol::kDoubleSum * std::fabs(rp.energy)) << c.name << " " << ranks;
      EXPECT_LT(tensorError(rs.virial, rp.virial), tol::kDoubleSum) << c.name << " " << ranks;
      EXPECT_LT(test::relativeRmsDifference(fs, fp, fp), tol::kDoubleSum) << c.name << " " << ranks;
    }
  }
}

/// The barostat's move in a cell: isotropic scaling keeps the shape, and molecules split by
/// the cell's faces (a 300-atom chain spanning it, and waters) move whole, their centres
/// scaled.
TEST(TriclinicBoxScaling, MoleculesStayWholeAndTheShapeIsKept) {
  for (const CellCase& c : cellCases()) {
    std::mt19937_64 rng(3);
    std::uniform_real_distribution<double> unit(-1, 1), uniform(0, 1);
    std::vector<Vec3> x;
    std::vector<int> starts = {0};
    Vec3 at = c.cell.fromFractional({0.5, 0.5, 0.5});
    for (int k = 0; k < 300; ++k) {
      const Vec3 d{unit(rng), unit(rng), unit(rng)};
      at = at + (0.15 / std::sqrt(norm2(d))) * d;
      x.push_back(at);
    }
    starts.push_back(int(x.size()));
    for (int w = 0; w < 200; ++w) {
      const Vec3 o = c.cell.fromFractional({uniform(rng), uniform(rng), uniform(rng)});
      x.insert(x.end(), {o, o + Vec3{0.1, 0, 0}, o + Vec3{0, 0.03, 0.09}});
      starts.push_back(int(x.size()));
    }
    const std::vector<Vec3> whole = x;
    for (Vec3& p : x) p = c.cell.wrap(p);
    std::vector<double> mass(x.size());
    for (std::size_t i = 0; i < x.size(); ++i) mass[i] = 1 + double(i % 5);
    const double s = 1.03;
    const Box to = c.cell.scaled(s);
    EXPECT_NEAR(to.angles().x, c.cell.angles().x, 1e-9) << c.name;
    EXPECT_NEAR(to.angles().y, c.cell.angles().y, 1e-9) << c.name;
    EXPECT_NEAR(to.angles().z, c.cell.angles().z, 1e-9) << c.name;
    EXPECT_TRUE(to.isReducedForm()) << c.name;
    std::vector<Vec3> scaled = x;
    scaleMolecules(scaled, mass, starts, boxScaling(c.cell, to));
    double worst = 0, worstCentre = 0;
    for (std::size_t m = 0; m + 1 < starts.size(); ++m) {
      Vec3 before{}, after{};
      double total = 0;
      for (int i = starts[m]; i < starts[m + 1]; ++i) {
        const std::size_t k = std::size_t(i), first = std::size_t(starts[m]);
        worst = std::max(worst, std::fabs(std::sqrt(norm2(scaled[k] - scaled[first])) -
                                          std::sqrt(norm2(whole[k] - whole[first]))));
        before = before + mass[k] * (x[first] + (whole[k] - whole[first]));
        after = after + mass[k] * scaled[k];
        total += mass[k];
      }
      worstCentre = std::max(worstCentre, std::sqrt(norm2((1.0 / total) * after - (s / total) * before)));
    }
    EXPECT_LT(worst, tol::kRigidMoleculeDistanceNm) << c.name;
    EXPECT_LT(worstCentre, tol::kRigidMoleculeDistanceNm) << c.name;
  }
}

/// Sodium and chloride in `ions`' box, as a backend system.
BuiltSystem ionSystem(const test::Ions& ions) {
  BuiltSystem b;
  b.system.types = {sodiumType(), chlorideType()};
  b.system.box = ions.box;
  for (std::size_t i = 0; i < ions.positions.size(); ++i) test::addParticle(b, ions.charges[i] > 0 ? 0 : 1, ions.positions[i]);
  return b;
}

Config ionConfig(const std::string& platform, ElectrostaticsMethod method) {
  Config c;
  c.run.platform = test::choiceNamed<Platform>(platform);
  c.run.threads = 1;
  c.nonbonded.cutoff = 1.0;
  c.nonbonded.buffer = 0.1;
  c.nonbonded.dispersionCorrection = true;
  c.electrostatics.method = method;
  c.electrostatics.ewaldRtol = 1e-5;
  c.electrostatics.fourierSpacing = 0.1;
  c.integrator.type = IntegratorType::Verlet;
  c.integrator.dt = 0.002;
  return c;
}

/// The CPU backend's pair list and pair forces with Ewald: every term of the cell is its
/// share of the supercell's. (The dispersion correction is left out: its average C6 over
/// the N (N - 1) pairs of distinct atoms is not extensive, and is checked on its own.)
TEST(TriclinicBackend, CpuCellIsItsShareOfTheSupercell) {
  for (const CellCase& c : cellCases()) {
    const test::Ions ions = ionsIn(c.cell, 150, 6, 0.28);
    const BuiltSystem cell = ionSystem(ions), super = ionSystem(supercellOf(ions, c));
    Config config = ionConfig("cpu", ElectrostaticsMethod::Ewald);
    config.nonbonded.dispersionCorrection = false;
    auto bc = makeBackend(config, cell.system, nullptr);
    auto bs = makeBackend(config, super.system, nullptr);
    bc->setState(test::stateOf(cell), {});
    bs->setState(test::stateOf(super), {});
    const Energies ec = bc->computeForces(), es = bs->computeForces();
    const double copies = double(c.images.size()), scale = std::fabs(ec.potential());
    std::printf("[ info ] %s: LJ %.10g / %.10g, Coulomb real %.10g / %.10g kJ/mol (cell / supercell share)\n",
                c.name.c_str(), ec.lj, es.lj / copies, ec.coulombReal, es.coulombReal / copies);
    EXPECT_NEAR(es.lj / copies, ec.lj, tol::kDoubleSum * scale) << c.name;
    EXPECT_NEAR(es.coulombReal / copies, ec.coulombReal, tol::kDoubleSum * scale) << c.name;
    EXPECT_NEAR(es.coulombRecip / copies, ec.coulombRecip, tol::kDoubleSum * scale) << c.name;
    EXPECT_NEAR(es.potential() / copies, ec.potential(), tol::kDoubleSum * scale) << c.name;
    Tensor3 scaled = es.virial;
    for (auto& row : scaled.m)
      for (double& w : row) w /= copies;
    EXPECT_LT(tensorError(scaled, ec.virial), tol::kDoubleSum) << c.name;
    EXPECT_LT(copyForceError(bc->forces(), bs->forces()), tol::kDoubleSum) << c.name;
  }
}

class TriclinicBackends : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override { FARADAY_REQUIRE_BACKEND(GetParam()); }
};

/// The backend with PME in the cell against the CPU backend on the same cell and grid
/// (the GPU's tile list, tile kernel and PME; the CPU instantiation checks the comparison
/// itself, which must then agree to rounding).
TEST_P(TriclinicBackends, PmeInTheCellMatchesTheCpuBackend) {
  for (const CellCase& c : cellCases()) {
    const BuiltSystem cell = ionSystem(ionsIn(c.cell, 300, 7, 0.28));
    auto ref = makeBackend(ionConfig("cpu", ElectrostaticsMethod::Pme), cell.system, nullptr);
    auto got = makeBackend(ionConfig(GetParam(), ElectrostaticsMethod::Pme), cell.system, nullptr);
    ref->setState(test::stateOf(cell), {});
    got->setState(test::stateOf(cell), {});
    const Energies er = ref->computeForces(), eg = got->computeForces();
    const DispersionCorrection d = dispersionCorrection(cell.system, 1.0, true, c.cell.volume());
    EXPECT_NEAR(er.dispersionCorrection, d.energy, tol::kDoubleSum * std::fabs(d.energy)) << c.name;
    const double f = test::relativeRmsDifference(got->forces(), ref->forces(), ref->forces());
    const double scale = std::fabs(er.potential());
    std::printf("[ info ] %s %s: force rel RMS %.2e, potential rel %.2e\n", GetParam().c_str(), c.name.c_str(), f,
                std::fabs(eg.potential() - er.potential()) / scale);
    const double energyTol = test::onGpu(GetParam()) ? tol::kGpuEnergyRel : tol::kDoubleSum;
    EXPECT_LT(f, test::onGpu(GetParam()) ? tol::kGpuForceRelRms : tol::kDoubleSum) << c.name;
    EXPECT_NEAR(eg.lj, er.lj, energyTol * scale) << c.name;
    EXPECT_NEAR(eg.coulombReal, er.coulombReal, energyTol * scale) << c.name;
    EXPECT_NEAR(eg.coulombRecip, er.coulombRecip, energyTol * scale) << c.name;
    EXPECT_NEAR(eg.potential(), er.potential(), energyTol * scale) << c.name;
    for (int a = 0; a < 3; ++a)
      for (int b = 0; b < 3; ++b)
        EXPECT_NEAR(eg.virial.m[a][b], er.virial.m[a][b], energyTol * std::fabs(er.virial.trace()))
            << c.name << " W" << a << b;
  }
}

/// Least-squares slope (per step) of a series.
double slopeOf(const std::vector<double>& y) {
  const double n = double(y.size()), mid = (n - 1) / 2;
  double mean = 0, sxy = 0, sxx = 0;
  for (double e : y) mean += e / n;
  for (std::size_t s = 0; s < y.size(); ++s) {
    sxy += (double(s) - mid) * (y[s] - mean);
    sxx += (double(s) - mid) * (double(s) - mid);
  }
  return sxy / sxx;
}

/// Molten NaCl in the dodecahedron, relaxed by 150 Langevin steps (1300 K, friction 10/ps)
/// on the CPU, then 300 NVE steps of 2 fs on the backend: the total energy drifts less than
/// GROMACS' default pair-list tolerance per atom, and after the run (atoms have crossed the
/// cell's faces and the pair list was rebuilt) the backend's forces on its own state are the
/// CPU's. The same run in a cube of the same volume and ion count is printed beside.
TEST_P(TriclinicBackends, NveInTheDodecahedronConservesEnergy) {
  const CellCase c = dodecahedron(3.3);
  const double edge = std::cbrt(c.cell.volume());
  for (const Box& box : {c.cell, Box::rectangular(edge, edge, edge)}) {
    const BuiltSystem cell = ionSystem(ionsIn(box, 500, 8, 0.28));
    const double dt = 0.002;
    Config relaxConfig = ionConfig("cpu", ElectrostaticsMethod::Pme);
    relaxConfig.run.threads = 0;
    relaxConfig.integrator.type = IntegratorType::Langevin;
    relaxConfig.integrator.temperature = 1300;
    relaxConfig.integrator.friction = 10;
    auto relax = makeBackend(relaxConfig, cell.system, nullptr);
    State state = test::stateOf(cell);
    state.velocities = maxwellBoltzmannVelocities(cell.system, 1300, 9, IntegratorType::Langevin);
    relax->setState(state, {});
    relax->computeForces();
    for (int s = 0; s < 150; ++s) relax->step();
    relax->getState(state);
    auto nve = makeBackend(ionConfig(GetParam(), ElectrostaticsMethod::Pme), cell.system, nullptr);
    nve->setState(state, {});
    nve->computeForces();
    std::vector<double> total;
    for (int s = 0; s < 300; ++s) total.push_back(nve->step().potential() + nve->kineticEnergy());
    const double driftPerAtom = slopeOf(total) / dt / double(cell.system.size());
    State end;
    nve->getState(end);
    auto ref = makeBackend(ionConfig("cpu", ElectrostaticsMethod::Pme), cell.system, nullptr);
    ref->setState(end, {});
    ref->computeForces();
    const double f = test::relativeRmsDifference(nve->forces(), ref->forces(), ref->forces());
    std::printf("[ info ] %s: NaCl melt in the %s, %zu ions, NVE drift %.3e kJ/mol/ps per atom, forces after the run "
                "against the CPU %.2e\n",
                GetParam().c_str(), box.isRectangular() ? "cube" : "dodecahedron", cell.system.size(), driftPerAtom, f);
    if (box.isRectangular()) continue;
    EXPECT_LT(std::fabs(driftPerAtom), tol::kNveDriftPerAtom);
    EXPECT_LT(f, test::onGpu(GetParam()) ? tol::kGpuForceRelRms : tol::kDoubleSum);
  }
}

INSTANTIATE_TEST_SUITE_P(Backends, TriclinicBackends, ::testing::ValuesIn(test::kBackendNames), test::backendTestName);

}  // namespace
}  // namespace faraday
