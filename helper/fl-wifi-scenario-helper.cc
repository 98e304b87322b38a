/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ns3/fl-wifi-scenario-helper.h"

#include "ns3/boolean.h"
#include "ns3/double.h"
#include "ns3/internet-stack-helper.h"
#include "ns3/ipv4-address-helper.h"
#include "ns3/log.h"
#include "ns3/mobility-helper.h"
#include "ns3/mobility-model.h"
#include "ns3/position-allocator.h"
#include "ns3/qos-txop.h"
#include "ns3/ssid.h"
#include "ns3/string.h"
#include "ns3/uinteger.h"
#include "ns3/wifi-helper.h"
#include "ns3/wifi-mac-helper.h"
#include "ns3/wifi-mac.h"
#include "ns3/wifi-net-device.h"
#include "ns3/yans-wifi-helper.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FlWifiScenarioHelper");

std::pair<WifiStandard, std::string>
FlWifiStandardSettings(const std::string& name, const std::string& who)
{
    if (name == "80211a")
    {
        return {WIFI_STANDARD_80211a, "{36, 20, BAND_5GHZ, 0}"};
    }
    if (name == "80211g")
    {
        return {WIFI_STANDARD_80211g, "{1, 20, BAND_2_4GHZ, 0}"};
    }
    if (name == "80211n")
    {
        return {WIFI_STANDARD_80211n, "{36, 20, BAND_5GHZ, 0}"};
    }
    if (name == "80211ac")
    {
        return {WIFI_STANDARD_80211ac, "{42, 80, BAND_5GHZ, 0}"};
    }
    if (name == "80211ax")
    {
        return {WIFI_STANDARD_80211ax, "{42, 80, BAND_5GHZ, 0}"};
    }
    NS_FATAL_ERROR(who << ": unknown Wi-Fi standard '" << name
                       << "'; use 80211a, 80211g, 80211n, 80211ac or 80211ax");
}

void
FlConfigureBlockAckWorkaround(WifiMacHelper& mac)
{
    // Explicit BlockAckReq after a missed BlockAck.
    mac.SetAckManager("ns3::WifiDefaultAckManager", "UseExplicitBar", BooleanValue(true));
}

void
FlApplyBlockAckWorkaround(const NetDeviceContainer& devices)
{
    for (auto it = devices.Begin(); it != devices.End(); ++it)
    {
        Ptr<WifiNetDevice> dev = DynamicCast<WifiNetDevice>(*it);
        if (!dev)
        {
            continue;
        }
        // Block-ack agreement before the first burst; a longer wait for the ADDBA response.
        dev->GetMac()->SetAttribute("BE_BlockAckThreshold", UintegerValue(1));
        Ptr<QosTxop> be = dev->GetMac()->GetQosTxop(AC_BE);
        if (be)
        {
            be->SetAttribute("AddBaResponseTimeout", TimeValue(MilliSeconds(200)));
        }
    }
}

FlWifiScenarioHelper::FlWifiScenarioHelper()
    : m_standard("80211n"),
      m_radius(10.0),
      m_rateManager("ns3::IdealWifiManager"),
      m_blockAckWorkaround(true)
{
}

void
FlWifiScenarioHelper::SetBlockAckWorkaround(bool enable)
{
    m_blockAckWorkaround = enable;
}

void
FlWifiScenarioHelper::SetStandard(const std::string& standard)
{
    m_standard = standard;
}

void
FlWifiScenarioHelper::SetRadius(double meters)
{
    if (!(meters >= 0.0))
    {
        NS_FATAL_ERROR("FlWifiScenarioHelper: radius " << meters
                                                       << " m is invalid; use a radius >= 0");
    }
    m_radius = meters;
}

void
FlWifiScenarioHelper::SetRateManager(const std::string& typeName)
{
    m_rateManager = typeName;
}

FlWifiScenario
FlWifiScenarioHelper::Build(uint32_t numStations) const
{
    if (numStations == 0)
    {
        NS_FATAL_ERROR("FlWifiScenarioHelper: numStations is 0; build at least one station");
    }
    const auto [standard, channel] = FlWifiStandardSettings(m_standard, "FlWifiScenarioHelper");

    FlWifiScenario s;
    NodeContainer ap;
    ap.Create(1);
    s.apNode = ap.Get(0);
    s.stations.Create(numStations);

    YansWifiChannelHelper channelHelper = YansWifiChannelHelper::Default();
    YansWifiPhyHelper phy;
    phy.SetChannel(channelHelper.Create());
    phy.Set("ChannelSettings", StringValue(channel));

    WifiHelper wifi;
    wifi.SetStandard(standard);
    wifi.SetRemoteStationManager(m_rateManager);

    WifiMacHelper mac;
    Ssid ssid("fl-bss");
    if (m_blockAckWorkaround)
    {
        FlConfigureBlockAckWorkaround(mac);
    }
    mac.SetType("ns3::StaWifiMac", "Ssid", SsidValue(ssid));
    s.staDevices = wifi.Install(phy, mac, s.stations);
    mac.SetType("ns3::ApWifiMac", "Ssid", SsidValue(ssid));
    s.apDevice = wifi.Install(phy, mac, s.apNode);
    if (m_blockAckWorkaround)
    {
        FlApplyBlockAckWorkaround(NetDeviceContainer(s.apDevice, s.staDevices));
    }

    MobilityHelper mobility;
    mobility.SetMobilityModel("ns3::ConstantPositionMobilityModel");
    mobility.Install(ap);
    Ptr<UniformDiscPositionAllocator> disc = CreateObject<UniformDiscPositionAllocator>();
    disc->SetRho(m_radius);
    disc->SetX(0.0);
    disc->SetY(0.0);
    disc->AssignStreams(kFlPositionStream); // same positions for every scene of one --RngRun
    mobility.SetPositionAllocator(disc);
    mobility.Install(s.stations);

    InternetStackHelper internet;
    internet.Install(ap);
    internet.Install(s.stations);
    Ipv4AddressHelper address;
    address.SetBase("10.1.0.0", "255.255.0.0");
    NetDeviceContainer all;
    all.Add(s.apDevice);
    all.Add(s.staDevices);
    s.interfaces = address.Assign(all);
    s.serverAddress = s.interfaces.GetAddress(0);
    return s;
}

int64_t
FlWifiScenarioHelper::AssignStreams(const FlWifiScenario& scenario, int64_t stream)
{
    WifiHelper wifi;
    int64_t used = 0;
    NetDeviceContainer all;
    all.Add(scenario.apDevice);
    all.Add(scenario.staDevices);
    used += wifi.AssignStreams(all, stream);
    NodeContainer nodes(scenario.apNode);
    nodes.Add(scenario.stations);
    used += InternetStackHelper().AssignStreams(nodes, stream + used);
    return used;
}

} // namespace ns3
