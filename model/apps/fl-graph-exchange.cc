/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ns3/fl-graph-exchange.h"

#include "ns3/log.h"
#include "ns3/simulator.h"

#include <cmath>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FlGraphExchange");

FlGraphExchangeNode::FlGraphExchangeNode(FlGraphExchangeConfig config)
    : m_config(std::move(config))
{
    if (Live())
    {
        if (m_config.nodes == 0 || m_config.self >= m_config.nodes)
        {
            throw fl::ConfigError("nodes",
                                  "is " + std::to_string(m_config.nodes) + " for node " +
                                      std::to_string(m_config.self) + " of a changing graph",
                                  "give the graph size N > self with a neighbourSource");
        }
        if (!m_config.timeout.IsStrictlyPositive())
        {
            throw fl::ConfigError("timeout",
                                  "is 0 on a changing graph (a neighbour that left never sends)",
                                  "give a positive exchange timeout with a neighbourSource");
        }
    }
    SetNeighbourhood(FlGraphNeighbourhood{m_config.selfWeight, m_config.neighbors});
    if (!Live())
    {
        m_stats.missingFrom.assign(m_neighborIds.size(), 0);
    }
}

void
FlGraphExchangeNode::SetNeighbourhood(FlGraphNeighbourhood hood)
{
    for (std::size_t j = 0; j < hood.neighbors.size(); ++j)
    {
        const auto& nb = hood.neighbors[j];
        if (j > 0 && nb.index <= hood.neighbors[j - 1].index)
        {
            throw fl::ConfigError("neighbors",
                                  "are not in ascending graph order",
                                  "list the neighbours by ascending graph index");
        }
        if (nb.index == m_config.self || !(nb.weight >= 0.0) || !std::isfinite(nb.weight))
        {
            throw fl::ConfigError("neighbors",
                                  "include the node itself or a negative weight",
                                  "give l != k and a_lk >= 0");
        }
        if (Live() && nb.index >= m_config.nodes)
        {
            throw fl::ConfigError("neighbors",
                                  "include node " + std::to_string(nb.index) + " of a graph of " +
                                      std::to_string(m_config.nodes),
                                  "give neighbours 0 <= l < N");
        }
    }
    // the graph-homomorphic compensation divides by a_kk: a new self weight, a new perturbation
    if (!m_perturbation || hood.selfWeight != m_perturbationWeight)
    {
        m_perturbation =
            fl::MakeNodePerturbation(m_config.noise,
                                     hood.selfWeight,
                                     "combination weight a_{" + std::to_string(m_config.self) +
                                         "," + std::to_string(m_config.self) + "}");
        m_perturbationWeight = hood.selfWeight;
    }
    m_neighborIds.clear();
    m_position.clear();
    for (std::size_t j = 0; j < hood.neighbors.size(); ++j)
    {
        m_neighborIds.push_back(hood.neighbors[j].index);
        m_position[hood.neighbors[j].index] = j;
    }
    m_hood = std::move(hood);
}

FlGraphExchangeNode::~FlGraphExchangeNode() = default;

void
FlGraphExchangeNode::Cancel()
{
    Simulator::Cancel(m_timeout);
    m_active = false;
}

void
FlGraphExchangeNode::Start(Ptr<FlTransport> transport,
                           uint32_t iteration,
                           const fl::ParamVector& value,
                           fl::ParamVector& out,
                           DoneCallback done,
                           fl::Rng* quantRng)
{
    NS_LOG_FUNCTION(this << iteration);
    NS_ASSERT_MSG(!m_active, "FlGraphExchangeNode: iteration " << m_iteration << " still open");
    if (Live())
    {
        // this iteration's neighbours and weights, as the node knows them now
        try
        {
            FlGraphNeighbourhood hood = m_config.neighbourSource(iteration);
            bool same = hood.selfWeight == m_hood.selfWeight &&
                        hood.neighbors.size() == m_hood.neighbors.size();
            for (std::size_t j = 0; same && j < hood.neighbors.size(); ++j)
            {
                same = hood.neighbors[j].index == m_hood.neighbors[j].index &&
                       hood.neighbors[j].weight == m_hood.neighbors[j].weight;
            }
            if (!same && m_started)
            {
                ++m_stats.neighbourhoodChanges;
            }
            SetNeighbourhood(std::move(hood));
        }
        catch (const fl::ConfigError& e)
        {
            fl::ExitOnConfigError("FlGraphExchangeNode neighbourSource", e);
        }
    }
    m_clean = value;
    m_out = &out;
    m_done = std::move(done);
    m_iteration = iteration;
    m_active = true;
    m_started = true;
    // release (GHP eq. 15 / 20, GFL eq. 47): the node's own seeds, as fl::GraphExchange
    fl::ReleaseNodeMessages(*m_perturbation,
                            m_clean,
                            m_config.self,
                            m_neighborIds,
                            m_config.seed,
                            iteration,
                            m_release,
                            m_config.noise.source);
    const fl::MessageAddress header{fl::MessageKind::PeerModel,
                                    iteration,
                                    0,
                                    fl::kBroadcastId,
                                    m_config.self};
    if (m_release.broadcast)
    {
        std::vector<Address> to;
        for (const auto& nb : m_hood.neighbors)
        {
            to.push_back(nb.address);
        }
        if (!to.empty() && transport->BroadcastModel(header, m_release.message, quantRng))
        {
            ++m_stats.messagesSent; // one transmission heard by every node in range
            ++m_stats.broadcasts;
        }
        else if (!to.empty())
        {
            transport->SendModel(to, header, m_release.message, quantRng); // one encoding for all
            ++m_stats.messagesSent;
        }
    }
    else
    {
        for (std::size_t j = 0; j < m_hood.neighbors.size(); ++j)
        {
            transport->SendModel({m_hood.neighbors[j].address},
                                 header,
                                 m_release.perLink[j],
                                 quantRng);
            ++m_stats.messagesSent;
        }
    }
    if (m_config.timeout.IsStrictlyPositive())
    {
        m_timeout = Simulator::Schedule(m_config.timeout, &FlGraphExchangeNode::Combine, this);
    }
    TryCombine();
}

