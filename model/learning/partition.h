/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Partitioners: how a data set is split among clients.
 */
#ifndef FL_PARTITION_H
#define FL_PARTITION_H

#include "ns3/dataset.h"

#include <vector>

namespace ns3
{
namespace fl
{

/// Per-client lists of sample indices into the partitioned data set.
using Partition = std::vector<std::vector<std::size_t>>;

/**
 * IID: shuffles the indices and deals them into `clients` parts of equal size (the first
 * n mod clients parts get one more). Every index appears exactly once.
 */
Partition PartitionIid(std::size_t samples, std::size_t clients, Rng& rng);

/**
 * Label shards (McMahan et al.): sorts samples by label, cuts them into clients * shardsPerClient
 * shards of equal size, and gives each client `shardsPerClient` random shards.
 */
template <typename S>
Partition PartitionShards(const Dataset<S>& data,
                          std::size_t clients,
                          std::size_t shardsPerClient,
                          Rng& rng);

/**
 * Dirichlet label skew: for every class c, draws proportions p ~ Dir(alpha * 1_clients) and
 * splits that class's samples among clients by p. Small alpha = strong skew. Every index
 * appears exactly once. Requires alpha > 0.
 */
template <typename S>
Partition PartitionDirichlet(const Dataset<S>& data, std::size_t clients, double alpha, Rng& rng);

/**
 * Unequal sizes, IID content: client sizes proportional to weights drawn from a log-normal
 * with parameter sigma (sigma = 0 gives equal sizes); every client gets at least minSamples.
 */
Partition PartitionUnequal(std::size_t samples,
                           std::size_t clients,
                           double sigma,
                           std::size_t minSamples,
                           Rng& rng);

/// Number of samples of each class held by each client (clients x classes).
template <typename S>
std::vector<std::vector<std::size_t>> LabelCounts(const Dataset<S>& data, const Partition& part);

} // namespace fl
} // namespace ns3

#endif // FL_PARTITION_H
