/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ns3/secagg-attack.h"

#include "ns3/secagg-util.h"

#include <algorithm>
#include <memory>
#include <numeric>
#include <sodium.h>
#include <string>

namespace ns3
{
namespace fl
{

using namespace secagg_detail;

namespace
{

/// A 256-bit run seed from a 64-bit one (the attack's own clients only).
SecAggRunSeed
AttackRunSeed(uint64_t seed)
{
    SecAggRunSeed s{};
    for (std::size_t i = 0; i < s.size(); i += 8)
    {
        const uint64_t w = DeriveSeed(seed, 0xA77AC4, i);
        for (int b = 0; b < 8; ++b)
        {
            s[i + b] = static_cast<uint8_t>(w >> (8 * b));
        }
    }
    return s;
}

/// Union-find over client ids.
struct Components
{
    std::map<uint32_t, uint32_t> parent;

    uint32_t Find(uint32_t x)
    {
        while (parent[x] != x)
        {
            parent[x] = parent[parent[x]];
            x = parent[x];
        }
        return x;
    }

    void Join(uint32_t a, uint32_t b)
    {
        parent[Find(a)] = Find(b);
    }
};

} // namespace

std::size_t
SecAggLeak::SmallestSum() const
{
    std::size_t smallest = 0;
    for (const auto& s : sums)
    {
        if (smallest == 0 || s.honest.size() < smallest)
        {
            smallest = s.honest.size();
        }
    }
    return smallest;
}

SecAggLeak
RunSecAggAttack(const SecAggAttackPlan& plan,
                const std::vector<Eigen::VectorXd>& inputs,
                uint64_t seed)
{
    const SecAggConfig& cfg = plan.config;
    CheckSecAggConfig(cfg);
    const std::vector<uint32_t>& roster = cfg.clients;
    if (inputs.size() != roster.size())
    {
        throw ConfigError("inputs",
                          std::to_string(inputs.size()) + " inputs for " +
                              std::to_string(roster.size()) + " clients",
                          "give one input per client of the roster");
    }
    for (uint32_t c : plan.corrupt)
    {
        if (!Contains(roster, c))
        {
            throw ConfigError("corrupt",
                              "client " + std::to_string(c) + " is not in the roster",
                              "corrupt only clients of the roster");
        }
    }
    const uint64_t instance = cfg.instance;
    const SecAggRunSeed runSeed = AttackRunSeed(seed);
    auto honest = [&](uint32_t id) { return plan.corrupt.count(id) == 0; };
    auto index = [&](uint32_t id) {
        return static_cast<std::size_t>(std::lower_bound(roster.begin(), roster.end(), id) -
                                        roster.begin());
    };

    SecAggPki pki;
    std::map<uint32_t, SecAggIdentity> identities;
    std::map<uint32_t, std::unique_ptr<SecAggClient>> party;
    for (uint32_t id : roster)
    {
        KeySource ks = KeySource::Reproducible(runSeed, id, UINT64_MAX);
        identities[id] = MakeSecAggIdentity(id, ks);
        pki[id] = identities[id].verifyKey;
    }
    for (uint32_t id : roster)
    {
        party[id] = std::make_unique<SecAggClient>(cfg,
                                                   identities[id],
                                                   pki,
                                                   KeySource::Reproducible(runSeed, id, instance));
        if (!honest(id))
        {
            party[id]->Corrupt();
        }
    }
    SecAggLeak leak;
    auto note = [&](uint32_t id, SecAggStatus st) {
        if (st != SecAggStatus::Ok && honest(id))
        {
            leak.refusals[id] = st;
        }
        return st == SecAggStatus::Ok;
    };

    // Round 0: keys.
    std::map<uint32_t, SecAggAdvertisedKeys> advertised;
    for (uint32_t id : roster)
    {
        if (plan.silent.count(id) != 0 && honest(id))
        {
            continue;
        }
        SecAggBytes bytes;
        uint64_t inst = 0;
        SecAggAdvertisedKeys k;
        if (note(id, party[id]->AdvertiseKeys(bytes)) && ParseSecAggAdvertiseKeys(bytes, inst, k))
        {
            advertised[id] = k;
        }
    }
    // Round 1: each client its key list (an honest one as the plan shows it).
    std::map<uint32_t, std::set<uint32_t>> shown;
    std::map<uint32_t, SecAggBoxList> up;
    for (const auto& [id, own] : advertised)
    {
        std::vector<SecAggAdvertisedKeys> list;
        for (uint32_t v : SecAggHolders(cfg, id))
        {
            auto restrict = plan.keysShown.find(id);
            const bool show = v == id || !honest(id) || restrict == plan.keysShown.end() ||
                              restrict->second.count(v) != 0;
            if (show && advertised.count(v) != 0)
            {
                list.push_back(advertised[v]);
                shown[id].insert(v);
            }
        }
        SecAggBytes bytes;
        uint64_t inst = 0;
        SecAggBoxList boxes;
        if (note(id, party[id]->ShareKeys(PackSecAggKeyList(instance, list), bytes)) &&
            ParseSecAggEncryptedShares(bytes, inst, boxes))
        {
            up[id] = std::move(boxes);
        }
    }
    // Round 2: forwarded ciphertexts (only from senders in the recipient's key list, or the
    // recipient would abort), then the masked inputs.
    std::map<uint32_t, std::vector<uint64_t>> y;
    for (const auto& [id, unused] : up)
    {
        SecAggBoxList down;
        down.party = id;
        auto withheld = plan.sharesWithheld.find(id);
        for (const auto& [sender, list] : up)
        {
            if (honest(id) && ((withheld != plan.sharesWithheld.end() &&
                                withheld->second.count(sender) != 0) ||
                               shown[id].count(sender) == 0))
            {
                continue;
            }
            for (const auto& b : list.boxes)
            {
                if (b.peer == id)
                {
                    down.boxes.push_back({sender, b.box});
                }
            }
        }
        SecAggBytes bytes;
        uint64_t inst = 0;
        SecAggMaskedInput masked;
        if (note(id,
                 party[id]->MaskInput(PackSecAggForwardedShares(instance, down),
                                      inputs[index(id)],
                                      1,
                                      bytes)) &&
            ParseSecAggMaskedInput(bytes, cfg.dim + 1, inst, masked))
        {
            y[id] = std::move(masked.words);
        }
    }
    // Round 3: survivor lists (each honest client its own view); honest signatures.
    std::vector<uint32_t> everyInput;
    for (const auto& [id, words] : y)
    {
        everyInput.push_back(id);
    }
    std::map<uint32_t, std::vector<uint32_t>> list3;
    std::map<uint32_t, Ed25519Signature> signature;
    for (uint32_t id : everyInput)
    {
        if (!honest(id))
        {
            continue; // the adversary signs for its colluders whatever it needs
        }
        auto view = plan.survivorsShown.find(id);
        list3[id] = view != plan.survivorsShown.end() ? view->second : everyInput;
        SecAggBytes bytes;
        uint64_t inst = 0;
        SecAggSignedId s;
        if (note(id, party[id]->ConsistencyCheck(PackSecAggSurvivorList(instance, list3[id]), bytes)) &&
            ParseSecAggConsistencySignature(bytes, inst, s))
        {
            signature[id] = s.sig;
        }
    }
    // Round 4: every valid signature on the client's own list that it would accept (signers in
    // its list and its two-hop neighbourhood), colluders signing any list; then the reveals.
    std::map<uint32_t, std::vector<SecAggRevealedShare>> revealed;
    for (const auto& [id, sig] : signature)
    {
        const std::vector<uint32_t>& list = list3[id];
        const std::vector<uint8_t> message = SecAggSurvivorsSignedMessage(cfg, list);
        std::set<uint32_t> twoHop;
        for (const auto& [v, pv] : SecAggHoldersOfHolders(cfg, id))
        {
            twoHop.insert(pv.begin(), pv.end());
        }
        auto withheld = plan.signaturesWithheld.find(id);
        std::vector<SecAggSignedId> relay;
        for (uint32_t w : list)
        {
            if (twoHop.count(w) == 0 ||
                (withheld != plan.signaturesWithheld.end() && withheld->second.count(w) != 0))
            {
                continue;
            }
            if (!honest(w))
            {
                relay.push_back({w, Sign(identities[w], message)});
            }
            else if (signature.count(w) != 0 && list3[w] == list)
            {
                relay.push_back({w, signature[w]});
            }
        }
        SecAggBytes bytes;
        uint64_t inst = 0;
        SecAggUnmaskShares answer;
        if (note(id, party[id]->Unmask(PackSecAggSignatureList(instance, relay), bytes)) &&
            ParseSecAggUnmaskShares(bytes, inst, answer))
        {
            revealed[id] = std::move(answer.shares);
        }
    }

    // ---------------------------------------------------------------- what the server holds
    std::map<uint32_t, std::map<uint32_t, ShamirShare>> bShares; // owner -> holder -> share
    std::map<uint32_t, std::map<uint32_t, ShamirShare>> sShares;
    for (const auto& [holder, list] : revealed)
    {
        for (const auto& r : list)
        {
            (r.kind == SecAggShareKind::SelfMaskSeed ? bShares : sShares)[r.owner][holder] =
                r.share;
        }
    }
    std::map<uint32_t, MaskSecret> bKnown;
    std::map<uint32_t, MaskSecret> sKnown;
    for (uint32_t c : plan.corrupt)
    {
        if (up.count(c) == 0)
        {
            continue; // a colluder that never shared holds nothing of anyone
        }
        const SecAggClient::Secrets sec = party[c]->Exposed();
        bKnown[c] = sec.b;
        sKnown[c] = sec.s.secretKey;
        for (const auto& [v, sh] : sec.sShares)
        {
            sShares[v][c] = sh;
        }
        for (const auto& [v, sh] : sec.bShares)
        {
            bShares[v][c] = sh;
        }
    }
    auto reconstruct = [&](const std::map<uint32_t, ShamirShare>& from, MaskSecret& out) {
        if (from.size() < cfg.threshold)
        {
            return false;
        }
        std::vector<ShamirShare> list;
        for (const auto& [holder, sh] : from)
        {
            list.push_back(sh);
        }
        return ShamirReconstruct(list, cfg.threshold, out);
    };
    for (uint32_t v : roster)
    {
        if (!honest(v))
        {
            continue;
        }
        MaskSecret secret;
        if (bShares.count(v) != 0 && reconstruct(bShares[v], secret))
        {
            bKnown[v] = secret;
        }
        if (sShares.count(v) != 0 && advertised.count(v) != 0 && reconstruct(sShares[v], secret))
        {
            MaskPublicKey check;
            crypto_scalarmult_base(check.data(), secret.data());
            if (check == advertised[v].sPk)
            {
                sKnown[v] = secret;
            }
        }
        if (bKnown.count(v) != 0 && sKnown.count(v) != 0)
        {
            leak.bothSecrets.push_back(v);
        }
    }

    // ---------------------------------------------------------------- the learnable sums
    auto u2 = [&](uint32_t id) -> const std::vector<uint32_t>& { return party[id]->U2View(); };
    auto pairKnown = [&](uint32_t u, uint32_t w) {
        return sKnown.count(u) != 0 || sKnown.count(w) != 0;
    };
    auto pairSecret = [&](uint32_t u, uint32_t w) {
        MaskKeyPair own;
        const uint32_t a = sKnown.count(u) != 0 ? u : w;
        const uint32_t b = a == u ? w : u;
        own.secretKey = sKnown.at(a);
        own.publicKey = advertised.at(a).sPk;
        return AgreeMaskSecret(own, advertised.at(b).sPk);
    };
    std::set<uint32_t> candidates;
    for (const auto& [id, words] : y)
    {
        if (honest(id) && bKnown.count(id) != 0)
        {
            candidates.insert(id);
        }
    }
    for (bool changed = true; changed;)
    {
        changed = false;
        for (auto it = candidates.begin(); it != candidates.end();)
        {
            const uint32_t u = *it;
            bool openable = true;
            for (uint32_t w : u2(u))
            {
                if (w == u || pairKnown(u, w))
                {
                    continue;
                }
                // an unknown mask must cancel against w's upload within the same sum
                if (candidates.count(w) == 0 || !Contains(u2(w), u))
                {
                    openable = false;
                    break;
                }
            }
            if (openable)
            {
                ++it;
            }
            else
            {
                it = candidates.erase(it);
                changed = true;
            }
        }
    }
    Components comps;
    for (uint32_t u : candidates)
    {
        comps.parent[u] = u;
    }
    for (uint32_t u : candidates)
    {
        for (uint32_t w : u2(u))
        {
            if (w != u && !pairKnown(u, w))
            {
                comps.Join(u, w);
            }
        }
    }
    std::map<uint32_t, std::vector<uint32_t>> groups;
    for (uint32_t u : candidates)
    {
        groups[comps.Find(u)].push_back(u);
    }
    for (const auto& [root, members] : groups)
    {
        SecAggLearnedSum learned;
        learned.honest = members;
        std::vector<uint64_t> sum(cfg.dim + 1, 0);
        std::vector<const Eigen::VectorXd*> xs;
        for (uint32_t u : members)
        {
            const std::vector<uint64_t>& words = y.at(u);
            for (std::size_t j = 0; j < sum.size(); ++j)
            {
                sum[j] += words[j];
            }
            ApplyPairwiseMask(sum, bKnown.at(u), false);
            for (uint32_t w : u2(u))
            {
                if (w != u && pairKnown(u, w))
                {
                    MaskSecret s = pairSecret(u, w);
                    ApplyPairwiseMask(sum, s, !(u < w)); // remove what u added
                    sodium_memzero(s.data(), s.size());
                }
            }
            xs.push_back(&inputs[index(u)]);
        }
        const uint64_t weight = sum.back();
        sum.pop_back();
        learned.computed = DecodeFixedPoint(sum, cfg.fractionBits);
        const SecAggResult truth = SecAggPlainSum(xs,
                                                  std::vector<uint64_t>(xs.size(), 1),
                                                  cfg.fractionBits,
                                                  roster.size());
        learned.truth = truth.sum;
        learned.exact = weight == members.size() && learned.computed == learned.truth;
        leak.sums.push_back(std::move(learned));
    }
    for (auto& [id, secret] : bKnown)
    {
        sodium_memzero(secret.data(), secret.size());
    }
    for (auto& [id, secret] : sKnown)
    {
        sodium_memzero(secret.data(), secret.size());
    }
    return leak;
}

SecAggAttackPlan
SplitSurvivorListsPlan(const SecAggConfig& config,
                       const std::set<uint32_t>& corrupt,
                       uint32_t victim)
{
    SecAggAttackPlan plan;
    plan.config = config;
    plan.corrupt = corrupt;
    std::vector<uint32_t> others;
    for (uint32_t id : config.clients)
    {
        if (id != victim && corrupt.count(id) == 0)
        {
            others.push_back(id);
        }
    }
    // Group B must reach t signatures without the victim: t - n_C honest signers if it can.
    const std::size_t nc = corrupt.size();
    const std::size_t wantB = config.threshold > nc ? config.threshold - nc : 0;
    const std::size_t b = std::min(others.size(), std::max(wantB, others.size() / 2));
    std::vector<uint32_t> without;
    for (uint32_t id : config.clients)
    {
        if (id != victim)
        {
            without.push_back(id);
        }
    }
    for (std::size_t i = 0; i < others.size(); ++i)
    {
        plan.survivorsShown[others[i]] = i < b ? without : config.clients;
    }
    plan.survivorsShown[victim] = config.clients;
    return plan;
}

SecAggAttackPlan
IsolateVictimPlan(const SecAggConfig& config, const std::set<uint32_t>& corrupt, uint32_t victim)
{
    SecAggAttackPlan plan;
    plan.config = config;
    plan.corrupt = corrupt;
    std::set<uint32_t> keys = corrupt;
    keys.insert(victim);
    plan.keysShown[victim] = keys;
    // its survivor list holds only what it masked with (else it refuses U3 as not in U2)
    plan.survivorsShown[victim] = std::vector<uint32_t>(keys.begin(), keys.end());
    return plan;
}

} // namespace fl
} // namespace ns3
