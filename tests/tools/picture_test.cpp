// The picture behind `tessera show`: cells cut evenly, each coloured by the rank owning most of it
// (checked by counting every index), slices of 3-D domains, and the chosen rank's ghost marks.
#include <gtest/gtest.h>

#include <map>
#include <sstream>
#include <string>

#include "picture/picture_of.hpp"
#include "picture/show_svg.hpp"
#include "picture/show_text.hpp"
#include "tessera/spec/spec.hpp"

namespace {

using tessera::index_t;
using tessera_tool::CellMark;
using tessera_tool::CellOwnerRule;
using tessera_tool::OwnerPicture;
using tessera_tool::PictureOptions;

template <std::size_t N>
OwnerPicture picture(const std::string& text, int comm_size, PictureOptions opt) {
  const auto spec = tessera::parse_spec(text);
  return tessera_tool::picture_of(tessera::to_distribution<N>(spec, comm_size), tessera::to_ghosts<N>(spec), opt);
}

TEST(ToolCellAxis, CellsAreEvenAndCoverTheDomain) {
  const auto axis = tessera_tool::make_cell_axis(0, -3, 97, 0, 0, 64);
  ASSERT_EQ(axis.cells(), 64);
  EXPECT_EQ(axis.edges.front(), -3);
  EXPECT_EQ(axis.edges.back(), 97);
  EXPECT_EQ(axis.min_cell_width(), 1);
  EXPECT_EQ(axis.max_cell_width(), 2);
  EXPECT_TRUE(axis.downsampled());
  EXPECT_EQ(axis.cell_of(-3), 0);
  EXPECT_EQ(axis.cell_of(96), 63);
  EXPECT_EQ(axis.cell_of(97), -1);
}

TEST(ToolCellAxis, SmallDomainsGetOneCellPerIndexAndMarginsStayOutside) {
  const auto axis = tessera_tool::make_cell_axis(1, 0, 10, 2, 1, 64);
  ASSERT_EQ(axis.cells(), 13);
  EXPECT_FALSE(axis.downsampled());
  EXPECT_FALSE(axis.inside(0));
  EXPECT_TRUE(axis.inside(2));
  EXPECT_FALSE(axis.inside(12));
}

TEST(ToolCellAxis, HugeExtentsDoNotOverflow) {
  const index_t big = 1'000'000'000'000'000'000;
  const auto axis = tessera_tool::make_cell_axis(0, -big, big, 0, 0, 4096);
  ASSERT_EQ(axis.cells(), 4096);
  for (int k = 0; k < axis.cells(); ++k) EXPECT_LT(axis.first(k), axis.end(k));
  EXPECT_EQ(axis.edges.back(), big);
}

TEST(ToolPicture, MajorityOwnerMatchesCountingEveryIndex) {
  const std::string text = "domain=50x70 grid=2x3 dist=block_cyclic(3),cyclic";
  const auto dist = tessera::to_distribution<2>(tessera::parse_spec(text), 6);
  PictureOptions opt;
  opt.max_cells = 16;
  const OwnerPicture pic = picture<2>(text, 6, opt);
  ASSERT_EQ(pic.rows.cells(), 16);
  ASSERT_EQ(pic.cols.cells(), 16);
  for (int r = 0; r < pic.rows.cells(); ++r)
    for (int c = 0; c < pic.cols.cells(); ++c) {
      std::map<int, index_t> count;
      for (index_t i = pic.rows.first(r); i < pic.rows.end(r); ++i)
        for (index_t j = pic.cols.first(c); j < pic.cols.end(c); ++j) ++count[dist.owner({i, j})];
      int best = -1;
      index_t most = -1;
      for (const auto& [rank, n] : count)
        if (n > most) best = rank, most = n;  // map order: ties go to the lowest rank
      EXPECT_EQ(pic.owner_at(r, c), best) << "cell " << r << "," << c;
      const index_t cell = (pic.rows.end(r) - pic.rows.first(r)) * (pic.cols.end(c) - pic.cols.first(c));
      EXPECT_FLOAT_EQ(pic.owner_share[pic.cell_index(r, c)], static_cast<float>(most) / static_cast<float>(cell));
    }
}

TEST(ToolPicture, InterleavedCellsAreMixedAndBlockBoundariesAreNot) {
  PictureOptions opt;
  opt.max_cells = 10;
  // Cells of 10 columns: cyclic over 2 ranks interleaves in every cell.
  const OwnerPicture cyclic = picture<2>("domain=100x100 grid=1x2 dist=block,cyclic", 2, opt);
  for (int c = 0; c < cyclic.cols.cells(); ++c) EXPECT_TRUE(cyclic.mixed(0, c)) << c;
  // Blocks of 34/33/33 rows: the cells holding a boundary hold two ranks, each in one box.
  const OwnerPicture blocks = picture<2>("domain=100x100 grid=3x1", 3, opt);
  for (int r = 0; r < blocks.rows.cells(); ++r) EXPECT_FALSE(blocks.mixed(r, 0)) << r;
  EXPECT_EQ(blocks.owner_at(3, 0), 1);  // rows 30..39: 4 of rank 0, 6 of rank 1
}

TEST(ToolPicture, FirstIndexRuleUsesTheOwnerOfEachCellsFirstIndex) {
  const std::string text = "domain=1000 dist=cyclic";
  const auto dist = tessera::to_distribution<1>(tessera::parse_spec(text), 4);
  PictureOptions opt;
  opt.max_cells = 64;
  opt.rule = CellOwnerRule::first_index;
  const OwnerPicture pic = picture<1>(text, 4, opt);
  ASSERT_TRUE(pic.one_dimensional());
  for (int c = 0; c < pic.cols.cells(); ++c) EXPECT_EQ(pic.owner_at(0, c), dist.owner({pic.cols.first(c)}));
  EXPECT_TRUE(pic.second_owner.empty());
}

TEST(ToolPicture, SliceOfA3DDomain) {
  PictureOptions opt;
  opt.slice = {{1, 4}};
  const OwnerPicture pic = picture<3>("domain=4x6x8 grid=1x2x2", 4, opt);
  EXPECT_EQ(pic.rows.dim, 0);
  EXPECT_EQ(pic.cols.dim, 2);
  EXPECT_EQ(pic.slice_text, "dimension 1 = 4");
  // Index 4 of dimension 1 lies in the second half: ranks 2 and 3.
  EXPECT_EQ(pic.owner_at(0, 0), 2);
  EXPECT_EQ(pic.owner_at(3, 7), 3);
  opt.slice = {{1, 6}};
  EXPECT_THROW((void)picture<3>("domain=4x6x8 grid=1x2x2", 4, opt), tessera_tool::UsageError);
}

TEST(ToolPicture, GhostMarksOfTheChosenRank) {
  PictureOptions opt;
  opt.chosen_rank = 0;
  const OwnerPicture pic = picture<2>("domain=6x6 grid=2x2 ghosts=1", 4, opt);
  // Rows and columns -1..6: the margin of width 1 around the 6x6 domain.
  ASSERT_EQ(pic.rows.cells(), 8);
  ASSERT_EQ(pic.rows.first(0), -1);
  EXPECT_EQ(pic.mark_at(1, 1), CellMark::owned);           // (0, 0)
  EXPECT_EQ(pic.mark_at(1, 4), CellMark::ghost_filled);    // (0, 3): from rank 1
  EXPECT_EQ(pic.mark_at(4, 4), CellMark::ghost_filled);    // (3, 3): the corner, from rank 3
  EXPECT_EQ(pic.mark_at(0, 1), CellMark::ghost_unfilled);  // (-1, 0): beyond the edge
  EXPECT_EQ(pic.mark_at(5, 1), CellMark::other);           // (4, 0)
  EXPECT_EQ(pic.owner_at(0, 1), -1);                       // the margin has no owner
}

// A box set: a cell is a hole (no_owner) where the indices no box holds outnumber every rank's
// (ties go to the rank), checked by counting every index; the first-index rule asks the index.
TEST(ToolPicture, BoxSetHolesCountAgainstTheOwners) {
  const std::string text = "domain=30x40 boxes=0:30x0:9,0:11x9:40,17:30x23:40,20:25x12:17 assign=morton(chop=7x7)";
  const auto dist = tessera::to_distribution<2>(tessera::parse_spec(text), 5);
  const auto owner_of = [&](index_t i, index_t j) {
    const auto box = dist.box_set()->find({i, j});
    return box ? dist.box_set()->owner(*box) : tessera_tool::no_owner;
  };
  for (const CellOwnerRule rule : {CellOwnerRule::majority, CellOwnerRule::first_index}) {
    PictureOptions opt;
    opt.max_cells = 12;
    opt.rule = rule;
    const OwnerPicture pic = picture<2>(text, 5, opt);
    ASSERT_TRUE(pic.downsampled());
    int holes = 0;
    for (int r = 0; r < pic.rows.cells(); ++r)
      for (int c = 0; c < pic.cols.cells(); ++c) {
        int expected = owner_of(pic.rows.first(r), pic.cols.first(c));
        if (rule == CellOwnerRule::majority) {
          std::map<int, index_t> count;  // no_owner (-2) first: a rank as large wins over it
          for (index_t i = pic.rows.first(r); i < pic.rows.end(r); ++i)
            for (index_t j = pic.cols.first(c); j < pic.cols.end(c); ++j) ++count[owner_of(i, j)];
          expected = tessera_tool::no_owner;
          index_t most = -1;
          for (const auto& [rank, n] : count)
            if (n > most || (n == most && expected == tessera_tool::no_owner)) expected = rank, most = n;
        }
        EXPECT_EQ(pic.owner_at(r, c), expected) << "cell " << r << "," << c;
        holes += pic.owner_at(r, c) == tessera_tool::no_owner ? 1 : 0;
      }
    EXPECT_GT(holes, 10);
    EXPECT_TRUE(pic.any_hole());
  }
}

TEST(ToolPicture, GhostMarksOfABoxSetRank) {
  PictureOptions opt;
  opt.chosen_rank = 1;
  // Rank 1 owns [0,4)x[4,8); [4,8)x[4,8) is a hole.
  const OwnerPicture pic = picture<2>("domain=8x8 boxes=0:4x0:4@0,0:4x4:8@1,4:8x0:4@2 ghosts=1", 3, opt);
  ASSERT_EQ(pic.rows.first(0), -1);
  EXPECT_EQ(pic.owner_at(6, 6), tessera_tool::no_owner);     // (5, 5)
  EXPECT_EQ(pic.mark_at(1, 5), CellMark::owned);             // (0, 4)
  EXPECT_EQ(pic.mark_at(1, 4), CellMark::ghost_filled);      // (0, 3): from rank 0
  EXPECT_EQ(pic.mark_at(5, 4), CellMark::ghost_filled);      // (4, 3): the corner, from rank 2
  EXPECT_EQ(pic.mark_at(5, 5), CellMark::ghost_unfilled);    // (4, 4): over the hole
  EXPECT_EQ(pic.mark_at(6, 5), CellMark::other);             // (5, 4): in the hole, beyond the ghosts
}

// Every box of a box set is listed for its outline and label: its index in the set, its owner and
// its extent, checked against the set; a 3-D slice lists just the boxes it cuts; both renderings
// name each box.
TEST(ToolPicture, BoxSetBoxesAreListedWithTheirIndexOwnerAndExtent) {
  const std::string text = "domain=30x40 boxes=0:30x0:9,0:11x9:40,17:30x23:40,20:25x12:17 assign=morton(chop=7x7)";
  const auto dist = tessera::to_distribution<2>(tessera::parse_spec(text), 5);
  const tessera::BoxSet<2>& set = *dist.box_set();
  const OwnerPicture pic = picture<2>(text, 5, PictureOptions{});
  ASSERT_EQ(pic.box_count, set.size());
  ASSERT_EQ(pic.boxes.size(), set.size());
  EXPECT_FALSE(pic.boxes_cut_short());
  const std::string svg = tessera_tool::render_svg(pic), words = tessera_tool::render_text(pic);
  for (std::size_t k = 0; k < pic.boxes.size(); ++k) {
    const auto& b = pic.boxes[k];
    EXPECT_EQ(b.index, k);
    EXPECT_EQ(b.rect.rank, set.owner(k));
    EXPECT_EQ(b.rect.row_lo, set.box(k).lo[0]);
    EXPECT_EQ(b.rect.row_hi, set.box(k).hi[0]);
    EXPECT_EQ(b.rect.col_lo, set.box(k).lo[1]);
    EXPECT_EQ(b.rect.col_hi, set.box(k).hi[1]);
    std::ostringstream extent;
    extent << set.box(k);
    EXPECT_EQ(b.text, extent.str());
    if (k < tessera_tool::max_listed_boxes) {
      char row[48];
      std::snprintf(row, sizeof row, "%5zu %4d ", k, set.owner(k));
      EXPECT_NE(words.find(row + extent.str() + "\n"), std::string::npos) << "box " << k << " not in\n" << words;
    }
  }
  EXPECT_NE(svg.find(">#0<"), std::string::npos);
  EXPECT_NE(svg.find(">rank " + std::to_string(set.owner(0)) + "<"), std::string::npos);
  EXPECT_NE(svg.find(std::to_string(set.size()) + " boxes, outlined"), std::string::npos);
  // An ordinary distribution lists no boxes.
  EXPECT_EQ(picture<2>("domain=30x40 grid=2x2", 4, PictureOptions{}).box_count, 0u);

  // 3-D: the slice at index 3 of dimension 0 cuts boxes 0 and 2 only.
  PictureOptions opt;
  opt.slice = {{0, 3}};
  const OwnerPicture cut = picture<3>("domain=8x8x8 boxes=0:4x0:8x0:4@0,4:8x0:8x0:8@1,2:4x0:8x4:8@2", 3, opt);
  ASSERT_EQ(cut.box_count, 2u);
  EXPECT_EQ(cut.boxes[0].index, 0u);
  EXPECT_EQ(cut.boxes[1].index, 2u);
  EXPECT_EQ(cut.boxes[1].rect.rank, 2);
  EXPECT_EQ(cut.boxes[1].rect.col_lo, 4);  // columns: dimension 2
  EXPECT_EQ(cut.boxes[1].rect.row_hi, 8);  // rows: dimension 1
  EXPECT_NE(tessera_tool::render_text(cut).find("2 boxes meet the slice"), std::string::npos);
}

// Long lists are cut short: the text lists 64 boxes and counts the rest; above 4096 boxes the SVG
// neither outlines nor labels boxes (ranks are labelled as for other distributions) and says why.
TEST(ToolPicture, ManyBoxesAreCutShortInBothRenderings) {
  const OwnerPicture seventy = picture<2>("domain=7x10 boxes=0:7x0:10 assign=morton(chop=1x1)", 3,
                                          PictureOptions{});
  ASSERT_EQ(seventy.box_count, 70u);
  const std::string words = tessera_tool::render_text(seventy);
  EXPECT_NE(words.find("(6 more boxes not listed)"), std::string::npos) << words;
  EXPECT_NE(words.find("   63 "), std::string::npos);
  EXPECT_EQ(words.find("   64 "), std::string::npos);

  PictureOptions coarse;
  coarse.max_cells = 16;
  const OwnerPicture many = picture<2>("domain=80x80 boxes=0:80x0:80 assign=morton(chop=1x1)", 4, coarse);
  ASSERT_EQ(many.box_count, 6400u);
  EXPECT_EQ(many.boxes.size(), tessera_tool::max_labelled_rects);
  EXPECT_TRUE(many.boxes_cut_short());
  const std::string svg = tessera_tool::render_svg(many);
  EXPECT_NE(svg.find("6400 boxes (too many to outline)"), std::string::npos);
  EXPECT_EQ(svg.find(">#0<"), std::string::npos);
}

TEST(ToolPicture, RanksThatDoNotExistAreRefused) {
  PictureOptions opt;
  opt.chosen_rank = 4;
  EXPECT_THROW((void)picture<2>("domain=6x6 grid=2x2", 4, opt), tessera_tool::UsageError);
}

}  // namespace
