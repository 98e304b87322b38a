/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ns3/partial-message.h"

#include "ns3/payload-codec.h"

namespace ns3
{
namespace fl
{

namespace
{

/// Copies previous[r.begin, r.end) into dst for every range, converting the scalar.
template <typename D, typename S>
void
FillRanges(Vec<D>& dst, const Vec<S>& previous, const std::vector<IndexRange>& ranges)
{
    for (const auto& r : ranges)
    {
        const auto b = static_cast<Eigen::Index>(r.begin);
        const auto n = static_cast<Eigen::Index>(r.end - r.begin);
        dst.segment(b, n) = previous.segment(b, n).template cast<D>();
    }
}

template <typename D>
void
FillFromPrevious(Vec<D>& dst, const ParamVector& previous, const std::vector<IndexRange>& ranges)
{
    if (previous.GetPrecision() == Precision::Float64)
    {
        FillRanges(dst, previous.Get<double>(), ranges);
    }
    else
    {
        FillRanges(dst, previous.Get<float>(), ranges);
    }
}

/// Header checks shared by both decoders (length and header validity).
MessageDecodeStatus
CheckHeader(const uint8_t* bytes, std::size_t len, uint32_t maxPayloadBytes, MessageHeader& h)
{
    if (ParseHeader(bytes, maxPayloadBytes, h) != HeaderStatus::Ok)
    {
        return MessageDecodeStatus::BadHeader;
    }
    if (len != MessageHeader::kSize + static_cast<std::size_t>(h.payloadBytes))
    {
        return MessageDecodeStatus::LengthMismatch;
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
    if (bytes == nullptr || len < MessageHeader::kSize)
    {
        return MessageDecodeStatus::TooShort;
    }
    if (!RangesCover(receivedBytes, 0, MessageHeader::kSize))
    {
        return MessageDecodeStatus::HeaderMissing;
    }
    MessageHeader h;
    const MessageDecodeStatus st = CheckHeader(bytes, len, maxPayloadBytes, h);
    if (st != MessageDecodeStatus::Ok)
    {
        return st;
    }
    if (h.raw)
    {
        // Raw bytes have no previous values to fall back on: complete or nothing.
        if (!RangesCover(receivedBytes, 0, len))
        {
            return MessageDecodeStatus::RawIncomplete;
        }
        if (MessageCrc(bytes, bytes + MessageHeader::kSize, h.payloadBytes) != h.crc)
        {
            return MessageDecodeStatus::BadCrc;
        }
        DecodeInto(h, bytes + MessageHeader::kSize, to, out);
        if (missingCoordinates)
        {
            *missingCoordinates = 0;
        }
        return MessageDecodeStatus::Ok;
    }
    const std::size_t dataOffset = MessageHeader::kSize + WireDataOffset(h.encoding);
    if (h.count > 0 && !RangesCover(receivedBytes, MessageHeader::kSize, dataOffset))
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
    // Decode everything (holes decode to arbitrary finite or non-finite values, never an error),
    // then overwrite the coordinates that were hit by a hole: O(count) in total.
    const std::vector<IndexRange> missing =
        MissingCoordinateRanges(receivedBytes, dataOffset, WireElementBytes(h.encoding), h.count);
    ParamVector params = DecodePayload(h, bytes + MessageHeader::kSize, to);
    std::size_t filled = 0;
    for (const auto& r : missing)
    {
        filled += r.end - r.begin;
    }
    if (to == Precision::Float64)
    {
        FillFromPrevious(params.Get<double>(), previous, missing);
    }
    else
    {
        FillFromPrevious(params.Get<float>(), previous, missing);
    }
    out.header = h;
    out.params = std::move(params);
    out.raw.clear();
    if (missingCoordinates != nullptr)
    {
        *missingCoordinates = filled;
    }
    return MessageDecodeStatus::Ok;
}

} // namespace fl
} // namespace ns3
