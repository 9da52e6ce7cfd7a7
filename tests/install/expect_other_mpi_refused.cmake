# A project configured with the compilers of another MPI than the one tessera was built with
# (OTHER_CC, OTHER_CXX: MPICH's wrappers for an Open MPI build, and the reverse) must fail
# find_package(Tessera) at configure time with a message naming both MPIs, C-only and C++ alike.
include(${CMAKE_CURRENT_LIST_DIR}/common.cmake)
file(REMOVE_RECURSE ${WORK_DIR})
foreach(project c_consumer consumer)
  execute_process(COMMAND ${CMAKE_COMMAND} -S ${CMAKE_CURRENT_LIST_DIR}/${project} -B ${WORK_DIR}/${project}
                          -DCMAKE_PREFIX_PATH=${PREFIX} -DCMAKE_C_COMPILER=${OTHER_CC} -DCMAKE_CXX_COMPILER=${OTHER_CXX}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  string(REGEX REPLACE "[ \t\r\n]+" " " said "${err}")  # the message is wrapped
  if(rc EQUAL 0)
    message(FATAL_ERROR "${project} configured with ${OTHER_CC} against a tessera built with ${BUILT_WITH}:\n${out}")
  endif()
  if(NOT said MATCHES "built with ${BUILT_WITH} .*but this project found ${OTHER_NAME} [0-9]")
    message(FATAL_ERROR "${project}: configure failed, but not with the message naming both MPIs:\n${err}")
  endif()
endforeach()
message("projects built with ${OTHER_NAME}'s compilers are refused at configure time")
