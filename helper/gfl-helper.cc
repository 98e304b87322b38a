/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ns3/gfl-helper.h"

#include "ns3/boolean.h"
#include "ns3/csma-helper.h"
#include "ns3/double.h"
#include "ns3/error-model.h"
#include "ns3/fl-ns3-compat.h"
#include "ns3/global-value.h"
#include "ns3/graph.h"
#include "ns3/inet-socket-address.h"
#include "ns3/internet-stack-helper.h"
#include "ns3/ipv4-address-helper.h"
#include "ns3/ipv4.h"
#include "ns3/log.h"
#include "ns3/mesh-helper.h"
#include "ns3/mesh-point-device.h"
#include "ns3/mobility-helper.h"
#include "ns3/point-to-point-helper.h"
#include "ns3/pointer.h"
#include "ns3/position-allocator.h"
#include "ns3/simulator.h"
#include "ns3/ssid.h"
#include "ns3/string.h"
#include "ns3/uinteger.h"
#include "ns3/wifi-helper.h"
#include "ns3/wifi-mac-helper.h"
#include "ns3/wifi-net-device.h"
#include "ns3/wifi-phy.h"
#include "ns3/yans-wifi-helper.h"

#include <cmath>
#include <sstream>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FlGflHelper");

namespace
{
constexpr uint16_t kGflPort = 9300;
constexpr uint16_t kAgentPort = 9200;

/// Neighbours l of k in a combination matrix (a_lk > 0 or a_kl > 0, l != k), ascending.
std::vector<uint32_t>
NeighborsOf(const Eigen::MatrixXd& A, uint32_t k)
{
    std::vector<uint32_t> out;
    for (Eigen::Index l = 0; l < A.rows(); ++l)
    {
        if (l != k && (A(l, k) > 0.0 || A(k, l) > 0.0))
        {
            out.push_back(static_cast<uint32_t>(l));
        }
    }
    return out;
}

/// The subnet broadcast address of the interface of `node` that holds `local`.
Ipv4Address
SubnetBroadcastOf(Ptr<Node> node, Ipv4Address local)
{
    Ptr<Ipv4> ipv4 = node->GetObject<Ipv4>();
    for (uint32_t i = 0; ipv4 && i < ipv4->GetNInterfaces(); ++i)
    {
        for (uint32_t a = 0; a < ipv4->GetNAddresses(i); ++a)
        {
            if (ipv4->GetAddress(i, a).GetLocal() == local)
            {
                return ipv4->GetAddress(i, a).GetBroadcast();
            }
        }
    }
    NS_FATAL_ERROR("DiffusionHelper: node " << node->GetId() << " has no interface with address "
                                            << local
                                            << "; give each agent the address of its own node");
}

void
Fatal(const fl::ConfigError& e)
{
    NS_FATAL_ERROR(e.what());
}

std::string
TransportValue(const std::string& kind, const char* who)
{
    if (kind != "tcp" && kind != "udp")
    {
        NS_FATAL_ERROR(who << "::SetTransport: \"" << kind
                           << "\" is not a transport (use tcp or udp)");
    }
    return kind;
}
} // namespace

// ------------------------------------------------------------------------------- the scene

namespace
{
/// The default fidelity of every FlGraphSceneHelper (--FlGraphFidelity=flow on the command line
/// of a program that parses ns-3's CommandLine, or NS_GLOBAL_VALUE="FlGraphFidelity=flow").
GlobalValue g_graphFidelity("FlGraphFidelity",
                            "Network fidelity of the GFL scenes (FlGraphSceneHelper): packet "
                            "(ns-3 devices, every frame simulated) or flow (each message's "
                            "delivery time from the calibrated flow-level model of the links; "
                            "see \"Flow-level fidelity\" in the module documentation)",
                            StringValue("packet"),
                            MakeStringChecker());
} // namespace

FlGraphSceneHelper::FlGraphSceneHelper()
    : FlSceneHelperBase("FlGraphSceneHelper"),
      m_linkRate("100Mbps"),
      m_linkDelay(MilliSeconds(2)),
      m_links("p2p"),
      m_meshSpacing(30.0),
      m_cell("csma"),
      m_cellRate("100Mbps")
{
    StringValue fidelity;
    g_graphFidelity.GetValue(fidelity);
    m_fidelity = ParseFlFidelity(fidelity.Get(), "FlGraphFidelity");
}

void
FlGraphSceneHelper::SetServerLinkRate(DataRate rate)
{
    CheckDataRate("server link rate", rate);
    m_linkRate = rate;
}

void
FlGraphSceneHelper::SetServerLinkDelay(Time delay)
{
    CheckDelay("server link delay", delay);
    m_linkDelay = delay;
}

void
FlGraphSceneHelper::SetServerLinks(const std::string& kind)
{
    if (kind != "p2p" && kind != "mesh")
    {
        NS_FATAL_ERROR(m_name << ": server links \"" << kind
                              << "\" are not a link kind (use p2p or mesh)");
    }
    m_links = kind;
}

void
FlGraphSceneHelper::SetMeshSpacing(double metres)
{
    if (!(metres > 0.0) || !std::isfinite(metres))
    {
        NS_FATAL_ERROR(m_name << ": mesh spacing " << metres
                              << " m is not a distance; give a finite value > 0 m");
    }
    m_meshSpacing = metres;
}

Vector
FlGraphSceneHelper::ServerPosition(uint32_t p, uint32_t servers) const
{
    if (m_links != "mesh")
    {
        return Vector(1000.0 * p, 0, 0);
    }
    const auto columns =
        static_cast<uint32_t>(std::ceil(std::sqrt(static_cast<double>(servers)) - 1e-9));
    return Vector(m_meshSpacing * (p % columns), m_meshSpacing * (p / columns), 0);
}

