/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The Wi-Fi ESS scene.
 */
#include "ns3/fl-wifi-ess-scene.h"

#include "ns3/abort.h"
#include "ns3/arp-cache.h"
#include "ns3/block-ack-manager.h"
#include "ns3/boolean.h"
#include "ns3/bridge-helper.h"
#include "ns3/component-carrier-ue.h"
#include "ns3/config.h"
#include "ns3/constant-position-mobility-model.h"
#include "ns3/csma-helper.h"
#include "ns3/csma-net-device.h"
#include "ns3/double.h"
#include "ns3/enum.h"
#include "ns3/fl-ns3-compat.h"
#include "ns3/fl-scene-internal.h"
#include "ns3/fl-types.h"
#include "ns3/ht-frame-exchange-manager.h"
#include "ns3/internet-stack-helper.h"
#include "ns3/ipv4-address-helper.h"
#include "ns3/ipv4-interface.h"
#include "ns3/ipv4-l3-protocol.h"
#include "ns3/ipv4-static-routing-helper.h"
#include "ns3/ipv4-static-routing.h"
#include "ns3/ipv4.h"
#include "ns3/log.h"
#include "ns3/lte-enb-net-device.h"
#include "ns3/lte-enb-phy.h"
#include "ns3/lte-enb-rrc.h"
#include "ns3/lte-helper.h"
#include "ns3/lte-ue-net-device.h"
#include "ns3/lte-ue-phy.h"
#include "ns3/lte-ue-rrc.h"
#include "ns3/mac48-address.h"
#include "ns3/metrics.h"
#include "ns3/mobility-helper.h"
#include "ns3/mobility-model.h"
#include "ns3/point-to-point-epc-helper.h"
#include "ns3/point-to-point-helper.h"
#include "ns3/pointer.h"
#include "ns3/position-allocator.h"
#include "ns3/qos-txop.h"
#include "ns3/queue.h"
#include "ns3/random-variable-stream.h"
#include "ns3/ssid.h"
#include "ns3/sta-wifi-mac.h"
#include "ns3/string.h"
#include "ns3/txop.h"
#include "ns3/uinteger.h"
#include "ns3/wifi-helper.h"
#include "ns3/wifi-mac-header.h"
#include "ns3/wifi-mac-helper.h"
#include "ns3/wifi-mac-queue.h"
#include "ns3/wifi-mac.h"
#include "ns3/wifi-net-device.h"
#include "ns3/wifi-phy-state-helper.h"
#include "ns3/wifi-phy.h"
#include "ns3/wifi-remote-station-manager.h"
#include "ns3/yans-wifi-helper.h"

#include <algorithm>
#include <cmath>
#include <iostream>
#include <limits>
#include <map>
#include <mutex>
#include <set>
#include <tuple>

