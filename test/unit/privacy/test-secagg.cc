/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Secure aggregation of Bonawitz et al., "Practical Secure Aggregation for Privacy-Preserving
 * Machine Learning", ACM CCS 2017 (Fig. 4), and SecAgg+ of Bell et al., "Secure Single-Server
 * Aggregation with (Poly)Logarithmic Overhead", ACM CCS 2020:
 *  - the primitives against their RFC known-answer vectors (X25519: RFC 7748 Sections 5.2 and
 *    6.1; Ed25519: RFC 8032 Section 7.1 tests 1-3; ChaCha20: RFC 8439 Section 2.4.2);
 *  - Shamir sharing worked by hand in GF(2^61 - 1);
 *  - the wire parsers (round trip, truncation, lying counts);
 *  - the configuration's checks.
 * Whole protocol runs, the attacks by hand, an application's rounds and SecAgg+ are
 * test-secagg-protocol.cc.
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

std::vector<uint8_t>
Hex(const std::string& h)
{
    std::vector<uint8_t> out;
    for (std::size_t i = 0; i + 1 < h.size(); i += 2)
    {
        out.push_back(static_cast<uint8_t>(std::stoul(h.substr(i, 2), nullptr, 16)));
    }
    return out;
}

template <std::size_t N>
std::array<uint8_t, N>
HexArray(const std::string& h)
{
    const std::vector<uint8_t> v = Hex(h);
    std::array<uint8_t, N> a{};
    EXPECT_EQ(v.size(), N);
    std::copy(v.begin(), v.begin() + std::min(v.size(), N), a.begin());
    return a;
}

// ------------------------------------------------------------------ known answers

TEST(SecAggKnownAnswer, X25519Rfc7748Section5_2)
{
    ASSERT_GE(sodium_init(), 0);
    const auto scalar =
        HexArray<32>("a546e36bf0527c9d3b16154b82465edd62144c0ac1fc5a18506a2244ba449ac4");
    const auto u = HexArray<32>("e6db6867583030db3594c1a424b15f7c726624ec26b3353b10a903a6d0ab1c4c");
    std::array<uint8_t, 32> out;
    ASSERT_EQ(crypto_scalarmult(out.data(), scalar.data(), u.data()), 0);
    EXPECT_EQ(out,
              HexArray<32>("c3da55379de9c6908e94ea4df28d084f32eccf03491c71f754b4075577a28552"));
    // The iteration of Section 5.2 from k = u = 9, one step.
    std::array<uint8_t, 32> nine{};
    nine[0] = 9;
    ASSERT_EQ(crypto_scalarmult(out.data(), nine.data(), nine.data()), 0);
    EXPECT_EQ(out,
              HexArray<32>("422c8e7a6227d7bca1350b3e2bb7279f7897b87bb6854b783c60e80311ae3079"));
}

TEST(SecAggKnownAnswer, X25519Rfc7748Section6_1)
{
    ASSERT_GE(sodium_init(), 0);
    const auto a = HexArray<32>("77076d0a7318a57d3c16c17251b26645df4c2f87ebc0992ab177fba51db92c2a");
    const auto b = HexArray<32>("5dab087e624a8a4b79e17f8b83800ee66f3bb1292618b6fd1c2f8b27ff88e0eb");
    std::array<uint8_t, 32> pa;
    std::array<uint8_t, 32> pb;
    std::array<uint8_t, 32> ka;
    std::array<uint8_t, 32> kb;
    crypto_scalarmult_base(pa.data(), a.data());
    crypto_scalarmult_base(pb.data(), b.data());
    EXPECT_EQ(pa, HexArray<32>("8520f0098930a754748b7ddcb43ef75a0dbf3a0d26381af4eba4a98eaa9b4e6a"));
    EXPECT_EQ(pb, HexArray<32>("de9edb7d7b7dc1b4d35b61c2ece435373f8343c85b78674dadfc7e146f882b4f"));
    ASSERT_EQ(crypto_scalarmult(ka.data(), a.data(), pb.data()), 0);
    ASSERT_EQ(crypto_scalarmult(kb.data(), b.data(), pa.data()), 0);
    const auto k = HexArray<32>("4a5d9d5ba4ce2de1728e3bf480350f25e07e21c947d19e3376f09b3c1e161742");
    EXPECT_EQ(ka, k);
    EXPECT_EQ(kb, k);
}

