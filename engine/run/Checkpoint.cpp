#include "engine/run/Checkpoint.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <sstream>

#include "engine/formats/AtomicFile.h"
#include "core/Error.h"

namespace faraday {
namespace {

constexpr char kMagic[8] = {'F', 'A', 'R', 'A', 'D', 'A', 'Y', 'C'};
constexpr std::uint32_t kVersion = 3;  ///< 3: the system's fingerprint; 2: the barostat state; 1 and 2 are still read
constexpr std::uint32_t kByteOrderMark = 0x01020304u;

/// Appends plain values to a byte string.
struct ByteWriter {
  std::string bytes;
  template <typename T>
  void put(const T& v) {
    bytes.append(reinterpret_cast<const char*>(&v), sizeof v);
  }
  void putVectors(const std::vector<Vec3>& v) {
    put<std::uint64_t>(v.size());
    for (const Vec3& x : v) put(x.x), put(x.y), put(x.z);
  }
  void putString(const std::string& s) {
    put<std::uint64_t>(s.size());
    bytes += s;
  }
  void putFingerprint(const SystemFingerprint& f) {
    put<std::uint64_t>(f.size());
    for (const FingerprintSection& s : f) {
      putString(s.name);
      put<std::uint64_t>(s.items.size());
      bytes.append(reinterpret_cast<const char*>(s.items.data()), s.items.size() * sizeof(std::uint64_t));
    }
  }
};

/// Reads plain values with bounds checks; errors name the file.
struct ByteReader {
  const std::string& bytes;
  std::string file;
  std::size_t at = 0;

  void need(std::size_t n, const char* what) const {
    if (at + n > bytes.size() || at + n < at)
      throw fileError(file, 0, std::string("truncated or corrupt checkpoint (reading ") + what + ")");
  }
  template <typename T>
  T get(const char* what) {
    need(sizeof(T), what);
    T v;
    std::memcpy(&v, bytes.data() + at, sizeof v);
    at += sizeof v;
    return v;
  }
  std::vector<Vec3> getVectors(const char* what, std::size_t expected) {
    const auto n = get<std::uint64_t>(what);
    if (n != expected && !(expected == std::size_t(-1) && n <= bytes.size()))
      throw fileError(file, 0, std::string("checkpoint ") + what + " has " + std::to_string(n) + " entries, expected " +
                      std::to_string(expected));
    need(n * 3 * sizeof(double), what);
    std::vector<Vec3> v(n);
    for (Vec3& x : v) x.x = get<double>(what), x.y = get<double>(what), x.z = get<double>(what);
    return v;
  }
  std::string getString(const char* what) {
    const auto n = get<std::uint64_t>(what);
    need(n, what);
    std::string s = bytes.substr(at, n);
    at += n;
    return s;
  }
  SystemFingerprint getFingerprint() {
    const char* what = "system fingerprint";
    const auto sections = get<std::uint64_t>(what);
    if (sections > 1000) throw fileError(file, 0, "corrupt checkpoint (system fingerprint)");
    SystemFingerprint f(sections);
    for (FingerprintSection& s : f) {
      s.name = getString(what);
      const auto n = get<std::uint64_t>(what);
      if (n > bytes.size() / sizeof(std::uint64_t)) throw fileError(file, 0, "corrupt checkpoint (system fingerprint)");
      need(n * sizeof(std::uint64_t), what);
      s.items.resize(n);
      std::memcpy(s.items.data(), bytes.data() + at, n * sizeof(std::uint64_t));
      at += n * sizeof(std::uint64_t);
    }
    return f;
  }
};

/// The "key=value" lines of a physics description, in order.
std::vector<std::pair<std::string, std::string>> physicsLines(const std::string& text) {
  std::vector<std::pair<std::string, std::string>> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    const std::size_t eq = line.find('=');
    out.emplace_back(line.substr(0, eq), eq == std::string::npos ? "" : line.substr(eq + 1));
  }
  return out;
}

/// The first setting that differs, by key: a key only one side has is named as such.
std::string firstDifference(const std::string& saved, const std::string& current) {
  const auto a = physicsLines(saved), b = physicsLines(current);
  const auto find = [](const auto& lines, const std::string& key) {
    return std::find_if(lines.begin(), lines.end(), [&key](const auto& l) { return l.first == key; });
  };
  for (const auto& [key, value] : a) {
    const auto other = find(b, key);
    if (other == b.end()) return key + "=" + value + " in the checkpoint (not in this run)";
    if (other->second != value) return "checkpoint has " + key + "=" + value + ", this run " + key + "=" + other->second;
  }
  for (const auto& [key, value] : b)
    if (find(a, key) == a.end()) return key + "=" + value + " (not in the checkpoint)";
  return "";
}

std::uint32_t checkHeader(ByteReader& r, std::size_t atoms) {
  if (r.bytes.size() < sizeof kMagic || std::memcmp(r.bytes.data(), kMagic, sizeof kMagic) != 0)
    throw fileError(r.file, 0, "not a Faraday checkpoint");
  r.at = sizeof kMagic;
  const auto version = r.get<std::uint32_t>("version");
  if (version < 1 || version > kVersion)
    throw fileError(r.file, 0, "checkpoint version " + std::to_string(version) + " is not supported (expected " +
                    std::to_string(kVersion) + ")");
  if (r.get<std::uint32_t>("byte order") != kByteOrderMark)
    throw fileError(r.file, 0, "checkpoint written on a machine with another byte order");
  const auto n = r.get<std::uint64_t>("atom count");
  if (n != atoms)
    throw fileError(r.file, 0, "checkpoint has " + std::to_string(n) + " atoms, the system has " + std::to_string(atoms));
  return version;
}

void checkChecksum(const std::string& bytes, const std::string& file) {
  if (bytes.size() < sizeof(std::uint64_t)) throw fileError(file, 0, "truncated checkpoint");
  const std::size_t body = bytes.size() - sizeof(std::uint64_t);
  std::uint64_t stored;
  std::memcpy(&stored, bytes.data() + body, sizeof stored);
  if (fnv1a(bytes.data(), body) != stored) throw fileError(file, 0, "corrupt checkpoint (checksum mismatch)");
}

}  // namespace

