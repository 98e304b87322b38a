/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Decoding model messages received over a datagram transport, whole or with holes ("keep the
 * previous values" for the coordinates hit by lost chunks), in every wire encoding and both
 * precisions; and the ACK/NACK feedback datagrams: round trips, layout, every single-byte
 * corruption, truncation and random input rejected. Fuzz loops use fixed seeds.
 */
#include "ns3/chunk-feedback.h"
#include "ns3/chunking.h"
#include "ns3/message-reassembler.h"
#include "ns3/model-message.h"
#include "ns3/partial-message.h"
#include "ns3/payload-codec.h"
#include "ns3/wire-bytes.h"

#include <cstring>
#include <gtest/gtest.h>
#include <random>
#include <set>

using namespace ns3::fl;

namespace
{

const WireEncoding kEncodings[] = {WireEncoding::Float64,
                                   WireEncoding::Float32,
                                   WireEncoding::Float16,
                                   WireEncoding::Int8};
const Precision kPrecisions[] = {Precision::Float64, Precision::Float32};

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
Encode(const ParamVector& w, WireEncoding e, uint64_t seed)
{
    Rng rng(seed);
    std::vector<uint8_t> out;
    EncodeMessage({MessageKind::LocalModel, 5, 3, kBroadcastId, 100}, w, e, &rng, out);
    return out;
}

/// Bit pattern of element i (float64 or float32).
uint64_t
Bits(const ParamVector& v, std::size_t i)
{
    const auto k = static_cast<Eigen::Index>(i);
    if (v.GetPrecision() == Precision::Float64)
    {
        uint64_t b;
        const double x = v.Get<double>()[k];
        std::memcpy(&b, &x, 8);
        return b;
    }
    uint32_t b;
    const float x = v.Get<float>()[k];
    std::memcpy(&b, &x, 4);
    return b;
}

void
ExpectHeadersEqual(const MessageHeader& a, const MessageHeader& b)
{
    EXPECT_EQ(a.kind, b.kind);
    EXPECT_EQ(a.encoding, b.encoding);
    EXPECT_EQ(a.round, b.round);
    EXPECT_EQ(a.sender, b.sender);
    EXPECT_EQ(a.count, b.count);
    EXPECT_EQ(a.aux, b.aux);
    EXPECT_EQ(a.payloadBytes, b.payloadBytes);
    EXPECT_EQ(a.crc, b.crc);
}

/// What a receiver holds after some chunks of a message were lost.
struct Received
{
    PartialMessage partial;  ///< packed, as a ChunkReassembler hands it out
    std::vector<uint8_t> at; ///< the same bytes at their offsets (zeros in the holes)
    std::vector<bool> kept;  ///< per chunk
    std::size_t chunkSize{0};
};

/**
 * Fragments msg into chunks of at most maxChunkPayload bytes, keeps the chunks for which keep(i)
 * is true, and returns what a receiver holds: with chunks of at least the minimum chunk payload,
 * what a real ChunkReassembler gives when the message is abandoned (chunks fed in reverse
 * order); with smaller ones (to place chunk boundaries inside the header), the same thing built
 * by the chunk size rule.
 */
template <typename Keep>
Received
LoseChunks(const std::vector<uint8_t>& msg, std::size_t maxChunkPayload, Keep keep)
{
    Received r;
    const std::size_t count = (msg.size() + maxChunkPayload - 1) / maxChunkPayload;
    r.kept.resize(count);
    r.chunkSize = (msg.size() + count - 1) / count;
    for (std::size_t j = count; j-- > 0;)
    {
        r.kept[j] = keep(j);
    }
    if (maxChunkPayload >= ChunkHeader::kMinChunkPayload)
    {
        const auto chunks = Fragment(msg.data(), msg.size(), 9, 3, 5, maxChunkPayload);
        EXPECT_EQ(chunks.size(), count);
        ChunkReassembler reasm(4, 1u << 30);
        for (std::size_t j = count; j-- > 0;)
        {
            if (r.kept[j])
            {
                CompletedMessage done;
                const ChunkResult res = reasm.Accept(chunks[j].data(), chunks[j].size(), done);
                EXPECT_TRUE(res == ChunkResult::Accepted || res == ChunkResult::Completed);
            }
        }
        EXPECT_TRUE(reasm.Abandon(MessageKey{3, 9}, &r.partial));
    }
    else
    {
        r.partial.length = static_cast<uint32_t>(msg.size());
        r.partial.chunkCount = static_cast<uint32_t>(count);
        for (std::size_t j = 0; j < count; ++j)
        {
            const std::size_t b = j * r.chunkSize;
            const std::size_t e = std::min(msg.size(), b + r.chunkSize);
            if (!r.kept[j])
            {
                if (!r.partial.missingChunks.empty() && r.partial.missingChunks.back().end == j)
                {
                    ++r.partial.missingChunks.back().end;
                }
                else
                {
                    r.partial.missingChunks.push_back({j, j + 1});
                }
                continue;
            }
            ++r.partial.chunksReceived;
            if (!r.partial.receivedBytes.empty() && r.partial.receivedBytes.back().end == b)
            {
                r.partial.receivedBytes.back().end = e;
            }
            else
            {
                r.partial.receivedBytes.push_back({b, e});
            }
            r.partial.receivedData.insert(r.partial.receivedData.end(),
                                          msg.begin() + static_cast<std::ptrdiff_t>(b),
                                          msg.begin() + static_cast<std::ptrdiff_t>(e));
        }
    }
    r.at.assign(msg.size(), 0);
    std::size_t pos = 0;
    for (const IndexRange& x : r.partial.receivedBytes)
    {
        std::copy(r.partial.receivedData.begin() + static_cast<std::ptrdiff_t>(pos),
                  r.partial.receivedData.begin() + static_cast<std::ptrdiff_t>(pos + x.end - x.begin),
                  r.at.begin() + static_cast<std::ptrdiff_t>(x.begin));
        pos += x.end - x.begin;
    }
    EXPECT_EQ(pos, r.partial.receivedData.size());
    return r;
}

/// Decodes what a receiver holds both ways (from the buffer with holes and packed) and checks
/// that they agree; returns the status.
MessageDecodeStatus
DecodeBothWays(const Received& r,
               const ParamVector& previous,
               Precision to,
               ReceivedMessage& out,
               std::size_t* missing = nullptr)
{
    std::size_t m1 = 0;
    const MessageDecodeStatus st = DecodePartialMessage(r.at.data(),
                                                        r.at.size(),
                                                        r.partial.receivedBytes,
                                                        previous,
                                                        to,
                                                        1u << 30,
                                                        out,
                                                        &m1);
    ReceivedMessage packed;
    std::size_t m2 = 0;
    EXPECT_EQ(DecodePackedPartialMessage(r.partial, previous, to, 1u << 30, packed, &m2), st);
    if (st == MessageDecodeStatus::Ok)
    {
        EXPECT_EQ(m1, m2);
        EXPECT_TRUE(packed.params == out.params);
        EXPECT_EQ(packed.raw, out.raw);
        if (missing != nullptr)
        {
            *missing = m1;
        }
    }
    return st;
}

} // namespace

// ----------------------------------------------------------------------------- whole messages

TEST(PartialMessage, WholeDecodeEqualsTheStreamReassembler)
{
    for (WireEncoding e : kEncodings)
    {
        for (Precision to : kPrecisions)
        {
            for (std::size_t n : {0u, 1u, 7u, 3001u})
            {
                const ParamVector w = RandomParams(Precision::Float64, n, n + 1);
                const auto msg = Encode(w, e, 42);
                MessageReassembler reasm(to);
                reasm.Push(msg.data(), msg.size());
                ReceivedMessage ref;
                ASSERT_TRUE(reasm.Pop(ref));
                ReceivedMessage got;
                ASSERT_EQ(DecodeWholeMessage(msg.data(), msg.size(), to, 1u << 30, got),
                          MessageDecodeStatus::Ok)
                    << WireEncodingName(e) << " n=" << n;
                ExpectHeadersEqual(got.header, ref.header);
                EXPECT_TRUE(got.params == ref.params) << WireEncodingName(e) << " n=" << n;
            }
        }
    }
}

TEST(PartialMessage, WholeDecodeRejectsBadInput)
{
    const auto msg = Encode(RandomParams(Precision::Float32, 100, 1), WireEncoding::Float32, 1);
    ReceivedMessage out;
    out.header.round = 777;
    EXPECT_EQ(DecodeWholeMessage(nullptr, 0, Precision::Float32, 1u << 30, out),
              MessageDecodeStatus::TooShort);
    EXPECT_EQ(DecodeWholeMessage(msg.data(), 31, Precision::Float32, 1u << 30, out),
              MessageDecodeStatus::TooShort);
    EXPECT_EQ(DecodeWholeMessage(msg.data(), msg.size() - 1, Precision::Float32, 1u << 30, out),
              MessageDecodeStatus::LengthMismatch);
    auto longer = msg;
    longer.push_back(0);
    EXPECT_EQ(DecodeWholeMessage(longer.data(), longer.size(), Precision::Float32, 1u << 30, out),
              MessageDecodeStatus::LengthMismatch);
    EXPECT_EQ(DecodeWholeMessage(msg.data(), msg.size(), Precision::Float32, 399, out),
              MessageDecodeStatus::BadHeader); // payload of 400 bytes above the limit
    auto bad = msg;
    bad[0] ^= 1;
    EXPECT_EQ(DecodeWholeMessage(bad.data(), bad.size(), Precision::Float32, 1u << 30, out),
              MessageDecodeStatus::BadHeader);
    bad = msg;
    bad[100] ^= 0x10;
    EXPECT_EQ(DecodeWholeMessage(bad.data(), bad.size(), Precision::Float32, 1u << 30, out),
              MessageDecodeStatus::BadCrc);
    EXPECT_EQ(out.header.round, 777u); // untouched on failure
    EXPECT_STREQ(MessageDecodeStatusName(MessageDecodeStatus::BadCrc), "CRC mismatch");
    EXPECT_STREQ(MessageDecodeStatusName(MessageDecodeStatus::ScaleMissing),
                 "int8 scale not received");
}

// --------------------------------------------------------------------------- partial messages

TEST(PartialMessage, AllBytesReceivedEqualsTheWholeDecode)
{
    for (WireEncoding e : kEncodings)
    {
        for (Precision to : kPrecisions)
        {
            const std::size_t n = 2001;
            const auto msg = Encode(RandomParams(Precision::Float32, n, 3), e, 7);
            ReceivedMessage whole;
            ASSERT_EQ(DecodeWholeMessage(msg.data(), msg.size(), to, 1u << 30, whole),
                      MessageDecodeStatus::Ok);
            const ParamVector previous = RandomParams(Precision::Float64, n, 99);
            // As one range, and as many overlapping, unsorted ones.
            const std::vector<std::vector<IndexRange>> covers = {
                {{0, msg.size()}},
                {{500, msg.size()}, {0, 17}, {10, 600}, {300, 301}},
            };
            for (const auto& ranges : covers)
            {
                ReceivedMessage got;
                std::size_t missing = 12345;
                ASSERT_EQ(DecodePartialMessage(msg.data(),
                                               msg.size(),
                                               ranges,
                                               previous,
                                               to,
                                               1u << 30,
                                               got,
                                               &missing),
                          MessageDecodeStatus::Ok);
                EXPECT_EQ(missing, 0u);
                ExpectHeadersEqual(got.header, whole.header);
                EXPECT_TRUE(got.params == whole.params) << WireEncodingName(e);
            }
        }
    }
}

TEST(PartialMessage, HolesTakeThePreviousValuesExactly)
{
    Rng rng(2024);
    for (WireEncoding e : kEncodings)
    {
        for (Precision to : kPrecisions)
        {
            for (Precision prevPrecision : kPrecisions)
            {
                const std::size_t n = 3333;
                const auto msg = Encode(RandomParams(Precision::Float64, n, 5), e, 11);
                ReceivedMessage whole;
                ASSERT_EQ(DecodeWholeMessage(msg.data(), msg.size(), to, 1u << 30, whole),
                          MessageDecodeStatus::Ok);
                const ParamVector previous = RandomParams(prevPrecision, n, 77);
                const ParamVector previousAsTo = previous.ConvertedTo(to);
                // An odd chunk size so that elements straddle chunk boundaries.
                const std::size_t maxChunk = 501;
                std::bernoulli_distribution lose(0.3);
                // Chunk 0 (header and scale) always arrives, chunk 1 never does.
                const Received r = LoseChunks(msg, maxChunk, [&](std::size_t j) {
                    return j == 0 || (j != 1 && !lose(rng));
                });
                const std::size_t eb = WireElementBytes(e);
                const std::size_t off = MessageHeader::kSize + WireDataOffset(e);
                // Reference: element i is received iff every chunk it touches was kept.
                std::size_t expectMissing = 0;
                std::vector<bool> hit(n);
                for (std::size_t i = 0; i < n; ++i)
                {
                    const std::size_t first = (off + i * eb) / r.chunkSize;
                    const std::size_t last = (off + (i + 1) * eb - 1) / r.chunkSize;
                    for (std::size_t c = first; c <= last; ++c)
                    {
                        hit[i] = hit[i] || !r.kept[c];
                    }
                    expectMissing += hit[i];
                }
                ASSERT_GT(expectMissing, 0u);
                ASSERT_LT(expectMissing, n);

                ReceivedMessage got;
                std::size_t missing = 0;
                ASSERT_EQ(DecodeBothWays(r, previous, to, got, &missing), MessageDecodeStatus::Ok);
                EXPECT_EQ(missing, expectMissing);
                ExpectHeadersEqual(got.header, whole.header);
                ASSERT_EQ(got.params.GetPrecision(), to);
                ASSERT_EQ(got.params.Size(), n);
                std::size_t wrong = 0;
                for (std::size_t i = 0; i < n; ++i)
                {
                    const uint64_t expect = hit[i] ? Bits(previousAsTo, i) : Bits(whole.params, i);
                    wrong += Bits(got.params, i) != expect;
                }
                EXPECT_EQ(wrong, 0u) << WireEncodingName(e) << " to " << PrecisionName(to)
                                     << " previous " << PrecisionName(prevPrecision);
                // Garbage in the holes changes nothing.
                auto noisy = r.at;
                for (const auto& hole : r.partial.missingChunks)
                {
                    for (std::size_t b = hole.begin * r.chunkSize;
                         b < std::min(noisy.size(), hole.end * r.chunkSize);
                         ++b)
                    {
                        noisy[b] = static_cast<uint8_t>(rng());
                    }
                }
                ReceivedMessage got2;
                ASSERT_EQ(DecodePartialMessage(noisy.data(),
                                               noisy.size(),
                                               r.partial.receivedBytes,
                                               previous,
                                               to,
                                               1u << 30,
                                               got2),
                          MessageDecodeStatus::Ok);
                EXPECT_TRUE(got2.params == got.params);
            }
        }
    }
}

TEST(PartialMessage, MissingHeaderScaleAndSizeMismatchAreReported)
{
    for (WireEncoding e : kEncodings)
    {
        const std::size_t n = 500;
        const auto msg = Encode(RandomParams(Precision::Float32, n, 8), e, 3);
        const ParamVector previous = RandomParams(Precision::Float32, n, 9);
        ReceivedMessage out;
        // Chunk 0 lost: no header.
        Received r = LoseChunks(msg, 100, [](std::size_t j) { return j != 0; });
        EXPECT_EQ(DecodeBothWays(r, previous, Precision::Float32, out),
                  MessageDecodeStatus::HeaderMissing);
        r = LoseChunks(msg, 300, [](std::size_t j) { return j != 0; });
        EXPECT_EQ(DecodeBothWays(r, previous, Precision::Float32, out),
                  MessageDecodeStatus::HeaderMissing);
        // Header partly received.
        EXPECT_EQ(DecodePartialMessage(msg.data(),
                                       msg.size(),
                                       {{0, MessageHeader::kSize - 1}, {MessageHeader::kSize, msg.size()}},
                                       previous,
                                       Precision::Float32,
                                       1u << 30,
                                       out),
                  MessageDecodeStatus::HeaderMissing);
        // 38-byte chunks: chunk 0 is the header and 2 bytes; chunk 1 holds the rest of the
        // int8 scale. Losing chunk 1 loses the scale (int8 only).
        r = LoseChunks(msg, MessageHeader::kSize + 2, [](std::size_t j) { return j != 1; });
        const MessageDecodeStatus st = DecodeBothWays(r, previous, Precision::Float32, out);
        EXPECT_EQ(st,
                  e == WireEncoding::Int8 ? MessageDecodeStatus::ScaleMissing
                                          : MessageDecodeStatus::Ok)
            << WireEncodingName(e);
        // Previous vector of the wrong size.
        for (std::size_t wrongSize : {n - 1, n + 1, std::size_t(0)})
        {
            EXPECT_EQ(DecodePartialMessage(msg.data(),
                                           msg.size(),
                                           {{0, msg.size()}},
                                           RandomParams(Precision::Float32, wrongSize, 1),
                                           Precision::Float32,
                                           1u << 30,
                                           out),
                      MessageDecodeStatus::SizeMismatch);
        }
        // Wrong length, bad header, too large.
        EXPECT_EQ(DecodePartialMessage(msg.data(),
                                       msg.size() - 1,
                                       {{0, msg.size()}},
                                       previous,
                                       Precision::Float32,
                                       1u << 30,
                                       out),
                  MessageDecodeStatus::LengthMismatch);
        EXPECT_EQ(DecodePartialMessage(msg.data(),
                                       20,
                                       {{0, msg.size()}},
                                       previous,
                                       Precision::Float32,
                                       1u << 30,
                                       out),
                  MessageDecodeStatus::TooShort);
        EXPECT_EQ(DecodePartialMessage(msg.data(),
                                       msg.size(),
                                       {{0, msg.size()}},
                                       previous,
                                       Precision::Float32,
                                       10,
                                       out),
                  MessageDecodeStatus::BadHeader);
        // The message CRC is not checked: a bit flip in a received payload byte decodes.
        auto flipped = msg;
        flipped.back() ^= 0x40;
        EXPECT_EQ(DecodePartialMessage(flipped.data(),
                                       flipped.size(),
                                       {{0, flipped.size()}},
                                       previous,
                                       Precision::Float32,
                                       1u << 30,
                                       out),
                  MessageDecodeStatus::Ok);
    }
}

TEST(PartialMessage, HeaderOnlyMessage)
{
    const auto msg = Encode(ParamVector(), WireEncoding::Int8, 1);
    ASSERT_EQ(msg.size(), MessageHeader::kSize);
    ReceivedMessage whole;
    ASSERT_EQ(DecodeWholeMessage(msg.data(), msg.size(), Precision::Float32, 1u << 30, whole),
              MessageDecodeStatus::Ok);
    EXPECT_EQ(whole.params.Size(), 0u);
    ReceivedMessage part;
    std::size_t missing = 99;
    EXPECT_EQ(DecodePartialMessage(msg.data(),
                                   msg.size(),
                                   {{0, MessageHeader::kSize}},
                                   ParamVector(),
                                   Precision::Float32,
                                   1u << 30,
                                   part,
                                   &missing),
              MessageDecodeStatus::Ok);
    EXPECT_EQ(missing, 0u);
    EXPECT_TRUE(part.params == whole.params);
    EXPECT_EQ(DecodePartialMessage(msg.data(),
                                   msg.size(),
                                   {},
                                   ParamVector(),
                                   Precision::Float32,
                                   1u << 30,
                                   part),
              MessageDecodeStatus::HeaderMissing);
}

// The packed decoder checks that the ranges describe the data before it reads anything.
TEST(PartialMessage, PackedRangesMustDescribeTheData)
{
    const auto msg = Encode(RandomParams(Precision::Float32, 100, 1), WireEncoding::Float32, 1);
    const ParamVector previous = RandomParams(Precision::Float32, 100, 2);
    ReceivedMessage out;
    out.header.round = 777;
    const auto packed = [&](const std::vector<IndexRange>& ranges, std::size_t dataLen) {
        return DecodePackedPartialMessage(msg.size(),
                                          ranges,
                                          msg.data(),
                                          dataLen,
                                          previous,
                                          Precision::Float32,
                                          1u << 30,
                                          out);
    };
    const std::size_t n = msg.size();
    EXPECT_EQ(packed({{0, n}}, n), MessageDecodeStatus::Ok);
    EXPECT_EQ(packed({{0, 100}, {100, n}}, n), MessageDecodeStatus::Ok); // adjacent is fine
    out.header.round = 777;
    EXPECT_EQ(packed({{0, n}}, n - 1), MessageDecodeStatus::BadRanges);      // data too short
    EXPECT_EQ(packed({{0, n - 1}}, n), MessageDecodeStatus::BadRanges);      // data too long
    EXPECT_EQ(packed({{0, n + 1}}, n + 1), MessageDecodeStatus::BadRanges);  // past the end
    EXPECT_EQ(packed({{100, n}, {0, 100}}, n), MessageDecodeStatus::BadRanges); // unsorted
    EXPECT_EQ(packed({{0, 100}, {50, 150}}, 200), MessageDecodeStatus::BadRanges); // overlap
    EXPECT_EQ(packed({{0, 0}}, 0), MessageDecodeStatus::BadRanges);          // empty range
    EXPECT_EQ(packed({}, 0), MessageDecodeStatus::HeaderMissing);
    EXPECT_EQ(out.header.round, 777u); // untouched on failure
}

// What a receiver has of a message whose only chunk to arrive is a forged one declaring a large
// message is decoded without allocating anything of the declared size: the header is missing.
TEST(PartialMessage, ForgedChunkWithoutHeaderIsRejectedWithoutAllocating)
{
    const uint32_t count = 31267;
    const uint32_t length = 256u * (count - 1) + 1;
    ChunkHeader h;
    h.messageId = 1;
    h.sender = 9;
    h.index = count - 1;
    h.count = count;
    h.messageLength = length;
    h.payloadLength = 1;
    std::vector<uint8_t> g(ChunkHeader::kSize + 1, 0x5A);
    h.Write(g.data());
    std::vector<uint8_t> covered(g.begin(), g.begin() + 36);
    covered.push_back(0x5A);
    h.crc = Crc32(covered.data(), covered.size());
    h.Write(g.data());
    ChunkReassembler r(4, length);
    CompletedMessage done;
    ASSERT_EQ(r.Accept(g.data(), g.size(), done), ChunkResult::Accepted);
    PartialMessage p;
    ASSERT_TRUE(r.Abandon({9, 1}, &p));
    EXPECT_LE(p.HeldBytes(), 64u);
    ReceivedMessage out;
    EXPECT_EQ(DecodePackedPartialMessage(p,
                                         RandomParams(Precision::Float32, 10, 1),
                                         Precision::Float32,
                                         1u << 30,
                                         out),
              MessageDecodeStatus::HeaderMissing);
    EXPECT_EQ(out.params.Size(), 0u);
}

// A message in the older wire version 2 arriving with holes is named as such.
TEST(PartialMessage, OldVersionIsReported)
{
    auto v3 = Encode(RandomParams(Precision::Float32, 500, 1), WireEncoding::Float32, 1);
    std::vector<uint8_t> v2(v3.begin(), v3.begin() + 32);
    v2.insert(v2.end(), v3.begin() + MessageHeader::kSize, v3.end());
    v2[4] = MessageHeader::kOldVersion;
    const Received r = LoseChunks(v2, 300, [](std::size_t j) { return j != 2; });
    ReceivedMessage out;
    EXPECT_EQ(DecodeBothWays(r, RandomParams(Precision::Float32, 500, 2), Precision::Float32, out),
              MessageDecodeStatus::OldVersion);
}

TEST(PartialMessage, FuzzTruncatedMutatedAndRandomInputsNeverCrash)
{
    Rng rng(31337);
    std::vector<std::vector<uint8_t>> seeds;
    for (WireEncoding e : kEncodings)
    {
        seeds.push_back(Encode(RandomParams(Precision::Float32, 300, 4), e, 5));
        seeds.push_back(Encode(RandomParams(Precision::Float64, 3, 4), e, 5));
    }
    seeds.push_back(Encode(ParamVector(), WireEncoding::Float32, 5));
    std::size_t ok = 0;
    std::size_t okPartial = 0;
    for (int iter = 0; iter < 30000; ++iter)
    {
        std::vector<uint8_t> buf;
        const int kind = static_cast<int>(rng() % 5);
        const auto& seed = seeds[rng() % seeds.size()];
        if (kind == 0)
        {
            buf.resize(rng() % 200); // random bytes
            for (auto& b : buf)
            {
                b = static_cast<uint8_t>(rng());
            }
        }
        else if (kind == 1)
        {
            buf.assign(seed.begin(), seed.begin() + static_cast<long>(rng() % (seed.size() + 1)));
        }
        else if (kind == 4)
        {
            buf = seed; // intact
        }
        else
        {
            buf = seed; // mutated: a few random bytes changed, mostly in the header
            const int flips = 1 + static_cast<int>(rng() % 3);
            for (int f = 0; f < flips; ++f)
            {
                const std::size_t pos =
                    kind == 2 ? rng() % std::min<std::size_t>(buf.size(), 40) : rng() % buf.size();
                buf[pos] = static_cast<uint8_t>(rng());
            }
        }
        // The exact buffer size, so that any read beyond it is a real overrun.
        const uint8_t* data = buf.empty() ? nullptr : buf.data();
        ReceivedMessage out;
        if (DecodeWholeMessage(data, buf.size(), Precision::Float32, 1u << 20, out) ==
            MessageDecodeStatus::Ok)
        {
            ++ok;
            ASSERT_EQ(out.params.Size(), out.header.count);
        }
        std::vector<IndexRange> ranges;
        const int nr = static_cast<int>(rng() % 4);
        for (int k = 0; k < nr; ++k)
        {
            const std::size_t a = rng() % (buf.size() + 50);
            ranges.push_back({a, a + rng() % (buf.size() + 50)});
        }
        if (rng() % 2)
        {
            ranges.push_back({0, 40});
        }
        const ParamVector previous = RandomParams(Precision::Float64, rng() % 2 ? 300 : 3, iter);
        std::size_t missing = 0;
        if (DecodePartialMessage(data,
                                 buf.size(),
                                 ranges,
                                 previous,
                                 Precision::Float64,
                                 1u << 20,
                                 out,
                                 &missing) == MessageDecodeStatus::Ok)
        {
            ++okPartial;
            ASSERT_EQ(out.params.Size(), out.header.count);
            ASSERT_LE(missing, out.header.count);
        }
    }
    // The loop exercised the success paths too.
    EXPECT_GT(ok, 100u);
    EXPECT_GT(okPartial, 100u);
}

// ------------------------------------------------------------------------- feedback datagrams

TEST(ChunkFeedback, LayoutAndRoundTrip)
{
    ChunkFeedback nack;
    nack.type = FeedbackType::Nack;
    nack.messageId = 0x01020304u;
    nack.sender = 7;
    nack.round = 9;
    nack.missing = {0, 5, 6, 1000000};
    std::vector<uint8_t> bytes;
    EncodeFeedback(nack, bytes);
    ASSERT_EQ(bytes.size(), 28u + 16u);
    EXPECT_EQ(FeedbackSize(nack), bytes.size());
    EXPECT_EQ(bytes[0], 'F');
    EXPECT_EQ(bytes[1], 'L');
    EXPECT_EQ(bytes[2], 'F');
    EXPECT_EQ(bytes[3], '1');
    EXPECT_EQ(bytes[4], 1); // version
    EXPECT_EQ(bytes[5], 2); // NACK
    EXPECT_EQ(bytes[6], 0);
    EXPECT_EQ(bytes[7], 0);
    EXPECT_EQ(bytes[8], 0x04);
    EXPECT_EQ(bytes[12], 7);
    EXPECT_EQ(bytes[16], 9);
    EXPECT_EQ(bytes[20], 4);
    EXPECT_EQ(bytes[24 + 4], 5);
    EXPECT_EQ(GetU32(bytes.data() + 40), Crc32(bytes.data(), 40));
    EXPECT_TRUE(IsFeedbackDatagram(bytes.data(), bytes.size()));

    ChunkFeedback back;
    ASSERT_EQ(ParseFeedback(bytes.data(), bytes.size(), back), FeedbackStatus::Ok);
    EXPECT_EQ(back.type, FeedbackType::Nack);
    EXPECT_EQ(back.messageId, nack.messageId);
    EXPECT_EQ(back.sender, 7u);
    EXPECT_EQ(back.round, 9u);
    EXPECT_EQ(back.missing, nack.missing);

    ChunkFeedback ack;
    ack.type = FeedbackType::Ack;
    ack.messageId = 42;
    ack.sender = 0xFFFFFFFFu;
    ack.round = 3;
    EncodeFeedback(ack, bytes); // reuses the buffer
    ASSERT_EQ(bytes.size(), 28u);
    back.missing = {1, 2};
    ASSERT_EQ(ParseFeedback(bytes.data(), bytes.size(), back), FeedbackStatus::Ok);
    EXPECT_EQ(back.type, FeedbackType::Ack);
    EXPECT_EQ(back.messageId, 42u);
    EXPECT_EQ(back.sender, 0xFFFFFFFFu);
    EXPECT_TRUE(back.missing.empty());
    EXPECT_STREQ(FeedbackTypeName(FeedbackType::Ack), "ack");
    EXPECT_STREQ(FeedbackStatusName(FeedbackStatus::BadCrc), "CRC mismatch");
}

TEST(ChunkFeedback, MaxIndicesFitOneDatagram)
{
    EXPECT_EQ(MaxNackIndices(1472), (1472u - 28u) / 4u);
    EXPECT_EQ(MaxNackIndices(32), 1u);
    EXPECT_EQ(MaxNackIndices(1u << 20), (65507u - 28u) / 4u);
    EXPECT_THROW(MaxNackIndices(31), ConfigError);
    ChunkFeedback fb;
    fb.type = FeedbackType::Nack;
    for (uint32_t i = 0; i < MaxNackIndices(1472); ++i)
    {
        fb.missing.push_back(3 * i);
    }
    std::vector<uint8_t> bytes;
    EncodeFeedback(fb, bytes);
    EXPECT_LE(bytes.size(), 1472u);
    ChunkFeedback back;
    EXPECT_EQ(ParseFeedback(bytes.data(), bytes.size(), back), FeedbackStatus::Ok);
    EXPECT_EQ(back.missing, fb.missing);
    // The largest NACK, and one index too many.
    fb.missing.clear();
    for (uint32_t i = 0; i < MaxNackIndices(65507); ++i)
    {
        fb.missing.push_back(i);
    }
    EncodeFeedback(fb, bytes);
    EXPECT_EQ(bytes.size(), 65504u);
    EXPECT_EQ(ParseFeedback(bytes.data(), bytes.size(), back), FeedbackStatus::Ok);
    fb.missing.push_back(fb.missing.back() + 1);
    EXPECT_THROW(EncodeFeedback(fb, bytes), ConfigError);
}

TEST(ChunkFeedback, EncodeRefusesWhatWouldNotParse)
{
    std::vector<uint8_t> bytes;
    ChunkFeedback fb;
    fb.type = FeedbackType::Ack;
    fb.missing = {1};
    EXPECT_THROW(EncodeFeedback(fb, bytes), ConfigError);
    fb.type = FeedbackType::Nack;
    fb.missing.clear();
    EXPECT_THROW(EncodeFeedback(fb, bytes), ConfigError);
    fb.missing = {3, 3};
    EXPECT_THROW(EncodeFeedback(fb, bytes), ConfigError);
    fb.missing = {4, 3};
    EXPECT_THROW(EncodeFeedback(fb, bytes), ConfigError);
    fb.type = static_cast<FeedbackType>(3);
    fb.missing = {1};
    EXPECT_THROW(EncodeFeedback(fb, bytes), ConfigError);
}

TEST(ChunkFeedback, FieldValidationWithValidCrc)
{
    // Builds a datagram with arbitrary fields and a correct CRC.
    auto build = [](uint8_t version, uint8_t type, uint8_t reserved, std::vector<uint32_t> idx) {
        std::vector<uint8_t> b(28 + 4 * idx.size());
        PutU32(b.data(), ChunkFeedback::kMagic);
        b[4] = version;
        b[5] = type;
        b[6] = 0;
        b[7] = reserved;
        PutU32(b.data() + 8, 1);
        PutU32(b.data() + 12, 2);
        PutU32(b.data() + 16, 3);
        PutU32(b.data() + 20, static_cast<uint32_t>(idx.size()));
        for (std::size_t i = 0; i < idx.size(); ++i)
        {
            PutU32(b.data() + 24 + 4 * i, idx[i]);
        }
        PutU32(b.data() + b.size() - 4, Crc32(b.data(), b.size() - 4));
        return b;
    };
    ChunkFeedback out;
    auto parse = [&out](const std::vector<uint8_t>& b) {
        return ParseFeedback(b.data(), b.size(), out);
    };
    EXPECT_EQ(parse(build(1, 2, 0, {1, 2})), FeedbackStatus::Ok);
    EXPECT_EQ(parse(build(2, 2, 0, {1, 2})), FeedbackStatus::BadVersion);
    EXPECT_EQ(parse(build(1, 0, 0, {1, 2})), FeedbackStatus::BadType);
    EXPECT_EQ(parse(build(1, 3, 0, {1, 2})), FeedbackStatus::BadType);
    EXPECT_EQ(parse(build(1, 2, 1, {1, 2})), FeedbackStatus::BadReserved);
    EXPECT_EQ(parse(build(1, 1, 0, {1})), FeedbackStatus::BadCount);
    EXPECT_EQ(parse(build(1, 2, 0, {})), FeedbackStatus::BadCount);
    EXPECT_EQ(parse(build(1, 2, 0, {2, 1})), FeedbackStatus::BadIndices);
    EXPECT_EQ(parse(build(1, 2, 0, {2, 2})), FeedbackStatus::BadIndices);
    auto huge = build(1, 2, 0, {1});
    PutU32(huge.data() + 20, 0xFFFFFFFFu); // a count that would overflow 32-bit arithmetic
    EXPECT_EQ(parse(huge), FeedbackStatus::BadLength);
    PutU32(huge.data() + 20, 0x40000001u); // 28 + 4 n wraps to 32 in 32 bits
    EXPECT_EQ(parse(huge), FeedbackStatus::BadLength);
}

TEST(ChunkFeedback, EverySingleByteCorruptionAndTruncationIsRejected)
{
    ChunkFeedback nack;
    nack.type = FeedbackType::Nack;
    nack.messageId = 123456;
    nack.sender = 5;
    nack.round = 17;
    nack.missing = {2, 3, 5, 8, 13, 21, 34, 55};
    ChunkFeedback ack;
    ack.type = FeedbackType::Ack;
    ack.messageId = 99;
    ack.sender = 1;
    ack.round = 2;
    for (const ChunkFeedback* fb : {&nack, &ack})
    {
        std::vector<uint8_t> good;
        EncodeFeedback(*fb, good);
        ChunkFeedback out;
        std::size_t rejected = 0;
        std::size_t tried = 0;
        for (std::size_t pos = 0; pos < good.size(); ++pos)
        {
            for (int x = 1; x < 256; ++x)
            {
                auto bad = good;
                bad[pos] ^= static_cast<uint8_t>(x);
                ++tried;
                rejected += ParseFeedback(bad.data(), bad.size(), out) != FeedbackStatus::Ok;
            }
        }
        EXPECT_EQ(rejected, tried);
        for (std::size_t len = 0; len < good.size(); ++len)
        {
            std::vector<uint8_t> cut(good.begin(), good.begin() + static_cast<long>(len));
            EXPECT_NE(ParseFeedback(cut.empty() ? nullptr : cut.data(), cut.size(), out),
                      FeedbackStatus::Ok)
                << "length " << len;
        }
        auto longer = good;
        longer.push_back(0);
        EXPECT_EQ(ParseFeedback(longer.data(), longer.size(), out), FeedbackStatus::BadLength);
    }
}

TEST(ChunkFeedback, RandomBytesAreRejectedAndRoutedByMagic)
{
    Rng rng(4242);
    ChunkFeedback out;
    std::size_t accepted = 0;
    for (int iter = 0; iter < 50000; ++iter)
    {
        std::vector<uint8_t> b(rng() % 100);
        for (auto& x : b)
        {
            x = static_cast<uint8_t>(rng());
        }
        if (b.size() >= 4 && iter % 2 == 0)
        {
            PutU32(b.data(), ChunkFeedback::kMagic); // past the magic check
            if (b.size() >= 8 && iter % 4 == 0)
            {
                b[4] = 1;
                b[5] = static_cast<uint8_t>(1 + rng() % 2);
                b[6] = b[7] = 0;
            }
        }
        EXPECT_EQ(IsFeedbackDatagram(b.empty() ? nullptr : b.data(), b.size()),
                  b.size() >= 4 && GetU32(b.data()) == ChunkFeedback::kMagic);
        accepted +=
            ParseFeedback(b.empty() ? nullptr : b.data(), b.size(), out) == FeedbackStatus::Ok;
    }
    EXPECT_EQ(accepted, 0u);
    // Chunks and model messages are never taken for feedback, and vice versa.
    const auto msg = Encode(RandomParams(Precision::Float32, 10, 1), WireEncoding::Float32, 1);
    const auto chunks = Fragment(msg.data(), msg.size(), 1, 2, 3, 1000);
    EXPECT_FALSE(IsFeedbackDatagram(msg.data(), msg.size()));
    EXPECT_FALSE(IsFeedbackDatagram(chunks[0].data(), chunks[0].size()));
    EXPECT_FALSE(IsFeedbackDatagram(chunks[0].data(), 3));
    EXPECT_FALSE(IsFeedbackDatagram(nullptr, 0));
    ChunkFeedback ack;
    std::vector<uint8_t> fb;
    EncodeFeedback(ack, fb);
    ChunkHeader h;
    EXPECT_EQ(ParseChunk(fb.data(), fb.size(), 1u << 30, h), ChunkStatus::TooShort);
    fb.resize(64, 0);
    EXPECT_EQ(ParseChunk(fb.data(), fb.size(), 1u << 30, h), ChunkStatus::BadMagic);
}
