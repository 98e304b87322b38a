/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The building blocks of secure aggregation (Bonawitz, Ivanov, Kreuter, Marcedone, McMahan,
 * Patel, Ramage, Segal and Seth, "Practical Secure Aggregation for Privacy-Preserving Machine
 * Learning", ACM CCS 2017), pure (no ns-3 header); the protocol itself (double masking, Shamir
 * shares, signed keys, the consistency check) is secagg-protocol.h, and secure-aggregation.h
 * includes every part:
 *
 *  - X25519 key agreement (libsodium crypto_scalarmult), hashed with both public keys
 *    (BLAKE2b), so that two clients derive the same 32-byte pairwise secret;
 *  - fixed point: a vector is encoded as two's complement words in Z_{2^64} with f fraction
 *    bits, so that masks and sums are exact modular arithmetic;
 *  - the mask PRG: the ChaCha20 (IETF) key stream keyed by a 32-byte seed, read as
 *    little-endian 64-bit words, added or subtracted mod 2^64.
 *
 * libsodium is a required dependency of the module (utils/install-deps.sh installs
 * libsodium-dev).
 */
#ifndef FL_SECAGG_PRIMITIVES_H
#define FL_SECAGG_PRIMITIVES_H

#include "ns3/fl-types.h"

#include <array>
#include <cstdint>
#include <vector>

namespace ns3
{
namespace fl
{

/// Initialises libsodium once (thread-safe, idempotent); throws DataError if it cannot.
void EnsureSodiumReady();

/// Bytes of an X25519 key, a shared secret and a pairwise seed.
constexpr std::size_t kMaskKeyBytes = 32;

/// An X25519 public key (what a client advertises through the server).
using MaskPublicKey = std::array<uint8_t, kMaskKeyBytes>;
/// A 32-byte secret: an X25519 secret key, a pair's shared secret or a mask seed.
using MaskSecret = std::array<uint8_t, kMaskKeyBytes>;

/// A client's X25519 key pair.
struct MaskKeyPair
{
    MaskSecret secretKey;    ///< X25519 scalar (clamped by libsodium when used)
    MaskPublicKey publicKey; ///< X25519(secretKey, base point)
};

/**
 * The secret two clients share: X25519(own secret, peer public) (crypto_scalarmult), hashed
 * with BLAKE2b-256 together with both public keys in ascending byte order, so both ends derive
 * the same 32 bytes. Throws ConfigError naming "peer public key" if the peer's key is a
 * low-order point (the X25519 output is all zeros) or equals the own public key.
 */
MaskSecret AgreeMaskSecret(const MaskKeyPair& own, const MaskPublicKey& peer);

/// Fixed-point fraction bits used when none are given: 2^-40 ~ 9.1e-13 resolution.
constexpr unsigned kDefaultMaskFractionBits = 40;

/**
 * Encodes x in fixed point with f fraction bits: q_j = round(x_j 2^f) as a two's complement
 * 64-bit word. `summands` is the number of such vectors that will be added (the sampled
 * clients): every |q_j| must stay below 2^62 / summands so that the sum cannot wrap. Throws
 * ConfigError naming "maskFractionBits" if f is not in [1, 52], "summands" if it is 0, and
 * "maskFractionBits" (fix: fewer fraction bits or smaller values) if an entry is too large or
 * not finite.
 */
void EncodeFixedPoint(const Eigen::Ref<const Eigen::VectorXd>& x,
                      unsigned fractionBits,
                      std::size_t summands,
                      std::vector<uint64_t>& out);

/// Decodes a (sum of) fixed-point vector(s): x_j = int64(q_j) 2^-f.
Eigen::VectorXd DecodeFixedPoint(const std::vector<uint64_t>& words, unsigned fractionBits);

/**
 * Adds (add = true) or subtracts the mask PRG(seed) to `words` mod 2^64: the ChaCha20-IETF key
 * stream (crypto_stream_chacha20_ietf, zero nonce) of 8 * words.size() bytes, read as
 * little-endian uint64 words.
 */
void ApplyPairwiseMask(std::vector<uint64_t>& words, const MaskSecret& seed, bool add);

} // namespace fl
} // namespace ns3

#endif // FL_SECAGG_PRIMITIVES_H
