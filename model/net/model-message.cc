/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ns3/model-message.h"

#include "ns3/wire-bytes.h"

#include <algorithm>
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
    case MessageKind::PeerModel:
        return "peer";
    case MessageKind::Control:
        return "control";
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
        return "payload length does not fit 32 bits";
    case HeaderStatus::BadFlags:
        return "reserved flags not zero";
    case HeaderStatus::TooLarge:
        return "payload too large";
    case HeaderStatus::OldVersion:
        return "old wire version 2 (no header CRC): update the sender";
    case HeaderStatus::BadHeaderCrc:
        return "header CRC mismatch";
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
    const uLong crc = CrcExtend(crc32(0L, Z_NULL, 0), header, 28);
    return static_cast<uint32_t>(CrcExtend(crc, payload, payloadLen));
}

uint32_t
HeaderCrc(const uint8_t* header)
{
    return Crc32(header, 32);
}

void
MessageHeader::Write(uint8_t* out) const
{
    PutU32(out, kMagic);
    out[4] = kVersion;
    out[5] = static_cast<uint8_t>(kind);
    out[6] = count == 0 ? 0 : (raw ? kRawPayloadEncoding : static_cast<uint8_t>(encoding));
    out[7] = 0;
    PutU32(out + 8, round);
    PutU32(out + 12, sender);
    PutU32(out + 16, receiver);
    PutU32(out + 20, count);
    PutU32(out + 24, aux);
    PutU32(out + 28, crc);
    PutU32(out + 32, HeaderCrc(out));
}

HeaderStatus
CheckHeaderPrefix(const uint8_t* in, std::size_t len)
{
    static const uint8_t magic[4] = {'F', 'L', 'M', '1'};
    const std::size_t n = std::min<std::size_t>(len, 4);
    if (n > 0 && std::memcmp(in, magic, n) != 0)
    {
        return HeaderStatus::BadMagic;
    }
    if (len > 4 && in[4] != MessageHeader::kVersion)
    {
        return in[4] == MessageHeader::kOldVersion ? HeaderStatus::OldVersion
                                                   : HeaderStatus::BadVersion;
    }
    return HeaderStatus::Ok;
}

HeaderStatus
ParseHeader(const uint8_t* in, uint32_t maxPayloadBytes, MessageHeader& out)
{
    const HeaderStatus prefix = CheckHeaderPrefix(in, MessageHeader::kPrefixSize);
    if (prefix != HeaderStatus::Ok)
    {
        return prefix;
    }
    // Nothing below is trusted before the header CRC matches.
    if (HeaderCrc(in) != GetU32(in + 32))
    {
        return HeaderStatus::BadHeaderCrc;
    }
    const uint8_t kind = in[5];
    if (kind < static_cast<uint8_t>(MessageKind::Join) || kind > kLastMessageKind)
    {
        return HeaderStatus::BadKind;
    }
    if (in[7] != 0)
    {
        return HeaderStatus::BadFlags;
    }
    out.kind = static_cast<MessageKind>(kind);
    out.round = GetU32(in + 8);
    out.sender = GetU32(in + 12);
    out.receiver = GetU32(in + 16);
    out.count = GetU32(in + 20);
    out.aux = GetU32(in + 24);
    out.crc = GetU32(in + 28);
    out.raw = false;
    const uint8_t enc = in[6];
    if (out.count == 0)
    {
        out.encoding = WireEncoding::Float64;
        out.payloadBytes = 0;
        return enc == 0 ? HeaderStatus::Ok : HeaderStatus::BadEncoding;
    }
    uint64_t size = 0;
    if (enc == kRawPayloadEncoding)
    {
        out.raw = true;
        out.encoding = WireEncoding::Float64;
        size = out.count;
    }
    else if (IsValidWireEncoding(enc))
    {
        out.encoding = static_cast<WireEncoding>(enc);
        size = EncodedSize(out.encoding, out.count);
    }
    else
    {
        return HeaderStatus::BadEncoding;
    }
    if (size > std::numeric_limits<uint32_t>::max() - MessageHeader::kSize)
    {
        return HeaderStatus::BadLength;
    }
    out.payloadBytes = static_cast<uint32_t>(size);
    if (out.payloadBytes > maxPayloadBytes)
    {
        return HeaderStatus::TooLarge;
    }
    return HeaderStatus::Ok;
}

