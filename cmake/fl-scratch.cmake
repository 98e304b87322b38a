# scratch/, as in an ns-3 source tree (standalone build; included by CMakeLists.txt): every .cc
# file directly in scratch/ is a program of its own, every subfolder of scratch/ with .cc files
# is one program made of them. Programs are named after the file (or folder) and written to
# build/scratch/; each links fl::fl (libns3-fl, ns-3, Eigen). New files are picked up when
# the build runs (CONFIGURE_DEPENDS); no list to edit.
set(_fl_scratch_dir ${CMAKE_CURRENT_LIST_DIR}/../scratch)
file(GLOB _fl_scratch_entries CONFIGURE_DEPENDS LIST_DIRECTORIES true ${_fl_scratch_dir}/*)
foreach(_entry ${_fl_scratch_entries})
  get_filename_component(_name ${_entry} NAME_WE)
  if(IS_DIRECTORY ${_entry})
    file(GLOB _sources CONFIGURE_DEPENDS ${_entry}/*.cc)
    get_filename_component(_name ${_entry} NAME)
  elseif(_entry MATCHES "\\.cc$")
    set(_sources ${_entry})
  else()
    continue()
  endif()
  if(NOT _sources)
    continue()
  endif()
  add_executable(scratch_${_name} ${_sources})
  target_link_libraries(scratch_${_name} PRIVATE fl::fl)
  target_compile_options(scratch_${_name} PRIVATE ${FL_NATIVE_FLAGS})
  set_target_properties(scratch_${_name} PROPERTIES OUTPUT_NAME ${_name}
                        RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/scratch)
endforeach()
