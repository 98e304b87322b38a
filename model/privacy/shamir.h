/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * t-of-n Shamir secret sharing of 32-byte secrets and the key source of secure aggregation, pure
 * (no ns-3 header).
 *
 * Shamir, "How to share a secret", Communications of the ACM 22(11), 1979: a secret s is the
 * constant term of a random polynomial f of degree t - 1 over a field; share i is (x_i, f(x_i))
 * for distinct nonzero x_i; any t shares give f(0) = s by Lagrange interpolation at 0, fewer than
 * t shares are independent of s. Bonawitz et al., "Practical Secure Aggregation for
 * Privacy-Preserving Machine Learning", ACM CCS 2017, use it (Section 3.1, SS.share / SS.recon)
 * to share each client's mask key s_u^SK and self-mask seed b_u among the other clients.
 *
 * Field: the prime field GF(p), p = 2^61 - 1 (a Mersenne prime: reduction is a shift and an
 * add). A 32-byte secret is split into kShamirLimbs = 5 little-endian limbs of 7, 7, 7, 7 and 4
 * bytes (each below 2^56 < p) and every limb is shared with its own independent polynomial, at
 * the same x. x ranges over 1 .. 2^32 - 1, so any number of clients can hold shares (a field of
 * 256 elements would stop at 255). A share is x and 5 field elements (40 bytes on the wire).
 */
#ifndef FL_SHAMIR_H
#define FL_SHAMIR_H

#include "ns3/secagg-primitives.h"

#include <array>
#include <cstddef>
#include <cstdint>
#include <map>
#include <utility>
#include <vector>

namespace ns3
{
namespace fl
{

/**
 * How secure-aggregation keys and random coefficients are drawn.
 */
enum class KeyMode : uint8_t
{
    /// libsodium randombytes_buf (the operating system's CSPRNG): the default, the secure mode.
    Random = 0,
    /**
     * INSECURE, for bit-identical simulation studies only: every key is derived from a 256-bit run
     * seed, the client id and the protocol instance (BLAKE2b, then ChaCha20). Anyone who knows
     * the run seed recomputes every key and every mask: never use it where privacy matters.
     */
    Reproducible = 1,
};

/// Name of a key mode ("random" or "reproducible").
const char* KeyModeName(KeyMode mode);

/// A 256-bit run seed of the Reproducible key mode.
using SecAggRunSeed = std::array<uint8_t, 32>;

/**
 * The source of every secret a secure-aggregation party draws (X25519 and Ed25519 keys, the
 * self-mask seed b_u, Shamir coefficients, nonces).
 *
 * Random mode reads libsodium's randombytes_buf. Reproducible mode answers the i-th Fill call
 * (i = 0, 1, ...) with the ChaCha20-IETF key stream (zero nonce) under the key
 * BLAKE2b-256(key = run seed; "fl-secagg-keysource" || client id (u32 LE) || instance (u64 LE) ||
 * i (u64 LE)): the same seed, client, instance and sequence of calls give the same bytes on
 * every platform. Reproducible mode is insecure by design (see KeyMode::Reproducible).
 *
 * A copy continues the same sequence: in Reproducible mode two copies give the same bytes, so
 * give every party its own source (its own client id) and never share one between parties.
 */
class KeySource
{
  public:
    /// A Random-mode source.
    KeySource();
    /// Wipes the run seed (sodium_memzero).
    ~KeySource();
    KeySource(const KeySource&) = default;
    KeySource& operator=(const KeySource&) = default;

    /// A Random-mode source (libsodium randombytes_buf).
    static KeySource Random();

    /**
     * A Reproducible-mode source. INSECURE: whoever knows `runSeed` knows every key.
     * @param runSeed 256-bit run seed
     * @param clientId the party's id (the server uses its own, e.g. 0xFFFFFFFF)
     * @param instance the protocol instance (e.g. the FL round)
     */
    static KeySource Reproducible(const SecAggRunSeed& runSeed,
                                  uint32_t clientId,
                                  uint64_t instance);

    /// The mode of this source.
    KeyMode Mode() const
    {
        return m_mode;
    }

    /// Writes n random (or derived) bytes to out.
    void Fill(uint8_t* out, std::size_t n);

    /// 32 fresh bytes.
    MaskSecret Key();

    /// A uniform integer in [0, bound) (rejection sampling; bound >= 1).
    uint64_t Uniform(uint64_t bound);

