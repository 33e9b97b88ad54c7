// Every command's --help (the keys it reads with default and unit, from the one key table)
// and `faraday map --dry-run`, through the real executable where the user sees them.
#include <gtest/gtest.h>

#include <set>

#include "engine/config/ConfigHelp.h"
#include "engine/config/ConfigKeys.h"
#include "tests/EngineTestSupport.h"

namespace faraday::test {
namespace {

/// The line of a --help text that describes `name` ("" when there is none).
std::string lineOfKey(const std::string& help, const std::string& name) {
  for (const std::string& line : lines(help))
    if (line.rfind("  " + name + " ", 0) == 0) return line;
  return "";
}

/// The help of `faraday ARGS`, which must exit 0 and print nothing on stderr.
std::string helpOf(const std::vector<std::string>& args) {
  TempDir dir;
  const CommandResult r = runFaraday(dir.path(), args);
  EXPECT_EQ(r.exitCode, 0) << r.err;
  EXPECT_EQ(r.err, "");
  return r.out;
}

/// The set of files below `folder`, relative to it.
std::set<std::string> filesBelow(const fs::path& folder) {
  std::set<std::string> files;
  for (const auto& e : fs::recursive_directory_iterator(folder)) files.insert(fs::relative(e.path(), folder).string());
  return files;
}

TEST(CliHelp, MapListsTheKeysItReadsWithDefaultAndUnit) {
  const std::string help = helpOf({"map", "--help"});
  EXPECT_HAS(help, "usage: faraday map CONFIG [--section.key=value ...] [--dry-run]");
  const std::string spacing = lineOfKey(help, "map.spacing");
  EXPECT_HAS(spacing, " default 0.1 ");
  EXPECT_HAS(spacing, " nm ");
  EXPECT_HAS(lineOfKey(help, "run.progress_interval"), " default 2 ");
  EXPECT_HAS(lineOfKey(help, "map.file"), " default potential.dx ");
  EXPECT_HAS(lineOfKey(help, "atom.NAME.charge"), " default (required) ");
  for (const char* key : {"map.trajectory", "map.method", "map.units", "map.temperature", "run.devices", "run.platform",
                          "system.coordinates", "system.temperature", "output.directory", "atom.NAME.mass"})
    EXPECT_NE(lineOfKey(help, key), "") << key << " missing in: " << help;
  // Keys faraday map never reads.
  for (const char* key : {"output.trajectory_interval", "output.energy_file", "map.interval", "map.enabled",
                          "run.steps", "integrator.dt", "rerun.trajectory", "system.velocity_seed", "typed.A-B.c1"})
    EXPECT_EQ(help.find(key), std::string::npos) << key << " listed in: " << help;
}

TEST(CliHelp, RerunListsTheKeysItReads) {
  const std::string help = helpOf({"rerun", "--help"});
  EXPECT_HAS(help, "usage: faraday rerun CONFIG");
  EXPECT_HAS(lineOfKey(help, "rerun.trajectory"), " default \"\" ");
  EXPECT_HAS(lineOfKey(help, "rerun.energy_file"), " default rerun.csv ");
  EXPECT_HAS(lineOfKey(help, "nonbonded.cutoff"), " nm ");
  for (const char* key : {"system.coordinates", "nonbonded.mode", "electrostatics.method", "electrostatics.pme_order",
                          "gravity.softening", "run.platform", "run.threads", "output.directory", "output.forces_file",
                          "atom.NAME.sigma", "typed.A-B.c3"})
    EXPECT_NE(lineOfKey(help, key), "") << key << " missing in: " << help;
  for (const char* key : {"output.trajectory_file", "output.energy_interval", "run.steps", "integrator.dt",
                          "map.spacing", "map.trajectory", "run.progress_interval"})
    EXPECT_EQ(help.find(key), std::string::npos) << key << " listed in: " << help;
}

TEST(CliHelp, RunListsEveryKeyOfTheTable) {
  const std::string help = helpOf({"run", "--help"});
  EXPECT_HAS(help, "usage: faraday run CONFIG");
  for (const config::KeySpec* k : config::allKeys()) EXPECT_NE(lineOfKey(help, k->key), "") << k->key;
  EXPECT_NE(lineOfKey(help, "atom.NAME.epsilon"), "");
  EXPECT_NE(lineOfKey(help, "typed.A-B.c2"), "");
}

/// Each command's list is the table's: a key is listed exactly when it names the command
/// among its readers, with the default a default Config prints.
TEST(CliHelp, EachCommandsKeysComeFromTheTable) {
  const Config defaults;
  for (Command command : {Command::Rerun, Command::Map}) {
    const std::string help = configHelp(command);
    for (const config::KeySpec* k : config::allKeys()) {
      const std::string line = lineOfKey(help, k->key);
      EXPECT_EQ(line.empty(), !k->readBy.contains(command)) << commandName(command) << ": " << k->key;
      const std::string value = k->get(defaults);
      if (!line.empty() && !k->defaultText && !value.empty()) EXPECT_HAS(line, " default " + value + " ");
    }
    for (const config::NamedSectionSpec* s : config::namedSectionSpecs())
      EXPECT_EQ(lineOfKey(help, s->prefix + std::string(s->placeholder) + "." + s->fields[0].field).empty(),
                !s->readBy.contains(command))
          << commandName(command) << ": " << s->prefix;
  }
}

TEST(CliHelp, BenchListsTheBenchmarksAndEachItsOptions) {
  const std::string all = helpOf({"bench", "--help"});
  for (const char* bench : {"md ", "pme ", "dcs ", "nbody "}) EXPECT_HAS(all, bench);
  const std::string md = helpOf({"bench", "md", "--help"});
  EXPECT_HAS(md, "usage: faraday bench md");
  EXPECT_HAS(md, "--nacl arg (=4096,32768,110592,1000000)");
  EXPECT_HAS(md, "--buffer arg ");
  EXPECT_HAS(md, "--configs arg");
  EXPECT_HAS(md, "(nm or auto)");
  const std::string pme = helpOf({"bench", "pme", "--help"});
  EXPECT_HAS(pme, "--spacing arg (=0.12)");
  EXPECT_HAS(pme, "--no-error");
  const std::string dcs = helpOf({"bench", "dcs", "--help"});
  EXPECT_HAS(dcs, "--quick");
  EXPECT_HAS(dcs, "--csv arg (=dcs_bench.csv)");
  const std::string nbody = helpOf({"bench", "nbody", "--help"});
  EXPECT_HAS(nbody, "--softening arg (=0.01)");
  EXPECT_HAS(nbody, "--cpu-max arg (=65536)");
}

using MapDryRunTest = ArgonFolderTest;

/// --dry-run loads and checks the config and the inputs, prints the settings faraday map
/// reads and the map's lattice, and writes nothing.
TEST_F(MapDryRunTest, ValidatesPrintsTheSettingsAndWritesNothing) {
  ASSERT_EQ(runFaraday(dir.path(), {"run", "sim.cfg"}).exitCode, 0);  // out/traj.dcd, 3 frames
  const std::set<std::string> before = filesBelow(dir.path());
  const CommandResult r = runFaraday(dir.path(), {"map", "sim.cfg", "--dry-run", "--map.trajectory=out/traj.dcd",
                                                  "--map.file=m.dx", "--output.directory=maps", "--map.spacing=0.2"});
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_HAS(r.out, "  map.spacing = 0.2\n");
  EXPECT_HAS(r.out, "  map.trajectory = " + (dir / "out" / "traj.dcd").string() + "\n");
  EXPECT_HAS(r.out, "  atom.AR.charge = 0\n");
  EXPECT_EQ(r.out.find("output.trajectory_interval"), std::string::npos) << r.out;  // run's key, not map's
  EXPECT_HAS(r.out, "Trajectory: " + (dir / "out" / "traj.dcd").string() + ", 3 frames of 108 atoms");
  EXPECT_HAS(r.out, "Map: direct on 9 x 9 x 9 points");  // box 1.7226 nm / 0.2 nm
  EXPECT_HAS(r.out, "Dry run: configuration and input are valid; nothing was written.");
  EXPECT_EQ(filesBelow(dir.path()), before);  // faraday.out and faraday.err were there already
  EXPECT_FALSE(fs::exists(dir / "maps"));
}

TEST_F(MapDryRunTest, ReportsWhatTheMapWouldFailOn) {
  ASSERT_EQ(runFaraday(dir.path(), {"run", "sim.cfg"}).exitCode, 0);
  const auto fails = [&](const std::vector<std::string>& extra, const std::string& message) {
    std::vector<std::string> args = {"map", "sim.cfg", "--dry-run", "--output.directory=maps"};
    args.insert(args.end(), extra.begin(), extra.end());
    const CommandResult r = runFaraday(dir.path(), args);
    EXPECT_EQ(r.exitCode, 1) << r.out;
    EXPECT_EQ(lines(r.err).size(), 1u) << r.err;
    EXPECT_HAS(r.err, message);
    EXPECT_FALSE(fs::exists(dir / "maps"));
  };
  fails({"--map.trajectory=out/traj.dcd", "--map.spacng=0.2"},
        "command line: unknown key 'map.spacng'; did you mean 'map.spacing'?");
  fails({}, "key 'map.trajectory': faraday map needs a trajectory");
  fails({"--map.trajectory=out/traj.dcd", "--map.file=m.txt"}, "key 'map.file': ");
  fails({"--map.trajectory=out/traj.dcd", "--map.method=pme"}, "key 'electrostatics.method': ");
  writeText(dir / "big.gro", argonGro(4));  // 256 atoms against the trajectory's 108
  fails({"--map.trajectory=out/traj.dcd", "--system.coordinates=big.gro"},
        "traj.dcd: trajectory has 108 atoms, the system has 256");
}

}  // namespace
}  // namespace faraday::test
