/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * One node's release-and-combine over the transport seam: the network half of
 * fl::GraphExchange (diffusion.h). A GFL server's round step and a GHP diffusion agent both use
 * it: release the node's value with its Perturbation (fl::ReleaseNodeMessages, its own seeds),
 * send one message for all neighbours (broadcast-type noise: one link-layer broadcast when the
 * transport can, FlTransport::BroadcastModel, else one copy per neighbour address) or one per
 * neighbour, wait until
 * every neighbour's message of the iteration has arrived or a timeout passes, then combine with
 * fl::CombineMessages and the missing-message policy.
 */
#ifndef FL_GRAPH_EXCHANGE_H
#define FL_GRAPH_EXCHANGE_H

#include "ns3/address.h"
#include "ns3/diffusion.h"
#include "ns3/event-id.h"
#include "ns3/fl-transport.h"
#include "ns3/nstime.h"
#include "ns3/simple-ref-count.h"

#include <functional>
#include <map>
#include <memory>
#include <vector>

namespace ns3
{

/**
 * \ingroup fl-apps
 * A neighbour l of an exchanging node k.
 */
struct FlGraphNeighbor
{
    uint32_t index{0};  ///< graph index l
    Address address;    ///< its transport address (InetSocketAddress with its port)
    double weight{0.0}; ///< a_lk: the weight k gives to what it receives from l
};

/**
 * \ingroup fl-apps
 * A node's neighbourhood in one iteration: its self weight a_kk and its neighbours with the
 * weights a_lk it gives them (ascending l).
 */
struct FlGraphNeighbourhood
{
    double selfWeight{0.0};                ///< a_kk
    std::vector<FlGraphNeighbor> neighbors; ///< l ~ k, ascending l
};

/**
 * \ingroup fl-apps
 * One term of a combination as it was made: the sender, the weight its message received (after
 * the missing-message policy) and whether it was the sender's message of this iteration (false:
 * its last message, reused).
 */
struct FlCombinedTerm
{
    uint32_t sender{0};  ///< l (the node itself for its kept term)
    double weight{0.0};  ///< the weight given, after renormalisation if the policy renormalised
    bool current{true};  ///< the message of this iteration (false: a reused older one)
};

/**
 * \ingroup fl-apps
 * The settings of one node's exchange.
 */
struct FlGraphExchangeConfig
{
    /// A neighbour l of this node k.
    using Neighbor = FlGraphNeighbor;

    uint32_t self{0};                ///< graph index k
    double selfWeight{0.0};          ///< a_kk
    std::vector<Neighbor> neighbors; ///< l ~ k, ascending l (as fl::GraphExchange)
    /**
     * A graph that changes (nodes that move): if set, called at every Start with the iteration;
     * the neighbourhood it returns replaces selfWeight and neighbors for that iteration (e.g.
     * FlLiveNeighbourhood, from the hellos heard). Messages are then buffered from any node
     * below `nodes` (a node may hear a sender before it counts it as a neighbour), and only
     * the iteration's neighbours are combined. Needs `nodes` and a timeout > 0: a neighbour
     * that left never sends.
     */
    std::function<FlGraphNeighbourhood(uint32_t iteration)> neighbourSource;
    uint32_t nodes{0}; ///< graph size N (with neighbourSource: senders are 0..N-1)
    fl::NodeNoiseConfig noise;       ///< the node's perturbation
    uint64_t seed{0};                ///< the node's seed (NodeNoiseSeed / LinkNoiseSeed)
    fl::MissingMessagePolicy policy{fl::MissingMessagePolicy::ReuseLast}; ///< lost messages
    Time timeout{Seconds(0)}; ///< combine this long after Start even if messages are missing
                              ///< (0 = wait for all: lossless transports)
};

/**
 * \ingroup fl-apps
 * Counters of an exchange node.
 */
struct FlGraphExchangeStats
{
    uint64_t messagesSent{0};     ///< transmissions (one per broadcast, one per link)
    uint64_t messagesReceived{0}; ///< neighbour messages accepted for a current or later iteration
    uint64_t lateMessages{0};     ///< arrived after their iteration combined (kept as "last")
    uint64_t missing{0};          ///< neighbour terms missing at a combination
    uint64_t reused{0};           ///< of those, replaced by the last message (ReuseLast)
    uint64_t ignored{0};          ///< not a model message, bad size, duplicates
    uint64_t notNeighbor{0};      ///< model messages from nodes that are not graph neighbours
                                  ///< (overheard broadcasts), not used
    uint64_t broadcasts{0};       ///< of messagesSent: link-layer broadcasts (one per release)
    /// missingFrom[j]: iterations at whose combination neighbour j's message (neighbors[j]) was
    /// missing: the losses of link l -> k, per link (fixed neighbourhoods only; empty with a
    /// neighbourSource, see missingByNode)
    std::vector<uint64_t> missingFrom;
    /// missingByNode[l]: iterations at whose combination l was a neighbour and its message
    /// was missing (every graph, fixed or changing)
    std::map<uint32_t, uint64_t> missingByNode;
    uint64_t neighbourhoodChanges{0}; ///< iterations whose neighbours or weights differed
                                      ///< from the previous iteration's (neighbourSource)
};

/**
 * \ingroup fl-apps
 * Release, send, wait, combine: one node of a graph exchange over an FlTransport. Messages are
 * PeerModel messages with round = iteration and aux = the sender's graph index. Every draw comes
 * from the node's seed and the iteration (diffusion.h), so a lossless run equals
 * fl::GraphExchange bit for bit whatever the order of events.
 */
class FlGraphExchangeNode : public SimpleRefCount<FlGraphExchangeNode>
{
  public:
    /// Called once an iteration is combined: its outcome.
    using DoneCallback = std::function<void(const fl::CombineOutcome&)>;

