/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The libFuzzer harnesses of every decoder (fl-fuzz-targets.h), one after the other. (Just over
 * 1,000 lines: each harness is short, and utils/fuzz.sh and test-fuzz-corpus build them together.)
 */
#include "fl-fuzz-targets.h"

#include "ns3/chunk-feedback.h"
#include "ns3/chunking.h"
#include "ns3/data-io.h"
#include "ns3/ega-mlp-codec.h"
#include "ns3/ega-uplink-codec.h"
#include "ns3/message-reassembler.h"
#include "ns3/model-message.h"
#include "ns3/neighbour-discovery.h"
#include "ns3/partial-message.h"
#include "ns3/rank-partition.h"
#include "ns3/secagg-wire.h"
#include "ns3/secagg-primitives.h"
#include "ns3/text-parse.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <sys/mman.h>
#include <unistd.h>
#include <zlib.h>

namespace ns3
{
namespace fl
{
namespace fuzz
{

namespace
{

/// Largest payload / message the harnesses' receivers accept (small keeps runs fast).
constexpr uint32_t kMaxBytes = 64u * 1024u;

void
Check(bool ok, const char* promise)
{
    if (!ok)
    {
        throw FuzzInvariantError(promise);
    }
}

void
PutLe32(uint8_t* p, uint32_t v)
{
    for (int i = 0; i < 4; ++i)
    {
        p[i] = static_cast<uint8_t>(v >> (8 * i));
    }
}

/// zlib CRC-32 of a, then b.
uint32_t
Crc2(const uint8_t* a, std::size_t na, const uint8_t* b, std::size_t nb)
{
    uLong c = crc32(0L, a, static_cast<uInt>(na));
    return static_cast<uint32_t>(crc32(c, b, static_cast<uInt>(nb)));
}

/// Rewrites the CRCs of a model message: the message CRC (header bytes 0..27, then the
/// payload), then the header CRC (bytes 0..31).
void
FixMessageCrc(std::vector<uint8_t>& m)
{
    if (m.size() >= MessageHeader::kSize)
    {
        PutLe32(
            m.data() + 28,
            Crc2(m.data(), 28, m.data() + MessageHeader::kSize, m.size() - MessageHeader::kSize));
        PutLe32(m.data() + 32, Crc2(m.data(), 32, nullptr, 0));
    }
}

/// Rewrites the CRC of a chunk datagram (header bytes 0..35, then the payload).
void
FixChunkCrc(std::vector<uint8_t>& d)
{
    if (d.size() >= ChunkHeader::kSize)
    {
        PutLe32(d.data() + 36,
                Crc2(d.data(), 36, d.data() + ChunkHeader::kSize, d.size() - ChunkHeader::kSize));
    }
}

/// Splits records of a 2-byte little-endian length and that many bytes (the last may be short).
std::vector<std::vector<uint8_t>>
Records(const uint8_t* data, std::size_t size)
{
    std::vector<std::vector<uint8_t>> out;
    std::size_t pos = 0;
    while (pos + 2 <= size)
    {
        const std::size_t len = data[pos] | (std::size_t(data[pos + 1]) << 8);
        pos += 2;
        const std::size_t take = std::min(len, size - pos);
        out.emplace_back(data + pos, data + pos + take);
        pos += take;
    }
    return out;
}

/// The fields of a header other than its payload.
MessageAddress
AddressOf(const MessageHeader& h)
{
    return MessageAddress{h.kind, h.round, h.sender, h.receiver, h.aux};
}

/// Checks a delivered message against its header.
void
CheckDelivered(const ReceivedMessage& m)
{
    const MessageHeader& h = m.header;
    if (h.raw)
    {
        Check(m.raw.size() == h.count && m.params.Size() == 0, "raw message: count raw bytes");
    }
    else
    {
        Check(m.raw.empty() && m.params.Size() == h.count, "model message: count values");
    }
}

/**
 * A file whose contents are `bytes`, with a path the IDX reader can open (a memfd seen through
 * /proc/self/fd): no disk I/O, nothing left behind.
 */
class MemFile
{
  public:
    MemFile(const uint8_t* bytes, std::size_t size)
    {
        m_fd = memfd_create("fl-fuzz", MFD_CLOEXEC);
        Check(m_fd >= 0, "memfd_create works");
        std::size_t done = 0;
        while (done < size)
        {
            const ssize_t n = write(m_fd, bytes + done, size - done);
            Check(n > 0, "memfd write works");
            done += static_cast<std::size_t>(n);
        }
        m_path = "/proc/self/fd/" + std::to_string(m_fd);
    }

    ~MemFile()
    {
        close(m_fd);
    }

    MemFile(const MemFile&) = delete;
    MemFile& operator=(const MemFile&) = delete;

    const std::string& Path() const
    {
        return m_path;
    }

