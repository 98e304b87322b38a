/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ns3/chunking.h"

#include "ns3/fl-types.h"
#include "ns3/wire-bytes.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <string>
#include <zlib.h>

namespace ns3
{
namespace fl
{

namespace
{

/// Largest UDP payload over IPv4 (65535 - 20 - 8).
constexpr std::size_t kMaxUdpPayload = 65507;

/// CRC-32 over header bytes 0..35, then the payload (as MessageCrc does for messages).
uint32_t
ChunkCrc(const uint8_t* header, const uint8_t* payload, std::size_t payloadLen)
{
    uLong crc = crc32(0L, Z_NULL, 0);
    crc = crc32(crc, header, static_cast<uInt>(ChunkHeader::kSize - 4));
    // payloadLen < 2^16 for any valid chunk, but stay correct for any length.
    while (payloadLen > 0)
    {
        const auto part = static_cast<uInt>(std::min<std::size_t>(payloadLen, 1u << 30));
        crc = crc32(crc, payload, part);
        payload += part;
        payloadLen -= part;
    }
    return static_cast<uint32_t>(crc);
}

/// P = ceil(L / count): the size of every chunk but the last (0 for an empty message).
inline uint64_t
ChunkSize(uint64_t length, uint64_t count)
{
    return (length + count - 1) / count;
}

/// Sorted, merged copy (overlapping and adjacent ranges joined, empty ranges dropped).
std::vector<IndexRange>
Merge(const std::vector<IndexRange>& ranges)
{
    std::vector<IndexRange> r;
    r.reserve(ranges.size());
    for (const auto& x : ranges)
    {
        if (x.begin < x.end)
        {
            r.push_back(x);
        }
    }
    std::sort(r.begin(), r.end(), [](const IndexRange& a, const IndexRange& b) {
        return a.begin < b.begin;
    });
    std::vector<IndexRange> out;
    for (const auto& x : r)
    {
        if (!out.empty() && x.begin <= out.back().end)
        {
            out.back().end = std::max(out.back().end, x.end);
        }
        else
        {
            out.push_back(x);
        }
    }
    return out;
}

/// Complement of sorted, merged ranges within [0, n).
std::vector<IndexRange>
Complement(const std::vector<IndexRange>& merged, std::size_t n)
{
    std::vector<IndexRange> out;
    std::size_t pos = 0;
    for (const auto& x : merged)
    {
        const std::size_t b = std::min(x.begin, n);
        if (b > pos)
        {
            out.push_back({pos, b});
        }
        pos = std::max(pos, std::min(x.end, n));
    }
    if (pos < n)
    {
        out.push_back({pos, n});
    }
    return out;
}

void
CheckFragmentArguments(std::size_t len, std::size_t maxChunkPayload)
{
    if (maxChunkPayload < ChunkHeader::kMinChunkPayload)
    {
        throw ConfigError("maxChunkPayload",
                          std::to_string(maxChunkPayload) + " bytes is below the " +
                              std::to_string(ChunkHeader::kMinChunkPayload) +
                              "-byte minimum chunk payload (receivers reject smaller chunks)",
                          "use MaxChunkPayloadForMtu(mtu), e.g. 1432 for a 1500-byte MTU, or at "
                          "least " +
                              std::to_string(ChunkHeader::kMinChunkPayload) + " bytes");
    }
    if (maxChunkPayload + ChunkHeader::kSize > kMaxUdpPayload)
    {
        throw ConfigError("maxChunkPayload",
                          std::to_string(maxChunkPayload) + " bytes plus the " +
                              std::to_string(ChunkHeader::kSize) +
                              "-byte chunk header exceed the largest UDP datagram (65507 bytes)",
                          "use at most 65467 bytes, normally MaxChunkPayloadForMtu(mtu)");
    }
    if (len > std::numeric_limits<uint32_t>::max())
    {
        throw ConfigError("len",
                          "message of " + std::to_string(len) + " bytes is too long to fragment",
                          "send messages shorter than 4 GiB");
    }
}

} // namespace

void
ChunkHeader::Write(uint8_t* out) const
{
    PutU32(out, kMagic);
    out[4] = kVersion;
    out[5] = flags;
    out[6] = 0;
    out[7] = 0;
    PutU32(out + 8, messageId);
    PutU32(out + 12, sender);
    PutU32(out + 16, round);
    PutU32(out + 20, index);
    PutU32(out + 24, count);
    PutU32(out + 28, messageLength);
    PutU32(out + 32, payloadLength);
    PutU32(out + 36, crc);
}

const char*
ChunkStatusName(ChunkStatus s)
{
    switch (s)
    {
    case ChunkStatus::Ok:
        return "ok";
    case ChunkStatus::TooShort:
        return "datagram shorter than a chunk header";
    case ChunkStatus::BadMagic:
        return "bad magic";
    case ChunkStatus::BadVersion:
        return "bad version";
    case ChunkStatus::BadFlags:
        return "unknown flags or reserved bits set";
    case ChunkStatus::BadIndex:
        return "chunk index out of range";
    case ChunkStatus::BadLength:
        return "chunk length does not follow the message length and chunk count";
    case ChunkStatus::TooLarge:
        return "message too large";
    case ChunkStatus::BadCrc:
        return "CRC mismatch";
    case ChunkStatus::Inconsistent:
        return "disagrees with earlier chunks of the message";
    case ChunkStatus::TooManyChunks:
        return "more chunks than the message length allows at the minimum chunk size";
    }
    return "unknown";
}

std::size_t
MaxChunkPayloadForMtu(std::size_t mtu, const char* parameter)
{
    constexpr std::size_t overhead = 20 + 8 + ChunkHeader::kSize;
    if (mtu < overhead + ChunkHeader::kMinChunkPayload)
    {
        throw ConfigError(parameter,
                          "an MTU of " + std::to_string(mtu) +
                              " bytes leaves less than the " +
                              std::to_string(ChunkHeader::kMinChunkPayload) +
                              "-byte minimum chunk payload after the IPv4, UDP and " +
                              std::to_string(ChunkHeader::kSize) + "-byte chunk headers",
                          "use an MTU of at least " +
                              std::to_string(overhead + ChunkHeader::kMinChunkPayload) +
                              " bytes (1500 for Ethernet and Wi-Fi)");
    }
    return std::min(mtu - overhead, kMaxUdpPayload - ChunkHeader::kSize);
}

uint32_t
MaxChunkCount(uint32_t messageLength)
{
    if (messageLength == 0)
    {
        return 1;
    }
    const uint64_t min = ChunkHeader::kMinChunkPayload;
    return static_cast<uint32_t>((uint64_t(messageLength) + min - 1) / min);
}

uint32_t
ChunkCount(std::size_t len, std::size_t maxChunkPayload)
{
    CheckFragmentArguments(len, maxChunkPayload);
    if (len == 0)
    {
        return 1;
    }
    return static_cast<uint32_t>((len + maxChunkPayload - 1) / maxChunkPayload);
}

void
MakeChunk(const uint8_t* msg,
          std::size_t len,
          uint32_t messageId,
          uint32_t sender,
          uint32_t round,
          std::size_t maxChunkPayload,
          uint32_t index,
          uint8_t flags,
          std::vector<uint8_t>& out)
{
    const uint32_t count = ChunkCount(len, maxChunkPayload);
    if (index >= count)
    {
        throw ConfigError("index",
                          "chunk " + std::to_string(index) + " of a message of " +
                              std::to_string(count) + " chunks",
                          "ask for an index below ChunkCount(len, maxChunkPayload)");
    }
    if ((flags & ~ChunkHeader::kKnownFlags) != 0)
    {
        throw ConfigError("flags",
                          "unknown chunk flag bits " + std::to_string(flags),
                          "use 0 or ChunkHeader::kFlagRetransmission");
    }
    const uint64_t p = ChunkSize(len, count);
    const uint64_t begin = index * p;
    const uint64_t size = std::min<uint64_t>(p, len - begin);
    ChunkHeader h;
    h.flags = flags;
    h.messageId = messageId;
    h.sender = sender;
    h.round = round;
    h.index = index;
    h.count = count;
    h.messageLength = static_cast<uint32_t>(len);
    h.payloadLength = static_cast<uint32_t>(size);
    out.resize(ChunkHeader::kSize + size);
    if (size > 0)
    {
        std::memcpy(out.data() + ChunkHeader::kSize, msg + begin, size);
    }
    h.Write(out.data()); // crc field 0; it is not covered by the CRC
    h.crc = ChunkCrc(out.data(), out.data() + ChunkHeader::kSize, size);
    PutU32(out.data() + 36, h.crc);
}

void
Fragment(const uint8_t* msg,
         std::size_t len,
         uint32_t messageId,
         uint32_t sender,
         uint32_t round,
         std::size_t maxChunkPayload,
         std::vector<std::vector<uint8_t>>& out)
{
    const uint32_t count = ChunkCount(len, maxChunkPayload);
    out.resize(count);
    for (uint32_t i = 0; i < count; ++i)
    {
        MakeChunk(msg, len, messageId, sender, round, maxChunkPayload, i, 0, out[i]);
    }
}

std::vector<std::vector<uint8_t>>
Fragment(const uint8_t* msg,
         std::size_t len,
         uint32_t messageId,
         uint32_t sender,
         uint32_t round,
         std::size_t maxChunkPayload)
{
    std::vector<std::vector<uint8_t>> out;
    Fragment(msg, len, messageId, sender, round, maxChunkPayload, out);
    return out;
}

ChunkStatus
ParseChunk(const uint8_t* datagram, std::size_t len, uint32_t maxMessageBytes, ChunkHeader& out)
{
    if (datagram == nullptr || len < ChunkHeader::kSize)
    {
        return ChunkStatus::TooShort;
    }
    if (GetU32(datagram) != ChunkHeader::kMagic)
    {
        return ChunkStatus::BadMagic;
    }
    if (datagram[4] != ChunkHeader::kVersion)
    {
        return ChunkStatus::BadVersion;
    }
    out.flags = datagram[5];
    if ((out.flags & ~ChunkHeader::kKnownFlags) != 0 || datagram[6] != 0 || datagram[7] != 0)
    {
        return ChunkStatus::BadFlags;
    }
    out.messageId = GetU32(datagram + 8);
    out.sender = GetU32(datagram + 12);
    out.round = GetU32(datagram + 16);
    out.index = GetU32(datagram + 20);
    out.count = GetU32(datagram + 24);
    out.messageLength = GetU32(datagram + 28);
    out.payloadLength = GetU32(datagram + 32);
    out.crc = GetU32(datagram + 36);
    if (out.count == 0 || out.index >= out.count)
    {
        return ChunkStatus::BadIndex;
    }
    if (out.messageLength > maxMessageBytes)
    {
        return ChunkStatus::TooLarge;
    }
    if (out.count > MaxChunkCount(out.messageLength))
    {
        return ChunkStatus::TooManyChunks;
    }
    // The size rule: P = ceil(L / count); chunks 0..count-2 carry P bytes, the last one
    // L - (count - 1) P >= 1 (or the single chunk of an empty message carries 0).
    const uint64_t length = out.messageLength;
    const uint64_t count = out.count;
    uint64_t expected = 0;
    if (length == 0)
    {
        if (count != 1)
        {
            return ChunkStatus::BadLength;
        }
    }
    else
    {
        const uint64_t p = ChunkSize(length, count);
        if ((count - 1) * p >= length)
        {
            return ChunkStatus::BadLength; // the last chunk would be empty
        }
        expected = out.index + 1 < count ? p : length - (count - 1) * p;
    }
    if (out.payloadLength != expected || len - ChunkHeader::kSize != expected)
    {
        return ChunkStatus::BadLength;
    }
    if (ChunkCrc(datagram, datagram + ChunkHeader::kSize, out.payloadLength) != out.crc)
    {
        return ChunkStatus::BadCrc;
    }
    return ChunkStatus::Ok;
}

std::vector<IndexRange>
ReceivedCoordinateRanges(const std::vector<IndexRange>& receivedBytes,
                         std::size_t dataOffset,
                         std::size_t elementBytes,
                         std::size_t count)
{
    if (elementBytes == 0)
    {
        throw ConfigError("elementBytes",
                          "an element must occupy at least one byte",
                          "pass WireElementBytes(encoding)");
    }
    std::vector<IndexRange> out;
    for (const auto& r : Merge(receivedBytes))
    {
        // Elements i with dataOffset + i eb >= begin and dataOffset + (i + 1) eb <= end.
        if (r.end <= dataOffset)
        {
            continue;
        }
        const std::size_t first =
            r.begin <= dataOffset ? 0 : (r.begin - dataOffset + elementBytes - 1) / elementBytes;
        const std::size_t last = std::min((r.end - dataOffset) / elementBytes, count);
        if (first < last)
        {
            out.push_back({first, last});
        }
    }
    return out;
}

std::vector<IndexRange>
MissingCoordinateRanges(const std::vector<IndexRange>& receivedBytes,
                        std::size_t dataOffset,
                        std::size_t elementBytes,
                        std::size_t count)
{
    return Complement(ReceivedCoordinateRanges(receivedBytes, dataOffset, elementBytes, count),
                      count);
}

std::vector<IndexRange>
MergeRanges(const std::vector<IndexRange>& ranges)
{
    return Merge(ranges);
}

bool
RangesCover(const std::vector<IndexRange>& ranges, std::size_t begin, std::size_t end)
{
    if (begin >= end)
    {
        return true;
    }
    for (const auto& r : Merge(ranges))
    {
        if (r.begin <= begin && end <= r.end)
        {
            return true;
        }
    }
    return false;
}

// ---------------------------------------------------------------------------- ChunkReassembler

ChunkReassembler::ChunkReassembler(std::size_t maxOpenMessages,
                                   uint32_t maxMessageBytes,
                                   std::size_t closedHistory,
                                   double closedRetention)
    : m_maxOpen(maxOpenMessages),
      m_maxMessageBytes(maxMessageBytes),
      m_closedHistory(closedHistory),
      m_closedRetention(closedRetention)
{
    if (!(closedRetention > 0.0))
    {
        throw ConfigError("closedRetention",
                          "must be positive",
                          "remember closed keys at least as long as a sender may still send "
                          "their chunks (infinity: by count only)");
    }
    if (maxOpenMessages == 0)
    {
        throw ConfigError("maxOpenMessages",
                          "must be at least 1",
                          "allow at least one message (e.g. one per sender) to be assembled");
    }
    if (closedHistory == 0)
    {
        throw ConfigError("closedHistory",
                          "must be at least 1",
                          "remember at least as many closed messages as can be in flight");
    }
}

ChunkResult
ChunkReassembler::Reject(ChunkStatus s)
{
    m_lastStatus = s;
    ++m_stats.malformed;
    if (s == ChunkStatus::BadCrc)
    {
        ++m_stats.crcErrors;
    }
    else if (s == ChunkStatus::Inconsistent)
    {
        ++m_stats.inconsistent;
    }
    else if (s == ChunkStatus::TooManyChunks)
    {
        ++m_stats.tooManyChunks;
    }
    return ChunkResult::Malformed;
}

void
ChunkReassembler::Close(const MessageKey& key)
{
    if (!m_closed.insert(key).second)
    {
        return;
    }
    m_closedOrder.emplace_back(key, m_latest);
    while (m_closedOrder.size() > m_closedHistory)
    {
        m_closed.erase(m_closedOrder.front().first);
        m_closedOrder.pop_front();
    }
}

void
ChunkReassembler::ForgetClosedBefore(double time)
{
    // Keys are closed at non-decreasing times (m_latest never goes back): the oldest come first.
    while (!m_closedOrder.empty() && m_closedOrder.front().second < time)
    {
        m_closed.erase(m_closedOrder.front().first);
        m_closedOrder.pop_front();
    }
}

std::vector<IndexRange>
ChunkReassembler::ReceivedRanges(const Open& m)
{
    std::vector<IndexRange> out;
    const uint64_t p = m.chunkSize;
    for (auto it = m.chunks.begin(); it != m.chunks.end();)
    {
        const uint64_t i = it->first;
        uint64_t j = i + 1; // one past the run of consecutive indices starting at i
        for (++it; it != m.chunks.end() && it->first == j; ++it)
        {
            ++j;
        }
        const auto b = static_cast<std::size_t>(i * p);
        const auto e = static_cast<std::size_t>(std::min<uint64_t>(j * p, m.length));
        if (b < e)
        {
            out.push_back({b, e});
        }
    }
    return out;
}

std::vector<uint8_t>
ChunkReassembler::Assemble(const Open& m)
{
    std::vector<uint8_t> bytes(m.length);
    for (const auto& kv : m.chunks)
    {
        std::copy(kv.second.begin(),
                  kv.second.end(),
                  bytes.begin() + static_cast<std::ptrdiff_t>(kv.first) * m.chunkSize);
    }
    return bytes;
}

std::vector<IndexRange>
ChunkReassembler::MissingRanges(const Open& m)
{
    std::vector<IndexRange> out;
    std::size_t next = 0; // lowest index not known to be received
    for (const auto& kv : m.chunks)
    {
        if (kv.first > next)
        {
            out.push_back({next, kv.first});
        }
        next = std::size_t(kv.first) + 1;
    }
    if (next < m.count)
    {
        out.push_back({next, m.count});
    }
    return out;
}

void
ChunkReassembler::FillPartial(const MessageKey& key, const Open& m, PartialMessage& p)
{
    p.key = key;
    p.round = m.round;
    p.chunkCount = m.count;
    p.chunksReceived = m.received;
    p.length = m.length;
    p.receivedBytes = ReceivedRanges(m);
    p.missingChunks = MissingRanges(m);
    // The received chunks in index order, packed: their concatenation is exactly the bytes of
    // receivedBytes, range after range (runs of consecutive indices are contiguous bytes).
    p.receivedData.clear();
    p.receivedData.reserve(m.storedBytes);
    for (const auto& kv : m.chunks)
    {
        p.receivedData.insert(p.receivedData.end(), kv.second.begin(), kv.second.end());
    }
}

std::size_t
PartialMessage::HeldBytes() const
{
    return receivedData.capacity() + sizeof(IndexRange) * receivedBytes.capacity() +
           sizeof(IndexRange) * missingChunks.capacity();
}

std::vector<uint32_t>
ChunkReassembler::Missing(const Open& m, std::size_t maxIndices)
{
    std::vector<uint32_t> missing;
    uint32_t next = 0; // lowest index not known to be received
    auto it = m.chunks.begin();
    while (next < m.count && missing.size() < maxIndices)
    {
        if (it != m.chunks.end() && it->first == next)
        {
            ++it;
        }
        else
        {
            missing.push_back(next);
        }
        ++next;
    }
    return missing;
}

void
ChunkReassembler::Remove(OpenMap::iterator it, PartialMessage* partial)
{
    const MessageKey key = it->first;
    Open& m = it->second;
    m_stats.lostChunks += m.count - m.received;
    m_bufferedBytes -= m.storedBytes;
    if (partial != nullptr)
    {
        FillPartial(key, m, *partial);
    }
    m_order.erase(m.sequence);
    m_open.erase(it);
    Close(key);
}

ChunkResult
ChunkReassembler::Accept(const uint8_t* datagram,
                         std::size_t len,
                         CompletedMessage& out,
                         double now)
{
    ++m_stats.datagrams;
    if (now > m_latest)
    {
        m_latest = now;
        if (m_closedRetention < std::numeric_limits<double>::infinity())
        {
            ForgetClosedBefore(now - m_closedRetention);
        }
    }
    m_stats.bytesIn += len;
    ChunkHeader h;
    const ChunkStatus st = ParseChunk(datagram, len, m_maxMessageBytes, h);
    if (st != ChunkStatus::Ok)
    {
        return Reject(st);
    }
    const uint8_t* payload = datagram + ChunkHeader::kSize;
    const MessageKey key{h.sender, h.messageId};
    auto it = m_open.find(key);
    if (it == m_open.end())
    {
        if (m_closed.count(key) != 0)
        {
            ++m_stats.late;
            return ChunkResult::Late;
        }
        if (h.count == 1)
        {
            // A single-chunk message completes at once; it never occupies an open slot.
            ++m_stats.accepted;
            ++m_stats.messagesCompleted;
            out.key = key;
            out.round = h.round;
            out.chunkCount = 1;
            out.bytes.assign(payload, payload + h.payloadLength);
            Close(key);
            return ChunkResult::Completed;
        }
        while (m_open.size() >= m_maxOpen)
        {
            auto oldest = m_open.find(m_order.begin()->second);
            ++m_stats.messagesEvicted;
            Remove(oldest, nullptr);
        }
        Open m;
        m.round = h.round;
        m.count = h.count;
        m.length = h.messageLength;
        m.chunkSize = static_cast<uint32_t>(ChunkSize(h.messageLength, h.count));
        m.sequence = m_sequence++;
        m_order.emplace(m.sequence, key);
        it = m_open.emplace(key, std::move(m)).first;
    }
    Open& m = it->second;
    if (h.round != m.round || h.count != m.count || h.messageLength != m.length)
    {
        return Reject(ChunkStatus::Inconsistent);
    }
    auto stored = m.chunks.emplace(h.index, std::vector<uint8_t>());
    if (!stored.second)
    {
        ++m_stats.duplicate;
        return ChunkResult::Duplicate;
    }
    stored.first->second.assign(payload, payload + h.payloadLength);
    m.storedBytes += h.payloadLength;
    m_bufferedBytes += h.payloadLength;
    ++m.received;
    ++m_stats.accepted;
    m.lastArrival = now;
    if (m.received < m.count)
    {
        return ChunkResult::Accepted;
    }
    ++m_stats.messagesCompleted;
    out.key = key;
    out.round = m.round;
    out.chunkCount = m.count;
    out.bytes = Assemble(m);
    m_bufferedBytes -= m.storedBytes;
    m_order.erase(m.sequence);
    m_open.erase(it);
    Close(key);
    return ChunkResult::Completed;
}

std::vector<MessageKey>
ChunkReassembler::OpenMessages() const
{
    std::vector<MessageKey> keys;
    keys.reserve(m_order.size());
    for (const auto& kv : m_order)
    {
        keys.push_back(kv.second);
    }
    return keys;
}

bool
ChunkReassembler::IsOpen(const MessageKey& key) const
{
    return m_open.count(key) != 0;
}

std::vector<uint32_t>
ChunkReassembler::MissingChunks(const MessageKey& key, std::size_t maxIndices) const
{
    const auto it = m_open.find(key);
    return it == m_open.end() ? std::vector<uint32_t>{} : Missing(it->second, maxIndices);
}

std::vector<IndexRange>
ChunkReassembler::MissingChunkRanges(const MessageKey& key) const
{
    const auto it = m_open.find(key);
    return it == m_open.end() ? std::vector<IndexRange>{} : MissingRanges(it->second);
}

std::vector<IndexRange>
ChunkReassembler::ReceivedByteRanges(const MessageKey& key) const
{
    const auto it = m_open.find(key);
    return it == m_open.end() ? std::vector<IndexRange>{} : ReceivedRanges(it->second);
}

std::vector<IndexRange>
ChunkReassembler::MissingByteRanges(const MessageKey& key) const
{
    const auto it = m_open.find(key);
    if (it == m_open.end())
    {
        return {};
    }
    return Complement(ReceivedRanges(it->second), it->second.length);
}

bool
ChunkReassembler::Snapshot(const MessageKey& key, PartialMessage& out) const
{
    const auto it = m_open.find(key);
    if (it == m_open.end())
    {
        return false;
    }
    FillPartial(key, it->second, out);
    return true;
}

bool
ChunkReassembler::Abandon(const MessageKey& key, PartialMessage* partial)
{
    const auto it = m_open.find(key);
    if (it == m_open.end())
    {
        return false;
    }
    ++m_stats.messagesAbandoned;
    Remove(it, partial);
    return true;
}

std::size_t
ChunkReassembler::ExpireIdle(double idleBefore, std::vector<PartialMessage>* partials)
{
    std::vector<MessageKey> expired;
    for (const auto& kv : m_order)
    {
        if (m_open.at(kv.second).lastArrival < idleBefore)
        {
            expired.push_back(kv.second);
        }
    }
    for (const auto& key : expired)
    {
        PartialMessage* p = nullptr;
        if (partials != nullptr)
        {
            partials->emplace_back();
            p = &partials->back();
        }
        Abandon(key, p);
    }
    return expired.size();
}

} // namespace fl
} // namespace ns3
