#pragma once
#include <filesystem>
#include <string>

namespace faraday {

/// Writes `content` to `path` so that `path` is always either the old complete file or
/// the new complete file: write PATH.tmp, fsync, then rename over PATH. With
/// `keepPrevious` the old PATH is first renamed to PATH.prev. Throws Error naming the file.
void writeFileAtomically(const std::filesystem::path& path, const std::string& content, bool keepPrevious = false);

/// Creates the folder of `path` and checks that `path` can be written there (by creating and
/// removing PATH.tmp), before a long computation whose result goes to `path`. Throws Error
/// naming the file and the system's reason.
void checkWritable(const std::filesystem::path& path);

/// The whole file as bytes; throws Error naming the file when it cannot be read.
std::string readWholeFile(const std::filesystem::path& path, const char* what);

}  // namespace faraday
