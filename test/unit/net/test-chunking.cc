/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Fragmentation of messages into datagram chunks and their reassembly under reordering,
 * duplication and loss; selective retransmission; counters of lost, late, duplicate and
 * malformed chunks; the byte-range to coordinate-range mapping; and a fuzz-style test over
 * random, truncated and mutated datagrams (never a crash, nothing corrupted delivered, memory
 * bounded).
 */
#include "ns3/chunk-feedback.h"
#include "ns3/chunking.h"
#include "ns3/model-message.h"
#include "ns3/payload-codec.h"

#include <algorithm>
#include <cstring>
#include <gtest/gtest.h>
#include <map>
#include <numeric>
#include <random>
#include <set>

using namespace ns3::fl;

namespace
{

std::vector<uint8_t>
RandomBytes(std::size_t n, uint64_t seed)
{
    Rng rng(seed);
    std::vector<uint8_t> b(n);
    for (auto& x : b)
    {
        x = static_cast<uint8_t>(rng());
    }
    return b;
}

using Datagrams = std::vector<std::vector<uint8_t>>;

/// Feeds datagrams; returns the completed messages.
std::vector<CompletedMessage>
FeedAll(ChunkReassembler& r, const Datagrams& d, double now = 0.0)
{
    std::vector<CompletedMessage> done;
    for (const auto& g : d)
    {
        CompletedMessage m;
        if (r.Accept(g.data(), g.size(), m, now) == ChunkResult::Completed)
        {
            done.push_back(std::move(m));
        }
    }
    return done;
}

void
ExpectCountersAddUp(const ChunkReassembler& r)
{
    const auto& s = r.Stats();
    EXPECT_EQ(s.datagrams, s.accepted + s.duplicate + s.late + s.malformed);
}

/// Sorted indices as ranges of consecutive indices.
std::vector<IndexRange>
AsRanges(const std::vector<uint32_t>& indices)
{
    std::vector<IndexRange> out;
    for (uint32_t i : indices)
    {
        if (!out.empty() && out.back().end == i)
        {
            ++out.back().end;
        }
        else
        {
            out.push_back({i, std::size_t(i) + 1});
        }
    }
    return out;
}

/// The packed bytes of a partial message at their offsets in a zero-filled buffer of its length
/// (for checks on small test messages only: a receiver never builds this).
std::vector<uint8_t>
Unpacked(const PartialMessage& p)
{
    std::vector<uint8_t> full(p.length, 0);
    std::size_t at = 0;
    for (const IndexRange& r : p.receivedBytes)
    {
        std::copy(p.receivedData.begin() + static_cast<std::ptrdiff_t>(at),
                  p.receivedData.begin() + static_cast<std::ptrdiff_t>(at + r.end - r.begin),
                  full.begin() + static_cast<std::ptrdiff_t>(r.begin));
        at += r.end - r.begin;
    }
    EXPECT_EQ(at, p.receivedData.size());
    return full;
}

/// A valid chunk datagram (right sizes and CRC) with any header fields and payload.
std::vector<uint8_t>
ForgeChunk(uint32_t sender,
           uint32_t messageId,
           uint32_t index,
           uint32_t count,
           uint32_t length,
           const std::vector<uint8_t>& payload)
{
    ChunkHeader h;
    h.messageId = messageId;
    h.sender = sender;
    h.index = index;
    h.count = count;
    h.messageLength = length;
    h.payloadLength = static_cast<uint32_t>(payload.size());
    std::vector<uint8_t> g(ChunkHeader::kSize);
    h.Write(g.data());
    g.insert(g.end(), payload.begin(), payload.end());
    std::vector<uint8_t> covered(g.begin(), g.begin() + 36);
    covered.insert(covered.end(), payload.begin(), payload.end());
    h.crc = Crc32(covered.data(), covered.size());
    h.Write(g.data());
    return g;
}

} // namespace

TEST(Fragment, HeaderLayoutIsFixed)
{
    const auto msg = RandomBytes(3000, 1);
    const auto chunks = Fragment(msg.data(), msg.size(), 0x01020304u, 7, 9, 1000);
    ASSERT_EQ(chunks.size(), 3u);
    const auto& c = chunks[1];
    ASSERT_EQ(c.size(), ChunkHeader::kSize + 1000);
    EXPECT_EQ(c[0], 'F');
    EXPECT_EQ(c[1], 'L');
    EXPECT_EQ(c[2], 'C');
    EXPECT_EQ(c[3], '1');
    EXPECT_EQ(c[4], 1); // version
    EXPECT_EQ(c[5], 0); // flags
    EXPECT_EQ(c[6], 0);
    EXPECT_EQ(c[7], 0);
    EXPECT_EQ(c[8], 0x04); // message id, little-endian
    EXPECT_EQ(c[11], 0x01);
    EXPECT_EQ(c[12], 7);                  // sender
    EXPECT_EQ(c[16], 9);                  // round
    EXPECT_EQ(c[20], 1);                  // index
    EXPECT_EQ(c[24], 3);                  // count
    EXPECT_EQ(c[28] + 256 * c[29], 3000); // message length
    EXPECT_EQ(c[32] + 256 * c[33], 1000); // payload length
    EXPECT_TRUE(std::equal(c.begin() + 40, c.end(), msg.begin() + 1000));
    uint32_t crc;
    std::memcpy(&crc, c.data() + 36, 4);
    // CRC-32 of header bytes 0..35 followed by the payload, as for model messages.
    std::vector<uint8_t> covered(c.begin(), c.begin() + 36);
    covered.insert(covered.end(), c.begin() + 40, c.end());
    EXPECT_EQ(crc, Crc32(covered.data(), covered.size()));
}