TEST(SecAggKnownAnswer, Ed25519Rfc8032Section7_1Tests1To3)
{
    ASSERT_GE(sodium_init(), 0);

    struct Vector
    {
        const char* secret;
        const char* pub;
        const char* message;
        const char* signature;
    };

    const Vector vectors[] = {
        {"9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60",
         "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a",
         "",
         "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701"
         "cf9b46bd25bf5f0595bbe24655141438e7a100b"},
        {"4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb",
         "3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c",
         "72",
         "92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da085ac1e43e15996e458f3613d"
         "0f11d8c387b2eaeb4302aeeb00d291612bb0c00"},
        {"c5aa8df43f9f837bedb7442f31dcb7b166d38535076f094b85ce3a2e0b4458f7",
         "fc51cd8e6218a1a38da47ed00230f0580816ed13ba3303ac5deb911548908025",
         "af82",
         "6291d657deec24024827e69c3abe01a30ce548a284743a445e3680d7db5ac3ac18ff9b538d16f290ae67f7609"
         "84dc6594a7c15e9716ed28dc027beceea1ec40a"},
    };
    for (const Vector& v : vectors)
    {
        const auto seed = HexArray<32>(v.secret);
        std::array<uint8_t, 32> pk;
        std::array<uint8_t, 64> sk;
        crypto_sign_seed_keypair(pk.data(), sk.data(), seed.data());
        EXPECT_EQ(pk, HexArray<32>(v.pub));
        const std::vector<uint8_t> m = Hex(v.message);
        std::array<uint8_t, 64> sig;
        crypto_sign_detached(sig.data(), nullptr, m.data(), m.size(), sk.data());
        EXPECT_EQ(sig, HexArray<64>(v.signature));
        EXPECT_EQ(crypto_sign_verify_detached(sig.data(), m.data(), m.size(), pk.data()), 0);
        sig[5] ^= 1;
        EXPECT_NE(crypto_sign_verify_detached(sig.data(), m.data(), m.size(), pk.data()), 0);
    }
}

TEST(SecAggKnownAnswer, ChaCha20Rfc8439Section2_4_2)
{
    ASSERT_GE(sodium_init(), 0);
    std::array<uint8_t, 32> key;
    for (int i = 0; i < 32; ++i)
    {
        key[i] = static_cast<uint8_t>(i);
    }
    const auto nonce = HexArray<12>("000000000000004a00000000");
    const std::string text = "Ladies and Gentlemen of the class of '99: If I could offer you only "
                             "one tip for the future, sunscreen would be it.";
    std::vector<uint8_t> out(text.size());
    crypto_stream_chacha20_ietf_xor_ic(out.data(),
                                       reinterpret_cast<const uint8_t*>(text.data()),
                                       text.size(),
                                       nonce.data(),
                                       1,
                                       key.data());
    EXPECT_EQ(out,
              Hex("6e2e359a2568f98041ba0728dd0d6981e97e7aec1d4360c20a27afccfd9fae0bf91b65c5524733ab"
                  "8f593dabcd62b3571639d624e65152ab8f530c359f0861d807ca0dbf500d6a6156a38e088a22b6"
                  "5e52bc514d16ccf806818ce91ab77937365af90bbf74a35be6b40b8eedf2785e42874d"));
    // The mask PRG (ApplyPairwiseMask) is the same key stream from block 0, read as LE words.
    std::vector<uint8_t> stream(64);
    const std::array<uint8_t, 12> zero{};
    crypto_stream_chacha20_ietf(stream.data(), stream.size(), zero.data(), key.data());
    std::vector<uint64_t> words(8, 0);
    MaskSecret seed = key;
    ApplyPairwiseMask(words, seed, true);
    for (int j = 0; j < 8; ++j)
    {
        uint64_t w = 0;
        for (int b = 0; b < 8; ++b)
        {
            w |= static_cast<uint64_t>(stream[8 * j + b]) << (8 * b);
        }
        EXPECT_EQ(words[j], w);
    }
}

