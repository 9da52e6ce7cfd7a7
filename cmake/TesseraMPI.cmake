# Which MPI tessera is built with: OpenMPI or MPICH, chosen with one cache variable.
#
#   TESSERA_MPI = openmpi | mpich | auto (default: auto, the system's default MPI, `mpicc`)
#
# Debian installs both side by side (mpicc.openmpi / mpicc.mpich, /usr/include/hdf5/openmpi and
# .../mpich); the plain names follow the alternatives system. Picking by name here makes the MPI
# compilers, mpiexec and the HDF5 build agree, so that a build never mixes the two (a configure with
# MPICH's compilers alone used to find OpenMPI's HDF5). Sets:
#   TESSERA_MPI_FLAVOUR  "openmpi" or "mpich": the MPI actually found (from its version string);
#                        Debian's MPI-specific packages are named after it (libhdf5-<flavour>-dev,
#                        libscalapack-<flavour>.so, pkg-config ompi-c / mpich).
#   TESSERA_MPI_VERSION_STRING  MPI_Get_library_version's first line, recorded in the installed
#                        package files so that a consumer with the other MPI gets a clear error.
set(TESSERA_MPI "auto" CACHE STRING "MPI to build with: openmpi, mpich or auto (the system default)")
set_property(CACHE TESSERA_MPI PROPERTY STRINGS auto openmpi mpich)
if(NOT TESSERA_MPI MATCHES "^(auto|openmpi|mpich)$")
  message(FATAL_ERROR "TESSERA_MPI is '${TESSERA_MPI}'; it must be openmpi, mpich or auto")
endif()

if(NOT TESSERA_MPI STREQUAL "auto")
  # Debian's names for each MPI's wrappers and launcher.
  foreach(tool IN ITEMS mpicc mpicxx mpiexec)
    find_program(TESSERA_${tool}_${TESSERA_MPI} NAMES ${tool}.${TESSERA_MPI})
    if(NOT TESSERA_${tool}_${TESSERA_MPI})
      message(FATAL_ERROR "TESSERA_MPI=${TESSERA_MPI}: ${tool}.${TESSERA_MPI} not found "
                          "(Debian: scripts/install-deps.sh installs lib${TESSERA_MPI}-dev and its runtime)")
    endif()
  endforeach()
  set(MPI_C_COMPILER "${TESSERA_mpicc_${TESSERA_MPI}}" CACHE FILEPATH "MPI C compiler wrapper" FORCE)
  set(MPI_CXX_COMPILER "${TESSERA_mpicxx_${TESSERA_MPI}}" CACHE FILEPATH "MPI C++ compiler wrapper" FORCE)
  set(MPIEXEC_EXECUTABLE "${TESSERA_mpiexec_${TESSERA_MPI}}" CACHE FILEPATH "mpiexec of the chosen MPI" FORCE)
endif()

# tessera calls MPI's C interface from C++; the MPI-2 C++ bindings are deprecated and skipped.
set(MPI_CXX_SKIP_MPICXX ON)
set(MPI_DETERMINE_LIBRARY_VERSION TRUE)  # runs a probe: MPI_C_LIBRARY_VERSION_STRING names the MPI
find_package(MPI REQUIRED COMPONENTS C CXX)

# tessera_mpi_flavour_of(<text> <out>): "openmpi" or "mpich" from an MPI library's version text
# (MPI_Get_library_version), "" for another MPI. Also used by TesseraPython.cmake for mpi4py's MPI.
function(tessera_mpi_flavour_of text out)
  if(text MATCHES "Open MPI")
    set(${out} openmpi PARENT_SCOPE)
  elseif(text MATCHES "MPICH")
    set(${out} mpich PARENT_SCOPE)
  else()
    set(${out} "" PARENT_SCOPE)
  endif()
endfunction()

tessera_mpi_flavour_of("${MPI_C_LIBRARY_VERSION_STRING}" flavour)
if(NOT flavour)
  message(FATAL_ERROR "tessera knows OpenMPI and MPICH; found an MPI that says: ${MPI_C_LIBRARY_VERSION_STRING}")
endif()
if(NOT TESSERA_MPI STREQUAL "auto" AND NOT flavour STREQUAL TESSERA_MPI)
  message(FATAL_ERROR "TESSERA_MPI=${TESSERA_MPI}, but ${MPI_C_COMPILER} is ${flavour}")
endif()
set(TESSERA_MPI_FLAVOUR ${flavour} CACHE INTERNAL "the MPI tessera is built with: openmpi or mpich")
string(REGEX REPLACE "[\r\n].*" "" first_line "${MPI_C_LIBRARY_VERSION_STRING}")
string(STRIP "${first_line}" first_line)
set(TESSERA_MPI_VERSION_STRING "${first_line}" CACHE INTERNAL "first line of MPI_Get_library_version")
message(STATUS "tessera: MPI is ${TESSERA_MPI_FLAVOUR} (${TESSERA_MPI_VERSION_STRING}), launcher ${MPIEXEC_EXECUTABLE}")

# The parallel HDF5 built for this MPI: FindHDF5 asks h5pcc, so name the flavour's own wrapper.
find_program(TESSERA_H5PCC NAMES h5pcc.${TESSERA_MPI_FLAVOUR} NO_CACHE)
if(TESSERA_H5PCC AND NOT HDF5_C_COMPILER_EXECUTABLE)
  set(HDF5_C_COMPILER_EXECUTABLE "${TESSERA_H5PCC}" CACHE FILEPATH "h5pcc of the HDF5 built for ${TESSERA_MPI_FLAVOUR}")
endif()
