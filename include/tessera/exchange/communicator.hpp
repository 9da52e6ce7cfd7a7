#pragma once
/// \file
/// `Communicator`: tessera's own duplicate of a user's MPI communicator.
///
/// tessera never sends on the user's communicator: it duplicates it, so that its messages cannot
/// match the user's receives and vice versa. The duplicate has `MPI_ERRORS_RETURN` set, and every
/// MPI call inside tessera goes through `check_mpi`, which turns an error code into a
/// `tessera::Error(mpi)` carrying `MPI_Error_string`. This is the only layer that includes <mpi.h>.

#include <mpi.h>

#include <memory>
#include <string_view>
#include <vector>

#include "tessera/core/error.hpp"

namespace tessera {

/// Throws `Error(mpi)` naming `call` and MPI's own error string when `rc != MPI_SUCCESS`.
void check_mpi(int rc, std::string_view call);

/// Owns a duplicate of an MPI communicator (never `MPI_COMM_WORLD` itself). Move-only.
class Communicator {
 public:
  /// Collective over `user`: duplicates it and sets `MPI_ERRORS_RETURN` on the duplicate.
  explicit Communicator(MPI_Comm user);
  ~Communicator();

  Communicator(Communicator&& other) noexcept;
  Communicator& operator=(Communicator&& other) noexcept;
  Communicator(const Communicator&) = delete;
  Communicator& operator=(const Communicator&) = delete;

  /// Collective: a new, independent duplicate of the same group.
  [[nodiscard]] Communicator duplicate() const { return Communicator(comm_); }

  /// This process's rank in the communicator.
  [[nodiscard]] int rank() const noexcept { return rank_; }
  /// Number of ranks.
  [[nodiscard]] int size() const noexcept { return size_; }
  /// The duplicate, for calls tessera makes itself. Never free it.
  [[nodiscard]] MPI_Comm raw() const noexcept { return comm_; }

  /// Collective.
  void barrier() const;
  /// Collective: every rank's `value`, indexed by rank (D3-ARC's `d3_collectall`).
  [[nodiscard]] std::vector<double> allgather(double value) const;
  /// Collective: the largest `value` over the ranks, the same on every rank.
  [[nodiscard]] double max(double value) const;
  /// Collective: the sum of `value` over the ranks, added in rank order (so the same, to the
  /// bit, on every rank and every run).
  [[nodiscard]] double sum(double value) const;

  /// A message tag for one more mover. Movers created in the same order on every rank (which the
  /// collective calls that create them guarantee) get the same tag, so several movers can be in
  /// flight at once without their messages matching each other's receives.
  [[nodiscard]] int next_tag() const noexcept;

 private:
  MPI_Comm comm_ = MPI_COMM_NULL;
  int rank_ = 0;
  int size_ = 0;
  mutable int tag_counter_ = 0;
};

/// Initialises MPI if nobody has (and then finalises it in the destructor), and hands out
/// tessera's duplicate of `MPI_COMM_WORLD`. Create one at the top of `main`:
/// \code
///   int main(int argc, char** argv) {
///     tessera::Environment env(argc, argv);
///     const tessera::Communicator& world = env.world();
///   }
/// \endcode
class Environment {
 public:
  /// Initialises MPI (unless the program already did) and makes the world communicator.
  Environment(int& argc, char**& argv);
  /// For programs that initialised MPI themselves; tessera will not finalise it.
  Environment();
  ~Environment();
  Environment(const Environment&) = delete;
  Environment& operator=(const Environment&) = delete;

  /// tessera's duplicate of MPI_COMM_WORLD.
  [[nodiscard]] const Communicator& world() const noexcept { return *world_; }

 private:
  void attach();
  bool owns_mpi_ = false;
  std::unique_ptr<Communicator> world_;
};

}  // namespace tessera
