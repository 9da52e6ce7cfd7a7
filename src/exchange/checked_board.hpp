#pragma once
// Checked mode's hang detector (docs/checked-mode.md, "No hang"): what each process is doing,
// published where the other processes of its node can read it without its help, and the deadline
// that turns a collective some ranks never reach into one message and an aborted job.
//
// The board of a communicator's group is a node-local shared-memory window (one slot per rank of
// the group; MPI_Win_allocate_shared on MPI_Comm_split_type(SHARED)): a process writes its own
// slot with atomic stores and reads the others' with atomic loads, so a reader needs nothing from
// a writer that is stuck in computation, in another MPI call, or in MPI_Finalize. Creating a
// board is collective, so it happens only where every rank of the group is anyway: in the
// Communicator constructor when checked mode is on, or right after the first check on the
// communicator passed. Boards are found again by group (a duplicate of a communicator shares
// its original's board) and freed in MPI_Finalize.

#include <mpi.h>

#include <cstdint>
#include <string_view>

namespace tessera::detail::checked {

/// What a process is doing, as the others see it in its slot.
enum class Phase : std::uint64_t {
  unknown = 0,   // nobody on this node wrote the slot: the rank runs on another node
  outside = 1,   // between tessera collectives (or before the first)
  checking = 2,  // waiting in a collective's check for the other ranks
  inside = 3,    // inside a collective whose check passed
  finished = 4,  // in MPI_Finalize
};

/// Seconds a check (or a wait inside a checked collective) may take before the job is aborted:
/// `TESSERA_CHECKED_TIMEOUT`, read once; 60 when unset. Throws `Error(invalid_argument)` naming
/// the variable when it is not a positive number of seconds.
[[nodiscard]] double timeout_seconds();

/// Publishes this process's phase, operation and sequence number to every board it has.
void publish(Phase phase, std::string_view operation, std::uint64_t sequence) noexcept;
/// Publishes `phase` for the operation last published (its name and number kept).
void publish(Phase phase) noexcept;

/// True when `comm`'s group has a board (found by the communicator's cached attribute or by
/// group); local.
[[nodiscard]] bool has_board(MPI_Comm comm);
/// Collective over `comm`: gives its group a board unless it has one. Every rank of `comm` must
/// call it at the same point (all of them agree whether the group has a board: boards are made
/// collectively and kept until MPI_Finalize).
void ensure_board(MPI_Comm comm);

/// Collective over `comm` when checked mode is on (`ensure_board`), nothing otherwise: what the
/// Communicator constructor calls, where every rank is anyway.
void attach_if_checked(MPI_Comm comm);

/// Completes `request` (of the check made on `comm`), or, when `timeout_seconds()` passes first,
/// prints who is where and aborts the job (see `abort_for_hang`). The lowest-ranked process that
/// waits in a check reports at once; another waiting one gives it a grace period first, so that
/// one full message is printed, not one per rank.
void wait_for_check(MPI_Request& request, MPI_Comm comm);

/// Completes `count` requests made inside a checked collective on this process's current
/// communicator, or reports and aborts when the deadline passes. `any`: return as soon as one
/// completes (its index; MPI_UNDEFINED when none is active), as MPI_Waitany.
void wait_all_inside(int count, MPI_Request* requests);
[[nodiscard]] int wait_any_inside(int count, MPI_Request* requests);

/// Remembers `comm` as the communicator of the checked collective this process is in (what
/// `wait_all_inside` reports on).
void set_current(MPI_Comm comm) noexcept;

/// Exit code of a job aborted by checked mode's deadline.
inline constexpr int hang_abort_code = 3;

}  // namespace tessera::detail::checked
