/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ns3/fl-network-scenarios.h"

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

namespace
{

/**
 * Wi-Fi standard and channel settings ("{number, width, band, 0}") for a standard name:
 * 80211a (ch. 36, 20 MHz), 80211g (ch. 1, 2.4 GHz), 80211n (ch. 36, 20 MHz), 80211ac and
 * 80211ax (ch. 42, 80 MHz). Stops with a message naming `who` on an unknown name.
 */
std::pair<WifiStandard, std::string>
WifiStandardSettings(const std::string& name, const char* who)
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
        return {FL_WIFI_STANDARD_80211N, "{36, 20, BAND_5GHZ, 0}"};
    }
    if (name == "80211ac")
    {
        return {WIFI_STANDARD_80211ac, "{42, 80, BAND_5GHZ, 0}"};
    }
    if (name == "80211ax")
    {
        return {FL_WIFI_STANDARD_80211AX, "{42, 80, BAND_5GHZ, 0}"};
    }
    NS_FATAL_ERROR(who << ": unknown Wi-Fi standard '" << name
                       << "'; use 80211a, 80211g, 80211n, 80211ac or 80211ax");
}

/**
 * Second half of the block-ack workaround (FlWifiSceneHelperBase::SetBlockAckWorkaround), after
 * installation: BE_BlockAckThreshold = 1 and AddBaResponseTimeout = 200 ms on the best-effort
 * queue of every Wi-Fi device.
 */
void
ApplyBlockAckWorkaround(const NetDeviceContainer& devices)
{
    for (auto it = devices.Begin(); it != devices.End(); ++it)
    {
        Ptr<WifiNetDevice> dev = DynamicCast<WifiNetDevice>(*it);
        // Block-ack agreement before the first burst; a longer wait for the ADDBA response.
        dev->GetMac()->SetAttribute("BE_BlockAckThreshold", UintegerValue(1));
        PointerValue beTxop; // the attribute exists in every release (GetQosTxop since 3.36)
        dev->GetMac()->GetAttribute("BE_Txop", beTxop);
        Ptr<QosTxop> be = beTxop.Get<QosTxop>();
        if (be)
        {
            be->SetAttribute("AddBaResponseTimeout", TimeValue(MilliSeconds(200)));
        }
    }
}


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

/// Fixes the streams of the scene's devices (with a DeviceHelper), then of its Internet stacks.
template <typename DeviceHelper>
int64_t
AssignDeviceAndInternetStreams(const FlScene& scene, int64_t stream)
{
    DeviceHelper helper;
    const int64_t used = helper.AssignStreams(scene.devices, stream);
    return used + AssignInternetStreams(scene, stream + used);
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

/**
 * What the server's Wi-Fi PHY observes of each client: the rate and SNR of the last data frame
 * it received from the client's MAC address (a passive trace sink).
 */
struct WifiLinkObserver : public SimpleRefCount<WifiLinkObserver>
{
    std::map<Mac48Address, uint32_t> clientOf; ///< a client's MAC address -> its client index
    std::vector<double> rateBps;               ///< per client, NaN until its first data frame
    std::vector<double> snrDb;                 ///< per client, NaN until its first data frame

    /// A frame (MAC header first) received with this TXVECTOR, signal and noise.
    void Observe(Ptr<const Packet> packet, const WifiTxVector& tx, double signalDbm, double noiseDbm)
    {
        WifiMacHeader hdr;
        if (!packet || packet->GetSize() < hdr.GetSerializedSize() ||
            packet->PeekHeader(hdr) == 0 || !hdr.IsData())
        {
            return;
        }
        auto it = clientOf.find(hdr.GetAddr2());
        if (it == clientOf.end())
        {
            return;
        }
        rateBps[it->second] = static_cast<double>(tx.GetMode().GetDataRate(tx));
        snrDb[it->second] = FlSnrDb(signalDbm, noiseDbm);
    }

    /**
     * The sink of WifiPhy "MonitorSnifferRx" (packet, channel frequency, TXVECTOR, MPDU info,
     * signal and noise, STA-ID), whatever the types the ns-3 release gives them.
     */
    template <typename... A>
    void OnSnifferRx(A... args)
    {
        const auto t = std::forward_as_tuple(args...);
        Observe(std::get<0>(t), std::get<2>(t), std::get<4>(t).signal, std::get<4>(t).noise);
    }
};

/// Connects a WifiLinkObserver to a PHY's MonitorSnifferRx with the release's signature.
template <typename F>
struct SnifferRxConnector;

template <typename... A>
struct SnifferRxConnector<void (*)(A...)>
{
    static bool Connect(Ptr<WifiPhy> phy, Ptr<WifiLinkObserver> observer)
    {
        return phy->TraceConnectWithoutContext(
            "MonitorSnifferRx",
            MakeCallback(&WifiLinkObserver::template OnSnifferRx<A...>, observer));
    }
};

/**
 * The Wi-Fi scenes' link state: the server's PHY (the APs' PHYs: s.devices.Get(0 .. aps - 1))
 * listens to the clients' data frames (client i is s.devices.Get(aps + i)); each frame of a
 * station reaches its own AP's PHY only.
 */
void
AttachWifiLinkState(const FlScene& s, uint32_t aps = 1)
{
    Ptr<WifiLinkObserver> observer = Create<WifiLinkObserver>();
    const uint32_t n = s.clients.GetN();
    observer->rateBps.assign(n, std::numeric_limits<double>::quiet_NaN());
    observer->snrDb.assign(n, std::numeric_limits<double>::quiet_NaN());
    for (uint32_t i = 0; i < n; ++i)
    {
        observer->clientOf[Mac48Address::ConvertFrom(s.devices.Get(aps + i)->GetAddress())] = i;
    }
    for (uint32_t a = 0; a < aps; ++a)
    {
        Ptr<WifiNetDevice> ap = DynamicCast<WifiNetDevice>(s.devices.Get(a));
        NS_ABORT_MSG_IF(!ap, "FlWifiSceneHelperBase: the server's (the AP's) device is not Wi-Fi");
        const bool connected =
            SnifferRxConnector<WifiPhy::MonitorSnifferRxCallback>::Connect(ap->GetPhy(), observer);
        NS_ABORT_MSG_IF(!connected, "FlWifiSceneHelperBase: cannot connect MonitorSnifferRx");
    }
    AttachLinkState(s.serverNode, [observer](uint32_t client) {
        FlLinkState st;
        if (client < observer->rateBps.size())
        {
            st.rateBps = observer->rateBps[client];
            st.snrDb = observer->snrDb[client];
        }
        return st;
    });
}

/// What the eNB's PHY reports of each UE: the last uplink SINR per RNTI.
struct LteLinkObserver : public SimpleRefCount<LteLinkObserver>
{
    std::map<uint16_t, double> sinrDb; ///< RNTI -> last uplink SINR [dB]

    /// The sink of LteEnbPhy "ReportUeSinr".
    void OnUeSinr(uint16_t /* cellId */, uint16_t rnti, double sinrLinear, uint8_t /* cc */)
    {
        sinrDb[rnti] = fl::ToDb(sinrLinear);
    }
};

/// The LTE scene's link state: the eNB's uplink SINR reports of each UE.
void
AttachLteLinkState(const FlScene& s, Ptr<NetDevice> enbDevice, const NetDeviceContainer& ueDevs)
{
    Ptr<LteEnbNetDevice> enb = DynamicCast<LteEnbNetDevice>(enbDevice);
    NS_ABORT_MSG_IF(!enb, "FlLteSceneHelper: the eNB's device is not LTE");
    Ptr<LteLinkObserver> observer = Create<LteLinkObserver>();
    const bool connected = enb->GetPhy()->TraceConnectWithoutContext(
        "ReportUeSinr",
        MakeCallback(&LteLinkObserver::OnUeSinr, observer));
    NS_ABORT_MSG_IF(!connected, "FlLteSceneHelper: cannot connect ReportUeSinr");
    std::vector<Ptr<LteUeNetDevice>> ues;
    for (uint32_t i = 0; i < ueDevs.GetN(); ++i)
    {
        ues.push_back(DynamicCast<LteUeNetDevice>(ueDevs.Get(i)));
    }
    AttachLinkState(s.serverNode, [observer, ues](uint32_t client) {
        FlLinkState st;
        if (client < ues.size() && ues[client] && ues[client]->GetRrc())
        {
            auto it = observer->sinrDb.find(ues[client]->GetRrc()->GetRnti());
            if (it != observer->sinrDb.end())
            {
                st.snrDb = it->second;
            }
        }
        return st;
    });
}

} // namespace

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
FlRadioSceneHelperBase::SetRadius(double meters)
{
    if (!(meters >= 0.0))
    {
        NS_FATAL_ERROR(m_name << ": radius " << meters << " m is invalid; use a radius >= 0");
    }
    m_radius = meters;
}

