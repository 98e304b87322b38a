/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * One call each for the network scenes of federated learning: Wi-Fi infrastructure BSS, Wi-Fi ad
 * hoc, CSMA LAN, point-to-point star and LTE. Every helper's Build(n) returns an FlScene.
 */
#ifndef FL_NETWORK_SCENARIOS_H
#define FL_NETWORK_SCENARIOS_H

#include "ns3/data-rate.h"
#include "ns3/fl-flow-network.h"
#include "ns3/fl-server-strategy.h"
#include "ns3/ipv4-address.h"
#include "ns3/ipv4-interface-container.h"
#include "ns3/lte-helper.h"
#include "ns3/net-device-container.h"
#include "ns3/node-container.h"
#include "ns3/nstime.h"
#include "ns3/point-to-point-epc-helper.h"
#include "ns3/position-allocator.h"
#include "ns3/ptr.h"
#include "ns3/queue-size.h"
#include "ns3/random-variable-stream.h"

#include <functional>
#include <string>

namespace ns3
{

class WifiHelper;
class WifiMacHelper;
class YansWifiPhyHelper;
class Ssid;

/**
 * \ingroup fl-helper
 * StaWifiMac::MaxMissedBeacons of the stations of the Wi-Fi scenes (ns-3's default: 10). The
 * beacon watchdog starts with a station's first association request, and a station whose
 * association outlasts it is disassociated as it associates and never associates again; with
 * 100 stations associating at once that happened within the default's 1.024 s.
 */
constexpr uint32_t kFlMaxMissedBeacons = 100;

/**
 * \ingroup fl-helper
 * The nodes and addresses of a federated-learning network scene: one server node and N client
 * nodes (install FlServerHelper on serverNode, FlClientHelper on clients with serverAddress).
 * Scenes with a core network also keep the helpers that must outlive the simulation.
 */
struct FlScene
{
    Ptr<Node> serverNode;      ///< hosts the FL server
    NodeContainer clients;     ///< one FL client each, in client-index order
    Ipv4Address serverAddress; ///< the address clients connect to
    /**
     * The access-network devices the helper created: for CSMA, Wi-Fi ad hoc and Wi-Fi
     * infrastructure the server's (for the BSS, the AP's) device first, then the clients' in order;
     * for the Wi-Fi ESS the A APs' devices, then the clients' in order;
     * for the point-to-point star the server's and the client's device of each link in turn (server
     * 0, client 0, server 1, client 1, ...); for LTE the eNB's device first, then the UEs' in
     * order.
     */
    NetDeviceContainer devices;
    Ipv4InterfaceContainer clientInterfaces; ///< the clients' IPv4 interfaces, in order
    /// other nodes of the scene (LTE: the eNB and the PGW; Wi-Fi ESS: the APs)
    NodeContainer infrastructure;
    Ptr<LteHelper> lteHelper;             ///< LTE scenes only: the LTE helper
    Ptr<PointToPointEpcHelper> epcHelper; ///< LTE scenes only: the EPC helper
    /**
     * Scenes built in flow fidelity (FlSceneHelperBase::SetFidelity) only: the flow-level
     * network holding the nodes' addresses. Such a scene has no devices, no Internet stack
     * and empty `devices` and `clientInterfaces`; the applications' tcp transport runs over it.
     */
    Ptr<FlFlowNetwork> flowNetwork;
};

/**
 * \ingroup fl-helper
 * What a packet-level scene knows of each client's link, for a server strategy that selects
 * clients by channel quality (FlServerPort::linkState). The scene helpers aggregate one to the
 * server node at Build(); FlFedAvgHelper::Install hands it to the server
 * (FlServerApplication::SetLinkStateProvider). It only listens: it sends nothing and changes
 * no result.
 *
 * - Wi-Fi (infrastructure and ad hoc): rateBps and snrDb of the last data frame the server's
 *   (the AP's) PHY received from the client (WifiPhy "MonitorSnifferRx": the frame's
 *   TXVECTOR rate and signal - noise in dB); NaN until the first one. No RTT.
 * - CSMA: rateBps the LAN's data rate, rtt twice its propagation delay. No SNR.
 * - Point-to-point star: rateBps the client's link rate, rtt twice the link delay. No SNR.
 * - LTE: snrDb the UE's uplink SINR at the eNB (LteEnbPhy "ReportUeSinr", the linear
 *   average over the SRS, in dB), NaN until the first report. ns-3 has no per-UE rate the
 *   cell knows before scheduling, so no rate; no RTT.
 *
 * Scenes built in flow fidelity have none.
 */
class FlSceneLinkState : public Object
{
  public:
    /// \return the TypeId
    static TypeId GetTypeId();
    /// What the scene knows of client `client`'s link (unknown fields as in FlLinkState).
    using Query = std::function<FlLinkState(uint32_t client)>;
    /// Sets the query (replaces an earlier one).
    void SetQuery(Query query);
    /// The link state of a client (all unknown without a query).
    FlLinkState Get(uint32_t client) const;

