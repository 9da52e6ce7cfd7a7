// ExchangeCache without MPI: schedules and executors found again, one LRU bound on entries and
// charged bytes that skips busy executors, too-large entries handed back, invalidation by
// distribution hash, slots for executors in flight at once, no allocation on a hit, and the
// property everything rests on: ranks making the same calls make the same decisions.
#include "tessera/plan/exchange_cache.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <deque>
#include <memory>
#include <new>
#include <random>
#include <sstream>
#include <vector>

#include "tessera/core/hash.hpp"
#include "tessera/layout/distribution.hpp"
#include "tessera/plan/schedule_builders.hpp"

// Counts calls of operator new in this test program ("a hit allocates nothing"). Weak, so that a
// second counting definition elsewhere in the program cannot break the link; the tests check that
// this one is the one in use before they rely on it.
namespace {
std::atomic<long> g_news{0};
}
[[gnu::weak, gnu::noinline]] void* operator new(std::size_t n) {
  ++g_news;
  if (void* p = std::malloc(n ? n : 1)) return p;
  throw std::bad_alloc();
}
[[gnu::weak, gnu::noinline]] void operator delete(void* p) noexcept { std::free(p); }
[[gnu::weak, gnu::noinline]] void operator delete(void* p, std::size_t) noexcept { std::free(p); }
[[gnu::weak, gnu::noinline]] void* operator new(std::size_t n, const std::nothrow_t&) noexcept {
  ++g_news;
  return std::malloc(n ? n : 1);
}
[[gnu::weak, gnu::noinline]] void operator delete(void* p, const std::nothrow_t&) noexcept { std::free(p); }

namespace tessera {
namespace {

// An executor as the cache sees it: busy between start and wait. Counts the live ones.
struct FakeExecutor : CachedExecutor {
  explicit FakeExecutor(int made_as = 0, int* live_count = nullptr) : tag(made_as), alive(live_count) {
    if (alive) ++*alive;
  }
  ~FakeExecutor() override {
    if (alive) --*alive;
  }
  [[nodiscard]] bool busy() const noexcept override { return in_flight; }
  void start() { in_flight = true; }
  void wait() { in_flight = false; }

