/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Wire format of model messages and stream reassembly: round trips, split streams, corruption,
 * and a fuzz-style test over many random and mutated inputs.
 */
#include "ns3/message-reassembler.h"
#include "ns3/model-message.h"

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

} // namespace

TEST(ModelMessage, HeaderLayoutIsFixed)
{
    const auto bytes = EncodeMessage({MessageKind::LocalModel, 7, 3, 9, 500},
                                     RandomParams(Precision::Float32, 10, 1),
                                     Precision::Float32);
    ASSERT_EQ(bytes.size(), MessageHeader::kSize + 40);
    EXPECT_EQ(bytes[0], 'F');
    EXPECT_EQ(bytes[1], 'L');
    EXPECT_EQ(bytes[2], 'M');
    EXPECT_EQ(bytes[3], '1');
    EXPECT_EQ(bytes[4], 2);                      // version
    EXPECT_EQ(bytes[5], 3);                      // LocalModel
    EXPECT_EQ(bytes[6], 2);                      // float32
    EXPECT_EQ(bytes[7], 0);                      // flags
    EXPECT_EQ(bytes[8], 7);                      // round, little-endian
    EXPECT_EQ(bytes[12], 3);                     // sender
    EXPECT_EQ(bytes[16], 9);                     // receiver
    EXPECT_EQ(bytes[20], 10);                    // count
    EXPECT_EQ(bytes[24] + 256 * bytes[25], 500); // aux (sample count)
}

TEST(ModelMessage, OldVersionAndNonZeroFlagsAreRejected)
{
    auto bytes = EncodeMessage({MessageKind::Join, 0, 1, 2, 3}, ParamVector(), Precision::Float64);
    MessageHeader h;
    ASSERT_EQ(ParseHeader(bytes.data(), 1u << 20, h), HeaderStatus::Ok);
    auto v1 = bytes;
    v1[4] = 1; // a capture of wire version 1
    EXPECT_EQ(ParseHeader(v1.data(), 1u << 20, h), HeaderStatus::BadVersion);
    auto flagged = bytes;
    flagged[7] = 1; // reserved byte
    EXPECT_EQ(ParseHeader(flagged.data(), 1u << 20, h), HeaderStatus::BadFlags);
    auto kind = bytes;
    kind[5] = kLastMessageKind + 1;
    EXPECT_EQ(ParseHeader(kind.data(), 1u << 20, h), HeaderStatus::BadKind);
}

