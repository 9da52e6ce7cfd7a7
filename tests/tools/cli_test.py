#!/usr/bin/env python3
"""Tests of the `tessera` command, one group per ctest test (cli.<group>): every subcommand on good
and bad input (exit status 0 / 1 / 2, the message naming the bad part), `show` output compared with
the expected text in tests/tools/expected/, `plan` reports, the demo and the benchmark report.

    TESSERA=build/tools/tessera/tessera WORK_DIR=/tmp/cli python3 tests/tools/cli_test.py show

Set UPDATE_EXPECTED=1 to rewrite the expected files from the current output (then read the diff).
"""
import os
import re
import shutil
import subprocess
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
EXPECTED = os.path.join(HERE, "expected")
DOC_PICTURES = os.path.join(HERE, "..", "..", "docs", "pictures")
TESSERA = os.environ.get("TESSERA", "tessera")
WORK_DIR = os.environ.get("WORK_DIR", os.path.join(os.getcwd(), "cli-test"))


def tessera(*args, timeout=120):
    """Runs the tool; returns (exit status, stdout, stderr)."""
    done = subprocess.run([TESSERA, *args], capture_output=True, text=True, timeout=timeout)
    return done.returncode, done.stdout, done.stderr


def work_path(name):
    os.makedirs(WORK_DIR, exist_ok=True)
    return os.path.join(WORK_DIR, name)


class ToolTestCase(unittest.TestCase):
    def ok(self, *args, **kw):
        rc, out, err = tessera(*args, **kw)
        self.assertEqual(rc, 0, f"tessera {' '.join(args)} failed ({rc}):\n{out}\n{err}")
        return out

    def fails(self, status, *args, says=()):
        """Expects exit status `status` and every regex of `says` in stderr."""
        rc, out, err = tessera(*args)
        self.assertEqual(rc, status, f"tessera {' '.join(args)}: expected exit {status}, got {rc}:\n{out}\n{err}")
        for pattern in says:
            self.assertRegex(err, pattern)
        return err

    def matches_expected(self, name, text):
        path = os.path.join(EXPECTED, name)
        if os.environ.get("UPDATE_EXPECTED"):
            with open(path, "w") as f:
                f.write(text)
        with open(path) as f:
            self.assertEqual(text, f.read(), f"output differs from {path}")


class Usage(ToolTestCase):
    def test_help_lists_every_subcommand_and_the_exit_statuses(self):
        out = self.ok("--help")
        for command in ("show", "plan", "demo", "bench"):
            self.assertRegex(out, rf"\n  {command} ")
        self.assertIn("Exit status: 0 done, 1 runtime failure, 2 bad usage or bad SPEC", out)

    def test_every_subcommand_has_help(self):
        for command in ("show", "plan", "demo", "bench"):
            out = self.ok(command, "--help")
            self.assertIn(f"Usage: tessera {command}", out)

    def test_no_subcommand_is_bad_usage(self):
        self.fails(2, says=[r"subcommand is required"])

    def test_unknown_subcommand_or_option_is_bad_usage(self):
        self.fails(2, "frobnicate")
        self.fails(2, "show", "domain=4", "--bogus", says=[r"--bogus"])


