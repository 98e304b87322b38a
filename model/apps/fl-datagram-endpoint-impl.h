/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * FlDatagramEndpoint's state (FlDatagramEndpoint::Impl), shared by its three sources:
 * fl-datagram-endpoint.cc (the public calls, configuration and statistics),
 * fl-datagram-endpoint-sender.cc (pacing, first transmissions, retransmissions, feedback
 * received, rate control) and fl-datagram-endpoint-receiver.cc (chunks received, reassembly,
 * ACK/NACK feedback sent, hole policies, delivery). Not for programs.
 */
#ifndef FL_DATAGRAM_ENDPOINT_IMPL_H
#define FL_DATAGRAM_ENDPOINT_IMPL_H

#include "ns3/arp-cache.h"
#include "ns3/fl-datagram-endpoint.h"
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
#include <deque>
#include <map>
#include <unordered_map>
#include <vector>

namespace ns3
{

namespace fldatagram
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
inline Time
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
inline NextHop
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
inline uint32_t
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

} // namespace fldatagram

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
        Time lastSent;  ///< when its latest datagram other than a probe left (Retransmit)
        Time firstSent; ///< when its first chunk left
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
        Address from;         ///< the sender's address (from its latest chunk)
        uint32_t round{0};    ///< round from the chunk headers
        Time lastArrival;     ///< time of the latest new chunk (or of the latest NACK)
        Time lastFirst;       ///< time of the latest first transmission of a chunk (Retransmit)
        bool anyFirst{false}; ///< a first transmission of a chunk arrived
        uint32_t nacks{0};    ///< NACK rounds sent since the last new chunk
        EventId timer;        ///< reassembly timer (checked lazily)
    };

    Impl(FlDatagramEndpoint* o, uint32_t id, const FlDatagramConfig& c)
        : owner(o),
          localId(id),
          maxChunkPayload(fl::MaxChunkPayloadForMtu(c.mtu, "mtu")),
          maxNackIndices(fl::MaxNackIndices(c.mtu - fldatagram::kIpUdpOverhead)),
          closedRetention(fldatagram::ClosedRetention(c)),
          maxRate(static_cast<double>(c.pacingRate.GetBitRate())),
          rate(maxRate),
          reassembler(c.maxOpenMessages,
                      c.maxMessageBytes,
                      fldatagram::kCompletedHistory,
                      fldatagram::ClosedRetention(c).GetSeconds())
    {
    }

    FlDatagramStats& Stats();

    const FlDatagramConfig& Config() const;

    // ------------------------------------------------------------------------------ sending

    /// Schedules SendNext at the next pacing slot if anything is queued and none is pending.
    void Kick();

    /// Hands one datagram to the socket (counted even if the socket refuses it: then it also
    /// counts as a send error and is lost, like a datagram dropped by the network).
    void Transmit(const Address& to, const uint8_t* data, uint32_t size);

    /// Sends the datagram at the head of the queues (feedback, then retransmissions, then
    /// first transmissions) and schedules the next one after its pacing interval.
    void SendNext();

    /**
     * The destination of the datagram SendNext would send now, after dropping queue entries of
     * forgotten messages from the fronts; false if nothing is queued.
     */
    bool HeadDestination(Address& to);

    /// Builds chunk `index` of m into the reused buffer and transmits it; returns its size.
    uint32_t SendChunk(const Outgoing& m, uint32_t index, uint8_t flags);

    /// Accounts one datagram of a message as sent; when none is left queued, arms the ACK
    /// timeout (Retransmit) or forgets the message.
    void Dequeued(std::map<uint32_t, Outgoing>::iterator it, uint32_t size);

    /// Queues a retransmission of chunk `index` unless it is queued already.
    bool QueueRetx(Outgoing& m, uint32_t index, bool probe);

    void ArmAck(Outgoing& m);

    /**
     * Retransmit: the ACK timeout for messages to `to`, stretched to the peer's feedback delay
     * (FlDelayEstimate: smoothed + 4 variations) and doubled for each probe the latest message
     * to it needed before any feedback, while no new sample came (as TCP keeps a backed-off
     * retransmission timer until a new measurement, RFC 6298, section 5.7); at most
     * kFlMaxAdaptiveTimeout x ackTimeout. The configured one otherwise.
     */
    Time AckBase(const Address& to) const;

    /// Retransmit: the first feedback about `m` came now (a sample of its peer's feedback
    /// delay, unless probes went out before it; and one step of the rate control).
    void NoteFeedback(Outgoing& m, const fl::ChunkFeedback& fb);

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
    void ControlRate(const Outgoing& m, const fl::ChunkFeedback& fb);

    /**
     * Retransmit: the reassembly timeout for chunks from `from`, stretched to the peer's gap
     * estimate (FlDelayEstimate); the configured one otherwise.
     */
    Time ReassemblyBase(const Address& from) const;

    /// Retransmit: a first transmission of a chunk of `m` arrived from `from` now; the gap
    /// since the previous one of the same message is a sample of the peer's pace.
    void NoteFirstArrival(Incoming& m, const Address& from);

    /// The wait of a timer after `attempt` fruitless attempts: backed off with Retransmit
    /// (FlRetryWait), `base` otherwise (KeepPrevious's sender keeps a message only ackTimeout
    /// after its last datagram: its receiver's NACKs must come as often as before).
    Time Wait(Time base, uint32_t attempt) const;

    /// No feedback for ackTimeout after the last datagram of a message: probe or give up.
    void OnAckTimeout(uint32_t id);

    /// Drops an outgoing message (its queue entries are skipped when they come up).
    std::map<uint32_t, Outgoing>::iterator Forget(std::map<uint32_t, Outgoing>::iterator it);

    /// Removes the queue entries of forgotten messages (keeps memory bounded after discards).
    void CompactQueues();

    void QueueFeedback(const Address& to);

    void SendAck(const fl::MessageKey& key, uint32_t round, const Address& to);

    /// NACKs the missing chunks of an open message (several datagrams if they do not fit one).
    void SendNacks(const fl::MessageKey& key, const Incoming& in);

    // ---------------------------------------------------------------------------- receiving

    void HandleRead(Ptr<Socket> socket);

    void HandleFeedback(const uint8_t* data, uint32_t size);

    void HandleChunk(const uint8_t* data, uint32_t size, const Address& from);

    /// Delivers the message in completedIn.
    void Complete(const Address& from);

    /// Tells the application of a message given up (it may send, discard or close from it).
    void GiveUp(const FlGivenUpMessage& lost);

    void Deliver(FlDatagramMessage& msg);

    void OnReassemblyTimer(fl::MessageKey key);

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
    void Resolve(const fl::MessageKey& key, Reason reason);

    /// KeepPrevious: the receiver has nothing to fill this message's holes from.
    bool NeedsWhole(const fl::MessageKey& key, uint32_t round) const;

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
    Time closedRetention;  ///< see fldatagram::ClosedRetention
    double maxRate;        ///< pacingRate [bit/s]
    double rate;           ///< sending rate now [bit/s] (ControlRate)
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
    std::map<Address, uint32_t> peerIds;     ///< sender id of the chunks from each address
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
    std::map<fl::MessageKey, Incoming, fldatagram::KeyLess> in;
    std::unordered_map<fl::MessageKey, Address, fl::MessageKeyHash> completed;
    std::deque<std::pair<fl::MessageKey, Time>> completedOrder; ///< keys and completion times
    std::vector<uint8_t> rxBuffer;
    fl::CompletedMessage completedIn;
    fl::ChunkFeedback feedbackIn;
};

} // namespace ns3

#endif // FL_DATAGRAM_ENDPOINT_IMPL_H
