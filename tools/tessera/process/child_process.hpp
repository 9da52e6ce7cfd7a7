#pragma once
// Finding the programs `tessera demo` and `tessera bench` start (relative to the tool's own
// location first, so that a build tree or an installation works from anywhere), and running them
// with the terminal passed through (the demo's progress bar needs it).
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace tessera_tool {

/// The folder holding the running `tessera` executable.
[[nodiscard]] std::filesystem::path own_directory();

/// The first of `candidates` that is an executable file.
[[nodiscard]] std::optional<std::filesystem::path> first_executable(const std::vector<std::filesystem::path>& candidates);

/// The first of `candidates` that is a regular file.
[[nodiscard]] std::optional<std::filesystem::path> first_file(const std::vector<std::filesystem::path>& candidates);

/// `name` looked up in PATH.
[[nodiscard]] std::optional<std::filesystem::path> find_in_path(const std::string& name);

/// The MPI launcher: $MPIEXEC, the one the build was configured with, or mpiexec/mpirun in PATH.
[[nodiscard]] std::optional<std::filesystem::path> find_mpiexec();

/// Sets the OpenMPI settings scripts/mpirun.sh uses (run as root, oversubscribe the cores, yield
/// when idle) unless the environment already says otherwise.
void set_local_mpi_environment();

/// Runs `argv` (argv[0] a path), waits, and maps its end onto the tool's exit statuses: 0 stays 0,
/// 2 (bad usage) stays 2, anything else (a failure or a signal) is 1. Throws RuntimeFailure if the
/// program cannot be started.
[[nodiscard]] int run_child(const std::vector<std::string>& argv);

}  // namespace tessera_tool
