# Install rules of the standalone build (included by CMakeLists.txt; not used in an ns-3 tree,
# where ns-3's own install rules apply). `cmake --install build [--prefix DIR]` installs:
#   lib/libns3-fl.so                        the library
#   include/ns3/*.h, include/ns3/fl-module.h the public headers, flat as in an ns-3 tree
#   lib/cmake/fl/flConfig.cmake ...         find_package(fl) -> imported target fl::fl
#                                           (also named ns3::libfl), bringing ns-3, Eigen, zlib
#                                           and the compile definitions along
#   lib/pkgconfig/fl.pc                     pkg-config --cflags --libs fl
# Nothing is compiled at install time; the prefix can be moved (the package and fl.pc find their
# files relative to themselves).
include(CMakePackageConfigHelpers)

set(FL_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/fl)
set_target_properties(ns3-fl PROPERTIES VERSION ${PROJECT_VERSION}
                                        SOVERSION ${PROJECT_VERSION_MAJOR})

install(TARGETS ns3-fl EXPORT flTargets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
# The headers as the build uses them: one flat folder ns3/ plus the generated umbrella header.
install(FILES ${FL_HEADERS} ${FL_INCLUDE_DIR}/ns3/fl-module.h
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/ns3)
install(EXPORT flTargets NAMESPACE fl:: FILE flTargets.cmake DESTINATION ${FL_INSTALL_CMAKEDIR})

# find_package(fl): the dependencies are found again in the user's project with the versions and
# components this build used.
string(REPLACE ";" " " FL_NS3_COMPONENTS_LIST "${FL_NS3_COMPONENTS}")
set(FL_NS3_PACKAGE_VERSION ${ns3_VERSION})
configure_package_config_file(
  ${CMAKE_CURRENT_LIST_DIR}/flConfig.cmake.in ${CMAKE_CURRENT_BINARY_DIR}/flConfig.cmake
  INSTALL_DESTINATION ${FL_INSTALL_CMAKEDIR})
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/flConfigVersion.cmake
                                 VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/flConfig.cmake
              ${CMAKE_CURRENT_BINARY_DIR}/flConfigVersion.cmake
        DESTINATION ${FL_INSTALL_CMAKEDIR})

# fl.pc: Requires names ns-3's own pkg-config files (Debian's libns3-dev ships ns3-<module>.pc).
# The prefix is found relative to the .pc file, so an installed tree can be moved.
set(FL_PC_REQUIRES "")
foreach(_c ${FL_NS3_COMPONENTS})
  string(APPEND FL_PC_REQUIRES "ns3-${_c} ")
endforeach()
string(APPEND FL_PC_REQUIRES "eigen3")
set(FL_PC_CFLAGS "")
foreach(_d ${FL_PUBLIC_DEFINITIONS})
  string(APPEND FL_PC_CFLAGS " -D${_d}")
endforeach()
set(_fl_pc_up "..") # from <libdir>/pkgconfig up to the prefix
string(REPLACE "/" ";" _fl_libdir_parts "${CMAKE_INSTALL_LIBDIR}")
foreach(_p ${_fl_libdir_parts})
  string(APPEND _fl_pc_up "/..")
endforeach()
set(FL_PC_PREFIX "\${pcfiledir}/${_fl_pc_up}")
configure_file(${CMAKE_CURRENT_LIST_DIR}/fl.pc.in ${CMAKE_CURRENT_BINARY_DIR}/fl.pc @ONLY)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/fl.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
