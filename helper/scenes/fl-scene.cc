/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * FlScene's link state, the fidelity and flow media, the scene helpers' shared settings, and the
 * helpers every scene's source uses (fl-scene-internal.h).
 */
#include "ns3/fl-scene.h"
#include "ns3/fl-scene-internal.h"

#include "ns3/abort.h"
#include "ns3/arp-cache.h"
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
#include "ns3/fl-types.h"
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

NS_LOG_COMPONENT_DEFINE("FlNetworkScenarios");

LogComponent&
FlNetworkScenariosLog()
{
    return g_log;
}

using namespace flscene;

namespace flscene
{

/// The scene's server node followed by its client nodes.
NodeContainer
ServerAndClients(const FlScene& scene)
{
    return NodeContainer(NodeContainer(scene.serverNode), scene.clients);
}

/**
 * One subnet for the whole scene: Internet stack on the server and the clients, IPv4 addresses
 * in 10.1.0.0/16 on scene.devices (the server's first, then one per client in order); sets
 * serverAddress (10.1.0.1) and clientInterfaces.
 */
void
AddressOneSubnet(FlScene& scene)
{
    InternetStackHelper internet;
    internet.Install(ServerAndClients(scene));
    Ipv4AddressHelper address;
    address.SetBase("10.1.0.0", "255.255.0.0");
    Ipv4InterfaceContainer ifaces = address.Assign(scene.devices);
    scene.serverAddress = ifaces.GetAddress(0);
    for (uint32_t i = 1; i < ifaces.GetN(); ++i)
    {
        scene.clientInterfaces.Add(ifaces.Get(i));
    }
}

/// Fixes the streams of the Internet stacks (ARP jitter, ...) of the server and the clients.
int64_t
AssignInternetStreams(const FlScene& scene, int64_t stream)
{
    return InternetStackHelper().AssignStreams(ServerAndClients(scene), stream);
}


/// The nodes of the container that have no MobilityModel yet.
NodeContainer
WithoutMobility(const NodeContainer& nodes)
{
    NodeContainer out;
    for (uint32_t i = 0; i < nodes.GetN(); ++i)
    {
        if (!nodes.Get(i)->GetObject<MobilityModel>())
        {
            out.Add(nodes.Get(i));
        }
    }
    return out;
}

/// Uniform positions on a disc of the radius around the origin, drawn from kFlPositionStream.
Ptr<UniformDiscPositionAllocator>
PositionDisc(double radius)
{
    Ptr<UniformDiscPositionAllocator> disc = CreateObject<UniformDiscPositionAllocator>();
    disc->SetRho(radius);
    disc->SetX(0.0);
    disc->SetY(0.0);
    // A fixed stream: every scene built in a process gets the same positions for one --RngRun
    // (parameter sweeps compare like with like); another --RngRun moves the nodes.
    disc->AssignStreams(kFlPositionStream);
    return disc;
}

/// Places the nodes uniformly at random on a disc of the radius around the origin.
void
PlaceOnDisc(const NodeContainer& nodes, double radius)
{
    MobilityHelper mobility;
    mobility.SetMobilityModel("ns3::ConstantPositionMobilityModel");
    mobility.SetPositionAllocator(PositionDisc(radius));
    mobility.Install(nodes);
}

/// Gives the node a ConstantPositionMobilityModel at `position`.
void
PlaceAt(Ptr<Node> node, const Vector& position)
{
    Ptr<ConstantPositionMobilityModel> m = CreateObject<ConstantPositionMobilityModel>();
    m->SetPosition(position);
    node->AggregateObject(m);
}

/// Places the node at the origin (a node with a MobilityModel keeps it).
void
PlaceAtOrigin(Ptr<Node> node)
{
    if (node->GetObject<MobilityModel>())
    {
        return;
    }
    MobilityHelper mobility;
    mobility.SetMobilityModel("ns3::ConstantPositionMobilityModel");
    mobility.Install(node);
}

/**
 * The calibrated flow-level parameters of an 802.11 cell (one spatial stream, the default
 * channel width of WifiStandardSettings, stations close enough for the top MCS). The PHY rate
 * is the top rate of IdealWifiManager; efficiency (MAC/ACK airtime, aggregation), contention
 * and the per-message time were fitted to packet-level FedAvg runs (see the module
 * documentation, "Flow-level fidelity").
 */
FlFlowMedium
WifiFlowMedium(const std::string& standard, double& phyRate)
{
    FlFlowMedium m;
    m.kind = "wifi";
    m.name = "Wi-Fi " + standard + " cell";
    m.headerBytes = 52 + 40; // TCP/IP, then MAC header, FCS and LLC per MPDU
    if (standard == "80211a" || standard == "80211g")
    {
        phyRate = 54e6;
        m.efficiency = 0.50; // no aggregation: DIFS, backoff, preamble and ACK per frame
        m.perMessageDelay = MicroSeconds(300);
    }
    else if (standard == "80211n")
    {
        phyRate = 65e6;
        m.efficiency = 0.868; // A-MPDU and block ACK
        m.perMessageDelay = MicroSeconds(0);
        m.discipline = fl::SharingDiscipline::BySize;
        m.burstBytes = 65535;
    }
    else if (standard == "80211ac")
    {
        phyRate = 390e6;
        m.efficiency = 0.70;
        m.perMessageDelay = MicroSeconds(500);
    }
    else
    {
        phyRate = 600.5e6; // 80211ax
        m.efficiency = 0.70;
        m.perMessageDelay = MicroSeconds(500);
    }
    m.contention = 0.01;
    // PerSender: BySize (bulk messages interleaved) and a bulk-load penalty fitted on 10 and
    // 20 stations both did worse on the validation runs (module documentation)
    return m;
}

/// The calibrated flow-level parameters of a CSMA LAN of the given rate.
FlFlowMedium
CsmaFlowMedium(DataRate rate)
{
    FlFlowMedium m;
    m.kind = "csma";
    m.name = "CSMA LAN";
    m.rateBps = static_cast<double>(rate.GetBitRate());
    m.headerBytes = 52 + 18 + 20; // TCP/IP, Ethernet header and FCS, preamble and gap
    m.efficiency = 0.97;
    m.contention = 0.0;
    m.perMessageDelay = MicroSeconds(100);
    // short messages leave in one burst, bulk ones (above TCP's initial window) are
    // interleaved with the station's other connections (module documentation, "Flow-level
    // fidelity"); no bulk-load penalty: one fitted on 10 and 20 clients failed validation
    m.discipline = fl::SharingDiscipline::BySize;
    return m;
}

/// The LTE downlink and uplink goodput [b/s] of a cell of `rbs` resource blocks (SISO, top MCS).
std::pair<double, double>
LteFlowRates(uint16_t rbs)
{
    // ns-3's LTE PHY with the UEs close to the eNB: about 0.93 Mb/s (DL) and 0.52 Mb/s (UL)
    // per resource block of TCP goodput (calibrated on 25 RBs)
    return {0.932e6 * rbs, 0.518e6 * rbs};
}

/// IPv4 address `base` + `offset`.
Ipv4Address
AddressPlus(Ipv4Address base, uint32_t offset)
{
    return Ipv4Address(base.Get() + offset);
}

/**
 * A flow-level scene with one medium for everybody (Wi-Fi cell, CSMA LAN): the server
 * 10.1.0.1, the clients 10.1.0.2, ... (the addresses of AddressOneSubnet).
 */
FlScene
BuildFlowOneSubnet(FlScene s,
                   const FlFlowMedium& medium,
                   double rate,
                   Time latency,
                   double loss)
{
    const uint32_t numClients = s.clients.GetN();
    s.flowNetwork = CreateObject<FlFlowNetwork>();
    const int32_t id = s.flowNetwork->AddMedium(medium);
    const Ipv4Address base("10.1.0.0");
    FlFlowInterface server;
    server.address = AddressPlus(base, 1);
    server.mask = Ipv4Mask("255.255.0.0");
    server.txMedium = id;
    server.rxMedium = id;
    server.rateBps = rate;
    server.latency = latency;
    s.flowNetwork->AddInterface(s.serverNode, server);
    s.serverAddress = server.address;
    for (uint32_t i = 0; i < numClients; ++i)
    {
        FlFlowInterface c = server;
        c.address = AddressPlus(base, 2 + i);
        c.lossProbability = loss;
        s.flowNetwork->AddInterface(s.clients.Get(i), c);
    }
    return s;
}

/// Gives the scene's link-state query to the server node's FlSceneLinkState (created if none).
void
AttachLinkState(Ptr<Node> server, FlSceneLinkState::Query query)
{
    Ptr<FlSceneLinkState> ls = server->GetObject<FlSceneLinkState>();
    if (!ls)
    {
        ls = CreateObject<FlSceneLinkState>();
        server->AggregateObject(ls);
    }
    ls->SetQuery(std::move(query));
}

} // namespace flscene

