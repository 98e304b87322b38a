/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Datagram transport of messages: splitting an encoded message into MTU-sized chunks for UDP,
 * and reassembling chunks that arrive in any order, duplicated, late, corrupted or not at all.
 * Pure code (no ns-3 header).
 */
#ifndef FL_CHUNKING_H
#define FL_CHUNKING_H

#include <cstddef>
#include <cstdint>
#include <deque>
#include <limits>
#include <map>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

namespace ns3
{
namespace fl
{

/**
 * Header of one chunk (one UDP datagram). Wire layout (little-endian, 40 bytes), followed by
 * payloadLength bytes of the message:
 *
 *     offset size field
 *     0      4    magic "FLC1"
 *     4      1    version (1)
 *     5      1    flags: bit 0 = retransmission (informational); other bits must be 0
 *     6      2    reserved, 0
 *     8      4    message id (unique per sender)
 *     12     4    sender id
 *     16     4    round
 *     20     4    chunk index, 0 <= index < count
 *     24     4    chunk count (>= 1)
 *     28     4    total message length L in bytes
 *     32     4    payloadLength: bytes of the message carried by this chunk
 *     36     4    CRC-32 (zlib) of bytes 0..35 followed by the payload
 *
 * Chunk sizes are implied by (L, count): with P = ceil(L / count), chunks 0..count-2 carry P
 * bytes and the last one L - (count - 1) P >= 1 bytes (an empty message is one empty chunk);
 * chunk i carries message bytes [i P, i P + payloadLength). A receiver therefore needs no
 * offset field and rejects any chunk whose sizes do not follow this rule. Fragment() produces
 * count = ceil(L / maxChunkPayload) chunks of (nearly) equal size, none above maxChunkPayload.
 *
 * Minimum chunk size: senders fragment with maxChunkPayload >= kMinChunkPayload (256 bytes,
 * what an MTU of 324 bytes leaves), so a valid chunk never declares more than
 * MaxChunkCount(L) = max(1, ceil(L / 256)) chunks; a receiver rejects one that does
 * (TooManyChunks). This bounds the chunk count, and everything a receiver keeps per chunk index,
 * by the declared length over 256 instead of by the declared length itself.
 */
struct ChunkHeader
{
    static constexpr std::size_t kSize = 40;             ///< header size in bytes
    static constexpr uint32_t kMagic = 0x31434C46u;      ///< "FLC1" read as little-endian uint32
    static constexpr uint8_t kVersion = 1;               ///< wire format version
    static constexpr uint8_t kFlagRetransmission = 0x01; ///< chunk re-sent after a request
    static constexpr uint8_t kKnownFlags = kFlagRetransmission; ///< every defined flag bit
    /// Smallest maxChunkPayload a sender may fragment with; with it, count <= MaxChunkCount(L).
    static constexpr std::size_t kMinChunkPayload = 256;

    uint8_t flags{0};          ///< flags (kFlagRetransmission)
    uint32_t messageId{0};     ///< message id, unique per sender
    uint32_t sender{0};        ///< sender id
    uint32_t round{0};         ///< round number
    uint32_t index{0};         ///< chunk index
    uint32_t count{0};         ///< number of chunks of the message
    uint32_t messageLength{0}; ///< total message length L
    uint32_t payloadLength{0}; ///< bytes carried by this chunk
    uint32_t crc{0};           ///< CRC-32 of header bytes 0..35 and the payload

