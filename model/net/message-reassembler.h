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
    uint64_t bytesIn{0};          ///< bytes pushed
    uint64_t messages{0};         ///< complete, valid messages delivered
    uint64_t malformedHeaders{0}; ///< headers rejected (then the stream is re-synchronised)
    uint64_t crcErrors{0};        ///< messages that failed the CRC (dropped whole)
    uint64_t bytesDiscarded{0};   ///< bytes skipped while re-synchronising or dropping
};

/**
 * Reassembles messages from an ordered byte stream delivered in arbitrary pieces (TCP).
 *
 * Push() appends bytes; Pop() returns the next complete message, if any. A header that fails
 * validation is counted and skipped byte by byte until the next magic number; a payload that
 * fails its CRC is counted and dropped whole. Nothing malformed is ever delivered, and no input
 * can make it crash or allocate more than maxPayloadBytes + one push.
 */
class MessageReassembler
{
  public:
    /**
     * @param decodeTo precision of the decoded ParamVectors
     * @param maxPayloadBytes larger payloads are rejected as malformed
     */
    explicit MessageReassembler(Precision decodeTo = Precision::Float64,
                                uint32_t maxPayloadBytes = 512u * 1024u * 1024u);

    /// Appends bytes received from the stream.
    void Push(const uint8_t* data, std::size_t len);

    /// Takes the next complete valid message; false if none is complete yet.
    bool Pop(ReceivedMessage& out);

    /// Bytes buffered but not yet consumed.
    std::size_t Buffered() const
    {
        return m_buffer.size() - m_offset;
    }

    /// Counters.
    const ReassemblerStats& Stats() const
    {
        return m_stats;
    }

  private:
    void Discard(std::size_t n);
    void Compact();

    Precision m_decodeTo;
    uint32_t m_maxPayload;
    std::vector<uint8_t> m_buffer;
    std::size_t m_offset{0};
    ReassemblerStats m_stats;
};

} // namespace fl
} // namespace ns3

#endif // FL_MESSAGE_REASSEMBLER_H
