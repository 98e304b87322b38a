/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The graph scene of GFL and GHP (FlGraphSceneHelper).
 */
#include "ns3/fl-graph-scene.h"

#include "ns3/boolean.h"
#include "ns3/csma-helper.h"
#include "ns3/double.h"
#include "ns3/error-model.h"
#include "ns3/fl-ns3-compat.h"
#include "ns3/fl-scene-internal.h"
#include "ns3/fl-wifi-ess-scene.h"
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

namespace flscene
{

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

} // namespace flscene

using namespace flscene;

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
    if (m_roaming)
    {
        return Vector((m_cellSpacing > 0.0 ? m_cellSpacing : kFlRoamingApSpacing) * p, 0, 0);
    }
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
    if (m_roaming)
    {
        std::string why;
        if (m_cell != "wifi")
        {
            why = "with " + m_cell + " cells";
        }
        else if (m_fidelity == FlFidelity::Flow)
        {
            why = "in flow fidelity";
        }
        else if (partitioned)
        {
            why = "across ranks";
        }
        else if (P > 250)
        {
            why = "with " + std::to_string(P) + " servers";
        }
        if (!why.empty())
        {
            throw fl::ConfigError("SetCellRoaming",
                                  "roaming cells " + why,
                                  "roaming needs Wi-Fi cells (SetCell(\"wifi\")), packet "
                                  "fidelity, one process and at most 250 servers; or leave "
                                  "roaming off");
        }
    }
    if (m_clientMobility.Moves() && (m_cell != "wifi" || m_fidelity == FlFidelity::Flow))
    {
        throw fl::ConfigError("SetClientMobility",
                              std::string("moving clients ") +
                                  (m_cell != "wifi" ? "in CSMA cells" : "in flow fidelity"),
                              "move clients of Wi-Fi cells at packet fidelity, or keep them "
                              "fixed");
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
    // roaming cells: one channel object and channel for all (a station scans its own only)
    Ptr<YansWifiChannel> sharedChannel;
    if (m_roaming)
    {
        sharedChannel = YansWifiChannelHelper::Default().Create();
    }
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
            phy.SetChannel(m_roaming ? sharedChannel : channel.Create());
            std::ostringstream settings;
            settings << "{"
                     << (m_roaming ? kChannels[0]
                                   : kChannels[p % (sizeof(kChannels) / sizeof(kChannels[0]))])
                     << ", 20, BAND_5GHZ, 0}";
            FlSetWifiChannel(phy, settings.str());
            WifiHelper wifi;
            wifi.SetStandard(WIFI_STANDARD_80211a);
            wifi.SetRemoteStationManager("ns3::IdealWifiManager");
            WifiMacHelper mac;
            Ssid ssid(m_roaming ? std::string("gfl-cells") : "gfl-cell-" + std::to_string(p));
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
                    if (m_roaming)
                    {
                        // until the first association (then kFlRoamingMaxMissedBeacons)
                        mac.SetType("ns3::StaWifiMac",
                                    "MaxMissedBeacons",
                                    UintegerValue(kFlMaxMissedBeacons));
                    }
                    stations.Add(wifi.Install(phy, mac, s.cells[p].Get(k)));
                }
            }
            else
#endif
            {
                stations = FlInstallWifiStations(wifi, phy, mac, ssid, s.cells[p]);
            }
            devices.Add(stations);
            if (m_cellDoze && !m_roaming) // a dozing station would miss its AP's beacons
            {
                // probing stations may doze from the start: their probe request wakes them
                FlDozeIdleStations(devices.Get(0), stations, MilliSeconds(1), probing);
            }
            if (!m_clientMobility.Moves())
            {
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
                                      << " random streams, more than the " << CellStreamStride(K)
                                      << " reserved per cell");
            }
        }
        Ipv4AddressHelper cellAddr;
        if (m_roaming)
        {
            // one subnet for all cells: a client keeps its address in any of them
            std::ostringstream base;
            base << "0.0." << p << ".1";
            cellAddr.SetBase("10.10.0.0", "255.255.0.0", base.str().c_str());
        }
        else
        {
            std::ostringstream net;
            net << "10." << (10 + p / 256) << "." << (p % 256) << ".0";
            cellAddr.SetBase(net.str().c_str(), "255.255.255.0");
        }
        Ipv4InterfaceContainer ifs = cellAddr.Assign(devices);
        s.cellServer.push_back(ifs.GetAddress(0));
        if (m_cell == "wifi" && m_cellStaticArp && !m_roaming)
        {
            FlPopulateArpCaches(devices);
        }
    }
    if (m_clientMobility.Moves())
    {
        NodeContainer clients;
        for (const auto& c : s.cells)
        {
            clients.Add(c);
        }
        m_clientMobility.Install(clients);
    }
    if (m_roaming)
    {
        // no ARP: a station between two cells could not answer
        FlPopulateArpCaches(s.cellDevices);
        WatchRoaming(s, K);
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

} // namespace ns3
