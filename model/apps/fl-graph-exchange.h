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
 * The settings of one node's exchange.
 */
struct FlGraphExchangeConfig
{
    /// A neighbour l of this node k.
    struct Neighbor
    {
        uint32_t index{0};  ///< graph index l
        Address address;    ///< its transport address (InetSocketAddress with its port)
        double weight{0.0}; ///< a_lk: the weight k gives to what it receives from l
    };

    uint32_t self{0};                ///< graph index k
    double selfWeight{0.0};          ///< a_kk
    std::vector<Neighbor> neighbors; ///< l ~ k, ascending l (as fl::GraphExchange)
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
    /// missing: the losses of link l -> k, per link
    std::vector<uint64_t> missingFrom;
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
    /// sender that is not a graph neighbour: counted in notNeighbor).
    bool Receive(FlInboundMessage& in);

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

    /// The node's perturbation.
    const fl::Perturbation& GetPerturbation() const
    {
        return *m_perturbation;
    }

  private:
    void TryCombine();
    void Combine();

    FlGraphExchangeConfig m_config;
    std::vector<uint32_t> m_neighborIds;
    std::map<uint32_t, std::size_t> m_position; ///< graph index -> position in neighbors
    std::unique_ptr<fl::Perturbation> m_perturbation;
    fl::NodeRelease m_release;
    fl::ParamVector m_clean;
    fl::ParamVector* m_out{nullptr};
    DoneCallback m_done;
    uint32_t m_iteration{0};
    bool m_active{false};
    bool m_started{false}; ///< Start was called once (before: no iteration is combined)
    std::map<uint32_t, std::map<std::size_t, fl::ParamVector>> m_inbox; ///< by iteration
    std::vector<fl::ParamVector> m_last;
    std::vector<uint32_t> m_lastIteration; ///< 0 = none
    std::vector<fl::NeighborMessage> m_scratch;
    EventId m_timeout;
    FlGraphExchangeStats m_stats;
    std::vector<uint32_t> m_lastMissing;
};

} // namespace ns3

#endif // FL_GRAPH_EXCHANGE_H
