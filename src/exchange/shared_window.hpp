#pragma once
// The shared-memory windows behind `SharedBytes` (tessera/exchange/shared_bytes.hpp) and what the
// `shared_memory` way of moving (shared_memory.hpp) asks of them.
//
// A communicator gets one `NodeContext` the first time a window or a shared-memory mover is made
// over it (collective, as both are): its node communicator (`MPI_Comm_split_type(SHARED)`) and
// each rank's place in it. The context is cached on the MPI communicator as an attribute, so it
// goes when the communicator is freed. Windows are numbered in the order they are made, which is
// the same on every rank of the node (allocation is collective), so a window's number names it
// to every rank of the node.
//
// Tests can split a machine into several emulated nodes: `TESSERA_SHARED_MEMORY_NODE_RANKS=k`
// puts ranks [0, k), [k, 2k), ... of each communicator in separate nodes, so that schedules mix
// single copies with messages on one machine.

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <vector>

#include "tessera/exchange/communicator.hpp"

namespace tessera::detail {

struct SharedWindow;

struct NodeContext {
  NodeContext() = default;
  ~NodeContext();
  NodeContext(const NodeContext&) = delete;
  NodeContext& operator=(const NodeContext&) = delete;

  MPI_Comm node = MPI_COMM_NULL;
  std::vector<int> node_rank;                        // per rank of the communicator: its rank in `node`, or -1
  std::uint64_t windows_made = 0;                    // numbers the windows (see the file comment)
  std::map<std::uint64_t, SharedWindow*> windows;    // the live ones, by number
};

/// One window: this rank's segment and every node rank's segment as mapped here.
struct SharedWindow {
  std::shared_ptr<NodeContext> context;
  MPI_Win win = MPI_WIN_NULL;
  std::uint64_t number = 0;
  std::byte* local = nullptr;
  std::size_t bytes = 0;
  std::vector<std::byte*> segments;  // per node rank: where its segment is mapped in this process
};

/// Collective over `comm` the first time: the communicator's node context.
[[nodiscard]] std::shared_ptr<NodeContext> node_context(const Communicator& comm);

/// Where `p` lies in a window of `context` made by this rank: the window and the offset of `p` in
/// this rank's segment; null window when `p` is in none of them. Allocates nothing.
struct SharedLocation {
  const SharedWindow* window = nullptr;
  std::size_t offset = 0;
};
[[nodiscard]] SharedLocation locate_shared(const NodeContext& context, const void* p) noexcept;

}  // namespace tessera::detail
