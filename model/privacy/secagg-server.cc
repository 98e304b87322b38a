/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ns3/secagg-protocol.h"
#include "ns3/secagg-util.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <sodium.h>
#include <set>
#include <string>

namespace ns3
{
namespace fl
{

using namespace secagg_detail;


Eigen::VectorXd
SecAggResult::Mean() const
{
    if (totalWeight == 0)
    {
        throw ConfigError("totalWeight", "is 0", "aggregate at least one weighted input");
    }
    return sum / static_cast<double>(totalWeight);
}

// ------------------------------------------------------------------ server

SecAggServer::SecAggServer(const SecAggConfig& config, const SecAggPki& pki)
    : m_cfg(config),
      m_pki(pki)
{
    EnsureSodiumReady();
    CheckSecAggConfig(m_cfg);
    if (m_cfg.graph == SecAggGraphKind::Harary && m_cfg.neighbours + 1 < m_cfg.clients.size())
    {
        const auto graph = HararyGraph(m_cfg.clients, m_cfg.neighbours, m_cfg.graphSeed);
        for (std::size_t i = 0; i < m_cfg.clients.size(); ++i)
        {
            std::vector<uint32_t> h = graph[i];
            h.insert(std::lower_bound(h.begin(), h.end(), m_cfg.clients[i]), m_cfg.clients[i]);
            m_holders[m_cfg.clients[i]] = std::move(h);
        }
    }
}

SecAggServer::~SecAggServer()
{
    for (auto& [holder, answer] : m_unmask)
    {
        sodium_memzero(answer.shares.data(), answer.shares.size() * sizeof(SecAggRevealedShare));
    }
}

const std::vector<uint32_t>&
SecAggServer::HoldersOf(uint32_t id) const
{
    auto it = m_holders.find(id);
    return it == m_holders.end() ? m_cfg.clients : it->second;
}

const std::vector<uint32_t>&
SecAggServer::Set(int index) const
{
    if (index < 1 || index > 5)
    {
        throw ConfigError("index", "is " + std::to_string(index), "ask for U1 .. U5 (1 .. 5)");
    }
    return m_set[index - 1];
}

SecAggStatus
SecAggServer::Abort(SecAggStatus s)
{
    m_abort = s;
    m_phase = Phase::Done;
    return s;
}

SecAggStatus
SecAggServer::ReceiveAdvertisedKeys(const SecAggBytes& message)
{
    if (m_phase != Phase::Keys)
    {
        return m_abort != SecAggStatus::Ok ? SecAggStatus::Aborted : SecAggStatus::WrongPhase;
    }
    uint64_t instance = 0;
    SecAggAdvertisedKeys k;
    if (!ParseSecAggAdvertiseKeys(message, instance, k))
    {
        return SecAggStatus::Malformed;
    }
    if (instance != m_cfg.instance)
    {
        return SecAggStatus::WrongInstance;
    }
    if (!Contains(m_cfg.clients, k.id) || m_pki.count(k.id) == 0)
    {
        return SecAggStatus::UnknownClient;
    }
    if (m_keys.count(k.id) != 0)
    {
        return SecAggStatus::Duplicate;
    }
    if (!Verify(m_pki, k.id, SecAggKeysSignedMessage(m_cfg, k), k.sig))
    {
        return SecAggStatus::BadSignature;
    }
    m_keys[k.id] = k;
    return SecAggStatus::Ok;
}

SecAggStatus
SecAggServer::BroadcastKeys(std::map<uint32_t, SecAggBytes>& out)
{
    if (m_phase != Phase::Keys)
    {
        return m_abort != SecAggStatus::Ok ? SecAggStatus::Aborted : SecAggStatus::WrongPhase;
    }
    out.clear();
    // Fig. 4, AdvertiseKeys (server): at least t messages (U1), else abort.
    if (m_keys.size() < m_cfg.threshold)
    {
        return Abort(SecAggStatus::TooFewClients);
    }
    for (const auto& [id, k] : m_keys)
    {
        m_set[0].push_back(id);
    }
    for (uint32_t u : m_set[0])
    {
        std::vector<SecAggAdvertisedKeys> list;
        for (uint32_t v : HoldersOf(u))
        {
            auto it = m_keys.find(v);
            if (it != m_keys.end())
            {
                list.push_back(it->second);
            }
        }
        out[u] = PackSecAggKeyList(m_cfg.instance, list);
    }
    m_phase = Phase::Shares;
    return SecAggStatus::Ok;
}

SecAggStatus
SecAggServer::ReceiveEncryptedShares(const SecAggBytes& message)
{
    if (m_phase != Phase::Shares)
    {
        return m_abort != SecAggStatus::Ok ? SecAggStatus::Aborted : SecAggStatus::WrongPhase;
    }
    uint64_t instance = 0;
    SecAggBoxList list;
    if (!ParseSecAggEncryptedShares(message, instance, list))
    {
        return SecAggStatus::Malformed;
    }
    if (instance != m_cfg.instance)
    {
        return SecAggStatus::WrongInstance;
    }
    if (!Contains(m_set[0], list.party))
    {
        return SecAggStatus::UnknownClient;
    }
    if (m_boxes.count(list.party) != 0)
    {
        return SecAggStatus::Duplicate;
    }
    // One ciphertext for each other holder of the sender that is in U1, no more, no fewer.
    std::vector<uint32_t> expected;
    for (uint32_t v : HoldersOf(list.party))
    {
        if (v != list.party && Contains(m_set[0], v))
        {
            expected.push_back(v);
        }
    }
    if (expected.size() != list.boxes.size())
    {
        return SecAggStatus::Malformed;
    }
    for (std::size_t i = 0; i < expected.size(); ++i)
    {
        if (list.boxes[i].peer != expected[i])
        {
            return SecAggStatus::Malformed;
        }
    }
    m_boxes[list.party] = std::move(list);
    return SecAggStatus::Ok;
}

SecAggStatus
SecAggServer::ForwardShares(std::map<uint32_t, SecAggBytes>& out)
{
    if (m_phase != Phase::Shares)
    {
        return m_abort != SecAggStatus::Ok ? SecAggStatus::Aborted : SecAggStatus::WrongPhase;
    }
    out.clear();
    if (m_boxes.size() < m_cfg.threshold)
    {
        return Abort(SecAggStatus::TooFewClients);
    }
    std::map<uint32_t, SecAggBoxList> down;
    for (const auto& [u, list] : m_boxes)
    {
        m_set[1].push_back(u);
        down[u].party = u;
    }
    for (const auto& [u, list] : m_boxes)
    {
        for (const auto& b : list.boxes)
        {
            auto it = down.find(b.peer);
            if (it != down.end())
            {
                it->second.boxes.push_back({u, b.box}); // senders visited in ascending order
            }
        }
    }
    for (const auto& [v, list] : down)
    {
        out[v] = PackSecAggForwardedShares(m_cfg.instance, list);
    }
    m_phase = Phase::Inputs;
    return SecAggStatus::Ok;
}

SecAggStatus
SecAggServer::ReceiveMaskedInput(const SecAggBytes& message)
{
    if (m_phase != Phase::Inputs)
    {
        return m_abort != SecAggStatus::Ok ? SecAggStatus::Aborted : SecAggStatus::WrongPhase;
    }
    uint64_t instance = 0;
    SecAggMaskedInput y;
    if (!ParseSecAggMaskedInput(message, m_cfg.dim + 1, instance, y))
    {
        return SecAggStatus::Malformed;
    }
    if (instance != m_cfg.instance)
    {
        return SecAggStatus::WrongInstance;
    }
    if (!Contains(m_set[1], y.from))
    {
        return SecAggStatus::UnknownClient;
    }
    if (m_inputs.count(y.from) != 0)
    {
        return SecAggStatus::Duplicate;
    }
    m_inputs[y.from] = std::move(y.words);
    return SecAggStatus::Ok;
}

SecAggStatus
SecAggServer::AnnounceSurvivors(std::map<uint32_t, SecAggBytes>& out)
{
    if (m_phase != Phase::Inputs)
    {
        return m_abort != SecAggStatus::Ok ? SecAggStatus::Aborted : SecAggStatus::WrongPhase;
    }
    out.clear();
    if (m_inputs.size() < m_cfg.threshold)
    {
        return Abort(SecAggStatus::TooFewClients);
    }
    for (const auto& [u, words] : m_inputs)
    {
        m_set[2].push_back(u);
    }
    const SecAggBytes list = PackSecAggSurvivorList(m_cfg.instance, m_set[2]);
    for (uint32_t u : m_set[2])
    {
        out[u] = list;
    }
    m_phase = Phase::Signatures;
    return SecAggStatus::Ok;
}

SecAggStatus
SecAggServer::ReceiveConsistencySignature(const SecAggBytes& message)
{
    if (m_phase != Phase::Signatures)
    {
        return m_abort != SecAggStatus::Ok ? SecAggStatus::Aborted : SecAggStatus::WrongPhase;
    }
    uint64_t instance = 0;
    SecAggSignedId s;
    if (!ParseSecAggConsistencySignature(message, instance, s))
    {
        return SecAggStatus::Malformed;
    }
    if (instance != m_cfg.instance)
    {
        return SecAggStatus::WrongInstance;
    }
    if (!Contains(m_set[2], s.id))
    {
        return SecAggStatus::UnknownClient;
    }
    if (m_signatures.count(s.id) != 0)
    {
        return SecAggStatus::Duplicate;
    }
    if (!Verify(m_pki, s.id, SecAggSurvivorsSignedMessage(m_cfg, m_set[2]), s.sig))
    {
        return SecAggStatus::BadSignature;
    }
    m_signatures[s.id] = s.sig;
    return SecAggStatus::Ok;
}

SecAggStatus
SecAggServer::RelaySignatures(std::map<uint32_t, SecAggBytes>& out)
{
    if (m_phase != Phase::Signatures)
    {
        return m_abort != SecAggStatus::Ok ? SecAggStatus::Aborted : SecAggStatus::WrongPhase;
    }
    out.clear();
    if (m_signatures.size() < m_cfg.threshold)
    {
        return Abort(SecAggStatus::TooFewClients);
    }
    for (const auto& [u, sig] : m_signatures)
    {
        m_set[3].push_back(u);
    }
    for (uint32_t u : m_set[3])
    {
        // the signers u counts: holders of its holders (Unmask checks t per owner)
        std::set<uint32_t> wanted;
        for (uint32_t v : HoldersOf(u))
        {
            const std::vector<uint32_t>& pv = HoldersOf(v);
            wanted.insert(pv.begin(), pv.end());
        }
        std::vector<SecAggSignedId> list;
        for (uint32_t v : wanted)
        {
            auto it = m_signatures.find(v);
            if (it != m_signatures.end())
            {
                list.push_back({v, it->second});
            }
        }
        out[u] = PackSecAggSignatureList(m_cfg.instance, list);
    }
    m_phase = Phase::Unmask;
    return SecAggStatus::Ok;
}

SecAggStatus
SecAggServer::ReceiveUnmaskShares(const SecAggBytes& message)
{
    if (m_phase != Phase::Unmask)
    {
        return m_abort != SecAggStatus::Ok ? SecAggStatus::Aborted : SecAggStatus::WrongPhase;
    }
    uint64_t instance = 0;
    SecAggUnmaskShares answer;
    if (!ParseSecAggUnmaskShares(message, instance, answer))
    {
        return SecAggStatus::Malformed;
    }
    if (instance != m_cfg.instance)
    {
        return SecAggStatus::WrongInstance;
    }
    if (!Contains(m_set[3], answer.from))
    {
        return SecAggStatus::UnknownClient;
    }
    if (m_unmask.count(answer.from) != 0)
    {
        return SecAggStatus::Duplicate;
    }
    for (const auto& s : answer.shares)
    {
        const bool survived = Contains(m_set[2], s.owner);
        const SecAggShareKind expected =
            survived ? SecAggShareKind::SelfMaskSeed : SecAggShareKind::MaskKey;
        if (!Contains(m_set[1], s.owner) || s.kind != expected ||
            !Contains(HoldersOf(s.owner), answer.from))
        {
            return SecAggStatus::Malformed;
        }
    }
    m_unmask[answer.from] = std::move(answer);
    return SecAggStatus::Ok;
}

SecAggStatus
SecAggServer::Finish(SecAggResult& result)
{
    if (m_phase != Phase::Unmask)
    {
        return m_abort != SecAggStatus::Ok ? SecAggStatus::Aborted : SecAggStatus::WrongPhase;
    }
    // Fig. 4, Unmasking (server): responses from at least t users (U5), else abort.
    if (m_unmask.size() < m_cfg.threshold)
    {
        return Abort(SecAggStatus::TooFewClients);
    }
    for (const auto& [u, a] : m_unmask)
    {
        m_set[4].push_back(u);
    }
    // Shares per owner, in ascending holder order (the maps iterate ascending).
    std::map<uint32_t, std::vector<ShamirShare>> shares;
    struct Wiper // the copies of the shares are wiped on every way out
    {
        std::map<uint32_t, std::vector<ShamirShare>>& m;

        ~Wiper()
        {
            for (auto& [owner, list] : m)
            {
                sodium_memzero(list.data(), list.size() * sizeof(ShamirShare));
            }
        }
    } wiper{shares};
    for (const auto& [holder, a] : m_unmask)
    {
        for (const auto& s : a.shares)
        {
            shares[s.owner].push_back(s.share);
        }
    }
    std::map<std::vector<uint32_t>, ShamirInterpolator> interpolators;
    auto reconstruct = [&](uint32_t owner, MaskSecret& secret) {
        auto it = shares.find(owner);
        if (it == shares.end() || it->second.size() < m_cfg.threshold)
        {
            return SecAggStatus::TooFewShares;
        }
        std::vector<uint32_t> base;
        for (uint32_t i = 0; i < m_cfg.threshold; ++i)
        {
            base.push_back(it->second[i].x);
        }
        auto ip = interpolators.find(base);
        if (ip == interpolators.end())
        {
            ip = interpolators.emplace(base, ShamirInterpolator(base)).first;
        }
        return ip->second.Reconstruct(it->second, secret) ? SecAggStatus::Ok
                                                          : SecAggStatus::BadShares;
    };
    const std::size_t words = m_cfg.dim + 1;
    std::vector<uint64_t> sum(words, 0);
    for (uint32_t u : m_set[2])
    {
        const std::vector<uint64_t>& y = m_inputs.at(u);
        for (std::size_t j = 0; j < words; ++j)
        {
            sum[j] += y[j]; // mod 2^64
        }
    }
    // - sum_{u in U3} PRG(b_u)
    for (uint32_t u : m_set[2])
    {
        MaskSecret b;
        const SecAggStatus st = reconstruct(u, b);
        if (st != SecAggStatus::Ok)
        {
            sodium_memzero(b.data(), b.size());
            return Abort(st);
        }
        ApplyPairwiseMask(sum, b, false);
        sodium_memzero(b.data(), b.size());
    }
    // Masks between survivors u and dropped v: u applied +PRG(s_{u,v}) if u < v, - if u > v.
    for (uint32_t v : m_set[1])
    {
        if (Contains(m_set[2], v))
        {
            continue;
        }
        MaskKeyPair sv;
        sv.publicKey = m_keys.at(v).sPk;
        SecAggStatus st = reconstruct(v, sv.secretKey);
        if (st != SecAggStatus::Ok)
        {
            sodium_memzero(sv.secretKey.data(), sv.secretKey.size());
            return Abort(st);
        }
        MaskPublicKey check;
        crypto_scalarmult_base(check.data(), sv.secretKey.data());
        if (check != sv.publicKey)
        {
            sodium_memzero(sv.secretKey.data(), sv.secretKey.size());
            return Abort(SecAggStatus::BadShares);
        }
        result.dropped.push_back(v);
        for (uint32_t u : HoldersOf(v))
        {
            if (u == v || !Contains(m_set[2], u))
            {
                continue;
            }
            MaskSecret s;
            try
            {
                s = AgreeMaskSecret(sv, m_keys.at(u).sPk);
            }
            catch (const ConfigError&)
            {
                sodium_memzero(sv.secretKey.data(), sv.secretKey.size());
                return Abort(SecAggStatus::BadKey);
            }
            ApplyPairwiseMask(sum, s, u > v);
            sodium_memzero(s.data(), s.size());
        }
        sodium_memzero(sv.secretKey.data(), sv.secretKey.size());
    }
    result.totalWeight = sum.back();
    sum.pop_back();
    result.sum = DecodeFixedPoint(sum, m_cfg.fractionBits);
    result.survivors = m_set[2];
    m_phase = Phase::Done;
    return SecAggStatus::Ok;
}

} // namespace fl
} // namespace ns3
