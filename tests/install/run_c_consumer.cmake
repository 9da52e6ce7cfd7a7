# A C program against the installed tessera (fixture install.prefix), two ways:
# 1. a C-only CMake project (project(x LANGUAGES C) + find_package(Tessera)), run on 1 and 3 ranks;
# 2. the C compiler with pkg-config's tessera-c flags and -Werror (tessera.pc's -std=c++20 would
#    fail it), run on 2 ranks.
include(${CMAKE_CURRENT_LIST_DIR}/common.cmake)
file(REMOVE_RECURSE ${WORK_DIR})
set(expect "c consumer: @RANKS@ ranks, sum 4356, ok")
# The consumer is compiled like the library (a sanitizer build needs the sanitizer runtime to link),
# with the MPI tessera was built with.
run(${CMAKE_COMMAND} -S ${CMAKE_CURRENT_LIST_DIR}/c_consumer -B ${WORK_DIR}/cmake -DCMAKE_PREFIX_PATH=${PREFIX}
    -DCMAKE_C_COMPILER=${C_COMPILER} -DMPI_C_COMPILER=${MPI_C_COMPILER}
    "-DCMAKE_C_FLAGS=${CONSUMER_C_FLAGS}" "-DCMAKE_EXE_LINKER_FLAGS=${CONSUMER_LINKER_FLAGS}")
run(${CMAKE_COMMAND} --build ${WORK_DIR}/cmake)
run_ranks(${WORK_DIR}/cmake/c_consumer "${expect}" 1 3)

find_program(PKG_CONFIG pkg-config REQUIRED)
set(ENV{PKG_CONFIG_PATH} "${PREFIX}/lib/pkgconfig")
run(${PKG_CONFIG} --cflags tessera-c)
separate_arguments(cflags UNIX_COMMAND "${last_output}")
run(${PKG_CONFIG} --libs tessera-c)
separate_arguments(libs UNIX_COMMAND "${last_output}")
separate_arguments(extra_cflags UNIX_COMMAND "${CONSUMER_C_FLAGS}")
separate_arguments(extra_ldflags UNIX_COMMAND "${CONSUMER_LINKER_FLAGS}")
run(${C_COMPILER} -std=c11 -Wall -Wextra -pedantic -Werror ${extra_cflags} ${cflags}
    ${CMAKE_CURRENT_LIST_DIR}/c_consumer/main.c ${extra_ldflags} ${libs} -o ${WORK_DIR}/pkg_config_consumer)
run_ranks(${WORK_DIR}/pkg_config_consumer "${expect}" 2)
message("C consumers (CMake, pkg-config) built and ran against the installed package")
