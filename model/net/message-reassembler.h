/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Stream framing: turns the byte stream of a connection back into model messages.
 */
#ifndef FL_MESSAGE_REASSEMBLER_H
#define FL_MESSAGE_REASSEMBLER_H

#include "ns3/model-message.h"

#include <cstdint>
#include <vector>

namespace ns3
{
namespace fl
{

/// A complete message taken off a stream.
struct ReceivedMessage
{
    MessageHeader header;     ///< validated header
    ParamVector params;       ///< decoded payload (empty for header-only and raw messages)
    std::vector<uint8_t> raw; ///< the payload of a raw (control) message
};

/**
 * Fills `out` from a validated header and its complete payload: the values decoded to
 * precision `to`, or the raw bytes of a raw message.
 */
void DecodeInto(const MessageHeader& header,
                const uint8_t* payload,
                Precision to,
                ReceivedMessage& out);

/// Counters of a reassembler.
struct ReassemblerStats
{
    uint64_t bytesIn{0};           ///< bytes pushed
    uint64_t messages{0};          ///< complete, valid messages delivered
    uint64_t malformedHeaders{0};  ///< headers rejected (0 or 1: the stream fails at the first)
    uint64_t oldVersionHeaders{0}; ///< of which: wire version 2 (an older sender)
    uint64_t headerCrcErrors{0};   ///< of which: header CRC mismatches (corrupted or forged)
    uint64_t tooLarge{0};          ///< of which: messages declared above the size limit
    uint64_t crcErrors{0};         ///< messages whose payload failed the message CRC (dropped)
    uint64_t bytesDiscarded{0};    ///< bytes dropped: CRC failures and all bytes after a failure
    uint64_t peakBuffered{0};      ///< most bytes held at once (Buffered() high-water mark)
};

/**
 * Reassembles messages from an ordered byte stream delivered in arbitrary pieces (TCP).
 *
 * Push() frames the bytes as they come and checks each header before it takes a byte behind it:
 * the magic and version as soon as 5 bytes are there (an older sender's stream fails at once),
 * then the header CRC and fields, including the message size against maxMessageBytes, once its
 * 36 bytes are there; only then is the payload taken. Pop() returns the next complete message,
 * checking its message CRC: a payload that fails it under a valid header is counted and dropped
 * whole, and the stream goes on after it.
 *
 * A header that fails cannot be skipped: in a byte stream nothing marks where the next message
 * starts, and guessing from a magic number lets a forged or misread length swallow the valid
 * messages behind it. So the stream fails: the header is counted, its bytes and every byte
 * pushed after it are dropped without being buffered (Failed(); the messages completed before
 * it can still be popped, then the owner should close or reset the connection).
 *
 * Nothing malformed is ever delivered, and whatever lengths the stream declares, the
 * reassembler holds only the messages completed by the current Push() and not popped yet, plus
 * one message in progress of at most maxMessageBytes (Stats().peakBuffered); popping after every
 * push, that is at most one push and one message.
 */
class MessageReassembler
{
  public:
    /**
     * @param decodeTo precision of the decoded ParamVectors
     * @param maxMessageBytes largest message (header and payload) accepted; a header declaring
     *        more fails the stream. Pass the receiver's model bound (FlMaxModelMessageBytes);
     *        throws ConfigError if below MessageHeader::kSize.
     */
    explicit MessageReassembler(Precision decodeTo = Precision::Float64,
                                uint32_t maxMessageBytes = kDefaultMaxMessageBytes);

    /// Takes bytes received from the stream (dropped and counted from a failed header on).
    void Push(const uint8_t* data, std::size_t len);

    /// Takes the next complete valid message; false if none is complete.
    bool Pop(ReceivedMessage& out);

    /// Bytes held: complete messages not popped yet and the message in progress.
    std::size_t Buffered() const
    {
        return m_buffer.size() - m_offset;
    }

    /// True once a header was rejected: the stream is unusable and every further byte is
    /// dropped (the messages completed before that header can still be popped).
    bool Failed() const
    {
        return m_failed;
    }

    /// Why the stream failed (HeaderStatus::Ok while it has not).
    HeaderStatus FailureStatus() const
    {
        return m_failure;
    }

    /// The size limit in use (header and payload).
    uint32_t MaxMessageBytes() const
    {
        return m_maxMessage;
    }

    /// Counters.
    const ReassemblerStats& Stats() const
    {
        return m_stats;
    }

  private:
    void Discard(std::size_t n);
    void Compact();
    void Fail(HeaderStatus why);

    Precision m_decodeTo;
    uint32_t m_maxMessage;
    std::vector<uint8_t> m_buffer;
    std::size_t m_offset{0};       ///< first byte not popped
    std::size_t m_current{0};      ///< start of the message in progress (complete ones before)
    std::size_t m_currentTotal{0}; ///< its size once its header is validated, else 0
    bool m_failed{false};
    HeaderStatus m_failure{HeaderStatus::Ok};
    ReassemblerStats m_stats;
};

} // namespace fl
} // namespace ns3

#endif // FL_MESSAGE_REASSEMBLER_H