TEST(Fragment, ChunkSizesFollowTheRule)
{
    EXPECT_EQ(MaxChunkPayloadForMtu(1500), 1432u);
    EXPECT_EQ(MaxChunkPayloadForMtu(324), ChunkHeader::kMinChunkPayload);
    EXPECT_THROW(MaxChunkPayloadForMtu(60), ConfigError);
    EXPECT_THROW(MaxChunkPayloadForMtu(323), ConfigError);
    EXPECT_THROW(ChunkCount(10, 0), ConfigError);
    EXPECT_THROW(ChunkCount(10, ChunkHeader::kMinChunkPayload - 1), ConfigError);
    EXPECT_THROW(ChunkCount(10, 70000), ConfigError);
    for (std::size_t len : {0u, 1u, 255u, 256u, 257u, 999u, 1000u, 1001u, 2999u, 3000u, 3001u,
                            407080u})
    {
        for (std::size_t maxP : {256u, 257u, 1000u, 1432u})
        {
            const auto msg = RandomBytes(len, len + maxP);
            const auto chunks = Fragment(msg.data(), len, 1, 2, 3, maxP);
            const std::size_t expectCount = len == 0 ? 1 : (len + maxP - 1) / maxP;
            ASSERT_EQ(chunks.size(), expectCount);
            ASSERT_EQ(ChunkCount(len, maxP), expectCount);
            std::vector<uint8_t> joined;
            for (std::size_t i = 0; i < chunks.size(); ++i)
            {
                ChunkHeader h;
                ASSERT_EQ(ParseChunk(chunks[i].data(), chunks[i].size(), 1u << 30, h),
                          ChunkStatus::Ok);
                EXPECT_LE(h.payloadLength, maxP);
                EXPECT_LE(h.count, MaxChunkCount(h.messageLength));
                EXPECT_EQ(h.index, i);
                if (i + 1 < chunks.size())
                {
                    EXPECT_EQ(h.payloadLength, (len + expectCount - 1) / expectCount);
                }
                else
                {
                    EXPECT_GE(h.payloadLength, len == 0 ? 0u : 1u);
                }
                joined.insert(joined.end(), chunks[i].begin() + 40, chunks[i].end());
            }
            EXPECT_EQ(joined, msg);
        }
    }
    // The buffer-reusing version gives the same datagrams; MakeChunk builds any one of them.
    const auto msg = RandomBytes(5000, 3);
    Datagrams reuse(10, std::vector<uint8_t>(2000, 0xEE));
    Fragment(msg.data(), msg.size(), 4, 5, 6, 1432, reuse);
    EXPECT_EQ(reuse, Fragment(msg.data(), msg.size(), 4, 5, 6, 1432));
    std::vector<uint8_t> one;
    MakeChunk(msg.data(), msg.size(), 4, 5, 6, 1432, 2, 0, one);
    EXPECT_EQ(one, reuse[2]);
    EXPECT_THROW(MakeChunk(msg.data(), msg.size(), 4, 5, 6, 1432, 4, 0, one), ConfigError);
}

TEST(ChunkReassembler, RoundTripUnderReorderingAndDuplication)
{
    Rng rng(123);
    for (int trial = 0; trial < 200; ++trial)
    {
        const std::size_t len = trial % 10 == 0 ? 0 : 1 + rng() % 20000;
        const auto msg = RandomBytes(len, 1000 + trial);
        const std::size_t maxP = ChunkHeader::kMinChunkPayload + rng() % 1245;
        Datagrams d = Fragment(msg.data(), len, trial, 3, 11, maxP);
        const std::size_t count = d.size();
        // Duplicate about a third of the chunks, then shuffle everything.
        for (std::size_t i = 0; i < count; ++i)
        {
            if (rng() % 3 == 0)
            {
                d.push_back(d[i]);
            }
        }
        std::shuffle(d.begin(), d.end(), rng);
        ChunkReassembler r(4, 1u << 20);
        std::vector<CompletedMessage> done;
        for (const auto& g : d)
        {
            CompletedMessage m;
            const ChunkResult res = r.Accept(g.data(), g.size(), m);
            ASSERT_NE(res, ChunkResult::Malformed);
            if (res == ChunkResult::Completed)
            {
                done.push_back(std::move(m));
            }
        }
        ASSERT_EQ(done.size(), 1u);
        EXPECT_EQ(done[0].bytes, msg);
        EXPECT_EQ(done[0].key.sender, 3u);
        EXPECT_EQ(done[0].key.messageId, static_cast<uint32_t>(trial));
        EXPECT_EQ(done[0].round, 11u);
        EXPECT_EQ(done[0].chunkCount, count);
        const auto& s = r.Stats();
        EXPECT_EQ(s.accepted, count);
        // Copies before completion are duplicates, copies after it are late.
        EXPECT_EQ(s.duplicate + s.late, d.size() - count);
        EXPECT_EQ(s.malformed, 0u);
        EXPECT_EQ(s.messagesCompleted, 1u);
        EXPECT_EQ(r.OpenCount(), 0u);
        EXPECT_EQ(r.BufferedBytes(), 0u);
        ExpectCountersAddUp(r);
    }
}

TEST(ChunkReassembler, InterleavedMessagesFromSeveralSenders)
{
    Rng rng(5);
    std::map<std::pair<uint32_t, uint32_t>, std::vector<uint8_t>> sent;
    Datagrams all;
    for (uint32_t sender = 0; sender < 6; ++sender)
    {
        for (uint32_t id = 0; id < 3; ++id)
        {
            auto msg = RandomBytes(500 + 997 * id + sender, sender * 10 + id);
            const auto d = Fragment(msg.data(), msg.size(), id, sender, id, 300);
            all.insert(all.end(), d.begin(), d.end());
            sent[{sender, id}] = std::move(msg);
        }
    }
    std::shuffle(all.begin(), all.end(), rng);
    ChunkReassembler r(18, 1u << 16);
    const auto done = FeedAll(r, all);
    ASSERT_EQ(done.size(), sent.size());
    for (const auto& m : done)
    {
        EXPECT_EQ(m.bytes, (sent.at({m.key.sender, m.key.messageId})));
    }
    EXPECT_EQ(r.Stats().messagesEvicted, 0u);
}