// --------------------------------------------------------------------- link state

NS_OBJECT_ENSURE_REGISTERED(FlSceneLinkState);

TypeId
FlSceneLinkState::GetTypeId()
{
    static TypeId tid = TypeId("ns3::FlSceneLinkState")
                            .SetParent<Object>()
                            .SetGroupName("Fl")
                            .AddConstructor<FlSceneLinkState>();
    return tid;
}

void
FlSceneLinkState::SetQuery(Query query)
{
    m_query = std::move(query);
}

FlLinkState
FlSceneLinkState::Get(uint32_t client) const
{
    return m_query ? m_query(client) : FlLinkState();
}

void
FlSceneLinkState::DoDispose()
{
    m_query = nullptr; // it may hold the scene's devices
    Object::DoDispose();
}

double
FlNodeDistance(Ptr<Node> a, Ptr<Node> b)
{
    Ptr<MobilityModel> ma = a ? a->GetObject<MobilityModel>() : nullptr;
    Ptr<MobilityModel> mb = b ? b->GetObject<MobilityModel>() : nullptr;
    if (!ma || !mb)
    {
        return std::numeric_limits<double>::quiet_NaN();
    }
    return ma->GetDistanceFrom(mb);
}

Ptr<FlSceneLinkState>
FlGetSceneLinkState(Ptr<Node> serverNode)
{
    return serverNode ? serverNode->GetObject<FlSceneLinkState>() : nullptr;
}

