/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ns3/secagg-wire.h"

#include <algorithm>

namespace ns3
{
namespace fl
{

namespace
{

constexpr uint8_t kMagic[4] = {'F', 'L', 'S', 'A'};

/// Appends little-endian integers and raw bytes.
class Writer
{
  public:
    Writer(uint64_t instance, SecAggMessageType type, std::size_t bodyBytes)
    {
        m_out.reserve(kSecAggHeaderBytes + bodyBytes);
        m_out.insert(m_out.end(), kMagic, kMagic + 4);
        m_out.push_back(kSecAggWireVersion);
        m_out.push_back(static_cast<uint8_t>(type));
        U16(0);
        U64(instance);
    }

    void U8(uint8_t v)
    {
        m_out.push_back(v);
    }

    void U16(uint16_t v)
    {
        Le(v, 2);
    }

    void U32(uint32_t v)
    {
        Le(v, 4);
    }

    void U64(uint64_t v)
    {
        Le(v, 8);
    }

    template <std::size_t N>
    void Raw(const std::array<uint8_t, N>& a)
    {
        m_out.insert(m_out.end(), a.begin(), a.end());
    }

    void Share(const ShamirShare& s)
    {
        const std::size_t at = m_out.size();
        m_out.resize(at + kShamirShareBytes);
        PackShamirValue(s, m_out.data() + at);
    }

    SecAggBytes Take()
    {
        return std::move(m_out);
    }

  private:
    void Le(uint64_t v, int bytes)
    {
        for (int i = 0; i < bytes; ++i)
        {
            m_out.push_back(static_cast<uint8_t>(v >> (8 * i)));
        }
    }

    SecAggBytes m_out;
};

/// Reads little-endian integers and raw bytes; every read is bounds-checked.
class Reader
{
  public:
    explicit Reader(const SecAggBytes& bytes)
        : m_p(bytes.data()),
          m_n(bytes.size())
    {
    }

    /// Header of the expected type; false otherwise.
    bool Header(SecAggMessageType type, uint64_t& instance)
    {
        SecAggMessageType t;
        uint8_t version = 0;
        uint16_t reserved = 0;
        if (m_n < kSecAggHeaderBytes || !std::equal(kMagic, kMagic + 4, m_p))
        {
            return false;
        }
        m_at = 4;
        U8(version);
        uint8_t tb = 0;
        U8(tb);
        t = static_cast<SecAggMessageType>(tb);
        U16(reserved);
        U64(instance);
        return version == kSecAggWireVersion && reserved == 0 && t == type;
    }

    std::size_t Left() const
    {
        return m_n - m_at;
    }

    bool U8(uint8_t& v)
    {
        uint64_t x = 0;
        const bool ok = Le(x, 1);
        v = static_cast<uint8_t>(x);
        return ok;
    }

    bool U16(uint16_t& v)
    {
        uint64_t x = 0;
        const bool ok = Le(x, 2);
        v = static_cast<uint16_t>(x);
        return ok;
    }

    bool U32(uint32_t& v)
    {
        uint64_t x = 0;
        const bool ok = Le(x, 4);
        v = static_cast<uint32_t>(x);
        return ok;
    }

    bool U64(uint64_t& v)
    {
        return Le(v, 8);
    }

    template <std::size_t N>
    bool Raw(std::array<uint8_t, N>& a)
    {
        if (Left() < N)
        {
            return false;
        }
        std::copy(m_p + m_at, m_p + m_at + N, a.begin());
        m_at += N;
        return true;
    }

    bool Share(uint32_t x, ShamirShare& s)
    {
        if (Left() < kShamirShareBytes)
        {
            return false;
        }
        const bool ok = UnpackShamirValue(m_p + m_at, x, s);
        m_at += kShamirShareBytes;
        return ok;
    }

    /// Reads a u32 count and checks that exactly count * entryBytes bytes follow.
    bool Count(std::size_t entryBytes, uint32_t& count)
    {
        if (!U32(count) || count > kSecAggMaxListEntries)
        {
            return false;
        }
        return Left() / entryBytes == count && Left() % entryBytes == 0;
    }

  private:
    bool Le(uint64_t& v, int bytes)
    {
        if (Left() < static_cast<std::size_t>(bytes))
        {
            return false;
        }
        v = 0;
        for (int i = 0; i < bytes; ++i)
        {
            v |= static_cast<uint64_t>(m_p[m_at + i]) << (8 * i);
        }
        m_at += bytes;
        return true;
    }

