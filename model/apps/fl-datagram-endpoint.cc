/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ns3/fl-datagram-endpoint.h"

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

namespace
{

/// IPv4 (20) and UDP (8) header bytes added to every datagram (for pacing).
constexpr uint32_t kIpUdpOverhead = 28;

/// Completed incoming messages remembered for re-acknowledging late chunks (Retransmit), at
/// most; see ClosedRetention for the bound in time.
constexpr std::size_t kCompletedHistory = 4096;

/**
 * How long the keys of completed or given-up incoming messages are remembered (to recognise late
 * chunks and re-acknowledge them) in simulated time. After its receiver completed a message, a
 * sender sends chunks of it only as probes (its ACK was lost): at most retryLimit of them, the
 * last FlRetryBudget(ackTimeout, retryLimit - 1) after the message's last datagram left; before
 * that, retransmissions answer NACKs sent within FlRetryBudget(reassemblyTimeout, retryLimit -
 * 1) of each other. The sum of both budgets over retryLimit attempts covers either and leaves
 * one more backed-off wait of each for queueing and the network (9.6 s by default with
 * Retransmit, 1.8 s with the other policies, whose timers do not back off), so that a long run
 * keeps seconds' worth of keys instead of kCompletedHistory of them.
 */
Time
ClosedRetention(const FlDatagramConfig& c)
{
    if (c.holePolicy != FlHolePolicy::Retransmit)
    {
        return (c.ackTimeout + c.reassemblyTimeout) * (c.retryLimit + 1.0);
    }
    return FlRetryBudget(c.ackTimeout, c.retryLimit) +
           FlRetryBudget(c.reassemblyTimeout, c.retryLimit);
}

/// NACK datagrams per NACK round at most (the lowest missing chunks first; the rest are NACKed
/// in later rounds): a crafted chunk count cannot make a receiver flood its peer.
constexpr std::size_t kMaxNackDatagrams = 16;

/// How often a held queue looks again at an ARP entry being resolved.
const Time kResolutionPoll = MicroSeconds(500);

/// What the ARP cache says about the next hop of a destination.
enum class NextHop
{
    Ready,   ///< resolved, or no resolution needed (no ARP on the device, broadcast, no route)
    Resolve, ///< no usable entry: the next datagram starts a resolution
    Pending, ///< a resolution is under way: hold the queue
};

/// Looks the next hop of `to` up in the ARP cache of the interface `node` would send it on.
NextHop
LookUpNextHop(Ptr<Node> node, const Address& to)
{
    Ptr<Ipv4L3Protocol> ipv4 = node ? node->GetObject<Ipv4L3Protocol>() : nullptr;
    if (!ipv4 || !ipv4->GetRoutingProtocol() || !InetSocketAddress::IsMatchingType(to))
    {
        return NextHop::Ready;
    }
    const Ipv4Address dst = InetSocketAddress::ConvertFrom(to).GetIpv4();
    if (dst.IsBroadcast() || dst.IsMulticast())
    {
        return NextHop::Ready;
    }
    Ipv4Header header;
    header.SetDestination(dst);
    Socket::SocketErrno err;
    Ptr<Ipv4Route> route = ipv4->GetRoutingProtocol()->RouteOutput(nullptr, header, nullptr, err);
    if (!route || !route->GetOutputDevice())
    {
        return NextHop::Ready; // the send fails and is counted
    }
    const int32_t i = ipv4->GetInterfaceForDevice(route->GetOutputDevice());
    for (uint32_t a = 0; i >= 0 && a < ipv4->GetNAddresses(i); ++a)
    {
        if (dst.IsSubnetDirectedBroadcast(ipv4->GetAddress(i, a).GetMask()))
        {
            return NextHop::Ready; // a subnet broadcast: no ARP (broadcast MAC address)
        }
    }
    Ptr<ArpCache> cache = i >= 0 ? ipv4->GetInterface(i)->GetArpCache() : nullptr;
    if (!cache)
    {
        return NextHop::Ready; // point-to-point, LTE, loopback: no ARP
    }
    const Ipv4Address gw = route->GetGateway();
    ArpCache::Entry* e = cache->Lookup(gw == Ipv4Address::GetAny() ? dst : gw);
    if (!e || (e->IsAlive() && e->IsExpired()))
    {
        return NextHop::Resolve;
    }
    // Alive, permanent or auto-generated: resolved. Dead: ARP gave up; what is sent is lost.
    return e->IsWaitReply() ? NextHop::Pending : NextHop::Ready;
}

/// Datagram size (chunk header + payload) of chunk `index` of a len-byte message.
uint32_t
ChunkDatagramBytes(std::size_t len, uint32_t count, uint32_t index)
{
    if (len == 0)
    {
        return static_cast<uint32_t>(fl::ChunkHeader::kSize);
    }
    const uint64_t p = (len + count - 1) / count;
    const uint64_t begin = static_cast<uint64_t>(index) * p;
    const uint64_t size = std::min<uint64_t>(p, len - begin);
    return static_cast<uint32_t>(fl::ChunkHeader::kSize + size);
}

/// Strict weak order of message keys (deterministic iteration over incoming messages).
struct KeyLess
{
    bool operator()(const fl::MessageKey& a, const fl::MessageKey& b) const
    {
        return a.sender != b.sender ? a.sender < b.sender : a.messageId < b.messageId;
    }
};

} // namespace

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

