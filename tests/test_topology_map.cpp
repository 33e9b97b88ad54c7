// `faraday map` over a trajectory of a topology system: the charges come from the GROMACS
// topology, no [atom.NAME] section is needed, and the map is the Coulomb potential of those
// charges averaged over the frames.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "core/Units.h"
#include "engine/formats/GroFile.h"
#include "engine/formats/gromacs/GromacsTopology.h"
#include "tests/EngineTestSupport.h"
#include "tests/MapTestSupport.h"
#include "tests/Tolerances.h"

namespace faraday::test {
namespace {

TEST(TopologyMap, ChargesComeFromTheTopology) {
  TempDir dir;
  const std::string data = sourceDir() + "/tests/data/gromacs/peptide_amber_vacuum";
  const Coordinates c = readGro(data + "/conf.gro");
  // Two frames: the coordinates, and the same moved by 0.1 nm along x.
  std::vector<Vec3> moved = c.positions;
  for (Vec3& x : moved) x.x += 0.1;
  writeDcd(dir / "traj.dcd", {c.positions, moved}, c.box);
  writeText(dir / "map.cfg", "[system]\ncoordinates = " + data + "/conf.gro\ntopology = " + data +
                                 "/topol.top\n[map]\nmethod = direct\nperiodic = false\nspacing = 0.5\nunits = kJ/mol/e\n"
                                 "trajectory = traj.dcd\nfile = peptide.dx\n");
  const CommandResult r = runFaraday(dir.path(), {"map", "map.cfg", "--run.platform=cpu", "--run.progress_interval=0"});
  ASSERT_EQ(r.exitCode, 0) << r.err;
  const ParsedDx dx = readDx(dir / "peptide.dx");
  ASSERT_GT(dx.values.size(), 0u);
  double origin[3] = {0, 0, 0}, delta[3] = {0, 0, 0};
  for (const std::string& line : dx.header) {
    if (line.rfind("origin", 0) == 0) std::sscanf(line.c_str(), "origin %lf %lf %lf", &origin[0], &origin[1], &origin[2]);
    double d[3];
    if (line.rfind("delta", 0) == 0 && std::sscanf(line.c_str(), "delta %lf %lf %lf", &d[0], &d[1], &d[2]) == 3)
      for (int k = 0; k < 3; ++k) delta[k] += d[k];
  }
  // The direct sum of the topology's charges (AMBER99SB-ILDN, net charge -1), in kJ/mol/e.
  const GromacsTopology top = readGromacsTopology(data + "/topol.top", {});
  ASSERT_EQ(top.charge.size(), c.positions.size());
  double worst = 0, scale = 0;
  for (int i = 0; i < dx.n[0]; i += 3)
    for (int j = 0; j < dx.n[1]; j += 3)
      for (int k = 0; k < dx.n[2]; k += 3) {
        const Vec3 p{(origin[0] + i * delta[0]) / units::kAngstromPerNm, (origin[1] + j * delta[1]) / units::kAngstromPerNm,
                     (origin[2] + k * delta[2]) / units::kAngstromPerNm};
        double v = 0;
        for (const std::vector<Vec3>* frame : std::vector<const std::vector<Vec3>*>{&c.positions, &moved})
          for (std::size_t a = 0; a < frame->size(); ++a) {
            // The DCD keeps float Angstrom.
            const Vec3& x = (*frame)[a];
            const Vec3 stored{double(float(10 * x.x)) / 10, double(float(10 * x.y)) / 10, double(float(10 * x.z)) / 10};
            v += 0.5 * units::kCoulomb * top.charge[a] / std::sqrt(norm2(p - stored));
          }
        const double got = dx.values[(std::size_t(k) * dx.n[1] + j) * dx.n[0] + i];
        worst = std::fmax(worst, std::fabs(got - v));
        scale = std::fmax(scale, std::fabs(v));
      }
  EXPECT_GT(scale, 1.0);  // a charged peptide: the map is not flat
  EXPECT_LE(worst, tol::kMapDoubleSumRel * scale);
}

}  // namespace
}  // namespace faraday::test
