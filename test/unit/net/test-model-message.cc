/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Wire format of model messages (version 3: 36-byte header with its own CRC) and stream
 * reassembly: round trips, split streams, corruption, forged lengths rejected before their
 * payload is buffered, the size limit, the older version rejected and counted, and a fuzz-style
 * test over many random and mutated inputs.
 */
#include "ns3/message-reassembler.h"
#include "ns3/model-message.h"
#include "ns3/partial-message.h"
#include "ns3/wire-bytes.h"

#include <gtest/gtest.h>
#include <random>

using namespace ns3::fl;

namespace
{

ParamVector
RandomParams(Precision p, std::size_t n, uint64_t seed)
{
    Rng rng(seed);
    std::normal_distribution<double> g(0.0, 1.0);
    Eigen::VectorXd v(static_cast<Eigen::Index>(n));
    for (auto& x : v)
    {
        x = g(rng);
    }
    return p == Precision::Float64 ? ParamVector(v) : ParamVector(Eigen::VectorXf(v.cast<float>()));
}

std::vector<uint8_t>
Concat(const std::vector<std::vector<uint8_t>>& parts)
{
    std::vector<uint8_t> out;
    for (const auto& p : parts)
    {
        out.insert(out.end(), p.begin(), p.end());
    }
    return out;
}

/// Rewrites both CRCs of an edited message (the message CRC, then the header CRC over it), so
/// that the edit reaches the field checks.
std::vector<uint8_t>
Refix(std::vector<uint8_t> m)
{
    PutU32(m.data() + 28,
           MessageCrc(m.data(), m.data() + MessageHeader::kSize, m.size() - MessageHeader::kSize));
    PutU32(m.data() + 32, HeaderCrc(m.data()));
    return m;
}

/// The same message in wire version 2 (32-byte header, no header CRC), as an older sender
/// writes it.
std::vector<uint8_t>
AsVersion2(const std::vector<uint8_t>& v3)
{
    std::vector<uint8_t> m(v3.size() - 4);
    std::copy(v3.begin(), v3.begin() + 32, m.begin());
    std::copy(v3.begin() + MessageHeader::kSize, v3.end(), m.begin() + 32);
    m[4] = MessageHeader::kOldVersion;
    PutU32(m.data() + 28, MessageCrc(m.data(), m.data() + 32, m.size() - 32));
    return m;
}

} // namespace

TEST(ModelMessage, HeaderLayoutIsFixed)
{
    const auto bytes = EncodeMessage({MessageKind::LocalModel, 7, 3, 9, 500},
                                     RandomParams(Precision::Float32, 10, 1),
                                     Precision::Float32);
    ASSERT_EQ(MessageHeader::kSize, 36u);
    ASSERT_EQ(bytes.size(), MessageHeader::kSize + 40);
    EXPECT_EQ(bytes[0], 'F');
    EXPECT_EQ(bytes[1], 'L');
    EXPECT_EQ(bytes[2], 'M');
    EXPECT_EQ(bytes[3], '1');
    EXPECT_EQ(bytes[4], 3);                      // version
    EXPECT_EQ(bytes[5], 3);                      // LocalModel
    EXPECT_EQ(bytes[6], 2);                      // float32
    EXPECT_EQ(bytes[7], 0);                      // flags
    EXPECT_EQ(bytes[8], 7);                      // round, little-endian
    EXPECT_EQ(bytes[12], 3);                     // sender
    EXPECT_EQ(bytes[16], 9);                     // receiver
    EXPECT_EQ(bytes[20], 10);                    // count
    EXPECT_EQ(bytes[24] + 256 * bytes[25], 500); // aux (sample count)
    // Message CRC: header bytes 0..27, then the payload.
    std::vector<uint8_t> covered(bytes.begin(), bytes.begin() + 28);
    covered.insert(covered.end(), bytes.begin() + 36, bytes.end());
    EXPECT_EQ(GetU32(bytes.data() + 28), Crc32(covered.data(), covered.size()));
    // Header CRC: header bytes 0..31 (the fields and the message CRC).
    EXPECT_EQ(GetU32(bytes.data() + 32), Crc32(bytes.data(), 32));
    EXPECT_EQ(GetU32(bytes.data() + 32), HeaderCrc(bytes.data()));
}

