/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The graph scene of GFL and GHP: servers on point-to-point links along the edges of a
 * combination graph (or on one 802.11s Wi-Fi mesh), a CSMA or Wi-Fi cell of clients per server,
 * at packet or flow level; the server links' loss and the scene's streams.
 */
#ifndef FL_GRAPH_SCENE_H
#define FL_GRAPH_SCENE_H

#include "ns3/data-rate.h"
#include "ns3/fl-flow-network.h"
#include "ns3/fl-mobility-presets.h"
#include "ns3/fl-scene.h"
#include "ns3/fl-wifi-scene.h"
#include "ns3/ipv4-address.h"
#include "ns3/net-device-container.h"
#include "ns3/node-container.h"
#include "ns3/nstime.h"
#include "ns3/vector.h"

#include <Eigen/Core>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup fl-helper
 * Roaming cells of a graph scene (FlGraphSceneHelper::SetCellRoaming): which server's access
 * point each client is associated with, as its station's associations say. Client p K + k is
 * the k-th client of cells[p] (its home cell).
 */
struct FlCellMembership : public SimpleRefCount<FlCellMembership>
{
    /// per client: the server whose AP it is associated with now (kFlNoCell between a lost
    /// association and the next)
    std::vector<int32_t> cell;
    std::vector<int32_t> lastCell;      ///< per client: the last AP (kFlNoCell: none yet)
    std::vector<uint32_t> associations; ///< per client: associations so far
    /// called at each association: (client, the server whose AP it associated with); set by
    /// FlGflHelper::Install to hand the client over to that server
    std::function<void(uint32_t, uint32_t)> onAssociation;
};

/**
 * \ingroup fl-helper
 * A GFL scene: P server nodes linked along the edges of a graph, K clients per server.
 */
struct FlGraphScene
{
    NodeContainer servers;               ///< server p = servers.Get(p)
    std::vector<NodeContainer> cells;    ///< cells[p]: the K clients of server p
    std::vector<Ipv4Address> cellServer; ///< the address of server p in its cell
    /// peerAddress[{p, m}]: the address of server m on the link p - m (what p sends to)
    std::map<std::pair<uint32_t, uint32_t>, Ipv4Address> peerAddress;
    /// the server-to-server devices: point-to-point, two per edge; mesh: one mesh point each
    NetDeviceContainer serverLinks;
    std::string serverLinkKind;     ///< "p2p" or "mesh"
    std::string cellKind;           ///< "csma" or "wifi"
    NetDeviceContainer cellDevices; ///< the cells' devices (server's first in each cell)
    /**
     * Scenes built in flow fidelity (FlGraphSceneHelper, FlSceneHelperBase::SetFidelity or the
     * global value FlGraphFidelity) only: the flow-level network that carries every message
     * (no devices, no Internet stack; serverLinks and cellDevices are empty).
     */
    Ptr<FlFlowNetwork> flowNetwork;
    /// Roaming cells (FlGraphSceneHelper::SetCellRoaming) only: the clients' associations
    /// (null otherwise).
    Ptr<FlCellMembership> membership;
};

/**
 * \ingroup fl-helper
 * The sizes up to which the flow-level model of GFL with Wi-Fi cells was validated against
 * packet-level runs (module documentation, "Flow-level fidelity"): FlGraphSceneHelper sets them
 * on the flow network of a Wi-Fi-cell scene (FlFlowValidity), and a run beyond one gets a
 * validity warning.
 */
struct FlGflFlowValidity
{
    static constexpr uint32_t kMaxClientsPerCell = 100; ///< stations per Wi-Fi cell (K)
    static constexpr uint32_t kMaxSampledPerCell = 30;  ///< clients sampled per iteration (L)
    /// messages in flight at once in one cell (the server's end-of-run message to each of
    /// its K clients is the peak: K at the largest validated size)
    static constexpr uint32_t kMaxConcurrentPerCell = 100;
    /// largest message (a model or an upload) [bytes]: a ridge model of M = 2,000, validated
    /// with L = 5
    static constexpr uint32_t kMaxMessageBytes = 16036;
};

