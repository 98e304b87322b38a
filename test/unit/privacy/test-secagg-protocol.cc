/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Secure aggregation of Bonawitz et al., "Practical Secure Aggregation for Privacy-Preserving
 * Machine Learning", ACM CCS 2017 (Fig. 4), and SecAgg+ of Bell et al., "Secure Single-Server
 * Aggregation with (Poly)Logarithmic Overhead", ACM CCS 2020, as whole runs:
 *  - exact sums with and without dropouts, aborts below t, both key modes, weighted sums;
 *  - the attacks on the earlier single-mask protocol, by hand, each of which now recovers nothing;
 *  - the rounds of an application (the rule, the sender's peek, the plain sum);
 *  - SecAgg+ on a Harary graph and its parameter choice.
 * The primitives, Shamir sharing, the wire and the configuration checks are test-secagg.cc.
 */
#include "fl-test-config-error.h"
#include "fl-test-secagg.h"

#include "ns3/secagg-protocol.h"

#include <algorithm>
#include <bitset>
#include <numeric>
#include <functional>
#include <gtest/gtest.h>
#include <sodium.h>
#include <string>

using namespace ns3::fl;
using fltest::ExpectConfigError;
using fltest::Config;
using fltest::Seed;

namespace
{

// ------------------------------------------------------------------ runs

std::vector<Eigen::VectorXd>
Inputs(std::size_t n, std::size_t d, uint64_t seed)
{
    return fltest::SecAggInputs(n, d, seed);
}

/// The plain fixed-point sum over the clients at the given indices (no masks at all).
Eigen::VectorXd
PlainSum(const SecAggConfig& c,
         const std::vector<Eigen::VectorXd>& x,
         const std::vector<uint64_t>& w,
         const std::set<uint32_t>& excluded)
{
    std::vector<uint64_t> sum(c.dim, 0);
    for (std::size_t i = 0; i < x.size(); ++i)
    {
        if (excluded.count(c.clients[i]) != 0)
        {
            continue;
        }
        std::vector<uint64_t> words;
        const Eigen::VectorXd scaled = static_cast<double>(w[i]) * x[i];
        EncodeFixedPoint(scaled, c.fractionBits, c.clients.size(), words);
        for (std::size_t j = 0; j < c.dim; ++j)
        {
            sum[j] += words[j];
        }
    }
    return DecodeFixedPoint(sum, c.fractionBits);
}

TEST(SecAggProtocol, NoDropoutSumIsExact)
{
    const SecAggConfig c = Config(5, 3);
    const auto x = Inputs(5, c.dim, 1);
    const std::vector<uint64_t> w(5, 1);
    const auto run = RunSecAggInProcess(c, x, w, KeyMode::Random, {});
    ASSERT_EQ(run.status, SecAggStatus::Ok) << SecAggStatusText(run.status);
    EXPECT_EQ(run.result.sum, PlainSum(c, x, w, {})); // bit for bit
    EXPECT_EQ(run.result.totalWeight, 5u);
    EXPECT_EQ(run.result.survivors, c.clients);
    EXPECT_TRUE(run.result.dropped.empty());
    Eigen::VectorXd exact = Eigen::VectorXd::Zero(6);
    for (const auto& v : x)
    {
        exact += v;
    }
    EXPECT_LE((run.result.sum - exact).cwiseAbs().maxCoeff(), 5 * std::ldexp(1.0, -31));
}

TEST(SecAggProtocol, DropoutsUpToNMinusTAreRecoveredExactly)
{
    const SecAggConfig c = Config(9, 5);
    const auto x = Inputs(9, c.dim, 2);
    const std::vector<uint64_t> w(9, 1);
    // n - t = 4 dropouts spread over the rounds: 10 sends nothing, 13 stops after its keys,
    // 16 after its shares (in U2, not in U3: its s^SK is reconstructed), 19 after its upload (in
    // U3, does not sign), and 22 after signing (in U4, does not unmask): still >= t everywhere.
    SecAggDropouts drops;
    drops.beforeKeys = {10};
    drops.beforeShares = {13};
    drops.beforeInput = {16};
    drops.beforeConsistency = {19};
    const auto run = RunSecAggInProcess(c, x, w, KeyMode::Random, {}, drops);
    ASSERT_EQ(run.status, SecAggStatus::Ok) << SecAggStatusText(run.status);
    EXPECT_EQ(run.result.sum, PlainSum(c, x, w, {10, 13, 16}));
    EXPECT_EQ(run.result.dropped, (std::vector<uint32_t>{16}));
    EXPECT_EQ(run.result.totalWeight, 6u);

    SecAggDropouts late;
    late.beforeInput = {10, 22, 31};
    late.beforeUnmask = {13};
    const auto run2 = RunSecAggInProcess(c, x, w, KeyMode::Random, {}, late);
    ASSERT_EQ(run2.status, SecAggStatus::Ok) << SecAggStatusText(run2.status);
    EXPECT_EQ(run2.result.sum, PlainSum(c, x, w, {10, 22, 31}));
    EXPECT_EQ(run2.result.dropped, (std::vector<uint32_t>{10, 22, 31}));
}

TEST(SecAggProtocol, BelowThresholdAbortsWithAClearStatus)
{
    const SecAggConfig c = Config(5, 3);
    const auto x = Inputs(5, c.dim, 3);
    const std::vector<uint64_t> w(5, 1);
    for (int round = 0; round < 5; ++round)
    {
        SecAggDropouts d;
        std::set<uint32_t>* sets[] = {&d.beforeKeys,
                                      &d.beforeShares,
                                      &d.beforeInput,
                                      &d.beforeConsistency,
                                      &d.beforeUnmask};
        *sets[round] = {10, 13, 16}; // 2 left of t = 3
        const auto run = RunSecAggInProcess(c, x, w, KeyMode::Random, {}, d);
        EXPECT_EQ(run.status, SecAggStatus::TooFewClients) << "round " << round;
        EXPECT_STREQ(SecAggStatusText(run.status),
                     "fewer clients than the threshold t (or than the smallest roster): aborted");
    }
}

TEST(SecAggProtocol, ReproducibleAndRandomModesGiveTheSameSumBitForBit)
{
    const SecAggConfig c = Config(6, 4);
    const auto x = Inputs(6, c.dim, 4);
    const std::vector<uint64_t> w{3, 1, 4, 1, 5, 9};
    SecAggDropouts d;
    d.beforeInput = {13};
    const auto a = RunSecAggInProcess(c, x, w, KeyMode::Reproducible, Seed(9), d);
    const auto b = RunSecAggInProcess(c, x, w, KeyMode::Reproducible, Seed(9), d);
    const auto r = RunSecAggInProcess(c, x, w, KeyMode::Random, {}, d);
    ASSERT_EQ(a.status, SecAggStatus::Ok);
    ASSERT_EQ(r.status, SecAggStatus::Ok);
    EXPECT_EQ(a.result.sum, b.result.sum);
    EXPECT_EQ(a.result.sum, r.result.sum);
    EXPECT_EQ(a.result.sum, PlainSum(c, x, w, {13}));
    EXPECT_EQ(a.result.totalWeight, 3u + 4 + 1 + 5 + 9);
    // Weighted mean: sum n_k x_k / sum n_k.
    Eigen::VectorXd mean = Eigen::VectorXd::Zero(6);
    for (std::size_t i = 0; i < 6; ++i)
    {
        if (i != 1)
        {
            mean += static_cast<double>(w[i]) * x[i];
        }
    }
    mean /= 22.0;
    EXPECT_LE((a.result.Mean() - mean).cwiseAbs().maxCoeff(), 1e-8);
}

TEST(SecAggProtocol, ReproducibleModeRepeatsEveryMessageAndRandomModeDoesNot)
{
    const SecAggConfig c = Config(3, 2);
    SecAggPki pki;
    std::vector<SecAggIdentity> ids;
    for (uint32_t id : c.clients)
    {
        KeySource k = KeySource::Reproducible(Seed(3), id, UINT64_MAX);
        ids.push_back(MakeSecAggIdentity(id, k));
        pki[id] = ids.back().verifyKey;
    }
    SecAggBytes m1;
    SecAggBytes m2;
    SecAggBytes m3;
    SecAggClient(c, ids[0], pki, KeySource::Reproducible(Seed(3), 10, 42)).AdvertiseKeys(m1);
    SecAggClient(c, ids[0], pki, KeySource::Reproducible(Seed(3), 10, 42)).AdvertiseKeys(m2);
    SecAggClient(c, ids[0], pki, KeySource::Random()).AdvertiseKeys(m3);
    EXPECT_EQ(m1, m2);
    EXPECT_NE(m1, m3);
}

// ------------------------------------------------------------------ attacks, by hand

/// Every party of one instance, stepped by hand so that a test can play a malicious server.
class Manual
{
  public:
    explicit Manual(const SecAggConfig& c)
        : cfg(c),
          x(Inputs(c.clients.size(), c.dim, 11))
    {
        for (uint32_t id : c.clients)
        {
            KeySource k;
            identities.push_back(MakeSecAggIdentity(id, k));
            pki[id] = identities.back().verifyKey;
        }
        for (std::size_t i = 0; i < c.clients.size(); ++i)
        {
            clients.emplace_back(c, identities[i], pki, KeySource::Random());
        }
        server = std::make_unique<SecAggServer>(c, pki);
    }

    std::size_t Index(uint32_t id) const
    {
        return static_cast<std::size_t>(std::find(cfg.clients.begin(), cfg.clients.end(), id) -
                                        cfg.clients.begin());
    }

    void Keys()
    {
        for (auto& c : clients)
        {
            SecAggBytes up;
            ASSERT_EQ(c.AdvertiseKeys(up), SecAggStatus::Ok);
            advertised[c.Id()] = up;
            ASSERT_EQ(server->ReceiveAdvertisedKeys(up), SecAggStatus::Ok);
        }
        ASSERT_EQ(server->BroadcastKeys(down), SecAggStatus::Ok);
    }

    void Shares()
    {
        for (auto& c : clients)
        {
            SecAggBytes up;
            ASSERT_EQ(c.ShareKeys(down.at(c.Id()), up), SecAggStatus::Ok);
            ASSERT_EQ(server->ReceiveEncryptedShares(up), SecAggStatus::Ok);
        }
        ASSERT_EQ(server->ForwardShares(down), SecAggStatus::Ok);
    }

    /// Uploads; `upload` may rewrite a client's bytes before the server gets them.
    void Upload(const std::function<void(uint32_t, SecAggBytes&)>& upload = {})
    {
        for (std::size_t i = 0; i < clients.size(); ++i)
        {
            SecAggBytes up;
            ASSERT_EQ(clients[i].MaskInput(down.at(clients[i].Id()), x[i], 1, up),
                      SecAggStatus::Ok);
            if (upload)
            {
                upload(clients[i].Id(), up);
            }
            uploads[clients[i].Id()] = up;
            server->ReceiveMaskedInput(up);
        }
        ASSERT_EQ(server->AnnounceSurvivors(down), SecAggStatus::Ok);
    }

    void Signatures()
    {
        for (auto& c : clients)
        {
            auto it = down.find(c.Id());
            if (it == down.end())
            {
                continue;
            }
            SecAggBytes up;
            ASSERT_EQ(c.ConsistencyCheck(it->second, up), SecAggStatus::Ok);
            ASSERT_EQ(server->ReceiveConsistencySignature(up), SecAggStatus::Ok);
        }
        ASSERT_EQ(server->RelaySignatures(down), SecAggStatus::Ok);
    }

    SecAggConfig cfg;
    std::vector<Eigen::VectorXd> x;
    SecAggPki pki;
    std::vector<SecAggIdentity> identities;
    std::vector<SecAggClient> clients;
    std::unique_ptr<SecAggServer> server;
    std::map<uint32_t, SecAggBytes> down;
    std::map<uint32_t, SecAggBytes> advertised;
    std::map<uint32_t, SecAggBytes> uploads;
};

TEST(SecAggAttacks, ARosterHoldingOnlyTheClientIsRefused)
{
    // One sampled client cannot even be configured.
    ExpectConfigError([] { CheckSecAggConfig(Config(1, 1)); }, "clients");
    // A server that hands a client a key list holding only itself.
    Manual m(Config(5, 3));
    m.Keys();
    std::vector<SecAggAdvertisedKeys> all;
    uint64_t instance = 0;
    ASSERT_TRUE(ParseSecAggKeyList(m.down.at(10), instance, all));
    const std::vector<SecAggAdvertisedKeys> onlySelf{all[0]};
    SecAggBytes up;
    EXPECT_EQ(m.clients[0].ShareKeys(PackSecAggKeyList(42, onlySelf), up),
              SecAggStatus::TooFewClients);
    EXPECT_TRUE(up.empty());
    EXPECT_TRUE(m.clients[0].Aborted());
    SecAggBytes y;
    EXPECT_EQ(m.clients[0].MaskInput(m.down.at(10), m.x[0], 1, y), SecAggStatus::Aborted);
    EXPECT_TRUE(y.empty()); // no upload at all, masked or not
    // The same with a key list of t - 1 clients, and with the client left out.
    const std::vector<SecAggAdvertisedKeys> two{all[0], all[1]};
    EXPECT_EQ(m.clients[1].ShareKeys(PackSecAggKeyList(42, two), up), SecAggStatus::TooFewClients);
    const std::vector<SecAggAdvertisedKeys> others{all[0], all[1], all[3], all[4]};
    EXPECT_EQ(m.clients[2].ShareKeys(PackSecAggKeyList(42, others), up), SecAggStatus::MissingSelf);
}

TEST(SecAggAttacks, AServerSwappedKeyIsDetectedBySignatureVerification)
{
    Manual m(Config(5, 3));
    m.Keys();
    std::vector<SecAggAdvertisedKeys> list;
    uint64_t instance = 0;
    ASSERT_TRUE(ParseSecAggKeyList(m.down.at(10), instance, list));
    // The server puts its own mask key in place of client 13's.
    KeySource k;
    const MaskSecret sk = k.Key();
    crypto_scalarmult_base(list[1].sPk.data(), sk.data());
    SecAggBytes up;
    EXPECT_EQ(m.clients[0].ShareKeys(PackSecAggKeyList(42, list), up), SecAggStatus::BadSignature);
    // ... or its own encryption key, or re-signs with a key of its own.
    ASSERT_TRUE(ParseSecAggKeyList(m.down.at(13), instance, list));
    crypto_scalarmult_base(list[0].cPk.data(), sk.data());
    EXPECT_EQ(m.clients[1].ShareKeys(PackSecAggKeyList(42, list), up), SecAggStatus::BadSignature);
    ASSERT_TRUE(ParseSecAggKeyList(m.down.at(16), instance, list));
    KeySource k2;
    const SecAggIdentity mallory = MakeSecAggIdentity(10, k2);
    crypto_scalarmult_base(list[0].sPk.data(), sk.data());
    const auto msg = SecAggKeysSignedMessage(m.cfg, list[0]);
    crypto_sign_detached(list[0].sig.data(),
                         nullptr,
                         msg.data(),
                         msg.size(),
                         mallory.signingKey.data());
    EXPECT_EQ(m.clients[2].ShareKeys(PackSecAggKeyList(42, list), up), SecAggStatus::BadSignature);
    // The server itself drops advertised keys that do not verify.
    SecAggServer s(m.cfg, m.pki);
    SecAggAdvertisedKeys forged;
    ParseSecAggAdvertiseKeys(m.advertised.at(19), instance, forged);
    forged.sPk = list[0].sPk;
    EXPECT_EQ(s.ReceiveAdvertisedKeys(PackSecAggAdvertiseKeys(42, forged)),
              SecAggStatus::BadSignature);
    // A duplicate key pair (the server replays one client's keys for another) is refused.
    ASSERT_TRUE(ParseSecAggKeyList(m.down.at(19), instance, list));
    list[4].cPk = list[0].cPk;
    EXPECT_EQ(m.clients[3].ShareKeys(PackSecAggKeyList(42, list), up), SecAggStatus::DuplicateKey);
}

TEST(SecAggAttacks, ARevealRequestNamingASurvivorAsDroppedIsRefused)
{
    Manual m(Config(5, 3));
    m.Keys();
    m.Shares();
    m.Upload();
    const SecAggBytes honestU3 = m.down.at(10);
    m.Signatures();
    // Client 10 answered the certified U3 = everyone with b shares.
    SecAggBytes first;
    ASSERT_EQ(m.clients[0].Unmask(m.down.at(10), first), SecAggStatus::Ok);
    // A second request that names survivor 13 as dropped (to get a share of s_13^SK as well).
    const SecAggBytes forged = PackSecAggSurvivorList(42, {10, 16, 19, 22});
    SecAggBytes out;
    EXPECT_EQ(m.clients[0].ConsistencyCheck(forged, out), SecAggStatus::InconsistentRequest);
    EXPECT_TRUE(out.empty());
    EXPECT_TRUE(m.clients[0].Aborted());
    // Client 13's own ConsistencyCheck repeated with the same U3 gets the same signature.
    SecAggBytes again;
    EXPECT_EQ(m.clients[1].ConsistencyCheck(honestU3, again), SecAggStatus::Ok);
    // The first U3 request naming every peer as dropped: refused (fewer than t survivors).
    Manual e(Config(5, 3));
    e.Keys();
    e.Shares();
    e.Upload();
    EXPECT_EQ(e.clients[0].ConsistencyCheck(PackSecAggSurvivorList(42, {10}), out),
              SecAggStatus::TooFewClients);
    Manual n(Config(5, 3));
    n.Keys();
    n.Shares();
    n.Upload();
    // A split view: the server tells client 13 that 16 dropped, everyone else that it survived.
    EXPECT_EQ(n.clients[1].ConsistencyCheck(PackSecAggSurvivorList(42, {10, 13, 19, 22}), out),
              SecAggStatus::Ok);
    std::vector<SecAggSignedId> sigs;
    uint64_t instance = 0;
    SecAggSignedId own;
    ASSERT_TRUE(ParseSecAggConsistencySignature(out, instance, own));
    sigs.push_back(own);
    for (std::size_t i : {0u, 2u, 3u, 4u})
    {
        SecAggBytes s;
        ASSERT_EQ(n.clients[i].ConsistencyCheck(n.down.at(n.cfg.clients[i]), s), SecAggStatus::Ok);
        SecAggSignedId sid;
        ASSERT_TRUE(ParseSecAggConsistencySignature(s, instance, sid));
        sigs.push_back(sid);
    }
    std::sort(sigs.begin(), sigs.end(), [](const auto& a, const auto& b) { return a.id < b.id; });
    // Relaying the others' signatures (on the honest U3) fails verification against 13's U3 ...
    std::vector<SecAggSignedId> relayed;
    for (const auto& s : sigs)
    {
        if (s.id != 16)
        {
            relayed.push_back(s);
        }
    }
    EXPECT_EQ(n.clients[1].Unmask(PackSecAggSignatureList(42, relayed), out),
              SecAggStatus::BadSignature);
    // ... and 13's signature alone is fewer than t.
    Manual p(Config(5, 3));
    p.Keys();
    p.Shares();
    p.Upload();
    ASSERT_EQ(p.clients[1].ConsistencyCheck(PackSecAggSurvivorList(42, {10, 13, 19, 22}), out),
              SecAggStatus::Ok);
    ASSERT_TRUE(ParseSecAggConsistencySignature(out, instance, own));
    EXPECT_EQ(p.clients[1].Unmask(PackSecAggSignatureList(42, {own}), out),
              SecAggStatus::TooFewClients);
}

TEST(SecAggAttacks, AnUploadThatArrivedOnlyInPartStaysMaskedBySelfMask)
{
    SecAggConfig c = Config(5, 3, 64);
    Manual m(c);
    m.Keys();
    m.Shares();
    // Client 16's upload arrives without its last 100 bytes.
    m.Upload([](uint32_t id, SecAggBytes& up) {
        if (id == 16)
        {
            up.resize(up.size() - 100);
        }
    });
    EXPECT_EQ(m.server->Set(3), (std::vector<uint32_t>{10, 13, 19, 22}));
    m.Signatures();
    // Every survivor reveals; collect what the server receives.
    std::vector<SecAggUnmaskShares> answers;
    for (std::size_t i : {0u, 1u, 3u, 4u})
    {
        SecAggBytes up;
        ASSERT_EQ(m.clients[i].Unmask(m.down.at(m.cfg.clients[i]), up), SecAggStatus::Ok);
        uint64_t instance = 0;
        SecAggUnmaskShares a;
        ASSERT_TRUE(ParseSecAggUnmaskShares(up, instance, a));
        answers.push_back(a);
        ASSERT_EQ(m.server->ReceiveUnmaskShares(up), SecAggStatus::Ok);
    }
    // No honest client revealed anything of b_16: only shares of s_16^SK.
    std::vector<ShamirShare> s16;
    for (const auto& a : answers)
    {
        for (const auto& s : a.shares)
        {
            if (s.owner == 16)
            {
                EXPECT_EQ(s.kind, SecAggShareKind::MaskKey);
                s16.push_back(s.share);
            }
        }
    }
    ASSERT_EQ(s16.size(), 4u);
    SecAggResult result;
    ASSERT_EQ(m.server->Finish(result), SecAggStatus::Ok);
    EXPECT_EQ(result.dropped, (std::vector<uint32_t>{16}));
    // The server's best effort on 16's partial upload: reconstruct s_16^SK (as the protocol lets
    // it) and remove every pairwise mask of 16. What is left is Encode(x_16) + PRG(b_16).
    MaskKeyPair k16;
    ASSERT_TRUE(ShamirReconstruct(s16, 3, k16.secretKey));
    crypto_scalarmult_base(k16.publicKey.data(), k16.secretKey.data());
    const SecAggBytes& partial = m.uploads.at(16);
    const std::size_t got = (partial.size() - kSecAggHeaderBytes - 8) / 8;
    std::vector<uint64_t> view(c.dim + 1, 0);
    for (std::size_t j = 0; j < got; ++j)
    {
        for (int b = 0; b < 8; ++b)
        {
            view[j] |= static_cast<uint64_t>(partial[kSecAggHeaderBytes + 8 + 8 * j + b])
                       << (8 * b);
        }
    }
    uint64_t instance = 0;
    for (const auto& [id, bytes] : m.advertised)
    {
        if (id == 16)
        {
            continue;
        }
        SecAggAdvertisedKeys k;
        ASSERT_TRUE(ParseSecAggAdvertiseKeys(bytes, instance, k));
        ApplyPairwiseMask(view, AgreeMaskSecret(k16, k.sPk), id < 16); // undo 16's sign
    }
    std::vector<uint64_t> plain;
    EncodeFixedPoint(m.x[2], c.fractionBits, 5, plain);
    std::size_t ones = 0;
    for (std::size_t j = 0; j < got; ++j)
    {
        EXPECT_NE(view[j], plain[j]) << "word " << j << " decoded in the clear";
        ones += std::bitset<64>(view[j] - plain[j]).count(); // = PRG(b_16): uniform bits
    }
    const double fraction = static_cast<double>(ones) / (64.0 * static_cast<double>(got));
    EXPECT_NEAR(fraction, 0.5, 0.05) << "the residual mask is not uniform-looking";
    const Eigen::VectorXd decoded =
        DecodeFixedPoint(std::vector<uint64_t>(view.begin(), view.begin() + got), c.fractionBits);
    EXPECT_GT((decoded - m.x[2].head(static_cast<Eigen::Index>(got))).cwiseAbs().minCoeff(), 1e-3);
}

TEST(SecAggAttacks, ServerRejectsRevealsOfTheWrongKind)
{
    Manual m(Config(5, 3));
    m.Keys();
    m.Shares();
    m.Upload([](uint32_t id, SecAggBytes& up) {
        if (id == 22)
        {
            up.clear();
        }
    });
    m.Signatures();
    SecAggBytes up;
    ASSERT_EQ(m.clients[0].Unmask(m.down.at(10), up), SecAggStatus::Ok);
    uint64_t instance = 0;
    SecAggUnmaskShares a;
    ASSERT_TRUE(ParseSecAggUnmaskShares(up, instance, a));
    a.shares.back().kind = SecAggShareKind::SelfMaskSeed; // 22 dropped: b_22 must not be revealed
    EXPECT_EQ(m.server->ReceiveUnmaskShares(PackSecAggUnmaskShares(42, a)),
              SecAggStatus::Malformed);
}

// ------------------------------------------------------------------ rounds of an application

TEST(SecAggRounds, RuleGivesTheConfigurationAndTheClientChecksIt)
{
    SecAggRule rule;
    rule.fractionBits = 30;
    // The default: Bonawitz et al.'s active setting, t = floor(2n/3) + 1, n_C = ceil(n/3) - 1.
    const SecAggConfig c = MakeSecAggRoundConfig(7, {3, 5, 8, 13, 21}, 6, rule, 99);
    EXPECT_EQ(c.threshold, 4u); // floor(10 / 3) + 1
    EXPECT_EQ(c.colluders, 1u); // ceil(5 / 3) - 1
    EXPECT_EQ(c.graph, SecAggGraphKind::Complete);
    EXPECT_EQ(c.graphSeed, 0u); // only a Harary graph keeps a seed
    // By hand for n = 2..12: t = floor(2n/3) + 1, n_C = ceil(n/3) - 1, 2t > n + n_C, t - n_C >= 2.
    const uint32_t wantT[] = {2, 3, 3, 4, 5, 5, 6, 7, 7, 8, 9};
    const uint32_t wantC[] = {0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3};
    for (uint32_t n = 2; n <= 12; ++n)
    {
        std::vector<uint32_t> ids(n);
        std::iota(ids.begin(), ids.end(), 0u);
        const SecAggConfig k = MakeSecAggRoundConfig(7, ids, 6, rule, 0);
        EXPECT_EQ(k.threshold, wantT[n - 2]) << n;
        EXPECT_EQ(k.colluders, wantC[n - 2]) << n;
        EXPECT_GT(2 * k.threshold, n + k.colluders) << n;
        EXPECT_GE(k.threshold - k.colluders, 2u) << n;
    }
    ExpectConfigError([&] { MakeSecAggRoundConfig(7, {3}, 6, rule, 0); }, "clients");
    // A given t: n_C is the largest it tolerates; a t that is not above n/2 is refused.
    rule.threshold = 4;
    EXPECT_EQ(MakeSecAggRoundConfig(7, {3, 5, 8, 13, 21, 34}, 6, rule, 0).colluders, 1u);
    rule.threshold = 3; // 2t = 6 is not above n = 6
    ExpectConfigError([&] { MakeSecAggRoundConfig(7, {3, 5, 8, 13, 21, 34}, 6, rule, 0); },
                      "threshold",
                      "t > n / 2");
    rule.threshold = 7; // above the roster
    ExpectConfigError([&] { MakeSecAggRoundConfig(7, {3, 5, 8, 13, 21, 34}, 6, rule, 0); },
                      "threshold");
    // Given colluders: the smallest t with 2t > n + n_C and t - n_C >= 2.
    rule.threshold = 0;
    rule.colluders = 2;
    EXPECT_EQ(MakeSecAggRoundConfig(7, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, 6, rule, 0).threshold,
              7u);
    rule.colluders = 9; // no t <= 10 serves 9 colluders with two honest inputs in every sum
    ExpectConfigError([&] { MakeSecAggRoundConfig(7, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, 6, rule, 0); },
                      "colluders");
    rule.colluders = kSecAggAutoColluders;
    // The smallest roster a client takes part in.
    rule.minClients = 5;
    ExpectConfigError([&] { MakeSecAggRoundConfig(7, {3, 5, 8, 13}, 6, rule, 0); },
                      "clients",
                      "at least 5");
    // A client accepts the setup its own rule gives, and nothing else.
    const SecAggRoundSetup setup = SecAggSetupOf(c);
    SecAggConfig got;
    EXPECT_EQ(SecAggAcceptSetup(7, setup, 8, 6, rule, nullptr, got), SecAggStatus::Ok);
    EXPECT_EQ(got.clients, c.clients);
    EXPECT_EQ(got.threshold, 4u);
    EXPECT_EQ(got.colluders, 1u);
    EXPECT_EQ(SecAggAcceptSetup(7, setup, 4, 6, rule, nullptr, got), SecAggStatus::UnknownClient);
    EXPECT_EQ(SecAggAcceptSetup(7, setup, 8, 7, rule, nullptr, got), SecAggStatus::Malformed);
    SecAggRoundSetup lowered = setup;
    lowered.threshold = 3; // a server that lowers t
    EXPECT_EQ(SecAggAcceptSetup(7, lowered, 8, 6, rule, nullptr, got),
              SecAggStatus::BadConfiguration);
    SecAggRoundSetup coarse = setup;
    coarse.fractionBits = 8; // or coarsens the encoding
    EXPECT_EQ(SecAggAcceptSetup(7, coarse, 8, 6, rule, nullptr, got),
              SecAggStatus::BadConfiguration);
    SecAggRoundSetup alone = setup;
    alone.clients = {8}; // or names the client alone
    EXPECT_EQ(SecAggAcceptSetup(7, alone, 8, 6, rule, nullptr, got), SecAggStatus::TooFewClients);
    SecAggRoundSetup small = setup;
    small.clients = {3, 8, 13, 21}; // or a roster below the clients' MinClients
    EXPECT_EQ(SecAggAcceptSetup(7, small, 8, 6, rule, nullptr, got), SecAggStatus::TooFewClients);
    SecAggRoundSetup sparse = setup;
    sparse.graph = 1; // or a sparser graph than the rule's
    sparse.neighbours = 2;
    EXPECT_EQ(SecAggAcceptSetup(7, sparse, 8, 6, rule, nullptr, got), SecAggStatus::BadGraph);
    // SecAgg+: k and t from SecAggPlusParameters, the graph from the beacon, never the server.
    SecAggRule plus;
    plus.graph = SecAggGraphKind::Harary;
    std::vector<uint32_t> ids(60);
    std::iota(ids.begin(), ids.end(), 0u);
    const SecAggBeacon beacon(MaskSecret{}, 0.25);
    const uint64_t seed = SecAggGraphSeed(beacon.Value(9), 1, ids);
    const SecAggConfig h = MakeSecAggRoundConfig(1, ids, 4, plus, seed);
    const SecAggPlusChoice choice = SecAggPlusParameters(60, plus.threat);
    EXPECT_EQ(h.threshold, choice.threshold);
    EXPECT_EQ(h.colluders, choice.corruptHolders);
    EXPECT_EQ(h.graph, choice.complete ? SecAggGraphKind::Complete : SecAggGraphKind::Harary);
    EXPECT_EQ(SecAggAcceptSetup(1, SecAggSetupOf(h, 9), 7, 4, plus, &beacon, got),
              SecAggStatus::Ok);
    EXPECT_EQ(got.graphSeed, h.graph == SecAggGraphKind::Harary ? seed : 0u);
    if (h.graph == SecAggGraphKind::Harary)
    {
        // another round's graph is another graph, computed by the client itself
        EXPECT_EQ(SecAggAcceptSetup(1, SecAggSetupOf(h, 10), 7, 4, plus, &beacon, got),
                  SecAggStatus::Ok);
        EXPECT_NE(got.graphSeed, seed);
        EXPECT_EQ(SecAggAcceptSetup(1, SecAggSetupOf(h, 9), 7, 4, plus, nullptr, got),
                  SecAggStatus::BadGraph);
    }
}

TEST(SecAggRounds, SenderPeekAndPlainSum)
{
    SecAggMaskedInput y;
    y.from = 77;
    y.words = {1, 2};
    uint32_t sender = 0;
    ASSERT_TRUE(PeekSecAggSender(PackSecAggMaskedInput(3, y), sender));
    EXPECT_EQ(sender, 77u);
    EXPECT_FALSE(PeekSecAggSender(PackSecAggSurvivorList(3, {1, 2}), sender)); // server message
    // SecAggPlainSum is what a run decodes for its survivors, weighted, bit for bit.
    const SecAggConfig c = Config(6, 4);
    const auto x = Inputs(6, c.dim, 11);
    const std::vector<uint64_t> w{3, 1, 4, 1, 5, 9};
    SecAggDropouts d;
    d.beforeShares = {13};
    d.beforeInput = {22};
    const auto run = RunSecAggInProcess(c, x, w, KeyMode::Reproducible, Seed(3), d);
    ASSERT_EQ(run.status, SecAggStatus::Ok) << SecAggStatusText(run.status);
    std::vector<const Eigen::VectorXd*> in;
    std::vector<uint64_t> win;
    for (std::size_t i = 0; i < 6; ++i)
    {
        if (c.clients[i] != 13 && c.clients[i] != 22)
        {
            in.push_back(&x[i]);
            win.push_back(w[i]);
        }
    }
    const SecAggResult plain = SecAggPlainSum(in, win, c.fractionBits, 6);
    EXPECT_EQ(plain.sum, run.result.sum);
    EXPECT_EQ(plain.totalWeight, run.result.totalWeight);
    EXPECT_EQ(plain.totalWeight, 3u + 4 + 1 + 9); // clients 10, 16, 19, 25
    std::vector<uint64_t> zero(in.size(), 1);
    zero.back() = 0;
    ExpectConfigError([&] { SecAggPlainSum(in, zero, 30, 6); }, "weight");
    ExpectConfigError([&] { SecAggPlainSum(in, win, 30, 2); }, "summands");
}

// ------------------------------------------------------------------ SecAgg+

TEST(SecAggPlus, HararyGraphIsRegularSymmetricAndSeeded)
{
    std::vector<uint32_t> ids;
    for (uint32_t i = 0; i < 20; ++i)
    {
        ids.push_back(100 + i);
    }
    const auto g = HararyGraph(ids, 6, 77);
    for (std::size_t i = 0; i < ids.size(); ++i)
    {
        EXPECT_EQ(g[i].size(), 6u);
        EXPECT_EQ(HararyNeighbours(ids, 6, 77, ids[i]), g[i]);
        for (uint32_t v : g[i])
        {
            const auto& back = g[v - 100];
            EXPECT_TRUE(std::binary_search(back.begin(), back.end(), ids[i]));
        }
    }
    EXPECT_NE(HararyGraph(ids, 6, 78), g);
    EXPECT_EQ(HararyNeighbours(ids, 20, 1, 105).size(), 19u); // k >= n - 1: complete
    ExpectConfigError([&] { HararyGraph(ids, 5, 1); }, "neighbours", "even");
}

TEST(SecAggPlus, ParameterChoice)
{
    // Hypergeometric CDF by hand: N = 10, K = 3, m = 2: Pr[X <= 1] = (21 + 21) / 45.
    EXPECT_NEAR(std::exp(LogHypergeometricCdf(10, 3, 2, 1)), 42.0 / 45.0, 1e-12);
    EXPECT_NEAR(std::exp(LogHypergeometricCdf(10, 3, 2, 0)), 21.0 / 45.0, 1e-12);
    SecAggPlusThreat th;
    th.corruptFraction = 0.05;
    th.dropoutFraction = 0.05;
    uint32_t previous = 0;
    for (uint32_t n : {100u, 1000u, 10000u, 100000u})
    {
        const SecAggPlusChoice c = SecAggPlusParameters(n, th);
        EXPECT_FALSE(c.complete) << n;
        EXPECT_EQ(c.neighbours % 2, 0u);
        EXPECT_GT(2 * c.threshold, c.neighbours + 1); // majority of holders
        EXPECT_LT(c.log2Disconnected, -41.0);
        EXPECT_LT(c.log2TooManyCorrupt, -41.0 + 1e-9);
        EXPECT_LE(c.log2TooFewSurvivors, -20.0 + 1e-9);
        EXPECT_GE(c.neighbours, previous); // grows ...
        previous = c.neighbours;
    }
    EXPECT_LT(previous, 150u); // ... logarithmically: far below n
    ExpectConfigError([] { SecAggPlusParameters(2); }, "clients");
    SecAggPlusThreat bad;
    bad.dropoutFraction = 1.5;
    ExpectConfigError([&] { SecAggPlusParameters(100, bad); }, "dropoutFraction");
    bad.dropoutFraction = 0.6;
    ExpectConfigError([&] { SecAggPlusParameters(10, bad); }, "dropoutFraction", "majority");
}

TEST(SecAggPlus, HararySumsAreExactWithDropouts)
{
    SecAggConfig c = Config(10, 3);
    c.graph = SecAggGraphKind::Harary;
    c.neighbours = 4;
    c.graphSeed = 5;
    const auto x = Inputs(10, c.dim, 6);
    const std::vector<uint64_t> w(10, 2);
    const auto full = RunSecAggInProcess(c, x, w, KeyMode::Reproducible, Seed(2));
    ASSERT_EQ(full.status, SecAggStatus::Ok) << SecAggStatusText(full.status);
    EXPECT_EQ(full.result.sum, PlainSum(c, x, w, {}));
    EXPECT_EQ(full.result.totalWeight, 20u);
    // One client drops after sharing: its 4 neighbours hold enough shares of its s^SK.
    SecAggDropouts d;
    d.beforeInput = {25};
    const auto run = RunSecAggInProcess(c, x, w, KeyMode::Random, {}, d);
    ASSERT_EQ(run.status, SecAggStatus::Ok) << SecAggStatusText(run.status);
    EXPECT_EQ(run.result.sum, PlainSum(c, x, w, {25}));
    // Every client's key list holds only its k + 1 holders: less received than in SecAgg.
    SecAggConfig full10 = Config(10, 6);
    const auto complete = RunSecAggInProcess(full10, x, w, KeyMode::Random, {});
    ASSERT_EQ(complete.status, SecAggStatus::Ok);
    EXPECT_LT(run.clients.at(10).bytesSent, complete.clients.at(10).bytesSent);
}

TEST(SecAggPlus, FiftyClientsWithChosenParameters)
{
    SecAggPlusThreat th;
    th.corruptFraction = 0.05;
    th.dropoutFraction = 0.05;
    const SecAggPlusChoice p = SecAggPlusParameters(50, th);
    ASSERT_FALSE(p.complete);
    SecAggConfig c = Config(50, p.threshold, 8);
    c.graph = SecAggGraphKind::Harary;
    c.neighbours = p.neighbours;
    c.graphSeed = 1234;
    const auto x = Inputs(50, c.dim, 7);
    const std::vector<uint64_t> w(50, 1);
    SecAggDropouts d;
    d.beforeInput = {10, 100}; // floor(0.05 * 50) = 2 dropouts
    const auto run = RunSecAggInProcess(c, x, w, KeyMode::Random, {}, d);
    ASSERT_EQ(run.status, SecAggStatus::Ok) << SecAggStatusText(run.status);
    EXPECT_EQ(run.result.sum, PlainSum(c, x, w, {10, 100}));
}

} // namespace
