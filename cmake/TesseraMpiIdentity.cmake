# Which MPI implementation a set of include folders belongs to, read from its mpi.h. Used when
# tessera is built (to record the MPI in TesseraConfig.cmake and tessera.pc) and by the installed
# TesseraConfig.cmake (to refuse a consumer that found another MPI: linking libtessera, built
# against one MPI's ABI, into a program of another MPI links both libraries and fails at run time).
#
# tessera_mpi_identity(<out-name> <out-header> DIRS <dir>...)
#   <out-name>   "Open MPI 4.1.4", "MPICH 4.0.2" (also an MPICH-derived MPI whose mpi.h keeps
#                MPICH_VERSION), or "" when no mpi.h in <dir>... names one of them.
#   <out-header> the mpi.h read ("" if none).
# The first folder holding an mpi.h wins: pass FindMPI's MPI_<lang>_INCLUDE_DIRS first, then the
# compiler's implicit include folders (an MPI compiler wrapper used as the compiler finds mpi.h
# through those only).
function(tessera_mpi_identity out_name out_header)
  cmake_parse_arguments(PARSE_ARGV 2 arg "" "" "DIRS")
  set(${out_name} "" PARENT_SCOPE)
  set(${out_header} "" PARENT_SCOPE)
  foreach(dir IN LISTS arg_DIRS)
    if(NOT EXISTS "${dir}/mpi.h")
      continue()
    endif()
    file(STRINGS "${dir}/mpi.h" defines REGEX "^#define[ \t]+(OMPI_(MAJOR|MINOR|RELEASE)_VERSION|MPICH_VERSION)[ \t]")
    set(name "")
    if(defines MATCHES "OMPI_MAJOR_VERSION[ \t]+([0-9]+)")
      set(name "Open MPI ${CMAKE_MATCH_1}")
      if(defines MATCHES "OMPI_MINOR_VERSION[ \t]+([0-9]+)")
        string(APPEND name ".${CMAKE_MATCH_1}")
      endif()
      if(defines MATCHES "OMPI_RELEASE_VERSION[ \t]+([0-9]+)")
        string(APPEND name ".${CMAKE_MATCH_1}")
      endif()
    elseif(defines MATCHES "MPICH_VERSION[ \t]+\"([^\"]*)\"")
      set(name "MPICH ${CMAKE_MATCH_1}")
    endif()
    if(name)
      file(REAL_PATH "${dir}/mpi.h" header)
      set(${out_name} "${name}" PARENT_SCOPE)
      set(${out_header} "${header}" PARENT_SCOPE)
      return()
    endif()
  endforeach()
endfunction()

# tessera_default_mpi_wrapper(<lang> <wrapper>): unless MPI_<lang>_COMPILER is set, points FindMPI
# for <lang> at the compiler wrapper of the MPI tessera is built with (TESSERA_MPI_NAME): Debian
# names them mpicc.openmpi, mpif90.mpich, ..., and the plain mpicc is whichever MPI is the system's
# default, which need not be tessera's.
function(tessera_default_mpi_wrapper lang wrapper)
  if(DEFINED MPI_${lang}_COMPILER OR NOT TESSERA_MPI_NAME)
    return()
  endif()
  if(TESSERA_MPI_NAME MATCHES "^MPICH")
    find_program(MPI_${lang}_COMPILER NAMES ${wrapper}.mpich ${wrapper})
  else()
    find_program(MPI_${lang}_COMPILER NAMES ${wrapper}.openmpi ${wrapper})
  endif()
endfunction()

# tessera_record_build_mpi(): after find_package(MPI COMPONENTS CXX) in tessera's own build, sets
# TESSERA_MPI_NAME and TESSERA_MPI_HEADER (recorded in TesseraConfig.cmake and the .pc files), and
# checks them against TESSERA_MPI_FLAVOUR (openmpi or mpich) where that is set.
macro(tessera_record_build_mpi)
  tessera_mpi_identity(TESSERA_MPI_NAME TESSERA_MPI_HEADER
                       DIRS ${MPI_CXX_INCLUDE_DIRS} ${CMAKE_CXX_IMPLICIT_INCLUDE_DIRECTORIES})
  if(TESSERA_MPI_NAME)
    message(STATUS "tessera: MPI is ${TESSERA_MPI_NAME} (${TESSERA_MPI_HEADER})")
  else()
    # Another MPI family: it builds, but the package cannot name it nor refuse a consumer of another MPI.
    message(WARNING "tessera: found no mpi.h of Open MPI or MPICH (or one derived from them) in "
                    "${MPI_CXX_INCLUDE_DIRS} ${CMAKE_CXX_IMPLICIT_INCLUDE_DIRECTORIES}; the installed package "
                    "will not check that its users link the same MPI")
  endif()
  if(DEFINED TESSERA_MPI_FLAVOUR)
    if((TESSERA_MPI_FLAVOUR STREQUAL "openmpi" AND NOT TESSERA_MPI_NAME MATCHES "^Open MPI") OR
       (TESSERA_MPI_FLAVOUR STREQUAL "mpich" AND NOT TESSERA_MPI_NAME MATCHES "^MPICH"))
      message(FATAL_ERROR "TESSERA_MPI_FLAVOUR is ${TESSERA_MPI_FLAVOUR}, but FindMPI found ${TESSERA_MPI_NAME} "
                          "(${TESSERA_MPI_HEADER}); point MPI_CXX_COMPILER at that MPI's mpicxx")
    endif()
  endif()
endmacro()
