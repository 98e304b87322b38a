/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ns3/shamir.h"

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

void
PutLe(uint8_t* p, uint64_t v, std::size_t bytes)
{
    for (std::size_t i = 0; i < bytes; ++i)
    {
        p[i] = static_cast<uint8_t>(v >> (8 * i));
    }
}

uint64_t
GetLe(const uint8_t* p, std::size_t bytes)
{
    uint64_t v = 0;
    for (std::size_t i = 0; i < bytes; ++i)
    {
        v |= static_cast<uint64_t>(p[i]) << (8 * i);
    }
    return v;
}

/// Byte offset and length of limb j of a 32-byte secret.
constexpr std::size_t kLimbOffset[kShamirLimbs] = {0, 7, 14, 21, 28};
constexpr std::size_t kLimbBytes[kShamirLimbs] = {7, 7, 7, 7, 4};

void
CheckPoints(const std::vector<uint32_t>& xs)
{
    std::set<uint32_t> seen;
    for (uint32_t x : xs)
    {
        if (x == 0)
        {
            throw ConfigError("x",
                              "an evaluation point is 0 (the share would be the secret itself)",
                              "use nonzero, distinct points (e.g. client id + 1)");
        }
        if (!seen.insert(x).second)
        {
            throw ConfigError("x",
                              "point " + std::to_string(x) + " is repeated",
                              "give every holder its own point");
        }
    }
}

} // namespace

const char*
KeyModeName(KeyMode mode)
{
    return mode == KeyMode::Random ? "random" : "reproducible";
}

KeySource::KeySource() = default;

KeySource::~KeySource()
{
    sodium_memzero(m_seed.data(), m_seed.size());
}

KeySource
KeySource::Random()
{
    return KeySource();
}

KeySource
KeySource::Reproducible(const SecAggRunSeed& runSeed, uint32_t clientId, uint64_t instance)
{
    KeySource k;
    k.m_mode = KeyMode::Reproducible;
    k.m_seed = runSeed;
    k.m_client = clientId;
    k.m_instance = instance;
    return k;
}

void
KeySource::Fill(uint8_t* out, std::size_t n)
{
    EnsureSodiumReady();
    if (n == 0)
    {
        return;
    }
    if (m_mode == KeyMode::Random)
    {
        randombytes_buf(out, n);
        return;
    }
    static const char tag[] = "fl-secagg-keysource";
    uint8_t msg[sizeof(tag) - 1 + 4 + 8 + 8];
    std::copy(tag, tag + sizeof(tag) - 1, msg);
    PutLe(msg + sizeof(tag) - 1, m_client, 4);
    PutLe(msg + sizeof(tag) - 1 + 4, m_instance, 8);
    PutLe(msg + sizeof(tag) - 1 + 12, m_counter++, 8);
    uint8_t key[32];
    crypto_generichash(key, sizeof(key), msg, sizeof(msg), m_seed.data(), m_seed.size());
    static const uint8_t nonce[crypto_stream_chacha20_ietf_NONCEBYTES] = {};
    crypto_stream_chacha20_ietf(out, n, nonce, key);
    sodium_memzero(key, sizeof(key));
}

MaskSecret
KeySource::Key()
{
    MaskSecret k;
    Fill(k.data(), k.size());
    return k;
}

uint64_t
KeySource::Uniform(uint64_t bound)
{
    if (bound == 0)
    {
        throw ConfigError("bound", "is 0", "draw from a non-empty range");
    }
    // Rejection sampling: accept v < the largest multiple of bound below 2^64.
    const uint64_t limit = UINT64_MAX - (UINT64_MAX % bound + 1) % bound;
    for (;;)
    {
        uint8_t b[8];
        Fill(b, sizeof(b));
        const uint64_t v = GetLe(b, 8);
        if (v <= limit)
        {
            return v % bound;
        }
    }
}

uint64_t
ShamirMul(uint64_t a, uint64_t b)
{
    const unsigned __int128 r = static_cast<unsigned __int128>(a) * b;
    // r < 2^122: r = hi 2^61 + lo, and 2^61 = 1 mod p.
    uint64_t s = static_cast<uint64_t>(r & kShamirPrime) + static_cast<uint64_t>(r >> 61);
    s = (s & kShamirPrime) + (s >> 61);
    return s >= kShamirPrime ? s - kShamirPrime : s;
}

uint64_t
ShamirAdd(uint64_t a, uint64_t b)
{
    const uint64_t s = a + b; // < 2^62: no overflow
    return s >= kShamirPrime ? s - kShamirPrime : s;
}

uint64_t
ShamirSub(uint64_t a, uint64_t b)
{
    return a >= b ? a - b : a + kShamirPrime - b;
}

