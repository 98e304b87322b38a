# Runs a sweeping example (fl-fedavg-lossy, fl-stragglers) tiny and checks its summary CSV: the
# expected header and one row per run (ROWS), every final accuracy a number in [0, 1].
# ARGS: the example's arguments (a ;-list); HEADER: the header's expected beginning;
# ACC_COLUMN: 0-based column of final_accuracy.
execute_process(COMMAND ${EXE} ${ARGS} --output=${OUT}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("${out}${err}")
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "example exited with ${rc}")
endif()
file(STRINGS ${OUT} lines)
list(LENGTH lines n)
math(EXPR want "${ROWS} + 1")
if(NOT n EQUAL want)
  message(FATAL_ERROR "expected header + ${ROWS} rows, got ${n} lines")
endif()
list(GET lines 0 header)
if(NOT header MATCHES "^${HEADER}")
  message(FATAL_ERROR "unexpected CSV header: ${header}")
endif()
list(REMOVE_AT lines 0)
foreach(line ${lines})
  string(REPLACE "," ";" fields "${line}")
  list(GET fields ${ACC_COLUMN} acc)
  if(NOT acc MATCHES "^[0-9.e+-]+$" OR acc LESS 0 OR acc GREATER 1)
    message(FATAL_ERROR "final accuracy '${acc}' is not in [0, 1]: ${line}")
  endif()
endforeach()
message("${ROWS} runs, well-formed summary")