TEST(ModelMessage, OldVersionsAndNonZeroFlagsAreRejected)
{
    auto bytes = EncodeMessage({MessageKind::Join, 0, 1, 2, 3}, ParamVector(), Precision::Float64);
    MessageHeader h;
    ASSERT_EQ(ParseHeader(bytes.data(), 1u << 20, h), HeaderStatus::Ok);
    auto v1 = bytes;
    v1[4] = 1; // a capture of wire version 1
    EXPECT_EQ(ParseHeader(v1.data(), 1u << 20, h), HeaderStatus::BadVersion);
    EXPECT_EQ(CheckHeaderPrefix(v1.data(), 5), HeaderStatus::BadVersion);
    // Version 2 (32-byte header, no header CRC) has its own status, known from 5 bytes.
    std::vector<uint8_t> v2 = AsVersion2(bytes);
    ASSERT_EQ(v2.size(), 32u);
    v2.resize(MessageHeader::kSize); // ParseHeader reads 36 bytes
    EXPECT_EQ(ParseHeader(v2.data(), 1u << 20, h), HeaderStatus::OldVersion);
    EXPECT_EQ(CheckHeaderPrefix(v2.data(), 5), HeaderStatus::OldVersion);
    EXPECT_EQ(CheckHeaderPrefix(v2.data(), 4), HeaderStatus::Ok); // not known yet
    EXPECT_EQ(CheckHeaderPrefix(bytes.data(), 5), HeaderStatus::Ok);
    EXPECT_EQ(CheckHeaderPrefix(v2.data(), 2), HeaderStatus::Ok);
    const uint8_t notMagic[2] = {'F', 'X'};
    EXPECT_EQ(CheckHeaderPrefix(notMagic, 2), HeaderStatus::BadMagic);
    EXPECT_STRNE(HeaderStatusName(HeaderStatus::OldVersion), "unknown");
    EXPECT_STRNE(HeaderStatusName(HeaderStatus::BadHeaderCrc), "unknown");
    // A field edited without the header CRC is a header CRC error; with it, the field check.
    auto flagged = bytes;
    flagged[7] = 1; // reserved byte
    EXPECT_EQ(ParseHeader(flagged.data(), 1u << 20, h), HeaderStatus::BadHeaderCrc);
    EXPECT_EQ(ParseHeader(Refix(flagged).data(), 1u << 20, h), HeaderStatus::BadFlags);
    auto kind = bytes;
    kind[5] = kLastMessageKind + 1;
    EXPECT_EQ(ParseHeader(Refix(kind).data(), 1u << 20, h), HeaderStatus::BadKind);
}

// A header-only Join (sender 1, 10 samples) whose reserved byte 7 is 0x04, captured in wire
// version 1. It is rejected as BadVersion. Adapted to version 3 (version byte 3, v1's sample
// count at offset 20 moved to aux at offset 24, count 0, both CRCs recomputed) it is rejected
// as BadFlags by the header parser and never delivered by the stream reassembler; with byte 7
// zeroed it is a valid Join.
TEST(ModelMessage, CaptureWithReservedByteSetIsRejected)
{
    const char* hex = "464c4d31010100040000000001000000000000000a0000000000000046ad1ccf";
    std::vector<uint8_t> b(MessageHeader::kSize);
    for (std::size_t i = 0; i < 32; ++i)
    {
        b[i] = static_cast<uint8_t>(std::stoul(std::string(hex + 2 * i, 2), nullptr, 16));
    }
    MessageHeader h;
    EXPECT_EQ(ParseHeader(b.data(), 1u << 20, h), HeaderStatus::BadVersion);
    b[4] = MessageHeader::kVersion;
    std::swap(b[20], b[24]); // count 0, aux (sample count) 10
    const std::vector<uint8_t> flagged = Refix(b);
    EXPECT_EQ(ParseHeader(flagged.data(), 1u << 20, h), HeaderStatus::BadFlags);
    MessageReassembler r;
    r.Push(flagged.data(), flagged.size());
    ReceivedMessage m;
    EXPECT_FALSE(r.Pop(m));
    EXPECT_EQ(r.Stats().malformedHeaders, 1u);
    EXPECT_TRUE(r.Failed());
    EXPECT_EQ(r.FailureStatus(), HeaderStatus::BadFlags);

    b[7] = 0;
    const std::vector<uint8_t> clean = Refix(b);
    ASSERT_EQ(ParseHeader(clean.data(), 1u << 20, h), HeaderStatus::Ok);
    EXPECT_EQ(h.kind, MessageKind::Join);
    EXPECT_EQ(h.sender, 1u);
    MessageReassembler ok;
    ok.Push(clean.data(), clean.size());
    ASSERT_TRUE(ok.Pop(m));
    EXPECT_EQ(m.header.receiver, 0u);
    EXPECT_EQ(m.header.count, 0u);
    EXPECT_EQ(m.header.aux, 10u);
}

