/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Feedback datagrams for chunked messages (chunking.h): an ACK says "message complete", a NACK
 * lists the chunks still missing. Pure code (no ns-3 header).
 */
#ifndef FL_CHUNK_FEEDBACK_H
#define FL_CHUNK_FEEDBACK_H

#include <cstddef>
#include <cstdint>
#include <vector>

namespace ns3
{
namespace fl
{

/// Kind of a feedback datagram.
enum class FeedbackType : uint8_t
{
    Ack = 1,  ///< the message arrived complete; the sender may forget it
    Nack = 2, ///< the listed chunks are missing; please send them again
};

/// Name of a feedback type ("ack", "nack", or "unknown").
const char* FeedbackTypeName(FeedbackType t);

/**
 * One ACK or NACK about a chunked message. Wire layout (little-endian, 28 + 4 n bytes):
 *
 *     offset  size  field
 *     0       4     magic "FLF1" (chunks use "FLC1", model messages "FLM1")
 *     4       1     version (1)
 *     5       1     type: 1 ACK, 2 NACK
 *     6       2     reserved, 0
 *     8       4     message id (as in the chunk headers of the message acknowledged)
 *     12      4     sender id: the id in those chunk headers (the original sender)
 *     16      4     round (as in those chunk headers)
 *     20      4     n: number of chunk indices (0 for an ACK, >= 1 for a NACK)
 *     24      4 n   chunk indices, strictly ascending
 *     24+4n   4     CRC-32 (zlib) of bytes 0 .. 23 + 4 n
 *
 * A NACK carries at most MaxNackIndices(maxDatagramBytes) indices so that it fits one datagram;
 * a receiver missing more chunks sends several NACKs.
 */
struct ChunkFeedback
{
    static constexpr std::size_t kHeaderSize = 24;     ///< bytes before the indices
    static constexpr std::size_t kMinSize = 28;        ///< header + CRC (an ACK)
    static constexpr uint32_t kMagic = 0x31464C46u;    ///< "FLF1" read as little-endian uint32
    static constexpr uint8_t kVersion = 1;             ///< wire format version
    static constexpr std::size_t kMaxDatagram = 65507; ///< largest UDP payload over IPv4

    FeedbackType type{FeedbackType::Ack}; ///< ACK or NACK
    uint32_t messageId{0};                ///< message id of the acknowledged message
    uint32_t sender{0};                   ///< its sender id (from its chunk headers)
    uint32_t round{0};                    ///< its round
    std::vector<uint32_t> missing;        ///< NACK: missing chunk indices, ascending
};

/// Why ParseFeedback rejected a datagram.
enum class FeedbackStatus : uint8_t
{
    Ok = 0,
    TooShort,    ///< fewer than ChunkFeedback::kMinSize bytes
    BadMagic,    ///< not "FLF1"
    BadVersion,  ///< unknown version
    BadType,     ///< neither ACK nor NACK
    BadReserved, ///< reserved bytes not 0
    BadCount,    ///< an ACK with indices or a NACK without any
    BadLength,   ///< datagram length != 28 + 4 n
    BadCrc,      ///< CRC mismatch
    BadIndices,  ///< indices not strictly ascending
};

/// Human-readable name of a feedback status.
const char* FeedbackStatusName(FeedbackStatus s);

/**
 * Largest number of chunk indices a NACK of at most maxDatagramBytes bytes carries:
 * (min(maxDatagramBytes, 65507) - 28) / 4. Throws ConfigError naming "maxDatagramBytes" if not
 * even one index fits (maxDatagramBytes < 32).
 */
std::size_t MaxNackIndices(std::size_t maxDatagramBytes);

/// Size in bytes of the encoded feedback: 28 + 4 * missing.size().
std::size_t FeedbackSize(const ChunkFeedback& fb);

/**
 * Encodes a feedback datagram into `out` (resized; its capacity is reused). Throws ConfigError
 * if it would not parse: an ACK with indices, a NACK without any, indices not strictly
 * ascending, or more indices than MaxNackIndices(65507).
 */
void EncodeFeedback(const ChunkFeedback& fb, std::vector<uint8_t>& out);

/**
 * Parses and fully validates a feedback datagram (magic, version, type, reserved bytes, count
 * against the type, exact length, CRC, ascending indices). Never reads outside
 * [datagram, datagram + len). `out` is meaningful only on Ok.
 */
FeedbackStatus ParseFeedback(const uint8_t* datagram, std::size_t len, ChunkFeedback& out);

/**
 * The highest chunk index a NACK datagram shows as received, if it shows any: an index below
 * `sent` (chunks that had their first transmission) and below `chunkCount` that the NACK does
 * not list although it would have listed it, were it missing. A receiver lists its missing
 * chunks in ascending order over as many NACKs of at most `maxIndices` indices as needed
 * (MaxNackIndices of the same datagram size at both ends), so one NACK speaks for
 *  - the indices between its first and its last listed one;
 *  - the indices above its last one if it holds fewer than `maxIndices` (it is the last NACK of
 *    its batch);
 *  - the indices below its first one if the whole message's indices fit one NACK
 *    (chunkCount <= maxIndices: it is the only NACK of its batch).
 * Returns false (and leaves `index` alone) if none of these indices was received, or for an
 * empty list.
 */
bool HighestReceivedChunk(const std::vector<uint32_t>& missing,
                          uint32_t chunkCount,
                          uint32_t sent,
                          std::size_t maxIndices,
                          uint32_t& index);

/**
 * True if the datagram starts with the feedback magic "FLF1" (nothing else is checked): lets a
 * receiver route each datagram to ParseFeedback or to the chunk reassembler.
 */
bool IsFeedbackDatagram(const uint8_t* datagram, std::size_t len);

} // namespace fl
} // namespace ns3

#endif // FL_CHUNK_FEEDBACK_H
