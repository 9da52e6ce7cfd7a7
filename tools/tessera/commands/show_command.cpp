#include "commands/show_command.hpp"

#include <CLI/CLI.hpp>
#include <fstream>
#include <ostream>

#include "picture/picture_of.hpp"
#include "picture/show_svg.hpp"
#include "picture/show_text.hpp"
#include "spec_input.hpp"

namespace tessera_tool {
namespace {

// "D=I" -> (D, I).
std::pair<int, index_t> parse_slice(const std::string& text) {
  const auto eq = text.find('=');
  try {
    if (eq == std::string::npos) throw std::invalid_argument("no '='");
    std::size_t used = 0;
    const int dim = std::stoi(text.substr(0, eq), &used);
    if (used != eq) throw std::invalid_argument("dimension");
    const std::string index = text.substr(eq + 1);
    const long long at = std::stoll(index, &used);
    if (used != index.size()) throw std::invalid_argument("index");
    return {dim, at};
  } catch (const std::logic_error&) {
    throw UsageError("--slice: '" + text + "' is not DIMENSION=INDEX (e.g. --slice 2=10)");
  }
}

}  // namespace

CLI::App* add_show_command(CLI::App& app, ShowOptions& o) {
  CLI::App* cmd = app.add_subcommand("show", "Draw which rank owns which indices of a SPEC (terminal and SVG)");
  cmd->add_option("SPEC", o.spec_words,
                  "the distribution, one or more fields (domain=8x12 grid=2x3 dist=block,cyclic ghosts=1), "
                  "or @FILE; see docs/spec-format.md")
      ->required()
      ->type_name("FIELD");
  cmd->add_option("--ranks", o.ranks,
                  "ranks to lay the spec out on (default: the ranks its grid places, else 4)")
      ->check(CLI::Range(1, 1 << 20));
  cmd->add_option("--rank", o.rank, "shade this rank's ghost region (and outline what it owns)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--svg", o.svg_path, "also write the picture to this SVG file")->type_name("FILE");
  cmd->add_option("--max-cells", o.max_cells,
                  "cells per axis of the SVG at most; a larger domain is downsampled (default 128; the "
                  "terminal map uses at most 64)")
      ->check(CLI::Range(1, 4096));
  cmd->add_option("--cell-owner", o.cell_owner,
                  "colour of a downsampled cell: 'majority' (the rank owning most of it) or 'first' (the owner "
                  "of its first index)")
      ->check(CLI::IsMember({"majority", "first"}));
  cmd->add_option("--slice", o.slice, "3-D: the slice drawn, DIMENSION=INDEX (default: dimension 0 at its first index)")
      ->type_name("D=I");
  cmd->footer("Examples:\n"
              "  tessera show domain=12x18 grid=2x3 dist=cut(0,4,12),block\n"
              "  tessera show domain=16x16 grid=2x2 ghosts=1p --rank 3 --svg rank3.svg\n"
              "  tessera show domain=1000x1000 dist=block_cyclic(64),cyclic --ranks 6 --max-cells 100\n"
              "  tessera show domain=8x8 boxes=0:4x0:4@0,0:4x4:8@1,4:8x0:4@2   (a box set; '.' marks a hole)\n"
              "  tessera show block domain=6x8 block domain=8x5 glue 0.0+ 1.1+ perm=1,0 flip=1,0   (multiblock)");
  return cmd;
}

namespace {

// Writes `svg` to --svg's file and says so.
void write_svg(const ShowOptions& o, const std::string& svg, std::ostream& out) {
  std::ofstream file(o.svg_path);
  file << svg;
  file.close();
  if (!file) throw RuntimeFailure("--svg: cannot write '" + o.svg_path + "'");
  out << "\nwrote " << o.svg_path << '\n';
}

// A multiblock spec: the blocks, where each lies in the embedding, the glue clauses, then the
// embedding drawn as one box set (block b's rows start at its offset; the gaps between blocks are
// holes, '.').
void show_multiblock(const ShowOptions& o, const PictureOptions& popt, std::string text, std::ostream& out) {
  if (o.rank)
    throw UsageError("--rank: ghost regions are not drawn for a multiblock spec (the interfaces' ghosts would be missing)");
  const MultiblockArgument arg = read_multiblock_spec(std::move(text), "SPEC");
  std::vector<const tessera::Spec*> blocks;
  for (const auto& b : arg.spec.blocks) blocks.push_back(&b);
  const int comm_size = communicator_size(o.ranks, blocks);
  with_rank(arg.spec.rank(), "SPEC", [&](auto n) {
    constexpr std::size_t N = decltype(n)::value;
    const tessera::MultiblockLayout<N> layout = [&] {
      try {
        return tessera::to_multiblock_layout<N>(arg.spec, comm_size);
      } catch (const tessera::Error& e) {  // a glue clause the layout refuses: "SPEC: at column ..."
        throw tessera::Error(e.code(), name_spec_argument(e.what(), "SPEC"));
      }
    }();
    out << "multiblock: " << layout.block_count() << " block" << (layout.block_count() == 1 ? "" : "s") << ", "
        << arg.spec.interfaces.size() << " glue clause" << (arg.spec.interfaces.size() == 1 ? "" : "s") << " on "
        << comm_size << " rank" << (comm_size == 1 ? "" : "s") << "; drawn side by side along dimension 0, "
        << layout.max_ghost_width() << " apart\n";
    for (std::size_t b = 0; b < layout.block_count(); ++b)
      out << "block " << b << ": " << layout.block_box(b) << " at " << layout.embedded_box(b) << ", "
          << layout.block(b) << '\n';
    for (const auto& in : arg.spec.interfaces) {
      const std::string clause = in.source.text;
      out << clause << '\n';
    }
    const auto draw = [&](int cells) {
      PictureOptions p = popt;
      p.max_cells = cells;
      p.list_boxes = false;  // the embedding's boxes are pieces of the blocks, described above
      OwnerPicture pic = picture_of(layout.embedded(), tessera::to_ghosts<N>(arg.spec), p);
      pic.spec_text = tessera::to_string(arg.spec);
      return pic;
    };
    const int text_cells = std::min(o.max_cells, max_terminal_cells);
    const OwnerPicture text_picture = draw(text_cells);
    out << render_text(text_picture);
    if (!o.svg_path.empty()) write_svg(o, render_svg(text_cells == o.max_cells ? text_picture : draw(o.max_cells)), out);
  });
}

}  // namespace

void run_show(const ShowOptions& o, std::ostream& out) {
  PictureOptions popt;
  popt.rule = o.cell_owner == "first" ? CellOwnerRule::first_index : CellOwnerRule::majority;
  popt.chosen_rank = o.rank.value_or(-1);
  if (!o.slice.empty()) popt.slice = parse_slice(o.slice);
  std::string text = read_spec_text(o.spec_words, "SPEC");
  if (tessera::is_multiblock_spec(text)) return show_multiblock(o, popt, std::move(text), out);
  const SpecArgument arg = read_spec(o.spec_words, "SPEC");
  const int comm_size = communicator_size(o.ranks, {&arg.spec});

  with_rank(arg.spec.rank(), "SPEC", [&](auto n) {
    constexpr std::size_t N = decltype(n)::value;
    const auto dist = tessera::to_distribution<N>(arg.spec, comm_size);
    const auto ghosts = tessera::to_ghosts<N>(arg.spec);
    const auto draw = [&](int cells) {
      PictureOptions p = popt;
      p.max_cells = cells;
      OwnerPicture pic = picture_of(dist, ghosts, p);
      pic.spec_text = tessera::to_string(arg.spec);
      return pic;
    };
    const int text_cells = std::min(o.max_cells, max_terminal_cells);
    const OwnerPicture text_picture = draw(text_cells);
    out << render_text(text_picture);
    if (text_picture.indices == 0) out << "(the domain holds no index)\n";
    if (o.svg_path.empty()) return;
    write_svg(o, render_svg(text_cells == o.max_cells ? text_picture : draw(o.max_cells)), out);
  });
}

}  // namespace tessera_tool