TEST(ModelMessage, RawControlMessagesRoundTripThroughTheReassembler)
{
    const std::vector<double> scalars{0.5, -1e300, 3.25};
    std::vector<uint8_t> bytes;
    const std::vector<uint8_t> packed = PackF64(scalars);
    EncodeRawMessage({MessageKind::Control, 4, 11, 12, 77}, packed.data(), packed.size(), bytes);
    ASSERT_EQ(bytes.size(), MessageHeader::kSize + 24);
    EXPECT_EQ(bytes[6], kRawPayloadEncoding);
    MessageReassembler r(Precision::Float32);
    r.Push(bytes.data(), bytes.size());
    ReceivedMessage m;
    ASSERT_TRUE(r.Pop(m));
    EXPECT_EQ(m.header.kind, MessageKind::Control);
    EXPECT_TRUE(m.header.raw);
    EXPECT_EQ(m.header.sender, 11u);
    EXPECT_EQ(m.header.receiver, 12u);
    EXPECT_EQ(m.header.aux, 77u);
    EXPECT_EQ(m.params.Size(), 0u);
    std::vector<double> back;
    ASSERT_TRUE(UnpackF64(m.raw, back));
    EXPECT_EQ(back, scalars);
    std::vector<uint32_t> ids;
    EXPECT_TRUE(UnpackU32(PackU32({1, 0xFFFFFFFFu, 7}), ids));
    EXPECT_EQ(ids, (std::vector<uint32_t>{1, 0xFFFFFFFFu, 7}));
    EXPECT_FALSE(UnpackU32(std::vector<uint8_t>(5), ids));
    EXPECT_FALSE(UnpackF64(std::vector<uint8_t>(12), back));
    // A corrupted raw payload fails the CRC like any other.
    bytes.back() ^= 1;
    MessageReassembler r2(Precision::Float32);
    r2.Push(bytes.data(), bytes.size());
    EXPECT_FALSE(r2.Pop(m));
    EXPECT_EQ(r2.Stats().crcErrors, 1u);
}

TEST(ModelMessage, RoundTripIsBitExactAtTheSamePrecision)
{
    for (Precision p : {Precision::Float64, Precision::Float32})
    {
        const ParamVector w = RandomParams(p, 1001, 2);
        const auto bytes =
            EncodeMessage({MessageKind::GlobalModel, 12, 0xFFFFFFFF, kBroadcastId, 0}, w, p);
        MessageHeader h;
        ASSERT_EQ(ParseHeader(bytes.data(), 1u << 30, h), HeaderStatus::Ok);
        EXPECT_EQ(h.kind, MessageKind::GlobalModel);
        EXPECT_EQ(h.round, 12u);
        EXPECT_EQ(h.sender, 0xFFFFFFFFu);
        EXPECT_EQ(h.count, 1001u);
        EXPECT_EQ(h.payloadBytes, 1001u * PrecisionBytes(p));
        EXPECT_EQ(h.crc,
                  MessageCrc(bytes.data(), bytes.data() + MessageHeader::kSize, h.payloadBytes));
        const ParamVector back = DecodePayload(h, bytes.data() + MessageHeader::kSize, p);
        EXPECT_TRUE(back == w);
    }
}