class Show(ToolTestCase):
    CASES = {
        "show_cut_block.txt": ["domain=6x9", "grid=2x3", "dist=cut(0,2,6),block"],
        "show_cyclic_block_cyclic.txt": ["domain=12x12", "grid=2x3", "dist=cyclic,block_cyclic(2)"],
        "show_irregular_1d.txt": ["domain=10", "grid=3", "dist=irregular(0,0,1,2,2,1,0,0,1,1)"],
        "show_periodic_ghosts_rank.txt": ["domain=8x10", "grid=2x2", "ghosts=1p", "--rank", "3"],
        "show_edge_ghosts_rank.txt": ["domain=6x6", "grid=2x2", "ghosts=1", "--rank", "0"],
        "show_slice_3d.txt": ["domain=4x6x8", "grid=1x2x2", "--slice", "1=4"],
        "show_downsampled_1d.txt": ["domain=100000", "--ranks", "5"],
        "show_skeletons.txt": ["domain=5x4", "grid=auto@3", "--ranks", "5"],
        # A box set with holes ([4,8)x[6,10) less one box, and more), its owners given.
        "show_box_set_holes.txt": ["domain=8x10", "boxes=0:4x0:4@0,0:4x4:10@1,4:8x0:6@2,5:7x7:9@1"],
        "show_box_set_ghosts_rank.txt": ["domain=8x8", "boxes=0:8x0:3,0:3x3:8,5:8x5:8", "assign=knapsack",
                                         "ghosts=1", "--ranks", "3", "--rank", "1"],
        # A multiblock spec: a block x block block, cyclic rows, a box set with a hole; a turned
        # interface, a flipped part of a face, a periodic block (docs/spec-format.md, "Multiblock").
        "show_multiblock.txt": ["width=2", "ghosts=1", "block", "domain=6x8", "block", "domain=8x5", "grid=*x1",
                                "dist=cyclic,block", "block", "domain=6x8", "boxes=0:3x0:8@1,3:6x0:4@0",
                                "glue", "0.0+", "1.1+", "perm=1,0", "flip=1,0", "glue", "1.0+", "2.0-[0:1x2:7]",
                                "flip=0,1", "glue", "2.1+", "2.1-", "--ranks", "3"],
        "show_box_set_downsampled.txt": ["domain=200x300", "boxes=0:200x0:100,0:50x100:300,120:200x220:300",
                                         "assign=morton(chop=40x40)@4", "--max-cells", "20"],
    }

    def test_output_matches_the_expected_text(self):
        for name, args in self.CASES.items():
            with self.subTest(name):
                self.matches_expected(name, self.ok("show", *args))

    def test_a_spec_file_reads_like_the_words(self):
        from_file = self.ok("show", "@" + os.path.join(HERE, "data", "spec_file.cfg"))
        self.assertEqual(from_file, self.ok("show", *self.CASES["show_cut_block.txt"]))

    def test_one_quoted_word_reads_like_several(self):
        self.assertEqual(self.ok("show", "domain=6x9 grid=2x3 dist=cut(0,2,6),block"),
                         self.ok("show", *self.CASES["show_cut_block.txt"]))

    def test_svg_is_written(self):
        path = work_path("show.svg")
        out = self.ok("show", "domain=40x60", "grid=2x3", "ghosts=1p", "--rank", "4", "--svg", path)
        self.assertIn(f"wrote {path}", out)
        with open(path) as f:
            svg = f.read()
        self.assertTrue(svg.startswith("<svg "))
        self.assertIn("url(#filled)", svg)  # the chosen rank's ghosts

    def test_svg_of_a_box_set_draws_its_holes(self):
        path = work_path("show-box-set.svg")
        self.ok("show", "domain=8x8", "boxes=0:4x0:4@0,0:4x4:8@1,4:8x0:4@2", "--svg", path)
        with open(path) as f:
            svg = f.read()
        self.assertIn("fill='url(#hole)'", svg)
        self.assertIn("hole: no rank owns it", svg)
        for rank in range(3):
            self.assertIn(f">{rank}: 16</text>", svg)  # each rank's swatch and cells

    # The pictures docs/box-sets.md shows, made by `tessera show` with these arguments: each must be
    # what the tool draws now (UPDATE_EXPECTED=1 redraws them).
    DOC_PICTURES = {
        "box-set-morton.svg": ["domain=40x60", "boxes=0:40x0:20,0:15x20:60,25:40x35:60", "assign=morton(chop=10x10)",
                               "--ranks", "5"],
        "box-set-ghosts.svg": ["domain=16x24", "boxes=0:8x0:8@0,0:8x8:24@1,8:16x0:12@2,10:14x16:22@1", "ghosts=2",
                               "--rank", "1"],
    }

    def test_the_docs_pictures_are_what_the_tool_draws(self):
        for name, args in self.DOC_PICTURES.items():
            with self.subTest(name):
                path = work_path(name)
                self.ok("show", *args, "--svg", path)
                with open(path) as f:
                    svg = f.read()
                committed = os.path.join(DOC_PICTURES, name)
                if os.environ.get("UPDATE_EXPECTED"):
                    shutil.copyfile(path, committed)
                with open(committed) as f:
                    self.assertEqual(svg, f.read(), f"{committed} is not what `tessera show {' '.join(args)}` draws")

    def test_svg_of_a_box_set_outlines_and_labels_every_box(self):
        path = work_path("show-box-outlines.svg")
        self.ok("show", "domain=8x10", "boxes=0:4x0:4@0,0:4x4:10@1,4:8x0:6@2,5:7x7:9@1", "--svg", path)
        with open(path) as f:
            svg = f.read()
        for box, rank in enumerate([0, 1, 2, 1]):
            self.assertIn(f">#{box}</text>", svg)
            self.assertIn(f">rank {rank}</text>", svg)
        self.assertIn("4 boxes, outlined: #index", svg)

    def test_downsampling_says_which_rule_colours_a_cell(self):
        self.assertIn("each cell shows the rank owning most of its indices",
                      self.ok("show", "domain=1000x1000", "dist=cyclic,block", "--ranks", "4"))
        self.assertIn("each cell shows the owner of its first index",
                      self.ok("show", "domain=1000x1000", "--ranks", "4", "--cell-owner", "first"))

    def test_bad_spec_names_the_bad_part(self):
        self.fails(2, "show", "domain=10", "dist=cut(0,5,9)",
                   says=[r"SPEC: at column 16, \"cut\(0,5,9\)\"", r"must equal the high bound 10"])
        self.fails(2, "show", "domain=10", "gird=2", says=[r"at column 11, \"gird\": is not a key"])
        self.fails(2, "show", "domain=10x10", "grid=3", says=[r"at column 14, \"grid=3\": has 1 grid extents"])
        self.fails(2, "show", "domain=8x8", "boxes=0:4x0:4@0,2:6x2:6@1",
                   says=[r"SPEC: at column 28, \"2:6x2:6@1\": overlaps the box at column 18"])
        self.fails(2, "show", "domain=8", "boxes=0:4", "assign=greedy", says=[r"at column 27, \"greedy\": is not a policy"])
        self.fails(2, "show", "domain=8", "boxes=0:4@0,4:8@3", "--ranks", "2",
                   says=[r"at column 22, \"4:8@3\": owner 3 is not a rank of the communicator \[0, 2\)"])

    def test_multiblock_specs(self):
        # An SVG of the embedding; a file reads as the words do; the errors name the glue clause.
        path = work_path("show-multiblock.svg")
        out = self.ok("show", "block", "domain=4x4", "block", "domain=6x4", "glue", "0.0+", "1.0-", "--svg", path)
        self.assertIn("multiblock: 2 blocks, 1 glue clause on 4 ranks", out)
        with open(path) as f:
            self.assertIn("<svg", f.read())
        spec_file = work_path("ring.spec")
        with open(spec_file, "w") as f:
            f.write("# two blocks\nblock domain=4x4\nblock domain=4x4\nglue 0.0+ 1.1+ perm=1,0 flip=1,0\n")
        self.assertIn("glue 0.0+ 1.1+ perm=1,0 flip=1,0", self.ok("show", "@" + spec_file))
        self.fails(2, "show", "block", "domain=4x4", "block", "domain=4x5", "glue", "0.0+", "1.0-",
                   says=[r"SPEC: at column 35, \"glue 0.0\+ 1.0-\": .*differ in size"])
        self.fails(2, "show", "block", "domain=4x4", "glue", "0.0+", "0.0-", "perm=1,1",
                   says=[r"SPEC: at column 33, \"perm=1,1\": is not a permutation"])
        self.fails(2, "show", "block", "domain=4x4", "--rank", "0", says=[r"--rank: .*multiblock"])
        self.fails(2, "plan", "block domain=4x4", "domain=4x4", says=[r"FROM: a multiblock spec"])

    def test_bad_usage(self):
        self.fails(2, "show", says=[r"SPEC is required"])
        self.fails(2, "show", "domain=10x10", "--rank", "9", says=[r"rank 9 does not exist.*4 ranks"])
        self.fails(2, "show", "domain=10x10", "dist=cyclic,block", "ghosts=1", "--rank", "0",
                   says=[r"dimension 0 is distributed cyclic"])
        self.fails(2, "show", "domain=2x2x2x2", says=[r"4 dimensions"])
        self.fails(2, "show", "domain=4x4", "--slice", "0=1", says=[r"--slice.*3-D"])
        self.fails(2, "show", "domain=4x4x4", "--slice", "1=4", says=[r"index 4 is outside dimension 1"])
        self.fails(2, "show", "domain=4x4x4", "--slice", "x", says=[r"DIMENSION=INDEX"])
        self.fails(2, "show", "domain=4", "--cell-owner", "median")
        self.fails(2, "show", "@" + work_path("no-such-spec.cfg"), says=[r"cannot read the spec file"])
        self.fails(2, "show", "domain=100", "grid=8", "--ranks", "4", says=[r"places 8 ranks"])

    def test_unwritable_svg_is_a_runtime_failure(self):
        self.fails(1, "show", "domain=4", "--svg", work_path("missing-folder/x.svg"), says=[r"cannot write"])


