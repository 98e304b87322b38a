/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Model messages over UDP: fragmentation into chunks, paced sending, reassembly, and the
 * handling of holes left by lost chunks (drop, keep previous values, or selective
 * retransmission with acknowledgements, a timeout and a retry limit).
 */
#ifndef FL_DATAGRAM_ENDPOINT_H
#define FL_DATAGRAM_ENDPOINT_H

#include "ns3/address.h"
#include "ns3/callback.h"
#include "ns3/chunk-feedback.h"
#include "ns3/chunking.h"
#include "ns3/data-rate.h"
#include "ns3/event-id.h"
#include "ns3/nstime.h"
#include "ns3/partial-message.h"
#include "ns3/ptr.h"
#include "ns3/simple-ref-count.h"
#include "ns3/socket.h"

#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup fl-apps
 * What a receiver does with a message some of whose chunks never arrived.
 */
enum class FlHolePolicy : uint8_t
{
    Drop = 0,         ///< give the whole message up
    KeepPrevious = 1, ///< deliver it with holes; the application keeps its previous values there
                      ///< (a message the receiver has no previous values for is NACKed like
                      ///< Retransmit, up to the retry limit, then given up)
    Retransmit = 2,   ///< ask the sender for the missing chunks (NACK), up to a retry limit,
                      ///< then give the message up
};

/// "drop", "keep-previous" or "retransmit".
const char* FlHolePolicyName(FlHolePolicy p);

/**
 * Parses "drop", "keep-previous" or "retransmit". Throws fl::ConfigError naming `parameter`
 * and the accepted values otherwise.
 */
FlHolePolicy ParseFlHolePolicy(const std::string& name, const std::string& parameter);

/**
 * \ingroup fl-apps
 * Settings of an FlDatagramEndpoint.
 */
struct FlDatagramConfig
{
    uint32_t mtu{1500}; ///< IP MTU; chunk payload = fl::MaxChunkPayloadForMtu(mtu)
    DataRate pacingRate{DataRate("20Mb/s")}; ///< rate of this endpoint's datagrams (IP bytes)
    FlHolePolicy holePolicy{FlHolePolicy::Retransmit}; ///< see FlHolePolicy
    /**
     * An incomplete incoming message from which no chunk arrived for this long is resolved:
     * NACKed (Retransmit, while retries remain), delivered with holes (KeepPrevious) or given
     * up (Drop, or Retransmit after retryLimit NACKs in a row that brought no new chunk).
     * Retransmit: longer for a peer whose chunks come further apart (FlDelayEstimate).
     */
    Time reassemblyTimeout{MilliSeconds(100)};
    /**
     * Retransmit only, sender side: if neither an ACK nor a NACK came this long after the last
     * chunk of a message (or of a retransmission) went out, the last chunk is sent again as a
     * probe (so that a receiver that got nothing opens the message and NACKs the rest). Longer
     * for a peer whose feedback takes longer (FlDelayEstimate).
     */
    Time ackTimeout{MilliSeconds(200)};
    /// Retransmit: NACK rounds in a row without a new chunk arriving in between, and probes in a
    /// row without feedback, before a message is given up; the waits between them back off
    /// (FlRetryWait). KeepPrevious: NACK rounds for a message the receiver cannot fill holes of,
    /// reassemblyTimeout apart.
    uint32_t retryLimit{5};
    /**
     * Incoming messages declaring more bytes are malformed (checked on the chunk header, before
     * anything is allocated). Set it to the largest message the application can receive (e.g.
     * FlMaxModelMessageBytes of the task's model); the default is a generous 64 MiB. Whatever
     * it is, an incomplete message costs the receiver the bytes that arrived, not the bytes
     * declared (fl::ChunkReassembler).
     */
    uint32_t maxMessageBytes{fl::kDefaultMaxMessageBytes};
    uint32_t maxOpenMessages{256}; ///< incoming messages assembled at once
    /**
     * Retransmit only, sender side: the queueing delay the sending rate aims at (a delay-based
     * congestion control in the spirit of LEDBAT, RFC 6817 "Low Extra Delay Background
     * Transport (LEDBAT)", whose TARGET is at most 100 ms). The first feedback about each
     * message gives its feedback delay (exact for an ACK before any probe, a lower bound
     * otherwise); its excess over the smallest one seen is the queueing delay behind this
     * sender's traffic, and FlCongestionRate moves the rate of all the endpoint's datagrams
     * from it, once per flight, between pacingRate / kFlMinRateDivisor and pacingRate (lower
     * bounds only ever slow it down). A path whose queueing delay stays below the target keeps
     * pacingRate: nothing changes. Zero (the default) turns the control off: every datagram
     * at pacingRate. Off by default because it trades the length of a round for fewer
     * retransmissions (section "UDP transport" of the module's documentation: in an LTE cell
     * of 200 UEs 2 rounds take 12.0 s instead of 15.7 s, of 100 UEs 100 rounds longer).
     */
    Time congestionTarget{};
};

