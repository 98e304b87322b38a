/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ns3/secagg-protocol.h"
#include "ns3/secagg-util.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <sodium.h>
#include <string>

namespace ns3
{
namespace fl
{

using namespace secagg_detail;

namespace
{

MaskKeyPair
NewX25519(KeySource& keys)
{
    MaskKeyPair kp;
    kp.secretKey = keys.Key();
    crypto_scalarmult_base(kp.publicKey.data(), kp.secretKey.data());
    return kp;
}

} // namespace

// ------------------------------------------------------------------ client

SecAggClient::SecAggClient(const SecAggConfig& config,
                           const SecAggIdentity& identity,
                           const SecAggPki& pki,
                           KeySource keys)
    : m_cfg(config),
      m_id(identity.id),
      m_identity(identity),
      m_pki(pki),
      m_keys(keys)
{
    EnsureSodiumReady();
    m_holders = SecAggHolders(m_cfg, m_id);
    m_ownerHolders = SecAggHoldersOfHolders(m_cfg, m_id);
    for (const auto& [v, pv] : m_ownerHolders)
    {
        m_twoHop.insert(m_twoHop.end(), pv.begin(), pv.end());
    }
    std::sort(m_twoHop.begin(), m_twoHop.end());
    m_twoHop.erase(std::unique(m_twoHop.begin(), m_twoHop.end()), m_twoHop.end());
}

SecAggClient::SecAggClient(SecAggClient&& other) noexcept = default;

SecAggClient::~SecAggClient()
{
    WipeSecrets(true);
}

void
SecAggClient::WipeSecrets(bool all)
{
    if (m_corrupt)
    {
        return; // the adversary keeps what it controls
    }
    Wipe(m_c.secretKey);
    if (all || m_phase >= Phase::Check)
    {
        Wipe(m_s.secretKey); // used for the pairwise masks only (MaskInput)
        Wipe(m_b);
    }
    if (all || m_phase >= Phase::Unmask)
    {
        Wipe(m_identity.signingKey); // the one U3 is signed
    }
    if (all || !m_unmaskOut.empty())
    {
        Wipe(m_ownS);
        Wipe(m_ownB);
        for (auto& [v, k] : m_boxKey)
        {
            Wipe(k);
        }
    }
}

void
SecAggClient::Corrupt()
{
    m_corrupt = true;
}

SecAggClient::Secrets
SecAggClient::Exposed() const
{
    Secrets out;
    out.identity = m_identity;
    out.s = m_s;
    out.b = m_b;
    out.ownS = m_ownS;
    out.ownB = m_ownB;
    for (const auto& [v, k] : m_u1)
    {
        out.sPk[v] = k.sPk;
    }
    std::vector<uint8_t> plain(kSecAggSharePlainBytes);
    for (const auto& [v, box] : m_received)
    {
        auto key = m_boxKey.find(v);
        if (key == m_boxKey.end() ||
            crypto_box_open_easy_afternm(plain.data(),
                                         box.data() + crypto_box_NONCEBYTES,
                                         box.size() - crypto_box_NONCEBYTES,
                                         box.data(),
                                         key->second.data()) != 0)
        {
            continue;
        }
        ShamirShare sv;
        ShamirShare bv;
        if (UnpackShamirValue(plain.data() + 16, m_id + 1, sv) &&
            UnpackShamirValue(plain.data() + 16 + kShamirShareBytes, m_id + 1, bv))
        {
            out.sShares[v] = sv;
            out.bShares[v] = bv;
        }
    }
    return out;
}

SecAggStatus
SecAggClient::Refuse(SecAggStatus s)
{
    m_abort = s;
    m_phase = Phase::Done;
    WipeSecrets(true);
    return s;
}

bool
SecAggClient::IsHolder(uint32_t id) const
{
    return Contains(m_holders, id);
}

SecAggStatus
SecAggClient::AdvertiseKeys(SecAggBytes& out)
{
    if (Aborted())
    {
        return SecAggStatus::Aborted;
    }
    if (m_phase != Phase::Advertise)
    {
        return SecAggStatus::WrongPhase;
    }
    // Fig. 4, AdvertiseKeys: (c_u^PK, c_u^SK), (s_u^PK, s_u^SK) <- KA.gen; sigma_u = SIG.sign.
    m_c = NewX25519(m_keys);
    m_s = NewX25519(m_keys);
    SecAggAdvertisedKeys k;
    k.id = m_id;
    k.cPk = m_c.publicKey;
    k.sPk = m_s.publicKey;
    k.sig = Sign(m_identity, SecAggKeysSignedMessage(m_cfg, k));
    out = PackSecAggAdvertiseKeys(m_cfg.instance, k);
    m_phase = Phase::Share;
    return SecAggStatus::Ok;
}

SecAggStatus
SecAggClient::ShareKeys(const SecAggBytes& keyList, SecAggBytes& out)
{
    if (Aborted())
    {
        return SecAggStatus::Aborted;
    }
    if (m_phase != Phase::Share)
    {
        return SecAggStatus::WrongPhase;
    }
    uint64_t instance = 0;
    std::vector<SecAggAdvertisedKeys> list;
    if (!ParseSecAggKeyList(keyList, instance, list))
    {
        return Refuse(SecAggStatus::Malformed);
    }
    if (instance != m_cfg.instance)
    {
        return Refuse(SecAggStatus::WrongInstance);
    }
    // Fig. 4, ShareKeys: assert |U1| >= t, all public key pairs different, all signatures valid.
    bool self = false;
    std::set<MaskPublicKey> seenKeys;
    for (const auto& e : list)
    {
        if (!IsHolder(e.id))
        {
            return Refuse(SecAggStatus::UnknownClient);
        }
        if (e.id == m_id)
        {
            if (e.cPk != m_c.publicKey || e.sPk != m_s.publicKey)
            {
                return Refuse(SecAggStatus::MissingSelf);
            }
            self = true;
        }
        if (!seenKeys.insert(e.cPk).second || !seenKeys.insert(e.sPk).second)
        {
            return Refuse(SecAggStatus::DuplicateKey);
        }
    }
    if (!self)
    {
        return Refuse(SecAggStatus::MissingSelf);
    }
    if (list.size() < m_cfg.threshold)
    {
        return Refuse(SecAggStatus::TooFewClients);
    }
    for (const auto& e : list)
    {
        if (m_pki.count(e.id) == 0)
        {
            return Refuse(SecAggStatus::UnknownClient);
        }
        if (!Verify(m_pki, e.id, SecAggKeysSignedMessage(m_cfg, e), e.sig))
        {
            return Refuse(SecAggStatus::BadSignature);
        }
    }
    std::vector<uint32_t> xs;
    for (const auto& e : list)
    {
        m_u1[e.id] = e;
        xs.push_back(e.id + 1);
        if (e.id != m_id)
        {
            std::array<uint8_t, 32> k;
            if (crypto_box_beforenm(k.data(), e.cPk.data(), m_c.secretKey.data()) != 0)
            {
                return Refuse(SecAggStatus::BadKey);
            }
            m_boxKey[e.id] = k;
        }
    }
    // b_u <- F; {(v, s_{u,v}^SK)} <- SS.share(s_u^SK, t, U1); {(v, b_{u,v})} <- SS.share(b_u, t,
    // U1).
    m_b = m_keys.Key();
    std::vector<ShamirShare> sShares = ShamirSplit(m_s.secretKey, m_cfg.threshold, xs, m_keys);
    std::vector<ShamirShare> bShares = ShamirSplit(m_b, m_cfg.threshold, xs, m_keys);
    // e_{u,v} <- AE.enc(KA.agree(c_u^SK, c_v^PK), u || v || s_{u,v}^SK || b_{u,v}).
    SecAggBoxList up;
    up.party = m_id;
    std::vector<uint8_t> plain;
    for (std::size_t i = 0; i < list.size(); ++i)
    {
        const uint32_t v = list[i].id;
        if (v == m_id)
        {
            m_ownS = sShares[i];
            m_ownB = bShares[i];
            continue;
        }
        plain.clear();
        AppendLe(plain, m_id, 4);
        AppendLe(plain, v, 4);
        AppendLe(plain, m_cfg.instance, 8);
        plain.resize(kSecAggSharePlainBytes);
        PackShamirValue(sShares[i], plain.data() + 16);
        PackShamirValue(bShares[i], plain.data() + 16 + kShamirShareBytes);
        SecAggAddressedBox box;
        box.peer = v;
        m_keys.Fill(box.box.data(), crypto_box_NONCEBYTES);
        crypto_box_easy_afternm(box.box.data() + crypto_box_NONCEBYTES,
                                plain.data(),
                                plain.size(),
                                box.box.data(),
                                m_boxKey[v].data());
        up.boxes.push_back(box);
    }
    sodium_memzero(plain.data(), plain.size());
    sodium_memzero(sShares.data(), sShares.size() * sizeof(ShamirShare));
    sodium_memzero(bShares.data(), bShares.size() * sizeof(ShamirShare));
    out = PackSecAggEncryptedShares(m_cfg.instance, up);
    m_phase = Phase::Mask;
    WipeSecrets(false); // c_u^SK: the box keys are derived
    return SecAggStatus::Ok;
}

SecAggStatus
SecAggClient::MaskInput(const SecAggBytes& forwardedShares,
                        const Eigen::Ref<const Eigen::VectorXd>& x,
                        uint64_t weight,
                        SecAggBytes& out)
{
    if (Aborted())
    {
        return SecAggStatus::Aborted;
    }
    if (m_phase != Phase::Mask)
    {
        return SecAggStatus::WrongPhase;
    }
    if (static_cast<std::size_t>(x.size()) != m_cfg.dim)
    {
        throw ConfigError("x",
                          "has " + std::to_string(x.size()) + " values",
                          "give the configured dimension " + std::to_string(m_cfg.dim));
    }
    const std::size_t n = m_cfg.clients.size();
    if (weight == 0 || weight > MaxWeight(n))
    {
        throw ConfigError("weight",
                          "is " + std::to_string(weight),
                          "use 1 <= n_k <= " + std::to_string(MaxWeight(n)) +
                              " (the sum of the weights must not wrap)");
    }
    uint64_t instance = 0;
    SecAggBoxList down;
    if (!ParseSecAggForwardedShares(forwardedShares, instance, down))
    {
        return Refuse(SecAggStatus::Malformed);
    }
    if (instance != m_cfg.instance)
    {
        return Refuse(SecAggStatus::WrongInstance);
    }
    if (down.party != m_id)
    {
        return Refuse(SecAggStatus::Malformed);
    }
    // Fig. 4, MaskedInputCollection: infer U2 from the ciphertexts; abort if |U2| < t.
    m_u2.assign(1, m_id);
    for (const auto& b : down.boxes)
    {
        if (b.peer == m_id || m_u1.count(b.peer) == 0)
        {
            return Refuse(SecAggStatus::UnknownClient);
        }
        m_received[b.peer] = b.box;
        m_u2.push_back(b.peer);
    }
    std::sort(m_u2.begin(), m_u2.end());
    if (m_u2.size() < m_cfg.threshold)
    {
        return Refuse(SecAggStatus::TooFewClients);
    }
    // y_u = x_u + PRG(b_u) + sum_{v in U2, u < v} PRG(s_{u,v}) - sum_{v in U2, u > v} PRG(s_{u,v}).
    std::vector<uint64_t> words;
    const Eigen::VectorXd scaled = static_cast<double>(weight) * x;
    EncodeFixedPoint(scaled, m_cfg.fractionBits, n, words);
    words.push_back(weight);
    ApplyPairwiseMask(words, m_b, true);
    for (uint32_t v : m_u2)
    {
        if (v == m_id)
        {
            continue;
        }
        MaskSecret s;
        try
        {
            s = AgreeMaskSecret(m_s, m_u1[v].sPk);
        }
        catch (const ConfigError&)
        {
            return Refuse(SecAggStatus::BadKey);
        }
        ApplyPairwiseMask(words, s, m_id < v);
        sodium_memzero(s.data(), s.size());
    }
    SecAggMaskedInput y;
    y.from = m_id;
    y.words = std::move(words);
    out = PackSecAggMaskedInput(m_cfg.instance, y);
    m_phase = Phase::Check;
    WipeSecrets(false); // s_u^SK and b_u: the masks are applied
    return SecAggStatus::Ok;
}

SecAggStatus
SecAggClient::ConsistencyCheck(const SecAggBytes& survivorList, SecAggBytes& out)
{
    if (Aborted())
    {
        return SecAggStatus::Aborted;
    }
    if (m_phase != Phase::Check && m_phase != Phase::Unmask)
    {
        return SecAggStatus::WrongPhase;
    }
    uint64_t instance = 0;
    std::vector<uint32_t> u3;
    if (!ParseSecAggSurvivorList(survivorList, instance, u3))
    {
        return Refuse(SecAggStatus::Malformed);
    }
    if (instance != m_cfg.instance)
    {
        return Refuse(SecAggStatus::WrongInstance);
    }
    if (m_phase == Phase::Unmask)
    {
        // Already signed one U3 in this instance: the same list gets the same answer, any other
        // list is the attack of asking again with a survivor named as dropped (or vice versa).
        if (u3 != m_u3)
        {
            return Refuse(SecAggStatus::InconsistentRequest);
        }
        out = m_signatureOut;
        return SecAggStatus::Ok;
    }
    // Fig. 4, ConsistencyCheck: U3 subset of U2, |U3| >= t, contains u.
    if (!Contains(u3, m_id))
    {
        return Refuse(SecAggStatus::MissingSelf);
    }
    std::size_t holdersIn = 0;
    for (uint32_t v : u3)
    {
        if (!Contains(m_cfg.clients, v))
        {
            return Refuse(SecAggStatus::NotSubset);
        }
        if (IsHolder(v))
        {
            if (!Contains(m_u2, v))
            {
                return Refuse(SecAggStatus::NotSubset);
            }
            ++holdersIn;
        }
    }
    if (holdersIn < m_cfg.threshold)
    {
        return Refuse(SecAggStatus::TooFewClients);
    }
    m_u3 = u3;
    SecAggSignedId s;
    s.id = m_id;
    s.sig = Sign(m_identity, SecAggSurvivorsSignedMessage(m_cfg, m_u3));
    m_signatureOut = PackSecAggConsistencySignature(m_cfg.instance, s);
    out = m_signatureOut;
    m_phase = Phase::Unmask;
    WipeSecrets(false); // the signing key: one U3 per instance
    return SecAggStatus::Ok;
}

SecAggStatus
SecAggClient::Unmask(const SecAggBytes& signatureList, SecAggBytes& out)
{
    if (Aborted())
    {
        return SecAggStatus::Aborted;
    }
    if (m_phase != Phase::Unmask)
    {
        return SecAggStatus::WrongPhase;
    }
    uint64_t instance = 0;
    std::vector<SecAggSignedId> sigs;
    if (!ParseSecAggSignatureList(signatureList, instance, sigs))
    {
        return Refuse(SecAggStatus::Malformed);
    }
    if (instance != m_cfg.instance)
    {
        return Refuse(SecAggStatus::WrongInstance);
    }
    // Fig. 4, Unmasking: U4 subset of U3, every signature on U3 valid; and, per owner v whose
    // share this client would reveal, at least t signers among v's holders P_v (an honest client
    // signs one U3, so no other list can be certified for v while 2t > h + n_C).
    const std::vector<uint8_t> signedU3 = SecAggSurvivorsSignedMessage(m_cfg, m_u3);
    std::vector<uint32_t> signers;
    for (const auto& s : sigs)
    {
        if (!Contains(m_u3, s.id) || !Contains(m_twoHop, s.id))
        {
            return Refuse(SecAggStatus::NotSubset);
        }
        if (!Verify(m_pki, s.id, signedU3, s.sig))
        {
            return Refuse(SecAggStatus::BadSignature);
        }
        signers.push_back(s.id); // ascending: the list parser refuses unsorted ids
    }
    for (uint32_t v : m_u2)
    {
        std::size_t certified = 0;
        for (uint32_t w : m_ownerHolders.at(v))
        {
            certified += Contains(signers, w) ? 1 : 0;
        }
        if (certified < m_cfg.threshold)
        {
            return Refuse(SecAggStatus::TooFewClients);
        }
    }
    if (!m_unmaskOut.empty())
    {
        out = m_unmaskOut; // the same U3 is certified again: the same answer
        return SecAggStatus::Ok;
    }
    // Decrypt e_{v,u} for v in U2 \ {u}, assert the ids inside, then reveal.
    SecAggUnmaskShares answer;
    answer.from = m_id;
    std::vector<uint8_t> plain(kSecAggSharePlainBytes);
    for (uint32_t v : m_u2)
    {
        SecAggRevealedShare r;
        r.owner = v;
        const bool survived = Contains(m_u3, v);
        r.kind = survived ? SecAggShareKind::SelfMaskSeed : SecAggShareKind::MaskKey;
        auto known = m_revealed.find(v);
        if (known != m_revealed.end() && known->second != r.kind)
        {
            return Refuse(SecAggStatus::InconsistentRequest); // never both kinds for one peer
        }
        if (v == m_id)
        {
            r.share = survived ? m_ownB : m_ownS;
        }
        else
        {
            const SecAggBox& box = m_received.at(v);
            if (crypto_box_open_easy_afternm(plain.data(),
                                             box.data() + crypto_box_NONCEBYTES,
                                             box.size() - crypto_box_NONCEBYTES,
                                             box.data(),
                                             m_boxKey.at(v).data()) != 0)
            {
                return Refuse(SecAggStatus::BadCiphertext);
            }
            if (ReadLe(plain.data(), 4) != v || ReadLe(plain.data() + 4, 4) != m_id ||
                ReadLe(plain.data() + 8, 8) != m_cfg.instance)
            {
                return Refuse(SecAggStatus::BadCiphertext);
            }
            const uint8_t* value = plain.data() + 16 + (survived ? kShamirShareBytes : 0);
            if (!UnpackShamirValue(value, m_id + 1, r.share))
            {
                return Refuse(SecAggStatus::BadCiphertext);
            }
        }
        m_revealed[v] = r.kind;
        answer.shares.push_back(r);
    }
    sodium_memzero(plain.data(), plain.size());
    m_unmaskOut = PackSecAggUnmaskShares(m_cfg.instance, answer);
    sodium_memzero(answer.shares.data(), answer.shares.size() * sizeof(SecAggRevealedShare));
    out = m_unmaskOut;
    WipeSecrets(false); // own shares and box keys: everything is revealed that will be
    return SecAggStatus::Ok;
}

} // namespace fl
} // namespace ns3
