// Must not compile: a key type with no tessera::StableHash specialisation. The test
// assoc.no_stable_hash_does_not_compile builds this file and expects the static_assert of
// array/associative_domain.hpp naming the customisation point.
#include "tessera/array/associative_domain.hpp"

namespace {
struct Unhashed {
  int id = 0;
  friend bool operator==(const Unhashed&, const Unhashed&) = default;
};
}  // namespace

void declare_a_domain_of_unhashed_keys(const tessera::Communicator& comm) {
  tessera::AssociativeDomain<Unhashed> dom(comm);
  (void)dom;
}
