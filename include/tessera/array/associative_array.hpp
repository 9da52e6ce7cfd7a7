#pragma once
/// \file
/// `AssociativeArray<Key, T>`: Chapel's array over an associative domain (`var A: [D] T`): one
/// value per key, held by the key's owner, following the domain through inserts, removals and
/// redistributions (array/associative_domain.hpp). Batched reads and writes are collective, one
/// message per peer each way:
/// \code
///   tessera::AssociativeDomain<std::string> words(world);
///   tessera::AssociativeArray<std::string, std::int64_t> count(words);
///   std::vector<std::int64_t> ones(my_words.size(), 1);
///   count.update(my_words, ones, std::plus<>{}, tessera::MissingKeys::insert);  // a histogram
///   std::vector<std::int64_t> n = count.lookup(some_words, std::int64_t{0});      // 0 if absent
///   std::int64_t total = count.reduce(std::plus<>{}, std::int64_t{0});           // every rank
/// \endcode
/// Values must be trivially copyable (they travel as bytes). Combining in `update` and `reduce`
/// runs in a fixed order (arrivals by source rank and batch position; partial results in rank
/// order), so results do not depend on timing; integer sums (wrapping), min and max are the same
/// on every rank count, floating-point sums only on the same rank count and batch history.

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <memory>
#include <optional>
#include <span>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "tessera/array/associative_domain.hpp"
#include "tessera/core/error.hpp"

namespace tessera {

/// What `AssociativeArray::update` does with a key that is not in the domain.
enum class MissingKeys {
  error,   ///< `Error(out_of_range)` on every rank, nothing changed
  insert,  ///< the key is added to the domain (Chapel `D += k`) with the first value sent for it
};

/// `update`'s operator that keeps the new value (Chapel `A[k] = v`).
struct ReplaceValue {
  template <class T>
  [[nodiscard]] constexpr T operator()(const T&, const T& incoming) const {
    return incoming;
  }
};

template <class Key, class T>
class AssociativeArray {
  static_assert(std::is_trivially_copyable_v<T> && std::is_default_constructible_v<T> && !std::is_same_v<T, bool>,
                "tessera::AssociativeArray<Key, T>: T must be trivially copyable, default-constructible and not bool");

 public:
  using key_type = Key;
  using value_type = T;

  /// An array over `dom`: `T{}` for every key it holds. Not collective, but every rank must
  /// declare the domain's arrays in the same order.
  explicit AssociativeArray(const AssociativeDomain<Key>& dom) : dom_(dom), column_(std::make_unique<Column>()) {
    dom_.attach(column_.get());
  }
  ~AssociativeArray() {
    if (column_) dom_.detach(column_.get());
  }
  AssociativeArray(AssociativeArray&&) noexcept = default;
  AssociativeArray(const AssociativeArray&) = delete;
  AssociativeArray& operator=(const AssociativeArray&) = delete;
  AssociativeArray& operator=(AssociativeArray&&) = delete;

  [[nodiscard]] const AssociativeDomain<Key>& domain() const noexcept { return dom_; }

  /// This rank's values, slot by slot (`domain().local_keys()[k]`'s value is `local_values()[k]`).
  [[nodiscard]] std::span<T> local_values() noexcept { return column_->values; }
  [[nodiscard]] std::span<const T> local_values() const noexcept { return column_->values; }

  /// Chapel's `forall (k, v) in zip(D, A)` on this rank: `f(key, value)` for each local key, in slot order.
  template <class F>
  void for_each_local(F&& f) {
    const std::span<const Key> keys = dom_.local_keys();
    for (std::size_t k = 0; k < keys.size(); ++k) f(keys[k], column_->values[k]);
  }

  /// Collective: the values of this rank's `keys`, in the order asked. A key not in the domain is
  /// `Error(out_of_range)` on every rank (costs one more agreement than the other overload).
  [[nodiscard]] std::vector<T> lookup(std::span<const Key> keys) const { return lookup_impl(keys, std::nullopt); }
  /// Collective: as `lookup(keys)`, with `missing` for keys not in the domain.
  [[nodiscard]] std::vector<T> lookup(std::span<const Key> keys, const T& missing) const { return lookup_impl(keys, missing); }

  /// Collective (Chapel `A[k] op= v` for a batch): each key's value becomes `op(value, v)` for each
  /// of the `values` sent for it, in the fixed arrival order. `op` must be the same on every rank.
  /// Missing keys are an error or are inserted (with the first value sent for them, the
  /// others combined into it); inserting gives the domain's other arrays `T{}` there.
  /// `values.size() != keys.size()` is `Error(invalid_argument)` on every rank.
  template <class Op>
  void update(std::span<const Key> keys, std::span<const T> values, Op op, MissingKeys missing = MissingKeys::error) {
    constexpr std::string_view where = "AssociativeArray::update";
    const auto checked = detail::check_collective(dom_.comm(), where, dom_.map(), missing);
    std::optional<Error> bad;
    if (values.size() != keys.size())
      bad = Error(ErrorCode::invalid_argument, detail::concat(where, ": ", values.size(), " values for ", keys.size(),
                                                              " keys on rank ", dom_.comm().rank()));
    const auto in = dom_.route(
        where, bad ? std::span<const Key>{} : keys, sizeof(T),
        [&](std::size_t i, std::byte* out) { std::memcpy(out, &values[i], sizeof(T)); }, nullptr, std::move(bad));
    if (missing == MissingKeys::error) agree_all_present(where, in);
    detail::for_each_arrived<Key>(in, sizeof(T), [&](const Key& key, const std::byte* payload) {
      T v;
      std::memcpy(&v, payload, sizeof(T));
      const auto [slot, added] = dom_.add(key);
      if (added) {
        dom_.grow_columns();
        column_->values[slot] = v;
      } else {
        column_->values[slot] = op(column_->values[slot], v);
      }
    });
  }

