# Runs the deliberately failing pytest file on 2 ranks; passes only if the run fails (non-zero exit)
# and rank 0 names rank 1 as where the test failed.
execute_process(
  COMMAND ${MPIEXEC} ${NPFLAG} 2 ${PYTHON} -m pytest -p no:cacheprovider -q ${TEST_FILE}
  RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("${out}${err}")
if(status EQUAL 0)
  message(FATAL_ERROR "the run passed although the test fails on rank 1")
endif()
if(NOT out MATCHES "test_passes_on_every_rank_but_1 failed on rank\\(s\\) 1")
  message(FATAL_ERROR "rank 0 did not report that the test failed on rank 1")
endif()