uint64_t
ShamirInverse(uint64_t a)
{
    if (a % kShamirPrime == 0)
    {
        throw ConfigError("x", "0 has no inverse in GF(p)", "use distinct nonzero points");
    }
    uint64_t result = 1;
    uint64_t base = a % kShamirPrime;
    uint64_t e = kShamirPrime - 2;
    while (e != 0)
    {
        if (e & 1)
        {
            result = ShamirMul(result, base);
        }
        base = ShamirMul(base, base);
        e >>= 1;
    }
    return result;
}

std::vector<uint64_t>
ShamirEvaluate(const std::vector<uint64_t>& coefficients, const std::vector<uint32_t>& xs)
{
    for (uint64_t c : coefficients)
    {
        if (c >= kShamirPrime)
        {
            throw ConfigError("coefficients",
                              "a coefficient is not below p = 2^61 - 1",
                              "reduce coefficients mod p");
        }
    }
    std::vector<uint64_t> ys(xs.size(), 0);
    for (std::size_t i = 0; i < xs.size(); ++i)
    {
        uint64_t acc = 0;
        for (std::size_t j = coefficients.size(); j-- > 0;)
        {
            acc = ShamirAdd(ShamirMul(acc, xs[i]), coefficients[j]);
        }
        ys[i] = acc;
    }
    return ys;
}

std::vector<uint64_t>
ShamirLagrangeAtZero(const std::vector<uint32_t>& xs)
{
    if (xs.empty())
    {
        throw ConfigError("x", "no points", "give at least one share");
    }
    CheckPoints(xs);
    std::vector<uint64_t> lambda(xs.size(), 0);
    for (std::size_t i = 0; i < xs.size(); ++i)
    {
        uint64_t num = 1;
        uint64_t den = 1;
        for (std::size_t j = 0; j < xs.size(); ++j)
        {
            if (j != i)
            {
                num = ShamirMul(num, xs[j]);
                den = ShamirMul(den, ShamirSub(xs[j], xs[i]));
            }
        }
        lambda[i] = ShamirMul(num, ShamirInverse(den));
    }
    return lambda;
}

std::vector<ShamirShare>
ShamirSplit(const MaskSecret& secret,
            uint32_t threshold,
            const std::vector<uint32_t>& xs,
            KeySource& keys)
{
    if (threshold < 1 || threshold > xs.size())
    {
        throw ConfigError("threshold",
                          "t = " + std::to_string(threshold) + " for " + std::to_string(xs.size()) +
                              " holders",
                          "use 1 <= t <= number of share holders");
    }
    CheckPoints(xs);
    std::vector<ShamirShare> shares(xs.size());
    for (std::size_t i = 0; i < xs.size(); ++i)
    {
        shares[i].x = xs[i];
    }
    std::vector<uint64_t> coefficients(threshold);
    for (std::size_t j = 0; j < kShamirLimbs; ++j)
    {
        coefficients[0] = GetLe(secret.data() + kLimbOffset[j], kLimbBytes[j]);
        for (uint32_t c = 1; c < threshold; ++c)
        {
            coefficients[c] = keys.Uniform(kShamirPrime);
        }
        const std::vector<uint64_t> ys = ShamirEvaluate(coefficients, xs);
        for (std::size_t i = 0; i < xs.size(); ++i)
        {
            shares[i].y[j] = ys[i];
        }
    }
    sodium_memzero(coefficients.data(), coefficients.size() * sizeof(uint64_t));
    return shares;
}

ShamirInterpolator::ShamirInterpolator(std::vector<uint32_t> basePoints)
    : m_base(std::move(basePoints))
{
    if (m_base.empty())
    {
        throw ConfigError("x", "no points", "give at least one share");
    }
    CheckPoints(m_base);
    const std::size_t t = m_base.size();
    std::vector<uint64_t> prod(t, 1);
    for (std::size_t i = 0; i < t; ++i)
    {
        for (std::size_t m = 0; m < t; ++m)
        {
            if (m != i)
            {
                prod[i] = ShamirMul(prod[i], ShamirSub(m_base[i], m_base[m]));
            }
        }
    }
    m_weights = BatchInverse(prod);
}

std::vector<uint64_t>
ShamirInterpolator::BatchInverse(const std::vector<uint64_t>& a)
{
    // Montgomery's trick: one inversion and 3 (n - 1) multiplications.
    std::vector<uint64_t> prefix(a.size());
    uint64_t acc = 1;
    for (std::size_t i = 0; i < a.size(); ++i)
    {
        prefix[i] = acc;
        acc = ShamirMul(acc, a[i]);
    }
    uint64_t inv = ShamirInverse(acc);
    std::vector<uint64_t> out(a.size());
    for (std::size_t i = a.size(); i-- > 0;)
    {
        out[i] = ShamirMul(inv, prefix[i]);
        inv = ShamirMul(inv, a[i]);
    }
    return out;
}

