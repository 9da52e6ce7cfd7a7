# Restart after a crash, bit for bit (tests/checkpoint_restart/sor_restart.cpp):
#   0. an uninterrupted run of the SOR solver on a random number of ranks: the reference;
#   then RUNS times:
#   1. a run on 2..MAX_RANKS ranks saving a checkpoint every EVERY iterations (keeping KEEP), one of
#      whose ranks kills itself with SIGKILL as a random iteration starts (TESSERA_TEST_KILL_AT);
#      mpiexec tears the job down: it must fail, having left at most KEEP checkpoints;
#   2. (DAMAGE=always, or at random with DAMAGE=random) the newest checkpoint gets a flipped byte;
#   3. a restart on another number of ranks from the newest valid checkpoint, which must be the
#      one expected (the damaged one skipped), runs to the end and must match the reference bit
#      for bit.
# Variables: MPIEXEC NPFLAG EXE WORK_DIR [RUNS=1] [SEED=random] [DAMAGE=random] [MAX_RANKS=4]
#            [N=48] [ITERATIONS=40] [EVERY=5] [KEEP=3] [KILL_MIN=1] (kills at iterations
#            KILL_MIN..ITERATIONS-1; the short ctest asks for one past two checkpoints, so that the
#            restart skips a damaged one and still resumes from a checkpoint)
foreach(var RUNS:1 DAMAGE:random MAX_RANKS:4 N:48 ITERATIONS:40 EVERY:5 KEEP:3 KILL_MIN:1)
  string(REPLACE ":" ";" pair ${var})
  list(GET pair 0 name)
  list(GET pair 1 default)
  if(NOT DEFINED ${name} OR "${${name}}" STREQUAL "")
    set(${name} ${default})
  endif()
endforeach()
if(NOT DEFINED SEED OR "${SEED}" STREQUAL "")
  string(TIMESTAMP SEED "%s")
endif()
message("crash_restart: seed ${SEED} (rerun with -DSEED=${SEED}), ${RUNS} runs, damage ${DAMAGE}")
string(RANDOM LENGTH 1 RANDOM_SEED ${SEED} unused)

# A random integer in [lo, hi].
function(draw out lo hi)
  string(RANDOM LENGTH 6 ALPHABET 0123456789 digits)
  math(EXPR value "${lo} + (1${digits} % (${hi} - ${lo} + 1))")
  set(${out} ${value} PARENT_SCOPE)
endfunction()

function(run_solver ranks kill_at)
  set(command ${MPIEXEC} ${NPFLAG} ${ranks} ${EXE} --n ${N} --iterations ${ITERATIONS} --every ${EVERY}
      --keep ${KEEP} ${ARGN})
  if(kill_at)
    set(command ${CMAKE_COMMAND} -E env TESSERA_TEST_KILL_AT=${kill_at} ${command})
  endif()
  execute_process(COMMAND ${command} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 120)
  string(REPLACE ";" " " shown "${command}")
  message("$ ${shown}\n-> ${rc}\n${out}${err}")
  set(last_rc "${rc}" PARENT_SCOPE)
  set(last_output "${out}${err}" PARENT_SCOPE)
endfunction()

file(REMOVE_RECURSE ${WORK_DIR})
file(MAKE_DIRECTORY ${WORK_DIR})
set(reference ${WORK_DIR}/reference.h5)
draw(ranks 1 ${MAX_RANKS})
run_solver(${ranks} "" --dir ${WORK_DIR}/reference-series --final ${reference})
if(NOT last_rc EQUAL 0 OR NOT last_output MATCHES "finished ${ITERATIONS} iterations")
  message(FATAL_ERROR "the uninterrupted reference run failed")
endif()

foreach(run RANGE 1 ${RUNS})
  set(dir ${WORK_DIR}/series-${run})
  draw(crash_ranks 2 ${MAX_RANKS})
  math(EXPR last_rank "${crash_ranks} - 1")
  draw(kill_rank 0 ${last_rank})
  math(EXPR last_iteration "${ITERATIONS} - 1")
  draw(kill_iteration ${KILL_MIN} ${last_iteration})
  if(DAMAGE STREQUAL "always")
    set(damage 1)
  elseif(DAMAGE STREQUAL "never")
    set(damage 0)
  else()
    draw(damage 0 1)
  endif()
  # Any count in [1, MAX_RANKS] but crash_ranks: draw among MAX_RANKS - 1, skip over crash_ranks.
  math(EXPR others "${MAX_RANKS} - 1")
  draw(restart_ranks 1 ${others})
  if(restart_ranks GREATER_EQUAL crash_ranks)
    math(EXPR restart_ranks "${restart_ranks} + 1")
  endif()
  message("--- run ${run}: ${crash_ranks} ranks, rank ${kill_rank} killed at iteration ${kill_iteration}; "
          "restart on ${restart_ranks} ranks; damage newest: ${damage}")

  run_solver(${crash_ranks} ${kill_iteration}:${kill_rank} --dir ${dir} --final ${dir}-final.h5)
  if(last_rc EQUAL 0 OR NOT last_output MATCHES "killing rank ${kill_rank} at iteration ${kill_iteration}"
     OR last_output MATCHES "sor_restart: finished")
    message(FATAL_ERROR "run ${run}: the run should have been killed at iteration ${kill_iteration}")
  endif()
  file(GLOB kept ${dir}/ckpt-*.h5)
  list(LENGTH kept count)
  if(count GREATER KEEP)
    message(FATAL_ERROR "run ${run}: ${count} checkpoints left, more than KEEP = ${KEEP}: ${kept}")
  endif()

  # Iterations done at the kill: the newest checkpoint is the last multiple of EVERY.
  math(EXPR expected "(${kill_iteration} / ${EVERY}) * ${EVERY}")
  set(flags --resume --compare ${reference})
  if(damage AND expected GREATER 0)
    list(APPEND flags --damage-newest)
    math(EXPR expected "${expected} - ${EVERY}")
  endif()
  run_solver(${restart_ranks} "" --dir ${dir} --final ${dir}-final.h5 ${flags})
  if(NOT last_rc EQUAL 0)
    message(FATAL_ERROR "run ${run}: the restart failed")
  endif()
  if(NOT last_output MATCHES "resumed at iteration ${expected} ")
    message(FATAL_ERROR "run ${run}: the restart should have resumed at iteration ${expected}")
  endif()
  if(damage AND expected GREATER 0 AND NOT last_output MATCHES "skipping '[^']*ckpt-[0-9]+.h5': .*fails its checksum")
    message(FATAL_ERROR "run ${run}: latest_valid did not say it skipped the damaged checkpoint")
  endif()
  if(NOT last_output MATCHES "bit-identical")
    message(FATAL_ERROR "run ${run}: the restarted solution is not the reference's")
  endif()
  file(REMOVE_RECURSE ${dir})
endforeach()
file(REMOVE_RECURSE ${WORK_DIR})
message("crash_restart: ${RUNS} runs killed and restarted on other rank counts, every solution bit-identical")
