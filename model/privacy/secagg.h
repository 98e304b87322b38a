/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The secure-aggregation protocol of Bonawitz, Ivanov, Kreuter, Marcedone, McMahan, Patel,
 * Ramage, Segal and Seth, "Practical Secure Aggregation for Privacy-Preserving Machine Learning",
 * ACM CCS 2017 (its Fig. 4, with the parts the paper needs against an active adversary: signed
 * keys under a PKI and the ConsistencyCheck round), and its SecAgg+ variant of Bell, Bonawitz,
 * Gascón, Lepoint and Raykova, "Secure Single-Server Aggregation with (Poly)Logarithmic
 * Overhead", ACM CCS 2020 (each client masks with and shares to only its k neighbours in a random
 * Harary graph), as pure state machines (no ns-3 header) that consume and produce byte messages
 * (secagg-wire.h). The network apps decide when and to whom; this file decides what.
 *
 * Rounds (Fig. 4), client u, server S:
 *  0 AdvertiseKeys: u draws two X25519 key pairs, c_u (crypto_box encryption of shares) and s_u
 *    (pairwise masks), and signs (c_u^PK, s_u^PK) with its Ed25519 key. Verification keys come
 *    from a PKI installed at construction (SecAggPki), never from the server. S collects U1
 *    (|U1| >= t or abort) and sends each client the keys of its share holders in U1.
 *  1 ShareKeys: u checks the list (>= t entries, itself with its own keys, no repeated key,
 *    every signature valid), draws the self-mask seed b_u, t-of-|U1| Shamir-shares s_u^SK and b_u
 *    (shamir.h), and encrypts each holder's pair end to end (crypto_box; u, v and the instance
 *    inside the ciphertext). S forwards; U2 = senders (abort below t).
 *  2 MaskedInputCollection: u infers U2 from the ciphertexts it got (refuses below t) and sends
 *      y_u = x_u + PRG(b_u) + sum_{v in U2, u < v} PRG(s_{u,v}) - sum_{v in U2, u > v} PRG(s_{u,v})
 *    mod 2^64 over fixed-point words (EncodeFixedPoint, ApplyPairwiseMask of
 *    secure-aggregation.h), s_{u,v} = AgreeMaskSecret(s_u, s_v^PK). (Fig. 4 writes the sign the
 *    other way round, Delta_{u,v} = 1 for u > v; either cancels.) S collects U3 (abort below t).
 *  3 ConsistencyCheck: S sends U3; u checks U3 (contains u, at least t of u's holders, no holder
 *    outside U2) and signs it. A client signs one U3 per instance: a second, different U3 is
 *    refused. S collects U4 (abort below t) and relays the signatures.
 *  4 Unmasking: u checks that at least t of its holders signed the same U3 (every listed
 *    signature valid), decrypts its ciphertexts (checking u, v and the instance) and reveals,
 *    for each v in U2: its share of b_v if v is in U3, its share of s_v^SK if not; never both
 *    kinds for one v. S reconstructs (>= t shares each), removes PRG(b_u) of every survivor and
 *    the masks between survivors and dropped clients (recomputed from s_v^SK and the survivors'
 *    s^PK), and decodes the sum. Everything below t is an abort with a status, never a wrong sum.
 *
 * Weighted aggregation: a client uploads Encode(n_k w_k) and n_k (an integer word, the last of
 * the d + 1 words), both masked, so the server learns only sum n_k w_k and sum n_k.
 *
 * What an input that did not arrive in full becomes: the parser rejects the upload as a whole,
 * the client is not in U3, and no honest client ever reveals a share of its b_u, so whatever
 * part of y_u reached the server stays masked by PRG(b_u).
 *
 * Threshold: the configuration requires 2 <= t and a majority of each client's holders (2t >
 * holders): against a server that shows different clients different U3 lists, the consistency
 * check then certifies one U3 for every client it lets answer (two lists would need 2t
 * signatures from at most `holders` clients that each sign once). The SecAgg+ caveat: a client
 * checks the signatures of its own holders, so the certified view is per neighbourhood.
 *
 * Keys: KeySource (shamir.h). Random mode (libsodium randombytes_buf) is the default and the
 * secure one; Reproducible mode derives every key from a 256-bit run seed for bit-identical
 * simulation studies and is INSECURE (anyone knowing the seed recomputes every mask).
 */