const std::vector<uint64_t>&
ShamirInterpolator::BasisAt(uint32_t z)
{
    auto cached = m_cache.find(z);
    if (cached != m_cache.end())
    {
        return cached->second;
    }
    const std::size_t t = m_base.size();
    std::vector<uint64_t> basis(t, 0);
    std::size_t hit = t;
    for (std::size_t i = 0; i < t; ++i)
    {
        if (m_base[i] == z)
        {
            hit = i;
        }
    }
    if (hit < t)
    {
        basis[hit] = 1; // z is a base point: L_i(x_hit) = [i == hit]
    }
    else
    {
        // Barycentric form: L_i(z) = l(z) w_i / (z - x_i), l(z) = prod_m (z - x_m).
        std::vector<uint64_t> diff(t);
        uint64_t ell = 1;
        for (std::size_t i = 0; i < t; ++i)
        {
            diff[i] = ShamirSub(z, m_base[i]);
            ell = ShamirMul(ell, diff[i]);
        }
        const std::vector<uint64_t> inv = BatchInverse(diff);
        for (std::size_t i = 0; i < t; ++i)
        {
            basis[i] = ShamirMul(ell, ShamirMul(m_weights[i], inv[i]));
        }
    }
    return m_cache.emplace(z, std::move(basis)).first->second;
}

bool
ShamirInterpolator::Reconstruct(const std::vector<ShamirShare>& shares, MaskSecret& out)
{
    const std::size_t t = m_base.size();
    if (shares.size() < t)
    {
        throw ConfigError("shares",
                          std::to_string(shares.size()) + " shares for threshold " +
                              std::to_string(t),
                          "collect at least t shares before reconstructing");
    }
    for (std::size_t i = 0; i < t; ++i)
    {
        if (shares[i].x != m_base[i])
        {
            throw ConfigError("shares",
                              "the first t share points are not the interpolator's base points",
                              "order the shares as the base points");
        }
    }
    const std::vector<uint64_t> lambda = BasisAt(0);
    for (std::size_t j = 0; j < kShamirLimbs; ++j)
    {
        uint64_t limb = 0;
        for (std::size_t i = 0; i < t; ++i)
        {
            limb = ShamirAdd(limb, ShamirMul(lambda[i], shares[i].y[j]));
        }
        if ((limb >> (8 * kLimbBytes[j])) != 0)
        {
            return false;
        }
        PutLe(out.data() + kLimbOffset[j], limb, kLimbBytes[j]);
    }
    // Every further share must lie on the same polynomials.
    for (std::size_t k = t; k < shares.size(); ++k)
    {
        const std::vector<uint64_t>& basis = BasisAt(shares[k].x);
        for (std::size_t j = 0; j < kShamirLimbs; ++j)
        {
            uint64_t v = 0;
            for (std::size_t i = 0; i < t; ++i)
            {
                v = ShamirAdd(v, ShamirMul(basis[i], shares[i].y[j]));
            }
            if (v != shares[k].y[j])
            {
                return false;
            }
        }
    }
    return true;
}

bool
ShamirReconstruct(const std::vector<ShamirShare>& shares, uint32_t threshold, MaskSecret& out)
{
    if (threshold < 1)
    {
        throw ConfigError("threshold", "t = 0", "use t >= 1");
    }
    if (shares.size() < threshold)
    {
        throw ConfigError("shares",
                          std::to_string(shares.size()) + " shares for threshold " +
                              std::to_string(threshold),
                          "collect at least t shares before reconstructing");
    }
    std::vector<uint32_t> xs;
    xs.reserve(shares.size());
    for (const auto& s : shares)
    {
        xs.push_back(s.x);
        for (uint64_t y : s.y)
        {
            if (y >= kShamirPrime)
            {
                throw ConfigError("shares",
                                  "a share value is not below p = 2^61 - 1",
                                  "pass shares made by ShamirSplit or UnpackShamirValue");
            }
        }
    }
    CheckPoints(xs);
    ShamirInterpolator interpolator(std::vector<uint32_t>(xs.begin(), xs.begin() + threshold));
    return interpolator.Reconstruct(shares, out);
}

void
PackShamirValue(const ShamirShare& share, uint8_t* out)
{
    for (std::size_t j = 0; j < kShamirLimbs; ++j)
    {
        PutLe(out + 8 * j, share.y[j], 8);
    }
}

bool
UnpackShamirValue(const uint8_t* in, uint32_t x, ShamirShare& out)
{
    out.x = x;
    for (std::size_t j = 0; j < kShamirLimbs; ++j)
    {
        out.y[j] = GetLe(in + 8 * j, 8);
        if (out.y[j] >= kShamirPrime)
        {
            return false;
        }
    }
    return true;
}

} // namespace fl
} // namespace ns3