namespace
{
/// Fills the header of `address` into out[0..36): the fields, the message CRC over them and the
/// payload, and the header CRC.
void
FinishHeader(const MessageAddress& address,
             uint32_t count,
             WireEncoding encoding,
             bool raw,
             std::vector<uint8_t>& out)
{
    MessageHeader h;
    h.kind = address.kind;
    h.encoding = encoding;
    h.raw = raw;
    h.round = address.round;
    h.sender = address.sender;
    h.receiver = address.receiver;
    h.count = count;
    h.aux = address.aux;
    h.Write(out.data()); // bytes 0..27 are final; the message CRC does not cover 28..35
    const std::size_t payloadLen = out.size() - MessageHeader::kSize;
    h.crc = MessageCrc(out.data(), out.data() + MessageHeader::kSize, payloadLen);
    h.Write(out.data()); // with the message CRC, and the header CRC over it
}
} // namespace

EncodeReport
EncodeMessage(const MessageAddress& address,
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
    out.resize(MessageHeader::kSize + (n == 0 ? 0 : EncodedSize(encoding, n)));
    EncodeReport report{};
    if (n > 0)
    {
        report = EncodePayload(params, encoding, rng, out.data() + MessageHeader::kSize);
    }
    FinishHeader(address, static_cast<uint32_t>(n), encoding, false, out);
    return report;
}

void
EncodeMessage(const MessageAddress& address,
              const ParamVector& params,
              Precision wirePrecision,
              std::vector<uint8_t>& out)
{
    // Precision codes coincide with the float64/float32 wire encodings.
    EncodeMessage(address, params, static_cast<WireEncoding>(wirePrecision), nullptr, out);
}

std::vector<uint8_t>
EncodeMessage(const MessageAddress& address, const ParamVector& params, Precision wirePrecision)
{
    std::vector<uint8_t> out;
    EncodeMessage(address, params, wirePrecision, out);
    return out;
}

void
EncodeRawMessage(const MessageAddress& address,
                 const uint8_t* data,
                 std::size_t len,
                 std::vector<uint8_t>& out)
{
    if (len > std::numeric_limits<uint32_t>::max() - MessageHeader::kSize)
    {
        throw ConfigError("raw payload", "too large for one message", "send less than 4 GiB");
    }
    out.resize(MessageHeader::kSize + len);
    if (len > 0)
    {
        std::memcpy(out.data() + MessageHeader::kSize, data, len);
    }
    FinishHeader(address, static_cast<uint32_t>(len), WireEncoding::Float64, true, out);
}

std::vector<uint8_t>
PackU32(const std::vector<uint32_t>& values)
{
    std::vector<uint8_t> out(4 * values.size());
    for (std::size_t i = 0; i < values.size(); ++i)
    {
        PutU32(out.data() + 4 * i, values[i]);
    }
    return out;
}

std::vector<uint8_t>
PackF64(const std::vector<double>& values)
{
    std::vector<uint8_t> out(8 * values.size());
    for (std::size_t i = 0; i < values.size(); ++i)
    {
        uint64_t bits;
        std::memcpy(&bits, &values[i], 8);
        PutU32(out.data() + 8 * i, static_cast<uint32_t>(bits));
        PutU32(out.data() + 8 * i + 4, static_cast<uint32_t>(bits >> 32));
    }
    return out;
}

bool
UnpackU32(const std::vector<uint8_t>& bytes, std::vector<uint32_t>& out)
{
    if (bytes.size() % 4 != 0)
    {
        return false;
    }
    out.resize(bytes.size() / 4);
    for (std::size_t i = 0; i < out.size(); ++i)
    {
        out[i] = GetU32(bytes.data() + 4 * i);
    }
    return true;
}

bool
UnpackF64(const std::vector<uint8_t>& bytes, std::vector<double>& out)
{
    if (bytes.size() % 8 != 0)
    {
        return false;
    }
    out.resize(bytes.size() / 8);
    for (std::size_t i = 0; i < out.size(); ++i)
    {
        const uint64_t bits = static_cast<uint64_t>(GetU32(bytes.data() + 8 * i)) |
                              (static_cast<uint64_t>(GetU32(bytes.data() + 8 * i + 4)) << 32);
        std::memcpy(&out[i], &bits, 8);
    }
    return true;
}

ParamVector
DecodePayload(const MessageHeader& header, const uint8_t* payload, Precision to)
{
    return fl::DecodePayload(header.encoding, payload, header.count, to);
}

} // namespace fl
} // namespace ns3
