#pragma once
#include <filesystem>
#include <fstream>
#include <string>

namespace faraday {

/// Writes a file so that PATH is always either its old complete content or the new complete
/// content: the text goes to PATH.tmp, and commit() syncs it to disk and renames it over
/// PATH. A writer destroyed without commit() (a failed write, an exception, a bad frame)
/// removes PATH.tmp, so that a failure leaves no temporary file and PATH as it was.
///
/// A PATH that exists and is not a regular file (isSpecialFile: /dev/null, another character
/// device, a FIFO), also through a symbolic link, is written through: no PATH.tmp, no rename
/// and no PATH.prev, so that the device stays a device (a rename would replace /dev/null by
/// a plain file). A FIFO must have a reader when the writer opens it.
class AtomicFileWriter {
 public:
  /// Creates PATH.tmp (or opens PATH itself when isSpecialFile(PATH)); throws Error naming
  /// it ("cannot create: <reason>").
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
  /// Whether PATH is written in place (a device or a FIFO): the stream may not seek.
  bool writesThrough() const { return through_; }

 private:
  std::filesystem::path path_, tmp_;
  std::ofstream out_;
  bool committed_ = false;
  bool through_ = false;
};

/// Whether `path` exists (after following symbolic links) and is neither a regular file nor a
/// folder: a character or block device, a FIFO or a socket. Such an output is written through.
bool isSpecialFile(const std::filesystem::path& path);

/// Writes `content` to `path` so that `path` is always either the old complete file or
/// the new complete file (AtomicFileWriter: PATH.tmp, fsync, rename). With `keepPrevious`
/// the old PATH is first renamed to PATH.prev. Throws Error naming the file.
void writeFileAtomically(const std::filesystem::path& path, const std::string& content, bool keepPrevious = false);

/// Creates the folder of `path` and checks that `path` can be written there (by creating and
/// removing PATH.tmp; a special file, isSpecialFile, by its write permission alone), before
/// a long computation whose result goes to `path`. Throws Error naming the file and the
/// system's reason.
void checkWritable(const std::filesystem::path& path);

/// The whole file as bytes; throws Error naming the file when it cannot be read.
std::string readWholeFile(const std::filesystem::path& path, const char* what);

}  // namespace faraday
