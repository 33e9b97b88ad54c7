// Potential maps on triclinic cells (the dodecahedron and truncated octahedron of
// tests/TriclinicCells.h): the lattice along the cell's vectors; OpenDX with non-orthogonal
// delta lines and MRC with the cell's angles, read back by GridDataFormats and mrcfile (skipped
// where they are not installed); every map method against the same map of the rectangular
// supercell or against exact Ewald at the lattice points (CPU, double); the GPU maps against
// the CPU ones; `faraday map` on a triclinic trajectory.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "engine/formats/MapWriters.h"
#include "engine/maps/MapCommand.h"
#include "kernels/dcs/CudaDcs.h"
#include "kernels/dcs/Dcs.h"
#include "kernels/dcs/PmeMap.h"
#include "kernels/pme/CpuPme.h"
#include "kernels/pme/Ewald.h"
#include "tests/MapTestSupport.h"
#include "tests/ReaderCheck.h"
#include "tests/Tolerances.h"
#include "tests/TriclinicCells.h"

namespace faraday::test {
namespace {

/// The largest |a - b| over the largest |b|.
double maxRelDifference(const std::vector<double>& a, const std::vector<double>& b) {
  EXPECT_EQ(a.size(), b.size());
  double worst = 0;
  for (std::size_t i = 0; i < a.size() && i < b.size(); ++i) worst = std::max(worst, std::fabs(a[i] - b[i]));
  return worst / maxAbs(b);
}

/// Ions of alternating sign in the cell with a net charge (so that the background counts).
Ions chargedIonsIn(const Box& cell, int n, unsigned seed, double net, double minDistance = 0.25) {
  Ions s = ionsIn(cell, n, seed, minDistance);
  for (double& q : s.charges) q += net / n;
  return s;
}

// ---- the lattice and the writers ----------------------------------------------------------

TEST(TriclinicMapLattice, SpansTheCellAlongItsVectors) {
  for (const CellCase& c : cellCases()) {
    SCOPED_TRACE(c.name);
    const double spacing = 0.2;
    const Lattice l = Lattice::fromBox(c.cell, spacing);
    EXPECT_FALSE(l.isOrthogonal());
    const Vec3 edges = c.cell.edgeLengths();
    const int n[3] = {l.nx, l.ny, l.nz};
    const Vec3 steps[3] = {l.stepX(), l.stepY(), l.stepZ()}, vectors[3] = {c.cell.a, c.cell.b, c.cell.c};
    for (int d = 0; d < 3; ++d) {
      EXPECT_EQ(n[d], int(std::ceil(edges[d] / spacing - 1e-9))) << d;
      EXPECT_LE(std::sqrt(norm2(steps[d])), spacing * (1 + tol::kDoubleSum)) << d;
      EXPECT_LT(std::sqrt(norm2(steps[d] * double(n[d]) - vectors[d])), tol::kDoubleSum * edges[d]) << d;
    }
    // r = origin + i/n_x a + j/n_y b + k/n_z c.
    for (int k = 0; k < l.nz; k += 3)
      for (int j = 0; j < l.ny; j += 2)
        for (int i = 0; i < l.nx; i += 5) {
          const Vec3 want = c.cell.fromFractional(Vec3{double(i) / l.nx, double(j) / l.ny, double(k) / l.nz});
          ASSERT_LT(std::sqrt(norm2(l.point(i, j, k) - want)), tol::kDoubleSum * edges.x) << i << " " << j << " " << k;
        }
  }
}

/// A map of smooth values on the octahedron's lattice (0.25 nm), shifted off the origin.
struct WrittenMap {
  Lattice lattice;
  std::vector<double> values;
};
WrittenMap octahedronMap() {
  WrittenMap m;
  m.lattice = Lattice::fromBox(truncatedOctahedron(2.9).cell, 0.25);
  m.lattice.origin = {-0.4, 0.3, 1.1};
  m.values.resize(m.lattice.size());
  for (std::size_t i = 0; i < m.values.size(); ++i) m.values[i] = 40 * std::sin(0.013 * double(i)) - 3.5;
  return m;
}

/// The three delta lines of an OpenDX file are the lattice's step vectors (Angstrom).
TEST(TriclinicMapWriters, OpenDxDeltaLinesAreTheStepVectors) {
  const WrittenMap m = octahedronMap();
  const auto dir = tempDir("triclinic_dx");
  writeMap(dir / "o.dx", m.lattice, m.values, "triclinic");
  const ParsedDx dx = readDx(dir / "o.dx");
  std::vector<Vec3> deltas;
  for (const std::string& line : dx.header)
    if (line.rfind("delta ", 0) == 0) {
      Vec3 d;
      std::sscanf(line.c_str(), "delta %lf %lf %lf", &d.x, &d.y, &d.z);
      deltas.push_back(d);
    }
  ASSERT_EQ(deltas.size(), 3u);
  const Vec3 steps[3] = {m.lattice.stepX(), m.lattice.stepY(), m.lattice.stepZ()};
  for (int d = 0; d < 3; ++d) {
    const double scale = 10 * std::sqrt(norm2(steps[d]));
    EXPECT_LT(std::sqrt(norm2(deltas[std::size_t(d)] - steps[d] * 10.0)), tol::kDxRoundTripRel * scale) << d;
  }
  EXPECT_GT(std::fabs(deltas[1].x), 0.1);  // the second step leaves the y axis
  EXPECT_GT(std::fabs(deltas[2].x), 0.1);
  ASSERT_EQ(dx.values.size(), m.values.size());
  for (std::size_t i = 0; i < m.values.size(); ++i)
    EXPECT_NEAR(dx.values[i], m.values[i], tol::kDxRoundTripRel * std::fabs(m.values[i]));
}

/// GridDataFormats reads the OpenDX file: counts, origin, the full delta matrix (its
/// OpenDX reader) and the values in their order (its Grid, which takes the diagonal as the
/// bin widths).
TEST(TriclinicMapWriters, GridDataFormatsReadsTheTriclinicOpenDx) {
  const WrittenMap m = octahedronMap();
  const auto dir = tempDir("triclinic_dx_gdf");
  writeMap(dir / "o.dx", m.lattice, m.values, "triclinic");
  RUN_READER_CHECK_OR_SKIP(dir, "dx", "o.dx", "o.txt");
  const auto words = readerCheckWords(dir / "o.txt");
  ASSERT_EQ(words.size(), 3 + m.values.size());
  const std::vector<double> counts = numbersOf(words[0]), origin = numbersOf(words[1]), delta = numbersOf(words[2]);
  EXPECT_EQ(counts, (std::vector<double>{double(m.lattice.nx), double(m.lattice.ny), double(m.lattice.nz)}));
  for (int d = 0; d < 3; ++d) EXPECT_NEAR(origin[std::size_t(d)], 10 * m.lattice.origin[d], tol::kDxRoundTripRel * 20);
  const Vec3 steps[3] = {m.lattice.stepX(), m.lattice.stepY(), m.lattice.stepZ()};
  for (int r = 0; r < 3; ++r)
    for (int k = 0; k < 3; ++k)
      EXPECT_NEAR(delta[std::size_t(3 * r + k)], 10 * steps[r][k], tol::kDxRoundTripRel * 10 * m.lattice.spacing.x)
          << r << k;
  for (std::size_t i = 0; i < m.values.size(); ++i)
    EXPECT_NEAR(std::stod(words[3 + i][0]), m.values[i], tol::kDxRoundTripRel * std::fabs(m.values[i])) << i;
}

/// The MRC header holds the lattice's cell (lengths and alpha, beta, gamma); the axes VMD's
/// ccp4plugin builds from them (x along a, y in the xy plane, each the cell length over the
/// sampling) are the step vectors; mrcfile reads and validates the file.
TEST(TriclinicMapWriters, MrcHoldsTheCellAnglesAndMrcfileReadsIt) {
  const WrittenMap m = octahedronMap();
  const auto dir = tempDir("triclinic_mrc");
  writeMap(dir / "o.mrc", m.lattice, m.values, "");
  std::ifstream in(dir / "o.mrc", std::ios::binary);
  std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  ASSERT_EQ(bytes.size(), 1024 + 4 * m.values.size());
  float fw[256];
  std::memcpy(fw, bytes.data(), 1024);
  const Box cell = m.lattice.cell();
  const Vec3 lengths = cell.edgeLengths() * 10.0, angles = cell.angles();
  for (int d = 0; d < 3; ++d) {
    EXPECT_NEAR(fw[10 + d], lengths[d], tol::kMrcRoundTripRel * lengths[d]) << d;
    EXPECT_NEAR(fw[13 + d], angles[d], tol::kMrcRoundTripRel * angles[d]) << d;
  }
  // VMD's ccp4plugin: xScale = A / MX, ..., then the axes from the angles.
  const double rad = units::kPi / 180, al = fw[13] * rad, be = fw[14] * rad, ga = fw[15] * rad;
  const double xs = fw[10] / m.lattice.nx, ys = fw[11] / m.lattice.ny, zs = fw[12] / m.lattice.nz;
  const double z1 = std::cos(be), z2 = (std::cos(al) - std::cos(be) * std::cos(ga)) / std::sin(ga);
  const double z3 = std::sqrt(1 - z1 * z1 - z2 * z2);
  const Vec3 vmd[3] = {{xs, 0, 0}, {std::cos(ga) * ys, std::sin(ga) * ys, 0}, {z1 * zs, z2 * zs, z3 * zs}};
  const Vec3 steps[3] = {m.lattice.stepX(), m.lattice.stepY(), m.lattice.stepZ()};
  for (int d = 0; d < 3; ++d) {
    const double scale = 10 * std::sqrt(norm2(steps[d]));
    EXPECT_LT(std::sqrt(norm2(vmd[d] - steps[d] * 10.0)), tol::kMrcCellAxesRel * scale) << d;
  }
  RUN_READER_CHECK_OR_SKIP(dir, "mrc", "o.mrc", "o.txt");
  const auto words = readerCheckWords(dir / "o.txt");
  ASSERT_EQ(words.size(), 5 + m.values.size());
  EXPECT_EQ(numbersOf(words[0]), (std::vector<double>{double(m.lattice.nx), double(m.lattice.ny), double(m.lattice.nz)}));
  const std::vector<double> read = numbersOf(words[1]), origin = numbersOf(words[2]);
  for (int d = 0; d < 3; ++d) {
    EXPECT_EQ(float(read[std::size_t(d)]), fw[10 + d]);  // 9 significant digits give the float back
    EXPECT_EQ(float(read[std::size_t(3 + d)]), fw[13 + d]);
    EXPECT_NEAR(origin[std::size_t(d)], 10 * m.lattice.origin[d], tol::kMrcRoundTripRel * 20);
  }
  EXPECT_EQ(numbersOf(words[3]), (std::vector<double>{1, 2, 3}));
  EXPECT_EQ(numbersOf(words[4]), (std::vector<double>{1}));  // mrcfile.validate
  for (std::size_t i = 0; i < m.values.size(); ++i) EXPECT_EQ(float(std::stod(words[5 + i][0])), float(m.values[i])) << i;
}

// ---- CPU: physics -------------------------------------------------------------------------

/// Exact Ewald at points (ewaldPotentialAt): in the cell, each part (real space by the
/// minimum image, the k-space sum over the cell's reciprocal lattice, the background) is the
/// same as in the supercell that holds the cell's copies, whose lattice is rectangular.
TEST(TriclinicMapCpu, EwaldPotentialIsThatOfTheRectangularSupercell) {
  for (const CellCase& c : cellCases()) {
    SCOPED_TRACE(c.name);
    const Ions cell = chargedIonsIn(c.cell, 40, 11, 0.5);
    const Ions super = supercellOf(cell, c);
    std::vector<Vec3> points = latticePoints(Lattice::fromBox(c.cell, 0.6));
    std::mt19937_64 rng(3);
    std::uniform_real_distribution<double> u(-0.5, 1.5);
    for (int p = 0; p < 100; ++p) points.push_back(c.cell.fromFractional(Vec3{u(rng), u(rng), u(rng)}));
    const double rc = 1.0, beta = ewaldBetaFromRtol(rc, 1e-5);
    const EwaldPotential a = ewaldPotentialAt(points, cell.positions, cell.charges, c.cell, beta, rc, 1e-13);
    const EwaldPotential b = ewaldPotentialAt(points, super.positions, super.charges, c.supercell, beta, rc, 1e-13);
    std::printf("[ info ] %s: Ewald potential at %zu points, cell vs supercell: real %.2e, reciprocal %.2e\n",
                c.name.c_str(), points.size(), maxRelDifference(a.real, b.real),
                maxRelDifference(a.reciprocal, b.reciprocal));
    EXPECT_GT(rmsOf(b.reciprocal), 1.0);
    EXPECT_LT(maxRelDifference(a.real, b.real), tol::kDoubleSum);
    EXPECT_LT(maxRelDifference(a.reciprocal, b.reciprocal), tol::kDoubleSum);
    EXPECT_NEAR(a.background, b.background, tol::kDoubleSum * std::fabs(b.background));
  }
}

/// The cutoff map (every image within the cutoff) in the cell equals that of the supercell,
/// on the lattice along the cell and on an orthogonal lattice over the atoms that reaches
/// out of the cell.
TEST(TriclinicMapCpu, CutoffMapIsThatOfTheRectangularSupercell) {
  for (const CellCase& c : cellCases()) {
    SCOPED_TRACE(c.name);
    const Ions cell = ionsIn(c.cell, 60, 12);
    const Ions super = supercellOf(cell, c);
    for (const Lattice& l : {Lattice::fromBox(c.cell, 0.2), Lattice::fromAtoms(cell.positions, 0.25, 0.7)}) {
      std::vector<double> a, b;
      cpuCutoffMap(l, cell.positions, cell.charges, cutoffOptions(1.0, true, c.cell), a);
      cpuCutoffMap(l, super.positions, super.charges, cutoffOptions(1.0, true, c.supercell), b);
      std::printf("[ info ] %s: cutoff map of %zu points, cell vs supercell %.2e\n", c.name.c_str(), l.size(),
                  maxRelDifference(a, b));
      EXPECT_GT(rmsOf(b), 1.0);
      EXPECT_LT(maxRelDifference(a, b), tol::kDoubleSum);
    }
  }
}

/// The periodic direct map of a lone charge takes, at every lattice point, the charge's
/// image in the brick around the point: within Box::maxCutoff of the charge that is its
/// nearest image (found here among all images of the 5^3 cells around).
TEST(TriclinicMapCpu, DirectMapOfALoneChargeIsItsNearestImage) {
  for (const CellCase& c : cellCases()) {
    SCOPED_TRACE(c.name);
    const Lattice l = Lattice::fromBox(c.cell, 0.15);
    const Vec3 charge = c.cell.fromFractional(Vec3{0.93, 0.07, 0.51});
    std::vector<double> map;
    cpuDirectMap(l, {charge}, {0.7}, directOptions(true, c.cell), map);
    int checked = 0;
    for (int k = 0; k < l.nz; ++k)
      for (int j = 0; j < l.ny; ++j)
        for (int i = 0; i < l.nx; ++i) {
          double nearest = INFINITY;
          for (int x = -2; x <= 2; ++x)
            for (int y = -2; y <= 2; ++y)
              for (int z = -2; z <= 2; ++z)
                nearest = std::min(nearest, norm2(l.point(i, j, k) - charge - c.cell.a * double(x) -
                                                  c.cell.b * double(y) - c.cell.c * double(z)));
          nearest = std::sqrt(nearest);
          if (nearest >= c.cell.maxCutoff() || nearest < 0.01) continue;
          const double want = units::kCoulomb * 0.7 / nearest;
          ASSERT_NEAR(map[l.index(i, j, k)], want, tol::kDoubleSum * want) << i << " " << j << " " << k;
          ++checked;
        }
    EXPECT_GT(checked, int(l.size() / 10));
  }
}

/// The PME map in the cell against exact Ewald at the lattice points, over the RMS of the
/// reciprocal potential: at the engine's default PME (order 4, 0.12 nm along the cell's
/// vectors) within the map's bound of the reciprocal PME force error of the same settings
/// (CpuPme against EwaldSum in the cell), and at tight settings (order 6, 0.06 nm).
TEST(TriclinicMapCpu, PmeMapMatchesEwaldAtTheLatticePoints) {
  for (const CellCase& c : cellCases()) {
    SCOPED_TRACE(c.name);
    const Ions s = chargedIonsIn(c.cell, 200, 13, 0.75);
    const Lattice l = Lattice::fromBox(c.cell, 0.3);
    const std::vector<Vec3> points = latticePoints(l);
    const double rc = 1.0, beta = ewaldBetaFromRtol(rc, 1e-5);
    const EwaldPotential ref = ewaldPotentialAt(points, s.positions, s.charges, c.cell, beta, rc, 1e-14);
    double err[2], force[2];
    const int orders[2] = {4, 6};
    const double spacings[2] = {0.12, 0.06};
    for (int t = 0; t < 2; ++t) {
      const PmeParams p = pmeParams(beta, orders[t], spacings[t], c.cell);
      std::vector<double> map;
      cpuPmeMap(l, s.positions, s.charges, pmeOptions(p, rc, c.cell), map);
      double num = 0;
      for (std::size_t i = 0; i < points.size(); ++i) num += std::pow(map[i] - ref.total(i), 2);
      err[t] = std::sqrt(num / double(points.size())) / rmsOf(ref.reciprocal);
      CpuPme pme(p, 0);
      EwaldSum ewald(beta, 1e-14, 0);
      std::vector<Vec3> fp(s.positions.size()), fe(s.positions.size());
      pme.compute(s.positions, s.charges, c.cell, fp, nullptr);
      ewald.compute(s.positions, s.charges, c.cell, fe, nullptr);
      force[t] = relativeRmsDifference(fp, fe, fe);
      std::printf("[ info ] %s: PME map (order %d, %.2f nm) vs Ewald %.3e of the reciprocal RMS; forces %.3e\n",
                  c.name.c_str(), orders[t], spacings[t], err[t], force[t]);
    }
    EXPECT_LT(err[0], tol::kPmeMapVsForceError * force[0]);
    EXPECT_LT(err[1], tol::kPmeMapVsForceError * force[1]);
    EXPECT_LT(err[1], tol::kPmeMapTightVsEwald);
    EXPECT_LT(err[1], 0.1 * err[0]);  // converges with order and grid: a real PME error
  }
}

/// The pmepot map in the cell against the image sum of the Gaussian charges (its direct
/// double-precision definition, gaussianPotentialAt), at tight PME settings; and the pme map
/// minus its real-space part is the pmepot map with the same beta.
TEST(TriclinicMapCpu, PmePotMapIsTheGaussianImageSum) {
  for (const CellCase& c : cellCases()) {
    SCOPED_TRACE(c.name);
    const Ions s = chargedIonsIn(c.cell, 60, 14, 0.5);
    const Lattice l = Lattice::fromBox(c.cell, 0.35);
    const std::vector<Vec3> points = latticePoints(l);
    const PmeParams p = pmeParams(kPmePotEwaldFactor, 6, 0.06, c.cell);
    std::vector<double> pot, full;
    cpuPmeMap(l, s.positions, s.charges, pmePotOptions(p, c.cell), pot);
    const std::vector<double> ref = gaussianPotentialAt(points, s.positions, s.charges, c.cell, kPmePotEwaldFactor);
    std::printf("[ info ] %s: pmepot map vs Gaussian image sum, relative RMS %.3e\n", c.name.c_str(), relRms(pot, ref));
    EXPECT_GT(rmsOf(ref), 1.0);
    EXPECT_LT(relRms(pot, ref), tol::kPmePotTightVsGaussianSum);
    const double rc = 1.0;
    cpuPmeMap(l, s.positions, s.charges, pmeOptions(p, rc, c.cell), full);
    const EwaldPotential real = ewaldPotentialAt(points, s.positions, s.charges, c.cell, kPmePotEwaldFactor, rc, 1e-14);
    double worst = 0;
    for (std::size_t i = 0; i < points.size(); ++i)
      worst = std::max(worst, std::fabs(full[i] - real.real[i] - pot[i]) / std::max(1.0, std::fabs(full[i])));
    EXPECT_LT(worst, tol::kPmePotSplitRel);
  }
}

/// `faraday map` (pme) on a DCD of a dodecahedron: the .gro's nine box numbers and the DCD's
/// unit cell give the cell, the lattice spans it (tilted delta lines) and the map is the CPU
/// reference map of the frames.
void checkTriclinicMapCommand(const std::string& platform) {
  // The dodecahedron of d = 3.3 nm with c_z to the .gro's 5 decimals, so that the .gro holds
  // the box exactly.
  const Box box = Box::fromVectors({3.3, 0, 0}, {0, 3.3, 0}, {1.65, 1.65, 2.33345});
  const MapCase c = writeMapCase("triclinic_cmd_" + platform, platform, box, ionsIn(box, 80, 15, 0.3));
  const Config config = loadConfig(c.dir / "map.cfg", {});
  std::filesystem::create_directories(config.output.directory);
  ASSERT_EQ(mapMain(config), 0);
  const ParsedDx dx = readDx(c.dir / "out" / "ions.dx");
  const std::vector<double> ref = referenceMap(c, config);
  const Lattice l = Lattice::fromBox(c.box, 0.2);
  EXPECT_EQ(dx.n[0], l.nx);
  EXPECT_EQ(dx.n[2], l.nz);
  char tilted[128];  // the third step, c / n_z, leaves the z axis
  std::snprintf(tilted, sizeof tilted, "delta %.9e %.9e %.9e\n", 10 * l.tilt.y, 10 * l.tilt.z, 10 * l.spacing.z);
  EXPECT_GT(l.tilt.y, 0.05);
  EXPECT_NE(dx.text.find(tilted), std::string::npos) << tilted;
  ASSERT_EQ(dx.values.size(), ref.size());
  EXPECT_GT(rmsOf(ref), 1.0);
  EXPECT_LT(relRms(dx.values, ref), platform == "cuda" ? tol::kPmeMapGpuRelRms : tol::kDxRoundTripRel);
}

TEST(TriclinicMapCpu, MapCommandMapsATriclinicTrajectory) { checkTriclinicMapCommand("cpu"); }

// ---- GPU against the CPU ----------------------------------------------------------------

TEST(TriclinicMapGpu, MapCommandMapsATriclinicTrajectory) {
  FARADAY_REQUIRE_GPU();
  checkTriclinicMapCommand("cuda");
}

/// The production GPU direct and cutoff maps (CudaMapAccumulator) against the CPU reference:
/// periodic in the cell (the tilted minimum image) and not, on the lattice along the cell and
/// on an orthogonal lattice over the atoms; two atoms sit on lattice points (the near-atom
/// paths).
TEST(TriclinicMapGpu, DirectAndCutoffMatchTheCpu) {
  FARADAY_REQUIRE_GPU();
  for (const CellCase& c : cellCases()) {
    Ions s = ionsIn(c.cell, 3000, 16, 0.05);
    const Lattice along = Lattice::fromBox(c.cell, 0.12);
    s.positions[7] = along.point(3, 5, 2);
    s.positions[8] = along.point(along.nx - 1, 0, along.nz - 1) + c.cell.c;  // an image on a point
    // The orthogonal lattice spans the wrapped atoms (the cell's bounding box, under 5 nm):
    // the extent kDcsGpuRelRms's float coordinates assume. Over the unwrapped ones (8.6 nm
    // in the octahedron) the float rounding of point and atom coordinates, which grows with
    // their distance from the lattice origin, reaches 1.2e-5 at the points next to atoms.
    std::vector<Vec3> wrapped = s.positions;
    for (Vec3& r : wrapped) r = c.cell.wrap(r);
    for (const Lattice& l : {along, Lattice::fromAtoms(wrapped, 0.15, 0.3)}) {
      for (bool periodic : {true, false})
        for (bool cutoff : {false, true}) {
          const MapOptions o = cutoff ? cutoffOptions(1.0, periodic, c.cell) : directOptions(periodic, c.cell);
          std::vector<double> cpu;
          cpuPotentialMap(l, s.positions, s.charges, o, cpu);
          CudaMapAccumulator gpu(l, o);
          gpu.addFrame(s.positions, s.charges, c.cell, nullptr);
          const std::vector<double> g = gpu.sum();
          std::printf("[ info ] %s: GPU %s %s map, %d x %d x %d points (%s lattice): relative RMS vs CPU %.3e\n",
                      c.name.c_str(), periodic ? "periodic" : "open", cutoff ? "cutoff" : "direct", l.nx, l.ny, l.nz,
                      l.isOrthogonal() ? "orthogonal" : "cell", relRms(g, cpu));
          EXPECT_LT(relRms(g, cpu), tol::kDcsGpuRelRms) << c.name << (periodic ? " periodic" : " open")
                                                        << (cutoff ? " cutoff" : " direct");
        }
    }
  }
}

/// The GPU pme and pmepot maps against the CPU ones in the cell, on the lattice along the
/// cell and on one over the atoms, for two frames; bitwise repeatable.
TEST(TriclinicMapGpu, PmeAndPmePotMatchTheCpu) {
  FARADAY_REQUIRE_GPU();
  for (const CellCase& c : cellCases()) {
    const Ions s = chargedIonsIn(c.cell, 800, 17, 0.5, 0.18);
    Ions moved = s;
    translate(moved, {0.37, -0.21, 0.05});
    const double rc = 1.0, beta = ewaldBetaFromRtol(rc, 1e-5);
    const PmeParams p = pmeParams(beta, 4, 0.12, c.cell);
    for (const MapOptions& o : {pmeOptions(p, rc, c.cell), pmePotOptions(p, c.cell)})
      for (const Lattice& l : {Lattice::fromBox(c.cell, 0.1), Lattice::fromAtoms(s.positions, 0.15, 0.6)}) {
        const GpuPmeMapCheck check = gpuPmeMapOfTwoFrames(l, o, s, moved, c.cell);
        std::printf("[ info ] %s: GPU %s map, %d x %d x %d points: relative RMS vs CPU %.3e\n", c.name.c_str(),
                    o.method == MapMethod::Pme ? "pme" : "pmepot", l.nx, l.ny, l.nz, check.relRmsVsCpu);
        EXPECT_LT(check.relRmsVsCpu, tol::kPmeMapGpuRelRms) << c.name;
        EXPECT_TRUE(check.repeatable) << c.name << ": GPU map not bitwise reproducible";
      }
  }
}

/// A CUDA backend's device frame in the dodecahedron (packed, wrapped and split on the
/// device) gives the direct and pme maps of the same state copied to the host.
TEST(TriclinicMapGpu, DeviceFrameOfTheBackendMatchesHostFrame) {
  FARADAY_REQUIRE_GPU();
  const CellCase cell = dodecahedron(3.3);
  const MapCase c = writeMapCase("triclinic_device_frame", "cuda", cell.cell, ionsIn(cell.cell, 80, 18, 0.3));
  const SteppedBackend run = steppedBackend(c, 0);
  ASSERT_TRUE(run.backend->deviceFrame().valid());
  State st;
  run.backend->getState(st);
  const Lattice l = Lattice::fromBox(c.box, 0.2);
  for (bool periodic : {true, false}) {
    const MapOptions o = directOptions(periodic, c.box);
    CudaMapAccumulator fromDevice(l, o), fromHost(l, o);
    fromDevice.addFrame(run.backend->deviceFrame(), c.box, nullptr);
    fromHost.addFrame(st.positions, run.setup.system.charge, c.box, nullptr);
    const std::vector<double> a = fromDevice.sum(), b = fromHost.sum();
    std::printf("[ info ] direct (%s): device frame vs host frame %.3e\n", periodic ? "periodic" : "open", relRms(a, b));
    EXPECT_LT(relRms(a, b), tol::kDcsVariantRelRms);
  }
  MapOptions o = pmeOptions({}, 0, c.box);
  applyEwaldSetup(mapEwaldSetup(run.config, run.setup.system), o);
  CudaPmeMap fromDevice(l, o), fromHost(l, o);
  fromDevice.addFrame(run.backend->deviceFrame(), c.box);
  fromHost.addFrame(st.positions, run.setup.system.charge, c.box);
  const std::vector<double> a = fromDevice.sum(), b = fromHost.sum();
  std::printf("[ info ] pme: device frame vs host frame %.3e\n", relRms(a, b));
  EXPECT_GT(rmsOf(b), 1.0);
  EXPECT_LT(relRms(a, b), tol::kPmeMapSummationOrderRel);
}

}  // namespace
}  // namespace faraday::test
