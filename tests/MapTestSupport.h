#pragma once
// Shared helpers of the potential-map tests: atoms and lattices, DCD, XTC and OpenDX files, map
// options and configs, and the PME map case (a small ion system with its config and trajectory).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "engine/backends/Backend.h"
#include "engine/config/Config.h"
#include "engine/formats/Coordinates.h"
#include "engine/formats/DcdFile.h"
#include "engine/formats/GroFile.h"
#include "engine/config/KernelParams.h"
#include "engine/maps/MapCommand.h"
#include "engine/maps/MapReporter.h"
#include "engine/formats/MapWriters.h"
#include "engine/setup/SystemSetup.h"
#include "engine/formats/XtcFile.h"
#include "core/Units.h"
#include "kernels/dcs/Dcs.h"
#include "kernels/dcs/DcsPair.h"
#include "kernels/dcs/PmeMap.h"
#include "kernels/dcs/ShearedBox.h"
#include "kernels/pme/CpuPme.h"
#include "kernels/pme/Electrostatics.h"
#include "tests/ElectrostaticsTestSupport.h"
#include "tests/TestSupport.h"
#include "engine/backends/BackendFactory.h"
#include "engine/config/LoadConfig.h"

namespace faraday::test {

/// A fresh temporary folder for one test (`prefix` keeps the map tests' folders apart).
inline std::filesystem::path mapTempDir(const std::string& prefix, const std::string& name) {
  const auto d = std::filesystem::temp_directory_path() / (prefix + name);
  std::filesystem::remove_all(d);
  std::filesystem::create_directories(d);
  return d;
}
inline std::filesystem::path tempDir(const std::string& name) { return mapTempDir("faraday_test_dcs_", name); }
inline std::filesystem::path pmeMapTempDir(const std::string& name) { return mapTempDir("faraday_test_pme_map_", name); }

/// Root mean square of the values.
inline double rmsOf(const std::vector<double>& a) {
  double s = 0;
  for (double v : a) s += v * v;
  return std::sqrt(s / double(a.size()));
}

struct Atoms {
  std::vector<Vec3> positions;
  std::vector<double> charges;
};

/// n atoms uniform in [lo, lo + L) with random charges of alternating sign (net charge ~0).
inline Atoms randomAtoms(std::size_t n, Vec3 lo, Vec3 L, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  Atoms a;
  for (std::size_t i = 0; i < n; ++i) {
    a.positions.push_back({lo.x + u(rng) * L.x, lo.y + u(rng) * L.y, lo.z + u(rng) * L.z});
    a.charges.push_back((i % 2 ? -1.0 : 1.0) * (0.2 + 0.8 * u(rng)));
  }
  return a;
}

inline Lattice makeLattice(Vec3 origin, double h, int nx, int ny, int nz) {
  Lattice l;
  l.origin = origin;
  l.spacing = {h, h, h};
  l.nx = nx;
  l.ny = ny;
  l.nz = nz;
  return l;
}

inline double maxAbs(const std::vector<double>& a) {
  double m = 0;
  for (double v : a) m = std::max(m, std::abs(v));
  return m;
}


/// A DCD of `frames` (positions nm) in `box`, written by the engine's DcdWriter.
inline void writeDcd(const std::filesystem::path& file, const std::vector<std::vector<Vec3>>& frames, const Box& box) {
  DcdWriter w(file, frames.at(0).size(), 0, 10, 0.002);
  for (const auto& f : frames) w.writeFrame(f, box);
}

/// An XTC of `frames` (positions nm) in `box` at 1000/nm, written by the engine's XtcWriter.
inline void writeXtc(const std::filesystem::path& file, const std::vector<std::vector<Vec3>>& frames, const Box& box) {
  XtcWriter w(file, frames.at(0).size(), 1000);
  for (std::size_t f = 0; f < frames.size(); ++f) w.writeFrame(frames[f], box, 10 * (long long)f, 0.02 * double(f));
}

/// Parses an OpenDX file written by writeOpenDx: header lines and values (back to x fastest).
struct ParsedDx {
  std::vector<std::string> header;
  int n[3] = {0, 0, 0};
  std::vector<double> values;
  std::string text;
};
inline ParsedDx readDx(const std::filesystem::path& file) {
  std::ifstream in(file);
  std::stringstream ss;
  ss << in.rdbuf();
  ParsedDx p;
  p.text = ss.str();
  std::istringstream lines(p.text);
  std::string line;
  std::size_t items = 0;
  while (std::getline(lines, line)) {
    p.header.push_back(line);
    if (line.rfind("object 1 class gridpositions counts", 0) == 0)
      std::sscanf(line.c_str(), "object 1 class gridpositions counts %d %d %d", &p.n[0], &p.n[1], &p.n[2]);
    if (line.find("data follows") != std::string::npos) {
      std::sscanf(line.c_str(), "object 3 class array type double rank 0 items %zu", &items);
      break;
    }
  }
  std::vector<double> zfast(items);
  for (std::size_t i = 0; i < items; ++i) lines >> zfast[i];
  p.values.resize(items);
  std::size_t c = 0;
  for (int i = 0; i < p.n[0]; ++i)
    for (int j = 0; j < p.n[1]; ++j)
      for (int k = 0; k < p.n[2]; ++k) p.values[(std::size_t(k) * p.n[1] + j) * p.n[0] + i] = zfast[c++];
  return p;
}

inline MapOptions directOptions(bool periodic, const Box& box = Box::rectangular(3, 3, 3)) {
  MapOptions o;
  o.method = MapMethod::Direct;
  o.periodic = periodic;
  o.box = box;
  return o;
}
inline MapOptions cutoffOptions(double rc, bool periodic, const Box& box = Box::rectangular(3, 3, 3)) {
  MapOptions o = directOptions(periodic, box);
  o.method = MapMethod::Cutoff;
  o.cutoff = rc;
  return o;
}

inline Config mapConfig(const std::filesystem::path& dir, const std::string& method, const std::string& file) {
  Config c;
  c.output.directory = dir;
  c.map.enabled = true;
  c.map.method = choiceNamed<MapMethod>(method);
  c.map.spacing = 0.2;
  c.map.cutoff = 0.9;
  c.map.periodic = true;
  c.map.interval = 10;
  c.map.file = file;
  c.map.units = MapUnits::KjPerMolE;
  return c;
}

inline System smallSystem(std::size_t n, const Box& box) {
  System s;
  s.types.push_back({"A", 10, 0, 0.3, 0.5});
  s.box = box;
  const Atoms a = randomAtoms(n, {0, 0, 0}, box.diagonal(), 81);
  s.charge = a.charges;
  s.type.assign(n, 0);
  s.mass.assign(n, 10);
  return s;
}

inline std::vector<std::vector<Vec3>> frames(std::size_t n, const Box& box, int count) {
  std::vector<std::vector<Vec3>> f;
  for (int i = 0; i < count; ++i) f.push_back(randomAtoms(n, {0, 0, 0}, box.diagonal(), 90 + i).positions);
  return f;
}

inline MapOptions pmeOptions(const PmeParams& p, double cutoff, const Box& box) {
  MapOptions o;
  o.method = MapMethod::Pme;
  o.periodic = true;
  o.box = box;
  o.pme = p;
  o.ewaldCutoff = cutoff;
  return o;
}

inline MapOptions pmePotOptions(const PmeParams& p, const Box& box) {
  MapOptions o = pmeOptions(p, 0, box);
  o.method = MapMethod::PmePot;
  return o;
}

/// The lattice's points (nm) in its x-fastest order.
inline std::vector<Vec3> latticePoints(const Lattice& l) {
  std::vector<Vec3> points(l.size());
  for (int k = 0; k < l.nz; ++k)
    for (int j = 0; j < l.ny; ++j)
      for (int i = 0; i < l.nx; ++i) points[l.index(i, j, k)] = l.point(i, j, k);
  return points;
}

/// The potential (kJ/(mol e)) of the charges smeared into Gaussians (beta/sqrt(pi))^3
/// exp(-beta^2 d^2), summed over every periodic image, with the neutralising background of
/// the pme maps: sum_images k_C q_i erf(beta d)/d. That image sum is the point-charge Ewald
/// potential (which does not depend on its splitting parameter) minus
/// sum_images k_C q_i erfc(beta d)/d. The first is evaluated by a plain Ewald sum with a
/// sharp split (beta' = 6/rc', rc' = 0.96 Box::maxCutoff, 0.48 of the shortest edge of a
/// rectangular box: erfc(6) = 2e-17; k space
/// to 1e-14), the second by a direct double loop over the atoms and every image within
/// 6.5/beta of the point (erfc(6.5) = 4e-20). Double precision throughout; no grid. Any
/// box in reduced form.
inline std::vector<double> gaussianPotentialAt(const std::vector<Vec3>& points, const std::vector<Vec3>& positions,
                                               const std::vector<double>& charges, const Box& box, double beta) {
  const double rcSharp = 0.96 * box.maxCutoff();
  const EwaldPotential pointCharges =
      ewaldPotentialAt(points, positions, charges, box, 6.0 / rcSharp, rcSharp, 1e-14);
  const double reach = 6.5 / beta;
  const Vec3 spacing = box.planeSpacings();
  const dcs::ShearedBox cell = dcs::shearedBoxOf(box);
  const auto intoCell = [&](Vec3 r) {
    double x[3] = {r.x, r.y, r.z}, t[3];
    cell.wrapIntoCell(x, t);
    return Vec3{x[0], x[1], x[2]};
  };
  int images[3];
  for (int d = 0; d < 3; ++d) images[d] = int(std::ceil(reach / spacing[d]));
  std::vector<double> phi(points.size());
#pragma omp parallel for schedule(dynamic, 8)
  for (long long p = 0; p < (long long)points.size(); ++p) {
    double smooth = 0;
    // Both in the cell (fractional coordinates in [0, 1)): |n| <= images[d] reaches every
    // image within `reach`.
    const Vec3 point = intoCell(points[p]);
    for (std::size_t a = 0; a < positions.size(); ++a)
      for (int nx = -images[0]; nx <= images[0]; ++nx)
        for (int ny = -images[1]; ny <= images[1]; ++ny)
          for (int nz = -images[2]; nz <= images[2]; ++nz) {
            const Vec3 d = point - intoCell(positions[a]) - (box.a * double(nx) + box.b * double(ny) + box.c * double(nz));
            const double r = std::sqrt(norm2(d));
            if (r < reach && r >= dcs::kMinDistance) smooth += charges[a] * std::erfc(beta * r) / r;
          }
    phi[p] = pointCharges.total(std::size_t(p)) - units::kCoulomb * smooth;
  }
  return phi;
}

/// The GPU PME map (CudaPmeMap, options `o`) of two frames, `s` then `moved`, on `l` in `box`:
/// its relative RMS difference from the CPU map of the same frames, and whether a second GPU
/// map of them has the same bits.
struct GpuPmeMapCheck {
  double relRmsVsCpu = 0;
  bool repeatable = false;
};
inline GpuPmeMapCheck gpuPmeMapOfTwoFrames(const Lattice& l, const MapOptions& o, const Ions& s, const Ions& moved,
                                           const Box& box) {
  std::vector<double> cpu;
  CpuPmeMap cpuMap(o);
  cpuMap.addFrame(l, s.positions, s.charges, box, cpu);
  cpuMap.addFrame(l, moved.positions, moved.charges, box, cpu);
  CudaPmeMap gpu(l, o), again(l, o);
  for (CudaPmeMap* g : {&gpu, &again}) {
    g->addFrame(s.positions, s.charges, box);
    g->addFrame(moved.positions, moved.charges, box);
  }
  const std::vector<double> a = gpu.sum(), b = again.sum();
  GpuPmeMapCheck check;
  check.relRmsVsCpu = relRms(a, cpu);
  check.repeatable = a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0;
  return check;
}

/// A configuration file of ions for `faraday map` with map.method = pme.
struct MapCase {
  std::filesystem::path dir;
  Box box = Box::rectangular(2.6, 2.5, 2.4);
  std::vector<double> charges;
  std::vector<std::vector<Vec3>> frames;
};

/// The case's files for `ions` in `box` (any box in reduced form).
inline MapCase writeMapCase(const std::string& name, const std::string& platform, const Box& box, const Ions& ions) {
  MapCase c;
  c.dir = pmeMapTempDir(name);
  c.box = box;
  Coordinates co;
  co.title = "ions";
  co.box = c.box;
  for (std::size_t i = 0; i < ions.positions.size(); ++i) {
    co.residueId.push_back(int(i) + 1);
    co.residueName.push_back(ions.charges[i] > 0 ? "NA" : "CL");
    co.atomName.push_back(ions.charges[i] > 0 ? "NA" : "CL");
    co.positions.push_back(ions.positions[i]);
    c.charges.push_back(ions.charges[i]);
  }
  writeGro(c.dir / "ions.gro", co);
  for (int f = 0; f < 3; ++f) {
    Ions t = ions;
    test::translate(t, {0.11 * f, -0.07 * f, 0.05 * f});
    c.frames.push_back(t.positions);
  }
  {
    DcdWriter w(c.dir / "ions.dcd", co.size(), 0, 10, 0.002);
    for (const auto& f : c.frames) w.writeFrame(f, c.box);
  }
  std::ofstream cfg(c.dir / "map.cfg");
  cfg << "[system]\ncoordinates = ions.gro\n\n[atom.NA]\nmass = 22.99\ncharge = 1\nsigma = 0.33\nepsilon = 0.01\n\n"
         "[atom.CL]\nmass = 35.45\ncharge = -1\nsigma = 0.44\nepsilon = 0.4\n\n[nonbonded]\ncutoff = 1.0\n\n"
         "[electrostatics]\nmethod = pme\npme_order = 5\nfourier_spacing = 0.1\n\n[run]\nplatform = "
      << platform
      << "\n\n[output]\ndirectory = out\n\n"
         "[map]\nmethod = pme\nspacing = 0.2\ntrajectory = ions.dcd\nfile = ions.dx\nunits = kJ/mol/e\n";
  return c;
}

/// 80 random ions in a 2.4 nm cube, in the box 2.6 x 2.5 x 2.4 nm.
inline MapCase writeMapCase(const std::string& name, const std::string& platform) {
  return writeMapCase(name, platform, Box::rectangular(2.6, 2.5, 2.4), test::randomIons(80, 2.4, 33));
}

/// The case's ions as a System (one atom type; the map reporter reads charges and box).
inline System mapCaseSystem(const MapCase& c) {
  System sys;
  sys.types.push_back({"NA", 22.99, 1, 0.33, 0.01});
  sys.box = c.box;
  sys.charge = c.charges;
  sys.type.assign(c.charges.size(), 0);
  sys.mass.assign(c.charges.size(), 22.99);
  return sys;
}

/// A backend on run.platform of the case's config, `steps` steps past the case's
/// coordinates (dt 0.5 fs: the random ions start close), settled: on cuda its slots are a
/// permutation of the particles by then.
struct SteppedBackend {
  Config config;
  faraday::Setup setup;
  std::unique_ptr<Backend> backend;
};
inline SteppedBackend steppedBackend(const MapCase& c, int steps) {
  SteppedBackend b{loadConfig(c.dir / "map.cfg", {}), {}, nullptr};
  b.config.integrator.dt = 0.0005;
  b.setup = buildSetup(b.config);
  b.backend = makeBackend(b.config, b.setup.system, nullptr);
  b.backend->setState(b.setup.state, {});
  b.backend->computeForces();
  for (int i = 0; i < steps; ++i) b.backend->advance(false);
  b.backend->settle();
  return b;
}

/// The CPU reference map of the case's DCD frames (float Angstrom) averaged.
inline std::vector<double> referenceMap(const MapCase& c, const Config& config) {
  MapOptions o = pmeOptions({}, 0, c.box);
  applyEwaldSetup(chooseEwaldSetup(config, c.box), o);
  EXPECT_EQ(o.pme.order, 5);
  CpuPmeMap map(o);
  const Lattice l = Lattice::fromBox(c.box, 0.2);
  std::vector<double> mean;
  for (const auto& frame : c.frames) {
    std::vector<Vec3> p = frame;
    for (Vec3& r : p) r = Vec3{float(r.x * 10), float(r.y * 10), float(r.z * 10)} / 10.0;  // DCD: float Angstrom
    map.addFrame(l, p, c.charges, c.box, mean);
  }
  for (double& v : mean) v /= double(c.frames.size());
  return mean;
}

inline std::vector<double> readDxValues(const std::filesystem::path& file, int n[3]) {
  std::ifstream in(file);
  std::string line;
  std::size_t items = 0;
  while (std::getline(in, line)) {
    if (line.rfind("object 1 class gridpositions counts", 0) == 0)
      std::sscanf(line.c_str(), "object 1 class gridpositions counts %d %d %d", &n[0], &n[1], &n[2]);
    if (line.find("data follows") != std::string::npos) {
      std::sscanf(line.c_str(), "object 3 class array type double rank 0 items %zu", &items);
      break;
    }
  }
  std::vector<double> zfast(items), xfast(items);
  for (double& v : zfast) in >> v;
  std::size_t k = 0;
  for (int a = 0; a < n[0]; ++a)
    for (int b = 0; b < n[1]; ++b)
      for (int d = 0; d < n[2]; ++d) xfast[(std::size_t(d) * n[1] + b) * n[0] + a] = zfast[k++];
  return xfast;
}

}  // namespace faraday::test