// Issue 10's reproducer: a header-only Join (sender 1, 10 samples) whose reserved byte 7 is
// 0x04, captured in wire version 1. Adapted to version 2 (version byte 2, v1's sample count at
// offset 20 moved to aux at offset 24, count 0, CRC recomputed) it is rejected as BadFlags by
// the header parser and never delivered by the stream reassembler; with byte 7 zeroed it is a
// valid Join.
TEST(ModelMessage, IssueReproducerWithReservedByteSetIsRejected)
{
    const char* hex = "464c4d31010100040000000001000000000000000a0000000000000046ad1ccf";
    std::vector<uint8_t> b(MessageHeader::kSize);
    for (std::size_t i = 0; i < b.size(); ++i)
    {
        b[i] = static_cast<uint8_t>(std::stoul(std::string(hex + 2 * i, 2), nullptr, 16));
    }
    MessageHeader h;
    EXPECT_EQ(ParseHeader(b.data(), 1u << 20, h), HeaderStatus::BadVersion);
    const auto withCrc = [](std::vector<uint8_t> m) {
        const uint32_t crc = MessageCrc(m.data(), nullptr, 0);
        for (int i = 0; i < 4; ++i)
        {
            m[28 + i] = static_cast<uint8_t>(crc >> (8 * i));
        }
        return m;
    };
    b[4] = MessageHeader::kVersion;
    std::swap(b[20], b[24]); // count 0, aux (sample count) 10
    const std::vector<uint8_t> flagged = withCrc(b);
    EXPECT_EQ(ParseHeader(flagged.data(), 1u << 20, h), HeaderStatus::BadFlags);
    MessageReassembler r;
    r.Push(flagged.data(), flagged.size());
    ReceivedMessage m;
    EXPECT_FALSE(r.Pop(m));
    EXPECT_EQ(r.Stats().malformedHeaders, 1u);

    b[7] = 0;
    const std::vector<uint8_t> clean = withCrc(b);
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
        EXPECT_EQ(h.crc, MessageCrc(bytes.data(), bytes.data() + 32, h.payloadBytes));
        const ParamVector back = DecodePayload(h, bytes.data() + 32, p);
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
    const ParamVector back = DecodePayload(h, bytes.data() + 32, Precision::Float64);
    const Eigen::VectorXd expected = w64.Get<double>().cast<float>().cast<double>();
    EXPECT_TRUE(back == ParamVector(expected));
    // float32 in memory, float64 on the wire: exact.
    const ParamVector w32 = RandomParams(Precision::Float32, 100, 4);
    const auto b2 =
        EncodeMessage({MessageKind::LocalModel, 1, 1, kBroadcastId, 1}, w32, Precision::Float64);
    ASSERT_EQ(ParseHeader(b2.data(), 1u << 30, h), HeaderStatus::Ok);
    EXPECT_TRUE(DecodePayload(h, b2.data() + 32, Precision::Float32) == w32);
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
    EXPECT_EQ(ParseHeader(bad.data(), 1u << 30, h), HeaderStatus::BadKind);
    bad = bytes;
    bad[6] = 7;
    EXPECT_EQ(ParseHeader(bad.data(), 1u << 30, h), HeaderStatus::BadEncoding);
    bad = bytes;
    bad[20] = bad[21] = bad[22] = bad[23] = 0xFF; // count x 8 bytes does not fit 32 bits
    EXPECT_EQ(ParseHeader(bad.data(), 0xFFFFFFFFu, h), HeaderStatus::BadLength);
    EXPECT_EQ(ParseHeader(bytes.data(), 16, h), HeaderStatus::TooLarge);
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

TEST(MessageReassembler, GarbageBeforeAMessageIsSkippedAndCounted)
{
    std::vector<uint8_t> garbage(100, 0xAB);
    garbage[10] = 'F'; // a false start of the magic
    garbage[11] = 'L';
    const ParamVector w = RandomParams(Precision::Float64, 20, 7);
    const auto msg =
        EncodeMessage({MessageKind::LocalModel, 3, 2, kBroadcastId, 9}, w, Precision::Float64);
    const auto stream = Concat({garbage, msg});
    MessageReassembler r;
    r.Push(stream.data(), stream.size());
    ReceivedMessage m;
    ASSERT_TRUE(r.Pop(m));
    EXPECT_TRUE(m.params == w);
    EXPECT_GE(r.Stats().malformedHeaders, 1u);
    EXPECT_EQ(r.Stats().bytesDiscarded, garbage.size());
}

TEST(MessageReassembler, CorruptedMessageIsDroppedAndTheNextOneSurvives)
{
    const ParamVector a = RandomParams(Precision::Float32, 64, 8);
    const ParamVector b = RandomParams(Precision::Float32, 64, 9);
    auto ma =
        EncodeMessage({MessageKind::LocalModel, 1, 1, kBroadcastId, 1}, a, Precision::Float32);
    const auto mb =
        EncodeMessage({MessageKind::LocalModel, 2, 1, kBroadcastId, 1}, b, Precision::Float32);
    ma[32 + 17] ^= 0x10; // flip one payload bit
    const auto stream = Concat({ma, mb});
    MessageReassembler r(Precision::Float32);
    r.Push(stream.data(), stream.size());
    ReceivedMessage m;
    ASSERT_TRUE(r.Pop(m));
    EXPECT_EQ(m.header.round, 2u);
    EXPECT_TRUE(m.params == b);
    EXPECT_EQ(r.Stats().crcErrors, 1u);
    EXPECT_FALSE(r.Pop(m));
    // A flipped bit in a header field covered by the CRC (round) is caught too.
    auto mc =
        EncodeMessage({MessageKind::LocalModel, 5, 1, kBroadcastId, 1}, a, Precision::Float32);
    mc[8] ^= 0x01;
    r.Push(mc.data(), mc.size());
    EXPECT_FALSE(r.Pop(m));
    EXPECT_EQ(r.Stats().crcErrors, 2u);
}

TEST(MessageReassembler, FuzzRandomBytesNeverCrashOrDeliver)
{
    Rng rng(2024);
    std::uniform_int_distribution<int> byte(0, 255);
    std::uniform_int_distribution<std::size_t> len(0, 4096);
    MessageReassembler r(Precision::Float64, 1u << 20);
    for (int i = 0; i < 2000; ++i)
    {
        std::vector<uint8_t> junk(len(rng));
        for (auto& b : junk)
        {
            b = static_cast<uint8_t>(byte(rng));
        }
        // Make some inputs look like headers so that the deeper checks are exercised.
        if (i % 3 == 0 && junk.size() >= 32)
        {
            junk[0] = 'F';
            junk[1] = 'L';
            junk[2] = 'M';
            junk[3] = '1';
            junk[4] = 1;
            junk[5] = static_cast<uint8_t>(1 + i % 4);
        }
        r.Push(junk.data(), junk.size());
        ReceivedMessage m;
        while (r.Pop(m))
        {
            ADD_FAILURE() << "random bytes were delivered as a message";
        }
        EXPECT_LE(r.Buffered(), (1u << 20) + 32 + 4096);
    }
    EXPECT_EQ(r.Stats().messages, 0u);
    EXPECT_GT(r.Stats().malformedHeaders, 0u);
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
        for (int k = 0; k < mutations; ++k)
        {
            const std::size_t at = pos(rng) % s.size();
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
        while (r.Pop(m))
        {
            ++delivered;
            ASSERT_LT(m.header.round, 8u);
            EXPECT_TRUE(m.params == params[m.header.round]) << "a corrupted message was delivered";
            EXPECT_EQ(m.header.sender, m.header.round);
        }
    }
    // Most messages of a stream with at most 5 mutations survive.
    EXPECT_GT(delivered, 1000u * 8u / 2u);
}