void
FlGraphSceneHelper::BuildPointToPoint(const Eigen::MatrixXd& A, FlGraphScene& s) const
{
    PointToPointHelper p2p;
    p2p.SetDeviceAttribute("DataRate", DataRateValue(m_linkRate));
    p2p.SetChannelAttribute("Delay", TimeValue(m_linkDelay));
    Ipv4AddressHelper linkAddr("10.3.0.0", "255.255.255.252");
    const auto P = static_cast<uint32_t>(A.rows());
    for (uint32_t p = 0; p < P; ++p)
    {
        for (uint32_t m : NeighborsOf(A, p))
        {
            if (m < p)
            {
                continue;
            }
            NetDeviceContainer d = p2p.Install(s.servers.Get(p), s.servers.Get(m));
            s.serverLinks.Add(d);
            Ipv4InterfaceContainer ifs = linkAddr.Assign(d);
            linkAddr.NewNetwork();
            s.peerAddress[{p, m}] = ifs.GetAddress(1);
            s.peerAddress[{m, p}] = ifs.GetAddress(0);
        }
    }
}

void
FlGraphSceneHelper::BuildMesh(const Eigen::MatrixXd& A, FlGraphScene& s) const
{
    YansWifiChannelHelper channel = YansWifiChannelHelper::Default();
    YansWifiPhyHelper phy;
    phy.SetChannel(channel.Create());
    MeshHelper mesh = MeshHelper::Default();
    mesh.SetStackInstaller("ns3::Dot11sStack");
    mesh.SetSpreadInterfaceChannels(MeshHelper::ZERO_CHANNEL);
    mesh.SetNumberOfInterfaces(1);
    mesh.SetStandard(WIFI_STANDARD_80211a);
    s.serverLinks = mesh.Install(phy, s.servers);
    Ipv4AddressHelper meshAddr("10.4.0.0", "255.255.0.0");
    Ipv4InterfaceContainer ifs = meshAddr.Assign(s.serverLinks);
    // Permanent ARP entries among the servers. While the mesh forms (peering by beacons, then
    // HWMP paths), the ARP requests of the first messages go unanswered; after three tries an
    // entry turns dead for ArpCache::DeadTimeout (100 s) and TCP's connection attempt gives up
    // meanwhile, leaving a neighbour that never connects. With the addresses known, the first
    // segments wait in the mesh's queues or are retransmitted by TCP until a path exists.
    FlPopulateArpCaches(s.serverLinks);
    const auto P = static_cast<uint32_t>(A.rows());
    for (uint32_t p = 0; p < P; ++p)
    {
        for (uint32_t m : NeighborsOf(A, p))
        {
            s.peerAddress[{p, m}] = ifs.GetAddress(m);
        }
    }
}

void
FlGraphSceneHelper::SetPartition(std::vector<uint32_t> rankOf, uint32_t localRank, int64_t stream)
{
    if (stream < 0)
    {
        NS_FATAL_ERROR(m_name << ": partition stream " << stream << " is negative; give >= 0");
    }
    m_rankOf = std::move(rankOf);
    m_localRank = localRank;
    m_partitionStream = stream;
}

void
FlGraphSceneHelper::SetCell(const std::string& kind)
{
    if (kind != "csma" && kind != "wifi")
    {
        NS_FATAL_ERROR(m_name << ": cell \"" << kind << "\" is not a cell kind (use csma or wifi)");
    }
    m_cell = kind;
}

void
FlGraphSceneHelper::SetCellDataRate(DataRate rate)
{
    CheckDataRate("cell data rate", rate);
    m_cellRate = rate;
}

void
FlGraphSceneHelper::SetCellDoze(bool enable)
{
    m_cellDoze = enable;
}

void
FlGraphSceneHelper::SetCellStaticArp(bool enable)
{
    m_cellStaticArp = enable;
}

void
FlGraphSceneHelper::SetCellBeaconInterval(Time interval)
{
    const int64_t us = interval.GetMicroSeconds();
    if (interval.IsNegative() || us == 0 || us % 1024 != 0 || us > 1024 * 65535 ||
        interval != MicroSeconds(us))
    {
        NS_FATAL_ERROR(m_name << ": beacon interval " << interval.As(Time::US)
                              << " is not a whole number of 1024 us time units from 1 to 65535; "
                                 "give e.g. 102400 us");
    }
    m_beaconInterval = interval;
}

void
FlGraphSceneHelper::SetCellAssociationStagger(Time stagger)
{
    CheckDelay("association stagger", stagger);
    m_assocStagger = stagger;
}

std::size_t
FlPrintGraphFlowWarnings(const std::string& who, Ptr<FlFlowNetwork> network)
{
    const auto warnings = network->ValidityWarnings();
    for (const auto& w : warnings)
    {
        // each text once per process: a figure builds one scene per run and variant
        FlWarnOnce(who + ": warning: flow-level network: " + w +
                   "; compare with packet fidelity before trusting its times");
    }
    return warnings.size();
}

