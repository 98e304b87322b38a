/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The server half of the strategy seam: what an algorithm decides on the server (which clients,
 * how to aggregate, what to do between aggregation and the next round, which messages it
 * handles), as an ns-3 Object with a TypeId and attributes, talking to the network through a
 * narrow port. Modelled on Flower's Strategy (configure a round, aggregate results) and on
 * lorawan's network-controller components.
 */
#ifndef FL_SERVER_STRATEGY_H
#define FL_SERVER_STRATEGY_H

#include "ns3/fedavg.h"
#include "ns3/fl-transport.h"
#include "ns3/nstime.h"
#include "ns3/object.h"

#include <Eigen/Dense>

#include <functional>
#include <limits>
#include <string>
#include <vector>

namespace ns3
{

struct FlModelReport;

/**
 * \ingroup fl-strategies
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
 * \ingroup fl-strategies
 * One update that went into (or was considered for) a round's aggregate.
 */
struct FlUpdateInfo
{
    uint32_t client{0};             ///< client index
    uint32_t trainedRound{0};       ///< round (model version) the client trained on
    uint32_t staleness{0};          ///< rounds (versions) between that model and this one
    uint32_t sampleCount{0};        ///< the upload's weight: the client strategy's UploadWeight
                                    ///< (by default the client's sample count)
    double weight{0.0};             ///< aggregation weight before normalisation
    Time arrival;                   ///< when the server had the whole update
    uint64_t missingCoordinates{0}; ///< coordinates filled from the previous model (UDP holes)
    /// An asynchronous strategy's cohort (uplink step): its number, the round of the model
    /// message the client trained on; 0 otherwise.
    uint32_t cohort{0};
};

/**
 * \ingroup fl-strategies
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
    uint32_t codecReports{0};       ///< phases before the upload: reports received (DescribeRound)
    Time agreed;                    ///< phases before the upload: when they ended (DescribeRound)
    double codecScale{0.0};         ///< phases before the upload: the agreed scale (EGA: n)
    uint32_t disconnected{0};       ///< selected clients that disconnected during the round
    /// clients the model was sent to whom the round stopped waiting for, not in `selected`: a
    /// datagram transport gave up the model sent to them or their upload (FlLostMessage); sorted
    std::vector<uint32_t> givenUp;
    std::string uplinkStatus;       ///< uplink step: "ok", or why the round aborted
    const fl::ParamVector* globalModel{nullptr}; ///< the new global model (valid during the call)
};

/**
 * \ingroup fl-strategies
 * What the server knows of a client's link, for a strategy that selects by channel quality.
 * Unknown values are NaN (rates, SNR) or negative (times).
 */
struct FlLinkState
{
    double rateBps{std::numeric_limits<double>::quiet_NaN()}; ///< PHY rate, if the scene knows it
    double snrDb{std::numeric_limits<double>::quiet_NaN()};   ///< SNR, if the scene knows it
    Time rtt{Seconds(-1)};          ///< round-trip time, if the scene knows it
    Time lastResponse{Seconds(-1)}; ///< measured: last model sent -> its update received
    uint64_t lastUpdateBytes{0};    ///< measured: bytes received from the client so far
    /// distance [m] from the client to its access point (the AP of a Wi-Fi BSS or ESS, the
    /// eNB of LTE; the server's node in Wi-Fi ad hoc), now, if the scene knows positions
    double distanceM{std::numeric_limits<double>::quiet_NaN()};
    /**
     * The client's serving cell now, if the scene knows it: the index of the AP it is
     * associated with (Wi-Fi BSS: 0; ESS: 0 .. A - 1, AP order; GFL roaming cells: the
     * server), the cell id of its serving eNB (LTE, from 1), the RSU its routes use
     * (vehicular: 0 .. R - 1); kFlNoCell while it has none (a Wi-Fi station between a lost
     * association and the next, an LTE UE not yet connected, a parked vehicle);
     * kFlCellUnknown if the scene does not say (wired scenes, Wi-Fi ad hoc, flow fidelity).
     */
    int32_t cell{-2};
    /**
     * Handovers the client made so far, if the scene knows (else 0): Wi-Fi, associations after
     * its first one (StaWifiMac "Assoc": to another AP, or back to the same after a lost one);
     * LTE, handovers completed (LteUeRrc "HandoverEndOk"); vehicular, RSU changes.
     */
    uint32_t handovers{0};
};

/// FlLinkState::cell of a client the scene knows to be without a serving cell.
constexpr int32_t kFlNoCell = -1;
/// FlLinkState::cell when the scene does not know the client's cell.
constexpr int32_t kFlCellUnknown = -2;

/**
 * \ingroup fl-strategies
 * The narrow port through which a server strategy reaches the network: the roster, the
 * current model version, sending the current global model or a control message to clients,
 * each client's link state, the transport (for messages to other nodes, e.g. a GFL server's
 * neighbour servers), and, for a strategy that takes updates as they arrive, committing a new
 * model version. Filled by the server; a strategy never sees the server itself.
 */
struct FlServerPort
{
    /// The joined clients (ascending client index).
    std::function<std::vector<uint32_t>()> roster;
    /// A joined client's announced sample count.
    std::function<uint32_t(uint32_t client)> sampleCount;
    /// The current round (model version) number on the wire.
    std::function<uint32_t()> round;
    /// Sends the current global model (current round number) to these joined clients.
    std::function<void(const std::vector<uint32_t>& clients)> sendModel;
    /// Sends a Control message (round, tag, bytes) to a joined client; false if unknown.
    std::function<bool(uint32_t client,
                       uint32_t round,
                       uint32_t tag,
                       const std::vector<uint8_t>& bytes)>
        sendControl;
    /// What is known of a client's link.
    std::function<FlLinkState(uint32_t client)> linkState;
    /// The server's transport (messages to nodes other than its clients).
    std::function<Ptr<FlTransport>()> transport;
    /**
     * Asynchronous strategies: the global model (changed in place by the strategy) is a new
     * version; `updates` are what went into it. The server reports it (RoundEnd, ModelReport),
     * counts it towards Rounds and numbers the next version.
     */
    std::function<void(const std::vector<FlUpdateInfo>& updates)> commit;
    /// Whether the server has run all its rounds (nothing more is sent then).
    std::function<bool()> finished;
    /// The seed of the initial global model (a strategy's own server-side draws derive from it).
    std::function<uint64_t()> seed;
};

/**
 * \ingroup fl-strategies
 * What a server strategy declares about itself before it starts: the server, the helpers and
 * the example programs check a configuration against it (FlCheckRoundRules), and the transports
 * size their message limits from it. Defaults: a synchronous strategy that takes model uploads
 * of the model's size, with nothing sent beside the model, aggregating from a weighted sum as
 * well as from individual updates.
 */
struct FlStrategyTraits
{
    /// Values each client uploads (0: the model size). A strategy whose clients upload more
    /// than the model (e.g. SCAFFOLD's model and control-variate changes) says how many.
    std::size_t uploadValues{0};
    /// Values sent to every selected client with the global model (FlRoundConfig::attachment).
    std::size_t attachmentValues{0};
    /// The clients upload raw payloads of the strategy's own format (Aggregate gets `payloads`),
    /// each at most as large as a float64 upload of uploadValues values (plus 4 KiB).
    bool rawUploads{false};
    /// Aggregate needs each client's update (false: it can work from their weighted sum, so
    /// it composes with a summing uplink step such as secure aggregation).
    bool individualUpdates{false};
    /// Aggregate takes stale updates (StragglerPolicy accept) with their base model.
    bool staleUpdates{true};
};

/**
 * \ingroup fl-strategies
 * What the server tells a strategy when it starts.
 */
struct FlStrategySetup
{
    std::size_t numParameters{0}; ///< the model size
    bool acceptsStale{false};     ///< StragglerPolicy accept
    bool hasUplinkStep{false};    ///< an uplink step (e.g. secure aggregation) is installed
};

/**
 * \ingroup fl-strategies
 * What a strategy adds to a round's global model message (ConfigureRound).
 */
struct FlRoundConfig
{
    /**
     * Values sent with the global model to every selected client, in the same message (so they
     * arrive with it or not at all) and given to the client strategy's fit
     * (FlFitInput::attachment): e.g. SCAFFOLD's server control variate. Its size must be the
     * strategy's FlStrategyTraits::attachmentValues (empty: nothing is attached).
     */
    fl::ParamVector attachment;
};

/**
 * \ingroup fl-strategies
 * What the round delivered to Aggregate, in one of three forms:
 *  - individual model uploads: `updates` (one per (client, round trained on), ascending;
 *    stale ones with their base model) and `clients` (clients[i] sent updates[i]);
 *  - individual raw payloads (FlStrategyTraits::rawUploads): `payloads`, `clients`;
 *  - a sum only (after a summing uplink step such as secure aggregation): `sum` = sum_k w_k x_k
 *    over the participants `clients` (ascending) and `totalWeight` = sum_k w_k, where x_k is
 *    what client k uploaded (its model, its upload values, or the values its raw payload makes)
 *    and w_k its upload weight (FlClientStrategy::UploadWeight, by default its sample count;
 *    individual uploads carry the same weight, fl::RoundUpdate::sampleCount).
 */
struct FlAggregationInput
{
    std::vector<uint32_t> clients;                      ///< ascending client indices
    std::vector<fl::RoundUpdate> updates;               ///< individual model uploads
    std::vector<const std::vector<uint8_t>*> payloads;  ///< individual raw payloads
    const Eigen::VectorXd* sum{nullptr};                ///< the weighted sum, if only that
    double totalWeight{0.0};                            ///< the sum's total weight