/**
 * \ingroup fl-helper
 * Prints the validity warnings of a flow-level GFL scene (FlFlowNetwork::ValidityWarnings) to
 * standard error, each prefixed with `who`, each text once per process (FlWarnOnce: a figure
 * builds one scene per run and variant). FlGflHelper calls it when the last iteration is
 * complete (the bounds on messages in flight are known only after the run).
 * @return the number of warnings
 */
std::size_t FlPrintGraphFlowWarnings(const std::string& who, Ptr<FlFlowNetwork> network);

/**
 * \ingroup fl-helper
 * Builds a FlGraphScene from a combination matrix. The server-to-server links (ServerLinks):
 * - "p2p" (default): an edge p - m wherever a_pm > 0 or a_mp > 0 (p != m) becomes a
 *   point-to-point link (ServerLinkRate, ServerLinkDelay; 10.3.x.y/30 per edge);
 * - "mesh": every server gets an 802.11s mesh point (ns-3's mesh module: Dot11sStack, HWMP
 *   routing, peer management; 802.11a, one interface, its own YANS channel object), servers on
 *   a square grid MeshSpacing metres apart (ceil(sqrt(P)) per row; default 30 m: with ns-3's
 *   802.11s defaults links of 50 m work and of 60 m do not), one subnet 10.4.0.0/16.
 *   A server still sends only to its graph neighbours, but a message may cross several radio
 *   hops (HWMP chooses the path) and shares the air with every other server's messages.
 * Each server gets its own cell of K clients: CSMA (default; 100 Mb/s, 6560 ns) or an 802.11a
 * infrastructure BSS with the server on the AP, each cell on its own YANS channel object and its
 * own 5 GHz channel number (36, 40, ..., 64, 100, ..., 140, cycled), clients on a disc of radius
 * 10 m around the AP; by default a cell's idle stations doze (SetCellDoze) and its ARP entries
 * are permanent (SetCellStaticArp), which keeps the models and the iterations' timing and
 * saves most of the simulation's work in large cells. Servers stand 1 km apart on a line (p2p) or on the mesh grid. Addresses
 * 10.(10 + p / 256).(p % 256).0/24 per cell.
 *
 * Fidelity: packet (ns-3 devices, the default) or flow (SetFidelity, or the global value
 * FlGraphFidelity, which sets the default of every FlGraphSceneHelper: a program built on this
 * helper runs in flow fidelity with --FlGraphFidelity=flow on its command line or
 * NS_GLOBAL_VALUE="FlGraphFidelity=flow" in its environment). In flow fidelity Build() creates
 * the same nodes and addresses but no devices: every message crosses an FlFlowNetwork
 * (FlGraphScene::flowNetwork) with one medium per direction of each server-to-server link
 * (ServerLinkRate, ServerLinkDelay) and one shared medium per cell (the calibrated 802.11a cell
 * of FlWifiFlowMedium: per-station airtime sharing at the cell's 54 Mb/s; or the CSMA LAN of
 * FlCsmaFlowMedium). Only point-to-point server links, one process (no SetPartition). Wi-Fi
 * cells get the validity bounds of FlGflFlowValidity; CSMA cells were not validated for GFL.
 */