#ifndef FL_SECAGG_H
#define FL_SECAGG_H

#include "ns3/secagg-graph.h"
#include "ns3/secagg-wire.h"
#include "ns3/secure-aggregation.h"
#include "ns3/shamir.h"

#include <array>
#include <cstdint>
#include <map>
#include <set>
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
    std::vector<uint32_t> clients; ///< the sampled clients, strictly ascending ids (< 0xFFFFFFFF)
    uint32_t threshold{0};         ///< t: shares needed to reconstruct (2 <= t, 2t > holders)
    std::size_t dim{0};            ///< model dimension d (>= 1)
    unsigned fractionBits{kDefaultMaskFractionBits};  ///< fixed-point fraction bits (1..52)
    SecAggGraphKind graph{SecAggGraphKind::Complete}; ///< complete (SecAgg) or Harary (SecAgg+)
    uint32_t neighbours{0}; ///< k, Harary only (even, SecAggPlusParameters chooses it)
    uint64_t graphSeed{0};  ///< Harary only: the server's seed of the node permutation
};

/**
 * Throws ConfigError naming the parameter: "clients" (fewer than 2, not ascending, the id
 * 0xFFFFFFFF), "dim" (0), "maskFractionBits" (not 1..52), "neighbours" (Harary: odd or < 2),
 * "threshold" (t < 2, t above a client's holders, or not a majority of them).
 */
void CheckSecAggConfig(const SecAggConfig& config);

/**
 * The share holders of `id`: its graph neighbours and itself, ascending (all sampled clients
 * for the complete graph). Throws ConfigError as CheckSecAggConfig, or naming "clients" if `id`
 * is not sampled.
 */
std::vector<uint32_t> SecAggHolders(const SecAggConfig& config, uint32_t id);

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
 * The bytes a client signs in AdvertiseKeys: "fl-secagg-v1 keys" || instance (u64) ||
 * threshold (u32) || graph kind (u8) || k (u32) || graph seed (u64) || dim (u64) || id (u32) ||
 * c^PK || s^PK. Fig. 4 signs c_u^PK || s_u^PK; the configuration is bound in as well so that keys
 * cannot be replayed into another instance or configuration.
 */
std::vector<uint8_t> SecAggKeysSignedMessage(const SecAggConfig& config,
                                             const SecAggAdvertisedKeys& keys);

/// The bytes a client signs in ConsistencyCheck: "fl-secagg-v1 survivors" || instance || U3.
std::vector<uint8_t> SecAggSurvivorsSignedMessage(const SecAggConfig& config,
                                                  const std::vector<uint32_t>& survivors);

/**
 * One client of one protocol instance (Fig. 4, the "User" column). Steps must be called in
 * order; each returns Ok and fills `out` with the message to send, or a refusal status (then
 * the client has aborted and sends nothing more), or WrongPhase (called out of order; nothing
 * changes).
 */
class SecAggClient
{
  public:
    /**
     * @param config the instance (checked: CheckSecAggConfig)
     * @param identity this client's Ed25519 identity (its id must be sampled)
     * @param pki every client's verification key
     * @param keys where this client's keys, b_u, Shamir coefficients and nonces come from
     */
    SecAggClient(const SecAggConfig& config,
                 const SecAggIdentity& identity,
                 const SecAggPki& pki,
                 KeySource keys);

    /// This client's id.
    uint32_t Id() const
    {
        return m_id;
    }

    /// Round 0: draws c_u, s_u and sends them signed.
    SecAggStatus AdvertiseKeys(SecAggBytes& out);

    /// Round 1: checks the key list, shares s_u^SK and b_u, encrypts them to the holders.
    SecAggStatus ShareKeys(const SecAggBytes& keyList, SecAggBytes& out);