// ------------------------------------------------------------------------------------ Wi-Fi

FlWifiSceneHelperBase::FlWifiSceneHelperBase(const char* name)
    : FlRadioSceneHelperBase(name, 10.0),
      m_standard("80211n"),
      m_rateManager("ns3::IdealWifiManager"),
      m_blockAckWorkaround(true)
{
}

void
FlWifiSceneHelperBase::SetStandard(const std::string& standard)
{
    m_standard = standard;
}

void
FlWifiSceneHelperBase::SetRateManager(const std::string& typeName)
{
    m_rateManager = typeName;
}

void
FlWifiSceneHelperBase::SetBlockAckWorkaround(bool enable)
{
    m_blockAckWorkaround = enable;
}

std::string
FlWifiSceneHelperBase::ConfigureWifi(WifiHelper& wifi, WifiMacHelper& mac) const
{
    const auto [standard, channel] = WifiStandardSettings(m_standard, m_name);
    wifi.SetStandard(standard);
    wifi.SetRemoteStationManager(m_rateManager);
    if (m_blockAckWorkaround)
    {
        // First half of the workaround: explicit BlockAckReq after a missed BlockAck.
        mac.SetAckManager("ns3::WifiDefaultAckManager", "UseExplicitBar", BooleanValue(true));
    }
    return channel;
}

YansWifiPhyHelper
FlWifiSceneHelperBase::NewChannelPhy(const std::string& channel)
{
    YansWifiChannelHelper channelHelper = YansWifiChannelHelper::Default();
    YansWifiPhyHelper phy;
    phy.SetChannel(channelHelper.Create());
    FlSetWifiChannel(phy, channel);
    return phy;
}

void
FlWifiSceneHelperBase::FinishWifiDevices(const NetDeviceContainer& devices) const
{
    if (m_blockAckWorkaround)
    {
        ApplyBlockAckWorkaround(devices);
    }
}

FlScene
FlWifiSceneHelperBase::BuildWifi(uint32_t numClients, const DeviceInstaller& install) const
{
    CheckClients(numClients);
    const std::string channel = WifiStandardSettings(m_standard, m_name).second;
    if (m_fidelity == FlFidelity::Flow)
    {
        double rate = 0.0;
        const FlFlowMedium medium = WifiFlowMedium(m_standard, rate);
        FlScene s =
            BuildFlowOneSubnet(NewScene(numClients), medium, rate, MicroSeconds(25), m_flowLoss);
        if (dynamic_cast<const FlWifiScenarioHelper*>(this))
        {
            // the stations associate as in ns-3: all scan at once, then those whose request
            // found no answer try again 0.5 s later (fl::AssociationModel, drawn per run)
            std::vector<Ptr<Node>> stations(s.clients.Begin(), s.clients.End());
            s.flowNetwork->SetAssociation(stations, fl::AssociationModel{});
        }
        if (m_radius > 10.0)
        {
            s.flowNetwork->AddWarning("radius " + std::to_string(m_radius) +
                                      " m: the model gives every station the top MCS, "
                                      "validated up to 10 m");
        }
        if (m_rateManager != "ns3::IdealWifiManager")
        {
            s.flowNetwork->AddWarning("rate manager " + m_rateManager +
                                      ": the model was calibrated with ns3::IdealWifiManager");
        }
        return s;
    }

    FlScene s = NewScene(numClients);

    const YansWifiPhyHelper phy = NewChannelPhy(channel);
    WifiHelper wifi;
    WifiMacHelper mac;
    ConfigureWifi(wifi, mac);
    s.devices = install(s, wifi, phy, mac);
    FinishWifiDevices(s.devices);

    PlaceAtOrigin(s.serverNode);
    PlaceClients(s.clients);
    AddressOneSubnet(s);
    AttachWifiLinkState(s);
    return s;
}

