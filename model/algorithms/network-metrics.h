/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Network-wide metrics over the models held by the nodes of a decentralised system: centroid,
 * MSD of a model in dB, average individual MSD in dB and disagreement (as in the GHP and GFL
 * papers).
 */
#ifndef FL_NETWORK_METRICS_H
#define FL_NETWORK_METRICS_H

#include "ns3/fl-types.h"

#include <vector>

namespace ns3
{
namespace fl
{

// Every function reads the models through pointers (no copies), runs in O(N d) time for N
// models of d parameters and throws ConfigError on an empty set or mismatched sizes.

/**
 * Network centroid w_c = (1/N) sum_k w_k, or the weighted mean sum_k (p_k / sum_j p_j) w_k if
 * `weights` is given (one non-negative weight per model); see WeightedAverage in fedavg.h.
 */
template <typename S>
Vec<S> Centroid(const std::vector<const Vec<S>*>& models, const std::vector<double>& weights = {});

/// MSD of one model in dB: 10 log10 ||w - w_opt||^2 (-inf when w = w_opt).
template <typename S>
double MsdDb(const Vec<S>& w, const Eigen::VectorXd& wOpt);

/// Average individual MSD in dB: 10 log10 ((1/N) sum_k ||w_k - w_opt||^2).
template <typename S>
double AverageMsdDb(const std::vector<const Vec<S>*>& models, const Eigen::VectorXd& wOpt);

/// Disagreement (1/N) sum_k ||w_k - w_c||^2 about w_c = Centroid(models), summed in double.
template <typename S>
double Disagreement(const std::vector<const Vec<S>*>& models);

} // namespace fl
} // namespace ns3

#endif // FL_NETWORK_METRICS_H