  protected:
    void DoDispose() override;

  private:
    Query m_query; ///< see SetQuery
};

/**
 * \ingroup fl-helper
 * The link-state source of a scene's server node (FlSceneLinkState), or null if the scene
 * has none (flow fidelity, a node not built by a scene helper).
 */
Ptr<FlSceneLinkState> FlGetSceneLinkState(Ptr<Node> serverNode);

/// SNR [dB] of a frame received with `signalDbm` over a noise of `noiseDbm`: their difference.
double FlSnrDb(double signalDbm, double noiseDbm);

/**
 * \ingroup fl-helper
 * Network fidelity of a scene: packets (ns-3 devices, Internet stack, every frame simulated) or
 * flows (FlFlowNetwork: each message's delivery time from a calibrated model of the links; no
 * devices, 20x and more faster, validated against packets within stated bounds).
 */
enum class FlFidelity : uint8_t
{
    Packet = 0, ///< ns-3 devices and packets
    Flow = 1,   ///< the flow-level model (FlFlowNetwork)
};

/// Parses "packet" or "flow" (throws fl::ConfigError naming `what` otherwise).
FlFidelity ParseFlFidelity(const std::string& name, const std::string& what);

/**
 * \ingroup fl-helper
 * Prints the validity warnings of a flow-level scene (FlFlowNetwork::ValidityWarnings) to
 * standard error, each prefixed with `program`, each text once per process (FlWarnOnce: a
 * program that builds one scene per run says it once); nothing for a packet-level scene.
 * @return the number of warnings of this scene (printed now or before)
 */
std::size_t FlPrintFlowWarnings(const std::string& program, const FlScene& scene);

/**
 * \ingroup fl-helper
 * Writes `line` and a newline to standard error unless this process wrote the same line
 * through this function before (thread-safe).
 * @return true if it was written now
 */
bool FlWarnOnce(const std::string& line);

/**
 * \ingroup fl-helper
 * The calibrated flow-level medium of an 802.11 cell of the given standard ("80211a", "80211g",
 * "80211n", "80211ac", "80211ax"; one spatial stream, stations close enough for the top MCS of
 * IdealWifiManager), as the Wi-Fi scene helpers build it in flow fidelity; `phyRate` gets the
 * stations' PHY rate [b/s]. For scene builders of their own (FlGraphSceneHelper's Wi-Fi cells).
 */
FlFlowMedium FlWifiFlowMedium(const std::string& standard, double& phyRate);

/**
 * \ingroup fl-helper
 * The calibrated flow-level medium of a CSMA LAN of the given rate, as FlCsmaSceneHelper builds
 * it in flow fidelity.
 */
FlFlowMedium FlCsmaFlowMedium(DataRate rate);

/**
 * \ingroup fl-helper
 * The ns-3 stream number from which the scene helpers draw node positions at Build(): every
 * scene built in one process gets the same positions for a given --RngRun, so that the runs of
 * a parameter sweep share their geometry. Keep other streams below it (AssignStreams numbers
 * start low) or above it.
 */
constexpr int64_t kFlPositionStream = 1 << 22;

/**
 * \ingroup fl-helper
 * What every scene helper shares: its name in error messages and the checks of its settings.
 * Not used on its own.
 */
class FlSceneHelperBase
{
  public:
    /**
     * Packet (default) or flow fidelity. In flow fidelity Build() creates the same nodes and
     * addresses as in packet fidelity but no devices, mobility or Internet stack: the nodes join
     * an FlFlowNetwork (FlScene::flowNetwork) whose media carry the calibrated parameters of the
     * helper's settings (standard, data rate, bandwidth, delays); see the module documentation,
     * "Flow-level fidelity", for what is modelled and where the model holds.
     */
    void SetFidelity(FlFidelity fidelity);
    /// The fidelity set.
    FlFidelity GetFidelity() const
    {
        return m_fidelity;
    }
    /**
     * Flow fidelity only: probability that a message to or from a client is lost (each
     * message drawn once, from the network's stream; default 0). Not validated against packets.
     */
    void SetFlowMessageLoss(double probability);
    /**
     * Builds the scene on the user's nodes instead of new ones: `server` becomes
     * FlScene::serverNode and `clients` FlScene::clients (in that order); Build(n) then needs
     * n = clients.GetN(). The nodes must not hold an Internet stack yet (Build installs it). A
     * node that already has a MobilityModel keeps it (the radio scenes place only the others).
     * The LTE scene still creates its eNB and EPC nodes. Throws fl::ConfigError naming
     * "SetNodes" for a null server, no clients, or a server that is also a client.
     */
    void SetNodes(Ptr<Node> server, const NodeContainer& clients);

