#pragma once
#include <filesystem>
#include <fstream>
#include <string>

namespace faraday {

/// Writes a file so that PATH is always either its old complete content or the new complete
/// content: the text goes to PATH.tmp, and commit() syncs it to disk and renames it over
/// PATH. A writer destroyed without commit() (a failed write, an exception, a bad frame)
/// removes PATH.tmp, so that a failure leaves no temporary file and PATH as it was.
class AtomicFileWriter {
 public:
  /// Creates PATH.tmp; throws Error naming it ("cannot create: <reason>").
  explicit AtomicFileWriter(const std::filesystem::path& path);
  ~AtomicFileWriter();
  AtomicFileWriter(const AtomicFileWriter&) = delete;
  AtomicFileWriter& operator=(const AtomicFileWriter&) = delete;

  /// The stream into PATH.tmp (binary).
  std::ostream& out() { return out_; }
  /// Flushes what was written so far, so that PATH.tmp holds it; throws Error naming PATH.tmp
  /// ("write failed: <reason>") when any write so far failed.
  void flush();
  /// flush(), fsync, then renames PATH.tmp over PATH (with `keepPrevious`, the old PATH is
  /// first renamed to PATH.prev). Throws Error naming the file; PATH.tmp is then removed.
  void commit(bool keepPrevious = false);
  const std::filesystem::path& path() const { return path_; }
  const std::filesystem::path& temporaryPath() const { return tmp_; }

 private:
  std::filesystem::path path_, tmp_;
  std::ofstream out_;
  bool committed_ = false;
};

/// Writes `content` to `path` so that `path` is always either the old complete file or
/// the new complete file (AtomicFileWriter: PATH.tmp, fsync, rename). With `keepPrevious`
/// the old PATH is first renamed to PATH.prev. Throws Error naming the file.
void writeFileAtomically(const std::filesystem::path& path, const std::string& content, bool keepPrevious = false);

/// Creates the folder of `path` and checks that `path` can be written there (by creating and
/// removing PATH.tmp), before a long computation whose result goes to `path`. Throws Error
/// naming the file and the system's reason.
void checkWritable(const std::filesystem::path& path);

/// The whole file as bytes; throws Error naming the file when it cannot be read.
std::string readWholeFile(const std::filesystem::path& path, const char* what);

}  // namespace faraday
