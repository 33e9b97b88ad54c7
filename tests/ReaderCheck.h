#pragma once
// tools/reader_check.py from the tests: Faraday's DCD files through MDAnalysis, its maps
// through GridDataFormats and mrcfile (each test skips where the reader is not installed).
#include <gtest/gtest.h>

#include <sys/wait.h>

#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

#include "tests/EngineTestSupport.h"

namespace faraday::test {

/// Runs `tools/reader_check.py WHAT FILE OUT` in `dir`; the exit code (77: the reader is not
/// importable), its messages in reader_check.out.
inline int readerCheck(const fs::path& dir, const std::string& what, const std::string& file, const std::string& out) {
  const std::string command = "cd " + shellQuote(dir.string()) + " && python3 " +
                              shellQuote(sourceDir() + "/tools/reader_check.py") + " " + what + " " +
                              shellQuote(file) + " " + shellQuote(out) + " > reader_check.out 2>&1";
  const int status = std::system(command.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/// Runs readerCheck and skips the test when the reader is missing; fails on another error.
#define RUN_READER_CHECK_OR_SKIP(dir, what, file, out)                                                    \
  do {                                                                                                  \
    const int readerStatus = ::faraday::test::readerCheck(dir, what, file, out);                         \
    if (readerStatus == 77)                                                                             \
      GTEST_SKIP() << "reader not importable: " << ::faraday::test::readText((dir) / "reader_check.out"); \
    ASSERT_EQ(readerStatus, 0) << ::faraday::test::readText((dir) / "reader_check.out");                \
  } while (0)

/// The lines of reader_check.py's output split into words.
inline std::vector<std::vector<std::string>> readerCheckWords(const fs::path& file) {
  std::vector<std::vector<std::string>> out;
  std::istringstream in(readText(file));
  for (std::string line; std::getline(in, line);) {
    std::istringstream words(line);
    std::vector<std::string> w;
    for (std::string x; words >> x;) w.push_back(x);
    if (!w.empty()) out.push_back(std::move(w));
  }
  return out;
}

/// Words [1, end) of a line as numbers.
inline std::vector<double> numbersOf(const std::vector<std::string>& words) {
  std::vector<double> v;
  for (std::size_t i = 1; i < words.size(); ++i) v.push_back(std::stod(words[i]));
  return v;
}

}  // namespace faraday::test
