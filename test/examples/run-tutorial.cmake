# The README's tutorial ("Using the module from your own ns-3 script"), built and run the way a
# user would: against the *installed* module, out of the source tree.
#
#   cmake -DSTEP=install    -DREADME=... -DDWFL_TUTORIAL=... -DBUILD_DIR=... -DWORK=...
#         -P run-tutorial.cmake
#   cmake -DSTEP=cmake      -DWORK=... [-DCXX=...] [-DLAUNCHER=ccache] -P run-tutorial.cmake
#   cmake -DSTEP=pkg-config -DWORK=... [-DCXX=...] -P run-tutorial.cmake
#
# install:    extracts the C++ code between <!-- tutorial:begin --> and <!-- tutorial:end --> in
#             README.md exactly as printed (only the ``` fence lines are dropped) to
#             WORK/tutorial.cc, copies the DWFL tutorial (doc/examples/fl-tutorial-dwfl.cc,
#             which doc/fl-ota-dwfl.rst includes as printed) to WORK/tutorial-dwfl.cc, writes a
#             program that only includes ns3/fl-module.h, and runs
#             `cmake --install BUILD_DIR --prefix WORK/prefix`.
# cmake:      a two-line out-of-tree project (find_package(fl), link fl::fl) configured with
#             CMAKE_PREFIX_PATH=WORK/prefix, built, and run with --rounds=2 in WORK/cmake-run;
#             the run must write the learning monitor's CSV with rounds 0..2; the DWFL
#             tutorial likewise (its tracker's CSV and the rows its Row trace printed), and the
#             include-only program must know ns3::DwflWorkerApplication (--PrintAttributes).
# pkg-config: g++ tutorial.cc $(pkg-config --cflags --libs fl) with PKG_CONFIG_PATH pointing into
#             the prefix, then the same run. Prints "tutorial: SKIPPED" (ctest: skipped) when
#             ns-3's own pkg-config files are not installed (Debian's libns3-dev has them).
cmake_minimum_required(VERSION 3.16)

function(fl_run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE _rc OUTPUT_VARIABLE _out ERROR_VARIABLE _out)
  if(NOT _rc EQUAL 0)
    string(REPLACE ";" " " _cmd "${ARGN}")
    message(FATAL_ERROR "tutorial: `${_cmd}` failed (${_rc}):\n${_out}")
  endif()
  set(FL_RUN_OUTPUT "${_out}" PARENT_SCOPE)
endfunction()

# Runs the tutorial program in DIR with --rounds=2 and checks its CSV.
function(fl_run_tutorial exe dir)
  file(REMOVE_RECURSE ${dir})
  file(MAKE_DIRECTORY ${dir})
  execute_process(COMMAND ${exe} --rounds=2 WORKING_DIRECTORY ${dir} RESULT_VARIABLE _rc
                  OUTPUT_VARIABLE _out ERROR_VARIABLE _out)
  if(NOT _rc EQUAL 0)
    message(FATAL_ERROR "tutorial: ${exe} --rounds=2 failed (${_rc}):\n${_out}")
  endif()
  if(NOT EXISTS ${dir}/run.csv OR NOT EXISTS ${dir}/run-long.csv)
    message(FATAL_ERROR "tutorial: the run wrote no run.csv / run-long.csv in ${dir}:\n${_out}")
  endif()
  file(STRINGS ${dir}/run.csv _rows)
  list(LENGTH _rows _n)
  list(GET _rows 0 _header)
  if(NOT _header MATCHES "^round,time_s," OR NOT _n EQUAL 4)
    message(FATAL_ERROR "tutorial: run.csv should hold a header and rounds 0..2, has ${_n} lines:\n"
                        "${_rows}")
  endif()
  list(GET _rows 3 _last)
  message(STATUS "tutorial: ${exe} ran 2 rounds; last row: ${_last}")
endfunction()