// ------------------------------------------------------------------ Shamir

TEST(Shamir, FieldArithmeticWrapsModP)
{
    EXPECT_EQ(ShamirMul(uint64_t{1} << 60, 2), 1u);               // 2^61 = 1 mod 2^61 - 1
    EXPECT_EQ(ShamirMul(kShamirPrime - 1, kShamirPrime - 1), 1u); // (-1)^2
    EXPECT_EQ(ShamirAdd(kShamirPrime - 1, 5), 4u);
    EXPECT_EQ(ShamirSub(3, 5), kShamirPrime - 2);
    EXPECT_EQ(ShamirMul(ShamirInverse(12345), 12345), 1u);
    ExpectConfigError([] { ShamirInverse(0); }, "x");
}

TEST(Shamir, HandWorkedPolynomial)
{
    // f(x) = 1234 + 166 x + 94 x^2 (t = 3): f(1..6) = 1494, 1942, 2578, 3402, 4414, 5614.
    const std::vector<uint64_t> ys = ShamirEvaluate({1234, 166, 94}, {1, 2, 3, 4, 5, 6});
    EXPECT_EQ(ys, (std::vector<uint64_t>{1494, 1942, 2578, 3402, 4414, 5614}));
    // Lagrange at 0 of {1, 2, 3}: 2*3/((2-1)(3-1)) = 3, 1*3/((1-2)(3-2)) = -3,
    // 1*2/((1-3)(2-3)) = 1; 3*1494 - 3*1942 + 2578 = 1234.
    const std::vector<uint64_t> l = ShamirLagrangeAtZero({1, 2, 3});
    EXPECT_EQ(l, (std::vector<uint64_t>{3, kShamirPrime - 3, 1}));
    // Any 3 of the 6 shares give 1234 (limb 0 of a secret whose other limbs are 0).
    const uint32_t pick[][3] = {{1, 2, 3}, {2, 4, 6}, {6, 5, 1}, {3, 4, 5}};
    for (const auto& p : pick)
    {
        std::vector<ShamirShare> shares;
        for (uint32_t x : p)
        {
            ShamirShare s;
            s.x = x;
            s.y = {ys[x - 1], 0, 0, 0, 0};
            shares.push_back(s);
        }
        MaskSecret out;
        ASSERT_TRUE(ShamirReconstruct(shares, 3, out));
        MaskSecret expected{};
        expected[0] = 1234 & 0xFF;
        expected[1] = 1234 >> 8;
        EXPECT_EQ(out, expected);
    }
    // A fourth share on the same polynomial is accepted, one off it is detected.
    std::vector<ShamirShare> four(4);
    for (uint32_t i = 0; i < 4; ++i)
    {
        four[i].x = i + 1;
        four[i].y = {ys[i], 0, 0, 0, 0};
    }
    MaskSecret out;
    EXPECT_TRUE(ShamirReconstruct(four, 3, out));
    four[3].y[0] += 1;
    EXPECT_FALSE(ShamirReconstruct(four, 3, out));
}