TEST(ModelMessage, PrecisionConversionOnTheWire)
{
    const ParamVector w64 = RandomParams(Precision::Float64, 257, 3);
    // float64 in memory, float32 on the wire, float64 decoded: equals the float cast.
    const auto bytes =
        EncodeMessage({MessageKind::LocalModel, 1, 1, kBroadcastId, 1}, w64, Precision::Float32);
    MessageHeader h;
    ASSERT_EQ(ParseHeader(bytes.data(), 1u << 30, h), HeaderStatus::Ok);
    EXPECT_EQ(h.encoding, WireEncoding::Float32);
    const ParamVector back =
        DecodePayload(h, bytes.data() + MessageHeader::kSize, Precision::Float64);
    const Eigen::VectorXd expected = w64.Get<double>().cast<float>().cast<double>();
    EXPECT_TRUE(back == ParamVector(expected));
    // float32 in memory, float64 on the wire: exact.
    const ParamVector w32 = RandomParams(Precision::Float32, 100, 4);
    const auto b2 =
        EncodeMessage({MessageKind::LocalModel, 1, 1, kBroadcastId, 1}, w32, Precision::Float64);
    ASSERT_EQ(ParseHeader(b2.data(), 1u << 30, h), HeaderStatus::Ok);
    EXPECT_TRUE(DecodePayload(h, b2.data() + MessageHeader::kSize, Precision::Float32) == w32);
}

TEST(ModelMessage, HeaderOnlyMessages)
{
    const auto bytes = EncodeMessage({MessageKind::Join, 0, 5, kBroadcastId, 321},
                                     ParamVector(),
                                     Precision::Float32);
    ASSERT_EQ(bytes.size(), MessageHeader::kSize);
    MessageReassembler r;
    r.Push(bytes.data(), bytes.size());
    ReceivedMessage m;
    ASSERT_TRUE(r.Pop(m));
    EXPECT_EQ(m.header.kind, MessageKind::Join);
    EXPECT_EQ(m.header.sender, 5u);
    EXPECT_EQ(m.header.aux, 321u);
    EXPECT_EQ(m.params.Size(), 0u);
}

TEST(ModelMessage, HeaderValidation)
{
    auto bytes = EncodeMessage({MessageKind::LocalModel, 1, 1, kBroadcastId, 1},
                               RandomParams(Precision::Float64, 4, 5),
                               Precision::Float64);
    MessageHeader h;
    auto bad = bytes;
    bad[0] = 'X';
    EXPECT_EQ(ParseHeader(bad.data(), 1u << 30, h), HeaderStatus::BadMagic);
    bad = bytes;
    bad[4] = 9;
    EXPECT_EQ(ParseHeader(bad.data(), 1u << 30, h), HeaderStatus::BadVersion);
    bad = bytes;
    bad[5] = 0;
    EXPECT_EQ(ParseHeader(Refix(bad).data(), 1u << 30, h), HeaderStatus::BadKind);
    bad = bytes;
    bad[6] = 7;
    EXPECT_EQ(ParseHeader(Refix(bad).data(), 1u << 30, h), HeaderStatus::BadEncoding);
    bad = bytes;
    bad[20] = bad[21] = bad[22] = bad[23] = 0xFF; // count x 8 bytes does not fit 32 bits
    EXPECT_EQ(ParseHeader(Refix(bad).data(), 0xFFFFFFFFu, h), HeaderStatus::BadLength);
    EXPECT_EQ(ParseHeader(bytes.data(), 16, h), HeaderStatus::TooLarge);
    // Every single-bit error in the header after the version byte is caught by the header CRC.
    for (std::size_t bit = 8 * MessageHeader::kPrefixSize; bit < 8 * MessageHeader::kSize; ++bit)
    {
        bad = bytes;
        bad[bit / 8] ^= static_cast<uint8_t>(1u << (bit % 8));
        EXPECT_EQ(ParseHeader(bad.data(), 1u << 30, h), HeaderStatus::BadHeaderCrc) << bit;
    }
}

