// GoogleTest main for MPI tests.
//
// Every rank runs every test. Only rank 0 prints GoogleTest's usual report; every other rank prints
// its own failures to stderr, each prefixed with "[rank K]", so that no failure is lost. After each
// test the ranks agree on who failed it, and rank 0 names them. The exit code is the same on every
// rank: non-zero if any rank failed any test.
#include <gtest/gtest.h>
#include <mpi.h>

#include <cstdio>
#include <string>
#include <vector>

namespace {

class RankFailureReporter : public testing::EmptyTestEventListener {
 public:
  RankFailureReporter(int rank, int size) : rank_(rank), size_(size) {}

  void OnTestPartResult(const testing::TestPartResult& result) override {
    if (rank_ == 0 || !result.failed()) return;
    // One write per failure, every line tagged, so that lines from several ranks cannot interleave
    // into something unreadable and grep for "[rank K]" finds the whole message.
    std::string text = "[rank " + std::to_string(rank_) + "] " + (result.file_name() ? result.file_name() : "unknown") +
                       ":" + std::to_string(result.line_number()) + ": Failure\n";
    std::string line;
    for (const char* c = result.message();; ++c) {
      if (*c == '\n' || *c == '\0') {
        text += "[rank " + std::to_string(rank_) + "] " + line + "\n";
        line.clear();
        if (*c == '\0') break;
      } else {
        line += *c;
      }
    }
    std::fputs(text.c_str(), stderr);
    std::fflush(stderr);
  }

  void OnTestEnd(const testing::TestInfo& info) override {
    int failed = info.result()->Failed() ? 1 : 0;
    std::vector<int> all(static_cast<std::size_t>(size_));
    MPI_Gather(&failed, 1, MPI_INT, all.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (rank_ != 0) return;
    std::string ranks;
    for (int r = 0; r < size_; ++r)
      if (all[static_cast<std::size_t>(r)]) ranks += (ranks.empty() ? "" : ", ") + std::to_string(r);
    if (!ranks.empty()) {
      failures_.push_back(std::string(info.test_suite_name()) + "." + info.name() + " (ranks " + ranks + ")");
      std::printf("[  MPI     ] %s.%s failed on ranks: %s\n", info.test_suite_name(), info.name(), ranks.c_str());
      std::fflush(stdout);
    }
  }

  [[nodiscard]] const std::vector<std::string>& failures() const { return failures_; }

 private:
  int rank_;
  int size_;
  std::vector<std::string> failures_;
};

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);

  testing::InitGoogleTest(&argc, argv);
  auto& listeners = testing::UnitTest::GetInstance()->listeners();
  if (rank != 0) delete listeners.Release(listeners.default_result_printer());
  auto* reporter = new RankFailureReporter(rank, size);  // owned by GoogleTest once appended
  listeners.Append(reporter);

  const int local = RUN_ALL_TESTS() != 0 ? 1 : 0;
  int global = 0;
  MPI_Allreduce(&local, &global, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (rank == 0) {
    std::printf("[  MPI     ] %d rank%s: %s\n", size, size == 1 ? "" : "s",
                global ? "FAILED on at least one rank" : "all ranks passed");
    for (const auto& f : reporter->failures()) std::printf("[  MPI     ]   failed: %s\n", f.c_str());
  }
  MPI_Finalize();
  return global;
}
