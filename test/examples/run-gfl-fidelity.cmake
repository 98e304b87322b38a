# fl-gfl ARGS (a ;-list) over Wi-Fi cells in packet and in flow fidelity (--network): byte-
# identical CSV (lossless links: the learning does not depend on timing), no validity warning
# within the validated sizes; then a flow run with more sampled clients per cell than validated
# (WARN_ARGS) must warn, once although every variant of the figure runs its own scene.
foreach(fidelity packet flow)
  set(csv ${OUT}-${fidelity}.csv)
  execute_process(COMMAND ${EXE} ${ARGS} --network=${fidelity} --output=${csv}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${EXE} in ${fidelity} fidelity exited with ${rc}: ${err}")
  endif()
  if(err MATCHES "warning: flow-level network")
    message(FATAL_ERROR "${fidelity} fidelity warned within the validated sizes: ${err}")
  endif()
  file(READ ${csv} text_${fidelity})
endforeach()
if(NOT text_packet STREQUAL text_flow)
  message(FATAL_ERROR "flow fidelity wrote another CSV than packet fidelity")
endif()
execute_process(COMMAND ${EXE} ${ARGS} ${WARN_ARGS} --network=flow
                        --output=${OUT}-warn.csv
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${EXE} ${WARN_ARGS} in flow fidelity exited with ${rc}: ${err}")
endif()
if(NOT err MATCHES "warning: flow-level network: L = [0-9]+ sampled clients per cell")
  message(FATAL_ERROR "a flow run beyond the validated L did not warn: ${err}")
endif()
string(REGEX MATCHALL "L = [0-9]+ sampled clients per cell" said "${err}")
list(LENGTH said times)
if(NOT times EQUAL 1)
  message(FATAL_ERROR "the warning was printed ${times} times, not once: ${err}")
endif()
message("packet and flow fidelity: identical CSV; the run beyond the validated L warned once")