    /// Writes the 40 header bytes to out (the crc field as stored in `crc`).
    void Write(uint8_t* out) const;
};

/// Why a datagram was rejected by ParseChunk.
enum class ChunkStatus : uint8_t
{
    Ok = 0,
    TooShort,    ///< fewer than ChunkHeader::kSize bytes
    BadMagic,    ///< not "FLC1"
    BadVersion,  ///< unknown version
    BadFlags,    ///< unknown flag bits or reserved bytes set
    BadIndex,    ///< count == 0 or index >= count
    BadLength,   ///< sizes do not follow the chunk size rule, or datagram size != 40 + payload
    TooLarge,    ///< message length above the receiver's limit
    BadCrc,      ///< CRC mismatch
    Inconsistent, ///< (reassembler) disagrees with earlier chunks of the same message
    TooManyChunks ///< count above MaxChunkCount(L): chunks smaller than kMinChunkPayload
};

/// Human-readable name of a chunk status.
const char* ChunkStatusName(ChunkStatus s);

/**
 * Largest chunk payload that fits an IP MTU: mtu - 20 (IPv4) - 8 (UDP) - 40 (chunk header).
 * Throws ConfigError naming `parameter` if that is below ChunkHeader::kMinChunkPayload (an MTU
 * below 324 bytes).
 */
std::size_t MaxChunkPayloadForMtu(std::size_t mtu, const char* parameter = "mtu");

/**
 * Most chunks a valid message of `messageLength` bytes is split into: max(1, ceil(L / 256)),
 * 256 being ChunkHeader::kMinChunkPayload. ParseChunk rejects larger counts (TooManyChunks).
 */
uint32_t MaxChunkCount(uint32_t messageLength);

/// Number of chunks Fragment() makes of a len-byte message: max(1, ceil(len / maxChunkPayload)).
uint32_t ChunkCount(std::size_t len, std::size_t maxChunkPayload);

/**
 * Fragments a message into chunk datagrams (header + payload each), ready to be sent.
 * `out` is resized to ChunkCount(len, maxChunkPayload); the inner vectors' capacities are
 * reused between calls. Throws ConfigError if maxChunkPayload is below
 * ChunkHeader::kMinChunkPayload or too large for a UDP datagram, or len >= 2^32.
 */
void Fragment(const uint8_t* msg,
              std::size_t len,
              uint32_t messageId,
              uint32_t sender,
              uint32_t round,
              std::size_t maxChunkPayload,
              std::vector<std::vector<uint8_t>>& out);

/// Convenience: Fragment into new buffers.
std::vector<std::vector<uint8_t>> Fragment(const uint8_t* msg,
                                           std::size_t len,
                                           uint32_t messageId,
                                           uint32_t sender,
                                           uint32_t round,
                                           std::size_t maxChunkPayload);

/**
 * Builds chunk `index` of the fragmentation of a message alone, byte-identical to the one
 * Fragment() makes except for `flags` (pass ChunkHeader::kFlagRetransmission when re-sending a
 * chunk a receiver reported missing). Throws ConfigError if index >= ChunkCount(...).
 */
void MakeChunk(const uint8_t* msg,
               std::size_t len,
               uint32_t messageId,
               uint32_t sender,
               uint32_t round,
               std::size_t maxChunkPayload,
               uint32_t index,
               uint8_t flags,
               std::vector<uint8_t>& out);

/**
 * Parses and fully validates a datagram (header fields, chunk count against MaxChunkCount, size
 * rule, exact datagram length, CRC). On Ok, `out` holds the header and the payload is at
 * datagram + ChunkHeader::kSize. Never reads outside [datagram, datagram + len).
 */
ChunkStatus ParseChunk(const uint8_t* datagram,
                       std::size_t len,
                       uint32_t maxMessageBytes,
                       ChunkHeader& out);

/// A half-open range [begin, end) of byte offsets or element indices.
struct IndexRange
{
    std::size_t begin{0}; ///< first index in the range
    std::size_t end{0};   ///< one past the last index

    bool operator==(const IndexRange& o) const
    {
        return begin == o.begin && end == o.end;
    }
};

/**
 * Maps the byte ranges of a message that were received to the coordinates (element indices)
 * that were received whole. Element i occupies message bytes
 * [dataOffset + i elementBytes, dataOffset + (i + 1) elementBytes); it counts as received
 * only if all its bytes are. `receivedBytes` may be unsorted and overlapping.
 *
 * For a model message, dataOffset = message header size + WireDataOffset(encoding) and
 * elementBytes = WireElementBytes(encoding). The bytes before dataOffset (the header, the int8
 * scale) are not looked at: check them with RangesCover() before trusting any coordinate.
 *
 * @return sorted, disjoint, non-adjacent ranges of element indices in [0, count)
 */
std::vector<IndexRange> ReceivedCoordinateRanges(const std::vector<IndexRange>& receivedBytes,
                                                 std::size_t dataOffset,
                                                 std::size_t elementBytes,
                                                 std::size_t count);

/**
 * The complement of ReceivedCoordinateRanges in [0, count): coordinates with at least one
 * missing byte (those a "keep the previous values" policy must fill in).
 */
std::vector<IndexRange> MissingCoordinateRanges(const std::vector<IndexRange>& receivedBytes,
                                                std::size_t dataOffset,
                                                std::size_t elementBytes,
                                                std::size_t count);

/// Sorted, merged copy of `ranges` (overlapping and adjacent ranges joined, empty ones dropped).
std::vector<IndexRange> MergeRanges(const std::vector<IndexRange>& ranges);

/// True if the union of `ranges` covers [begin, end) (always true for an empty interval).
bool RangesCover(const std::vector<IndexRange>& ranges, std::size_t begin, std::size_t end);

/// Identity of a message in flight: (sender, message id).
struct MessageKey
{
    uint32_t sender{0};    ///< sender id
    uint32_t messageId{0}; ///< message id

