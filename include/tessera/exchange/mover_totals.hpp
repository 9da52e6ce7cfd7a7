#pragma once
/// \file
/// `process_mover_stats()`: the counters (`MoverStats`) of every mover of the process together,
/// for a program that wants to know what an array operation moved (its movers are the array
/// layer's, out of the program's reach). Kept apart from mover.hpp, which nearly every file includes.

#include "tessera/exchange/mover.hpp"

namespace tessera {

/// The counters of every `Mover` and `FusedMover` of this process together, since it started.
/// The array layer's movements (ghost updates, copies, section moves, index remaps,
/// redistributions) run movers that a program never sees; to learn what one of them moved, read
/// this before and after it and subtract (and sum over the ranks for the whole job's traffic).
/// \code
///   const tessera::MoverStats before = tessera::process_mover_stats();
///   dom.redistribute(columns, tessera::Redistribution::preserve);
///   const auto sent = tessera::process_mover_stats().bytes_sent - before.bytes_sent;  // this rank's
/// \endcode
[[nodiscard]] MoverStats process_mover_stats() noexcept;

}  // namespace tessera
