/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Decoding a model message from a datagram transport: from its complete byte string, or from
 * a byte string with holes (chunks that never arrived), filling the coordinates that were hit
 * with the receiver's previous values. Pure code (no ns-3 header).
 */
#ifndef FL_PARTIAL_MESSAGE_H
#define FL_PARTIAL_MESSAGE_H

#include "ns3/chunking.h"
#include "ns3/message-reassembler.h"
#include "ns3/model-message.h"
#include "ns3/param-vector.h"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace ns3
{
namespace fl
{

/// Outcome of DecodeWholeMessage / DecodePartialMessage.
enum class MessageDecodeStatus : uint8_t
{
    Ok = 0,
    TooShort,       ///< fewer than MessageHeader::kSize bytes
    BadHeader,      ///< the header does not validate (ParseHeader)
    LengthMismatch, ///< length != header size + payloadBytes
    BadCrc,         ///< (whole messages only) CRC mismatch
    HeaderMissing,  ///< (partial) the 36 header bytes were not all received
    ScaleMissing,   ///< (partial, int8) the 4 scale bytes were not all received
    SizeMismatch,   ///< (partial) the previous vector's size differs from the header's count
    RawIncomplete,  ///< (partial) a raw (control) payload with holes: it cannot be filled
    OldVersion,     ///< the message is in wire version 2 (an older sender); see HeaderStatus
    BadRanges,      ///< (packed) received ranges unsorted, overlapping, outside the message, or
                    ///< not adding up to the received data
};

/// Human-readable name of a decode status.
const char* MessageDecodeStatusName(MessageDecodeStatus s);

/**
 * Decodes a complete message (for example a CompletedMessage's bytes): len must be exactly
 * MessageHeader::kSize + payloadBytes, the header valid, the CRC right. On Ok, `out` holds the
 * header and the parameters in precision `to` (an empty vector for a header-only message,
 * exactly as MessageReassembler delivers it); otherwise `out` is unchanged.
 */
MessageDecodeStatus DecodeWholeMessage(const uint8_t* bytes,
                                       std::size_t len,
                                       Precision to,
                                       uint32_t maxPayloadBytes,
                                       ReceivedMessage& out);

/**
 * Decodes a message some of whose bytes never arrived, with the "keep previous values" policy.
 *
 * @param bytes the message buffer (len bytes; bytes not received may hold anything)
 * @param len its length: must be MessageHeader::kSize + payloadBytes (LengthMismatch otherwise)
 * @param receivedBytes byte ranges of [0, len) that were received (any order, may overlap),
 *        e.g. PartialMessage::receivedBytes
 * @param previous the receiver's current vector (float64 or float32); its Size() must equal
 *        the header's count (SizeMismatch otherwise)
 * @param to precision of the result
 * @param maxPayloadBytes larger payloads are rejected (BadHeader)
 * @param out on Ok: the header, and the parameters: coordinates all of whose bytes were received
 *        are decoded (bit-identical to DecodeWholeMessage of the full message), every other one
 *        is previous's value converted to `to`. Unchanged otherwise.
 * @param missingCoordinates if not null, receives the number of coordinates taken from
 *        `previous` (on Ok only)
 *
 * The header bytes [0, 36) must have been received and be valid (HeaderMissing, BadHeader,
 * OldVersion), and for int8 the 4 scale bytes that follow (ScaleMissing). The message CRC is
 * not checked: it covers the holes too; every byte that did arrive was protected by its chunk's
 * CRC, and the header by its own. Cost: O(count + ranges log ranges), one allocation for the
 * result.
 */
MessageDecodeStatus DecodePartialMessage(const uint8_t* bytes,
                                         std::size_t len,
                                         const std::vector<IndexRange>& receivedBytes,
                                         const ParamVector& previous,
                                         Precision to,
                                         uint32_t maxPayloadBytes,
                                         ReceivedMessage& out,
                                         std::size_t* missingCoordinates = nullptr);

/**
 * DecodePartialMessage from what a receiver holds of a message with holes, packed: only the
 * bytes that arrived, never a buffer of the message's declared length (PartialMessage,
 * FlDatagramMessage). Same checks, same result bit for bit.
 *
 * Nothing is allocated before the header has arrived, validated, and matched `previous`
 * (HeaderMissing, BadHeader, OldVersion, LengthMismatch, SizeMismatch): the only allocation
 * is the result, of the receiver's own vector size, whatever length the chunks declared.
 *
 * @param length the message's length (declared by its chunks)
 * @param receivedBytes byte ranges of [0, length) received: sorted, non-empty, not overlapping
 *        (adjacent is fine), e.g. PartialMessage::receivedBytes (BadRanges otherwise)
 * @param receivedData the bytes of those ranges, range after range
 * @param receivedDataLen their number: the ranges' total length (BadRanges otherwise)
 * @param previous, to, maxPayloadBytes, out, missingCoordinates as for DecodePartialMessage
 */
MessageDecodeStatus DecodePackedPartialMessage(std::size_t length,
                                               const std::vector<IndexRange>& receivedBytes,
                                               const uint8_t* receivedData,
                                               std::size_t receivedDataLen,
                                               const ParamVector& previous,
                                               Precision to,
                                               uint32_t maxPayloadBytes,
                                               ReceivedMessage& out,
                                               std::size_t* missingCoordinates = nullptr);

/// DecodePackedPartialMessage of what a ChunkReassembler handed out for an abandoned message.
MessageDecodeStatus DecodePackedPartialMessage(const PartialMessage& partial,
                                               const ParamVector& previous,
                                               Precision to,
                                               uint32_t maxPayloadBytes,
                                               ReceivedMessage& out,
                                               std::size_t* missingCoordinates = nullptr);

} // namespace fl
} // namespace ns3

#endif // FL_PARTIAL_MESSAGE_H