    /**
     * Round 2: infers U2 from the forwarded ciphertexts and sends y_u for the input x (d values)
     * with weight n_k (the upload is n_k x and n_k; use 1 for a plain sum). Throws ConfigError
     * naming "x" (wrong size), "weight" (0 or so large that the sum of n weights could wrap), or
     * as EncodeFixedPoint.
     */
    SecAggStatus MaskInput(const SecAggBytes& forwardedShares,
                           const Eigen::Ref<const Eigen::VectorXd>& x,
                           uint64_t weight,
                           SecAggBytes& out);

    /// Round 3: checks U3 and signs it; the same U3 again gets the same answer, another is refused.
    SecAggStatus ConsistencyCheck(const SecAggBytes& survivorList, SecAggBytes& out);

    /// Round 4: checks >= t signatures on U3 and reveals one share kind per member of U2.
    SecAggStatus Unmask(const SecAggBytes& signatureList, SecAggBytes& out);

    /// True once the client refused a message and stopped.
    bool Aborted() const
    {
        return m_abort != SecAggStatus::Ok;
    }

    /// Why the client aborted (Ok if it did not).
    SecAggStatus AbortStatus() const
    {
        return m_abort;
    }

  private:
    enum class Phase : uint8_t
    {
        Advertise,
        Share,
        Mask,
        Check,
        Unmask,
        Done
    };

    SecAggStatus Refuse(SecAggStatus s);
    bool IsHolder(uint32_t id) const;

    SecAggConfig m_cfg;
    uint32_t m_id;
    SecAggIdentity m_identity;
    SecAggPki m_pki;
    KeySource m_keys;
    std::vector<uint32_t> m_holders; ///< neighbours and self, ascending
    Phase m_phase{Phase::Advertise};
    SecAggStatus m_abort{SecAggStatus::Ok};

    MaskKeyPair m_c;                                      ///< c_u
    MaskKeyPair m_s;                                      ///< s_u
    MaskSecret m_b{};                                     ///< b_u
    std::map<uint32_t, SecAggAdvertisedKeys> m_u1;        ///< holders' keys (incl. self)
    std::map<uint32_t, std::array<uint8_t, 32>> m_boxKey; ///< crypto_box_beforenm per holder
    ShamirShare m_ownS;                                   ///< own share of s_u^SK
    ShamirShare m_ownB;                                   ///< own share of b_u
    std::map<uint32_t, SecAggBox> m_received;             ///< e_{v,u} per sender v
    std::vector<uint32_t> m_u2;                           ///< U2 as seen by u (holders), ascending
    std::vector<uint32_t> m_u3;                           ///< the one U3 this client signs
    SecAggBytes m_signatureOut;                           ///< its answer in round 3
    SecAggBytes m_unmaskOut;                              ///< its answer in round 4
    std::map<uint32_t, SecAggShareKind> m_revealed;       ///< the kind revealed per owner
};

/// The server's output.
struct SecAggResult
{
    Eigen::VectorXd sum;             ///< sum over U3 of n_k x_k, decoded
    uint64_t totalWeight{0};         ///< sum over U3 of n_k
    std::vector<uint32_t> survivors; ///< U3
    std::vector<uint32_t> dropped;   ///< U2 \ U3

    /// sum / totalWeight (the weighted mean); throws ConfigError naming "totalWeight" if 0.
    Eigen::VectorXd Mean() const;
};

/**
 * The server of one protocol instance (Fig. 4, the "Server" column). Receive* handles one
 * message of the current round (Ok, or a status saying why it was dropped; a dropped message
 * changes nothing); the round-ending methods close the round (abort with TooFewClients below t)
 * and fill one message per recipient.
 */
class SecAggServer
{
  public:
    /// @param config the instance (checked); @param pki every client's verification key
    SecAggServer(const SecAggConfig& config, const SecAggPki& pki);