class Plan(ToolTestCase):
    def test_redistribution_report(self):
        self.matches_expected("plan_blocks.txt", self.ok("plan", "domain=8x8 grid=2x2", "domain=8x8 grid=4x1"))

    def test_multiblock_halo_report(self):
        # Block 0 (4x4, rows split over 2 ranks) glued by its upper face of axis 1 to block 1's
        # upper face of axis 0 (6x4, columns split), turned: within block 0 a row of 4 each way,
        # within block 1 a column of 6 each way: 20 between ranks; every interface ghost's source is
        # on its own rank (block 0's (i, 4) is block 1's (5, i)): 8 kept, in 2 local copies.
        out = self.ok("plan", "width=1 ghosts=1,faces block domain=4x4 grid=2x1 block domain=6x4 grid=1x2 "
                      "glue 0.1+ 1.0+ perm=1,0 flip=0,1", "--halo", "--ranks", "2", "--element-size", "1")
        self.assertIn("multiblock: 2 blocks, 1 interfaces", out)
        self.assertIn("moved between ranks: 20 bytes, 20 elements, in 2 messages", out)
        self.assertIn("minimum possible:    20 bytes", out)
        self.assertIn("kept on its rank:    8 bytes in 2 local copies", out)
        # Block 1 distributed the other way: the interface ghosts now cross ranks (4 each way).
        out = self.ok("plan", "width=1 ghosts=1,faces block domain=4x4 grid=2x1 block domain=6x4 grid=2x1 "
                      "glue 0.1+ 1.0+ perm=1,0 flip=0,1", "--halo", "--ranks", "2", "--element-size", "1")
        self.assertIn("the plan moves nothing more", out)
        self.fails(2, "plan", "ghosts=1p block domain=4x4", "--halo", says=[r"SPEC: at column 1.*periodic"])
        self.fails(2, "plan", "width=1 ghosts=2 block domain=4x4", "--halo", says=[r"max_ghost_width"])

    def test_box_set_reports(self):
        # The L-shape's three ranks to rows of 2 on 4 ranks: each box keeps one half and sends the
        # other (8 elements each); the hole [4,8)x[4,8) holds nothing, so rank 3 gets only rows
        # 6-7 of box 2.
        self.matches_expected("plan_box_set.txt",
                              self.ok("plan", "domain=8x8 boxes=0:4x0:4@0,0:4x4:8@1,4:8x0:4@2", "domain=8x8 grid=4x1"))
        out = self.ok("plan", "domain=8x8 grid=2x2", "domain=8x8 boxes=0:4x0:8,4:8x0:4 assign=morton(chop=2x2)",
                      "--element-size", "1")
        self.assertIn("the plan moves nothing more", out)
        out = self.ok("plan", "domain=8x8 boxes=0:4x0:4@0,0:4x4:8@1,4:8x0:4@2 ghosts=1", "--halo", "--element-size", "1")
        # Each box's ghost layer inside the other boxes (the hole and the outside fill nothing):
        # 0 and 1 share a face of 4 cells each way, 0 and 2 too, 1 and 2 touch at a corner, one
        # cell each way: 4 * 4 + 2 = 18 elements in 6 messages.
        self.assertIn("moved between ranks: 18 bytes, 18 elements, in 6 messages", out)
        # The least possible counts no ghost over the hole (it reported 27, more than was moved).
        self.assertIn("minimum possible:    18 bytes, 18 elements", out)

    def test_halo_report(self):
        self.matches_expected("plan_halo.txt", self.ok("plan", "domain=16x16 grid=2x2 ghosts=1p", "--halo"))

    def test_totals_and_element_size(self):
        out = self.ok("plan", "domain=1000 dist=block", "domain=1000 dist=cyclic", "--ranks", "4",
                      "--element-size", "1")
        # Block -> cyclic on 4 ranks: an index stays only where both put it on the same rank,
        # 1000 / 16 of them per rank; the rest (750) move, in 12 messages of 62-63 elements.
        self.assertIn("moved between ranks: 750 bytes, 750 elements, in 12 messages", out)
        self.assertIn("minimum possible:    750 bytes, 750 elements (the elements that change owner): "
                      "the plan moves nothing more", out)
        self.assertIn("largest message:     63 bytes", out)

    def test_many_ranks_list_the_largest_messages_and_draw_the_heat_map(self):
        path = work_path("plan.svg")
        out = self.ok("plan", "domain=1000 dist=block", "domain=1000 dist=cyclic", "--ranks", "20", "--svg", path)
        self.assertIn("the 10 largest of 380 messages", out)
        self.assertIn(f"wrote {path}", out)
        with open(path) as f:
            self.assertIn("bytes per pair of ranks: redistribution", f.read())

    def test_no_ghosts_moves_nothing(self):
        out = self.ok("plan", "domain=8x8", "--halo")
        self.assertIn("no ghost layers", out)
        self.assertIn("in 0 messages", out)

    def test_bad_input(self):
        self.fails(2, "plan", "domain=8", says=[r"needs FROM and TO"])
        self.fails(2, "plan", "domain=8", "domain=8", "--halo", says=[r"--halo takes one SPEC"])
        self.fails(2, "plan", "domain=8", "domain=9", says=[r"TO: the domain \[0,9\) differs from FROM's \[0,8\)"])
        self.fails(2, "plan", "domain=8", "domain=8x8", says=[r"TO: the spec has 2 dimensions but FROM has 1"])
        self.fails(2, "plan", "domain=8", "domain=8 dist=blok", says=[r"TO: at column 15, \"blok\""])
        self.fails(2, "plan", "domain=8 grid=3@2", "domain=8", says=[r"FROM: at column"])
        self.fails(2, "plan", "domain=8x8 dist=cyclic,block ghosts=1", "--halo", says=[r"SPEC: .*cyclic"])
        self.fails(2, "plan", "domain=8", "domain=8", "--element-size", "0")
        self.fails(1, "plan", "domain=8", "domain=8", "--svg", work_path("missing-folder/p.svg"),
                   says=[r"cannot write"])


