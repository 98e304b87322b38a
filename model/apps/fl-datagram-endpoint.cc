/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * FlDatagramEndpoint: the public calls, the retry and rate-control arithmetic, the hole
 * policies' names; its sending and receiving sides are fl-datagram-endpoint-sender.cc and
 * fl-datagram-endpoint-receiver.cc, its state fl-datagram-endpoint-impl.h.
 */
#include "ns3/fl-datagram-endpoint.h"
#include "ns3/fl-datagram-endpoint-impl.h"

#include "ns3/arp-cache.h"
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

NS_LOG_COMPONENT_DEFINE("FlDatagramEndpoint");

LogComponent&
FlDatagramEndpointLog()
{
    return g_log;
}

using namespace fldatagram;

Time
FlRetryWait(Time base, uint32_t attempt)
{
    uint64_t factor = 1;
    for (uint32_t k = 1; k < attempt && factor < kFlMaxRetryBackoff; ++k)
    {
        factor *= 2;
    }
    return base * static_cast<int64_t>(std::min<uint64_t>(factor, kFlMaxRetryBackoff));
}

Time
FlRetryBudget(Time base, uint32_t attempts)
{
    NS_ASSERT_MSG(attempts <= kFlMaxRetryLimit, "at most kFlMaxRetryLimit attempts");
    Time sum;
    for (uint32_t k = 0; k <= attempts; ++k)
    {
        sum += FlRetryWait(base, k);
    }
    return sum;
}

void
FlDelayEstimate::Add(double sample)
{
    if (!valid)
    {
        valid = true;
        smoothed = sample;
        variation = sample / 2.0;
        return;
    }
    variation = 0.75 * variation + 0.25 * std::abs(smoothed - sample);
    smoothed = 0.875 * smoothed + 0.125 * sample;
}

double
FlDelayEstimate::Timeout() const
{
    return valid ? smoothed + 4.0 * variation : 0.0;
}

double
FlCongestionRate(double rate, double queueingDelay, double target, double minRate, double maxRate)
{
    const double next =
        queueingDelay <= target
            ? rate + kFlRateGain * (target - std::max(queueingDelay, 0.0)) / target * maxRate
            : rate * std::max(0.5, target / queueingDelay);
    return std::clamp(next, minRate, maxRate);
}

const char*
FlHolePolicyName(FlHolePolicy p)
{
    switch (p)
    {
    case FlHolePolicy::Drop:
        return "drop";
    case FlHolePolicy::KeepPrevious:
        return "keep-previous";
    case FlHolePolicy::Retransmit:
        return "retransmit";
    }
    return "unknown";
}

FlHolePolicy
ParseFlHolePolicy(const std::string& name, const std::string& parameter)
{
    if (name == "drop")
    {
        return FlHolePolicy::Drop;
    }
    if (name == "keep-previous")
    {
        return FlHolePolicy::KeepPrevious;
    }
    if (name == "retransmit")
    {
        return FlHolePolicy::Retransmit;
    }
    throw fl::ConfigError(parameter,
                          "unknown hole policy '" + name + "'",
                          "use drop, keep-previous or retransmit");
}

FlDatagramStats&
FlDatagramEndpoint::Impl::Stats()
{
    return owner->m_stats;
}

const FlDatagramConfig&
FlDatagramEndpoint::Impl::Config() const
{
    return owner->m_config;
}

Time
FlDatagramEndpoint::Impl::AckBase(const Address& to) const
{
    const Time base = Config().ackTimeout;
    if (Config().holePolicy != FlHolePolicy::Retransmit)
    {
        return base;
    }
    auto it = acks.find(to);
    // a peer not heard from yet: what the others' feedback took (peers of one cell alike)
    const AckTiming& t = it != acks.end() && it->second.delay.valid ? it->second : pooledAck;
    const uint32_t backoff = it != acks.end() ? it->second.backoff : 0;
    const Time adapted = std::max(base, Seconds(t.delay.Timeout())) *
                         (int64_t{1} << std::min<uint32_t>(backoff, 4));
    return std::min(adapted, base * static_cast<int64_t>(kFlMaxAdaptiveTimeout));
}

Time
FlDatagramEndpoint::Impl::ReassemblyBase(const Address& from) const
{
    const Time base = Config().reassemblyTimeout;
    if (Config().holePolicy != FlHolePolicy::Retransmit)
    {
        return base;
    }
    auto it = gaps.find(from);
    // a peer whose pace is not known yet: the others' (peers of one cell alike)
    const FlDelayEstimate& e = it != gaps.end() ? it->second : pooledGap;
    const Time adapted = Seconds(e.Timeout());
    return std::min(std::max(base, adapted),
                    base * static_cast<int64_t>(kFlMaxAdaptiveTimeout));
}

