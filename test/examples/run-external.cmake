# Algorithms written outside the module (test/external/*.cc), built and run the way a user's own
# program is: a find_package(fl) project against the *installed* module (the prefix that
# install.tutorial.setup fills, fixture fl_installed), out of the source tree.
#
#   cmake -DPROGRAM=<name> -DSOURCE=<test/external/name.cc> -DWORK=... [-DCXX=...]
#         [-DLAUNCHER=ccache] -P run-external.cmake
#
# Configures WORK/external-<name> (two lines: find_package(fl), link fl::fl), builds it, runs the
# program and fails unless it exits 0, prints at least one "PASS " line and no "FAIL " line (each
# program checks its algorithm against the paper's update computed by hand and says so per check).
cmake_minimum_required(VERSION 3.16)

if(NOT PROGRAM OR NOT SOURCE OR NOT WORK)
  message(FATAL_ERROR "run-external.cmake: pass -DPROGRAM=, -DSOURCE= and -DWORK=")
endif()
if(NOT EXISTS ${SOURCE})
  message(FATAL_ERROR "external: the program '${SOURCE}' does not exist")
endif()
if(NOT EXISTS ${WORK}/prefix)
  message(FATAL_ERROR "external: no installed module in ${WORK}/prefix (run install.tutorial.setup)")
endif()
if(NOT DEFINED CXX)
  set(CXX c++)
endif()

function(fl_run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE _rc OUTPUT_VARIABLE _out ERROR_VARIABLE _out)
  if(NOT _rc EQUAL 0)
    string(REPLACE ";" " " _cmd "${ARGN}")
    message(FATAL_ERROR "external: `${_cmd}` failed (${_rc}):\n${_out}")
  endif()
endfunction()

set(_proj ${WORK}/external-${PROGRAM})
file(REMOVE_RECURSE ${_proj})
file(MAKE_DIRECTORY ${_proj})
file(WRITE ${_proj}/CMakeLists.txt "cmake_minimum_required(VERSION 3.16)
project(fl-external-${PROGRAM} CXX)
if(NOT CMAKE_BUILD_TYPE)
  set(CMAKE_BUILD_TYPE Release)
endif()
find_package(fl REQUIRED)
add_executable(${PROGRAM} ${SOURCE})
target_link_libraries(${PROGRAM} PRIVATE fl::fl)
")
set(_launcher "")
if(LAUNCHER)
  set(_launcher -DCMAKE_CXX_COMPILER_LAUNCHER=${LAUNCHER})
endif()
fl_run(${CMAKE_COMMAND} -S ${_proj} -B ${_proj}/build -DCMAKE_PREFIX_PATH=${WORK}/prefix
       -DCMAKE_CXX_COMPILER=${CXX} ${_launcher})
fl_run(${CMAKE_COMMAND} --build ${_proj}/build)

execute_process(COMMAND ${_proj}/build/${PROGRAM} WORKING_DIRECTORY ${_proj}
                RESULT_VARIABLE _rc OUTPUT_VARIABLE _out ERROR_VARIABLE _out)
message(STATUS "external: ${PROGRAM}:\n${_out}")
if(NOT _rc EQUAL 0 OR _out MATCHES "(^|\n)FAIL " OR NOT _out MATCHES "(^|\n)PASS ")
  message(FATAL_ERROR "external: ${PROGRAM} failed its hand check (exit status ${_rc}):\n${_out}")
endif()
