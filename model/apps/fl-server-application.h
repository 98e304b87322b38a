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
#include "ns3/fl-uplink-step.h"
#include "ns3/learning-task.h"
#include "ns3/nstime.h"
#include "ns3/random-variable-stream.h"
#include "ns3/traced-callback.h"
#include "ns3/uplink-codec.h"

#include <map>
#include <memory>
#include <vector>

namespace ns3
{

/**
 * \ingroup fl
 * How a round ended.
 */
enum class FlRoundStatus : uint8_t
{
    Initial = 0,    ///< round 0: the initial model, reported at start
    Aggregated = 1, ///< updates were aggregated into a new global model
    Skipped = 2,    ///< fewer updates than MinQuorum: model unchanged, the round counts
    Repeated = 3,   ///< fewer updates than MinQuorum: model unchanged, the round is run again
    Empty = 4,      ///< no update at all (and no quorum set): model unchanged
    Timeout = 5,    ///< still open when the simulation ended (ReportUnfinishedRound): unchanged
    Aborted = 6,    ///< the uplink step aborted (too few participants, ...): unchanged
};

/// "initial", "aggregated", "skipped", "repeated", "empty", "timeout" or "aborted".
const char* FlRoundStatusName(FlRoundStatus s);

/**
 * \ingroup fl
 * One update that went into (or was considered for) a round's aggregate.
 */
struct FlUpdateInfo
{
    uint32_t client{0};             ///< client index
    uint32_t trainedRound{0};       ///< round whose global model the client trained on
    uint32_t staleness{0};          ///< rounds between that model and this round (0 = fresh)
    uint32_t sampleCount{0};        ///< the client's announced sample count
    double weight{0.0};             ///< aggregation weight before normalisation
    Time arrival;                   ///< when the server had the whole update
    uint64_t missingCoordinates{0}; ///< coordinates filled from the previous model (UDP holes)
};

/**
 * \ingroup fl
 * What happened in one round, as reported by FlServerApplication's "RoundEnd" trace.
 */
struct FlRoundReport
{
    uint32_t round{0};           ///< round number on the wire (0 = the initial model, at start);
                                 ///< a repeated round gets a new number
    uint32_t completedRounds{0}; ///< rounds counted towards Rounds so far (incl. this one)
    FlRoundStatus status{FlRoundStatus::Initial}; ///< how the round ended
    Time start;                                   ///< when the global model was sent
    Time end;                                     ///< when the round closed
    std::vector<uint32_t> selected;     ///< clients the model was sent to (and still connected)
    std::vector<uint32_t> participants; ///< clients whose update was aggregated (sorted)
    std::vector<FlUpdateInfo> updates;  ///< the aggregated updates, by client index
    uint32_t stragglers{0};   ///< selected clients whose update had not arrived at the close
    uint32_t staleUpdates{0}; ///< updates of earlier rounds aggregated (StragglerPolicy accept)
    uint64_t missingCoordinates{0}; ///< coordinates filled from the previous model, all updates
    uint64_t bytesDown{0};          ///< bytes the server sent this round
    uint64_t bytesUp{0};            ///< bytes the server received this round
    bool deadlineHit{false};        ///< the round closed at its deadline
    uint32_t codecReports{0};       ///< uplink codec: phase-1 reports received
    Time agreed;                    ///< uplink codec: when the round parameters were broadcast
    double codecScale{0.0};         ///< uplink codec: the agreed scale (EGA: n)
    uint32_t disconnected{0};       ///< selected clients that disconnected during the round
    std::string uplinkStatus;       ///< uplink step: "ok", or why the round aborted
    const fl::ParamVector* globalModel{nullptr}; ///< the new global model (valid during the call)
};

class FlServerApplication;

/**
 * \ingroup fl
 * The round seam: what a server does between "aggregate" and "next round". FedAvg commits the
 * aggregate (no step set); a GFL server adds noise, exchanges with its graph neighbours and
 * combines; another algorithm decodes an encoded sum. A step may take simulated time (e.g. a
 * message exchange): the server starts the next round when it calls `done`.
 */
class FlRoundStep : public SimpleRefCount<FlRoundStep>
{
  public:
    /// What the step is told about the round.
    struct Context
    {
        uint32_t round{0};                               ///< the round that closed
        FlRoundStatus status{FlRoundStatus::Aggregated}; ///< aggregated, skipped or empty
        FlServerApplication* server{nullptr};            ///< the server (node, transport, task)
    };

    virtual ~FlRoundStep() = default;

    /**
     * Acts on the server's model after the round's aggregation (or, for a skipped or empty
     * round, on the unchanged model), then calls `done` exactly once, now or later in
     * simulated time. Repeated rounds do not call the step.
     * @param ctx the round
     * @param model the server's model, changed in place
     * @param done continuation: reports the round and starts the next one
     */
    virtual void Apply(const Context& ctx, fl::ParamVector& model, std::function<void()> done) = 0;

