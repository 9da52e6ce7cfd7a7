# The install.* tests beyond the C++ consumer (docs/c-api.md, docs/fortran.md): a C-only CMake
# project, pkg-config's tessera-c, a Fortran-only project, and a project built with another MPI's
# compilers, which must be refused. They share one installation, made by install.prefix.
set(tessera_install_prefix ${CMAKE_CURRENT_BINARY_DIR}/install-prefix)
add_test(NAME install.prefix
         COMMAND ${CMAKE_COMMAND} -DBUILD_DIR=${PROJECT_BINARY_DIR} -DPREFIX=${tessera_install_prefix}
                 -P ${CMAKE_CURRENT_SOURCE_DIR}/install/install_prefix.cmake)
set_tests_properties(install.prefix PROPERTIES FIXTURES_SETUP tessera_install TIMEOUT 120)

# The MPI compiler wrapper for C of the MPI tessera was built with, for the consumers' FindMPI.
tessera_default_mpi_wrapper(C mpicc)
find_package(MPI COMPONENTS C)
add_test(NAME install.c_only_consumer
         COMMAND ${CMAKE_COMMAND} -DPREFIX=${tessera_install_prefix} -DWORK_DIR=${CMAKE_CURRENT_BINARY_DIR}/install-c
                 -DMPIEXEC=${MPIEXEC_EXECUTABLE} -DC_COMPILER=${CMAKE_C_COMPILER} -DMPI_C_COMPILER=${MPI_C_COMPILER}
                 "-DCONSUMER_C_FLAGS=${CMAKE_C_FLAGS}" "-DCONSUMER_LINKER_FLAGS=${CMAKE_EXE_LINKER_FLAGS}"
                 -P ${CMAKE_CURRENT_SOURCE_DIR}/install/run_c_consumer.cmake)
set_tests_properties(install.c_only_consumer PROPERTIES FIXTURES_REQUIRED tessera_install
  PROCESSORS 3 TIMEOUT 300 ENVIRONMENT "${TESSERA_MPI_TEST_ENVIRONMENT}")

if(TESSERA_BUILD_FORTRAN)
  # Found here, not borrowed from examples/fortran: the tests are configured before the examples,
  # so on a first configure MPI_Fortran_COMPILER is not set yet, and the consumer's FindMPI then
  # falls back to pkg-config, which does not know where mpi_f08.mod lives (CI's fresh machine).
  tessera_default_mpi_wrapper(Fortran mpif90)
  find_package(MPI REQUIRED COMPONENTS Fortran)
  add_test(NAME install.fortran_consumer
           COMMAND ${CMAKE_COMMAND} -DPREFIX=${tessera_install_prefix} -DWORK_DIR=${CMAKE_CURRENT_BINARY_DIR}/install-fortran
                   -DMPIEXEC=${MPIEXEC_EXECUTABLE} -DHEAT_SOURCE=${PROJECT_SOURCE_DIR}/examples/fortran/heat.f90
                   -DFortran_COMPILER=${CMAKE_Fortran_COMPILER} -DMPI_Fortran_COMPILER=${MPI_Fortran_COMPILER}
                   "-DCONSUMER_LINKER_FLAGS=${CMAKE_EXE_LINKER_FLAGS}"
                   -P ${CMAKE_CURRENT_SOURCE_DIR}/install/run_fortran_consumer.cmake)
  set_tests_properties(install.fortran_consumer PROPERTIES FIXTURES_REQUIRED tessera_install
    PROCESSORS 2 TIMEOUT 300 ENVIRONMENT "${TESSERA_MPI_TEST_ENVIRONMENT}")
endif()

# The other MPI's compiler wrappers (Debian's names); the test exists where they are installed.
if(TESSERA_MPI_NAME MATCHES "^Open MPI")
  set(other_mpi MPICH)
  find_program(TESSERA_OTHER_MPI_CC mpicc.mpich)
  find_program(TESSERA_OTHER_MPI_CXX mpicxx.mpich)
elseif(TESSERA_MPI_NAME MATCHES "^MPICH")
  set(other_mpi "Open MPI")
  find_program(TESSERA_OTHER_MPI_CC mpicc.openmpi)
  find_program(TESSERA_OTHER_MPI_CXX mpicxx.openmpi)
endif()
if(TESSERA_OTHER_MPI_CC AND TESSERA_OTHER_MPI_CXX)
  add_test(NAME install.other_mpi_refused
           COMMAND ${CMAKE_COMMAND} -DPREFIX=${tessera_install_prefix} -DWORK_DIR=${CMAKE_CURRENT_BINARY_DIR}/install-other-mpi
                   -DOTHER_CC=${TESSERA_OTHER_MPI_CC} -DOTHER_CXX=${TESSERA_OTHER_MPI_CXX}
                   "-DBUILT_WITH=${TESSERA_MPI_NAME}" "-DOTHER_NAME=${other_mpi}"
                   -P ${CMAKE_CURRENT_SOURCE_DIR}/install/expect_other_mpi_refused.cmake)
  set_tests_properties(install.other_mpi_refused PROPERTIES FIXTURES_REQUIRED tessera_install TIMEOUT 120)
endif()
