/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ns3/chunk-feedback.h"

#include "ns3/fl-types.h"
#include "ns3/model-message.h"
#include "ns3/wire-bytes.h"

#include <algorithm>
#include <string>

namespace ns3
{
namespace fl
{

const char*
FeedbackTypeName(FeedbackType t)
{
    switch (t)
    {
    case FeedbackType::Ack:
        return "ack";
    case FeedbackType::Nack:
        return "nack";
    }
    return "unknown";
}

const char*
FeedbackStatusName(FeedbackStatus s)
{
    switch (s)
    {
    case FeedbackStatus::Ok:
        return "ok";
    case FeedbackStatus::TooShort:
        return "too short";
    case FeedbackStatus::BadMagic:
        return "bad magic";
    case FeedbackStatus::BadVersion:
        return "bad version";
    case FeedbackStatus::BadType:
        return "bad type";
    case FeedbackStatus::BadReserved:
        return "reserved bytes set";
    case FeedbackStatus::BadCount:
        return "index count does not match the type";
    case FeedbackStatus::BadLength:
        return "length does not match the index count";
    case FeedbackStatus::BadCrc:
        return "CRC mismatch";
    case FeedbackStatus::BadIndices:
        return "indices not strictly ascending";
    }
    return "unknown";
}

std::size_t
MaxNackIndices(std::size_t maxDatagramBytes)
{
    const std::size_t bytes = std::min(maxDatagramBytes, ChunkFeedback::kMaxDatagram);
    if (bytes < ChunkFeedback::kMinSize + 4)
    {
        throw ConfigError("maxDatagramBytes",
                          std::to_string(maxDatagramBytes) +
                              " bytes leave no room for a chunk index in a NACK",
                          "allow at least " + std::to_string(ChunkFeedback::kMinSize + 4) +
                              " bytes per datagram");
    }
    return (bytes - ChunkFeedback::kMinSize) / 4;
}

std::size_t
FeedbackSize(const ChunkFeedback& fb)
{
    return ChunkFeedback::kMinSize + 4 * fb.missing.size();
}

void
EncodeFeedback(const ChunkFeedback& fb, std::vector<uint8_t>& out)
{
    const std::size_t n = fb.missing.size();
    if (fb.type != FeedbackType::Ack && fb.type != FeedbackType::Nack)
    {
        throw ConfigError("type", "unknown feedback type", "use FeedbackType::Ack or Nack");
    }
    if (fb.type == FeedbackType::Ack && n != 0)
    {
        throw ConfigError("missing",
                          "an ACK carries no chunk indices",
                          "clear the index list or send a NACK");
    }
    if (fb.type == FeedbackType::Nack && n == 0)
    {
        throw ConfigError("missing",
                          "a NACK must list at least one chunk index",
                          "send an ACK, or nothing, when no chunk is missing");
    }
    if (n > MaxNackIndices(ChunkFeedback::kMaxDatagram))
    {
        throw ConfigError("missing",
                          std::to_string(n) + " indices do not fit one datagram",
                          "split the list into NACKs of at most MaxNackIndices(bytes) indices");
    }
    for (std::size_t i = 1; i < n; ++i)
    {
        if (fb.missing[i] <= fb.missing[i - 1])
        {
            throw ConfigError("missing",
                              "chunk indices must be strictly ascending",
                              "sort the indices and remove duplicates");
        }
    }
    out.resize(FeedbackSize(fb));
    uint8_t* p = out.data();
    PutU32(p, ChunkFeedback::kMagic);
    p[4] = ChunkFeedback::kVersion;
    p[5] = static_cast<uint8_t>(fb.type);
    p[6] = 0;
    p[7] = 0;
    PutU32(p + 8, fb.messageId);
    PutU32(p + 12, fb.sender);
    PutU32(p + 16, fb.round);
    PutU32(p + 20, static_cast<uint32_t>(n));
    for (std::size_t i = 0; i < n; ++i)
    {
        PutU32(p + ChunkFeedback::kHeaderSize + 4 * i, fb.missing[i]);
    }
    const std::size_t covered = ChunkFeedback::kHeaderSize + 4 * n;
    PutU32(p + covered, Crc32(p, covered));
}

FeedbackStatus
ParseFeedback(const uint8_t* datagram, std::size_t len, ChunkFeedback& out)
{
    if (datagram == nullptr || len < ChunkFeedback::kMinSize)
    {
        return FeedbackStatus::TooShort;
    }
    if (GetU32(datagram) != ChunkFeedback::kMagic)
    {
        return FeedbackStatus::BadMagic;
    }
    if (datagram[4] != ChunkFeedback::kVersion)
    {
        return FeedbackStatus::BadVersion;
    }
    const uint8_t type = datagram[5];
    if (type != static_cast<uint8_t>(FeedbackType::Ack) &&
        type != static_cast<uint8_t>(FeedbackType::Nack))
    {
        return FeedbackStatus::BadType;
    }
    if (datagram[6] != 0 || datagram[7] != 0)
    {
        return FeedbackStatus::BadReserved;
    }
    const uint32_t n = GetU32(datagram + 20);
    if ((type == static_cast<uint8_t>(FeedbackType::Ack)) != (n == 0))
    {
        return FeedbackStatus::BadCount;
    }
    // 64-bit arithmetic: 4 n cannot overflow, and n is bounded by len before any index is read.
    if (static_cast<uint64_t>(len) != ChunkFeedback::kMinSize + 4 * static_cast<uint64_t>(n))
    {
        return FeedbackStatus::BadLength;
    }
    const std::size_t covered = ChunkFeedback::kHeaderSize + 4 * static_cast<std::size_t>(n);
    if (Crc32(datagram, covered) != GetU32(datagram + covered))
    {
        return FeedbackStatus::BadCrc;
    }
    const uint8_t* idx = datagram + ChunkFeedback::kHeaderSize;
    for (uint32_t i = 1; i < n; ++i)
    {
        if (GetU32(idx + 4 * i) <= GetU32(idx + 4 * (i - 1)))
        {
            return FeedbackStatus::BadIndices;
        }
    }
    out.type = static_cast<FeedbackType>(type);
    out.messageId = GetU32(datagram + 8);
    out.sender = GetU32(datagram + 12);
    out.round = GetU32(datagram + 16);
    out.missing.resize(n);
    for (uint32_t i = 0; i < n; ++i)
    {
        out.missing[i] = GetU32(idx + 4 * i);
    }
    return FeedbackStatus::Ok;
}

bool
HighestReceivedChunk(const std::vector<uint32_t>& missing,
                     uint32_t chunkCount,
                     uint32_t sent,
                     std::size_t maxIndices,
                     uint32_t& index)
{
    const uint32_t end = std::min(chunkCount, sent); // indices [0, end) may have arrived
    if (missing.empty() || end == 0)
    {
        return false;
    }
    const uint32_t first = missing.front();
    const uint32_t last = missing.back();
    // above the last listed index: received if this NACK ends its batch
    if (missing.size() < maxIndices && last + 1 < end)
    {
        index = end - 1;
        return true;
    }
    // a gap between listed indices (ascending): the highest one below `end`
    for (std::size_t i = missing.size() - 1; i > 0; --i)
    {
        const uint32_t hi = std::min(missing[i], end);
        if (missing[i - 1] + 1 < hi)
        {
            index = hi - 1;
            return true;
        }
    }
    // below the first listed index: received if the message's indices fit one NACK
    if (chunkCount <= maxIndices && first > 0)
    {
        index = std::min(first, end) - 1;
        return true;
    }
    return false;
}

bool
IsFeedbackDatagram(const uint8_t* datagram, std::size_t len)
{
    return datagram != nullptr && len >= 4 && GetU32(datagram) == ChunkFeedback::kMagic;
}

} // namespace fl
} // namespace ns3
