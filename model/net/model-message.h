/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Model messages on the wire: a fixed 32-byte header followed by the parameter bytes.
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
    Join = 1,        ///< client -> server: "I am client <sender> with <sampleCount> samples"
    GlobalModel = 2, ///< server -> client: the global model of round <round>
    LocalModel = 3,  ///< client -> server: the client's model after local training in <round>
    Stop = 4,        ///< server -> client: training is over
};

/// Name of a message kind ("join", "global", "local", "stop", or "unknown").
const char* MessageKindName(MessageKind kind);

/**
 * Header of a model message. Wire layout (little-endian, 32 bytes):
 *
 *     offset size field
 *     0      4    magic "FLM1"
 *     4      1    version (1)
 *     5      1    kind (MessageKind)
 *     6      1    payload encoding (WireEncoding: 1 float64, 2 float32, 3 float16, 4 int8;
 *                 0 if count = 0)
 *     7      1    flags (reserved, 0)
 *     8      4    round
 *     12     4    sender id
 *     16     4    count: number of parameters in the payload
 *     20     4    sampleCount: the sender's number of training samples (FedAvg weight)
 *     24     4    payloadBytes = EncodedSize(encoding, count) (int8: the float32 scale, then
 *                 count bytes)
 *     28     4    CRC-32 of header bytes 0..27 followed by the payload bytes
 */
struct MessageHeader
{
    static constexpr std::size_t kSize = 32;        ///< header size in bytes
    static constexpr uint32_t kMagic = 0x314D4C46u; ///< "FLM1" read as little-endian uint32
    static constexpr uint8_t kVersion = 1;          ///< wire format version

    MessageKind kind{MessageKind::Join};          ///< kind
    WireEncoding encoding{WireEncoding::Float64}; ///< payload encoding
    uint32_t round{0};                            ///< round number
    uint32_t sender{0};       ///< sender id (client index, or 0xFFFFFFFF for the server)
    uint32_t count{0};        ///< number of parameters
    uint32_t sampleCount{0};  ///< FedAvg weight
    uint32_t payloadBytes{0}; ///< payload size in bytes
    uint32_t crc{0};          ///< CRC-32 of header bytes 0..27 and the payload

    /// Writes the 32 header bytes to out.
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
    BadLength, ///< payloadBytes != EncodedSize(encoding, count)
    TooLarge,  ///< payloadBytes above the receiver's limit
};

/// Human-readable name of a header status.
const char* HeaderStatusName(HeaderStatus s);

/// Parses and validates 32 header bytes (does not look at the payload).
HeaderStatus ParseHeader(const uint8_t* in, uint32_t maxPayloadBytes, MessageHeader& out);

/**
 * Encodes a message into `out` (resized; its capacity is reused between calls).
 * The payload carries `params` in the wire encoding (see payload-codec.h: float64 and float32
 * round to nearest, float16 saturates at +-65504, int8 is the unbiased stochastic quantiser and
 * draws from `rng`, which may be null for the other encodings). An empty ParamVector gives a
 * header-only message.
 * @return what the codec reported (saturated elements, int8 scale)
 */
EncodeReport EncodeMessage(MessageKind kind,
                           uint32_t round,
                           uint32_t sender,
                           uint32_t sampleCount,
                           const ParamVector& params,
                           WireEncoding encoding,
                           Rng* rng,
                           std::vector<uint8_t>& out);

/// EncodeMessage with a float64 or float32 payload (no random draws).
void EncodeMessage(MessageKind kind,
                   uint32_t round,
                   uint32_t sender,
                   uint32_t sampleCount,
                   const ParamVector& params,
                   Precision wirePrecision,
                   std::vector<uint8_t>& out);

/// Convenience: EncodeMessage (float64 or float32 payload) into a new buffer.
std::vector<uint8_t> EncodeMessage(MessageKind kind,
                                   uint32_t round,
                                   uint32_t sender,
                                   uint32_t sampleCount,
                                   const ParamVector& params,
                                   Precision wirePrecision);

/**
 * Decodes a payload of header.count values into a ParamVector of precision `to`.
 * The caller has validated the header and the CRC.
 */
ParamVector DecodePayload(const MessageHeader& header, const uint8_t* payload, Precision to);

/// CRC-32 (zlib polynomial) of a byte range.
uint32_t Crc32(const uint8_t* data, std::size_t len);

/// The message CRC: CRC-32 over header bytes 0..27, then the payload.
uint32_t MessageCrc(const uint8_t* header, const uint8_t* payload, std::size_t payloadLen);

} // namespace fl
} // namespace ns3

#endif // FL_MODEL_MESSAGE_H