  protected:
    /// @param name the helper's class name, which starts every error message
    explicit FlSceneHelperBase(const char* name);
    /**
     * The scene's nodes: the user's (SetNodes) or a new server node and numClients new client
     * nodes, created in that order. Throws fl::ConfigError naming "Build" if numClients differs
     * from the user's clients, or naming "SetNodes" if a node already has an Internet stack.
     */
    FlScene NewScene(uint32_t numClients) const;
    /// Stops if numClients is 0.
    void CheckClients(uint32_t numClients) const;
    /// Stops, naming the setting `what`, if the rate is 0.
    void CheckDataRate(const char* what, DataRate rate) const;
    /// Stops, naming the setting `what`, if the delay is negative.
    void CheckDelay(const char* what, Time delay) const;

    const char* m_name; ///< the helper's class name
    FlFidelity m_fidelity{FlFidelity::Packet}; ///< see SetFidelity
    double m_flowLoss{0.0};                    ///< see SetFlowMessageLoss
    Ptr<Node> m_userServer;                    ///< see SetNodes (null: new nodes)
    NodeContainer m_userClients;               ///< see SetNodes
};

/**
 * \ingroup fl-helper
 * The settings of the wired scenes (CSMA LAN, point-to-point star): a data rate and a
 * propagation delay, with the defaults of each helper.
 */
class FlWiredSceneHelperBase : public FlSceneHelperBase
{
  public:
    /// Data rate of the links (> 0).
    void SetDataRate(DataRate rate);
    /// Propagation delay of the links (>= 0).
    void SetDelay(Time delay);

  protected:
    /**
     * @param name the helper's class name
     * @param rate the default data rate
     * @param delay the default propagation delay
     */
    FlWiredSceneHelperBase(const char* name, DataRate rate, Time delay);

    DataRate m_dataRate; ///< see SetDataRate
    Time m_delay;        ///< see SetDelay
};

/**
 * \ingroup fl-helper
 * The setting of the radio scenes (Wi-Fi, LTE): the clients are placed uniformly at random on a
 * disc around the origin, positions drawn from kFlPositionStream, or where the user's
 * PositionAllocator says; the server (Wi-Fi) and the eNB (LTE) at the origin. A node that
 * already has a MobilityModel (SetNodes) keeps it.
 */
class FlRadioSceneHelperBase : public FlSceneHelperBase
{
  public:
    /// Radius of the disc on which the clients are placed [m] (>= 0).
    void SetRadius(double meters);
    /**
     * Places the clients (those without a MobilityModel) at the positions of `allocator`, one
     * GetNext() per client in client order, with ConstantPositionMobilityModel, instead of on
     * the disc (SetRadius is then unused). Fix the allocator's streams yourself if it draws.
     */
    void SetPositionAllocator(Ptr<PositionAllocator> allocator);

  protected:
    /// Places the clients without a MobilityModel: the user's allocator, or the disc.
    void PlaceClients(const NodeContainer& clients) const;

    /**
     * @param name the helper's class name
     * @param radius the default radius [m]
     */
    FlRadioSceneHelperBase(const char* name, double radius);