/// Largest factor by which FlRetryWait stretches a timeout.
constexpr uint32_t kFlMaxRetryBackoff = 64;
/// Largest retryLimit (each attempt past the seventh waits 64 timeouts).
constexpr uint32_t kFlMaxRetryLimit = 64;

/**
 * \ingroup fl-apps
 * The wait of the Retransmit policy's timers before their next step, doubled after every
 * attempt that brought nothing, as TCP's retransmission timer is (RFC 6298, section 5.5):
 * a receiver waits `base` (reassemblyTimeout) for the first chunk after the last, then
 * FlRetryWait(base, n) after its n-th NACK round in a row without a new chunk; a sender waits
 * `base` (ackTimeout) after a message's last datagram, then FlRetryWait(base, n) after its n-th
 * probe in a row without feedback. Attempts 0 and 1 wait `base` (a lossy link that answers the
 * first NACK keeps its timing), attempt n > 1 waits 2^(n-1) x base, at most
 * kFlMaxRetryBackoff x base. With the defaults (100 ms, 200 ms, 5 attempts) a receiver keeps
 * asking for 3.2 s after its last chunk (0.6 s without the back-off) and a sender probes for
 * 6.4 s: a cell whose feedback takes longer than a reassembly timeout to come back (an
 * overloaded LTE uplink) delays a message instead of losing it.
 */
Time FlRetryWait(Time base, uint32_t attempt);

/// Sum of FlRetryWait(base, k) for k = 0 ... attempts (attempts <= kFlMaxRetryLimit): how long
/// a timer waits in all.
Time FlRetryBudget(Time base, uint32_t attempts);

/**
 * \ingroup fl-apps
 * A smoothed delay and its variation, estimated as TCP estimates its round-trip time (RFC 6298,
 * section 2, with alpha = 1/8, beta = 1/4 and K = 4), in seconds. With the Retransmit policy
 * a receiver keeps one per peer for the gaps between the first transmissions of a message's
 * chunks (its reassembly timeout is max(reassemblyTimeout, Timeout()), at most
 * kFlMaxAdaptiveTimeout x reassemblyTimeout), so that a peer whose chunks come slowly (queued
 * behind a loaded LTE uplink, a slow link) is not asked for chunks still on their way; a sender
 * keeps one per peer for the delay from a message's last first transmission to its first
 * feedback (messages probed before it give none: Karn's rule), its ACK timeout likewise. A
 * peer without a sample yet starts from the estimate of all the endpoint's peers.
 */
struct FlDelayEstimate
{
    bool valid{false};     ///< a sample was added
    double smoothed{0.0};  ///< SRTT of RFC 6298 [s]
    double variation{0.0}; ///< RTTVAR of RFC 6298 [s]

    /**
     * Adds one sample R >= 0 [s]: the first sets smoothed = R, variation = R / 2; a later one
     * variation = 3/4 variation + 1/4 |smoothed - R|, then smoothed = 7/8 smoothed + 1/8 R.
     */
    void Add(double sample);

    /// smoothed + 4 variation [s]; 0 while no sample was added.
    double Timeout() const;
};

/// Largest factor by which a peer's delay estimate stretches the reassembly or ACK timeout.
constexpr uint32_t kFlMaxAdaptiveTimeout = 16;

/// The sending rate of FlDatagramConfig::congestionTarget never falls below pacingRate / this.
constexpr uint32_t kFlMinRateDivisor = 256;
/// Additive increase of FlCongestionRate per sample at zero queueing delay, as a fraction of
/// the largest rate.
constexpr double kFlRateGain = 1.0 / 8.0;

