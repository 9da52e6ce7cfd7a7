# Runs the C++ adaptive SOR demo on 2 ranks and its Python version on 3, at a small size with a
# load and two policies, and requires both to succeed (each checks its balanced runs against its
# unloaded run) and their unloaded solutions to be the same bytes.
file(REMOVE_RECURSE ${WORK_DIR})
file(MAKE_DIRECTORY ${WORK_DIR})
set(args --n 48 --iterations 30 --interval 5 --work-per-row-us 0 --load 1:3@5-25 --policies none full)
execute_process(COMMAND ${MPIEXEC} ${NPFLAG} 2 ${CPP_DEMO} ${args} --out none --solution-out ${WORK_DIR}/cpp.bin
                RESULT_VARIABLE cpp_status OUTPUT_VARIABLE cpp_out ERROR_VARIABLE cpp_err)
message("C++ demo:\n${cpp_out}${cpp_err}")
if(NOT cpp_status EQUAL 0)
  message(FATAL_ERROR "the C++ demo failed (${cpp_status})")
endif()
execute_process(COMMAND ${MPIEXEC} ${NPFLAG} 3 ${PYTHON} ${PY_DEMO} ${args} --solution-out ${WORK_DIR}/python.bin
                RESULT_VARIABLE py_status OUTPUT_VARIABLE py_out ERROR_VARIABLE py_err)
message("Python version:\n${py_out}${py_err}")
if(NOT py_status EQUAL 0)
  message(FATAL_ERROR "the Python version failed (${py_status})")
endif()
file(SIZE ${WORK_DIR}/cpp.bin cpp_size)
if(NOT cpp_size EQUAL 18432)  # 48 x 48 doubles
  message(FATAL_ERROR "the C++ solution has ${cpp_size} bytes, not 18432")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files ${WORK_DIR}/cpp.bin ${WORK_DIR}/python.bin
                RESULT_VARIABLE differ)
if(NOT differ EQUAL 0)
  message(FATAL_ERROR "the Python solution differs from the C++ one")
endif()
message("the Python and C++ solutions are the same bytes")
