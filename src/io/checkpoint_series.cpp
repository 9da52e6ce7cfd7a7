// tessera::io::CheckpointSeries and latest_valid: rank 0 reads and changes the folder (one
// listing, so every rank considers the same files), the other ranks wait for its outcome.
#include <algorithm>
#include <charconv>
#include <cstdio>
#include <filesystem>
#include <system_error>

#include "collective_step.hpp"
#include "tessera/io/checkpoint_series.hpp"

namespace tessera::io {

namespace detail {

namespace {

namespace fs = std::filesystem;

constexpr std::string_view kPrefix = "ckpt-", kSuffix = ".h5";

/// The step of a file named `ckpt-<step>.h5`, or -1 for any other name.
std::int64_t step_of(std::string_view name) {
  if (!name.starts_with(kPrefix) || !name.ends_with(kSuffix)) return -1;
  const std::string_view digits = name.substr(kPrefix.size(), name.size() - kPrefix.size() - kSuffix.size());
  std::int64_t step = -1;
  const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), step);
  if (digits.empty() || error != std::errc() || end != digits.data() + digits.size() || step < 0) return -1;
  return step;
}

/// Rank 0's listing: the steps in `dir`, oldest first (none if the folder does not exist).
std::vector<std::int64_t> list_steps(const std::string& dir) {
  std::vector<std::int64_t> steps;
  std::error_code error;
  if (!fs::is_directory(dir, error)) return steps;
  for (fs::directory_iterator it(dir, error), end; !error && it != end; it.increment(error))
    if (const std::int64_t s = step_of(it->path().filename().string()); s >= 0) steps.push_back(s);
  if (error) fail(ErrorCode::io, "cannot list the folder '", dir, "': ", error.message());
  std::sort(steps.begin(), steps.end());
  return steps;
}

void remove_or_fail(const fs::path& path) {
  std::error_code error;
  fs::remove(path, error);
  if (error) fail(ErrorCode::io, "cannot delete '", path.string(), "': ", error.message());
}

}  // namespace

std::string series_path(const std::string& dir, std::int64_t step) {
  return (fs::path(dir) / tessera::detail::concat(kPrefix, step, kSuffix)).string();
}

void check_series(const std::string& dir, int keep) {
  if (dir.empty()) fail_argument("tessera::io::CheckpointSeries", "dir", "\"\"", "must name a folder (\".\" for this one)");
  if (keep < 1) fail_argument("tessera::io::CheckpointSeries", "keep", keep, "must be >= 1");
}

void prepare_series_folder(const Communicator& comm, const std::string& dir) {
  collective_step(comm, "tessera::io::CheckpointSeries::save", [&] {
    if (comm.rank() != 0) return;
    std::error_code error;
    fs::create_directories(dir, error);
    if (error) fail(ErrorCode::io, "cannot create the folder '", dir, "': ", error.message());
  });
}

std::vector<std::int64_t> series_steps(const Communicator& comm, const std::string& dir) {
  std::vector<std::int64_t> steps;
  collective_step(comm, "tessera::io::CheckpointSeries::steps", [&] {
    if (comm.rank() == 0) steps = list_steps(dir);
  });
  auto count = static_cast<std::int64_t>(steps.size());
  comm.bcast(std::span<std::int64_t>(&count, 1), 0);
  steps.resize(static_cast<std::size_t>(count));
  comm.bcast(std::span<std::int64_t>(steps), 0);
  return steps;
}

void prune_series(const Communicator& comm, const std::string& dir, int keep, std::int64_t saved) {
  collective_step(comm, "tessera::io::CheckpointSeries::save", [&] {
    if (comm.rank() != 0) return;
    std::vector<std::int64_t> kept;
    for (const std::int64_t s : list_steps(dir)) {
      if (s <= saved) {
        kept.push_back(s);
        continue;
      }
      remove_or_fail(series_path(dir, s));  // a step past the one just saved: an abandoned future
      remove_or_fail(series_path(dir, s) + ".xmf");
    }
    for (std::size_t k = 0; k + static_cast<std::size_t>(keep) < kept.size(); ++k) {
      remove_or_fail(series_path(dir, kept[k]));
      remove_or_fail(series_path(dir, kept[k]) + ".xmf");
    }
    // Temporary files of saves that crashed (this save's own was renamed already).
    std::error_code error;
    std::vector<fs::path> stale;
    for (fs::directory_iterator it(dir, error), end; !error && it != end; it.increment(error)) {
      const std::string name = it->path().filename().string();
      if (name.starts_with(kPrefix) && name.find(".h5.tmp-") != std::string::npos) stale.push_back(it->path());
    }
    for (const auto& path : stale) remove_or_fail(path);
  });
}

}  // namespace detail

LatestValid latest_valid(const Communicator& comm, const std::string& dir) {
  LatestValid found;
  const std::vector<std::int64_t> steps = detail::series_steps(comm, dir);
  for (auto step = steps.rbegin(); step != steps.rend(); ++step) {
    const std::string path = detail::series_path(dir, *step);
    try {
      (void)verify(comm, path);  // throws the same Error on every rank
    } catch (const Error& e) {
      found.skipped.push_back({path, e.what()});
      if (comm.rank() == 0)
        std::fprintf(stderr, "tessera::io::latest_valid: skipping '%s': %s\n", path.c_str(), e.what());
      continue;
    }
    found.path = path;
    found.step = *step;
    break;
  }
  return found;
}

}  // namespace tessera::io
