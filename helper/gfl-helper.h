/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * GFL and GHP over ns-3 links (network mode), on the graph scene of fl-graph-scene.h: the helper
 * that installs the GFL servers (FlServerApplication + GflServerStrategy) and clients
 * (FlClientApplication with the GFL step), and the helper that installs GHP diffusion agents.
 * Both report per-iteration metrics with the same NetworkIterationReport as the in-process
 * runners.
 */
#ifndef FL_GFL_HELPER_H
#define FL_GFL_HELPER_H

#include "ns3/data-rate.h"
#include "ns3/diffusion-agent-application.h"
#include "ns3/fl-client-application.h"
#include "ns3/fl-hello-application.h"
#include "ns3/fl-learning-tracker.h"
#include "ns3/fl-graph-scene.h"
#include "ns3/fl-network-scenarios.h"
#include "ns3/fl-server-application.h"
#include "ns3/gfl-client-strategy.h"
#include "ns3/gfl-privacy.h"
#include "ns3/gfl-server-strategy.h"
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
/// Round deadline of a GFL network run with dropouts when none was set (FlGflHelper): 5 s.
inline Time
GflDropoutDeadline()
{
    return Seconds(5);
}

/**
 * The join window of GFL servers in roaming cells when none was set (FlGflHelper::SetJoinWindow):
 * 2 s, time for the stations of a cell to associate and join.
 */
