/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Power alignment (channel inversion) and channel-state estimates for over-the-air computation
 * (pure; no ns-3 header). DWFL (S. Chen, D. Yu, Y. Zou, J. Yu, X. Cheng, "Decentralized Wireless
 * Federated Learning with Differential Privacy", arXiv:2109.09142, 2021), eqs. (2)-(4), with two
 * generalisations: c = kappa * min_j |h_j| sqrt(P_j) (eq. (4) is kappa = 1, which leaves the
 * weakest worker no power for artificial noise), and truncated inversion.
 */
#ifndef FL_OTA_POWER_CONTROL_H
#define FL_OTA_POWER_CONTROL_H

#include "ns3/ota-fading.h"

#include <vector>

namespace ns3
{
namespace fl
{

/// Tunables of the alignment.
struct AlignmentConfig
{
    /// c = kappa * min over the active senders of |h_j| sqrt(P_j); kappa in (0, 1] (paper: 1).
    double kappa = 1.0;
    /// Truncation: a sender with channel power gain |h_k|^2 below this stays silent (0: none).
    double gainThreshold = 0.0;
};

/// Result of the alignment of N senders.
struct AlignmentPlan
{
    double c = 0.0;                    ///< common received amplitude (0 if nobody is active)
    std::vector<bool> active;          ///< sender k transmits (|h_k|^2 >= threshold)
    std::vector<double> powerFraction; ///< alpha_k = c^2 / (|h_k|^2 P_k); 0 when silent
    std::vector<Complex> precoder;     ///< b_k = sqrt(alpha_k P_k) e^{-j theta_k}; 0 when silent

    /// Number of active senders.
    std::size_t NumActive() const;
};

/// Throws ConfigError if kappa is not in (0, 1] or the threshold is negative or not finite.
void ValidateAlignment(const AlignmentConfig& cfg);

/// Truncated inversion: true if the sender's channel power gain |h|^2 reaches the threshold.
bool AboveGainThreshold(double gainAbs, double gainThreshold);

/**
 * The common received amplitude c = kappa * min_{j active} |h_j| sqrt(P_j) (DWFL eq. 4 with
 * kappa = 1). `gainAbs[j]` = |h_j|, `powerW[j]` = P_j. Returns 0 if no sender is active.
 */
double AlignmentAmplitude(const std::vector<double>& gainAbs,
                          const std::vector<double>& powerW,
                          const std::vector<bool>& active,
                          double kappa);

/// Power fraction of the model, alpha = c^2 / (|h|^2 P), from |h| sqrt(alpha P) = c (eq. 3).
double PowerFraction(double gainAbs, double powerW, double c);

/**
 * Precoder of a sender, b = sqrt(alpha P) e^{-j theta} with theta = arg h (phase
 * pre-compensation, DWFL eq. 2). With the true h, h b = c: real, non-negative.
 */
Complex AlignmentPrecoder(Complex hEstimate, double powerW, double c);

/**
 * Plans the alignment of all senders from their channel estimates and power budgets: decides
 * who is active (truncation), computes c over the active ones, then alpha_k and b_k.
 * Throws ConfigError on size mismatch, a bad config or a non-positive power.
 */
AlignmentPlan PlanAlignment(const std::vector<Complex>& hEstimate,
                            const std::vector<double>& powerW,
                            const AlignmentConfig& cfg);

/**
 * A channel estimate with additive error: h_hat = h + e, e ~ CN(0, errorVariance), from two
 * standard normal values: e = sqrt(errorVariance / 2) (g1 + j g2).
 */
Complex EstimateCsi(Complex h, double errorVariance, double g1, double g2);

/// As above, drawing g1 and g2 from `rng`. errorVariance = 0 returns h exactly (perfect CSI).
Complex EstimateCsi(Complex h, double errorVariance, Rng& rng);

/// Effective coefficient a sender's signal arrives with: a = h b (channel times precoder).
Complex EffectiveCoefficient(Complex h, Complex precoder);

} // namespace fl
} // namespace ns3

#endif // FL_OTA_POWER_CONTROL_H
