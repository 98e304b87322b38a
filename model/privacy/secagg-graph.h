/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Communication graphs of secure aggregation, pure (no ns-3 header): the complete graph of
 * Bonawitz et al., "Practical Secure Aggregation for Privacy-Preserving Machine Learning", ACM
 * CCS 2017 (every client masks with and shares to every other client), and the random Harary
 * graph of SecAgg+: Bell, Bonawitz, Gascón, Lepoint and Raykova, "Secure Single-Server
 * Aggregation with (Poly)Logarithmic Overhead", ACM CCS 2020, where each client masks with and
 * shares to only its k neighbours, with k = O(log n).
 */
#ifndef FL_SECAGG_GRAPH_H
#define FL_SECAGG_GRAPH_H

#include "ns3/fl-types.h"

#include <cstdint>
#include <vector>

namespace ns3
{
namespace fl
{

/**
 * The clients a client of a random Harary graph H(n, k) is connected to (Bell et al. 2020,
 * random Harary graph): the n clients (`clients`, ascending ids) are placed on a ring in the
 * order of a permutation drawn from `graphSeed` (Fisher-Yates with uniform draws from the
 * ChaCha20 key stream keyed by BLAKE2b-256("fl-secagg-harary" || graphSeed (u64 LE)), the same on
 * every platform), and each is connected to the k/2 clients on either side. For k >= n - 1 this
 * is the complete graph. Returns the neighbours of `self`, ascending, without `self`.
 * Throws ConfigError naming "neighbours" unless k is even and 2 <= k, "clients" if `self` is not
 * in `clients` or the list is not strictly ascending.
 */
std::vector<uint32_t> HararyNeighbours(const std::vector<uint32_t>& clients,
                                       uint32_t k,
                                       uint64_t graphSeed,
                                       uint32_t self);

/// The whole graph at once: neighbours of every client, in the order of `clients`.
std::vector<std::vector<uint32_t>> HararyGraph(const std::vector<uint32_t>& clients,
                                               uint32_t k,
                                               uint64_t graphSeed);

/**
 * Threat model of the SecAgg+ parameter choice.
 */
struct SecAggPlusThreat
{
    double corruptFraction{0.0};  ///< gamma: fraction of clients the adversary controls, [0, 1)
    double dropoutFraction{0.05}; ///< delta: fraction of clients that drop out, [0, 1)
    /// True: the server may deviate (semi-malicious, needs 2t > k + corrupt neighbours);
    /// false: honest-but-curious server (needs t > corrupt neighbours).
    bool semiMalicious{true};
    double securityBits{40.0};    ///< sigma: privacy fails with probability < 2^-sigma
    double correctnessBits{20.0}; ///< eta: the sum is lost with probability < 2^-eta
};

/// The degree and threshold SecAggPlusParameters chose, with the bounds it met.
struct SecAggPlusChoice
{
    uint32_t neighbours{0};       ///< k (even); k >= n - 1 means the complete graph
    uint32_t threshold{0};        ///< t, out of the k + 1 holders (the k neighbours and self)
    bool complete{false};         ///< no k < n - 1 met the bounds: use the complete graph
    double log2Disconnected{0.0}; ///< log2 of the bound on Pr[honest survivors disconnected]
    double log2TooManyCorrupt{
        0.0}; ///< log2 of the bound on Pr[some node's corrupt neighbours too many]
    double log2TooFewSurvivors{
        0.0}; ///< log2 of the bound on Pr[some node < t surviving neighbours]
};

/**
 * SecAgg+ degree k and threshold t for n clients (Bell et al. 2020). The paper shows that the
 * protocol on a graph is private and correct when the graph is "good" for the sets of corrupt
 * and dropped clients: (i) the honest surviving clients stay connected, (ii) every client has
 * fewer than t corrupt neighbours (semi-malicious server: 2t - k exceeds them), (iii) every client
 * has at least t surviving neighbours. We could not reconstruct the paper's own equation
 * numbers for its Harary-graph parameter search, so the bounds used are stated here in full:
 *  - B = floor(gamma n) + floor(delta n) bad (corrupt or dropped) clients at random places of
 *    the ring. Removing a set disconnects H(n, k), k even, only if it covers k/2 consecutive ring
 *    places at two disjoint gaps; a union bound over the n (n - k - 1) / 2 gap pairs gives
 *      Pr[disconnected] <= n (n - k - 1) / 2 * B! (n - k)! / (n! (B - k)!)   (0 if B < k),
 *    required below 2^-(sigma + 1).
 *  - The corrupt neighbours of a client are hypergeometric (population n, floor(gamma n)
 *    successes, k draws); t1 is the smallest value they exceed with probability at most
 *    2^-(sigma + 1) / n (a union bound over the n clients). Honest-but-curious: t >= t1 + 1;
 *    semi-malicious: 2t - k >= t1 + 1.
 *  - The surviving neighbours are hypergeometric (n, ceil((1 - delta) n), k); t2 is the
 *    largest value with Pr[survivors < t2] <= 2^-eta / n; t must be <= t2.
 *  - Our protocol always asks for a majority of the k + 1 holders (2t > k + 1), which is what the
 *    consistency check needs against a server that shows different clients different survivor
 *    lists; and t >= 2.
 * k runs over the even values from 2; the first k meeting every bound is returned with the
 * smallest admissible t. If none below n - 1 does, `complete` is set, k = n - 1 and t is the
 * smallest admissible majority threshold of the complete graph.
 * Throws ConfigError naming "clients" (n < 3), "corruptFraction", "dropoutFraction",
 * "securityBits"/"correctnessBits" (not positive), or "dropoutFraction" when even the complete
 * graph cannot meet the bounds (too many dropouts for a majority threshold).
 */
SecAggPlusChoice SecAggPlusParameters(uint32_t n, const SecAggPlusThreat& threat = {});

/**
 * log Pr[X <= x] for X hypergeometric (population N, K successes, m draws): exact sum of the
 * probability mass in log space (lgamma). Exposed for tests.
 */
double LogHypergeometricCdf(uint32_t N, uint32_t K, uint32_t m, int64_t x);

} // namespace fl
} // namespace ns3

#endif // FL_SECAGG_GRAPH_H
