# Installs the freshly built tessera into a scratch prefix, then configures, builds and runs an
# out-of-tree project that only does find_package(Tessera) and links Tessera::tessera; and checks
# that pkg-config describes the same installation.
file(REMOVE_RECURSE ${WORK_DIR})
function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "failed (${rc}): ${ARGN}\n${out}\n${err}")
  endif()
  set(last_output "${out}" PARENT_SCOPE)
endfunction()
run(${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${WORK_DIR}/prefix)
# The consumer is compiled like the library (a sanitizer build needs the sanitizer runtime to link),
# with the MPI tessera was built with (else its FindMPI finds the system's default MPI, and the
# package refuses it: an MPICH build on a machine whose mpicxx is Open MPI's).
run(${CMAKE_COMMAND} -S ${CONSUMER_SOURCE} -B ${WORK_DIR}/build -DCMAKE_PREFIX_PATH=${WORK_DIR}/prefix
    -DCMAKE_CXX_COMPILER=${CXX_COMPILER} -DMPI_CXX_COMPILER=${MPI_CXX_COMPILER}
    "-DCMAKE_CXX_FLAGS=${CONSUMER_CXX_FLAGS}" "-DCMAKE_EXE_LINKER_FLAGS=${CONSUMER_LINKER_FLAGS}")
run(${CMAKE_COMMAND} --build ${WORK_DIR}/build)
run(${MPIEXEC} -n 2 ${WORK_DIR}/build/consumer)
if(NOT last_output MATCHES "consumer: 2 ranks, sum 4356, ok")
  message(FATAL_ERROR "consumer printed something unexpected:\n${last_output}")
endif()
find_program(PKG_CONFIG pkg-config)
if(PKG_CONFIG)
  set(ENV{PKG_CONFIG_PATH} "${WORK_DIR}/prefix/lib/pkgconfig")
  run(${PKG_CONFIG} --cflags --libs tessera)
  if(NOT last_output MATCHES "-I${WORK_DIR}/prefix/lib/pkgconfig/../../include" OR NOT last_output MATCHES "-ltessera")
    message(FATAL_ERROR "pkg-config tessera gave: ${last_output}")
  endif()
endif()
message("consumer built and ran against the installed package")
