/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * FlDatagramEndpoint's sending side: the paced queues, first transmissions, retransmissions and
 * probes, the ACK timeouts, the feedback it receives and the rate control.
 */
#include "ns3/arp-cache.h"
#include "ns3/fl-datagram-endpoint-impl.h"
#include "ns3/fl-ns3-compat.h"
#include "ns3/fl-types.h"
#include "ns3/inet-socket-address.h"
#include "ns3/ipv4-interface.h"
#include "ns3/ipv4-l3-protocol.h"
#include "ns3/ipv4-route.h"
#include "ns3/ipv4-routing-protocol.h"
#include "ns3/log.h"
#include "ns3/node.h"
#include "ns3/packet.h"
#include "ns3/simulator.h"
#include "ns3/wire-bytes.h"

#include <algorithm>
#include <cmath>
#include <unordered_map>

namespace ns3
{

/// The log component of FlDatagramEndpoint (NS_LOG=FlDatagramEndpoint), defined in fl-datagram-endpoint.cc.
LogComponent& FlDatagramEndpointLog();

namespace
{
LogComponent& g_log = FlDatagramEndpointLog();
} // namespace

using namespace fldatagram;

void
FlDatagramEndpoint::Impl::Kick()
{
    if (closed || FlIsPending(sendEvent) ||
        (feedbackQueue.empty() && retxQueue.empty() && firstQueue.empty()))
    {
        return;
    }
    const Time now = Simulator::Now();
    const Time delay = nextSendTime > now ? nextSendTime - now : Time();
    sendEvent = Simulator::Schedule(delay, &Impl::SendNext, this);
}

void
FlDatagramEndpoint::Impl::Transmit(const Address& to, const uint8_t* data, uint32_t size)
{
    ++Stats().datagramsSent;
    Stats().bytesSent += size;
    Ptr<Packet> p = Create<Packet>(data, size);
    if (owner->m_socket->SendTo(p, 0, to) < 0)
    {
        ++Stats().sendErrors;
        NS_LOG_WARN("socket refused a " << size << "-byte datagram (error "
                                        << owner->m_socket->GetErrno() << ")");
    }
}

void
FlDatagramEndpoint::Impl::SendNext()
{
    if (closed)
    {
        return;
    }
    uint32_t size = 0;
    bool sent = false;
    while (!sent)
    {
        Address to;
        if (!HeadDestination(to))
        {
            break;
        }
        const NextHop hop = LookUpNextHop(owner->m_socket->GetNode(), to);
        if (hop == NextHop::Pending)
        {
            // Hold everything until the address is resolved (one queue, FIFO order kept).
            sendEvent = Simulator::Schedule(kResolutionPoll, &Impl::SendNext, this);
            return;
        }
        if (!feedbackQueue.empty())
        {
            FeedbackEntry e = std::move(feedbackQueue.front());
            feedbackQueue.pop_front();
            size = static_cast<uint32_t>(e.bytes.size());
            Transmit(e.to, e.bytes.data(), size);
            ++(e.type == fl::FeedbackType::Ack ? Stats().acksSent : Stats().nacksSent);
            sent = true;
        }
        else if (!retxQueue.empty())
        {
            const RetxEntry e = retxQueue.front();
            retxQueue.pop_front();
            auto it = out.find(e.id);
            if (it == out.end())
            {
                continue; // forgotten meanwhile
            }
            Outgoing& m = it->second;
            uint64_t& word = m.retxQueued[e.index / 64];
            const uint64_t bit = 1ull << (e.index % 64);
            if ((word & bit) == 0)
            {
                continue;
            }
            word &= ~bit;
            size = SendChunk(m, e.index, fl::ChunkHeader::kFlagRetransmission);
            ++Stats().chunksRetransmitted;
            if (e.probe)
            {
                ++Stats().probes;
                if (!m.heard && !Config().congestionTarget.IsZero())
                {
                    m.probesSent.push_back(Simulator::Now());
                }
            }
            else
            {
                m.lastSent = Simulator::Now();
            }
            sent = true;
            Dequeued(it, size);
        }
        else if (!firstQueue.empty())
        {
            auto it = out.find(firstQueue.front());
            if (it == out.end() || it->second.nextFirst >= it->second.chunkCount)
            {
                firstQueue.pop_front();
                continue;
            }
            Outgoing& m = it->second;
            size = SendChunk(m, m.nextFirst, 0);
            m.lastSent = Simulator::Now();
            if (!m.heard && !Config().congestionTarget.IsZero())
            {
                m.chunkSent.push_back(m.lastSent); // chunk nextFirst
            }
            if (m.nextFirst == 0)
            {
                m.firstSent = m.lastSent;
            }
            ++Stats().chunksSent;
            ++Tally(sentTally, m.round)[m.to];
            if (++m.nextFirst == m.chunkCount)
            {
                firstQueue.pop_front();
            }
            sent = true;
            Dequeued(it, size);
        }
        else
        {
            break;
        }
    }
    if (sent)
    {
        nextSendTime =
            Simulator::Now() +
            (rate < maxRate ? Seconds((size + kIpUdpOverhead) * 8.0 / rate)
                            : Config().pacingRate.CalculateBytesTxTime(size + kIpUdpOverhead));
    }
    Kick();
}

bool
FlDatagramEndpoint::Impl::HeadDestination(Address& to)
{
    if (!feedbackQueue.empty())
    {
        to = feedbackQueue.front().to;
        return true;
    }
    while (!retxQueue.empty())
    {
        const RetxEntry& e = retxQueue.front();
        auto it = out.find(e.id);
        if (it != out.end() && (it->second.retxQueued[e.index / 64] >> (e.index % 64)) & 1)
        {
            to = it->second.to;
            return true;
        }
        retxQueue.pop_front();
    }
    while (!firstQueue.empty())
    {
        auto it = out.find(firstQueue.front());
        if (it != out.end() && it->second.nextFirst < it->second.chunkCount)
        {
            to = it->second.to;
            return true;
        }
        firstQueue.pop_front();
    }
    return false;
}

uint32_t
FlDatagramEndpoint::Impl::SendChunk(const Outgoing& m, uint32_t index, uint8_t flags)
{
    fl::MakeChunk(m.bytes->data(),
                  m.bytes->size(),
                  m.id,
                  localId,
                  m.round,
                  maxChunkPayload,
                  index,
                  flags,
                  txBuffer);
    const auto size = static_cast<uint32_t>(txBuffer.size());
    Transmit(m.to, txBuffer.data(), size);
    return size;
}

void
FlDatagramEndpoint::Impl::Dequeued(std::map<uint32_t, Outgoing>::iterator it, uint32_t size)
{
    Outgoing& m = it->second;
    --m.queued;
    m.queuedBytes -= size;
    queuedBytes -= size;
    if (m.queued > 0)
    {
        return;
    }
    if (Config().holePolicy == FlHolePolicy::Drop)
    {
        out.erase(it);
    }
    else
    {
        ArmAck(m); // Retransmit: wait for an ACK; KeepPrevious: keep it for NACKs a while
    }
}

bool
FlDatagramEndpoint::Impl::QueueRetx(Outgoing& m, uint32_t index, bool probe)
{
    if (m.retxQueued.empty())
    {
        m.retxQueued.assign((m.chunkCount + 63) / 64, 0);
    }
    uint64_t& word = m.retxQueued[index / 64];
    const uint64_t bit = 1ull << (index % 64);
    if (word & bit)
    {
        return false;
    }
    word |= bit;
    retxQueue.push_back({m.id, index, probe});
    const uint32_t size = ChunkDatagramBytes(m.bytes->size(), m.chunkCount, index);
    ++m.queued;
    m.queuedBytes += size;
    queuedBytes += size;
    return true;
}

void
FlDatagramEndpoint::Impl::ArmAck(Outgoing& m)
{
    m.ackEvent.Cancel();
    m.ackEvent =
        Simulator::Schedule(Wait(AckBase(m.to), m.probes), &Impl::OnAckTimeout, this, m.id);
}

void
FlDatagramEndpoint::Impl::NoteFeedback(Outgoing& m, const fl::ChunkFeedback& fb)
{
    if (m.heard || Config().holePolicy != FlHolePolicy::Retransmit || m.nextFirst < m.chunkCount)
    {
        return;
    }
    m.heard = true;
    ControlRate(m, fb);
    m.chunkSent = std::vector<Time>(); // needed until the first feedback only
    AckTiming& t = acks[m.to];
    if (m.probes == 0)
    {
        const double sample = (Simulator::Now() - m.lastSent).GetSeconds();
        t.delay.Add(sample);
        pooledAck.delay.Add(sample);
        t.backoff = 0;
    }
    else
    {
        t.backoff = m.probes;
    }
}

void
FlDatagramEndpoint::Impl::ControlRate(const Outgoing& m, const fl::ChunkFeedback& fb)
{
    if (Config().congestionTarget.IsZero())
    {
        return;
    }
    const Time now = Simulator::Now();
    const bool nack = fb.type == fl::FeedbackType::Nack;
    double sample = 0.0;
    if (nack)
    {
        uint32_t h = 0;
        if (!fl::HighestReceivedChunk(fb.missing, m.chunkCount, m.nextFirst, maxNackIndices, h) ||
            h >= m.chunkSent.size())
        {
            return; // no chunk known to have arrived: nothing to time the NACK from
        }
        const Time since = now - m.chunkSent[h];
        const Time receiverWait = Config().reassemblyTimeout;
        if (since < receiverWait)
        {
            return; // sooner than the receiver's timeout allows: its settings differ
        }
        sample = (since - receiverWait).GetSeconds();
    }
    else if (m.probesSent.empty())
    {
        sample = (now - m.lastSent).GetSeconds();
    }
    else
    {
        if (!baseValid)
        {
            return; // no base delay to tell a queue from a lost datagram yet
        }
        Time answered = m.lastSent;
        for (const Time& t : m.probesSent)
        {
            if (t <= now - Seconds(baseDelay))
            {
                answered = t;
            }
        }
        sample = (now - answered).GetSeconds();
    }
    // an ACK before any probe times the path exactly; anything else is a bound
    const bool exact = m.probesSent.empty() && !nack;
    if (m.probesSent.empty())
    {
        // exact samples only, once there is one: a NACK's may be longer than the path
        if (!baseValid || (exact && (!baseExact || sample < baseDelay)) ||
            (!baseExact && sample < baseDelay))
        {
            baseValid = true;
            baseExact = baseExact || exact;
            baseDelay = sample;
        }
    }
    else if (!baseValid)
    {
        return; // a probed NACK: no base delay to tell a queue from a lost datagram yet
    }
    if (changed && m.firstSent < lastChange)
    {
        return;
    }
    const double next = FlCongestionRate(rate,
                                         sample - baseDelay,
                                         Config().congestionTarget.GetSeconds(),
                                         maxRate / kFlMinRateDivisor,
                                         maxRate);
    if (next == rate || (next > rate && !exact))
    {
        return; // a lower bound of the queue may show congestion, never its absence
    }
    if (next < rate)
    {
        ++Stats().rateDecreases;
    }
    NS_LOG_LOGIC("feedback delay " << sample << " s, base " << baseDelay << " s: rate " << rate
                                   << " -> " << next << " b/s");
    changed = true;
    lastChange = now;
    rate = next;
}

void
FlDatagramEndpoint::Impl::OnAckTimeout(uint32_t id)
{
    auto it = out.find(id);
    if (it == out.end() || it->second.queued > 0)
    {
        return; // forgotten, or re-armed when the queued datagrams have gone out
    }
    Outgoing& m = it->second;
    if (Config().holePolicy == FlHolePolicy::KeepPrevious)
    {
        Forget(it); // no NACK came: nothing more to do for it
        return;
    }
    // A probe must reach its receiver while it still remembers the message, should it have
    // completed it (ClosedRetention after completion, which came after the message's
    // latest datagram other than a probe): half of that is left for the network.
    const bool pastHorizon = Config().holePolicy == FlHolePolicy::Retransmit &&
                             Simulator::Now() - m.lastSent > closedRetention / 2;
    if (m.probes >= Config().retryLimit || pastHorizon)
    {
        NS_LOG_LOGIC("message " << id << " unacknowledged after " << m.probes << " probes");
        ++Stats().messagesUnacked;
        FlGivenUpMessage lost;
        lost.outgoing = true;
        lost.peer = m.to;
        lost.round = m.round;
        lost.bytes = m.bytes;
        Forget(it);
        GiveUp(lost);
        return;
    }
    ++m.probes;
    QueueRetx(m, m.chunkCount - 1, true);
    Kick();
}

auto
FlDatagramEndpoint::Impl::Forget(std::map<uint32_t, Outgoing>::iterator it)
    -> std::map<uint32_t, Outgoing>::iterator
{
    queuedBytes -= it->second.queuedBytes;
    it->second.ackEvent.Cancel();
    return out.erase(it);
}

void
FlDatagramEndpoint::Impl::CompactQueues()
{
    firstQueue.erase(std::remove_if(firstQueue.begin(),
                                    firstQueue.end(),
                                    [this](uint32_t id) { return out.count(id) == 0; }),
                     firstQueue.end());
    retxQueue.erase(std::remove_if(retxQueue.begin(),
                                   retxQueue.end(),
                                   [this](const RetxEntry& e) { return out.count(e.id) == 0; }),
                    retxQueue.end());
}

void
FlDatagramEndpoint::Impl::HandleFeedback(const uint8_t* data, uint32_t size)
{
    const fl::FeedbackStatus st = fl::ParseFeedback(data, size, feedbackIn);
    if (st != fl::FeedbackStatus::Ok)
    {
        ++Stats().feedbackMalformed;
        NS_LOG_LOGIC("malformed feedback: " << fl::FeedbackStatusName(st));
        return;
    }
    ++Stats().feedbackReceived;
    const fl::ChunkFeedback& fb = feedbackIn;
    auto it = out.find(fb.messageId);
    if (fb.sender != localId || it == out.end() || it->second.round != fb.round)
    {
        NS_LOG_LOGIC("feedback about an unknown or forgotten message " << fb.messageId);
        return;
    }
    Outgoing& m = it->second;
    NoteFeedback(m, fb);
    if (fb.type == fl::FeedbackType::Ack)
    {
        NS_LOG_LOGIC("message " << m.id << " acknowledged");
        ++Stats().messagesAcked;
        Forget(it);
        return;
    }
    m.probes = 0;
    m.ackEvent.Cancel();
    for (uint32_t index : fb.missing)
    {
        if (index >= m.nextFirst)
        {
            break; // ascending: the rest has not had its first transmission yet
        }
        QueueRetx(m, index, false);
    }
    if (m.queued == 0)
    {
        ArmAck(m); // nothing to re-send (a bogus NACK): keep waiting for feedback
    }
    Kick();
}

} // namespace ns3
