#include "tessera/plan/exchange_cache.hpp"

#include <algorithm>
#include <cstdint>
#include <ostream>

#include "tessera/core/error.hpp"
#include "tessera/core/hash.hpp"

namespace tessera {

CachedExecutor::~CachedExecutor() = default;

std::ostream& operator<<(std::ostream& out, const ExchangeCacheStats& s) {
  return out << "schedules " << s.schedules << " kept, " << s.schedule_hits << " hits, " << s.schedule_misses
             << " misses; executors " << s.executors << " kept, " << s.executor_hits << " hits, " << s.executor_misses
             << " misses; " << s.bytes << " bytes charged; " << s.evicted << " evicted, " << s.invalidated
             << " invalidated, " << s.not_kept << " not kept";
}

namespace {

CombineFn combine_at(std::span<const CombineFn> combine, std::size_t k) noexcept {
  return combine.empty() ? nullptr : combine[k];
}

// Only ever compared on this rank (it hashes function addresses): the bucket of an executor key.
std::uint64_t bucket_of(const ExecutorKey& key) noexcept {
  std::uint64_t h = hash_combine(key.schedule, static_cast<std::uint64_t>(key.algorithm));
  for (std::size_t k = 0; k < key.element_sizes.size(); ++k) {
    h = hash_combine(h, key.element_sizes[k]);
    h = hash_combine(h, reinterpret_cast<std::uintptr_t>(combine_at(key.combine, k)));
  }
  return h;
}

void check_key(const ExecutorKey& key) {
  constexpr const char* where = "ExchangeCache::executor";
  if (key.element_sizes.empty()) fail_argument(where, "key.element_sizes", "empty", "must name at least one array");
  if (!key.combine.empty() && key.combine.size() != key.element_sizes.size())
    fail_argument(where, "key.combine", key.combine.size(),
                  detail::concat("must be empty or hold one entry per array (", key.element_sizes.size(), ")"));
}

}  // namespace

bool ExchangeCache::matches(const Entry& e, const ExecutorKey& key) noexcept {
  if (e.schedule_key != key.schedule || e.algorithm != key.algorithm ||
      !std::ranges::equal(e.element_sizes, key.element_sizes))
    return false;
  for (std::size_t k = 0; k < e.combine.size(); ++k)
    if (e.combine[k] != combine_at(key.combine, k)) return false;
  return true;
}

// A new most recent entry, which `fill` sets up and links into its lookup map: if anything throws,
// the cache is left as it was. Then its charge counts and the others make room for it.
template <class Fill>
void ExchangeCache::keep_front(std::size_t charge, std::initializer_list<std::uint64_t> distributions, Fill&& fill) {
  entries_.emplace_front();
  try {
    Entry& e = entries_.front();
    e.charge = charge;
    e.distributions.assign(distributions);
    fill(e);
  } catch (...) {
    entries_.pop_front();
    throw;
  }
  bytes_ += charge;
  evict(&entries_.front());
}

const std::shared_ptr<const Schedule>* ExchangeCache::find_schedule(std::uint64_t key) noexcept {
  const auto found = schedules_.find(key);
  if (found == schedules_.end()) {
    ++counts_.schedule_misses;
    return nullptr;
  }
  ++counts_.schedule_hits;
  entries_.splice(entries_.begin(), entries_, found->second);  // relinks a node: allocates nothing
  return &found->second->schedule;
}

std::shared_ptr<const Schedule> ExchangeCache::keep_schedule(std::uint64_t key,
                                                             std::initializer_list<std::uint64_t> distributions,
                                                             std::size_t charge,
                                                             std::shared_ptr<const Schedule> schedule) {
  if (!fits(charge)) {
    ++counts_.not_kept;
    return schedule;
  }
  keep_front(charge, distributions, [&](Entry& e) {
    e.key = key;
    e.schedule = schedule;
    schedules_.emplace(key, entries_.begin());
  });
  return schedule;
}

const ExchangeCache::Entry* ExchangeCache::find_executor(const ExecutorKey& key, const std::type_info& type) {
  check_key(key);
  trim();
  // The lowest idle slot, whatever order the buckets list them in: the same choice on every rank.
  Entries::iterator best = entries_.end();
  for (auto [it, end] = executors_.equal_range(bucket_of(key)); it != end; ++it) {
    const Entry& e = *it->second;
    if (!matches(e, key)) continue;
    if (*e.type != type)
      fail_argument("ExchangeCache::executor", "E", type.name(),
                    detail::concat("differs from the type ", e.type->name(), " kept under this key"));
    if (!e.busy() && (best == entries_.end() || e.slot < best->slot)) best = it->second;
  }
  if (best == entries_.end()) {
    ++counts_.executor_misses;
    return nullptr;
  }
  ++counts_.executor_hits;
  entries_.splice(entries_.begin(), entries_, best);
  return &*best;
}

std::unique_ptr<CachedExecutor> ExchangeCache::keep_executor(const ExecutorKey& key,
                                                             std::initializer_list<std::uint64_t> distributions,
                                                             std::size_t charge, const std::type_info& type,
                                                             std::unique_ptr<CachedExecutor> executor) {
  if (!fits(charge)) {
    ++counts_.not_kept;
    return executor;
  }
  const std::uint64_t bucket = bucket_of(key);
  // Slots are numbered lowest-unused among the equal keys (busy ones included), so that equal keys
  // never share a slot and "the lowest idle slot" names one executor on every rank.
  // Not a structured binding: clang 14 (the `fuzz` preset) cannot capture one in a lambda.
  const auto equal_keys = executors_.equal_range(bucket);
  const auto taken = [&](std::size_t slot) {
    for (auto it = equal_keys.first; it != equal_keys.second; ++it)
      if (it->second->slot == slot && matches(*it->second, key)) return true;
    return false;
  };
  std::size_t slot = 0;
  while (taken(slot)) ++slot;
  keep_front(charge, distributions, [&](Entry& e) {
    e.is_executor = true;
    e.key = bucket;
    e.schedule_key = key.schedule;
    e.element_sizes.assign(key.element_sizes.begin(), key.element_sizes.end());
    e.combine.resize(key.element_sizes.size());
    for (std::size_t k = 0; k < e.combine.size(); ++k) e.combine[k] = combine_at(key.combine, k);
    e.algorithm = key.algorithm;
    e.slot = slot;
    e.type = &type;
    executors_.emplace(bucket, entries_.begin());
    e.executor = std::move(executor);  // last: nothing throws after it
  });
  return nullptr;
}

ExchangeCache::Entries::iterator ExchangeCache::unlink(Entries::iterator it) noexcept {
  bytes_ -= it->charge;
  if (!it->is_executor) {
    schedules_.erase(it->key);
    return std::next(it);
  }
  for (auto [m, end] = executors_.equal_range(it->key); m != end; ++m)
    if (m->second == it) {
      executors_.erase(m);
      break;
    }
  return std::next(it);
}

// Unlinks `it` and frees it, or, if its executor is busy, parks it until it is not (its user
// still holds it). Returns the entry after it.
ExchangeCache::Entries::iterator ExchangeCache::drop(Entries::iterator it) noexcept {
  const auto next = unlink(it);
  if (it->busy())
    retired_.splice(retired_.end(), entries_, it);  // relinks a node: cannot fail
  else
    entries_.erase(it);
  return next;
}

void ExchangeCache::evict(const Entry* keep) noexcept {
  // Least recently used first; busy executors and the entry just made are passed over.
  auto it = entries_.end();
  while ((entries_.size() > max_entries_ || bytes_ > max_bytes_) && it != entries_.begin()) {
    --it;
    if (&*it == keep || it->busy()) continue;
    it = drop(it);
    ++counts_.evicted;
  }
}

void ExchangeCache::invalidate(std::uint64_t distribution) noexcept {
  for (auto it = entries_.begin(); it != entries_.end();) {
    if (std::ranges::find(it->distributions, distribution) == it->distributions.end()) {
      ++it;
      continue;
    }
    it = drop(it);
    ++counts_.invalidated;
  }
  trim();
}

void ExchangeCache::discard(const CachedExecutor* executor) noexcept {
  for (auto it = entries_.begin(); it != entries_.end(); ++it)
    if (executor && it->executor.get() == executor) {
      drop(it);
      break;
    }
  trim();
}

void ExchangeCache::clear() noexcept {
  for (auto it = entries_.begin(); it != entries_.end();) it = drop(it);
  trim();
}

void ExchangeCache::trim() noexcept {
  std::erase_if(retired_, [](const Entry& e) { return !e.busy(); });
  evict(nullptr);
}

void ExchangeCache::set_limits(std::size_t max_entries, std::size_t max_bytes) noexcept {
  max_entries_ = max_entries;
  max_bytes_ = max_bytes;
  trim();
}

ExchangeCacheStats ExchangeCache::stats() const noexcept {
  ExchangeCacheStats s = counts_;
  s.schedules = schedules_.size();
  s.executors = executors_.size();
  s.bytes = bytes_;
  return s;
}

}  // namespace tessera