# Runs the DWFL tutorial program in DIR with --rounds=2 and checks its CSV and its live output.
function(fl_run_tutorial_dwfl exe dir)
  file(REMOVE_RECURSE ${dir})
  file(MAKE_DIRECTORY ${dir})
  execute_process(COMMAND ${exe} --rounds=2 WORKING_DIRECTORY ${dir} RESULT_VARIABLE _rc
                  OUTPUT_VARIABLE _out ERROR_VARIABLE _out)
  if(NOT _rc EQUAL 0)
    message(FATAL_ERROR "tutorial: ${exe} --rounds=2 failed (${_rc}):\n${_out}")
  endif()
  if(NOT EXISTS ${dir}/dwfl.csv)
    message(FATAL_ERROR "tutorial: the DWFL run wrote no dwfl.csv in ${dir}:\n${_out}")
  endif()
  # the Row trace printed rounds 0 and 1 while the simulation ran, and round 2 at Flush()
  set(_expected "round 0: centroid accuracy [0-9.]+\nround 1: centroid accuracy [0-9.]+\n")
  string(APPEND _expected "round 2: centroid accuracy [0-9.]+\ncomposed epsilon after 2 rounds: ")
  string(APPEND _expected "[0-9.]+")
  if(NOT _out MATCHES "${_expected}")
    message(FATAL_ERROR "tutorial: the DWFL run's output lacks rounds 0..2 and epsilon:\n${_out}")
  endif()
  file(STRINGS ${dir}/dwfl.csv _rows REGEX "^2,.*,centroid,peer,test_accuracy,")
  if(NOT _rows)
    message(FATAL_ERROR "tutorial: dwfl.csv has no centroid accuracy of round 2")
  endif()
  file(STRINGS ${dir}/dwfl.csv _eps REGEX "^# epsilon: .*renyi dp")
  if(NOT _eps)
    message(FATAL_ERROR "tutorial: dwfl.csv does not state its epsilon")
  endif()
  message(STATUS "tutorial: ${exe} ran 2 DWFL rounds: ${_rows}")
endfunction()

# A program that includes ns3/fl-module.h and uses no symbol of the module still knows its
# TypeIds (helper/fl-module-link.h): --PrintAttributes lists the DWFL worker's defaults.
function(fl_check_print_attributes exe)
  execute_process(COMMAND ${exe} --PrintAttributes=ns3::DwflWorkerApplication
                  RESULT_VARIABLE _rc OUTPUT_VARIABLE _out ERROR_VARIABLE _out)
  if(NOT _rc EQUAL 0 OR NOT _out MATCHES "TargetEpsilon" OR NOT _out MATCHES "0.5")
    message(FATAL_ERROR "tutorial: --PrintAttributes=ns3::DwflWorkerApplication failed (${_rc}):"
                        "\n${_out}")
  endif()
  message(STATUS "tutorial: ${exe} --PrintAttributes=ns3::DwflWorkerApplication lists the defaults")
endfunction()

# Extracts the ```cpp block between <!-- NAME:begin ... --> and <!-- NAME:end --> of README.md.
function(fl_extract_tutorial readme name out)
  file(READ ${readme} _readme)
  string(FIND "${_readme}" "<!-- ${name}:begin" _begin)
  string(FIND "${_readme}" "<!-- ${name}:end -->" _end)
  if(_begin LESS 0 OR _end LESS 0 OR _end LESS _begin)
    message(FATAL_ERROR "tutorial: README.md has no <!-- ${name}:begin --> ... <!-- ${name}:end --> block")
  endif()
  math(EXPR _len "${_end} - ${_begin}")
  string(SUBSTRING "${_readme}" ${_begin} ${_len} _block)
  # Drop the marker line and the ```cpp / ``` fences; everything else is the program verbatim.
  string(REGEX REPLACE "^<!--[^\n]*-->\n" "" _block "${_block}")
  string(REGEX MATCH "```cpp\n(.*)```" _match "${_block}")
  if(NOT _match)
    message(FATAL_ERROR "tutorial: no ```cpp block between the ${name} markers of README.md")
  endif()
  file(WRITE ${out} "${CMAKE_MATCH_1}")
endfunction()