class Bench(ToolTestCase):
    def test_report_from_a_records_file(self):
        out_dir = work_path("bench")
        shutil.rmtree(out_dir, ignore_errors=True)
        self.ok("bench", "--plot-from", os.path.join(HERE, "data", "records.json"), "--out", out_dir)
        with open(os.path.join(out_dir, "latest.md")) as f:
            md = f.read()
        # the transport column is "—" for records that do not say (older files, non-MPI drivers)
        self.assertIn("| halo | 2d-5pt-w1-periodic-256 | 2 | — | median_s |", md)
        self.assertIn("![tessera time / anchor time for every record with an anchor](ratios.svg)", md)
        with open(os.path.join(out_dir, "ratios.svg")) as f:
            svg = f.read()
        self.assertIn("4 records with an anchor", svg)
        self.assertIn("40.00 (clipped)", svg)

    def test_program_help_shows_the_options_of_run_all(self):
        self.assertIn("--plot-from", self.ok("bench", "--program-help"))

    def test_bad_arguments(self):
        self.fails(2, "bench", "--plot-from", work_path("no-such-records.json"), says=[r"cannot read records"])
        # --build names a folder, so the tool does not look for one (builds without benchmarks, such
        # as the sanitizer preset's, have none): the bad option reaches run_all.py's parser.
        self.fails(2, "bench", "--build", work_path("no-such-build"), "--no-such-option",
                   says=[r"unrecognized arguments"])


