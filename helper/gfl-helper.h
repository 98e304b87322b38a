/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * GFL and GHP over ns-3 links (network mode): a scene built from a combination graph
 * (servers on point-to-point links along its edges, a cell of clients per server), the helper
 * that installs the GFL servers (FlServerApplication + GflRoundStep) and clients
 * (FlClientApplication with the GFL step), and the helper that installs GHP diffusion agents.
 * Both report per-iteration metrics with the same NetworkIterationReport as the in-process
 * runners.
 */
#ifndef FL_GFL_HELPER_H
#define FL_GFL_HELPER_H

#include "ns3/data-rate.h"
#include "ns3/diffusion-agent-application.h"
#include "ns3/fl-client-application.h"
#include "ns3/fl-learning-tracker.h"
#include "ns3/fl-network-scenarios.h"
#include "ns3/fl-server-application.h"
#include "ns3/gfl-client-strategy.h"
#include "ns3/gfl-privacy.h"
#include "ns3/gfl-round-step.h"
#include "ns3/ipv4-address.h"
#include "ns3/net-device-container.h"
#include "ns3/node-container.h"
#include "ns3/nstime.h"
#include "ns3/secagg-helper.h"
#include "ns3/vector.h"

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace ns3
{

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

/// Round deadline of a GFL network run with dropouts when none was set (FlGflHelper): 5 s.
inline Time
GflDropoutDeadline()
{
    return Seconds(5);
}

/**
 * \ingroup fl-helper
 * What the GFL and GHP network helpers share: the learning task, the tracker of the
 * per-iteration metrics (an FlLearningTracker whose network view subscribes to the nodes'
 * ModelReport trace and reports as the in-process runners do), the exchange timeout and the
 * transport's name.
 */
class FlGraphRunHelperBase
{
  public:
    /**
     * Combine this long after the release even with neighbour messages missing (0 = wait;
     * DiffusionHelper's broadcast transport: 1 s, or from its iteration period).
     */
    void SetExchangeTimeout(Time timeout);
    /**
     * Minimum retransmission timeout of every application's TCP sockets
     * (FlApplicationBase::TcpMinRto; default 1 s, ns-3's). Throws fl::ConfigError unless
     * positive.
     */
    void SetTcpMinRto(Time minRto);
    /// Metrics per iteration (as the in-process runner's callback; the tracker's
    /// SetIterationCallback).
    void SetIterationCallback(fl::NetworkIterationCallback cb);
    /// Stops the simulation when no node finishes an iteration for `timeout` of simulated time
    /// (FlLearningTracker::SetStallTimeout; Tracker()->Stalled() tells). 0 = off (default).
    void SetStallTimeout(Time timeout);

    /**
     * The tracker of the run: its network view (CompletedIterations, NetworkResult, Stalled,
     * the NetworkIteration trace) after Install; Install on it adds the generic rows.
     */
    Ptr<FlLearningTracker> Tracker() const
    {
        return m_tracker;
    }

  protected:
    /// @param task the learning task @param transport the default transport's name
    FlGraphRunHelperBase(std::shared_ptr<const fl::LearningTask> task, std::string transport);
    ~FlGraphRunHelperBase() = default;

    /**
     * Builds the tracker's network view for N nodes whose releases carry `noise` (node 0's
     * mechanism, with its self-weight a_{0,0}), with the privacy accountant of mu, clipNorm, M
     * parameters (fl::GraphPrivacyAccountant: one link, all links of a node and a neighbouring
     * node; GFL and GHP share it). Throws fl::ConfigError as fl::MakeNodePerturbation.
     */
    void SetNetwork(std::size_t nodes,
                    const fl::NodeNoiseConfig& noise,
                    const Eigen::MatrixXd& combination,
                    double mu,
                    double clipNorm,
                    std::size_t parameters,
                    double delta,
                    const Eigen::VectorXd& reference);

    std::shared_ptr<const fl::LearningTask> m_task; ///< the task every node learns
    std::string m_transport;                        ///< transport name (SetTransport)
    Time m_timeout{Seconds(0)};                     ///< exchange timeout (0 = wait)
    Time m_tcpMinRto{Seconds(1)};                   ///< SetTcpMinRto
    Ptr<FlLearningTracker> m_tracker;               ///< its network view set by SetNetwork
};

/**
 * \ingroup fl-helper
 * Installs GFL on a FlGraphScene: server p = FlServerApplication (Rounds = iterations,
 * ExpectedClients = K, InitSeed = InitialModelSeed(seed), StopSimulation = false) with a
 * GflRoundStep (seed GflServerSeed(seed, p)); client k of server p = FlClientApplication
 * (ClientIndex p K + k, TrainingSeed GflClientSeed(seed, p, k)) with the GFL step
 * (GflTrainerConfig(mu, E_{p,k}, B_{p,k}, clipNorm)) and the client noise as uplink
 * perturbation. The simulation stops once every server finished its last iteration.
 *
 * Secure aggregation (config.secureAggregation): every server gets a SecAggServerStep and its
 * clients SecAggClientSteps (FlSecAggHelper::Create; SecureAggregation() sets their attributes,
 * FractionBits and Threshold come from config.maskFractionBits and config.secureThreshold), so
 * each server learns only the sum of its surviving clients' uploads (weight 1 each; eq. 7 or 55
 * over the survivors through GflRoundStep::AggregateSum). Dropout (config.dropoutProbability):
 * a sampled client drops as in process (fl::GflDropoutSeed) and stays silent (with secure
 * aggregation: it advertises no keys); the server closes the round at its deadline
 * (GflDropoutDeadline() if SetRoundDeadline was not called). A lossless run equals
 * RunGflInProcess bit for bit with either, in both key modes (the complete graph: SecAgg+
 * rounds with dropouts may abort where the in-process mirror, which applies the complete
 * graph's rule, does not).
 */
class FlGflHelper : public FlGraphRunHelperBase
{
  public:
    /// Validates the configuration (ValidateCombinationMatrix, a_pp > 0 for GH noise, ...).
    FlGflHelper(std::shared_ptr<const fl::LearningTask> task, const fl::GflConfig& config);
    /// Transport: "tcp" (default) or "udp" (FlApplicationBase::Transport of every app).
    void SetTransport(const std::string& kind);
    /// FlServerApplication::RoundDeadline (0 = wait for every sampled client).
    void SetRoundDeadline(Time deadline);
    /// Simulated seconds per training sample at the clients (FlClientApplication).
    void SetSecondsPerSample(double s);
    /**
     * Client k of each server starts k x `stagger` after 0.2 s, so that the clients of a large
     * Wi-Fi cell connect and join one after the other instead of all contending at once (their
     * SYNs at one instant lose one and wait out TCP's 3 s retry). Default: 2 ms in Wi-Fi cells,
     * 0 in CSMA cells and flow-level scenes with CSMA cells; 0: every client at 0.2 s.
     */
    void SetClientStartStagger(Time stagger);

    /// The secure-aggregation helper (attributes of both halves: Variant, KeyMode, Timeout, ...;
    /// used by Install when config.secureAggregation is set).
    FlSecAggHelper& SecureAggregation()
    {
        return m_secAgg;
    }

    /// The secure-aggregation steps of server p (empty without secure aggregation).
    const std::vector<FlSecAggParties>& SecAggParties() const
    {
        return m_parties;
    }

    /**
     * A distributed run (FlGraphSceneHelper::SetPartition with the same arguments): Install
     * installs only the servers of `localRank` and their clients, and this rank stops its
     * simulation `grace` after its last server finished the last iteration (ns-3's distributed
     * simulator ends when every rank has stopped; the messages a finished server still owes its
     * neighbours leave within the grace). The tracker's network view is set up but not installed
     * then (a rank sees only its local servers): the program gathers the servers' ModelReport
     * trace to rank 0 and records it there, in Tracker() (RecordNetwork with server p's index,
     * as examples/fl-gfl-mpi.cc does) for the network view.
     */
    void SetPartition(std::vector<uint32_t> rankOf, uint32_t localRank, Time grace = Seconds(1));

    /// Installs the apps (start at 0.1 s) and returns the servers (with SetPartition: the
    /// local servers only).
    std::vector<Ptr<FlServerApplication>> Install(const FlGraphScene& scene);

    /// The round steps (counters).
    const std::vector<Ptr<GflRoundStep>>& Steps() const
    {
        return m_steps;
    }

    /// The clients.
    const std::vector<Ptr<FlClientApplication>>& Clients() const
    {
        return m_clients;
    }

  private:
    fl::GflConfig m_config;
    Time m_deadline{Seconds(0)};
    double m_secondsPerSample{1e-4};
    Time m_startStagger{Seconds(-1)}; ///< negative: the default of the scene's cells
    std::vector<Ptr<GflRoundStep>> m_steps;
    std::vector<Ptr<FlClientApplication>> m_clients;
    FlSecAggHelper m_secAgg;
    std::vector<FlSecAggParties> m_parties;
    std::vector<uint32_t> m_rankOf; ///< SetPartition: rank of server p (empty: no partition)
    uint32_t m_localRank{0};
    Time m_grace{Seconds(1)};
    std::shared_ptr<uint32_t> m_localFinished; ///< local servers done with the last iteration
};

/**
 * \ingroup fl-helper
 * Installs GHP diffusion agents: agent k = DiffusionAgentApplication on nodes.Get(k) with
 * AgentIndex k, seed DiffusionAgentSeed(seed, k), initial model from InitialModelSeed(seed)
 * (as RunDiffusionInProcess), neighbours from the combination matrix at addresses[l]. The
 * simulation stops once every agent finished. Default scene: FlWifiAdhocSceneHelper (server node
 * = agent 0, clients = agents 1..K-1); default transport: one link-layer broadcast per release
 * (SetTransport), the paper's model of one transmission heard by every neighbour.
 */
class DiffusionHelper : public FlGraphRunHelperBase
{
  public:
    /// Validates the configuration.
    DiffusionHelper(std::shared_ptr<const fl::LearningTask> task,
                    const fl::DiffusionConfig& config);
    /**
     * "broadcast" (default): UDP, one link-layer broadcast per release to the subnet broadcast
     * address of each agent's interface (FlApplicationBase::UdpBroadcastAddress, HolePolicy
     * drop): one transmission heard by every node in range, no MAC ACK or retry, so losses are
     * real and the exchange timeout (1 s unless set) applies the missing-message policy;
     * messages overheard from non-neighbours are counted (FlGraphExchangeStats::notNeighbor)
     * and ignored. Per-link noise (a different message per neighbour) is still sent per
     * neighbour. "udp" or "tcp": one unicast copy per neighbour (UDP with retransmission).
     */
    void SetTransport(const std::string& kind);
    /// Simulated time of an adapt step.
    void SetComputeTime(Time t);
    /**
     * Synchronous iterations: iteration i begins at start + (i - 1) period at every agent
     * (DiffusionAgentApplication::IterationPeriod); 0 (default): as soon as combined. With a
     * period and no exchange timeout set, the timeout is 0.9 period - compute time - jitter.
     */
    void SetIterationPeriod(Time period);
    /// Each release happens ComputeTime + U[0, jitter] after its iteration began (default 0).
    void SetReleaseJitter(Time jitter);
    /// Fixes the agents' random streams (jitter): agent k uses stream + k (call before Install).
    /// @return the number of streams the agents will use (the number of agents)
    int64_t AssignStreams(int64_t stream);
    /// Installs agent k on nodes.Get(k) reachable at addresses[k] (start at 0.1 s).
    std::vector<Ptr<DiffusionAgentApplication>> Install(const NodeContainer& nodes,
                                                        const std::vector<Ipv4Address>& addresses);
    /// Called once per lost message: (iteration i, sender l, receiver k) when agent k combined
    /// iteration i without l's message (losses per link per iteration).
    using LinkLossCallback = std::function<void(uint32_t, uint32_t, uint32_t)>;
    /// Sets the link-loss callback.
    void SetLinkLossCallback(LinkLossCallback cb);

  private:
    fl::DiffusionConfig m_config;
    Time m_compute{MilliSeconds(1)};
    Time m_period{Seconds(0)};
    Time m_jitter{Seconds(0)};
    int64_t m_stream{-1};
    std::shared_ptr<LinkLossCallback> m_linkLoss;
};

} // namespace ns3

#endif // FL_GFL_HELPER_H