class FlGraphSceneHelper : public FlSceneHelperBase
{
  public:
    /// Takes its fidelity from the global value FlGraphFidelity (throws fl::ConfigError naming
    /// it if it is neither "packet" nor "flow").
    FlGraphSceneHelper();
    /// Rate of the server-to-server links (> 0; default 100 Mb/s).
    void SetServerLinkRate(DataRate rate);
    /// Delay of the server-to-server links (>= 0; default 2 ms).
    void SetServerLinkDelay(Time delay);
    /// "p2p" (default: a point-to-point link per graph edge) or "mesh" (802.11s among servers).
    void SetServerLinks(const std::string& kind);
    /// Distance between neighbouring servers on the mesh grid (> 0 m; default 30 m).
    void SetMeshSpacing(double metres);
    /// "csma" (default) or "wifi".
    void SetCell(const std::string& kind);
    /// Data rate of CSMA cells (default 100 Mb/s).
    void SetCellDataRate(DataRate rate);
    /**
     * Wi-Fi cells: idle stations doze (FlDozeIdleStations): a station not in the current
     * exchange sleeps and wakes the moment a frame is queued for it or by it. Saves most of
     * the simulation's work in cells of many stations of which few are sampled per
     * iteration; the models are the same bit for bit and the simulated time per iteration
     * moves by well under 1 %. Default on.
     */
    void SetCellDoze(bool enable);
    /**
     * Wi-Fi cells: permanent ARP entries between the server and its clients
     * (FlPopulateArpCaches), so that no ARP request is broadcast in a cell (shortens the
     * set-up; the iterations are unchanged). Default on.
     */
    void SetCellStaticArp(bool enable);
    /**
     * Wi-Fi cells: the AP's beacon interval (ApWifiMac::BeaconInterval; a multiple of 1024 us
     * up to 65535 x 1024 us; default ns-3's 102.4 ms).
     */
    void SetCellBeaconInterval(Time interval);
    /**
     * Wi-Fi cells: staggered active association. Station k of a cell probes for its AP
     * (StaWifiMac::ActiveProbing, ProbeDelay k x `stagger`, ProbeRequestTimeout 5 ms) instead of
     * waiting for a beacon, so that the stations of a large cell associate one after the other
     * instead of all colliding at once; with SetCellDoze they doze until their probe. Default
     * 1 ms (a cell of 100 stations associates in about 0.1 s; the steady iterations are the same);
     * 0: ns-3's passive scanning, every station at once (before ns-3.37: FlAssociationStagger).
     */
    void SetCellAssociationStagger(Time stagger);
    /**
     * Roaming cells, so that clients can move from one server's cell to another's (off by
     * default). Needs Wi-Fi cells, packet fidelity and no partition (Build throws
     * fl::ConfigError naming SetCellRoaming otherwise). The cells become one extended service
     * set: every server's AP has the SSID "gfl-cells", all share one YANS channel object and
     * channel 36 (ns-3's stations scan only the channel their PHY is on), so APs and stations
     * of neighbouring cells contend where they hear each other; the cells are one subnet,
     * 10.10.0.0/16 (server p 10.10.p.1, its k-th client 10.10.p.(k + 2): each client keeps its
     * address wherever it is), with permanent ARP entries among all of them; the servers stand
     * SetCellSpacing apart on a line (default kFlRoamingApSpacing, 80 m: neighbouring cells
     * overlap by about 20 m). Idle stations do not doze (a dozing station misses beacons).
     * A station associates with the AP it hears best, keeps kFlMaxMissedBeacons until its first
     * association and kFlRoamingMaxMissedBeacons (1.024 s) after it, then scans and associates
     * with the AP it hears best. At each association the other APs record the station as gone
     * (as an 802.11 reassociation tells the previous AP through the distribution system), so
     * that they send it nothing more. FlGraphScene::membership tells the associations;
     * FlGflHelper hands each client over to the server whose AP it associated with.
     */
    void SetCellRoaming(bool enable);
    /// Roaming cells: distance between neighbouring servers on their line [m] (> 0; default
    /// kFlRoamingApSpacing).
    void SetCellSpacing(double metres);
    /**
     * Moves the clients of Wi-Fi cells as `preset` says (client p K + k is the preset's client
     * p K + k), instead of placing them on a disc of 10 m around their server. Without roaming
     * cells a client that walks out of its cell loses its server. Build throws fl::ConfigError
     * naming SetClientMobility for a moving preset with CSMA cells or in flow fidelity.
     */
    void SetClientMobility(const FlClientMobilityHelper& preset);
    /**
     * One simulation across the ranks of ns-3's distributed simulator: server p and its cell
     * belong to rank rankOf[p] (fl::PartitionServers). Build then creates server p with that
     * system id (every rank creates every server and every server-to-server link: a link
     * between servers of two ranks becomes ns-3's remote point-to-point channel, whose delay
     * is the simulator's lookahead), but creates, addresses and simulates only the cells of
     * `localRank`. Each cell's random streams get fixed numbers, from `stream` + p x
     * CellStreamStride() on (its Wi-Fi devices, then its nodes' internet stacks), so that a
     * cell draws the same numbers whichever rank simulates it and whatever other cells exist.
     * Only point-to-point server links can be partitioned (SetServerLinks("p2p")). Call with
     * an empty vector for the usual single-process scene (the default).
     */
    void SetPartition(std::vector<uint32_t> rankOf, uint32_t localRank, int64_t stream = 100000);