    /**
     * Optional sampling hook (Flower's configure_fit): picks the clients of `round` among the
     * `eligible` ones (ascending client indices). Return false (the default) to let the server
     * sample with ClientsPerRound / ClientSampling. A GFL server samples with
     * fl::GflSampleClients from its own seed, so that the network run draws what the in-process
     * run draws.
     */
    virtual bool SelectClients(uint32_t /* round */,
                               const std::vector<uint32_t>& /* eligible */,
                               std::vector<uint32_t>& /* selected */)
    {
        return false;
    }

    /**
     * Optional aggregation hook: turns the round's fresh uploads (ascending client index, the
     * clients in `clients`) into the server's model, which holds the model the clients trained
     * on when called. Return false (the default) for the server's FedAvg aggregation
     * (fl::AggregateRound, weighted by sample counts). GFL uses it for eq. (7) (uniform 1/L) and
     * eq. (55) (noisy updates: psi = w - mu * average update). Stale updates are not passed.
     */
    virtual bool Aggregate(const Context& /* ctx */,
                           const std::vector<const fl::ParamVector*>& /* uploads */,
                           const std::vector<uint32_t>& /* clients */,
                           fl::ParamVector& /* model */)
    {
        return false;
    }

    /**
     * Optional receive hook: a message that is not part of the client protocol (a PeerModel
     * from a neighbour server, say) arrived on the server's transport. Return true if the step
     * consumed it; otherwise the server counts it as unexpected.
     */
    virtual bool Receive(FlInboundMessage& /* in */)
    {
        return false;
    }

    /**
     * Optional round-start hook: called with the selected clients just before the global model
     * is sent to them (a step may send them something first, e.g. the round's configuration).
     */
    virtual void RoundStarting(const Context& /* ctx */,
                               const std::vector<uint32_t>& /* selected */)
    {
    }

    /**
     * Optional aggregation hook of an uplink step (FlServerApplication::SetUplinkStep): the
     * step's phases produced `sum` = sum_k weight_k x_k over `clients` (ascending) and
     * `totalWeight` = sum_k weight_k; set the model and return true, or return false (the
     * default) for the weighted mean sum / totalWeight in the model's precision. GFL uses it for
     * eq. (7) / (55) over the survivors (weights 1).
     */
    virtual bool AggregateSum(const Context& /* ctx */,
                              const Eigen::VectorXd& /* sum */,
                              double /* totalWeight */,
                              const std::vector<uint32_t>& /* clients */,
                              fl::ParamVector& /* model */)
    {
        return false;
    }
};

/**
 * \ingroup fl
 * Synchronous FedAvg server.
 *
 * Clients connect (TCP) or send datagrams (UDP) and announce themselves with a Join message.
 * Once ExpectedClients have joined, the server runs Rounds rounds: it samples ClientsPerRound
 * of the eligible clients (uniformly, or weighted by their sample counts), sends them the
 * global model (encoded once, the same bytes to each), waits until all selected clients
 * answered or RoundDeadline passed, averages the received models weighted by their sample
 * counts (in client-id order, so the result does not depend on arrival order), and starts the
 * next round.
 *
 * Late updates (for an earlier round) are dropped and counted with StragglerPolicy "drop"; with
 * "accept", a client whose update is outstanding is not selected again, and its update, when
 * it arrives at most MaxStaleness rounds late, joins the open round: its change of the model is
 * applied to the current model (fl::TranslateStaleModel) with its weight discounted by
 * (1 + staleness)^-StalenessExponent. A round with fewer than MinQuorum updates leaves the
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

    /// Sets the learning task (model, data, evaluation). Must be called before start.
    void SetTask(std::shared_ptr<const fl::LearningTask> task);
    /// The learning task.
    std::shared_ptr<const fl::LearningTask> GetTask() const;

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
     * Sets the step applied between a round's aggregation and the next round (the round seam;
     * none = FedAvg: the aggregate is the next global model). Set it before the server starts.
     */
    void SetRoundStep(Ptr<FlRoundStep> step);

    /**
     * The uplink-codec seam (fl::UplinkCodec, uplink-codec.h): each round then has two
     * phases: the selected clients report a scalar (Control message), the server broadcasts the
     * agreed parameters to the clients that reported (Control), the clients upload codec
     * payloads (raw LocalModel messages), and the server adds them in client order and applies
     * w += Finish(). A deadline that falls in phase 1 starts phase 2 with the clients heard so
     * far (and a fresh deadline); one in phase 2 closes the round with the payloads received
     * (the codec decides about the missing ones). Not combinable with StragglerPolicy "accept",
     * server momentum or a learning rate other than 1. With an uplink step as well (a codec
     * with a sum path only, UplinkCodec::SumSize): the phase-2 payloads go through the step,
     * which hands back the sum of their values over its participants, and the server finishes
     * with UplinkAggregator::AddSum. Null (default): FedAvg on models.
     */
    void SetUplinkCodec(std::shared_ptr<const fl::UplinkCodec> codec);

