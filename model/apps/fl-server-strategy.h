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
    uint32_t trainedRound{0};       ///< round (model version) the client trained on
    uint32_t staleness{0};          ///< rounds (versions) between that model and this one
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
 * \ingroup fl
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
};

/**
 * \ingroup fl
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
 * \ingroup fl
 * The server half of the strategy seam (install with FlServerApplication::SetStrategy or
 * FlFedAvgHelper::SetStrategy("ns3::FedBuffStrategy", "BufferSize", UintegerValue(10))).
 * The server keeps the schedule (join, send, deadline, quorum, stragglers); a strategy decides
 * the rest through these hooks. Every hook has a default, so a strategy overrides only what
 * its algorithm changes. The maths belongs in model/algorithms; a strategy calls it.
 *
 * Synchronous round: SelectClients -> ConfigureRound -> (clients train) -> Aggregate (or
 * AggregateSum after an uplink step) -> AfterAggregation -> next round.
 * Asynchronous (IsAsynchronous() true): the server starts once with SelectClients and sends the
 * model to them, then hands every arriving update to UpdateArrived and never closes a round;
 * the strategy commits versions and sends models through the port. Asynchronous with an uplink
 * step: the server dispatches cohorts of UplinkCohortSize() clients, runs the step once per
 * cohort and hands each cohort's sum to CohortAggregated.
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
     * Called when the server starts (after SetPort), with the model size and the settings
     * the server has; a strategy checks its configuration here (throw fl::ConfigError).
     * @param numParameters the model size
     * @param acceptsStale whether the server accepts stale updates (StragglerPolicy accept)
     * @param hasUplinkStep whether an uplink step (e.g. secure aggregation) is installed
     */
    virtual void Start(std::size_t numParameters, bool acceptsStale, bool hasUplinkStep);

    /**
     * Picks the clients of `round` among the `eligible` ones (ascending). Return false (the
     * default) to let the server sample with ClientsPerRound / ClientSampling.
     */
    virtual bool SelectClients(uint32_t round,
                               const std::vector<uint32_t>& eligible,
                               std::vector<uint32_t>& selected);

    /**
     * Called with the selected clients just before the global model is sent to them (a
     * strategy may send them its configuration first, through the port).
     */
    virtual void ConfigureRound(const Context& ctx, const std::vector<uint32_t>& selected);

    /**
     * Turns the round's updates (ascending (client, round trained on); `clients[i]` sent
     * `updates[i]`, stale ones with their base model) into the server's model, which holds
     * the model the fresh clients trained on, and sets `weights` (one per update, before
     * normalisation). The default is FedAvg: fl::AggregateRound with no momentum and the
     * server's staleness discount (1 + s)^-1/2 (FedAvgStrategy has the attributes).
     */
    virtual void Aggregate(const Context& ctx,
                           const std::vector<fl::RoundUpdate>& updates,
                           const std::vector<uint32_t>& clients,
                           fl::ParamVector& model,
                           std::vector<double>& weights);

    /**
     * After an uplink step (e.g. secure aggregation): its phases produced `sum` =
     * sum_k weight_k x_k over `clients` (ascending) and `totalWeight`; set the model and
     * return true, or return false (the default) for sum / totalWeight in the model's
     * precision.
     */
    virtual bool AggregateSum(const Context& ctx,
                              const Eigen::VectorXd& sum,
                              double totalWeight,
                              const std::vector<uint32_t>& clients,
                              fl::ParamVector& model);

    /**
     * Acts on the model between aggregation (or an unchanged model: skipped, empty or
     * aborted round) and the next round, then calls `done` exactly once, now or later in
     * simulated time. Repeated rounds do not call it. The default calls `done` at once.
     */
    virtual void AfterAggregation(const Context& ctx,
                                  fl::ParamVector& model,
                                  std::function<void()> done);

    /**
     * A message that is not part of the client protocol (a neighbour server's model, a
     * control message) arrived. Return true if consumed (the default: false, counted as
     * unexpected by the server).
     */
    virtual bool Receive(FlInboundMessage& in);

    /**
     * Whether each round opens with the strategy's control-message phases before the upload
     * (default false). While they run, the server hands every Control message of a selected
     * client for this round to PhaseMessage, asks PhasesDone whether they are over (after each
     * accepted message, when a selected client leaves, at the deadline), and takes no upload.
     */
    virtual bool PhasesBeforeUpload() const;

    /// What PhaseMessage made of a message.
    enum class PhaseVerdict : uint8_t
    {
        Accepted = 0,   ///< taken
        Unexpected = 1, ///< not the strategy's (wrong tag, duplicate): counted as unexpected
        Malformed = 2,  ///< the strategy's, but undecodable: counted as rejected by the strategy
    };

    /// A Control message (tag, bytes) of selected client `client` while the phases run.
    virtual PhaseVerdict PhaseMessage(const Context& ctx,
                                      uint32_t client,
                                      uint32_t tag,
                                      const std::vector<uint8_t>& bytes);

    /**
     * Whether the phases before the upload are over, `waiting` being the selected clients the
     * round still waits for (ascending) and `deadlineHit` whether the round's deadline fell.
     * Return true, with `uploaders` the clients whose upload the round now waits for (none:
     * the round closes empty), once they are; the strategy sends what the clients need through
     * the port first. A deadline that ends the phases with uploaders starts a fresh deadline.
     */
    virtual bool PhasesDone(const Context& ctx,
                            const std::vector<uint32_t>& waiting,
                            bool deadlineHit,
                            std::vector<uint32_t>& uploaders);

    /// A selected client left during the open round before its upload arrived.
    virtual void ClientLeft(uint32_t client);

    /// Fills the strategy's part of the report of `report.round` (default: nothing).
    virtual void DescribeRound(FlRoundReport& report) const;

    /**
     * Fills the strategy's part of the ModelReport of the round that just ended with a new
     * model (e.g. a graph server's aggregate before its neighbours' combination and the
     * neighbour messages missing; default: nothing).
     */
    virtual void DescribeModel(FlModelReport& report) const;

    /**
     * Whether the clients upload raw payloads of the strategy's own format (default false:
     * models in the transport's wire encoding). The round's payloads then go to
     * AggregatePayloads, or, after an uplink step, the step's sum to AggregatePayloadSum.
     */
    virtual bool RawUploads() const;

    /**
     * Raw uploads: turns the payloads (`clients` ascending, `payloads[i]` from `clients[i]`)
     * into the model and sets `weights` (one per payload: its aggregation weight, NaN if the
     * payload was malformed and left out). Returns the number of payloads used.
     */
    virtual uint32_t AggregatePayloads(const Context& ctx,
                                       const std::vector<uint32_t>& clients,
                                       const std::vector<const std::vector<uint8_t>*>& payloads,
                                       fl::ParamVector& model,
                                       std::vector<double>& weights);

    /**
     * Raw uploads after an uplink step: the step summed the UplinkStepSize values the clients
     * made of their payloads over `participants` (ascending). Set the model and `weights`
     * (one per participant) and return true, or false if the sum was unusable (the model is
     * kept, the round counts as empty).
     */
    virtual bool AggregatePayloadSum(const Context& ctx,
                                     const Eigen::VectorXd& sum,
                                     const std::vector<uint32_t>& participants,
                                     fl::ParamVector& model,
                                     std::vector<double>& weights);

    /// How many values an uplink step carries per client (default: the model size).
    virtual std::size_t UplinkStepSize(std::size_t numParameters) const;

    /// Whether the strategy takes updates as they arrive (no rounds). Default false.
    virtual bool IsAsynchronous() const;

    /**
     * Asynchronous strategies: an update of a known client arrived (info.staleness = current
     * version - version trained on). `global` is the server's model: change it and call
     * Port().commit to make a new version; send models with Port().sendModel.
     */
    virtual void UpdateArrived(const FlUpdateInfo& info,
                               const fl::ParamVector& update,
                               fl::ParamVector& global);

    /**
     * Asynchronous strategies: the update a client owed for `version` will not come (a datagram
     * transport gave up the model sent to it or its upload); the client is idle again.
     * `global` is the server's model, as in UpdateArrived. Default: nothing (the client stays
     * without work until the strategy sends it a model).
     */
    virtual void UpdateLost(uint32_t client, uint32_t version, fl::ParamVector& global);

    /**
     * Asynchronous strategies with an uplink step (e.g. secure aggregation, whose pairwise
     * masks need the participants fixed before keys are shared): the size K of the cohorts
     * the server dispatches the current model to together. Each cohort's uploads go through one
     * run of the uplink step, and its result goes to CohortAggregated; several cohorts may be
     * in flight at once (up to ClientsPerRound clients busy). 0 (the default): the strategy
     * cannot run with an uplink step.
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
     * Asynchronous strategies with an uplink cohort size: a cohort's uplink step completed.
     * `global` is the server's model: change it and call Port().commit to make a new version.
     * The default throws fl::ConfigError (a strategy with UplinkCohortSize() > 0 overrides it).
     */
    virtual void CohortAggregated(const CohortSum& cohort, fl::ParamVector& global);

  protected:
    void DoDispose() override;

  private:
    FlServerPort m_port;
};

/**
 * \ingroup fl
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
    void Start(std::size_t numParameters, bool acceptsStale, bool hasUplinkStep) override;
    void Aggregate(const Context& ctx,
                   const std::vector<fl::RoundUpdate>& updates,
                   const std::vector<uint32_t>& clients,
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
