// Every error of the spec parser that docs/spec-format.md lists: each is an Error(invalid_argument)
// naming where the bad part starts and quoting it.

#include <gtest/gtest.h>

#include <string>

#include "tessera/spec/spec.hpp"

namespace tessera {
namespace {

struct BadSpec {
  std::string text;
  std::string where;  ///< "at column 11, \"gird\"": the location and the quoted part
  std::string why;    ///< a fragment of the reason
};

/// Parses `bad.text`, expects an Error(invalid_argument) starting with "spec: <where>: " and
/// containing `why`.
void expect_rejected(const BadSpec& bad) {
  SCOPED_TRACE(bad.text);
  try {
    (void)parse_spec(bad.text);
    ADD_FAILURE() << "parsed: " << bad.text;
  } catch (const Error& e) {
    const std::string message = e.what();
    EXPECT_EQ(e.code(), ErrorCode::invalid_argument);
    EXPECT_EQ(message.rfind("spec: " + bad.where + ": ", 0), 0u) << message;
    EXPECT_NE(message.find(bad.why), std::string::npos) << message;
  }
}

TEST(SpecErrors, Fields) {
  const BadSpec cases[] = {
      BadSpec{"grid=2", R"~(at column 1, "grid=2")~", "needs a domain= field"},
      BadSpec{"", R"~(at column 1, "")~", "needs a domain= field"},
      BadSpec{"  # only a comment", R"~(at column 1, "  # only a comment")~", "needs a domain="},
      BadSpec{"domain=10 block", R"~(at column 11, "block")~", "expected key=value"},
      BadSpec{"domain=10 gird=2", R"~(at column 11, "gird")~", "is not a key"},
      BadSpec{"domain=10 =2", R"~(at column 11, "")~", "is not a key"},
      BadSpec{"domain=10 domain=20", R"~(at column 11, "domain=20")~", "repeats the key domain of column 1"},
      BadSpec{"domain=", R"~(at column 1, "domain=")~", "has an empty value"},
      BadSpec{"domain=10\ngrid=2 grid=3", R"~(at line 2, column 8, "grid=3")~", "repeats the key grid"}};
  for (const BadSpec& bad : cases) expect_rejected(bad);
}

TEST(SpecErrors, Numbers) {
  const BadSpec cases[] = {
      BadSpec{"domain=ten", R"~(at column 8, "ten")~", "is not an integer (an extent)"},
      BadSpec{"domain=-1", R"~(at column 8, "-1")~", "an extent must be in [0, 1000000000000000000]"},
      BadSpec{"domain=+5", R"~(at column 8, "+5")~", "is not an integer"},
      BadSpec{"domain=1000000000000000001", R"~(at column 8, "1000000000000000001")~", "out of range"},
      BadSpec{"domain=99999999999999999999999", R"~(at column 8, "99999999999999999999999")~", "out of range"},
      BadSpec{"domain=5:3", R"~(at column 8, "5:3")~", "has hi < lo"},
      BadSpec{"domain=5:", R"~(at column 10, "")~", "is not an integer (a high bound)"},
      BadSpec{"domain=10 dist=weights(1,nan)", R"~(at column 26, "nan")~", "is not a number"},
      BadSpec{"domain=10 dist=weights(1,inf)", R"~(at column 26, "inf")~", "is not a number"},
      BadSpec{"domain=10 dist=weights(1,1e999)", R"~(at column 26, "1e999")~", "out of range for a weight"},
      BadSpec{"domain=10 dist=weights(1,1.2.3)", R"~(at column 26, "1.2.3")~", "is not a number"},
      BadSpec{"domain=1x1x1x1x1x1x1x1x1", R"~(at column 1, "domain=1x1x1x1x1x1x1x1x1")~",
              "has 9 dimensions; at most 8"},
      BadSpec{"domain=1\xff", R"~(at column 8, "1\xff")~", "is not an integer"}};
  for (const BadSpec& bad : cases) expect_rejected(bad);
}

TEST(SpecErrors, Lists) {
  const BadSpec cases[] = {
      BadSpec{"domain=10x", R"~(at column 8, "10x")~", "has an empty entry"},
      BadSpec{"domain=10 dist=block,,block", R"~(at column 16, "block,,block")~", "has an empty entry"},
      BadSpec{"domain=10 dist=cut(0,(5),10)", R"~(at column 22, "(5),10)")~", "inside another"},
      BadSpec{"domain=10 dist=cut(0,5", R"~(at column 19, "(0,5")~", "is not closed"},
      BadSpec{"domain=10 dist=cut)0,5(", R"~(at column 19, ")0,5(")~", "was not opened"},
      BadSpec{"domain=10x10 grid=2", R"~(at column 14, "grid=2")~", "has 1 grid extents for a domain of 2"},
      BadSpec{"domain=10x10 dist=block", R"~(at column 14, "dist=block")~", "has 1 distributions"},
      BadSpec{"domain=10x10 order=0", R"~(at column 14, "order=0")~", "has 1 entries"},
      BadSpec{"domain=10x10x10 ghosts=1,2", R"~(at column 17, "ghosts=1,2")~",
              "has 2 ghost entries (give 1, or 1 per dimension)"}};
  for (const BadSpec& bad : cases) expect_rejected(bad);
}

TEST(SpecErrors, Grid) {
  const BadSpec cases[] = {
      BadSpec{"domain=10 grid=0", R"~(at column 16, "0")~", "a grid extent must be in [1, 1048576]"},
      BadSpec{"domain=10x10 grid=2048x1024", R"~(at column 14, "grid=2048x1024")~", "has more than 1048576 positions"},
      BadSpec{"domain=10 grid=2x3@6", R"~(at column 11, "grid=2x3@6")~", "has 2 grid extents"},
      BadSpec{"domain=10x10 grid=2x3@6", R"~(at column 14, "grid=2x3@6")~", "gives a rank count"},
      BadSpec{"domain=10 grid=@4", R"~(at column 11, "grid=@4")~", "needs a shape before '@'"},
      BadSpec{"domain=10 grid=auto@0", R"~(at column 21, "0")~", "a rank count must be in [1, 1048576]"},
      BadSpec{"domain=10 grid=autox", R"~(at column 16, "autox")~", "has an empty entry"},
      BadSpec{"domain=10 grid=?", R"~(at column 16, "?")~", "is not an integer (a grid extent)"}};
  for (const BadSpec& bad : cases) expect_rejected(bad);
}

TEST(SpecErrors, Kinds) {
  const BadSpec cases[] = {
      BadSpec{"domain=10 dist=blok", R"~(at column 16, "blok")~", "is not a kind"},
      BadSpec{"domain=10 dist=(1)", R"~(at column 16, "(1)")~", "is not a kind"},
      BadSpec{"domain=10 dist=Block", R"~(at column 16, "Block")~", "is not a kind"},
      BadSpec{"domain=10x10 dist=general,block", R"~(at column 19, "general")~", "needs per-rank weights"},
      BadSpec{"domain=10 dist=block7", R"~(at column 21, "7")~", "is not part of a kind"},
      BadSpec{"domain=10 dist=cut(0,10)(lb=2)", R"~(at column 25, "(lb=2)")~", "follows the ')'"},
      BadSpec{"domain=10 dist=block()", R"~(at column 16, "block()")~", "has empty parentheses"},
      BadSpec{"domain=10 dist=cyclic(2)", R"~(at column 23, "2")~", "cyclic takes none"},
      BadSpec{"domain=10 dist=block_cyclic(4,8)", R"~(at column 31, "8")~", "is a second value"},
      BadSpec{"domain=10 dist=block(src=1)", R"~(at column 22, "src")~", "the option is lb"},
      BadSpec{"domain=10 dist=block_cyclic(2,pad=1)", R"~(at column 31, "pad")~", "options are lb and src"},
      BadSpec{"domain=10 dist=block(lb=2,lb=2)", R"~(at column 27, "lb=2")~", "is given twice"},
      BadSpec{"domain=10 dist=block_cyclic(2,src=0,src=0)", R"~(at column 37, "src=0")~", "given twice"},
      BadSpec{"domain=10 dist=cut(0,lb=2,10)", R"~(at column 27, "10")~", "comes after an option"},
      BadSpec{"domain=10 dist=block(lb=0)", R"~(at column 25, "0")~", "a logical block must be in [1,"},
      BadSpec{"domain=10 dist=block_cyclic(0)", R"~(at column 29, "0")~", "a block size must be in [1,"},
      BadSpec{"domain=10 dist=block_cyclic(2,src=-1)", R"~(at column 35, "-1")~", "a source coordinate"},
      BadSpec{"domain=10 dist=irregular(0,-1)", R"~(at column 28, "-1")~", "an owner coordinate"},
      BadSpec{"domain=10 dist=cut(5)", R"~(at column 16, "cut(5)")~", "needs at least 2 boundaries"},
      BadSpec{"domain=10 dist=cut", R"~(at column 16, "cut")~", "needs at least 2 boundaries"},
      BadSpec{"domain=10 dist=weights", R"~(at column 16, "weights")~", "needs a weight"},
      BadSpec{"domain=10 dist=irregular", R"~(at column 16, "irregular")~", "needs an owner per index"},
      BadSpec{"domain=10 dist=block_cyclic", R"~(at column 16, "block_cyclic")~", "needs a block size"},
      BadSpec{"domain=10 dist=block_cyclic(src=1)", R"~(at column 16, "block_cyclic(src=1)")~", "needs a block size"}};
  for (const BadSpec& bad : cases) expect_rejected(bad);
}

TEST(SpecErrors, OrderAndGhosts) {
  const BadSpec cases[] = {BadSpec{"domain=10x10 order=0,0", R"~(at column 22, "0")~", "repeats a dimension"},
                           BadSpec{"domain=10x10 order=0,2", R"~(at column 22, "2")~", "a dimension must be in [0, 1]"},
                           BadSpec{"domain=10 ghosts=faces", R"~(at column 11, "ghosts=faces")~", "needs a width"},
                           BadSpec{"domain=10 ghosts=1,faces,faces", R"~(at column 26, "faces")~", "is given twice"},
                           BadSpec{"domain=10 ghosts=p", R"~(at column 18, "p")~", "needs a width before 'p'"},
                           BadSpec{"domain=10 ghosts=-1", R"~(at column 18, "-1")~", "a ghost width must be in [0,"},
                           BadSpec{"domain=10 ghosts=1:", R"~(at column 20, "")~", "is not an integer (a ghost width)"},
                           BadSpec{"domain=10 ghosts=1q", R"~(at column 18, "1q")~", "is not an integer"}};
  for (const BadSpec& bad : cases) expect_rejected(bad);
}

// What DimDistribution::bind checks, reported at parse time where the grid extent is known.
TEST(SpecErrors, AxisAgainstDomainAndGrid) {
  const BadSpec cases[] = {
      BadSpec{"domain=40x90 grid=2x3 dist=cut(0,40),block", R"~(at column 28, "cut(0,40)")~",
              "a grid axis of extent 2 needs 3"},
      BadSpec{"domain=10 dist=cut(0,5,9)", R"~(at column 16, "cut(0,5,9)")~", "must equal the high bound 10"},
      BadSpec{"domain=2:10 dist=cut(0,10)", R"~(at column 18, "cut(0,10)")~", "must equal the low bound 2"},
      BadSpec{"domain=10 dist=cut(0,6,5,10)", R"~(at column 16, "cut(0,6,5,10)")~", "must not decrease"},
      BadSpec{"domain=10 dist=cut(0,5,10,lb=2)", R"~(at column 16, "cut(0,5,10,lb=2)")~",
              "is not on the logical block"},
      BadSpec{"domain=10 grid=2 dist=weights(1,2,3)", R"~(at column 23, "weights(1,2,3)")~",
              "entries given; the grid axis has extent 2"},
      BadSpec{"domain=10 dist=weights(0,0)", R"~(at column 16, "weights(0,0)")~", "all zero"},
      BadSpec{"domain=10 dist=weights(1,-1)", R"~(at column 16, "weights(1,-1)")~", "must be finite and >= 0"},
      BadSpec{"domain=10 dist=block_cyclic(6,lb=4)", R"~(at column 16, "block_cyclic(6,lb=4)")~",
              "must be a multiple of the logical block 4"},
      BadSpec{"domain=10 grid=2 dist=block_cyclic(4,src=2)", R"~(at column 23, "block_cyclic(4,src=2)")~",
              "must be a coordinate in [0, 2)"},
      BadSpec{"domain=10 grid=2 dist=collapsed", R"~(at column 23, "collapsed")~", "must be 1 along a collapsed"},
      BadSpec{"domain=10 grid=2 dist=flooded(lb=2)", R"~(at column 23, "flooded(lb=2)")~", "must be 1 along a flooded"},
      BadSpec{"domain=4 dist=irregular(0,1,0)", R"~(at column 15, "irregular(0,1,0)")~",
              "entries given; the dimension has 4 indices"},
      BadSpec{"domain=3 grid=2 dist=irregular(0,1,2)", R"~(at column 22, "irregular(0,1,2)")~",
              "is not a coordinate in [0, 2)"}};
  for (const BadSpec& bad : cases) expect_rejected(bad);
}

TEST(SpecErrorsLimits, TextTooLong) {
  const std::string text = "domain=1 " + std::string(spec_limits::max_text_bytes, ' ');
  try {
    (void)parse_spec(text);
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("a spec holds at most 65536"), std::string::npos) << e.what();
    EXPECT_EQ(std::string(e.what()).rfind(R"~(spec: at column 1, "domain=1 )~", 0), 0u) << e.what();
  }
}

TEST(SpecErrorsLimits, ListTooLong) {
  std::string owners;
  for (std::size_t i = 0; i <= spec_limits::max_list; ++i) owners += i ? ",0" : "0";
  const std::string text = "domain=4097 dist=irregular(" + owners + ")";
  try {
    (void)parse_spec(text);
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("at column 18,"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("has 4097 values; a list holds at most 4096"), std::string::npos) << e.what();
  }
  // 4096 values are fine.
  owners.resize(owners.size() - 2);
  EXPECT_EQ(parse_spec("domain=4096 dist=irregular(" + owners + ")").axes[0].dist.owners.size(), 4096u);
}

TEST(SpecErrorsLimits, ExcerptsAreCutAndEscaped) {
  try {
    (void)parse_spec("domain=10 dist=" + std::string(60, 'q') + " ");
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find('"' + std::string(40, 'q') + "...\""), std::string::npos) << e.what();
  }
  try {
    (void)parse_spec(std::string("domain=1\x01\"\\", 11));
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(R"~("1\x01\"\\")~"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace tessera
