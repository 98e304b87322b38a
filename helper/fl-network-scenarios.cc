/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ns3/fl-network-scenarios.h"

#include "ns3/boolean.h"
#include "ns3/csma-helper.h"
#include "ns3/double.h"
#include "ns3/enum.h"
#include "ns3/fl-wifi-scenario-helper.h"
#include "ns3/internet-stack-helper.h"
#include "ns3/ipv4-address-helper.h"
#include "ns3/ipv4-static-routing-helper.h"
#include "ns3/ipv4-static-routing.h"
#include "ns3/ipv4.h"
#include "ns3/log.h"
#include "ns3/lte-enb-net-device.h"
#include "ns3/lte-enb-rrc.h"
#include "ns3/lte-helper.h"
#include "ns3/mobility-helper.h"
#include "ns3/neighbor-cache-helper.h"
#include "ns3/point-to-point-epc-helper.h"
#include "ns3/point-to-point-helper.h"
#include "ns3/position-allocator.h"
#include "ns3/qos-txop.h"
#include "ns3/random-variable-stream.h"
#include "ns3/string.h"
#include "ns3/uinteger.h"
#include "ns3/wifi-helper.h"
#include "ns3/wifi-mac-helper.h"
#include "ns3/wifi-mac.h"
#include "ns3/wifi-net-device.h"
#include "ns3/yans-wifi-helper.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FlNetworkScenarios");

namespace
{

void
CheckClients(const char* who, uint32_t numClients)
{
    if (numClients == 0)
    {
        NS_FATAL_ERROR(who << ": numClients is 0; build at least one client");
    }
}

void
CheckRadius(const char* who, double meters)
{
    if (!(meters >= 0.0))
    {
        NS_FATAL_ERROR(who << ": radius " << meters << " m is invalid; use a radius >= 0");
    }
}

/// Fixes the streams of the Internet stacks (ARP jitter, ...) of the server and the clients.
int64_t
AssignInternetStreams(const FlScene& scene, int64_t stream)
{
    NodeContainer nodes(scene.serverNode);
    nodes.Add(scene.clients);
    return InternetStackHelper().AssignStreams(nodes, stream);
}

/// Places the nodes uniformly at random on a disc of the radius around the origin.
void
PlaceOnDisc(const NodeContainer& nodes, double radius)
{
    MobilityHelper mobility;
    mobility.SetMobilityModel("ns3::ConstantPositionMobilityModel");
    Ptr<UniformDiscPositionAllocator> disc = CreateObject<UniformDiscPositionAllocator>();
    disc->SetRho(radius);
    disc->SetX(0.0);
    disc->SetY(0.0);
    // A fixed stream: every scene built in a process gets the same positions for one --RngRun
    // (parameter sweeps compare like with like); another --RngRun moves the nodes.
    disc->AssignStreams(kFlPositionStream);
    mobility.SetPositionAllocator(disc);
    mobility.Install(nodes);
}

/// Places the node at the origin.
void
PlaceAtOrigin(Ptr<Node> node)
{
    MobilityHelper mobility;
    mobility.SetMobilityModel("ns3::ConstantPositionMobilityModel");
    mobility.Install(node);
}

} // namespace

// ------------------------------------------------------------------------------------- CSMA

FlCsmaSceneHelper::FlCsmaSceneHelper()
    : m_dataRate("100Mb/s"),
      m_delay(NanoSeconds(6560))
{
}

void
FlCsmaSceneHelper::SetDataRate(DataRate rate)
{
    if (rate.GetBitRate() == 0)
    {
        NS_FATAL_ERROR("FlCsmaSceneHelper: data rate is 0; use a positive rate, e.g. 100Mb/s");
    }
    m_dataRate = rate;
}

void
FlCsmaSceneHelper::SetDelay(Time delay)
{
    if (delay.IsStrictlyNegative())
    {
        NS_FATAL_ERROR("FlCsmaSceneHelper: delay " << delay << " is negative; use a delay >= 0");
    }
    m_delay = delay;
}

FlScene
FlCsmaSceneHelper::Build(uint32_t numClients) const
{
    CheckClients("FlCsmaSceneHelper", numClients);
    FlScene s;
    NodeContainer server;
    server.Create(1);
    s.serverNode = server.Get(0);
    s.clients.Create(numClients);
    NodeContainer all(server, s.clients);

    CsmaHelper csma;
    csma.SetChannelAttribute("DataRate", DataRateValue(m_dataRate));
    csma.SetChannelAttribute("Delay", TimeValue(m_delay));
    s.devices = csma.Install(all);

    InternetStackHelper internet;
    internet.Install(all);
    Ipv4AddressHelper address;
    address.SetBase("10.1.0.0", "255.255.0.0");
    Ipv4InterfaceContainer ifaces = address.Assign(s.devices);
    s.serverAddress = ifaces.GetAddress(0);
    for (uint32_t i = 1; i < ifaces.GetN(); ++i)
    {
        s.clientInterfaces.Add(ifaces.Get(i));
    }
    NS_LOG_INFO("CSMA LAN: server " << s.serverAddress << " and " << numClients << " clients at "
                                    << m_dataRate);
    return s;
}

