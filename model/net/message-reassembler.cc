/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ns3/message-reassembler.h"

#include <algorithm>
#include <cstring>

namespace ns3
{
namespace fl
{

MessageReassembler::MessageReassembler(Precision decodeTo, uint32_t maxPayloadBytes)
    : m_decodeTo(decodeTo),
      m_maxPayload(maxPayloadBytes)
{
}

void
MessageReassembler::Push(const uint8_t* data, std::size_t len)
{
    if (len == 0)
    {
        return;
    }
    Compact();
    m_buffer.insert(m_buffer.end(), data, data + len);
    m_stats.bytesIn += len;
}

void
MessageReassembler::Discard(std::size_t n)
{
    m_offset += n;
    m_stats.bytesDiscarded += n;
}

void
MessageReassembler::Compact()
{
    // Move the unread tail to the front once the consumed part dominates, so that the buffer
    // does not grow without bound and we copy each byte O(1) times on average.
    if (m_offset == 0)
    {
        return;
    }
    if (m_offset == m_buffer.size())
    {
        m_buffer.clear();
        m_offset = 0;
        return;
    }
    if (m_offset >= m_buffer.size() / 2)
    {
        m_buffer.erase(m_buffer.begin(), m_buffer.begin() + static_cast<std::ptrdiff_t>(m_offset));
        m_offset = 0;
    }
}

void
DecodeInto(const MessageHeader& header, const uint8_t* payload, Precision to, ReceivedMessage& out)
{
    out.header = header;
    out.raw.clear();
    if (header.raw)
    {
        out.params = ParamVector();
        out.raw.assign(payload, payload + header.payloadBytes);
        return;
    }
    out.params = header.count == 0 ? ParamVector() : DecodePayload(header, payload, to);
}

bool
MessageReassembler::Pop(ReceivedMessage& out)
{
    static const uint8_t magic[4] = {'F', 'L', 'M', '1'};
    while (Buffered() >= MessageHeader::kSize)
    {
        const uint8_t* p = m_buffer.data() + m_offset;
        MessageHeader h;
        const HeaderStatus st = ParseHeader(p, m_maxPayload, h);
        if (st != HeaderStatus::Ok)
        {
            ++m_stats.malformedHeaders;
            // Re-synchronise: skip to the next occurrence of the magic after this position.
            const uint8_t* end = m_buffer.data() + m_buffer.size();
            const uint8_t* next = std::search(p + 1, end, magic, magic + 4);
            if (next == end)
            {
                // Keep a possible partial magic at the tail for the next Push().
                next = std::max(p + 1, end - 3);
            }
            Discard(static_cast<std::size_t>(next - p));
            continue;
        }
        const std::size_t total = MessageHeader::kSize + h.payloadBytes;
        if (Buffered() < total)
        {
            return false;
        }
        const uint8_t* payload = p + MessageHeader::kSize;
        if (MessageCrc(p, payload, h.payloadBytes) != h.crc)
        {
            ++m_stats.crcErrors;
            Discard(total);
            continue;
        }
        DecodeInto(h, payload, m_decodeTo, out);
        m_offset += total;
        ++m_stats.messages;
        return true;
    }
    return false;
}

} // namespace fl
} // namespace ns3
