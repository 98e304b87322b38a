/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The privacy seam: perturbations (noise statistics, scopes, no-op) and the privacy
 * accountant (each formula and each composition against hand computations from the closed
 * forms). Reference values with many digits were evaluated at 40 significant digits (mpmath).
 */
#include "fl-test-config-error.h"

#include "ns3/fast-normal.h"
#include "ns3/perturbation.h"
#include "ns3/privacy-accountant.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <boost/multiprecision/cpp_bin_float.hpp>
#include <gtest/gtest.h>
#include <limits>

using namespace ns3::fl;
using fltest::ExpectConfigError;

namespace
{

/// |actual - expected| <= 1e-12 |expected|.
void
ExpectRel(double actual, double expected)
{
    EXPECT_NEAR(actual, expected, 1e-12 * std::abs(expected)) << "expected " << expected;
}

const double kLn2 = std::log(2.0);

/// Sample mean, mean square and fraction with |x| > t of a vector's entries.
struct SampleStats
{
    double mean{0.0};
    double meanSquare{0.0};
    double tail{0.0};
};

SampleStats
Stats(const ParamVector& v, double t)
{
    SampleStats s;
    const auto n = static_cast<double>(v.Size());
    for (std::size_t i = 0; i < v.Size(); ++i)
    {
        const double x = v.At(i);
        s.mean += x / n;
        s.meanSquare += x * x / n;
        s.tail += (std::abs(x) > t ? 1.0 : 0.0) / n;
    }
    return s;
}

} // namespace

// ------------------------------------------------------------------------------- formulas

TEST(PrivacyFormulas, GaussianEpsilonClassic)
{
    // delta = 1.25 e^-2: ln(1.25/delta) = 2, sqrt(2 * 2) = 2, eps = 2 Delta / sigma = 2/4.
    ExpectRel(GaussianEpsilonClassic(1.0, 4.0, 1.25 * std::exp(-2.0)), 0.5);
    // 0.3 sqrt(2 ln(1.25e5)) / 1.7 = 0.3 * 4.844805 / 1.7
    ExpectRel(GaussianEpsilonClassic(0.3, 1.7, 1e-5), 0.8549656345774216625750545);
    EXPECT_EQ(GaussianEpsilonClassic(0.0, 1.0, 1e-5), 0.0);
}

TEST(PrivacyFormulas, LaplaceEpsilon)
{
    ExpectRel(LaplaceEpsilon(0.3, 0.12), 2.5); // Delta_1 / b
}

TEST(PrivacyFormulas, AdvancedCompositionOfIdenticalSteps)
{
    // k = 8 steps of eps0 = ln 2 (e^eps0 - 1 = 1), delta' = e^-4:
    // sqrt(2 * 4 * 8 ln^2 2) + 8 ln 2 * 1 = 8 ln 2 + 8 ln 2 = 16 ln 2.
    ExpectRel(AdvancedComposition({{kLn2, 8}}, std::exp(-4.0)), 16.0 * kLn2);
    // Split into two entries: the same sums.
    ExpectRel(AdvancedComposition({{kLn2, 3}, {kLn2, 5}}, std::exp(-4.0)), 16.0 * kLn2);
    EXPECT_EQ(AdvancedComposition({}, 0.5), 0.0);
}

TEST(PrivacyFormulas, Zcdp)
{
    ExpectRel(GaussianZcdpRho(1.0, 2.0), 0.125); // 1 / (2 * 4)
    ExpectRel(GaussianZcdpRho(3.0, 1.5), 2.0);   // 9 / (2 * 2.25)
    // rho = 1, delta = e^-4: 1 + 2 sqrt(1 * 4) = 5.
    ExpectRel(ZcdpToDp(1.0, std::exp(-4.0)), 5.0);
    // rho = 0.25, delta = e^-1: 0.25 + 2 sqrt(0.25) = 1.25.
    ExpectRel(ZcdpToDp(0.25, std::exp(-1.0)), 1.25);
}

TEST(PrivacyFormulas, GaussianRdp)
{
    ExpectRel(GaussianRdp(3.0, 1.0, 2.0), 0.375); // 3 * 1 / (2 * 4)
    ExpectRel(GaussianRdp(1.5, 2.0, 0.5), 12.0);  // 1.5 * 4 / (2 * 0.25)
}