/**
 * State and logic of an endpoint.
 *
 * Sending: three FIFO queues drained by one paced event (SendNext), in priority order:
 * feedback datagrams (encoded when queued; small), retransmissions (chunk index references),
 * first transmissions (message references: the front message is sent chunk by chunk). A chunk's
 * bytes are built (MakeChunk into one reused buffer) only when it is its turn, so queued
 * messages cost no more than their shared buffers. Entries of messages forgotten meanwhile
 * (ACKed, discarded) are skipped when they reach the front.
 *
 * Receiving: one fl::ChunkReassembler; every open message has an Incoming record with its
 * peer's address, its last arrival time and one timer. The timer is checked lazily: when it
 * fires before lastArrival + reassemblyTimeout (chunks arrived meanwhile) it is re-armed for
 * that instant, so a message costs about one event per reassemblyTimeout, not one per chunk.
 *
 * Sender ACK timeouts (Retransmit): one event per message, armed when the last queued datagram
 * of the message (first transmission or retransmission batch) went out, cancelled by feedback.
 */
struct FlDatagramEndpoint::Impl
{
    /// An outgoing message, from Send() until it is sent (or, with Retransmit, acknowledged).
    struct Outgoing
    {
        Address to;                                        ///< destination
        uint32_t id{0};                                    ///< message id
        uint32_t round{0};                                 ///< round
        std::shared_ptr<const std::vector<uint8_t>> bytes; ///< the message (shared)
        uint32_t chunkCount{0};                            ///< chunks of the message
        uint32_t nextFirst{0};            ///< chunks [0, nextFirst) had their first transmission
        uint32_t queued{0};               ///< datagrams of this message in the queues
        uint64_t queuedBytes{0};          ///< their bytes
        std::vector<uint64_t> retxQueued; ///< bit i: chunk i is in the retransmission queue
        uint32_t probes{0};               ///< probes since the last feedback
        EventId ackEvent;                 ///< ACK timeout (Retransmit)
        Time lastSent;     ///< when its latest datagram other than a probe left (Retransmit)
        Time firstSent;    ///< when its first chunk left
        std::vector<Time> probesSent; ///< when its probes left, until its first feedback
        /// rate control: when chunk i had its first transmission, until the first feedback
        std::vector<Time> chunkSent;
        bool heard{false}; ///< feedback about it came (Retransmit)
    };

    /// What a sender learned of the feedback delay of one peer (Retransmit).
    struct AckTiming
    {
        /// last first transmission of a message -> its first feedback, for messages that
        /// needed no probe before it (Karn's rule: a probed one is ambiguous)
        FlDelayEstimate delay;
        uint32_t backoff{0}; ///< probes the latest message needed before feedback, since a sample
    };

    /// A retransmission (or probe) waiting in the queue.
    struct RetxEntry
    {
        uint32_t id;    ///< message id
        uint32_t index; ///< chunk index
        bool probe;     ///< sent because of an ACK timeout
    };

    /// A feedback datagram waiting in the queue.
    struct FeedbackEntry
    {
        Address to;                 ///< the original sender
        fl::FeedbackType type;      ///< ACK or NACK
        std::vector<uint8_t> bytes; ///< the encoded datagram
    };

    /// An incoming message being assembled.
    struct Incoming
    {
        Address from;      ///< the sender's address (from its latest chunk)
        uint32_t round{0}; ///< round from the chunk headers
        Time lastArrival;  ///< time of the latest new chunk (or of the latest NACK)
        Time lastFirst;    ///< time of the latest first transmission of a chunk (Retransmit)
        bool anyFirst{false}; ///< a first transmission of a chunk arrived
        uint32_t nacks{0}; ///< NACK rounds sent since the last new chunk
        EventId timer;     ///< reassembly timer (checked lazily)
    };

