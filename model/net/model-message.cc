/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ns3/model-message.h"

#include "ns3/wire-bytes.h"

#include <cstring>
#include <limits>
#include <zlib.h>

namespace ns3
{
namespace fl
{

namespace
{

} // namespace

const char*
MessageKindName(MessageKind kind)
{
    switch (kind)
    {
    case MessageKind::Join:
        return "join";
    case MessageKind::GlobalModel:
        return "global";
    case MessageKind::LocalModel:
        return "local";
    case MessageKind::Stop:
        return "stop";
    }
    return "unknown";
}

const char*
HeaderStatusName(HeaderStatus s)
{
    switch (s)
    {
    case HeaderStatus::Ok:
        return "ok";
    case HeaderStatus::BadMagic:
        return "bad magic";
    case HeaderStatus::BadVersion:
        return "bad version";
    case HeaderStatus::BadKind:
        return "bad kind";
    case HeaderStatus::BadEncoding:
        return "bad payload encoding";
    case HeaderStatus::BadLength:
        return "payload length does not match count";
    case HeaderStatus::TooLarge:
        return "payload too large";
    }
    return "unknown";
}

namespace
{
uLong
CrcExtend(uLong crc, const uint8_t* data, std::size_t len)
{
    while (len > 0)
    {
        const auto chunk = static_cast<uInt>(std::min<std::size_t>(len, 1u << 30));
        crc = crc32(crc, data, chunk);
        data += chunk;
        len -= chunk;
    }
    return crc;
}
} // namespace

uint32_t
Crc32(const uint8_t* data, std::size_t len)
{
    return static_cast<uint32_t>(CrcExtend(crc32(0L, Z_NULL, 0), data, len));
}

uint32_t
MessageCrc(const uint8_t* header, const uint8_t* payload, std::size_t payloadLen)
{
    const uLong crc = CrcExtend(crc32(0L, Z_NULL, 0), header, MessageHeader::kSize - 4);
    return static_cast<uint32_t>(CrcExtend(crc, payload, payloadLen));
}

void
MessageHeader::Write(uint8_t* out) const
{
    PutU32(out, kMagic);
    out[4] = kVersion;
    out[5] = static_cast<uint8_t>(kind);
    out[6] = count == 0 ? 0 : static_cast<uint8_t>(encoding);
    out[7] = 0;
    PutU32(out + 8, round);
    PutU32(out + 12, sender);
    PutU32(out + 16, count);
    PutU32(out + 20, sampleCount);
    PutU32(out + 24, payloadBytes);
    PutU32(out + 28, crc);
}

HeaderStatus
ParseHeader(const uint8_t* in, uint32_t maxPayloadBytes, MessageHeader& out)
{
    if (GetU32(in) != MessageHeader::kMagic)
    {
        return HeaderStatus::BadMagic;
    }
    if (in[4] != MessageHeader::kVersion)
    {
        return HeaderStatus::BadVersion;
    }
    const uint8_t kind = in[5];
    if (kind < static_cast<uint8_t>(MessageKind::Join) ||
        kind > static_cast<uint8_t>(MessageKind::Stop))
    {
        return HeaderStatus::BadKind;
    }
    out.kind = static_cast<MessageKind>(kind);
    out.round = GetU32(in + 8);
    out.sender = GetU32(in + 12);
    out.count = GetU32(in + 16);
    out.sampleCount = GetU32(in + 20);
    out.payloadBytes = GetU32(in + 24);
    out.crc = GetU32(in + 28);
    const uint8_t enc = in[6];
    if (out.count == 0)
    {
        if (enc != 0)
        {
            return HeaderStatus::BadEncoding;
        }
        out.encoding = WireEncoding::Float64;
        return out.payloadBytes == 0 ? HeaderStatus::Ok : HeaderStatus::BadLength;
    }
    if (!IsValidWireEncoding(enc))
    {
        return HeaderStatus::BadEncoding;
    }
    out.encoding = static_cast<WireEncoding>(enc);
    if (EncodedSize(out.encoding, out.count) != out.payloadBytes)
    {
        return HeaderStatus::BadLength;
    }
    if (out.payloadBytes > maxPayloadBytes)
    {
        return HeaderStatus::TooLarge;
    }
    return HeaderStatus::Ok;
}

EncodeReport
EncodeMessage(MessageKind kind,
              uint32_t round,
              uint32_t sender,
              uint32_t sampleCount,
              const ParamVector& params,
              WireEncoding encoding,
              Rng* rng,
              std::vector<uint8_t>& out)
{
    const std::size_t n = params.Size();
    if (n > std::numeric_limits<uint32_t>::max() / 8)
    {
        throw ConfigError("params",
                          "model too large for one message",
                          "use fewer than 2^29 parameters");
    }
    MessageHeader h;
    h.kind = kind;
    h.encoding = encoding;
    h.round = round;
    h.sender = sender;
    h.count = static_cast<uint32_t>(n);
    h.sampleCount = sampleCount;
    h.payloadBytes = n == 0 ? 0 : static_cast<uint32_t>(EncodedSize(encoding, n));
    out.resize(MessageHeader::kSize + h.payloadBytes);
    uint8_t* payload = out.data() + MessageHeader::kSize;
    EncodeReport report{};
    if (n > 0)
    {
        report = EncodePayload(params, encoding, rng, payload);
    }
    h.Write(out.data()); // crc field still 0; it is not covered by the CRC
    h.crc = MessageCrc(out.data(), payload, h.payloadBytes);
    PutU32(out.data() + 28, h.crc);
    return report;
}

void
EncodeMessage(MessageKind kind,
              uint32_t round,
              uint32_t sender,
              uint32_t sampleCount,
              const ParamVector& params,
              Precision wirePrecision,
              std::vector<uint8_t>& out)
{
    // Precision codes coincide with the float64/float32 wire encodings.
    EncodeMessage(kind,
                  round,
                  sender,
                  sampleCount,
                  params,
                  static_cast<WireEncoding>(wirePrecision),
                  nullptr,
                  out);
}

std::vector<uint8_t>
EncodeMessage(MessageKind kind,
              uint32_t round,
              uint32_t sender,
              uint32_t sampleCount,
              const ParamVector& params,
              Precision wirePrecision)
{
    std::vector<uint8_t> out;
    EncodeMessage(kind, round, sender, sampleCount, params, wirePrecision, out);
    return out;
}

ParamVector
DecodePayload(const MessageHeader& header, const uint8_t* payload, Precision to)
{
    return fl::DecodePayload(header.encoding, payload, header.count, to);
}

} // namespace fl
} // namespace ns3