set(FL_LINK_ONLY_PROGRAM "#include \"ns3/core-module.h\"
#include \"ns3/fl-module.h\"

int main(int argc, char* argv[])
{
    ns3::CommandLine cmd(__FILE__);
    cmd.Parse(argc, argv);
    return 0;
}
")

if(NOT DEFINED CXX)
  set(CXX c++)
endif()

if(STEP STREQUAL "install")
  file(REMOVE_RECURSE ${WORK})
  file(MAKE_DIRECTORY ${WORK})
  fl_extract_tutorial(${README} tutorial ${WORK}/tutorial.cc)
  if(NOT DWFL_TUTORIAL OR NOT EXISTS ${DWFL_TUTORIAL})
    message(FATAL_ERROR "tutorial: the DWFL tutorial '${DWFL_TUTORIAL}' does not exist")
  endif()
  configure_file(${DWFL_TUTORIAL} ${WORK}/tutorial-dwfl.cc COPYONLY)
  file(WRITE ${WORK}/link-only.cc "${FL_LINK_ONLY_PROGRAM}")
  fl_run(${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${WORK}/prefix)
  foreach(_f include/ns3/fl-module.h include/ns3/fl-ns3-compat.h)
    if(NOT EXISTS ${WORK}/prefix/${_f})
      message(FATAL_ERROR "tutorial: the install has no ${_f}")
    endif()
  endforeach()
  file(GLOB_RECURSE _config ${WORK}/prefix/*/flConfig.cmake)
  file(GLOB_RECURSE _pc ${WORK}/prefix/*/fl.pc)
  if(NOT _config OR NOT _pc)
    message(FATAL_ERROR "tutorial: the install has no flConfig.cmake or fl.pc")
  endif()
  message(STATUS "tutorial: extracted ${WORK}/tutorial.cc, installed into ${WORK}/prefix")

elseif(STEP STREQUAL "cmake")
  set(_proj ${WORK}/cmake-project)
  file(REMOVE_RECURSE ${_proj})
  file(MAKE_DIRECTORY ${_proj})
  file(WRITE ${_proj}/CMakeLists.txt "cmake_minimum_required(VERSION 3.16)
project(fl-tutorial CXX)
if(NOT CMAKE_BUILD_TYPE)
  set(CMAKE_BUILD_TYPE Release)
endif()
find_package(fl REQUIRED)
add_executable(tutorial ${WORK}/tutorial.cc)
target_link_libraries(tutorial PRIVATE fl::fl)
add_executable(tutorial-dwfl ${WORK}/tutorial-dwfl.cc)
target_link_libraries(tutorial-dwfl PRIVATE fl::fl)
add_executable(link-only ${WORK}/link-only.cc)
target_link_libraries(link-only PRIVATE fl::fl)
")
  set(_launcher "")
  if(LAUNCHER)
    set(_launcher -DCMAKE_CXX_COMPILER_LAUNCHER=${LAUNCHER})
  endif()
  fl_run(${CMAKE_COMMAND} -S ${_proj} -B ${_proj}/build -DCMAKE_PREFIX_PATH=${WORK}/prefix
         -DCMAKE_CXX_COMPILER=${CXX} ${_launcher})
  fl_run(${CMAKE_COMMAND} --build ${_proj}/build)
  fl_run_tutorial(${_proj}/build/tutorial ${WORK}/cmake-run)
  fl_run_tutorial_dwfl(${_proj}/build/tutorial-dwfl ${WORK}/cmake-run-dwfl)
  fl_check_print_attributes(${_proj}/build/link-only)

elseif(STEP STREQUAL "pkg-config")
  find_program(_pkgconfig pkg-config)
  if(NOT _pkgconfig)
    message("tutorial: SKIPPED: pkg-config is not installed")
    return()
  endif()
  execute_process(COMMAND ${_pkgconfig} --exists ns3-core RESULT_VARIABLE _rc)
  if(NOT _rc EQUAL 0)
    message("tutorial: SKIPPED: ns-3's pkg-config files (ns3-core.pc) are not installed; only "
            "the CMake package is checked")
    return()
  endif()
  file(GLOB_RECURSE _pc ${WORK}/prefix/*/fl.pc)
  get_filename_component(_pcdir ${_pc} DIRECTORY)
  set(ENV{PKG_CONFIG_PATH} "${_pcdir}:$ENV{PKG_CONFIG_PATH}")
  fl_run(${_pkgconfig} --cflags --libs fl)
  string(STRIP "${FL_RUN_OUTPUT}" _flags)
  separate_arguments(_flags UNIX_COMMAND "${_flags}")
  fl_run(${_pkgconfig} --variable=libdir fl)
  string(STRIP "${FL_RUN_OUTPUT}" _libdir)
  set(_exe ${WORK}/tutorial-pkg-config)
  fl_run(${CXX} -o ${_exe} ${WORK}/tutorial.cc ${_flags} -Wl,-rpath,${_libdir})
  fl_run_tutorial(${_exe} ${WORK}/pkg-config-run)
  fl_run(${CXX} -O2 -o ${_exe}-dwfl ${WORK}/tutorial-dwfl.cc ${_flags} -Wl,-rpath,${_libdir})
  fl_run_tutorial_dwfl(${_exe}-dwfl ${WORK}/pkg-config-run-dwfl)
  fl_run(${CXX} -o ${_exe}-link-only ${WORK}/link-only.cc ${_flags} -Wl,-rpath,${_libdir})
  fl_check_print_attributes(${_exe}-link-only)

else()
  message(FATAL_ERROR "run-tutorial.cmake: STEP must be install, cmake or pkg-config")
endif()