TEST(MessageReassembler, ArbitrarySplitsGiveTheSameMessages)
{
    std::vector<std::vector<uint8_t>> msgs;
    std::vector<ParamVector> params;
    for (uint32_t i = 0; i < 5; ++i)
    {
        params.push_back(RandomParams(Precision::Float32, 100 + 37 * i, 10 + i));
        msgs.push_back(EncodeMessage({MessageKind::LocalModel, i, i, kBroadcastId, 10 * i},
                                     params.back(),
                                     Precision::Float32));
    }
    const auto stream = Concat(msgs);
    Rng rng(99);
    for (int trial = 0; trial < 50; ++trial)
    {
        MessageReassembler r(Precision::Float32);
        std::size_t pos = 0;
        std::vector<ReceivedMessage> got;
        std::uniform_int_distribution<std::size_t> piece(1, trial % 2 ? 7 : 1500);
        while (pos < stream.size())
        {
            const std::size_t n = std::min(piece(rng), stream.size() - pos);
            r.Push(stream.data() + pos, n);
            pos += n;
            ReceivedMessage m;
            while (r.Pop(m))
            {
                got.push_back(m);
            }
        }
        ASSERT_EQ(got.size(), 5u);
        for (uint32_t i = 0; i < 5; ++i)
        {
            EXPECT_EQ(got[i].header.round, i);
            EXPECT_EQ(got[i].header.aux, 10 * i);
            EXPECT_TRUE(got[i].params == params[i]);
        }
        EXPECT_EQ(r.Stats().messages, 5u);
        EXPECT_EQ(r.Stats().malformedHeaders, 0u);
        EXPECT_EQ(r.Buffered(), 0u);
        // Popping after every push holds at most one message and one push.
        std::size_t largest = 0;
        for (const auto& m : msgs)
        {
            largest = std::max(largest, m.size());
        }
        EXPECT_LE(r.Stats().peakBuffered, largest + (trial % 2 ? 7 : 1500));
    }
}

TEST(MessageReassembler, IncompleteMessageIsNotDelivered)
{
    const auto bytes = EncodeMessage({MessageKind::LocalModel, 1, 1, kBroadcastId, 1},
                                     RandomParams(Precision::Float64, 50, 6),
                                     Precision::Float64);
    MessageReassembler r;
    r.Push(bytes.data(), bytes.size() - 1);
    ReceivedMessage m;
    EXPECT_FALSE(r.Pop(m));
    EXPECT_EQ(r.Buffered(), bytes.size() - 1);
    r.Push(bytes.data() + bytes.size() - 1, 1);
    EXPECT_TRUE(r.Pop(m));
}

// Bytes that are no header end the stream: nothing after them is trusted, delivered or kept
// (a stream cannot be re-synchronised; the owner closes the connection).
TEST(MessageReassembler, GarbageFailsTheStreamAndNothingAfterItIsKept)
{
    std::vector<uint8_t> garbage(100, 0xAB);
    garbage[10] = 'F'; // a false start of the magic
    garbage[11] = 'L';
    const ParamVector w = RandomParams(Precision::Float64, 20, 7);
    const auto msg =
        EncodeMessage({MessageKind::LocalModel, 3, 2, kBroadcastId, 9}, w, Precision::Float64);
    const auto before =
        EncodeMessage({MessageKind::LocalModel, 2, 2, kBroadcastId, 9}, w, Precision::Float64);
    const auto stream = Concat({before, garbage, msg});
    MessageReassembler r;
    r.Push(stream.data(), stream.size());
    ReceivedMessage m;
    ASSERT_TRUE(r.Pop(m)); // the message before the garbage
    EXPECT_EQ(m.header.round, 2u);
    EXPECT_FALSE(r.Pop(m));
    EXPECT_TRUE(r.Failed());
    EXPECT_EQ(r.FailureStatus(), HeaderStatus::BadMagic);
    EXPECT_EQ(r.Stats().malformedHeaders, 1u);
    EXPECT_EQ(r.Buffered(), 0u);
    EXPECT_EQ(r.Stats().bytesDiscarded, garbage.size() + msg.size());
    r.Push(msg.data(), msg.size()); // later bytes are dropped and counted
    EXPECT_FALSE(r.Pop(m));
    EXPECT_EQ(r.Buffered(), 0u);
    EXPECT_EQ(r.Stats().bytesDiscarded, garbage.size() + 2 * msg.size());
    EXPECT_EQ(r.Stats().bytesIn, stream.size() + msg.size());
    EXPECT_EQ(r.Stats().messages, 1u);
}

