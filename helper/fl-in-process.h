/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * A strategy pair's rounds in process, without a network: the same hooks the server and client
 * applications call, in the same order, with the same seeds, and the uplink stages (noise, the
 * strategies' phases such as the codec's, a summing step such as secure aggregation) in their
 * pipeline order. What a network run of the same pair computes when nothing is lost or late, so
 * a user's own strategy can be checked against its network run (and the module's are).
 */
#ifndef FL_IN_PROCESS_H
#define FL_IN_PROCESS_H

#include "ns3/fl-client-strategy.h"
#include "ns3/fl-server-strategy.h"
#include "ns3/learning-task.h"
#include "ns3/noise-source.h"
#include "ns3/perturbation.h"
#include "ns3/ptr.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

namespace ns3
{

/**
 * \ingroup fl-helper
 * What FlRunInProcess runs. To reproduce a network run, give its seeds (the clients'
 * TrainingSeed attributes, the server's InitSeed) and its initial model (the RoundEnd report of
 * round 0).
 */
struct FlInProcessConfig
{
    std::shared_ptr<const fl::LearningTask> task; ///< the learning task
    fl::ParamVector initial;                      ///< the initial global model
    uint64_t serverSeed{0};                       ///< the server strategy's Port().seed()
    std::vector<uint64_t> clientSeeds;            ///< each client's training seed, by index
    uint32_t rounds{1}; ///< synchronous: rounds; asynchronous: committed versions
    /**
     * The clients of round r (ascending; a network run's FlRoundReport::selected), asked when
     * the strategy does not select (SelectClients returns false). Default: all clients. An
     * asynchronous strategy's first dispatch is asked for round 1.
     */
    std::function<std::vector<uint32_t>(uint32_t round)> selected;
    /// Each client's strategy (one object per client, as each client application has one).
    /// Default: FlClientStrategy.
    std::function<Ptr<FlClientStrategy>(uint32_t client)> clientStrategy;
    /// The uplink noise of each client (FlClientApplication::SetUplinkPerturbation); none if
    /// unset or null.
    std::function<std::shared_ptr<fl::Perturbation>(uint32_t client)> perturbation;
    fl::NoiseSource noiseSource{fl::NoiseSource::RunSeed}; ///< the clients' NoiseSource
    uint32_t serverNode{0}; ///< the node id the clients' noise is addressed to
    /**
     * A summing uplink step: 0 = none (individual uploads); f > 0 = secure aggregation's sum
     * with f fraction bits (fl::SecAggPlainSum, what FlSecAggHelper's step reveals when no
     * client drops).
     */
    unsigned sumFractionBits{0};
    /// With a summing step and an asynchronous strategy: its cohort size (UplinkCohortSize).
    uint32_t cohortSize{0};
    /**
     * Asynchronous strategies: the uploads in the order they arrive (a network run's RoundEnd
     * reports' updates, by arrival time; client, trainedRound and, with cohorts, cohort are
     * read); empty: the order in which the models were sent.
     */
    std::vector<FlUpdateInfo> arrivals;
};

/**
 * \ingroup fl-helper
 * What FlRunInProcess computed.
 */
struct FlInProcessResult
{
    /// The global model after each round or version (models[0] = the initial model).
    std::vector<fl::ParamVector> models;
    /// The participants of each round or version (participants[0] empty).
    std::vector<std::vector<uint32_t>> participants;
};

/**
 * \ingroup fl-helper
 * Runs `server` (started here) with one client strategy per client for config.rounds rounds in
 * process. Synchronous strategies: per round SelectClients (or config.selected), ConfigureRound,
 * each selected client's fit on the global model and attachment (skipped if Silent), its uplink
 * noise, then either its strategy's phases (Control messages delivered at once both ways, in
 * client order, PhasesDone asked after each) or the upload; then Aggregate with individual
 * uploads, raw payloads or the step's sum, and AfterAggregation (which must call done at once).
 * Asynchronous strategies (FlAsyncHooks): every client sent a model trains on it; the uploads
 * arrive in config.arrivals' order or the order the models were sent (UpdateArrived), or by
 * cohorts of cohortSize summed (CohortAggregated); every model the strategy sends is trained
 * on.
 * Throws fl::ConfigError for what it cannot mirror (a strategy's own timers, peers).
 */
FlInProcessResult FlRunInProcess(Ptr<FlServerStrategy> server, const FlInProcessConfig& config);

} // namespace ns3

#endif // FL_IN_PROCESS_H
