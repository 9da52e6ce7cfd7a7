#pragma once
/// \file
/// The geometry layer: points, boxes and the region calculus. Pure: no MPI.
#include "tessera/geometry/box.hpp"
#include "tessera/geometry/box_difference.hpp"
#include "tessera/geometry/box_index.hpp"
#include "tessera/geometry/box_iteration.hpp"
#include "tessera/geometry/box_list.hpp"
#include "tessera/geometry/orientation.hpp"
#include "tessera/geometry/periodic.hpp"
#include "tessera/geometry/point.hpp"
#include "tessera/geometry/section.hpp"