inline Time
GflRoamingJoinWindow()
{
    return Seconds(2);
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
 * GflServerStrategy (seed GflServerSeed(seed, p)); client k of server p = FlClientApplication
 * (ClientIndex p K + k, TrainingSeed GflClientSeed(seed, p, k)) with the GFL step
 * (GflTrainerConfig(mu, E_{p,k}, B_{p,k}, clipNorm)) and the client noise as uplink
 * perturbation. The simulation stops once every server finished its last iteration.
 *
 * Secure aggregation (config.secureAggregation): every server gets a SecAggServerStep and its
 * clients SecAggClientSteps (FlSecAggHelper::Create; SecureAggregation() sets their attributes,
 * FractionBits and Threshold come from config.maskFractionBits and config.secureThreshold), so
 * each server learns only the sum of its surviving clients' uploads (weight 1 each; eq. 7 or 55
 * over the survivors through GflServerStrategy::Aggregate). Dropout (config.dropoutProbability):
 * a sampled client drops as in process (fl::GflDropoutSeed) and stays silent (with secure
 * aggregation: it advertises no keys); the server closes the round at its deadline
 * (GflDropoutDeadline() if SetRoundDeadline was not called). A lossless run equals
 * RunGflInProcess bit for bit with either, in both key modes (the complete graph: SecAgg+
 * rounds with dropouts may abort where the in-process mirror, which applies the complete
 * graph's rule, does not).
 *
 * Roaming cells (FlGraphSceneHelper::SetCellRoaming; not with secure aggregation, whose
 * rosters are fixed per server: exit status 2 naming SetCellRoaming): when a client's station
 * associates with server m's AP, the client is handed over to server m
 * (FlClientApplication::SwitchServer: it joins m and drops what it owed its old server); every
 * server samples L of the clients that joined it and are in its cell now
 * (GflServerStrategy::Config::followCells) and knows each client's cell, handovers and distance
 * through its link state; rounds close at the deadline (GflDropoutDeadline() unless set: a
 * client may leave mid-round) and the first iteration starts after the join window
 * (SetJoinWindow). With nobody moving a run equals the fixed cells' bit for bit.
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
    /**
     * Each server starts its first iteration once its K clients joined or this long after it
     * started, with the clients that joined by then, even none (FlServerApplication::
     * JoinWindow; a server without clients combines its neighbours' messages). Default:
     * GflRoamingJoinWindow() in roaming cells (a server's clients may start in another cell), 0
     * (wait for all K) otherwise. Exits with status 2 naming SetJoinWindow if negative.
     */
    void SetJoinWindow(Time window);
    /**
     * Roaming cells: whether a client is handed over to the server whose AP its station
     * associated with (true, the default), or stays with its first server (false: the
     * papers' fixed membership on the move; the client reaches that server only from its
     * cell, and its server keeps sampling it wherever it is). No effect on other scenes.
     */
    void SetHandover(bool enable);

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
     * as examples/benchmarks/fl-gfl-mpi.cc does) for the network view.
     */
    void SetPartition(std::vector<uint32_t> rankOf, uint32_t localRank, Time grace = Seconds(1));

    /// Installs the apps (start at 0.1 s) and returns the servers (with SetPartition: the
    /// local servers only).
    std::vector<Ptr<FlServerApplication>> Install(const FlGraphScene& scene);

    /// The round steps (counters).
    const std::vector<Ptr<GflServerStrategy>>& Steps() const
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
    Time m_joinWindow{Seconds(-1)};   ///< negative: the default of the scene's cells
    bool m_handover{true};            ///< see SetHandover
    std::vector<Ptr<GflServerStrategy>> m_steps;
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
    /// Fixes the agents' random streams (jitter): agent k uses stream + k, its hello
    /// application (SetNeighbourDiscovery) stream + N + k (call before Install).
    /// @return the number of streams used (N, or 2 N with neighbour discovery)
    int64_t AssignStreams(int64_t stream);
    /// Installs agent k on nodes.Get(k) reachable at addresses[k] (start at 0.1 s).
    std::vector<Ptr<DiffusionAgentApplication>> Install(const NodeContainer& nodes,
                                                        const std::vector<Ipv4Address>& addresses);
    /// Called once per lost message: (iteration i, sender l, receiver k) when agent k combined
    /// iteration i without l's message (losses per link per iteration).
    using LinkLossCallback = std::function<void(uint32_t, uint32_t, uint32_t)>;
    /// Sets the link-loss callback.
    void SetLinkLossCallback(LinkLossCallback cb);

    /**
     * A graph the agents learn from the network, for agents that move (give the configuration
     * an empty combination matrix): Install puts an FlHelloApplication on every node (Id = the
     * agent index, hellos every `interval` plus a jitter of up to a tenth of it, neighbours
     * forgotten after `timeout`), and before every release agent k takes its neighbours and its
     * column of Metropolis weights from what its hellos told it (FlHelloApplication::
     * GetNeighbourhood), and draws its graph-homomorphic noise for that self weight. The agents
     * start 3 intervals after the hellos (at 0.1 s + 3 interval), when a still graph is known:
     * a link is symmetric after two hellos, a degree announced in the third. The exchange
     * timeout must be positive (the broadcast transport's 1 s default, or an iteration
     * period). The network view reports the weights' stochasticity error per iteration and the
     * epsilons of a changing graph (fl::LiveGraphPrivacyAccountant). Throws ConfigError naming
     * "interval" or "timeout" (timeout > interval + its jitter).
     */
    void SetNeighbourDiscovery(Time interval, Time timeout);
    /// The hello applications (agent k's at k), after Install with SetNeighbourDiscovery.
    const std::vector<Ptr<FlHelloApplication>>& Hellos() const
    {
        return m_hellos;
    }

  private:
    bool Live() const
    {
        return m_helloInterval.IsStrictlyPositive();
    }

    fl::DiffusionConfig m_config;
    Time m_helloInterval{Seconds(0)};
    Time m_helloTimeout{Seconds(0)};
    std::vector<Ptr<FlHelloApplication>> m_hellos;
    Time m_compute{MilliSeconds(1)};
    Time m_period{Seconds(0)};
    Time m_jitter{Seconds(0)};
    int64_t m_stream{-1};
    std::shared_ptr<LinkLossCallback> m_linkLoss;
};

} // namespace ns3

#endif // FL_GFL_HELPER_H
