/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The FedAvg server: a thin ns-3 Application that schedules synchronous rounds.
 */
#ifndef FL_SERVER_APPLICATION_H
#define FL_SERVER_APPLICATION_H

#include "ns3/event-id.h"
#include "ns3/fedavg.h"
#include "ns3/fl-application-base.h"
#include "ns3/fl-round-rules.h"
#include "ns3/fl-server-strategy.h"
#include "ns3/fl-uplink-step.h"
#include "ns3/learning-task.h"
#include "ns3/nstime.h"
#include "ns3/random-variable-stream.h"
#include "ns3/traced-callback.h"

#include <functional>
#include <map>
#include <memory>
#include <set>
#include <vector>

namespace ns3
{

/**
 * \ingroup fl-apps
 * The server of server-clients federated learning: the schedule (join, send, deadline, quorum,
 * stragglers) around a strategy (FlServerStrategy; default FedAvgStrategy) that selects,
 * configures, aggregates and acts between rounds.
 *
 * Clients connect (TCP) or send datagrams (UDP) and announce themselves with a Join message.
 * Once ExpectedClients have joined, the server runs Rounds rounds: it samples ClientsPerRound
 * of the eligible clients (uniformly, or weighted by their sample counts), sends them the
 * global model (encoded once, the same bytes to each), waits until all selected clients
 * answered or RoundDeadline passed, hands the received models to the strategy (in client-id order, so the result does not
 * depend on arrival order; FedAvgStrategy averages them weighted by their sample counts), and
 * starts the next round. A strategy that takes updates as they arrive
 * (FlAsyncHooks) gets each update at once instead, and rounds never close.
 *
 * Late updates (for an earlier round) are dropped and counted with StragglerPolicy "drop"; with
 * "accept", a client whose update is outstanding is not selected again, and its update, when
 * it arrives at most MaxStaleness rounds late, joins the open round: its change of the model is
 * handed to the strategy with its staleness and base model (FedAvgStrategy: applied to the
 * current model, fl::TranslateStaleModel, its weight discounted by
 * (1 + staleness)^-StalenessExponent). A round with fewer than MinQuorum updates leaves the
 * model unchanged and is skipped or repeated (QuorumPolicy; at most MaxRepeats repeats in a
 * row, then skipped).
 */
class FlServerApplication : public FlApplicationBase
{
  public:
    /// \return the TypeId
    static TypeId GetTypeId();
    FlServerApplication();
    ~FlServerApplication() override;

    /**
     * The rules this server's settings make with `strategy` for a model of `numParameters`
     * values, with or without an uplink step: what the server checks when it starts
     * (FlCheckRoundRules), for a helper to check before the run.
     */
    FlRoundRules RoundRules(FlServerStrategy& strategy,
                            std::size_t numParameters,
                            bool uplinkStep) const;

    /// Sets the learning task (model, data, evaluation). Must be called before start.
    void SetTask(std::shared_ptr<const fl::LearningTask> task);
    /// The learning task.
    std::shared_ptr<const fl::LearningTask> GetTask() const;
    /// The learning task (for observers).
    std::shared_ptr<const fl::LearningTask> GetLearningTask() const override;

    /// The current global model.
    const fl::ParamVector& GetGlobalModel() const;
    /// Number of rounds counted towards Rounds (aggregated, empty or skipped).
    uint32_t GetCompletedRounds() const;
    /// Whether all rounds are done.
    bool IsFinished() const;

    /**
     * Reports a round still open, or still in its uplink step's phases (e.g. when the
     * simulation stopped at a time limit before it could complete) through RoundEnd with status
     * Timeout: nothing is aggregated, the global model and GetCompletedRounds() stay as they are,
     * and no further round starts. Call it after Simulator::Run() so that observers write the
     * round's row.
     * @return false if no round was open
     */
    bool ReportUnfinishedRound();

    /**
     * Sets the strategy (the server half of the strategy seam; default: a FedAvgStrategy
     * created at start). Set it before the server starts.
     */
    void SetStrategy(Ptr<FlServerStrategy> strategy);
    /// The strategy (null before start if none was set).
    Ptr<FlServerStrategy> GetStrategy() const;

