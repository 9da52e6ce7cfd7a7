#pragma once
// mpi4py communicators as tessera communicators.
#include <memory>

#include <pybind11/pybind11.h>

#include "tessera/exchange/communicator.hpp"

namespace tessera_python {

/// The tessera Communicator (a duplicate, made on first use: collective over `comm`) of an mpi4py
/// communicator, or of MPI.COMM_WORLD when `comm` is None; the same object for every call with
/// the same communicator. Raises TypeError for anything else.
[[nodiscard]] std::shared_ptr<const tessera::Communicator> communicator_of(pybind11::handle comm);

/// `_initialize_mpi()` / `_finalize_mpi()`, for a program where mpi4py was told not to
/// initialise MPI (mpi4py.rc.initialize = False): tessera then initialises and finalises it.
void bind_mpi_lifetime(pybind11::module_& m);

}  // namespace tessera_python