TEST(PrivacyFormulas, LaplaceRdp)
{
    // alpha = 2, x = 1: ln(2/3 e + 1/3 e^-2) = ln((2e + e^-2)/3).
    ExpectRel(LaplaceRdp(2.0, 1.0, 1.0), std::log((2.0 * std::exp(1.0) + std::exp(-2.0)) / 3.0));
    ExpectRel(LaplaceRdp(2.0, 1.0, 1.0), 0.6191236299985928833997885);
    // Depends on Delta_1 / b only.
    ExpectRel(LaplaceRdp(2.0, 0.5, 0.5), 0.6191236299985928833997885);
    // alpha = 3, x = 2: 1/2 ln(3/5 e^4 + 2/5 e^-6).
    ExpectRel(LaplaceRdp(3.0, 0.5, 0.25), 1.744602321197913038464733);
    // alpha = 1.5, x = 0.1: 2 ln(3/4 e^0.05 + 1/4 e^-0.15).
    ExpectRel(LaplaceRdp(1.5, 0.1, 1.0), 0.007247485389328534237961533);
    // Large orders approach x from below without overflowing e^{(alpha-1)x}.
    ExpectRel(LaplaceRdp(1000.0, 1.0, 1.0), 0.9993066596040858228113134);
    ExpectRel(LaplaceRdp(1e6, 10.0, 1.0), 9.999999306852626292805983);
}

// The closed form cancels for tiny shifts x = Delta_1 / b (x minus nearly x); the small-shift
// series must match the divergence computed in 50-digit arithmetic, and never go below 0.
TEST(PrivacyFormulas, LaplaceRdpIsStableForTinyShifts)
{
    using Big = boost::multiprecision::cpp_bin_float_50;
    auto exact = [](double alpha, double x) {
        const Big a(alpha);
        const Big bx(x);
        const Big inner = a / (2 * a - 1) * boost::multiprecision::exp((a - 1) * bx) +
                          (a - 1) / (2 * a - 1) * boost::multiprecision::exp(-a * bx);
        return static_cast<double>(boost::multiprecision::log(inner) / (a - 1));
    };
    for (double alpha : {1.1, 2.0, 32.0, 1024.0})
    {
        for (double x : {1e-14, 1e-10, 1e-7, 1e-4, 1e-3, 0.3, 0.99 / (alpha - 1), 1.01 / (alpha - 1)})
        {
            const double got = LaplaceRdp(alpha, x, 1.0);
            const double want = exact(alpha, x);
            EXPECT_GT(got, 0.0) << "alpha " << alpha << ", x " << x;
            EXPECT_NEAR(got, want, 1e-10 * want) << "alpha " << alpha << ", x " << x;
        }
    }
    // A huge Laplace scale (Delta / b = 1e-12) composes without throwing; eps is what converting
    // a divergence of ~0 at delta = 1e-5 costs on the default grid (ln(1023/1024) + (ln 1e5 -
    // ln 1024) / 1023 = 0.0035 at order 1024).
    PrivacyAccountant acc;
    acc.AddLaplace(1.0, 1e12, 100);
    const PrivacyReport r = acc.Report(1e-5, Composition::Rdp);
    EXPECT_GE(r.epsilon, 0.0);
    EXPECT_LT(r.epsilon, 0.004); // the conversion at the largest order, 1024: ~0.0035
}

// For a weak mechanism and a large delta the conversion's expression drops below 0: sigma =
// 1e4, Delta = 1, delta = 0.5 gave -0.693 (= ln 0.5 at the largest order). Every mechanism is
// (0, delta)-DP once it is (eps <= 0, delta)-DP, so the bound is 0.
TEST(PrivacyFormulas, RdpToDpIsNeverNegative)
{
    EXPECT_EQ(RdpToDp(0.0, 1024.0, 0.5, RdpConversion::CanonneKamathSteinke), 0.0);
    PrivacyAccountant acc;
    acc.AddGaussian(1.0, 1e4);
    EXPECT_EQ(acc.Epsilon(0.5, Composition::Rdp), 0.0);
    EXPECT_GE(acc.Epsilon(0.5, Composition::Rdp, RdpConversion::Mironov), 0.0);
}

TEST(PrivacyFormulas, RdpToDp)
{
    // rdp = 1, alpha = 2, delta = e^-3.
    // Mironov: 1 + 3/1 = 4.
    ExpectRel(RdpToDp(1.0, 2.0, std::exp(-3.0), RdpConversion::Mironov), 4.0);
    // CKS: 1 + ln(1/2) - (-3 + ln 2)/1 = 4 - 2 ln 2.
    ExpectRel(RdpToDp(1.0, 2.0, std::exp(-3.0), RdpConversion::CanonneKamathSteinke),
              4.0 - 2.0 * kLn2);
    // CKS is never looser than Mironov: ln((a-1)/a) - ln(a)/(a-1) < 0 for a > 1.
    for (double alpha : DefaultRdpOrders())
    {
        EXPECT_LT(RdpToDp(0.5, alpha, 1e-5, RdpConversion::CanonneKamathSteinke),
                  RdpToDp(0.5, alpha, 1e-5, RdpConversion::Mironov));
    }
}

TEST(PrivacyFormulas, DefaultOrders)
{
    const auto orders = DefaultRdpOrders();
    ASSERT_EQ(orders.size(), 99U + 53U + 5U);
    EXPECT_DOUBLE_EQ(orders.front(), 1.1);
    EXPECT_EQ(orders[19], 3.0); // 1 + 20/10
    EXPECT_EQ(orders[98 + 1], 11.0);
    EXPECT_EQ(orders.back(), 1024.0);
}