    double m_radius; ///< see SetRadius
    Ptr<PositionAllocator> m_positions; ///< see SetPositionAllocator (null: the disc)
};

/**
 * \ingroup fl-helper
 * What the Wi-Fi scenes share: the server at the origin, the clients on a disc of radius 10 m by
 * default, one YANS channel with log-distance path loss (YansWifiChannelHelper::Default),
 * constant positions, Internet stack and IPv4 addresses in 10.1.0.0/16 (server 10.1.0.1). The
 * subclasses choose the MACs.
 */
class FlWifiSceneHelperBase : public FlRadioSceneHelperBase
{
  public:
    virtual ~FlWifiSceneHelperBase() = default;
    /// Wi-Fi standard: "80211a", "80211g", "80211n" (default, 5 GHz), "80211ac", "80211ax".
    void SetStandard(const std::string& standard);
    /// Remote station manager TypeId name (default "ns3::IdealWifiManager").
    void SetRateManager(const std::string& typeName);
    /**
     * Works around an ns-3.37 Wi-Fi stall (on by default; it matters only for standards with
     * A-MPDU, 802.11n and later). With HT/VHT/HE A-MPDU and several stations receiving bursts at
     * once, the ADDBA Request/Response exchange can outlast QosTxop::AddBaResponseTimeout
     * (default 5 ms); the MPDUs queued meanwhile are then handled inconsistently by originator
     * and recipient, and the recipient's reordering buffer waits for a sequence number that never
     * comes: every later frame to that station is buffered, TCP retransmits until it gives up.
     * The workaround sets AddBaResponseTimeout = 200 ms, BE_BlockAckThreshold = 1 (agreement set
     * up before the first burst) and WifiDefaultAckManager::UseExplicitBar = true. Disable it to
     * study the stock behaviour.
     */
    void SetBlockAckWorkaround(bool enable);
    /**
     * Fixes the random streams of the scene's Wi-Fi devices and Internet stacks, the server's
     * and clients' first, then those of FlScene::infrastructure (the ESS's APs; positions come
     * from kFlPositionStream at Build).
     * @return the number of streams used
     */
    static int64_t AssignStreams(const FlScene& scene, int64_t stream);

  protected:
    /// @param name the helper's class name
    explicit FlWifiSceneHelperBase(const char* name);
    /**
     * Installs the Wi-Fi devices on scene.serverNode and scene.clients, given the Wi-Fi helper
     * (standard and rate manager set), the PHY helper (channel set) and the MAC helper (ack
     * manager set; the installer sets the MAC type); returns the server's device first, then
     * the clients' in order.
     */
    using DeviceInstaller = std::function<NetDeviceContainer(const FlScene&,
                                                             const WifiHelper&,
                                                             const YansWifiPhyHelper&,
                                                             WifiMacHelper&)>;
    /**
     * One cell on one channel: creates the nodes, devices (`install`), mobility, Internet stack
     * and addresses.
     */
    FlScene BuildWifi(uint32_t numClients, const DeviceInstaller& install) const;
    /**
     * The building blocks of a Wi-Fi cell: sets `wifi`'s standard and rate manager and `mac`'s
     * ack manager (first half of the block-ack workaround) from the settings.
     * @return the channel settings of the standard ("{number, width, band, 0}")
     */
    std::string ConfigureWifi(WifiHelper& wifi, WifiMacHelper& mac) const;
    /**
     * A PHY helper on a new YANS channel (log-distance path loss, YansWifiChannelHelper::Default),
     * tuned to `channel`: the devices installed with it hear each other and nobody else.
     */
    static YansWifiPhyHelper NewChannelPhy(const std::string& channel);
    /// Second half of the block-ack workaround on the installed devices (if it is on).
    void FinishWifiDevices(const NetDeviceContainer& devices) const;