FlGraphScene
FlGraphSceneHelper::BuildFlow(const Eigen::MatrixXd& A, uint32_t K) const
{
    if (m_links != "p2p")
    {
        throw fl::ConfigError("FlGraphFidelity",
                              "flow with " + m_links + " server links",
                              "the flow-level model has point-to-point server links only; use "
                              "p2p server links or packet fidelity");
    }
    if (!m_rankOf.empty())
    {
        throw fl::ConfigError("FlGraphFidelity",
                              "flow with a partition across ranks",
                              "a flow-level run is fast in one process; drop the partition or "
                              "use packet fidelity");
    }
    const auto P = static_cast<uint32_t>(A.rows());
    FlGraphScene s;
    s.servers.Create(P);
    s.cells.resize(P);
    for (uint32_t p = 0; p < P; ++p)
    {
        s.cells[p].Create(K);
    }
    s.serverLinkKind = m_links;
    s.cellKind = m_cell;
    s.flowNetwork = CreateObject<FlFlowNetwork>();
    Ptr<FlFlowNetwork> net = s.flowNetwork;
    // server-to-server links: one medium per direction, the addresses Ipv4AddressHelper gives
    // the packet scene (10.3.0.0/30, the next /30 per edge, the lower server first)
    const double linkRate = static_cast<double>(m_linkRate.GetBitRate());
    uint32_t edge = 0;
    for (uint32_t p = 0; p < P; ++p)
    {
        for (uint32_t m : NeighborsOf(A, p))
        {
            if (m < p)
            {
                continue;
            }
            FlFlowMedium link;
            link.kind = "p2p";
            link.rateBps = linkRate;
            link.headerBytes = 52 + 2; // TCP/IP and PPP
            link.name = "server link " + std::to_string(p) + " -> " + std::to_string(m);
            const int32_t pm = net->AddMedium(link);
            link.name = "server link " + std::to_string(m) + " -> " + std::to_string(p);
            const int32_t mp = net->AddMedium(link);
            FlFlowInterface a;
            a.address = Ipv4Address(Ipv4Address("10.3.0.0").Get() + 4 * edge + 1);
            a.mask = Ipv4Mask("255.255.255.252");
            a.txMedium = pm;
            a.rateBps = linkRate;
            a.latency = m_linkDelay / 2;
            FlFlowInterface b = a;
            b.address = Ipv4Address(a.address.Get() + 1);
            b.txMedium = mp;
            net->AddInterface(s.servers.Get(p), a);
            net->AddInterface(s.servers.Get(m), b);
            s.peerAddress[{p, m}] = b.address;
            s.peerAddress[{m, p}] = a.address;
            ++edge;
        }
    }
    // one shared medium per cell: the server (the AP, the hub) at .1, client k at .(k + 2)
    const bool wifi = m_cell == "wifi";
    double cellRate = 0.0;
    FlFlowMedium cell;
    Time latency;
    if (wifi)
    {
        cell = FlWifiFlowMedium("80211a", cellRate);
        latency = MicroSeconds(25);
        // GFL's messages are short (a model of M = 2 is 52 bytes, one packet), sent by up to
        // L stations at once: the per-frame airtime (preamble, SIFS, ACK, DIFS, backoff; about
        // 165 us per 802.11a frame exchange) dominates, which the FedAvg cell's efficiency,
        // fitted on long messages, spreads over the bytes. Fitted on 3 cells of 20 clients,
        // L = 5, 10, 20, M = 2, 200, 500 (module documentation, "Flow-level fidelity").
        cell.efficiency = 0.80;
        cell.perPacketAirtime = MicroSeconds(160);
        cell.contention = 0.0;
        cell.perMessageDelay = MicroSeconds(0);
    }
    else
    {
        cell = FlCsmaFlowMedium(m_cellRate);
        cellRate = cell.rateBps;
        latency = NanoSeconds(6560);
    }
    for (uint32_t p = 0; p < P; ++p)
    {
        cell.name = (wifi ? "Wi-Fi cell " : "CSMA cell ") + std::to_string(p);
        const int32_t id = net->AddMedium(cell);
        const Ipv4Address base((10u << 24) | ((10u + p / 256) << 16) | ((p % 256) << 8));
        FlFlowInterface server;
        server.address = Ipv4Address(base.Get() + 1);
        server.mask = Ipv4Mask("255.255.255.0");
        server.txMedium = id;
        server.rxMedium = id;
        server.rateBps = cellRate;
        server.latency = latency;
        net->AddInterface(s.servers.Get(p), server);
        s.cellServer.push_back(server.address);
        for (uint32_t k = 0; k < K; ++k)
        {
            FlFlowInterface c = server;
            c.address = Ipv4Address(base.Get() + 2 + k);
            c.lossProbability = m_flowLoss;
            if (wifi)
            {
                // associated: passive scanning, every station at once (as the Wi-Fi BSS
                // scene), or station k probing k x stagger after the start
                c.readyAt = m_assocStagger.IsStrictlyPositive()
                                ? m_assocStagger * static_cast<int64_t>(k) + MilliSeconds(10)
                                : MilliSeconds(300) + MilliSeconds(50) * static_cast<int64_t>(K);
            }
            net->AddInterface(s.cells[p].Get(k), c);
        }
    }
    if (wifi)
    {
        FlFlowValidity v;
        v.maxStationsWifi = FlGflFlowValidity::kMaxClientsPerCell;
        v.maxConcurrentFlows = FlGflFlowValidity::kMaxConcurrentPerCell;
        v.maxMessageBytes = FlGflFlowValidity::kMaxMessageBytes;
        net->SetValidity(v);
    }
    else
    {
        net->AddWarning("CSMA cells: the flow-level model of GFL was validated against "
                        "packet-level runs with Wi-Fi cells only");
    }
    return s;
}

