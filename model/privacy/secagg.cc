/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ns3/secagg.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <sodium.h>
#include <string>

namespace ns3
{
namespace fl
{

namespace
{

void
Append(std::vector<uint8_t>& out, const char* text)
{
    while (*text)
    {
        out.push_back(static_cast<uint8_t>(*text++));
    }
    out.push_back(0);
}

void
AppendLe(std::vector<uint8_t>& out, uint64_t v, int bytes)
{
    for (int i = 0; i < bytes; ++i)
    {
        out.push_back(static_cast<uint8_t>(v >> (8 * i)));
    }
}

template <std::size_t N>
void
AppendRaw(std::vector<uint8_t>& out, const std::array<uint8_t, N>& a)
{
    out.insert(out.end(), a.begin(), a.end());
}

uint64_t
ReadLe(const uint8_t* p, int bytes)
{
    uint64_t v = 0;
    for (int i = 0; i < bytes; ++i)
    {
        v |= static_cast<uint64_t>(p[i]) << (8 * i);
    }
    return v;
}

bool
Contains(const std::vector<uint32_t>& sorted, uint32_t id)
{
    return std::binary_search(sorted.begin(), sorted.end(), id);
}

bool
Verify(const SecAggPki& pki,
       uint32_t id,
       const std::vector<uint8_t>& message,
       const Ed25519Signature& sig)
{
    auto it = pki.find(id);
    return it != pki.end() && crypto_sign_verify_detached(sig.data(),
                                                          message.data(),
                                                          message.size(),
                                                          it->second.data()) == 0;
}

Ed25519Signature
Sign(const SecAggIdentity& identity, const std::vector<uint8_t>& message)
{
    Ed25519Signature sig;
    crypto_sign_detached(sig.data(),
                         nullptr,
                         message.data(),
                         message.size(),
                         identity.signingKey.data());
    return sig;
}

MaskKeyPair
NewX25519(KeySource& keys)
{
    MaskKeyPair kp;
    kp.secretKey = keys.Key();
    crypto_scalarmult_base(kp.publicKey.data(), kp.secretKey.data());
    return kp;
}

/// The largest weight a client may give so that the sum of n weights stays below 2^62.
uint64_t
MaxWeight(std::size_t summands)
{
    return (uint64_t{1} << 62) / static_cast<uint64_t>(summands);
}

} // namespace

const char*
SecAggStatusText(SecAggStatus status)
{
    switch (status)
    {
    case SecAggStatus::Ok:
        return "ok";
    case SecAggStatus::Malformed:
        return "malformed message";
    case SecAggStatus::WrongInstance:
        return "message of another protocol instance";
    case SecAggStatus::WrongPhase:
        return "step or message not expected in this round";
    case SecAggStatus::UnknownClient:
        return "client not sampled, not a share holder, or not in the PKI";
    case SecAggStatus::Duplicate:
        return "second message from the same client in this round";
    case SecAggStatus::TooFewClients:
        return "fewer clients than the threshold t: aborted";
    case SecAggStatus::MissingSelf:
        return "the list does not name this client with its own keys";
    case SecAggStatus::DuplicateKey:
        return "two advertised public keys are equal";
    case SecAggStatus::BadSignature:
        return "an Ed25519 signature does not verify";
    case SecAggStatus::BadKey:
        return "an X25519 public key is unusable (low-order point)";
    case SecAggStatus::BadCiphertext:
        return "a share ciphertext does not decrypt or names other parties";
    case SecAggStatus::NotSubset:
        return "the survivor list names a client outside U2 or not sampled";
    case SecAggStatus::InconsistentRequest:
        return "a second request contradicts the first";
    case SecAggStatus::TooFewShares:
        return "fewer shares than the threshold t: aborted";
    case SecAggStatus::BadShares:
        return "shares disagree or do not match the advertised key";
    case SecAggStatus::Aborted:
        return "the party aborted earlier";
    }
    return "unknown status";
}

void
CheckSecAggConfig(const SecAggConfig& config)
{
    if (config.clients.size() < 2)
    {
        throw ConfigError("clients",
                          std::to_string(config.clients.size()) + " sampled client(s)",
                          "sample at least 2 clients (secure aggregation of one input hides "
                          "nothing)");
    }
    for (std::size_t i = 0; i < config.clients.size(); ++i)
    {
        if ((i > 0 && config.clients[i] <= config.clients[i - 1]) ||
            config.clients[i] == UINT32_MAX)
        {
            throw ConfigError("clients",
                              "ids are not strictly ascending or use 0xFFFFFFFF",
                              "list every sampled client once, ascending, ids < 0xFFFFFFFF");
        }
    }
    if (config.dim == 0)
    {
        throw ConfigError("dim", "is 0", "give the model dimension (>= 1)");
    }
    if (config.fractionBits < 1 || config.fractionBits > 52)
    {
        throw ConfigError("maskFractionBits",
                          "is " + std::to_string(config.fractionBits),
                          "use 1..52 fraction bits");
    }
    const std::size_t n = config.clients.size();
    std::size_t holders = n;
    if (config.graph == SecAggGraphKind::Harary)
    {
        if (config.neighbours < 2 || config.neighbours % 2 != 0)
        {
            throw ConfigError("neighbours",
                              "k = " + std::to_string(config.neighbours),
                              "use an even k >= 2 (SecAggPlusParameters chooses one)");
        }
        holders = std::min<std::size_t>(n, config.neighbours + 1);
    }
    if (config.threshold < 2 || config.threshold > holders || 2 * config.threshold <= holders)
    {
        throw ConfigError("threshold",
                          "t = " + std::to_string(config.threshold) + " for " +
                              std::to_string(holders) + " share holders per client",
                          "use a majority of the holders: " + std::to_string(holders / 2 + 1) +
                              " <= t <= " + std::to_string(holders) + " (and t >= 2)");
    }
}

std::vector<uint32_t>
SecAggHolders(const SecAggConfig& config, uint32_t id)
{
    CheckSecAggConfig(config);
    if (!Contains(config.clients, id))
    {
        throw ConfigError("clients",
                          "client " + std::to_string(id) + " is not sampled",
                          "construct parties only for sampled clients");
    }
    std::vector<uint32_t> holders;
    if (config.graph == SecAggGraphKind::Complete || config.neighbours + 1 >= config.clients.size())
    {
        holders = config.clients;
    }
    else
    {
        holders = HararyNeighbours(config.clients, config.neighbours, config.graphSeed, id);
        holders.insert(std::lower_bound(holders.begin(), holders.end(), id), id);
    }
    return holders;
}

SecAggIdentity
MakeSecAggIdentity(uint32_t id, KeySource& keys)
{
    EnsureSodiumReady();
    SecAggIdentity identity;
    identity.id = id;
    MaskSecret seed = keys.Key();
    crypto_sign_seed_keypair(identity.verifyKey.data(), identity.signingKey.data(), seed.data());
    sodium_memzero(seed.data(), seed.size());
    return identity;
}

std::vector<uint8_t>
SecAggKeysSignedMessage(const SecAggConfig& config, const SecAggAdvertisedKeys& keys)
{
    std::vector<uint8_t> m;
    Append(m, "fl-secagg-v1 keys");
    AppendLe(m, config.instance, 8);
    AppendLe(m, config.threshold, 4);
    AppendLe(m, static_cast<uint8_t>(config.graph), 1);
    AppendLe(m, config.neighbours, 4);
    AppendLe(m, config.graphSeed, 8);
    AppendLe(m, config.dim, 8);
    AppendLe(m, keys.id, 4);
    AppendRaw(m, keys.cPk);
    AppendRaw(m, keys.sPk);
    return m;
}

std::vector<uint8_t>
SecAggSurvivorsSignedMessage(const SecAggConfig& config, const std::vector<uint32_t>& survivors)
{
    std::vector<uint8_t> m;
    Append(m, "fl-secagg-v1 survivors");
    AppendLe(m, config.instance, 8);
    AppendLe(m, survivors.size(), 4);
    for (uint32_t id : survivors)
    {
        AppendLe(m, id, 4);
    }
    return m;
}

Eigen::VectorXd
SecAggResult::Mean() const
{
    if (totalWeight == 0)
    {
        throw ConfigError("totalWeight", "is 0", "aggregate at least one weighted input");
    }
    return sum / static_cast<double>(totalWeight);
}

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
}

SecAggStatus
SecAggClient::Refuse(SecAggStatus s)
{
    m_abort = s;
    m_phase = Phase::Done;
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
    const std::vector<ShamirShare> sShares =
        ShamirSplit(m_s.secretKey, m_cfg.threshold, xs, m_keys);
    const std::vector<ShamirShare> bShares = ShamirSplit(m_b, m_cfg.threshold, xs, m_keys);
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
    out = PackSecAggEncryptedShares(m_cfg.instance, up);
    m_phase = Phase::Mask;
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
    // Fig. 4, Unmasking: U4 subset of U3, |U4| >= t, every signature on U3 valid.
    const std::vector<uint8_t> signedU3 = SecAggSurvivorsSignedMessage(m_cfg, m_u3);
    for (const auto& s : sigs)
    {
        if (!Contains(m_u3, s.id) || !IsHolder(s.id))
        {
            return Refuse(SecAggStatus::NotSubset);
        }
        if (!Verify(m_pki, s.id, signedU3, s.sig))
        {
            return Refuse(SecAggStatus::BadSignature);
        }
    }
    if (sigs.size() < m_cfg.threshold)
    {
        return Refuse(SecAggStatus::TooFewClients);
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
    out = m_unmaskOut;
    return SecAggStatus::Ok;
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
        std::vector<SecAggSignedId> list;
        for (uint32_t v : HoldersOf(u))
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
            return Abort(st);
        }
        ApplyPairwiseMask(sum, b, false);
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
            return Abort(st);
        }
        MaskPublicKey check;
        crypto_scalarmult_base(check.data(), sv.secretKey.data());
        if (check != sv.publicKey)
        {
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
                return Abort(SecAggStatus::BadKey);
            }
            ApplyPairwiseMask(sum, s, u > v);
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

// ------------------------------------------------------------------ rounds of an application

SecAggConfig
MakeSecAggRoundConfig(uint64_t instance,
                      const std::vector<uint32_t>& clients,
                      std::size_t dim,
                      const SecAggRule& rule,
                      uint64_t graphSeed)
{
    SecAggConfig c;
    c.instance = instance;
    c.clients = clients;
    c.dim = dim;
    c.fractionBits = rule.fractionBits;
    const auto n = static_cast<uint32_t>(clients.size());
    c.threshold = n / 2 + 1; // the smallest majority of the complete graph's n holders
    if (rule.graph == SecAggGraphKind::Harary && n >= 3)
    {
        const SecAggPlusChoice p = SecAggPlusParameters(n, rule.threat);
        c.threshold = p.threshold;
        if (!p.complete)
        {
            c.graph = SecAggGraphKind::Harary;
            c.neighbours = p.neighbours;
            c.graphSeed = graphSeed;
        }
    }
    if (rule.threshold != 0)
    {
        c.threshold = rule.threshold;
    }
    CheckSecAggConfig(c);
    return c;
}

SecAggRoundSetup
SecAggSetupOf(const SecAggConfig& config)
{
    SecAggRoundSetup s;
    s.graph = static_cast<uint8_t>(config.graph);
    s.fractionBits = static_cast<uint8_t>(config.fractionBits);
    s.threshold = config.threshold;
    s.neighbours = config.neighbours;
    s.graphSeed = config.graphSeed;
    s.dim = config.dim;
    s.clients = config.clients;
    return s;
}

SecAggStatus
SecAggAcceptSetup(uint64_t instance,
                  const SecAggRoundSetup& setup,
                  uint32_t self,
                  std::size_t dim,
                  const SecAggRule& rule,
                  SecAggConfig& config)
{
    if (!Contains(setup.clients, self))
    {
        return SecAggStatus::UnknownClient;
    }
    if (setup.clients.size() < 2 || (rule.threshold != 0 && setup.clients.size() < rule.threshold))
    {
        return SecAggStatus::TooFewClients;
    }
    if (setup.dim != dim)
    {
        return SecAggStatus::Malformed;
    }
    SecAggConfig own;
    try
    {
        own = MakeSecAggRoundConfig(instance, setup.clients, dim, rule, setup.graphSeed);
    }
    catch (const ConfigError&)
    {
        return SecAggStatus::Malformed;
    }
    const SecAggRoundSetup expected = SecAggSetupOf(own);
    if (expected.graph != setup.graph || expected.fractionBits != setup.fractionBits ||
        expected.threshold != setup.threshold || expected.neighbours != setup.neighbours ||
        (own.graph == SecAggGraphKind::Harary && expected.graphSeed != setup.graphSeed))
    {
        return SecAggStatus::Malformed;
    }
    config = own;
    return SecAggStatus::Ok;
}

SecAggResult
SecAggPlainSum(const std::vector<const Eigen::VectorXd*>& inputs,
               const std::vector<uint64_t>& weights,
               unsigned fractionBits,
               std::size_t summands)
{
    if (inputs.empty() || weights.size() != inputs.size())
    {
        throw ConfigError("inputs",
                          std::to_string(inputs.size()) + " inputs and " +
                              std::to_string(weights.size()) + " weights",
                          "give one weight per input, at least one input");
    }
    if (summands < inputs.size())
    {
        throw ConfigError("summands",
                          std::to_string(summands) + " for " + std::to_string(inputs.size()) +
                              " inputs",
                          "give the number of configured clients n (at least the inputs)");
    }
    const auto d = static_cast<std::size_t>(inputs.front()->size());
    std::vector<uint64_t> sum(d + 1, 0);
    std::vector<uint64_t> words;
    for (std::size_t i = 0; i < inputs.size(); ++i)
    {
        if (static_cast<std::size_t>(inputs[i]->size()) != d)
        {
            throw ConfigError("x",
                              "has " + std::to_string(inputs[i]->size()) + " values",
                              "give every input the same dimension " + std::to_string(d));
        }
        if (weights[i] == 0 || weights[i] > MaxWeight(summands))
        {
            throw ConfigError("weight",
                              "is " + std::to_string(weights[i]),
                              "use 1 <= n_k <= " + std::to_string(MaxWeight(summands)) +
                                  " (the sum of the weights must not wrap)");
        }
        // exactly SecAggClient::MaskInput's encoding, without the masks
        const Eigen::VectorXd scaled = static_cast<double>(weights[i]) * *inputs[i];
        EncodeFixedPoint(scaled, fractionBits, summands, words);
        for (std::size_t j = 0; j < d; ++j)
        {
            sum[j] += words[j];
        }
        sum[d] += weights[i];
    }
    SecAggResult r;
    r.totalWeight = sum.back();
    sum.pop_back();
    r.sum = DecodeFixedPoint(sum, fractionBits);
    return r;
}

// ------------------------------------------------------------------ in-process runs

SecAggRunOutcome
RunSecAggInProcess(const SecAggConfig& config,
                   const std::vector<Eigen::VectorXd>& inputs,
                   const std::vector<uint64_t>& weights,
                   KeyMode mode,
                   const SecAggRunSeed& runSeed,
                   const SecAggDropouts& dropouts)
{
    using Clock = std::chrono::steady_clock;
    CheckSecAggConfig(config);
    const std::size_t n = config.clients.size();
    if (inputs.size() != n || weights.size() != n)
    {
        throw ConfigError("inputs",
                          std::to_string(inputs.size()) + " inputs and " +
                              std::to_string(weights.size()) + " weights for " + std::to_string(n) +
                              " clients",
                          "give one input and one weight per sampled client");
    }
    auto source = [&](uint32_t id, uint64_t instance) {
        return mode == KeyMode::Random ? KeySource::Random()
                                       : KeySource::Reproducible(runSeed, id, instance);
    };
    SecAggPki pki;
    std::vector<SecAggIdentity> identities;
    for (uint32_t id : config.clients)
    {
        KeySource ks = source(id, UINT64_MAX);
        identities.push_back(MakeSecAggIdentity(id, ks));
        pki[id] = identities.back().verifyKey;
    }
    SecAggRunOutcome outcome;
    std::vector<SecAggClient> clients;
    clients.reserve(n);
    for (std::size_t i = 0; i < n; ++i)
    {
        clients.emplace_back(config,
                             identities[i],
                             pki,
                             source(config.clients[i], config.instance));
        outcome.clients[config.clients[i]];
    }
    SecAggServer server(config, pki);
    auto seconds = [](Clock::time_point t0) {
        return std::chrono::duration<double>(Clock::now() - t0).count();
    };
    auto timedServer = [&](auto&& f) {
        const auto t0 = Clock::now();
        const SecAggStatus st = f();
        outcome.server.seconds += seconds(t0);
        return st;
    };
    // One round: every client that has not dropped answers what the server sent it.
    std::map<uint32_t, SecAggBytes> down;
    auto clientRound =
        [&](const std::set<uint32_t>& stopping, bool needsDown, auto&& step, auto&& receive) {
            for (std::size_t i = 0; i < n; ++i)
            {
                const uint32_t id = config.clients[i];
                if (stopping.count(id) != 0 || clients[i].Aborted())
                {
                    continue;
                }
                const SecAggBytes* in = nullptr;
                if (needsDown)
                {
                    auto it = down.find(id);
                    if (it == down.end())
                    {
                        continue; // the server sent it nothing: it is out of the protocol
                    }
                    in = &it->second;
                    outcome.clients[id].bytesReceived += in->size();
                }
                SecAggBytes up;
                const auto t0 = Clock::now();
                const SecAggStatus st = step(clients[i], in, i, up);
                outcome.clients[id].seconds += seconds(t0);
                if (st != SecAggStatus::Ok)
                {
                    continue;
                }
                outcome.clients[id].bytesSent += up.size();
                outcome.server.bytesReceived += up.size();
                timedServer([&] { return receive(up); });
            }
        };
    auto serverRound = [&](auto&& end) {
        const SecAggStatus st = timedServer([&] { return end(down); });
        for (const auto& [id, bytes] : down)
        {
            outcome.server.bytesSent += bytes.size();
        }
        return st;
    };
    std::set<uint32_t> gone = dropouts.beforeKeys;
    clientRound(
        gone,
        false,
        [](SecAggClient& c, const SecAggBytes*, std::size_t, SecAggBytes& up) {
            return c.AdvertiseKeys(up);
        },
        [&](const SecAggBytes& m) { return server.ReceiveAdvertisedKeys(m); });
    SecAggStatus st = serverRound([&](auto& o) { return server.BroadcastKeys(o); });
    gone.insert(dropouts.beforeShares.begin(), dropouts.beforeShares.end());
    if (st == SecAggStatus::Ok)
    {
        clientRound(
            gone,
            true,
            [](SecAggClient& c, const SecAggBytes* in, std::size_t, SecAggBytes& up) {
                return c.ShareKeys(*in, up);
            },
            [&](const SecAggBytes& m) { return server.ReceiveEncryptedShares(m); });
        st = serverRound([&](auto& o) { return server.ForwardShares(o); });
    }
    gone.insert(dropouts.beforeInput.begin(), dropouts.beforeInput.end());
    if (st == SecAggStatus::Ok)
    {
        clientRound(
            gone,
            true,
            [&](SecAggClient& c, const SecAggBytes* in, std::size_t i, SecAggBytes& up) {
                return c.MaskInput(*in, inputs[i], weights[i], up);
            },
            [&](const SecAggBytes& m) { return server.ReceiveMaskedInput(m); });
        st = serverRound([&](auto& o) { return server.AnnounceSurvivors(o); });
    }
    gone.insert(dropouts.beforeConsistency.begin(), dropouts.beforeConsistency.end());
    if (st == SecAggStatus::Ok)
    {
        clientRound(
            gone,
            true,
            [](SecAggClient& c, const SecAggBytes* in, std::size_t, SecAggBytes& up) {
                return c.ConsistencyCheck(*in, up);
            },
            [&](const SecAggBytes& m) { return server.ReceiveConsistencySignature(m); });
        st = serverRound([&](auto& o) { return server.RelaySignatures(o); });
    }
    gone.insert(dropouts.beforeUnmask.begin(), dropouts.beforeUnmask.end());
    if (st == SecAggStatus::Ok)
    {
        clientRound(
            gone,
            true,
            [](SecAggClient& c, const SecAggBytes* in, std::size_t, SecAggBytes& up) {
                return c.Unmask(*in, up);
            },
            [&](const SecAggBytes& m) { return server.ReceiveUnmaskShares(m); });
        down.clear();
        st = timedServer([&] { return server.Finish(outcome.result); });
    }
    outcome.status = st;
    return outcome;
}

} // namespace fl
} // namespace ns3
