/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Graph federated learning (GFL; E. Rizk, S. Vlaski, A. H. Sayed, "Privatized Graph Federated
 * Learning", arXiv:2203.07105, 2022, and its journal version, EURASIP J. Adv. Signal Process.
 * 2023, article 87), pure (no ns-3 header): P servers on a graph, K clients each. Per iteration
 * i every server p
 *  1. samples L of its K clients (GflSampleClients) and sends them w_{p,i-1};
 *  2. each sampled client k runs E_{p,k} SGD steps of size mu / E_{p,k} on mini-batches of
 *     B_{p,k} (eq. 3; GflTrainerConfig with TrainClientWith) and uploads its model w_{p,k,i}
 *     (eq. 6) or its averaged update (w_{p,i-1} - w_{p,k,i}) / mu (journal eq. 54), possibly with
 *     client noise g_{p,k,i} (noisy models / noisy updates, the journal version's Section 3.4)
 *     (GflClientStep), optionally summed by secure aggregation (Bonawitz et al., ACM CCS 2017;
 *     secagg-protocol.h);
 *  3. the server averages: psi_{p,i} = (1/L) sum_k (w_{p,k,i} + g_{p,k,i}) (eq. 7,
 *     GflServerAverage), or with updates psi_{p,i} = w_{p,i-1} - mu (1/L) sum_k (u_k + g_k)
 *     (eq. 55, GflApplyUpdate);
 *  4. servers exchange psi with their graph neighbours under a server-level perturbation and
 *     combine: w_{p,i} = sum_m a_pm (psi_{m,i} + g_{pm,i}) (eq. 8) -- the diffusion release and
 *     combine steps of diffusion.h (ReleaseNodeMessages, CombineMessages), with the perturbations
 *     of perturbation.h (none, i.i.d. Laplace/Gaussian per link, per sender or broadcast,
 *     graph-homomorphic per eq. 47).
 *
 * Randomness (so that the ns-3 applications reproduce RunGflInProcess bit for bit): every role
 * has its own seed (GflServerSeed, GflClientSeed); every draw comes from an engine seeded by that
 * seed and the iteration: sampling GflSamplingSeed, training DeriveSeed(clientSeed, i) (as the
 * FedAvg client), client noise UplinkNoiseSeed(clientSeed, i) (as the FedAvg client), dropout
 * GflDropoutSeed, server noise NodeNoiseSeed / LinkNoiseSeed. Secure aggregation draws its keys
 * at random (or from a run seed, KeyMode::Reproducible): they never change the sum it decodes.
 */
#ifndef FL_GFL_H
#define FL_GFL_H

#include "ns3/diffusion.h"
#include "ns3/secagg-protocol.h"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace ns3
{
namespace fl
{

// ------------------------------------------------------------------------------------ seeds

/// Seed of server p from a run's master seed.
inline uint64_t
GflServerSeed(uint64_t seed, uint32_t server)
{
    return DeriveSeed(seed, 0x5E4E, server);
}

/// Seed (the "training seed") of client k of server p from a run's master seed.
inline uint64_t
GflClientSeed(uint64_t seed, uint32_t server, uint32_t client)
{
    return DeriveSeed(DeriveSeed(seed, 0xC11E, server), client);
}

/// Seed of the engine with which server p samples its clients in `iteration`.
inline uint64_t
GflSamplingSeed(uint64_t serverSeed, uint32_t iteration)
{
    return DeriveSeed(serverSeed, iteration, 0x5A3B);
}

/// Seed of the engine a client trains with in `iteration` (the FedAvg client's convention).
inline uint64_t
GflTrainingSeed(uint64_t clientSeed, uint32_t iteration)
{
    return DeriveSeed(clientSeed, iteration);
}

/// Seed of the engine that decides whether a sampled client drops out in `iteration`.
inline uint64_t
GflDropoutSeed(uint64_t clientSeed, uint32_t iteration)
{
    return DeriveSeed(clientSeed, iteration, 0xD409);
}

// ------------------------------------------------------------------------------ client side

/// What a sampled client uploads.
enum class GflUplink : uint8_t
{
    Models,  ///< its model w_{p,k,i} (eq. 6; the preprint, noisy-model FL)
    Updates, ///< its averaged update (w_{p,i-1} - w_{p,k,i}) / mu (journal eq. 54, noisy updates)
};

/// Name of an uplink kind ("models", "updates").
const char* GflUplinkName(GflUplink uplink);

/// Parses "models" / "updates"; throws ConfigError naming `parameter` otherwise.
GflUplink ParseGflUplink(const std::string& name, const std::string& parameter);

/**
 * Client sampling of step 1: L of K clients uniformly without replacement (a partial
 * Fisher-Yates shuffle, SampleClients of fedavg.h) with j = uniform_int(lo, hi) drawn from
 * Rng(GflSamplingSeed(serverSeed, iteration)); L = 0 or L >= K samples all. Sorted ascending.
 */
std::vector<uint32_t> GflSampleClients(std::size_t clients,
                                       std::size_t sampled,
                                       uint64_t serverSeed,
                                       uint32_t iteration);

/**
 * The local trainer configuration of eq. (3): E steps of size mu / E (StepRule::DividedBySteps)
 * on mini-batches of B samples, gradients clipped to clipNorm (0 = off). Throws ConfigError
 * naming "mu", "localSteps" or "batchSize".
 */
LocalTrainerConfig GflTrainerConfig(double mu,
                                    std::size_t localSteps,
                                    std::size_t batchSize,
                                    double clipNorm);

/**
 * The journal version's eq. (54): the averaged update u = (start - trained) / mu, which equals
 * (1/E) sum_e grad Q(w_{e-1}) under the mu / E step rule. Throws ConfigError on mismatched
 * vectors or mu <= 0.
 */
ParamVector GflClientUpdate(const ParamVector& start, const ParamVector& trained, double mu);

/// What a client's step produced.
struct GflClientResult
{
    ParamVector upload;    ///< model or update, with the client noise added
    TrainOutcome training; ///< the local training outcome (params = the trained model)
};

/**
 * The whole client side of one iteration, as a client application runs it: trains task client
 * `taskClient` from `start` with `trainer` and Rng(GflTrainingSeed(clientSeed, iteration)), forms
 * the upload (model or update) and, if `noise` is given, adds the client noise exactly as
 * FlClientApplication does: BeginIteration and PerturbOutgoing(upload, server, rng) with one
 * Rng(UplinkNoiseSeed(clientSeed, iteration)) (its seed from libsodium if `source` is Sodium).
 */
GflClientResult GflClientStep(const LearningTask& task,
                              std::size_t taskClient,
                              const ParamVector& start,
                              const LocalTrainerConfig& trainer,
                              GflUplink uplink,
                              double mu,
                              Perturbation* noise,
                              uint32_t server,
                              uint64_t clientSeed,
                              uint32_t iteration,
                              NoiseSource source = NoiseSource::RunSeed);

// ------------------------------------------------------------------------------ server side

/**
 * Eq. (7): psi = sum_k c_k x_k with c_k = weights_k / sum_j weights_j, uniform 1/L if `weights`
 * is empty; x_k = w_{p,k,i} + g_{p,k,i} as received (models), or the received updates (then pass
 * the result to GflApplyUpdate). Accumulated in the order given (callers sort by client id).
 * Throws ConfigError on an empty set, mismatched vectors or bad weights (WeightedAverage).
 */
ParamVector GflServerAverage(const std::vector<const ParamVector*>& received,
                             const std::vector<double>& weights = {});

/**
 * The journal version's eq. (55): psi = current - mu * averageUpdate, with averageUpdate = (1/L)
 * sum_k (u_k + g_k) (GflServerAverage of the updates, or the unmasked sum / L). Throws ConfigError
 * on mismatched vectors or mu <= 0.
 */
ParamVector GflApplyUpdate(const ParamVector& current, const ParamVector& averageUpdate, double mu);

/**
 * The guarantee of GFL's secure aggregation for L sampled clients per server with threshold
 * `threshold` (0 = the rule floor(2L/3) + 1): fl::SecAggGuarantee::Text of the configuration the
 * network servers announce. Throws ConfigError as MakeSecAggRoundConfig.
 */
std::string GflSecureAggregationGuarantee(std::size_t sampled, uint32_t threshold);

/**
 * Secure aggregation of one server's iteration, as the protocol computes it over the network
 * (SecAggServerStep and SecAggClientStep; Bonawitz et al., "Practical Secure Aggregation for
 * Privacy-Preserving Machine Learning", ACM CCS 2017): the `sampled` clients are configured
 * (MakeSecAggRoundConfig with the complete graph, fraction bits `fractionBits` and threshold
 * `threshold`, 0 = the rule floor(2 |sampled| / 3) + 1), the survivors' `uploads`
 * (the sampled clients that did not drop; a dropped client sends nothing, not even its keys) are
 * encoded with weight 1 and summed in fixed point (SecAggPlainSum, summands = |sampled|), and the
 * average is that sum divided by the number of survivors, in the uploads' precision: bit for bit
 * what the network run decodes. Returns false (the protocol aborts; the server keeps
 * w_{p,i-1}) when fewer than t clients survive. Throws ConfigError as MakeSecAggRoundConfig
 * (e.g. "clients" for fewer than 2 sampled clients) or SecAggPlainSum.
 */
bool GflSecureAverage(const std::vector<uint32_t>& sampled,
                      const std::vector<const ParamVector*>& uploads,
                      uint32_t threshold,
                      unsigned fractionBits,
                      ParamVector& average);

// ------------------------------------------------------------------------------ the runner

/// Per-client local work of the papers' experiments: E_{p,k} and B_{p,k} for each task client.
struct GflLocalWork
{
    std::vector<std::size_t> localSteps; ///< E_{p,k}, one per task client (or one for all)
    std::vector<std::size_t> batchSizes; ///< B_{p,k}, one per task client (or one for all)
};

/**
 * Draws E ~ U{eMin..eMax} and B ~ U{bMin..bMax} per client (the papers' regression experiment: E in
 * [1, 10], B in [5, 10]) from Rng(seed), E then B for each client in turn. Throws ConfigError on
 * empty ranges.
 */
GflLocalWork DrawGflLocalWork(std::size_t clients,
                              std::size_t eMin,
                              std::size_t eMax,
                              std::size_t bMin,
                              std::size_t bMax,
                              uint64_t seed);

/// Settings of an in-process GFL run.
struct GflConfig
{
    Eigen::MatrixXd combination;     ///< A (P x P), doubly stochastic, connected
    std::size_t clientsPerServer{0}; ///< K; task client p*K + k is client k of server p
    std::size_t sampledClients{0};   ///< L (0 = all K)
    double mu{0.1};                  ///< step size mu (each local step is mu / E_{p,k})
    GflLocalWork work;               ///< E_{p,k}, B_{p,k} (empty: the task trainer's steps, batch)
    double clipNorm{0.0};            ///< gradient clipping G (0 = off; eps then infinite)
    GflUplink uplink{GflUplink::Models}; ///< models or updates
    NodeNoiseConfig clientNoise;         ///< none, or iid (per-link = per-sender for one receiver)
    /// Secure aggregation of the uploads (Bonawitz et al. 2017; GflSecureAverage in process,
    /// SecAggServerStep / SecAggClientStep over the network)
    bool secureAggregation{false};
    unsigned maskFractionBits{kDefaultMaskFractionBits}; ///< fixed-point fraction bits
    uint32_t secureThreshold{0}; ///< t of secure aggregation (0 = floor(L / 2) + 1)
    /// P(a sampled client drops out: it trains and sends nothing in that iteration)
    double dropoutProbability{0.0};
    NodeNoiseConfig serverNoise; ///< server-to-server perturbation
    MissingMessagePolicy missingPolicy{MissingMessagePolicy::ReuseLast}; ///< lost messages
    DeliveryFunction delivered; ///< which server messages arrive (empty: ideal links)
    uint32_t iterations{100};   ///< iterations to run
    uint64_t seed{1};           ///< master seed
    Eigen::VectorXd reference;  ///< w° for the MSD metrics (empty: NaN)
    double delta{1e-5};         ///< delta for Gaussian-noise accounting
};

/**
 * Secure aggregation's settings against L (config.sampledClients, 0 = K): throws ConfigError
 * naming "sampledClients" if L < 2 (one upload's sum is the upload), "threshold" or
 * "maskFractionBits" as MakeSecAggRoundConfig. Nothing to check without secureAggregation.
 */
void CheckGflSecureAggregation(const GflConfig& config);

/**
 * Runs GFL in process with ideal client links (and ideal or hooked server links): all servers
 * start from task.InitialParameters(Rng(InitialModelSeed(seed))); per iteration each server
 * samples, its clients step (GflClientStep), it averages (GflServerAverage / GflSecureAverage,
 * then GflApplyUpdate for updates; a server whose sampled clients all dropped, or whose secure
 * aggregation aborted below its threshold, keeps psi = w_{p,i-1} and counts every sampled client
 * as dropped), and the servers exchange and combine through a GraphExchange with seeds
 * GflServerSeed. The epsilons are those of one server's releases under the drifting-sensitivity
 * argument (GflEpsilonPreprint's, with G = clipNorm, the l1 bound for Laplace noise and every copy
 * counted: GraphPrivacyAccountant), against one neighbour and against all links. Throws ConfigError
 * naming the bad setting.
 */
NetworkRunResult RunGflInProcess(const LearningTask& task,
                                 const GflConfig& config,
                                 const NetworkIterationCallback& onIteration = {});

} // namespace fl
} // namespace ns3

#endif // FL_GFL_H
