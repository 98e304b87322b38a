# Precompiled headers (standalone build): the headers nearly every translation unit parses
# (Eigen, the standard library, ns-3's core and network headers, GoogleTest) are parsed once per
# target kind instead of once per file. Three sets:
#   FL_PCH_PURE     the pure layers (model/learning, runtime, algorithms, privacy, net): Eigen and the
#                   standard library only, so that a pure source still compiles without ns-3;
#   FL_PCH_NS3      the ns-3 layers of the library: the pure set and the ns-3 headers they use;
#   FL_PCH_PROGRAMS the test suites and the examples (one precompiled header each, shared by all
#                   of them with REUSE_FROM): the above, GoogleTest, ns-3's module headers and
#                   the module's scene helpers.
# FL_PCH=OFF turns them off (e.g. to check that every file includes what it uses).
option(FL_PCH "Use precompiled headers (faster builds)" ON)

set(FL_PCH_PURE
    <Eigen/Dense>
    <algorithm>
    <array>
    <cmath>
    <cstdint>
    <functional>
    <iostream>
    <map>
    <memory>
    <random>
    <set>
    <sstream>
    <string>
    <vector>)

set(FL_PCH_NS3
    ${FL_PCH_PURE}
    <ns3/boolean.h>
    <ns3/double.h>
    <ns3/enum.h>
    <ns3/event-id.h>
    <ns3/inet-socket-address.h>
    <ns3/ipv4-address.h>
    <ns3/log.h>
    <ns3/node-container.h>
    <ns3/node.h>
    <ns3/nstime.h>
    <ns3/object-factory.h>
    <ns3/object.h>
    <ns3/packet.h>
    <ns3/pointer.h>
    <ns3/random-variable-stream.h>
    <ns3/simulator.h>
    <ns3/socket.h>
    <ns3/string.h>
    <ns3/traced-callback.h>
    <ns3/uinteger.h>)

if(FL_PURE_ONLY)
  set(FL_PCH_PROGRAMS ${FL_PCH_PURE} <gtest/gtest.h>)
else()
  set(FL_PCH_PROGRAMS
      ${FL_PCH_NS3}
      <gtest/gtest.h>
      <chrono>
      <fstream>
      <iomanip>
      <ns3/core-module.h>
      <ns3/network-module.h>
      <ns3/internet-module.h>
      <ns3/applications-module.h>
      <ns3/mobility-module.h>
      <ns3/wifi-module.h>)
endif()

# fl_use_program_pch(target kind): `target` shares the precompiled header of its kind (tests,
# examples); the first target of a kind makes it. Targets of one kind have the same compile
# flags, so the reuse is valid.
function(fl_use_program_pch target kind)
  if(NOT FL_PCH)
    return()
  endif()
  get_property(_owner GLOBAL PROPERTY FL_PCH_OWNER_${kind})
  if(NOT _owner)
    target_precompile_headers(${target} PRIVATE ${FL_PCH_PROGRAMS})
    set_property(GLOBAL PROPERTY FL_PCH_OWNER_${kind} ${target})
  else()
    target_precompile_headers(${target} REUSE_FROM ${_owner})
  endif()
endfunction()