namespace ns3
{

/// The log component of the network scenes (NS_LOG=FlNetworkScenarios), defined in fl-scene.cc.
LogComponent& FlNetworkScenariosLog();

namespace
{
LogComponent& g_log = FlNetworkScenariosLog();
} // namespace

using namespace flscene;

namespace
{

/**
 * Ends the block-ack agreements of `mac` with `peer`, as originator and as recipient, without
 * a frame on the air: what a station and its APs do when it (re)associates (IEEE Std
 * 802.11-2020, 11.5.1: an association ends the agreements of the previous one). Without it a
 * station that comes back to an AP it left finds an agreement whose sequence numbers moved on
 * while it was away (the AP kept sending until it learned the station had left), and every later
 * frame waits in the recipient's reordering buffer.
 */
void
EndBlockAckAgreements(Ptr<WifiMac> mac, Mac48Address peer)
{
#if FL_NS3_VERSION >= 337 // before, SetRoaming refuses
    for (uint8_t tid = 0; tid < 8; ++tid)
    {
        Ptr<QosTxop> txop = mac->GetQosTxop(tid);
        if (!txop || !txop->GetBaManager())
        {
            continue;
        }
#if FL_NS3_VERSION >= 338
        txop->GetBaManager()->DestroyOriginatorAgreement(peer, tid);
        txop->GetBaManager()->DestroyRecipientAgreement(peer, tid);
#elif FL_NS3_VERSION >= 337
        txop->GetBaManager()->DestroyAgreement(peer, tid);
        Ptr<HtFrameExchangeManager> fem =
            DynamicCast<HtFrameExchangeManager>(mac->GetFrameExchangeManager());
        if (fem)
        {
            fem->DestroyBlockAckAgreement(peer, tid);
        }
#endif
    }
#else
    (void)mac;
    (void)peer;
#endif
}

} // namespace

namespace flscene
{

void
RoamingAssociated(const RoamingSet& set, uint32_t station, uint32_t associations, int32_t ap)
{
    if (associations == 1)
    {
        set.stations[station]->SetAttribute("MaxMissedBeacons",
                                            UintegerValue(kFlRoamingMaxMissedBeacons));
    }
    for (uint32_t a = 0; a < set.aps.size(); ++a)
    {
        EndBlockAckAgreements(set.stations[station], set.apAddress[a]);
        EndBlockAckAgreements(set.aps[a], set.stationAddress[station]);
        if (static_cast<int32_t>(a) != ap)
        {
            set.aps[a]->GetWifiRemoteStationManager()->RecordDisassociated(
                set.stationAddress[station]);
        }
    }
}

} // namespace flscene

// -------------------------------------------------------------------------------- Wi-Fi ESS

FlWifiEssSceneHelper::FlWifiEssSceneHelper()
    : FlWifiSceneHelperBase("FlWifiEssSceneHelper"),
      m_aps(2),
      m_apSpacing(-1.0), // unset: 1,000 m, roaming kFlRoamingApSpacing
      m_backboneRate("1Gb/s"),
      m_backboneDelay(MicroSeconds(100))
{
}

void
FlWifiEssSceneHelper::SetAccessPoints(uint32_t count)
{
    if (count == 0 || count > 250)
    {
        throw fl::ConfigError("FlWifiEssSceneHelper::SetAccessPoints",
                              std::to_string(count) + " access points",
                              "use 1 to 250 (cell a is 10.(a + 1).0.0/16)");
    }
    m_aps = count;
}

void
FlWifiEssSceneHelper::SetApSpacing(double meters)
{
    if (!(meters >= 0.0) || !std::isfinite(meters))
    {
        throw fl::ConfigError("FlWifiEssSceneHelper::SetApSpacing",
                              std::to_string(meters) + " m",
                              "use a finite spacing >= 0");
    }
    m_apSpacing = meters;
}

void
FlWifiEssSceneHelper::SetBackboneDataRate(DataRate rate)
{
    CheckDataRate("backbone data rate", rate);
    m_backboneRate = rate;
}

void
FlWifiEssSceneHelper::SetBackboneDelay(Time delay)
{
    CheckDelay("backbone delay", delay);
    m_backboneDelay = delay;
}

void
FlWifiEssSceneHelper::SetRoaming(bool enable)
{
#if FL_NS3_VERSION < 337
    if (enable)
    {
        throw fl::ConfigError("FlWifiEssSceneHelper::SetRoaming",
                              "roaming with ns-3." + std::to_string(FL_NS3_VERSION % 100),
                              "use ns-3.37 or later (the stations' block-ack agreements must end "
                              "at each association), or leave roaming off");
    }
#endif
    m_roaming = enable;
}

uint32_t
FlWifiEssSceneHelper::ApOf(uint32_t client, uint32_t accessPoints)
{
    return client % accessPoints;
}

void
FlWifiEssSceneHelper::BuildRoamingNetwork(FlScene& s) const
{
    const uint32_t numAps = s.infrastructure.GetN();
    const uint32_t numClients = s.clients.GetN();
    // The distribution system: one CSMA LAN, the server's port first, then one per AP, which
    // bridges it with its Wi-Fi device (learning where each station is from what it forwards).
    NodeContainer lan(s.serverNode);
    lan.Add(s.infrastructure);
    CsmaHelper csma;
    csma.SetChannelAttribute("DataRate", DataRateValue(m_backboneRate));
    csma.SetChannelAttribute("Delay", TimeValue(m_backboneDelay));
    const NetDeviceContainer ports = csma.Install(lan);
    BridgeHelper bridge;
    for (uint32_t a = 0; a < numAps; ++a)
    {
        bridge.Install(s.infrastructure.Get(a),
                       NetDeviceContainer(s.devices.Get(a), ports.Get(1 + a)));
    }
    // One subnet for the server and the stations; the APs are bridges without addresses.
    InternetStackHelper internet;
    internet.Install(ServerAndClients(s));
    NetDeviceContainer hosts(ports.Get(0));
    for (uint32_t i = 0; i < numClients; ++i)
    {
        hosts.Add(s.devices.Get(numAps + i));
    }
    Ipv4AddressHelper addresses("10.1.0.0", "255.255.0.0");
    const Ipv4InterfaceContainer ifaces = addresses.Assign(hosts);
    s.serverAddress = ifaces.GetAddress(0);
    for (uint32_t i = 0; i < numClients; ++i)
    {
        s.clientInterfaces.Add(ifaces.Get(1 + i));
    }
    // no ARP: a station between two APs could not answer, and the server's requests would be
    // flooded to every AP
    FlPopulateArpCaches(hosts);
    // at each association: the roaming set's watchdog, block-ack and DS notice
    // (RoamingAssociated)
    RoamingSet set;
    for (uint32_t a = 0; a < numAps + numClients; ++a)
    {
        Ptr<WifiNetDevice> dev = DynamicCast<WifiNetDevice>(s.devices.Get(a));
        (a < numAps ? set.aps : set.stations).push_back(PeekPointer(dev->GetMac()));
        (a < numAps ? set.apAddress : set.stationAddress)
            .push_back(Mac48Address::ConvertFrom(dev->GetAddress()));
    }
    AttachWifiLinkState(s, numAps, true, [set](uint32_t client, uint32_t associations, int32_t ap) {
        RoamingAssociated(set, client, associations, ap);
    });
}

FlScene
FlWifiEssSceneHelper::Build(uint32_t numClients) const
{
    CheckClients(numClients);
    if (m_fidelity == FlFidelity::Flow)
    {
        throw fl::ConfigError("FlWifiEssSceneHelper::SetFidelity",
                              "flow fidelity: the flow-level model has no ESS",
                              "build the ESS in packet fidelity, or one BSS at flow level "
                              "(FlWifiScenarioHelper)");
    }
    const uint32_t numAps = m_aps;
    if (numAps > numClients)
    {
        throw fl::ConfigError("FlWifiEssSceneHelper::SetAccessPoints",
                              std::to_string(numAps) + " access points for " +
                                  std::to_string(numClients) + " clients",
                              "use at most as many access points as clients");
    }
    if (m_roaming && numClients > 65533)
    {
        throw fl::ConfigError("FlWifiEssSceneHelper::Build",
                              std::to_string(numClients) + " clients in a roaming ESS",
                              "at most 65,533 stations (one /16 for the server and all stations)");
    }
    if ((numClients + numAps - 1) / numAps > 65533)
    {
        throw fl::ConfigError("FlWifiEssSceneHelper::Build",
                              std::to_string(numClients) + " clients over " +
                                  std::to_string(numAps) + " access points",
                              "at most 65,533 stations per AP (one /16 per cell): add APs");
    }
    FlScene s = NewScene(numClients);
    s.infrastructure.Create(numAps);
    std::vector<NodeContainer> cellStations(numAps);
    for (uint32_t i = 0; i < numClients; ++i)
    {
        cellStations[ApOf(i, numAps)].Add(s.clients.Get(i));
    }

    WifiHelper wifi;
    WifiMacHelper mac;
    const std::string channel = ConfigureWifi(wifi, mac);
    std::vector<NetDeviceContainer> cells(numAps); // the AP's device, then its stations'
    if (m_roaming)
    {
        // One ESS on one channel: the stations hear every AP in range and choose.
        if (!RateManagerSet())
        {
            wifi.SetRemoteStationManager("ns3::MinstrelHtWifiManager");
        }
        const YansWifiPhyHelper phy = NewChannelPhy(channel);
        const Ssid ssid("fl-ess");
        const NetDeviceContainer stations = FlInstallWifiStations(wifi, phy, mac, ssid, s.clients);
        mac.SetType("ns3::ApWifiMac", "Ssid", SsidValue(ssid));
        s.devices.Add(wifi.Install(phy, mac, s.infrastructure));
        s.devices.Add(stations);
    }
    else
    {
        // One BSS per AP, each on a channel object of its own.
        for (uint32_t a = 0; a < numAps; ++a)
        {
            cells[a] = InstallBss(wifi,
                                  NewChannelPhy(channel),
                                  mac,
                                  Ssid("fl-ess-" + std::to_string(a)),
                                  s.infrastructure.Get(a),
                                  cellStations[a]);
            s.devices.Add(cells[a].Get(0));
        }
        for (uint32_t i = 0; i < numClients; ++i)
        {
            s.devices.Add(cells[ApOf(i, numAps)].Get(1 + i / numAps));
        }
    }
    FinishWifiDevices(s.devices);

    // The APs on a grid, each station on a disc around its AP (roaming: the AP it starts
    // nearest to).
    const uint32_t columns =
        static_cast<uint32_t>(std::ceil(std::sqrt(static_cast<double>(numAps))));
    std::vector<Vector> apPosition(numAps);
    for (uint32_t a = 0; a < numAps; ++a)
    {
        // roaming: the grid centred on the origin, where the mobility presets centre their box
        const double spacing =
            m_apSpacing >= 0.0 ? m_apSpacing : (m_roaming ? kFlRoamingApSpacing : 1000.0);
        const uint32_t rows = (numAps + columns - 1) / columns;
        const double x0 = m_roaming ? -spacing * (columns - 1) / 2.0 : 0.0;
        const double y0 = m_roaming ? -spacing * (rows - 1) / 2.0 : 0.0;
        apPosition[a] = Vector(x0 + spacing * (a % columns), y0 + spacing * (a / columns), 0.0);
        PlaceAt(s.infrastructure.Get(a), apPosition[a]);
    }
    if (m_positions || m_mobility.Moves())
    {
        PlaceClients(s.clients);
    }
    else
    {
        Ptr<UniformDiscPositionAllocator> disc = PositionDisc(m_radius);
        for (uint32_t i = 0; i < numClients; ++i)
        {
            const Ptr<Node> station = s.clients.Get(i);
            if (station->GetObject<MobilityModel>())
            {
                continue;
            }
            const Vector offset = disc->GetNext();
            const Vector& centre = apPosition[ApOf(i, numAps)];
            PlaceAt(station, Vector(centre.x + offset.x, centre.y + offset.y, 0.0));
        }
    }

    if (m_roaming)
    {
        BuildRoamingNetwork(s);
        NS_LOG_INFO("Wi-Fi ESS (roaming): " << numAps << " APs, " << numClients
                                            << " stations, server " << s.serverAddress);
        return s;
    }

    // Internet stacks, the backbone, the cells' addresses and the routes.
    InternetStackHelper internet;
    internet.Install(ServerAndClients(s));
    internet.Install(s.infrastructure);
    PointToPointHelper p2p;
    p2p.SetDeviceAttribute("DataRate", DataRateValue(m_backboneRate));
    p2p.SetChannelAttribute("Delay", TimeValue(m_backboneDelay));
    Ipv4AddressHelper backbone("172.16.0.0", "255.255.255.252");
    Ipv4StaticRoutingHelper routing;
    const Ptr<Ipv4StaticRouting> serverRoutes =
        routing.GetStaticRouting(s.serverNode->GetObject<Ipv4>());
    std::vector<Ipv4InterfaceContainer> stationIfaces(numAps);
    for (uint32_t a = 0; a < numAps; ++a)
    {
        const Ptr<Node> ap = s.infrastructure.Get(a);
        const Ipv4InterfaceContainer link =
            backbone.Assign(p2p.Install(NodeContainer(s.serverNode, ap)));
        backbone.NewNetwork();
        if (a == 0)
        {
            s.serverAddress = link.GetAddress(0);
        }
        const Ipv4Address cellNet(((10u << 24) | ((a + 1) << 16)));
        const Ipv4Mask cellMask("255.255.0.0");
        Ipv4AddressHelper cellAddresses(cellNet, cellMask);
        const Ipv4InterfaceContainer cell = cellAddresses.Assign(cells[a]);
        serverRoutes->AddNetworkRouteTo(cellNet, cellMask, link.GetAddress(1), link.Get(0).second);
        routing.GetStaticRouting(ap->GetObject<Ipv4>())
            ->SetDefaultRoute(link.GetAddress(0), link.Get(1).second);
        for (uint32_t k = 1; k < cell.GetN(); ++k)
        {
            const Ptr<Ipv4> station = cell.Get(k).first;
            routing.GetStaticRouting(station)->SetDefaultRoute(cell.GetAddress(0),
                                                               cell.Get(k).second);
            stationIfaces[a].Add(cell.Get(k));
        }
    }
    for (uint32_t i = 0; i < numClients; ++i)
    {
        s.clientInterfaces.Add(stationIfaces[ApOf(i, numAps)].Get(i / numAps));
    }
    AttachWifiLinkState(s, numAps);
    NS_LOG_INFO("Wi-Fi ESS: " << numAps << " APs, " << numClients << " stations, server "
                              << s.serverAddress);
    return s;
}

} // namespace ns3
