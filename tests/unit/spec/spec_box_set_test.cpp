// Box sets in the spec format (docs/spec-format.md, "Box sets"): parsing and the canonical text,
// the mapping onto Distribution::from_box_set against the BoxSet built directly (owners given, or
// chosen by knapsack / morton after chopping), and every error naming the part of the text.

#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "spec_error_expectation.hpp"
#include "tessera/spec/spec.hpp"

namespace tessera {
namespace {

using spec_testing::expect_spec_error;

void expect_rejected(const std::string& text, const std::string& where, const std::string& why) {
  SCOPED_TRACE(text);
  expect_spec_error([&] { (void)parse_spec(text); }, "spec: " + where + ": ", why);
}

const Box<2> kSquare({0, 0}, {8, 8});
// An L-shape of three boxes; [4,8)x[4,8) is a hole.
const std::vector<Box<2>> kL = {Box<2>({0, 0}, {4, 4}), Box<2>({0, 4}, {4, 8}), Box<2>({4, 0}, {8, 4})};

TEST(SpecBoxSet, ParsesBoxesAndOwners) {
  const Spec s = parse_spec("domain=8x8 boxes=0:4x0:4@0,0:4x4:8@1,4:8x0:4@2 ghosts=1");
  ASSERT_TRUE(s.is_box_set());
  ASSERT_EQ(s.boxes.size(), 3u);
  EXPECT_EQ(s.boxes[1], (SpecBox{{0, 4}, {4, 8}, 1}));
  EXPECT_EQ(s.assignment, SpecAssignment::given);
  EXPECT_TRUE(s.chop.empty());
  EXPECT_EQ(s.axes[0].ghost_lower, 1);
  EXPECT_EQ(s.source.box[2].column, 38);
  EXPECT_EQ(s.source.box[2].text, "4:8x0:4@2");
  EXPECT_EQ(to_string(s), "domain=8x8 boxes=0:4x0:4@0,0:4x4:8@1,4:8x0:4@2 ghosts=1");
  EXPECT_FALSE(parse_spec("domain=8x8").is_box_set());
}

TEST(SpecBoxSet, ParsesPoliciesChopAndRankCount) {
  const Spec s = parse_spec("domain=16x16x4 boxes=0:16x0:8x0:4 assign=morton(chop=4x4x2)@3");
  EXPECT_EQ(s.assignment, SpecAssignment::morton);
  EXPECT_EQ(s.chop, (std::vector<index_t>{4, 4, 2}));
  EXPECT_EQ(s.grid_ranks, 3);
  EXPECT_EQ(s.boxes[0].owner, -1);
  EXPECT_EQ(parse_spec("domain=8 boxes=0:8 assign=knapsack").assignment, SpecAssignment::knapsack);
  EXPECT_EQ(parse_spec("domain=8 boxes=0:8 assign=hilbert(chop=2)").assignment, SpecAssignment::hilbert);
}

TEST(SpecBoxSet, CanonicalTextAndRoundTrip) {
  // Ranges written as extents print as lo:hi; the grid fields are never printed for a box set.
  EXPECT_EQ(to_string(parse_spec("domain=8 boxes=4@0,4:8@1")), "domain=8 boxes=0:4@0,4:8@1");
  EXPECT_EQ(to_string(parse_spec("assign=knapsack@2  boxes=-4:0,1:3 domain=-4:4")),
            "domain=-4:4 boxes=-4:0,1:3 assign=knapsack@2");
  const char* texts[] = {
      "domain=8x8 boxes=0:4x0:4@0,0:4x4:8@1,4:8x0:4@2",
      "domain=16x16x4 boxes=0:16x0:8x0:4 assign=morton(chop=4x4x2) ghosts=1p,faces",
      "domain=-4:4 boxes=-4:0,1:3 assign=knapsack@2 ghosts=1:2",
      "domain=10x10 boxes=2:3x2:3@1048575",
      "domain=12x12 boxes=0:12x0:12 assign=hilbert(chop=3x3)@2",
  };
  for (const char* text : texts) {
    SCOPED_TRACE(text);
    const Spec s = parse_spec(text);
    EXPECT_EQ(to_string(s), text);
    EXPECT_EQ(parse_spec(to_string(s)), s);
  }
  // Owners, policies and chop extents take part in ==.
  EXPECT_NE(parse_spec("domain=8 boxes=0:4@0"), parse_spec("domain=8 boxes=0:4@1"));
  EXPECT_NE(parse_spec("domain=8 boxes=0:4 assign=morton"), parse_spec("domain=8 boxes=0:4 assign=knapsack"));
  EXPECT_NE(parse_spec("domain=8 boxes=0:4 assign=morton"), parse_spec("domain=8 boxes=0:4 assign=hilbert"));
  EXPECT_NE(parse_spec("domain=8 boxes=0:4 assign=morton"), parse_spec("domain=8 boxes=0:4 assign=morton(chop=2)"));
  EXPECT_NE(parse_spec("domain=8 boxes=0:8@0"), parse_spec("domain=8"));
}

TEST(SpecBoxSetMapping, GivenOwnersAreTheBoxSet) {
  const Spec s = parse_spec("domain=8x8 boxes=0:4x0:4@0,0:4x4:8@0,4:8x0:4@1");
  for (int comm_size : {2, 3, 5}) {
    const auto dist = to_distribution<2>(s, comm_size);
    EXPECT_EQ(dist, Distribution<2>::from_box_set(BoxSet<2>(kSquare, kL, {0, 0, 1}, comm_size)));
    EXPECT_EQ(dist.domain(), kSquare);
    EXPECT_FALSE(dist.covers_domain());
    EXPECT_EQ(dist.local_size(0), 32);
    EXPECT_EQ(dist.local_size(1), 16);
  }
}

TEST(SpecBoxSetMapping, PoliciesAreTheLibrarysAssignments) {
  const Box<2> domain({-2, 0}, {30, 20});
  const std::vector<Box<2>> boxes = {Box<2>({-2, 0}, {14, 20}), Box<2>({14, 0}, {30, 7})};
  const Spec knapsack = parse_spec("domain=-2:30x20 boxes=-2:14x0:20,14:30x0:7 assign=knapsack(chop=5x6)");
  const Spec morton = parse_spec("domain=-2:30x20 boxes=-2:14x0:20,14:30x0:7 assign=morton(chop=5x6)@3");
  const Spec whole = parse_spec("domain=-2:30x20 boxes=-2:14x0:20,14:30x0:7 assign=morton");
  const Spec hilbert = parse_spec("domain=-2:30x20 boxes=-2:14x0:20,14:30x0:7 assign=hilbert(chop=5x6)");
  const auto pieces = chop_boxes(boxes, Point<2>{5, 6});
  ASSERT_GT(pieces.size(), 10u);
  for (int comm_size : {3, 4, 7}) {
    SCOPED_TRACE(comm_size);
    EXPECT_EQ(to_distribution<2>(knapsack, comm_size),
              Distribution<2>::from_box_set(make_box_set(domain, pieces, comm_size, BoxAssignment::knapsack)));
    // @3: the policy spreads over ranks 0..2; the others own nothing.
    const auto dist = to_distribution<2>(morton, comm_size);
    EXPECT_EQ(dist, Distribution<2>::from_box_set(BoxSet<2>(
                        domain, pieces, assign_boxes<2>(pieces, 3, BoxAssignment::morton), comm_size)));
    for (int r = 3; r < comm_size; ++r) EXPECT_EQ(dist.local_size(r), 0);
    EXPECT_EQ(to_distribution<2>(whole, comm_size),
              Distribution<2>::from_box_set(make_box_set(domain, boxes, comm_size, BoxAssignment::morton)));
    EXPECT_EQ(to_distribution<2>(hilbert, comm_size),
              Distribution<2>::from_box_set(make_box_set(domain, pieces, comm_size, BoxAssignment::hilbert)));
  }
  EXPECT_TRUE(to_distribution<2>(knapsack, 4).covers_domain() == false);  // [14,30)x[7,20) is a hole
}

TEST(SpecBoxSetErrors, Parse) {
  expect_rejected("domain=8x8 boxes=0:4x0:4@0,2:6x2:6@1", R"~(at column 28, "2:6x2:6@1")~",
                  R"~(overlaps the box at column 18, "0:4x0:4@0")~");
  expect_rejected("domain=8 boxes=4:8@0,0:2@1,1:5@0", R"~(at column 28, "1:5@0")~", "overlaps the box at column 22");
  expect_rejected("domain=8 boxes=0:4@1048576", R"~(at column 20, "1048576")~", "an owner rank must be in [0, 1048575]");
  expect_rejected("domain=8 boxes=0:4@x", R"~(at column 20, "x")~", "is not an integer (an owner rank)");
  expect_rejected("domain=8 boxes=", R"~(at column 10, "boxes=")~", "has an empty value");
  expect_rejected("domain=8 boxes=,", R"~(at column 16, ",")~", "has an empty entry");
  expect_rejected("domain=8 boxes=@1", R"~(at column 16, "@1")~", "needs a box before '@'");
  expect_rejected("domain=8 boxes=0:9@0", R"~(at column 16, "0:9@0")~", "is not inside the domain");
  expect_rejected("domain=8 boxes=3:3@0", R"~(at column 16, "3:3@0")~", "is empty along dimension 0");
  expect_rejected("domain=8 boxes=5:3@0", R"~(at column 16, "5:3")~", "has hi < lo");
  expect_rejected("domain=8x8 boxes=0:4@0", R"~(at column 18, "0:4@0")~", "has 1 ranges for a domain of 2 dimensions");
  expect_rejected("domain=8 boxes=0:4", R"~(at column 16, "0:4")~", "needs an owner");
  expect_rejected("domain=8 boxes=0:4@0,4:8", R"~(at column 22, "4:8")~", "needs an owner");
  expect_rejected("domain=8 boxes=0:4@0 assign=morton", R"~(at column 16, "0:4@0")~", "names its owner, but assign=");
  expect_rejected("domain=8 assign=morton", R"~(at column 10, "assign=morton")~", "needs a boxes= field");
  expect_rejected("domain=8 grid=2 boxes=0:4@0", R"~(at column 10, "grid=2")~", "does not apply to a box set");
  expect_rejected("domain=8 boxes=0:4@0 dist=cyclic", R"~(at column 22, "dist=cyclic")~", "does not apply to a box set");
  expect_rejected("domain=8 boxes=0:4@0 order=0", R"~(at column 22, "order=0")~", "does not apply to a box set");
  expect_rejected("domain=8 boxes=0:4 boxes=4:8", R"~(at column 20, "boxes=4:8")~", "repeats the key boxes");
}

TEST(SpecBoxSetErrors, Policies) {
  expect_rejected("domain=8 boxes=0:4 assign=greedy", R"~(at column 27, "greedy")~",
                  "is not a policy; the policies are knapsack, morton and hilbert");
  expect_rejected("domain=8 boxes=0:4 assign=(chop=2)", R"~(at column 27, "(chop=2)")~", "is not a policy");
  expect_rejected("domain=8 boxes=0:4 assign=chop(2)", R"~(at column 27, "chop")~", "is an option of a policy");
  expect_rejected("domain=8 boxes=0:4 assign=@2", R"~(at column 20, "assign=@2")~", "needs a policy before '@'");
  expect_rejected("domain=8 boxes=0:4 assign=morton@0", R"~(at column 34, "0")~", "a rank count must be in [1, 1048576]");
  expect_rejected("domain=8 boxes=0:4 assign=morton+", R"~(at column 33, "+")~", "is not part of a policy");
  expect_rejected("domain=8 boxes=0:4 assign=morton()", R"~(at column 27, "morton()")~", "has empty parentheses");
  expect_rejected("domain=8 boxes=0:4 assign=morton(lb=2)", R"~(at column 34, "lb")~", "the option is chop");
  expect_rejected("domain=8 boxes=0:4 assign=morton(chop)", R"~(at column 34, "chop")~", "needs extents");
  expect_rejected("domain=8 boxes=0:4 assign=morton(chop=2,chop=3)", R"~(at column 41, "chop=3")~", "is given twice");
  expect_rejected("domain=8 boxes=0:4 assign=morton(chop=0)", R"~(at column 39, "0")~", "a chop extent must be in [1,");
  expect_rejected("domain=8x8 boxes=0:4x0:4 assign=morton(chop=2)", R"~(at column 40, "chop=2")~",
                  "has 1 extents for a domain of 2 dimensions");
  expect_rejected("domain=1000000x1000000 boxes=0:1000000x0:1000000 assign=knapsack(chop=1x1)",
                  R"~(at column 57, "knapsack(chop=1x1)")~", "chops the boxes into more than 65536 boxes");
}

TEST(SpecBoxSetErrors, ListTooLong) {
  std::ostringstream text;
  text << "domain=100000 boxes=";
  for (int i = 0; i < 4097; ++i) text << (i ? "," : "") << i << ':' << i + 1 << "@0";
  expect_spec_error([&] { (void)parse_spec(text.str()); }, R"~(spec: at column 15, "boxes=0:1@0,1:2@0,)~",
               "has 4097 boxes; a list holds at most 4096");
}

TEST(SpecBoxSetErrors, MappingNamesTheBoxOrThePolicy) {
  const Spec owners = parse_spec("domain=8 boxes=0:4@0,4:8@5");
  EXPECT_NO_THROW((void)to_distribution<1>(owners, 6));
  expect_spec_error([&] { (void)to_distribution<1>(owners, 4); }, R"~(spec: at column 22, "4:8@5": )~",
               "owner 5 is not a rank of the communicator [0, 4)");
  const Spec policy = parse_spec("domain=8 boxes=0:4 assign=morton@5");
  expect_spec_error([&] { (void)to_distribution<1>(policy, 4); }, R"~(spec: at column 20, "assign=morton@5": )~",
               "spreads the boxes over 5 ranks but the communicator has 4");
  expect_spec_error([&] { (void)to_distribution<2>(owners, 6); }, "spec: at column 1", "to_distribution<2> needs 2");
  // A spec built in code is named by its parts' printed text.
  Spec built = parse_spec("domain=8x8 boxes=0:4x0:4@0");
  built.source = {};
  built.boxes.push_back({{4, 0}, {8, 8}, 3});
  expect_spec_error([&] { (void)to_distribution<2>(built, 2); }, R"~(spec: boxes[1] "4:8x0:8@3": )~", "owner 3");
  built.boxes.back() = {{2}, {8}, 1};
  expect_spec_error([&] { (void)to_distribution<2>(built, 2); }, R"~(spec: boxes[1] "2:8@1": )~", "has not 2 ranges");
  built.boxes.back() = {{2, 2}, {8, 8}, 1};
  expect_spec_error([&] { (void)to_distribution<2>(built, 2); }, "spec: boxes: ", "overlaps");
}

}  // namespace
}  // namespace tessera