    Impl(FlDatagramEndpoint* o, uint32_t id, const FlDatagramConfig& c)
        : owner(o),
          localId(id),
          maxChunkPayload(fl::MaxChunkPayloadForMtu(c.mtu, "mtu")),
          maxNackIndices(fl::MaxNackIndices(c.mtu - kIpUdpOverhead)),
          closedRetention(ClosedRetention(c)),
          maxRate(static_cast<double>(c.pacingRate.GetBitRate())),
          rate(maxRate),
          reassembler(c.maxOpenMessages,
                      c.maxMessageBytes,
                      kCompletedHistory,
                      ClosedRetention(c).GetSeconds())
    {
    }

    FlDatagramStats& Stats()
    {
        return owner->m_stats;
    }

    const FlDatagramConfig& Config() const
    {
        return owner->m_config;
    }

    // ------------------------------------------------------------------------------ sending

    /// Schedules SendNext at the next pacing slot if anything is queued and none is pending.
    void Kick()
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

    /// Hands one datagram to the socket (counted even if the socket refuses it: then it also
    /// counts as a send error and is lost, like a datagram dropped by the network).
    void Transmit(const Address& to, const uint8_t* data, uint32_t size)
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

    /// Sends the datagram at the head of the queues (feedback, then retransmissions, then
    /// first transmissions) and schedules the next one after its pacing interval.
    void SendNext()
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

    /**
     * The destination of the datagram SendNext would send now, after dropping queue entries of
     * forgotten messages from the fronts; false if nothing is queued.
     */
    bool HeadDestination(Address& to)
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

    /// Builds chunk `index` of m into the reused buffer and transmits it; returns its size.
    uint32_t SendChunk(const Outgoing& m, uint32_t index, uint8_t flags)
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

    /// Accounts one datagram of a message as sent; when none is left queued, arms the ACK
    /// timeout (Retransmit) or forgets the message.
    void Dequeued(std::map<uint32_t, Outgoing>::iterator it, uint32_t size)
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

    /// Queues a retransmission of chunk `index` unless it is queued already.
    bool QueueRetx(Outgoing& m, uint32_t index, bool probe)
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

    void ArmAck(Outgoing& m)
    {
        m.ackEvent.Cancel();
        m.ackEvent =
            Simulator::Schedule(Wait(AckBase(m.to), m.probes), &Impl::OnAckTimeout, this, m.id);
    }

    /**
     * Retransmit: the ACK timeout for messages to `to`, stretched to the peer's feedback delay
     * (FlDelayEstimate: smoothed + 4 variations) and doubled for each probe the latest message
     * to it needed before any feedback, while no new sample came (as TCP keeps a backed-off
     * retransmission timer until a new measurement, RFC 6298, section 5.7); at most
     * kFlMaxAdaptiveTimeout x ackTimeout. The configured one otherwise.
     */
    Time AckBase(const Address& to) const
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

