/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ns3/secagg-primitives.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <sodium.h>
#include <string>
#include <utility>

namespace ns3
{
namespace fl
{

namespace
{

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

void
EnsureSodiumReady()
{
    static const int rc = sodium_init();
    if (rc < 0)
    {
        throw DataError("libsodium could not be initialised (sodium_init failed)");
    }
}

MaskSecret
AgreeMaskSecret(const MaskKeyPair& own, const MaskPublicKey& peer)
{
    EnsureSodiumReady();
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
    EnsureSodiumReady();
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

} // namespace fl
} // namespace ns3