int64_t
FlWifiSceneHelperBase::AssignStreams(const FlScene& scene, int64_t stream)
{
    if (scene.flowNetwork)
    {
        return scene.flowNetwork->AssignStreams(stream);
    }
    int64_t used = AssignDeviceAndInternetStreams<WifiHelper>(scene, stream);
    if (scene.infrastructure.GetN() > 0)
    {
        used += InternetStackHelper().AssignStreams(scene.infrastructure, stream + used);
    }
    return used;
}

FlWifiScenarioHelper::FlWifiScenarioHelper()
    : FlWifiSceneHelperBase("FlWifiScenarioHelper")
{
}

namespace
{

/// One infrastructure BSS: the AP's device on `ap` first, then the stations' in node order.
NetDeviceContainer
InstallBss(const WifiHelper& wifi,
           const YansWifiPhyHelper& phy,
           WifiMacHelper& mac,
           const Ssid& ssid,
           Ptr<Node> ap,
           const NodeContainer& stations)
{
    const NetDeviceContainer stationDevices = FlInstallWifiStations(wifi, phy, mac, ssid, stations);
    mac.SetType("ns3::ApWifiMac", "Ssid", SsidValue(ssid));
    const NetDeviceContainer apDevice = wifi.Install(phy, mac, ap);
    return NetDeviceContainer(apDevice, stationDevices);
}

} // namespace

FlScene
FlWifiScenarioHelper::Build(uint32_t numStations) const
{
    return BuildWifi(
        numStations,
        [](const FlScene& scene,
           const WifiHelper& wifi,
           const YansWifiPhyHelper& phy,
           WifiMacHelper& mac) {
            return InstallBss(wifi, phy, mac, Ssid("fl-bss"), scene.serverNode, scene.clients);
        });
}

// -------------------------------------------------------------------------------- Wi-Fi ESS

FlWifiEssSceneHelper::FlWifiEssSceneHelper()
    : FlWifiSceneHelperBase("FlWifiEssSceneHelper"),
      m_aps(2),
      m_apSpacing(1000.0),
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

