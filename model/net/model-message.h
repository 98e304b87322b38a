/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Model messages on the wire: a fixed 36-byte header, protected by its own CRC, followed by the
 * parameter bytes.
 */
#ifndef FL_MODEL_MESSAGE_H
#define FL_MODEL_MESSAGE_H

#include "ns3/param-vector.h"
#include "ns3/payload-codec.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{
namespace fl
{

/// What a message carries.
enum class MessageKind : uint8_t
{
    Join = 1,        ///< client -> server: "I am here, with <aux> samples"; raw payload: the
                     ///< client's data index (uint32)
    GlobalModel = 2, ///< server -> clients: the global model of round <round>
    LocalModel = 3,  ///< client -> server: the model after local training in <round>; aux =
                     ///< the client's sample count (FedAvg weight)
    Stop = 4,        ///< server -> clients: training is over
    PeerModel = 5,   ///< node -> peer/neighbour (server to server, agent to agent): a model or
                     ///< an intermediate iterate of <round>
    Control = 6,     ///< small control message (a scalar, a key, a list): raw payload; aux =
                     ///< an application-defined tag
};

/// Highest MessageKind value.
constexpr uint8_t kLastMessageKind = static_cast<uint8_t>(MessageKind::Control);

/// Receiver id of a message meant for several receivers (the same bytes go to each).
constexpr uint32_t kBroadcastId = 0xFFFFFFFFu;

/// Encoding byte of a raw (uninterpreted bytes) payload: count is then a number of bytes.
constexpr uint8_t kRawPayloadEncoding = 0x80;

/// Name of a message kind ("join", "global", "local", "stop", "peer", "control", or "unknown").
const char* MessageKindName(MessageKind kind);

/**
 * Header of a model message. Wire layout (little-endian, 36 bytes), version 3:
 *
 *     offset size field
 *     0      4    magic "FLM1"
 *     4      1    version (3; version 2, the 32-byte header without a header CRC, is
 *                 rejected as OldVersion, any other as BadVersion)
 *     5      1    kind (MessageKind)
 *     6      1    payload encoding (WireEncoding: 1 float64, 2 float32, 3 float16, 4 int8;
 *                 0x80 raw bytes; 0 if count = 0)
 *     7      1    flags (reserved, must be 0)
 *     8      4    round
 *     12     4    sender: node-level id of the sender (the ns-3 node id in the apps)
 *     16     4    receiver: node-level id of the receiver, or kBroadcastId
 *     20     4    count: number of values in the payload (bytes for a raw payload)
 *     24     4    aux: kind-specific (LocalModel and Join: sample count; Control: a tag)
 *     28     4    message CRC: CRC-32 of header bytes 0..27 followed by the payload bytes
 *     32     4    header CRC: CRC-32 of header bytes 0..31
 *
 * The payload size is not on the wire: it is EncodedSize(encoding, count) (int8: the float32
 * scale, then count bytes; raw: count bytes). The header CRC lets a stream receiver trust the
 * count, hence the payload size, before it buffers the payload: a header that was forged or
 * corrupted (or bytes that are no header at all) is rejected after 36 bytes, instead of after
 * as many bytes as a forged count declares.
 */
struct MessageHeader
{
    static constexpr std::size_t kSize = 36;        ///< header size in bytes
    static constexpr uint32_t kMagic = 0x314D4C46u; ///< "FLM1" read as little-endian uint32
    static constexpr uint8_t kVersion = 3;          ///< wire format version
    static constexpr uint8_t kOldVersion = 2;       ///< previous version (32-byte header)
    /// Bytes that identify a header's format (magic and version): see CheckHeaderPrefix.
    static constexpr std::size_t kPrefixSize = 5;

    MessageKind kind{MessageKind::Join};          ///< kind
    WireEncoding encoding{WireEncoding::Float64}; ///< payload encoding
    uint32_t round{0};                            ///< round number
    uint32_t sender{0};                           ///< node-level id of the sender
    uint32_t receiver{kBroadcastId}; ///< node-level id of the receiver (or kBroadcastId)
    uint32_t count{0};               ///< number of values (bytes if raw)
    uint32_t aux{0};                 ///< kind-specific (sample count, control tag)
    bool raw{false};                 ///< the payload is raw bytes (encoding is then meaningless)
    uint32_t payloadBytes{0};        ///< payload size in bytes (derived from encoding and count)
    uint32_t crc{0};                 ///< message CRC: header bytes 0..27 and the payload

