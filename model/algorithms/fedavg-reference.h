/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The in-process FedAvg reference runner: the same rounds as FlServerApplication and its
 * FlClientApplications, with the same seeds, called directly (ideal links). Benchmarks measure
 * learning alone with it; tests compare network runs with it bit for bit.
 */
#ifndef FL_FEDAVG_REFERENCE_H
#define FL_FEDAVG_REFERENCE_H

#include "ns3/fedavg.h"
#include "ns3/learning-task.h"
#include "ns3/payload-codec.h"
#include "ns3/uplink-codec.h"

#include <functional>
#include <vector>

namespace ns3
{
namespace fl
{

/**
 * How vectors travel in a reference run. An empty function leaves the vector untouched (an
 * ideal link, no copy).
 */
struct ReferenceLink
{
    /// What the clients receive of the global model of `round` (the server encodes it once).
    std::function<ParamVector(uint32_t round, const ParamVector& global)> down;
    /// What the server receives of client `client`'s model trained in `round`.
    std::function<ParamVector(uint32_t round, uint32_t client, const ParamVector& local)> up;
};

/**
 * A link that passes every vector through the wire codec exactly as the applications do
 * (encode, decode to the task's precision), with the quantiser seeds the applications derive
 * for int8: the server's from its InitSeed, each client's from its TrainingSeed.
 */
ReferenceLink WireCodecLink(WireEncoding wire,
                            Precision decodeTo,
                            uint64_t initSeed,
                            const std::vector<uint64_t>& clientSeeds);

/// Settings of a reference run.
struct FedAvgReferenceConfig
{
    uint32_t rounds{1};                 ///< rounds to run
    uint64_t initSeed{1};               ///< as FlServerApplication::InitSeed
    std::vector<uint64_t> clientSeeds;  ///< as each FlClientApplication::TrainingSeed
    RoundAggregationConfig aggregation; ///< momentum etc. (no stale updates in process)
    ReferenceLink link;                 ///< how vectors travel (default: ideal)
    /// The in-process mirror of a server strategy's AfterAggregation: acts on the aggregate before
    /// the next round.
    std::function<void(uint32_t round, ParamVector& model)> step;
    /**
     * The uplink-codec seam, mirrored from FlClientApplication / FlServerApplication::
     * SetUplinkCodec: every selected client reports (statistic, weight), the codec agrees, each
     * client encodes its update (its model minus the global model it received) with
     * Rng(UplinkEncodeSeed(clientSeeds[k], round)), the server adds the payloads in client order
     * and w += Finish(Rng(UplinkDecodeSeed(initSeed, round))). `link.up` and `aggregation` are
     * not used then (a ConfigError if aggregation asks for server momentum).
     */
    std::shared_ptr<const UplinkCodec> uplinkCodec;
    /**
     * Secure aggregation, mirrored from FlFedAvgHelper::SetSecureAggregation (SecAggServerStep
     * and SecAggClientStep; secagg-protocol.h): 0 = off; otherwise its fixed-point fraction bits. Client
     * k's weight is its sample count n_k; the server obtains the sum of Encode(n_k w_k) and the
     * sum of n_k over the selected clients (SecAggPlainSum, summands = the selected clients, the
     * model converted to float64 first) and the new global model is their quotient in the
     * task's precision. `link.up` and `aggregation` are not used then (a ConfigError if
     * aggregation asks for server momentum). With an uplinkCodec that has a sum path
     * (UplinkCodec::SumSize, e.g. EGA; a ConfigError otherwise) the two codec phases run as
     * above, each surviving client's PayloadValues are summed with weight 1 (SecAggPlainSum,
     * summands = the selected clients) and the server finishes with UplinkAggregator::AddSum
     * (the survivors in ascending order and the sum of their phase-1 weights).
     */
    unsigned secureFractionBits{0};
    /// Loss-weighted FedAvg's exponent of the clients' weights (UplinkClientWeight), with
    /// uplinkCodec only (not q-FFL: see qffl.h).
    double lossWeightExponent{0.0};
    /// Clients of a round (sorted; default: all). As FlServerApplication's sampling, decided by
    /// the caller.
    std::function<std::vector<uint32_t>(uint32_t round)> select;
    /// With uplinkCodec: client `client` reports in phase 1 but its upload is lost. With
    /// secureFractionBits: the client is configured (it counts in n) but its input is not in
    /// the sum (it dropped before its masked input reached the server).
    std::function<bool(uint32_t round, uint32_t client)> dropUpload;
    /// Called after every round (and with round 0 for the initial model), e.g. for progress.
    std::function<void(uint32_t round, const ParamVector& global)> onRound;
};

/// What a reference run produced.
struct FedAvgReferenceResult
{
    ParamVector finalModel;          ///< the global model after the last round
    std::size_t samplesProcessed{0}; ///< samples processed by all clients in all rounds
    double flops{0.0};               ///< training FLOPs of all clients in all rounds
    uint64_t uplinkPayloadBytes{0};  ///< codec payload bytes of all uploads (uplinkCodec only)
    double encodeSeconds{0.0};       ///< wall-clock time in Encode, all clients, all rounds
    double decodeSeconds{0.0};       ///< wall-clock time in Add + Finish, all rounds
};

/**
 * Runs FedAvg in process: every client trains in every round from the global model with
 * Rng(DeriveSeed(clientSeeds[k], round)); updates are aggregated in client order with
 * AggregateRound. Throws ConfigError if clientSeeds does not have one seed per client.
 */
FedAvgReferenceResult RunFedAvgReference(const LearningTask& task,
                                         const FedAvgReferenceConfig& config);

/// The seed of the server's int8 quantiser, derived from its initial-model seed.
uint64_t ServerQuantSeed(uint64_t initSeed);

} // namespace fl
} // namespace ns3

#endif // FL_FEDAVG_REFERENCE_H
