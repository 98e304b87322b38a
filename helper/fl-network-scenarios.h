/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * One call each for the network scenes of federated learning, one header per scene (helper/
 * scenes/): Wi-Fi infrastructure BSS, Wi-Fi ESS, Wi-Fi ad hoc, CSMA LAN, point-to-point star and
 * LTE, and the graph scene of GFL and GHP. Every helper's Build returns the scene's nodes and
 * addresses (FlScene; FlGraphScene for the graph scene).
 */
#ifndef FL_NETWORK_SCENARIOS_H
#define FL_NETWORK_SCENARIOS_H

#include "ns3/fl-csma-scene.h"
#include "ns3/fl-graph-scene.h"
#include "ns3/fl-lte-scene.h"
#include "ns3/fl-point-to-point-star-scene.h"
#include "ns3/fl-scene.h"
#include "ns3/fl-vehicular-scene.h"
#include "ns3/fl-wifi-adhoc-scene.h"
#include "ns3/fl-wifi-ess-scene.h"
#include "ns3/fl-wifi-scene.h"

#endif // FL_NETWORK_SCENARIOS_H
