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
 *  - whole protocol runs: exact sums with and without dropouts, aborts below t, both key modes,
 *    weighted sums, SecAgg+ on a Harary graph;
 *  - the attacks on the earlier single-mask protocol, each of which now recovers nothing.
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

SecAggRunSeed
Seed(uint8_t b)
{
    SecAggRunSeed s;
    s.fill(b);
    return s;
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

SecAggConfig
Config(uint32_t n, uint32_t t, std::size_t dim = 6)
{
    SecAggConfig c;
    c.instance = 42;
    for (uint32_t i = 0; i < n; ++i)
    {
        c.clients.push_back(10 + 3 * i);
    }
    c.threshold = t;
    c.dim = dim;
    c.fractionBits = 30;
    return c;
}

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