    /// Whether only the weighted sum is known.
    bool IsSum() const
    {
        return sum != nullptr;
    }

    /**
     * The weighted mean of the uploads: sum / totalWeight, or sum_k w_k x_k / sum_k w_k over
     * the individual model uploads (w_k their upload weights, the same as a summing step's;
     * stale updates count as they are).
     * Throws fl::ConfigError for raw payloads.
     */
    Eigen::VectorXd WeightedMean() const;
};

/**
 * \ingroup fl-strategies
 * The server half of the strategy seam (install with FlServerApplication::SetStrategy or
 * FlFedAvgHelper::SetStrategy("ns3::FedBuffStrategy", "BufferSize", UintegerValue(10))).
 * The server keeps the schedule (join, send, deadline, quorum, stragglers); a strategy decides
 * the rest through eight hooks, each with a default, so a strategy overrides only what its
 * algorithm changes. The maths belongs in model/algorithms; a strategy calls it.
 *
 * Synchronous round: SelectClients -> ConfigureRound (what goes with the model) -> (clients
 * train) -> Aggregate -> AfterAggregation -> DescribeRound -> next round.
 *
 * What only some algorithms need is an optional interface the strategy also derives from
 * (plain C++ abstract classes; the server asks with dynamic_cast):
 *  - FlAsyncHooks: updates taken as they arrive (FedAsync, FedBuff), no rounds;
 *  - FlPhaseHooks: control-message phases between training and the upload (EGA's codec);
 *  - FlPeerHooks: messages from nodes other than its clients, e.g. neighbour servers (GFL).
 */
class FlServerStrategy : public Object
{
  public:
    /// What a hook is told about the round.
    struct Context
    {
        uint32_t round{0};                               ///< the round
        FlRoundStatus status{FlRoundStatus::Aggregated}; ///< aggregated, skipped or empty
    };