    bool operator==(const MessageKey& o) const
    {
        return sender == o.sender && messageId == o.messageId;
    }
};

/// Hash of a MessageKey.
struct MessageKeyHash
{
    std::size_t operator()(const MessageKey& k) const
    {
        const uint64_t v = (static_cast<uint64_t>(k.sender) << 32) | k.messageId;
        return static_cast<std::size_t>((v ^ (v >> 29)) * 0xBF58476D1CE4E5B9ULL);
    }
};

/// A message whose chunks all arrived.
struct CompletedMessage
{
    MessageKey key;             ///< (sender, message id)
    uint32_t round{0};          ///< round from the chunk headers
    uint32_t chunkCount{0};     ///< number of chunks
    std::vector<uint8_t> bytes; ///< the message, exactly as given to Fragment()
};

/**
 * What was received of a message that was abandoned, expired or is still open. Its size is
 * proportional to what arrived, whatever length and chunk count the chunk headers declare: the
 * received bytes are kept packed (receivedData), never at their offsets in a buffer of the
 * declared length, and the missing chunks are listed as ranges.
 */
struct PartialMessage
{
    MessageKey key;             ///< (sender, message id)
    uint32_t round{0};          ///< round from the chunk headers
    uint32_t chunkCount{0};     ///< number of chunks of the whole message (declared)
    uint32_t chunksReceived{0}; ///< distinct chunks received
    uint32_t length{0};         ///< length of the whole message (declared)
    /// Byte ranges of [0, length) received: sorted, disjoint and not adjacent (at most
    /// chunksReceived of them).
    std::vector<IndexRange> receivedBytes;
    /// The bytes received, range after range of receivedBytes (their total length).
    std::vector<uint8_t> receivedData;
    /// Chunk indices not received, as sorted disjoint ranges of [0, chunkCount) (at most
    /// chunksReceived + 1 of them).
    std::vector<IndexRange> missingChunks;

    /// Number of chunks not received: chunkCount - chunksReceived.
    uint32_t ChunksMissing() const
    {
        return chunkCount - chunksReceived;
    }

