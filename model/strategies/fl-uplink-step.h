/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The uplink-step seam of the generic server and client applications: what happens to a
 * client's upload between "trained" and "aggregated" when it is more than one message. The
 * client half turns the upload into what is sent and answers the step's own control messages;
 * the server half runs the step's phases between the round's uploads and the aggregation and
 * hands the aggregation a sum and a total weight. Secure aggregation (SecAggServerStep,
 * SecAggClientStep) is one; the applications name none.
 *
 * A round with an uplink step, as data:
 *   server: RoundStarting(round, selected)      the step may send the selected clients a message
 *   server -> clients: the global model; each client trains
 *   client: Upload(round, update, weight)       the step sends the round's upload (raw
 *                                               LocalModel) and later control messages
 *   server: the round's uploads close (all selected answered, or the round deadline)
 *   server: Aggregate(round, uploads, done)     the step's phases (control messages both ways,
 *                                               its own deadlines), then done(result)
 *   server: result ok: model = sum / totalWeight (or the strategy's Aggregate of the sum)
 *           aborted: the model is kept (round status "aborted")
 * An asynchronous strategy with an uplink cohort size K (FlAsyncHooks::UplinkCohortSize)
 * runs one instance per cohort of K clients dispatched together: RoundStarting(cohort, its K
 * clients), the cohort's uploads, Aggregate(cohort, ...); several cohorts (instances, numbered
 * by the round of their messages) may be in flight at once, so a step keys its state by round.
 * With an uplink codec that has a sum path (uplink-codec.h) the codec's phase 1 runs first and
 * the step carries the phase-2 payload's values (UplinkCodec::PayloadValues, weight 1, dim =
 * UplinkCodec::SumSize) instead of the update; the server finishes with
 * UplinkAggregator::AddSum(sum, participants, their phase-1 weights) and w += Finish().
 */
#ifndef FL_UPLINK_STEP_H
#define FL_UPLINK_STEP_H

#include "ns3/object.h"
#include "ns3/param-vector.h"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup fl-strategies
 * The server half of an uplink step (install with FlServerApplication::SetUplinkStep).
 */
class FlUplinkServerStep : public Object
{
  public:
    /// \return the TypeId
    static TypeId GetTypeId();
    ~FlUplinkServerStep() override;

    /// What the server application lends the step: its only way to the network.
    struct Port
    {
        /**
         * Sends `bytes` to joined client `client` as a Control message of `round` with
         * MessageAddress::aux = `tag`; false if the client is not (or no longer) joined.
         */
        std::function<
            bool(uint32_t client, uint32_t round, uint32_t tag, const std::vector<uint8_t>& bytes)>
            send;
    };

    /// How the step's phases of one round ended.
    struct Result
    {
        bool ok{false};                     ///< false: aborted, the server keeps its model
        std::string status;                 ///< "ok" or why the round aborted
        Eigen::VectorXd sum;                ///< sum over the participants of weight_k x_k
        double totalWeight{0.0};            ///< sum over the participants of weight_k
        std::vector<uint32_t> participants; ///< clients whose input is in the sum, ascending
    };

    /// Called once per Aggregate.
    using Done = std::function<void(const Result&)>;

    /// The server's port (set by FlServerApplication when it starts).
    virtual void SetPort(Port port) = 0;

    /**
     * A round starts: `selected` (ascending client indices) are about to get the global model
     * of `dim` parameters. The step may send them a message first.
     */
    virtual void RoundStarting(uint32_t round,
                               const std::vector<uint32_t>& selected,
                               std::size_t dim) = 0;

    /**
     * The round's uploads are closed: the raw payloads of the clients that uploaded (ascending
     * client index; the payloads are valid during the call only). The step runs its phases and
     * calls `done` exactly once, now or later in simulated time.
     */
    virtual void Aggregate(uint32_t round,
                           const std::vector<uint32_t>& clients,
                           const std::vector<const std::vector<uint8_t>*>& uploads,
                           Done done) = 0;

    /**
     * A Control message from joined client `client` (the application identified it by its
     * joined address). Returns true if it belongs to the step (also when the step dropped it as
     * malformed or late), false to let the application count it as unexpected.
     */
    virtual bool Receive(uint32_t client,
                         uint32_t round,
                         uint32_t tag,
                         const std::vector<uint8_t>& bytes) = 0;

    /**
     * The application will not call Aggregate for `round` after RoundStarting (e.g. the round
     * closed below its quorum): the step forgets what it set up for it. Default: nothing.
     */
    virtual void Forget(uint32_t /* round */)
    {
    }

    /// Cancels the step's timers (the application stops).
    virtual void Stop()
    {
    }
};

/**
 * \ingroup fl-strategies
 * The client half of an uplink step (install with FlClientApplication::SetUplinkStep).
 */
class FlUplinkClientStep : public Object
{
  public:
    /// \return the TypeId
    static TypeId GetTypeId();
    ~FlUplinkClientStep() override;

    /// What the client application lends the step.
    struct Port
    {
        /// Sends `bytes` to the server as the round's upload (a raw LocalModel message).
        std::function<void(uint32_t round, const std::vector<uint8_t>& bytes)> upload;
        /// Sends `bytes` to the server as a Control message with aux = `tag`.
        std::function<void(uint32_t round, uint32_t tag, const std::vector<uint8_t>& bytes)> send;
    };

    /// The client's index and model dimension, and its port (set when the client starts).
    virtual void SetPort(uint32_t client, std::size_t dim, Port port) = 0;

    /**
     * The upload of `round` is ready (after the compute time): `update` with aggregation
     * weight `weight` (FedAvg: the client's sample count; a uniform average: 1). The step sends
     * what it makes of it through the port, now or later, or nothing; never `update` itself
     * unless that is what the step is for.
     */
    virtual void Upload(uint32_t round, const fl::ParamVector& update, uint64_t weight) = 0;

    /// A Control message from the server; true if it belongs to the step (even if dropped).
    virtual bool Receive(uint32_t round, uint32_t tag, const std::vector<uint8_t>& bytes) = 0;

    /// Cancels the step's timers (the application stops or the client leaves).
    virtual void Stop()
    {
    }
};

} // namespace ns3

#endif // FL_UPLINK_STEP_H