  private:
    std::string m_standard;    ///< see SetStandard
    std::string m_rateManager; ///< see SetRateManager
    bool m_blockAckWorkaround; ///< see SetBlockAckWorkaround
};

/**
 * \ingroup fl-helper
 * Builds an 802.11 infrastructure BSS: the server on the AP at the origin, the clients are the
 * stations, placed uniformly at random on a disc around it (FlWifiSceneHelperBase).
 */
class FlWifiScenarioHelper : public FlWifiSceneHelperBase
{
  public:
    FlWifiScenarioHelper();
    /// Creates the nodes, devices, mobility, Internet stack and addresses.
    FlScene Build(uint32_t numStations) const;
};

/**
 * \ingroup fl-helper
 * Builds an 802.11 extended service set (ESS): A access points, each its own BSS (SSID
 * "fl-ess-<a>", its own YANS channel object, so that no cell hears another, as if each AP had a
 * channel of its own), wired to the server's node by one point-to-point link each; the server is
 * on no AP. Client i is a station of AP (i mod A) (the clients are dealt to the APs in turn, so
 * that every AP serves floor(N / A) or one more), placed uniformly at random on a disc of the
 * scene's radius (10 m by default) around its AP, the offsets drawn in client order from
 * kFlPositionStream (or where the user's PositionAllocator says, SetPositionAllocator). The APs
 * stand on a square grid of ceil(sqrt(A)) columns, SetApSpacing apart (default 1,000 m: the
 * cells are separate by their channels anyway). Point-to-point links, not one CSMA backbone:
 * each AP's traffic to and from the server has its own full-duplex link (default 1 Gb/s,
 * 100 us), as an AP's port on a switch, so that the backbone is never the bottleneck the
 * radio cells are meant to be.
 *
 * Addresses: cell a is 10.(a + 1).0.0/16, its AP 10.(a + 1).0.1 and its stations from
 * 10.(a + 1).0.2 on in client order; backbone link a is the a-th /30 of 172.16.0.0/16 (the
 * server's address first, then the AP's). FlScene::serverAddress is the server's address on
 * link 0; the server reaches the other addresses of its node too. Static routes (the tree needs
 * no routing protocol, and ns-3's global routing would compute shortest paths from every node
 * of the process): each station's default route is its AP, each AP's is the server, and the
 * server routes cell a over link a.
 *
 * FlScene: `devices` holds the A APs' Wi-Fi devices (AP 0 first), then the N stations' in
 * client order (client i is devices.Get(A + i)); the backbone's point-to-point devices are not
 * in it (they draw no random numbers). `infrastructure` holds the A AP nodes in AP order. The
 * link state (FlSceneLinkState) of client i is what its own AP's PHY received from it. The
 * same settings as the BSS (standard, rate manager, radius, block-ack workaround, the stations'
 * MaxMissedBeacons kFlMaxMissedBeacons); packet fidelity only.
 */
class FlWifiEssSceneHelper : public FlWifiSceneHelperBase
{
  public:
    FlWifiEssSceneHelper();
    /// Number of access points (BSSs), 1 to 250 (default 2); Build(n) needs at least as many
    /// clients.
    void SetAccessPoints(uint32_t count);
    /// Distance between neighbouring APs on the grid [m] (>= 0; default 1,000 m).
    void SetApSpacing(double meters);
    /// Data rate of each AP's link to the server (> 0; default 1 Gb/s).
    void SetBackboneDataRate(DataRate rate);
    /// Propagation delay of each AP's link to the server (>= 0; default 100 us).
    void SetBackboneDelay(Time delay);
    /**
     * Creates the server, AP and client nodes, the devices, the backbone, mobility, Internet
     * stacks, addresses and routes. Throws fl::ConfigError naming SetAccessPoints if there are
     * more APs than clients, naming SetFidelity in flow fidelity (the flow-level model has no
     * ESS).
     */
    FlScene Build(uint32_t numClients) const;
    /// The AP of client `client` in an ESS of `accessPoints` APs: client mod accessPoints.
    static uint32_t ApOf(uint32_t client, uint32_t accessPoints);

