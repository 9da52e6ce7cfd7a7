#include "process/child_process.hpp"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "exit_status.hpp"

#ifndef TESSERA_TOOL_MPIEXEC
#define TESSERA_TOOL_MPIEXEC ""
#endif

namespace tessera_tool {

namespace fs = std::filesystem;

fs::path own_directory() {
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  return ec ? fs::current_path() : self.parent_path();
}

std::optional<fs::path> first_executable(const std::vector<fs::path>& candidates) {
  for (const auto& c : candidates) {
    std::error_code ec;
    // Not canonical: a symlink keeps its name (mpiexec, not the orterun it points to).
    if (!c.empty() && fs::is_regular_file(c, ec) && access(c.c_str(), X_OK) == 0) return fs::absolute(c).lexically_normal();
  }
  return std::nullopt;
}

std::optional<fs::path> first_file(const std::vector<fs::path>& candidates) {
  for (const auto& c : candidates) {
    std::error_code ec;
    if (!c.empty() && fs::is_regular_file(c, ec)) return fs::absolute(c).lexically_normal();
  }
  return std::nullopt;
}

std::optional<fs::path> find_in_path(const std::string& name) {
  const char* path = std::getenv("PATH");
  if (!path) return std::nullopt;
  std::vector<fs::path> candidates;
  const std::string all = path;
  for (std::size_t start = 0; start <= all.size();) {
    const std::size_t end = std::min(all.find(':', start), all.size());
    if (end > start) candidates.push_back(fs::path(all.substr(start, end - start)) / name);
    start = end + 1;
  }
  return first_executable(candidates);
}

std::optional<fs::path> find_mpiexec() {
  if (const char* env = std::getenv("MPIEXEC"); env && *env) return first_executable({env});
  if (auto configured = first_executable({TESSERA_TOOL_MPIEXEC})) return configured;
  if (auto p = find_in_path("mpiexec")) return p;
  return find_in_path("mpirun");
}

void set_local_mpi_environment() {
  const char* settings[][2] = {{"OMPI_ALLOW_RUN_AS_ROOT", "1"},
                               {"OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1"},
                               {"OMPI_MCA_rmaps_base_oversubscribe", "1"},
                               {"OMPI_MCA_mpi_yield_when_idle", "1"},
                               {"OMPI_MCA_btl_vader_single_copy_mechanism", "none"}};
  for (const auto& s : settings) setenv(s[0], s[1], /*overwrite=*/0);
}

int run_child(const std::vector<std::string>& argv) {
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  // A pipe that closes on exec tells the parent whether exec itself failed.
  int status_pipe[2];
  if (pipe2(status_pipe, O_CLOEXEC) != 0) throw RuntimeFailure(std::string("cannot create a pipe: ") + std::strerror(errno));
  const pid_t pid = fork();
  if (pid < 0) throw RuntimeFailure(std::string("cannot start ") + argv[0] + ": " + std::strerror(errno));
  if (pid == 0) {
    close(status_pipe[0]);
    execv(args[0], args.data());
    const int err = errno;
    (void)!write(status_pipe[1], &err, sizeof err);
    _exit(127);
  }
  close(status_pipe[1]);
  int exec_errno = 0;
  const bool exec_failed = read(status_pipe[0], &exec_errno, sizeof exec_errno) == sizeof exec_errno;
  close(status_pipe[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (exec_failed) throw RuntimeFailure("cannot start " + argv[0] + ": " + std::strerror(exec_errno));
  if (WIFEXITED(status)) {
    const int code = WEXITSTATUS(status);
    return code == 0 ? exit_ok : code == exit_usage ? exit_usage : exit_failure;
  }
  return exit_failure;
}

}  // namespace tessera_tool
