/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * FlServerApplication: its clients (Joins, a known client joining again from a new address,
 * connections that close, and round 1 once enough clients joined or the join window passed).
 */
#include "ns3/fl-server-application.h"
#include "ns3/log.h"
#include "ns3/simulator.h"

#include <algorithm>

namespace ns3
{

/// The server's log component (NS_LOG=FlServerApplication), defined in fl-server-application.cc.
LogComponent& FlServerApplicationLog();

namespace
{
LogComponent& g_log = FlServerApplicationLog();
} // namespace

void
FlServerApplication::MaybeStartFirstRound()
{
    if (m_round == 0 && !m_roundOpen && !m_firstRoundScheduled &&
        (m_joinWindowOver || m_clients.size() >= m_expectedClients))
    {
        m_firstRoundScheduled = true;
        Simulator::Cancel(m_joinWindowEvent);
        Simulator::ScheduleNow(m_async ? &FlServerApplication::StartAsynchronous
                                       : &FlServerApplication::StartRound,
                               this);
    }
}

void
FlServerApplication::HandlePeerClosed(const Address& peer)
{
    NS_LOG_FUNCTION(this << peer);
    WarnOversized(); // a stream closed after a message above MaxMessageBytes
    for (const auto& kv : m_clients)
    {
        if (kv.second.address == peer)
        {
            ClientGone(kv.first);
            return;
        }
    }
}

void
FlServerApplication::ClientGone(uint32_t client)
{
    NS_LOG_INFO("client " << client << " disconnected");
    ++m_counters.disconnects;
    auto gone = m_clients.find(client);
    if (gone != m_clients.end())
    {
        m_clientOfNode.erase(gone->second.node); // its node may join again
        m_clients.erase(gone);
    }
    m_outstanding.erase(client);
    LeaveCohort(client);
    // A selected client that can no longer answer is not waited for.
    auto sel = std::find(m_selected.begin(), m_selected.end(), client);
    if (m_roundOpen && sel != m_selected.end() && m_updates.count({client, m_round}) == 0)
    {
        m_selected.erase(sel);
        m_strategy->ClientLeft(client); // nor do the strategy's phases
        ++m_lostThisRound;
        MaybeClose();
    }
}

void
FlServerApplication::HandleJoin(const FlInboundMessage& in)
{
    const auto& h = in.msg.header;
    // payload: the client index (u32)
    std::vector<uint32_t> index;
    if (!fl::UnpackU32(in.msg.raw, index) || index.size() != 1)
    {
        NS_LOG_WARN("join from node " << h.sender << " without a client index; ignored");
        ++m_counters.unexpectedMessages;
        return;
    }
    const uint32_t client = index[0];
    auto known = m_clients.find(client);
    if (known != m_clients.end() && known->second.address == in.from &&
        known->second.node == h.sender)
    {
        // a client repeating its Join until it hears from us (over a datagram transport, or
        // on its connection after it was handed back to this server)
        return;
    }
    if (known != m_clients.end() && known->second.node == h.sender &&
        known->second.address != in.from)
    {
        // the client joins again from a new address (a new connection, e.g. after it came back
        // into this server's cell): it is reached there from now on
        known->second.address = in.from;
        m_clientSamples[client] = h.aux;
        ++m_counters.rejoins;
        return;
    }
    if (client >= m_task->NumClients() || known != m_clients.end() ||
        m_clientOfNode.count(h.sender) != 0)
    {
        NS_LOG_WARN("join from unknown or duplicate client " << client << "; ignored");
        ++m_counters.unexpectedMessages;
        return;
    }
    m_clients[client] = Peer{in.from, h.sender};
    m_clientOfNode[h.sender] = client;
    m_clientSamples[client] = h.aux;
    m_joinTrace(client, h.aux);
    MaybeStartFirstRound();
}

} // namespace ns3