TEST(ChunkReassembler, LossReportsExactlyTheMissingChunksAndRetransmissionCompletes)
{
    Rng rng(77);
    for (int trial = 0; trial < 100; ++trial)
    {
        const std::size_t len = 2000 + rng() % 50000;
        const auto msg = RandomBytes(len, trial);
        const std::size_t maxP = ChunkHeader::kMinChunkPayload + rng() % 1244;
        Datagrams d = Fragment(msg.data(), len, 42, 1, 2, maxP);
        const auto count = static_cast<uint32_t>(d.size());
        std::vector<uint32_t> dropped;
        Datagrams delivered;
        const double lossRate = 0.05 + 0.3 * (trial % 4) / 3.0;
        std::bernoulli_distribution lose(lossRate);
        for (uint32_t i = 0; i < count; ++i)
        {
            if (i != 0 && lose(rng)) // chunk 0 always arrives, so that the message opens
            {
                dropped.push_back(i);
            }
            else
            {
                delivered.push_back(d[i]);
            }
        }
        if (dropped.empty())
        {
            dropped.push_back(count - 1);
            delivered.pop_back();
        }
        std::shuffle(delivered.begin(), delivered.end(), rng);
        ChunkReassembler r(2, 1u << 20);
        ASSERT_TRUE(FeedAll(r, delivered).empty());
        const MessageKey key{1, 42};
        ASSERT_TRUE(r.IsOpen(key));
        EXPECT_EQ(r.MissingChunks(key), dropped);
        // Missing bytes are exactly the dropped chunks' bytes.
        const uint64_t p = (len + count - 1) / count;
        std::vector<IndexRange> expectMissing;
        for (uint32_t i : dropped)
        {
            const std::size_t b = i * p;
            const std::size_t e = std::min<std::size_t>(len, (i + 1) * p);
            if (!expectMissing.empty() && expectMissing.back().end == b)
            {
                expectMissing.back().end = e;
            }
            else
            {
                expectMissing.push_back({b, e});
            }
        }
        EXPECT_EQ(r.MissingByteRanges(key), expectMissing);
        PartialMessage snap;
        ASSERT_TRUE(r.Snapshot(key, snap));
        EXPECT_EQ(snap.chunksReceived, count - dropped.size());
        EXPECT_EQ(snap.ChunksMissing(), dropped.size());
        EXPECT_EQ(snap.missingChunks, AsRanges(dropped));
        EXPECT_EQ(r.MissingChunkRanges(key), AsRanges(dropped));
        EXPECT_EQ(snap.length, len);
        const std::vector<uint8_t> unpacked = Unpacked(snap);
        for (const auto& range : snap.receivedBytes)
        {
            EXPECT_TRUE(std::equal(msg.begin() + range.begin,
                                   msg.begin() + range.end,
                                   unpacked.begin() + range.begin));
        }
        // Selective retransmission of the missing chunks (flagged) completes the message.
        Datagrams resend;
        for (uint32_t i : r.MissingChunks(key))
        {
            resend.emplace_back();
            MakeChunk(msg.data(),
                      len,
                      42,
                      1,
                      2,
                      maxP,
                      i,
                      ChunkHeader::kFlagRetransmission,
                      resend.back());
        }
        std::shuffle(resend.begin(), resend.end(), rng);
        const auto done = FeedAll(r, resend);
        ASSERT_EQ(done.size(), 1u);
        EXPECT_EQ(done[0].bytes, msg);
        EXPECT_FALSE(r.IsOpen(key));
        EXPECT_EQ(r.Stats().lostChunks, 0u);
        ExpectCountersAddUp(r);
    }
}

TEST(ChunkReassembler, CountersForLostLateDuplicateAndMalformed)
{
    const auto msg = RandomBytes(10000, 8);
    const Datagrams d = Fragment(msg.data(), msg.size(), 1, 9, 4, 1000); // 10 chunks
    ChunkReassembler r(8, 1u << 20);
    CompletedMessage m;
    // Chunks 0..6; chunk 3 twice.
    for (int i = 0; i < 7; ++i)
    {
        EXPECT_EQ(r.Accept(d[i].data(), d[i].size(), m), ChunkResult::Accepted);
    }
    EXPECT_EQ(r.Accept(d[3].data(), d[3].size(), m), ChunkResult::Duplicate);
    // Malformed: truncated, a flipped payload bit, a flipped header bit, garbage.
    EXPECT_EQ(r.Accept(d[7].data(), d[7].size() - 1, m), ChunkResult::Malformed);
    EXPECT_EQ(r.LastStatus(), ChunkStatus::BadLength);
    auto bad = d[7];
    bad[500] ^= 0x04;
    EXPECT_EQ(r.Accept(bad.data(), bad.size(), m), ChunkResult::Malformed);
    EXPECT_EQ(r.LastStatus(), ChunkStatus::BadCrc);
    bad = d[7];
    bad[16] ^= 0x01; // round
    EXPECT_EQ(r.Accept(bad.data(), bad.size(), m), ChunkResult::Malformed);
    EXPECT_EQ(r.LastStatus(), ChunkStatus::BadCrc);
    EXPECT_EQ(r.Accept(d[7].data(), 10, m), ChunkResult::Malformed);
    EXPECT_EQ(r.LastStatus(), ChunkStatus::TooShort);
    EXPECT_EQ(r.Accept(nullptr, 0, m), ChunkResult::Malformed);
    // A valid chunk of the same message id announcing another round is inconsistent.
    std::vector<uint8_t> other;
    MakeChunk(msg.data(), msg.size(), 1, 9, 5, 1000, 8, 0, other);
    EXPECT_EQ(r.Accept(other.data(), other.size(), m), ChunkResult::Malformed);
    EXPECT_EQ(r.LastStatus(), ChunkStatus::Inconsistent);
    // Abandon: chunks 7, 8, 9 are lost; later chunks are late.
    PartialMessage p;
    ASSERT_TRUE(r.Abandon({9, 1}, &p));
    EXPECT_EQ(p.missingChunks, (std::vector<IndexRange>{{7, 10}}));
    EXPECT_EQ(p.ChunksMissing(), 3u);
    EXPECT_EQ(p.receivedBytes, (std::vector<IndexRange>{{0, 7000}}));
    EXPECT_EQ(p.length, msg.size());
    ASSERT_EQ(p.receivedData.size(), 7000u); // packed: only what arrived
    EXPECT_TRUE(std::equal(msg.begin(), msg.begin() + 7000, p.receivedData.begin()));
    EXPECT_FALSE(r.Abandon({9, 1}));
    EXPECT_EQ(r.Accept(d[8].data(), d[8].size(), m), ChunkResult::Late);
    EXPECT_EQ(r.Accept(d[0].data(), d[0].size(), m), ChunkResult::Late);
    // A completed message: its repeated chunks are late too.
    const Datagrams d2 = Fragment(msg.data(), 3000, 2, 9, 4, 1000);
    EXPECT_EQ(FeedAll(r, d2).size(), 1u);
    EXPECT_EQ(r.Accept(d2[1].data(), d2[1].size(), m), ChunkResult::Late);

    const auto& s = r.Stats();
    EXPECT_EQ(s.accepted, 7u + 3u);
    EXPECT_EQ(s.duplicate, 1u);
    EXPECT_EQ(s.malformed, 6u);
    EXPECT_EQ(s.crcErrors, 2u);
    EXPECT_EQ(s.inconsistent, 1u);
    EXPECT_EQ(s.late, 3u);
    EXPECT_EQ(s.lostChunks, 3u);
    EXPECT_EQ(s.messagesAbandoned, 1u);
    EXPECT_EQ(s.messagesCompleted, 1u);
    ExpectCountersAddUp(r);
}

