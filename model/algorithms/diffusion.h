/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Perturbed adapt-then-combine (ATC) diffusion over a graph, pure (no ns-3 header): the step
 * GHP diffusion (S. Vlaski, A. H. Sayed, "Graph-Homomorphic Perturbations for Private
 * Decentralized Learning", ICASSP 2021, eqs. (14)-(16) and (20)) runs between agents and GFL
 * (E. Rizk, S. Vlaski, A. H. Sayed, "Privatized Graph Federated Learning", arXiv:2203.07105,
 * 2022, eq. (8)) runs between servers.
 *
 * One iteration of node k, as an application runs it one message at a time:
 *  1. adapt: phi_k = w_k - mu grad Q_k(w_k; x_k,i) (TrainClientWith with DiffusionAdaptConfig);
 *     a GFL server's "adapt" is its client aggregation psi_p (gfl.h);
 *  2. release (ReleaseNodeMessages): the node's Perturbation adds q_kl to the copy for each
 *     neighbour l and q_kk to the copy it keeps; broadcast-type noise gives one message for all;
 *  3. combine (CombineMessages): w_k = a_kk (phi_k + q_kk) + sum_{l ~ k} a_lk (phi_l + q_lk),
 *     with a policy for neighbour messages that are lost or late.
 *
 * Conventions: A = [a_lk] (graph.h), a_lk = weight node k gives to what it receives from l; the
 * runners require A doubly stochastic (so GFL's a_pm reading is the same matrix) and connected.
 * Randomness: a node's noise comes from engines seeded by NodeNoiseSeed / LinkNoiseSeed of its
 * own seed and the iteration (never from a shared stream), so the order in which an ns-3 node
 * handles its neighbours does not change a draw and the network mode can reproduce an in-process
 * run bit for bit.
 */
#ifndef FL_DIFFUSION_H
#define FL_DIFFUSION_H

#include "ns3/gfl-privacy.h"
#include "ns3/learning-task.h"
#include "ns3/perturbation.h"

#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <string>
#include <vector>

namespace ns3
{
namespace fl
{

// ------------------------------------------------------------------------------------ seeds

/// Seed of the engine a node passes to Perturbation::BeginIteration in `iteration`.
inline uint64_t
NodeNoiseSeed(uint64_t nodeSeed, uint32_t iteration)
{
    return DeriveSeed(nodeSeed, iteration, 0x6E01);
}

/**
 * Seed of the engine a node passes to PerturbOutgoing for `receiver` (fresh per-link draws) and,
 * with receiver = its own id, to PerturbKept, in `iteration`. Broadcast-type perturbations use
 * receiver = kBroadcastReceiver.
 */
inline uint64_t
LinkNoiseSeed(uint64_t nodeSeed, uint32_t iteration, uint32_t receiver)
{
    return DeriveSeed(DeriveSeed(nodeSeed, iteration, 0x6E02), receiver);
}

/// The receiver id used for the one copy of a broadcast (SameForEveryReceiver) release.
constexpr uint32_t kBroadcastReceiver = 0xFFFFFFFFU;

/// Seed of diffusion agent k from a run's master seed.
inline uint64_t
DiffusionAgentSeed(uint64_t seed, uint32_t agent)
{
    return DeriveSeed(seed, 0xD1FF, agent);
}

/// Seed of the engine that draws the common initial model w_0 of a run (every node starts there).
inline uint64_t
InitialModelSeed(uint64_t seed)
{
    return DeriveSeed(seed, 0x1A17);
}

// -------------------------------------------------------------------------------- adapt step

/**
 * The local trainer configuration of the adapt step (GHP eq. 3/14): one SGD step of size mu on
 * a mini-batch of `batchSize` samples (1 = streaming), gradients clipped to `clipNorm` (0 = off):
 * phi = w - mu clip(grad Q(w; batch)). Run it with TrainClientWith. Throws ConfigError naming
 * "mu" or "batchSize".
 */
LocalTrainerConfig DiffusionAdaptConfig(double mu, std::size_t batchSize, double clipNorm);

// ------------------------------------------------------------------------------- release step

/// What one node sends and keeps in an iteration (buffers are reused between iterations).
struct NodeRelease
{
    bool broadcast{true};             ///< one message for every neighbour (SameForEveryReceiver)
    ParamVector message;              ///< the broadcast message phi_k + v_k (if broadcast)
    std::vector<ParamVector> perLink; ///< one message per neighbour, in `neighbors` order
    ParamVector kept;                 ///< phi_k + q_kk, the node's own (untransmitted) term
};

/**
 * The release step of node `node` (PerturbOutgoing of the design): BeginIteration with
 * Rng(NodeNoiseSeed(nodeSeed, iteration)); then, if the perturbation is SameForEveryReceiver, one
 * copy perturbed with Rng(LinkNoiseSeed(..., kBroadcastReceiver)), else one copy per neighbour
 * with Rng(LinkNoiseSeed(..., neighbour)); then the kept copy with Rng(LinkNoiseSeed(..., node)).
 * With `source` Sodium every one of these seeds comes from libsodium instead (NoiseSeed).
 * O(deg d) for per-link noise, O(d) otherwise.
 */
void ReleaseNodeMessages(Perturbation& perturbation,
                         const ParamVector& value,
                         uint32_t node,
                         const std::vector<uint32_t>& neighbors,
                         uint64_t nodeSeed,
                         uint32_t iteration,
                         NodeRelease& out,
                         NoiseSource source = NoiseSource::RunSeed);

// ------------------------------------------------------------------------------- combine step

/// What a node does with a neighbour whose message of this iteration is missing (lost or late).
enum class MissingMessagePolicy : uint8_t
{
    /// Use the last message received from that neighbour (stale), with its usual weight; if none
    /// was ever received, drop the term and renormalise as Renormalize.
    ReuseLast,
    /// Drop the missing terms and divide by the weight that remains (a_kk + sum of received a_lk).
    Renormalize,
    /// Skip the combination in this iteration: w_k = phi_k, the node's clean own value.
    Skip,
};

/// Name of a policy ("reuse-last", "renormalize", "skip").
const char* MissingMessagePolicyName(MissingMessagePolicy policy);

/// Parses a policy name; throws ConfigError naming `parameter` otherwise.
MissingMessagePolicy ParseMissingMessagePolicy(const std::string& name,
                                               const std::string& parameter);

/// One neighbour's term in a combination.
struct NeighborMessage
{
    uint32_t sender{0};                  ///< neighbour id l
    double weight{0.0};                  ///< a_lk >= 0
    const ParamVector* message{nullptr}; ///< this iteration's message, nullptr if missing
    const ParamVector* last{nullptr};    ///< the last message received from l (ReuseLast), or null
};

/// What a combination did.
struct CombineOutcome
{
    std::size_t missing{0}; ///< neighbours whose message of this iteration was missing
    std::size_t reused{0};  ///< of those, replaced by their last message (ReuseLast)
    double weightUsed{1.0}; ///< total weight of the terms combined, before renormalisation
    bool skipped{false};    ///< the combination was skipped (Skip)
};

/**
 * Combination (GHP eq. 16, GFL eq. 8):
 *   out = a_kk ownKept + sum_l a_lk message_l
 * when every message arrived; otherwise as `policy` says (see MissingMessagePolicy; with no
 * missing message every policy gives this same sum). `ownKept` is the node's perturbed own term
 * (NodeRelease::kept), `ownClean` its value before perturbation (used only by Skip). Terms are
 * accumulated in the order given in double or float as the vectors are. O(deg d), no copy
 * besides `out` (which must not alias a message). Throws ConfigError naming "weights" on a
 * negative or non-finite weight or a zero total weight, and "messages" on mismatched sizes or
 * precisions.
 */
CombineOutcome CombineMessages(const ParamVector& ownKept,
                               const ParamVector& ownClean,
                               double selfWeight,
                               const std::vector<NeighborMessage>& neighbors,
                               MissingMessagePolicy policy,
                               ParamVector& out);

// ------------------------------------------------------------------------------------ metrics

/**
 * Centroid drift of a combination step: || sum_k pi_k w_k - sum_k pi_k phi_k ||, the distance by
 * which the combination moved the (pi-weighted) network centroid from the centroid of the values
 * that were combined (`aggregates`: phi_k in diffusion, psi_p in GFL). pi is uniform if `weights`
 * is empty (doubly stochastic A), else weights / sum(weights) (e.g. PerronVector(A)). It is 0 up
 * to rounding for a column-stochastic A with no noise or graph-homomorphic noise when every
 * message arrives, (1/N)||sum_k q_k|| for i.i.d. broadcast noise, and shows the leak of broken
 * graph-homomorphic cancellation when messages are lost (it needs every neighbour to receive).
 * Computed in double, O(N d). Throws ConfigError on empty or mismatched inputs.
 */
double CentroidDrift(const std::vector<const ParamVector*>& models,
                     const std::vector<const ParamVector*>& aggregates,
                     const std::vector<double>& weights = {});

/**
 * Perron vector pi of a column-stochastic combination matrix (sum_l a_lk = 1 for every k):
 * A pi = pi, pi >= 0, sum pi = 1; for a doubly stochastic A it is 1/N. Under this convention
 * sum_k pi_k w_k = sum_l pi_l phi_l after a lossless noiseless combination. Throws ConfigError if
 * A is not square or has no eigenvalue 1 with a non-negative eigenvector.
 */
Eigen::VectorXd PerronVector(const Eigen::MatrixXd& A);

/**
 * Validates a combination matrix for perturbed diffusion or GFL: square with `nodes` rows,
 * doubly stochastic, connected, and for graph-homomorphic noise a_kk > 0 for every k. Throws
 * ConfigError naming `parameter` and, for a zero self-weight, the entry a_{k,k}.
 */
void ValidateCombinationMatrix(const Eigen::MatrixXd& A,
                               std::size_t nodes,
                               NodeNoiseKind noise,
                               const std::string& parameter = "combination matrix");

// ------------------------------------------------------------------- in-process exchange

/// Delivery of a message (iteration, sender, receiver): true if it arrives in time.
using DeliveryFunction =
    std::function<bool(uint32_t iteration, uint32_t sender, uint32_t receiver)>;

/**
 * The exchange and combination of one iteration over all nodes of a graph, in process: every
 * node releases its value (ReleaseNodeMessages with its own seed) and combines what arrives
 * (CombineMessages). Holds the per-node perturbations, message buffers and, for ReuseLast, the
 * last message received on every link. Both in-process runners use it; an ns-3 application calls
 * ReleaseNodeMessages and CombineMessages itself.
 */
class GraphExchange
{
  public:
    /**
     * @param A combination matrix (validated with ValidateCombinationMatrix)
     * @param noise every node's noise; graph-homomorphic noise uses a_kk
     * @param nodeSeeds one seed per node
     * @param policy what to do with missing messages
     * @param delivered which messages arrive (empty: all, ideal links)
     */
    GraphExchange(const Eigen::MatrixXd& A,
                  const NodeNoiseConfig& noise,
                  std::vector<uint64_t> nodeSeeds,
                  MissingMessagePolicy policy,
                  DeliveryFunction delivered = {});

    /**
     * One iteration: values[k] = phi_k (or psi_p) -> models[k] = w_k. Returns the number of
     * messages (sender, receiver) that did not arrive.
     */
    std::size_t Step(uint32_t iteration,
                     const std::vector<ParamVector>& values,
                     std::vector<ParamVector>& models);

    /// Neighbours of node k (a_lk > 0 or a_kl > 0, l != k), ascending.
    const std::vector<uint32_t>& Neighbors(uint32_t k) const
    {
        return m_neighbors.at(k);
    }

    /// The perturbation of node k.
    const Perturbation& NodePerturbation(uint32_t k) const
    {
        return *m_perturbations.at(k);
    }

    /// The release of node k in the last Step (kept term, messages).
    const NodeRelease& Release(uint32_t k) const
    {
        return m_releases.at(k);
    }

    /// Transmissions per iteration: one per broadcasting node, deg(k) per per-link node.
    std::size_t TransmissionsPerIteration() const;

  private:
    Eigen::MatrixXd m_A;
    std::vector<uint64_t> m_seeds;
    NoiseSource m_source; ///< where the node noise seeds come from
    MissingMessagePolicy m_policy;
    DeliveryFunction m_delivered;
    std::vector<std::vector<uint32_t>> m_neighbors;
    std::vector<std::vector<std::size_t>> m_indexAtSender; ///< [k][j]: index of k in sender's list
    std::vector<std::unique_ptr<Perturbation>> m_perturbations;
    std::vector<NodeRelease> m_releases;
    std::vector<std::vector<ParamVector>> m_last; ///< [k][j]: last message from neighbour j of k
    std::vector<std::vector<bool>> m_hasLast;
    std::vector<NeighborMessage> m_scratch;
};

// ---------------------------------------------------------------------- in-process runners

/// What a network runner reports after each iteration (and for iteration 0, the start).
struct NetworkIterationReport
{
    uint32_t iteration{0};                           ///< i (0 = initial models)
    const std::vector<ParamVector>* models{nullptr}; ///< w_{k,i} of every node
    const std::vector<ParamVector>* aggregates{
        nullptr};                         ///< phi_{k,i} (diffusion) / psi_{p,i} (GFL)
    const ParamVector* centroid{nullptr}; ///< w_{c,i} = (1/N) sum_k w_{k,i}
    double centroidMsd{0.0};              ///< ||w_c - w°||^2 (NaN without a reference)
    double averageMsd{0.0};               ///< (1/N) sum_k ||w_k - w°||^2 (NaN without a reference)
    double disagreement{0.0};             ///< (1/N) sum_k ||w_k - w_c||^2
    double centroidDrift{0.0};            ///< CentroidDrift(models, aggregates)
    double epsilonOneLink{0.0};    ///< eps of the releases so far against an eavesdropper on one
                                   ///< link (GraphPrivacyAccountant)
    double epsilonAllLinks{0.0};   ///< the same against an eavesdropper on all links of a node
    double epsilonNeighbour{0.0};  ///< the same against a neighbouring node (server or agent)
    std::size_t lostMessages{0};   ///< node-to-node messages missing in this iteration
    std::size_t droppedClients{0}; ///< GFL: sampled clients that dropped in this iteration
    /**
     * How far from doubly stochastic the weights given to this iteration's messages were
     * (StochasticityError of neighbour-discovery.h over the nodes' combinations: the largest
     * |a_ll + sum_k a_lk - 1| over senders l, the sum over the receivers that combined l's
     * message of this iteration): 0 up to rounding on a fixed doubly stochastic graph when every
     * message arrives; a lost message, or weights formed from stale knowledge of a changing
     * graph, leave part of a sender's graph-homomorphic noise in the network's average. NaN
     * where the nodes report no combination (the in-process runners).
     */
    double stochasticityError{std::numeric_limits<double>::quiet_NaN()};
};

/// Called by the runners after every iteration.
using NetworkIterationCallback = std::function<void(const NetworkIterationReport&)>;

/// What a network runner returns.
struct NetworkRunResult
{
    std::vector<ParamVector> models; ///< final w_k
    ParamVector centroid;            ///< final centroid
    double epsilonOneLink{0.0};      ///< final eps against an eavesdropper on one link
    double epsilonAllLinks{0.0};     ///< final eps against an eavesdropper on all links of a node
    double epsilonNeighbour{0.0};    ///< final eps against a neighbouring node
    std::size_t transmissions{0};    ///< node-to-node messages sent (all iterations)
    std::size_t lostMessages{0};     ///< of those, missing at the receiver
    std::size_t clientUploads{0};    ///< GFL: client uploads received by servers
    std::size_t droppedClients{0};   ///< GFL: sampled clients that dropped
    double flops{0.0};               ///< training FLOPs of all local steps
};

/// Settings of an in-process GHP diffusion run (the per-agent procedure of the GHP paper).
struct DiffusionConfig
{
    Eigen::MatrixXd combination; ///< A (K x K) for the task's K clients (= agents)
    double mu{0.1};              ///< step size mu
    std::size_t batchSize{1};    ///< samples per adapt step (1 = streaming SGD)
    double clipNorm{0.0};        ///< gradient clipping G (0 = off; eps is then infinite)
    NodeNoiseConfig noise; ///< none / iid (broadcast: the paper's baseline) / graph-homomorphic
    MissingMessagePolicy missingPolicy{MissingMessagePolicy::ReuseLast}; ///< for lost messages
    DeliveryFunction delivered; ///< which messages arrive (empty: ideal links)
    uint32_t iterations{100};   ///< iterations to run
    uint64_t seed{1};           ///< master seed: agents' seeds are DiffusionAgentSeed(seed, k)
    Eigen::VectorXd reference;  ///< w° for the MSD metrics (empty: NaN)
    double delta{1e-5};         ///< delta for Gaussian-noise accounting
};

/**
 * Runs GHP / perturbed ATC diffusion in process with ideal (or hooked) links: every agent k of
 * the task starts from the common w_0 (task.InitialParameters(Rng(InitialModelSeed(seed)))),
 * adapts with TrainClientWith(task, k, w_k, DiffusionAdaptConfig, Rng(DeriveSeed(agentSeed_k, i)))
 * and exchanges through GraphExchange. Throws ConfigError naming the bad setting (the matrix, its
 * a_{k,k} under graph-homomorphic noise, mu, ...).
 */
NetworkRunResult RunDiffusionInProcess(const LearningTask& task,
                                       const DiffusionConfig& config,
                                       const NetworkIterationCallback& onIteration = {});

/**
 * Fills the metric fields of `report` (centroid, MSDs, disagreement, drift) from `models` and
 * `aggregates`, in double, O(N d); `centroid` receives the centroid. The runners use it; a
 * network-mode monitor can too.
 */
void FillNetworkMetrics(const std::vector<ParamVector>& models,
                        const std::vector<ParamVector>& aggregates,
                        const Eigen::VectorXd& reference,
                        ParamVector& centroid,
                        NetworkIterationReport& report);

/**
 * The end of one iteration of a network runner (RunDiffusionInProcess, RunGflInProcess): when
 * `onIteration` is set, stamps `report` with the iteration, the messages lost, the clients
 * dropped and both epsilons of `privacy` (0 if null), fills its metrics (FillNetworkMetrics, `centroid` receives the centroid)
 * and calls `onIteration`; otherwise does nothing.
 */
void ReportNetworkIteration(const NetworkIterationCallback& onIteration,
                            uint32_t iteration,
                            std::size_t lostMessages,
                            std::size_t droppedClients,
                            const GraphPrivacyAccountant* privacy,
                            const std::vector<ParamVector>& models,
                            const std::vector<ParamVector>& aggregates,
                            const Eigen::VectorXd& reference,
                            ParamVector& centroid,
                            NetworkIterationReport& report);

/**
 * The end of a network run: result.centroid (FillNetworkMetrics of the final models),
 * result.epsilonOneLink, result.epsilonAllLinks, result.epsilonNeighbour and result.models (moved
 * from `models`).
 */
void FinishNetworkRun(std::vector<ParamVector>& models,
                      const std::vector<ParamVector>& aggregates,
                      const Eigen::VectorXd& reference,
                      const GraphPrivacyAccountant& privacy,
                      NetworkRunResult& result);

/**
 * The privacy accountant of the nodes of a graph with combination matrix A whose releases carry
 * `noise` (node 0's mechanism and scale; with its self-weight a_00 for graph-homomorphic noise;
 * every node's neighbours from A): GraphPrivacyAccountant with step size mu, l2 gradient bound G
 * (0 = not clipped: eps infinite), model dimension M and delta. Throws ConfigError as
 * MakeNodePerturbation.
 */
GraphPrivacyAccountant MakeGraphPrivacyAccountant(const Eigen::MatrixXd& combination,
                                                  const NodeNoiseConfig& noise,
                                                  double mu,
                                                  double gradientBound,
                                                  std::size_t dim,
                                                  double delta);

} // namespace fl
} // namespace ns3

#endif // FL_DIFFUSION_H
