# run(<command>...): runs a command, stops the test with its output if it fails; its standard output
# is left in `last_output`. For the install.* test scripts.
function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "failed (${rc}): ${ARGN}\n${out}\n${err}")
  endif()
  set(last_output "${out}" PARENT_SCOPE)
endfunction()

# run_ranks(<program> <expected regex> <ranks>...): runs an MPI program on each rank count and
# requires its success line; the program exits non-zero when a rank fails, and run() stops then.
function(run_ranks program expect)
  foreach(ranks IN LISTS ARGN)
    run(${MPIEXEC} -n ${ranks} ${program})
    string(REPLACE "@RANKS@" "${ranks}" line "${expect}")
    if(NOT last_output MATCHES "${line}")
      message(FATAL_ERROR "${program} on ${ranks} ranks printed something unexpected:\n${last_output}")
    endif()
  endforeach()
endfunction()