    /// Heap bytes held by this object's buffers (their capacities).
    std::size_t HeldBytes() const;
};

/// Counters of a ChunkReassembler. Every datagram given to Accept() is counted exactly once
/// in one of accepted, duplicate, late and malformed.
struct ChunkReassemblerStats
{
    uint64_t datagrams{0};         ///< datagrams given to Accept()
    uint64_t bytesIn{0};           ///< their bytes
    uint64_t accepted{0};          ///< new, valid chunks stored
    uint64_t duplicate{0};         ///< valid chunks already received for an open message
    uint64_t late{0};              ///< valid chunks of a message already completed or abandoned
    uint64_t malformed{0};         ///< rejected datagrams (any ChunkStatus other than Ok)
    uint64_t crcErrors{0};         ///< of which: CRC mismatches
    uint64_t inconsistent{0};      ///< of which: disagreeing with earlier chunks of the message
    uint64_t tooManyChunks{0};     ///< of which: a chunk count above MaxChunkCount(length)
    uint64_t messagesCompleted{0}; ///< messages delivered whole
    uint64_t messagesAbandoned{0}; ///< messages given up by Abandon() or ExpireIdle()
    uint64_t messagesEvicted{0};   ///< messages given up because too many were open
    uint64_t lostChunks{0};        ///< chunks never received of abandoned or evicted messages
};

/// Outcome of ChunkReassembler::Accept.
enum class ChunkResult : uint8_t
{
    Accepted,  ///< a new chunk of an open message; the message is not complete yet
    Completed, ///< a new chunk that completed its message (returned through `out`)
    Duplicate, ///< a chunk already received for an open message; ignored
    Late,      ///< a chunk of a message already completed or abandoned; ignored
    Malformed, ///< rejected (see LastStatus()); ignored
};

/**
 * Reassembles messages from chunks received in any order over an unreliable datagram transport.
 *
 * Each datagram is validated (ParseChunk: header, chunk count, size rule, CRC; then consistency
 * with the earlier chunks of the same message); anything malformed is counted and dropped, so
 * only messages made entirely of intact chunks are ever delivered. An open (incomplete) message
 * keeps only the chunks that arrived, and everything it hands out (Snapshot, Abandon's partial
 * message, MissingChunkRanges, ReceivedByteRanges) is sized by what arrived too: a forged chunk
 * declaring a huge length and chunk count costs the bytes it carries plus a constant, also when
 * its message is later abandoned with a partial result. The caller can ask
 * which chunks are missing (to request a selective retransmission), which byte ranges arrived
 * (to keep previous values for the missing coordinates, see ReceivedCoordinateRanges), abandon
 * it, or expire messages idle since a given time.
 *
 * Memory is bounded: at most maxOpenMessages open messages holding what arrived of at most
 * maxMessageBytes each (opening one more evicts the oldest open message, counting its missing
 * chunks as lost), plus
 * the keys of the last closedHistory completed or abandoned messages, by which late chunks are
 * recognised, and of those only the keys closed within closedRetention of the latest time given
 * to Accept() (so that a long run keeps about closedRetention's worth of keys, not
 * closedHistory). A chunk of a message that has left that history opens it again (then it is
 * eventually evicted or expired); keep closedHistory above the number of messages a sender
 * can have in flight and closedRetention above the time a sender may still send a chunk of a
 * message after its receiver closed it.
 *
 * The reassembler knows no clock: pass the current time (any unit, e.g. seconds of simulated
 * time) to Accept() and ExpireIdle() if you use expiry.
 */
class ChunkReassembler
{
  public:
    /**
     * @param maxOpenMessages most messages assembled at once (>= 1)
     * @param maxMessageBytes largest message accepted; chunks announcing more are malformed
     * @param closedHistory how many completed or abandoned message keys are remembered (>= 1)
     * @param closedRetention how long a closed key is remembered, in the unit of the times given
     *        to Accept() (> 0; infinity: by count only). A key closed at the latest time seen
     *        (Abandon and ExpireIdle use that time) is forgotten once Accept() is given a
     *        time more than closedRetention later.
     */
    ChunkReassembler(std::size_t maxOpenMessages,
                     uint32_t maxMessageBytes,
                     std::size_t closedHistory = 4096,
                     double closedRetention = std::numeric_limits<double>::infinity());

    /**
     * Takes one datagram.
     * @param datagram the bytes received
     * @param len their number
     * @param out receives the message when the result is Completed (its buffer is replaced)
     * @param now the current time, recorded as the message's last arrival (for ExpireIdle)
     */
    ChunkResult Accept(const uint8_t* datagram,
                       std::size_t len,
                       CompletedMessage& out,
                       double now = 0.0);

    /// Why the last Malformed datagram was rejected.
    ChunkStatus LastStatus() const
    {
        return m_lastStatus;
    }

    /// Keys of the open messages, oldest first.
    std::vector<MessageKey> OpenMessages() const;

    /// True if the message is open (some but not all chunks received).
    bool IsOpen(const MessageKey& key) const;

    /// Default bound of MissingChunks().
    static constexpr std::size_t kDefaultMaxMissing = 4096;

    /**
     * Indices of the chunks of an open message not yet received, ascending, at most
     * `maxIndices` of them (the lowest; empty if not open). Time and memory are proportional
     * to the chunks received plus the indices returned (never to the declared chunk count).
     */
    std::vector<uint32_t> MissingChunks(const MessageKey& key,
                                        std::size_t maxIndices = kDefaultMaxMissing) const;

