#include <tessera/exchange/communicator.hpp>
#include <tessera/geometry.hpp>

#include <cstdio>

int main(int argc, char** argv) {
  tessera::Environment env(argc, argv);
  const tessera::Box<2> cell({0, 0}, {4, 4});
  const auto halo = tessera::difference(tessera::grow(cell, 1), cell);
  tessera::index_t halo_volume = 0;
  for (const auto& piece : halo) halo_volume += tessera::volume(piece);
  if (env.world().rank() == 0)
    std::printf("consumer: %d ranks, halo volume %lld, %s\n", env.world().size(), static_cast<long long>(halo_volume),
                halo_volume == 36 - 16 ? "ok" : "WRONG");
  return halo_volume == 20 ? 0 : 1;
}