int64_t
FlCsmaSceneHelper::AssignStreams(const FlScene& scene, int64_t stream)
{
    CsmaHelper csma;
    const int64_t used = csma.AssignStreams(scene.devices, stream);
    return used + AssignInternetStreams(scene, stream + used);
}

// ------------------------------------------------------------------------ point-to-point star

FlPointToPointStarHelper::FlPointToPointStarHelper()
    : m_dataRate("10Mb/s"),
      m_delay(MilliSeconds(2))
{
}

void
FlPointToPointStarHelper::SetDataRate(DataRate rate)
{
    if (rate.GetBitRate() == 0)
    {
        NS_FATAL_ERROR(
            "FlPointToPointStarHelper: data rate is 0; use a positive rate, e.g. 10Mb/s");
    }
    m_dataRate = rate;
}

void
FlPointToPointStarHelper::SetDelay(Time delay)
{
    if (delay.IsStrictlyNegative())
    {
        NS_FATAL_ERROR("FlPointToPointStarHelper: delay " << delay
                                                          << " is negative; use a delay >= 0");
    }
    m_delay = delay;
}

void
FlPointToPointStarHelper::SetDataRateVariable(Ptr<RandomVariableStream> mbps)
{
    m_rateVariable = mbps;
}

FlScene
FlPointToPointStarHelper::Build(uint32_t numClients) const
{
    CheckClients("FlPointToPointStarHelper", numClients);
    if (numClients > (1u << 22))
    {
        NS_FATAL_ERROR("FlPointToPointStarHelper: numClients " << numClients
                                                               << " exceeds the /30 subnets of "
                                                                  "10.0.0.0/8; use fewer clients");
    }
    FlScene s;
    NodeContainer server;
    server.Create(1);
    s.serverNode = server.Get(0);
    s.clients.Create(numClients);
    InternetStackHelper internet;
    internet.Install(server);
    internet.Install(s.clients);

    Ipv4AddressHelper address;
    address.SetBase("10.2.0.0", "255.255.255.252");
    Ipv4StaticRoutingHelper routing;
    for (uint32_t i = 0; i < numClients; ++i)
    {
        DataRate rate = m_dataRate;
        if (m_rateVariable)
        {
            const double mbps = m_rateVariable->GetValue();
            rate = DataRate(static_cast<uint64_t>(std::max(1e3, mbps * 1e6)));
        }
        PointToPointHelper p2p;
        p2p.SetDeviceAttribute("DataRate", DataRateValue(rate));
        p2p.SetChannelAttribute("Delay", TimeValue(m_delay));
        NetDeviceContainer link = p2p.Install(s.serverNode, s.clients.Get(i));
        s.devices.Add(link);
        Ipv4InterfaceContainer ifaces = address.Assign(link);
        address.NewNetwork();
        if (i == 0)
        {
            s.serverAddress = ifaces.GetAddress(0);
        }
        s.clientInterfaces.Add(ifaces.Get(1));
        // The client reaches every server address (in particular the first link's) via its link.
        Ptr<Ipv4StaticRouting> r = routing.GetStaticRouting(s.clients.Get(i)->GetObject<Ipv4>());
        r->SetDefaultRoute(ifaces.GetAddress(0), ifaces.Get(1).second);
        NS_LOG_INFO("star link " << i << ": " << rate << ", client " << ifaces.GetAddress(1));
    }
    return s;
}

int64_t
FlPointToPointStarHelper::AssignStreams(const FlScene& scene, int64_t stream)
{
    return AssignInternetStreams(scene, stream);
}

// ------------------------------------------------------------------------------ Wi-Fi ad hoc

FlWifiAdhocSceneHelper::FlWifiAdhocSceneHelper()
    : m_standard("80211n"),
      m_radius(10.0),
      m_rateManager("ns3::IdealWifiManager"),
      m_blockAckWorkaround(true),
      m_staticArp(true)
{
}

void
FlWifiAdhocSceneHelper::SetStaticArp(bool enable)
{
    m_staticArp = enable;
}

void
FlWifiAdhocSceneHelper::SetStandard(const std::string& standard)
{
    m_standard = standard;
}

