/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * FlDatagramEndpoint's receiving side: chunks received and reassembled, the ACK/NACK feedback
 * it sends, the reassembly timers and hole policies, the messages delivered or given up.
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
FlDatagramEndpoint::Impl::NoteFirstArrival(Incoming& m, const Address& from)
{
    if (Config().holePolicy != FlHolePolicy::Retransmit)
    {
        return;
    }
    const Time now = Simulator::Now();
    if (m.anyFirst)
    {
        gaps[from].Add((now - m.lastFirst).GetSeconds());
        pooledGap.Add((now - m.lastFirst).GetSeconds());
    }
    m.anyFirst = true;
    m.lastFirst = now;
}

void
FlDatagramEndpoint::Impl::QueueFeedback(const Address& to)
{
    FeedbackEntry e;
    e.to = to;
    e.type = feedback.type;
    fl::EncodeFeedback(feedback, e.bytes);
    feedbackQueue.push_back(std::move(e));
    Kick();
}

void
FlDatagramEndpoint::Impl::SendAck(const fl::MessageKey& key, uint32_t round, const Address& to)
{
    feedback.type = fl::FeedbackType::Ack;
    feedback.messageId = key.messageId;
    feedback.sender = key.sender;
    feedback.round = round;
    feedback.missing.clear();
    QueueFeedback(to);
}

void
FlDatagramEndpoint::Impl::SendNacks(const fl::MessageKey& key, const Incoming& in)
{
    const std::vector<uint32_t> missing =
        reassembler.MissingChunks(key, maxNackIndices * kMaxNackDatagrams);
    feedback.type = fl::FeedbackType::Nack;
    feedback.messageId = key.messageId;
    feedback.sender = key.sender;
    feedback.round = in.round;
    for (std::size_t b = 0; b < missing.size(); b += maxNackIndices)
    {
        const std::size_t e = std::min(missing.size(), b + maxNackIndices);
        feedback.missing.assign(missing.begin() + static_cast<std::ptrdiff_t>(b),
                                missing.begin() + static_cast<std::ptrdiff_t>(e));
        QueueFeedback(in.from);
    }
    NS_LOG_LOGIC("NACK " << missing.size() << " chunks of message (" << key.sender << ", "
                         << key.messageId << ")");
}

void
FlDatagramEndpoint::Impl::HandleRead(Ptr<Socket> socket)
{
    Ptr<FlDatagramEndpoint> keep(owner); // the deliver callback may drop the last reference
    Address from;
    Ptr<Packet> packet;
    while (!closed && (packet = socket->RecvFrom(from)))
    {
        const uint32_t size = packet->GetSize();
        ++Stats().datagramsReceived;
        Stats().bytesReceived += size;
        if (rxBuffer.size() < size)
        {
            rxBuffer.resize(size);
        }
        packet->CopyData(rxBuffer.data(), size);
        const uint8_t* data = size > 0 ? rxBuffer.data() : nullptr;
        if (fl::IsFeedbackDatagram(data, size))
        {
            HandleFeedback(data, size);
        }
        else
        {
            HandleChunk(data, size, from);
        }
    }
}