  private:
    uint32_t m_aps;          ///< see SetAccessPoints
    double m_apSpacing;      ///< see SetApSpacing
    DataRate m_backboneRate; ///< see SetBackboneDataRate
    Time m_backboneDelay;    ///< see SetBackboneDelay
};

/**
 * \ingroup fl-helper
 * Writes permanent IPv4 ARP entries so that no ARP request is needed among the devices of
 * `devices`: every device learns the MAC address of every other device of the container whose
 * IPv4 address is in the same subnet. Unlike ns-3's NeighborCacheHelper (3.36+), which pairs the
 * devices found on each device's channel, this pairs the devices of the container, so it also
 * works for devices whose channel holds other devices than the IP-level peers (an 802.11s mesh
 * point bridges its own interfaces) and on ns-3.35. Devices without IPv4 are skipped. Call after
 * the addresses are assigned.
 * @param devices the devices
 */
void FlPopulateArpCaches(const NetDeviceContainer& devices);

/**
 * \ingroup fl-helper
 * Installs Wi-Fi station devices on the nodes, in order, associating with the SSID. With ns-3
 * before 3.37 station i scans FlAssociationStagger(i) longer than ns-3's default, so that the
 * stations' association requests do not all contend at once (see FlAssociationStagger); from
 * ns-3.37 this is WifiHelper::Install with StaWifiMac. Changes the MAC helper's type.
 * @param wifi the Wi-Fi helper (standard, rate manager)
 * @param phy the PHY helper (channel)
 * @param mac the MAC helper
 * @param ssid the BSS's SSID
 * @param stations the station nodes
 * @return their devices, in node order
 */
NetDeviceContainer FlInstallWifiStations(const WifiHelper& wifi,
                                         const YansWifiPhyHelper& phy,
                                         WifiMacHelper& mac,
                                         const Ssid& ssid,
                                         const NodeContainer& stations);


/**
 * \ingroup fl-helper
 * Lets the idle stations of an 802.11 infrastructure BSS doze. A station's PHY sleeps
 * (WifiPhy::SetSleepMode, entered through a moment off, WifiPhy::SetOffMode, which cancels a
 * preamble detection in progress) once it is associated, neither it nor the AP has a frame
 * queued, and `guard` has passed since it last transmitted or received a frame addressed to
 * it; it wakes (WifiPhy::ResumeFromSleep) the moment the AP queues a frame for it (a group-addressed frame
 * other than a beacon wakes every station) or it queues one itself. This is an ideal power
 * save: a station is awake whenever a frame is sent to it, so no frame is lost and the traffic
 * keeps its timing up to the contention of the few stations that woke to send without having
 * heard the medium while they dozed. A dozing station receives nothing: its receive gain is
 * lowered so that the channel drops each frame for it before its PHY (restored when it wakes),
 * which is what saves simulation time in a cell of many idle stations. Dozing stations miss the
 * beacons; their
 * MaxMissedBeacons is raised so that they stay associated. Call after the devices are
 * installed and before the simulation starts.
 * @param ap the AP's device
 * @param stations the stations' devices (devices that are not Wi-Fi stations are skipped)
 * @param guard idle time before a station dozes (> the SIFS and a response frame; default 1 ms)
 * @param fromStart the stations doze from time 0 until they first queue a frame (only for
 *        stations that probe actively: a passively scanning station must hear a beacon)
 */
void FlDozeIdleStations(Ptr<NetDevice> ap,
                        const NetDeviceContainer& stations,
                        Time guard = MilliSeconds(1),
                        bool fromStart = false);

/**
 * \ingroup fl-helper
 * Builds an 802.11 ad hoc network (independent BSS): the server at the origin and N clients
 * placed uniformly at random on a disc around it, all within range of each other for the
 * default radius (FlWifiSceneHelperBase).
 */
class FlWifiAdhocSceneHelper : public FlWifiSceneHelperBase
{
  public:
    FlWifiAdhocSceneHelper();
    /**
     * Fills every node's ARP cache with the other nodes' addresses (FlPopulateArpCaches; on by
     * default). Ad hoc stations send ARP requests as broadcast frames, which are neither
     * acknowledged nor retried by the MAC: clients that start at the same time send them at the
     * same instant, they collide again at every ARP retry, the entry goes dead for
     * ArpCache::DeadTimeout (100 s) and the TCP connection attempt gives up. Disable it to study
     * the stock behaviour (then stagger the clients' start times).
     */
    void SetStaticArp(bool enable);
    /// Creates the nodes, devices, mobility, Internet stack and addresses.
    FlScene Build(uint32_t numClients) const;

