#pragma once
// The GROMACS 2022.5 single points of tests/data/gromacs/<system> (made by
// tools/gromacs_reference.py): energies per term, forces, the settings they were made with.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <map>
#include <regex>
#include <string>
#include <vector>

#include "core/Vec3.h"
#include "engine/config/Config.h"
#include "tests/EngineTestSupport.h"

namespace faraday::test {

struct GromacsReference {
  std::filesystem::path folder;
  std::string define;                      ///< the mdp's define
  std::array<int, 3> grid{};               ///< fourier-nx, -ny, -nz
  std::map<std::string, double> energies;  ///< kJ/mol by `gmx energy` name
  std::map<std::string, double> virial;    ///< "Vir-XX" ... (GROMACS's Xi, kJ/mol)
  std::vector<Vec3> forces;                ///< kJ/mol/nm
  std::string restraintCoordinates;        ///< file name beside conf.gro, or "" (restraints to conf.gro)

  /// The named term, 0 when the system has none of it.
  double energy(const std::string& name) const {
    const auto it = energies.find(name);
    return it == energies.end() ? 0.0 : it->second;
  }
};

namespace gromacs_reference_detail {

/// `"name": number` pairs of the JSON object that follows `"key": {`.
inline std::map<std::string, double> numberObject(const std::string& json, const std::string& key) {
  std::map<std::string, double> out;
  const std::size_t at = json.find("\"" + key + "\": {");
  if (at == std::string::npos) return out;
  const std::string body = json.substr(at, json.find('}', at) - at);
  static const std::regex pair("\"([^\"]+)\": (-?[0-9][0-9.eE+-]*)");
  for (std::sregex_iterator it(body.begin(), body.end(), pair), end; it != end; ++it)
    out[(*it)[1].str()] = std::stod((*it)[2].str());
  return out;
}

inline std::string stringField(const std::string& json, const std::string& key) {
  std::smatch m;
  if (std::regex_search(json, m, std::regex("\"" + key + "\": \"([^\"]*)\""))) return m[1].str();
  return "";
}

/// A number field of a flat JSON object ("key": value); a failure when absent.
inline double numberField(const std::string& json, const std::string& key) {
  std::smatch m;
  if (std::regex_search(json, m, std::regex("\"" + key + "\": (-?[0-9][0-9.eE+-]*)"))) return std::stod(m[1].str());
  ADD_FAILURE() << "no number " << key;
  return 0;
}

/// The data of a .npy file (NumPy format 1.0) of little-endian T (float64: double, int32: int).
template <typename T>
inline std::vector<T> npyValues(const std::filesystem::path& file) {
  const std::string bytes = readText(file);
  if (bytes.size() < 10 || bytes.compare(0, 6, "\x93NUMPY") != 0) return {};
  const std::size_t length = std::uint8_t(bytes[8]) | std::size_t(std::uint8_t(bytes[9])) << 8;
  std::vector<T> data((bytes.size() - 10 - length) / sizeof(T));
  std::memcpy(data.data(), bytes.data() + 10 + length, data.size() * sizeof(T));
  return data;
}
inline std::vector<double> npyDoubles(const std::filesystem::path& file) { return npyValues<double>(file); }

}  // namespace gromacs_reference_detail

inline GromacsReference loadGromacsReference(const std::string& system) {
  namespace d = gromacs_reference_detail;
  GromacsReference r;
  r.folder = std::filesystem::path(sourceDir()) / "tests" / "data" / "gromacs" / system;
  const std::string json = readText(r.folder / "reference.json");
  EXPECT_FALSE(json.empty()) << "missing " << (r.folder / "reference.json");
  r.define = d::stringField(json, "define");
  r.restraintCoordinates = d::stringField(json, "restraint_coordinates");
  r.energies = d::numberObject(json, "energies_kJ_mol");
  r.virial = d::numberObject(json, "virial_kJ_mol");
  std::smatch m;
  if (std::regex_search(json, m, std::regex(R"("fourier_grid": \[\s*(\d+),\s*(\d+),\s*(\d+))")))
    r.grid = {std::stoi(m[1].str()), std::stoi(m[2].str()), std::stoi(m[3].str())};
  const std::vector<double> f = d::npyDoubles(r.folder / "forces.npy");
  for (std::size_t i = 0; i + 2 < f.size(); i += 3) r.forces.push_back({f[i], f[i + 1], f[i + 2]});
  return r;
}

/// The settings of the references on `platform`: cutoff 1 nm with potential-shifted LJ and
/// Coulomb, PME of order 4 on the reference's grid with erfc(beta rc) = 1e-5, no dispersion
/// correction; one thread (the suite shares small CI machines).
inline Config gromacsReferenceConfig(const GromacsReference& r, const std::string& platform) {
  Config c;
  c.system.coordinates = r.folder / "conf.gro";
  c.system.topology = r.folder / "topol.top";
  c.system.defines = r.define;
  c.run.platform = choiceNamed<Platform>(platform);
  c.run.threads = 1;
  c.nonbonded.cutoff = 1.0;
  c.nonbonded.buffer = 0.1;
  c.nonbonded.ljShift = true;
  c.nonbonded.coulombModifier = CoulombModifier::PotentialShift;
  c.nonbonded.dispersionCorrection = false;
  c.electrostatics.method = ElectrostaticsMethod::Pme;
  c.electrostatics.ewaldRtol = 1e-5;
  c.electrostatics.pmeOrder = 4;
  c.electrostatics.grid = r.grid;
  c.integrator.type = IntegratorType::Verlet;
  return c;
}

}  // namespace faraday::test
