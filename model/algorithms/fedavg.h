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

} // namespace fl
} // namespace ns3

#endif // FL_FEDAVG_H
