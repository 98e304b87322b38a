# --quick sets small defaults and never overrides a flag that is given: fl-gfl --quick runs one
# Monte-Carlo run unless --runs is given, fl-dwfl --quick takes --rounds.
#   cmake -DBIN=<examples dir> -DOUT=<scratch prefix> -P run-quick-defaults.cmake
function(expect pattern)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0 OR NOT out MATCHES "${pattern}")
    message(FATAL_ERROR "${ARGN}: exit ${rc}, '${pattern}' not in the output:\n${out}${err}")
  endif()
  message("ok   ${ARGN}")
endfunction()
expect("5 iterations, 1 run\\(s\\)" ${BIN}/fl-gfl --quick --quiet --figure=gfl --iterations=5
       --output=${OUT}-gfl1.csv)
expect("5 iterations, 2 run\\(s\\)" ${BIN}/fl-gfl --quick --quiet --figure=gfl --iterations=5
       --runs=2 --output=${OUT}-gfl2.csv)
expect("T = 2\n" ${BIN}/fl-dwfl --quick --quiet --rounds=2 --output=${OUT}-dwfl.csv)