std::uint64_t fnv1a(const void* data, std::size_t bytes, std::uint64_t hash) {
  const auto* p = static_cast<const unsigned char*>(data);
  for (std::size_t i = 0; i < bytes; ++i) hash = (hash ^ p[i]) * 1099511628211ull;
  return hash;
}

std::string physicsDescription(const Config& config, const System& system) {
  std::string names;
  for (const std::string& n : system.atomName) names += n + '\n';
  std::ostringstream s;
  s << "atoms=" << system.size() << '\n';
  s << "atom_names_hash=" << fnv1a(names.data(), names.size()) << '\n';
  for (const auto& [key, value] : config.effective) {
    const bool physics = key.rfind("atom.", 0) == 0 || key.rfind("nonbonded.", 0) == 0 ||
                         key.rfind("electrostatics.", 0) == 0 || key.rfind("integrator.", 0) == 0 ||
                         key.rfind("gravity.", 0) == 0 || key.rfind("typed.", 0) == 0 ||
                         (key.rfind("barostat.", 0) == 0 && config.barostat.enabled) || key == "system.constraints" ||
                         key == "system.hydrogen_mass";
    // The defines choose the topology's terms (-DFLEXIBLE: flexible water); listed when set,
    // so that checkpoints of runs without defines stay valid.
    if (physics || (key == "system.defines" && !value.empty())) s << key << '=' << value << '\n';
  }
  return s.str();
}

void writeCheckpoint(const std::filesystem::path& file, const Checkpoint& c) {
  ByteWriter w;
  w.bytes.append(kMagic, sizeof kMagic);
  w.put(kVersion);
  w.put(kByteOrderMark);
  w.put<std::uint64_t>(c.positions.size());
  w.put<std::int64_t>(c.step);
  w.put(c.time);
  for (const Vec3* v : {&c.box.a, &c.box.b, &c.box.c}) w.put(v->x), w.put(v->y), w.put(v->z);
  w.putVectors(c.positions);
  w.putVectors(c.velocities);
  w.putVectors(c.listReference);
  w.putString(c.physics);
  w.put<std::uint64_t>(fnv1a(c.physics.data(), c.physics.size()));
  const BarostatState& b = c.barostat;
  w.put(b.maxVolumeChange);
  for (const long long v : {b.attempts, b.accepted, b.windowAttempts, b.windowAccepted}) w.put<std::int64_t>(v);
  w.putFingerprint(c.fingerprint);
  w.put<std::uint64_t>(fnv1a(w.bytes.data(), w.bytes.size()));
  writeFileAtomically(file, w.bytes, /*keepPrevious=*/true);
}

