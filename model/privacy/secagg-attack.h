/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * An actively malicious server against secure aggregation, pure (no ns-3 header): the adversary
 * of the threat model (doc/fl-privacy.rst, "Secure aggregation", section "Threat model and
 * guarantees") written out, so that every security claim of secagg-config.h is tested from the
 * adversary's side.
 *
 * The server deviates from Bonawitz et al.'s Fig. 4 in every way the protocol leaves open to it:
 * it shows each honest client its own key list (any subset of the advertised keys), withholds
 * ciphertexts, shows each honest client its own survivor list U3 (split views), relays any
 * subset of the valid signatures, and controls a set of colluding clients: they run the protocol
 * (their messages are well formed), sign every survivor list the server wants and hand over all
 * their secrets (SecAggClient::Corrupt). Honest clients run the real SecAggClient and refuse
 * what it refuses. The outcome is computed from what the server holds at the end (SecAggLeakOf):
 * the masked inputs, the shares the honest clients revealed and the colluders' secrets; from
 * them, which self-mask seeds and mask keys it can reconstruct (by Shamir interpolation, checked
 * against the public keys) and the smallest sets of honest inputs whose sum it can compute; each
 * such sum is computed and compared with the true sum, so "learns" is demonstrated, not assumed.
 */
#ifndef FL_SECAGG_ATTACK_H
#define FL_SECAGG_ATTACK_H

#include "ns3/secagg-protocol.h"

#include <Eigen/Dense>
#include <cstdint>
#include <map>
#include <set>
#include <vector>

namespace ns3
{
namespace fl
{

/**
 * What the malicious server does in one instance. Every view left empty is the honest one.
 */
struct SecAggAttackPlan
{
    SecAggConfig config;     ///< the configuration every honest client accepted
    std::set<uint32_t> corrupt; ///< colluding clients
    std::set<uint32_t> silent;  ///< honest clients that drop out before advertising keys
    /// Per honest client: the clients whose keys it is shown (the rest are withheld).
    std::map<uint32_t, std::set<uint32_t>> keysShown;
    /// Per honest client: senders whose ciphertexts to it are withheld.
    std::map<uint32_t, std::set<uint32_t>> sharesWithheld;
    /// Per honest client: the survivor list U3 it is shown (default: every masked-input sender).
    std::map<uint32_t, std::vector<uint32_t>> survivorsShown;
    /// Per honest client: signers whose valid signatures are not relayed to it.
    std::map<uint32_t, std::set<uint32_t>> signaturesWithheld;
};

/// A sum over honest inputs that the server can compute.
struct SecAggLearnedSum
{
    std::vector<uint32_t> honest; ///< the honest clients in it, ascending
    Eigen::VectorXd computed;     ///< what the server computes from what it holds
    Eigen::VectorXd truth;        ///< the true weighted sum of their inputs (fixed point)
    bool exact{false};            ///< computed == truth bit for bit
};

/// What the server learned.
struct SecAggLeak
{
    /// The minimal learnable sums (components): none of them can be split by the server.
    std::vector<SecAggLearnedSum> sums;
    /// Honest clients whose self-mask seed b_v and mask key s_v^SK the server both holds.
    std::vector<uint32_t> bothSecrets;
    /// Honest clients that refused a message, with the status.
    std::map<uint32_t, SecAggStatus> refusals;

    /// The fewest honest inputs in any learnable sum (0 if none is learnable).
    std::size_t SmallestSum() const;
};

/**
 * Runs `plan` against honest SecAggClients with inputs `inputs[i]` (weight 1) of
 * plan.config.clients[i], keys drawn reproducibly from `seed` (the adversary does not use them:
 * it only reads what the colluders expose), and returns what the server learned. Throws
 * ConfigError naming "inputs" on a size mismatch, "corrupt" on a client not in the roster.
 */
SecAggLeak RunSecAggAttack(const SecAggAttackPlan& plan,
                           const std::vector<Eigen::VectorXd>& inputs,
                           uint64_t seed);

/**
 * The split of the consistency round (the attack the condition 2t > h + n_C stops): the
 * honest clients other than `victim` are divided into two groups of sizes as equal as the
 * signature counts allow; the victim and group A are shown U3 with the victim, group B U3
 * without it; the colluders sign both lists. Returns the plan (the other views honest).
 */
SecAggAttackPlan SplitSurvivorListsPlan(const SecAggConfig& config,
                                        const std::set<uint32_t>& corrupt,
                                        uint32_t victim);

/**
 * The victim is shown only the keys of itself and the colluders, and a survivor list of the
 * same clients (the list reaches t if the colluders suffice), so that every share of its secrets
 * goes to the server's side and its masks are all shared with colluders.
 */
SecAggAttackPlan IsolateVictimPlan(const SecAggConfig& config,
                                   const std::set<uint32_t>& corrupt,
                                   uint32_t victim);

} // namespace fl
} // namespace ns3

#endif // FL_SECAGG_ATTACK_H