TEST(Shamir, SplitAndReconstruct32ByteSecrets)
{
    KeySource keys = KeySource::Reproducible(Seed(7), 1, 2);
    const MaskSecret secret = keys.Key();
    const std::vector<uint32_t> xs{3, 8, 11, 20, 21, 40, 1000};
    const auto shares = ShamirSplit(secret, 4, xs, keys);
    ASSERT_EQ(shares.size(), xs.size());
    for (std::size_t start = 0; start + 4 <= shares.size(); ++start)
    {
        std::vector<ShamirShare> some(shares.begin() + start, shares.begin() + start + 4);
        MaskSecret out;
        ASSERT_TRUE(ShamirReconstruct(some, 4, out));
        EXPECT_EQ(out, secret);
    }
    MaskSecret out;
    ASSERT_TRUE(ShamirReconstruct(shares, 4, out)); // all 7, the 3 extra checked
    EXPECT_EQ(out, secret);
    // t - 1 shares with a guessed fourth do not give the secret.
    std::vector<ShamirShare> guess(shares.begin(), shares.begin() + 3);
    ShamirShare fake;
    fake.x = 999;
    guess.push_back(fake);
    MaskSecret wrong;
    if (ShamirReconstruct(guess, 4, wrong))
    {
        EXPECT_NE(wrong, secret);
    }
}

TEST(Shamir, ClearErrors)
{
    KeySource keys;
    const MaskSecret s{};
    ExpectConfigError([&] { ShamirSplit(s, 0, {1, 2, 3}, keys); }, "threshold");
    ExpectConfigError([&] { ShamirSplit(s, 4, {1, 2, 3}, keys); }, "threshold");
    ExpectConfigError([&] { ShamirSplit(s, 2, {1, 2, 2}, keys); }, "x", "repeated");
    ExpectConfigError([&] { ShamirSplit(s, 2, {0, 1, 2}, keys); }, "x");
    const auto shares = ShamirSplit(s, 3, {1, 2, 3, 4}, keys);
    MaskSecret out;
    ExpectConfigError(
        [&] {
            ShamirReconstruct({shares[0], shares[1]}, 3, out);
        },
        "shares",
        "threshold 3");
    ExpectConfigError([&] { ShamirReconstruct(shares, 0, out); }, "threshold");
    ExpectConfigError(
        [&] {
            ShamirReconstruct({shares[0], shares[0], shares[1]}, 3, out);
        },
        "x",
        "repeated");
}

TEST(Shamir, KeySourceModes)
{
    KeySource a = KeySource::Reproducible(Seed(1), 5, 9);
    KeySource b = KeySource::Reproducible(Seed(1), 5, 9);
    KeySource c = KeySource::Reproducible(Seed(1), 6, 9);
    KeySource d = KeySource::Reproducible(Seed(1), 5, 10);
    const MaskSecret ka = a.Key();
    EXPECT_EQ(ka, b.Key());
    EXPECT_NE(ka, a.Key()); // a second draw differs
    EXPECT_NE(ka, c.Key());
    EXPECT_NE(ka, d.Key());
    KeySource r1;
    KeySource r2;
    EXPECT_EQ(r1.Mode(), KeyMode::Random);
    EXPECT_NE(r1.Key(), r2.Key());
    EXPECT_STREQ(KeyModeName(KeyMode::Reproducible), "reproducible");
}

// ------------------------------------------------------------------ wire

