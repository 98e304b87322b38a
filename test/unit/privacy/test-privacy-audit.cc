/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Privacy auditing: the statistics (Clopper-Pearson bounds, the epsilon bound from a test's
 * error rates, the threshold choice) against hand computations, the audit's power on a
 * Gaussian release whose claim is right and on one whose claim is false, and audited <= claimed
 * on every mechanism the module reports an epsilon for.
 */
#include "fl-test-config-error.h"

#include "ns3/privacy-audit-mechanisms.h"
#include "ns3/privacy-audit.h"

#include <cmath>
#include <gtest/gtest.h>

using namespace ns3::fl;
using fltest::ExpectConfigError;

namespace
{

/// P(Bin(n, p) <= k), summed in long double.
double
BinomialCdf(uint64_t k, uint64_t n, double p)
{
    long double sum = 0.0L;
    for (uint64_t i = 0; i <= k; ++i)
    {
        const long double logTerm = std::lgamma(static_cast<long double>(n) + 1) -
                                    std::lgamma(static_cast<long double>(i) + 1) -
                                    std::lgamma(static_cast<long double>(n - i) + 1) +
                                    i * std::log(static_cast<long double>(p)) +
                                    (n - i) * std::log1p(-static_cast<long double>(p));
        sum += std::exp(logTerm);
    }
    return static_cast<double>(sum);
}

} // namespace

// Closed forms: no success in n trials, upper = 1 - alpha^(1/n); 1 of 2, upper = sqrt(1 - alpha)
// (1 - p^2 = alpha) and lower = 1 - sqrt(1 - alpha); n of n, lower = alpha^(1/n). Values by hand
// (double arithmetic of the closed forms): 1 - 0.05^0.1 = 0.2588655508930523,
// sqrt(0.95) = 0.9746794344808963, 0.05^(1/7) = 0.6518363448688391.
TEST(PrivacyAudit, ClopperPearsonClosedForms)
{
    EXPECT_NEAR(ClopperPearsonUpper(0, 10, 0.05), 0.2588655508930523, 1e-12);
    EXPECT_NEAR(ClopperPearsonUpper(1, 2, 0.05), 0.9746794344808963, 1e-12);
    EXPECT_NEAR(ClopperPearsonLower(1, 2, 0.05), 0.025320565519103666, 1e-12);
    EXPECT_NEAR(ClopperPearsonLower(7, 7, 0.05), 0.6518363448688391, 1e-12);
    EXPECT_DOUBLE_EQ(ClopperPearsonUpper(9, 9, 0.05), 1.0);
    EXPECT_DOUBLE_EQ(ClopperPearsonLower(0, 9, 0.05), 0.0);
    // The defining identity: P(Bin(n, upper) <= k) = alpha and P(Bin(n, lower) >= k) = alpha.
    for (auto [k, n] : {std::pair<uint64_t, uint64_t>{5, 100}, {37, 1000}, {1, 100000}})
    {
        const double up = ClopperPearsonUpper(k, n, 0.025);
        EXPECT_NEAR(BinomialCdf(k, n, up), 0.025, 1e-12) << k << " of " << n;
        const double lo = ClopperPearsonLower(k, n, 0.025);
        EXPECT_NEAR(1.0 - BinomialCdf(k - 1, n, lo), 0.025, 1e-12) << k << " of " << n;
        EXPECT_LT(lo, static_cast<double>(k) / n);
        EXPECT_GT(up, static_cast<double>(k) / n);
    }
    ExpectConfigError([] { ClopperPearsonUpper(3, 2, 0.05); }, "k");
    ExpectConfigError([] { ClopperPearsonUpper(0, 0, 0.05); }, "k");
    ExpectConfigError([] { ClopperPearsonUpper(0, 5, 1.0); }, "alpha");
}

// eps >= max(ln((1 - delta - FNR) / FPR), ln((1 - delta - FPR) / FNR)), by hand:
// ln(0.5 / 0.01) = ln 50 = 3.912023005428146; ln((1 - 1e-5 - 0.3) / 0.3) = 0.8472835745708762.
TEST(PrivacyAudit, EpsilonFromErrorRatesByHand)
{
    EXPECT_NEAR(EpsilonFromErrorRates(0.01, 0.5, 0.0), 3.912023005428146, 1e-12);
    EXPECT_NEAR(EpsilonFromErrorRates(0.5, 0.01, 0.0), 3.912023005428146, 1e-12); // symmetric
    EXPECT_NEAR(EpsilonFromErrorRates(0.3, 0.3, 1e-5), 0.8472835745708762, 1e-12);
    EXPECT_DOUBLE_EQ(EpsilonFromErrorRates(0.5, 0.5, 1e-5), 0.0); // a coin: nothing learned
    EXPECT_DOUBLE_EQ(EpsilonFromErrorRates(0.9, 0.9, 0.0), 0.0);  // worse than a coin: clamped
    EXPECT_TRUE(std::isinf(EpsilonFromErrorRates(0.0, 0.5, 0.0)));
    ExpectConfigError([] { EpsilonFromErrorRates(1.5, 0.1, 0.0); }, "rates");
    ExpectConfigError([] { EpsilonFromErrorRates(0.1, 0.1, 1.0); }, "delta");
    // No error in n = 10 trials each, alpha = 0.05 (0.025 per rate), delta 0:
    // a = 0.025^0.1, eps = ln(a / (1 - a)) = 0.8071548652489519.
    EXPECT_NEAR(AuditableMaxEpsilon(10, 10, 0.0, 0.05), 0.8071548652489519, 1e-12);
    EXPECT_DOUBLE_EQ(BonferroniAlpha(0.05, 20), 0.0025);
}