    /// Round 0 message (checked against the PKI).
    SecAggStatus ReceiveAdvertisedKeys(const SecAggBytes& message);
    /// Ends round 0: U1; each client gets the keys of its holders in U1.
    SecAggStatus BroadcastKeys(std::map<uint32_t, SecAggBytes>& out);
    /// Round 1 message: one ciphertext for each of the sender's other holders in U1.
    SecAggStatus ReceiveEncryptedShares(const SecAggBytes& message);
    /// Ends round 1: U2; each member gets the ciphertexts addressed to it from U2.
    SecAggStatus ForwardShares(std::map<uint32_t, SecAggBytes>& out);
    /// Round 2 message (a partial upload does not parse and is dropped).
    SecAggStatus ReceiveMaskedInput(const SecAggBytes& message);
    /// Ends round 2: U3, sent to every member.
    SecAggStatus AnnounceSurvivors(std::map<uint32_t, SecAggBytes>& out);
    /// Round 3 message (the signature is verified).
    SecAggStatus ReceiveConsistencySignature(const SecAggBytes& message);
    /// Ends round 3: U4; each member gets the signatures of its holders in U4.
    SecAggStatus RelaySignatures(std::map<uint32_t, SecAggBytes>& out);
    /// Round 4 message (shares of the wrong kind or from a non-holder make it Malformed).
    SecAggStatus ReceiveUnmaskShares(const SecAggBytes& message);
    /// Ends round 4: reconstructs, unmasks and decodes.
    SecAggStatus Finish(SecAggResult& result);

    /// U_index of Fig. 4 (index 1 .. 5: key senders, share senders, input senders, signers,
    /// unmask responders), ascending; empty until the round that fixes it has ended.
    const std::vector<uint32_t>& Set(int index) const;

    /// The status of the abort, Ok if none.
    SecAggStatus AbortStatus() const
    {
        return m_abort;
    }

  private:
    enum class Phase : uint8_t
    {
        Keys,
        Shares,
        Inputs,
        Signatures,
        Unmask,
        Done
    };

    SecAggStatus Abort(SecAggStatus s);
    const std::vector<uint32_t>& HoldersOf(uint32_t id) const;

    SecAggConfig m_cfg;
    SecAggPki m_pki;
    std::map<uint32_t, std::vector<uint32_t>> m_holders;
    Phase m_phase{Phase::Keys};
    SecAggStatus m_abort{SecAggStatus::Ok};
    std::vector<uint32_t> m_set[5];
    std::map<uint32_t, SecAggAdvertisedKeys> m_keys;
    std::map<uint32_t, SecAggBoxList> m_boxes;
    std::map<uint32_t, std::vector<uint64_t>> m_inputs;
    std::map<uint32_t, Ed25519Signature> m_signatures;
    std::map<uint32_t, SecAggUnmaskShares> m_unmask;
};

// ------------------------------------------------------------------ rounds of an application

/**
 * How an application chooses each instance's configuration from the clients it sampled. Both
 * the server and every client apply the same rule to the same number of clients, and a client
 * refuses an announced configuration that differs (SecAggMatchesSetup), so the server cannot
 * choose a lower threshold, a sparser graph or a coarser encoding than the clients agreed to.
 */
struct SecAggRule
{
    SecAggGraphKind graph{SecAggGraphKind::Complete}; ///< SecAgg (complete) or SecAgg+ (Harary)
    /// t; 0: SecAgg the smallest majority floor(n / 2) + 1, SecAgg+ SecAggPlusParameters' t
    uint32_t threshold{0};
    unsigned fractionBits{kDefaultMaskFractionBits}; ///< fixed-point fraction bits
    SecAggPlusThreat threat; ///< SecAgg+: the failure targets SecAggPlusParameters meets
};

/**
 * The configuration of instance `instance` over the sampled `clients` (ascending) for a model of
 * `dim` values under `rule`: the complete graph with t = rule.threshold or floor(n / 2) + 1
 * (SecAgg, Bonawitz et al. 2017 need t > n / 2 against an active server; see the header
 * comment); or k and t from SecAggPlusParameters(n, rule.threat) (SecAgg+; the complete graph
 * when it says so or for n < 3), t replaced by rule.threshold if that is nonzero; graphSeed is
 * kept for a Harary graph only. Throws ConfigError as CheckSecAggConfig ("clients" for n < 2,
 * "threshold" for a t that is not a majority of the holders or exceeds them) or
 * SecAggPlusParameters.
 */