  private:
    bool m_staticArp; ///< see SetStaticArp
};

/**
 * \ingroup fl-helper
 * Builds one CSMA (Ethernet-like) LAN holding the server and N clients, Internet stack and IPv4
 * addresses in 10.1.0.0/16 (server 10.1.0.1). No mobility: CSMA has no propagation model.
 * Defaults: 100 Mb/s, 6560 ns (about 2 km of cable).
 */
class FlCsmaSceneHelper : public FlWiredSceneHelperBase
{
  public:
    FlCsmaSceneHelper();
    /**
     * A switched LAN instead of one shared segment (off by default): every host (the server and
     * each client) on its own two-device CSMA segment, at the helper's rate and delay, to one
     * Ethernet switch (a node of its own in FlScene::infrastructure, ns-3's BridgeNetDevice over
     * its N + 1 ports, learning which port leads to each address and flooding only broadcasts
     * and unknown destinations). A frame then reaches its destination's segment alone, instead
     * of every host of the segment, which is what a LAN of many hosts is and what keeps a
     * simulation of a thousand hosts affordable (the shared segment delivers every frame to
     * every device: the cost of a round grows with the square of the clients). It changes the
     * network: hosts no longer contend for one medium but each for its segment, and the
     * server's segment carries all of the round's traffic. Packet fidelity only (Build throws
     * fl::ConfigError naming this setting in flow fidelity). FlScene::devices keeps its order
     * (the server's device, then the clients'): the hosts' devices; the switch's ports are
     * found on the infrastructure node.
     */
    void SetSwitched(bool switched);
    /**
     * The output queue of each of the switch's ports (SetSwitched), ns-3's CSMA device queue
     * (DropTailQueue; default 100 packets, ns-3's). Many clients sending to the server at once
     * fill the server's port: with TCP, the losses there cost retransmission timeouts (incast).
     * Throws fl::ConfigError for a size of 0.
     */
    void SetSwitchPortQueueSize(QueueSize size);
    /// Creates the nodes, devices, Internet stack and addresses.
    FlScene Build(uint32_t numClients) const;
    /**
     * Fixes the random streams of the scene's CSMA devices (backoff; a switched LAN's ports
     * too).
     * @return the number of streams used
     */
    static int64_t AssignStreams(const FlScene& scene, int64_t stream);

  private:
    bool m_switched{false};                               ///< see SetSwitched
    QueueSize m_switchQueue{QueueSizeUnit::PACKETS, 100}; ///< see SetSwitchPortQueueSize
};

/**
 * \ingroup fl-helper
 * Builds a star: the server at the hub, one point-to-point link to each client, one /30 subnet
 * per link from 10.2.0.0 on. Clients connect to the server's address on the first link
 * (FlScene::serverAddress) through a static default route to their own link; the server answers
 * over the link of each client. Defaults: 10 Mb/s, 2 ms. Links may have heterogeneous rates
 * drawn from a random variable; SetDataRate is then ignored.
 */
class FlPointToPointStarHelper : public FlWiredSceneHelperBase
{
  public:
    FlPointToPointStarHelper();
    /**
     * Draws each link's rate in Mb/s from the variable (the same rate both ways). Values are
     * clamped to at least 1 kb/s. Pass nullptr to return to the fixed rate of SetDataRate.
     * Fix the variable's stream (RandomVariableStream::SetStream) before Build() for
     * reproducible rates.
     */
    void SetDataRateVariable(Ptr<RandomVariableStream> mbps);
    /// Creates the nodes, links, Internet stack, addresses and routes.
    FlScene Build(uint32_t numClients) const;
    /**
     * Fixes the streams of the Internet stacks (point-to-point devices draw no random numbers).
     * @return the number of streams used
     */
    static int64_t AssignStreams(const FlScene& scene, int64_t stream);

  private:
    /// Flow fidelity: an up and a down medium per link, the addresses of the packet scene.
    void BuildFlowStar(FlScene& s) const;