TEST(ChunkReassembler, BoundedOpenMessagesEvictTheOldest)
{
    ChunkReassembler r(3, 1u << 16, 100);
    const auto msg = RandomBytes(4000, 1);
    CompletedMessage m;
    std::vector<Datagrams> d;
    for (uint32_t id = 0; id < 5; ++id)
    {
        d.push_back(Fragment(msg.data(), msg.size(), id, 1, 0, 1000)); // 4 chunks each
        EXPECT_EQ(r.Accept(d[id][0].data(), d[id][0].size(), m), ChunkResult::Accepted);
        EXPECT_LE(r.OpenCount(), 3u);
        EXPECT_LE(r.BufferedBytes(), 3u * 4000u);
    }
    // Messages 0 and 1 were evicted (3 chunks lost each); 2, 3, 4 remain, oldest first.
    EXPECT_EQ(r.Stats().messagesEvicted, 2u);
    EXPECT_EQ(r.Stats().lostChunks, 6u);
    const auto open = r.OpenMessages();
    ASSERT_EQ(open.size(), 3u);
    EXPECT_EQ(open[0].messageId, 2u);
    EXPECT_EQ(open[2].messageId, 4u);
    EXPECT_EQ(r.Accept(d[0][1].data(), d[0][1].size(), m), ChunkResult::Late);
    // Single-chunk messages complete without taking an open slot.
    const auto small = Fragment(msg.data(), 100, 99, 1, 0, 1000);
    EXPECT_EQ(r.Accept(small[0].data(), small[0].size(), m), ChunkResult::Completed);
    EXPECT_EQ(r.OpenCount(), 3u);
    // The closed history is bounded too.
    for (uint32_t id = 1000; id < 1300; ++id)
    {
        const auto one = Fragment(msg.data(), 10, id, 2, 0, 1000);
        r.Accept(one[0].data(), one[0].size(), m);
        EXPECT_LE(r.ClosedCount(), 100u);
    }
    ExpectCountersAddUp(r);
}

TEST(ChunkReassembler, ExpireIdleMessages)
{
    ChunkReassembler r(10, 1u << 16);
    const auto msg = RandomBytes(3000, 2);
    const auto a = Fragment(msg.data(), msg.size(), 1, 1, 0, 1000);
    const auto b = Fragment(msg.data(), msg.size(), 2, 1, 0, 1000);
    CompletedMessage m;
    r.Accept(a[0].data(), a[0].size(), m, 1.0);
    r.Accept(b[0].data(), b[0].size(), m, 1.5);
    r.Accept(b[2].data(), b[2].size(), m, 2.5);
    std::vector<PartialMessage> expired;
    EXPECT_EQ(r.ExpireIdle(2.0, &expired), 1u); // a: last chunk at 1.0
    ASSERT_EQ(expired.size(), 1u);
    EXPECT_EQ(expired[0].key.messageId, 1u);
    EXPECT_EQ(expired[0].missingChunks, (std::vector<IndexRange>{{1, 3}}));
    EXPECT_TRUE(r.IsOpen({1, 2}));
    EXPECT_EQ(r.ExpireIdle(3.0), 1u);
    EXPECT_EQ(r.OpenCount(), 0u);
    EXPECT_EQ(r.Stats().lostChunks, 3u);
    EXPECT_EQ(r.Stats().messagesAbandoned, 2u);
}