// ----------------------------------------------------------------------------- accountant

TEST(PrivacyAccountant, StepsAndReset)
{
    PrivacyAccountant acc;
    EXPECT_EQ(acc.Steps(), 0U);
    acc.AddGaussian(1.0, 2.0, 3);
    acc.AddGaussian(1.0, 2.0);
    acc.AddLaplace(1.0, 1.0, 2);
    acc.Add(MechanismSpec{MechanismKind::Laplace, 1.0, 1.0}, 0);
    EXPECT_EQ(acc.Steps(), 6U);
    acc.Reset();
    EXPECT_EQ(acc.Steps(), 0U);
    for (auto c : {Composition::Basic, Composition::Advanced, Composition::Rdp, Composition::Zcdp})
    {
        const PrivacyReport r = acc.Report(1e-5, c);
        EXPECT_EQ(r.epsilon, 0.0) << CompositionName(c);
        EXPECT_EQ(r.notes, "no step recorded");
    }
}

TEST(PrivacyAccountant, BasicIsKTimesTheStepEpsilon)
{
    // k = 4 Gaussian steps, each at delta/4 = 1.25 e^-2: eps0 = 2 * 1 / 4 = 0.5; total 4 * 0.5.
    PrivacyAccountant acc;
    acc.AddGaussian(1.0, 4.0, 4);
    const PrivacyReport r = acc.Report(5.0 * std::exp(-2.0), Composition::Basic);
    ExpectRel(r.epsilon, 2.0);
    EXPECT_TRUE(r.valid);
    EXPECT_TRUE(r.notes.empty());
    EXPECT_EQ(r.composition, Composition::Basic);
    EXPECT_TRUE(std::isnan(r.bestAlpha));
    // Laplace only: pure eps, k * Delta_1 / b = 5 * 0.3 / 0.12, whatever delta.
    PrivacyAccountant lap;
    lap.AddLaplace(0.3, 0.12, 5);
    ExpectRel(lap.Epsilon(1e-9, Composition::Basic), 12.5);
}

TEST(PrivacyAccountant, BasicFlagsTheClassicBoundOutsideItsRange)
{
    // One step, delta = 1.25 e^-2, sigma = 1: eps = 2 >= 1, outside Dwork & Roth Thm A.1.
    PrivacyAccountant acc;
    acc.AddGaussian(1.0, 1.0);
    const PrivacyReport basic = acc.Report(1.25 * std::exp(-2.0), Composition::Basic);
    ExpectRel(basic.epsilon, 2.0);
    EXPECT_FALSE(basic.valid);
    EXPECT_NE(basic.notes.find("Thm A.1"), std::string::npos) << basic.notes;
    EXPECT_FALSE(acc.Report(1.25 * std::exp(-2.0), Composition::Advanced).valid);
    EXPECT_TRUE(acc.Report(1.25 * std::exp(-2.0), Composition::Rdp).valid);
}

TEST(PrivacyAccountant, BasicMixedGaussianLaplace)
{
    // 2 Gaussian steps (Delta 1, sigma 4) at delta/2 = 1.25 e^-2: 0.5 each;
    // 3 Laplace steps (Delta_1 1, b 2): 0.5 each. Total 1 + 1.5 = 2.5.
    PrivacyAccountant acc;
    acc.AddGaussian(1.0, 4.0);
    acc.AddLaplace(1.0, 2.0, 3);
    acc.AddGaussian(1.0, 4.0);
    ExpectRel(acc.Epsilon(2.5 * std::exp(-2.0), Composition::Basic), 2.5);
}

TEST(PrivacyAccountant, AdvancedLaplaceOnlyGivesAllDeltaToTheSlack)
{
    // 8 Laplace steps of eps0 = ln 2; no Gaussian step, so delta' = delta = e^-4: 16 ln 2.
    PrivacyAccountant acc;
    acc.AddLaplace(kLn2, 1.0, 8);
    const PrivacyReport r = acc.Report(std::exp(-4.0), Composition::Advanced);
    ExpectRel(r.epsilon, 16.0 * kLn2);
    EXPECT_TRUE(r.valid);
}

TEST(PrivacyAccountant, AdvancedMixedGaussianLaplace)
{
    // delta = 5 e^-2, k = 2 Gaussian steps: delta' = 2.5 e^-2, delta_i = delta/4 = 1.25 e^-2, so
    // each Gaussian step (Delta 1, sigma 4) has eps = 0.5; one Laplace step eps = ln 2.
    // eps = sqrt(2 (2 - ln 2.5)(2 * 0.25 + ln^2 2)) + 2 * 0.5 (e^0.5 - 1) + ln 2 (2 - 1)
    //     = sqrt(2 * 1.0837093 * 0.9804530) + 0.6487213 + 0.6931472
    PrivacyAccountant acc;
    acc.AddGaussian(1.0, 4.0, 2);
    acc.AddLaplace(kLn2, 1.0);
    ExpectRel(acc.Epsilon(5.0 * std::exp(-2.0), Composition::Advanced), 2.799624273162406263704277);
}