/**
 * \ingroup fl-apps
 * One step of the sender's delay-based rate control (FlDatagramConfig::congestionTarget), in
 * the spirit of the linear controller of LEDBAT (RFC 6817 "Low Extra Delay Background Transport
 * (LEDBAT)", section 2.4.2), applied to a sending rate instead of a window. A queueing delay q
 * at or below the target (a negative one counts as 0): additive increase,
 * rate + kFlRateGain x (target - q) / target x maxRate. Above it: multiplicative decrease,
 * rate x max(1/2, target / q) (the rate that would have kept the queue at the target had the
 * sender alone built it, at most a halving, as TCP halves its window once per window of data).
 * The result is clamped to [minRate, maxRate]. Rates in any unit (bits per second in the
 * endpoint), delays in seconds; target > 0.
 */
double FlCongestionRate(double rate,
                        double queueingDelay,
                        double target,
                        double minRate,
                        double maxRate);

/**
 * \ingroup fl-apps
 * Counters of an FlDatagramEndpoint. Every datagram received is counted once in chunksAccepted,
 * chunksDuplicate, chunksLate, chunksMalformed, feedbackReceived or feedbackMalformed.
 */
struct FlDatagramStats
{
    // sending
    uint64_t datagramsSent{0};       ///< datagrams handed to the socket (chunks and feedback)
    uint64_t bytesSent{0};           ///< their UDP payload bytes
    uint64_t messagesSent{0};        ///< messages given to Send()
    uint64_t chunksSent{0};          ///< first transmissions of chunks
    uint64_t chunksRetransmitted{0}; ///< chunks sent again after a NACK or as a probe
    uint64_t probes{0};              ///< of which: probes after an ACK timeout
    uint64_t messagesAcked{0};       ///< own messages acknowledged by their receiver
    uint64_t messagesUnacked{0};     ///< own messages given up after retryLimit probes
    uint64_t sendErrors{0};          ///< socket Send() failures (the datagram is lost)
    uint64_t acksSent{0};            ///< ACKs sent (Retransmit)
    uint64_t nacksSent{0};           ///< NACKs sent (Retransmit)
    uint64_t rateDecreases{0};       ///< sending rate decreases (congestionTarget)
    // receiving
    uint64_t datagramsReceived{0}; ///< datagrams read from the socket
    uint64_t bytesReceived{0};     ///< their bytes
    uint64_t chunksAccepted{0};    ///< new valid chunks
    uint64_t chunksDuplicate{0};   ///< chunks already received
    uint64_t chunksLate{0};        ///< chunks of messages already delivered or given up
    uint64_t chunksMalformed{0};   ///< rejected chunk datagrams (bad header, size, CRC, ...)
    uint64_t chunksTooLarge{0};    ///< of which: declaring a message above maxMessageBytes
    uint64_t feedbackReceived{0};  ///< valid ACK/NACK datagrams
    uint64_t feedbackMalformed{0}; ///< rejected feedback datagrams
    uint64_t chunksLost{0}; ///< chunks missing from messages given up or delivered with holes
    uint64_t messagesDelivered{0}; ///< complete messages delivered
    uint64_t messagesPartial{0};   ///< messages delivered with holes (KeepPrevious)
    uint64_t messagesDropped{0};   ///< incoming messages given up
};

/**
 * \ingroup fl-apps
 * Chunks of one round's messages exchanged with one peer: what was sent and what got through.
 * sent - received (of the two ends of a link) are the chunks that were sent and never
 * delivered, whatever happened to the rest of their messages.
 */
struct FlChunkTally
{
    uint64_t sent{0};     ///< first transmissions of chunks to the peer
    uint64_t received{0}; ///< distinct chunks accepted from the peer (late ones not counted)
};

/**
 * \ingroup fl-apps
 * A message received by an FlDatagramEndpoint, whole or (KeepPrevious) with holes. A message
 * with holes is packed: `bytes` holds only what arrived (its size is sum of receivedBytes'
 * lengths, not `length`), so a message whose chunks declare a huge length costs what arrived.
 */