TEST(CoordinateRanges, ByteRangesMapToWholeElements)
{
    // 10 elements of 4 bytes after a 6-byte prefix: element i = bytes [6 + 4i, 10 + 4i).
    const std::vector<IndexRange> got = {{0, 14}, {20, 31}, {38, 46}};
    EXPECT_EQ(ReceivedCoordinateRanges(got, 6, 4, 10),
              (std::vector<IndexRange>{{0, 2}, {4, 6}, {8, 10}}));
    EXPECT_EQ(MissingCoordinateRanges(got, 6, 4, 10), (std::vector<IndexRange>{{2, 4}, {6, 8}}));
    // Unsorted, overlapping and adjacent input is merged first.
    const std::vector<IndexRange> messy = {{30, 46}, {6, 12}, {10, 18}, {18, 30}};
    EXPECT_EQ(ReceivedCoordinateRanges(messy, 6, 4, 10), (std::vector<IndexRange>{{0, 10}}));
    EXPECT_TRUE(MissingCoordinateRanges(messy, 6, 4, 10).empty());
    EXPECT_EQ(MissingCoordinateRanges({}, 6, 4, 10), (std::vector<IndexRange>{{0, 10}}));
    // Bytes beyond the last element are ignored.
    EXPECT_EQ(ReceivedCoordinateRanges({{40, 1000}}, 6, 4, 10), (std::vector<IndexRange>{{9, 10}}));
    EXPECT_TRUE(RangesCover(got, 0, 14));
    EXPECT_FALSE(RangesCover(got, 0, 15));
    EXPECT_TRUE(RangesCover(messy, 6, 46));
    EXPECT_THROW(ReceivedCoordinateRanges(got, 0, 0, 10), ConfigError);
}

TEST(CoordinateRanges, KeepPreviousValuesForMissingCoordinates)
{
    // A model message fragmented, some chunks lost: the coordinates whose bytes all arrived
    // decode to the sent values; the others are exactly those touching a lost chunk.
    Rng rng(31);
    for (WireEncoding enc : {WireEncoding::Float32, WireEncoding::Float16, WireEncoding::Int8})
    {
        const std::size_t n = 5000;
        Eigen::VectorXf w(static_cast<Eigen::Index>(n));
        for (auto& x : w)
        {
            x = std::normal_distribution<float>(0.0f, 1.0f)(rng);
        }
        // A model message header's worth of bytes, then the encoded payload.
        std::vector<uint8_t> msg(MessageHeader::kSize + EncodedSize(enc, n), 0xAA);
        Rng q(1);
        EncodePayload(ParamVector(w), enc, &q, msg.data() + MessageHeader::kSize);
        Rng q2(1);
        std::vector<uint8_t> full(EncodedSize(enc, n));
        EncodePayload(ParamVector(w), enc, &q2, full.data());
        const ParamVector sent = DecodePayload(enc, full.data(), n, Precision::Float32);

        const std::size_t maxP = 333; // not a multiple of any element size
        const auto d = Fragment(msg.data(), msg.size(), 5, 2, 1, maxP);
        std::set<uint32_t> lost = {2, 3, 7, static_cast<uint32_t>(d.size() - 1)};
        ChunkReassembler r(1, 1u << 20);
        CompletedMessage m;
        for (uint32_t i = 0; i < d.size(); ++i)
        {
            if (!lost.count(i))
            {
                r.Accept(d[i].data(), d[i].size(), m);
            }
        }
        PartialMessage p;
        ASSERT_TRUE(r.Abandon({2, 5}, &p));
        const std::size_t off = MessageHeader::kSize + WireDataOffset(enc);
        const std::size_t eb = WireElementBytes(enc);
        ASSERT_TRUE(RangesCover(p.receivedBytes, 0, off)); // header and int8 scale arrived
        const auto received = ReceivedCoordinateRanges(p.receivedBytes, off, eb, n);
        const auto missing = MissingCoordinateRanges(p.receivedBytes, off, eb, n);
        // Decode the partial payload, keep "previous" values (here: 1000) where missing.
        const std::vector<uint8_t> unpacked = Unpacked(p);
        ParamVector got =
            DecodePayload(enc, unpacked.data() + MessageHeader::kSize, n, Precision::Float32);
        for (const auto& rg : missing)
        {
            got.Get<float>()
                .segment(static_cast<Eigen::Index>(rg.begin),
                         static_cast<Eigen::Index>(rg.end - rg.begin))
                .setConstant(1000.0f);
        }
        const std::size_t chunkSize = (msg.size() + d.size() - 1) / d.size();
        for (std::size_t i = 0; i < n; ++i)
        {
            const std::size_t b = off + i * eb;
            const std::size_t e = b + eb;
            bool touchesLost = false;
            for (uint32_t c : lost)
            {
                touchesLost |= b < (c + 1) * chunkSize && e > c * chunkSize;
            }
            const bool isMissing =
                std::any_of(missing.begin(), missing.end(), [&](const IndexRange& rg) {
                    return rg.begin <= i && i < rg.end;
                });
            const bool isReceived =
                std::any_of(received.begin(), received.end(), [&](const IndexRange& rg) {
                    return rg.begin <= i && i < rg.end;
                });
            ASSERT_EQ(isMissing, touchesLost) << WireEncodingName(enc) << " element " << i;
            ASSERT_NE(isMissing, isReceived);
            ASSERT_EQ(got.At(i), isMissing ? 1000.0 : sent.At(i)) << i;
        }
    }
}