    /// Stream numbers reserved per cell by SetPartition.
    static int64_t CellStreamStride(uint32_t clientsPerServer)
    {
        return 64 * (int64_t{clientsPerServer} + 1);
    }

    /**
     * Builds the scene. Stops (NS_FATAL_ERROR naming the problem) on a non-square or
     * disconnected matrix or K = 0; in flow fidelity throws fl::ConfigError naming
     * FlGraphFidelity with mesh server links or a partition.
     */
    FlGraphScene Build(const Eigen::MatrixXd& combination, uint32_t clientsPerServer) const;

  private:
    /// Point-to-point links along the graph's edges.
    void BuildPointToPoint(const Eigen::MatrixXd& combination, FlGraphScene& s) const;
    /// One 802.11s mesh among all servers.
    void BuildMesh(const Eigen::MatrixXd& combination, FlGraphScene& s) const;
    /// Flow fidelity: the same nodes and addresses over an FlFlowNetwork.
    FlGraphScene BuildFlow(const Eigen::MatrixXd& combination, uint32_t clientsPerServer) const;
    /// Where server p stands.
    Vector ServerPosition(uint32_t p, uint32_t servers) const;
    /// Roaming cells: the membership, the APs' record of stations gone, the beacon watchdog.
    void WatchRoaming(FlGraphScene& s, uint32_t clientsPerServer) const;

    DataRate m_linkRate;
    Time m_linkDelay;
    std::string m_links;
    double m_meshSpacing;
    std::string m_cell;
    DataRate m_cellRate;
    bool m_cellDoze{true};
    bool m_cellStaticArp{true};
    Time m_beaconInterval{MicroSeconds(102400)};
    Time m_assocStagger{MilliSeconds(1)};
    bool m_roaming{false};                    ///< see SetCellRoaming
    double m_cellSpacing{-1.0};               ///< see SetCellSpacing (negative: the default)
    FlClientMobilityHelper m_clientMobility; ///< see SetClientMobility
    std::vector<uint32_t> m_rankOf; ///< SetPartition: rank of server p (empty: no partition)
    uint32_t m_localRank{0};
    int64_t m_partitionStream{100000};
};

/**
 * \ingroup fl-helper
 * Makes the server-to-server links of a scene lossy: every device of scene.serverLinks drops
 * each packet it receives (point-to-point: the device's ReceiveErrorModel) or each frame
 * (mesh: the post-reception error model of every mesh interface's PHY; the 802.11 MAC then
 * retries lost unicast frames, so fewer messages are lost than frames) with probability `rate`,
 * through a RateErrorModel (packet unit) on its own ns-3 stream, numbered from `stream` on.
 * Stops (NS_FATAL_ERROR) on a rate outside [0, 1]; throws fl::ConfigError for a rate > 0 on a
 * flow-level scene (no packets to lose).
 * @return the number of streams used
 */
int64_t FlSetServerLinkLoss(const FlGraphScene& scene, double rate, int64_t stream);

/**
 * \ingroup fl-helper
 * Fixes the random streams of a packet-level scene (the cells' CSMA or Wi-Fi devices, the mesh
 * points of mesh server links, every node's Internet stack), numbered from `stream` on, so that
 * its draws (back-offs, jitters) depend on the ns-3 run number only, not on what else was
 * simulated in the process before it. A flow-level scene has none (returns 0).
 * @return the number of streams used
 */
int64_t FlAssignGraphSceneStreams(const FlGraphScene& scene, int64_t stream);

} // namespace ns3

#endif // FL_GRAPH_SCENE_H
