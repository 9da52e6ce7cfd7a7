// tessera_domain_*: a box bound to a distribution over a communicator (tessera::Domain).
#include "convert.hpp"

using namespace tessera;
using namespace tessera::capi;

extern "C" {

tessera_status tessera_domain_create(tessera_comm comm, tessera_dist dist, tessera_domain* out) {
  return guarded("tessera_domain_create", [&] {
    prepare_out(out);
    auto c = get<CommObject>(comm, "comm");
    const auto d = get<DistObject>(dist, "dist");
    std::visit(
        [&](const auto& x) {
          constexpr std::size_t N = dims_v<decltype(x)>;
          auto object = std::make_shared<DomainObject>(DomainObject{c, Domain<N>(c->comm, x)});
          issue(std::move(object), out);
        },
        d->dist);
  });
}

tessera_status tessera_domain_ndim(tessera_domain domain, int* ndim) {
  return guarded("tessera_domain_ndim", [&] {
    const auto d = get<DomainObject>(domain, "domain");
    require_pointer("ndim", ndim);
    *ndim = ndim_of(d->domain);
  });
}

tessera_status tessera_domain_box(tessera_domain domain, tessera_box* box) {
  return guarded("tessera_domain_box", [&] {
    const auto d = get<DomainObject>(domain, "domain");
    require_pointer("box", box);
    std::visit([&](const auto& x) { *box = from_box(x.box()); }, d->domain);
  });
}

tessera_status tessera_domain_distribution(tessera_domain domain, tessera_dist* out) {
  return guarded("tessera_domain_distribution", [&] {
    prepare_out(out);
    const auto d = get<DomainObject>(domain, "domain");
    std::visit([&](const auto& x) { issue(std::make_shared<DistObject>(DistObject{x.distribution()}), out); },
               d->domain);
  });
}

tessera_status tessera_domain_redistribute(tessera_domain domain, tessera_dist to, tessera_redistribution mode) {
  return guarded("tessera_domain_redistribute", [&] {
    const auto d = get<DomainObject>(domain, "domain");
    const auto t = get<DistObject>(to, "to");
    const Redistribution m = to_mode(mode);
    std::visit(
        [&](auto& x) {
          constexpr std::size_t N = dims_v<decltype(x)>;
          x.redistribute(as_dim<N>(t->dist, "to", "domain"), m);
        },
        d->domain);
  });
}

tessera_status tessera_domain_migrate(tessera_domain domain, tessera_dist to, double* seconds) {
  return guarded("tessera_domain_migrate", [&] {
    const auto d = get<DomainObject>(domain, "domain");
    const auto t = get<DistObject>(to, "to");
    std::visit(
        [&](auto& x) {
          constexpr std::size_t N = dims_v<decltype(x)>;
          const double s = x.migrate(as_dim<N>(t->dist, "to", "domain"));
          if (seconds) *seconds = s;
        },
        d->domain);
  });
}

tessera_status tessera_domain_set_spare_rows(tessera_domain domain, double fraction_of_even_share) {
  return guarded("tessera_domain_set_spare_rows", [&] {
    const auto d = get<DomainObject>(domain, "domain");
    std::visit([&](auto& x) { x.set_spare_rows(fraction_of_even_share); }, d->domain);
  });
}

tessera_status tessera_domain_free(tessera_domain* domain) {
  return guarded("tessera_domain_free", [&] { release<DomainObject>(domain, "domain"); });
}

}  // extern "C"