struct FlDatagramMessage
{
    Address from;              ///< the sender's InetSocketAddress
    uint32_t sender{0};        ///< sender id from the chunk headers
    uint32_t round{0};         ///< round from the chunk headers
    bool complete{true};       ///< all chunks arrived
    uint32_t chunkCount{0};    ///< chunks of the message
    uint32_t chunksMissing{0}; ///< chunks that never arrived (0 if complete)
    uint32_t length{0};        ///< length of the whole message (declared by its chunks)
    /// The bytes received, range after range of receivedBytes: the whole message if complete.
    std::vector<uint8_t> bytes;
    /// Byte ranges of [0, length) received, sorted and disjoint ({0, length} if complete and
    /// not empty).
    std::vector<fl::IndexRange> receivedBytes;
};

/**
 * \ingroup fl-apps
 * A message the endpoint gave up without its application asking (FlDatagramEndpoint's
 * GiveUpCallback): an outgoing one that was not acknowledged after retryLimit probes
 * (Retransmit), or an incoming one still incomplete when its retries ran out (Retransmit,
 * KeepPrevious without values to fill it from) or at its first timeout (Drop). Messages
 * forgotten by DiscardBefore, FlushIncomplete, Close or the open-message limit are not reported.
 */
struct FlGivenUpMessage
{
    bool outgoing{false}; ///< true: sent by this endpoint; false: received (incomplete)
    Address peer;         ///< the destination, or the address the chunks came from
    uint32_t peerId{0};   ///< incoming: the sender id of its chunks; outgoing: 0
    uint32_t round{0};    ///< the round of its chunks
    /// outgoing: the message's bytes (shared, not copied), e.g. to send again; incoming: null
    std::shared_ptr<const std::vector<uint8_t>> bytes;
};

/**
 * \ingroup fl-apps
 * Decodes a delivered message into a model message: a whole one with its CRC checked
 * (fl::DecodeWholeMessage), one with holes (KeepPrevious) with the missing coordinates taken from
 * `previous` (fl::DecodePackedPartialMessage: nothing of the declared length is allocated). A
 * message with holes and no `previous` (null) gives SizeMismatch.
 * @param filledCoordinates if not null, receives the number of coordinates taken from previous
 */
fl::MessageDecodeStatus DecodeDatagramMessage(const FlDatagramMessage& dm,
                                              const fl::ParamVector* previous,
                                              fl::Precision to,
                                              fl::ReceivedMessage& out,
                                              uint64_t* filledCoordinates = nullptr);

/**
 * \ingroup fl-apps
 * One UDP endpoint exchanging model messages (fl::EncodeMessage byte strings) with any number
 * of peers.
 *
 * Send() fragments a message into chunks (chunking.h) and queues them; the queue is drained
 * at the pacing rate (UDP has no flow control: a sender faster than its link only fills
 * queues), messages in FIFO order. Incoming datagrams go through an fl::ChunkReassembler per
 * endpoint; complete messages are delivered at once through the deliver callback. Incomplete
 * ones are resolved by the hole policy after reassemblyTimeout without a new chunk.
 *
 * With Retransmit, the receiver ACKs every completed message (and again for each late chunk
 * of it, in case the ACK was lost) and NACKs the missing chunks of a stalled one; the sender
 * keeps each message until it is acknowledged or given up, re-sends NACKed chunks (flag
 * kFlagRetransmission) and probes with the last chunk after ackTimeout. Feedback datagrams
 * use chunk-feedback.h. With Drop no feedback is sent; with KeepPrevious only NACKs for
 * messages the receiver has nothing to fill holes from (CanFillHolesCallback), e.g. a client's
 * first global model (the sender keeps a message for ackTimeout after its last datagram to
 * answer them).
 *
 * Address resolution: before a datagram goes out, the endpoint looks up the next hop of its
 * destination in the node's ARP cache (if the output device uses ARP). An unresolved next hop
 * gets one datagram (which starts the resolution and waits in ARP's pending queue); the
 * endpoint then holds its queue until the entry is resolved (or ARP gives up), so a burst of
 * chunks never overflows ARP's 3-packet pending queue. This holds for every scene (Wi-Fi,
 * CSMA; point-to-point and LTE devices need no ARP) and for entries that expired mid-run.
 *
 * All timing is simulated time; the endpoint draws no random numbers.
 */