TEST(PrivacyAccountant, RdpIsLinearInTheNumberOfSteps)
{
    // One order alpha = 3, Gaussian Delta 1, sigma 2: RDP(3) = 3/8 per step. delta = e^-4.
    // Mironov: k * 3/8 + 4/2.
    PrivacyAccountant acc(std::vector<double>{3.0});
    for (uint64_t k : {1, 8, 16})
    {
        acc.Reset();
        acc.AddGaussian(1.0, 2.0, k);
        const PrivacyReport r =
            acc.Report(std::exp(-4.0), Composition::Rdp, RdpConversion::Mironov);
        ExpectRel(r.epsilon, 0.375 * static_cast<double>(k) + 2.0);
        EXPECT_EQ(r.bestAlpha, 3.0);
        EXPECT_TRUE(r.notes.empty()) << r.notes; // a single order is no edge
        EXPECT_NE(r.method.find("mironov-2017"), std::string::npos);
    }
    // CKS: k * 3/8 + ln(2/3) - (-4 + ln 3)/2.
    acc.Reset();
    acc.AddGaussian(1.0, 2.0, 8);
    const PrivacyReport cks = acc.Report(std::exp(-4.0), Composition::Rdp);
    ExpectRel(cks.epsilon, 3.0 + std::log(2.0 / 3.0) + (4.0 - std::log(3.0)) / 2.0);
    EXPECT_NE(cks.method.find("canonne-kamath-steinke-2020"), std::string::npos);
}

TEST(PrivacyAccountant, ZcdpOfIdenticalSteps)
{
    // Delta 1, sigma 2: rho = k/8; delta = e^-4: eps = k/8 + 2 sqrt(4 k/8).
    PrivacyAccountant acc;
    const std::pair<uint64_t, double> cases[] = {{2, 2.25}, {8, 5.0}, {32, 12.0}};
    for (const auto& [k, eps] : cases)
    {
        acc.Reset();
        acc.AddGaussian(1.0, 2.0, k);
        ExpectRel(acc.Epsilon(std::exp(-4.0), Composition::Zcdp), eps);
    }
}

TEST(PrivacyAccountant, RdpMironovMeetsZcdpWhereTheGridHoldsTheOptimalOrder)
{
    // Gaussian RDP with Mironov's conversion is rho alpha + L/(alpha - 1), L = ln(1/delta),
    // minimised at alpha = 1 + sqrt(L/rho) with value rho + 2 sqrt(rho L), the zCDP bound.
    // k = 8, Delta 1, sigma 2: rho = 1; delta = e^-4: L = 4, alpha* = 3 (on the default grid).
    PrivacyAccountant acc;
    acc.AddGaussian(1.0, 2.0, 8);
    const PrivacyReport rdp = acc.Report(std::exp(-4.0), Composition::Rdp, RdpConversion::Mironov);
    ExpectRel(rdp.epsilon, 5.0);
    EXPECT_EQ(rdp.bestAlpha, 3.0);
    ExpectRel(acc.Epsilon(std::exp(-4.0), Composition::Zcdp), 5.0);
}

TEST(PrivacyAccountant, RdpMixedGaussianLaplace)
{
    // 4 Gaussian (Delta 1, sigma 2) + 1 Laplace (x = 1), orders {2, 3}, delta = 1e-5.
    // alpha 2: RDP = 4 * 2/8 + ln((2e + e^-2)/3) = 1.6191236; CKS eps = 11.7457547
    // alpha 3: RDP = 4 * 3/8 + 1/2 ln(3/5 e^2 + 2/5 e^-3) = 2.2468281; CKS eps = 7.0485196 (min)
    PrivacyAccountant acc(std::vector<double>{2.0, 3.0});
    acc.AddGaussian(1.0, 2.0, 4);
    acc.AddLaplace(1.0, 1.0);
    const PrivacyReport r = acc.Report(1e-5, Composition::Rdp);
    ExpectRel(r.epsilon, 7.048519621111864808386967);
    EXPECT_EQ(r.bestAlpha, 3.0);
    EXPECT_FALSE(r.notes.empty()); // the minimum is at the largest order of the grid
    ExpectRel(acc.Epsilon(1e-5, Composition::Rdp, RdpConversion::Mironov),
              8.003290873554084036062603);
}

