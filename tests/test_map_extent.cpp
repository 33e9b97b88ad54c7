// map.extent = atoms around map.extent_atoms: by default the solute (all but water and ions),
// so that the lattice of a solvated protein surrounds the protein and not the whole box.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "core/Error.h"
#include "engine/config/Config.h"
#include "engine/config/LoadConfig.h"
#include "engine/formats/TrajectoryFile.h"
#include "engine/maps/MapReporter.h"
#include "engine/select/Selection.h"
#include "engine/setup/SystemSetup.h"
#include "kernels/dcs/Lattice.h"
#include "tests/EngineTestSupport.h"

namespace faraday::test {
namespace {

Config proteinMapConfig() {
  Config c = loadConfig(sourceDir() + "/systems/protein/sim.cfg", {});
  c.map.enabled = true;
  c.map.method = MapMethod::Direct;
  c.map.extent = MapExtent::Atoms;
  c.map.spacing = 0.2;
  c.map.padding = 0.5;
  return c;
}

/// The lattice the averager builds from the setup's coordinates.
Lattice averagerLattice(const Config& c, const faraday::Setup& setup) {
  PotentialMapAverager averager(c.map, setup.system, false, nullptr);
  averager.startWith(setup.state.positions);
  return averager.lattice();
}

std::vector<Vec3> positionsOf(const std::vector<int>& atoms, const std::vector<Vec3>& positions) {
  std::vector<Vec3> out;
  for (int i : atoms) out.push_back(positions[std::size_t(i)]);
  return out;
}

void expectSameLattice(const Lattice& a, const Lattice& b) {
  EXPECT_EQ(a.nx, b.nx);
  EXPECT_EQ(a.ny, b.ny);
  EXPECT_EQ(a.nz, b.nz);
  for (int d = 0; d < 3; ++d) EXPECT_DOUBLE_EQ(a.origin[d], b.origin[d]);
}

TEST(MapExtent, AProteinInWaterIsSurroundedWithoutItsSolvent) {
  const Config c = proteinMapConfig();
  const faraday::Setup setup = buildSetup(c);
  const SelectionContext context = selectionContext(setup.system);
  const std::vector<int> protein = select("protein", context, "test");
  EXPECT_EQ(mapExtentAtoms(c.map, setup.system), protein);
  const Lattice l = averagerLattice(c, setup);
  expectSameLattice(l, Lattice::fromAtoms(positionsOf(protein, setup.state.positions), 0.2, 0.5));
  // Every atom's lattice, water included, is larger than the box; the protein's is not.
  const Lattice all = Lattice::fromAtoms(setup.state.positions, 0.2, 0.5);
  EXPECT_LT(double(l.size()), 0.8 * double(all.size()));
  EXPECT_GT(all.nx * 0.2, setup.system.box.a.x);
}

TEST(MapExtent, ASelectionOrAnIndexGroupChoosesTheAtoms) {
  Config c = proteinMapConfig();
  const faraday::Setup setup = buildSetup(c);
  c.map.extentAtoms = "resid 1-10 and not name H*";
  const std::vector<int> picked = select(c.map.extentAtoms, selectionContext(setup.system), "test");
  ASSERT_GT(picked.size(), 50u);
  expectSameLattice(averagerLattice(c, setup), Lattice::fromAtoms(positionsOf(picked, setup.state.positions), 0.2, 0.5));
  c.map.extentAtoms = "group Protein";
  c.map.index = sourceDir() + "/tests/data/ndx/protein.ndx";
  EXPECT_EQ(mapExtentAtoms(c.map, setup.system), select("protein", selectionContext(setup.system), "test"));
}

TEST(MapExtent, ASystemOfIonsOnlyIsSurroundedWhole) {
  Config c = loadConfig(sourceDir() + "/systems/nacl_melt/sim.cfg", {});
  c.map.extent = MapExtent::Atoms;
  const faraday::Setup setup = buildSetup(c);
  EXPECT_EQ(mapExtentAtoms(c.map, setup.system).size(), setup.system.size());
}

TEST(MapExtent, ABadOrEmptySelectionNamesTheKeyAndStopsTheMapBeforeAnyOutput) {
  Config c = proteinMapConfig();
  const faraday::Setup setup = buildSetup(c);
  for (const char* text : {"resname XYZ", "resid 1 and", "group Protein"}) {
    c.map.extentAtoms = text;
    try {
      mapExtentAtoms(c.map, setup.system);
      ADD_FAILURE() << text << " was accepted";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("map.extent_atoms"), std::string::npos) << e.what();
    }
  }
  // Through faraday map: a one-frame trajectory, a selection of nothing, no output.
  TempDir dir;
  {
    auto writer = openTrajectoryWriter(dir / "one.dcd", setup.system.size(), 1, 0.002, -1, 1000);
    writer->write(setup.state);
  }
  const CommandResult r =
      runFaraday(dir.path(), {"map", sourceDir() + "/systems/protein/map.cfg", "--map.extent=atoms",
                              "--map.extent_atoms=resname XYZ", "--map.trajectory=" + (dir / "one.dcd").string(),
                              "--output.directory=" + (dir / "out").string()});
  EXPECT_NE(r.exitCode, 0);
  EXPECT_NE(r.err.find("map.extent_atoms"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir / "out"));
  // And a run with the map reporter stops before its first step.
  const CommandResult run =
      runFaraday(dir.path(), {"run", sourceDir() + "/systems/protein/sim.cfg", "--map.enabled=true", "--map.extent=atoms",
                              "--map.extent_atoms=resname XYZ", "--run.platform=cpu", "--run.steps=2",
                              "--output.directory=" + (dir / "run").string()});
  EXPECT_NE(run.exitCode, 0);
  EXPECT_NE(run.err.find("map.extent_atoms"), std::string::npos) << run.err;
  EXPECT_FALSE(std::filesystem::exists(dir / "run" / "energy.csv"));
}

}  // namespace
}  // namespace faraday::test