TEST(ChunkReassembler, FuzzRandomAndTruncatedDatagramsNeverDeliver)
{
    Rng rng(2024);
    const std::size_t maxOpen = 8;
    const uint32_t maxBytes = 1u << 16;
    ChunkReassembler r(maxOpen, maxBytes, 64);
    std::uniform_int_distribution<std::size_t> len(0, 2000);
    const auto msg = RandomBytes(20000, 5);
    const auto valid = Fragment(msg.data(), msg.size(), 1, 1, 1, 1000);
    CompletedMessage m;
    for (int i = 0; i < 20000; ++i)
    {
        std::vector<uint8_t> g;
        switch (i % 4)
        {
        case 0: // random bytes
            g.resize(len(rng));
            for (auto& b : g)
            {
                b = static_cast<uint8_t>(rng());
            }
            break;
        case 1: // random bytes behind a plausible header prefix
            g.resize(40 + len(rng));
            for (auto& b : g)
            {
                b = static_cast<uint8_t>(rng());
            }
            std::memcpy(g.data(), "FLC1", 4);
            g[4] = 1;
            g[5] = static_cast<uint8_t>(rng() % 2);
            g[6] = g[7] = 0;
            break;
        case 2: { // a truncated valid chunk
            const auto& v = valid[rng() % valid.size()];
            g.assign(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(rng() % v.size()));
            break;
        }
        default: { // a valid chunk with trailing bytes
            const auto& v = valid[rng() % valid.size()];
            g = v;
            g.resize(v.size() + 1 + rng() % 10, 0);
        }
        }
        ASSERT_EQ(r.Accept(g.data(), g.size(), m), ChunkResult::Malformed) << i;
        ASSERT_LE(r.OpenCount(), maxOpen);
        ASSERT_LE(r.BufferedBytes(), maxOpen * maxBytes);
    }
    EXPECT_EQ(r.Stats().malformed, 20000u);
    EXPECT_EQ(r.Stats().messagesCompleted, 0u);
    EXPECT_EQ(r.OpenCount(), 0u);
}

TEST(ChunkReassembler, FuzzMutatedChunksDeliverOnlyOriginalMessages)
{
    Rng rng(99);
    std::vector<std::vector<uint8_t>> msgs;
    Datagrams all;
    for (uint32_t id = 0; id < 20; ++id)
    {
        msgs.push_back(RandomBytes(1 + (id * 7919) % 12000, 300 + id));
        const auto d = Fragment(msgs.back().data(), msgs.back().size(), id, 4, id, 700);
        all.insert(all.end(), d.begin(), d.end());
    }
    std::uniform_int_distribution<int> op(0, 4);
    const std::size_t maxOpen = 6;
    const uint32_t maxBytes = 1u << 14;
    uint64_t delivered = 0;
    for (int trial = 0; trial < 30; ++trial)
    {
        ChunkReassembler r(maxOpen, maxBytes, 32);
        Datagrams d = all;
        std::shuffle(d.begin(), d.end(), rng);
        std::size_t mutated = 0;
        for (auto& g : d)
        {
            if (rng() % 4 != 0)
            {
                continue; // three quarters stay intact
            }
            ++mutated;
            switch (op(rng))
            {
            case 0: // overwrite one byte with a different value
                g[rng() % g.size()] ^= static_cast<uint8_t>(1 + rng() % 255);
                break;
            case 1: // flip one bit in the header
                g[rng() % ChunkHeader::kSize] ^= static_cast<uint8_t>(1u << (rng() % 8));
                break;
            case 2: // truncate
                g.resize(rng() % g.size());
                break;
            case 3: // extend
                g.push_back(static_cast<uint8_t>(rng()));
                break;
            default: // several random bytes
                for (int k = 0; k < 8; ++k)
                {
                    g[rng() % g.size()] = static_cast<uint8_t>(rng());
                }
            }
        }
        // Add duplicates and random junk.
        for (int k = 0; k < 50; ++k)
        {
            d.push_back(d[rng() % d.size()]);
            d.push_back(RandomBytes(rng() % 800, rng()));
        }
        std::shuffle(d.begin(), d.end(), rng);
        CompletedMessage m;
        for (const auto& g : d)
        {
            if (r.Accept(g.data(), g.size(), m) == ChunkResult::Completed)
            {
                ++delivered;
                ASSERT_EQ(m.key.sender, 4u);
                ASSERT_LT(m.key.messageId, msgs.size());
                ASSERT_EQ(m.bytes, msgs[m.key.messageId]) << "a corrupted message was delivered";
                ASSERT_EQ(m.round, m.key.messageId);
            }
            ASSERT_LE(r.OpenCount(), maxOpen);
            ASSERT_LE(r.BufferedBytes(), maxOpen * maxBytes);
            ASSERT_LE(r.ClosedCount(), 32u);
        }
        EXPECT_GE(r.Stats().malformed, mutated / 2);
        ExpectCountersAddUp(r);
    }
    EXPECT_GT(delivered, 0u);
}

TEST(ChunkReassembler, FuzzValidChunksWithRandomFieldsKeepMemoryBounded)
{
    // Datagrams with correct CRCs and sizes but arbitrary ids, counts and lengths: the deepest
    // validation path. Whatever they open, memory stays within the configured bounds.
    Rng rng(4);
    const std::size_t maxOpen = 16;
    const uint32_t maxBytes = 1u << 15;
    ChunkReassembler r(maxOpen, maxBytes, 128);
    CompletedMessage m;
    for (int i = 0; i < 20000; ++i)
    {
        const uint32_t length = static_cast<uint32_t>(rng() % (2 * maxBytes));
        const uint32_t count = 1 + static_cast<uint32_t>(rng() % 40);
        const uint32_t index = static_cast<uint32_t>(rng() % (count + 1)); // sometimes invalid
        ChunkHeader h;
        h.messageId = static_cast<uint32_t>(rng() % 64);
        h.sender = static_cast<uint32_t>(rng() % 3);
        h.round = static_cast<uint32_t>(rng() % 2);
        h.index = index;
        h.count = count;
        h.messageLength = length;
        const uint64_t p = count ? (uint64_t{length} + count - 1) / count : 0;
        uint64_t size =
            index + 1 < count ? p : length - std::min<uint64_t>(length, (count - 1) * p);
        if (rng() % 5 == 0)
        {
            size = rng() % 3000; // sometimes a wrong size
        }
        h.payloadLength = static_cast<uint32_t>(size);
        std::vector<uint8_t> g(ChunkHeader::kSize + size);
        for (std::size_t k = ChunkHeader::kSize; k < g.size(); ++k)
        {
            g[k] = static_cast<uint8_t>(rng());
        }
        h.Write(g.data());
        std::vector<uint8_t> covered(g.begin(), g.begin() + 36);
        covered.insert(covered.end(), g.begin() + 40, g.end());
        h.crc = Crc32(covered.data(), covered.size());
        h.Write(g.data());
        const ChunkResult res = r.Accept(g.data(), g.size(), m);
        if (res == ChunkResult::Completed)
        {
            ASSERT_LE(m.bytes.size(), maxBytes);
        }
        ASSERT_LE(r.OpenCount(), maxOpen);
        ASSERT_LE(r.BufferedBytes(), maxOpen * maxBytes);
        ASSERT_LE(r.ClosedCount(), 128u);
        if (i % 997 == 0)
        {
            for (const auto& k : r.OpenMessages())
            {
                const auto ranges = r.ReceivedByteRanges(k);
                const auto missing = r.MissingChunks(k);
                ASSERT_FALSE(missing.empty());
            }
        }
    }
    ExpectCountersAddUp(r);
    EXPECT_GT(r.Stats().accepted, 0u);
    EXPECT_GT(r.Stats().malformed, 0u);
}