FlGraphScene
FlGraphSceneHelper::Build(const Eigen::MatrixXd& A, uint32_t K) const
{
    CheckClients(K);
    const auto P = static_cast<uint32_t>(A.rows());
    if (P == 0 || A.cols() != A.rows())
    {
        NS_FATAL_ERROR(m_name << ": the combination matrix is " << A.rows() << " x " << A.cols()
                              << "; give a square P x P matrix");
    }
    if (P > 1)
    {
        std::vector<fl::Edge> edges;
        for (uint32_t p = 0; p < P; ++p)
        {
            for (uint32_t m : NeighborsOf(A, p))
            {
                if (m > p)
                {
                    edges.emplace_back(p, m);
                }
            }
        }
        if (!fl::Graph(P, edges).IsConnected())
        {
            NS_FATAL_ERROR(m_name << ": the servers' graph is not connected; give a connected "
                                     "combination matrix");
        }
    }
    const bool partitioned = !m_rankOf.empty();
    if (partitioned && m_rankOf.size() != P)
    {
        NS_FATAL_ERROR(m_name << ": the partition gives ranks for " << m_rankOf.size()
                              << " servers but the combination matrix has " << P
                              << "; partition the same servers (fl::PartitionServers)");
    }
    if (partitioned && m_links != "p2p")
    {
        NS_FATAL_ERROR(m_name << ": only point-to-point server links can be split across ranks "
                                 "(the 802.11s mesh shares one radio channel); use p2p links or "
                                 "one rank");
    }
    if (m_fidelity == FlFidelity::Flow)
    {
        return BuildFlow(A, K);
    }
    // cells simulated here: all, or those of the local rank
    auto local = [&](uint32_t p) { return !partitioned || m_rankOf[p] == m_localRank; };
    FlGraphScene s;
    // servers first, on every rank, so that server p is node p everywhere (the remote
    // point-to-point channel addresses a node by its id)
    for (uint32_t p = 0; p < P; ++p)
    {
        s.servers.Create(1, partitioned ? m_rankOf[p] : 0);
    }
    s.cells.resize(P);
    for (uint32_t p = 0; p < P; ++p)
    {
        if (local(p))
        {
            s.cells[p].Create(K, partitioned ? m_rankOf[p] : 0);
        }
    }
    InternetStackHelper stack;
    stack.Install(s.servers);
    for (auto& c : s.cells)
    {
        stack.Install(c);
    }
    // servers' positions (Wi-Fi cells and the mesh need them), then the server-to-server links
    MobilityHelper mobility;
    mobility.SetMobilityModel("ns3::ConstantPositionMobilityModel");
    if (m_links == "mesh" || m_cell == "wifi")
    {
        Ptr<ListPositionAllocator> pos = CreateObject<ListPositionAllocator>();
        for (uint32_t p = 0; p < P; ++p)
        {
            pos->Add(ServerPosition(p, P));
        }
        mobility.SetPositionAllocator(pos);
        mobility.Install(s.servers);
    }
    s.serverLinkKind = m_links;
    s.cellKind = m_cell;
    if (m_links == "mesh")
    {
        BuildMesh(A, s);
    }
    else
    {
        BuildPointToPoint(A, s);
    }
    // one cell per server
    static const uint16_t kChannels[] =
        {36, 40, 44, 48, 52, 56, 60, 64, 100, 104, 108, 112, 116, 120, 124, 128, 132, 136, 140};
    for (uint32_t p = 0; p < P; ++p)
    {
        if (!local(p))
        {
            s.cellServer.emplace_back(); // another rank's cell
            continue;
        }
        NodeContainer all(s.servers.Get(p), s.cells[p]);
        NetDeviceContainer devices;
        if (m_cell == "csma")
        {
            CsmaHelper csma;
            csma.SetChannelAttribute("DataRate", DataRateValue(m_cellRate));
            csma.SetChannelAttribute("Delay", TimeValue(NanoSeconds(6560)));
            devices = csma.Install(all);
        }
        else
        {
            YansWifiChannelHelper channel = YansWifiChannelHelper::Default();
            YansWifiPhyHelper phy;
            phy.SetChannel(channel.Create());
            std::ostringstream settings;
            settings << "{" << kChannels[p % (sizeof(kChannels) / sizeof(kChannels[0]))]
                     << ", 20, BAND_5GHZ, 0}";
            FlSetWifiChannel(phy, settings.str());
            WifiHelper wifi;
            wifi.SetStandard(WIFI_STANDARD_80211a);
            wifi.SetRemoteStationManager("ns3::IdealWifiManager");
            WifiMacHelper mac;
            Ssid ssid("gfl-cell-" + std::to_string(p));
            mac.SetType("ns3::ApWifiMac",
                        "Ssid",
                        SsidValue(ssid),
                        "BeaconInterval",
                        TimeValue(m_beaconInterval));
            devices.Add(wifi.Install(phy, mac, s.servers.Get(p)));
            NetDeviceContainer stations;
            // before ns-3.37 (no StaWifiMac::ProbeDelay) FlInstallWifiStations staggers the
            // stations' passive scans instead (FlAssociationStagger)
            const bool probing = FL_NS3_VERSION >= 337 && m_assocStagger.IsStrictlyPositive();
#if FL_NS3_VERSION >= 337
            if (probing)
            {
                for (uint32_t k = 0; k < K; ++k)
                {
                    std::ostringstream delay; // in microseconds
                    delay << "ns3::ConstantRandomVariable[Constant="
                          << (m_assocStagger * k).GetMicroSeconds() << "]";
                    mac.SetType("ns3::StaWifiMac",
                                "Ssid",
                                SsidValue(ssid),
                                "ActiveProbing",
                                BooleanValue(true),
                                "ProbeDelay",
                                StringValue(delay.str()),
                                "ProbeRequestTimeout",
                                TimeValue(MilliSeconds(5)));
                    stations.Add(wifi.Install(phy, mac, s.cells[p].Get(k)));
                }
            }
            else
#endif
            {
                stations = FlInstallWifiStations(wifi, phy, mac, ssid, s.cells[p]);
            }
            devices.Add(stations);
            if (m_cellDoze)
            {
                // probing stations may doze from the start: their probe request wakes them
                FlDozeIdleStations(devices.Get(0), stations, MilliSeconds(1), probing);
            }
            Ptr<ListPositionAllocator> pos = CreateObject<ListPositionAllocator>();
            const Vector c = ServerPosition(p, P);
            for (uint32_t k = 0; k < K; ++k)
            {
                const double a = 2.0 * M_PI * k / K;
                pos->Add(Vector(c.x + 10.0 * std::cos(a), c.y + 10.0 * std::sin(a), 0));
            }
            mobility.SetPositionAllocator(pos);
            mobility.Install(s.cells[p]);
        }
        s.cellDevices.Add(devices);
        if (partitioned)
        {
            // fixed stream numbers per cell: the same draws on any rank
            const int64_t base = m_partitionStream + p * CellStreamStride(K);
            int64_t used = 0;
            if (m_cell == "csma")
            {
                CsmaHelper csma;
                used = csma.AssignStreams(devices, base);
            }
            else
            {
                WifiHelper wifi;
                used = wifi.AssignStreams(devices, base);
            }
            used += stack.AssignStreams(all, base + used);
            if (used > CellStreamStride(K))
            {
                NS_FATAL_ERROR(m_name << ": cell " << p << " uses " << used
                                      << " random streams, more than the "
                                      << CellStreamStride(K) << " reserved per cell");
            }
        }
        std::ostringstream net;
        net << "10." << (10 + p / 256) << "." << (p % 256) << ".0";
        Ipv4AddressHelper cellAddr(net.str().c_str(), "255.255.255.0");
        Ipv4InterfaceContainer ifs = cellAddr.Assign(devices);
        s.cellServer.push_back(ifs.GetAddress(0));
        if (m_cell == "wifi" && m_cellStaticArp)
        {
            FlPopulateArpCaches(devices);
        }
    }
    return s;
}

