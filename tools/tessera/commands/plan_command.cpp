#include "commands/plan_command.hpp"

#include <CLI/CLI.hpp>
#include <fstream>
#include <ostream>
#include <sstream>

#include "traffic/plan_report.hpp"
#include "spec_input.hpp"

namespace tessera_tool {
namespace {

template <class T>
std::string printed(const T& value) {
  std::ostringstream out;
  out << value;
  return out.str();
}

// Builds the distribution of one spec; a failure names the argument it came from.
template <std::size_t N>
tessera::Distribution<N> distribution_of(const SpecArgument& arg, int comm_size, const char* what) {
  try {
    return tessera::to_distribution<N>(arg.spec, comm_size);
  } catch (const tessera::Error& e) {
    throw tessera::Error(e.code(), name_spec_argument(e.what(), what));
  }
}

template <std::size_t N>
PlanReport redistribution_report(const SpecArgument& from_arg, const SpecArgument& to_arg, int comm_size) {
  const auto from = distribution_of<N>(from_arg, comm_size, "FROM");
  const auto to = distribution_of<N>(to_arg, comm_size, "TO");
  if (from.domain() != to.domain())
    throw UsageError("TO: the domain " + printed(to.domain()) + " differs from FROM's " + printed(from.domain()) +
                     ": a redistribution keeps the domain (a section move changes it)");
  PlanReport r;
  r.from_text = tessera::to_string(from_arg.spec);
  r.from_layout = printed(from);
  r.to_text = tessera::to_string(to_arg.spec);
  r.to_layout = printed(to);
  r.ranks = comm_size;
  r.traffic = redistribution_traffic(from, to);
  r.minimum = elements_changing_owner(from, to);
  return r;
}

template <std::size_t N>
PlanReport halo_report(const SpecArgument& arg, int comm_size) {
  const auto dist = distribution_of<N>(arg, comm_size, "SPEC");
  const auto ghosts = tessera::to_ghosts<N>(arg.spec);
  PlanReport r;
  r.halo = true;
  r.from_text = tessera::to_string(arg.spec);
  r.from_layout = printed(dist);
  r.ghost_text = ghosts.none() ? "no ghost layers (add ghosts=W to the spec)" : printed(ghosts);
  r.ranks = comm_size;
  try {
    r.traffic = halo_traffic(dist, ghosts);
    r.minimum = remote_ghost_elements(dist, ghosts);
  } catch (const tessera::Error& e) {
    throw tessera::Error(e.code(), name_spec_argument(e.what(), "SPEC"));
  }
  return r;
}

// A multiblock spec's ghost update (traffic.hpp: multiblock_halo_traffic, and the least possible,
// multiblock_remote_ghost_elements).
template <std::size_t N>
PlanReport multiblock_halo_report(const MultiblockArgument& arg, int comm_size) {
  tessera::MultiblockLayout<N> mb = [&] {
    try {
      return tessera::to_multiblock_layout<N>(arg.spec, comm_size);
    } catch (const tessera::Error& e) {
      throw tessera::Error(e.code(), name_spec_argument(e.what(), "SPEC"));
    }
  }();
  const auto ghosts = tessera::to_ghosts<N>(arg.spec);
  PlanReport r;
  r.halo = true;
  r.from_text = tessera::to_string(arg.spec);
  r.from_layout = "multiblock: " + std::to_string(mb.block_count()) + " blocks, " +
                  std::to_string(mb.interfaces().size()) + " interfaces, embedded as " + printed(mb.embedded());
  r.ghost_text = ghosts.none() ? "no ghost layers (add ghosts=W before the first block)" : printed(ghosts);
  r.ranks = comm_size;
  try {
    tessera::check_multiblock_ghosts(mb, ghosts);
    r.traffic = multiblock_halo_traffic(mb, ghosts);
    r.minimum = multiblock_remote_ghost_elements(mb, ghosts);
  } catch (const tessera::Error& e) {
    throw tessera::Error(e.code(), name_spec_argument(e.what(), "SPEC"));
  }
  return r;
}

}  // namespace

CLI::App* add_plan_command(CLI::App& app, PlanOptions& o) {
  CLI::App* cmd = app.add_subcommand(
      "plan", "What a redistribution FROM -> TO (or a halo update of one SPEC, --halo) would move between ranks");
  cmd->add_option("FROM", o.from, "the distribution before (quoted if it has several fields), or @FILE")
      ->required()
      ->type_name("SPEC");
  cmd->add_option("TO", o.to, "the distribution after, over the same domain (not with --halo)")->type_name("SPEC");
  cmd->add_flag("--halo", o.halo, "the ghost update (update_ghosts) of the one SPEC given, with its ghosts= field");
  cmd->add_option("--ranks", o.ranks, "ranks to lay the specs out on (default: the most their grids place, else 4)")
      ->check(CLI::Range(1, 1 << 20));
  cmd->add_option("--element-size", o.element_size, "bytes per element (default 8; 1 counts elements)")
      ->check(CLI::Range(1, 1 << 20));
  cmd->add_option("--svg", o.svg_path, "also write the matrix as an SVG heat map to this file")->type_name("FILE");
  cmd->footer("Examples:\n"
              "  tessera plan 'domain=64x64 grid=2x2' 'domain=64x64 grid=4x1'\n"
              "  tessera plan 'domain=1000 dist=block' 'domain=1000 dist=cyclic' --ranks 8 --svg plan.svg\n"
              "  tessera plan 'domain=64x64 grid=2x2 ghosts=1p' --halo\n"
              "  tessera plan 'ghosts=1 block domain=8x8 block domain=8x8 glue 0.0+ 1.1+ perm=1,0 flip=1,0' --halo");
  return cmd;
}

void run_plan(const PlanOptions& o, std::ostream& out) {
  if (o.halo && !o.to.empty())
    throw UsageError("plan --halo takes one SPEC; a second one ('" + o.to + "') was given");
  if (!o.halo && o.to.empty())
    throw UsageError("plan needs FROM and TO (a redistribution), or one SPEC with --halo (a ghost update)");
  PlanReport report;
  std::string text = read_spec_text({o.from}, o.halo ? "SPEC" : "FROM");
  if (o.halo && tessera::is_multiblock_spec(text)) {
    const MultiblockArgument mb = read_multiblock_spec(std::move(text), "SPEC");
    std::vector<const tessera::Spec*> blocks;
    for (const auto& b : mb.spec.blocks) blocks.push_back(&b);
    const int comm_size = communicator_size(o.ranks, blocks);
    report = with_rank(mb.spec.rank(), "SPEC",
                       [&](auto n) { return multiblock_halo_report<decltype(n)::value>(mb, comm_size); });
  } else if (o.halo) {
    const SpecArgument from = read_spec({o.from}, "SPEC");
    const int comm_size = communicator_size(o.ranks, {&from.spec});
    report = with_rank(from.spec.rank(), "SPEC", [&](auto n) { return halo_report<decltype(n)::value>(from, comm_size); });
  } else {
    const SpecArgument from = read_spec({o.from}, "FROM");
    const SpecArgument to = read_spec({o.to}, "TO");
    if (to.spec.rank() != from.spec.rank())
      throw UsageError("TO: the spec has " + std::to_string(to.spec.rank()) + " dimensions but FROM has " +
                       std::to_string(from.spec.rank()));
    const int comm_size = communicator_size(o.ranks, {&from.spec, &to.spec});
    report = with_rank(from.spec.rank(), "FROM",
                       [&](auto n) { return redistribution_report<decltype(n)::value>(from, to, comm_size); });
  }
  report.element_size = o.element_size;
  out << render_plan_text(report);
  if (o.svg_path.empty()) return;
  std::ofstream file(o.svg_path);
  file << render_heat_map(report);
  file.close();
  if (!file) throw RuntimeFailure("--svg: cannot write '" + o.svg_path + "'");
  out << "\nwrote " << o.svg_path << '\n';
}

}  // namespace tessera_tool