TEST(PrivacyAccountant, ManyGaussianStepsOrdering)
{
    // k = 100 steps, Delta 1, sigma 50, delta = 1e-5 (values at 40 digits, default grid):
    //   Basic:    100 * sqrt(2 ln(1.25e7)) / 50              = 11.4337183 (eps0 = 0.114 < 1)
    //   Advanced: eps_i at 5e-8 = 0.1168; sqrt(2 ln(2e5) * 100 eps_i^2) + 100 eps_i(e^eps_i - 1)
    //                                                         =  7.2132938
    //   zCDP:     rho = 100/5000 = 0.02; 0.02 + 2 sqrt(0.02 ln 1e5) =  0.97970518
    //   RDP, Mironov conversion: best alpha 25                =  0.97970523 (>= zCDP)
    //   RDP, CKS conversion:     best alpha 22                =  0.79452203
    // RDP (CKS) < zCDP <= RDP (Mironov) < Advanced < Basic.
    PrivacyAccountant acc;
    acc.AddGaussian(1.0, 50.0, 100);
    const double basic = acc.Epsilon(1e-5, Composition::Basic);
    const double advanced = acc.Epsilon(1e-5, Composition::Advanced);
    const double zcdp = acc.Epsilon(1e-5, Composition::Zcdp);
    const PrivacyReport mironov = acc.Report(1e-5, Composition::Rdp, RdpConversion::Mironov);
    const PrivacyReport cks = acc.Report(1e-5, Composition::Rdp);
    ExpectRel(basic, 11.43371827614185342409244);
    ExpectRel(advanced, 7.213293771549522237031329);
    ExpectRel(zcdp, 0.9797051824376162415134738);
    ExpectRel(mironov.epsilon, 0.9797052277070928508370816);
    EXPECT_EQ(mironov.bestAlpha, 25.0);
    ExpectRel(cks.epsilon, 0.7945220325371029795266976);
    EXPECT_EQ(cks.bestAlpha, 22.0);
    EXPECT_TRUE(cks.notes.empty()) << cks.notes;
    EXPECT_LT(cks.epsilon, zcdp);
    EXPECT_LE(zcdp, mironov.epsilon);
    EXPECT_LT(mironov.epsilon, advanced);
    EXPECT_LT(advanced, basic);
}

TEST(PrivacyAccountant, RdpNotesAMinimumAtTheGridEdge)
{
    // sigma = 1e4: the optimal order 1 + sqrt(ln(1e5) * 2e8) ~ 4.8e4 lies beyond 1024.
    PrivacyAccountant acc;
    acc.AddGaussian(1.0, 1e4);
    const PrivacyReport r = acc.Report(1e-5, Composition::Rdp);
    EXPECT_EQ(r.bestAlpha, 1024.0);
    EXPECT_NE(r.notes.find("edge"), std::string::npos) << r.notes;
}

TEST(PrivacyAccountant, NoNoiseMeansNoPrivacy)
{
    NoPerturbation none;
    PrivacyAccountant acc;
    acc.AddGaussian(1.0, 4.0);
    acc.Add(none.Mechanism(1.0));
    for (auto c : {Composition::Basic, Composition::Advanced, Composition::Rdp, Composition::Zcdp})
    {
        const PrivacyReport r = acc.Report(1e-5, c);
        EXPECT_EQ(r.epsilon, std::numeric_limits<double>::infinity()) << CompositionName(c);
        EXPECT_FALSE(r.notes.empty());
    }
}

TEST(PrivacyAccountant, Names)
{
    EXPECT_STREQ(CompositionName(Composition::Basic), "basic");
    EXPECT_STREQ(CompositionName(Composition::Advanced), "advanced");
    EXPECT_STREQ(CompositionName(Composition::Rdp), "rdp");
    EXPECT_STREQ(CompositionName(Composition::Zcdp), "zcdp");
    EXPECT_STREQ(MechanismKindName(MechanismKind::Laplace), "laplace");
    EXPECT_STREQ(RdpConversionName(RdpConversion::Mironov), "mironov-2017");
}

