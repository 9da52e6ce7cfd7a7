#include "tessera/plan/staged_halo_plan.hpp"

namespace tessera {

// Where the staged halo is used (plan/staged_halo_plan.hpp). Its messages wait for the local wraps
// instead of overlapping them, and in exchange carry edges and corners inside whole slabs: no pack,
// no unpack, one copy by MPI. Measured with bench_halo on 2 ranks, periodic, corners, A/B of the
// same build with and without staging (single launches, bench/halo-moving-experiment.txt):
// - 3-D 27-point: staged 0.46-0.62 of the hand-written exchange from 64^3 up (general 0.66-1.01),
//   and at 32^3 width 2 (slabs of 2592 elements: 0.73 against 0.85-0.91); general faster where a
//   peer's whole message fits the eager pieces (channel.cpp): 32^3 width 1 (1156-element slabs,
//   0.39-0.41 against 0.73) and 16^3 width 2 (800 elements, 0.45-0.48 against 0.87-0.89);
// - 2-D 9-point, on the AMD EPYC machine of those runs: general as fast or faster from 256^2 to
//   8192^2, widths 1 and 2 (its faces and corners go as one datatype while the wraps overlap the
//   message; staged 0.66-0.90 against 0.32-0.80). On the Intel Xeon that replaced it (session 48,
//   two A/B pairs of single launches, 1024^2 to 8192^2): staged faster in every case, most where
//   warm (4096^2 width 2: 0.95-0.97 of the hand-written exchange against 1.30-1.36; 8192^2 width
//   2: 1.08-1.23 against 1.34-1.41; cold 0.86-0.99 against 0.84-1.10): there OpenMPI's single copy
//   (CMA) moves the staged slabs, contiguous messages, and not the general plan's datatype. So
//   2-D is staged too, from the same slab size.
// One dimension has no other axis to wrap: nothing to gain.
bool staged_halo_pays(std::size_t dims, index_t slab_elements) noexcept { return dims >= 2 && slab_elements >= 2048; }

}  // namespace tessera