int64_t
FlAssignGraphSceneStreams(const FlGraphScene& scene, int64_t stream)
{
    if (scene.flowNetwork)
    {
        return 0;
    }
    int64_t used = 0;
    if (scene.cellKind == "csma")
    {
        CsmaHelper csma;
        used += csma.AssignStreams(scene.cellDevices, stream);
    }
    else
    {
        WifiHelper wifi;
        used += wifi.AssignStreams(scene.cellDevices, stream);
    }
    if (scene.serverLinkKind == "mesh")
    {
        MeshHelper mesh;
        used += mesh.AssignStreams(scene.serverLinks, stream + used);
    }
    NodeContainer all(scene.servers);
    for (const auto& cell : scene.cells)
    {
        all.Add(cell);
    }
    InternetStackHelper stack;
    used += stack.AssignStreams(all, stream + used);
    return used;
}

int64_t
FlSetServerLinkLoss(const FlGraphScene& scene, double rate, int64_t stream)
{
    if (!(rate >= 0.0 && rate <= 1.0))
    {
        NS_FATAL_ERROR("FlSetServerLinkLoss: loss rate " << rate << " is not in [0, 1]");
    }
    if (scene.flowNetwork && rate > 0.0)
    {
        throw fl::ConfigError("FlSetServerLinkLoss",
                              "a flow-level scene has no packets to lose",
                              "use packet fidelity for lossy server links");
    }
    auto errorModel = [rate, &stream]() {
        Ptr<RateErrorModel> em = CreateObject<RateErrorModel>();
        em->SetAttribute("ErrorUnit", StringValue("ERROR_UNIT_PACKET"));
        em->SetAttribute("ErrorRate", DoubleValue(rate));
        stream += em->AssignStreams(stream);
        return em;
    };
    const int64_t first = stream;
    for (uint32_t d = 0; d < scene.serverLinks.GetN(); ++d)
    {
        Ptr<NetDevice> dev = scene.serverLinks.Get(d);
        if (Ptr<MeshPointDevice> mp = DynamicCast<MeshPointDevice>(dev))
        {
            for (Ptr<NetDevice> iface : mp->GetInterfaces())
            {
                Ptr<WifiNetDevice> wifi = DynamicCast<WifiNetDevice>(iface);
                NS_ABORT_MSG_IF(!wifi, "FlSetServerLinkLoss: a mesh interface is not Wi-Fi");
                wifi->GetPhy()->SetPostReceptionErrorModel(errorModel());
            }
        }
        else
        {
            dev->SetAttribute("ReceiveErrorModel", PointerValue(errorModel()));
        }
    }
    return stream - first;
}

// ------------------------------------------------------------------ shared by GFL and GHP

FlGraphRunHelperBase::FlGraphRunHelperBase(std::shared_ptr<const fl::LearningTask> task,
                                           std::string transport)
    : m_task(std::move(task)),
      m_transport(std::move(transport)),
      m_tracker(CreateObject<FlLearningTracker>())
{
}

void
FlGraphRunHelperBase::SetNetwork(std::size_t nodes,
                                 const fl::NodeNoiseConfig& noise,
                                 const Eigen::MatrixXd& combination,
                                 double mu,
                                 double clipNorm,
                                 std::size_t parameters,
                                 double delta,
                                 const Eigen::VectorXd& reference)
{
    m_tracker->SetNetwork(
        nodes,
        reference,
        std::make_shared<fl::GraphPrivacyAccountant>(
            fl::MakeGraphPrivacyAccountant(combination, noise, mu, clipNorm, parameters, delta)));
}

void
FlGraphRunHelperBase::SetExchangeTimeout(Time timeout)
{
    m_timeout = timeout;
}

void
FlGraphRunHelperBase::SetTcpMinRto(Time minRto)
{
    if (!minRto.IsStrictlyPositive())
    {
        throw fl::ConfigError("TcpMinRto",
                              "must be positive",
                              "use e.g. 1s (ns-3's and RFC 6298's) or 200ms (Linux's)");
    }
    m_tcpMinRto = minRto;
}

void
FlGraphRunHelperBase::SetIterationCallback(fl::NetworkIterationCallback cb)
{
    m_tracker->SetIterationCallback(std::move(cb));
}

void
FlGraphRunHelperBase::SetStallTimeout(Time timeout)
{
    m_tracker->SetStallTimeout(timeout, []() { Simulator::Stop(); });
}

// ------------------------------------------------------------------------------------- GFL

FlGflHelper::FlGflHelper(std::shared_ptr<const fl::LearningTask> task, const fl::GflConfig& config)
    : FlGraphRunHelperBase(std::move(task), "tcp"),
      m_config(config)
{
    const auto P = static_cast<std::size_t>(m_config.combination.rows());
    try
    {
        fl::ValidateCombinationMatrix(m_config.combination,
                                      P,
                                      m_config.serverNoise.kind,
                                      "combination");
        if (m_config.clientsPerServer == 0 || m_task->NumClients() != P * m_config.clientsPerServer)
        {
            throw fl::ConfigError("clientsPerServer",
                                  "does not match the task's " +
                                      std::to_string(m_task->NumClients()) + " clients",
                                  "build the task with P * K clients");
        }
        if (!(m_config.dropoutProbability >= 0.0 && m_config.dropoutProbability < 1.0))
        {
            throw fl::ConfigError("dropoutProbability",
                                  "is " + std::to_string(m_config.dropoutProbability),
                                  "use a probability in [0, 1)");
        }
        if (m_config.clientNoise.kind == fl::NodeNoiseKind::IidBroadcast ||
            m_config.clientNoise.kind == fl::NodeNoiseKind::GraphHomomorphic)
        {
            throw fl::ConfigError("clientNoise",
                                  "is not none or iid-per-link",
                                  "use none or iid-per-link (noisy models / noisy updates)");
        }
        fl::CheckGflSecureAggregation(m_config);
        SetNetwork(P,
                   m_config.serverNoise,
                   m_config.combination,
                   m_config.mu,
                   m_config.clipNorm,
                   m_task->NumParameters(),
                   m_config.delta,
                   m_config.reference);
    }
    catch (const fl::ConfigError& e)
    {
        Fatal(e);
    }
}

