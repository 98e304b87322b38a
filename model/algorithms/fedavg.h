/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * FedAvg aggregation (McMahan et al. 2017): sample-weighted average of client models.
 */
#ifndef FL_FEDAVG_H
#define FL_FEDAVG_H

#include "ns3/param-vector.h"

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

} // namespace fl
} // namespace ns3

#endif // FL_FEDAVG_H
