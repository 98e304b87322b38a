/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * FedAvg aggregation (McMahan et al. 2017): sample-weighted average of client models.
 */
#ifndef FL_FEDAVG_H
#define FL_FEDAVG_H

#include "ns3/param-vector.h"

#include <cstdint>
#include <functional>
#include <vector>

namespace ns3
{
namespace fl
{

/**
 * w = sum_k (n_k / sum_j n_j) w_k, accumulated in the order given (the order fixes the
 * floating-point result; callers sort contributions by client id for reproducibility).
 * Throws ConfigError on an empty set, mismatched sizes or precisions, or non-positive total weight.
 */
template <typename S>
Vec<S> WeightedAverage(const std::vector<const Vec<S>*>& models,
                       const std::vector<double>& weights);

/// FedAvg over ParamVectors of one precision; see WeightedAverage.
ParamVector FedAvgAggregate(const std::vector<const ParamVector*>& models,
                            const std::vector<double>& weights);

/**
 * Server momentum (FedAvgM, Hsu et al. 2019), applied after averaging:
 *   delta = w - avg;  velocity <- beta * velocity + delta;  w <- w - eta * velocity.
 * With beta = 0 and eta = 1 this is w <- avg (up to rounding; callers that want plain FedAvg
 * bit for bit use the average directly). `velocity` starts as zeros of w's size (it is resized
 * and zeroed if empty). Throws ConfigError on mismatched sizes or precisions, eta <= 0 or
 * beta outside [0, 1).
 */
template <typename S>
void ServerMomentumStep(Vec<S>& w, const Vec<S>& avg, Vec<S>& velocity, double beta, double eta);

/// ServerMomentumStep on ParamVectors of one precision.
void ServerMomentumStep(ParamVector& w,
                        const ParamVector& avg,
                        ParamVector& velocity,
                        double beta,
                        double eta);

/**
 * Staleness discount of an update trained on a global model `staleness` rounds old (FedAsync's
 * polynomial rule, Xie et al. 2019): (1 + staleness)^(-exponent). exponent = 0 gives 1 (no
 * discount). Throws ConfigError naming "StalenessExponent" if exponent < 0 or is not finite.
 */
double StalenessWeight(uint32_t staleness, double exponent);

/**
 * Brings a stale client model into the current round: the client's update (its change of the
 * model, w_k - base) applied to the current global model,
 *
 *     w~_k = current + (w_k - base),
 *
 * where base is the global model the client trained from. FedAvg of fresh models w_j and
 * translated stale models w~_k then equals current + sum_i p_i (update_i), i.e. the average of
 * all updates applied to the current model. All three vectors must have the same precision and
 * size (ConfigError otherwise). For base == current it returns w_k exactly.
 */
ParamVector TranslateStaleModel(const ParamVector& clientModel,
                                const ParamVector& base,
                                const ParamVector& current);

/**
 * Draws `count` distinct items of `pool` without replacement, each draw choosing among the
 * remaining items with probability proportional to its weight (successive sampling; with equal
 * weights this is uniform sampling). `uniform01` returns independent draws in [0, 1); exactly
 * `count` draws are made (none if count >= pool size: then the whole pool is returned).
 * Returns the chosen items sorted ascending. Throws ConfigError if the sizes differ or a weight
 * is negative or not finite, or if all remaining weights are zero while items are still needed.
 */
std::vector<uint32_t> WeightedSampleWithoutReplacement(const std::vector<uint32_t>& pool,
                                                       const std::vector<double>& weights,
                                                       std::size_t count,
                                                       const std::function<double()>& uniform01);

/**
 * One update considered by a round's aggregation (see AggregateRound).
 */
struct RoundUpdate
{
    const ParamVector* model{nullptr}; ///< the client's model w_k after local training
    const ParamVector* base{nullptr};  ///< the global model it trained from (needed if stale)
    double sampleCount{0.0};           ///< n_k, the client's announced sample count
    uint32_t staleness{0};             ///< rounds between base and the current round (0 = fresh)
};

/**
 * Server-side settings of a round's aggregation.
 */
struct RoundAggregationConfig
{
    double stalenessExponent{0.5};  ///< a in (1 + s)^-a (StalenessWeight)
    double serverMomentum{0.0};     ///< FedAvgM beta in [0, 1) (0 = plain FedAvg)
    double serverLearningRate{1.0}; ///< FedAvgM eta > 0
};

/**
 * The aggregation of one synchronous FedAvg round, as the server applies it:
 *   weight_k = n_k * (1 + s_k)^-a                      (StalenessWeight; s_k = 0: n_k)
 *   w~_k     = w_cur + (w_k - base_k) if s_k > 0 else w_k   (TranslateStaleModel)
 *   avg      = sum_k weight_k w~_k / sum_k weight_k      (FedAvgAggregate, in the given order)
 *   w_new    = avg if beta = 0 and eta = 1, else ServerMomentumStep(w_cur, avg, velocity).
 * Updates are accumulated in the order given (callers sort them by client id so that the result
 * does not depend on arrival order). `weightsOut` (optional) receives weight_k. Throws
 * ConfigError on empty updates, mismatched sizes/precisions, a stale update without base, or
 * invalid settings.
 */
ParamVector AggregateRound(const ParamVector& current,
                           const std::vector<RoundUpdate>& updates,
                           const RoundAggregationConfig& config,
                           ParamVector& velocity,
                           std::vector<double>* weightsOut = nullptr);

/**
 * Client selection of a round: `count` of `pool` (all of it if count = 0 or count >= pool
 * size). Uniform (empty `weights`): a partial Fisher-Yates shuffle drawing
 * j = uniformInt(i, pool size - 1) for i = 0 .. count - 1. Weighted:
 * WeightedSampleWithoutReplacement with `uniform01`. Returns the chosen items sorted ascending.
 */
std::vector<uint32_t> SampleClients(
    std::vector<uint32_t> pool,
    const std::vector<double>& weights,
    std::size_t count,
    const std::function<uint32_t(uint32_t lo, uint32_t hi)>& uniformInt,
    const std::function<double()>& uniform01);

} // namespace fl
} // namespace ns3

#endif // FL_FEDAVG_H