TEST(PrivacyAccountant, BadParametersThrowNamingTheParameter)
{
    const double nan = std::numeric_limits<double>::quiet_NaN();
    const double inf = std::numeric_limits<double>::infinity();
    PrivacyAccountant acc;
    acc.AddLaplace(1.0, 1.0);
    for (double delta : {0.0, 1.0, -0.1, 1.5, nan})
    {
        ExpectConfigError([&] { acc.Report(delta, Composition::Rdp); }, "delta");
        ExpectConfigError([&] { GaussianEpsilonClassic(1.0, 1.0, delta); }, "delta");
        ExpectConfigError([&] { ZcdpToDp(1.0, delta); }, "delta");
        ExpectConfigError([&] { AdvancedComposition({{1.0, 1}}, delta); }, "deltaPrime");
    }
    for (double sigma : {0.0, -1.0, nan, inf})
    {
        ExpectConfigError([&] { acc.AddGaussian(1.0, sigma); }, "sigma");
        ExpectConfigError([&] { GaussianRdp(2.0, 1.0, sigma); }, "sigma");
        ExpectConfigError([&] { acc.AddLaplace(1.0, sigma); }, "b");
        ExpectConfigError([&] { LaplaceRdp(2.0, 1.0, sigma); }, "b");
    }
    for (double sensitivity : {-1.0, nan, inf})
    {
        ExpectConfigError([&] { acc.AddGaussian(sensitivity, 1.0); }, "sensitivity");
        ExpectConfigError([&] { LaplaceEpsilon(sensitivity, 1.0); }, "sensitivity");
    }
    for (double alpha : {1.0, 0.5, inf})
    {
        ExpectConfigError([&] { GaussianRdp(alpha, 1.0, 1.0); }, "alpha");
        ExpectConfigError([&] { LaplaceRdp(alpha, 1.0, 1.0); }, "alpha");
        ExpectConfigError([&] { RdpToDp(1.0, alpha, 1e-5, RdpConversion::Mironov); }, "alpha");
    }
    ExpectConfigError([] { AdvancedComposition({{-0.1, 1}}, 0.5); }, "epsilon");
    ExpectConfigError([] { RdpToDp(-1.0, 2.0, 1e-5, RdpConversion::Mironov); }, "rdp");
    ExpectConfigError([] { ZcdpToDp(-1.0, 1e-5); }, "rho");
    ExpectConfigError([] { PrivacyAccountant(std::vector<double>{}); }, "rdpOrders");
    ExpectConfigError([] { PrivacyAccountant(std::vector<double>{2.0, 1.0}); }, "rdpOrders");
    // zCDP covers Gaussian histories only.
    ExpectConfigError([&] { acc.Report(1e-5, Composition::Zcdp); }, "composition");
    EXPECT_EQ(acc.Steps(), 1U); // rejected steps are not recorded
}

// ---------------------------------------------------------------------------- perturbations

TEST(Perturbation, NoPerturbationLeavesBytesAndEngineUntouched)
{
    Eigen::VectorXd v(4);
    v << -0.0, std::numeric_limits<double>::quiet_NaN(), 1.5, -2.25;
    const ParamVector original(v);
    ParamVector copy = original;
    Rng rng(42);
    const Rng before = rng;
    NoPerturbation none;
    none.BeginIteration(copy.Size(), rng);
    none.PerturbOutgoing(copy, 3, rng);
    none.PerturbKept(copy, rng);
    EXPECT_TRUE(copy == original); // bitwise: -0.0 stays -0.0, the NaN payload is kept
    EXPECT_TRUE(rng == before);
    EXPECT_EQ(none.Name(), "none");
    EXPECT_EQ(none.Mechanism(2.0).kind, MechanismKind::None);
}

TEST(Perturbation, GaussianNoiseStatistics)
{
    // n = 200000 entries of N(0, sigma^2), sigma = 0.5. Standard errors:
    //   mean: sigma / sqrt(n); mean square: sigma^2 sqrt(2/n) (Var x^2 = 2 sigma^4);
    //   P(|x| > sigma) = erfc(1/sqrt 2) = 0.31731: sqrt(p(1-p)/n). Bounds are 5 standard errors.
    const std::size_t n = 200000;
    const double sigma = 0.5;
    GaussianPerturbation gauss(sigma, NoiseScope::PerLink);
    ParamVector v = ParamVector::Zeros(Precision::Float64, n);
    Rng rng(20240601);
    gauss.PerturbOutgoing(v, 1, rng);
    const SampleStats s = Stats(v, sigma);
    const double sqrtN = std::sqrt(static_cast<double>(n));
    const double p = 0.3173105078629141028;
    EXPECT_NEAR(s.mean, 0.0, 5.0 * sigma / sqrtN);
    EXPECT_NEAR(s.meanSquare, sigma * sigma, 5.0 * sigma * sigma * std::sqrt(2.0) / sqrtN);
    EXPECT_NEAR(s.tail, p, 5.0 * std::sqrt(p * (1.0 - p)) / sqrtN);
}

TEST(Perturbation, LaplaceNoiseStatistics)
{
    // n = 200000 entries of Lap(0, b), b = 0.5: E x^2 = 2 b^2, E x^4 = 24 b^4. Standard errors:
    //   mean: sqrt(2) b / sqrt(n); mean square: sqrt(24 - 4) b^2 / sqrt(n);
    //   P(|x| > b) = e^-1: sqrt(p(1-p)/n) (a Gaussian of the same variance gives 0.4795).
    const std::size_t n = 200000;
    const double b = 0.5;
    LaplacePerturbation lap(b, NoiseScope::PerLink);
    ParamVector v = ParamVector::Zeros(Precision::Float64, n);
    Rng rng(20240602);
    lap.PerturbOutgoing(v, 1, rng);
    const SampleStats s = Stats(v, b);
    const double sqrtN = std::sqrt(static_cast<double>(n));
    const double p = std::exp(-1.0);
    EXPECT_NEAR(s.mean, 0.0, 5.0 * std::sqrt(2.0) * b / sqrtN);
    EXPECT_NEAR(s.meanSquare, 2.0 * b * b, 5.0 * std::sqrt(20.0) * b * b / sqrtN);
    EXPECT_NEAR(s.tail, p, 5.0 * std::sqrt(p * (1.0 - p)) / sqrtN);
}