uint32_t
FlWifiEssSceneHelper::ApOf(uint32_t client, uint32_t accessPoints)
{
    return client % accessPoints;
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

    // One BSS per AP, each on a channel object of its own.
    WifiHelper wifi;
    WifiMacHelper mac;
    const std::string channel = ConfigureWifi(wifi, mac);
    std::vector<NetDeviceContainer> cells(numAps); // the AP's device, then its stations'
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
    FinishWifiDevices(s.devices);

    // The APs on a grid, each station on a disc around its AP.
    const uint32_t columns =
        static_cast<uint32_t>(std::ceil(std::sqrt(static_cast<double>(numAps))));
    std::vector<Vector> apPosition(numAps);
    for (uint32_t a = 0; a < numAps; ++a)
    {
        apPosition[a] = Vector(m_apSpacing * (a % columns), m_apSpacing * (a / columns), 0.0);
        PlaceAt(s.infrastructure.Get(a), apPosition[a]);
    }
    if (m_positions)
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

NetDeviceContainer
FlInstallWifiStations(const WifiHelper& wifi,
                      const YansWifiPhyHelper& phy,
                      WifiMacHelper& mac,
                      const Ssid& ssid,
                      const NodeContainer& stations)
{
    // ns-3 starts a station's beacon watchdog (MaxMissedBeacons beacon intervals) when it
    // sends its first association request and restarts it only on beacons received once
    // associated: a station whose association took longer (100 stations associating at once:
    // over a second) is disassociated the moment it associates, and the AP answers none of its
    // new requests, so it never reaches the server. 100 intervals (10.24 s) leave room for the
    // association of any BSS these helpers build; no station of these static scenes loses its
    // AP otherwise.
    const UintegerValue missed(kFlMaxMissedBeacons);
    if (stations.GetN() < 2 || FlAssociationStagger(1).IsZero())
    {
        mac.SetType("ns3::StaWifiMac", "Ssid", SsidValue(ssid), "MaxMissedBeacons", missed);
        return wifi.Install(phy, mac, stations);
    }
    NetDeviceContainer devices;
    for (uint32_t i = 0; i < stations.GetN(); ++i)
    {
        mac.SetType("ns3::StaWifiMac",
                    "Ssid",
                    SsidValue(ssid),
                    "WaitBeaconTimeout",
                    TimeValue(MilliSeconds(120) + FlAssociationStagger(i)),
                    "MaxMissedBeacons",
                    missed);
        devices.Add(wifi.Install(phy, mac, stations.Get(i)));
    }
    return devices;
}

namespace
{

/// The data queues of a Wi-Fi MAC: the DCF's, or the four EDCA queues (beacons not included).
std::vector<WifiMacQueue*>
DataQueuesOf(Ptr<WifiMac> mac)
{
    std::vector<WifiMacQueue*> queues;
    for (const char* name : {"Txop", "BE_Txop", "BK_Txop", "VI_Txop", "VO_Txop"})
    {
        PointerValue txop;
        mac->GetAttribute(name, txop);
        if (Ptr<Txop> t = txop.Get<Txop>())
        {
            queues.push_back(PeekPointer(t->GetWifiMacQueue()));
        }
    }
    return queues;
}

bool
AllEmpty(const std::vector<WifiMacQueue*>& queues)
{
    return std::all_of(queues.begin(), queues.end(), [](WifiMacQueue* q) { return q->IsEmpty(); });
}

using FlMpdu = WifiMacQueue::ItemType; ///< what a Wi-Fi MAC queue holds

/// The receive gain of a dozing station [dB]: no signal reaches its PHY.
constexpr double kDeafGainDb = -1000.0;

/**
 * One dozing station of FlDozeIdleStations. The traces it connects hold it; it holds its
 * station's and AP's objects by plain pointers (no reference cycle), which outlive every
 * event it schedules.
 */
class FlDozingStation : public SimpleRefCount<FlDozingStation>
{
  public:
    FlDozingStation(Ptr<WifiPhy> phy,
                    Ptr<StaWifiMac> mac,
                    std::vector<WifiMacQueue*> apQueues,
                    Time guard)
        : m_phy(PeekPointer(phy)),
          m_mac(PeekPointer(mac)),
          m_queues(DataQueuesOf(mac)),
          m_apQueues(std::move(apQueues)),
          m_guard(guard)
    {
    }

    /// Connects the station's traces.
    void Connect()
    {
        for (auto& q : m_queues)
        {
            q->TraceConnectWithoutContext("Enqueue",
                                          MakeCallback(&FlDozingStation::OwnEnqueue, Ptr<FlDozingStation>(this)));
        }
        m_phy->GetState()->TraceConnectWithoutContext(
            "State",
            MakeCallback(&FlDozingStation::PhyState, Ptr<FlDozingStation>(this)));
        m_mac->TraceConnectWithoutContext("MacRx", MakeCallback(&FlDozingStation::MacRx, Ptr<FlDozingStation>(this)));
        m_mac->TraceConnectWithoutContext("Assoc", MakeCallback(&FlDozingStation::Assoc, Ptr<FlDozingStation>(this)));
    }

    /// A frame for this station is queued (at the AP or here): wake up now.
    void Wake()
    {
        if (m_phy->IsStateSleep())
        {
            NS_LOG_DEBUG("station " << m_mac->GetAddress() << " wakes");
            if (m_deaf)
            {
                m_phy->SetRxGain(m_rxGain);
                m_deaf = false;
            }
            m_phy->ResumeFromSleep();
        }
        Activity(Simulator::Now());
    }

  private:
    void OwnEnqueue(Ptr<const FlMpdu>)
    {
        // not from within the queue's own insertion: waking makes the MAC look at the queue
        if (m_phy->IsStateSleep())
        {
            Simulator::ScheduleNow(&FlDozingStation::Wake, this);
        }
        else
        {
            Activity(Simulator::Now());
        }
    }

    void PhyState(Time start, Time duration, WifiPhyState state)
    {
        if (state == WifiPhyState::TX)
        {
            Activity(start + duration);
        }
    }

    void MacRx(Ptr<const Packet>)
    {
        Activity(Simulator::Now());
    }

    void Assoc(Mac48Address)
    {
        Activity(Simulator::Now());
    }

    void Activity(Time end)
    {
        m_last = std::max(m_last, end);
        if (!FlIsPending(m_check))
        {
            m_check = Simulator::Schedule(m_last + m_guard - Simulator::Now(),
                                          &FlDozingStation::Check,
                                          this);
        }
    }

  public:
    /// Dozes now, associated or not (at time 0, before a probing station's first frame).
    void DozeNow()
    {
        if (!m_phy->IsStateSleep() && m_phy->IsStateIdle())
        {
            Doze();
        }
    }

  private:

    void Check()
    {
        if (m_phy->IsStateSleep())
        {
            return;
        }
        const Time due = m_last + m_guard;
        if (Simulator::Now() < due)
        {
            m_check = Simulator::Schedule(due - Simulator::Now(), &FlDozingStation::Check, this);
            return;
        }
        if (!m_mac->IsAssociated())
        {
            return; // checked again once associated
        }
        const bool quiet = m_phy->IsStateIdle() || m_phy->IsStateCcaBusy();
        if (!quiet || !AllEmpty(m_queues) || !AllEmpty(m_apQueues))
        {
            Activity(Simulator::Now()); // look again a guard later
            return;
        }
        Doze();
    }

    void Doze()
    {
        NS_LOG_DEBUG("station " << m_mac->GetAddress() << " dozes");
        // Asleep through a moment off: SetOffMode cancels a preamble detection in progress,
        // which SetSleepMode alone would let run into a reception while asleep; the PPDU it
        // leaves among the PHY's current preamble events is cleared by ResumeFromSleep.
        m_phy->SetOffMode();
        m_phy->ResumeFromOff();
        m_phy->SetSleepMode();
        // and deaf: the channel drops each frame for it before its PHY (YANS and spectrum
        // channels discard a signal below the receiver's sensitivity), which is most of what
        // a sleeping receiver still costs
        m_rxGain = m_phy->GetRxGain();
        m_phy->SetRxGain(kDeafGainDb);
        m_deaf = true;
    }

    WifiPhy* m_phy;
    StaWifiMac* m_mac;
    std::vector<WifiMacQueue*> m_queues;
    std::vector<WifiMacQueue*> m_apQueues;
    Time m_guard;
    Time m_last;
    EventId m_check;
    double m_rxGain{0.0};
    bool m_deaf{false};
};

/// The AP's side of FlDozeIdleStations: wakes the station a queued frame is for.
class FlDozingCell : public SimpleRefCount<FlDozingCell>
{
  public:
    std::map<Mac48Address, Ptr<FlDozingStation>> stations; ///< by MAC address

    void ApEnqueue(Ptr<const FlMpdu> mpdu)
    {
        const Mac48Address to = mpdu->GetHeader().GetAddr1();
        if (to.IsGroup())
        {
            for (auto& kv : stations)
            {
                kv.second->Wake();
            }
            return;
        }
        auto it = stations.find(to);
        if (it != stations.end())
        {
            it->second->Wake();
        }
    }
};

} // namespace

void
FlDozeIdleStations(Ptr<NetDevice> ap,
                   const NetDeviceContainer& stations,
                   Time guard,
                   bool fromStart)
{
    Ptr<WifiNetDevice> apDevice = DynamicCast<WifiNetDevice>(ap);
    if (!apDevice || !guard.IsStrictlyPositive())
    {
        NS_FATAL_ERROR("FlDozeIdleStations: "
                       << (apDevice ? "the guard time must be > 0" : "the AP is not a Wi-Fi device"));
    }
    const std::vector<WifiMacQueue*> apQueues = DataQueuesOf(apDevice->GetMac());
    Ptr<FlDozingCell> cell = Create<FlDozingCell>();
    for (uint32_t i = 0; i < stations.GetN(); ++i)
    {
        Ptr<WifiNetDevice> dev = DynamicCast<WifiNetDevice>(stations.Get(i));
        Ptr<StaWifiMac> mac = dev ? DynamicCast<StaWifiMac>(dev->GetMac()) : nullptr;
        if (!mac)
        {
            continue;
        }
        // a dozing station misses beacons: it must not take that for a lost AP
        mac->SetAttribute("MaxMissedBeacons", UintegerValue(1000000));
        Ptr<FlDozingStation> station = Create<FlDozingStation>(dev->GetPhy(), mac, apQueues, guard);
        station->Connect();
        cell->stations[mac->GetAddress()] = station;
        if (fromStart)
        {
            Simulator::Schedule(Seconds(0), &FlDozingStation::DozeNow, station);
        }
    }
    for (auto* q : apQueues)
    {
        q->TraceConnectWithoutContext("Enqueue", MakeCallback(&FlDozingCell::ApEnqueue, cell));
    }
}

namespace
{
/// The permanent ARP entries of one device (FlPopulateArpCaches).
struct FlStaticArpEntries : public SimpleRefCount<FlStaticArpEntries>
{
    Ipv4Interface* iface{nullptr};                       ///< the device's IPv4 interface
    std::vector<std::pair<Ipv4Address, Address>> peers; ///< IPv4 address -> MAC address

    /// Writes the entries into the interface's ARP cache.
    void Write() const
    {
        Ptr<ArpCache> cache = iface->GetArpCache();
        if (!cache)
        {
            return;
        }
        for (const auto& [ip, mac] : peers)
        {
            ArpCache::Entry* entry = cache->Lookup(ip);
            if (entry == nullptr)
            {
                entry = cache->Add(ip);
            }
            entry->SetMacAddress(mac);
            entry->MarkPermanent();
        }
    }
};
} // namespace

void
FlPopulateArpCaches(const NetDeviceContainer& devices)
{
    // each device's IPv4 interface (null without IPv4)
    std::vector<Ptr<Ipv4Interface>> interfaces;
    for (uint32_t i = 0; i < devices.GetN(); ++i)
    {
        Ptr<NetDevice> d = devices.Get(i);
        Ptr<Ipv4L3Protocol> ipv4 = d->GetNode()->GetObject<Ipv4L3Protocol>();
        const int32_t index = ipv4 ? ipv4->GetInterfaceForDevice(d) : -1;
        interfaces.push_back(index < 0 ? nullptr : ipv4->GetInterface(index));
    }
    for (uint32_t i = 0; i < devices.GetN(); ++i)
    {
        if (!interfaces[i] || !interfaces[i]->GetArpCache())
        {
            continue; // no IPv4, or a device that needs no ARP
        }
        Ptr<FlStaticArpEntries> table = Create<FlStaticArpEntries>();
        table->iface = PeekPointer(interfaces[i]);
        for (uint32_t j = 0; j < devices.GetN(); ++j)
        {
            if (j == i || !interfaces[j])
            {
                continue;
            }
            for (uint32_t a = 0; a < interfaces[i]->GetNAddresses(); ++a)
            {
                const Ipv4InterfaceAddress own = interfaces[i]->GetAddress(a);
                for (uint32_t b = 0; b < interfaces[j]->GetNAddresses(); ++b)
                {
                    const Ipv4Address peer = interfaces[j]->GetAddress(b).GetLocal();
                    if (own.GetLocal().CombineMask(own.GetMask()) ==
                        peer.CombineMask(own.GetMask()))
                    {
                        table->peers.emplace_back(peer, devices.Get(j)->GetAddress());
                    }
                }
            }
        }
        table->Write();
        // ns-3's ARP flushes a device's whole cache, permanent entries too, whenever its link
        // goes up or down (ArpL3Protocol connects ArpCache::Flush to the device's link
        // changes): a Wi-Fi station's link comes up when it associates, after this call, and
        // its entries would be gone. Write them again after every link change (this callback
        // runs after the flush, connected before it).
        devices.Get(i)->AddLinkChangeCallback(FlCallback<void>([table]() { table->Write(); }));
    }
}

FlWifiAdhocSceneHelper::FlWifiAdhocSceneHelper()
    : FlWifiSceneHelperBase("FlWifiAdhocSceneHelper"),
      m_staticArp(true)
{
}

void
FlWifiAdhocSceneHelper::SetStaticArp(bool enable)
{
    m_staticArp = enable;
}

FlScene
FlWifiAdhocSceneHelper::Build(uint32_t numClients) const
{
    FlScene s = BuildWifi(numClients,
                          [](const FlScene& scene,
                             const WifiHelper& wifi,
                             const YansWifiPhyHelper& phy,
                             WifiMacHelper& mac) {
                              mac.SetType("ns3::AdhocWifiMac");
                              return wifi.Install(phy, mac, ServerAndClients(scene));
                          });
    if (m_staticArp && !s.flowNetwork)
    {
        // See SetStaticArp(): no broadcast ARP requests to collide.
        FlPopulateArpCaches(s.devices);
    }
    return s;
}

// ------------------------------------------------------------------------------------- CSMA

FlCsmaSceneHelper::FlCsmaSceneHelper()
    : FlWiredSceneHelperBase("FlCsmaSceneHelper", DataRate("100Mb/s"), NanoSeconds(6560))
{
}

FlScene
FlCsmaSceneHelper::Build(uint32_t numClients) const
{
    CheckClients(numClients);
    if (m_fidelity == FlFidelity::Flow && m_switched)
    {
        throw fl::ConfigError("FlCsmaSceneHelper::SetSwitched",
                              "flow fidelity: the flow-level model has no switched LAN",
                              "build the switched LAN in packet fidelity, or the shared segment "
                              "at flow level (SetSwitched(false))");
    }
    if (m_fidelity == FlFidelity::Flow)
    {
        const FlFlowMedium medium = CsmaFlowMedium(m_dataRate);
        return BuildFlowOneSubnet(NewScene(numClients),
                                  medium,
                                  medium.rateBps,
                                  m_delay,
                                  m_flowLoss);
    }
    FlScene s = NewScene(numClients);
    CsmaHelper csma;
    csma.SetChannelAttribute("DataRate", DataRateValue(m_dataRate));
    csma.SetChannelAttribute("Delay", TimeValue(m_delay));
    if (m_switched)
    {
        const NodeContainer hosts = ServerAndClients(s);
        Ptr<Node> sw = CreateObject<Node>();
        NetDeviceContainer ports;
        for (uint32_t i = 0; i < hosts.GetN(); ++i)
        {
            // one segment (channel) per host: the host's device, then the switch's port
            const NetDeviceContainer link = csma.Install(NodeContainer(hosts.Get(i), sw));
            s.devices.Add(link.Get(0));
            ports.Add(link.Get(1));
            Ptr<Queue<Packet>> queue = DynamicCast<CsmaNetDevice>(link.Get(1))->GetQueue();
            queue->SetAttribute("MaxSize", QueueSizeValue(m_switchQueue));
        }
        BridgeHelper().Install(sw, ports);
        s.infrastructure.Add(sw);
    }
    else
    {
        s.devices = csma.Install(ServerAndClients(s));
    }
    AddressOneSubnet(s);
    const double rateBps = static_cast<double>(m_dataRate.GetBitRate());
    // propagation there and back: one segment, or the host's and the server's through the switch
    const Time rtt = m_delay * (m_switched ? 4 : 2);
    AttachLinkState(s.serverNode, [rateBps, rtt](uint32_t) {
        FlLinkState st;
        st.rateBps = rateBps;
        st.rtt = rtt;
        return st;
    });
    NS_LOG_INFO("CSMA LAN" << (m_switched ? " (switched)" : "") << ": server " << s.serverAddress
                           << " and " << numClients << " clients at " << m_dataRate);
    return s;
}

void
FlCsmaSceneHelper::SetSwitched(bool switched)
{
    m_switched = switched;
}

void
FlCsmaSceneHelper::SetSwitchPortQueueSize(QueueSize size)
{
    if (size.GetValue() == 0)
    {
        throw fl::ConfigError("FlCsmaSceneHelper::SetSwitchPortQueueSize",
                              "a queue of 0",
                              "use at least one packet, e.g. 100p (ns-3's default)");
    }
    m_switchQueue = size;
}

int64_t
FlCsmaSceneHelper::AssignStreams(const FlScene& scene, int64_t stream)
{
    if (scene.flowNetwork)
    {
        return scene.flowNetwork->AssignStreams(stream);
    }
    int64_t used = AssignDeviceAndInternetStreams<CsmaHelper>(scene, stream);
    // a switched LAN's ports back off too
    NetDeviceContainer ports;
    for (uint32_t n = 0; n < scene.infrastructure.GetN(); ++n)
    {
        Ptr<Node> node = scene.infrastructure.Get(n);
        for (uint32_t d = 0; d < node->GetNDevices(); ++d)
        {
            if (DynamicCast<CsmaNetDevice>(node->GetDevice(d)))
            {
                ports.Add(node->GetDevice(d));
            }
        }
    }
    if (ports.GetN() > 0)
    {
        used += CsmaHelper().AssignStreams(ports, stream + used);
    }
    return used;
}

// ------------------------------------------------------------------------ point-to-point star

FlPointToPointStarHelper::FlPointToPointStarHelper()
    : FlWiredSceneHelperBase("FlPointToPointStarHelper", DataRate("10Mb/s"), MilliSeconds(2))
{
}

void
FlPointToPointStarHelper::SetDataRateVariable(Ptr<RandomVariableStream> mbps)
{
    m_rateVariable = mbps;
}

FlScene
FlPointToPointStarHelper::Build(uint32_t numClients) const
{
    CheckClients(numClients);
    if (numClients > (1u << 22))
    {
        NS_FATAL_ERROR("FlPointToPointStarHelper: numClients " << numClients
                                                               << " exceeds the /30 subnets of "
                                                                  "10.0.0.0/8; use fewer clients");
    }
    FlScene s = NewScene(numClients);
    if (m_fidelity == FlFidelity::Flow)
    {
        BuildFlowStar(s);
        return s;
    }
    InternetStackHelper internet;
    internet.Install(ServerAndClients(s));

    Ipv4AddressHelper address;
    address.SetBase("10.2.0.0", "255.255.255.252");
    Ipv4StaticRoutingHelper routing;
    std::vector<double> linkRates(numClients);
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
        linkRates[i] = static_cast<double>(rate.GetBitRate());
    }
    const Time rtt = m_delay * 2; // propagation there and back
    AttachLinkState(s.serverNode, [linkRates, rtt](uint32_t client) {
        FlLinkState st;
        if (client < linkRates.size())
        {
            st.rateBps = linkRates[client];
            st.rtt = rtt;
        }
        return st;
    });
    return s;
}