Checkpoint readCheckpoint(const std::filesystem::path& file, std::size_t atoms, const std::string& physics) {
  const std::string bytes = readWholeFile(file, "checkpoint file");
  ByteReader r{bytes, file.string()};
  const std::uint32_t version = checkHeader(r, atoms);
  checkChecksum(bytes, file.string());
  Checkpoint c;
  c.step = r.get<std::int64_t>("step");
  c.time = r.get<double>("time");
  for (Vec3* v : {&c.box.a, &c.box.b, &c.box.c}) v->x = r.get<double>("box"), v->y = r.get<double>("box"), v->z = r.get<double>("box");
  c.positions = r.getVectors("positions", atoms);
  c.velocities = r.getVectors("velocities", atoms);
  c.listReference = r.getVectors("list reference", std::size_t(-1));
  if (!c.listReference.empty() && c.listReference.size() != atoms)
    throw fileError(r.file, 0, "checkpoint list reference has the wrong number of atoms");
  c.physics = r.getString("physics description");
  const auto hash = r.get<std::uint64_t>("physics hash");
  if (hash != fnv1a(c.physics.data(), c.physics.size())) throw fileError(r.file, 0, "corrupt checkpoint (physics hash)");
  if (version >= 2) {
    BarostatState& b = c.barostat;
    b.maxVolumeChange = r.get<double>("barostat");
    for (long long* v : {&b.attempts, &b.accepted, &b.windowAttempts, &b.windowAccepted}) *v = r.get<std::int64_t>("barostat");
    if (!(b.maxVolumeChange >= 0) || !std::isfinite(b.maxVolumeChange) || b.attempts < 0 || b.accepted < 0 ||
        b.accepted > b.attempts || b.windowAttempts < 0 || b.windowAccepted < 0)
      throw fileError(r.file, 0, "corrupt checkpoint (barostat state)");
  }
  if (version >= 3) c.fingerprint = r.getFingerprint();
  if (r.at + sizeof(std::uint64_t) != bytes.size()) throw fileError(r.file, 0, "corrupt checkpoint (unexpected trailing data)");
  if (c.step < 0 || !c.box.isValid()) throw fileError(r.file, 0, "corrupt checkpoint (step or box)");
  if (!std::isfinite(c.time)) throw fileError(r.file, 0, "checkpoint holds a non-finite time");
  const std::pair<const char*, const std::vector<Vec3>*> arrays[] = {
      {"position", &c.positions}, {"velocity", &c.velocities}, {"neighbor-list reference position", &c.listReference}};
  for (const auto& [what, values] : arrays)
    for (std::size_t i = 0; i < values->size(); ++i)
      if (!isFinite((*values)[i]))
        throw fileError(r.file, 0, std::string("checkpoint holds a non-finite ") + what + " of atom " +
                                       std::to_string(i + 1) + " (atoms count from 1)");
  if (!physics.empty() && fnv1a(physics.data(), physics.size()) != hash)
    throw fileError(r.file, 0, "checkpoint was written for a different system or settings: " +
                    firstDifference(c.physics, physics));
  return c;
}

void checkSameSystem(const Checkpoint& checkpoint, const System& system, const std::filesystem::path& file) {
  if (checkpoint.fingerprint.empty()) return;
  const std::string difference = fingerprintDifference(checkpoint.fingerprint, systemFingerprint(system), system);
  if (!difference.empty())
    throw fileError(file.string(), 0, "checkpoint was written for a different system: " + difference +
                                          "; a restart continues the system it was written for");
}

}  // namespace faraday
