# fl-gfl / fl-ghp ARGS (a ;-list) with --FlTrainingThreads=1, 2 and 4 writes byte-identical CSV
# files and prints the same lines (the per-run wall times aside): Monte-Carlo runs on the
# training pool are combined and printed in run order.
set(first "")
foreach(threads 1 2 4)
  set(csv ${OUT}-t${threads}.csv)
  execute_process(COMMAND ${EXE} ${ARGS} --FlTrainingThreads=${threads} --output=${csv}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${EXE} with ${threads} thread(s) exited with ${rc}: ${err}")
  endif()
  file(READ ${csv} text)
  # wall times (and the CSV's name) differ from run to run; every other line must not
  string(REGEX REPLACE "[0-9.]+ s wall" "s wall" out "${out}")
  string(REGEX REPLACE "Wrote [^\n]*" "Wrote" out "${out}")
  if(threads EQUAL 1)
    set(first "${text}")
    set(firstOut "${out}")
  else()
    if(NOT text STREQUAL first)
      message(FATAL_ERROR "${threads} threads wrote another CSV than 1 thread")
    endif()
    if(NOT out STREQUAL firstOut)
      message(FATAL_ERROR "${threads} threads printed other lines than 1 thread:\n${out}\n--- 1 thread:\n${firstOut}")
    endif()
  endif()
endforeach()
message("1, 2 and 4 threads: identical CSV and lines")
