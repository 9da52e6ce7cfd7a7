// tessera_schedule_*: copy and transpose schedules built once and executed many times (PARTI's
// Regular_Section_Move_Sched + Data_Move, AMP's Compute_Transpose_Sched).
#include <optional>

#include "convert.hpp"

using namespace tessera;
using namespace tessera::capi;

namespace {

/// A compiled schedule bound to the two arrays (and their distributions) it was built for.
struct ScheduleObject {
  static constexpr Kind kind = Kind::schedule;
  std::shared_ptr<CommObject> comm;                // the Mover keeps the Communicator by address
  std::weak_ptr<ArrayObject> src, dst;             // identity only: a schedule does not keep arrays alive
  std::shared_ptr<DistObject> src_dist, dst_dist;  // the distributions it was compiled against
  std::optional<Mover> mover;
};

// Builds the schedule moving box `src_box` of `a` onto `dst_box` of `b` under `perm`.
template <class T, std::size_t N>
void build(ScheduleObject& s, const DistArray<T, N>& a, const Box<N>& src_box, const DistArray<T, N>& b,
           const Box<N>& dst_box, const typename MotionPlan<N>::Permutation& perm) {
  if (&a.domain().comm() != &b.domain().comm())
    fail_c(TESSERA_ERR_INVALID_ARGUMENT,
           "argument 'dst' is over another tessera_comm than argument 'src': both must share one communicator");
  const Domain<N>& dom = b.domain();
  auto schedule = section_move_schedule(a.distribution(), a.ghosts(), src_box, b.distribution(), b.ghosts(), dst_box,
                                        perm, dom.rank(), &dom.cache());
  s.mover.emplace(dom.comm(), std::move(schedule), sizeof(T));
  s.src_dist = std::make_shared<DistObject>(DistObject{a.distribution()});
  s.dst_dist = std::make_shared<DistObject>(DistObject{b.distribution()});
}

template <class Body>
tessera_status make_schedule(const char* where, tessera_array src, tessera_array dst, tessera_schedule* out,
                             Body&& body) {
  return guarded(where, [&] {
    prepare_out(out);
    const auto s = get<ArrayObject>(src, "src");
    const auto d = get<ArrayObject>(dst, "dst");
    auto object = std::make_shared<ScheduleObject>();
    object->comm = d->domain->comm;
    object->src = s;
    object->dst = d;
    visit_same(*s, "src", *d, "dst", [&](auto& a, auto& b) { body(*object, a, b); });
    issue(std::move(object), out);
  });
}

}  // namespace

extern "C" {

tessera_status tessera_schedule_copy(tessera_array src, tessera_array dst, tessera_schedule* out) {
  return make_schedule("tessera_schedule_copy", src, dst, out, [](ScheduleObject& s, auto& a, auto& b) {
    constexpr std::size_t N = dims_v<decltype(a)>;
    if (a.domain().box() != b.domain().box())
      fail_c(TESSERA_ERR_INVALID_ARGUMENT, "argument 'dst' is over the box ", b.domain().box(),
             ", not the source's box ", a.domain().box());
    build(s, a, a.domain().box(), b, b.domain().box(), MotionPlan<N>::identity());
  });
}

tessera_status tessera_schedule_transpose(tessera_array src, tessera_array dst, const int* perm,
                                          tessera_schedule* out) {
  return make_schedule("tessera_schedule_transpose", src, dst, out, [&](ScheduleObject& s, auto& a, auto& b) {
    constexpr std::size_t N = dims_v<decltype(a)>;
    require_pointer("perm", perm);
    typename MotionPlan<N>::Permutation p;
    std::array<bool, N> seen{};
    for (std::size_t d = 0; d < N; ++d) {
      p[d] = perm[d];
      if (perm[d] < 0 || perm[d] >= static_cast<int>(N) || seen[static_cast<std::size_t>(perm[d])])
        fail_c(TESSERA_ERR_INVALID_ARGUMENT, "argument 'perm[", d, "]' = ", perm[d],
               " makes perm not a permutation of 0..", N - 1);
      seen[static_cast<std::size_t>(perm[d])] = true;
    }
    const Box<N>& sb = a.domain().box();
    const Box<N>& db = b.domain().box();
    for (std::size_t d = 0; d < N; ++d)
      if (extent(db, d) != extent(sb, static_cast<std::size_t>(p[d])))
        fail_c(TESSERA_ERR_INVALID_ARGUMENT, "argument 'dst' has extent ", extent(db, d), " along axis ", d,
               " but the source box ", sb, " has ", extent(sb, static_cast<std::size_t>(p[d])), " along axis perm[", d,
               "] = ", p[d]);
    build(s, a, sb, b, db, p);
  });
}

tessera_status tessera_schedule_execute(tessera_schedule schedule, tessera_array src, tessera_array dst) {
  return guarded("tessera_schedule_execute", [&] {
    const auto sched = get<ScheduleObject>(schedule, "schedule");
    const auto s = get<ArrayObject>(src, "src");
    const auto d = get<ArrayObject>(dst, "dst");
    if (sched->src.lock() != s)
      fail_c(TESSERA_ERR_INVALID_ARGUMENT, "argument 'src' is not the source array the schedule was built for");
    if (sched->dst.lock() != d)
      fail_c(TESSERA_ERR_INVALID_ARGUMENT, "argument 'dst' is not the destination array the schedule was built for");
    visit_same(*s, "src", *d, "dst", [&](auto& a, auto& b) {
      constexpr std::size_t N = dims_v<decltype(a)>;
      // A schedule counts elements of the layouts it was compiled against: after a remap it would
      // move the wrong elements, so it must be rebuilt (AMP regenerates its schedules at remaps).
      if (!(std::get<N - 1>(sched->src_dist->dist) == a.distribution()))
        fail_c(TESSERA_ERR_CALL_ORDER, "argument 'src' was redistributed since the schedule was built (to ",
               a.distribution(), "): build the schedule again");
      if (!(std::get<N - 1>(sched->dst_dist->dist) == b.distribution()))
        fail_c(TESSERA_ERR_CALL_ORDER, "argument 'dst' was redistributed since the schedule was built (to ",
               b.distribution(), "): build the schedule again");
      using T = typename std::remove_cvref_t<decltype(a)>::value_type;
      if (static_cast<const void*>(&a) == static_cast<const void*>(&b)) {
        // In place: stage the source so that no element is read after a receive overwrote it.
        const std::vector<T> staged(a.storage().begin(), a.storage().end());
        sched->mover->run(detail::remap::bytes_of(staged.data()), detail::remap::bytes_of(b.data()));
      } else {
        sched->mover->run(detail::remap::bytes_of(a.data()), detail::remap::bytes_of(b.data()));
      }
    });
  });
}

tessera_status tessera_schedule_free(tessera_schedule* schedule) {
  return guarded("tessera_schedule_free", [&] { release<ScheduleObject>(schedule, "schedule"); });
}

}  // extern "C"
