#pragma once
// The preprocessor of GROMACS topologies, as grompp's own (not the C preprocessor):
//   #include "file" (or <file>), #define NAME [value], #undef NAME, #ifdef NAME, #ifndef NAME,
//   #else, #endif (nested; each file closes what it opens). Any other # directive in an
//   active region is an error.
// Every other line of an active region has each define that has a value replaced where it
// stands as a whole word (letters, digits and '_'), defines taken in the order they were
// made: this is how the GROMOS macros (gb_, ga_, gd_) become parameter fields. A line whose
// last non-blank character is '\' continues on the next line; ';' starts a comment.
#include <filesystem>
#include <string>
#include <vector>

#include "engine/formats/gromacs/TopLine.h"

namespace faraday {

/// Where an #include "name" is looked for, in order: the directory of the including file,
/// then `includeDirs`, then each directory of the GMXLIB environment variable
/// (colon-separated), then the GROMACS data directory ($GMXDATA/top when GMXDATA is set,
/// and /usr/share/gromacs/top or /usr/local/gromacs/share/gromacs/top where present).
/// This function gives the part after the including file's directory.
std::vector<std::filesystem::path> topologyIncludePath(const std::vector<std::filesystem::path>& includeDirs);

/// The non-empty lines of `top` and everything it includes, in order. `defines` are
/// grompp's "-DNAME" or "-DNAME=value" options (the mdp `define` split at blanks). Warnings
/// (a -D define the topology never uses) are appended to `warnings`. Throws Error naming the
/// file and line: a missing include, an unknown # directive, #else or #endif without #ifdef,
/// an #ifdef without #endif in its file.
std::vector<TopLine> preprocessTopology(const std::filesystem::path& top, const std::vector<std::string>& defines,
                                        const std::vector<std::filesystem::path>& includeDirs,
                                        std::vector<std::string>& warnings);

}  // namespace faraday
