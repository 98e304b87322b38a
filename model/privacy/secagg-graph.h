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
    /// gamma: fraction of the roster the adversary controls, [0, 1)
    double corruptFraction{0.05};
    double dropoutFraction{0.05}; ///< delta: fraction of clients that drop out, [0, 1)
    /**
     * True: the server may deviate from the protocol (an active server: per-client consistency
     * needs 2t > (k + 1) + corrupt holders); false: an honest-but-curious server (t > corrupt
     * holders).
     */
    bool activeServer{true};
    double securityBits{40.0};    ///< sigma: privacy fails with probability < 2^-sigma
    double correctnessBits{20.0}; ///< eta: the sum is lost with probability < 2^-eta
};

/// The degree and threshold SecAggPlusParameters chose, with the bounds it met.
struct SecAggPlusChoice
{
    uint32_t neighbours{0};       ///< k (even); k >= n - 1 means the complete graph
    uint32_t threshold{0};        ///< t, out of the k + 1 holders (the k neighbours and self)
    uint32_t corruptHolders{0};   ///< t1: corrupt holders of one client allowed (n_C per client)
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
 * fewer corrupt holders than the protocol can afford, (iii) every client has at least t
 * surviving neighbours. We could not reconstruct the paper's own equation numbers for its
 * Harary-graph parameter search, so the bounds used are stated here in full:
 *  - B = floor(gamma n) + floor(delta n) bad (corrupt or dropped) clients at random places of
 *    the ring. Removing a set disconnects H(n, k), k even, only if it covers k/2 consecutive ring
 *    places at two disjoint gaps; a union bound over the n (n - k - 1) / 2 gap pairs gives
 *      Pr[disconnected] <= n (n - k - 1) / 2 * B! (n - k)! / (n! (B - k)!)   (0 if B < k),
 *    required below 2^-(sigma + 1).
 *  - The corrupt neighbours of a client are hypergeometric (population n, floor(gamma n)
 *    successes, k draws); t1 is the smallest value they exceed with probability at most
 *    2^-(sigma + 1) / n (a union bound over the n clients). A client's holders are its k
 *    neighbours and itself (h = k + 1), so t1 also bounds its corrupt holders. Honest-but-curious
 *    server: t >= t1 + 1 (the colluders alone hold fewer than t shares). Active server: 2t >=
 *    h + t1 + 1, i.e. 2t - (k + 1) > t1, so that two survivor lists cannot both be certified by
 *    t holders of one client (each honest holder signs one list); this also gives t > t1.
 *  - The surviving neighbours are hypergeometric (n, ceil((1 - delta) n), k); t2 is the
 *    largest value with Pr[survivors < t2] <= 2^-eta / n; t must be <= t2.
 *  - t - t1 >= 2 and 2t > k + 1 always.
 * k runs over the even values from 2; the first k meeting every bound is returned with the
 * smallest admissible t. If none below n - 1 does, `complete` is set, k = n - 1, t1 =
 * floor(gamma n) and t is the smallest admissible threshold of the complete graph (2t > n + t1).
 * The graph must be random with respect to the corrupt clients: SecAggGraphSeed takes it from a
 * beacon that the server cannot choose (secagg-beacon.h).
 * Throws ConfigError naming "clients" (n < 3), "corruptFraction", "dropoutFraction",
 * "securityBits"/"correctnessBits" (not positive), or "dropoutFraction" when even the complete
 * graph cannot meet the bounds (too many dropouts or corrupt clients for the threshold).
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