TEST(SecAggWire, EveryMessageRoundTripsAndRejectsTruncation)
{
    SecAggAdvertisedKeys k;
    k.id = 7;
    k.cPk.fill(1);
    k.sPk.fill(2);
    k.sig.fill(3);
    SecAggAdvertisedKeys k2 = k;
    k2.id = 9;
    SecAggBoxList boxes;
    boxes.party = 4;
    boxes.boxes.push_back({1, {}});
    boxes.boxes.push_back({6, {}});
    SecAggMaskedInput y;
    y.from = 3;
    y.words = {1, 2, 3};
    SecAggUnmaskShares un;
    un.from = 2;
    SecAggRevealedShare r;
    r.owner = 5;
    r.kind = SecAggShareKind::MaskKey;
    r.share.x = 3;
    r.share.y = {1, 2, 3, 4, 5};
    un.shares.push_back(r);

    const std::vector<std::pair<SecAggBytes, std::function<bool(const SecAggBytes&)>>> cases = {
        {PackSecAggAdvertiseKeys(11, k),
         [](const SecAggBytes& b) {
             uint64_t i;
             SecAggAdvertisedKeys o;
             return ParseSecAggAdvertiseKeys(b, i, o) && PackSecAggAdvertiseKeys(i, o) == b;
         }},
        {PackSecAggKeyList(11, {k, k2}),
         [](const SecAggBytes& b) {
             uint64_t i;
             std::vector<SecAggAdvertisedKeys> o;
             return ParseSecAggKeyList(b, i, o) && PackSecAggKeyList(i, o) == b;
         }},
        {PackSecAggEncryptedShares(11, boxes),
         [](const SecAggBytes& b) {
             uint64_t i;
             SecAggBoxList o;
             return ParseSecAggEncryptedShares(b, i, o) && PackSecAggEncryptedShares(i, o) == b;
         }},
        {PackSecAggForwardedShares(11, boxes),
         [](const SecAggBytes& b) {
             uint64_t i;
             SecAggBoxList o;
             return ParseSecAggForwardedShares(b, i, o) && PackSecAggForwardedShares(i, o) == b;
         }},
        {PackSecAggMaskedInput(11, y),
         [](const SecAggBytes& b) {
             uint64_t i;
             SecAggMaskedInput o;
             return ParseSecAggMaskedInput(b, 3, i, o) && PackSecAggMaskedInput(i, o) == b;
         }},
        {PackSecAggSurvivorList(11, {1, 4, 9}),
         [](const SecAggBytes& b) {
             uint64_t i;
             std::vector<uint32_t> o;
             return ParseSecAggSurvivorList(b, i, o) && PackSecAggSurvivorList(i, o) == b;
         }},
        {PackSecAggConsistencySignature(11, {4, k.sig}),
         [](const SecAggBytes& b) {
             uint64_t i;
             SecAggSignedId o;
             return ParseSecAggConsistencySignature(b, i, o) &&
                    PackSecAggConsistencySignature(i, o) == b;
         }},
        {PackSecAggSignatureList(11, {{1, k.sig}, {2, k.sig}}),
         [](const SecAggBytes& b) {
             uint64_t i;
             std::vector<SecAggSignedId> o;
             return ParseSecAggSignatureList(b, i, o) && PackSecAggSignatureList(i, o) == b;
         }},
        {PackSecAggUnmaskShares(11, un),
         [](const SecAggBytes& b) {
             uint64_t i;
             SecAggUnmaskShares o;
             return ParseSecAggUnmaskShares(b, i, o) && PackSecAggUnmaskShares(i, o) == b &&
                    o.shares[0].share.x == 3;
         }},
        {PackSecAggRoundSetup(11, SecAggRoundSetup{1, 30, 3, 4, 77, 6, {2, 5, 9, 12}}),
         [](const SecAggBytes& b) {
             uint64_t i;
             SecAggRoundSetup o;
             return ParseSecAggRoundSetup(b, i, o) && PackSecAggRoundSetup(i, o) == b &&
                    o.clients.size() == 4 && o.beaconRound == 77;
         }},
    };
    for (std::size_t c = 0; c < cases.size(); ++c)
    {
        const SecAggBytes& bytes = cases[c].first;
        EXPECT_TRUE(cases[c].second(bytes)) << "case " << c;
        SecAggMessageType type;
        uint64_t instance = 0;
        ASSERT_TRUE(PeekSecAggHeader(bytes, type, instance));
        EXPECT_EQ(static_cast<std::size_t>(type), c + 1);
        EXPECT_EQ(instance, 11u);
        for (std::size_t cut = 0; cut < bytes.size(); ++cut)
        {
            const SecAggBytes shortened(bytes.begin(), bytes.begin() + cut);
            EXPECT_FALSE(cases[c].second(shortened)) << "case " << c << " cut at " << cut;
        }
        SecAggBytes longer = bytes;
        longer.push_back(0);
        EXPECT_FALSE(cases[c].second(longer)) << "case " << c;
        SecAggBytes version = bytes;
        version[4] = 1; // the format before the roster was bound into every signature
        EXPECT_FALSE(cases[c].second(version)) << "case " << c;
    }
}

