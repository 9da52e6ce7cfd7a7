#pragma once
// The anchor of bench_assoc: a distributed hash table written by hand on MPI, the code a user
// writes without tessera. Keys go to rank stable_hash % P (the placement of tessera's default key
// map, so both codes do the same work per rank), grouped by owner into one byte buffer, counts by
// MPI_Alltoall, keys by one MPI_Alltoallv; answers come back by one more MPI_Alltoallv whose counts
// the owner already knows. Each rank keeps its keys in a std::unordered_map (std::hash). Keys are
// written as tessera writes them (KeyCodec: the bytes of an int64, length + bytes of a string), so
// the messages are the same size.
#include <mpi.h>

#include <cstdint>
#include <cstring>
#include <span>
#include <unordered_map>
#include <vector>

#include "tessera/core/hash.hpp"
#include "tessera/core/key_codec.hpp"
#include "tessera/core/key_hash.hpp"
#include "tessera/exchange/communicator.hpp"

namespace tessera::bench {

template <class Key>
class HandWrittenTable {
 public:
  explicit HandWrittenTable(MPI_Comm comm) : comm_(comm) {
    MPI_Comm_size(comm, &size_);
    MPI_Comm_rank(comm, &rank_);
  }

  void insert(std::span<const Key> keys) {
    exchange(keys, nullptr);
    for (const Key& k : arrived_) table_.try_emplace(k, 0);
  }
  void remove(std::span<const Key> keys) {
    exchange(keys, nullptr);
    for (const Key& k : arrived_) table_.erase(k);
  }
  /// table[k] += v for each key, inserting missing keys.
  void accumulate(std::span<const Key> keys, std::span<const std::int64_t> values) {
    exchange(keys, values.data());
    for (std::size_t k = 0; k < arrived_.size(); ++k) table_[arrived_[k]] += arrived_values_[k];
  }
  /// The values of `keys` in the order asked (`missing` for absent keys).
  std::vector<std::int64_t> lookup(std::span<const Key> keys, std::int64_t missing) {
    exchange(keys, nullptr);
    std::vector<std::int64_t> answers(arrived_.size());
    for (std::size_t k = 0; k < arrived_.size(); ++k) {
      const auto it = table_.find(arrived_[k]);
      answers[k] = it == table_.end() ? missing : it->second;
    }
    std::vector<int> displ_back(p(), 0), displ_asked(p(), 0);
    for (std::size_t r = 1; r < p(); ++r) {
      displ_back[r] = displ_back[r - 1] + keys_from_[r - 1];
      displ_asked[r] = displ_asked[r - 1] + keys_to_[r - 1];
    }
    std::vector<std::int64_t> back(keys.size()), out(keys.size());
    check_mpi(MPI_Alltoallv(answers.data(), keys_from_.data(), displ_back.data(), MPI_INT64_T, back.data(),
                            keys_to_.data(), displ_asked.data(), MPI_INT64_T, comm_),
              "MPI_Alltoallv");
    for (std::size_t j = 0; j < back.size(); ++j) out[order_[j]] = back[j];
    return out;
  }
  [[nodiscard]] std::size_t local_size() const { return table_.size(); }

 private:
  [[nodiscard]] std::size_t p() const { return static_cast<std::size_t>(size_); }

  /// Routes `keys` (each followed by its value if `values`) to their owners; fills `arrived_`
  /// (and `arrived_values_`), `keys_from_`, `keys_to_` and `order_`.
  void exchange(std::span<const Key> keys, const std::int64_t* values) {
    const std::size_t extra = values != nullptr ? sizeof(std::int64_t) : 0;
    std::vector<int> owner(keys.size()), bytes_to(p(), 0), bytes_from(p());
    keys_to_.assign(p(), 0);
    for (std::size_t i = 0; i < keys.size(); ++i) {
      owner[i] = static_cast<int>(hash_combine(0, stable_hash(keys[i])) % p());
      bytes_to[static_cast<std::size_t>(owner[i])] += static_cast<int>(KeyCodec<Key>::size(keys[i]) + extra);
      ++keys_to_[static_cast<std::size_t>(owner[i])];
    }
    std::vector<int> displ_to(p(), 0), displ_from(p(), 0), key_at(p(), 0);
    for (std::size_t r = 1; r < p(); ++r) {
      displ_to[r] = displ_to[r - 1] + bytes_to[r - 1];
      key_at[r] = key_at[r - 1] + keys_to_[r - 1];
    }
    std::vector<std::byte> out(static_cast<std::size_t>(displ_to[p() - 1] + bytes_to[p() - 1]));
    std::vector<int> at = displ_to;
    order_.resize(keys.size());
    for (std::size_t i = 0; i < keys.size(); ++i) {
      const auto r = static_cast<std::size_t>(owner[i]);
      std::byte* end = KeyCodec<Key>::write(keys[i], out.data() + at[r]);
      if (extra != 0) std::memcpy(end, values + i, extra);
      at[r] = static_cast<int>(end - out.data()) + static_cast<int>(extra);
      order_[static_cast<std::size_t>(key_at[r]++)] = i;
    }
    check_mpi(MPI_Alltoall(bytes_to.data(), 1, MPI_INT, bytes_from.data(), 1, MPI_INT, comm_), "MPI_Alltoall");
    for (std::size_t r = 1; r < p(); ++r) displ_from[r] = displ_from[r - 1] + bytes_from[r - 1];
    std::vector<std::byte> in(static_cast<std::size_t>(displ_from[p() - 1] + bytes_from[p() - 1]));
    check_mpi(MPI_Alltoallv(out.data(), bytes_to.data(), displ_to.data(), MPI_BYTE, in.data(), bytes_from.data(),
                            displ_from.data(), MPI_BYTE, comm_),
              "MPI_Alltoallv");
    arrived_.clear();
    arrived_values_.clear();
    keys_from_.assign(p(), 0);
    const std::byte* q = in.data();
    for (std::size_t r = 0; r < p(); ++r) {
      const std::byte* end = q + bytes_from[r];
      while (q != end) {
        Key k{};
        q = KeyCodec<Key>::read(q, k);
        if (extra != 0) {
          std::int64_t v = 0;
          std::memcpy(&v, q, extra);
          arrived_values_.push_back(v);
          q += extra;
        }
        arrived_.push_back(std::move(k));
        ++keys_from_[r];
      }
    }
  }

  MPI_Comm comm_;
  int size_ = 1, rank_ = 0;
  std::unordered_map<Key, std::int64_t> table_;
  std::vector<Key> arrived_;
  std::vector<std::int64_t> arrived_values_;
  std::vector<int> keys_from_, keys_to_;
  std::vector<std::size_t> order_;
};

}  // namespace tessera::bench