class Demo(ToolTestCase):
    ARGS = ["--ranks", "2", "--n", "32", "--iterations", "30", "--interval", "3", "--load", "0:3@5-25",
            "--policies", "none", "full"]

    def test_small_run_writes_its_plots(self):
        out_dir = work_path("demo")
        shutil.rmtree(out_dir, ignore_errors=True)
        rc, out, err = tessera("demo", *self.ARGS, "--out", out_dir, timeout=300)
        self.assertEqual(rc, 0, out + err)
        self.assertIn("every run computed the unloaded run's solution bit for bit", out)
        self.assertRegex(out, r"\| none \| [0-9.]+ \|")  # the table
        self.assertIn(f"plots:   {os.path.join(out_dir, 'balance.svg')}", out)
        for name in ("balance.svg", "summary.json", "iterations.csv"):
            self.assertTrue(os.path.isfile(os.path.join(out_dir, name)), name)

    def test_program_help_shows_the_options_of_the_demo_program(self):
        out = self.ok("demo", "--ranks", "1", "--program-help")
        self.assertIn("--policies", out)
        self.assertNotIn("plots:", out)

    def test_bad_arguments_of_the_demo_are_bad_usage(self):
        self.fails(2, "demo", "--ranks", "2", "--load", "none", "--policies", "bogus", "--out", "",
                   says=[r"bogus"])
        self.fails(2, "demo", "--ranks", "2", "--load", "5:2@1-9", "--out", "", says=[r"rank 5 does not exist"])
        self.fails(2, "demo", "--ranks", "0")


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit("usage: cli_test.py GROUP (Usage, Show, Plan, Bench, Demo)")
    group = sys.argv[1].capitalize()
    suite = unittest.defaultTestLoader.loadTestsFromTestCase(globals()[group])
    result = unittest.TextTestRunner(verbosity=2).run(suite)
    sys.exit(0 if result.wasSuccessful() else 1)
