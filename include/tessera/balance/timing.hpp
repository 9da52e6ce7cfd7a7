#pragma once
/// \file
/// Measuring what balancing decides from (D3-ARC's time/event marks and `d3_collectall`): a
/// `SectionTimer` a program wraps around the sections it wants measured, and `collect_all`, which
/// hands every rank every rank's figure.
/// \code
///   tessera::SectionTimer compute;
///   { auto timing = compute.measure(); sweep(u.local()); }    // or compute.start(); ...; compute.stop();
///   auto per_rank = tessera::collect_all(comm, compute.take());  // seconds since the last take()
/// \endcode

#include <vector>

#include "tessera/core/error.hpp"
#include "tessera/exchange/communicator.hpp"

namespace tessera {

/// Accumulates the wall-clock seconds spent inside start()/stop() pairs (Communicator::wtime).
class SectionTimer {
 public:
  /// Starts a measured interval. Throws `Error(invalid_argument)` if one is already running.
  void start() {
    if (running_) fail(ErrorCode::invalid_argument, "SectionTimer::start: the timer is already running");
    running_ = true;
    started_ = Communicator::wtime();
  }
  /// Ends the interval start() began and adds it. Throws `Error(invalid_argument)` if none runs.
  void stop() {
    if (!running_) fail(ErrorCode::invalid_argument, "SectionTimer::stop: the timer is not running");
    running_ = false;
    const double elapsed = Communicator::wtime() - started_;
    seconds_ += elapsed;
    last_ = elapsed;
  }
  /// Adds seconds measured some other way (an emulated slowdown, a figure from a profiler).
  void add(double seconds) {
    if (!(seconds >= 0)) fail_argument("SectionTimer::add", "seconds", seconds, "must be >= 0");
    seconds_ += seconds;
  }
  /// Seconds accumulated since the last `take()` (or construction).
  [[nodiscard]] double seconds() const noexcept { return seconds_; }
  /// The length of the last interval stop() ended.
  [[nodiscard]] double last() const noexcept { return last_; }
  /// True between start() and stop().
  [[nodiscard]] bool running() const noexcept { return running_; }
  /// Returns the accumulated seconds and starts accumulating again from zero.
  double take() noexcept {
    const double s = seconds_;
    seconds_ = 0;
    return s;
  }

  /// start() now and stop() when the returned guard goes out of scope.
  class Scope {
   public:
    explicit Scope(SectionTimer& t) : timer_(&t) { timer_->start(); }
    ~Scope() {
      if (timer_ && timer_->running()) timer_->stop();
    }
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;

   private:
    SectionTimer* timer_;
  };
  /// Starts an interval that ends when the returned guard goes out of scope.
  [[nodiscard]] Scope measure() { return Scope(*this); }

 private:
  double started_ = 0;
  double seconds_ = 0;
  double last_ = 0;
  bool running_ = false;
};

/// Collective (D3-ARC's `d3_collectall`, an `MPI_Allgather`): every rank's `value`, indexed by rank.
[[nodiscard]] inline std::vector<double> collect_all(const Communicator& comm, double value) {
  return comm.allgather(value);
}

}  // namespace tessera