Time
FlDatagramEndpoint::Impl::Wait(Time base, uint32_t attempt) const
{
    return Config().holePolicy == FlHolePolicy::Retransmit ? FlRetryWait(base, attempt) : base;
}

bool
FlDatagramEndpoint::Impl::NeedsWhole(const fl::MessageKey& key, uint32_t round) const
{
    return Config().holePolicy == FlHolePolicy::KeepPrevious && canFillHoles &&
           !canFillHoles(key.sender, round);
}


// ------------------------------------------------------------------------- FlDatagramEndpoint

FlDatagramEndpoint::FlDatagramEndpoint(Ptr<Socket> socket,
                                       uint32_t localId,
                                       const FlDatagramConfig& config)
    : m_socket(socket),
      m_config(config)
{
    NS_LOG_FUNCTION(this << socket << localId);
    if (!socket)
    {
        throw fl::ConfigError("socket", "no socket given", "pass a bound UDP socket");
    }
    if (config.pacingRate.GetBitRate() == 0)
    {
        throw fl::ConfigError("pacingRate",
                              "a zero rate never sends anything",
                              "use a positive rate, e.g. the link's rate (\"20Mb/s\")");
    }
    if (!config.reassemblyTimeout.IsStrictlyPositive())
    {
        throw fl::ConfigError("reassemblyTimeout",
                              "must be positive",
                              "use a few round-trip times, e.g. 100 ms");
    }
    if (!config.ackTimeout.IsStrictlyPositive())
    {
        throw fl::ConfigError("ackTimeout",
                              "must be positive",
                              "use more than reassemblyTimeout plus a round-trip time");
    }
    if (config.retryLimit > kFlMaxRetryLimit)
    {
        throw fl::ConfigError("retryLimit",
                              "is " + std::to_string(config.retryLimit) + ", above " +
                                  std::to_string(kFlMaxRetryLimit),
                              "use at most " + std::to_string(kFlMaxRetryLimit) +
                                  " (the waits back off: 5 already give 32 timeouts)");
    }
    if (config.congestionTarget.IsStrictlyNegative())
    {
        throw fl::ConfigError("congestionTarget",
                              "must not be negative",
                              "use a queueing delay such as 100 ms, or 0 to turn the rate "
                              "control off");
    }
    if (config.maxOpenMessages == 0)
    {
        throw fl::ConfigError("maxOpenMessages",
                              "must be at least 1",
                              "allow at least one incoming message per peer");
    }
    if (config.holePolicy != FlHolePolicy::Drop &&
        config.holePolicy != FlHolePolicy::KeepPrevious &&
        config.holePolicy != FlHolePolicy::Retransmit)
    {
        throw fl::ConfigError("holePolicy",
                              "unknown value " +
                                  std::to_string(static_cast<int>(config.holePolicy)),
                              "use drop, keep-previous or retransmit");
    }
    // Checks the MTU (throws ConfigError naming "mtu").
    m_impl = std::make_unique<Impl>(this, localId, config);
    m_socket->SetRecvCallback(MakeCallback(&Impl::HandleRead, m_impl.get()));
}

FlDatagramEndpoint::~FlDatagramEndpoint()
{
    NS_LOG_FUNCTION(this);
    if (m_impl && !m_impl->closed)
    {
        // Events and the socket's callback point at this object: unhook them (the socket
        // itself stays open; Close() closes it).
        m_impl->sendEvent.Cancel();
        for (auto& kv : m_impl->out)
        {
            kv.second.ackEvent.Cancel();
        }
        for (auto& kv : m_impl->in)
        {
            kv.second.timer.Cancel();
        }
        m_socket->SetRecvCallback(MakeNullCallback<void, Ptr<Socket>>());
    }
}

void
FlDatagramEndpoint::SetDeliverCallback(DeliverCallback cb)
{
    m_impl->deliver = cb;
}

void
FlDatagramEndpoint::SetCanFillHolesCallback(CanFillHolesCallback cb)
{
    m_impl->canFillHoles = std::move(cb);
}

void
FlDatagramEndpoint::SetGiveUpCallback(GiveUpCallback cb)
{
    m_impl->giveUp = std::move(cb);
}

std::map<uint32_t, FlChunkTally>
FlDatagramEndpoint::ChunkTallies(uint32_t round) const
{
    const Impl& d = *m_impl;
    std::map<uint32_t, FlChunkTally> t;
    auto s = d.sentTally.find(round);
    if (s != d.sentTally.end())
    {
        for (const auto& kv : s->second)
        {
            auto id = d.peerIds.find(kv.first);
            t[id == d.peerIds.end() ? kUnknownPeer : id->second].sent += kv.second;
        }
    }
    auto r = d.receivedTally.find(round);
    if (r != d.receivedTally.end())
    {
        for (const auto& kv : r->second)
        {
            t[kv.first].received += kv.second;
        }
    }
    return t;
}

