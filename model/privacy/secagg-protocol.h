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
 *    secagg-primitives.h), s_{u,v} = AgreeMaskSecret(s_u, s_v^PK). (Fig. 4 writes the sign the
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
 * Threshold and colluders (secagg-config.h): the configuration requires 2t > h + n_C, where h is
 * the number of share holders of a client (itself included) and n_C the colluders tolerated.
 * Before revealing anything for an owner v, a client checks t valid signatures on its U3 from
 * v's holders P_v (for SecAgg every P_v is the roster; for SecAgg+ the server relays the
 * signatures of the two-hop neighbourhood). An honest client signs one U3 per instance, so two
 * different lists certified for one owner would need more than n_C colluders among its holders:
 * every honest holder of v reveals the same kind of share, and the server never reconstructs
 * both b_v and s_v^SK.
 *
 * Keys: KeySource (shamir.h). Random mode (libsodium randombytes_buf) is the default and the
 * secure one; Reproducible mode derives every key from a 256-bit run seed for bit-identical
 * simulation studies and is INSECURE (anyone knowing the seed recomputes every mask).
 */
#ifndef FL_SECAGG_PROTOCOL_H
#define FL_SECAGG_PROTOCOL_H

#include "ns3/secagg-config.h"
#include "ns3/secagg-primitives.h"

#include <array>
#include <cstdint>
#include <map>
#include <set>
#include <vector>

namespace ns3
{
namespace fl
{

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
    /// Wipes every secret the client still holds (sodium_memzero).
    ~SecAggClient();
    SecAggClient(SecAggClient&& other) noexcept;
    SecAggClient(const SecAggClient&) = delete;
    SecAggClient& operator=(const SecAggClient&) = delete;
    SecAggClient& operator=(SecAggClient&&) = delete;

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

    /**
     * Round 4: for every member v of U2 (itself included), checks that at least t clients of
     * v's holders P_v signed this client's U3 (every listed signature valid), then reveals its
     * share of b_v if v is in U3 and of s_v^SK if not; never both kinds for one v.
     */
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

    /// U2 as this client inferred it (its holders that sent it ciphertexts, and itself).
    const std::vector<uint32_t>& U2View() const
    {
        return m_u2;
    }

    /**
     * What an adversary that controls this client knows (the threat model's colluders): its
     * secret keys, its self-mask seed, its identity and its decryption of every share pair
     * addressed to it. Only the attack models of the tests and of SecAggAttack call this; a
     * network application never does.
     */
    struct Secrets
    {
        SecAggIdentity identity;                 ///< its signing key
        MaskKeyPair s;                           ///< s_u
        MaskSecret b{};                          ///< b_u
        ShamirShare ownS;                        ///< its share of s_u^SK
        ShamirShare ownB;                        ///< its share of b_u
        std::map<uint32_t, ShamirShare> sShares; ///< share of s_v^SK per sender v
        std::map<uint32_t, ShamirShare> bShares; ///< share of b_v per sender v
        std::map<uint32_t, MaskPublicKey> sPk;   ///< s_v^PK of every client in its key list
    };

    /// Marks the client as controlled by the adversary: it keeps every secret (no wiping).
    void Corrupt();

    /// The secrets of a client marked with Corrupt() (see Secrets), what is drawn so far.
    Secrets Exposed() const;

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
    /// Wipes the secrets that the phase reached no longer needs (all of them if `all`).
    void WipeSecrets(bool all);

    SecAggConfig m_cfg;
    uint32_t m_id;
    SecAggIdentity m_identity;
    SecAggPki m_pki;
    KeySource m_keys;
    std::vector<uint32_t> m_holders; ///< P_u: neighbours and self, ascending
    std::map<uint32_t, std::vector<uint32_t>> m_ownerHolders; ///< P_v for every v in P_u
    std::vector<uint32_t> m_twoHop; ///< the union of those P_v, ascending (possible signers)
    bool m_corrupt{false};          ///< controlled by the adversary (Corrupt)
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
    /// Wipes the shares it still holds.
    ~SecAggServer();
    SecAggServer(const SecAggServer&) = delete;
    SecAggServer& operator=(const SecAggServer&) = delete;

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
    /**
     * Ends round 3: U4; each member u gets the signatures of U4 from the holders of its holders
     * (the whole U4 for the complete graph), which it counts per owner in Unmask.
     */
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

#endif // FL_SECAGG_PROTOCOL_H
