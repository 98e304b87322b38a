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

} // namespace fl
} // namespace ns3

#endif // FL_FEDAVG_H
