// Config loading: INI sections, command-line overrides, paths, errors and help.
#include <gtest/gtest.h>

#include <set>

#include "engine/config/Config.h"
#include "core/Error.h"
#include "engine/config/KernelParams.h"
#include "engine/setup/SystemSetup.h"
#include "tests/EngineTestSupport.h"
#include "engine/config/LoadConfig.h"
#include "engine/config/ConfigHelp.h"
#include "engine/config/ConfigKeys.h"

namespace faraday::test {
namespace {

class ConfigTest : public ::testing::Test {
 protected:
  fs::path writeConfig(const std::string& text) {
    const fs::path file = dir / "sim.cfg";
    writeText(file, text);
    return file;
  }
  TempDir dir;
};

TEST_F(ConfigTest, ReadsSectionsIntoDottedKeysAndAtomTypes) {
  const fs::path file = writeConfig(argonConfig(1234, 0.85) +
                                    "\n[electrostatics]\ngrid = 32 36 40\npme_order = 6\n"
                                    "[atom.CL]\nmass = 35.45\ncharge = -1\nsigma = 0.44\nepsilon = 0.42\n");
  const Config c = loadConfig(file, {});
  EXPECT_EQ(c.run.steps, 1234);
  EXPECT_DOUBLE_EQ(c.nonbonded.cutoff, 0.85);
  EXPECT_EQ(choiceText(c.integrator.type), "langevin");
  EXPECT_EQ(choiceText(c.electrostatics.method), "none");
  EXPECT_EQ(c.electrostatics.grid, (std::array<int, 3>{32, 36, 40}));
  EXPECT_EQ(c.electrostatics.pmeOrder, 6);
  ASSERT_EQ(c.atomTypes.size(), 2u);
  EXPECT_EQ(c.atomTypes[0].name, "AR");
  EXPECT_DOUBLE_EQ(c.atomTypes[0].sigma, 0.3405);
  EXPECT_EQ(c.atomTypes[1].name, "CL");
  EXPECT_DOUBLE_EQ(c.atomTypes[1].charge, -1.0);
  EXPECT_FALSE(c.map.enabled);
  EXPECT_EQ(c.configFile, fs::absolute(file).lexically_normal());
}

/// A UTF-8 byte-order mark (as some Windows editors save) is not part of the first line.
TEST_F(ConfigTest, AByteOrderMarkIsSkipped) {
  const std::string text = argonConfig(55);
  const Config c = loadConfig(writeConfig("\xEF\xBB\xBF" + text.substr(text.find("[system]"))), {});
  EXPECT_EQ(c.run.steps, 55);
  EXPECT_EQ(c.system.coordinates.filename(), "argon.gro");
  // Anywhere else it is still text that no line may hold.
  EXPECT_HAS(errorOf([&] { loadConfig(writeConfig(argonConfig() + "\xEF\xBB\xBF\n"), {}); }), "expected 'key = value'");
}

TEST_F(ConfigTest, CommandLineOverridesInBothForms) {
  const fs::path file = writeConfig(argonConfig());
  const Config c = loadConfig(file, {"--nonbonded.cutoff=0.75", "--run.steps", "77", "--atom.AR.epsilon=1.5",
                                     "--integrator.type", "verlet"});
  EXPECT_DOUBLE_EQ(c.nonbonded.cutoff, 0.75);
  EXPECT_EQ(c.run.steps, 77);
  EXPECT_DOUBLE_EQ(c.atomTypes.at(0).epsilon, 1.5);
  EXPECT_DOUBLE_EQ(c.atomTypes.at(0).sigma, 0.3405);
  EXPECT_EQ(choiceText(c.integrator.type), "verlet");
}

TEST_F(ConfigTest, FourierSpacingAcceptsAuto) {
  const fs::path file = writeConfig(argonConfig());
  const Config c = loadConfig(file, {"--electrostatics.fourier_spacing=auto"});
  EXPECT_EQ(c.electrostatics.fourierSpacing, 0.0);
  bool shown = false;
  for (const auto& [key, value] : c.effective)
    if (key == "electrostatics.fourier_spacing") shown = value == "auto";
  EXPECT_TRUE(shown);
  EXPECT_THROW(loadConfig(file, {"--electrostatics.fourier_spacing=-0.1"}), Error);
  EXPECT_THROW(loadConfig(file, {"--electrostatics.fourier_spacing=automatic"}), Error);
}

TEST_F(ConfigTest, BufferAutoIsAFixedSkinOnTheCpuAndFollowsTheAtomsSpeedsOnTheGpu) {
  const Config melt = loadConfig(sourceDir() + "/systems/nacl_melt/sim.cfg", {});
  EXPECT_LT(melt.nonbonded.buffer, 0);
  bool shown = false;
  for (const auto& [key, value] : melt.effective)
    if (key == "nonbonded.buffer") shown = value == "auto";
  EXPECT_TRUE(shown);
  const faraday::Setup meltSetup = buildSetup(melt);
  EXPECT_DOUBLE_EQ(pairListBuffer(melt, meltSetup.system, false), kCpuPairListBuffer);
  // Na+ at 1300 K: 4 sigma of the speeds is 2.74 nm/ps, 5.5e-3 nm per 2 fs step; half the
  // buffer must last 10 steps: 0.11 nm, rounded up to 0.15.
  EXPECT_NEAR(pairListBuffer(melt, meltSetup.system, true), 0.15, 1e-12);
  // Argon at 86.6 K and 4 fs: 0.043 nm wanted, 0.1 at least.
  const Config argon = loadConfig(sourceDir() + "/systems/argon/sim.cfg", {});
  EXPECT_NEAR(pairListBuffer(argon, buildSetup(argon).system, true), 0.1, 1e-12);
  // A set value is used as it is, on both platforms.
  const Config set = loadConfig(sourceDir() + "/systems/nacl_melt/sim.cfg", {"--nonbonded.buffer=0.12"});
  EXPECT_DOUBLE_EQ(pairListBuffer(set, meltSetup.system, true), 0.12);
  EXPECT_DOUBLE_EQ(pairListBuffer(set, meltSetup.system, false), 0.12);
  // No temperature to go by (velocities from a file, system.temperature 0, verlet): 0.1.
  Config cold = melt;
  cold.system.temperature = 0;
  cold.integrator.type = IntegratorType::Verlet;
  EXPECT_DOUBLE_EQ(pairListBuffer(cold, meltSetup.system, true), kCpuPairListBuffer);
  // Never more than half the shortest edge less the cutoff.
  Config hot = melt;
  hot.integrator.temperature = hot.system.temperature = 1e6;
  const double room = 0.5 * meltSetup.system.box.smallestHeight() - melt.nonbonded.cutoff;
  EXPECT_DOUBLE_EQ(pairListBuffer(hot, meltSetup.system, true), std::min(0.25, room));
  EXPECT_THROW(loadConfig(sourceDir() + "/systems/nacl_melt/sim.cfg", {"--nonbonded.buffer=automatic"}), Error);
  // Virtual sites have no mass: the lightest atom with one sets the speed (TIP4P-Ew's M sites
  // beside hydrogens of 3 amu at 300 K and 4 fs: 3.65 nm/ps, 0.29 nm wanted, 0.25 at most).
  const Config sites = loadConfig(sourceDir() + "/systems/protein_dodecahedron/sim.cfg", {});
  EXPECT_DOUBLE_EQ(pairListBuffer(sites, buildSetup(sites).system, true), 0.25);
}

TEST_F(ConfigTest, RelativePathsInTheFileUseItsFolderOnTheCommandLineTheCwd) {
  fs::create_directories(dir / "sub");
  writeText(dir / "sub" / "sim.cfg", argonConfig() + "[map]\ntrajectory = ../traj.dcd\n");
  const Config c = loadConfig(dir / "sub" / "sim.cfg", {});
  EXPECT_EQ(c.system.coordinates, (fs::absolute(dir.path()) / "sub" / "argon.gro").lexically_normal());
  EXPECT_EQ(c.output.directory, (fs::absolute(dir.path()) / "sub" / "out").lexically_normal());
  EXPECT_EQ(fs::path(c.map.trajectory), (fs::absolute(dir.path()) / "traj.dcd").lexically_normal());
  const Config o = loadConfig(dir / "sub" / "sim.cfg", {"--system.coordinates=x.pdb"});
  EXPECT_EQ(o.system.coordinates, (fs::current_path() / "x.pdb").lexically_normal());
}

TEST_F(ConfigTest, UnknownKeyInTheFileNamesFileLineAndSuggestsTheClosestKey) {
  std::string text = argonConfig();
  text.replace(text.find("cutoff ="), 8, "cutof =");
  const fs::path file = writeConfig(text);
  const std::string msg = errorOf([&] { loadConfig(file, {}); });
  EXPECT_NE(msg.find(file.string() + ":" + std::to_string(lineOf(text, "cutof ="))), std::string::npos) << msg;
  EXPECT_NE(msg.find("unknown key 'nonbonded.cutof'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("did you mean 'nonbonded.cutoff'"), std::string::npos) << msg;
}

TEST_F(ConfigTest, UnknownKeyOnTheCommandLineSuggestsTheClosestKey) {
  const fs::path file = writeConfig(argonConfig());
  const std::string msg = errorOf([&] { loadConfig(file, {"--integrator.tpye=verlet"}); });
  EXPECT_NE(msg.find("command line"), std::string::npos) << msg;
  EXPECT_NE(msg.find("did you mean 'integrator.type'"), std::string::npos) << msg;
  const std::string atom = errorOf([&] { loadConfig(file, {"--atom.AR.sigm=0.3"}); });
  EXPECT_NE(atom.find("did you mean 'atom.AR.sigma'"), std::string::npos) << atom;
}

TEST_F(ConfigTest, BadValuesNameTheKeyAndLine) {
  struct Case {
    std::string from, to, key, what;
  };
  const std::vector<Case> cases = {
      {"cutoff = 0.7", "cutoff = abc", "nonbonded.cutoff", "not a number"},
      {"cutoff = 0.7", "cutoff = -1", "nonbonded.cutoff", "must be > 0"},
      {"buffer = 0.1", "buffer = 0", "nonbonded.buffer", "must be > 0"},
      {"dt = 0.004", "dt = 0", "integrator.dt", "must be > 0"},
      {"steps = 20", "steps = -5", "run.steps", "must be >= 0"},
      {"steps = 20", "steps = 2.5", "run.steps", "not an integer"},
      {"energy_interval = 10", "energy_interval = 0", "output.energy_interval", "must be > 0"},
      {"platform = cpu", "platform = gpu", "run.platform", "unknown value 'gpu'"},
      {"type = langevin", "type = leapfrog", "integrator.type", "unknown value 'leapfrog'"},
      {"method = none", "method = reaction-field", "electrostatics.method", "unknown value"},
      {"sigma = 0.3405", "sigma = -0.3", "atom.AR.sigma", "must be >= 0"},
      {"epsilon = 0.99774", "epsilon = -1", "atom.AR.epsilon", "must be >= 0"},
      {"mass = 39.948", "mass = 0", "atom.AR.mass", "must be > 0"},
      {"temperature = 90\n\n[atom", "temperature = nan\n\n[atom", "system.temperature", "not a finite number"},
  };
  for (const Case& c : cases) {
    std::string text = argonConfig();
    const auto at = text.find(c.from);
    ASSERT_NE(at, std::string::npos) << c.from;
    text.replace(at, c.from.size(), c.to);
    const fs::path file = writeConfig(text);
    const std::string msg = errorOf([&] { loadConfig(file, {}); });
    const std::string firstLine = c.to.substr(0, c.to.find('\n'));
    EXPECT_NE(msg.find(file.string() + ":" + std::to_string(lineOf(text, firstLine))), std::string::npos) << msg;
    EXPECT_NE(msg.find("'" + c.key + "'"), std::string::npos) << msg;
    EXPECT_NE(msg.find(c.what), std::string::npos) << msg;
    EXPECT_EQ(msg.find('\n'), std::string::npos) << "one line: " << msg;
  }
}

TEST_F(ConfigTest, BadCommandLineValueNamesTheKey) {
  const fs::path file = writeConfig(argonConfig());
  const std::string msg = errorOf([&] { loadConfig(file, {"--nonbonded.cutoff", "-0.5"}); });
  // "-0.5" does not start with "--", so it is the value of --nonbonded.cutoff.
  EXPECT_NE(msg.find("command line: key 'nonbonded.cutoff': must be > 0"), std::string::npos) << msg;
  const std::string missing = errorOf([&] { loadConfig(file, {"--run.steps"}); });
  EXPECT_NE(missing.find("'run.steps': missing value"), std::string::npos) << missing;
}

TEST_F(ConfigTest, MissingRequiredKeysAreNamed) {
  std::string text = argonConfig();
  text.replace(text.find("coordinates = argon.gro"), 23, "");
  EXPECT_NE(errorOf([&] { loadConfig(writeConfig(text), {}); }).find("'system.coordinates': required"), std::string::npos);
  text = argonConfig();
  text.replace(text.find("epsilon = 0.99774"), 17, "");
  const std::string msg = errorOf([&] { loadConfig(writeConfig(text), {}); });
  EXPECT_NE(msg.find("'atom.AR.epsilon': required key is missing"), std::string::npos) << msg;
}

TEST_F(ConfigTest, MalformedLineAndMissingFileAreErrors) {
  const std::string text = argonConfig() + "this line has no equals sign\n";
  const fs::path file = writeConfig(text);
  const std::string msg = errorOf([&] { loadConfig(file, {}); });
  EXPECT_NE(msg.find(file.string() + ":" + std::to_string(lineOf(text, "no equals"))), std::string::npos) << msg;
  const std::string missing = errorOf([&] { loadConfig(dir / "nope.cfg", {}); });
  EXPECT_NE(missing.find("nope.cfg"), std::string::npos);
  EXPECT_NE(missing.find("not found"), std::string::npos);
}

TEST_F(ConfigTest, InlineSemicolonAndHashCommentsAreNotPartOfTheValue) {
  std::string text = argonConfig();
  text.replace(text.find("cutoff = 0.7"), 12, "cutoff = 0.8 ; nm");
  text.replace(text.find("buffer = 0.1"), 12, "buffer = 0.15# nm");
  text.replace(text.find("[atom.AR]"), 9, "[atom.AR]   ; amu, e, nm, kJ/mol");
  text += "; a whole-line comment\n   # an indented one\nenergy_file = e.csv ; the log\n";
  const Config c = loadConfig(writeConfig(text), {});
  EXPECT_DOUBLE_EQ(c.nonbonded.cutoff, 0.8);
  EXPECT_DOUBLE_EQ(c.nonbonded.buffer, 0.15);
  EXPECT_EQ(c.output.energyFile, "e.csv");
  ASSERT_EQ(c.atomTypes.size(), 1u);
  EXPECT_EQ(c.atomTypes[0].name, "AR");
  // A comment does not hide a bad value, and the line number still names the right line.
  std::string bad = argonConfig();
  bad.replace(bad.find("cutoff = 0.7"), 12, "cutoff = x ; nm");
  const fs::path file = writeConfig(bad);
  const std::string msg = errorOf([&] { loadConfig(file, {}); });
  EXPECT_NE(msg.find(file.string() + ":" + std::to_string(lineOf(bad, "cutoff = x")) + ": key 'nonbonded.cutoff': not a number: 'x'"),
            std::string::npos) << msg;
}

/// The README's example configuration, comments and all, loads as written.
TEST_F(ConfigTest, TheReadmeExampleConfigurationLoads) {
  const std::string readme = readText(fs::path(sourceDir()) / "README.md");
  const auto begin = readme.find("```ini\n");
  ASSERT_NE(begin, std::string::npos);
  const auto end = readme.find("```", begin + 7);
  ASSERT_NE(end, std::string::npos);
  const Config c = loadConfig(writeConfig(readme.substr(begin + 7, end - begin - 7)), {});
  EXPECT_DOUBLE_EQ(c.nonbonded.cutoff, 1.0);
  EXPECT_DOUBLE_EQ(c.electrostatics.ewaldRtol, 1e-5);
  EXPECT_EQ(choiceText(c.integrator.type), "langevin");
  EXPECT_EQ(choiceText(c.run.platform), "auto");
  ASSERT_EQ(c.atomTypes.size(), 2u);
  EXPECT_EQ(c.atomTypes[0].name, "NA");
}

TEST_F(ConfigTest, KeysWithoutEffectInTheChosenModeGetAWarning) {
  std::string text = argonConfig();
  text.replace(text.find("type = langevin"), 15, "type = verlet");
  const fs::path file = writeConfig(text);
  const Config c = loadConfig(file, {"--electrostatics.method=pme", "--electrostatics.grid=32 32 32",
                                     "--electrostatics.fourier_spacing=0.1", "--electrostatics.pme_order=6"});
  // integrator.temperature is set in the file; friction and seed are not set at all.
  ASSERT_EQ(c.warnings.size(), 2u) << (c.warnings.empty() ? "" : c.warnings[0]);
  EXPECT_EQ(c.warnings[0], file.string() + ":" + std::to_string(lineOf(text, "type = verlet") + 2) +
                               ": key 'integrator.temperature': has no effect with integrator.type = verlet (no thermostat)");
  EXPECT_EQ(c.warnings[1], "command line: key 'electrostatics.fourier_spacing': has no effect with "
                           "electrostatics.grid = 32 32 32 (an explicit grid)");
  EXPECT_TRUE(loadConfig(writeConfig(argonConfig()), {}).warnings.empty());
  const Config none = loadConfig(writeConfig(argonConfig()), {"--integrator.friction=2", "--electrostatics.pme_order=5"});
  ASSERT_EQ(none.warnings.size(), 1u);  // langevin uses the friction; method = none ignores pme_order
  EXPECT_EQ(none.warnings[0], "command line: key 'electrostatics.pme_order': has no effect with electrostatics.method = none");
}

TEST_F(ConfigTest, QuotedEmptyValueTurnsAnOutputOff) {
  const Config c = loadConfig(writeConfig(argonConfig() + "trajectory_file = \"\"\n"), {"--output.energy_file="});
  EXPECT_EQ(c.output.trajectoryFile, "");
  EXPECT_EQ(c.output.energyFile, "");
  EXPECT_EQ(c.output.checkpointFile, "state.chk");
}

TEST_F(ConfigTest, AKeySetTwiceInTheFileIsAnError) {
  const std::string text = argonConfig() + "\n[nonbonded]\ncutoff = 0.8\n";
  const fs::path file = writeConfig(text);
  const std::string msg = errorOf([&] { loadConfig(file, {}); });
  EXPECT_NE(msg.find(file.string() + ":" + std::to_string(lineOf(text, "cutoff = 0.8"))), std::string::npos) << msg;
  EXPECT_NE(msg.find("'nonbonded.cutoff' is set twice (first on line " + std::to_string(lineOf(text, "cutoff = 0.7"))),
            std::string::npos) << msg;
}

TEST_F(ConfigTest, MapIsEnabledByASectionOrAnyMapKey) {
  EXPECT_TRUE(loadConfig(writeConfig(argonConfig() + "[map]\n"), {}).map.enabled);
  const fs::path plain = writeConfig(argonConfig());
  EXPECT_FALSE(loadConfig(plain, {}).map.enabled);
  const Config c = loadConfig(plain, {"--map.spacing=0.2"});
  EXPECT_TRUE(c.map.enabled);
  EXPECT_DOUBLE_EQ(c.map.spacing, 0.2);
  // map.enabled as given wins, on the command line too.
  const fs::path withMap = writeConfig(argonConfig() + "[map]\nspacing = 0.25\n");
  EXPECT_FALSE(loadConfig(withMap, {"--map.enabled=false"}).map.enabled);
  EXPECT_TRUE(loadConfig(plain, {"--map.enabled=true"}).map.enabled);
}

/// The map's kT/e is at the run's temperature unless map.temperature is set: the Langevin
/// bath, or the initial temperature of a verlet run.
TEST_F(ConfigTest, MapTemperatureDefaultsToTheRunsTemperature) {
  const fs::path file = writeConfig(argonConfig() + "[map]\n");  // langevin at 90 K
  EXPECT_DOUBLE_EQ(loadConfig(file, {}).map.temperature, 90.0);
  EXPECT_DOUBLE_EQ(loadConfig(file, {"--integrator.temperature=120"}).map.temperature, 120.0);
  EXPECT_DOUBLE_EQ(loadConfig(file, {"--integrator.type=verlet", "--system.temperature=75"}).map.temperature, 75.0);
  EXPECT_DOUBLE_EQ(loadConfig(file, {"--map.temperature=310"}).map.temperature, 310.0);
}

TEST_F(ConfigTest, EffectiveListsEveryKeyInUseAndHelpListsEveryKey) {
  const Config c = loadConfig(writeConfig(argonConfig() + "[map]\nspacing = 0.25\n"), {"--run.steps=5"});
  const std::string help = configHelp();
  bool sawSteps = false, sawSpacing = false, sawSigma = false;
  for (const auto& [key, value] : c.effective) {
    if (key == "map.enabled") continue;  // derived, not a key
    if (key.rfind("atom.AR.", 0) == 0)
      EXPECT_NE(help.find("atom.NAME." + key.substr(8)), std::string::npos) << key;
    else
      EXPECT_NE(help.find(key), std::string::npos) << key;
    sawSteps |= key == "run.steps" && value == "5";
    sawSpacing |= key == "map.spacing" && value == "0.25";
    sawSigma |= key == "atom.AR.sigma" && value == "0.3405";
  }
  EXPECT_TRUE(sawSteps && sawSpacing && sawSigma);
  EXPECT_GE(c.effective.size(), 45u);  // 42 keys + 4 atom fields + map.enabled
  EXPECT_NE(help.find("[nonbonded]"), std::string::npos);
  EXPECT_NE(help.find("nm"), std::string::npos);
}

/// The key table: each key once, in the section its name starts with, and each key's printed
/// default read back by its own conversion gives the same text (paths aside: they are
/// resolved against where they were set; and defaults that are not values, "(required)").
TEST(ConfigKeyTable, KeysAreUniqueInTheirSectionAndTheirDefaultsReadBack) {
  std::set<std::string> seen;
  for (const config::SectionSpec& section : config::fixedSections())
    for (const config::KeySpec& k : section.keys) {
      const std::string key = k.key;
      EXPECT_TRUE(seen.insert(key).second) << key << " twice";
      EXPECT_EQ(key.rfind(std::string(section.name) + ".", 0), 0u) << key << " in [" << section.name << "]";
      EXPECT_TRUE(k.readBy.contains(Command::Run) || k.readBy.contains(Command::Rerun) ||
                  k.readBy.contains(Command::Map))
          << key << " is read by no command";
      if (std::string(k.unit) == "path" || k.defaultText) continue;
      const Config defaults;
      Config c;
      try {
        k.set(c, config::Value{k.get(defaults), {}});
      } catch (const config::BadValue& b) {
        ADD_FAILURE() << key << ": its default '" << k.get(defaults) << "' is refused: " << b.what;
      }
      EXPECT_EQ(k.get(c), k.get(defaults)) << key;
    }
  EXPECT_EQ(seen.size(), config::allKeys().size());
}

/// Each key writes the field it prints and no other: a value other than its default, set
/// alone, changes its own printed value and no other key's.
TEST(ConfigKeyTable, EachKeyWritesItsOwnField) {
  const std::vector<std::string> candidates = {"3",    "5",         "0.5",   "true",     "false", "auto",   "8 8 8", "x.csv",
                                               "cuda", "all-pairs", "typed", "langevin", "atoms", "pmepot", "V",     "none",
                                               "h-bonds", "first", "nccl", "off"};
  const Config defaults;
  std::string untested;
  for (const config::KeySpec* k : config::allKeys()) {
    bool tested = false;
    for (const std::string& text : candidates) {
      Config c;
      try {
        k->set(c, config::Value{text, {"", 0, "/"}});
      } catch (const config::BadValue&) {
        continue;
      }
      if (k->get(c) == k->get(defaults)) continue;
      tested = true;
      for (const config::KeySpec* other : config::allKeys())
        if (other != k)
          EXPECT_EQ(other->get(c), other->get(defaults)) << k->key << " = " << text << " changed " << other->key;
      break;
    }
    if (!tested) untested += std::string(" ") + k->key;
  }
  EXPECT_EQ(untested, "") << "no candidate value reached these keys";
}

}  // namespace
}  // namespace faraday::test