    /**
     * What the scene knows of each client's link (PHY rate, SNR, round-trip time), handed to
     * the strategy through its port (FlServerPort::linkState); the server adds what it
     * measures (the last response time). None (default): rate, SNR and RTT unknown.
     */
    void SetLinkStateProvider(std::function<FlLinkState(uint32_t client)> provider);
    /// What is known of a client's link now: the provider's state and the last response time
    /// (what the strategy's port returns; observers such as FlLearningTracker read it too).
    FlLinkState GetClientLinkState(uint32_t client) const override;

    /**
     * The uplink-step seam (FlUplinkServerStep, fl-uplink-step.h): the clients (each with
     * the client half, FlClientApplication::SetUplinkStep) upload raw payloads; when the round's
     * uploads close the step runs its phases with the uploaders and hands back a sum and a total
     * weight, and the new model is the strategy's Aggregate of the sum (default sum / totalWeight). An
     * aborted step leaves the model unchanged (status Aborted; the round counts). The step
     * talks to the clients through a port (Control messages), never through this object. Not
     * combinable with StragglerPolicy accept, a strategy's server momentum or learning rate
     * other than 1 (synchronous rounds), or ClientSampling weighted (the clients announce no
     * sample counts: the step owns what they reveal). An asynchronous strategy needs an uplink
     * cohort size K (FlAsyncHooks::UplinkCohortSize, e.g. FedBuffStrategy): the server then
     * sends the current model to cohorts of K idle clients together (drawn uniformly, while at
     * most ClientsPerRound clients are busy; 0 = all), each cohort's uploads close when all K
     * arrived or at RoundDeadline, the step runs once per cohort (several at once), and its
     * sum goes to FlAsyncHooks::CohortAggregated; an aborted cohort is dropped and counted
     * (roundsAborted) and reported through RoundEnd with status Aborted: the number of the
     * version being built (which follows with the same number), the cohort's clients as
     * selected, those whose upload had not reached the step as stragglers, no participants,
     * uplinkStatus saying why, bytes 0 (they count in that version's row), the model unchanged
     * and no ModelReport; it does not count towards Rounds. Null (default): models are
     * uploaded.
     */
    void SetUplinkStep(Ptr<FlUplinkServerStep> step);
    /// The uplink step (null if none).
    Ptr<FlUplinkServerStep> GetUplinkStep() const;

    /// Counters of protocol anomalies and of the round policies.
    struct Counters
    {
        uint64_t staleUpdates{0};       ///< updates for an earlier round dropped
        uint64_t staleAccepted{0};      ///< updates for an earlier round aggregated
        uint64_t unexpectedMessages{0}; ///< wrong kind, unknown or unselected sender, duplicates
        uint64_t badModelSize{0};       ///< updates whose size differs from the model's
        uint64_t malformed{0};      ///< messages the transport rejected (header, CRC, undecodable)
        uint64_t partialUpdates{0}; ///< UDP updates aggregated with holes (keep-previous)
        uint64_t disconnects{0};    ///< client connections closed during the run
        /// Joins of a joined client from its node at a new address (a new connection), which
        /// the server uses from then on
        uint64_t rejoins{0};
        /// UDP: messages to or from a client the transport gave up (the round did not wait for
        /// that client's update if it was of the current round)
        uint64_t messagesGivenUp{0};
        /// UDP: updates of clients the round had stopped waiting for, taken after all (the
        /// model had reached them though its acknowledgements had not come back)
        uint64_t givenUpRecovered{0};
        uint64_t roundsSkipped{0};  ///< rounds below quorum, skipped
        uint64_t roundsRepeated{0}; ///< rounds below quorum, repeated
        uint64_t strategyRejected{0}; ///< phase messages or raw payloads the strategy rejected
        uint64_t roundsAborted{0};    ///< rounds (or asynchronous cohorts: buffers) the uplink
                                      ///< step aborted (model unchanged)
    };

    /// Current counters (reassembler counts summed over connections).
    Counters GetCounters() const;

    /// Counters of the UDP endpoint (all zero with TCP).
    FlDatagramStats GetDatagramStats() const;

    /**
     * Assigns a fixed stream number to the random variables of this application.
     * @return the number of streams used
     */
    int64_t AssignStreams(int64_t stream);

    /// TracedCallback signature of RoundEnd.
    using RoundEndCallback = void (*)(const FlRoundReport& report);
    /// TracedCallback signature of RoundStart: round number, selected clients.
    using RoundStartCallback = void (*)(uint32_t round, const std::vector<uint32_t>& selected);