  private:
    KeyMode m_mode{KeyMode::Random};
    SecAggRunSeed m_seed{};
    uint32_t m_client{0};
    uint64_t m_instance{0};
    uint64_t m_counter{0};
};

/// The prime of the Shamir field: p = 2^61 - 1.
constexpr uint64_t kShamirPrime = (uint64_t{1} << 61) - 1;
/// Field elements per 32-byte secret (limbs of 7, 7, 7, 7 and 4 bytes).
constexpr std::size_t kShamirLimbs = 5;
/// Bytes of a share's value on the wire (kShamirLimbs little-endian u64).
constexpr std::size_t kShamirShareBytes = 8 * kShamirLimbs;

/// One share of a 32-byte secret: the evaluation point and one field element per limb.
struct ShamirShare
{
    uint32_t x{0};                          ///< evaluation point, nonzero (a client id + 1)
    std::array<uint64_t, kShamirLimbs> y{}; ///< f_j(x) for limb j, each < kShamirPrime
};

/// (a * b) mod p in GF(2^61 - 1); a, b < p.
uint64_t ShamirMul(uint64_t a, uint64_t b);
/// (a + b) mod p; a, b < p.
uint64_t ShamirAdd(uint64_t a, uint64_t b);
/// (a - b) mod p; a, b < p.
uint64_t ShamirSub(uint64_t a, uint64_t b);
/// a^-1 mod p (Fermat: a^(p-2)); throws ConfigError naming "x" if a = 0.
uint64_t ShamirInverse(uint64_t a);

/**
 * f(x) = c_0 + c_1 x + ... + c_{t-1} x^{t-1} mod p at every x of `xs` (Horner).
 * Coefficients must be < p (ConfigError naming "coefficients" otherwise).
 */
std::vector<uint64_t> ShamirEvaluate(const std::vector<uint64_t>& coefficients,
                                     const std::vector<uint32_t>& xs);

/**
 * The Lagrange coefficients at 0 of the points xs: lambda_i = prod_{j != i} x_j / (x_j - x_i)
 * mod p, so that f(0) = sum_i lambda_i f(x_i) for any f of degree < xs.size(). O(m^2) for m
 * points; callers that reconstruct many secrets from the same holders compute them once.
 * Throws ConfigError naming "x" on an empty list, a zero or a repeated x.
 */
std::vector<uint64_t> ShamirLagrangeAtZero(const std::vector<uint32_t>& xs);

/**
 * Interpolation from a fixed set of t base points: the Lagrange basis values L_i(z) at any point
 * z, cached per z. Built in O(t^2) (barycentric weights); each new z costs O(t) (one batched
 * inversion). A server that reconstructs many secrets from the same holders builds one.
 */
class ShamirInterpolator
{
  public:
    /// Throws ConfigError naming "x" on an empty list, a zero or a repeated point.
    explicit ShamirInterpolator(std::vector<uint32_t> basePoints);

    /// The base points.
    const std::vector<uint32_t>& BasePoints() const
    {
        return m_base;
    }

    /// L_i(z) for every base point i (z = 0 gives the Lagrange coefficients at zero).
    const std::vector<uint64_t>& BasisAt(uint32_t z);

    /**
     * Reconstructs from shares whose first t points are the base points, in order; every
     * further share is checked against the interpolated polynomials. Returns false as
     * ShamirReconstruct does; throws ConfigError naming "shares" if the first t points differ
     * from the base points or fewer than t shares are given.
     */
    bool Reconstruct(const std::vector<ShamirShare>& shares, MaskSecret& out);

  private:
    static std::vector<uint64_t> BatchInverse(const std::vector<uint64_t>& a);

    std::vector<uint32_t> m_base;
    std::vector<uint64_t> m_weights;                   ///< w_i = 1 / prod_{m != i} (x_i - x_m)
    std::map<uint32_t, std::vector<uint64_t>> m_cache; ///< L_i(z) per z (stable references)
};

/**
 * Shares `secret` t-of-xs.size() at the points xs (Bonawitz et al. 2017, Section 3.1,
 * SS.share): per limb, a polynomial with the limb as constant term and t - 1 coefficients drawn
 * uniformly in GF(p) from `keys`.
 * Throws ConfigError naming "threshold" if t < 1 or t > xs.size(), "x" on a zero or repeated x.
 */
std::vector<ShamirShare> ShamirSplit(const MaskSecret& secret,
                                     uint32_t threshold,
                                     const std::vector<uint32_t>& xs,
                                     KeySource& keys);

/**
 * Reconstructs a secret from shares (Bonawitz et al. 2017, Section 3.1, SS.recon): Lagrange
 * interpolation at 0 over the first `threshold` shares, then every further share is checked to
 * lie on the same polynomials.
 * @return false if a further share disagrees or a limb is out of range for a 32-byte secret
 *         (the shares were not made by ShamirSplit of one secret); `out` is then unspecified.
 * Throws ConfigError naming "threshold" if t < 1, "shares" if fewer than t shares are given,
 * "x" on a zero or repeated x, "shares" if a value is not a field element.
 */
bool ShamirReconstruct(const std::vector<ShamirShare>& shares, uint32_t threshold, MaskSecret& out);

/// Packs a share's value (kShamirShareBytes, x is implied by the holder).
void PackShamirValue(const ShamirShare& share, uint8_t* out);
/// Unpacks a share's value; false if a limb is not below kShamirPrime.
bool UnpackShamirValue(const uint8_t* in, uint32_t x, ShamirShare& out);

} // namespace fl
} // namespace ns3

#endif // FL_SHAMIR_H
