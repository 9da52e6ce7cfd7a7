#include "tessera/exchange/fused_mover.hpp"

#include <algorithm>
#include <utility>

#include "point_to_point.hpp"

namespace tessera {

FusedMover::FusedMover(const Communicator& comm, std::shared_ptr<const Schedule> schedule,
                       std::vector<std::size_t> element_sizes, std::vector<CombineFn> combine)
    : element_sizes_(std::move(element_sizes)) {
  const int tag = comm.next_tag();  // first, as every mover: ranks take tags in the same order
  constexpr const char* where = "FusedMover";
  if (!schedule) fail_argument(where, "schedule", "null", "must point to a compiled schedule");
  if (element_sizes_.empty()) fail_argument(where, "element_sizes", "empty", "must name at least one array");
  for (std::size_t es : element_sizes_)
    if (es == 0) fail_argument(where, "element_sizes", 0, "must all be > 0");
  if (!combine.empty() && combine.size() != element_sizes_.size())
    fail_argument(where, "combine", combine.size(),
                  detail::concat("must be empty or hold one entry per array (", element_sizes_.size(), ")"));
  std::vector<detail::Binding> bindings;
  for (std::size_t k = 0; k < element_sizes_.size(); ++k)
    bindings.push_back({element_sizes_[k], combine.empty() ? nullptr : combine[k]});
  method_ = std::make_unique<detail::PointToPoint>(comm, std::move(schedule), std::move(bindings), tag, where);
}

FusedMover::~FusedMover() = default;

void FusedMover::start(std::span<const void* const> src, std::span<void* const> dst) {
  if (src.size() != arrays() || dst.size() != arrays())
    fail_argument("FusedMover::start", "src/dst", detail::concat(src.size(), "/", dst.size(), " pointers"),
                  detail::concat("must hold one pointer per array (", arrays(), ")"));
  method_->start(src, dst);
}

void FusedMover::wait() { method_->wait(); }
bool FusedMover::test() { return method_->test(); }
bool FusedMover::in_flight() const noexcept { return method_->in_flight(); }
const Schedule& FusedMover::schedule() const noexcept { return method_->schedule(); }
const MoverStats& FusedMover::stats() const noexcept { return method_->stats(); }

std::unique_ptr<FusedMover> make_fused_mover_if_small(const Communicator& comm, std::shared_ptr<const Schedule> schedule,
                                                      std::span<const std::size_t> element_sizes) {
  if (!schedule) fail_argument("make_fused_mover_if_small", "schedule", "null", "must point to a compiled schedule");
  std::size_t bytes_per_element = 0;
  for (std::size_t es : element_sizes) bytes_per_element += es;
  index_t largest = 0;
  for (const auto& p : schedule->sends) largest = std::max(largest, p.elements);
  const double mine = static_cast<double>(largest) * static_cast<double>(bytes_per_element);
  if (comm.max(mine) > static_cast<double>(kMaxFusedMessageBytes)) return nullptr;
  // The constructor draws the mover's tag first of all, on every rank. What must be allocated before
  // it runs (the sizes, the object's memory) is allocated here first: if that fails, the tag is
  // drawn anyway, so that this rank stays in step with the others (every rank then agrees on the
  // failure and throws, exchange/allocation_agreement.hpp).
  std::vector<std::size_t> sizes;
  void* memory = nullptr;
  try {
    sizes.assign(element_sizes.begin(), element_sizes.end());
    memory = ::operator new(sizeof(FusedMover));
  } catch (...) {
    (void)comm.next_tag();
    throw;
  }
  try {
    return std::unique_ptr<FusedMover>(new (memory) FusedMover(comm, std::move(schedule), std::move(sizes)));
  } catch (...) {
    ::operator delete(memory);
    throw;
  }
}

}  // namespace tessera