void
FlGflHelper::SetTransport(const std::string& kind)
{
    TransportValue(kind, "FlGflHelper");
    m_transport = kind;
}

void
FlGflHelper::SetRoundDeadline(Time deadline)
{
    m_deadline = deadline;
}

void
FlGflHelper::SetSecondsPerSample(double s)
{
    m_secondsPerSample = s;
}

void
FlGflHelper::SetPartition(std::vector<uint32_t> rankOf, uint32_t localRank, Time grace)
{
    if (grace.IsStrictlyNegative())
    {
        NS_FATAL_ERROR("FlGflHelper: partition grace " << grace.As(Time::MS)
                                                       << " is negative; give >= 0");
    }
    m_rankOf = std::move(rankOf);
    m_localRank = localRank;
    m_grace = grace;
}

void
FlGflHelper::SetClientStartStagger(Time stagger)
{
    if (stagger.IsStrictlyNegative())
    {
        NS_FATAL_ERROR("FlGflHelper: client start stagger " << stagger.As(Time::MS)
                                                            << " is negative; give >= 0");
    }
    m_startStagger = stagger;
}

std::vector<Ptr<FlServerApplication>>
FlGflHelper::Install(const FlGraphScene& scene)
{
    const auto& A = m_config.combination;
    const auto P = static_cast<uint32_t>(A.rows());
    const auto K = static_cast<uint32_t>(m_config.clientsPerServer);
    if (scene.servers.GetN() != P || scene.cells.size() != P)
    {
        NS_FATAL_ERROR("FlGflHelper: the scene has " << scene.servers.GetN()
                                                     << " servers but the combination matrix " << P
                                                     << "; build it from the same matrix");
    }
    const std::string transport = TransportValue(m_transport, "FlGflHelper");
    const Time startStagger = m_startStagger.IsStrictlyNegative()
                                  ? (scene.cellKind == "wifi" ? MilliSeconds(2) : Time(0))
                                  : m_startStagger;
    if (scene.flowNetwork)
    {
        if (transport != "tcp")
        {
            Fatal(fl::ConfigError("FlGflHelper::SetTransport",
                                  "is " + transport + " on a flow-level scene",
                                  "use tcp (the flow model carries TCP's bytes) or build the "
                                  "scene in packet fidelity"));
        }
        const auto L = static_cast<uint32_t>(
            m_config.sampledClients > 0 ? m_config.sampledClients : m_config.clientsPerServer);
        if (scene.cellKind == "wifi" && L > FlGflFlowValidity::kMaxSampledPerCell)
        {
            scene.flowNetwork->AddWarning(
                "L = " + std::to_string(L) + " sampled clients per cell, above the " +
                std::to_string(FlGflFlowValidity::kMaxSampledPerCell) +
                " validated against packet-level runs (many stations contending at once for "
                "a cell: collisions the model does not capture make packet-level iterations "
                "longer)");
        }
        if (m_config.secureAggregation)
        {
            scene.flowNetwork->AddWarning("secure aggregation: the flow-level model of GFL was "
                                          "validated without it");
        }
        if (m_config.dropoutProbability > 0.0 || m_deadline.IsStrictlyPositive())
        {
            scene.flowNetwork->AddWarning("dropouts or a round deadline: the flow-level model "
                                          "of GFL was validated with every sampled client "
                                          "answering");
        }
    }
    const auto& taskTrainer = m_task->GetTrainerConfig();
    auto perClient = [&](const std::vector<std::size_t>& v, std::size_t c, std::size_t fallback) {
        return v.empty() ? fallback : (v.size() == 1 ? v.front() : v.at(c));
    };
    const bool partitioned = !m_rankOf.empty();
    if (partitioned && m_rankOf.size() != P)
    {
        NS_FATAL_ERROR("FlGflHelper: the partition gives ranks for "
                       << m_rankOf.size() << " servers but the combination matrix has " << P
                       << "; partition the same servers (fl::PartitionServers)");
    }
    auto local = [&](uint32_t p) { return !partitioned || m_rankOf[p] == m_localRank; };
    m_localFinished = std::make_shared<uint32_t>(0);
    uint32_t localServers = 0;
    for (uint32_t p = 0; p < P; ++p)
    {
        localServers += local(p) ? 1 : 0;
    }
    if (!partitioned)
    {
        // a flow-level run says at its end which validated bounds it crossed
        Ptr<FlFlowNetwork> flow = scene.flowNetwork;
        m_tracker->SetFinish(m_config.iterations, [flow]() {
            if (flow)
            {
                FlPrintGraphFlowWarnings("FlGflHelper", flow);
            }
            Simulator::Stop(MilliSeconds(100));
        });
    }
    // A server learns of a dropout only from the client's silence: with dropouts the round
    // needs a deadline (GflDropoutDeadline() unless one was set).
    const Time deadline = (m_config.dropoutProbability > 0.0 && !m_deadline.IsStrictlyPositive())
                              ? GflDropoutDeadline()
                              : m_deadline;
    if (m_config.secureAggregation)
    {
        m_secAgg.SetAttribute("FractionBits", UintegerValue(m_config.maskFractionBits));
        m_secAgg.SetAttribute("Threshold", UintegerValue(m_config.secureThreshold));
        const uint32_t K = static_cast<uint32_t>(m_config.clientsPerServer);
        const uint32_t L = m_config.sampledClients == 0
                               ? K
                               : std::min<uint32_t>(K, static_cast<uint32_t>(m_config.sampledClients));
        m_secAgg.SetCohortSize(L); // the clients refuse smaller rosters
    }
    std::vector<Ptr<FlServerApplication>> servers;
    for (uint32_t p = 0; p < P; ++p)
    {
        if (!local(p))
        {
            continue; // another rank's server
        }
        GflRoundStep::Config sc;
        sc.clientsPerServer = K;
        sc.sampledClients = static_cast<uint32_t>(m_config.sampledClients);
        sc.serverSeed = fl::GflServerSeed(m_config.seed, p);
        sc.uplink = m_config.uplink;
        sc.mu = m_config.mu;
        sc.exchange.self = p;
        sc.exchange.selfWeight = A(p, p);
        for (uint32_t l : NeighborsOf(A, p))
        {
            FlGraphExchangeConfig::Neighbor nb;
            nb.index = l;
            nb.address = InetSocketAddress(scene.peerAddress.at({p, l}), kGflPort);
            nb.weight = A(l, p);
            sc.exchange.neighbors.push_back(nb);
        }
        sc.exchange.noise = m_config.serverNoise;
        sc.exchange.seed = sc.serverSeed;
        sc.exchange.policy = m_config.missingPolicy;
        sc.exchange.timeout = m_timeout;
        Ptr<GflRoundStep> step;
        try
        {
            step = CreateObject<GflRoundStep>(sc);
        }
        catch (const fl::ConfigError& e)
        {
            Fatal(e);
        }
        if (partitioned)
        {
            // this rank stops once its own servers are done (the tracker would wait for all)
            const uint32_t last = m_config.iterations;
            const Time grace = m_grace;
            auto finished = m_localFinished;
            step->SetIterationCallback([=](const GflIterationReport& r) {
                if (r.iteration == last && ++*finished == localServers)
                {
                    Simulator::Stop(grace);
                }
            });
        }
        m_steps.push_back(step);

        Ptr<FlServerApplication> server = CreateObject<FlServerApplication>();
        server->SetAttribute("Transport", StringValue(transport));
        server->SetAttribute("TcpMinRto", TimeValue(m_tcpMinRto));
        server->SetAttribute("Port", UintegerValue(kGflPort));
        server->SetAttribute("Rounds", UintegerValue(m_config.iterations));
        server->SetAttribute("ExpectedClients", UintegerValue(K));
        server->SetAttribute("InitSeed", UintegerValue(fl::InitialModelSeed(m_config.seed)));
        server->SetAttribute("StopSimulation", BooleanValue(false));
        server->SetAttribute("RoundDeadline", TimeValue(deadline));
        server->SetTask(m_task);
        server->SetStrategy(step);
        FlSecAggParties parties;
        if (m_config.secureAggregation)
        {
            std::vector<uint32_t> ids;
            for (uint32_t k = 0; k < K; ++k)
            {
                ids.push_back(p * K + k);
            }
            try
            {
                parties = m_secAgg.Create(ids);
            }
            catch (const fl::ConfigError& e)
            {
                Fatal(e);
            }
            server->SetUplinkStep(parties.server);
            m_parties.push_back(parties);
        }
        server->SetStartTime(Seconds(0.1));
        scene.servers.Get(p)->AddApplication(server);
        servers.push_back(server);

        for (uint32_t k = 0; k < K; ++k)
        {
            const uint32_t c = p * K + k;
            Ptr<FlClientApplication> client = CreateObject<FlClientApplication>();
            client->SetAttribute("Transport", StringValue(transport));
            client->SetAttribute("TcpMinRto", TimeValue(m_tcpMinRto));
            client->SetAttribute("ServerAddress", AddressValue(scene.cellServer[p]));
            client->SetAttribute("ServerPort", UintegerValue(kGflPort));
            client->SetAttribute("ClientIndex", UintegerValue(c));
            client->SetAttribute("TrainingSeed",
                                 UintegerValue(fl::GflClientSeed(m_config.seed, p, k)));
            client->SetAttribute("SecondsPerSample", DoubleValue(m_secondsPerSample));
            client->SetTask(m_task);
            try
            {
                GflClientStrategy::Config cc;
                cc.trainer = fl::GflTrainerConfig(
                    m_config.mu,
                    perClient(m_config.work.localSteps, c, taskTrainer.localSteps),
                    perClient(m_config.work.batchSizes, c, taskTrainer.batchSize),
                    m_config.clipNorm);
                cc.uplink = m_config.uplink;
                cc.mu = m_config.mu;
                cc.server = p;
                cc.dropoutProbability = m_config.dropoutProbability;
                cc.noiseSource = m_config.clientNoise.source;
                client->SetStrategy(CreateObject<GflClientStrategy>(cc));
                if (m_config.secureAggregation)
                {
                    client->SetUplinkStep(parties.clients.at(c));
                }
                if (m_config.clientNoise.kind != fl::NodeNoiseKind::None)
                {
                    client->SetUplinkPerturbation(std::shared_ptr<fl::Perturbation>(
                        fl::MakeNodePerturbation(m_config.clientNoise, 1.0, "clientNoise")));
                }
            }
            catch (const fl::ConfigError& e)
            {
                Fatal(e);
            }
            client->SetStartTime(Seconds(0.2) + startStagger * k);
            scene.cells[p].Get(k)->AddApplication(client);
            m_clients.push_back(client);
        }
    }
    if (!partitioned)
    {
        // server p is graph node p: its ModelReport carries psi_{p,i}, the missing neighbour
        // messages and the dropped clients (GflRoundStep::DescribeModel)
        m_tracker->InstallNetwork(
            std::vector<Ptr<FlApplicationBase>>(servers.begin(), servers.end()));
    }
    return servers;
}

