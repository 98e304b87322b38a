# fl-async-wifi --secure with FedBuff and a server learning rate: the program accepts it (the
# library does: FedBuff's rate scales each securely summed cohort), runs, and the rate is
# applied: the models differ from the run at rate 1 with otherwise the same flags. EXE:
# fl-async-wifi; DIR: scratch folder; ARGS: the common flags (a ;-list); RATE: the rate.
file(MAKE_DIRECTORY ${DIR})
foreach(rate 1 ${RATE})
  execute_process(COMMAND ${EXE} ${ARGS} --serverLearningRate=${rate}
                          --output=${DIR}/rate-${rate}.csv
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  message("${out}${err}")
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "fl-async-wifi --serverLearningRate=${rate} exited with ${rc}")
  endif()
  file(STRINGS ${DIR}/rate-${rate}.csv lines)
  list(LENGTH lines n)
  if(NOT n EQUAL 2)
    message(FATAL_ERROR "expected header + 1 row in rate-${rate}.csv, got ${n} lines")
  endif()
  list(GET lines 1 row)
  if(NOT row MATCHES "^fedbuff,[0-9.e+-]+,.*,secagg,0$")
    message(FATAL_ERROR "rate ${rate}: not a secure FedBuff run without aborts: ${row}")
  endif()
  file(STRINGS ${DIR}/rate-${rate}-rounds.csv rounds)
  list(LENGTH rounds models)
  if(models LESS 3)
    message(FATAL_ERROR "rate ${rate}: ${models} lines of models, expected at least 3")
  endif()
endforeach()
execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files ${DIR}/rate-1-rounds.csv
                        ${DIR}/rate-${RATE}-rounds.csv RESULT_VARIABLE differ)
if(differ EQUAL 0)
  message(FATAL_ERROR "--serverLearningRate=${RATE} wrote the models of rate 1: not applied")
endif()
message("secure FedBuff at server learning rate ${RATE}: ran, models differ from rate 1")
