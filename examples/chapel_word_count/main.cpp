// Chapel's associative domains (section 3.1, "irregular domains indexed by objects"): a word count
// over a text split by rank, counted into an associative array keyed by strings, checked against a
// serial count of the whole text, then redistributed to another map and checked again. See
// README.md here.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "tessera/tessera.hpp"

namespace {

using Count = std::int64_t;

/// Word `i` of the text: drawn from a vocabulary of `vocabulary` words with a skewed (Zipf-like)
/// frequency, from a stable hash of i, so every rank can spell any part of the text.
std::string word_at(std::uint64_t i, std::uint64_t vocabulary) {
  const double u = static_cast<double>(tessera::hash_combine(2026, i) >> 11) * 0x1.0p-53;
  std::uint64_t id = static_cast<std::uint64_t>(static_cast<double>(vocabulary) * u * u * u);
  static constexpr const char* syllables[] = {"ka", "lo", "mi", "ne", "ru", "sa", "te", "vo"};
  std::string w;
  do {
    w += syllables[id % 8];
    id /= 8;
  } while (id != 0);
  return w;
}

/// Rank `rank`'s share of a text of `words` words: [words * rank / P, words * (rank + 1) / P).
std::pair<std::uint64_t, std::uint64_t> share(std::uint64_t words, int rank, int ranks) {
  return {words * static_cast<std::uint64_t>(rank) / static_cast<std::uint64_t>(ranks),
          words * static_cast<std::uint64_t>(rank + 1) / static_cast<std::uint64_t>(ranks)};
}

}  // namespace

int main(int argc, char** argv) {
  tessera::Environment env(argc, argv);
  const tessera::Communicator& world = env.world();
  CLI::App app{"Chapel's associative domains: a distributed word count against a serial count"};
  std::uint64_t words = 200000, vocabulary = 5000, batch = 4096;
  app.add_option("--words", words, "words in the text")->check(CLI::Range(std::uint64_t{1}, std::uint64_t{1} << 30));
  app.add_option("--vocabulary", vocabulary, "distinct words the text draws from")
      ->check(CLI::Range(std::uint64_t{1}, std::uint64_t{1} << 24));
  app.add_option("--batch", batch, "words each rank sends per collective update")
      ->check(CLI::Range(std::uint64_t{1}, std::uint64_t{1} << 24));
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return world.rank() == 0 ? app.exit(e) : (e.get_exit_code() != 0);
  }
  const int rank = world.rank(), ranks = world.size();

  // var Words: domain(string); var Count: [Words] int;   (distributed by the stable string hash)
  tessera::AssociativeDomain<std::string> dict(world);
  tessera::AssociativeArray<std::string, Count> count(dict);

  // Each rank reads its share of the text in batches: for w in batch { Words += w; Count[w] += 1; }
  // Every rank makes the same number of collective calls (the largest share's batch count).
  const auto [first, last] = share(words, rank, ranks);
  const std::uint64_t most = (words + static_cast<std::uint64_t>(ranks) - 1) / static_cast<std::uint64_t>(ranks);
  const std::uint64_t rounds = (most + batch - 1) / batch;
  std::vector<std::string> chunk;
  for (std::uint64_t r = 0; r < rounds; ++r) {
    chunk.clear();
    for (std::uint64_t i = first + r * batch; i < std::min(last, first + (r + 1) * batch); ++i)
      chunk.push_back(word_at(i, vocabulary));
    count.update(chunk, std::vector<Count>(chunk.size(), 1), std::plus<>{}, tessera::MissingKeys::insert);
  }

  // The serial count of the whole text, on every rank (the reference).
  std::map<std::string, Count> serial;
  for (std::uint64_t i = 0; i < words; ++i) ++serial[word_at(i, vocabulary)];
  Count most_frequent = 0;
  for (const auto& [w, n] : serial) most_frequent = std::max(most_frequent, n);

  // Checks that need every rank: totals, the largest count, and lookups of words that are in the
  // text and one that is not, in the order asked.
  long long failures = 0;
  const auto check_everywhere = [&](const char* when) {
    const Count total = count.reduce(tessera::WrappingPlus{}, Count{0});
    const Count largest = count.reduce([](Count a, Count b) { return std::max(a, b); }, Count{0});
    std::vector<std::string> asked{word_at(static_cast<std::uint64_t>(rank), vocabulary), "zzz-not-a-word",
                                   word_at(words - 1, vocabulary)};
    const std::vector<Count> got = count.lookup(asked, Count{0});
    long long bad = (total != static_cast<Count>(words)) + (largest != most_frequent) +
                    (dict.size() != static_cast<tessera::index_t>(serial.size()));
    for (std::size_t k = 0; k < asked.size(); ++k) bad += got[k] != (serial.contains(asked[k]) ? serial[asked[k]] : 0);
    const auto gathered = count.gather_sorted(0);
    if (rank == 0) bad += gathered != std::vector<std::pair<std::string, Count>>(serial.begin(), serial.end());
    bad = world.allreduce(bad, tessera::ReduceOp::sum);
    if (rank == 0 && bad != 0) std::printf("MISMATCH %s: %lld checks failed\n", when, bad);
    failures += bad;
  };
  check_everywhere("after counting");

  // Redistribute to another map (a reseeded hash): keys and counts move, the answers stay.
  dict.redistribute(tessera::KeyMap<std::string>::hashed(7));
  check_everywhere("after redistribution");

  if (rank == 0) {
    std::vector<std::pair<Count, std::string>> top;
    for (const auto& [w, n] : serial) top.emplace_back(-n, w);
    std::partial_sort(top.begin(), top.begin() + std::min<std::ptrdiff_t>(5, std::ssize(top)), top.end());
    std::printf("%llu words, %zu distinct, %d ranks, batches of %llu; most frequent:",
                static_cast<unsigned long long>(words), serial.size(), ranks, static_cast<unsigned long long>(batch));
    for (std::size_t k = 0; k < std::min<std::size_t>(5, top.size()); ++k)
      std::printf(" %s %lld", top[k].second.c_str(), static_cast<long long>(-top[k].first));
    std::printf("\n");
    if (failures == 0) std::printf("Chapel associative domain: the distributed word count matches the serial count\n");
  }
  return failures == 0 ? 0 : 1;
}