uint32_t
FlDatagramEndpoint::Send(const Address& to,
                         uint32_t round,
                         std::shared_ptr<const std::vector<uint8_t>> bytes)
{
    NS_LOG_FUNCTION(this << to << round << (bytes ? bytes->size() : 0));
    if (!bytes)
    {
        throw fl::ConfigError("bytes", "no message given", "pass an encoded message");
    }
    Impl& d = *m_impl;
    const uint32_t id = d.nextMessageId++;
    if (d.closed)
    {
        return id;
    }
    Impl::Outgoing m;
    m.to = to;
    m.id = id;
    m.round = round;
    m.chunkCount = fl::ChunkCount(bytes->size(), d.maxChunkPayload); // throws if >= 4 GiB
    m.bytes = std::move(bytes);
    m.queued = m.chunkCount;
    m.queuedBytes = static_cast<uint64_t>(fl::ChunkHeader::kSize) * m.chunkCount + m.bytes->size();
    d.queuedBytes += m.queuedBytes;
    ++m_stats.messagesSent;
    d.out.emplace(id, std::move(m));
    d.firstQueue.push_back(id);
    d.Kick();
    return id;
}

void
FlDatagramEndpoint::FlushIncomplete()
{
    NS_LOG_FUNCTION(this);
    Ptr<FlDatagramEndpoint> keep(this); // the deliver callback may drop the last reference
    Impl& d = *m_impl;
    for (const auto& key : d.reassembler.OpenMessages())
    {
        if (d.closed)
        {
            return;
        }
        d.Resolve(key, Impl::Reason::Flush);
    }
}

void
FlDatagramEndpoint::DiscardBefore(uint32_t round)
{
    NS_LOG_FUNCTION(this << round);
    Impl& d = *m_impl;
    if (d.closed)
    {
        return;
    }
    for (auto it = d.out.begin(); it != d.out.end();)
    {
        it = it->second.round < round ? d.Forget(it) : std::next(it);
    }
    d.CompactQueues();
    std::vector<fl::MessageKey> old;
    for (const auto& kv : d.in)
    {
        if (kv.second.round < round)
        {
            old.push_back(kv.first);
        }
    }
    for (const auto& key : old)
    {
        d.Resolve(key, Impl::Reason::Discard);
    }
    d.sentTally.erase(d.sentTally.begin(), d.sentTally.lower_bound(round));
    d.receivedTally.erase(d.receivedTally.begin(), d.receivedTally.lower_bound(round));
}

void
FlDatagramEndpoint::Close()
{
    NS_LOG_FUNCTION(this);
    Impl& d = *m_impl;
    if (d.closed)
    {
        return;
    }
    d.closed = true;
    d.sendEvent.Cancel();
    for (auto& kv : d.out)
    {
        kv.second.ackEvent.Cancel();
    }
    for (auto& kv : d.in)
    {
        kv.second.timer.Cancel();
    }
    d.out.clear();
    d.in.clear();
    d.firstQueue.clear();
    d.retxQueue.clear();
    d.feedbackQueue.clear();
    d.queuedBytes = 0;
    m_socket->SetRecvCallback(MakeNullCallback<void, Ptr<Socket>>());
    m_socket->Close();
}

uint64_t
FlDatagramEndpoint::BytesQueued() const
{
    return m_impl->queuedBytes;
}

double
FlDatagramEndpoint::SendingRate() const
{
    return m_impl->rate;
}

double
FlDatagramEndpoint::BaseDelay() const
{
    return m_impl->baseValid ? m_impl->baseDelay : 0.0;
}

fl::MessageDecodeStatus
DecodeDatagramMessage(const FlDatagramMessage& dm,
                      const fl::ParamVector* previous,
                      fl::Precision to,
                      fl::ReceivedMessage& out,
                      uint64_t* filledCoordinates)
{
    // The endpoint bounded the message length already (FlDatagramConfig::maxMessageBytes).
    constexpr uint32_t kMaxPayload = 0xFFFFFFFFu - fl::MessageHeader::kSize;
    if (filledCoordinates)
    {
        *filledCoordinates = 0;
    }
    if (dm.complete)
    {
        return fl::DecodeWholeMessage(dm.bytes.data(), dm.bytes.size(), to, kMaxPayload, out);
    }
    if (previous == nullptr)
    {
        return fl::MessageDecodeStatus::SizeMismatch;
    }
    std::size_t filled = 0;
    const fl::MessageDecodeStatus st = fl::DecodePackedPartialMessage(dm.length,
                                                                      dm.receivedBytes,
                                                                      dm.bytes.data(),
                                                                      dm.bytes.size(),
                                                                      *previous,
                                                                      to,
                                                                      kMaxPayload,
                                                                      out,
                                                                      &filled);
    if (filledCoordinates)
    {
        *filledCoordinates = filled;
    }
    return st;
}

} // namespace ns3