class FlDatagramEndpoint : public SimpleRefCount<FlDatagramEndpoint>
{
  public:
    /// Called for each delivered message (the receiver may move from it).
    using DeliverCallback = Callback<void, Ptr<FlDatagramEndpoint>, FlDatagramMessage&>;
    /// KeepPrevious: whether the receiver has values to fill the holes of a message from
    /// `sender` of `round` (if not, the message is NACKed, then given up; never delivered with
    /// holes).
    using CanFillHolesCallback = std::function<bool(uint32_t sender, uint32_t round)>;
    /// Called for each message the endpoint gives up by itself (see FlGivenUpMessage).
    using GiveUpCallback = std::function<void(const FlGivenUpMessage& message)>;
    /// Rounds whose chunk tallies are kept at most (the latest ones).
    static constexpr std::size_t kTallyRounds = 8;
    /// Peer id of ChunkTallies for destinations no chunk has come from yet.
    static constexpr uint32_t kUnknownPeer = 0xFFFFFFFFu;

    /**
     * @param socket a bound UDP socket; the endpoint sets its receive callback
     * @param localId the sender id written into this endpoint's chunks (e.g. client index)
     * @param config settings (throws fl::ConfigError naming the field if invalid, e.g. an MTU
     *        too small for a chunk header, a zero pacing rate or timeout)
     */
    FlDatagramEndpoint(Ptr<Socket> socket, uint32_t localId, const FlDatagramConfig& config);
    ~FlDatagramEndpoint();

    /// Sets the callback that receives messages.
    void SetDeliverCallback(DeliverCallback cb);

    /// Sets the KeepPrevious hole check (unset: every message can be filled).
    void SetCanFillHolesCallback(CanFillHolesCallback cb);

    /**
     * Sets the callback told of each message given up by the endpoint itself (a lost peer:
     * without it an application waiting for an answer to that message would wait for ever).
     */
    void SetGiveUpCallback(GiveUpCallback cb);

    /**
     * Queues a message for `to` (an InetSocketAddress).
     * @return the message id used in its chunks
     */
    uint32_t Send(const Address& to,
                  uint32_t round,
                  std::shared_ptr<const std::vector<uint8_t>> bytes);

    /**
     * Resolves every incomplete incoming message now, as if its last timeout had expired
     * (KeepPrevious: delivered with holes; Drop and Retransmit: given up). For example at a
     * round deadline, before aggregating.
     */
    void FlushIncomplete();

    /**
     * Forgets queued and retained outgoing messages of rounds < round (no more (re)sending of
     * them) and gives up incoming ones of rounds < round.
     */
    void DiscardBefore(uint32_t round);

    /// Stops all timers and drops every queued datagram; the socket is closed.
    void Close();

    /// Counters.
    const FlDatagramStats& Stats() const
    {
        return m_stats;
    }

    /**
     * Chunks of messages of `round` by peer id: first transmissions to the peer (a destination
     * address is mapped to the sender id of the chunks that came from it; kUnknownPeer if none
     * did) and distinct chunks accepted from it. Tallies of rounds before the last
     * DiscardBefore() are forgotten, and so are those of all but the kTallyRounds latest rounds
     * (an endpoint that never discards, e.g. a client's, keeps a bounded window of them).
     */
    std::map<uint32_t, FlChunkTally> ChunkTallies(uint32_t round) const;

    /// Bytes of chunks queued but not sent yet (first transmissions and retransmissions).
    uint64_t BytesQueued() const;

    /**
     * The rate the endpoint sends at now [bit/s]: pacingRate, or less while the delay-based
     * rate control (FlDatagramConfig::congestionTarget) holds it down.
     */
    double SendingRate() const;

    /// The smallest feedback delay the rate control has seen [s]; 0 before its first sample.
    double BaseDelay() const;

    /// The underlying socket.
    Ptr<Socket> GetSocket() const
    {
        return m_socket;
    }

    /// The settings in use.
    const FlDatagramConfig& GetConfig() const
    {
        return m_config;
    }

  private:
    // Implementation state: free to change (see fl-datagram-endpoint.cc).
    struct Impl;
    std::unique_ptr<Impl> m_impl;
    Ptr<Socket> m_socket;
    FlDatagramConfig m_config;
    FlDatagramStats m_stats;
};

} // namespace ns3

#endif // FL_DATAGRAM_ENDPOINT_H