// ------------------------------------------------------------------------------ diffusion

DiffusionHelper::DiffusionHelper(std::shared_ptr<const fl::LearningTask> task,
                                 const fl::DiffusionConfig& config)
    : FlGraphRunHelperBase(std::move(task), "broadcast"),
      m_config(config)
{
    const std::size_t n = m_task->NumClients();
    try
    {
        fl::ValidateCombinationMatrix(m_config.combination, n, m_config.noise.kind, "combination");
        fl::DiffusionAdaptConfig(m_config.mu, m_config.batchSize, m_config.clipNorm);
        SetNetwork(n,
                   m_config.noise,
                   m_config.combination,
                   m_config.mu,
                   m_config.clipNorm,
                   m_task->NumParameters(),
                   m_config.delta,
                   m_config.reference);
    }
    catch (const fl::ConfigError& e)
    {
        Fatal(e);
    }
}

void
DiffusionHelper::SetTransport(const std::string& kind)
{
    if (kind != "broadcast")
    {
        TransportValue(kind, "DiffusionHelper");
    }
    m_transport = kind;
}

void
DiffusionHelper::SetComputeTime(Time t)
{
    m_compute = t;
}

void
DiffusionHelper::SetIterationPeriod(Time period)
{
    m_period = period;
}

void
DiffusionHelper::SetReleaseJitter(Time jitter)
{
    m_jitter = jitter;
}

