/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ns3/partition.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace ns3
{
namespace fl
{

namespace
{

/// Throws ConfigError unless 0 < clients <= samples.
void
CheckClients(std::size_t samples, std::size_t clients)
{
    if (clients == 0)
    {
        throw ConfigError("clients", "must be positive, got 0", "use at least one client");
    }
    if (clients > samples)
    {
        throw ConfigError("clients",
                          std::to_string(clients) + " clients but only " + std::to_string(samples) +
                              " samples (a client would get none)",
                          "use at most as many clients as samples");
    }
}

/// Throws ConfigError unless the data set carries class labels.
template <typename S>
void
CheckLabelled(const Dataset<S>& data, const std::string& parameter)
{
    if (data.kind == TargetKind::Regression)
    {
        throw ConfigError(parameter,
                          "label-based partitioning needs class labels, the data set is a "
                          "regression set",
                          "use PartitionIid or PartitionUnequal for regression data");
    }
}

/// Number of classes of a labelled data set (numClasses, or max label + 1 if unset).
template <typename S>
std::size_t
ClassCount(const Dataset<S>& data)
{
    int classes = data.kind == TargetKind::BinarySigned ? 2 : data.numClasses;
    if (classes <= 0)
    {
        for (std::size_t i = 0; i < data.Size(); ++i)
        {
            classes = std::max(classes, data.Label(i) + 1);
        }
    }
    return static_cast<std::size_t>(std::max(classes, 0));
}

/// Class of sample i, checked against the class count.
template <typename S>
std::size_t
CheckedLabel(const Dataset<S>& data, std::size_t i, std::size_t classes)
{
    const int label = data.Label(i);
    if (label < 0 || static_cast<std::size_t>(label) >= classes)
    {
        throw ConfigError("data",
                          "label " + std::to_string(label) + " of sample " + std::to_string(i) +
                              " is outside 0.." + std::to_string(classes) + "-1",
                          "set numClasses to the number of classes, labels 0..C-1");
    }
    return static_cast<std::size_t>(label);
}

/// Shuffles 0..n-1 and cuts it into consecutive parts of the given sizes.
Partition
DealShuffled(const std::vector<std::size_t>& sizes, std::size_t n, Rng& rng)
{
    std::vector<std::size_t> idx(n);
    std::iota(idx.begin(), idx.end(), 0);
    std::shuffle(idx.begin(), idx.end(), rng);
    Partition part(sizes.size());
    std::size_t pos = 0;
    for (std::size_t k = 0; k < sizes.size(); ++k)
    {
        part[k].assign(idx.begin() + pos, idx.begin() + pos + sizes[k]);
        pos += sizes[k];
    }
    return part;
}

} // namespace

Partition
PartitionIid(std::size_t samples, std::size_t clients, Rng& rng)
{
    CheckClients(samples, clients);
    std::vector<std::size_t> sizes(clients, samples / clients);
    for (std::size_t k = 0; k < samples % clients; ++k)
    {
        ++sizes[k];
    }
    return DealShuffled(sizes, samples, rng);
}

template <typename S>
Partition
PartitionShards(const Dataset<S>& data, std::size_t clients, std::size_t shardsPerClient, Rng& rng)
{
    CheckLabelled(data, "data");
    const std::size_t n = data.Size();
    CheckClients(n, clients);
    if (shardsPerClient == 0)
    {
        throw ConfigError("shardsPerClient",
                          "must be positive, got 0",
                          "use e.g. 2 (McMahan et al.)");
    }
    if (shardsPerClient > n / clients)
    {
        throw ConfigError("shardsPerClient",
                          std::to_string(clients) + " clients x " +
                              std::to_string(shardsPerClient) + " shards exceed the " +
                              std::to_string(n) + " samples (a shard would be empty)",
                          "use fewer shards per client or fewer clients");
    }
    const std::size_t classes = ClassCount(data);

    // Sort by label; ties keep index order, so the result depends only on the Rng below.
    std::vector<std::size_t> labels(n);
    for (std::size_t i = 0; i < n; ++i)
    {
        labels[i] = CheckedLabel(data, i, classes);
    }
    std::vector<std::size_t> order(n);
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&labels](std::size_t a, std::size_t b) {
        return labels[a] < labels[b];
    });

    // Shard s covers order[start[s], start[s+1]); when the shard count does not divide n, the
    // first n mod shards shards hold one extra sample, so every index is used exactly once.
    const std::size_t shards = clients * shardsPerClient;
    std::vector<std::size_t> start(shards + 1, 0);
    for (std::size_t s = 0; s < shards; ++s)
    {
        start[s + 1] = start[s] + n / shards + (s < n % shards ? 1 : 0);
    }

    std::vector<std::size_t> shardIds(shards);
    std::iota(shardIds.begin(), shardIds.end(), 0);
    std::shuffle(shardIds.begin(), shardIds.end(), rng);

    Partition part(clients);
    for (std::size_t k = 0; k < clients; ++k)
    {
        for (std::size_t j = 0; j < shardsPerClient; ++j)
        {
            const std::size_t s = shardIds[k * shardsPerClient + j];
            part[k].insert(part[k].end(), order.begin() + start[s], order.begin() + start[s + 1]);
        }
    }
    return part;
}

