/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Privacy auditing by experiment (pure; no ns-3 header): the statistics that turn the error
 * rates of a distinguishing test into a lower bound on epsilon, after M. Jagielski, J. Ullman,
 * A. Oprea, "Auditing Differentially Private Machine Learning: How Private is Private SGD?",
 * NeurIPS 2020; M. Nasr, S. Song, A. Thakurta, N. Papernot, N. Carlini, "Adversary
 * Instantiation: Lower Bounds for Differentially Private Machine Learning", IEEE S&P 2021; and
 * M. Nasr, J. Hayes, T. Steinke, B. Balle, F. Tramer, M. Jagielski, N. Carlini, A. Terzis,
 * "Tight Auditing of Differentially Private Machine Learning", USENIX Security 2023.
 *
 * A mechanism M is run many times on each of two neighbouring inputs D0 and D1; a test says
 * "D1" when a score exceeds a threshold. If M is (eps, delta)-DP, every test satisfies
 *   FPR + e^eps FNR >= 1 - delta   and   FNR + e^eps FPR >= 1 - delta
 * (Kairouz, Oh, Viswanath, ICML 2015, Thm. 2.1), so
 *   eps >= max( ln((1 - delta - FNR) / FPR), ln((1 - delta - FPR) / FNR) ).
 * With one-sided Clopper-Pearson upper bounds on FPR and FNR, each at level alpha / 2, the
 * bound holds with probability at least 1 - alpha. The threshold is chosen on a calibration set
 * separate from the evaluation set, so the choice does not bias the bound.
 */
#ifndef FL_PRIVACY_AUDIT_H
#define FL_PRIVACY_AUDIT_H

#include <cstddef>
#include <cstdint>
#include <vector>

namespace ns3
{
namespace fl
{

/**
 * One-sided Clopper-Pearson upper confidence bound at level 1 - alpha on a binomial
 * probability after k successes in n trials: the p with P(Bin(n, p) <= k) = alpha, i.e. the
 * 1 - alpha quantile of Beta(k + 1, n - k); 1 for k = n. Throws ConfigError unless
 * 0 <= k <= n, n >= 1 and 0 < alpha < 1.
 */
double ClopperPearsonUpper(uint64_t k, uint64_t n, double alpha);

/**
 * One-sided Clopper-Pearson lower bound: the alpha quantile of Beta(k, n - k + 1); 0 for k = 0.
 * Errors as ClopperPearsonUpper.
 */
double ClopperPearsonLower(uint64_t k, uint64_t n, double alpha);

/**
 * The epsilon lower bound at `delta` from upper bounds on a test's false-positive and
 * false-negative rates: max(0, ln((1 - delta - fnr) / fpr), ln((1 - delta - fpr) / fnr)),
 * each term counted only where its argument is positive. Throws ConfigError unless the rates
 * are in [0, 1] and delta in [0, 1).
 */
double EpsilonFromErrorRates(double fprUpper, double fnrUpper, double delta);

/**
 * The largest epsilon an audit with n0 and n1 evaluation trials can certify at `delta` and
 * `alpha`: the bound of a test without a single error (FPR and FNR upper bounds
 * 1 - (alpha/2)^(1/n)). A claimed epsilon above it cannot be refuted by that many trials.
 */
double AuditableMaxEpsilon(uint64_t n0, uint64_t n1, double delta, double alpha);

/// The outcome of one threshold audit.
struct ThresholdAudit
{
    double threshold{0.0};      ///< chosen on the calibration set: "D1" iff score > threshold
    uint64_t n0{0};             ///< evaluation trials under D0
    uint64_t n1{0};             ///< evaluation trials under D1
    uint64_t falsePositives{0}; ///< D0 trials with score > threshold
    uint64_t falseNegatives{0}; ///< D1 trials with score <= threshold
    double fprUpper{1.0};       ///< Clopper-Pearson upper bound on FPR at alpha / 2
    double fnrUpper{1.0};       ///< Clopper-Pearson upper bound on FNR at alpha / 2
    double epsilonLower{0.0};   ///< EpsilonFromErrorRates(fprUpper, fnrUpper, delta)
    double auditableMax{0.0};   ///< AuditableMaxEpsilon(n0, n1, delta, alpha)
};

/**
 * The error counts and bounds of the test "D1 iff score > threshold" on an evaluation set
 * (`d0` scores under D0, `d1` under D1). Throws ConfigError on an empty set or alpha outside
 * (0, 1).
 */
ThresholdAudit EvaluateThreshold(double threshold,
                                 const std::vector<double>& d0,
                                 const std::vector<double>& d1,
                                 double delta,
                                 double alpha);

/**
 * The threshold that maximises EvaluateThreshold's epsilonLower on a calibration set: the
 * candidates are the calibration scores at which the false-positive count (or the
 * false-negative count) is 0, 1, 2, ... up to 16 and then grows geometrically by 1/16 of
 * itself, so that the rare-error tails, where the bound is decided, are searched finely and
 * the cost stays O(n log n). Throws ConfigError on an empty set.
 */
double SelectThreshold(const std::vector<double>& cal0,
                       const std::vector<double>& cal1,
                       double delta,
                       double alpha);

/// The level at which SelectThreshold scores the candidates in AuditScores (at most alpha).
constexpr double kThresholdSelectionAlpha = 1e-3;

/**
 * The whole audit of one mechanism: the threshold from the calibration scores (SelectThreshold
 * at min(alpha, kThresholdSelectionAlpha): the stricter level keeps a lucky tail of a few
 * calibration errors from winning), then EvaluateThreshold on the separate evaluation scores,
 * at `alpha` (already divided by the number of audits that must hold together).
 */
ThresholdAudit AuditScores(const std::vector<double>& cal0,
                           const std::vector<double>& cal1,
                           const std::vector<double>& eval0,
                           const std::vector<double>& eval1,
                           double delta,
                           double alpha);

/// Bonferroni: the level of each of `rows` audits that hold together with probability 1 - alpha.
double BonferroniAlpha(double alpha, std::size_t rows);

} // namespace fl
} // namespace ns3

#endif // FL_PRIVACY_AUDIT_H