// A crafted 41-byte chunk (one payload byte) declaring a 256 MiB message of 2^28 one-byte
// chunks: under a bound below its declared size it is rejected as TooLarge, under any bound as
// TooManyChunks (2^28 chunks of a 2^28-byte message are below the minimum chunk payload), before
// anything is allocated.
TEST(ChunkReassembler, CraftedDatagramDeclaringHugeChunkCountIsRejected)
{
    const char* hex = "464c43310100000001000000090000000100000000000000000000100000001001000000"
                      "ce2820c700";
    std::vector<uint8_t> d;
    for (std::size_t i = 0; hex[i] != '\0'; i += 2)
    {
        d.push_back(static_cast<uint8_t>(std::stoul(std::string(hex + i, 2), nullptr, 16)));
    }
    ASSERT_EQ(d.size(), 41u);
    CompletedMessage out;
    {
        ChunkReassembler r(4, 64u * 1024u * 1024u);
        EXPECT_EQ(r.Accept(d.data(), d.size(), out), ChunkResult::Malformed);
        EXPECT_EQ(r.LastStatus(), ChunkStatus::TooLarge);
        EXPECT_EQ(r.OpenCount(), 0u);
        EXPECT_EQ(r.BufferedBytes(), 0u);
    }
    ChunkReassembler r(4, 0xFFFFFFFFu);
    EXPECT_EQ(r.Accept(d.data(), d.size(), out), ChunkResult::Malformed);
    EXPECT_EQ(r.LastStatus(), ChunkStatus::TooManyChunks);
    EXPECT_EQ(r.Stats().tooManyChunks, 1u);
    EXPECT_EQ(r.OpenCount(), 0u);
    EXPECT_EQ(r.BufferedBytes(), 0u);
    // The count rule: at most ceil(L / 256) chunks; one more is rejected.
    EXPECT_EQ(MaxChunkCount(0), 1u);
    EXPECT_EQ(MaxChunkCount(1), 1u);
    EXPECT_EQ(MaxChunkCount(256), 1u);
    EXPECT_EQ(MaxChunkCount(257), 2u);
    EXPECT_EQ(MaxChunkCount(0xFFFFFFFFu), 16777216u);
    ChunkHeader h;
    const auto two = ForgeChunk(1, 1, 1, 2, 300, std::vector<uint8_t>(150, 7));
    EXPECT_EQ(ParseChunk(two.data(), two.size(), 1u << 20, h), ChunkStatus::Ok);
    const auto three = ForgeChunk(1, 1, 2, 3, 300, std::vector<uint8_t>(100, 7));
    EXPECT_EQ(ParseChunk(three.data(), three.size(), 1u << 20, h), ChunkStatus::TooManyChunks);
}

// The same attack within the count rule: a forged 41-byte chunk, the last of a message as long
// as the receiver's bound for a 1M-parameter float64 model allows (bound 8,004,132 bytes; the
// message 8,004,097 bytes: 31,266 chunks of 256 bytes and a last one of 1 byte). The receiver
// accepts it and, when the message is abandoned with a partial result (keep-previous), holds
// what arrived (one byte, one received range, one missing-chunk range) instead of a buffer of
// the declared 8 MB and a list of every missing index (before the count rule, the same datagram
// declaring 8,004,132 one-byte chunks made it 8 MB plus a 32 MB list).
TEST(ChunkReassembler, ForgedChunkDeclaringLargeMessageHoldsOnlyWhatArrived)
{
    const uint32_t bound = MessageHeader::kSize + 8u * 1000000u + 4096u;
    const uint32_t count = 31267;
    const uint32_t length = 256u * (count - 1) + 1;
    ASSERT_LE(length, bound);
    ASSERT_EQ(MaxChunkCount(length), count);
    const auto forged = ForgeChunk(9, 1, count - 1, count, length, {0x5A});
    ASSERT_EQ(forged.size(), 41u);
    ChunkReassembler r(4, bound);
    CompletedMessage out;
    ASSERT_EQ(r.Accept(forged.data(), forged.size(), out), ChunkResult::Accepted);
    const MessageKey key{9, 1};
    EXPECT_EQ(r.BufferedBytes(), 1u);
    EXPECT_EQ(r.ReceivedByteRanges(key), (std::vector<IndexRange>{{length - 1, length}}));
    EXPECT_EQ(r.MissingByteRanges(key), (std::vector<IndexRange>{{0, length - 1}}));
    EXPECT_EQ(r.MissingChunkRanges(key), (std::vector<IndexRange>{{0, count - 1}}));
    // The index list for a NACK is bounded by default and on request.
    EXPECT_EQ(r.MissingChunks(key).size(), ChunkReassembler::kDefaultMaxMissing);
    EXPECT_EQ(r.MissingChunks(key, 10).size(), 10u);

    PartialMessage snap;
    ASSERT_TRUE(r.Snapshot(key, snap));
    EXPECT_EQ(snap.receivedData, (std::vector<uint8_t>{0x5A}));
    EXPECT_LE(snap.HeldBytes(), 64u);

    PartialMessage p;
    ASSERT_TRUE(r.Abandon(key, &p));
    EXPECT_EQ(p.length, length);
    EXPECT_EQ(p.chunkCount, count);
    EXPECT_EQ(p.chunksReceived, 1u);
    EXPECT_EQ(p.ChunksMissing(), count - 1);
    EXPECT_EQ(p.receivedData.size(), 1u);
    EXPECT_EQ(p.receivedBytes.size(), 1u);
    EXPECT_EQ(p.missingChunks, (std::vector<IndexRange>{{0, count - 1}}));
    EXPECT_LE(p.HeldBytes(), 64u) << "bytes held for a forged 41-byte chunk";
    EXPECT_EQ(r.Stats().lostChunks, count - 1u);
    EXPECT_EQ(r.BufferedBytes(), 0u);

    // Many forged chunks at once: the reassembler holds maxOpen messages of one byte each.
    ChunkReassembler many(4, bound);
    for (uint32_t id = 0; id < 1000; ++id)
    {
        const auto g = ForgeChunk(9, id, count - 1, count, length, {1});
        ASSERT_EQ(many.Accept(g.data(), g.size(), out), ChunkResult::Accepted);
        ASSERT_LE(many.BufferedBytes(), 4u);
        ASSERT_LE(many.OpenCount(), 4u);
    }
    std::vector<PartialMessage> expired;
    EXPECT_EQ(many.ExpireIdle(1.0, &expired), 4u);
    for (const PartialMessage& e : expired)
    {
        EXPECT_LE(e.HeldBytes(), 64u);
    }
}