TEST(Perturbation, PerSenderAddsTheSameDrawToEveryCopy)
{
    for (Precision precision : {Precision::Float64, Precision::Float32})
    {
        LaplacePerturbation lap(1.0, NoiseScope::PerSender);
        Rng rng(7);
        const ParamVector base = ParamVector::Zeros(precision, 16);
        lap.BeginIteration(16, rng);
        ParamVector a = base;
        ParamVector b = base;
        lap.PerturbOutgoing(a, 1, rng);
        lap.PerturbOutgoing(b, 2, rng);
        EXPECT_TRUE(a == b);
        EXPECT_FALSE(a == base);
        ParamVector kept = base;
        lap.PerturbKept(kept, rng);
        EXPECT_TRUE(kept == base);
        // The next iteration draws anew.
        lap.BeginIteration(16, rng);
        ParamVector c = base;
        lap.PerturbOutgoing(c, 1, rng);
        for (std::size_t i = 0; i < 16; ++i)
        {
            EXPECT_NE(c.At(i), a.At(i)) << i;
        }
    }
}

TEST(Perturbation, PerLinkDrawsFreshNoiseForEveryCopy)
{
    GaussianPerturbation gauss(1.0, NoiseScope::PerLink);
    Rng rng(8);
    const ParamVector base = ParamVector::Zeros(Precision::Float64, 16);
    gauss.BeginIteration(16, rng);
    ParamVector a = base;
    ParamVector b = base;
    gauss.PerturbOutgoing(a, 1, rng);
    gauss.PerturbOutgoing(b, 2, rng);
    for (std::size_t i = 0; i < 16; ++i)
    {
        EXPECT_NE(a.At(i), b.At(i)) << i;
        EXPECT_NE(a.At(i), 0.0) << i;
    }
}

TEST(Perturbation, ReproducibleAndTheSameDrawsInBothPrecisions)
{
    for (NoiseScope scope : {NoiseScope::PerLink, NoiseScope::PerSender})
    {
        GaussianPerturbation gauss(0.3, scope);
        LaplacePerturbation lap(0.3, scope);
        for (Perturbation* p :
             {static_cast<Perturbation*>(&gauss), static_cast<Perturbation*>(&lap)})
        {
            ParamVector d1 = ParamVector::Zeros(Precision::Float64, 3);
            ParamVector d2 = d1;
            ParamVector d3 = d1;
            ParamVector f = ParamVector::Zeros(Precision::Float32, 3);
            Rng r1(11);
            Rng r2(11);
            Rng r3(12);
            Rng r4(11);
            const std::pair<ParamVector*, Rng*> runs[] = {{&d1, &r1},
                                                          {&d2, &r2},
                                                          {&d3, &r3},
                                                          {&f, &r4}};
            for (const auto& [vec, rng] : runs)
            {
                p->BeginIteration(3, *rng);
                p->PerturbOutgoing(*vec, 0, *rng);
            }
            EXPECT_TRUE(d1 == d2) << p->Name();  // same seed, same bytes
            EXPECT_FALSE(d1 == d3) << p->Name(); // another seed, other noise
            for (std::size_t i = 0; i < 3; ++i)
            {
                // The float copy receives the same draw, rounded to float.
                EXPECT_EQ(f.At(i), static_cast<double>(static_cast<float>(d1.At(i)))) << p->Name();
            }
        }
    }
}

TEST(Perturbation, MechanismAndName)
{
    GaussianPerturbation gauss(0.7, NoiseScope::PerLink);
    LaplacePerturbation lap(0.2, NoiseScope::PerSender);
    EXPECT_TRUE((gauss.Mechanism(2.0) == MechanismSpec{MechanismKind::Gaussian, 2.0, 0.7}));
    EXPECT_TRUE((lap.Mechanism(0.1) == MechanismSpec{MechanismKind::Laplace, 0.1, 0.2}));
    EXPECT_EQ(gauss.Name(), "gaussian-per-link");
    EXPECT_EQ(lap.Name(), "laplace-per-sender");
    EXPECT_EQ(gauss.Sigma(), 0.7);
    EXPECT_EQ(lap.Scale(), 0.2);
    EXPECT_EQ(lap.Scope(), NoiseScope::PerSender);
    // A perturbation feeds the accountant: one Laplace release, Delta_1 / b = 0.5.
    PrivacyAccountant acc;
    acc.Add(lap.Mechanism(0.1));
    ExpectRel(acc.Epsilon(1e-5, Composition::Basic), 0.5);
}

