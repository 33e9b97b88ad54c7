// The README's command blocks run as written, in order, in a copy of the repository's layout
// (systems/ copied, tools/ and build/faraday linked), on the CPU: runs shortened by
// --run.steps, benchmarks by their size options, lines "on a GPU machine" left out. Every
// command exits 0 and every output lands in out/.
#include <gtest/gtest.h>

#include <regex>
#include <set>

#include "tests/EngineTestSupport.h"

namespace faraday::test {
namespace {

/// The command lines of the README's ```sh blocks after the quick start: comment lines
/// dropped, each line with its trailing comment (after " #") apart.
struct ReadmeCommand {
  std::string line, comment;
};

std::vector<ReadmeCommand> readmeCommands() {
  std::vector<ReadmeCommand> out;
  bool inBlock = false;
  int block = 0;
  for (const std::string& raw : lines(readText(sourceDir() + "/README.md"))) {
    if (raw.rfind("```", 0) == 0) {
      inBlock = raw == "```sh";
      block += inBlock ? 1 : 0;
      continue;
    }
    const std::size_t first = raw.find_first_not_of(' ');
    if (!inBlock || block == 1 || first == std::string::npos || raw[first] == '#') continue;
    const std::size_t hash = raw.find(" #");
    ReadmeCommand c{raw.substr(0, hash), hash == std::string::npos ? "" : raw.substr(hash)};
    c.line.erase(c.line.find_last_not_of(' ') + 1);
    out.push_back(c);
  }
  return out;
}

/// `line` shortened for the test: fewer steps (a restart reaches past the first run's end),
/// the CPU, small benchmark sizes.
std::string shortened(std::string line) {
  const std::regex steps(R"(--run\.steps=\d+)");
  const bool run = line.rfind("build/faraday run ", 0) == 0 || line.rfind("build/faraday rerun ", 0) == 0;
  if (run && line.find("--help") == std::string::npos) {
    const std::string wanted = "--run.steps=" + std::string(line.find("--restart") != std::string::npos ? "4" : "2");
    line = std::regex_search(line, steps) ? std::regex_replace(line, steps, wanted) : line + " " + wanted;
    line += " --run.platform=cpu --run.threads=2 --run.progress_interval=0";
  }
  const std::pair<const char*, const char*> benches[] = {
      {"build/faraday bench md", " --nacl= --argon=500 --steps=2 --threads=2"},
      {"build/faraday bench pme", " --sizes=1000 --repeats=1 --warmup=0 --threads=2"},
      {"build/faraday bench nbody", " --sizes=1024 --threads=2"}};
  for (const auto& [bench, options] : benches)
    if (line.rfind(bench, 0) == 0 && line.find("--help") == std::string::npos) line += options;
  return line;
}

TEST(ReadmeCommands, EveryBlockRunsAsWrittenOnTheCpu) {
  if (std::system("python3 -c 'import numpy' > /dev/null 2>&1") != 0)
    GTEST_SKIP() << "no python3 with numpy: the README's builders (tools/build_*.py) need it";
  TempDir dir;
  fs::copy(fs::path(sourceDir()) / "systems", dir / "systems", fs::copy_options::recursive);
  fs::create_directory_symlink(fs::path(sourceDir()) / "tools", dir / "tools");
  fs::create_directories(dir / "build");
  fs::create_symlink(fs::absolute(faradayExecutable()), dir / "build" / "faraday");
  const bool plots = std::system("python3 -c 'import matplotlib' > /dev/null 2>&1") == 0;
  const std::vector<ReadmeCommand> commands = readmeCommands();
  ASSERT_GE(commands.size(), 20u);
  int ran = 0;
  for (const ReadmeCommand& c : commands) {
    if (c.comment.find("on a GPU machine") != std::string::npos) continue;
    if (c.line.rfind("tools/plot.py", 0) == 0 && !plots) continue;
    const std::string line = shortened(c.line);
    const std::string shell = "cd " + shellQuote(dir.path().string()) + " && timeout 300 " + line +
                              " > command.out 2>&1 < /dev/null";
    const int status = std::system(shell.c_str());
    ++ran;
    ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
        << line << "\n" << readText(dir / "command.out");
  }
  EXPECT_GE(ran, 18);
  fs::remove(dir / "command.out");
  // Runs and builders wrote into out/ (and systems/, which the builders remake as shipped).
  std::set<std::string> top;
  for (const auto& e : fs::directory_iterator(dir.path())) top.insert(e.path().filename().string());
  EXPECT_EQ(top, (std::set<std::string>{"build", "out", "systems", "tools"}));
  for (const char* name : {"nacl_melt", "protein", "protein_map", "water", "plummer", "collision", "typed", "melt"})
    EXPECT_TRUE(fs::is_directory(dir / "out" / name)) << name;
  EXPECT_TRUE(fs::exists(dir / "out" / "nacl_melt" / "rerun.csv"));
}

}  // namespace
}  // namespace faraday::test
