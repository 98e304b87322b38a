/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ns3/fl-graph-exchange.h"

#include "ns3/log.h"
#include "ns3/simulator.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FlGraphExchange");

FlGraphExchangeNode::FlGraphExchangeNode(FlGraphExchangeConfig config)
    : m_config(std::move(config))
{
    for (std::size_t j = 0; j < m_config.neighbors.size(); ++j)
    {
        const auto& nb = m_config.neighbors[j];
        if (j > 0 && nb.index <= m_config.neighbors[j - 1].index)
        {
            throw fl::ConfigError("neighbors",
                                  "are not in ascending graph order",
                                  "list the neighbours by ascending graph index");
        }
        if (nb.index == m_config.self || !(nb.weight >= 0.0))
        {
            throw fl::ConfigError("neighbors",
                                  "include the node itself or a negative weight",
                                  "give l != k and a_lk >= 0");
        }
        m_neighborIds.push_back(nb.index);
        m_position[nb.index] = j;
    }
    m_perturbation =
        fl::MakeNodePerturbation(m_config.noise,
                                 m_config.selfWeight,
                                 "combination weight a_{" + std::to_string(m_config.self) + "," +
                                     std::to_string(m_config.self) + "}");
    m_last.resize(m_neighborIds.size());
    m_stats.missingFrom.assign(m_neighborIds.size(), 0);
    m_lastIteration.assign(m_neighborIds.size(), 0);
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
        for (const auto& nb : m_config.neighbors)
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
        for (std::size_t j = 0; j < m_config.neighbors.size(); ++j)
        {
            transport->SendModel({m_config.neighbors[j].address},
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
    auto pos = m_position.find(h.aux);
    if (h.kind != fl::MessageKind::PeerModel)
    {
        ++m_stats.ignored;
        return false;
    }
    if (pos == m_position.end())
    {
        ++m_stats.notNeighbor; // e.g. a broadcast overheard from a node that is not a neighbour
        return false;
    }
    const std::size_t j = pos->second;
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
        if (h.round > m_lastIteration[j])
        {
            m_last[j] = std::move(in.msg.params);
            m_lastIteration[j] = h.round;
        }
        return true;
    }
    auto& slot = m_inbox[h.round];
    if (slot.count(j) != 0)
    {
        ++m_stats.ignored;
        return true;
    }
    slot.emplace(j, std::move(in.msg.params));
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
    const std::size_t have = it == m_inbox.end() ? 0 : it->second.size();
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
    static const std::map<std::size_t, fl::ParamVector> kNone;
    const auto& got = it == m_inbox.end() ? kNone : it->second;
    m_scratch.resize(m_neighborIds.size());
    m_lastMissing.clear();
    for (std::size_t j = 0; j < m_neighborIds.size(); ++j)
    {
        auto g = got.find(j);
        if (g == got.end())
        {
            ++m_stats.missingFrom[j];
            m_lastMissing.push_back(m_neighborIds[j]);
        }
        m_scratch[j] = fl::NeighborMessage{m_neighborIds[j],
                                           m_config.neighbors[j].weight,
                                           g == got.end() ? nullptr : &g->second,
                                           m_lastIteration[j] != 0 ? &m_last[j] : nullptr};
    }
    fl::CombineOutcome outcome;
    try
    {
        // combination (GHP eq. 16, GFL eq. 8) with the missing-message policy
        outcome = fl::CombineMessages(m_release.kept,
                                      m_clean,
                                      m_config.selfWeight,
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
