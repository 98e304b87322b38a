/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The configuration of one secure-aggregation instance, the rule both sides derive it from, and
 * the guarantee it gives, pure (no ns-3 header). The protocol itself is in secagg-protocol.h.
 *
 * Notation (Bonawitz et al., "Practical Secure Aggregation for Privacy-Preserving Machine
 * Learning", ACM CCS 2017; SecAgg+ of Bell, Bonawitz, Gascón, Lepoint and Raykova, ACM CCS 2020):
 *  n    the roster: the clients sampled for the instance;
 *  P_u  the share holders of client u: the clients that receive a Shamir share of u's mask key
 *       s_u^SK and self-mask seed b_u. u keeps a share of its own secrets, so P_u = all n clients
 *       for SecAgg (the complete graph) and u with its k neighbours for SecAgg+ (a Harary graph);
 *  h    |P_u|: n for SecAgg, k + 1 for SecAgg+;
 *  t    the Shamir threshold: t shares of a secret reconstruct it, fewer reveal nothing;
 *  n_C  the colluders the configuration tolerates: clients that the server controls (for SecAgg+,
 *       the largest number of them among one client's holders that the graph allows, except with
 *       the probability SecAggPlusParameters bounds).
 *
 * The condition of the guarantee is 2t > h + n_C (CheckSecAggConfig). Before a client shares or
 * reveals anything it certifies the survivor list U3 by t signatures from the holders of every
 * client whose share it reveals; an honest client signs one U3 per instance, so two different
 * lists certified for the same owner would need 2t - h colluders among its h holders. Every honest
 * holder of an owner then reveals the same kind of share (of b_v if v survived, of s_v^SK if not)
 * and the server never holds t shares of both (it gets at most n_C < t of the other kind from its
 * colluders). The proof, and the theorem it gives for SecAgg, are in the documentation
 * (doc/fl-privacy.rst, "Secure aggregation", section "Threat model and guarantees").
 */
#ifndef FL_SECAGG_CONFIG_H
#define FL_SECAGG_CONFIG_H

#include "ns3/secagg-beacon.h"
#include "ns3/secagg-graph.h"
#include "ns3/secagg-wire.h"
#include "ns3/shamir.h"

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace ns3
{
namespace fl
{

/// Outcome of a protocol step or of handling one message.
enum class SecAggStatus : uint8_t
{
    Ok = 0,              ///< done
    Malformed,           ///< the message did not parse or contradicts its own fields
    WrongInstance,       ///< the message belongs to another protocol instance
    WrongPhase,          ///< the step or message is not expected now
    UnknownClient,       ///< a client not sampled, not a holder, or without a PKI key
    Duplicate,           ///< a second message from the same client in one round
    TooFewClients,       ///< fewer than t clients (or holders) where t are needed: abort
    MissingSelf,         ///< a list that should name the client does not, or with other keys
    DuplicateKey,        ///< two advertised public keys are equal
    BadSignature,        ///< an Ed25519 signature does not verify
    BadKey,              ///< an X25519 key is unusable (low-order point)
    BadCiphertext,       ///< a share ciphertext does not decrypt or names other parties
    NotSubset,           ///< U3 names a holder that is not in U2 or a client not sampled
    InconsistentRequest, ///< a second request contradicts the first (e.g. another U3)
    TooFewShares,        ///< fewer than t shares of a secret arrived: abort
    BadShares,           ///< shares disagree or give a key that does not match its public key
    Aborted,             ///< the party aborted earlier; see AbortStatus()
    BadConfiguration,    ///< an announced setup differs from what the client's own rule gives
    BadGraph,            ///< the announced SecAgg+ graph is not the one the beacon gives
    StaleBeacon,         ///< the setup's beacon round was already public when it arrived
};

/// A short English description of a status.
const char* SecAggStatusText(SecAggStatus status);

/// Communication graph.
enum class SecAggGraphKind : uint8_t
{
    Complete = 0, ///< Bonawitz et al. 2017: every client with every other
    Harary = 1,   ///< SecAgg+ (Bell et al. 2020): random Harary graph H(n, k)
};

/// Configuration of one protocol instance, known to every client and the server.
struct SecAggConfig
{
    uint64_t instance{0}; ///< protocol instance (e.g. the FL round); bound into every message
    std::vector<uint32_t> clients; ///< the roster, strictly ascending ids (< 0xFFFFFFFF)
    uint32_t threshold{0};         ///< t: shares needed to reconstruct (2 <= t <= h)
    std::size_t dim{0};            ///< model dimension d (>= 1)
    unsigned fractionBits{kDefaultMaskFractionBits};  ///< fixed-point fraction bits (1..52)
    SecAggGraphKind graph{SecAggGraphKind::Complete}; ///< complete (SecAgg) or Harary (SecAgg+)
    uint32_t neighbours{0}; ///< k, Harary only (even, SecAggPlusParameters chooses it)
    uint64_t graphSeed{0};  ///< Harary only: SecAggGraphSeed of the beacon value and roster
    uint32_t colluders{0};  ///< n_C: colluding clients tolerated (2t > h + n_C)
};

/// h: the share holders of each client, itself included (n, or k + 1 for a Harary graph).
uint32_t SecAggHolderCount(const SecAggConfig& config);

/**
 * Throws ConfigError naming the parameter: "clients" (fewer than 2, not ascending, the id
 * 0xFFFFFFFF), "dim" (0), "maskFractionBits" (not 1..52), "neighbours" (Harary: odd or < 2),
 * "threshold" (t < 2, t > h, or 2t <= h + n_C: then two survivor lists could both be certified
 * and a colluding server could reconstruct both secrets of one client).
 */
void CheckSecAggConfig(const SecAggConfig& config);

/**
 * P_id, the share holders of `id`: its graph neighbours and itself, ascending (the whole roster
 * for the complete graph). Throws ConfigError as CheckSecAggConfig, or naming "clients" if `id`
 * is not in the roster.
 */
std::vector<uint32_t> SecAggHolders(const SecAggConfig& config, uint32_t id);

/**
 * P_v for every v in P_id: the holder sets that the signatures `id` checks before it reveals are
 * counted in (by owner v). For the complete graph every entry is the roster.
 */
std::map<uint32_t, std::vector<uint32_t>> SecAggHoldersOfHolders(const SecAggConfig& config,
                                                                 uint32_t id);

/// A client's long-term Ed25519 identity (its verification key is in every party's PKI).
struct SecAggIdentity
{
    uint32_t id{0};                       ///< client id
    std::array<uint8_t, 64> signingKey{}; ///< libsodium Ed25519 secret key (seed || pk)
    Ed25519PublicKey verifyKey{};         ///< Ed25519 public key
};

/// A new identity: crypto_sign_seed_keypair on 32 bytes of `keys`.
SecAggIdentity MakeSecAggIdentity(uint32_t id, KeySource& keys);

/// The simulated PKI: every client's verification key, installed out of band.
using SecAggPki = std::map<uint32_t, Ed25519PublicKey>;

/**
 * BLAKE2b-256 of everything that defines the instance: instance, threshold, colluders, graph
 * kind, k, graph seed, dim, fraction bits and the roster. Bound into every signature, so that a
 * signature made under one roster or configuration is worthless under another (a server that
 * shows different clients different rosters splits them into separate instances, each checked
 * on its own).
 */
std::array<uint8_t, 32> SecAggConfigDigest(const SecAggConfig& config);

/**
 * The bytes a client signs in AdvertiseKeys: "fl-secagg-v2 keys" || SecAggConfigDigest || id ||
 * c^PK || s^PK. Fig. 4 of Bonawitz et al. signs c_u^PK || s_u^PK; the configuration is bound in
 * as well so that keys cannot be replayed into another instance, roster or configuration.
 */
std::vector<uint8_t> SecAggKeysSignedMessage(const SecAggConfig& config,
                                             const SecAggAdvertisedKeys& keys);

/// The bytes a client signs in ConsistencyCheck: "fl-secagg-v2 survivors" || digest || U3.
std::vector<uint8_t> SecAggSurvivorsSignedMessage(const SecAggConfig& config,
                                                  const std::vector<uint32_t>& survivors);

// ------------------------------------------------------------------ the rule

/// Marks SecAggRule::colluders as "derive it" (n_C = ceil(n / 3) - 1 with the default t).
constexpr uint32_t kSecAggAutoColluders = 0xFFFFFFFFu;

/**
 * How an application chooses each instance's configuration from the clients it sampled. Both
 * the server and every client apply the same rule to the same roster, and a client refuses an
 * announced configuration that differs (SecAggAcceptSetup): the server cannot choose a lower
 * threshold, a sparser graph, a coarser encoding or a smaller roster than the clients agreed to.
 */
struct SecAggRule
{
    SecAggGraphKind graph{SecAggGraphKind::Complete}; ///< SecAgg (complete) or SecAgg+ (Harary)
    /**
     * t; 0: the default. SecAgg: t = floor(2n / 3) + 1 when colluders is automatic (Bonawitz et
     * al.'s active setting t > 2n/3, n_C < n/3), else the smallest t with 2t > n + n_C and
     * t - n_C >= minHonest. SecAgg+: SecAggPlusParameters' t.
     */
    uint32_t threshold{0};
    /**
     * SecAgg: n_C, the colluders tolerated; kSecAggAutoColluders: the largest n_C the threshold
     * allows (ceil(n / 3) - 1 with the default t). SecAgg+ takes n_C from the threat (ignored).
     */
    uint32_t colluders{kSecAggAutoColluders};
    uint32_t minClients{2}; ///< the smallest roster a client takes part in (>= 2)
    uint32_t minHonest{2};  ///< the floor on t - n_C: honest inputs in any sum the server learns
    unsigned fractionBits{kDefaultMaskFractionBits}; ///< fixed-point fraction bits
    SecAggPlusThreat threat; ///< SecAgg+: the failure targets SecAggPlusParameters meets
};

/**
 * The configuration of instance `instance` over the sampled `clients` (ascending) for a model of
 * `dim` values under `rule` (see SecAggRule), with the Harary graph seed `graphSeed` (SecAgg+
 * only; SecAggGraphSeed of the beacon value). Throws ConfigError naming "clients" (fewer than
 * max(2, minClients)), "threshold" (a t that is not above (h + n_C) / 2, exceeds h, or leaves
 * t - n_C below minHonest), "colluders" (so many that no t <= n serves them), or as
 * SecAggPlusParameters.
 */
SecAggConfig MakeSecAggRoundConfig(uint64_t instance,
                                   const std::vector<uint32_t>& clients,
                                   std::size_t dim,
                                   const SecAggRule& rule,
                                   uint64_t graphSeed);

/// The setup message of a configuration; `beaconRound` is announced for a Harary graph only.
SecAggRoundSetup SecAggSetupOf(const SecAggConfig& config, uint64_t beaconRound = 0);

/**
 * What a client checks of an announced setup before it does anything else: it names the client,
 * the roster has at least max(2, rule.minClients) clients, the threshold, graph, neighbours and
 * fraction bits are those `rule` gives for this roster, the dimension is `dim`, and for a Harary
 * graph the graph seed is the one computed from `beacon`'s value of the announced round
 * (SecAggGraphSeed). Whether that round was still unpublished when the setup arrived is the
 * caller's check (it knows the time). Returns Ok and fills `config`, or UnknownClient (not
 * listed), TooFewClients (roster too small), Malformed (another dimension),
 * BadConfiguration (another t, graph or encoding, or a rule that cannot serve this roster) or
 * BadGraph (a Harary setup without a beacon).
 */
SecAggStatus SecAggAcceptSetup(uint64_t instance,
                               const SecAggRoundSetup& setup,
                               uint32_t self,
                               std::size_t dim,
                               const SecAggRule& rule,
                               const SecAggBeacon* beacon,
                               SecAggConfig& config);

// ------------------------------------------------------------------ the guarantee

/**
 * What one configuration guarantees, with its numbers (doc/fl-privacy.rst, "Secure aggregation",
 * section "Threat model and guarantees").
 */
struct SecAggGuarantee
{
    SecAggGraphKind graph{SecAggGraphKind::Complete}; ///< the variant
    uint32_t n{0};                                    ///< roster size
    uint32_t holders{0};                              ///< h
    uint32_t neighbours{0};                           ///< k (n - 1 for the complete graph)
    uint32_t threshold{0};                            ///< t
    uint32_t colluders{0};                            ///< n_C
    uint32_t minHonestInSum{0}; ///< t - n_C (SecAgg: proven against an active server)
    uint32_t dropouts{0};       ///< clients (SecAgg+: holders of one client) that may drop: h - t
    double corruptFraction{0.0}; ///< SecAgg+: the fraction of corrupt clients assumed
    double log2Failure{0.0};     ///< SecAgg+: log2 of the bound on a bad graph; -inf for SecAgg
    /// The statement a program prints: adversary, condition, numbers, and what is not protected.
    std::string Text() const;
};

/// The guarantee of `config` (SecAgg+'s failure bound recomputed from `threat`).
SecAggGuarantee SecAggGuaranteeOf(const SecAggConfig& config, const SecAggPlusThreat& threat = {});

} // namespace fl
} // namespace ns3

#endif // FL_SECAGG_CONFIG_H