SecAggConfig MakeSecAggRoundConfig(uint64_t instance,
                                   const std::vector<uint32_t>& clients,
                                   std::size_t dim,
                                   const SecAggRule& rule,
                                   uint64_t graphSeed);

/// The setup message of a configuration (secagg-wire.h, SecAggRoundSetup).
SecAggRoundSetup SecAggSetupOf(const SecAggConfig& config);

/**
 * What a client checks of an announced setup: it names the client, and the threshold, graph,
 * neighbours and fraction bits are those `rule` gives for its number of clients, for a model of
 * `dim` values. Returns Ok and fills `config`, or Malformed (a bad configuration, another
 * dimension), UnknownClient (the client is not listed) or TooFewClients (fewer than 2 clients,
 * or fewer than the rule's t).
 */
SecAggStatus SecAggAcceptSetup(uint64_t instance,
                               const SecAggRoundSetup& setup,
                               uint32_t self,
                               std::size_t dim,
                               const SecAggRule& rule,
                               SecAggConfig& config);

/**
 * What one instance decodes when exactly the clients of `inputs` survive, computed without any
 * mask: the sum over i of EncodeFixedPoint(weights[i] x_i, fractionBits, summands) in Z_{2^64},
 * decoded, and the sum of the weights (SecAggResult sum and totalWeight; survivors and dropped
 * left empty). Bit for bit what SecAggServer::Finish gives for those survivors, whatever the
 * keys, so an in-process run that calls it equals a network run of the protocol. `summands` is
 * the number of configured clients n (the bound the encoding checks). Throws ConfigError as
 * SecAggClient::MaskInput ("x", "weight", "maskFractionBits").
 */
SecAggResult SecAggPlainSum(const std::vector<const Eigen::VectorXd*>& inputs,
                            const std::vector<uint64_t>& weights,
                            unsigned fractionBits,
                            std::size_t summands);

// ------------------------------------------------------------------ in-process runs

/// Clients that stop sending from a given round on (a dropout model for tests and benchmarks).
struct SecAggDropouts
{
    std::set<uint32_t> beforeKeys;        ///< send nothing at all
    std::set<uint32_t> beforeShares;      ///< stop after AdvertiseKeys
    std::set<uint32_t> beforeInput;       ///< stop after ShareKeys (not in U2's upload set)
    std::set<uint32_t> beforeConsistency; ///< stop after the masked input
    std::set<uint32_t> beforeUnmask;      ///< stop after signing U3
};

/// Cost of one party in an in-process run.
struct SecAggPartyCost
{
    double seconds{0.0};       ///< wall time spent in this party's steps
    uint64_t bytesSent{0};     ///< message bytes it produced
    uint64_t bytesReceived{0}; ///< message bytes addressed to it
};

/// Outcome of RunSecAggInProcess.
struct SecAggRunOutcome
{
    SecAggStatus status{SecAggStatus::Ok};       ///< Ok or the server's abort status
    SecAggResult result;                         ///< valid if status is Ok
    std::map<uint32_t, SecAggPartyCost> clients; ///< per client
    SecAggPartyCost server;                      ///< the server
};

/**
 * Runs every client and the server of one instance in this process, the messages passed as
 * bytes, with the given dropouts. Identities, the PKI and every KeySource come from `mode`:
 * Random, or Reproducible from `runSeed` (client c's protocol keys: KeySource::Reproducible(
 * runSeed, c, instance); its identity: the same with instance 0xFFFFFFFFFFFFFFFF).
 * `inputs[i]` and `weights[i]` belong to config.clients[i]. Throws ConfigError as the classes.
 */
SecAggRunOutcome RunSecAggInProcess(const SecAggConfig& config,
                                    const std::vector<Eigen::VectorXd>& inputs,
                                    const std::vector<uint64_t>& weights,
                                    KeyMode mode,
                                    const SecAggRunSeed& runSeed,
                                    const SecAggDropouts& dropouts = {});

} // namespace fl
} // namespace ns3

#endif // FL_SECAGG_H