void
FlPointToPointStarHelper::BuildFlowStar(FlScene& s) const
{
    s.flowNetwork = CreateObject<FlFlowNetwork>();
    const Ipv4Address base("10.2.0.0");
    for (uint32_t i = 0; i < s.clients.GetN(); ++i)
    {
        double rate = static_cast<double>(m_dataRate.GetBitRate());
        if (m_rateVariable)
        {
            rate = std::max(1e3, m_rateVariable->GetValue() * 1e6);
        }
        FlFlowMedium link;
        link.kind = "p2p";
        link.rateBps = rate;
        link.headerBytes = 52 + 2; // TCP/IP and PPP
        link.name = "link " + std::to_string(i) + " up";
        const int32_t up = s.flowNetwork->AddMedium(link);
        link.name = "link " + std::to_string(i) + " down";
        const int32_t down = s.flowNetwork->AddMedium(link);
        FlFlowInterface server;
        server.address = AddressPlus(base, 4 * i + 1);
        server.mask = Ipv4Mask("255.255.255.252");
        server.rateBps = rate;
        server.latency = m_delay / 2;
        s.flowNetwork->AddInterface(s.serverNode, server);
        FlFlowInterface client = server;
        client.address = AddressPlus(base, 4 * i + 2);
        client.txMedium = up;
        client.rxMedium = down;
        client.lossProbability = m_flowLoss;
        s.flowNetwork->AddInterface(s.clients.Get(i), client);
        if (i == 0)
        {
            s.serverAddress = server.address;
        }
    }
}