// Missing-chunk ranges stay proportional to the chunks received, whatever their pattern.
TEST(ChunkReassembler, MissingChunkRangesAreBoundedByTheChunksReceived)
{
    const auto msg = RandomBytes(100 * 256, 3);
    const Datagrams d = Fragment(msg.data(), msg.size(), 1, 2, 3, 256); // 100 chunks
    ChunkReassembler r(1, 1u << 20);
    CompletedMessage m;
    std::vector<uint32_t> missing;
    for (uint32_t i = 0; i < 100; ++i)
    {
        if (i % 3 == 1)
        {
            r.Accept(d[i].data(), d[i].size(), m);
        }
        else
        {
            missing.push_back(i);
        }
    }
    PartialMessage p;
    ASSERT_TRUE(r.Snapshot({2, 1}, p));
    EXPECT_EQ(p.missingChunks, AsRanges(missing));
    EXPECT_LE(p.missingChunks.size(), p.chunksReceived + 1u);
    EXPECT_EQ(p.receivedBytes.size(), p.chunksReceived);
    EXPECT_EQ(p.receivedData.size(), 256u * p.chunksReceived);
    EXPECT_EQ(r.MissingChunks({2, 1}), missing);
}

// What one NACK datagram says was received (the sender times the NACK from the latest of those
// chunks): by hand, for messages of 10 and 5 chunks.
TEST(ChunkFeedback, HighestReceivedChunkFromOneNack)
{
    uint32_t h = 99;
    // the tail 6..9 lost, the whole message's indices fit one NACK (10): 0..5 arrived
    EXPECT_TRUE(HighestReceivedChunk({6, 7, 8, 9}, 10, 10, 10, h));
    EXPECT_EQ(h, 5u);
    // with at most 4 indices per NACK a message of 10 chunks may need more NACKs: this full
    // one may be neither the first nor the last of its batch, and has no gap
    h = 99;
    EXPECT_FALSE(HighestReceivedChunk({6, 7, 8, 9}, 10, 10, 4, h));
    EXPECT_EQ(h, 99u);
    // ... nor has a NACK of 4 that may not be the first of its batch (at most 5 per NACK)
    EXPECT_FALSE(HighestReceivedChunk({6, 7, 8, 9}, 10, 10, 5, h));
    // a gap inside the list: 4, 5, 7 and 8 arrived
    EXPECT_TRUE(HighestReceivedChunk({2, 3, 6, 9}, 10, 10, 4, h));
    EXPECT_EQ(h, 8u);
    // ... of which only chunks 0..6 had been sent: 5
    EXPECT_TRUE(HighestReceivedChunk({2, 3, 6, 9}, 10, 7, 4, h));
    EXPECT_EQ(h, 5u);
    // fewer than 4 indices: the last NACK of its batch, so 7..9 arrived
    EXPECT_TRUE(HighestReceivedChunk({2, 6}, 10, 10, 4, h));
    EXPECT_EQ(h, 9u);
    // ... of which only chunks 0..7 had been sent: 7
    EXPECT_TRUE(HighestReceivedChunk({2, 6}, 10, 8, 4, h));
    EXPECT_EQ(h, 7u);
    // nothing but the lost tail of the chunks sent: nothing known to have arrived
    EXPECT_FALSE(HighestReceivedChunk({0, 1, 2}, 10, 3, 4, h));
    // below the first index only when the whole message fits one NACK
    EXPECT_TRUE(HighestReceivedChunk({3, 4}, 5, 5, 5, h)); // 0..2
    EXPECT_EQ(h, 2u);
    EXPECT_TRUE(HighestReceivedChunk({3, 4}, 5, 2, 5, h)); // 0..1 sent
    EXPECT_EQ(h, 1u);
    EXPECT_FALSE(HighestReceivedChunk({3, 4}, 5, 5, 4, h));
    EXPECT_FALSE(HighestReceivedChunk({0, 1, 2, 3}, 5, 5, 4, h));
    EXPECT_FALSE(HighestReceivedChunk({}, 5, 5, 4, h));
    EXPECT_FALSE(HighestReceivedChunk({3}, 5, 0, 4, h));
}