    /**
     * The uplink-step seam (FlUplinkServerStep, fl-uplink-step.h): the clients (each with
     * the client half, FlClientApplication::SetUplinkStep) upload raw payloads; when the round's
     * uploads close the step runs its phases with the uploaders and hands back a sum and a total
     * weight, and the new model is sum / totalWeight (or the round step's AggregateSum). An
     * aborted step leaves the model unchanged (status Aborted; the round counts). The step
     * talks to the clients through a port (Control messages), never through this object. Not
     * combinable with an uplink codec, StragglerPolicy accept, ServerMomentum, a
     * ServerLearningRate other than 1 or ClientSampling weighted (the clients announce no
     * sample counts: the step owns what they reveal). Null (default): models are uploaded.
     */
    void SetUplinkStep(Ptr<FlUplinkServerStep> step);
    /// The uplink step (null if none).
    Ptr<FlUplinkServerStep> GetUplinkStep() const;

    /// Transport addresses of the given (joined) clients, for a round step's own messages.
    std::vector<Address> GetClientAddresses(const std::vector<uint32_t>& clients) const;
    /**
     * The client index of an inbound message's sender (a joined client, from its joined
     * address); false if the sender is no joined client.
     */
    bool IdentifyClient(const FlInboundMessage& in, uint32_t& client) const;

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
        uint64_t roundsSkipped{0};  ///< rounds below quorum, skipped
        uint64_t roundsRepeated{0}; ///< rounds below quorum, repeated
        uint64_t codecRejected{0};  ///< uplink codec: reports or payloads the codec rejected
        uint64_t roundsAborted{0};  ///< rounds the uplink step aborted (model unchanged)
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

    void StartApplication() override;
    void StopApplication() override;

    void HandleInbound(FlInboundMessage& in);
    void HandlePeerClosed(const Address& peer);
    void HandleJoin(const FlInboundMessage& in);
    void HandleUpdate(fl::ReceivedMessage& msg, uint32_t client, uint64_t missingCoordinates);
    void HandleCodecReport(const fl::ReceivedMessage& msg, uint32_t client);
    void MaybeAgree(bool deadlineHit);
    void ClientGone(uint32_t client);
    const fl::ParamVector* BaseModel(uint32_t round) const;
    std::vector<Address> AddressesOf(const std::vector<uint32_t>& clients) const;
    std::vector<uint32_t> SelectClients();
    void StartRound();
    void CloseRound(bool deadlineHit);
    void FillOpenRoundReport(bool deadlineHit);
    void FinishUplinkRound(const FlUplinkServerStep::Result& result);
    void AfterAggregation();
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
    Time m_roundDeadline;
    Time m_roundGap;
    uint64_t m_initSeed;
    double m_serverMomentum;
    double m_serverLearningRate;
    std::string m_stragglerPolicyName;
    uint32_t m_maxStaleness;
    double m_stalenessExponent;
    uint32_t m_minQuorum;
    std::string m_quorumPolicyName;
    uint32_t m_maxRepeats;
    bool m_stopSimulation;

    std::shared_ptr<const fl::LearningTask> m_task;
    bool m_weightedSampling{false};
    bool m_acceptStale{false};
    bool m_repeatBelowQuorum{false};
    uint64_t m_quantSeed{0};                        ///< base seed of the int8 quantiser's draws
    Ptr<FlRoundStep> m_step;                        ///< the round seam (null: FedAvg)
    std::shared_ptr<const fl::UplinkCodec> m_codec; ///< the uplink-codec seam (null: models)
    Ptr<FlUplinkServerStep> m_uplink;               ///< the uplink-step seam (null: none)
    std::map<uint32_t, FlUpdateInfo> m_uplinkInfos; ///< the uploads handed to the uplink step
    bool m_uplinkRunning{false};                    ///< the uplink step's phases are running
    uint64_t m_codecSeed{0};                        ///< the initial-model seed (decode draws)
    bool m_codecPhase1{false};                      ///< collecting phase-1 reports
    std::map<uint32_t, fl::UplinkReport> m_reports; ///< this round's phase-1 reports
    fl::UplinkRoundParams m_codecParams;            ///< this round's agreed parameters
    Time m_agreedAt;
    fl::RoundAggregationConfig m_aggregation;      ///< parsed aggregation attributes
    FlRoundReport m_report;                        ///< the round being closed
    std::map<uint32_t, Peer> m_clients;            ///< joined clients by index
    std::map<uint32_t, uint32_t> m_clientOfNode;   ///< node-level id -> client index
    std::map<uint32_t, uint32_t> m_clientSamples;  ///< announced sample counts
    std::map<uint32_t, uint32_t> m_outstanding;    ///< client -> round of its pending update
    std::map<uint32_t, fl::ParamVector> m_history; ///< global models sent, by round (accept)
    Ptr<UniformRandomVariable> m_rng;

    fl::ParamVector m_global;
    fl::ParamVector m_velocity; ///< FedAvgM server momentum buffer
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
    uint64_t m_bytesSentAtStart{0};
    uint64_t m_bytesReceivedAtStart{0};
    EventId m_deadlineEvent;
    Counters m_counters;

    TracedCallback<const FlRoundReport&> m_roundEndTrace;
    TracedCallback<uint32_t, const std::vector<uint32_t>&> m_roundStartTrace;
    TracedCallback<uint32_t, uint32_t> m_joinTrace;
};

} // namespace ns3

#endif // FL_SERVER_APPLICATION_H