    /**
     * Chunk indices of an open message not yet received, as sorted disjoint ranges of
     * [0, count) (empty if not open): at most one more range than chunks received.
     */
    std::vector<IndexRange> MissingChunkRanges(const MessageKey& key) const;

    /// Byte ranges of an open message received so far, sorted and merged (empty if not open).
    std::vector<IndexRange> ReceivedByteRanges(const MessageKey& key) const;

    /// Byte ranges of an open message not received yet, sorted and merged (empty if not open).
    std::vector<IndexRange> MissingByteRanges(const MessageKey& key) const;

    /**
     * A copy of what an open message has received so far (the message stays open), sized by
     * what arrived.
     * @return false if the message is not open
     */
    bool Snapshot(const MessageKey& key, PartialMessage& out) const;

    /**
     * Gives up an open message: its missing chunks are counted as lost, its key remembered so
     * that later chunks count as late. If `partial` is given it receives what had arrived
     * (packed: nothing is allocated for the bytes or chunks that never came).
     * @return false if the message was not open
     */
    bool Abandon(const MessageKey& key, PartialMessage* partial = nullptr);

    /**
     * Abandons every open message whose last chunk arrived before `idleBefore` (strictly).
     * @param idleBefore time limit, in the unit given to Accept()
     * @param partials if given, receives the abandoned messages, oldest first
     * @return the number of messages abandoned
     */
    std::size_t ExpireIdle(double idleBefore, std::vector<PartialMessage>* partials = nullptr);

    /// Number of open messages.
    std::size_t OpenCount() const
    {
        return m_open.size();
    }

    /// Payload bytes held by open messages (those of the chunks received).
    std::size_t BufferedBytes() const
    {
        return m_bufferedBytes;
    }

    /// Number of remembered closed message keys (<= closedHistory).
    std::size_t ClosedCount() const
    {
        return m_closedOrder.size();
    }

    /// Counters.
    const ChunkReassemblerStats& Stats() const
    {
        return m_stats;
    }

  private:
    /// State of one open message.
    struct Open
    {
        uint32_t round{0};
        uint32_t count{0};
        uint32_t length{0};
        uint32_t chunkSize{0}; ///< P = ceil(L / count)
        uint32_t received{0};
        uint64_t sequence{0}; ///< opening order (eviction picks the smallest)
        double lastArrival{0.0};
        std::size_t storedBytes{0};                      ///< payload bytes in `chunks`
        std::map<uint32_t, std::vector<uint8_t>> chunks; ///< received chunks by index
    };

    using OpenMap = std::unordered_map<MessageKey, Open, MessageKeyHash>;

    ChunkResult Reject(ChunkStatus s);
    void Close(const MessageKey& key);
    void ForgetClosedBefore(double time);
    void Remove(OpenMap::iterator it, PartialMessage* partial);
    static void FillPartial(const MessageKey& key, const Open& m, PartialMessage& p);
    static std::vector<IndexRange> ReceivedRanges(const Open& m);
    static std::vector<IndexRange> MissingRanges(const Open& m);
    static std::vector<uint8_t> Assemble(const Open& m);
    static std::vector<uint32_t> Missing(const Open& m, std::size_t maxIndices);

    std::size_t m_maxOpen;
    uint32_t m_maxMessageBytes;
    std::size_t m_closedHistory;
    double m_closedRetention;
    double m_latest{-std::numeric_limits<double>::infinity()}; ///< latest time given to Accept
    OpenMap m_open;
    std::map<uint64_t, MessageKey> m_order; ///< open messages by opening sequence
    std::unordered_set<MessageKey, MessageKeyHash> m_closed;
    std::deque<std::pair<MessageKey, double>> m_closedOrder; ///< closed keys and their times
    uint64_t m_sequence{0};
    std::size_t m_bufferedBytes{0};
    ChunkStatus m_lastStatus{ChunkStatus::Ok};
    ChunkReassemblerStats m_stats;
};

} // namespace fl
} // namespace ns3

#endif // FL_CHUNKING_H