// Counts by hand: D0 scores {0, 1, 2, 3}, D1 {2, 3, 4, 5}, threshold 2.5: one false positive
// (3) and one false negative (2); the bounds are those of 1 in 4.
TEST(PrivacyAudit, ThresholdCountsAndChoice)
{
    const std::vector<double> d0{0, 1, 2, 3};
    const std::vector<double> d1{2, 3, 4, 5};
    const ThresholdAudit a = EvaluateThreshold(2.5, d0, d1, 0.0, 0.1);
    EXPECT_EQ(a.falsePositives, 1U);
    EXPECT_EQ(a.falseNegatives, 1U);
    EXPECT_DOUBLE_EQ(a.fprUpper, ClopperPearsonUpper(1, 4, 0.05));
    EXPECT_DOUBLE_EQ(a.fnrUpper, ClopperPearsonUpper(1, 4, 0.05));
    EXPECT_DOUBLE_EQ(a.epsilonLower, EpsilonFromErrorRates(a.fprUpper, a.fnrUpper, 0.0));
    // Separable calibration scores: the chosen threshold separates them (no error at all).
    std::vector<double> c0;
    std::vector<double> c1;
    for (int i = 0; i < 200; ++i)
    {
        c0.push_back(-1.0 - i);
        c1.push_back(1.0 + i);
    }
    const double t = SelectThreshold(c0, c1, 1e-5, 0.05);
    EXPECT_GE(t, -1.0);
    EXPECT_LT(t, 1.0);
    const ThresholdAudit s = AuditScores(c0, c1, c0, c1, 1e-5, 0.05);
    EXPECT_EQ(s.falsePositives + s.falseNegatives, 0U);
    EXPECT_NEAR(s.epsilonLower, s.auditableMax, 1e-12);
    ExpectConfigError([] { SelectThreshold({}, {1.0}, 0.0, 0.05); }, "scores");
}

// Power: a Gaussian release calibrated to eps = 1, delta = 1e-5 (classic bound) audits to at
// least 0.3 with 1e5 trials per input (the best test of N(0, s^2) against N(1, s^2), s = 4.84,
// has eps about 0.5 at its best threshold), never above the claim; the same release with sigma
// divided by 4 and still claimed at eps = 1 audits above 1: the false claim is refuted.
TEST(PrivacyAudit, GaussianReleaseHasPower)
{
    const std::vector<AuditRow> right =
        RunPrivacyAudit({GaussianReferenceMechanism(1.0, 1e-5)}, 100000, 0.05, 7);
    EXPECT_GE(right[0].audit.epsilonLower, 0.3);
    EXPECT_LE(right[0].audit.epsilonLower, 1.0);
    const std::vector<AuditRow> wrong =
        RunPrivacyAudit({GaussianReferenceMechanism(0.25, 1e-5)}, 100000, 0.05, 7);
    EXPECT_GT(wrong[0].audit.epsilonLower, 1.0);
    EXPECT_DOUBLE_EQ(wrong[0].claimedEpsilon, 1.0);
}

// Every mechanism the module reports an epsilon for: the lower bound never exceeds the claim
// (10,000 trials per input and set; fl-privacy-audit runs more).
TEST(PrivacyAudit, AuditedNeverAboveClaimed)
{
    const std::vector<AuditMechanism> ms = PrivacyAuditMechanisms();
    ASSERT_GE(ms.size(), 17U);
    const std::vector<AuditRow> rows = RunPrivacyAudit(ms, 10000, 0.05, 3);
    for (const AuditRow& r : rows)
    {
        EXPECT_LE(r.audit.epsilonLower, r.claimedEpsilon) << r.name << ": " << r.description;
        EXPECT_GT(r.claimedEpsilon, 0.0) << r.name;
        EXPECT_TRUE(std::isfinite(r.claimedEpsilon)) << r.name;
    }
}

// The changing-graph row: its claim by hand, and an attack that gets a good part of it. One
// link 0 -> 1 observed in two iterations, per-link Laplace b = sqrt(2), M = 2, mu G = 1/2:
// e_0(1) = 2 mu G = 1; in iteration 2 agent 0's column of A_2 sums to 1 and the observed copy
// is not in its row, so e_0(2) = max(1, 1 + 1) = 2; eps = sqrt(M) (1 + 2) / b = 3.
TEST(PrivacyAudit, ChangingGraphRowClaimsThreeByHandAndIsApproached)
{
    const std::vector<AuditMechanism> ms = PrivacyAuditMechanisms();
    const AuditMechanism* live = nullptr;
    for (const AuditMechanism& m : ms)
    {
        if (m.name == "ghp-live-one-link-iid-per-link-laplace")
        {
            live = &m;
        }
    }
    ASSERT_NE(live, nullptr);
    EXPECT_NEAR(live->claimedEpsilon, 3.0, 1e-12);
    const std::vector<AuditRow> rows = RunPrivacyAudit({*live}, 20000, 0.05, 5);
    EXPECT_LE(rows[0].audit.epsilonLower, 3.0);
    // the attack is not vacuous: it certifies more than the first iteration's release alone
    EXPECT_GT(rows[0].audit.epsilonLower, 1.0);
}