template <typename S>
Partition
PartitionDirichlet(const Dataset<S>& data, std::size_t clients, double alpha, Rng& rng)
{
    CheckLabelled(data, "data");
    if (clients == 0)
    {
        throw ConfigError("clients", "must be positive, got 0", "use at least one client");
    }
    if (!(alpha > 0.0) || !std::isfinite(alpha))
    {
        throw ConfigError("alpha",
                          "must be finite and positive, got " + std::to_string(alpha),
                          "use e.g. 0.1 (strong skew) to 100 (nearly IID)");
    }
    const std::size_t n = data.Size();
    const std::size_t classes = ClassCount(data);
    std::vector<std::vector<std::size_t>> byClass(classes);
    for (std::size_t i = 0; i < n; ++i)
    {
        byClass[CheckedLabel(data, i, classes)].push_back(i);
    }

    Partition part(clients);
    std::gamma_distribution<double> gamma(alpha, 1.0);
    std::vector<double> p(clients);
    for (auto& members : byClass)
    {
        // Which samples of the class go to which client must not depend on the file order.
        std::shuffle(members.begin(), members.end(), rng);

        // p ~ Dir(alpha 1): normalised independent Gamma(alpha, 1) draws.
        double sum = 0.0;
        for (auto& g : p)
        {
            g = gamma(rng);
            sum += g;
        }
        if (!(sum > 0.0) || !std::isfinite(sum))
        {
            // Every draw underflowed (possible only for tiny alpha): use the alpha -> 0 limit
            // of the Dirichlet, a one-hot vector at a uniformly chosen client.
            std::fill(p.begin(), p.end(), 0.0);
            p[std::uniform_int_distribution<std::size_t>(0, clients - 1)(rng)] = 1.0;
            sum = 1.0;
        }

        // Client k receives members[cut_{k-1}, cut_k) with cut_k = round(n_c * sum_{j<=k} p_j).
        const auto nc = static_cast<double>(members.size());
        double cumulative = 0.0;
        std::size_t begin = 0;
        for (std::size_t k = 0; k < clients; ++k)
        {
            cumulative += p[k];
            std::size_t end = k + 1 == clients
                                  ? members.size()
                                  : static_cast<std::size_t>(std::llround(nc * cumulative / sum));
            end = std::min(std::max(end, begin), members.size());
            part[k].insert(part[k].end(), members.begin() + begin, members.begin() + end);
            begin = end;
        }
    }
    return part;
}