  protected:
    void DoDispose() override;

  private:
    /// How the server reaches a client.
    struct Peer
    {
        Address address;  ///< transport address
        uint32_t node{0}; ///< node-level id
    };

    /// An update waiting for aggregation.
    struct Update
    {
        fl::ReceivedMessage msg;
        FlUpdateInfo info;
    };

    /// A cohort of an asynchronous strategy with an uplink step (UplinkCohortSize clients
    /// sent the same model version together; one run of the uplink step).
    struct Cohort
    {
        uint32_t version{0};                    ///< the model version it was sent
        Time sent;                              ///< when it was sent
        fl::ParamVector base;                   ///< that model
        std::vector<uint32_t> clients;          ///< its clients still connected (ascending)
        std::map<uint32_t, Update> uploads;     ///< uploads received, by client
        std::map<uint32_t, FlUpdateInfo> infos; ///< the uploads handed to the uplink step
        bool aggregating{false};                ///< the uplink step runs
        EventId deadline;                       ///< RoundDeadline for the uploads
    };

    void StartApplication() override;
    void StopApplication() override;

    void HandleInbound(FlInboundMessage& in);
    void HandlePeerClosed(const Address& peer);
    void HandleJoin(const FlInboundMessage& in);
    void HandleUpdate(fl::ReceivedMessage& msg, uint32_t client, uint64_t missingCoordinates);
    /// Warns (once, on the error stream) of messages dropped for exceeding MaxMessageBytes.
    void WarnOversized();
    void HandlePhaseMessage(const fl::ReceivedMessage& msg, uint32_t client);
    bool EndPhases(bool deadlineHit);
    void ClientGone(uint32_t client);
    /// A datagram transport gave a message up: the round (cohort, asynchronous strategy) stops
    /// waiting for the update the client owed.
    void HandleMessageLost(const FlLostMessage& lost);
    /// An asynchronous cohort stops waiting for `client`'s upload.
    void LeaveCohort(uint32_t client);
    const fl::ParamVector* BaseModel(uint32_t round) const;
    std::vector<Address> AddressesOf(const std::vector<uint32_t>& clients) const;
    std::vector<uint32_t> SelectClients();
    void StartRound();
    /// Starts round 1 (or the asynchronous rounds) once ExpectedClients joined or JoinWindow
    /// has passed.
    void MaybeStartFirstRound();
    void CloseRound(bool deadlineHit);
    void FillOpenRoundReport(bool deadlineHit);
    void FinishUplinkRound(const FlUplinkServerStep::Result& result);
    void AfterAggregation();
    void StartAsynchronous();
    std::vector<uint32_t> DispatchCohorts(); ///< returns the clients sent the model
    void HandleCohortUpload(fl::ReceivedMessage& msg, uint32_t client);
    void CloseCohort(uint32_t cohort);
    void FinishCohort(uint32_t cohort, const FlUplinkServerStep::Result& result);
    void HandleAsyncUpdate(fl::ReceivedMessage& msg, uint32_t client, uint64_t missingCoordinates);
    void CommitVersion(const std::vector<FlUpdateInfo>& updates);
    void SendCurrentModel(const std::vector<uint32_t>& clients);
    FlLinkState LinkStateOf(uint32_t client) const;
    bool IdentifyClient(const FlInboundMessage& in, uint32_t& client) const;
    void EndRound();
    void MaybeClose();
    void Finish();
    uint64_t TotalBytesSent() const;
    uint64_t TotalBytesReceived() const;

    // Attributes
    uint16_t m_port;
    uint32_t m_rounds;
    uint32_t m_clientsPerRound;
    std::string m_sampling;
    uint32_t m_expectedClients;
    Time m_joinWindow;                ///< JoinWindow
    EventId m_joinWindowEvent;        ///< the end of the join window
    bool m_joinWindowOver{false};     ///< the join window has passed: round 1 starts
    bool m_firstRoundScheduled{false}; ///< round 1 (or the asynchronous start) is scheduled
    Time m_roundDeadline;
    Time m_roundGap;
    uint64_t m_initSeed;
    std::string m_stragglerPolicyName;
    uint32_t m_maxStaleness;
    uint32_t m_minQuorum;
    std::string m_quorumPolicyName;
    uint32_t m_maxRepeats;
    bool m_stopSimulation;

