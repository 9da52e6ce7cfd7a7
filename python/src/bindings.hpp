#pragma once
// The binding functions, one per concern, that module.cpp calls in order (with bind_errors,
// errors.hpp, and bind_mpi_lifetime, communicator.hpp). Each lives in the file of its name.
#include <pybind11/pybind11.h>

namespace tessera_python {

void bind_distributions(pybind11::module_& m);   // distributions.cpp: DimSpec, Distribution, from_spec
void bind_domains(pybind11::module_& m);         // domains.cpp: Domain, redistribute, migrate, the enums
/// arrays_<dtype>.cpp: the DistArray classes of one element type (views, indices, movement,
/// reductions), N = 1..3.
void bind_arrays_float32(pybind11::module_& m);
void bind_arrays_float64(pybind11::module_& m);
void bind_arrays_int32(pybind11::module_& m);
void bind_arrays_int64(pybind11::module_& m);
void bind_arrays_complex128(pybind11::module_& m);
void bind_sparse(pybind11::module_& m);          // sparse.cpp: SparseDomain, SparseArray (float64, int64)
void bind_associative(pybind11::module_& m);     // associative.cpp: AssociativeDomain (int64 keys), its arrays
void bind_balance(pybind11::module_& m);         // balance.cpp: Balancer, its timer, policies
void bind_io(pybind11::module_& m);              // io.cpp: save, load
void bind_pictures(pybind11::module_& m);        // pictures.cpp: show, plan (SVG)
void bind_groups(pybind11::module_& m);          // groups.cpp: ProcessorGroups, copies between groups
/// multiblock_domains.cpp: MultiblockDomain, N = 1..3 (after bind_domains: CombineOp).
void bind_multiblock_domains(pybind11::module_& m);
/// multiblock_arrays.cpp: the MultiblockArray classes of every element type, N = 1..3, and their
/// copy_section overloads (after bind_arrays_*: the DistArray overloads of copy_section come first).
void bind_multiblock_arrays(pybind11::module_& m);
/// levels.cpp: the AMR levels: LevelTransfer (float32, float64, complex128), regrid_level,
/// tag_and_cluster, LevelHierarchy, check_proper_nesting, nesting_region, cluster_tags; N = 1..3
/// (after bind_arrays_* and bind_distributions: it takes their classes).
void bind_levels(pybind11::module_& m);

}  // namespace tessera_python