void
FlWifiAdhocSceneHelper::SetRadius(double meters)
{
    CheckRadius("FlWifiAdhocSceneHelper", meters);
    m_radius = meters;
}

void
FlWifiAdhocSceneHelper::SetRateManager(const std::string& typeName)
{
    m_rateManager = typeName;
}

void
FlWifiAdhocSceneHelper::SetBlockAckWorkaround(bool enable)
{
    m_blockAckWorkaround = enable;
}

FlScene
FlWifiAdhocSceneHelper::Build(uint32_t numClients) const
{
    CheckClients("FlWifiAdhocSceneHelper", numClients);
    const auto [standard, channel] = FlWifiStandardSettings(m_standard, "FlWifiAdhocSceneHelper");

    FlScene s;
    NodeContainer server;
    server.Create(1);
    s.serverNode = server.Get(0);
    s.clients.Create(numClients);
    NodeContainer all(server, s.clients);

    YansWifiChannelHelper channelHelper = YansWifiChannelHelper::Default();
    YansWifiPhyHelper phy;
    phy.SetChannel(channelHelper.Create());
    phy.Set("ChannelSettings", StringValue(channel));

    WifiHelper wifi;
    wifi.SetStandard(standard);
    wifi.SetRemoteStationManager(m_rateManager);

    WifiMacHelper mac;
    if (m_blockAckWorkaround)
    {
        FlConfigureBlockAckWorkaround(mac);
    }
    mac.SetType("ns3::AdhocWifiMac");
    s.devices = wifi.Install(phy, mac, all);
    if (m_blockAckWorkaround)
    {
        FlApplyBlockAckWorkaround(s.devices);
    }

    PlaceAtOrigin(s.serverNode);
    PlaceOnDisc(s.clients, m_radius);

    InternetStackHelper internet;
    internet.Install(all);
    Ipv4AddressHelper address;
    address.SetBase("10.1.0.0", "255.255.0.0");
    Ipv4InterfaceContainer ifaces = address.Assign(s.devices);
    s.serverAddress = ifaces.GetAddress(0);
    for (uint32_t i = 1; i < ifaces.GetN(); ++i)
    {
        s.clientInterfaces.Add(ifaces.Get(i));
    }
    if (m_staticArp)
    {
        // See SetStaticArp(): no broadcast ARP requests to collide.
        NeighborCacheHelper arp;
        arp.PopulateNeighborCache(ifaces);
    }
    return s;
}

int64_t
FlWifiAdhocSceneHelper::AssignStreams(const FlScene& scene, int64_t stream)
{
    WifiHelper wifi;
    const int64_t used = wifi.AssignStreams(scene.devices, stream);
    return used + AssignInternetStreams(scene, stream + used);
}

// -------------------------------------------------------------------------------------- LTE

FlLteSceneHelper::FlLteSceneHelper()
    : m_radius(50.0),
      m_bandwidth(25),
      m_rlcMode("am"),
      m_backhaulRate("1Gb/s"),
      m_backhaulDelay(MilliSeconds(10))
{
}

void
FlLteSceneHelper::SetRadius(double meters)
{
    CheckRadius("FlLteSceneHelper", meters);
    m_radius = meters;
}

void
FlLteSceneHelper::SetBandwidth(uint16_t resourceBlocks)
{
    switch (resourceBlocks)
    {
    case 6:
    case 15:
    case 25:
    case 50:
    case 75:
    case 100:
        m_bandwidth = resourceBlocks;
        break;
    default:
        NS_FATAL_ERROR("FlLteSceneHelper: bandwidth " << resourceBlocks
                                                      << " RBs is invalid; use 6, 15, 25, 50, "
                                                         "75 or 100 resource blocks");
    }
}

void
FlLteSceneHelper::SetRlcMode(const std::string& mode)
{
    if (mode != "am" && mode != "um")
    {
        NS_FATAL_ERROR("FlLteSceneHelper: RLC mode '" << mode << "' is invalid; use am or um");
    }
    m_rlcMode = mode;
}

void
FlLteSceneHelper::SetBackhaulDataRate(DataRate rate)
{
    if (rate.GetBitRate() == 0)
    {
        NS_FATAL_ERROR("FlLteSceneHelper: backhaul data rate is 0; use a positive rate");
    }
    m_backhaulRate = rate;
}

void
FlLteSceneHelper::SetBackhaulDelay(Time delay)
{
    if (delay.IsStrictlyNegative())
    {
        NS_FATAL_ERROR("FlLteSceneHelper: backhaul delay " << delay
                                                           << " is negative; use a delay >= 0");
    }
    m_backhaulDelay = delay;
}