  int tag;
  int* alive;
  bool in_flight = false;
};
struct OtherExecutor : CachedExecutor {
  [[nodiscard]] bool busy() const noexcept override { return false; }
};

constexpr std::uint64_t kDistA = 0xa1, kDistB = 0xb2;

Schedule schedule_with(int peer) {
  Schedule s;
  s.sends.push_back(PeerBlocks{peer, {}, 0});
  return s;
}

// A lookup of a one-array executor; `made` counts the calls of make.
ExecutorHandle<FakeExecutor> find_or_make(ExchangeCache& cache, std::uint64_t schedule, std::size_t size,
                                          std::size_t charge = 0, int* made = nullptr, int* alive = nullptr,
                                          std::uint64_t dist = kDistA, CombineFn combine = nullptr, int algorithm = 0) {
  const std::size_t sizes[] = {size};
  const CombineFn combines[] = {combine};
  return cache.executor<FakeExecutor>({schedule, sizes, combines, algorithm}, {dist}, charge, [&] {
    if (made) ++*made;
    return std::make_unique<FakeExecutor>(made ? *made : 0, alive);
  });
}

TEST(ExchangeCache, SchedulesAreBuiltOnceAndFoundAfter) {
  ExchangeCache cache;
  int builds = 0;
  const auto build = [&] {
    ++builds;
    return schedule_with(3);
  };
  const auto first = cache.find_or_build(42, {kDistA}, build);
  const auto again = cache.find_or_build(42, {kDistA}, build);
  const auto other = cache.find_or_build(43, {kDistA, kDistB}, build);
  EXPECT_EQ(first.get(), again.get());
  EXPECT_NE(first.get(), other.get());
  EXPECT_EQ(first->sends.at(0).peer, 3);
  EXPECT_EQ(builds, 2);
  const auto s = cache.stats();
  EXPECT_EQ(s.schedule_hits, 1u);
  EXPECT_EQ(s.schedule_misses, 2u);
  EXPECT_EQ(s.schedules, 2u);
  EXPECT_EQ(s.executors, 0u);
  EXPECT_EQ(cache.size(), 2u);
}

TEST(ExchangeCache, ExecutorsAreMadeOnceAndFoundAfter) {
  ExchangeCache cache;
  int made = 0;
  FakeExecutor* first = find_or_make(cache, 7, 8, 100, &made).get();
  FakeExecutor* again = find_or_make(cache, 7, 8, 100, &made).get();
  EXPECT_EQ(first, again);
  EXPECT_EQ(made, 1);
  EXPECT_EQ(cache.bytes(), 100u);
  const auto s = cache.stats();
  EXPECT_EQ(s.executor_hits, 1u);
  EXPECT_EQ(s.executor_misses, 1u);
  EXPECT_EQ(s.executors, 1u);
}

TEST(ExchangeCache, HitsAllocateNothing) {
  ExchangeCache cache;
  const auto build = [] { return schedule_with(1); };
  const long probe = g_news.load();
  auto probe_object = std::make_unique<int>(1);
  ASSERT_GT(g_news.load(), probe) << "this test's counting operator new is not the one linked in";
  // Enough entries that the maps have buckets to search, and a second slot in use.
  for (std::uint64_t k = 0; k < 20; ++k) {
    (void)cache.find_or_build(k, {kDistA}, build);
    (void)find_or_make(cache, k, 8);
  }
  auto busy = find_or_make(cache, 5, 8);
  busy->start();
  auto second = find_or_make(cache, 5, 8);
  second->start();
  second->wait();
  const long before = g_news.load();
  for (int i = 0; i < 100; ++i) {
    const auto s = cache.find_or_build(5, {kDistA}, build);
    auto e = find_or_make(cache, 5, 8);
    e->start();  // the idle second slot, while the first is busy
    e->wait();
  }
  const long allocations = g_news.load() - before;
  busy->wait();
  EXPECT_EQ(allocations, 0) << "a hit allocated";
  EXPECT_EQ(cache.stats().executor_misses, 21u);
}

TEST(ExchangeCache, InvalidateDropsWhatDependsOnTheRetiredDistribution) {
  ExchangeCache cache;
  int builds = 0, made = 0, alive = 0;
  const auto build = [&] {
    ++builds;
    return Schedule{};
  };
  (void)cache.find_or_build(1, {kDistA}, build);
  (void)cache.find_or_build(2, {kDistA, kDistB}, build);
  (void)cache.find_or_build(3, {kDistB}, build);
  (void)find_or_make(cache, 1, 8, 10, &made, &alive, kDistA);
  (void)find_or_make(cache, 3, 8, 20, &made, &alive, kDistB);
  cache.invalidate(kDistA);
  EXPECT_EQ(cache.size(), 2u);
  EXPECT_EQ(cache.bytes(), 20u);
  EXPECT_EQ(alive, 1);
  EXPECT_EQ(cache.stats().invalidated, 3u);
  (void)cache.find_or_build(3, {kDistB}, build);  // kept
  EXPECT_EQ(builds, 3);
  (void)cache.find_or_build(1, {kDistA}, build);  // dropped: built again
  EXPECT_EQ(builds, 4);
  (void)find_or_make(cache, 3, 8, 20, &made, &alive, kDistB);
  EXPECT_EQ(made, 2);
  cache.invalidate(0xdead);  // nothing depends on it
  EXPECT_EQ(cache.size(), 3u);
  EXPECT_EQ(cache.stats().schedule_hits, 1u) << "counters survive invalidation";
}

TEST(ExchangeCache, LeastRecentlyUsedGoesFirst) {
  ExchangeCache cache;
  cache.set_limits(3, ExchangeCache::kDefaultMaxBytes);
  int builds = 0;
  const auto build = [&] {
    ++builds;
    return Schedule{};
  };
  for (std::uint64_t k : {1, 2, 3}) (void)cache.find_or_build(k, {kDistA}, build);
  (void)cache.find_or_build(1, {kDistA}, build);  // 1 is now the most recent: 2 is the oldest
  (void)cache.find_or_build(4, {kDistA}, build);  // pushes 2 out
  EXPECT_EQ(cache.size(), 3u);
  EXPECT_EQ(cache.stats().evicted, 1u);
  builds = 0;
  for (std::uint64_t k : {1, 3, 4}) (void)cache.find_or_build(k, {kDistA}, build);
  EXPECT_EQ(builds, 0);
  (void)cache.find_or_build(2, {kDistA}, build);
  EXPECT_EQ(builds, 1);
}

TEST(ExchangeCache, SchedulesAndExecutorsShareOneBound) {
  ExchangeCache cache;
  cache.set_limits(2, ExchangeCache::kDefaultMaxBytes);
  int made = 0;
  (void)cache.find_or_build(1, {kDistA}, [] { return Schedule{}; });
  (void)find_or_make(cache, 1, 8, 0, &made);
  (void)find_or_make(cache, 2, 8, 0, &made);  // the schedule is the oldest entry
  const auto s = cache.stats();
  EXPECT_EQ(s.schedules, 0u);
  EXPECT_EQ(s.executors, 2u);
}

TEST(ExchangeCache, BytesAreBoundedAndATooLargeEntryIsHandedBack) {
  ExchangeCache cache;
  cache.set_limits(16, 100);
  int made = 0, alive = 0;
  (void)find_or_make(cache, 1, 8, 40, &made, &alive);
  (void)find_or_make(cache, 2, 8, 40, &made, &alive);
  (void)find_or_make(cache, 3, 8, 40, &made, &alive);  // 120 > 100: executor 1 goes
  EXPECT_EQ(cache.bytes(), 80u);
  EXPECT_EQ(alive, 2);
  {
    auto big = find_or_make(cache, 4, 8, 101, &made, &alive);
    ASSERT_TRUE(big);
    EXPECT_FALSE(big.kept());
    big->start();
    big->wait();
    EXPECT_EQ(alive, 3);
    EXPECT_EQ(cache.bytes(), 80u) << "kept entries are left alone";
  }
  EXPECT_EQ(alive, 2) << "the handle freed the executor it owned";
  const int before = made;
  (void)find_or_make(cache, 4, 8, 101, &made, &alive);
  EXPECT_EQ(made, before + 1) << "never found again";
  EXPECT_EQ(cache.stats().not_kept, 2u);
  int builds = 0;
  const auto build = [&] {
    ++builds;
    return Schedule{};
  };
  const auto s = cache.find_or_build(9, {kDistA}, build, 101);
  ASSERT_NE(s, nullptr);
  (void)cache.find_or_build(9, {kDistA}, build, 101);
  EXPECT_EQ(builds, 2);
  EXPECT_EQ(cache.stats().schedules, 0u);
}

TEST(ExchangeCache, BusyExecutorsAreNeitherEvictedNorShared) {
  ExchangeCache cache;
  cache.set_limits(2, ExchangeCache::kDefaultMaxBytes);
  int made = 0, alive = 0;
  auto a = find_or_make(cache, 1, 8, 0, &made, &alive);
  a->start();
  auto b = find_or_make(cache, 1, 8, 0, &made, &alive);  // same key, first slot busy: a second one
  ASSERT_NE(a.get(), b.get());
  b->start();
  auto c = find_or_make(cache, 2, 8, 0, &made, &alive);  // over the bound: a and b are busy
  EXPECT_EQ(cache.size(), 3u);
  EXPECT_EQ(alive, 3);
  EXPECT_TRUE(a.kept());
  EXPECT_TRUE(b.kept());
  a->wait();
  b->wait();
  cache.trim();  // back within the bound: the least recently used idle one goes (a)
  EXPECT_EQ(cache.size(), 2u);
  EXPECT_EQ(alive, 2);
  EXPECT_EQ(find_or_make(cache, 1, 8, 0, &made, &alive).get(), b.get());
  EXPECT_EQ(made, 3);
}

TEST(ExchangeCache, TheLowestIdleSlotIsTakenAndNewSlotsFillGaps) {
  ExchangeCache cache;
  int made = 0, alive = 0;
  std::vector<ExecutorHandle<FakeExecutor>> slots;  // slots 0, 1, 2 of one key, all busy
  for (int k = 0; k < 3; ++k) {
    slots.push_back(find_or_make(cache, 1, 8, 0, &made, &alive));
    slots.back()->start();
  }
  EXPECT_EQ(made, 3);
  slots[2]->wait();
  slots[0]->wait();
  EXPECT_EQ(find_or_make(cache, 1, 8, 0, &made, &alive).get(), slots[0].get()) << "slot 0 before slot 2";
  slots[0]->start();
  EXPECT_EQ(find_or_make(cache, 1, 8, 0, &made, &alive).get(), slots[2].get());
  slots[0]->wait();
  slots[1]->wait();
  // Slot 1 was not looked up since it was made: the least recently used, it goes first.
  cache.set_limits(2, ExchangeCache::kDefaultMaxBytes);
  EXPECT_EQ(alive, 2);
  cache.set_limits(16, ExchangeCache::kDefaultMaxBytes);
  // With slots 0 and 2 busy, the next one made fills the gap: slot 1, taken before slot 2.
  slots[0]->start();
  slots[2]->start();
  auto fresh = find_or_make(cache, 1, 8, 0, &made, &alive);
  EXPECT_EQ(made, 4);
  slots[0]->wait();
  slots[2]->wait();
  fresh->start();
  EXPECT_EQ(find_or_make(cache, 1, 8, 0, &made, &alive).get(), slots[0].get());
  fresh->wait();
  slots[0]->start();
  EXPECT_EQ(find_or_make(cache, 1, 8, 0, &made, &alive).get(), fresh.get()) << "slot 1 before slot 2";
  slots[0]->wait();
}

template <class T>
void add_to(void* dst, const void* src, index_t n) {
  for (index_t i = 0; i < n; ++i) static_cast<T*>(dst)[i] += static_cast<const T*>(src)[i];
}

TEST(ExchangeCache, KeysTellExecutorsApart) {
  ExchangeCache cache;
  int made = 0;
  FakeExecutor* base = find_or_make(cache, 1, 8, 0, &made).get();
  EXPECT_NE(find_or_make(cache, 2, 8, 0, &made).get(), base);                        // schedule
  EXPECT_NE(find_or_make(cache, 1, 4, 0, &made).get(), base);                        // element size
  EXPECT_NE(find_or_make(cache, 1, 8, 0, &made, nullptr, kDistA, nullptr, 2).get(), base);  // algorithm
  FakeExecutor* add_double = find_or_make(cache, 1, 8, 0, &made, nullptr, kDistA, &add_to<double>).get();
  FakeExecutor* add_int64 = find_or_make(cache, 1, 8, 0, &made, nullptr, kDistA, &add_to<std::int64_t>).get();
  EXPECT_NE(add_double, base);
  EXPECT_NE(add_double, add_int64) << "equal sizes, equal op, different types: different executors";
  EXPECT_EQ(made, 6);
  // An empty combine list is "replace in every array", as a list of nulls.
  const std::size_t sizes[] = {8};
  auto same = cache.executor<FakeExecutor>({1, sizes, {}, 0}, {kDistA}, 0, [] { return std::make_unique<FakeExecutor>(); });
  EXPECT_EQ(same.get(), base);
  // Several arrays: the list of sizes, in order, is the key.
  const std::size_t fused[] = {8, 4}, swapped[] = {4, 8};
  const auto make = [&] { return std::make_unique<FakeExecutor>(++made); };
  FakeExecutor* f = cache.executor<FakeExecutor>({1, fused}, {kDistA}, 0, make).get();
  EXPECT_NE(cache.executor<FakeExecutor>({1, swapped}, {kDistA}, 0, make).get(), f);
  EXPECT_EQ(cache.executor<FakeExecutor>({1, fused}, {kDistA}, 0, make).get(), f);
  EXPECT_EQ(made, 8);
}

TEST(ExchangeCache, ADecisionToHaveNoExecutorIsKept) {
  ExchangeCache cache;
  int asked = 0;
  const std::size_t sizes[] = {8, 4};
  const auto decide = [&] {  // e.g. one allreduce that says "do not fuse"
    ++asked;
    return std::unique_ptr<FakeExecutor>();
  };
  EXPECT_FALSE(cache.executor<FakeExecutor>({1, sizes}, {kDistA}, 0, decide));
  EXPECT_FALSE(cache.executor<FakeExecutor>({1, sizes}, {kDistA}, 0, decide));
  EXPECT_EQ(asked, 1);
  EXPECT_EQ(cache.stats().executor_hits, 1u);
  cache.invalidate(kDistA);
  EXPECT_FALSE(cache.executor<FakeExecutor>({1, sizes}, {kDistA}, 0, decide));
  EXPECT_EQ(asked, 2) << "asked again once the distribution changed";
}

TEST(ExchangeCache, ARetiredBusyExecutorLivesUntilItIsIdle) {
  for (const bool by_clear : {false, true}) {
    SCOPED_TRACE(by_clear ? "clear" : "invalidate");
    ExchangeCache cache;
    int made = 0, alive = 0;
    auto busy = find_or_make(cache, 1, 8, 30, &made, &alive);
    busy->start();
    if (by_clear)
      cache.clear();
    else
      cache.invalidate(kDistA);
    EXPECT_EQ(cache.size(), 0u);
    EXPECT_EQ(cache.bytes(), 0u);
    EXPECT_EQ(alive, 1) << "freed while in flight";
    auto next = find_or_make(cache, 1, 8, 30, &made, &alive);
    EXPECT_NE(next.get(), busy.get()) << "found after it was dropped";
    busy->wait();
    EXPECT_EQ(alive, 2);
    cache.trim();
    EXPECT_EQ(alive, 1);
  }
}

TEST(ExchangeCache, AnExecutorWhoseRunThrewIsDiscarded) {
  ExchangeCache cache;
  int made = 0, alive = 0;
  auto kept = find_or_make(cache, 1, 8, 10, &made, &alive);
  auto other = find_or_make(cache, 2, 8, 10, &made, &alive);
  kept->start();  // say the execution threw half-way: the caller discards the executor
  cache.discard(kept.get());
  EXPECT_EQ(cache.size(), 1u);
  EXPECT_EQ(cache.bytes(), 10u);
  EXPECT_EQ(alive, 2) << "busy: parked until idle";
  kept->wait();
  cache.discard(nullptr);  // nothing to drop; frees what is idle
  EXPECT_EQ(alive, 1);
  EXPECT_NE(find_or_make(cache, 1, 8, 10, &made, &alive).get(), nullptr);
  EXPECT_EQ(made, 3) << "made again";
  cache.discard(other.get());
  EXPECT_EQ(alive, 1);
}

TEST(ExchangeCache, SetLimitsEvictsDownAndZeroEntriesTurnCachingOff) {
  ExchangeCache cache;
  EXPECT_EQ(cache.max_entries(), ExchangeCache::kDefaultMaxEntries);
  EXPECT_EQ(cache.max_bytes(), ExchangeCache::kDefaultMaxBytes);
  int made = 0, alive = 0;
  for (std::uint64_t k = 0; k < 5; ++k) (void)find_or_make(cache, k, 8, 10, &made, &alive);
  cache.set_limits(16, 25);
  EXPECT_EQ(cache.size(), 2u);
  EXPECT_EQ(alive, 2);
  cache.set_limits(0, 25);
  EXPECT_EQ(cache.size(), 0u);
  EXPECT_EQ(alive, 0);
  auto e = find_or_make(cache, 1, 8, 0, &made, &alive);
  EXPECT_FALSE(e.kept());
  int builds = 0;
  for (int i = 0; i < 2; ++i) (void)cache.find_or_build(1, {kDistA}, [&] { return ++builds, Schedule{}; });
  EXPECT_EQ(builds, 2);
  EXPECT_EQ(cache.size(), 0u);
}

TEST(ExchangeCache, ABuildOrMakeThatThrowsKeepsNothing) {
  ExchangeCache cache;
  EXPECT_THROW((void)cache.find_or_build(1, {kDistA}, []() -> Schedule { throw std::runtime_error("no"); }),
               std::runtime_error);
  const std::size_t sizes[] = {8};
  EXPECT_THROW((void)cache.executor<FakeExecutor>({1, sizes}, {kDistA}, 0,
                                                  []() -> std::unique_ptr<FakeExecutor> { throw std::runtime_error("no"); }),
               std::runtime_error);
  EXPECT_EQ(cache.size(), 0u);
  int made = 0;
  (void)find_or_make(cache, 1, 8, 0, &made);
  EXPECT_EQ(made, 1);
}

TEST(ExchangeCache, BadKeysAreRejected) {
  ExchangeCache cache;
  const auto make = [] { return std::make_unique<FakeExecutor>(); };
  EXPECT_THROW((void)cache.executor<FakeExecutor>({1, {}}, {kDistA}, 0, make), Error);
  const std::size_t sizes[] = {8, 4};
  const CombineFn one[] = {nullptr};
  EXPECT_THROW((void)cache.executor<FakeExecutor>({1, sizes, one}, {kDistA}, 0, make), Error);
  (void)cache.executor<FakeExecutor>({1, sizes}, {kDistA}, 0, make);
  EXPECT_THROW((void)cache.executor<OtherExecutor>({1, sizes}, {kDistA}, 0,
                                                   [] { return std::make_unique<OtherExecutor>(); }),
               Error);
}

TEST(ExchangeCache, StatsPrintOnOneLine) {
  ExchangeCache cache;
  (void)cache.find_or_build(1, {kDistA}, [] { return Schedule{}; });
  (void)cache.find_or_build(1, {kDistA}, [] { return Schedule{}; });
  (void)find_or_make(cache, 1, 8, 64);
  std::ostringstream out;
  out << cache.stats();
  EXPECT_EQ(out.str(),
            "schedules 1 kept, 1 hits, 1 misses; executors 1 kept, 0 hits, 1 misses; 64 bytes charged; "
            "0 evicted, 0 invalidated, 0 not kept");
}

// What the builders of schedule_builders.hpp do: a real halo schedule per rank, keyed as they key it.
TEST(ExchangeCache, HoldsRealSchedulesUntilTheirDistributionRetires) {
  const Box<2> box({0, 0}, {12, 10});
  const Distribution<2> dist(box, ProcGrid<2>::automatic(4, {12, 10}), {block(), block()});
  const auto g = ghosts<2>(1);
  ExchangeCache cache;
  for (int round = 0; round < 2; ++round)
    for (int rank = 0; rank < 4; ++rank) {
      const std::uint64_t key = hash_combine(hash_combine(dist.hash(), g.hash()), static_cast<std::uint64_t>(rank));
      const auto s = cache.find_or_build(key, {dist.hash()}, [&] { return *halo_schedule(dist, g, rank); });
      EXPECT_EQ(s->receive_elements(), halo_schedule(dist, g, rank)->receive_elements());
    }
  EXPECT_EQ(cache.stats().schedule_hits, 4u);
  cache.invalidate(dist.hash());
  EXPECT_EQ(cache.size(), 0u);
}

// --- every rank decides alike -------------------------------------------------------------------

// One simulated rank: its cache, its tag counter (as a Communicator's), its updates in flight.
struct SimulatedRank {
  explicit SimulatedRank(int r) : rank(r) {}
  int rank;
  ExchangeCache cache;
  int next_tag = 0;
  std::deque<ExecutorHandle<FakeExecutor>> in_flight;
  std::vector<long> log;  // what each call did: built or found, which tag ran
};

// The same random sequence of calls on several ranks whose keys differ in value (schedule keys
// hash the rank, as the builders' do): every rank must build, make, pick and evict alike, which
// the tags of the executors they run show.
void run_in_step(std::uint64_t seed, int steps) {
  constexpr int ranks = 3;
  std::vector<std::unique_ptr<SimulatedRank>> world;
  for (int r = 0; r < ranks; ++r) world.push_back(std::make_unique<SimulatedRank>(r));
  std::mt19937_64 rng(seed);
  const std::uint64_t dists[] = {0x11, 0x22, 0x33};
  const std::size_t charges[] = {0, 10, 30, 60, 200};
  const auto pick = [&](std::uint64_t n) { return rng() % n; };
  for (int step = 0; step < steps; ++step) {
    const auto op = pick(20);
    const auto k = pick(8);
    const std::size_t charge = charges[pick(5)];
    const std::size_t entries = pick(7), bytes = (pick(3) + 1) * 100;
    for (auto& rp : world) {
      SimulatedRank& me = *rp;
      const std::uint64_t key = hash_combine(k, static_cast<std::uint64_t>(me.rank));
      const std::uint64_t dist = dists[k % 3], other = dists[(k + 1) % 3];
      const std::size_t size = 4 + 4 * (k % 2);
      const auto lookup = [&] {
        const std::size_t sizes[] = {size};
        return me.cache.executor<FakeExecutor>({key, sizes}, {dist, other}, charge,
                                               [&] { return std::make_unique<FakeExecutor>(++me.next_tag); });
      };
      bool cache_called = true;  // the bounds hold after a call that enforces them (not a schedule hit)
      if (op < 5) {
        bool built = false;
        (void)me.cache.find_or_build(key, {dist}, [&] { return built = true, Schedule{}; }, charge);
        me.log.push_back(built ? 1 : 0);
      } else if (op < 11) {  // a one-shot remap: start and wait
        auto e = lookup();
        e->start();
        e->wait();
        me.log.push_back(e->tag * (e.kept() ? 1 : -1));
      } else if (op < 15 && me.in_flight.size() < 4) {  // a split-phase update begins
        me.in_flight.push_back(lookup());
        me.in_flight.back()->start();
        me.log.push_back(me.in_flight.back()->tag);
      } else if (op < 18 && !me.in_flight.empty()) {  // the oldest one ends
        const std::size_t which = k % me.in_flight.size();
        me.in_flight[which]->wait();
        me.in_flight.erase(me.in_flight.begin() + static_cast<std::ptrdiff_t>(which));
        cache_called = false;
      } else if (op == 18) {
        me.cache.invalidate(dist);
      } else if (op == 19 && k == 0) {
        me.cache.set_limits(entries, bytes);
      } else {
        cache_called = false;
      }
      if (cache_called && op >= 5) {
        ASSERT_LE(me.cache.size(), std::max<std::size_t>(me.cache.max_entries(), me.in_flight.size() + 1))
            << "step " << step;
      }
    }
  }
  for (int r = 1; r < ranks; ++r) {
    ASSERT_EQ(world[r]->log, world[0]->log) << "rank " << r << " decided otherwise than rank 0";
    const auto a = world[r]->cache.stats(), b = world[0]->cache.stats();
    EXPECT_EQ(a.executor_misses, b.executor_misses);
    EXPECT_EQ(a.evicted, b.evicted);
    EXPECT_EQ(a.bytes, b.bytes);
  }
  const auto s = world[0]->cache.stats();
  EXPECT_GT(s.executor_hits, 0u);
  EXPECT_GT(s.evicted, 0u);
  EXPECT_GT(s.not_kept, 0u);
  EXPECT_GT(s.invalidated, 0u);
  for (auto& rp : world)
    for (auto& e : rp->in_flight) e->wait();
}

TEST(ExchangeCache, EveryRankDecidesAlike) {
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    SCOPED_TRACE(::testing::Message() << "seed " << seed);
    run_in_step(seed, 3000);
  }
}

}  // namespace
}  // namespace tessera