    /// \return the TypeId
    static TypeId GetTypeId();
    FlServerStrategy();
    ~FlServerStrategy() override;

    /// Called by the server before it starts: the port stays valid while the server runs.
    void SetPort(const FlServerPort& port);
    /// The port.
    const FlServerPort& Port() const;

    /**
     * Hook 1. What the strategy declares (FlStrategyTraits), for a model of `numParameters`;
     * asked before Start and by FlCheckRoundRules. Default: FlStrategyTraits().
     */
    virtual FlStrategyTraits Traits(std::size_t numParameters) const;

    /**
     * Hook 2. Called when the server starts (after SetPort); a strategy checks its
     * configuration here (throw fl::ConfigError naming the attribute).
     */
    virtual void Start(const FlStrategySetup& setup);

    /**
     * Hook 3. Picks the clients of `round` among the `eligible` ones (ascending). Return false
     * (the default) to let the server sample with ClientsPerRound / ClientSampling.
     */
    virtual bool SelectClients(uint32_t round,
                               const std::vector<uint32_t>& eligible,
                               std::vector<uint32_t>& selected);

    /**
     * Hook 4. Called with the selected clients just before the global model is sent to them:
     * fill `config` (what goes with the model); a strategy may also send messages through the
     * port first.
     */
    virtual void ConfigureRound(const Context& ctx,
                                const std::vector<uint32_t>& selected,
                                FlRoundConfig& config);