void
FlDatagramEndpoint::Impl::HandleChunk(const uint8_t* data, uint32_t size, const Address& from)
{
    const fl::ChunkReassemblerStats& rs = reassembler.Stats();
    const uint64_t evicted = rs.messagesEvicted;
    const uint64_t lost = rs.lostChunks;
    const fl::ChunkResult r =
        reassembler.Accept(data, size, completedIn, Simulator::Now().GetSeconds());
    if (rs.messagesEvicted != evicted)
    {
        // Too many messages open: the reassembler gave the oldest up. Forget their records
        // now rather than at their timers, so that a flood of chunks opening new messages
        // (forged or not) keeps at most maxOpenMessages records and timers.
        Stats().messagesDropped += rs.messagesEvicted - evicted;
        Stats().chunksLost += rs.lostChunks - lost;
        for (auto it = in.begin(); it != in.end();)
        {
            if (reassembler.IsOpen(it->first))
            {
                ++it;
                continue;
            }
            it->second.timer.Cancel();
            it = in.erase(it);
        }
    }
    if (r != fl::ChunkResult::Malformed)
    {
        peerIds[from] = fl::GetU32(data + 12);
    }
    if (r == fl::ChunkResult::Accepted || r == fl::ChunkResult::Completed)
    {
        ++Tally(receivedTally, fl::GetU32(data + 16))[fl::GetU32(data + 12)];
    }
    // byte 5 of a valid chunk: its flags
    const bool firstTransmission =
        r != fl::ChunkResult::Malformed && (data[5] & fl::ChunkHeader::kFlagRetransmission) == 0;
    switch (r)
    {
    case fl::ChunkResult::Malformed:
        ++Stats().chunksMalformed;
        if (reassembler.LastStatus() == fl::ChunkStatus::TooLarge)
        {
            ++Stats().chunksTooLarge;
        }
        NS_LOG_LOGIC("malformed chunk: " << fl::ChunkStatusName(reassembler.LastStatus()));
        return;
    case fl::ChunkResult::Duplicate:
        ++Stats().chunksDuplicate;
        return;
    case fl::ChunkResult::Late: {
        ++Stats().chunksLate;
        if (Config().holePolicy == FlHolePolicy::Retransmit)
        {
            const fl::MessageKey key{fl::GetU32(data + 12), fl::GetU32(data + 8)};
            auto it = completed.find(key);
            if (it != completed.end())
            {
                it->second = from;
                SendAck(key, fl::GetU32(data + 16), from); // our ACK may have been lost
            }
        }
        return;
    }
    case fl::ChunkResult::Accepted: {
        ++Stats().chunksAccepted;
        const fl::MessageKey key{fl::GetU32(data + 12), fl::GetU32(data + 8)};
        auto it = in.find(key);
        if (it == in.end())
        {
            Incoming m;
            m.from = from;
            m.round = fl::GetU32(data + 16);
            m.lastArrival = Simulator::Now();
            if (firstTransmission)
            {
                NoteFirstArrival(m, from);
            }
            m.timer =
                Simulator::Schedule(ReassemblyBase(from), &Impl::OnReassemblyTimer, this, key);
            in.emplace(key, std::move(m));
        }
        else
        {
            it->second.from = from;
            it->second.lastArrival = Simulator::Now();
            it->second.nacks = 0; // progress: the retry budget counts fruitless NACKs only
            if (firstTransmission)
            {
                NoteFirstArrival(it->second, from);
            }
        }
        return;
    }
    case fl::ChunkResult::Completed: {
        ++Stats().chunksAccepted;
        auto it = in.find(completedIn.key);
        if (firstTransmission && it != in.end())
        {
            NoteFirstArrival(it->second, from);
        }
        Complete(from);
        return;
    }
    }
}

void
FlDatagramEndpoint::Impl::Complete(const Address& from)
{
    const fl::MessageKey key = completedIn.key;
    auto it = in.find(key);
    if (it != in.end())
    {
        it->second.timer.Cancel();
        in.erase(it);
    }
    if (Config().holePolicy == FlHolePolicy::Retransmit)
    {
        const Time now = Simulator::Now();
        while (!completedOrder.empty() && (completedOrder.size() >= kCompletedHistory ||
                                           completedOrder.front().second + closedRetention < now))
        {
            completed.erase(completedOrder.front().first);
            completedOrder.pop_front();
        }
        if (completed.emplace(key, from).second)
        {
            completedOrder.emplace_back(key, now);
        }
        SendAck(key, completedIn.round, from);
    }
    ++Stats().messagesDelivered;
    FlDatagramMessage msg;
    msg.from = from;
    msg.sender = key.sender;
    msg.round = completedIn.round;
    msg.complete = true;
    msg.chunkCount = completedIn.chunkCount;
    msg.chunksMissing = 0;
    msg.length = static_cast<uint32_t>(completedIn.bytes.size());
    msg.bytes = std::move(completedIn.bytes);
    if (!msg.bytes.empty())
    {
        msg.receivedBytes.push_back({0, msg.bytes.size()});
    }
    Deliver(msg);
}

