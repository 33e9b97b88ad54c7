#pragma once
// Helpers for the engine I/O tests: temporary folders, small argon inputs, and running
// the real `faraday` executable with its exit code and output captured.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "engine/formats/Coordinates.h"
#include "engine/setup/FccLattice.h"
#include "engine/formats/GroFile.h"
#include "tests/TestSupport.h"

namespace faraday::test {

namespace fs = std::filesystem;

/// A fresh folder under the system temp folder, removed at the end of the test.
class TempDir {
 public:
  TempDir() {
    std::string pattern = (fs::temp_directory_path() / "faraday_test_XXXXXX").string();
    if (!::mkdtemp(pattern.data())) throw std::runtime_error("mkdtemp failed");
    path_ = pattern;
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const fs::path& path() const { return path_; }
  fs::path operator/(const std::string& name) const { return path_ / name; }

 private:
  fs::path path_;
};

inline void writeText(const fs::path& file, const std::string& text) {
  std::ofstream out(file, std::ios::binary);
  out << text;
}

inline std::string readText(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

/// Lines of `text` (without line ends).
inline std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> v;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) v.push_back(line);
  return v;
}

inline std::string joinLines(const std::vector<std::string>& v) {
  std::string s;
  for (const std::string& line : v) s += line + "\n";
  return s;
}

/// Column `k` of the data rows of a CSV file (rows starting with '#' are headers).
inline std::vector<double> csvColumn(const fs::path& file, int k) {
  std::vector<double> out;
  for (const std::string& row : lines(readText(file))) {
    if (row.empty() || row[0] == '#') continue;
    std::stringstream s(row);
    std::string field;
    for (int i = 0; i <= k; ++i) std::getline(s, field, ',');
    out.push_back(std::stod(field));
  }
  return out;
}

/// .gro text of cells^3 fcc argon cells (4 atoms each), atom name AR.
inline std::string argonGro(int cells) {
  const BuiltSystem built = fccArgon(cells);
  Coordinates c;
  c.title = "test argon";
  for (std::size_t i = 0; i < built.positions.size(); ++i) {
    c.residueId.push_back(int(i) + 1);
    c.residueName.push_back("AR");
    c.atomName.push_back("AR");
  }
  c.positions = built.positions;
  c.box = built.system.box;
  return groText(c);
}

/// A config for argon.gro in the same folder: LJ only, Langevin, outputs in out/.
inline std::string argonConfig(long long steps = 20, double cutoff = 0.7) {
  std::ostringstream s;
  s << "# test system\n"
       "[system]\n"
       "coordinates = argon.gro\n"
       "temperature = 90\n"
       "\n"
       "[atom.AR]\n"
       "mass = 39.948\n"
       "charge = 0\n"
       "sigma = 0.3405\n"
       "epsilon = 0.99774\n"
       "\n"
       "[nonbonded]\n"
       "cutoff = " << cutoff << "\n"
       "buffer = 0.1\n"
       "\n"
       "[electrostatics]\n"
       "method = none\n"
       "\n"
       "[integrator]\n"
       "type = langevin\n"
       "dt = 0.004\n"
       "temperature = 90\n"
       "\n"
       "[run]\n"
       "steps = " << steps << "\n"
       "platform = cpu\n"
       "threads = 1\n"
       "progress_interval = 0\n"
       "\n"
       "[output]\n"
       "directory = out\n"
       "energy_interval = 10\n"
       "trajectory_interval = 10\n"
       "checkpoint_interval = 1000\n";
  return s.str();
}

/// Line number (1-based) of the first line of `text` that contains `needle`; 0 if none.
inline long lineOf(const std::string& text, const std::string& needle) {
  const std::vector<std::string> v = lines(text);
  for (std::size_t i = 0; i < v.size(); ++i)
    if (v[i].find(needle) != std::string::npos) return long(i) + 1;
  return 0;
}

struct CommandResult {
  int exitCode = -1;
  std::string out, err;
};

inline std::string shellQuote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

#define EXPECT_HAS(text, part) EXPECT_NE((text).find(part), std::string::npos) << "missing '" << (part) << "' in: " << (text)

/// A folder holding argon.gro (3^3 fcc cells, 108 atoms) and sim.cfg (argonConfig()).
class ArgonFolderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    writeText(dir / "argon.gro", argonGro(3));
    writeText(dir / "sim.cfg", argonConfig());
  }
  TempDir dir;
};

/// Runs `faraday ARGS` in `folder`, capturing stdout, stderr and the exit code.
inline CommandResult runFaraday(const fs::path& folder, const std::vector<std::string>& args) {
  std::string command = "cd " + shellQuote(folder.string()) + " && " + shellQuote(faradayExecutable());
  for (const std::string& a : args) command += " " + shellQuote(a);
  command += " > faraday.out 2> faraday.err";
  const int status = std::system(command.c_str());
  CommandResult r;
  r.exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = readText(folder / "faraday.out");
  r.err = readText(folder / "faraday.err");
  return r;
}

/// `faraday run` of conf.gro and topol.top in `folder`: 2 steps of 0.5 fs on the CPU into out/.
inline CommandResult runTopologySteps(const fs::path& folder) {
  writeText(folder / "sim.cfg", "[system]\ncoordinates = conf.gro\ntopology = topol.top\n[integrator]\ndt = 0.0005\n"
                                "[run]\nsteps = 2\nplatform = cpu\nthreads = 1\nprogress_interval = 0\n"
                                "[output]\ndirectory = out\n");
  return runFaraday(folder, {"run", "sim.cfg"});
}

/// A refused run of `faraday` in `folder`: a non-zero exit, one error line naming `where` and
/// saying `what`, and no output folder `out` made.
inline void expectRefusedRun(const CommandResult& r, const fs::path& folder, const std::string& where,
                             const std::string& what) {
  EXPECT_NE(r.exitCode, 0);
  EXPECT_EQ(lines(r.err).size(), 1u) << r.err;
  EXPECT_NE(r.err.find(where), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(what), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(folder / "out")) << "an output folder was made";
}

/// Starts `faraday ARGS` in `folder` as a child process (stdout/stderr to files); returns its
/// pid. `beforeExec`, when given, runs in the child just before the executable starts (e.g. to
/// set a resource limit).
inline pid_t startFaraday(const fs::path& folder, const std::vector<std::string>& args,
                          const std::function<void()>& beforeExec = {}) {
  const pid_t pid = ::fork();
  if (pid == 0) {
    if (::chdir(folder.c_str()) != 0) ::_exit(126);
    const int out = ::open("faraday.out", O_WRONLY | O_CREAT | O_TRUNC, 0644);
    const int err = ::open("faraday.err", O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ::dup2(out, 1);
    ::dup2(err, 2);
    ::signal(SIGINT, SIG_DFL);
    ::signal(SIGTERM, SIG_DFL);
    if (beforeExec) beforeExec();
    std::vector<std::string> all = {faradayExecutable()};
    all.insert(all.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (std::string& a : all) argv.push_back(a.data());
    argv.push_back(nullptr);
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
  return pid;
}

/// Polls `ready` every 10 ms for up to `seconds`; returns whether it came true.
template <typename Ready>
bool waitUntil(Ready ready, double seconds = 60) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (!ready()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return true;
}

/// Waits up to `seconds` for `pid`; kills it and returns -1 on timeout, else its exit code.
inline int waitFor(pid_t pid, double seconds) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  int status = 0;
  while (::waitpid(pid, &status, WNOHANG) == 0) {
    if (std::chrono::steady_clock::now() > deadline) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, &status, 0);
      return -1;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

}  // namespace faraday::test
