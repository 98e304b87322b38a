/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * What the vehicular scene needs of an ns-2/SUMO movement trace: when each vehicle is on the
 * road, and where it is parked otherwise.
 */
#ifndef FL_VEHICULAR_TRACE_H
#define FL_VEHICULAR_TRACE_H

#include "ns3/vector.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup fl-helper
 * When one node of an ns-2 movement trace is on the road, as ns-3's Ns2MobilityHelper moves
 * it: from its first timed line ("$ns_ at t ...") to the arrival at the destination of its last
 * "setdest" (computed as Ns2MobilityHelper does: the distance from the position before it over
 * the line's speed). `entry` is its position before its first timed line (the untimed
 * "$node_(i) set X_ / Y_ / Z_" lines; SUMO's exporter writes the car's first position there).
 */
struct FlTraceSpan
{
    bool present{false}; ///< the trace names this node
    double enterS{0.0};  ///< time of its first timed line [s]
    double leaveS{0.0};  ///< time it reaches its last destination [s]
    Vector entry;        ///< its position before enterS
};

/**
 * \ingroup fl-helper
 * The span of every node of an ns-2 movement trace, indexed by node number ($node_(i) is
 * element i; nodes the trace skips have present = false). Throws fl::ConfigError naming
 * "FlReadNs2TraceSpans" for an unreadable file or one that moves no node.
 */
std::vector<FlTraceSpan> FlReadNs2TraceSpans(const std::string& path);

/**
 * \ingroup fl-helper
 * Where the vehicular scene parks client `client` while it is not on the road: (0,
 * -(1,000 km + client * 100 km), 0). The 3GPP V2V highway path loss (TR 37.885, Table 6.2.1-1:
 * 32.4 + 20 log10(d / 1 m) + 20 log10(f / 1 GHz) dB in line of sight, more without) is then at
 * least 167.8 dB to the road and 147.8 dB between two parked vehicles at 5.9 GHz: a 23 dBm
 * frame arrives at -124.8 dBm or less, 27.8 dB under the noise floor of an 802.11p receiver
 * (-174 dBm/Hz + 70 dB for 10 MHz + a 7 dB noise figure = -97 dBm; about 7 standard
 * deviations of the 4 dB shadowing), so that a parked vehicle hears nobody and nobody hears it.
 */
Vector FlParkingPosition(uint32_t client);

} // namespace ns3

#endif // FL_VEHICULAR_TRACE_H
