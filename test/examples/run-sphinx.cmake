# Builds the documentation (doc/fl.rst and its chapters) with Sphinx, warnings as errors: a
# broken reference, a bad table, a heading out of order or a literalinclude'd file that is
# missing fails the test. Skipped, saying why, where sphinx-build is not installed.
#
#   cmake -DSRC=<doc folder> -DOUT=<output folder> -P run-sphinx.cmake
cmake_minimum_required(VERSION 3.16)
find_program(_sphinx sphinx-build)
if(NOT _sphinx)
  message("doc: SKIPPED: sphinx-build is not installed (fix: apt-get install python3-sphinx, "
          "which utils/install-deps.sh installs)")
  return()
endif()
file(REMOVE_RECURSE ${OUT})
execute_process(COMMAND ${_sphinx} -W --keep-going -E -q -b html -d ${OUT}/doctrees ${SRC}
                        ${OUT}/html
                RESULT_VARIABLE _rc OUTPUT_VARIABLE _out ERROR_VARIABLE _out)
if(NOT _rc EQUAL 0)
  message(FATAL_ERROR "doc: sphinx-build -W failed (${_rc}):\n${_out}")
endif()
if(NOT EXISTS ${OUT}/html/fl.html)
  message(FATAL_ERROR "doc: sphinx-build wrote no fl.html in ${OUT}/html")
endif()
message(STATUS "doc: built ${OUT}/html/fl.html without a warning")
