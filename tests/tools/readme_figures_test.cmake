# tools.readme_figures: scripts/readme_figures.py on a fixture results file
# (tests/tools/data/bench_results_fixture.json) and a scratch README: --write fills the
# bench-figures block, --check then passes, and fails (naming the difference) once a figure of the
# block is changed by hand; a README without the block is an error. Also checks that a TCP record
# of a case is not taken for its shared-memory one.
# Arguments: PYTHON, ROOT (the source tree), RESULTS (the fixture), WORK (a scratch folder).
file(MAKE_DIRECTORY ${WORK})
set(readme ${WORK}/README.md)
file(WRITE ${readme} "# a project\n\n<!-- bench-figures:begin -->\n<!-- bench-figures:end -->\n\nthe rest\n")
function(figures mode expect_ok)
  execute_process(COMMAND ${PYTHON} ${ROOT}/scripts/readme_figures.py ${mode} --results ${RESULTS} --readme ${readme}
                  RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(expect_ok AND NOT status EQUAL 0)
    message(FATAL_ERROR "readme_figures.py ${mode} failed:\n${out}${err}")
  elseif(NOT expect_ok AND status EQUAL 0)
    message(FATAL_ERROR "readme_figures.py ${mode} passed where it must fail:\n${out}${err}")
  endif()
  set(last_output "${out}${err}" PARENT_SCOPE)
endfunction()

figures(--write TRUE)
file(READ ${readme} written)
# The in-loop row of the fixture: medians in µs, the median ratio and the worst launch's.
if(NOT written MATCHES "\\| 2-D 5-point, width 1, periodic, 8192² \\| 41200 \\| 41500 \\| 0.99 \\| 1.01 \\|")
  message(FATAL_ERROR "the in-loop row is not the fixture's:\n${written}")
endif()
if(NOT written MATCHES "8192², cold \\| 41 \\| 39 \\| 1.05 \\| 1.07 \\|")
  message(FATAL_ERROR "the cold row is not the fixture's shared-memory record:\n${written}")
endif()
if(NOT written MATCHES "not in the results file" OR NOT written MATCHES "the rest\n$")
  message(FATAL_ERROR "missing records are not said, or the text after the block was lost:\n${written}")
endif()
figures(--check TRUE)

string(REPLACE "| 0.99 | 1.01 |" "| 0.89 | 1.01 |" changed "${written}")
file(WRITE ${readme} "${changed}")
figures(--check FALSE)
if(NOT last_output MATCHES "differ from" OR NOT last_output MATCHES "0\\.89")
  message(FATAL_ERROR "--check failed without naming the changed figure:\n${last_output}")
endif()

file(WRITE ${readme} "# a project without the block\n")
figures(--check FALSE)
if(NOT last_output MATCHES "no <!-- bench-figures:begin -->")
  message(FATAL_ERROR "a README without the block was not named as such:\n${last_output}")
endif()

# Two results files, earliest first: a record of the second replaces the same record of the first
# (the in-loop row), the other rows stay the first file's, and the header names both files.
set(later ${WORK}/later.json)
file(WRITE ${later} [=[
{"machine": {"hostname": "fixture", "cpu": "fixture CPU", "cores": 2}, "mpi": "mpirun (Open MPI) 4.1.4",
 "date": "2026-11-28T00:00:00+00:00", "command": "bench/run_all.py --only bench_halo", "launches": 3,
 "records": [{"op": "halo-in-loop", "case": "2d-5pt-w1-periodic-8192", "ranks": 2, "metric": "median_s",
              "tessera": 0.0301, "anchor": "mpi-subarray-isend-irecv", "anchor_value": 0.0401, "ratio": 0.751,
              "transport": "shm", "launches": 3, "ratio_worst": 0.77}]}
]=])
file(WRITE ${readme} "# a project\n\n<!-- bench-figures:begin -->\n<!-- bench-figures:end -->\n")
execute_process(COMMAND ${PYTHON} ${ROOT}/scripts/readme_figures.py --write --results ${RESULTS} --results ${later}
                        --readme ${readme} RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE err)
file(READ ${readme} written)
if(NOT status EQUAL 0 OR NOT written MATCHES "\\| 2-D 5-point, width 1, periodic, 8192² \\| 30100 \\| 40100 \\| 0.75 \\| 0.77 \\|"
   OR NOT written MATCHES "8192², cold \\| 41 \\| 39 \\| 1.05 \\| 1.07 \\|" OR NOT written MATCHES "later.json`: 2026-11-28")
  message(FATAL_ERROR "the later file's record did not replace the earlier one's, or the header misses it:\n${out}${err}\n${written}")
endif()