FlScene
FlLteSceneHelper::Build(uint32_t numClients) const
{
    CheckClients("FlLteSceneHelper", numClients);
    // LteEnbRrc allots each UE an SRS configuration index; the periodicity bounds the UE count.
    static const uint32_t kSrs[] = {2, 5, 10, 20, 40, 80, 160, 320};
    uint32_t srs = 0;
    for (uint32_t p : kSrs)
    {
        if (p >= 40 && p > numClients)
        {
            srs = p;
            break;
        }
    }
    if (srs == 0)
    {
        NS_FATAL_ERROR("FlLteSceneHelper: numClients " << numClients
                                                       << " exceeds what one eNB serves "
                                                          "(319 UEs); use fewer clients");
    }

    FlScene s;
    s.lteHelper = CreateObject<LteHelper>();
    s.epcHelper = CreateObject<PointToPointEpcHelper>();
    s.lteHelper->SetEpcHelper(s.epcHelper);
    s.lteHelper->SetEnbDeviceAttribute("DlBandwidth", UintegerValue(m_bandwidth));
    s.lteHelper->SetEnbDeviceAttribute("UlBandwidth", UintegerValue(m_bandwidth));
    Ptr<Node> pgw = s.epcHelper->GetPgwNode();

    // The server: a remote host behind the PGW.
    NodeContainer server;
    server.Create(1);
    s.serverNode = server.Get(0);
    InternetStackHelper internet;
    internet.Install(server);
    PointToPointHelper p2p;
    p2p.SetDeviceAttribute("DataRate", DataRateValue(m_backhaulRate));
    p2p.SetDeviceAttribute("Mtu", UintegerValue(1500));
    p2p.SetChannelAttribute("Delay", TimeValue(m_backhaulDelay));
    NetDeviceContainer backhaul = p2p.Install(pgw, s.serverNode);
    Ipv4AddressHelper address;
    address.SetBase("1.0.0.0", "255.0.0.0");
    Ipv4InterfaceContainer backhaulIfaces = address.Assign(backhaul);
    s.serverAddress = backhaulIfaces.GetAddress(1);
    Ipv4StaticRoutingHelper routing;
    Ptr<Ipv4StaticRouting> serverRouting =
        routing.GetStaticRouting(s.serverNode->GetObject<Ipv4>());
    serverRouting->AddNetworkRouteTo(Ipv4Address("7.0.0.0"),
                                     Ipv4Mask("255.0.0.0"),
                                     backhaulIfaces.Get(1).second);

    // The cell: one eNB at the origin, the UEs on a disc around it.
    NodeContainer enb;
    enb.Create(1);
    s.clients.Create(numClients);
    PlaceAtOrigin(enb.Get(0));
    PlaceOnDisc(s.clients, m_radius);
    NetDeviceContainer enbDevs = s.lteHelper->InstallEnbDevice(enb);
    Ptr<LteEnbRrc> rrc = DynamicCast<LteEnbNetDevice>(enbDevs.Get(0))->GetRrc();
    rrc->SetAttribute("SrsPeriodicity", UintegerValue(srs));
    rrc->SetAttribute(
        "EpsBearerToRlcMapping",
        EnumValue(m_rlcMode == "am" ? LteEnbRrc::RLC_AM_ALWAYS : LteEnbRrc::RLC_UM_ALWAYS));
    NetDeviceContainer ueDevs = s.lteHelper->InstallUeDevice(s.clients);
    s.devices.Add(enbDevs);
    s.devices.Add(ueDevs);
    s.infrastructure.Add(enb);
    s.infrastructure.Add(pgw);

    internet.Install(s.clients);
    s.clientInterfaces = s.epcHelper->AssignUeIpv4Address(ueDevs);
    for (uint32_t i = 0; i < numClients; ++i)
    {
        Ptr<Ipv4StaticRouting> r = routing.GetStaticRouting(s.clients.Get(i)->GetObject<Ipv4>());
        r->SetDefaultRoute(s.epcHelper->GetUeDefaultGatewayAddress(), 1);
    }
    s.lteHelper->Attach(ueDevs, enbDevs.Get(0));
    NS_LOG_INFO("LTE cell: " << numClients << " UEs, " << m_bandwidth << " RBs, RLC " << m_rlcMode
                             << ", server " << s.serverAddress);
    return s;
}

int64_t
FlLteSceneHelper::AssignStreams(const FlScene& scene, int64_t stream)
{
    if (!scene.lteHelper)
    {
        NS_FATAL_ERROR("FlLteSceneHelper::AssignStreams: the scene has no LTE helper; pass the "
                       "FlScene returned by FlLteSceneHelper::Build");
    }
    return scene.lteHelper->AssignStreams(scene.devices, stream);
}

} // namespace ns3