    /**
     * Hook 5. Turns what the round delivered into the server's model (which holds the model the
     * fresh clients trained on) and sets `weights` (one per client of `in.clients` for
     * individual uploads, NaN for a payload the strategy found malformed and left out, or one
     * per participant of a sum). Return false if nothing usable arrived (the model is kept and
     * the round counts as empty). The default is FedAvg: fl::AggregateRound with no momentum
     * and the staleness discount (1 + s)^-1/2 (FedAvgStrategy has the attributes), or
     * sum / totalWeight.
     */
    virtual bool Aggregate(const Context& ctx,
                           const FlAggregationInput& in,
                           fl::ParamVector& model,
                           std::vector<double>& weights);

    /**
     * Hook 6. Acts on the model between aggregation (or an unchanged model: skipped, empty or
     * aborted round) and the next round, then calls `done` exactly once, now or later in
     * simulated time. Repeated rounds do not call it. The default calls `done` at once.
     */
    virtual void AfterAggregation(const Context& ctx,
                                  fl::ParamVector& model,
                                  std::function<void()> done);

    /// Hook 7. A selected client left during the open round before its upload arrived.
    virtual void ClientLeft(uint32_t client);

    /// Hook 8. Fills the strategy's part of the report of `report.round` (default: nothing).
    virtual void DescribeRound(FlRoundReport& report) const;

  protected:
    void DoDispose() override;

  private:
    FlServerPort m_port;
};

/**
 * \ingroup fl-strategies
 * Optional interface of a server strategy that takes updates as they arrive (FedAsync,
 * FedBuff): the server starts once with SelectClients and sends the model to them, then hands
 * every arriving update to UpdateArrived and never closes a round; the strategy commits versions
 * and sends models through the port. With an uplink step the server dispatches cohorts of
 * UplinkCohortSize() clients, runs the step once per cohort and hands each cohort's sum to
 * CohortAggregated.
 */
class FlAsyncHooks
{
  public:
    virtual ~FlAsyncHooks();

    /**
     * An update of a known client arrived (info.staleness = current version - version trained
     * on). `global` is the server's model: change it and call Port().commit to make a new
     * version; send models with Port().sendModel.
     */
    virtual void UpdateArrived(const FlUpdateInfo& info,
                               const fl::ParamVector& update,
                               fl::ParamVector& global) = 0;

    /**
     * The update a client owed for `version` will not come (a datagram transport gave up the
     * model sent to it or its upload); the client is idle again. Default: nothing (the client
     * stays without work until the strategy sends it a model).
     */
    virtual void UpdateLost(uint32_t client, uint32_t version, fl::ParamVector& global);

    /**
     * With an uplink step (e.g. secure aggregation, whose pairwise masks need the participants
     * fixed before keys are shared): the size K of the cohorts the server dispatches the current
     * model to together. Each cohort's uploads go through one run of the uplink step, and its
     * result goes to CohortAggregated; several cohorts may be in flight at once (up to
     * ClientsPerRound clients busy). 0 (the default): the strategy cannot run with an uplink
     * step.
     */
    virtual uint32_t UplinkCohortSize() const;

    /// What one cohort's uplink step produced (the server never saw an individual upload).
    struct CohortSum
    {
        uint32_t cohort{0};                   ///< the cohort's number (round of its messages)
        uint32_t trainedRound{0};             ///< the model version the cohort was sent
        uint32_t staleness{0};                ///< current version - trainedRound
        const fl::ParamVector* base{nullptr}; ///< the model of version trainedRound
        const Eigen::VectorXd* sum{nullptr};  ///< sum over the participants of weight_k x_k
        double totalWeight{0.0};              ///< sum over the participants of weight_k
        std::vector<FlUpdateInfo> updates;    ///< the participants (ascending client index)
    };

