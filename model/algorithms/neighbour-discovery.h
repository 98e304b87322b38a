/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Neighbour discovery for decentralised learning over nodes that move (pure; no ns-3 header):
 * what a node knows of its neighbours from the hello messages it hears, and the Metropolis
 * weights it can compute from that knowledge alone.
 *
 * A hello carries the sender, its degree (how many symmetric neighbours it knows) and the nodes
 * it hears. Node k counts l as a neighbour when it heard a hello of l within the timeout (the
 * link l -> k works) and that hello lists k (l hears k: the link is symmetric). From its
 * neighbours' announced degrees it forms its own column of Metropolis weights,
 * a_lk = 1 / max(n_l, n_k) with n = degree + 1, a_kk = 1 - sum_{l != k} a_lk (the rule of
 * fl::MetropolisWeights, graph.h). When every node knows the same symmetric graph the columns
 * make the doubly stochastic Metropolis matrix; when the graph changes faster than the hellos
 * tell, a sender's message is weighted by its receivers with weights that no longer sum to 1
 * (StochasticityError), and the network's average drifts.
 */
#ifndef FL_NEIGHBOUR_DISCOVERY_H
#define FL_NEIGHBOUR_DISCOVERY_H

#include <cstddef>
#include <cstdint>
#include <map>
#include <vector>

namespace ns3
{
namespace fl
{

/// A hello message.
struct Hello
{
    uint32_t sender{0};          ///< the sending node
    uint32_t degree{0};          ///< its symmetric neighbours, as it knows them
    std::vector<uint32_t> heard; ///< the nodes it hears (ascending)
};

/// The most nodes a hello may list (a larger declared count is malformed).
constexpr std::size_t kMaxHelloNeighbours = 4096;

/// The bytes of a hello: magic, sender, degree, count (4 bytes each, little endian), the ids.
std::vector<uint8_t> PackHello(const Hello& hello);

/**
 * Reads a hello; false (hello untouched) unless the bytes are exactly one well-formed hello: the
 * magic, a count of at most kMaxHelloNeighbours that matches the length, ids ascending and none
 * equal to the sender, a degree at most the count. Allocates only after the length is checked.
 */
bool UnpackHello(const std::vector<uint8_t>& bytes, Hello& hello);

/**
 * What one node knows of its neighbours: the last hello of every node it heard, forgotten after
 * `timeout` seconds.
 */
class NeighbourTable
{
  public:
    /// Node `self`'s table; throws ConfigError naming "timeout" unless timeout > 0.
    NeighbourTable(uint32_t self, double timeout);

    /// A hello heard at time `now` [s] (its own hellos are ignored).
    void Heard(const Hello& hello, double now);
    /// Forgets the nodes not heard within the timeout before `now`.
    void Expire(double now);

    /// The nodes heard within the timeout before `now` (ascending).
    std::vector<uint32_t> HeardNodes(double now) const;
    /// The symmetric neighbours at `now`: heard within the timeout, and their hello lists self.
    std::vector<uint32_t> Neighbours(double now) const;
    /// The symmetric neighbours at `now` with the degrees they announced.
    std::map<uint32_t, uint32_t> NeighbourDegrees(double now) const;
    /// The hello self sends at `now`: its degree and the nodes it hears.
    Hello MakeHello(double now) const;
    /// The node.
    uint32_t Self() const;
    /// The timeout [s].
    double Timeout() const;

  private:
    /// The last hello of a node and when it was heard.
    struct Entry
    {
        double heardAt{0.0};
        uint32_t degree{0};
        bool listsSelf{false};
    };

    bool Current(const Entry& e, double now) const;

    uint32_t m_self;
    double m_timeout;
    std::map<uint32_t, Entry> m_entries;
};

/**
 * Node `self`'s column of Metropolis weights from what it knows: a_lk = 1 / max(n_l, n_k) for
 * each neighbour l, with n_k = selfDegree + 1 and n_l = its announced degree + 1, and the self
 * weight a_kk = 1 - sum_l a_lk, at least 1 / n_k (each of the at most n_k - 1 terms is at most
 * 1 / n_k). Returns neighbour -> weight, self included. Throws ConfigError naming "selfDegree"
 * if it is smaller than the number of neighbours given.
 */
std::map<uint32_t, double> LocalMetropolisWeights(uint32_t self,
                                                  uint32_t selfDegree,
                                                  const std::map<uint32_t, uint32_t>& neighbours);

/**
 * How far the weights the nodes actually used are from doubly stochastic: `columns` maps each
 * receiver k to the weights it gave (sender -> a_lk, its own included); each column sums to 1 by
 * construction, so the error is in what each sender's message received: the largest
 * |sum_k a_lk - 1| over the senders l (0 when all nodes know the same symmetric graph).
 */
double StochasticityError(const std::map<uint32_t, std::map<uint32_t, double>>& columns);

} // namespace fl
} // namespace ns3

#endif // FL_NEIGHBOUR_DISCOVERY_H
