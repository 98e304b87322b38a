/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ns3/message-reassembler.h"

#include <algorithm>
#include <cstring>
#include <string>

namespace ns3
{
namespace fl
{

MessageReassembler::MessageReassembler(Precision decodeTo, uint32_t maxMessageBytes)
    : m_decodeTo(decodeTo),
      m_maxMessage(maxMessageBytes)
{
    if (maxMessageBytes < MessageHeader::kSize)
    {
        throw ConfigError("maxMessageBytes",
                          std::to_string(maxMessageBytes) + " bytes is less than one " +
                              std::to_string(MessageHeader::kSize) + "-byte message header",
                          "use the largest message the receiver expects, e.g. "
                          "FlMaxModelMessageBytes(parameters)");
    }
}

void
MessageReassembler::Push(const uint8_t* data, std::size_t len)
{
    m_stats.bytesIn += len;
    if (m_failed)
    {
        m_stats.bytesDiscarded += len;
        return;
    }
    Compact();
    const uint32_t maxPayload = m_maxMessage - static_cast<uint32_t>(MessageHeader::kSize);
    while (len > 0)
    {
        // Take no more than the current message still needs: its prefix, the rest of its
        // header (checked before anything behind it is taken), then its payload.
        const std::size_t have = m_buffer.size() - m_current;
        std::size_t want = 0;
        if (m_currentTotal == 0)
        {
            want = (have < MessageHeader::kPrefixSize ? MessageHeader::kPrefixSize
                                                      : MessageHeader::kSize) -
                   have;
        }
        else
        {
            want = m_currentTotal - have;
        }
        const std::size_t take = std::min(len, want);
        m_buffer.insert(m_buffer.end(), data, data + take);
        data += take;
        len -= take;
        const std::size_t now = have + take;
        if (m_currentTotal == 0)
        {
            const uint8_t* p = m_buffer.data() + m_current;
            HeaderStatus st = CheckHeaderPrefix(p, std::min(now, MessageHeader::kPrefixSize));
            if (st == HeaderStatus::Ok && now == MessageHeader::kSize)
            {
                MessageHeader h;
                st = ParseHeader(p, maxPayload, h);
                m_currentTotal = MessageHeader::kSize + h.payloadBytes;
            }
            if (st != HeaderStatus::Ok)
            {
                m_stats.bytesDiscarded += len; // the rest of this push is never buffered
                Fail(st);
                return;
            }
        }
        if (m_currentTotal != 0 && now == m_currentTotal)
        {
            m_current = m_buffer.size(); // complete: Pop() checks its CRC and decodes it
            m_currentTotal = 0;
        }
    }
    m_stats.peakBuffered = std::max<uint64_t>(m_stats.peakBuffered, Buffered());
}

void
MessageReassembler::Fail(HeaderStatus why)
{
    m_failed = true;
    m_failure = why;
    ++m_stats.malformedHeaders;
    if (why == HeaderStatus::OldVersion)
    {
        ++m_stats.oldVersionHeaders;
    }
    else if (why == HeaderStatus::BadHeaderCrc)
    {
        ++m_stats.headerCrcErrors;
    }
    else if (why == HeaderStatus::TooLarge)
    {
        ++m_stats.tooLarge;
    }
    // Drop the bad header's bytes; the complete messages before it can still be popped.
    m_stats.peakBuffered = std::max<uint64_t>(m_stats.peakBuffered, Buffered());
    m_stats.bytesDiscarded += m_buffer.size() - m_current;
    m_buffer.resize(m_current);
    m_currentTotal = 0;
    if (m_offset == m_buffer.size())
    {
        std::vector<uint8_t>().swap(m_buffer); // nothing of this stream is read any more
        m_offset = 0;
        m_current = 0;
    }
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
        m_current = 0;
        return;
    }
    if (m_offset >= m_buffer.size() / 2)
    {
        m_buffer.erase(m_buffer.begin(), m_buffer.begin() + static_cast<std::ptrdiff_t>(m_offset));
        m_current -= m_offset;
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
    // [m_offset, m_current) holds complete messages whose headers Push() validated.
    while (m_offset < m_current)
    {
        const uint8_t* p = m_buffer.data() + m_offset;
        MessageHeader h;
        ParseHeader(p, m_maxMessage - static_cast<uint32_t>(MessageHeader::kSize), h);
        const std::size_t total = MessageHeader::kSize + h.payloadBytes;
        const uint8_t* payload = p + MessageHeader::kSize;
        if (MessageCrc(p, payload, h.payloadBytes) != h.crc)
        {
            ++m_stats.crcErrors; // the header was intact: the stream goes on after it
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