int64_t
DiffusionHelper::AssignStreams(int64_t stream)
{
    m_stream = stream;
    return m_config.combination.rows();
}

void
DiffusionHelper::SetLinkLossCallback(LinkLossCallback cb)
{
    m_linkLoss = std::make_shared<LinkLossCallback>(std::move(cb));
}

std::vector<Ptr<DiffusionAgentApplication>>
DiffusionHelper::Install(const NodeContainer& nodes, const std::vector<Ipv4Address>& addresses)
{
    const auto& A = m_config.combination;
    const auto n = static_cast<uint32_t>(A.rows());
    if (nodes.GetN() != n || addresses.size() != n)
    {
        NS_FATAL_ERROR("DiffusionHelper: " << nodes.GetN() << " nodes and " << addresses.size()
                                           << " addresses for " << n
                                           << " agents; give one node and address per agent");
    }
    const bool broadcast = m_transport == "broadcast";
    const std::string transport =
        broadcast ? std::string("udp") : TransportValue(m_transport, "DiffusionHelper");
    Time timeout = m_timeout;
    if (timeout.IsZero() && m_period.IsStrictlyPositive())
    {
        timeout = Seconds(m_period.GetSeconds() * 0.9) - m_compute - m_jitter;
    }
    else if (timeout.IsZero() && broadcast)
    {
        timeout = Seconds(1);
    }
    fl::Rng initRng(fl::InitialModelSeed(m_config.seed));
    const fl::ParamVector w0 = m_task->InitialParameters(initRng);
    m_tracker->SetFinish(m_config.iterations, []() { Simulator::Stop(MilliSeconds(100)); });
    std::vector<Ptr<DiffusionAgentApplication>> agents;
    for (uint32_t k = 0; k < n; ++k)
    {
        FlGraphExchangeConfig ex;
        ex.self = k;
        ex.selfWeight = A(k, k);
        for (uint32_t l : NeighborsOf(A, k))
        {
            FlGraphExchangeConfig::Neighbor nb;
            nb.index = l;
            nb.address = InetSocketAddress(addresses[l], kAgentPort);
            nb.weight = A(l, k);
            ex.neighbors.push_back(nb);
        }
        ex.noise = m_config.noise;
        ex.seed = fl::DiffusionAgentSeed(m_config.seed, k);
        ex.policy = m_config.missingPolicy;
        ex.timeout = timeout;
        Ptr<DiffusionAgentApplication> app = CreateObject<DiffusionAgentApplication>();
        app->SetAttribute("Transport", StringValue(transport));
        app->SetAttribute("TcpMinRto", TimeValue(m_tcpMinRto));
        if (broadcast)
        {
            app->SetAttribute("HolePolicy", StringValue("drop"));
            app->SetAttribute("UdpBroadcastAddress",
                              Ipv4AddressValue(SubnetBroadcastOf(nodes.Get(k), addresses[k])));
        }
        app->SetAttribute("Port", UintegerValue(kAgentPort));
        app->SetAttribute("Iterations", UintegerValue(m_config.iterations));
        app->SetAttribute("AgentIndex", UintegerValue(k));
        app->SetAttribute("Mu", DoubleValue(m_config.mu));
        app->SetAttribute("BatchSize", UintegerValue(m_config.batchSize));
        app->SetAttribute("ClipNorm", DoubleValue(m_config.clipNorm));
        app->SetAttribute("ComputeTime", TimeValue(m_compute));
        app->SetAttribute("IterationPeriod", TimeValue(m_period));
        app->SetAttribute("ReleaseJitter", TimeValue(m_jitter));
        if (m_stream >= 0)
        {
            app->AssignStreams(m_stream + k);
        }
        app->SetTask(m_task);
        app->SetExchange(ex);
        app->SetInitialModel(w0);
        std::shared_ptr<LinkLossCallback> linkLoss = m_linkLoss;
        DiffusionAgentApplication* self = PeekPointer(app);
        if (linkLoss)
        {
            app->SetIterationCallback([linkLoss, self](uint32_t agent,
                                                       uint32_t i,
                                                       const fl::ParamVector&,
                                                       const fl::ParamVector&,
                                                       const fl::CombineOutcome&) {
                if (*linkLoss)
                {
                    for (uint32_t l : self->GetLastMissing())
                    {
                        (*linkLoss)(i, l, agent);
                    }
                }
            });
        }
        app->SetStartTime(Seconds(0.1));
        nodes.Get(k)->AddApplication(app);
        agents.push_back(app);
    }
    // agent k is graph node k: its ModelReport carries phi_{k,i} and the missing messages
    m_tracker->InstallNetwork(std::vector<Ptr<FlApplicationBase>>(agents.begin(), agents.end()));
    return agents;
}

} // namespace ns3