// A forged length (a header whose count was changed, so its header CRC no longer matches) is
// rejected as soon as its 36 header bytes are there: none of the megabyte that follows is
// buffered, and the valid message before it is delivered. The same with a header CRC made to
// match but a size above the limit: TooLarge, before the payload.
TEST(MessageReassembler, ForgedLengthIsRejectedBeforeItsPayloadIsBuffered)
{
    const ParamVector w = RandomParams(Precision::Float32, 100, 11);
    const auto valid =
        EncodeMessage({MessageKind::LocalModel, 1, 4, kBroadcastId, 1}, w, Precision::Float32);
    for (bool crcFixed : {false, true})
    {
        SCOPED_TRACE(crcFixed ? "header CRC matching, size above the limit" : "header CRC wrong");
        auto forged =
            EncodeMessage({MessageKind::LocalModel, 2, 4, kBroadcastId, 1}, w, Precision::Float32);
        forged.resize(MessageHeader::kSize);
        PutU32(forged.data() + 20, 0x0FFFFFFFu); // count: a 1 GiB float32 payload
        if (crcFixed)
        {
            PutU32(forged.data() + 32, HeaderCrc(forged.data()));
        }
        const uint32_t limit = 1u << 20;
        MessageReassembler r(Precision::Float32, limit);
        std::vector<uint8_t> stream = Concat({valid, forged});
        stream.resize(stream.size() + (1u << 20), 0x42); // what the forger sends next
        const std::vector<uint8_t> after = Concat({valid, valid});
        stream.insert(stream.end(), after.begin(), after.end());
        std::vector<ReceivedMessage> got;
        const std::size_t piece = 1000;
        for (std::size_t pos = 0; pos < stream.size(); pos += piece)
        {
            r.Push(stream.data() + pos, std::min(piece, stream.size() - pos));
            ReceivedMessage m;
            while (r.Pop(m))
            {
                got.push_back(m);
            }
            ASSERT_LE(r.Buffered(), valid.size() + MessageHeader::kSize);
        }
        ASSERT_EQ(got.size(), 1u);
        EXPECT_EQ(got[0].header.round, 1u);
        EXPECT_TRUE(r.Failed());
        EXPECT_EQ(r.FailureStatus(),
                  crcFixed ? HeaderStatus::TooLarge : HeaderStatus::BadHeaderCrc);
        EXPECT_EQ(r.Stats().headerCrcErrors, crcFixed ? 0u : 1u);
        EXPECT_EQ(r.Stats().tooLarge, crcFixed ? 1u : 0u);
        EXPECT_EQ(r.Buffered(), 0u);
        // Held at most: the valid message and the forged header, nothing behind it.
        EXPECT_LE(r.Stats().peakBuffered, valid.size() + MessageHeader::kSize);
        EXPECT_EQ(r.Stats().bytesDiscarded, stream.size() - valid.size());
    }
}