Partition
PartitionUnequal(std::size_t samples,
                 std::size_t clients,
                 double sigma,
                 std::size_t minSamples,
                 Rng& rng)
{
    if (clients == 0)
    {
        throw ConfigError("clients", "must be positive, got 0", "use at least one client");
    }
    if (!(sigma >= 0.0) || !std::isfinite(sigma))
    {
        throw ConfigError("sigma",
                          "must be finite and non-negative, got " + std::to_string(sigma),
                          "use 0 for equal sizes or e.g. 1 for strongly unequal sizes");
    }
    if (minSamples > samples / clients)
    {
        throw ConfigError("minSamples",
                          std::to_string(clients) + " clients x " + std::to_string(minSamples) +
                              " samples exceed the " + std::to_string(samples) + " samples",
                          "lower minSamples to at most " + std::to_string(samples / clients));
    }

    // Log-normal weights w_k = exp(sigma z_k), z_k ~ N(0, 1).
    std::normal_distribution<double> normal(0.0, 1.0);
    std::vector<double> w(clients);
    double total = 0.0;
    for (auto& wk : w)
    {
        wk = std::exp(sigma * normal(rng));
        total += wk;
    }
    if (!std::isfinite(total) || !(total > 0.0))
    {
        // Overflow or underflow for huge sigma: the largest weights take everything.
        const double top = *std::max_element(w.begin(), w.end());
        for (auto& wk : w)
        {
            wk = wk == top ? 1.0 : 0.0;
        }
        total = std::accumulate(w.begin(), w.end(), 0.0);
    }

    // The samples above the guaranteed minimum are shared in proportion to the weights by the
    // largest-remainder method, so that the sizes add up to `samples` exactly.
    const std::size_t spare = samples - clients * minSamples;
    std::vector<std::size_t> sizes(clients);
    std::vector<double> remainder(clients);
    std::size_t assigned = 0;
    for (std::size_t k = 0; k < clients; ++k)
    {
        const double quota = static_cast<double>(spare) * w[k] / total;
        const auto base = std::min(static_cast<std::size_t>(std::floor(quota)), spare - assigned);
        sizes[k] = base;
        remainder[k] = quota - static_cast<double>(base);
        assigned += base;
    }
    std::vector<std::size_t> byRemainder(clients);
    std::iota(byRemainder.begin(), byRemainder.end(), 0);
    std::stable_sort(
        byRemainder.begin(),
        byRemainder.end(),
        [&remainder](std::size_t a, std::size_t b) { return remainder[a] > remainder[b]; });
    for (std::size_t j = 0; assigned < spare; j = (j + 1) % clients)
    {
        ++sizes[byRemainder[j]];
        ++assigned;
    }
    for (auto& s : sizes)
    {
        s += minSamples;
    }
    return DealShuffled(sizes, samples, rng);
}

template <typename S>
std::vector<std::vector<std::size_t>>
LabelCounts(const Dataset<S>& data, const Partition& part)
{
    CheckLabelled(data, "data");
    const std::size_t classes = ClassCount(data);
    std::vector<std::vector<std::size_t>> counts(part.size(), std::vector<std::size_t>(classes, 0));
    for (std::size_t k = 0; k < part.size(); ++k)
    {
        for (const std::size_t i : part[k])
        {
            if (i >= data.Size())
            {
                throw ConfigError("part",
                                  "client " + std::to_string(k) + " holds index " +
                                      std::to_string(i) + ", beyond the " +
                                      std::to_string(data.Size()) + " samples",
                                  "pass the partition of this data set");
            }
            ++counts[k][CheckedLabel(data, i, classes)];
        }
    }
    return counts;
}

#define FL_INSTANTIATE_PARTITION(S)                                                                \
    template Partition PartitionShards<S>(const Dataset<S>&, std::size_t, std::size_t, Rng&);      \
    template Partition PartitionDirichlet<S>(const Dataset<S>&, std::size_t, double, Rng&);        \
    template std::vector<std::vector<std::size_t>> LabelCounts<S>(const Dataset<S>&,               \
                                                                  const Partition&);

FL_INSTANTIATE_PARTITION(double)
FL_INSTANTIATE_PARTITION(float)

} // namespace fl
} // namespace ns3