double
FlSnrDb(double signalDbm, double noiseDbm)
{
    return signalDbm - noiseDbm;
}

// --------------------------------------------------------------------- shared settings

FlSceneHelperBase::FlSceneHelperBase(const char* name)
    : m_name(name)
{
}

void
FlSceneHelperBase::SetFidelity(FlFidelity fidelity)
{
    m_fidelity = fidelity;
}

void
FlSceneHelperBase::SetFlowMessageLoss(double probability)
{
    if (!(probability >= 0.0 && probability <= 1.0))
    {
        NS_FATAL_ERROR(m_name << ": message loss " << probability
                              << " is not a probability; use a value in [0, 1]");
    }
    m_flowLoss = probability;
}

FlFlowMedium
FlWifiFlowMedium(const std::string& standard, double& phyRate)
{
    return WifiFlowMedium(standard, phyRate);
}

FlFlowMedium
FlCsmaFlowMedium(DataRate rate)
{
    return CsmaFlowMedium(rate);
}

FlFidelity
ParseFlFidelity(const std::string& name, const std::string& what)
{
    if (name == "packet")
    {
        return FlFidelity::Packet;
    }
    if (name == "flow")
    {
        return FlFidelity::Flow;
    }
    throw fl::ConfigError(what, "'" + name + "' is not a network fidelity", "use packet or flow");
}

std::size_t
FlPrintFlowWarnings(const std::string& program, const FlScene& scene)
{
    if (!scene.flowNetwork)
    {
        return 0;
    }
    const auto warnings = scene.flowNetwork->ValidityWarnings();
    for (const auto& w : warnings)
    {
        FlWarnOnce(program + ": warning: flow-level network: " + w +
                   "; compare with --network=packet before trusting its times");
    }
    return warnings.size();
}

bool
FlWarnOnce(const std::string& line)
{
    static std::mutex mutex;
    static std::set<std::string> written;
    std::lock_guard<std::mutex> lock(mutex);
    if (!written.insert(line).second)
    {
        return false;
    }
    std::cerr << line << std::endl;
    return true;
}

void
FlSceneHelperBase::SetNodes(Ptr<Node> server, const NodeContainer& clients)
{
    const std::string who = std::string(m_name) + "::SetNodes";
    if (!server)
    {
        throw fl::ConfigError(who, "the server node is null", "give the server's node");
    }
    if (clients.GetN() == 0)
    {
        throw fl::ConfigError(who, "no client nodes", "give at least one client node");
    }
    for (uint32_t i = 0; i < clients.GetN(); ++i)
    {
        if (clients.Get(i) == server)
        {
            throw fl::ConfigError(who,
                                  "client " + std::to_string(i) + " is the server's node",
                                  "give the server and the clients distinct nodes");
        }
    }
    m_userServer = server;
    m_userClients = clients;
}

