/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The ad hoc Wi-Fi of the neighbour-discovery tests: 802.11a at a constant 6 Mb/s over a YANS
 * channel whose only loss is ns-3's RangePropagationLossModel (every frame within `range`
 * metres arrives, none beyond), so that who hears whom is the geometry's, an IPv4 address per
 * node in `base`/24, and every node's ARP cache filled with the others' addresses (as the
 * module's ad hoc scene does: broadcast ARP requests of nodes that start together collide).
 */
#ifndef FL_TEST_ADHOC_RANGE_H
#define FL_TEST_ADHOC_RANGE_H

#include "ns3/core-module.h"
#include "ns3/fl-wifi-scene.h"
#include "ns3/internet-module.h"
#include "ns3/propagation-module.h"
#include "ns3/wifi-module.h"

namespace fltest
{

/// Installs the range-limited ad hoc Wi-Fi and the Internet stack on `nodes` (their mobility
/// models already aggregated); returns their interfaces, node k's address at k.
inline ns3::Ipv4InterfaceContainer
InstallRangeAdhoc(const ns3::NodeContainer& nodes, double range, const char* base)
{
    using namespace ns3;
    YansWifiChannelHelper channel;
    channel.SetPropagationDelay("ns3::ConstantSpeedPropagationDelayModel");
    channel.AddPropagationLoss("ns3::RangePropagationLossModel", "MaxRange", DoubleValue(range));
    YansWifiPhyHelper phy;
    phy.SetChannel(channel.Create());
    WifiHelper wifi;
    wifi.SetStandard(WIFI_STANDARD_80211a);
    wifi.SetRemoteStationManager("ns3::ConstantRateWifiManager",
                                 "DataMode",
                                 StringValue("OfdmRate6Mbps"));
    WifiMacHelper mac;
    mac.SetType("ns3::AdhocWifiMac");
    NetDeviceContainer devices = wifi.Install(phy, mac, nodes);
    InternetStackHelper internet;
    internet.Install(nodes);
    Ipv4AddressHelper ipv4;
    ipv4.SetBase(base, "255.255.255.0");
    Ipv4InterfaceContainer interfaces = ipv4.Assign(devices);
    FlPopulateArpCaches(devices);
    return interfaces;
}

} // namespace fltest

#endif // FL_TEST_ADHOC_RANGE_H
