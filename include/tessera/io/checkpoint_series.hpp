#pragma once
/// \file
/// Checkpoints you can trust after a crash: `verify` checks a file's checksums, `CheckpointSeries`
/// keeps the last N checkpoints of a run in one folder, and `latest_valid` finds the newest one
/// that verifies. See docs/checkpoint.md ("Checksums", "Rotation and restart").
/// \code
///   namespace io = tessera::io;
///   io::CheckpointSeries series("run-ckpt", /*keep=*/3);
///   std::int64_t first = 0;
///   if (const io::LatestValid found = series.latest_valid(world)) {   // Collective
///     (void)io::load(found.path, io::named("u", u));                  // any rank count
///     first = found.step;
///   }
///   for (std::int64_t step = first; step < steps; ) {
///     advance(u);
///     if (++step % every == 0) series.save(step, {{"time", t}}, io::named("u", u));   // Collective
///   }
/// \endcode

#include <cstdint>
#include <string>
#include <tuple>
#include <vector>

#include "tessera/exchange/communicator.hpp"
#include "tessera/io/checkpoint.hpp"

namespace tessera::io {

/// What `verify` checked in a file.
struct VerifyReport {
  std::vector<std::string> verified;   ///< datasets whose checksum matched, in name order
  std::vector<std::string> unchecked;  ///< datasets without a checksum (written by another program)
};

/// Collective over `comm` (any rank count): reads every dataset of the checkpoint `path` (each rank
/// a share of the rows, at most 64 MiB at a time) and compares it with its `tessera_checksum`.
/// Throws the same `Error` on every rank: `io` naming the file (and the dataset) if the file does
/// not open (missing, truncated: HDF5 compares its length with the one it recorded), a read fails
/// or a checksum does not match; `mismatch` for a checksum of an algorithm this tessera does not know.
[[nodiscard]] VerifyReport verify(const Communicator& comm, const std::string& path);

/// A checkpoint `latest_valid` passed over, and why (the `Error`'s message).
struct SkippedCheckpoint {
  std::string path;
  std::string reason;
};

/// The answer of `latest_valid`: the same on every rank.
struct LatestValid {
  std::string path;                      ///< the newest checkpoint that verified; empty if none
  std::int64_t step = -1;                ///< its step; -1 if none
  std::vector<SkippedCheckpoint> skipped;  ///< newer checkpoints that failed, newest first
  /// Whether a valid checkpoint was found.
  [[nodiscard]] explicit operator bool() const noexcept { return !path.empty(); }
};

/// Collective over `comm`: the newest `dir/ckpt-<step>.h5` that opens and whose every checksum
/// verifies (`verify`). Each one that fails is listed in `skipped` and said on rank 0's stderr
/// ("tessera::io::latest_valid: skipping 'run/ckpt-40.h5': ..."). A missing or empty folder gives
/// an empty answer. Rank 0 lists the folder, so every rank considers the same files.
[[nodiscard]] LatestValid latest_valid(const Communicator& comm, const std::string& dir);

namespace detail {
/// Collective: rank 0 creates `dir` (and its parents) if missing.
void prepare_series_folder(const Communicator& comm, const std::string& dir);
/// Collective: rank 0 deletes what a series no longer needs after saving `saved` (see
/// `CheckpointSeries::save`); the others wait. Throws Error(io) on every rank if a delete fails.
void prune_series(const Communicator& comm, const std::string& dir, int keep, std::int64_t saved);
/// `dir/ckpt-<step>.h5`.
[[nodiscard]] std::string series_path(const std::string& dir, std::int64_t step);
/// Collective: the steps of the checkpoints in `dir`, oldest first, as rank 0 lists them.
[[nodiscard]] std::vector<std::int64_t> series_steps(const Communicator& comm, const std::string& dir);
/// Throws Error(invalid_argument) for an empty `dir` or `keep` < 1.
void check_series(const std::string& dir, int keep);
}  // namespace detail

/// The checkpoints of one run, `dir/ckpt-<step>.h5`, the newest `keep` of them kept. The series
/// owns its folder's `ckpt-*` files: put one run's series in a folder of its own.
class CheckpointSeries {
 public:
  /// Checkpoints in `dir` (created by the first `save` if missing; "." for the current folder);
  /// `Error(invalid_argument)` for an empty `dir` or `keep` < 1.
  CheckpointSeries(std::string dir, int keep) : dir_(std::move(dir)), keep_(keep) { detail::check_series(dir_, keep_); }

  /// Collective over the arrays' domain: `io::save(path_of(step), attributes, arrays...)` (atomic,
  /// with checksums), then rank 0 deletes, while the others wait:
  /// - the checkpoints older than the `keep` newest (with their XDMF sidecars);
  /// - checkpoints of steps above `step`: they belong to a run that went on past `step`, crashed
  ///   and was restarted from an earlier checkpoint (usually because these failed to verify);
  /// - temporary files that crashed saves left (`ckpt-*.h5.tmp-*`).
  /// Steps are non-negative and meant to increase. Returns the checkpoint's path. Throws as `save`
  /// does; `Error(io)` on every rank if a delete fails (the new checkpoint is saved then).
  template <class... Arrays>
  std::string save(std::int64_t step, const Attributes& attributes, const Named<Arrays>&... arrays) {
    if (step < 0) fail_argument("tessera::io::CheckpointSeries::save", "step", step, "must be >= 0");
    const Communicator& comm = std::get<0>(std::tie(arrays...)).array->domain().comm();
    detail::prepare_series_folder(comm, dir_);
    std::string path = path_of(step);
    io::save(path, attributes, arrays...);
    detail::prune_series(comm, dir_, keep_, step);
    return path;
  }

  /// Collective: `io::latest_valid(comm, dir())`.
  [[nodiscard]] LatestValid latest_valid(const Communicator& comm) const { return io::latest_valid(comm, dir_); }
  /// Collective: the steps on disk, oldest first.
  [[nodiscard]] std::vector<std::int64_t> steps(const Communicator& comm) const {
    return detail::series_steps(comm, dir_);
  }
  /// `dir/ckpt-<step>.h5`.
  [[nodiscard]] std::string path_of(std::int64_t step) const { return detail::series_path(dir_, step); }
  [[nodiscard]] const std::string& dir() const noexcept { return dir_; }
  [[nodiscard]] int keep() const noexcept { return keep_; }

 private:
  std::string dir_;
  int keep_;
};

}  // namespace tessera::io
