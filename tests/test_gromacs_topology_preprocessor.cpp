// The preprocessor of GROMACS topologies: includes and where they are found, defines and
// their substitution, conditionals, continuation lines, comments, and its errors.
#include <gtest/gtest.h>

#include "engine/formats/TextParse.h"
#include "engine/formats/gromacs/TopPreprocessor.h"
#include "tests/TopologyTestSupport.h"

namespace faraday::test {
namespace {

/// The lines of tests/data/top/pp/main.top with its fields joined by one blank.
std::vector<std::string> walkThrough(const std::vector<std::string>& defines, std::vector<TopLine>* raw = nullptr,
                                     std::vector<std::string>* warnings = nullptr) {
  const ScopedEnv gmxlib("GMXLIB", (topData("pp") / "lib").string() + ":/nonexistent/dir");
  std::vector<std::string> w;
  const std::vector<TopLine> lines =
      preprocessTopology(topData("pp") / "main.top", defines, {topData("pp") / "dirs"}, warnings ? *warnings : w);
  if (raw) *raw = lines;
  std::vector<std::string> texts;
  for (const TopLine& l : lines) {
    std::string joined;
    for (const std::string& f : splitWhitespace(l.text)) joined += (joined.empty() ? "" : " ") + f;
    texts.push_back(joined);
  }
  return texts;
}

TEST(GromacsTopologyPreprocessor, EveryFeatureOfTheWalkThrough) {
  const std::vector<std::string> expected{
      "outer 1",                  // #include inside #ifdef, beside the including file
      "inner 2",                  // an include of an include, beside it
      "outer 3",                  //
      "defined-value 1.5 2.5",    // #define with a value, substituted
      "nested-ifndef",            // #ifndef inside #ifdef
      "after-undef",              // #undef, then #ifndef
      "command-line 7",           // -DNAME=value
      "continued 1 2 3",          // '\' joins lines; the comment is gone
      "whole-words VALUEX VALUE_VALUE 1.5 2.5 xVALUE",  // only whole words are replaced
      "from-include-dirs",        // # include with blanks, found in includeDirs
      "from-gmxlib",              // found through GMXLIB
  };
  EXPECT_EQ(walkThrough({"-DFROM_COMMAND_LINE=7"}), expected);
}

TEST(GromacsTopologyPreprocessor, LinesKnowTheirFileAndFirstLine) {
  std::vector<TopLine> lines;
  walkThrough({}, &lines);
  ASSERT_GE(lines.size(), 8u);
  EXPECT_EQ(fs::path(lines[1].file).filename(), "inner.itp");
  EXPECT_EQ(lines[1].line, 3);  // after a blank line and a comment
  EXPECT_EQ(fs::path(lines[3].file).filename(), "main.top");
  EXPECT_EQ(lines[3].line, 6);
  EXPECT_EQ(lines[6].text.substr(0, 9), "continued");  // no -D: "command-line" is skipped
  EXPECT_EQ(lines[6].line, 26);                        // where the continued line starts
}

TEST(GromacsTopologyPreprocessor, DefineWithoutValueSelectsAndUnusedDefineWarns) {
  std::vector<std::string> warnings;
  const auto texts = walkThrough({"-DFROM_COMMAND_LINE", "-DNEVER_USED"}, nullptr, &warnings);
  // A define without a value selects #ifdef but replaces nothing.
  EXPECT_NE(std::find(texts.begin(), texts.end(), "command-line FROM_COMMAND_LINE"), texts.end());
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("NEVER_USED"), std::string::npos) << warnings[0];
  EXPECT_EQ(warnings[0].find("FROM_COMMAND_LINE"), std::string::npos) << warnings[0];
}

TEST(GromacsTopologyPreprocessor, MissingIncludeNamesIncludingFileLineAndName) {
  // Without GMXLIB, fromlib.itp (line 31 of main.top) is not found.
  const ScopedEnv noLib("GMXLIB", "");
  std::vector<std::string> warnings;
  const std::string e = errorOf([&] { preprocessTopology(topData("pp") / "main.top", {}, {topData("pp") / "dirs"}, warnings); });
  EXPECT_NE(e.find("main.top:31:"), std::string::npos) << e;
  EXPECT_NE(e.find("\"fromlib.itp\" not found"), std::string::npos) << e;
}

TEST(GromacsTopologyPreprocessor, ConditionalErrorsNameFileAndLine) {
  const std::string unterminated = topologyError({{"t.top", "a\n#ifdef X\nb\n#ifndef Y\n#endif\n"}});
  EXPECT_NE(unterminated.find("t.top:2: #ifdef X has no #endif"), std::string::npos) << unterminated;
  const std::string stray = topologyError({{"t.top", "a\n#endif\n"}});
  EXPECT_NE(stray.find("t.top:2: #endif without #ifdef"), std::string::npos) << stray;
  const std::string strayElse = topologyError({{"t.top", "\n\n#else\n"}});
  EXPECT_NE(strayElse.find("t.top:3: #else without #ifdef"), std::string::npos) << strayElse;
  // Each file closes what it opens: an #endif in an included file does not close the includer's #ifdef.
  const std::string across = topologyError({{"t.top", "#ifdef X\n#include \"i.itp\"\n"}, {"i.itp", "#endif\n"}},
                                           {"-DX"});
  EXPECT_NE(across.find("i.itp:1: #endif without #ifdef"), std::string::npos) << across;
}

TEST(GromacsTopologyPreprocessor, UnknownDirectiveIsAnErrorOnlyWhereRead) {
  const std::string e = topologyError({{"t.top", "; x\n#if X\n"}});
  EXPECT_NE(e.find("t.top:2: unknown preprocessor directive '#if'"), std::string::npos) << e;
  // Inside a skipped region it is ignored, as by grompp: the error is then the missing [ molecules ].
  const std::string skipped = topologyError({{"t.top", "#ifdef X\n#if X\n#pragma\n#endif\n"}});
  EXPECT_EQ(skipped.find("preprocessor"), std::string::npos) << skipped;
}

TEST(GromacsTopologyPreprocessor, MalformedDefineOptionIsAnError) {
  const std::string e = topologyError({{"t.top", "\n"}}, {"POSRES"});
  EXPECT_NE(e.find("expected -DNAME"), std::string::npos) << e;
}

TEST(GromacsTopologyPreprocessor, IncludeLoopStopsWithAnError) {
  const std::string e = topologyError({{"t.top", "#include \"t.top\"\n"}});
  EXPECT_NE(e.find("nested more than"), std::string::npos) << e;
}

}  // namespace
}  // namespace faraday::test