TEST(SecAggWire, LyingCountsAndUnsortedListsAreRejected)
{
    // A survivor list that declares 2^24 - 1 ids but carries 2.
    SecAggBytes b = PackSecAggSurvivorList(1, {1, 2});
    b[16] = 0xFF;
    b[17] = 0xFF;
    b[18] = 0xFF;
    uint64_t i;
    std::vector<uint32_t> ids;
    EXPECT_FALSE(ParseSecAggSurvivorList(b, i, ids));
    EXPECT_FALSE(ParseSecAggSurvivorList(PackSecAggSurvivorList(1, {2, 1}), i, ids));
    EXPECT_FALSE(ParseSecAggSurvivorList(PackSecAggSurvivorList(1, {2, 2}), i, ids));
    // A masked upload of the wrong length, or a partial one, is rejected as a whole.
    SecAggMaskedInput y;
    y.from = 1;
    y.words = {1, 2, 3, 4};
    SecAggMaskedInput o;
    EXPECT_FALSE(ParseSecAggMaskedInput(PackSecAggMaskedInput(1, y), 5, i, o));
    SecAggBytes partial = PackSecAggMaskedInput(1, y);
    partial.resize(partial.size() - 8);
    EXPECT_FALSE(ParseSecAggMaskedInput(partial, 4, i, o));
    // A revealed share whose value is not a field element.
    SecAggUnmaskShares un;
    un.from = 1;
    SecAggRevealedShare r;
    r.owner = 2;
    r.share.y = {kShamirPrime - 1, 0, 0, 0, 0};
    un.shares.push_back(r);
    SecAggBytes bad = PackSecAggUnmaskShares(1, un);
    bad[16 + 8 + 5 + 7] = 0xFF; // top byte of limb 0: >= p
    SecAggUnmaskShares out;
    EXPECT_FALSE(ParseSecAggUnmaskShares(bad, i, out));
}

// ------------------------------------------------------------------ configuration

TEST(SecAggConfigCheck, ClearErrors)
{
    ExpectConfigError([] { CheckSecAggConfig(Config(1, 1)); }, "clients", "at least 2");
    ExpectConfigError([] { CheckSecAggConfig(Config(5, 1)); }, "threshold");
    ExpectConfigError([] { CheckSecAggConfig(Config(6, 3)); }, "threshold", "2t > h + n_C");
    SecAggConfig colluding = Config(6, 4);
    EXPECT_NO_THROW(CheckSecAggConfig(colluding)); // 8 > 6 + 0
    colluding.colluders = 2;                        // 8 > 6 + 2 fails: a split needs 2 colluders
    ExpectConfigError([&] { CheckSecAggConfig(colluding); }, "threshold", "use 5 <= t <= 6");
    colluding.threshold = 5;
    EXPECT_NO_THROW(CheckSecAggConfig(colluding)); // 10 > 8
    ExpectConfigError([] { CheckSecAggConfig(Config(5, 6)); }, "threshold");
    ExpectConfigError([] { CheckSecAggConfig(Config(5, 3, 0)); }, "dim");
    SecAggConfig c = Config(10, 3);
    c.graph = SecAggGraphKind::Harary;
    c.neighbours = 3;
    ExpectConfigError([&] { CheckSecAggConfig(c); }, "neighbours", "even");
    c.neighbours = 4;
    EXPECT_NO_THROW(CheckSecAggConfig(c)); // 5 holders, t = 3
    c.threshold = 2;
    ExpectConfigError([&] { CheckSecAggConfig(c); }, "threshold");
    SecAggConfig d = Config(4, 3);
    d.clients = {3, 2, 5, 7};
    ExpectConfigError([&] { CheckSecAggConfig(d); }, "clients", "ascending");
}

} // namespace
