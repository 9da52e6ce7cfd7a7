#pragma once
/// \file
/// Everything tessera offers, in one include: geometry, layouts, plans and schedules, the
/// communication engine, and the array layer (`Domain`, `DistArray`).
/// \code
///   #include <tessera/tessera.hpp>
///   tessera::Environment env(argc, argv);
///   tessera::Domain<2> dom(env.world(), dist);
///   tessera::DistArray<double, 2> u(dom, tessera::ghosts<2>(1));
/// \endcode

#include "tessera/geometry.hpp"
#include "tessera/layout/box_assignment.hpp"
#include "tessera/layout/box_set.hpp"
#include "tessera/layout/box_set_distribution.hpp"
#include "tessera/layout/dim_distribution.hpp"
#include "tessera/layout/dim_spec.hpp"
#include "tessera/layout/distribution.hpp"
#include "tessera/layout/grid_shape.hpp"
#include "tessera/layout/local_layout.hpp"
#include "tessera/layout/proc_grid.hpp"
#include "tessera/layout/lifted_distribution.hpp"
#include "tessera/layout/restrict.hpp"
#include "tessera/layout/user_distribution.hpp"
#include "tessera/plan/relabel.hpp"
#include "tessera/plan/schedule_builders.hpp"
#include "tessera/exchange/communicator.hpp"
#include "tessera/exchange/mover.hpp"
#include "tessera/exchange/processor_groups.hpp"
#include "tessera/array/domain.hpp"
#include "tessera/array/dist_array.hpp"
#include "tessera/array/remap.hpp"
#include "tessera/array/fused_ghosts.hpp"
#include "tessera/array/multiblock_array.hpp"
#include "tessera/array/region_statement.hpp"
#include "tessera/array/partial_reduce.hpp"
#include "tessera/array/flood.hpp"
#include "tessera/array/group_copy.hpp"
#include "tessera/array/scan.hpp"
#include "tessera/array/regrid.hpp"
#include "tessera/array/associative_array.hpp"
#include "tessera/array/sparse_array.hpp"
#include "tessera/scalapack/descriptor.hpp"
#include "tessera/balance/availability.hpp"
#include "tessera/balance/balancer.hpp"
#include "tessera/balance/box_balance.hpp"
#include "tessera/balance/box_balancer.hpp"
#include "tessera/balance/emulated_load.hpp"
#include "tessera/balance/incremental.hpp"
#include "tessera/balance/policy.hpp"
#include "tessera/balance/timing.hpp"
#include "tessera/balance/weights.hpp"
#include "tessera/io/checkpoint.hpp"
#include "tessera/io/checkpoint_series.hpp"
#include "tessera/spec/spec.hpp"