bool
FlGraphExchangeNode::Receive(FlInboundMessage& in)
{
    const auto& h = in.msg.header;
    if (h.kind != fl::MessageKind::PeerModel)
    {
        ++m_stats.ignored;
        return false;
    }
    const uint32_t sender = h.aux;
    if (Live() ? (sender >= m_config.nodes || sender == m_config.self)
               : m_position.find(sender) == m_position.end())
    {
        ++m_stats.notNeighbor; // e.g. a broadcast overheard from a node that is not a neighbour
        return false;
    }
    if (m_clean.Size() != 0 && in.msg.params.Size() != m_clean.Size())
    {
        ++m_stats.ignored;
        return true;
    }
    // before the first Start no iteration is combined: a fast neighbour's first message waits
    const bool combined =
        m_started && (h.round < m_iteration || (h.round == m_iteration && !m_active));
    if (combined)
    {
        // Too late for its iteration; still the freshest word from that neighbour (ReuseLast).
        ++m_stats.lateMessages;
        auto last = m_lastIteration.find(sender);
        if (last == m_lastIteration.end() || h.round > last->second)
        {
            m_last[sender] = std::move(in.msg.params);
            m_lastIteration[sender] = h.round;
        }
        return true;
    }
    if (Live() && h.round > m_iteration + kLiveLookahead)
    {
        ++m_stats.ignored; // too far ahead to be a message of this graph's iterations
        return true;
    }
    auto& slot = m_inbox[h.round];
    if (slot.count(sender) != 0)
    {
        ++m_stats.ignored;
        return true;
    }
    slot.emplace(sender, std::move(in.msg.params));
    ++m_stats.messagesReceived;
    if (m_active && h.round == m_iteration)
    {
        TryCombine();
    }
    return true;
}

void
FlGraphExchangeNode::TryCombine()
{
    if (!m_active)
    {
        return;
    }
    auto it = m_inbox.find(m_iteration);
    std::size_t have = 0;
    if (it != m_inbox.end())
    {
        for (uint32_t id : m_neighborIds)
        {
            have += it->second.count(id);
        }
    }
    if (have == m_neighborIds.size())
    {
        Simulator::Cancel(m_timeout);
        Combine();
    }
}

void
FlGraphExchangeNode::Combine()
{
    if (!m_active)
    {
        return;
    }
    m_active = false;
    auto it = m_inbox.find(m_iteration);
    static const std::map<uint32_t, fl::ParamVector> kNone;
    const auto& got = it == m_inbox.end() ? kNone : it->second;
    m_scratch.resize(m_neighborIds.size());
    m_lastMissing.clear();
    for (std::size_t j = 0; j < m_neighborIds.size(); ++j)
    {
        const uint32_t id = m_neighborIds[j];
        auto g = got.find(id);
        if (g == got.end())
        {
            if (!Live())
            {
                ++m_stats.missingFrom[j];
            }
            ++m_stats.missingByNode[id];
            m_lastMissing.push_back(id);
        }
        auto lastIt = m_lastIteration.find(id);
        m_scratch[j] = fl::NeighborMessage{id,
                                           m_hood.neighbors[j].weight,
                                           g == got.end() ? nullptr : &g->second,
                                           lastIt != m_lastIteration.end() && lastIt->second != 0
                                               ? &m_last[id]
                                               : nullptr};
    }
    for (const auto& kv : got)
    {
        if (m_position.find(kv.first) == m_position.end())
        {
            ++m_stats.notNeighbor; // heard, but not a neighbour as this node knows the graph
        }
    }
    fl::CombineOutcome outcome;
    try
    {
        // combination (GHP eq. 16, GFL eq. 8) with the missing-message policy
        outcome = fl::CombineMessages(m_release.kept,
                                      m_clean,
                                      m_hood.selfWeight,
                                      m_scratch,
                                      m_config.policy,
                                      *m_out);
    }
    catch (const fl::ConfigError& e)
    {
        fl::ExitOnConfigError("FlGraphExchangeNode", e);
    }
    m_stats.missing += outcome.missing;
    m_stats.reused += outcome.reused;
    // the terms as combined: renormalised when a missing term was dropped (CombineMessages)
    m_lastTerms.clear();
    if (outcome.skipped)
    {
        m_lastTerms.push_back({m_config.self, 1.0, true});
    }
    else
    {
        const double scale =
            outcome.missing > outcome.reused ? 1.0 / outcome.weightUsed : 1.0;
        m_lastTerms.push_back({m_config.self, m_hood.selfWeight * scale, true});
        for (const auto& nb : m_scratch)
        {
            const bool reuse = nb.message == nullptr &&
                               m_config.policy == fl::MissingMessagePolicy::ReuseLast &&
                               nb.last != nullptr;
            if (nb.message != nullptr || reuse)
            {
                m_lastTerms.push_back({nb.sender, nb.weight * scale, nb.message != nullptr});
            }
        }
    }
    if (it != m_inbox.end())
    {
        for (auto& kv : it->second)
        {
            m_last[kv.first] = std::move(kv.second);
            m_lastIteration[kv.first] = m_iteration;
        }
    }
    m_inbox.erase(m_inbox.begin(), m_inbox.upper_bound(m_iteration));
    DoneCallback done = std::move(m_done);
    m_done = nullptr;
    done(outcome);
}

} // namespace ns3
