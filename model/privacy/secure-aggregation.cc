/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ns3/secure-aggregation.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <set>
#include <sodium.h>
#include <string>
#include <utility>

namespace ns3
{
namespace fl
{

namespace
{

/// sodium_init once (thread-safe and idempotent in libsodium).
void
EnsureSodium()
{
    static const int rc = sodium_init();
    if (rc < 0)
    {
        throw DataError("libsodium could not be initialised (sodium_init failed)");
    }
}

/// BLAKE2b-256 of the concatenated parts, keyed by `key` (unkeyed if null).
MaskSecret
Blake2b(const std::vector<std::pair<const uint8_t*, std::size_t>>& parts,
        const MaskSecret* key = nullptr)
{
    crypto_generichash_state state;
    crypto_generichash_init(&state,
                            key ? key->data() : nullptr,
                            key ? key->size() : 0,
                            kMaskKeyBytes);
    for (const auto& [p, n] : parts)
    {
        crypto_generichash_update(&state, p, n);
    }
    MaskSecret out;
    crypto_generichash_final(&state, out.data(), out.size());
    return out;
}

/// Little-endian bytes of an unsigned integer.
template <typename T>
std::array<uint8_t, sizeof(T)>
LittleEndian(T v)
{
    std::array<uint8_t, sizeof(T)> b{};
    for (std::size_t i = 0; i < sizeof(T); ++i)
    {
        b[i] = static_cast<uint8_t>(v >> (8 * i));
    }
    return b;
}

void
CheckFractionBits(unsigned fractionBits)
{
    if (fractionBits < 1 || fractionBits > 52)
    {
        throw ConfigError("maskFractionBits",
                          "is " + std::to_string(fractionBits),
                          "use 1..52 fraction bits (default " +
                              std::to_string(kDefaultMaskFractionBits) + ")");
    }
}

} // namespace

MaskKeyPair
MaskKeyPairFromSeed(uint64_t seed)
{
    EnsureSodium();
    static const char tag[] = "fl-secagg-x25519-sk";
    const auto le = LittleEndian(seed);
    MaskKeyPair kp;
    kp.secretKey =
        Blake2b({{reinterpret_cast<const uint8_t*>(tag), sizeof(tag) - 1}, {le.data(), le.size()}});
    crypto_scalarmult_base(kp.publicKey.data(), kp.secretKey.data());
    return kp;
}

MaskSecret
AgreeMaskSecret(const MaskKeyPair& own, const MaskPublicKey& peer)
{
    EnsureSodium();
    if (peer == own.publicKey)
    {
        throw ConfigError("peer public key",
                          "equals the client's own public key",
                          "agree on masks only with other clients");
    }
    MaskSecret point;
    if (crypto_scalarmult(point.data(), own.secretKey.data(), peer.data()) != 0)
    {
        throw ConfigError("peer public key",
                          "is a low-order X25519 point (the shared secret would be zero)",
                          "use the public key the peer advertised (crypto_scalarmult_base)");
    }
    const MaskPublicKey& lo = std::min(own.publicKey, peer);
    const MaskPublicKey& hi = std::max(own.publicKey, peer);
    MaskSecret shared =
        Blake2b({{point.data(), point.size()}, {lo.data(), lo.size()}, {hi.data(), hi.size()}});
    sodium_memzero(point.data(), point.size());
    return shared;
}

MaskSecret
IterationMaskSeed(const MaskSecret& shared, uint32_t iteration)
{
    EnsureSodium();
    static const char tag[] = "fl-secagg-iteration";
    const auto le = LittleEndian(iteration);
    return Blake2b(
        {{reinterpret_cast<const uint8_t*>(tag), sizeof(tag) - 1}, {le.data(), le.size()}},
        &shared);
}

void
EncodeFixedPoint(const Eigen::Ref<const Eigen::VectorXd>& x,
                 unsigned fractionBits,
                 std::size_t summands,
                 std::vector<uint64_t>& out)
{
    CheckFractionBits(fractionBits);
    if (summands == 0)
    {
        throw ConfigError("summands", "is 0", "give the number of vectors that will be summed");
    }
    const double scale = std::ldexp(1.0, static_cast<int>(fractionBits));
    // |q| < 2^62 / summands keeps |sum| < 2^62: no wrap in Z_{2^64}.
    const double limit = std::ldexp(1.0, 62) / static_cast<double>(summands);
    out.resize(static_cast<std::size_t>(x.size()));
    for (Eigen::Index j = 0; j < x.size(); ++j)
    {
        const double q = std::nearbyint(x[j] * scale);
        if (!(std::abs(q) < limit))
        {
            throw ConfigError("maskFractionBits",
                              "entry " + std::to_string(j) + " = " + std::to_string(x[j]) +
                                  " does not fit " + std::to_string(fractionBits) +
                                  " fraction bits for a sum of " + std::to_string(summands) +
                                  " vectors (|x| must stay below " + std::to_string(limit / scale) +
                                  ")",
                              "use fewer fraction bits, or clip the vectors");
        }
        out[static_cast<std::size_t>(j)] = static_cast<uint64_t>(static_cast<int64_t>(q));
    }
}

Eigen::VectorXd
DecodeFixedPoint(const std::vector<uint64_t>& words, unsigned fractionBits)
{
    CheckFractionBits(fractionBits);
    Eigen::VectorXd x(static_cast<Eigen::Index>(words.size()));
    for (std::size_t j = 0; j < words.size(); ++j)
    {
        x[static_cast<Eigen::Index>(j)] =
            std::ldexp(static_cast<double>(static_cast<int64_t>(words[j])),
                       -static_cast<int>(fractionBits));
    }
    return x;
}

void
ApplyPairwiseMask(std::vector<uint64_t>& words, const MaskSecret& seed, bool add)
{
    EnsureSodium();
    if (words.empty())
    {
        return;
    }
    std::vector<uint8_t> stream(words.size() * 8);
    static const std::array<uint8_t, crypto_stream_chacha20_ietf_NONCEBYTES> nonce{};
    crypto_stream_chacha20_ietf(stream.data(), stream.size(), nonce.data(), seed.data());
    for (std::size_t j = 0; j < words.size(); ++j)
    {
        uint64_t m = 0;
        for (std::size_t b = 0; b < 8; ++b)
        {
            m |= static_cast<uint64_t>(stream[8 * j + b]) << (8 * b);
        }
        words[j] = add ? words[j] + m : words[j] - m; // mod 2^64
    }
}

std::vector<uint64_t>
MaskVector(const Eigen::Ref<const Eigen::VectorXd>& x,
           uint32_t self,
           const std::vector<MaskPeer>& peers,
           unsigned fractionBits,
           std::size_t summands)
{
    std::vector<uint64_t> words;
    EncodeFixedPoint(x, fractionBits, summands, words);
    std::set<uint32_t> seen;
    for (const auto& peer : peers)
    {
        if (peer.id == self || !seen.insert(peer.id).second || peer.seed == nullptr)
        {
            throw ConfigError(
                "peers",
                "peer " + std::to_string(peer.id) + " of client " + std::to_string(self) +
                    (peer.seed == nullptr ? " has no seed" : " is the client itself or repeated"),
                "list every other sampled client once, with its pairwise seed");
        }
        // + PRG(s_kk') for k' > k, - PRG(s_kk') for k' < k: every pair cancels in the sum.
        ApplyPairwiseMask(words, *peer.seed, peer.id > self);
    }
    return words;
}

Eigen::VectorXd
UnmaskSum(const std::vector<const std::vector<uint64_t>*>& masked,
          const std::vector<uint32_t>& survivors,
          const std::vector<uint32_t>& dropped,
          const std::vector<RevealedMaskSeed>& revealed,
          unsigned fractionBits)
{
    CheckFractionBits(fractionBits);
    if (masked.empty() || masked.size() != survivors.size())
    {
        throw ConfigError("masked",
                          std::to_string(masked.size()) + " uploads for " +
                              std::to_string(survivors.size()) + " survivors",
                          "give one masked upload per survivor (at least one)");
    }
    const std::set<uint32_t> alive(survivors.begin(), survivors.end());
    const std::set<uint32_t> gone(dropped.begin(), dropped.end());
    if (alive.size() != survivors.size() || gone.size() != dropped.size())
    {
        throw ConfigError(alive.size() != survivors.size() ? "survivors" : "dropped",
                          "lists a client twice",
                          "list every client once");
    }
    for (uint32_t d : dropped)
    {
        if (alive.count(d) != 0)
        {
            throw ConfigError("dropped",
                              "client " + std::to_string(d) + " is also a survivor",
                              "a sampled client either uploaded or dropped");
        }
    }
    const std::size_t d = masked.front()->size();
    std::vector<uint64_t> sum(d, 0);
    for (const auto* m : masked)
    {
        if (m == nullptr || m->size() != d)
        {
            throw ConfigError("masked",
                              "uploads have different sizes (or one is missing)",
                              "mask vectors of the model dimension");
        }
        for (std::size_t j = 0; j < d; ++j)
        {
            sum[j] += (*m)[j]; // mod 2^64
        }
    }
    std::map<std::pair<uint32_t, uint32_t>, const MaskSecret*> seeds;
    for (const auto& r : revealed)
    {
        if (alive.count(r.survivor) == 0 || gone.count(r.dropped) == 0)
        {
            throw ConfigError("revealed",
                              "seed of pair (" + std::to_string(r.survivor) + ", " +
                                  std::to_string(r.dropped) +
                                  ") does not name a survivor and a dropped client",
                              "reveal only seeds shared with dropped clients");
        }
        seeds[{r.survivor, r.dropped}] = &r.seed;
    }
    for (uint32_t s : survivors)
    {
        for (uint32_t g : dropped)
        {
            auto it = seeds.find({s, g});
            if (it == seeds.end())
            {
                throw ConfigError("revealed",
                                  "survivor " + std::to_string(s) +
                                      " did not reveal its seed with dropped client " +
                                      std::to_string(g),
                                  "every survivor reveals its pairwise seed with every dropped "
                                  "client");
            }
            // s applied +PRG if s < g, -PRG if s > g: undo it.
            ApplyPairwiseMask(sum, *it->second, s > g);
        }
    }
    return DecodeFixedPoint(sum, fractionBits);
}

namespace
{

void
PutLe32(std::vector<uint8_t>& out, uint32_t v)
{
    for (int b = 0; b < 4; ++b)
    {
        out.push_back(static_cast<uint8_t>(v >> (8 * b)));
    }
}

uint32_t
GetLe32(const uint8_t* p)
{
    return static_cast<uint32_t>(p[0]) | (static_cast<uint32_t>(p[1]) << 8) |
           (static_cast<uint32_t>(p[2]) << 16) | (static_cast<uint32_t>(p[3]) << 24);
}

} // namespace

std::vector<uint8_t>
PackMaskRoster(const std::vector<MaskRosterEntry>& roster)
{
    std::vector<uint8_t> out;
    out.reserve(roster.size() * 36);
    for (const auto& e : roster)
    {
        PutLe32(out, e.id);
        out.insert(out.end(), e.key.begin(), e.key.end());
    }
    return out;
}

bool
UnpackMaskRoster(const std::vector<uint8_t>& bytes, std::vector<MaskRosterEntry>& out)
{
    if (bytes.empty() || bytes.size() % 36 != 0)
    {
        return false;
    }
    out.clear();
    for (std::size_t o = 0; o < bytes.size(); o += 36)
    {
        MaskRosterEntry e;
        e.id = GetLe32(&bytes[o]);
        std::copy(bytes.begin() + static_cast<std::ptrdiff_t>(o + 4),
                  bytes.begin() + static_cast<std::ptrdiff_t>(o + 36),
                  e.key.begin());
        if (!out.empty() && e.id <= out.back().id)
        {
            return false;
        }
        out.push_back(e);
    }
    return true;
}

std::vector<uint8_t>
PackMaskedWords(const std::vector<uint64_t>& words)
{
    std::vector<uint8_t> out(words.size() * 8);
    for (std::size_t j = 0; j < words.size(); ++j)
    {
        for (std::size_t b = 0; b < 8; ++b)
        {
            out[8 * j + b] = static_cast<uint8_t>(words[j] >> (8 * b));
        }
    }
    return out;
}

bool
UnpackMaskedWords(const std::vector<uint8_t>& bytes, std::size_t words, std::vector<uint64_t>& out)
{
    if (bytes.size() != 8 * words)
    {
        return false;
    }
    out.assign(words, 0);
    for (std::size_t j = 0; j < words; ++j)
    {
        for (std::size_t b = 0; b < 8; ++b)
        {
            out[j] |= static_cast<uint64_t>(bytes[8 * j + b]) << (8 * b);
        }
    }
    return true;
}

std::vector<uint8_t>
PackRevealedSeeds(const std::vector<RevealedMaskSeed>& seeds)
{
    std::vector<uint8_t> out;
    out.reserve(seeds.size() * 40);
    for (const auto& r : seeds)
    {
        PutLe32(out, r.survivor);
        PutLe32(out, r.dropped);
        out.insert(out.end(), r.seed.begin(), r.seed.end());
    }
    return out;
}

bool
UnpackRevealedSeeds(const std::vector<uint8_t>& bytes, std::vector<RevealedMaskSeed>& out)
{
    if (bytes.empty() || bytes.size() % 40 != 0)
    {
        return false;
    }
    out.clear();
    for (std::size_t o = 0; o < bytes.size(); o += 40)
    {
        RevealedMaskSeed r;
        r.survivor = GetLe32(&bytes[o]);
        r.dropped = GetLe32(&bytes[o + 4]);
        std::copy(bytes.begin() + static_cast<std::ptrdiff_t>(o + 8),
                  bytes.begin() + static_cast<std::ptrdiff_t>(o + 40),
                  r.seed.begin());
        out.push_back(r);
    }
    return true;
}

} // namespace fl
} // namespace ns3
