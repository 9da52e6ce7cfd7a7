# docs.readme_figures_check_fails_on_a_changed_figure: a copy of README.md with one figure of its
# generated block changed must fail `scripts/readme_figures.py --check`, naming the difference.
# Arguments: PYTHON, ROOT (the source tree), WORK (a scratch folder).
file(READ ${ROOT}/README.md readme)
string(FIND "${readme}" "<!-- bench-figures:begin -->" begin)
if(begin EQUAL -1)
  message(FATAL_ERROR "README.md has no bench-figures block")
endif()
string(SUBSTRING "${readme}" 0 ${begin} head)
string(SUBSTRING "${readme}" ${begin} -1 block)
# The first table row's ratio column gets "9.99" instead of its figure.
string(REGEX REPLACE "\\| ([0-9]+\\.[0-9][0-9]) \\|" "| 9.99 |" changed "${block}")
if(changed STREQUAL block)
  message(FATAL_ERROR "found no ratio to change in README.md's bench-figures block")
endif()
file(MAKE_DIRECTORY ${WORK})
file(WRITE ${WORK}/README.md "${head}${changed}")
execute_process(COMMAND ${PYTHON} ${ROOT}/scripts/readme_figures.py --check --readme ${WORK}/README.md
                RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(status EQUAL 0)
  message(FATAL_ERROR "readme_figures.py --check passed a README with a changed figure:\n${out}${err}")
endif()
if(NOT err MATCHES "differ from" OR NOT out MATCHES "9\\.99")
  message(FATAL_ERROR "readme_figures.py --check failed without naming the difference:\n${out}${err}")
endif()
message(STATUS "the changed figure was caught:\n${err}")
