/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * What every network scene of federated learning shares: FlScene (the nodes, addresses and
 * helpers a scene's Build(n) returns), the link state the server observes, the fidelity
 * (packets or flows) with the flow media, and the helpers' base classes. One file per scene
 * beside it; fl-network-scenarios.h includes them all.
 */
#ifndef FL_SCENE_H
#define FL_SCENE_H

#include "ns3/data-rate.h"
#include "ns3/fl-flow-network.h"
#include "ns3/fl-mobility-presets.h"
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
 * - Wi-Fi and LTE: distanceM the client's distance now to its AP (BSS: the server's node;
 *   ESS: the AP of its cell; roaming ESS: the AP it is or was last associated with), to the
 *   server's node (ad hoc) or to its serving eNB (LTE).
 * - Wi-Fi infrastructure (BSS, ESS) and LTE: cell, the AP's index or the serving eNB's cell
 *   id (kFlNoCell while the client has none), and handovers (FlLinkState); ad hoc and wired
 *   scenes leave cell kFlCellUnknown.
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

/**
 * \ingroup fl-helper
 * Distance [m] between two nodes now, from their MobilityModels; NaN if either has none.
 */
double FlNodeDistance(Ptr<Node> a, Ptr<Node> b);

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
 * PositionAllocator says, or moved by a mobility preset (SetClientMobility); the server
 * (Wi-Fi) and the eNB (LTE) at the origin. A node that already has a MobilityModel (SetNodes)
 * keeps it.
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
    /**
     * Moves the clients (those without a MobilityModel) as `preset` says, instead of placing
     * them at fixed positions (SetRadius and SetPositionAllocator are then unused); its streams
     * are fixed at Build (FlClientMobilityHelper::SetStream). A Fixed preset (the default)
     * changes nothing. Packet fidelity only: Build refuses a moving preset in flow fidelity.
     */
    void SetClientMobility(const FlClientMobilityHelper& preset);

  protected:
    /**
     * Gives the clients without a MobilityModel one: the mobility preset's (SetClientMobility),
     * else fixed positions from the user's allocator or the disc.
     */
    void PlaceClients(const NodeContainer& clients) const;
    /// Throws fl::ConfigError naming "SetClientMobility" if a moving preset meets flow fidelity.
    void CheckMobilityFidelity() const;

    /**
     * @param name the helper's class name
     * @param radius the default radius [m]
     */
    FlRadioSceneHelperBase(const char* name, double radius);

    double m_radius; ///< see SetRadius
    Ptr<PositionAllocator> m_positions; ///< see SetPositionAllocator (null: the disc)
    FlClientMobilityHelper m_mobility;  ///< see SetClientMobility
};

} // namespace ns3

#endif // FL_SCENE_H
