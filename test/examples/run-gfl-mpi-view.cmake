# fl-gfl-mpi's network view at rank 0 (the servers' gathered reports recorded in the GFL
# helper's tracker after the run) against the helper's own tracker watching the servers during a
# one-process run of the same scene (--tracker=helper): both CSVs byte for byte, every iteration
# of the network view present, no message lost. EXE: fl-gfl-mpi; DIR: scratch folder; ARGS: the
# scene's flags (a ;-list).
file(MAKE_DIRECTORY ${DIR})
foreach(kind gathered helper)
  execute_process(COMMAND ${EXE} ${ARGS} --tracker=${kind} --output=${DIR}/${kind}.csv
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  message("${out}${err}")
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "fl-gfl-mpi --tracker=${kind} exited with ${rc}")
  endif()
endforeach()
foreach(suffix .csv -network.csv)
  execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files ${DIR}/gathered${suffix}
                          ${DIR}/helper${suffix} RESULT_VARIABLE differ)
  if(NOT differ EQUAL 0)
    message(FATAL_ERROR "gathered${suffix} and helper${suffix} differ")
  endif()
endforeach()
file(STRINGS ${DIR}/gathered-network.csv lines)
list(GET lines 0 header)
if(NOT header STREQUAL "iteration,time_s,metric,value")
  message(FATAL_ERROR "unexpected network CSV header: ${header}")
endif()
set(iterations 0)
foreach(line ${lines})
  if(line MATCHES "^([0-9]+),[^,]+,msd_centroid_db,-?[0-9.e+-]+$")
    math(EXPR iterations "${iterations} + 1")
  elseif(line MATCHES ",lost_messages," AND NOT line MATCHES ",lost_messages,0$")
    message(FATAL_ERROR "a lossless run lost messages: ${line}")
  endif()
endforeach()
if(NOT iterations EQUAL ${WANT})
  message(FATAL_ERROR "${iterations} iterations with a centroid MSD, expected ${WANT}")
endif()
message("network view: ${iterations} iterations, the same bytes gathered and from the helper")