FlScene
FlSceneHelperBase::NewScene(uint32_t numClients) const
{
    FlScene s;
    if (!m_userServer)
    {
        s.serverNode = CreateObject<Node>();
        s.clients.Create(numClients);
        return s;
    }
    if (numClients != m_userClients.GetN())
    {
        throw fl::ConfigError(std::string(m_name) + "::Build",
                              "numClients " + std::to_string(numClients) + " but SetNodes gave " +
                                  std::to_string(m_userClients.GetN()) + " client nodes",
                              "build as many clients as the nodes given to SetNodes");
    }
    s.serverNode = m_userServer;
    s.clients = m_userClients;
    const NodeContainer all = ServerAndClients(s);
    for (uint32_t i = 0; i < all.GetN(); ++i)
    {
        const Ptr<Node> node = all.Get(i);
        if (node->GetObject<Ipv4>())
        {
            throw fl::ConfigError(std::string(m_name) + "::SetNodes",
                                  "node " + std::to_string(node->GetId()) +
                                      " already has an Internet stack",
                                  "give nodes without one: the scene installs it");
        }
    }
    return s;
}

void
FlSceneHelperBase::CheckClients(uint32_t numClients) const
{
    if (numClients == 0)
    {
        NS_FATAL_ERROR(m_name << ": numClients is 0; build at least one client");
    }
}

void
FlSceneHelperBase::CheckDataRate(const char* what, DataRate rate) const
{
    if (rate.GetBitRate() == 0)
    {
        NS_FATAL_ERROR(m_name << ": " << what << " is 0; use a positive rate, e.g. 10Mb/s");
    }
}

void
FlSceneHelperBase::CheckDelay(const char* what, Time delay) const
{
    if (delay.IsStrictlyNegative())
    {
        NS_FATAL_ERROR(m_name << ": " << what << " " << delay << " is negative; use a delay >= 0");
    }
}

FlWiredSceneHelperBase::FlWiredSceneHelperBase(const char* name, DataRate rate, Time delay)
    : FlSceneHelperBase(name),
      m_dataRate(rate),
      m_delay(delay)
{
}

void
FlWiredSceneHelperBase::SetDataRate(DataRate rate)
{
    CheckDataRate("data rate", rate);
    m_dataRate = rate;
}

void
FlWiredSceneHelperBase::SetDelay(Time delay)
{
    CheckDelay("delay", delay);
    m_delay = delay;
}

FlRadioSceneHelperBase::FlRadioSceneHelperBase(const char* name, double radius)
    : FlSceneHelperBase(name),
      m_radius(radius)
{
}

void
FlRadioSceneHelperBase::SetPositionAllocator(Ptr<PositionAllocator> allocator)
{
    m_positions = allocator;
}

void
FlRadioSceneHelperBase::PlaceClients(const NodeContainer& clients) const
{
    const NodeContainer unplaced = WithoutMobility(clients);
    if (unplaced.GetN() == 0)
    {
        return;
    }
    if (m_mobility.Moves())
    {
        CheckMobilityFidelity();
        m_mobility.Install(unplaced);
        return;
    }
    if (!m_positions)
    {
        PlaceOnDisc(unplaced, m_radius);
        return;
    }
    MobilityHelper mobility;
    mobility.SetMobilityModel("ns3::ConstantPositionMobilityModel");
    mobility.SetPositionAllocator(m_positions);
    mobility.Install(unplaced);
}

void
FlRadioSceneHelperBase::SetClientMobility(const FlClientMobilityHelper& preset)
{
    m_mobility = preset;
}

void
FlRadioSceneHelperBase::CheckMobilityFidelity() const
{
    if (m_mobility.Moves() && m_fidelity == FlFidelity::Flow)
    {
        throw fl::ConfigError("SetClientMobility",
                              std::string(m_name) + ": the mobility preset '" +
                                  m_mobility.GetName() +
                                  "' moves the clients, and the flow-level network has no "
                                  "positions",
                              "use packet fidelity with moving clients, or the fixed preset");
    }
}

void
FlRadioSceneHelperBase::SetRadius(double meters)
{
    if (!(meters >= 0.0))
    {
        NS_FATAL_ERROR(m_name << ": radius " << meters << " m is invalid; use a radius >= 0");
    }
    m_radius = meters;
}

} // namespace ns3