  /// Collective: `op` folded over every value, starting from `init`: each rank folds its values
  /// in slot order, then the partial results are folded in rank order. The same on every rank.
  template <class Op>
  [[nodiscard]] T reduce(Op op, T init) const {
    const auto checked = detail::check_collective(dom_.comm(), "AssociativeArray::reduce");
    Partial mine{};
    for (const T& v : column_->values) {
      mine.value = mine.present ? op(mine.value, v) : v;
      mine.present = 1;
    }
    T out = init;
    for (const Partial& p : dom_.comm().allgather(mine))
      if (p.present != 0) out = op(out, p.value);
    return out;
  }

  /// Collective: every (key, value) on `root`, sorted by key (other ranks get an empty vector).
  [[nodiscard]] std::vector<std::pair<Key, T>> gather_sorted(int root) const
    requires std::totally_ordered<Key>
  {
    constexpr std::string_view where = "AssociativeArray::gather_sorted";
    const auto checked = detail::check_collective(dom_.comm(), where, root);
    const auto write = [&](std::size_t slot, std::byte* out) { std::memcpy(out, &column_->values[slot], sizeof(T)); };
    const auto in = detail::decode_batch<Key>(dom_.gather_local(where, root, sizeof(T), write), sizeof(T));
    std::vector<std::pair<Key, T>> all(in.keys.size());
    for (std::size_t k = 0; k < all.size(); ++k) {
      all[k].first = in.keys[k];
      std::memcpy(&all[k].second, in.payload.data() + k * sizeof(T), sizeof(T));
    }
    std::sort(all.begin(), all.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    return all;
  }

 private:
  struct Partial {
    T value{};
    std::uint8_t present = 0;
  };

  struct Column final : detail::ValueColumn {
    std::vector<T> values, staged;
    [[nodiscard]] std::size_t value_bytes() const noexcept override { return sizeof(T); }
    void resize(std::size_t slots) override { values.resize(slots); }
    void move_slot(std::size_t from, std::size_t to) override { values[to] = values[from]; }
    void write_value(std::size_t slot, std::byte* out) const override { std::memcpy(out, &values[slot], sizeof(T)); }
    void stage(std::size_t slots) override { staged.assign(slots, T{}); }
    void read_staged(std::size_t slot, const std::byte* in) override { std::memcpy(&staged[slot], in, sizeof(T)); }
    void commit() noexcept override {
      values.swap(staged);
      staged = std::vector<T>();
    }
  };

  std::vector<T> lookup_impl(std::span<const Key> keys, const std::optional<T>& missing) const {
    constexpr std::string_view where = "AssociativeArray::lookup";
    const auto checked = detail::check_collective(dom_.comm(), where, dom_.map(), missing.has_value());
    detail::RoutedBatch routed;
    std::vector<T> out;
    std::optional<Error> no_room = detail::allocate_answers(out, dom_.comm(), where, keys.size());
    detail::ArrivedBatch in =
        dom_.route(where, keys, 0, [](std::size_t, std::byte*) {}, &routed, std::move(no_room), sizeof(T));
    // Sized first and written through a pointer: a push_back's growth path kept the loop's
    // state in memory (3x slower on 1024 int64 keys).
    std::vector<T> answers(in.keys);
    T* next = answers.data();
    const T if_absent = missing.value_or(T{});
    std::optional<Error> absent;  // the first key not held here, for a strict lookup
    detail::for_each_arrived<Key>(in, 0, [&](const Key& key, const std::byte*) {
      const auto slot = dom_.local_slot(key);
      if (!slot && !missing && !absent) absent = not_in_domain(where, key);
      *next++ = slot ? column_->values[*slot] : if_absent;
    });
    if (!missing) dom_.comm().agree(absent);
    detail::answer_batch<T>(dom_.comm(), answers, in, routed, std::span<T>(out));
    return out;
  }

  /// Collective: `Error(out_of_range)` on every rank if a key that arrived here is not held here.
  void agree_all_present(std::string_view where, const detail::ArrivedBatch& arrived) const {
    std::optional<Error> absent;
    detail::for_each_arrived<Key>(arrived, sizeof(T), [&](const Key& key, const std::byte*) {
      if (!absent && !dom_.local_slot(key)) absent = not_in_domain(where, key);
    });
    dom_.comm().agree(absent);
  }

  static Error not_in_domain(std::string_view where, const Key& key) {
    return Error(ErrorCode::out_of_range, detail::concat(where, ": a key of the batch is not in the domain",
                                                         describe(key), "; nothing changed"));
  }

  static std::string describe(const Key& key) {
    if constexpr (requires(std::ostream& o) { o << key; })
      return detail::concat(" (", key, ")");
    else
      return {};
  }

  AssociativeDomain<Key> dom_;
  std::unique_ptr<Column> column_;
};

}  // namespace tessera