    const uint8_t* m_p;
    std::size_t m_n;
    std::size_t m_at{0};
};

void
PutKeys(Writer& w, const SecAggAdvertisedKeys& k)
{
    w.U32(k.id);
    w.Raw(k.cPk);
    w.Raw(k.sPk);
    w.Raw(k.sig);
}

bool
GetKeys(Reader& r, SecAggAdvertisedKeys& k)
{
    return r.U32(k.id) && r.Raw(k.cPk) && r.Raw(k.sPk) && r.Raw(k.sig);
}

SecAggBytes
PackBoxes(uint64_t instance, SecAggMessageType type, const SecAggBoxList& list)
{
    Writer w(instance, type, 8 + list.boxes.size() * kSecAggBoxEntryBytes);
    w.U32(list.party);
    w.U32(static_cast<uint32_t>(list.boxes.size()));
    for (const auto& b : list.boxes)
    {
        w.U32(b.peer);
        w.Raw(b.box);
    }
    return w.Take();
}

bool
ParseBoxes(const SecAggBytes& bytes, SecAggMessageType type, uint64_t& instance, SecAggBoxList& out)
{
    Reader r(bytes);
    uint32_t count = 0;
    if (!r.Header(type, instance) || !r.U32(out.party) || !r.Count(kSecAggBoxEntryBytes, count))
    {
        return false;
    }
    out.boxes.clear();
    out.boxes.reserve(count);
    for (uint32_t i = 0; i < count; ++i)
    {
        SecAggAddressedBox b;
        if (!r.U32(b.peer) || !r.Raw(b.box) ||
            (!out.boxes.empty() && b.peer <= out.boxes.back().peer))
        {
            return false;
        }
        out.boxes.push_back(b);
    }
    return r.Left() == 0;
}

} // namespace

bool
PeekSecAggHeader(const SecAggBytes& bytes, SecAggMessageType& type, uint64_t& instance)
{
    if (bytes.size() < kSecAggHeaderBytes || !std::equal(kMagic, kMagic + 4, bytes.begin()) ||
        bytes[4] != kSecAggWireVersion || bytes[6] != 0 || bytes[7] != 0 || bytes[5] < 1 ||
        bytes[5] > 10)
    {
        return false;
    }
    type = static_cast<SecAggMessageType>(bytes[5]);
    instance = 0;
    for (int i = 0; i < 8; ++i)
    {
        instance |= static_cast<uint64_t>(bytes[8 + i]) << (8 * i);
    }
    return true;
}

SecAggBytes
PackSecAggAdvertiseKeys(uint64_t instance, const SecAggAdvertisedKeys& keys)
{
    Writer w(instance, SecAggMessageType::AdvertiseKeys, kSecAggKeysEntryBytes);
    PutKeys(w, keys);
    return w.Take();
}

bool
ParseSecAggAdvertiseKeys(const SecAggBytes& bytes, uint64_t& instance, SecAggAdvertisedKeys& out)
{
    Reader r(bytes);
    return r.Header(SecAggMessageType::AdvertiseKeys, instance) && GetKeys(r, out) && r.Left() == 0;
}

SecAggBytes
PackSecAggKeyList(uint64_t instance, const std::vector<SecAggAdvertisedKeys>& list)
{
    Writer w(instance, SecAggMessageType::KeyList, 4 + list.size() * kSecAggKeysEntryBytes);
    w.U32(static_cast<uint32_t>(list.size()));
    for (const auto& k : list)
    {
        PutKeys(w, k);
    }
    return w.Take();
}

bool
ParseSecAggKeyList(const SecAggBytes& bytes,
                   uint64_t& instance,
                   std::vector<SecAggAdvertisedKeys>& out)
{
    Reader r(bytes);
    uint32_t count = 0;
    if (!r.Header(SecAggMessageType::KeyList, instance) || !r.Count(kSecAggKeysEntryBytes, count))
    {
        return false;
    }
    out.clear();
    out.reserve(count);
    for (uint32_t i = 0; i < count; ++i)
    {
        SecAggAdvertisedKeys k;
        if (!GetKeys(r, k) || (!out.empty() && k.id <= out.back().id))
        {
            return false;
        }
        out.push_back(k);
    }
    return r.Left() == 0;
}

SecAggBytes
PackSecAggEncryptedShares(uint64_t instance, const SecAggBoxList& list)
{
    return PackBoxes(instance, SecAggMessageType::EncryptedShares, list);
}

bool
ParseSecAggEncryptedShares(const SecAggBytes& bytes, uint64_t& instance, SecAggBoxList& out)
{
    return ParseBoxes(bytes, SecAggMessageType::EncryptedShares, instance, out);
}

SecAggBytes
PackSecAggForwardedShares(uint64_t instance, const SecAggBoxList& list)
{
    return PackBoxes(instance, SecAggMessageType::ForwardedShares, list);
}

bool
ParseSecAggForwardedShares(const SecAggBytes& bytes, uint64_t& instance, SecAggBoxList& out)
{
    return ParseBoxes(bytes, SecAggMessageType::ForwardedShares, instance, out);
}

SecAggBytes
PackSecAggMaskedInput(uint64_t instance, const SecAggMaskedInput& input)
{
    Writer w(instance, SecAggMessageType::MaskedInput, 8 + 8 * input.words.size());
    w.U32(input.from);
    w.U32(static_cast<uint32_t>(input.words.size()));
    for (uint64_t v : input.words)
    {
        w.U64(v);
    }
    return w.Take();
}

bool
ParseSecAggMaskedInput(const SecAggBytes& bytes,
                       std::size_t expectedWords,
                       uint64_t& instance,
                       SecAggMaskedInput& out)
{
    Reader r(bytes);
    uint32_t count = 0;
    if (!r.Header(SecAggMessageType::MaskedInput, instance) || !r.U32(out.from) ||
        !r.Count(8, count) || count != expectedWords)
    {
        return false;
    }
    out.words.assign(count, 0);
    for (uint32_t i = 0; i < count; ++i)
    {
        r.U64(out.words[i]);
    }
    return r.Left() == 0;
}

SecAggBytes
PackSecAggSurvivorList(uint64_t instance, const std::vector<uint32_t>& ids)
{
    Writer w(instance, SecAggMessageType::SurvivorList, 4 + 4 * ids.size());
    w.U32(static_cast<uint32_t>(ids.size()));
    for (uint32_t id : ids)
    {
        w.U32(id);
    }
    return w.Take();
}

bool
ParseSecAggSurvivorList(const SecAggBytes& bytes, uint64_t& instance, std::vector<uint32_t>& ids)
{
    Reader r(bytes);
    uint32_t count = 0;
    if (!r.Header(SecAggMessageType::SurvivorList, instance) || !r.Count(4, count))
    {
        return false;
    }
    ids.clear();
    ids.reserve(count);
    for (uint32_t i = 0; i < count; ++i)
    {
        uint32_t id = 0;
        if (!r.U32(id) || (!ids.empty() && id <= ids.back()))
        {
            return false;
        }
        ids.push_back(id);
    }
    return r.Left() == 0;
}

SecAggBytes
PackSecAggConsistencySignature(uint64_t instance, const SecAggSignedId& s)
{
    Writer w(instance, SecAggMessageType::ConsistencySignature, 68);
    w.U32(s.id);
    w.Raw(s.sig);
    return w.Take();
}

bool
ParseSecAggConsistencySignature(const SecAggBytes& bytes, uint64_t& instance, SecAggSignedId& out)
{
    Reader r(bytes);
    return r.Header(SecAggMessageType::ConsistencySignature, instance) && r.U32(out.id) &&
           r.Raw(out.sig) && r.Left() == 0;
}

SecAggBytes
PackSecAggSignatureList(uint64_t instance, const std::vector<SecAggSignedId>& list)
{
    Writer w(instance, SecAggMessageType::SignatureList, 4 + 68 * list.size());
    w.U32(static_cast<uint32_t>(list.size()));
    for (const auto& s : list)
    {
        w.U32(s.id);
        w.Raw(s.sig);
    }
    return w.Take();
}

bool
ParseSecAggSignatureList(const SecAggBytes& bytes,
                         uint64_t& instance,
                         std::vector<SecAggSignedId>& out)
{
    Reader r(bytes);
    uint32_t count = 0;
    if (!r.Header(SecAggMessageType::SignatureList, instance) || !r.Count(68, count))
    {
        return false;
    }
    out.clear();
    out.reserve(count);
    for (uint32_t i = 0; i < count; ++i)
    {
        SecAggSignedId s;
        if (!r.U32(s.id) || !r.Raw(s.sig) || (!out.empty() && s.id <= out.back().id))
        {
            return false;
        }
        out.push_back(s);
    }
    return r.Left() == 0;
}

SecAggBytes
PackSecAggUnmaskShares(uint64_t instance, const SecAggUnmaskShares& answer)
{
    Writer w(instance,
             SecAggMessageType::UnmaskShares,
             8 + answer.shares.size() * kSecAggRevealEntryBytes);
    w.U32(answer.from);
    w.U32(static_cast<uint32_t>(answer.shares.size()));
    for (const auto& s : answer.shares)
    {
        w.U32(s.owner);
        w.U8(static_cast<uint8_t>(s.kind));
        w.Share(s.share);
    }
    return w.Take();
}

bool
ParseSecAggUnmaskShares(const SecAggBytes& bytes, uint64_t& instance, SecAggUnmaskShares& out)
{
    Reader r(bytes);
    uint32_t count = 0;
    if (!r.Header(SecAggMessageType::UnmaskShares, instance) || !r.U32(out.from) ||
        out.from == UINT32_MAX || !r.Count(kSecAggRevealEntryBytes, count))
    {
        return false;
    }
    out.shares.clear();
    out.shares.reserve(count);
    for (uint32_t i = 0; i < count; ++i)
    {
        SecAggRevealedShare s;
        uint8_t kind = 0;
        if (!r.U32(s.owner) || !r.U8(kind) || kind > 1 || !r.Share(out.from + 1, s.share) ||
            (!out.shares.empty() && s.owner <= out.shares.back().owner))
        {
            return false;
        }
        s.kind = static_cast<SecAggShareKind>(kind);
        out.shares.push_back(s);
    }
    return r.Left() == 0;
}

SecAggBytes
PackSecAggRoundSetup(uint64_t instance, const SecAggRoundSetup& setup)
{
    Writer w(instance, SecAggMessageType::RoundSetup, 32 + 4 * setup.clients.size());
    w.U8(setup.graph);
    w.U8(setup.fractionBits);
    w.U16(0);
    w.U32(setup.threshold);
    w.U32(setup.neighbours);
    w.U64(setup.beaconRound);
    w.U64(setup.dim);
    w.U32(static_cast<uint32_t>(setup.clients.size()));
    for (uint32_t id : setup.clients)
    {
        w.U32(id);
    }
    return w.Take();
}

bool
ParseSecAggRoundSetup(const SecAggBytes& bytes, uint64_t& instance, SecAggRoundSetup& out)
{
    Reader r(bytes);
    uint16_t reserved = 1;
    uint32_t count = 0;
    if (!r.Header(SecAggMessageType::RoundSetup, instance) || !r.U8(out.graph) ||
        !r.U8(out.fractionBits) || !r.U16(reserved) || reserved != 0 || !r.U32(out.threshold) ||
        !r.U32(out.neighbours) || !r.U64(out.beaconRound) || !r.U64(out.dim) || !r.Count(4, count))
    {
        return false;
    }
    out.clients.clear();
    out.clients.reserve(count);
    for (uint32_t i = 0; i < count; ++i)
    {
        uint32_t id = 0;
        if (!r.U32(id) || (!out.clients.empty() && id <= out.clients.back()))
        {
            return false;
        }
        out.clients.push_back(id);
    }
    return r.Left() == 0;
}

bool
PeekSecAggSender(const SecAggBytes& bytes, uint32_t& sender)
{
    SecAggMessageType type;
    uint64_t instance = 0;
    if (!PeekSecAggHeader(bytes, type, instance) || bytes.size() < kSecAggHeaderBytes + 4)
    {
        return false;
    }
    switch (type)
    {
    case SecAggMessageType::AdvertiseKeys:
    case SecAggMessageType::EncryptedShares:
    case SecAggMessageType::MaskedInput:
    case SecAggMessageType::ConsistencySignature:
    case SecAggMessageType::UnmaskShares:
        break;
    default:
        return false;
    }
    sender = 0;
    for (int i = 0; i < 4; ++i)
    {
        sender |= static_cast<uint32_t>(bytes[kSecAggHeaderBytes + i]) << (8 * i);
    }
    return true;
}

} // namespace fl
} // namespace ns3
