# Test registration. Two kinds of test executables:
#  - unit tests of MPI-free layers: plain GoogleTest executables, one per layer folder, each test
#    case registered with ctest through gtest_discover_tests;
#  - MPI tests: GoogleTest executables with tessera's MPI-aware main, registered once per rank
#    count as <name>.np<K> and run through mpiexec.
include(GoogleTest)

# Environment every mpiexec run gets. OpenMPI refuses root without the first two, and the runs of
# more ranks than cores need oversubscription and ranks that yield when idle. MPICH's launcher
# allows both; its ranks are made to yield by a preloaded shim (tests/support/mpich_yield_when_idle.c
# says why and what it measured). The OpenMPI variables are harmless under MPICH and stay, so that a
# test's environment reads the same whichever MPI runs it.
set(TESSERA_MPI_TEST_ENVIRONMENT
    OMPI_ALLOW_RUN_AS_ROOT=1
    OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
    OMPI_MCA_rmaps_base_oversubscribe=1
    OMPI_MCA_mpi_yield_when_idle=1
    OMPI_MCA_btl_vader_single_copy_mechanism=none)
if(TESSERA_MPI_FLAVOUR STREQUAL "mpich")
  add_library(tessera_mpich_yield_when_idle SHARED ${PROJECT_SOURCE_DIR}/tests/support/mpich_yield_when_idle.c)
  target_link_libraries(tessera_mpich_yield_when_idle PRIVATE ${CMAKE_DL_LIBS})
  # Never instrumented: the shim is preloaded into every process of a test, and the install tests
  # run compilers and CMake, which carry no sanitizer runtime (an ASan shim crashed them at start).
  target_compile_options(tessera_mpich_yield_when_idle PRIVATE -fno-sanitize=all)
  target_link_options(tessera_mpich_yield_when_idle PRIVATE -fno-sanitize=all)
  set_target_properties(tessera_mpich_yield_when_idle PROPERTIES
    LIBRARY_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/tests/support
    OUTPUT_NAME tessera_mpich_yield_when_idle)
  # MPIR_CVAR_CH4_GLOBAL_PROGRESS=1: with it the shim's yields also cover the non-blocking and
  # communicator-making calls (200 MPI_Comm_dup on 4 ranks: 0.84 s without, 0.03 s with).
  list(APPEND TESSERA_MPI_TEST_ENVIRONMENT
       MPIR_CVAR_CH4_GLOBAL_PROGRESS=1
       LD_PRELOAD=${PROJECT_BINARY_DIR}/tests/support/libtessera_mpich_yield_when_idle.so)
  # A sanitizer build wants its runtime first among the preloaded libraries; the shim has none.
  if(CMAKE_CXX_FLAGS MATCHES "-fsanitize=address")
    list(APPEND TESSERA_MPI_TEST_ENVIRONMENT ASAN_OPTIONS=verify_asan_link_order=0:detect_leaks=0:abort_on_error=1)
  endif()
endif()
set(TESSERA_MPI_TEST_RANKS 1 2 3 4 5 CACHE STRING "Rank counts every MPI test runs with")
set(TESSERA_MPI_TEST_TIMEOUT 300 CACHE STRING "Seconds before a hung MPI test is killed and failed")

# tessera_unity_test_build(<target>): a test executable's files compiled TESSERA_TEST_UNITY_BATCH at
# a time as one translation unit (CMake's unity build). The test files of one folder instantiate the
# same templates (arrays, movers, plans); compiled together they are instantiated and optimised
# once: three exchange test files take 55 s of CPU one by one and 30 s as one unit (-O3). CI's two
# builds are mostly test files, and CI has 90 minutes. A file whose file-local helpers share a name
# with another file's is kept apart with SKIP_UNITY_BUILD_INCLUSION (tests/CMakeLists.txt); a new test
# file that clashes fails to compile naming both definitions: rename its helper or keep it apart.
# TESSERA_TEST_UNITY_BATCH=0 turns it off (each file its own unit, as before).
set(TESSERA_TEST_UNITY_BATCH 6 CACHE STRING "Test files compiled together as one unit (0: no unity build)")
# TESSERA_TEST_COMPILE_OPTIONS: extra compile options of the unit and MPI test executables, after the
# build type's (the release preset: -O1). The tests check results, not speed, and their files are
# most of a build: an array test unit took 52 s of CPU at -O3 and 32 s at -O1 here. The library's
# own files, the examples (smoke-tested at -O3 by `make test`), the tool, the Python module and the
# benchmarks keep the build type's optimisation.
set(TESSERA_TEST_COMPILE_OPTIONS "" CACHE STRING "Extra compile options of the test executables (the release preset: -O1)")
function(tessera_unity_test_build target)
  if(TESSERA_TEST_UNITY_BATCH GREATER 0)
    set_target_properties(${target} PROPERTIES UNITY_BUILD ON UNITY_BUILD_MODE BATCH
                                               UNITY_BUILD_BATCH_SIZE ${TESSERA_TEST_UNITY_BATCH})
  endif()
  if(TESSERA_TEST_COMPILE_OPTIONS)
    target_compile_options(${target} PRIVATE ${TESSERA_TEST_COMPILE_OPTIONS})
  endif()
endfunction()

# tessera_add_unit_tests(<layer>): every tests/unit/<layer>/*_test.cpp into one executable.
function(tessera_add_unit_tests layer)
  file(GLOB sources CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/unit/${layer}/*_test.cpp)
  if(NOT sources)
    return()  # a layer whose tests are not written yet
  endif()
  set(target tessera_unit_${layer})
  add_executable(${target} ${sources})
  tessera_unity_test_build(${target})
  target_link_libraries(${target} PRIVATE tessera tessera_test_support GTest::gtest_main tessera_warnings)
  gtest_discover_tests(${target} TEST_PREFIX "unit.${layer}." DISCOVERY_TIMEOUT 120 PROPERTIES TIMEOUT 300)
endfunction()

# tessera_add_mpi_test(<name> SOURCES ... [RANKS k ...]): one executable, one ctest per rank count.
function(tessera_add_mpi_test name)
  cmake_parse_arguments(ARG "" "" "SOURCES;RANKS;LIBRARIES" ${ARGN})
  if(NOT ARG_RANKS)
    set(ARG_RANKS ${TESSERA_MPI_TEST_RANKS})
  endif()
  set(target tessera_mpi_${name})
  add_executable(${target} ${ARG_SOURCES})
  tessera_unity_test_build(${target})
  target_link_libraries(${target} PRIVATE tessera tessera_test_support tessera_mpi_gtest_main tessera_warnings ${ARG_LIBRARIES})
  foreach(ranks IN LISTS ARG_RANKS)
    add_test(NAME mpi.${name}.np${ranks}
             COMMAND ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} ${ranks} ${MPIEXEC_PREFLAGS}
                     $<TARGET_FILE:${target}> ${MPIEXEC_POSTFLAGS})
    set_tests_properties(mpi.${name}.np${ranks} PROPERTIES
      PROCESSORS ${ranks} TIMEOUT ${TESSERA_MPI_TEST_TIMEOUT}
      ENVIRONMENT "${TESSERA_MPI_TEST_ENVIRONMENT}")
  endforeach()
endfunction()

# tessera_add_mpi_tests(<layer>): every tests/mpi/<layer>/*_test.cpp into one MPI test executable.
function(tessera_add_mpi_tests layer)
  file(GLOB sources CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/mpi/${layer}/*_test.cpp)
  if(NOT sources)
    return()
  endif()
  tessera_add_mpi_test(${layer} SOURCES ${sources} ${ARGN})
endfunction()
