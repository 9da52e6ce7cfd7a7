// The multiblock spec (tessera/spec/multiblock_spec.hpp): parsing, the canonical text and its
// round trip, the layout it maps to against the same layout built by hand, and every refusal with
// the column it names.
#include <gtest/gtest.h>

#include <string>

#include "spec_error_expectation.hpp"
#include "tessera/spec/multiblock_spec.hpp"

namespace tessera {
namespace {

using spec_testing::expect_spec_error;

// Three blocks (block x block, cyclic rows, a box set with a hole), a turned interface, a flipped
// part of a face and a periodic block.
const char* const kRing =
    "width=2 ghosts=1,faces\n"
    "block domain=6x8\n"
    "block domain=8x5 grid=*x1 dist=cyclic,block\n"
    "block domain=6x8 boxes=0:3x0:8@1,3:6x0:4@0\n"
    "glue 0.0+ 1.1+ perm=1,0 flip=1,0\n"
    "glue 1.0+ 2.0-[0:1x2:7] flip=0,1\n"
    "glue 2.1+ 2.1-  # periodic along axis 1\n";

TEST(SpecMultiblock, ParsesBlocksInterfacesWidthAndGhosts) {
  EXPECT_TRUE(is_multiblock_spec(kRing));
  EXPECT_TRUE(is_multiblock_spec("  # a comment\nblock domain=4"));
  EXPECT_FALSE(is_multiblock_spec("domain=4x4 grid=2x2"));
  EXPECT_FALSE(is_multiblock_spec("width=2 domain=4"));
  const MultiblockSpec m = parse_multiblock_spec(kRing);
  ASSERT_EQ(m.blocks.size(), 3u);
  EXPECT_EQ(m.rank(), 2u);
  EXPECT_EQ(m.width, 2);
  EXPECT_TRUE(m.blocks[2].is_box_set());
  ASSERT_EQ(m.interfaces.size(), 3u);
  EXPECT_EQ(m.interfaces[0].a, (SpecFace{0, 0, true, {}, {}}));
  EXPECT_EQ(m.interfaces[0].b, (SpecFace{1, 1, true, {}, {}}));
  EXPECT_EQ(m.interfaces[0].perm, (std::vector<int>{1, 0}));
  EXPECT_EQ(m.interfaces[0].flip, (std::vector<bool>{true, false}));
  EXPECT_EQ(m.interfaces[1].b, (SpecFace{2, 0, false, {0, 2}, {1, 7}}));
  EXPECT_TRUE(m.interfaces[1].perm.empty());  // the identity is not kept
  EXPECT_TRUE(m.interfaces[2].flip.empty());
  EXPECT_EQ(m.interfaces[2].source.line, 7);
  EXPECT_EQ(to_ghosts<2>(m), ghosts<2>(1).faces_only());
  EXPECT_EQ(to_ghosts<2>(parse_multiblock_spec("block domain=4x4")), no_ghosts<2>());
}

TEST(SpecMultiblock, CanonicalTextRoundTrips) {
  const MultiblockSpec m = parse_multiblock_spec(kRing);
  const std::string text = to_string(m);
  EXPECT_EQ(text,
            "width=2 ghosts=1,faces block domain=6x8 grid=auto dist=block,block block domain=8x5 grid=*x1 "
            "dist=cyclic,block block domain=6x8 boxes=0:3x0:8@1,3:6x0:4@0 glue 0.0+ 1.1+ perm=1,0 flip=1,0 "
            "glue 1.0+ 2.0-[0:1x2:7] flip=0,1 glue 2.1+ 2.1-");
  EXPECT_EQ(parse_multiblock_spec(text), m);
  EXPECT_EQ(to_string(parse_multiblock_spec(text)), text);
  // Written identity and zero flips, and zero ghosts, read as left out.
  EXPECT_EQ(parse_multiblock_spec("ghosts=0 block domain=4 glue 0.0+ 0.0- perm=0 flip=0"),
            parse_multiblock_spec("block domain=4 glue 0.0+ 0.0-"));
}

TEST(SpecMultiblock, MapsToTheLayoutBuiltByHand) {
  const MultiblockSpec m = parse_multiblock_spec(kRing);
  for (int ranks : {2, 3, 4}) {  // the box set names rank 1: refused on one rank, below
    const MultiblockLayout<2> from_text = to_multiblock_layout<2>(m, ranks);
    const Distribution<2> b0(Box<2>({0, 0}, {6, 8}), ProcGrid<2>::automatic(ranks, {6, 8}), {block(), block()});
    const Distribution<2> b1(Box<2>({0, 0}, {8, 5}), ProcGrid<2>::automatic(ranks, {8, 5}, {0, 1}),
                             {cyclic(), block()});
    const Distribution<2> b2 = Distribution<2>::from_box_set(
        BoxSet<2>(Box<2>({0, 0}, {6, 8}), {Box<2>({0, 0}, {3, 8}), Box<2>({3, 0}, {6, 4})}, {1, 0}, ranks));
    const MultiblockLayout<2> by_hand(
        {b0, b1, b2},
        {{{0, 0, true, {}}, {1, 1, true, {}}, Orientation<2>({1, 0}, {true, false})},
         {{1, 0, true, {}}, {2, 0, false, Box<2>({0, 2}, {1, 7})}, Orientation<2>({0, 1}, {false, true})},
         {{2, 1, true, {}}, {2, 1, false, {}}, Orientation<2>()}},
        2);
    EXPECT_EQ(from_text.hash(), by_hand.hash()) << ranks << " ranks";
    EXPECT_EQ(from_text.embedded().hash(), by_hand.embedded().hash()) << ranks << " ranks";
  }
  expect_spec_error([&] { (void)to_multiblock_layout<2>(m, 1); }, "multiblock spec, block 2: ", "@1");
  expect_spec_error([&] { (void)to_multiblock_layout<3>(m, 4); }, "to_multiblock_layout<3>", "2 dimensions");
}

TEST(SpecMultiblock, LayoutRefusalsNameTheGlueClause) {
  // Faces of 8 and 5 cells, and an orientation that keeps b's normal unflipped on same-side faces.
  expect_spec_error([] { (void)to_multiblock_layout<2>(parse_multiblock_spec("block domain=6x8 block domain=6x5\nglue 0.0+ 1.0-"), 2); },
                    "spec: at line 2, column 1, \"glue 0.0+ 1.0-\": ", "size");
  expect_spec_error([] { (void)to_multiblock_layout<2>(parse_multiblock_spec("block domain=6x8 block domain=6x8 glue 0.0+ 1.0+"), 2); },
                    "spec: at column 35, \"glue 0.0+ 1.0+\": ", "");
  // Two glue clauses sharing a face cell: the whole spec's error.
  expect_spec_error([] { (void)to_multiblock_layout<2>(parse_multiblock_spec("block domain=6x8 block domain=6x8 glue 0.0+ 1.0- glue 0.0+ 1.0-"), 2); },
                    "multiblock spec: ", "");
}

TEST(SpecMultiblock, BadTextNamesItsColumn) {
  expect_spec_error([] { (void)parse_multiblock_spec("width=2"); }, "spec: at column 1", "has no block");
  expect_spec_error([] { (void)parse_multiblock_spec("dist=block block domain=4"); }, "spec: at column 1, \"dist=block\"",
                    "only width= and ghosts=");
  expect_spec_error([] { (void)parse_multiblock_spec("width=1 width=2 block domain=4"); }, "spec: at column 9",
                    "repeats");
  expect_spec_error([] { (void)parse_multiblock_spec("width= block domain=4"); }, "spec: at column 1", "empty value");
  expect_spec_error([] { (void)parse_multiblock_spec("width=-1 block domain=4"); }, "spec: at column 7", "width");
  expect_spec_error([] { (void)parse_multiblock_spec("block"); }, "spec: at column 1", "no spec after it");
  // A block's own error keeps the column of the whole text.
  expect_spec_error([] { (void)parse_multiblock_spec("block domain=4 block domain=4 grid=x"); }, "spec: at column 36",
                    "");
  expect_spec_error([] { (void)parse_multiblock_spec("block domain=4x4 ghosts=1"); }, "spec: at column 7",
                    "given once, before the first block");
  expect_spec_error([] { (void)parse_multiblock_spec("block domain=4x4 block domain=4"); }, "spec: at column 24",
                    "1 dimensions; block 0 has 2");
  expect_spec_error([] { (void)parse_multiblock_spec("ghosts=1p block domain=4"); }, "spec: at column 1", "periodic");
  // Glue clauses.
  expect_spec_error([] { (void)parse_multiblock_spec("block domain=4 glue 0.0+"); }, "spec: at column 16", "two faces");
  expect_spec_error([] { (void)parse_multiblock_spec("block domain=4 glue 0+ 0.0-"); }, "spec: at column 21",
                    "not a face");
  expect_spec_error([] { (void)parse_multiblock_spec("block domain=4 glue 1.0+ 0.0-"); }, "spec: at column 21",
                    "names block 1");
  expect_spec_error([] { (void)parse_multiblock_spec("block domain=4 glue 0.1+ 0.0-"); }, "spec: at column 21",
                    "names axis 1");
  expect_spec_error([] { (void)parse_multiblock_spec("block domain=4x4 glue 0.0+[0:1] 0.0-"); }, "spec: at column 27",
                    "1 ranges");
  expect_spec_error([] { (void)parse_multiblock_spec("block domain=4x4 glue 0.0+(0:1) 0.0-"); }, "spec: at column 27",
                    "[lo:hi x lo:hi ...]");
  expect_spec_error([] { (void)parse_multiblock_spec("block domain=4x4 glue 0.0+ 0.0- perm=1,1"); },
                    "spec: at column 33", "not a permutation");
  expect_spec_error([] { (void)parse_multiblock_spec("block domain=4x4 glue 0.0+ 0.0- perm=0"); }, "spec: at column 33",
                    "1 entries");
  expect_spec_error([] { (void)parse_multiblock_spec("block domain=4x4 glue 0.0+ 0.0- flip=0,2"); },
                    "spec: at column 40", "flip");
  expect_spec_error([] { (void)parse_multiblock_spec("block domain=4x4 glue 0.0+ 0.0- turn=1"); }, "spec: at column 33",
                    "not perm= or flip=");
  expect_spec_error([] { (void)parse_multiblock_spec("block domain=4x4 glue 0.0+ 0.0- flip=0,1 flip=0,1"); },
                    "spec: at column 42", "repeats");
  expect_spec_error([] { (void)parse_multiblock_spec("block domain=4 blocks domain=4"); }, "spec: at column 16",
                    "expected key=value");
}

}  // namespace
}  // namespace tessera