    /// Writes the 36 header bytes to out: the fields, `crc` as stored, and the header CRC
    /// computed over the 32 bytes before it.
    void Write(uint8_t* out) const;
};

/// Why a header was rejected.
enum class HeaderStatus : uint8_t
{
    Ok = 0,
    BadMagic,
    BadVersion,
    BadKind,
    BadEncoding,
    BadLength,    ///< the payload size does not fit 32 bits
    TooLarge,     ///< payloadBytes above the receiver's limit
    BadFlags,     ///< reserved flags byte not zero
    OldVersion,   ///< wire version 2 (no header CRC): the sender runs an older fl
    BadHeaderCrc, ///< header CRC mismatch: corrupted or forged header, count not trusted
};

/// Human-readable name of a header status.
const char* HeaderStatusName(HeaderStatus s);

/// The fields of a message other than its payload.
struct MessageAddress
{
    MessageKind kind{MessageKind::Join}; ///< kind
    uint32_t round{0};                   ///< round
    uint32_t sender{0};                  ///< node-level id of the sender
    uint32_t receiver{kBroadcastId};     ///< node-level id of the receiver, or kBroadcastId
    uint32_t aux{0};                     ///< kind-specific (sample count, control tag)
};

/**
 * Parses and validates MessageHeader::kSize header bytes (does not look at the payload):
 * magic, version, header CRC, then the fields, and payloadBytes against maxPayloadBytes.
 */
HeaderStatus ParseHeader(const uint8_t* in, uint32_t maxPayloadBytes, MessageHeader& out);

/**
 * Checks what the first min(len, kPrefixSize) bytes of a header can already tell: the magic
 * and the version (BadMagic, OldVersion, BadVersion), so that a receiver rejects a stream of
 * another format, e.g. an older sender's 32-byte headers, before a whole header has arrived.
 * Ok means "no objection yet".
 */
HeaderStatus CheckHeaderPrefix(const uint8_t* in, std::size_t len);

/**
 * Default bound of incoming messages (header and payload) of the receivers that are not told
 * the model size (MessageReassembler, FlDatagramConfig): 64 MiB. The FL applications use
 * FlMaxModelMessageBytes of their task instead.
 */
constexpr uint32_t kDefaultMaxMessageBytes = 64u * 1024u * 1024u;

/**
 * Encodes a message into `out` (resized; its capacity is reused between calls).
 * The payload carries `params` in the wire encoding (see payload-codec.h: float64 and float32
 * round to nearest, float16 saturates at +-65504, int8 is the unbiased stochastic quantiser and
 * draws from `rng`, which may be null for the other encodings). An empty ParamVector gives a
 * header-only message.
 * @return what the codec reported (saturated elements, int8 scale)
 */
EncodeReport EncodeMessage(const MessageAddress& address,
                           const ParamVector& params,
                           WireEncoding encoding,
                           Rng* rng,
                           std::vector<uint8_t>& out);

/// EncodeMessage with a float64 or float32 payload (no random draws).
void EncodeMessage(const MessageAddress& address,
                   const ParamVector& params,
                   Precision wirePrecision,
                   std::vector<uint8_t>& out);

/// Convenience: EncodeMessage (float64 or float32 payload) into a new buffer.
std::vector<uint8_t> EncodeMessage(const MessageAddress& address,
                                   const ParamVector& params,
                                   Precision wirePrecision);

/**
 * Encodes a message whose payload is raw bytes (a control message: a scalar, a key, a list;
 * see PackU32 / PackF64), into `out` (resized).
 */
void EncodeRawMessage(const MessageAddress& address,
                      const uint8_t* data,
                      std::size_t len,
                      std::vector<uint8_t>& out);

/// Little-endian packing of small lists for raw payloads.
std::vector<uint8_t> PackU32(const std::vector<uint32_t>& values);
/// Little-endian packing of doubles (IEEE-754 binary64) for raw payloads.
std::vector<uint8_t> PackF64(const std::vector<double>& values);
/// Unpacks PackU32 bytes; false if the length is not a multiple of 4.
bool UnpackU32(const std::vector<uint8_t>& bytes, std::vector<uint32_t>& out);
/// Unpacks PackF64 bytes; false if the length is not a multiple of 8.
bool UnpackF64(const std::vector<uint8_t>& bytes, std::vector<double>& out);

/**
 * Decodes a payload of header.count values into a ParamVector of precision `to`.
 * The caller has validated the header and the CRC.
 */
ParamVector DecodePayload(const MessageHeader& header, const uint8_t* payload, Precision to);

/// CRC-32 (zlib polynomial) of a byte range.
uint32_t Crc32(const uint8_t* data, std::size_t len);

/// The message CRC: CRC-32 over header bytes 0..27, then the payload.
uint32_t MessageCrc(const uint8_t* header, const uint8_t* payload, std::size_t payloadLen);

/// The header CRC: CRC-32 over header bytes 0..31 (the fields and the message CRC).
uint32_t HeaderCrc(const uint8_t* header);

} // namespace fl
} // namespace ns3

#endif // FL_MODEL_MESSAGE_H