// The size limit counts the whole message (header and payload), as the UDP bound does.
TEST(MessageReassembler, SizeLimitIsHonoured)
{
    const auto msg = EncodeMessage({MessageKind::GlobalModel, 1, 0, kBroadcastId, 0},
                                   RandomParams(Precision::Float64, 1000, 12),
                                   Precision::Float64);
    ASSERT_EQ(msg.size(), MessageHeader::kSize + 8000u);
    MessageReassembler fits(Precision::Float64, static_cast<uint32_t>(msg.size()));
    EXPECT_EQ(fits.MaxMessageBytes(), msg.size());
    fits.Push(msg.data(), msg.size());
    ReceivedMessage m;
    EXPECT_TRUE(fits.Pop(m));
    MessageReassembler tight(Precision::Float64, static_cast<uint32_t>(msg.size() - 1));
    tight.Push(msg.data(), MessageHeader::kSize);
    EXPECT_FALSE(tight.Pop(m));
    EXPECT_TRUE(tight.Failed());
    EXPECT_EQ(tight.FailureStatus(), HeaderStatus::TooLarge);
    EXPECT_EQ(tight.Stats().tooLarge, 1u);
    EXPECT_THROW(MessageReassembler(Precision::Float64, MessageHeader::kSize - 1), ConfigError);
    EXPECT_EQ(MessageReassembler().MaxMessageBytes(), kDefaultMaxMessageBytes);
}

// An older sender's stream (wire version 2, 32-byte headers) fails on its first 5 bytes with a
// status of its own, counted; the whole-message decoder of the datagram path names it too.
TEST(MessageReassembler, OldVersionIsRejectedAndCounted)
{
    const auto v3 = EncodeMessage({MessageKind::Join, 0, 1, 2, 3}, ParamVector(), Precision::Float64);
    const auto v2 = AsVersion2(v3); // a header-only message: 32 bytes, less than a v3 header
    MessageReassembler r;
    r.Push(v2.data(), 5);
    ReceivedMessage m;
    EXPECT_FALSE(r.Pop(m));
    EXPECT_TRUE(r.Failed());
    EXPECT_EQ(r.FailureStatus(), HeaderStatus::OldVersion);
    EXPECT_EQ(r.Stats().oldVersionHeaders, 1u);
    EXPECT_EQ(r.Stats().malformedHeaders, 1u);
    const auto model = AsVersion2(EncodeMessage({MessageKind::LocalModel, 1, 1, 0, 1},
                                                RandomParams(Precision::Float64, 10, 13),
                                                Precision::Float64));
    for (const auto* old : {&v2, &model})
    {
        ReceivedMessage out;
        EXPECT_EQ(DecodeWholeMessage(old->data(), old->size(), Precision::Float64, 1u << 20, out),
                  MessageDecodeStatus::OldVersion);
    }
    EXPECT_STRNE(MessageDecodeStatusName(MessageDecodeStatus::OldVersion), "unknown");
}

TEST(MessageReassembler, CorruptedMessageIsDroppedAndTheNextOneSurvives)
{
    const ParamVector a = RandomParams(Precision::Float32, 64, 8);
    const ParamVector b = RandomParams(Precision::Float32, 64, 9);
    auto ma =
        EncodeMessage({MessageKind::LocalModel, 1, 1, kBroadcastId, 1}, a, Precision::Float32);
    const auto mb =
        EncodeMessage({MessageKind::LocalModel, 2, 1, kBroadcastId, 1}, b, Precision::Float32);
    ma[MessageHeader::kSize + 17] ^= 0x10; // flip one payload bit
    const auto stream = Concat({ma, mb});
    MessageReassembler r(Precision::Float32);
    r.Push(stream.data(), stream.size());
    ReceivedMessage m;
    ASSERT_TRUE(r.Pop(m));
    EXPECT_EQ(m.header.round, 2u);
    EXPECT_TRUE(m.params == b);
    EXPECT_EQ(r.Stats().crcErrors, 1u);
    EXPECT_FALSE(r.Pop(m));
    EXPECT_FALSE(r.Failed()); // the header was intact: the stream goes on
    // A flipped bit in a header field (round) is caught by the header CRC: the stream fails.
    auto mc =
        EncodeMessage({MessageKind::LocalModel, 5, 1, kBroadcastId, 1}, a, Precision::Float32);
    mc[8] ^= 0x01;
    r.Push(mc.data(), mc.size());
    EXPECT_FALSE(r.Pop(m));
    EXPECT_EQ(r.Stats().crcErrors, 1u);
    EXPECT_EQ(r.Stats().headerCrcErrors, 1u);
    EXPECT_TRUE(r.Failed());
}