void
FlDatagramEndpoint::Impl::GiveUp(const FlGivenUpMessage& lost)
{
    if (giveUp && !closed)
    {
        Ptr<FlDatagramEndpoint> keep(owner); // the callback may drop the last reference
        giveUp(lost);
    }
}

void
FlDatagramEndpoint::Impl::Deliver(FlDatagramMessage& msg)
{
    if (!deliver.IsNull())
    {
        deliver(Ptr<FlDatagramEndpoint>(owner), msg);
    }
}

void
FlDatagramEndpoint::Impl::OnReassemblyTimer(fl::MessageKey key)
{
    Ptr<FlDatagramEndpoint> keep(owner);
    auto it = in.find(key);
    if (it == in.end())
    {
        return;
    }
    if (!reassembler.IsOpen(key))
    {
        in.erase(it); // evicted by the reassembler (counted then)
        return;
    }
    const Time deadline =
        it->second.lastArrival + Wait(ReassemblyBase(it->second.from), it->second.nacks);
    const Time now = Simulator::Now();
    if (now < deadline)
    {
        it->second.timer = Simulator::Schedule(deadline - now, &Impl::OnReassemblyTimer, this, key);
        return;
    }
    Resolve(key, Reason::Timeout);
}

void
FlDatagramEndpoint::Impl::Resolve(const fl::MessageKey& key, Reason reason)
{
    auto it = in.find(key);
    Address from;
    uint32_t round = 0;
    const bool known = it != in.end();
    if (known)
    {
        Incoming& m = it->second;
        round = m.round;
        if (reason == Reason::Timeout && m.nacks < Config().retryLimit &&
            (Config().holePolicy == FlHolePolicy::Retransmit || NeedsWhole(key, m.round)))
        {
            ++m.nacks;
            SendNacks(key, m);
            m.lastArrival = Simulator::Now();
            m.timer = Simulator::Schedule(Wait(ReassemblyBase(m.from), m.nacks),
                                          &Impl::OnReassemblyTimer,
                                          this,
                                          key);
            return;
        }
        from = m.from;
        m.timer.Cancel();
        in.erase(it);
    }
    if (Config().holePolicy != FlHolePolicy::KeepPrevious || reason == Reason::Discard ||
        (known && NeedsWhole(key, round)))
    {
        const uint64_t lost = reassembler.Stats().lostChunks;
        if (reassembler.Abandon(key))
        {
            Stats().chunksLost += reassembler.Stats().lostChunks - lost;
            ++Stats().messagesDropped;
            NS_LOG_LOGIC("message (" << key.sender << ", " << key.messageId << ") given up, "
                                     << reassembler.Stats().lostChunks - lost << " chunks missing");
            if (known && reason == Reason::Timeout)
            {
                FlGivenUpMessage lostMessage;
                lostMessage.peer = from;
                lostMessage.peerId = key.sender;
                lostMessage.round = round;
                GiveUp(lostMessage);
            }
        }
        return;
    }
    fl::PartialMessage partial;
    if (!reassembler.Abandon(key, &partial))
    {
        return;
    }
    const uint32_t missing = partial.ChunksMissing();
    Stats().chunksLost += missing;
    ++Stats().messagesPartial;
    FlDatagramMessage msg;
    msg.from = from;
    msg.sender = key.sender;
    msg.round = partial.round;
    msg.complete = false;
    msg.chunkCount = partial.chunkCount;
    msg.chunksMissing = missing;
    msg.length = partial.length;
    msg.bytes = std::move(partial.receivedData); // packed: what arrived, not the length
    msg.receivedBytes = std::move(partial.receivedBytes);
    Deliver(msg);
}

} // namespace ns3