    std::shared_ptr<const fl::LearningTask> m_task;
    bool m_weightedSampling{false};
    bool m_acceptStale{false};
    bool m_repeatBelowQuorum{false};
    uint64_t m_quantSeed{0};                        ///< base seed of the int8 quantiser's draws
    Ptr<FlServerStrategy> m_strategy;               ///< the strategy seam
    Ptr<FlUplinkServerStep> m_uplink;               ///< the uplink-step seam (null: none)
    std::map<uint32_t, FlUpdateInfo> m_uplinkInfos; ///< the uploads handed to the uplink step
    bool m_uplinkRunning{false};                    ///< the uplink step's phases are running
    uint64_t m_initialSeed{0};    ///< the initial model's seed (the strategy's draws)
    bool m_strategyPhases{false}; ///< the strategy runs phases before the upload
    bool m_phasesRunning{false};  ///< this round's phases before the upload are running
    bool m_strategyRaw{false};    ///< the clients upload the strategy's raw payloads
    FlStrategyTraits m_traits;    ///< what the strategy declared
    std::size_t m_uploadValues{0}; ///< values per model upload (the traits' or the model size)
    FlAsyncHooks* m_asyncHooks{nullptr}; ///< the strategy's, if it takes updates as they arrive
    FlPhaseHooks* m_phaseHooks{nullptr}; ///< the strategy's, if it has phases before the upload
    FlPeerHooks* m_peerHooks{nullptr};   ///< the strategy's, if it talks to other nodes
    fl::ParamVector m_attachment;        ///< what goes with this round's model (ConfigureRound)
    uint64_t m_tooLargeWarned{0};        ///< messages above MaxMessageBytes already warned of
    FlRoundReport m_report;       ///< the round being closed
    std::map<uint32_t, Peer> m_clients;            ///< joined clients by index
    std::map<uint32_t, uint32_t> m_clientOfNode;   ///< node-level id -> client index
    std::map<uint32_t, uint32_t> m_clientSamples;  ///< announced sample counts
    std::map<uint32_t, uint32_t> m_outstanding;    ///< client -> round of its pending update
    std::map<uint32_t, fl::ParamVector> m_history; ///< global models sent, by round (accept)
    Ptr<UniformRandomVariable> m_rng;

    fl::ParamVector m_global;
    uint32_t m_round{0};
    uint32_t m_completed{0};
    uint32_t m_repeatsInARow{0};
    bool m_roundOpen{false};
    bool m_closing{false};
    bool m_finished{false};
    Time m_roundStart;
    std::vector<uint32_t> m_selected;
    /// This round's updates by (client, round trained on): a client may have a stale and a
    /// fresh update in one round.
    using UpdateKey = std::pair<uint32_t, uint32_t>;
    std::map<UpdateKey, Update> m_updates;
    std::map<UpdateKey, Update> m_pendingStale; ///< stale updates waiting for the next round
    uint32_t m_freshReceived{0};
    uint32_t m_lostThisRound{0};
    std::set<uint32_t> m_givenUpThisRound; ///< selected clients not waited for (messages given up)
    uint64_t m_bytesSentAtStart{0};
    uint64_t m_bytesReceivedAtStart{0};
    EventId m_deadlineEvent;
    Counters m_counters;
    bool m_async{false};                      ///< the strategy takes updates as they arrive
    uint32_t m_cohortSize{0};                 ///< asynchronous with an uplink step: K
    uint32_t m_lastCohort{0};                 ///< number of the last cohort dispatched
    std::map<uint32_t, Cohort> m_cohorts;     ///< cohorts in flight, by number
    std::map<uint32_t, uint32_t> m_cohortOf;  ///< busy client -> its cohort
    std::map<uint32_t, Time> m_sentAt;        ///< when each client was last sent the model
    std::map<uint32_t, Time> m_lastResponse;  ///< model sent -> update received, per client
    std::function<FlLinkState(uint32_t)> m_linkProvider; ///< SetLinkStateProvider

    TracedCallback<const FlRoundReport&> m_roundEndTrace;
    TracedCallback<uint32_t, const std::vector<uint32_t>&> m_roundStartTrace;
    TracedCallback<uint32_t, uint32_t> m_joinTrace;
};

} // namespace ns3

#endif // FL_SERVER_APPLICATION_H