TEST(MessageReassembler, FuzzRandomBytesNeverCrashOrDeliver)
{
    Rng rng(2024);
    std::uniform_int_distribution<int> byte(0, 255);
    std::uniform_int_distribution<std::size_t> len(0, 4096);
    uint64_t failed = 0;
    for (int i = 0; i < 2000; ++i)
    {
        MessageReassembler r(Precision::Float64, 1u << 20);
        std::vector<uint8_t> junk(len(rng));
        for (auto& b : junk)
        {
            b = static_cast<uint8_t>(byte(rng));
        }
        // Make some inputs look like headers so that the deeper checks are exercised.
        if (i % 3 == 0 && junk.size() >= MessageHeader::kSize)
        {
            junk[0] = 'F';
            junk[1] = 'L';
            junk[2] = 'M';
            junk[3] = '1';
            junk[4] = MessageHeader::kVersion;
            junk[5] = static_cast<uint8_t>(1 + i % 4);
        }
        r.Push(junk.data(), junk.size());
        ReceivedMessage m;
        while (r.Pop(m))
        {
            ADD_FAILURE() << "random bytes were delivered as a message";
        }
        EXPECT_LE(r.Buffered(), std::size_t(MessageHeader::kSize));
        EXPECT_EQ(r.Stats().messages, 0u);
        failed += r.Failed() ? 1 : 0;
    }
    EXPECT_GT(failed, 1900u);
}

TEST(MessageReassembler, FuzzMutatedStreamsDeliverOnlyOriginalMessages)
{
    Rng rng(7);
    std::vector<std::vector<uint8_t>> msgs;
    std::vector<ParamVector> params;
    for (uint32_t i = 0; i < 8; ++i)
    {
        params.push_back(RandomParams(Precision::Float64, 16 + i, 100 + i));
        msgs.push_back(EncodeMessage({MessageKind::LocalModel, i, i, kBroadcastId, i},
                                     params.back(),
                                     Precision::Float64));
    }
    const auto clean = Concat(msgs);
    std::uniform_int_distribution<std::size_t> pos(0, clean.size() - 1);
    std::uniform_int_distribution<int> byte(0, 255);
    std::uniform_int_distribution<int> op(0, 2);
    uint64_t delivered = 0;
    for (int trial = 0; trial < 1000; ++trial)
    {
        auto s = clean;
        const int mutations = 1 + trial % 5;
        std::size_t firstMutated = clean.size(); // bytes before it are untouched
        for (int k = 0; k < mutations; ++k)
        {
            const std::size_t at = pos(rng) % s.size();
            firstMutated = std::min(firstMutated, at);
            switch (op(rng))
            {
            case 0:
                s[at] = static_cast<uint8_t>(byte(rng)); // overwrite
                break;
            case 1:
                s.erase(s.begin() + static_cast<std::ptrdiff_t>(at)); // delete (truncate inside)
                break;
            default:
                s.insert(s.begin() + static_cast<std::ptrdiff_t>(at),
                         static_cast<uint8_t>(byte(rng)));
            }
        }
        MessageReassembler r(Precision::Float64, 1u << 16);
        r.Push(s.data(), s.size());
        ReceivedMessage m;
        uint32_t got = 0;
        while (r.Pop(m))
        {
            ++delivered;
            ++got;
            ASSERT_LT(m.header.round, 8u);
            EXPECT_TRUE(m.params == params[m.header.round]) << "a corrupted message was delivered";
            EXPECT_EQ(m.header.sender, m.header.round);
        }
        // Every message that ends before the first mutation is delivered.
        uint32_t intact = 0;
        for (std::size_t end = 0; intact < msgs.size(); ++intact)
        {
            end += msgs[intact].size();
            if (end > firstMutated)
            {
                break;
            }
        }
        EXPECT_GE(got, intact);
    }
    EXPECT_GT(delivered, 1000u);
}