    /**
     * With an uplink cohort size: a cohort's uplink step completed. `global` is the server's
     * model: change it and call Port().commit to make a new version. The default throws
     * fl::ConfigError (a strategy with UplinkCohortSize() > 0 overrides it).
     */
    virtual void CohortAggregated(const CohortSum& cohort, fl::ParamVector& global);
};

/**
 * \ingroup fl-strategies
 * Optional interface of a server strategy whose rounds open with control-message phases before
 * the upload (EGA's codec: the clients' statistics, then the agreed parameters). While they run,
 * the server hands every Control message of a selected client for this round to PhaseMessage,
 * asks PhasesDone whether they are over (after each accepted message, when a selected client
 * leaves, at the deadline), and takes no upload.
 */
class FlPhaseHooks
{
  public:
    virtual ~FlPhaseHooks();

    /// What PhaseMessage made of a message.
    enum class Verdict : uint8_t
    {
        Accepted = 0,   ///< taken
        Unexpected = 1, ///< not the strategy's (wrong tag, duplicate): counted as unexpected
        Malformed = 2,  ///< the strategy's, but undecodable: counted as rejected by the strategy
    };

    /// A Control message (tag, bytes) of selected client `client` while the phases run.
    virtual Verdict PhaseMessage(const FlServerStrategy::Context& ctx,
                                 uint32_t client,
                                 uint32_t tag,
                                 const std::vector<uint8_t>& bytes) = 0;

    /**
     * Whether the phases before the upload are over, `waiting` being the selected clients the
     * round still waits for (ascending) and `deadlineHit` whether the round's deadline fell.
     * Return true, with `uploaders` the clients whose upload the round now waits for (none: the
     * round closes empty), once they are; the strategy sends what the clients need through the
     * port first. A deadline that ends the phases with uploaders starts a fresh deadline.
     */
    virtual bool PhasesDone(const FlServerStrategy::Context& ctx,
                            const std::vector<uint32_t>& waiting,
                            bool deadlineHit,
                            std::vector<uint32_t>& uploaders) = 0;
};

/**
 * \ingroup fl-strategies
 * Optional interface of a server strategy that talks to nodes other than its clients (a GFL
 * server's neighbour servers) and reports more than the global model.
 */
class FlPeerHooks
{
  public:
    virtual ~FlPeerHooks();

    /**
     * A message that is not part of the client protocol (a neighbour server's model, a control
     * message) arrived. Return true if consumed (false: counted as unexpected by the server).
     */
    virtual bool Receive(FlInboundMessage& in) = 0;

    /**
     * Fills the strategy's part of the ModelReport of the round that just ended with a new
     * model (e.g. a graph server's aggregate before its neighbours' combination and the
     * neighbour messages missing). Default: nothing.
     */
    virtual void DescribeModel(FlModelReport& report) const;
};

/// The strategy's FlAsyncHooks, or nullptr if it takes no updates as they arrive.
FlAsyncHooks* FlAsyncHooksOf(FlServerStrategy* strategy);
/// The strategy's FlPhaseHooks, or nullptr if its rounds have no phases before the upload.
FlPhaseHooks* FlPhaseHooksOf(FlServerStrategy* strategy);
/// The strategy's FlPeerHooks, or nullptr.
FlPeerHooks* FlPeerHooksOf(FlServerStrategy* strategy);

/**
 * \ingroup fl-strategies
 * FedAvg (McMahan et al., "Communication-Efficient Learning of Deep Networks from
 * Decentralized Data", AISTATS 2017) with the server momentum of FedAvgM (Hsu, Qi, Brown,
 * "Measuring the Effects of Non-Identical Data Distribution for Federated Visual
 * Classification", arXiv:1909.06335, 2019) and the stale-update rule of the server's
 * StragglerPolicy accept (a stale model translated onto the current one, fl::TranslateStaleModel,
 * weight discounted by (1 + s)^-StalenessExponent): fl::AggregateRound. The server's default.
 */
class FedAvgStrategy : public FlServerStrategy
{
  public:
    /// \return the TypeId
    static TypeId GetTypeId();
    FedAvgStrategy();
    bool Aggregate(const Context& ctx,
                   const FlAggregationInput& in,
                   fl::ParamVector& model,
                   std::vector<double>& weights) override;

  protected:
    double m_momentum{0.0};          ///< ServerMomentum
    double m_learningRate{1.0};      ///< ServerLearningRate
    double m_stalenessExponent{0.5}; ///< StalenessExponent
    fl::ParamVector m_velocity;          ///< the server momentum buffer
};

} // namespace ns3

#endif // FL_SERVER_STRATEGY_H
