// Parsing and printing of the spec format (docs/spec-format.md): every field, every kind, the
// canonical text and the round trip parse(print(s)) == s.

#include "tessera/spec/spec.hpp"

#include <gtest/gtest.h>

#include <sstream>

namespace tessera {
namespace {

TEST(SpecParse, IssueExample) {
  const Spec s = parse_spec("domain=40x90 grid=2x3 dist=cut(0,10,40),block ghosts=1p");
  ASSERT_EQ(s.rank(), 2u);
  EXPECT_EQ(s.axes[0].lo, 0);
  EXPECT_EQ(s.axes[0].hi, 40);
  EXPECT_EQ(s.axes[1].hi, 90);
  EXPECT_EQ(s.axes[0].grid_extent, 2);
  EXPECT_EQ(s.axes[1].grid_extent, 3);
  EXPECT_EQ(s.axes[0].dist, cut({0, 10, 40}));
  EXPECT_EQ(s.axes[1].dist, block());
  for (const auto& axis : s.axes) {
    EXPECT_EQ(axis.ghost_lower, 1);
    EXPECT_EQ(axis.ghost_upper, 1);
    EXPECT_TRUE(axis.periodic);
  }
  EXPECT_TRUE(s.corners);
  EXPECT_TRUE(s.order.empty());
  EXPECT_EQ(s.grid_ranks, 0);
}

TEST(SpecParse, DefaultsAreAutoGridBlocksNoGhosts) {
  const Spec s = parse_spec("domain=100x50x7");
  ASSERT_EQ(s.rank(), 3u);
  for (const auto& axis : s.axes) {
    EXPECT_EQ(axis.grid_extent, 0);
    EXPECT_EQ(axis.dist, block());
    EXPECT_EQ(axis.ghost_lower, 0);
    EXPECT_FALSE(axis.periodic);
  }
  EXPECT_TRUE(s.no_ghosts());
  EXPECT_EQ(to_string(s), "domain=100x50x7 grid=auto dist=block,block,block");
}

TEST(SpecParse, DomainRangesWithLowerBounds) {
  const Spec s = parse_spec("domain=-5:95x10:20x0:0x7:7");
  ASSERT_EQ(s.rank(), 4u);
  EXPECT_EQ(s.axes[0].lo, -5);
  EXPECT_EQ(s.axes[0].hi, 95);
  EXPECT_EQ(s.axes[1].lo, 10);
  EXPECT_EQ(s.axes[2].hi, 0);
  EXPECT_EQ(s.axes[3].lo, 7);
  EXPECT_EQ(s.axes[3].hi, 7);
  EXPECT_EQ(to_string(s), "domain=-5:95x10:20x0x7:7 grid=auto dist=block,block,block,block");
}

TEST(SpecParse, DomainAtTheLimits) {
  const Spec s = parse_spec("domain=-1000000000000000000:1000000000000000000x1000000000000000000");
  EXPECT_EQ(s.axes[0].lo, -spec_limits::max_magnitude);
  EXPECT_EQ(s.axes[0].hi, spec_limits::max_magnitude);
  EXPECT_EQ(s.axes[1].hi, spec_limits::max_magnitude);
  EXPECT_EQ(parse_spec("domain=1x1x1x1x1x1x1x1").rank(), spec_limits::max_rank);
}

TEST(SpecParse, GridForms) {
  EXPECT_EQ(parse_spec("domain=8x8 grid=*x*"), parse_spec("domain=8x8 grid=auto"));
  const Spec pinned = parse_spec("domain=8x8x8 grid=*x*x1@12");
  EXPECT_EQ(pinned.axes[0].grid_extent, 0);
  EXPECT_EQ(pinned.axes[2].grid_extent, 1);
  EXPECT_EQ(pinned.grid_ranks, 12);
  EXPECT_EQ(to_string(pinned), "domain=8x8x8 grid=*x*x1@12 dist=block,block,block");
  const Spec counted = parse_spec("domain=8 grid=auto@3");
  EXPECT_EQ(counted.grid_ranks, 3);
  EXPECT_EQ(to_string(counted), "domain=8 grid=auto@3 dist=block");
  EXPECT_EQ(parse_spec("domain=8x8 grid=1024x1024").axes[1].grid_extent, 1024);
}

TEST(SpecParse, EveryKind) {
  const Spec s = parse_spec(
      "domain=100x90x1000x64x10x8x6 grid=2x3x2x4x1x3x1 "
      "dist=block(lb=8),weights(1,2,1.5),block_cyclic(64,src=1,lb=8),cyclic(lb=4),collapsed,"
      "irregular(0,0,1,2,2,1,0,0),cut(0,6)");
  EXPECT_EQ(s.axes[0].dist, block().with_logical_block(8));
  EXPECT_EQ(s.axes[1].dist, cut_weights({1, 2, 1.5}));
  EXPECT_EQ(s.axes[2].dist, block_cyclic(64, 1).with_logical_block(8));
  EXPECT_EQ(s.axes[3].dist, cyclic().with_logical_block(4));
  EXPECT_EQ(s.axes[4].dist, collapsed());
  EXPECT_EQ(s.axes[5].dist, irregular({0, 0, 1, 2, 2, 1, 0, 0}));
  EXPECT_EQ(s.axes[6].dist, cut({0, 6}));
}

TEST(SpecParse, WeightSpellings) {
  const Spec s = parse_spec("domain=100 grid=5 dist=weights(1,0.25,2.5e3,.5,7.)");
  EXPECT_EQ(s.axes[0].dist, cut_weights({1, 0.25, 2500, 0.5, 7}));
  EXPECT_EQ(to_string(s), "domain=100 grid=5 dist=weights(1,0.25,2500,0.5,7)");
}

TEST(SpecParse, SpecTextOfEachKind) {
  EXPECT_EQ(spec_text(block()), "block");
  EXPECT_EQ(spec_text(block().with_logical_block(4)), "block(lb=4)");
  EXPECT_EQ(spec_text(cut({0, 10, 40})), "cut(0,10,40)");
  EXPECT_EQ(spec_text(cut({0, 48, 100}).with_logical_block(8)), "cut(0,48,100,lb=8)");
  EXPECT_EQ(spec_text(cut_weights({1, 2, 0.1})), "weights(1,2,0.1)");
  EXPECT_EQ(spec_text(cyclic()), "cyclic");
  EXPECT_EQ(spec_text(block_cyclic(64)), "block_cyclic(64)");
  EXPECT_EQ(spec_text(block_cyclic(64, 2)), "block_cyclic(64,src=2)");
  EXPECT_EQ(spec_text(collapsed()), "collapsed");
  EXPECT_EQ(spec_text(flooded()), "flooded");
  EXPECT_EQ(spec_text(irregular({1, 0, 1})), "irregular(1,0,1)");
}

TEST(SpecParse, Order) {
  const Spec s = parse_spec("domain=8x8x8 grid=2x2x2 order=2,0,1");
  EXPECT_EQ(s.order, (std::vector<int>{2, 0, 1}));
  EXPECT_EQ(to_string(s), "domain=8x8x8 grid=2x2x2 dist=block,block,block order=2,0,1");
  // The natural order is the default: stored as none and not printed.
  EXPECT_TRUE(parse_spec("domain=8x8 order=0,1").order.empty());
  EXPECT_EQ(parse_spec("domain=8x8 order=0,1"), parse_spec("domain=8x8"));
}

TEST(SpecParse, GhostForms) {
  const Spec s = parse_spec("domain=10x20x30 ghosts=0,1p,2:3,faces");
  EXPECT_EQ(s.axes[0].ghost_lower, 0);
  EXPECT_FALSE(s.axes[0].periodic);
  EXPECT_EQ(s.axes[1].ghost_lower, 1);
  EXPECT_EQ(s.axes[1].ghost_upper, 1);
  EXPECT_TRUE(s.axes[1].periodic);
  EXPECT_EQ(s.axes[2].ghost_lower, 2);
  EXPECT_EQ(s.axes[2].ghost_upper, 3);
  EXPECT_FALSE(s.corners);
  EXPECT_EQ(to_string(s), "domain=10x20x30 grid=auto dist=block,block,block ghosts=0,1p,2:3,faces");
  // `faces` may come first; it is printed last. One entry stands for every dimension.
  EXPECT_EQ(parse_spec("domain=4x4 ghosts=faces,2:1p"), parse_spec("domain=4x4 ghosts=2:1p,2:1p,faces"));
  EXPECT_EQ(to_string(parse_spec("domain=4x4 ghosts=faces,2:1p")),
            "domain=4x4 grid=auto dist=block,block ghosts=2:1p,faces");
  // Periodic without ghosts, and widths that print as none.
  EXPECT_EQ(to_string(parse_spec("domain=4 ghosts=0p")), "domain=4 grid=auto dist=block ghosts=0p");
  EXPECT_EQ(to_string(parse_spec("domain=4 ghosts=0:0")), "domain=4 grid=auto dist=block");
  EXPECT_EQ(to_string(parse_spec("domain=4 ghosts=0,faces")), "domain=4 grid=auto dist=block ghosts=0,faces");
}

TEST(SpecParse, FieldsInAnyOrderWithBlanksAndComments) {
  const Spec a = parse_spec("domain=40x90 grid=2x3 dist=cut(0,10,40),block ghosts=1p");
  const Spec b = parse_spec("  ghosts=1p\tdist=cut(0,10,40),block\n grid=2x3 domain=40x90  ");
  const Spec c = parse_spec(
      "# a configuration file\ndomain=40x90   # rows x columns\ngrid=2x3\r\n"
      "dist=cut(0,10,40),block\nghosts=1p\n");
  EXPECT_EQ(a, b);
  EXPECT_EQ(a, c);
  EXPECT_EQ(c.source.dist[0].line, 4);
  EXPECT_EQ(c.source.dist[0].column, 6);
  EXPECT_EQ(c.source.dist[0].text, "cut(0,10,40)");
}

TEST(SpecParse, LeadingZerosAndMinusZeroAreNumbers) {
  EXPECT_EQ(parse_spec("domain=007 grid=01"), parse_spec("domain=7 grid=1"));
  EXPECT_EQ(parse_spec("domain=-0:5"), parse_spec("domain=5"));
}

TEST(SpecParse, SourcesNameThePartsButAreNotCompared) {
  const Spec s = parse_spec("domain=40x90 grid=2x3 dist=cut(0,10,40),block");
  EXPECT_EQ(s.source.domain.column, 1);
  EXPECT_EQ(s.source.domain.text, "domain=40x90");
  EXPECT_EQ(s.source.grid.column, 14);
  EXPECT_EQ(s.source.dist[1].column, 41);
  EXPECT_EQ(s.source.dist[1].text, "block");
  Spec other = s;
  other.source = {};
  EXPECT_EQ(s, other);
  other.corners = false;
  EXPECT_NE(s, other);
}

TEST(SpecPrint, StreamAndToStringAgree) {
  const Spec s = parse_spec("domain=10 grid=2 dist=cut(0,3,10)");
  std::ostringstream out;
  out << s;
  EXPECT_EQ(out.str(), to_string(s));
  EXPECT_EQ(out.str(), "domain=10 grid=2 dist=cut(0,3,10)");
}

TEST(SpecPrint, RoundTripsEverySeedShape) {
  const char* texts[] = {
      "domain=40x90 grid=2x3 dist=cut(0,10,40),block ghosts=1p",
      "domain=-5:95x10:20 grid=2x1 dist=block,collapsed ghosts=1:2,0p",
      "domain=64x64x64 grid=*x*x1@12 dist=block,block,collapsed ghosts=1,faces",
      "domain=90 grid=3 dist=weights(0.1,0.2,0.30000000000000004)",
      "domain=1000x1000 grid=2x2 dist=block_cyclic(64),block_cyclic(32,src=1,lb=8)",
      "domain=8 grid=auto@3 dist=irregular(0,0,1,2,2,1,0,0)",
      "domain=8x8x8 grid=2x2x2 order=1,2,0 ghosts=0,1,2p",
      "domain=100x100 grid=2x2 dist=block(lb=8),cut(0,48,100,lb=8)",
      "domain=6x4 dist=irregular(1,1,0,0,1,1),cyclic(lb=2)",
      "domain=0x0",
  };
  for (const char* text : texts) {
    SCOPED_TRACE(text);
    const Spec s = parse_spec(text);
    const std::string printed = to_string(s);
    const Spec again = parse_spec(printed);
    EXPECT_EQ(again, s);
    EXPECT_EQ(to_string(again), printed);
  }
}

TEST(SpecPrint, CanonicalTextIsTheIssueExample) {
  const std::string text = "domain=40x90 grid=2x3 dist=cut(0,10,40),block ghosts=1p";
  EXPECT_EQ(to_string(parse_spec(text)), text);
}

}  // namespace
}  // namespace tessera
