# A Fortran-only CMake project (find_package(Tessera COMPONENTS fortran)) builds the Fortran example
# against the installed tessera (fixture install.prefix) and runs it on 2 ranks.
include(${CMAKE_CURRENT_LIST_DIR}/common.cmake)
file(REMOVE_RECURSE ${WORK_DIR})
run(${CMAKE_COMMAND} -S ${CMAKE_CURRENT_LIST_DIR}/fortran_consumer -B ${WORK_DIR} -DCMAKE_PREFIX_PATH=${PREFIX}
    -DHEAT_SOURCE=${HEAT_SOURCE} -DCMAKE_Fortran_COMPILER=${Fortran_COMPILER} -DMPI_Fortran_COMPILER=${MPI_Fortran_COMPILER}
    "-DCMAKE_EXE_LINKER_FLAGS=${CONSUMER_LINKER_FLAGS}")
run(${CMAKE_COMMAND} --build ${WORK_DIR})
run_ranks(${WORK_DIR}/heat "fortran heat: @RANKS@ ranks, matches the serial reference bit for bit" 2)
message("the Fortran consumer built and ran against the installed package")
