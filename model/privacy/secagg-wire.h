/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Wire messages of secure aggregation (Bonawitz et al., "Practical Secure Aggregation for
 * Privacy-Preserving Machine Learning", ACM CCS 2017, Fig. 4; SecAgg+ of Bell et al., ACM CCS
 * 2020, uses the same messages restricted to graph neighbours), pure (no ns-3 header).
 *
 * Every message starts with a 16-byte header:
 *   magic "FLSA" (4 bytes) || version (u8, kSecAggWireVersion) || type (u8, SecAggMessageType) ||
 *   reserved (u16, 0) || instance (u64: the protocol instance, e.g. the FL round)
 * then the body of its type. All integers are little-endian. Lists carry a u32 count that must
 * match the bytes that follow exactly; the count is checked against the bytes that arrived
 * before anything is allocated, so a sender cannot make a receiver allocate more than it sent.
 * Id lists are strictly ascending (no duplicates). The parsers return false on anything
 * malformed (the caller drops and counts the message); what they accept packs back to the same
 * bytes.
 */
#ifndef FL_SECAGG_WIRE_H
#define FL_SECAGG_WIRE_H

#include "ns3/shamir.h"

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace ns3
{
namespace fl
{

/// A message on the wire.
using SecAggBytes = std::vector<uint8_t>;
/// An Ed25519 verification (public) key.
using Ed25519PublicKey = std::array<uint8_t, 32>;
/// An Ed25519 detached signature.
using Ed25519Signature = std::array<uint8_t, 64>;

/// Wire format version.
constexpr uint8_t kSecAggWireVersion = 2;
/// Header bytes.
constexpr std::size_t kSecAggHeaderBytes = 16;
/// Largest count a list may declare (also bounded by the bytes that arrived).
constexpr uint32_t kSecAggMaxListEntries = 1u << 24;
/**
 * Plaintext of an encrypted share pair (Fig. 4, ShareKeys): sender u (u32) || recipient v (u32)
 * || instance (u64) || share of s_u^SK (40 bytes) || share of b_u (40 bytes).
 */
constexpr std::size_t kSecAggSharePlainBytes = 4 + 4 + 8 + 2 * kShamirShareBytes;
/// crypto_box ciphertext of a share pair: nonce (24) || MAC (16) || encrypted plaintext.
constexpr std::size_t kSecAggBoxBytes = 24 + 16 + kSecAggSharePlainBytes;
/// An encrypted share pair.
using SecAggBox = std::array<uint8_t, kSecAggBoxBytes>;

/// Message types (the header's type byte).
enum class SecAggMessageType : uint8_t
{
    AdvertiseKeys = 1,        ///< client -> server, round 0
    KeyList = 2,              ///< server -> clients, end of round 0
    EncryptedShares = 3,      ///< client -> server, round 1
    ForwardedShares = 4,      ///< server -> client, end of round 1
    MaskedInput = 5,          ///< client -> server, round 2
    SurvivorList = 6,         ///< server -> clients, end of round 2 (U3)
    ConsistencySignature = 7, ///< client -> server, round 3
    SignatureList = 8,        ///< server -> clients, end of round 3 (U4 and signatures)
    UnmaskShares = 9,         ///< client -> server, round 4
    RoundSetup = 10,          ///< server -> sampled clients, before round 0 (the configuration)
};

/// Reads the header; false unless magic, version, reserved bytes and a known type are right.
bool PeekSecAggHeader(const SecAggBytes& bytes, SecAggMessageType& type, uint64_t& instance);

/// A client's advertised keys (Fig. 4, AdvertiseKeys): c_u^PK, s_u^PK and its signature.
struct SecAggAdvertisedKeys
{
    uint32_t id{0};         ///< client id
    MaskPublicKey cPk{};    ///< X25519 key for encrypting shares (crypto_box)
    MaskPublicKey sPk{};    ///< X25519 key for the pairwise masks
    Ed25519Signature sig{}; ///< Ed25519 signature (see SecAggKeysSignedMessage)
};

/// Bytes of one SecAggAdvertisedKeys on the wire.
constexpr std::size_t kSecAggKeysEntryBytes = 4 + 32 + 32 + 64;

/// header || entry.
SecAggBytes PackSecAggAdvertiseKeys(uint64_t instance, const SecAggAdvertisedKeys& keys);
/// Parses PackSecAggAdvertiseKeys bytes.
bool ParseSecAggAdvertiseKeys(const SecAggBytes& bytes,
                              uint64_t& instance,
                              SecAggAdvertisedKeys& out);

/// header || count (u32) || entries (ascending ids).
SecAggBytes PackSecAggKeyList(uint64_t instance, const std::vector<SecAggAdvertisedKeys>& list);
/// Parses PackSecAggKeyList bytes (false on a count that does not match, unsorted ids).
bool ParseSecAggKeyList(const SecAggBytes& bytes,
                        uint64_t& instance,
                        std::vector<SecAggAdvertisedKeys>& out);

/// An encrypted share pair and the other end's id (recipient going up, sender coming down).
struct SecAggAddressedBox
{
    uint32_t peer{0}; ///< the recipient (EncryptedShares) or the sender (ForwardedShares)
    SecAggBox box{};  ///< the ciphertext
};

/// Bytes of one SecAggAddressedBox on the wire.
constexpr std::size_t kSecAggBoxEntryBytes = 4 + kSecAggBoxBytes;

/// A list of boxes from one client (EncryptedShares) or to one client (ForwardedShares).
struct SecAggBoxList
{
    uint32_t party{0};                     ///< the sender (up) or the recipient (down)
    std::vector<SecAggAddressedBox> boxes; ///< ascending peers
};

/// header || party (u32) || count (u32) || entries; type EncryptedShares.
SecAggBytes PackSecAggEncryptedShares(uint64_t instance, const SecAggBoxList& list);
/// Parses PackSecAggEncryptedShares bytes.
bool ParseSecAggEncryptedShares(const SecAggBytes& bytes, uint64_t& instance, SecAggBoxList& out);
/// As PackSecAggEncryptedShares with type ForwardedShares.
SecAggBytes PackSecAggForwardedShares(uint64_t instance, const SecAggBoxList& list);
/// Parses PackSecAggForwardedShares bytes.
bool ParseSecAggForwardedShares(const SecAggBytes& bytes, uint64_t& instance, SecAggBoxList& out);

/// A client's masked input y_u (Fig. 4, MaskedInputCollection).
struct SecAggMaskedInput
{
    uint32_t from{0};            ///< sender
    std::vector<uint64_t> words; ///< y_u in Z_{2^64}: d fixed-point words and the weight word
};

/// header || from (u32) || count (u32) || words (u64 each).
SecAggBytes PackSecAggMaskedInput(uint64_t instance, const SecAggMaskedInput& input);
/**
 * Parses PackSecAggMaskedInput bytes; false unless the count is exactly `expectedWords` (the
 * model dimension + 1) and matches the bytes: a partly arrived upload is rejected as a whole.
 */
bool ParseSecAggMaskedInput(const SecAggBytes& bytes,
                            std::size_t expectedWords,
                            uint64_t& instance,
                            SecAggMaskedInput& out);

/// header || count (u32) || ids (u32, ascending): U3.
SecAggBytes PackSecAggSurvivorList(uint64_t instance, const std::vector<uint32_t>& ids);
/// Parses PackSecAggSurvivorList bytes.
bool ParseSecAggSurvivorList(const SecAggBytes& bytes,
                             uint64_t& instance,
                             std::vector<uint32_t>& ids);

/// A client's signature on U3 (Fig. 4, ConsistencyCheck).
struct SecAggSignedId
{
    uint32_t id{0};         ///< signer
    Ed25519Signature sig{}; ///< signature (see SecAggSurvivorsSignedMessage)
};

/// header || id (u32) || signature (64).
SecAggBytes PackSecAggConsistencySignature(uint64_t instance, const SecAggSignedId& s);
/// Parses PackSecAggConsistencySignature bytes.
bool ParseSecAggConsistencySignature(const SecAggBytes& bytes,
                                     uint64_t& instance,
                                     SecAggSignedId& out);

/// header || count (u32) || (id, signature) entries, ascending ids: U4 and their signatures.
SecAggBytes PackSecAggSignatureList(uint64_t instance, const std::vector<SecAggSignedId>& list);
/// Parses PackSecAggSignatureList bytes.
bool ParseSecAggSignatureList(const SecAggBytes& bytes,
                              uint64_t& instance,
                              std::vector<SecAggSignedId>& out);

/// Which secret a revealed share belongs to (Fig. 4, Unmasking).
enum class SecAggShareKind : uint8_t
{
    SelfMaskSeed = 0, ///< a share of b_v: v survived (v in U3)
    MaskKey = 1,      ///< a share of s_v^SK: v dropped (v in U2 \ U3)
};

/// One revealed share: whose secret, which kind, and the value (x = holder id + 1).
struct SecAggRevealedShare
{
    uint32_t owner{0};                                   ///< v, whose secret it is
    SecAggShareKind kind{SecAggShareKind::SelfMaskSeed}; ///< b_v or s_v^SK
    ShamirShare share;                                   ///< the holder's share
};

/// Bytes of one SecAggRevealedShare on the wire: owner, kind, value.
constexpr std::size_t kSecAggRevealEntryBytes = 4 + 1 + kShamirShareBytes;

/// A client's unmasking answer.
struct SecAggUnmaskShares
{
    uint32_t from{0};                        ///< the holder
    std::vector<SecAggRevealedShare> shares; ///< ascending owners, one kind per owner
};

/// header || from (u32) || count (u32) || entries.
SecAggBytes PackSecAggUnmaskShares(uint64_t instance, const SecAggUnmaskShares& answer);
/**
 * Parses PackSecAggUnmaskShares bytes; false on unsorted or repeated owners, an unknown kind,
 * a value that is not a field element, or from = 0xFFFFFFFF (x would be 0). Sets share.x to
 * from + 1.
 */
bool ParseSecAggUnmaskShares(const SecAggBytes& bytes, uint64_t& instance, SecAggUnmaskShares& out);

/**
 * The configuration of one instance as a server announces it to the sampled clients before
 * round 0 (not a message of Fig. 4, which assumes the parties agree on it: in a simulation the
 * server samples the clients, so it has to tell them who takes part). A client computes the
 * threshold, the graph and the fixed-point resolution itself from the roster and refuses a setup
 * that differs (a server cannot lower t); the roster, the beacon round and the dimension are the
 * server's, and the SecAgg+ graph is computed by every party from the beacon's value of that
 * round (SecAggGraphSeed), which must not be public yet when the setup arrives.
 */
struct SecAggRoundSetup
{
    uint8_t graph{0};              ///< 0 complete (SecAgg), 1 Harary (SecAgg+)
    uint8_t fractionBits{0};       ///< fixed-point fraction bits
    uint32_t threshold{0};         ///< t
    uint32_t neighbours{0};        ///< k (Harary)
    uint64_t beaconRound{0}; ///< Harary: the beacon round the graph is drawn from (secagg-beacon.h)
    uint64_t dim{0};               ///< model dimension d
    std::vector<uint32_t> clients; ///< the sampled clients, ascending
};

/**
 * header || graph (u8) || fractionBits (u8) || reserved (u16, 0) || threshold (u32) ||
 * neighbours (u32) || beaconRound (u64) || dim (u64) || count (u32) || ids (u32, ascending).
 */
SecAggBytes PackSecAggRoundSetup(uint64_t instance, const SecAggRoundSetup& setup);
/// Parses PackSecAggRoundSetup bytes (false on unsorted ids, a count that does not match, a
/// nonzero reserved field).
bool ParseSecAggRoundSetup(const SecAggBytes& bytes, uint64_t& instance, SecAggRoundSetup& out);

/**
 * The sender id of a client -> server message (AdvertiseKeys, EncryptedShares, MaskedInput,
 * ConsistencySignature, UnmaskShares: the u32 right after the header), without parsing the rest;
 * false on another type or fewer bytes. A network server checks it against the transport's
 * sender before the message goes any further.
 */
bool PeekSecAggSender(const SecAggBytes& bytes, uint32_t& sender);

} // namespace fl
} // namespace ns3

#endif // FL_SECAGG_WIRE_H