    /// Throws fl::ConfigError naming the bad setting (a_kk under graph-homomorphic noise, ...).
    explicit FlGraphExchangeNode(FlGraphExchangeConfig config);
    ~FlGraphExchangeNode();

    /**
     * Releases `value` (phi_k or psi_p) for `iteration`, sends through `transport`, and once
     * every neighbour's message has arrived (or the timeout passed) writes the combination into
     * `out` (which must stay valid until then and may be the storage `value` came from: the
     * value is copied) and calls `done`. `quantRng` draws the stochastic rounding of an int8
     * wire encoding (null: the transport's default).
     */
    void Start(Ptr<FlTransport> transport,
               uint32_t iteration,
               const fl::ParamVector& value,
               fl::ParamVector& out,
               DoneCallback done,
               fl::Rng* quantRng = nullptr);

    /// A PeerModel message: buffered, and the combination runs if it completes the iteration.
    /// Returns false if it is not a message of this exchange (not a PeerModel message, or a
    /// sender that is not a graph neighbour: counted in notNeighbor). With a neighbourSource
    /// any sender 0..N-1 but the node is buffered, for iterations at most kLiveLookahead ahead
    /// of the current one (a later one is ignored: nothing is allocated for it), and a message
    /// of a sender that is not a neighbour when its iteration combines counts in notNeighbor.
    bool Receive(FlInboundMessage& in);

    /// How many iterations ahead a changing graph's node buffers messages.
    static constexpr uint32_t kLiveLookahead = 2;

    /// Cancels a pending timeout (application stop).
    void Cancel();

    /// Counters.
    const FlGraphExchangeStats& Stats() const
    {
        return m_stats;
    }

    /// The release of the last started iteration (kept term, messages).
    const fl::NodeRelease& Release() const
    {
        return m_release;
    }

    /// Graph indices of the neighbours whose message was missing at the last combination.
    const std::vector<uint32_t>& LastMissing() const
    {
        return m_lastMissing;
    }

    /// The node's perturbation (of the last started iteration's self weight).
    const fl::Perturbation& GetPerturbation() const
    {
        return *m_perturbation;
    }

    /// The neighbourhood of the last started iteration (the configured one before).
    const FlGraphNeighbourhood& Neighbourhood() const
    {
        return m_hood;
    }

    /// The terms of the last combination, the node's own first (valid after the first one).
    const std::vector<FlCombinedTerm>& LastCombination() const
    {
        return m_lastTerms;
    }

  private:
    void SetNeighbourhood(FlGraphNeighbourhood hood);
    void TryCombine();
    void Combine();
    bool Live() const
    {
        return static_cast<bool>(m_config.neighbourSource);
    }

    FlGraphExchangeConfig m_config;
    FlGraphNeighbourhood m_hood; ///< this iteration's self weight and neighbours
    std::vector<uint32_t> m_neighborIds;
    std::map<uint32_t, std::size_t> m_position; ///< graph index -> position in neighbors
    std::unique_ptr<fl::Perturbation> m_perturbation;
    double m_perturbationWeight{-1.0}; ///< the self weight m_perturbation was made with
    fl::NodeRelease m_release;
    fl::ParamVector m_clean;
    fl::ParamVector* m_out{nullptr};
    DoneCallback m_done;
    uint32_t m_iteration{0};
    bool m_active{false};
    bool m_started{false}; ///< Start was called once (before: no iteration is combined)
    /// by iteration, then sender's graph index
    std::map<uint32_t, std::map<uint32_t, fl::ParamVector>> m_inbox;
    std::map<uint32_t, fl::ParamVector> m_last;     ///< the last message of each sender
    std::map<uint32_t, uint32_t> m_lastIteration;   ///< its iteration
    std::vector<FlCombinedTerm> m_lastTerms;
    std::vector<fl::NeighborMessage> m_scratch;
    EventId m_timeout;
    FlGraphExchangeStats m_stats;
    std::vector<uint32_t> m_lastMissing;
};

} // namespace ns3

#endif // FL_GRAPH_EXCHANGE_H