int64_t
FlPointToPointStarHelper::AssignStreams(const FlScene& scene, int64_t stream)
{
    if (scene.flowNetwork)
    {
        return scene.flowNetwork->AssignStreams(stream);
    }
    return AssignInternetStreams(scene, stream);
}

// -------------------------------------------------------------------------------------- LTE

FlLteSceneHelper::FlLteSceneHelper()
    : FlRadioSceneHelperBase("FlLteSceneHelper", 50.0),
      m_bandwidth(25),
      m_rlcMode("am"),
      m_rlcTxBuffer(1024 * 1024),
      m_backhaulRate("1Gb/s"),
      m_backhaulDelay(MilliSeconds(10)),
      m_cqiPeriodicity(Time()) // automatic: see SetCqiPeriodicity
{
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
FlLteSceneHelper::SetRlcTxBufferSize(uint32_t bytes)
{
    if (bytes == 0)
    {
        NS_FATAL_ERROR("FlLteSceneHelper: an RLC transmit buffer of 0 bytes drops everything; "
                       "use e.g. 1 MiB");
    }
    m_rlcTxBuffer = bytes;
}

void
FlLteSceneHelper::SetBackhaulDataRate(DataRate rate)
{
    CheckDataRate("backhaul data rate", rate);
    m_backhaulRate = rate;
}

void
FlLteSceneHelper::SetBackhaulDelay(Time delay)
{
    CheckDelay("backhaul delay", delay);
    m_backhaulDelay = delay;
}

namespace
{

/**
 * The CQI reporting period of a scene whose user gave none: FlLteDefaultCqiPeriodicity() when
 * the channel cannot change (every UE at a constant position, no fading model set as LteHelper's
 * default), else ns-3's own 1 ms.
 */
Time
LteAutomaticCqiPeriodicity(const NodeContainer& ues)
{
    for (uint32_t i = 0; i < ues.GetN(); ++i)
    {
        if (!DynamicCast<ConstantPositionMobilityModel>(ues.Get(i)->GetObject<MobilityModel>()))
        {
            return MilliSeconds(1);
        }
    }
    TypeId::AttributeInformation fading;
    if (TypeId::LookupByName("ns3::LteHelper").LookupAttributeByName("FadingModel", &fading) &&
        !fading.initialValue->SerializeToString(fading.checker).empty())
    {
        return MilliSeconds(1);
    }
    return FlLteDefaultCqiPeriodicity();
}

} // namespace

void
FlLteSceneHelper::SetCqiPeriodicity(Time period)
{
    if (period < MilliSeconds(1) || period > MilliSeconds(160))
    {
        NS_FATAL_ERROR("FlLteSceneHelper: CQI periodicity "
                       << period.As(Time::MS)
                       << " is out of range; use 1 to 160 ms (e.g. 40 ms, or 1 ms for ns-3's own)");
    }
    m_cqiPeriodicity = period;
}

FlScene
FlLteSceneHelper::Build(uint32_t numClients) const
{
    CheckClients(numClients);
    // LteEnbRrc allots an SRS configuration index to every UE context, and the periodicity p
    // bounds how many contexts exist at once (p - 1). Contexts of random-access attempts that
    // collided live on until their connection request times out, so an attach storm holds more
    // contexts than UEs; when none is left the eNB answers a preamble with RNTI 0 and ns-3's
    // MAC scheduler aborts ("No info find in HARQ buffer for UE 0"). The helper takes the
    // smallest periodicity with as many spare contexts as UEs (p >= 2 N); above 159 UEs, where
    // 320 cannot give that, the UEs attach in groups (FlLteAttachSpacing).
    // With 320 and the UEs attaching 2 ms apart, 288 UEs (32 spare contexts) ran in every seed
    // tried; 319 (none spare) aborted in every seed.
    static const uint32_t kSrs[] = {40, 80, 160, 320};
    uint32_t srs = 0;
    for (uint32_t p : kSrs)
    {
        if (p >= 2 * numClients || (p == 320 && numClients <= FlLteMaxClients()))
        {
            srs = p;
            break;
        }
    }
    if (srs == 0)
    {
        NS_FATAL_ERROR("FlLteSceneHelper: numClients " << numClients
                                                       << " exceeds what one eNB serves here ("
                                                       << FlLteMaxClients()
                                                       << " UEs); use fewer clients");
    }

    if (m_fidelity == FlFidelity::Flow)
    {
        return BuildFlow(numClients);
    }
    FlScene s;
    s.lteHelper = CreateObject<LteHelper>();
    s.epcHelper = CreateObject<PointToPointEpcHelper>();
    s.lteHelper->SetEpcHelper(s.epcHelper);
    s.lteHelper->SetEnbDeviceAttribute("DlBandwidth", UintegerValue(m_bandwidth));
    s.lteHelper->SetEnbDeviceAttribute("UlBandwidth", UintegerValue(m_bandwidth));
    Ptr<Node> pgw = s.epcHelper->GetPgwNode();

    // The server: a remote host behind the PGW (the user's server node, if given; new nodes are
    // created in the order server, eNB, UEs).
    if (m_userServer)
    {
        const FlScene nodes = NewScene(numClients);
        s.serverNode = nodes.serverNode;
        s.clients = nodes.clients;
    }
    else
    {
        s.serverNode = CreateObject<Node>();
    }
    NodeContainer server(s.serverNode);
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
    if (!m_userServer)
    {
        s.clients.Create(numClients);
    }
    PlaceAtOrigin(enb.Get(0));
    PlaceClients(s.clients);
    // RLC entities are created when bearers are set up: they take these defaults then.
    Config::SetDefault("ns3::LteRlcAm::MaxTxBufferSize", UintegerValue(m_rlcTxBuffer));
    Config::SetDefault("ns3::LteRlcUm::MaxTxBufferSize", UintegerValue(m_rlcTxBuffer));
    NetDeviceContainer enbDevs = s.lteHelper->InstallEnbDevice(enb);
    Ptr<LteEnbRrc> rrc = DynamicCast<LteEnbNetDevice>(enbDevs.Get(0))->GetRrc();
    rrc->SetAttribute("SrsPeriodicity", UintegerValue(srs));
    rrc->SetAttribute(
        "EpsBearerToRlcMapping",
        EnumValue(m_rlcMode == "am" ? LteEnbRrc::RLC_AM_ALWAYS : LteEnbRrc::RLC_UM_ALWAYS));
    NetDeviceContainer ueDevs = s.lteHelper->InstallUeDevice(s.clients);
    const Time cqiPeriodicity =
        m_cqiPeriodicity.IsZero() ? LteAutomaticCqiPeriodicity(s.clients) : m_cqiPeriodicity;
    for (uint32_t i = 0; i < ueDevs.GetN(); ++i)
    {
        // every component carrier's PHY reports (the scene has one carrier)
        for (const auto& cc : DynamicCast<LteUeNetDevice>(ueDevs.Get(i))->GetCcMap())
        {
            cc.second->GetPhy()->SetAttribute("DownlinkCqiPeriodicity", TimeValue(cqiPeriodicity));
        }
    }
    s.devices.Add(enbDevs);
    s.devices.Add(ueDevs);
    s.infrastructure.Add(enb);
    s.infrastructure.Add(pgw);
    AttachLteLinkState(s, enbDevs.Get(0), ueDevs);

    internet.Install(s.clients);
    s.clientInterfaces = s.epcHelper->AssignUeIpv4Address(ueDevs);
    for (uint32_t i = 0; i < numClients; ++i)
    {
        Ptr<Ipv4StaticRouting> r = routing.GetStaticRouting(s.clients.Get(i)->GetObject<Ipv4>());
        r->SetDefaultRoute(s.epcHelper->GetUeDefaultGatewayAddress(), 1);
    }
    if (2 * numClients <= srs)
    {
        s.lteHelper->Attach(ueDevs, enbDevs.Get(0));
    }
    else
    {
        // fewer spare contexts than UEs: UE i attaches FlLteAttachSpacing() * i after the start
        for (uint32_t i = 0; i < numClients; ++i)
        {
            Ptr<LteHelper> lte = s.lteHelper;
            Ptr<NetDevice> ue = ueDevs.Get(i);
            Ptr<NetDevice> cell = enbDevs.Get(0);
            FlSchedule(FlLteAttachSpacing() * i, [lte, ue, cell]() { lte->Attach(ue, cell); });
        }
    }
    NS_LOG_INFO("LTE cell: " << numClients << " UEs, " << m_bandwidth << " RBs, RLC " << m_rlcMode
                             << ", CQI every " << cqiPeriodicity.As(Time::MS) << ", server "
                             << s.serverAddress);
    return s;
}

FlScene
FlLteSceneHelper::BuildFlow(uint32_t numClients) const
{
    FlScene s = NewScene(numClients);
    s.flowNetwork = CreateObject<FlFlowNetwork>();
    const auto [dl, ul] = LteFlowRates(m_bandwidth);
    FlFlowMedium m;
    m.headerBytes = 52 + 6; // TCP/IP, PDCP and RLC (AM) headers
    m.efficiency = 1.0;     // the calibrated rates are goodputs
    m.perMessageDelay = MicroSeconds(800);
    m.discipline = fl::SharingDiscipline::PerFlow; // the eNB schedules each UE's bearer
    m.kind = "lte-dl";
    m.rateBps = dl;
    m.name = "LTE cell downlink";
    const int32_t down = s.flowNetwork->AddMedium(m);
    m.kind = "lte-ul";
    m.rateBps = ul;
    m.name = "LTE cell uplink";
    const int32_t up = s.flowNetwork->AddMedium(m);
    FlFlowInterface server;
    server.address = Ipv4Address("1.0.0.2");
    server.mask = Ipv4Mask("255.0.0.0");
    server.latency = m_backhaulDelay;
    s.flowNetwork->AddInterface(s.serverNode, server);
    s.serverAddress = server.address;
    for (uint32_t i = 0; i < numClients; ++i)
    {
        FlFlowInterface ue;
        ue.address = AddressPlus(Ipv4Address("7.0.0.0"), 2 + i);
        ue.mask = Ipv4Mask("255.0.0.0");
        ue.txMedium = up;
        ue.rxMedium = down;
        ue.latency = MilliSeconds(6); // scheduling request, grant and HARQ
        ue.lossProbability = m_flowLoss;
        s.flowNetwork->AddInterface(s.clients.Get(i), ue);
    }
    if (m_radius > 50.0)
    {
        s.flowNetwork->AddWarning("radius " + std::to_string(m_radius) +
                                  " m: the model gives every UE the top MCS, validated up to 50 m");
    }
    if (m_rlcMode != "am")
    {
        s.flowNetwork->AddWarning("RLC " + m_rlcMode + ": the model was calibrated with RLC am");
    }
    return s;
}

int64_t
FlLteSceneHelper::AssignStreams(const FlScene& scene, int64_t stream)
{
    if (scene.flowNetwork)
    {
        return scene.flowNetwork->AssignStreams(stream);
    }
    if (!scene.lteHelper)
    {
        NS_FATAL_ERROR("FlLteSceneHelper::AssignStreams: the scene has no LTE helper; pass the "
                       "FlScene returned by FlLteSceneHelper::Build");
    }
    return scene.lteHelper->AssignStreams(scene.devices, stream);
}

} // namespace ns3