    Ptr<RandomVariableStream> m_rateVariable; ///< see SetDataRateVariable
};

/**
 * \ingroup fl-helper
 * The time between two UEs' attachments in an FlLteSceneHelper cell of more than 159 UEs
 * (2 ms): there the largest SRS periodicity (320) leaves fewer spare UE contexts than UEs, and
 * an attach storm's collided random-access attempts would exhaust them. Smaller cells attach
 * every UE at once.
 */
inline Time
FlLteAttachSpacing()
{
    return MilliSeconds(2);
}

/**
 * \ingroup fl-helper
 * The most UEs an FlLteSceneHelper cell takes: 288 (ns-3's largest SRS periodicity, 320
 * subframes, gives 319 UE contexts; the cell keeps 10 % of them spare for collided
 * random-access attempts, without which ns-3's MAC scheduler aborts).
 */
inline uint32_t
FlLteMaxClients()
{
    return 288;
}

/**
 * \ingroup fl-helper
 * The period of the UEs' downlink CQI reports in a static FlLteSceneHelper cell unless
 * FlLteSceneHelper::SetCqiPeriodicity says otherwise: 40 ms, one of the periodic CQI reporting
 * periods of 3GPP TS 36.213 (Table 7.2.2-1A). ns-3's own, 1 ms (a report every 2 ms), cost
 * half of the processor time of a FedAvg run of 100 UEs and gave the same run byte for byte.
 */
inline Time
FlLteDefaultCqiPeriodicity()
{
    return MilliSeconds(40);
}

/**
 * \ingroup fl-helper
 * Builds an LTE cell with an EPC core, as ns-3's lena-simple-epc example: the clients are UEs
 * attached to one eNB at the origin, placed uniformly at random on a disc around it (constant
 * positions, radius 50 m by default); the server is a remote host behind the PGW over a
 * point-to-point link (1.0.0.0/8; UEs get 7.0.0.0/8 from the EPC), with static routes both ways.
 * Uses LteHelper's defaults (Friis path loss, proportional-fair scheduler, ideal RRC) except the
 * settings below and the UEs' CQI reporting period (SetCqiPeriodicity). The UEs attach at time 0 and need a few tens of milliseconds; start the
 * clients after that (e.g. at 0.5 s). The scene's helpers are kept in FlScene::lteHelper and
 * FlScene::epcHelper. The eNB's SRS periodicity is the smallest of 40, 80, 160, 320 subframes
 * that leaves as many spare UE contexts as UEs (p >= 2 N), so that the contexts held by the
 * attach storm's collided random-access attempts never run out (ns-3's MAC scheduler aborts
 * when they do); above 159 UEs the UEs attach FlLteAttachSpacing() apart instead.
 */
class FlLteSceneHelper : public FlRadioSceneHelperBase
{
  public:
    FlLteSceneHelper();
    /// Downlink and uplink bandwidth in resource blocks: 6, 15, 25 (default), 50, 75 or 100.
    void SetBandwidth(uint16_t resourceBlocks);
    /**
     * RLC mode of the UEs' default bearers: "am" (acknowledged, default: reliable, suits TCP) or
     * "um" (unacknowledged, LteHelper's default with an EPC).
     */
    void SetRlcMode(const std::string& mode);
    /**
     * Transmit buffer of every RLC entity (ns3::LteRlcAm and ns3::LteRlcUm MaxTxBufferSize,
     * set as process-wide defaults by Build(); default 1 MiB). ns-3's own 10 KiB drops the
     * rest of any burst larger than that which arrives before the scheduler has granted
     * resources, e.g. the first UDP message of a flow (a real eNB or UE buffers far more).
     */
    void SetRlcTxBufferSize(uint32_t bytes);
    /// Data rate of the PGW - remote host link (default 1 Gb/s).
    void SetBackhaulDataRate(DataRate rate);
    /// Delay of the PGW - remote host link (default 10 ms).
    void SetBackhaulDelay(Time delay);
    /**
     * Period of the UEs' downlink CQI reports, periodic wideband and subband alike
     * (ns3::LteUePhy DownlinkCqiPeriodicity; ns-3's own is 1 ms), from 1 to 160 ms (3GPP TS
     * 36.213 Table 7.2.2-1A has 2 to 160 ms; the schedulers drop a CQI after 1000 subframes).
     * Unset, Build() takes FlLteDefaultCqiPeriodicity() (40 ms) when the channel cannot change
     * (every UE with a ConstantPositionMobilityModel, no LteHelper FadingModel default), else
     * ns-3's 1 ms. In the static cell a UE's channel quality never changes, so every report
     * repeats the last one: the period changes nothing but the processor time (each report is
     * a sweep of ns-3's MI error model over 29 MCSs per resource block group), provided the
     * UEs' traffic starts after their first report (one period after they attach; the clients
     * of the examples start at 0.5 s).
     */
    void SetCqiPeriodicity(Time period);
    /// Creates the eNB, UEs, EPC, remote host, addresses, routes, and attaches the UEs.
    FlScene Build(uint32_t numClients) const;
    /**
     * Fixes the random streams of the eNB's and UEs' LTE devices (LteHelper::AssignStreams).
     * @return the number of streams used
     */
    static int64_t AssignStreams(const FlScene& scene, int64_t stream);

  private:
    /// Flow fidelity: a downlink and an uplink medium, the addresses of the packet scene.
    FlScene BuildFlow(uint32_t numClients) const;

    uint16_t m_bandwidth;    ///< see SetBandwidth
    std::string m_rlcMode;   ///< see SetRlcMode
    uint32_t m_rlcTxBuffer;  ///< see SetRlcTxBufferSize
    DataRate m_backhaulRate; ///< see SetBackhaulDataRate
    Time m_backhaulDelay;    ///< see SetBackhaulDelay
    Time m_cqiPeriodicity;   ///< see SetCqiPeriodicity (zero: automatic)
};

} // namespace ns3

#endif // FL_NETWORK_SCENARIOS_H
