/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ns3/partial-message.h"

#include "ns3/payload-codec.h"

#include <algorithm>
#include <cstring>

namespace ns3
{
namespace fl
{

namespace
{

/// A run of received message bytes [begin, end), at `data` (contiguous).
struct Segment
{
    std::size_t begin;
    std::size_t end;
    const uint8_t* data;
};

/// The decode status of a rejected header.
MessageDecodeStatus
HeaderFailure(HeaderStatus st)
{
    return st == HeaderStatus::OldVersion ? MessageDecodeStatus::OldVersion
                                          : MessageDecodeStatus::BadHeader;
}

/// Header checks shared by the decoders (header validity, then the length).
MessageDecodeStatus
CheckHeader(const uint8_t* header, std::size_t len, uint32_t maxPayloadBytes, MessageHeader& h)
{
    const HeaderStatus st = ParseHeader(header, maxPayloadBytes, h);
    if (st != HeaderStatus::Ok)
    {
        return HeaderFailure(st);
    }
    if (len != MessageHeader::kSize + static_cast<std::size_t>(h.payloadBytes))
    {
        return MessageDecodeStatus::LengthMismatch;
    }
    return MessageDecodeStatus::Ok;
}

/// True if the first segment starts with an older sender's header (magic, version 2).
bool
StartsWithOldVersion(const std::vector<Segment>& segs)
{
    return !segs.empty() && segs[0].begin == 0 &&
           segs[0].end >= MessageHeader::kPrefixSize &&
           CheckHeaderPrefix(segs[0].data, MessageHeader::kPrefixSize) == HeaderStatus::OldVersion;
}

template <typename D>
void
DecodeSegments(const MessageHeader& h,
               const std::vector<Segment>& segs,
               std::size_t dataOffset,
               float scale,
               D* dst,
               std::size_t& decoded)
{
    const std::size_t eb = WireElementBytes(h.encoding);
    for (const Segment& seg : segs)
    {
        // Elements i with dataOffset + i eb >= begin and dataOffset + (i + 1) eb <= end.
        if (seg.end <= dataOffset)
        {
            continue;
        }
        const std::size_t first =
            seg.begin <= dataOffset ? 0 : (seg.begin - dataOffset + eb - 1) / eb;
        const std::size_t last = std::min<std::size_t>((seg.end - dataOffset) / eb, h.count);
        if (first >= last)
        {
            continue;
        }
        const uint8_t* src = seg.data + (dataOffset + first * eb - seg.begin);
        DecodeElements(h.encoding, src, last - first, scale, dst + first);
        decoded += last - first;
    }
}

/**
 * The partial decode: `segs` are the received bytes of a len-byte message, sorted, disjoint,
 * contiguous runs merged. Nothing is allocated before the header is validated and matches
 * `previous`.
 */
MessageDecodeStatus
DecodeFromSegments(std::size_t len,
                   const std::vector<Segment>& segs,
                   const ParamVector& previous,
                   Precision to,
                   uint32_t maxPayloadBytes,
                   ReceivedMessage& out,
                   std::size_t* missingCoordinates)
{
    if (StartsWithOldVersion(segs))
    {
        return MessageDecodeStatus::OldVersion;
    }
    if (len < MessageHeader::kSize)
    {
        return MessageDecodeStatus::TooShort;
    }
    if (segs.empty() || segs[0].begin != 0 || segs[0].end < MessageHeader::kSize)
    {
        return MessageDecodeStatus::HeaderMissing;
    }
    const uint8_t* header = segs[0].data;
    MessageHeader h;
    const MessageDecodeStatus st = CheckHeader(header, len, maxPayloadBytes, h);
    if (st != MessageDecodeStatus::Ok)
    {
        return st;
    }
    if (h.raw)
    {
        // Raw bytes have no previous values to fall back on: complete or nothing.
        if (segs[0].end < len)
        {
            return MessageDecodeStatus::RawIncomplete;
        }
        if (MessageCrc(header, header + MessageHeader::kSize, h.payloadBytes) != h.crc)
        {
            return MessageDecodeStatus::BadCrc;
        }
        DecodeInto(h, header + MessageHeader::kSize, to, out);
        if (missingCoordinates != nullptr)
        {
            *missingCoordinates = 0;
        }
        return MessageDecodeStatus::Ok;
    }
    const std::size_t dataOffset = MessageHeader::kSize + WireDataOffset(h.encoding);
    if (h.count > 0 && segs[0].end < dataOffset)
    {
        return MessageDecodeStatus::ScaleMissing;
    }
    if (previous.Size() != h.count)
    {
        return MessageDecodeStatus::SizeMismatch;
    }
    if (h.count == 0)
    {
        DecodeInto(h, nullptr, to, out);
        if (missingCoordinates != nullptr)
        {
            *missingCoordinates = 0;
        }
        return MessageDecodeStatus::Ok;
    }
    float scale = 0.0f;
    if (h.encoding == WireEncoding::Int8)
    {
        std::memcpy(&scale, header + MessageHeader::kSize, 4);
    }
    // Start from the previous values (the one allocation, of the receiver's own size), then
    // decode every coordinate all of whose bytes arrived over them: O(count) in total.
    ParamVector params = previous.ConvertedTo(to);
    std::size_t decoded = 0;
    if (to == Precision::Float64)
    {
        DecodeSegments(h, segs, dataOffset, scale, params.Get<double>().data(), decoded);
    }
    else
    {
        DecodeSegments(h, segs, dataOffset, scale, params.Get<float>().data(), decoded);
    }
    out.header = h;
    out.params = std::move(params);
    out.raw.clear();
    if (missingCoordinates != nullptr)
    {
        *missingCoordinates = h.count - decoded;
    }
    return MessageDecodeStatus::Ok;
}

} // namespace

const char*
MessageDecodeStatusName(MessageDecodeStatus s)
{
    switch (s)
    {
    case MessageDecodeStatus::Ok:
        return "ok";
    case MessageDecodeStatus::TooShort:
        return "too short";
    case MessageDecodeStatus::BadHeader:
        return "bad header";
    case MessageDecodeStatus::LengthMismatch:
        return "length does not match the header";
    case MessageDecodeStatus::BadCrc:
        return "CRC mismatch";
    case MessageDecodeStatus::HeaderMissing:
        return "header not received";
    case MessageDecodeStatus::ScaleMissing:
        return "int8 scale not received";
    case MessageDecodeStatus::SizeMismatch:
        return "previous vector size differs from the message";
    case MessageDecodeStatus::RawIncomplete:
        return "raw payload incomplete";
    case MessageDecodeStatus::OldVersion:
        return "old wire version 2 (no header CRC): update the sender";
    case MessageDecodeStatus::BadRanges:
        return "received ranges do not describe the received data";
    }
    return "unknown";
}

MessageDecodeStatus
DecodeWholeMessage(const uint8_t* bytes,
                   std::size_t len,
                   Precision to,
                   uint32_t maxPayloadBytes,
                   ReceivedMessage& out)
{
    if (bytes != nullptr && len >= MessageHeader::kPrefixSize &&
        CheckHeaderPrefix(bytes, MessageHeader::kPrefixSize) == HeaderStatus::OldVersion)
    {
        return MessageDecodeStatus::OldVersion;
    }
    if (bytes == nullptr || len < MessageHeader::kSize)
    {
        return MessageDecodeStatus::TooShort;
    }
    MessageHeader h;
    const MessageDecodeStatus st = CheckHeader(bytes, len, maxPayloadBytes, h);
    if (st != MessageDecodeStatus::Ok)
    {
        return st;
    }
    const uint8_t* payload = bytes + MessageHeader::kSize;
    if (MessageCrc(bytes, payload, h.payloadBytes) != h.crc)
    {
        return MessageDecodeStatus::BadCrc;
    }
    DecodeInto(h, payload, to, out);
    return MessageDecodeStatus::Ok;
}

MessageDecodeStatus
DecodePartialMessage(const uint8_t* bytes,
                     std::size_t len,
                     const std::vector<IndexRange>& receivedBytes,
                     const ParamVector& previous,
                     Precision to,
                     uint32_t maxPayloadBytes,
                     ReceivedMessage& out,
                     std::size_t* missingCoordinates)
{
    if (bytes == nullptr)
    {
        return MessageDecodeStatus::TooShort;
    }
    // Ranges in any order, overlapping or reaching past the buffer: clip, sort and merge them.
    std::vector<IndexRange> clipped;
    clipped.reserve(receivedBytes.size());
    for (const IndexRange& r : receivedBytes)
    {
        clipped.push_back({std::min(r.begin, len), std::min(r.end, len)});
    }
    std::vector<Segment> segs;
    for (const IndexRange& r : MergeRanges(clipped))
    {
        segs.push_back({r.begin, r.end, bytes + r.begin});
    }
    return DecodeFromSegments(len, segs, previous, to, maxPayloadBytes, out, missingCoordinates);
}

MessageDecodeStatus
DecodePackedPartialMessage(std::size_t length,
                           const std::vector<IndexRange>& receivedBytes,
                           const uint8_t* receivedData,
                           std::size_t receivedDataLen,
                           const ParamVector& previous,
                           Precision to,
                           uint32_t maxPayloadBytes,
                           ReceivedMessage& out,
                           std::size_t* missingCoordinates)
{
    std::vector<Segment> segs;
    segs.reserve(receivedBytes.size());
    std::size_t offset = 0; // into receivedData
    for (const IndexRange& r : receivedBytes)
    {
        if (r.begin >= r.end || r.end > length || (!segs.empty() && r.begin < segs.back().end) ||
            r.end - r.begin > receivedDataLen - offset)
        {
            return MessageDecodeStatus::BadRanges;
        }
        if (!segs.empty() && r.begin == segs.back().end)
        {
            segs.back().end = r.end; // adjacent: contiguous in receivedData too
        }
        else
        {
            segs.push_back({r.begin, r.end, receivedData + offset});
        }
        offset += r.end - r.begin;
    }
    if (offset != receivedDataLen)
    {
        return MessageDecodeStatus::BadRanges;
    }
    return DecodeFromSegments(length, segs, previous, to, maxPayloadBytes, out, missingCoordinates);
}

MessageDecodeStatus
DecodePackedPartialMessage(const PartialMessage& partial,
                           const ParamVector& previous,
                           Precision to,
                           uint32_t maxPayloadBytes,
                           ReceivedMessage& out,
                           std::size_t* missingCoordinates)
{
    return DecodePackedPartialMessage(partial.length,
                                      partial.receivedBytes,
                                      partial.receivedData.data(),
                                      partial.receivedData.size(),
                                      previous,
                                      to,
                                      maxPayloadBytes,
                                      out,
                                      missingCoordinates);
}

} // namespace fl
} // namespace ns3