    /// Retransmit: the first feedback about `m` came now (a sample of its peer's feedback
    /// delay, unless probes went out before it; and one step of the rate control).
    void NoteFeedback(Outgoing& m, const fl::ChunkFeedback& fb)
    {
        if (m.heard || Config().holePolicy != FlHolePolicy::Retransmit ||
            m.nextFirst < m.chunkCount)
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

    /**
     * Retransmit, congestionTarget > 0: one step of the delay-based rate control when the
     * first feedback about `m` came now. An ACK answers the message's last datagram: its delay
     * since that datagram left is a sample if no probe went out before it (exact). A NACK
     * left its receiver at least the configured reassembly timeout after the latest new chunk
     * came there (both ends of a link are set alike), and that chunk left no earlier than the
     * first transmission of the highest chunk the NACK shows as received
     * (fl::HighestReceivedChunk): the NACK's delay since then, less the timeout, is a sample
     * (an upper bound of the path's delay, as the receiver may have waited longer). A NACK
     * that shows no chunk as received (its batch's other NACKs hold that), or arrived sooner
     * than the timeout after that chunk left (the ends are set differently), says nothing of
     * the delay. Timing a NACK from the message's last datagram instead would be wrong when
     * the message's last chunks were lost: the receiver's timer then started at an earlier
     * chunk, and the NACK may come back less than the timeout after the last datagram left.
     * The smallest exact sample is the base delay (RFC 6817's: the path without queue; the
     * peers of an endpoint are taken to share its path, e.g. one cell; until an exact sample
     * came, the smallest NACK sample stands in for it). A probed message's ACK gives a lower
     * bound: the ACK cannot answer a datagram sent less than the base delay before it, so it
     * answers one sent at or before the latest datagram that left at least the base delay ago,
     * and its delay is at least the time since then (for a probe answered at once, as over a
     * lossy link, about the base delay: nothing to react to; for a message whose chunks sat in
     * a queue while its probes went out, the queue). Karn's rule keeps probed samples out of
     * the timeout estimate (NoteFeedback); a lower bound of the queue is enough to slow down,
     * never to speed up. The queueing delay, sample - base delay, moves the rate
     * (FlCongestionRate) once per flight: a message whose first chunk left before the last
     * change shows the queue of the old rate and is not used (as TCP halves its window once
     * per window of data).
     */
    void ControlRate(const Outgoing& m, const fl::ChunkFeedback& fb)
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
            if (!fl::HighestReceivedChunk(fb.missing,
                                          m.chunkCount,
                                          m.nextFirst,
                                          maxNackIndices,
                                          h) ||
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

    /**
     * Retransmit: the reassembly timeout for chunks from `from`, stretched to the peer's gap
     * estimate (FlDelayEstimate); the configured one otherwise.
     */
    Time ReassemblyBase(const Address& from) const
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

    /// Retransmit: a first transmission of a chunk of `m` arrived from `from` now; the gap
    /// since the previous one of the same message is a sample of the peer's pace.
    void NoteFirstArrival(Incoming& m, const Address& from)
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

    /// The wait of a timer after `attempt` fruitless attempts: backed off with Retransmit
    /// (FlRetryWait), `base` otherwise (KeepPrevious's sender keeps a message only ackTimeout
    /// after its last datagram: its receiver's NACKs must come as often as before).
    Time Wait(Time base, uint32_t attempt) const
    {
        return Config().holePolicy == FlHolePolicy::Retransmit ? FlRetryWait(base, attempt) : base;
    }

    /// No feedback for ackTimeout after the last datagram of a message: probe or give up.
    void OnAckTimeout(uint32_t id)
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

    /// Drops an outgoing message (its queue entries are skipped when they come up).
    std::map<uint32_t, Outgoing>::iterator Forget(std::map<uint32_t, Outgoing>::iterator it)
    {
        queuedBytes -= it->second.queuedBytes;
        it->second.ackEvent.Cancel();
        return out.erase(it);
    }

    /// Removes the queue entries of forgotten messages (keeps memory bounded after discards).
    void CompactQueues()
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

    void QueueFeedback(const Address& to)
    {
        FeedbackEntry e;
        e.to = to;
        e.type = feedback.type;
        fl::EncodeFeedback(feedback, e.bytes);
        feedbackQueue.push_back(std::move(e));
        Kick();
    }

    void SendAck(const fl::MessageKey& key, uint32_t round, const Address& to)
    {
        feedback.type = fl::FeedbackType::Ack;
        feedback.messageId = key.messageId;
        feedback.sender = key.sender;
        feedback.round = round;
        feedback.missing.clear();
        QueueFeedback(to);
    }

    /// NACKs the missing chunks of an open message (several datagrams if they do not fit one).
    void SendNacks(const fl::MessageKey& key, const Incoming& in)
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

    // ---------------------------------------------------------------------------- receiving

    void HandleRead(Ptr<Socket> socket)
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

    void HandleFeedback(const uint8_t* data, uint32_t size)
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

    void HandleChunk(const uint8_t* data, uint32_t size, const Address& from)
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
        const bool firstTransmission = r != fl::ChunkResult::Malformed &&
                                       (data[5] & fl::ChunkHeader::kFlagRetransmission) == 0;
        switch (r)
        {
        case fl::ChunkResult::Malformed:
            ++Stats().chunksMalformed;
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

    /// Delivers the message in completedIn.
    void Complete(const Address& from)
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
            while (!completedOrder.empty() &&
                   (completedOrder.size() >= kCompletedHistory ||
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

    /// Tells the application of a message given up (it may send, discard or close from it).
    void GiveUp(const FlGivenUpMessage& lost)
    {
        if (giveUp && !closed)
        {
            Ptr<FlDatagramEndpoint> keep(owner); // the callback may drop the last reference
            giveUp(lost);
        }
    }

    void Deliver(FlDatagramMessage& msg)
    {
        if (!deliver.IsNull())
        {
            deliver(Ptr<FlDatagramEndpoint>(owner), msg);
        }
    }

    void OnReassemblyTimer(fl::MessageKey key)
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
            it->second.timer =
                Simulator::Schedule(deadline - now, &Impl::OnReassemblyTimer, this, key);
            return;
        }
        Resolve(key, Reason::Timeout);
    }

    /// Why an incoming message is being resolved.
    enum class Reason
    {
        Timeout, ///< reassemblyTimeout without a new chunk: NACK, deliver with holes or drop
        Flush,   ///< FlushIncomplete(): deliver with holes (KeepPrevious) or drop
        Discard, ///< DiscardBefore(): drop
    };

    /**
     * Resolves an incoming message by the hole policy: NACK (Retransmit, on a timeout while
     * NACKs remain), deliver with holes (KeepPrevious, unless discarded) or give it up.
     */
    void Resolve(const fl::MessageKey& key, Reason reason)
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
                                         << reassembler.Stats().lostChunks - lost
                                         << " chunks missing");
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

    /// KeepPrevious: the receiver has nothing to fill this message's holes from.
    bool NeedsWhole(const fl::MessageKey& key, uint32_t round) const
    {
        return Config().holePolicy == FlHolePolicy::KeepPrevious && canFillHoles &&
               !canFillHoles(key.sender, round);
    }

    /**
     * The tally of `round` in `tallies`; when that opens a new round, the oldest rounds beyond
     * kTallyRounds are forgotten (an endpoint whose owner never calls DiscardBefore, e.g. a
     * client's, would otherwise keep one tally per round of the run).
     */
    template <typename Inner>
    Inner& Tally(std::map<uint32_t, Inner>& tallies, uint32_t round)
    {
        auto it = tallies.find(round);
        if (it != tallies.end())
        {
            return it->second;
        }
        Inner& t = tallies[round];
        while (tallies.size() > FlDatagramEndpoint::kTallyRounds && tallies.begin()->first != round)
        {
            tallies.erase(tallies.begin());
        }
        return t;
    }

    FlDatagramEndpoint* owner;
    uint32_t localId;
    std::size_t maxChunkPayload;
    std::size_t maxNackIndices;
    Time closedRetention; ///< see ClosedRetention
    double maxRate;       ///< pacingRate [bit/s]
    double rate;          ///< sending rate now [bit/s] (ControlRate)
    bool baseValid{false}; ///< a rate-control sample came
    bool baseExact{false}; ///< the base delay is an exact sample's
    double baseDelay{0.0}; ///< smallest rate-control sample [s]
    bool changed{false};   ///< the rate changed
    Time lastChange;       ///< when it changed last
    uint32_t nextMessageId{0};
    bool closed{false};
    DeliverCallback deliver;
    CanFillHolesCallback canFillHoles;
    GiveUpCallback giveUp;
    std::map<uint32_t, std::map<Address, uint64_t>> sentTally;      ///< round -> to -> chunks
    std::map<uint32_t, std::map<uint32_t, uint64_t>> receivedTally; ///< round -> sender -> chunks
    std::map<Address, uint32_t> peerIds; ///< sender id of the chunks from each address
    std::map<Address, FlDelayEstimate> gaps; ///< Retransmit: pace of each peer's chunks
    std::map<Address, AckTiming> acks;       ///< Retransmit: feedback delay of each peer
    FlDelayEstimate pooledGap; ///< Retransmit: every peer's gaps, for peers without any yet
    AckTiming pooledAck;       ///< Retransmit: every peer's feedback delays, likewise

    // sending
    std::map<uint32_t, Outgoing> out; ///< by message id
    std::deque<uint32_t> firstQueue;  ///< message ids with first transmissions left, FIFO
    std::deque<RetxEntry> retxQueue;
    std::deque<FeedbackEntry> feedbackQueue;
    uint64_t queuedBytes{0};
    Time nextSendTime;
    EventId sendEvent;
    std::vector<uint8_t> txBuffer;
    fl::ChunkFeedback feedback; ///< scratch for outgoing feedback

    // receiving
    fl::ChunkReassembler reassembler;
    std::map<fl::MessageKey, Incoming, KeyLess> in;
    std::unordered_map<fl::MessageKey, Address, fl::MessageKeyHash> completed;
    std::deque<std::pair<fl::MessageKey, Time>> completedOrder; ///< keys and completion times
    std::vector<uint8_t> rxBuffer;
    fl::CompletedMessage completedIn;
    fl::ChunkFeedback feedbackIn;
};

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