  private:
    int m_fd{-1};
    std::string m_path;
};

} // namespace

int
FuzzModelMessage(const uint8_t* data, std::size_t size)
{
    if (size == 0)
    {
        return 0;
    }
    std::vector<uint8_t> msg(data + 1, data + size);
    if (data[0] & 1)
    {
        FixMessageCrc(msg);
    }
    MessageHeader h;
    const bool headerOk = msg.size() >= MessageHeader::kSize &&
                          ParseHeader(msg.data(), kMaxBytes, h) == HeaderStatus::Ok;
    for (Precision to : {Precision::Float64, Precision::Float32})
    {
        ReceivedMessage m;
        const MessageDecodeStatus st = DecodeWholeMessage(msg.data(), msg.size(), to, kMaxBytes, m);
        if (st != MessageDecodeStatus::Ok)
        {
            continue;
        }
        Check(headerOk, "a decoded message has a valid header");
        Check(msg.size() == MessageHeader::kSize + m.header.payloadBytes,
              "a decoded message is exactly header + payload bytes");
        CheckDelivered(m);
        std::vector<uint8_t> again;
        if (m.header.raw)
        {
            EncodeRawMessage(AddressOf(m.header), m.raw.data(), m.raw.size(), again);
            Check(again == msg, "a raw message re-encodes to the same bytes");
        }
        else if (m.header.count == 0 ||
                 (m.header.encoding == WireEncoding::Float64 && to == Precision::Float64) ||
                 (m.header.encoding == WireEncoding::Float32 && to == Precision::Float32))
        {
            EncodeMessage(AddressOf(m.header), m.params, m.header.encoding, nullptr, again);
            Check(again == msg, "a lossless message re-encodes to the same bytes");
        }
    }
    return 0;
}

int
FuzzStreamReassembler(const uint8_t* data, std::size_t size)
{
    if (size < 2)
    {
        return 0;
    }
    const std::size_t piece = std::size_t(data[0]) + 1;
    // Mode bit 0: the rest is records, each a message whose CRCs are rewritten, concatenated
    // into the stream (so that mutations reach the payloads and the later messages); otherwise
    // the rest is the stream itself.
    std::vector<uint8_t> stream;
    if (data[1] & 1)
    {
        for (std::vector<uint8_t>& m : Records(data + 2, size - 2))
        {
            FixMessageCrc(m);
            stream.insert(stream.end(), m.begin(), m.end());
        }
    }
    else
    {
        stream.assign(data + 2, data + size);
    }
    MessageReassembler r(Precision::Float64, kMaxBytes);
    uint64_t delivered = 0;
    uint64_t deliveredBytes = 0;
    bool failed = false;
    for (std::size_t pos = 0; pos < stream.size(); pos += piece)
    {
        const std::size_t n = std::min(piece, stream.size() - pos);
        r.Push(stream.data() + pos, n);
        Check(!failed || r.Failed(), "a stream stays failed");
        ReceivedMessage m;
        while (r.Pop(m))
        {
            ++delivered;
            deliveredBytes += MessageHeader::kSize + m.header.payloadBytes;
            CheckDelivered(m);
            Check(MessageHeader::kSize + m.header.payloadBytes <= kMaxBytes,
                  "no message above the limit");
        }
        Check(r.Buffered() < kMaxBytes, "held: less than one message once popped");
        if (r.Failed())
        {
            failed = true;
            Check(r.Buffered() == 0, "nothing held after a failed header, once popped");
            Check(r.FailureStatus() != HeaderStatus::Ok, "a failure has a status");
        }
    }
    const ReassemblerStats& s = r.Stats();
    Check(s.bytesIn == stream.size(), "every pushed byte counted");
    Check(s.messages == delivered, "every delivered message counted");
    Check(s.malformedHeaders == (r.Failed() ? 1u : 0u), "at most one failed header");
    Check(s.oldVersionHeaders + s.headerCrcErrors + s.tooLarge <= s.malformedHeaders,
          "header failures add up");
    Check(s.peakBuffered <= kMaxBytes + piece, "peak held: one message and one push");
    Check(deliveredBytes + s.bytesDiscarded + r.Buffered() == s.bytesIn,
          "every byte pushed is delivered, dropped or held");
    return 0;
}

/// The packed bytes of a partial message at their offsets in a zero-filled buffer (its length
/// is at most the harness limit).
std::vector<uint8_t>
Unpacked(const PartialMessage& p)
{
    std::vector<uint8_t> full(p.length, 0);
    std::size_t at = 0;
    for (const IndexRange& x : p.receivedBytes)
    {
        std::memcpy(full.data() + x.begin, p.receivedData.data() + at, x.end - x.begin);
        at += x.end - x.begin;
    }
    return full;
}

/// Checks what a reassembler handed out for a message against its promises: sized by what
/// arrived, consistent ranges, and a packed decode equal to the decode of the same bytes at
/// their offsets.
void
CheckPartial(const PartialMessage& p)
{
    Check(p.chunksReceived >= 1 && p.chunksReceived < p.chunkCount,
          "a partial message misses some but not all chunks");
    Check(p.chunkCount <= MaxChunkCount(p.length), "chunk count within the count rule");
    Check(p.receivedBytes.size() <= p.chunksReceived, "at most one byte range per chunk");
    Check(p.missingChunks.size() <= std::size_t(p.chunksReceived) + 1,
          "missing-chunk ranges bounded by the chunks received");
    std::size_t got = 0;
    std::size_t prevEnd = 0;
    for (const IndexRange& x : p.receivedBytes)
    {
        Check(x.begin < x.end && x.end <= p.length, "received ranges inside the message");
        Check(got == 0 || x.begin > prevEnd, "received ranges sorted, disjoint, not adjacent");
        got += x.end - x.begin;
        prevEnd = x.end;
    }
    Check(got == p.receivedData.size(), "packed data: exactly the received ranges");
    std::size_t missing = 0;
    prevEnd = 0;
    for (const IndexRange& x : p.missingChunks)
    {
        Check(x.begin < x.end && x.end <= p.chunkCount, "missing chunks inside [0, count)");
        Check(missing == 0 || x.begin > prevEnd, "missing chunk ranges sorted and disjoint");
        missing += x.end - x.begin;
        prevEnd = x.end;
    }
    Check(missing == p.ChunksMissing(), "missing chunks add up");
    // Differential: the packed decode and the decode from a buffer with holes agree.
    MessageHeader h;
    std::size_t count = 0;
    if (!p.receivedBytes.empty() && p.receivedBytes[0].begin == 0 &&
        p.receivedBytes[0].end >= MessageHeader::kSize &&
        ParseHeader(p.receivedData.data(), kMaxBytes, h) == HeaderStatus::Ok)
    {
        count = h.raw ? 0 : h.count;
    }
    const ParamVector previous = ParamVector::Zeros(Precision::Float64, count);
    const std::vector<uint8_t> full = Unpacked(p);
    ReceivedMessage a;
    ReceivedMessage b;
    std::size_t ma = 0;
    std::size_t mb = 0;
    const MessageDecodeStatus sa = DecodePackedPartialMessage(p,
                                                              previous,
                                                              Precision::Float64,
                                                              kMaxBytes,
                                                              a,
                                                              &ma);
    const MessageDecodeStatus sb = DecodePartialMessage(full.data(),
                                                        full.size(),
                                                        p.receivedBytes,
                                                        previous,
                                                        Precision::Float64,
                                                        kMaxBytes,
                                                        b,
                                                        &mb);
    Check(sa == sb, "packed and buffer partial decodes agree on the status");
    if (sa == MessageDecodeStatus::Ok)
    {
        Check(ma == mb && a.params == b.params && a.raw == b.raw,
              "packed and buffer partial decodes agree on the values");
    }
}

int
FuzzChunkReassembler(const uint8_t* data, std::size_t size)
{
    if (size == 0)
    {
        return 0;
    }
    constexpr std::size_t kMaxOpen = 4;
    ChunkReassembler r(kMaxOpen, kMaxBytes, 16);
    double now = 0.0;
    for (std::vector<uint8_t>& d : Records(data + 1, size - 1))
    {
        if (data[0] & 1)
        {
            FixChunkCrc(d);
        }
        CompletedMessage done;
        const ChunkResult res = r.Accept(d.data(), d.size(), done, now);
        now += 1.0;
        if (res == ChunkResult::Completed)
        {
            Check(done.bytes.size() <= kMaxBytes, "completed message within the limit");
            Check(!r.IsOpen(done.key), "a completed message is closed");
        }
        if (res != ChunkResult::Malformed)
        {
            ChunkHeader h;
            Check(ParseChunk(d.data(), d.size(), kMaxBytes, h) == ChunkStatus::Ok &&
                      h.count <= MaxChunkCount(h.messageLength),
                  "accepted chunks follow the chunk count rule");
        }
        Check(r.OpenCount() <= kMaxOpen, "open messages bounded");
        Check(r.BufferedBytes() <= kMaxOpen * std::size_t(kMaxBytes), "buffered bytes bounded");
        std::size_t held = 0;
        for (const MessageKey& key : r.OpenMessages())
        {
            PartialMessage p;
            Check(r.Snapshot(key, p), "an open message has a snapshot");
            CheckPartial(p);
            held += p.receivedData.size();
            Check(r.MissingChunkRanges(key) == p.missingChunks,
                  "MissingChunkRanges agrees with the snapshot");
            const std::vector<uint32_t> missing = r.MissingChunks(key);
            Check(!missing.empty() && missing.size() <= ChunkReassembler::kDefaultMaxMissing,
                  "MissingChunks: some, and bounded");
            // The listed indices are the lowest of the missing ranges.
            std::size_t k = 0;
            for (const IndexRange& x : p.missingChunks)
            {
                for (std::size_t i = x.begin; i < x.end && k < missing.size(); ++i, ++k)
                {
                    Check(missing[k] == i, "MissingChunks lists the lowest missing indices");
                }
            }
            Check(k == missing.size(), "MissingChunks agrees with the missing ranges");
            const std::vector<IndexRange> got = r.ReceivedByteRanges(key);
            const std::vector<IndexRange> gap = r.MissingByteRanges(key);
            Check(got == p.receivedBytes, "ReceivedByteRanges agrees with the snapshot");
            std::size_t covered = 0;
            for (const auto& v : {got, gap})
            {
                for (const IndexRange& x : v)
                {
                    Check(x.begin < x.end && x.end <= p.length, "ranges inside the message");
                    covered += x.end - x.begin;
                }
            }
            Check(covered == p.length, "received and missing ranges partition the message");
        }
        Check(held == r.BufferedBytes(), "snapshots hold exactly the buffered bytes");
        if (d.size() > 4 && d[4] == 0xFF)
        {
            r.ExpireIdle(now - 2.0); // some inputs also exercise expiry mid-stream
        }
    }
    std::vector<PartialMessage> partials;
    r.ExpireIdle(std::numeric_limits<double>::infinity(), &partials);
    for (const PartialMessage& p : partials)
    {
        CheckPartial(p);
    }
    Check(r.OpenCount() == 0 && r.BufferedBytes() == 0, "expiry empties the reassembler");
    const ChunkReassemblerStats& s = r.Stats();
    Check(s.datagrams == s.accepted + s.duplicate + s.late + s.malformed,
          "every datagram counted exactly once");
    return 0;
}

int
FuzzFeedback(const uint8_t* data, std::size_t size)
{
    if (size == 0)
    {
        return 0;
    }
    std::vector<uint8_t> d(data + 1, data + size);
    if ((data[0] & 1) && d.size() >= ChunkFeedback::kMinSize)
    {
        PutLe32(d.data() + d.size() - 4, Crc2(d.data(), d.size() - 4, nullptr, 0));
    }
    ChunkFeedback fb;
    const FeedbackStatus st = ParseFeedback(d.data(), d.size(), fb);
    if (st == FeedbackStatus::Ok)
    {
        Check(IsFeedbackDatagram(d.data(), d.size()), "parsed feedback carries the magic");
        Check(FeedbackSize(fb) == d.size(), "FeedbackSize matches the datagram");
        std::vector<uint8_t> again;
        EncodeFeedback(fb, again);
        Check(again == d, "parsed feedback re-encodes to the same bytes");
    }
    return 0;
}

int
FuzzPartialDecode(const uint8_t* data, std::size_t size)
{
    if (size < 2)
    {
        return 0;
    }
    const std::size_t nRanges = data[1] & 0x0F;
    const Precision prevPrecision = (data[1] & 0x10) ? Precision::Float32 : Precision::Float64;
    std::size_t pos = 2;
    std::vector<IndexRange> ranges;
    for (std::size_t i = 0; i < nRanges && pos + 4 <= size; ++i, pos += 4)
    {
        const std::size_t begin = data[pos] | (std::size_t(data[pos + 1]) << 8);
        const std::size_t len = data[pos + 2] | (std::size_t(data[pos + 3]) << 8);
        ranges.push_back({begin, begin + len});
    }
    std::vector<uint8_t> msg(data + pos, data + size);
    if (data[0] & 1)
    {
        FixMessageCrc(msg);
    }
    if (msg.empty())
    {
        return 0;
    }
    // Ranges reaching past the message are clipped (the reassembler never reports them).
    for (IndexRange& x : ranges)
    {
        x.begin = std::min(x.begin, msg.size());
        x.end = std::min(x.end, msg.size());
    }
    // The previous vector has the header's count when the header parses (else the SizeMismatch
    // path is taken with a small vector).
    MessageHeader h;
    const bool headerOk = msg.size() >= MessageHeader::kSize &&
                          ParseHeader(msg.data(), kMaxBytes, h) == HeaderStatus::Ok;
    const std::size_t prevSize = headerOk ? h.count : data[1] >> 5;
    const ParamVector previous = ParamVector::Zeros(prevPrecision, prevSize);

    ReceivedMessage out;
    std::size_t missing = 0;
    const MessageDecodeStatus st = DecodePartialMessage(msg.data(),
                                                        msg.size(),
                                                        ranges,
                                                        previous,
                                                        Precision::Float64,
                                                        kMaxBytes,
                                                        out,
                                                        &missing);
    // The same bytes packed (only the received ranges, merged) decode the same way.
    const std::vector<IndexRange> merged = MergeRanges(ranges);
    std::vector<uint8_t> packed;
    for (const IndexRange& x : merged)
    {
        packed.insert(packed.end(),
                      msg.begin() + static_cast<std::ptrdiff_t>(x.begin),
                      msg.begin() + static_cast<std::ptrdiff_t>(x.end));
    }
    ReceivedMessage outPacked;
    std::size_t missingPacked = 0;
    const MessageDecodeStatus stPacked = DecodePackedPartialMessage(msg.size(),
                                                                    merged,
                                                                    packed.data(),
                                                                    packed.size(),
                                                                    previous,
                                                                    Precision::Float64,
                                                                    kMaxBytes,
                                                                    outPacked,
                                                                    &missingPacked);
    Check(stPacked == st, "packed and buffer partial decodes agree on the status");
    if (st != MessageDecodeStatus::Ok)
    {
        return 0;
    }
    Check(missingPacked == missing && outPacked.params == out.params && outPacked.raw == out.raw,
          "packed and buffer partial decodes agree on the values");
    Check(headerOk, "a partially decoded message has a valid header");
    CheckDelivered(out);
    Check(missing <= out.header.count, "missing coordinates within count");
    if (!out.header.raw)
    {
        const std::size_t offset = MessageHeader::kSize + WireDataOffset(out.header.encoding);
        const std::size_t elem = WireElementBytes(out.header.encoding);
        std::size_t counted = 0;
        for (const auto& v : {ReceivedCoordinateRanges(ranges, offset, elem, h.count),
                              MissingCoordinateRanges(ranges, offset, elem, h.count)})
        {
            for (const IndexRange& x : v)
            {
                Check(x.begin < x.end && x.end <= h.count, "coordinate ranges inside [0, count)");
                counted += x.end - x.begin;
            }
        }
        Check(counted == h.count, "received and missing coordinates partition [0, count)");
    }
    if (RangesCover(ranges, 0, msg.size()))
    {
        Check(missing == 0, "nothing missing when every byte arrived");
        ReceivedMessage whole;
        if (DecodeWholeMessage(msg.data(), msg.size(), Precision::Float64, kMaxBytes, whole) ==
            MessageDecodeStatus::Ok)
        {
            Check(whole.params == out.params && whole.raw == out.raw,
                  "with every byte received the partial decode equals the whole decode");
        }
    }
    return 0;
}

int
FuzzRawPayload(const uint8_t* data, std::size_t size)
{
    const std::vector<uint8_t> bytes(data, data + size);
    std::vector<uint32_t> u;
    Check(UnpackU32(bytes, u) == (size % 4 == 0), "UnpackU32 accepts exactly multiples of 4");
    if (size % 4 == 0)
    {
        Check(PackU32(u) == bytes, "UnpackU32 then PackU32 gives the same bytes");
    }
    std::vector<double> f;
    Check(UnpackF64(bytes, f) == (size % 8 == 0), "UnpackF64 accepts exactly multiples of 8");
    if (size % 8 == 0)
    {
        Check(PackF64(f) == bytes, "UnpackF64 then PackF64 gives the same bytes");
    }
    return 0;
}

int
FuzzIdxReader(const uint8_t* data, std::size_t size)
{
    if (size < 2)
    {
        return 0;
    }
    const std::size_t m = std::min(size - 2, data[0] | (std::size_t(data[1]) << 8));
    const MemFile images(data + 2, m);
    const MemFile labels(data + 2 + m, size - 2 - m);
    for (const MemFile* f : {&images, &labels})
    {
        try
        {
            const IdxArray a = ReadIdx(f->Path());
            std::size_t n = 1;
            for (uint32_t d : a.dims)
            {
                n *= d;
            }
            Check(!a.dims.empty() && a.values.size() == n, "IDX values = product of dims");
        }
        catch (const DataError&)
        {
        }
    }
    try
    {
        const Dataset<float> d = ReadIdxDataset<float>(images.Path(), labels.Path());
        Check(d.numClasses >= 1 && static_cast<std::size_t>(d.numClasses) <= kDefaultMaxClasses,
              "class count within the default bound");
        Check(static_cast<std::size_t>(d.targets.size()) == d.Size() &&
                  static_cast<std::size_t>(d.features.rows()) == d.Size(),
              "one label per sample");
        for (Eigen::Index i = 0; i < d.targets.size(); ++i)
        {
            Check(d.targets[i] >= 0 && d.targets[i] < static_cast<float>(d.numClasses),
                  "labels in 0 .. numClasses-1");
        }
    }
    catch (const DataError&)
    {
    }
    return 0;
}

int
FuzzTextParse(const uint8_t* data, std::size_t size)
{
    const std::string text(reinterpret_cast<const char*>(data), size);
    try
    {
        const double x = ParseDouble(text, "x", -1e6, 1e6);
        Check(std::isfinite(x) && x >= -1e6 && x <= 1e6, "ParseDouble within range");
    }
    catch (const ConfigError&)
    {
    }
    try
    {
        const uint64_t n = ParseUint64(text, "n", 3, 1000000007);
        Check(n >= 3 && n <= 1000000007, "ParseUint64 within range");
    }
    catch (const ConfigError&)
    {
    }
    try
    {
        const uint32_t n = ParseUint32(text, "n32");
        Check(text.find(std::to_string(n)) != std::string::npos,
              "ParseUint32's value is written in the text");
    }
    catch (const ConfigError&)
    {
    }
    const auto isSpace = [](char c) { return c == ' ' || c == '\t'; };
    try
    {
        const std::vector<std::string> items = SplitList(text, "list", 16);
        Check(!items.empty() && items.size() <= 16, "SplitList: 1..maxItems items");
        for (const std::string& s : items)
        {
            Check(!s.empty() && !isSpace(s.front()) && !isSpace(s.back()),
                  "SplitList items non-empty and trimmed");
        }
    }
    catch (const ConfigError&)
    {
    }
    try
    {
        const std::vector<double> v = ParseDoubleList(text, "dlist", 0.0, 1.0, 16);
        Check(!v.empty() && v.size() <= 16, "ParseDoubleList: 1..maxItems values");
        for (double x : v)
        {
            Check(x >= 0.0 && x <= 1.0, "ParseDoubleList values within range");
        }
    }
    catch (const ConfigError&)
    {
    }
    try
    {
        const std::vector<uint32_t> v = ParseUnsignedList<uint32_t>(text, "ulist", 1, 64, 16);
        Check(!v.empty() && v.size() <= 16, "ParseUnsignedList: 1..maxItems values");
        for (uint32_t x : v)
        {
            Check(x >= 1 && x <= 64, "ParseUnsignedList values within range");
        }
    }
    catch (const ConfigError&)
    {
    }
    return 0;
}

int
FuzzEgaCodecFile(const uint8_t* data, std::size_t size)
{
    if (size < 1)
    {
        return 0;
    }
    // Fix byte: bit 0 rewrites the trailing CRC so that mutations reach the checks behind it.
    std::vector<uint8_t> file(data + 1, data + size);
    if ((data[0] & 1) != 0 && file.size() >= 4)
    {
        const uint32_t crc = Crc32(file.data(), file.size() - 4);
        for (int k = 0; k < 4; ++k)
        {
            file[file.size() - 4 + k] = static_cast<uint8_t>(crc >> (8 * k));
        }
    }
    try
    {
        const EgaMlpCodec codec = EgaMlpCodec::Deserialize(file.data(), file.size(), "fuzz input");
        const uint32_t b = codec.BlockSize();
        const uint32_t h = codec.CodeSize();
        Check(b > 0 && h > 0, "a loaded codec has positive b and h");
        Eigen::MatrixXd codes;
        codec.Encode(Eigen::MatrixXd::Zero(b, 1), codes);
        Check(codes.rows() == h && codes.cols() == 1, "Encode gives h x K codes");
        Eigen::MatrixXd blocks;
        Rng rng(1);
        codec.Decode(codes, blocks, rng);
        Check(blocks.rows() == b && blocks.cols() == 1, "Decode gives b x K blocks");
    }
    catch (const DataError&)
    {
    }
    return 0;
}

int
FuzzUplinkPayload(const uint8_t* data, std::size_t size)
{
    if (size < 1)
    {
        return 0;
    }
    const uint32_t h = 1 + data[0] % 16;
    const std::vector<uint8_t> bytes(data + 1, data + size);
    const std::size_t blocks = bytes.size() / (4 * h);
    Eigen::MatrixXd codes;
    const bool ok = EgaUnpackCodes(bytes, h, blocks, codes);
    if (ok)
    {
        Check(blocks >= 1 && bytes.size() == 4 * h * blocks, "codes accepted only at 4 h K bytes");
        Check(codes.allFinite(), "accepted codes are finite");
        Check(EgaPackCodes(codes) == bytes, "accepted codes pack back to the same bytes");
    }
    else if (blocks >= 1 && bytes.size() == 4 * h * blocks)
    {
        bool finite = true;
        for (std::size_t i = 0; i < bytes.size(); i += 4)
        {
            uint32_t bits = 0;
            for (int k = 0; k < 4; ++k)
            {
                bits |= static_cast<uint32_t>(bytes[i + k]) << (8 * k);
            }
            finite = finite && ((bits >> 23) & 0xFF) != 0xFF;
        }
        Check(!finite, "well-sized finite codes are accepted");
    }
    UplinkRoundParams p;
    if (UplinkRoundParams::Unpack(bytes, p))
    {
        Check(bytes.size() == 24 && p.slots >= 1, "round parameters: 24 bytes, slots >= 1");
        Check(p.Pack() == bytes, "round parameters re-pack to the same bytes");
        UplinkRoundParams q;
        Check(UplinkRoundParams::Unpack(p.Pack(), q) && q.scale == p.scale &&
                  q.totalWeight == p.totalWeight && q.slots == p.slots,
              "re-packed round parameters parse to the same values");
    }
    UplinkReport r;
    if (UnpackUplinkReport(bytes, r))
    {
        UplinkReport q;
        Check(bytes.size() == 16 && UnpackUplinkReport(PackUplinkReport(r), q) &&
                  q.statistic == r.statistic && q.weight == r.weight,
              "a report re-packs to the same values");
    }
    return 0;
}

namespace
{

/// An accepted secure-aggregation message: its header reads back with the expected type.
void
CheckSecAggHeader(const std::vector<uint8_t>& bytes, SecAggMessageType expected, uint64_t instance)
{
    SecAggMessageType type;
    uint64_t peeked = 0;
    Check(PeekSecAggHeader(bytes, type, peeked) && type == expected && peeked == instance,
          "an accepted secure-aggregation message has the header its parser read");
}

template <typename T, typename Id>
void
CheckAscending(const std::vector<T>& list, Id id)
{
    for (std::size_t i = 1; i < list.size(); ++i)
    {
        Check(id(list[i - 1]) < id(list[i]), "accepted secure-aggregation ids ascend strictly");
    }
}

} // namespace

int
FuzzSecAggServerWire(const uint8_t* data, std::size_t size)
{
    if (size < 2)
    {
        return 0;
    }
    const uint8_t which = data[0] % 5;
    const std::size_t words = data[1];
    const std::vector<uint8_t> bytes(data + 2, data + size);
    uint64_t instance = 0;
    if (which == 0)
    {
        SecAggAdvertisedKeys k;
        if (ParseSecAggAdvertiseKeys(bytes, instance, k))
        {
            CheckSecAggHeader(bytes, SecAggMessageType::AdvertiseKeys, instance);
            Check(bytes.size() == kSecAggHeaderBytes + kSecAggKeysEntryBytes &&
                      PackSecAggAdvertiseKeys(instance, k) == bytes,
                  "accepted advertised keys pack back to their bytes");
        }
    }
    else if (which == 1)
    {
        SecAggBoxList list;
        if (ParseSecAggEncryptedShares(bytes, instance, list))
        {
            CheckSecAggHeader(bytes, SecAggMessageType::EncryptedShares, instance);
            CheckAscending(list.boxes, [](const SecAggAddressedBox& b) { return b.peer; });
            Check(bytes.size() ==
                          kSecAggHeaderBytes + 8 + list.boxes.size() * kSecAggBoxEntryBytes &&
                      PackSecAggEncryptedShares(instance, list) == bytes,
                  "accepted encrypted shares pack back to their bytes");
        }
    }
    else if (which == 2)
    {
        SecAggMaskedInput y;
        if (ParseSecAggMaskedInput(bytes, words, instance, y))
        {
            CheckSecAggHeader(bytes, SecAggMessageType::MaskedInput, instance);
            Check(y.words.size() == words && bytes.size() == kSecAggHeaderBytes + 8 + 8 * words &&
                      PackSecAggMaskedInput(instance, y) == bytes,
                  "a masked input is accepted only whole, at the expected length");
        }
    }
    else if (which == 3)
    {
        SecAggSignedId sig;
        if (ParseSecAggConsistencySignature(bytes, instance, sig))
        {
            CheckSecAggHeader(bytes, SecAggMessageType::ConsistencySignature, instance);
            Check(PackSecAggConsistencySignature(instance, sig) == bytes,
                  "an accepted signature packs back to its bytes");
        }
    }
    else
    {
        SecAggUnmaskShares answer;
        if (ParseSecAggUnmaskShares(bytes, instance, answer))
        {
            CheckSecAggHeader(bytes, SecAggMessageType::UnmaskShares, instance);
            CheckAscending(answer.shares, [](const SecAggRevealedShare& r) { return r.owner; });
            for (const auto& r : answer.shares)
            {
                Check(r.share.x == answer.from + 1 && r.share.x != 0,
                      "a revealed share's point is its holder's id + 1");
                for (uint64_t y : r.share.y)
                {
                    Check(y < kShamirPrime, "accepted share values are field elements");
                }
            }
            Check(PackSecAggUnmaskShares(instance, answer) == bytes,
                  "accepted unmask shares pack back to their bytes");
        }
    }
    return 0;
}

int
FuzzSecAggClientWire(const uint8_t* data, std::size_t size)
{
    if (size < 1)
    {
        return 0;
    }
    const uint8_t which = data[0] % 5;
    const std::vector<uint8_t> bytes(data + 1, data + size);
    uint64_t instance = 0;
    if (which == 4)
    {
        SecAggRoundSetup setup;
        if (ParseSecAggRoundSetup(bytes, instance, setup))
        {
            CheckSecAggHeader(bytes, SecAggMessageType::RoundSetup, instance);
            CheckAscending(setup.clients, [](uint32_t id) { return id; });
            Check(bytes.size() == kSecAggHeaderBytes + 32 + 4 * setup.clients.size() &&
                      PackSecAggRoundSetup(instance, setup) == bytes,
                  "an accepted round setup packs back to its bytes");
        }
    }
    else if (which == 0)
    {
        std::vector<SecAggAdvertisedKeys> list;
        if (ParseSecAggKeyList(bytes, instance, list))
        {
            CheckSecAggHeader(bytes, SecAggMessageType::KeyList, instance);
            CheckAscending(list, [](const SecAggAdvertisedKeys& k) { return k.id; });
            Check(PackSecAggKeyList(instance, list) == bytes,
                  "an accepted key list packs back to its bytes");
        }
    }
    else if (which == 1)
    {
        SecAggBoxList list;
        if (ParseSecAggForwardedShares(bytes, instance, list))
        {
            CheckSecAggHeader(bytes, SecAggMessageType::ForwardedShares, instance);
            CheckAscending(list.boxes, [](const SecAggAddressedBox& b) { return b.peer; });
            Check(PackSecAggForwardedShares(instance, list) == bytes,
                  "accepted forwarded shares pack back to their bytes");
        }
    }
    else if (which == 2)
    {
        std::vector<uint32_t> ids;
        if (ParseSecAggSurvivorList(bytes, instance, ids))
        {
            CheckSecAggHeader(bytes, SecAggMessageType::SurvivorList, instance);
            CheckAscending(ids, [](uint32_t id) { return id; });
            Check(bytes.size() == kSecAggHeaderBytes + 4 + 4 * ids.size() &&
                      PackSecAggSurvivorList(instance, ids) == bytes,
                  "an accepted survivor list packs back to its bytes");
        }
    }
    else
    {
        std::vector<SecAggSignedId> list;
        if (ParseSecAggSignatureList(bytes, instance, list))
        {
            CheckSecAggHeader(bytes, SecAggMessageType::SignatureList, instance);
            CheckAscending(list, [](const SecAggSignedId& s) { return s.id; });
            Check(PackSecAggSignatureList(instance, list) == bytes,
                  "an accepted signature list packs back to its bytes");
        }
    }
    return 0;
}

// The reports ranks gather to rank 0 (fl-gfl-mpi): an array of doubles. Each input byte becomes
// one value, mostly small whole numbers (so that headers, flags and sizes come out as the packer
// writes them) and now and then a value no packer writes (NaN, infinities, fractions, -1, 2^32,
// 2^53). What unpacks packs back to the same array, value for value.
int
FuzzModelReports(const uint8_t* data, std::size_t size)
{
    static const double special[] = {std::numeric_limits<double>::quiet_NaN(),
                                     std::numeric_limits<double>::infinity(),
                                     -std::numeric_limits<double>::infinity(),
                                     -1.0,
                                     0.5,
                                     4294967296.0,
                                     9007199254740992.0,
                                     1e300};
    std::vector<double> values(size);
    for (std::size_t i = 0; i < size; ++i)
    {
        values[i] = data[i] < 240 ? static_cast<double>(data[i] % 24) : special[data[i] % 8];
    }
    std::vector<RankModelReport> reports;
    try
    {
        reports = UnpackModelReports(values.data(), values.size());
    }
    catch (const ConfigError&)
    {
        return 0;
    }
    const std::vector<double> again = PackModelReports(reports);
    Check(again.size() == values.size() &&
              (values.empty() ||
               std::memcmp(again.data(), values.data(), values.size() * sizeof(double)) == 0),
          "accepted reports pack back to the array they came from");
    return 0;
}

// A hello: what unpacks packs back byte for byte and keeps the promises of UnpackHello; a
// table of node 7 that hears it at time 0 counts the sender only if the hello lists 7, and not
// after the 1 s timeout.
int
FuzzHello(const uint8_t* data, std::size_t size)
{
    const std::vector<uint8_t> bytes(data, data + size);
    Hello hello;
    if (!UnpackHello(bytes, hello))
    {
        return 0;
    }
    Check(PackHello(hello) == bytes, "an accepted hello packs back to its bytes");
    Check(hello.heard.size() <= kMaxHelloNeighbours, "at most kMaxHelloNeighbours listed");
    Check(hello.degree <= hello.heard.size(), "a degree at most the listed count");
    for (std::size_t i = 0; i < hello.heard.size(); ++i)
    {
        Check(hello.heard[i] != hello.sender, "the sender does not list itself");
        Check(i == 0 || hello.heard[i - 1] < hello.heard[i], "ids ascending");
    }
    NeighbourTable table(7, 1.0);
    table.Heard(hello, 0.0);
    const std::vector<uint32_t> now = table.Neighbours(0.5);
    const bool listsSeven =
        std::binary_search(hello.heard.begin(), hello.heard.end(), uint32_t{7});
    Check(now.size() == ((hello.sender != 7 && listsSeven) ? 1U : 0U),
          "a neighbour only if its hello lists the table's node");
    Check(table.Neighbours(1.5).empty(), "forgotten after the timeout");
    return 0;
}

const std::vector<FuzzHarness>&
Harnesses()
{
    static const std::vector<FuzzHarness> all{
        {"model-message", &FuzzModelMessage},
        {"stream-reassembler", &FuzzStreamReassembler},
        {"chunk-reassembler", &FuzzChunkReassembler},
        {"feedback", &FuzzFeedback},
        {"partial-decode", &FuzzPartialDecode},
        {"raw-payload", &FuzzRawPayload},
        {"idx-reader", &FuzzIdxReader},
        {"text-parse", &FuzzTextParse},
        {"ega-codec-file", &FuzzEgaCodecFile},
        {"uplink-payload", &FuzzUplinkPayload},
        {"secagg-server-wire", &FuzzSecAggServerWire},
        {"secagg-client-wire", &FuzzSecAggClientWire},
        {"model-reports", &FuzzModelReports},
        {"hello", &FuzzHello},
    };
    return all;
}

} // namespace fuzz
} // namespace fl
} // namespace ns3
