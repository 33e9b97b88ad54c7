#pragma once
#include <filesystem>
#include <fstream>
#include <ostream>
#include <streambuf>
#include <string>

#include "engine/config/Config.h"
#include "core/System.h"

namespace faraday {

/// The run's log, as GROMACS' md.log: everything `faraday run` prints on stdout (effective
/// configuration, system, timing table, ns/day) also goes to output.log_file, with what is
/// written to the file only (command line, OpenMP and electrostatics setup, warnings, the
/// error that stopped a run). Text is kept in memory until open(), which the run calls once
/// its input has been checked and its outputs are created: bad input leaves no log behind.
class RunLog : public std::ostream {
 public:
  explicit RunLog(std::ostream& console);
  ~RunLog() override;
  /// Writes what was kept to `file` (appended to a previous log when `append`, after a
  /// separator line), then writes through. Throws Error naming the file.
  void open(const std::filesystem::path& file, bool append);
  /// Text for the file only (not the console).
  void fileOnly(const std::string& text);

 private:
  class Tee : public std::streambuf {
   public:
    explicit Tee(std::ostream& console) : console_(console) {}
    void toFile(const std::string& text);
    void open(const std::filesystem::path& file, bool append);

   protected:
    int overflow(int c) override;
    std::streamsize xsputn(const char* s, std::streamsize n) override;
    int sync() override;

   private:
    std::ostream& console_;
    std::string kept_;  ///< file text before open()
    std::ofstream file_;
    std::filesystem::path path_;
    std::string failure_;  ///< why the first write failed: later writes report it, not a stale errno
  };
  Tee tee_;
};

/// Text for the file only when `log` is a RunLog (nothing otherwise).
void logFileOnly(std::ostream& log, const std::string& text);
/// A note for the user: "faraday: note: TEXT" on stderr, and "Note: TEXT" in the run log.
void logNote(std::ostream& log, const std::string& text);
/// Opens the run log in `file` when `log` is a RunLog.
void openRunLog(std::ostream& log, const std::filesystem::path& file, bool append);

/// The part of the run log that says how the run is set up: OpenMP threads and how idle
/// threads wait, and the electrostatics (method, beta, grid, order, estimated force error),
/// or, in nonbonded.mode = all-pairs, the pair interaction and the pairs per step.
std::string runSetupSummary(const Config& config, const System& system);

}  // namespace faraday
