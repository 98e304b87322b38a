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
    if (len == 0)
    {
        return;
    }
    m_stats.bytesIn += len;
    if (m_failed)
    {
        m_stats.bytesDiscarded += len;
        return;
    }
    Compact();
    m_buffer.insert(m_buffer.end(), data, data + len);
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
    m_stats.bytesDiscarded += Buffered();
    // Let the memory go: nothing of this stream is read any more.
    std::vector<uint8_t>().swap(m_buffer);
    m_offset = 0;
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
    while (!m_failed && Buffered() > 0)
    {
        const uint8_t* p = m_buffer.data() + m_offset;
        // Magic and version first: a stream of another format fails before a whole header.
        const HeaderStatus prefix =
            CheckHeaderPrefix(p, std::min(Buffered(), MessageHeader::kPrefixSize));
        if (prefix != HeaderStatus::Ok)
        {
            Fail(prefix);
            return false;
        }
        if (Buffered() < MessageHeader::kSize)
        {
            return false;
        }
        MessageHeader h;
        const HeaderStatus st =
            ParseHeader(p, m_maxMessage - static_cast<uint32_t>(MessageHeader::kSize), h);
        if (st != HeaderStatus::Ok)
        {
            Fail(st);
            return false;
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
