/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Secure aggregation with pairwise masks (GFL seed 000, notes/gfl.md section 2.4; Bonawitz et
 * al., "Practical secure aggregation", CCS 2017), pure (no ns-3 header):
 *
 *  - every client holds an X25519 key pair; two clients agree on a shared secret by a real
 *    X25519 Diffie-Hellman key agreement (libsodium), hashed with both public keys (BLAKE2b);
 *  - per iteration the pair derives a fresh pairwise seed s_{kk',i} = BLAKE2b(secret; i), which
 *    is what a survivor reveals when its peer drops (it unmasks that iteration only);
 *  - a client encodes its vector in fixed point (two's complement in Z_{2^64}) and adds
 *    PRG(s_{kk',i}) for every sampled peer k' > k and subtracts it for k' < k, mod 2^64; the PRG
 *    is the ChaCha20 (IETF) key stream keyed by the seed, read as little-endian 64-bit words;
 *  - the server adds the masked vectors mod 2^64: every pair's masks cancel exactly, and decoding
 *    gives the sum of the clients' fixed-point vectors (error <= summands * 2^-(f+1) per entry);
 *  - dropout: if sampled clients drop after the masks were set up, each survivor reveals its
 *    pairwise seed with each dropped client and the server removes those masks (UnmaskSum). This
 *    is the single-mask variant: Bonawitz et al. add a second (self) mask and Shamir shares so
 *    that a dropped client that turns up late is still hidden; that part is not modelled.
 *
 * Keys are derived from a 64-bit seed so that a simulation is reproducible bit for bit; a
 * deployment would draw them with randombytes_buf. libsodium is a required dependency of the
 * module (utils/install-deps.sh installs libsodium-dev).
 */
#ifndef FL_SECURE_AGGREGATION_H
#define FL_SECURE_AGGREGATION_H

#include "ns3/fl-types.h"

#include <array>
#include <cstdint>
#include <vector>

namespace ns3
{
namespace fl
{

/// Bytes of an X25519 key, a shared secret and a pairwise seed.
constexpr std::size_t kMaskKeyBytes = 32;

/// An X25519 public key (what a client advertises through the server).
using MaskPublicKey = std::array<uint8_t, kMaskKeyBytes>;
/// A 32-byte secret: an X25519 secret key, a pair's shared secret or a per-iteration seed.
using MaskSecret = std::array<uint8_t, kMaskKeyBytes>;

/// A client's X25519 key pair.
struct MaskKeyPair
{
    MaskSecret secretKey;    ///< X25519 scalar (clamped by libsodium when used)
    MaskPublicKey publicKey; ///< X25519(secretKey, base point)
};

/**
 * The key pair of a client from a 64-bit seed: secret = BLAKE2b-256("fl-secagg-x25519-sk" ||
 * seed as 8 little-endian bytes), public = crypto_scalarmult_base(secret).
 */
MaskKeyPair MaskKeyPairFromSeed(uint64_t seed);

/**
 * The secret two clients share: X25519(own secret, peer public) (crypto_scalarmult), hashed
 * with BLAKE2b-256 together with both public keys in ascending byte order, so both ends derive
 * the same 32 bytes. Throws ConfigError naming "peer public key" if the peer's key is a
 * low-order point (the X25519 output is all zeros) or equals the own public key.
 */
MaskSecret AgreeMaskSecret(const MaskKeyPair& own, const MaskPublicKey& peer);

/**
 * The pairwise seed of iteration `iteration`: BLAKE2b-256 keyed by the shared secret over
 * "fl-secagg-iteration" || iteration (4 little-endian bytes). Revealing it unmasks that
 * iteration only.
 */
MaskSecret IterationMaskSeed(const MaskSecret& shared, uint32_t iteration);

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

/// A sampled peer of a masking client: its id and this iteration's pairwise seed with it.
struct MaskPeer
{
    uint32_t id{0};                  ///< the peer's client id (unit-local, distinct from self)
    const MaskSecret* seed{nullptr}; ///< IterationMaskSeed(AgreeMaskSecret(...), iteration)
};

/**
 * A client's masked upload: EncodeFixedPoint(x) + sum_{peer id > self} PRG(s) - sum_{peer id <
 * self} PRG(s), mod 2^64. O(L d) for L peers. Throws ConfigError as EncodeFixedPoint, naming
 * "peers" on a peer id equal to self, a repeated id or a null seed.
 */
std::vector<uint64_t> MaskVector(const Eigen::Ref<const Eigen::VectorXd>& x,
                                 uint32_t self,
                                 const std::vector<MaskPeer>& peers,
                                 unsigned fractionBits,
                                 std::size_t summands);

/// A pairwise seed a survivor reveals for a dropped peer (dropout recovery).
struct RevealedMaskSeed
{
    uint32_t survivor{0}; ///< the client that uploaded and reveals
    uint32_t dropped{0};  ///< the sampled client that did not upload
    MaskSecret seed{};    ///< IterationMaskSeed of the pair (survivor, dropped)
};

/**
 * The server's unmasking: adds the survivors' masked uploads mod 2^64, removes the masks each
 * survivor applied with each dropped client using the revealed seeds (a survivor s added
 * PRG(s_sd) if s < d and subtracted it if s > d), and decodes the sum of the survivors' vectors.
 * `survivors` lists the uploaders' ids in the order of `masked`; `dropped` the sampled clients
 * that did not upload. Throws ConfigError naming "masked" on no upload or mismatched sizes,
 * "survivors"/"dropped" on repeated or overlapping ids, and "revealed" if a (survivor, dropped)
 * seed is missing or names a client outside these sets.
 */
Eigen::VectorXd UnmaskSum(const std::vector<const std::vector<uint64_t>*>& masked,
                          const std::vector<uint32_t>& survivors,
                          const std::vector<uint32_t>& dropped,
                          const std::vector<RevealedMaskSeed>& revealed,
                          unsigned fractionBits);

// ------------------------------------------------------------------ on the wire (network mode)
//
// The GFL network mode (GflRoundStep, FlClientApplication) carries the protocol in Control
// messages (MessageAddress::aux = one of the tags below) and one raw LocalModel per survivor:
//   join:     client -> server   Join raw payload = client index (u32) || its public key (32 B)
//   roster:   server -> sampled  PackMaskRoster(sampled clients and their keys), every round
//   upload:   client -> server   PackMaskedWords(MaskVector(...)) as a raw LocalModel
//   request:  server -> survivors PackU32(dropped ids), only if a sampled client did not upload
//   reveal:   survivor -> server PackRevealedSeeds(its seeds with the dropped clients)
// All integers little-endian. The parsers return false, leaving `out` unspecified, on any
// malformed input (the caller drops and counts the message).

/// Control tag of the per-round roster (server -> sampled clients).
constexpr uint32_t kMaskRosterTag = 0x53414731u; // "SAG1"
/// Control tag of a reveal request (server -> survivors).
constexpr uint32_t kMaskRevealRequestTag = 0x53414732u; // "SAG2"
/// Control tag of a survivor's revealed seeds (survivor -> server).
constexpr uint32_t kMaskRevealTag = 0x53414733u; // "SAG3"

/// A sampled client of a round's roster: its id and the public key it advertised.
struct MaskRosterEntry
{
    uint32_t id{0};      ///< client id
    MaskPublicKey key{}; ///< X25519 public key
};

/// 36 bytes per entry: id (u32) || key (32 B).
std::vector<uint8_t> PackMaskRoster(const std::vector<MaskRosterEntry>& roster);
/// Parses PackMaskRoster bytes; false unless the length is a positive multiple of 36 and the
/// ids are strictly ascending.
bool UnpackMaskRoster(const std::vector<uint8_t>& bytes, std::vector<MaskRosterEntry>& out);

/// 8 bytes per word, little-endian.
std::vector<uint8_t> PackMaskedWords(const std::vector<uint64_t>& words);
/// Parses PackMaskedWords bytes; false unless the length is exactly 8 * `words`.
bool UnpackMaskedWords(const std::vector<uint8_t>& bytes,
                       std::size_t words,
                       std::vector<uint64_t>& out);

/// 40 bytes per seed: survivor (u32) || dropped (u32) || seed (32 B).
std::vector<uint8_t> PackRevealedSeeds(const std::vector<RevealedMaskSeed>& seeds);
/// Parses PackRevealedSeeds bytes; false unless the length is a positive multiple of 40.
bool UnpackRevealedSeeds(const std::vector<uint8_t>& bytes, std::vector<RevealedMaskSeed>& out);

} // namespace fl
} // namespace ns3

#endif // FL_SECURE_AGGREGATION_H