TEST(Perturbation, BadParametersThrowNamingTheParameter)
{
    const double nan = std::numeric_limits<double>::quiet_NaN();
    for (double bad : {0.0, -1.0, nan, std::numeric_limits<double>::infinity()})
    {
        ExpectConfigError([&] { GaussianPerturbation{bad, NoiseScope::PerLink}; }, "sigma");
        ExpectConfigError([&] { LaplacePerturbation{bad, NoiseScope::PerSender}; }, "b");
    }
    // Per-sender noise needs BeginIteration with the copy's size.
    GaussianPerturbation gauss(1.0, NoiseScope::PerSender);
    Rng rng(1);
    ParamVector v = ParamVector::Zeros(Precision::Float64, 4);
    ExpectConfigError([&] { gauss.PerturbOutgoing(v, 0, rng); }, "dim");
    gauss.BeginIteration(5, rng);
    ExpectConfigError([&] { gauss.PerturbOutgoing(v, 0, rng); }, "dim");
}

// ------------------------------------------------------------- the fast Gaussian generator

// The ziggurat's tables: 256 layers of area v = r f(r) + int_r^inf f, f(x) = exp(-x^2/2), with
// x[1] = r and x[256] = 0; the recursion closes (the top layer's area is v too) to 1e-12.
TEST(FastNormal, ZigguratTablesCloseTheCurve)
{
    const ZigguratNormal::Tables& t = ZigguratNormal::GetTables();
    const auto f = [](double x) { return std::exp(-0.5 * x * x); };
    ExpectRel(t.v, t.r * f(t.r) + std::sqrt(M_PI / 2.0) * std::erfc(t.r / std::sqrt(2.0)));
    EXPECT_EQ(t.x[1], t.r);
    EXPECT_EQ(t.x[256], 0.0);
    for (std::size_t i = 1; i < 255; ++i)
    {
        ExpectRel(t.x[i] * (f(t.x[i + 1]) - f(t.x[i])), t.v); // every layer has area v
    }
    // The top layer [0, x[255]] x [f(x[255]), 1] also has area v: the tables close.
    EXPECT_NEAR(t.x[255] * (1.0 - f(t.x[255])), t.v, 1e-12);
}

// N(0, 1) draws: moments within 5 standard errors, the Kolmogorov-Smirnov statistic below its
// 0.001 critical value 1.95 / sqrt(n), and the tail beyond r (the ziggurat's slow path) and
// beyond 4 with the normal's probability.
TEST(FastNormal, DrawsAreStandardNormal)
{
    const std::size_t n = 1000000;
    Eigen::VectorXd x(n);
    FillNormal(x, 1.0, 20240611);
    const double sn = std::sqrt(static_cast<double>(n));
    EXPECT_NEAR(x.mean(), 0.0, 5.0 / sn);
    EXPECT_NEAR(x.squaredNorm() / n, 1.0, 5.0 * std::sqrt(2.0) / sn);      // Var x^2 = 2
    EXPECT_NEAR(x.array().pow(4).mean(), 3.0, 5.0 * std::sqrt(96.0) / sn); // Var x^4 = 96
    EXPECT_NEAR(x.array().cube().mean(), 0.0, 5.0 * std::sqrt(15.0) / sn); // E x^6 = 15
    const double r = ZigguratNormal::GetTables().r;
    for (double c : {1.0, r, 4.0})
    {
        const double p = std::erfc(c / std::sqrt(2.0)); // P(|x| > c)
        const double tail = (x.array().abs() > c).cast<double>().mean();
        EXPECT_NEAR(tail, p, 5.0 * std::sqrt(p * (1.0 - p)) / sn) << "beyond " << c;
    }
    std::vector<double> sorted(x.data(), x.data() + n);
    std::sort(sorted.begin(), sorted.end());
    double ks = 0.0;
    for (std::size_t i = 0; i < n; ++i)
    {
        const double cdf = 0.5 * std::erfc(-sorted[i] / std::sqrt(2.0));
        ks = std::max({ks, cdf - double(i) / n, double(i + 1) / n - cdf});
    }
    EXPECT_LT(ks, 1.95 / sn);
}

// A generator is a function of its seed (--RngRun reproduces a run); Fill and Add draw the same
// numbers; the standard deviation scales them; neighbouring seeds give unrelated draws.
TEST(FastNormal, ReproducibleFromTheSeed)
{
    Eigen::VectorXd a(1000), b(1000), c = Eigen::VectorXd::Constant(1000, 2.0), e(1000);
    FillNormal(a, 0.5, 7);
    FillNormal(b, 0.5, 7);
    AddNormal(c, 0.5, 7);
    FillNormal(e, 0.5, 8);
    EXPECT_TRUE(a == b);
    EXPECT_LT((c.array() - 2.0 - a.array()).abs().maxCoeff(), 1e-15);
    ZigguratNormal one(7);
    for (Eigen::Index i = 0; i < 10; ++i)
    {
        EXPECT_EQ(0.5 * one(), a[i]);
    }
    const double corr = a.dot(e) / (a.norm() * e.norm());
    EXPECT_LT(std::abs(corr), 5.0 / std::sqrt(1000.0));
}
