/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * DWFL's own per-round privacy formulas (S. Chen, D. Yu, Y. Zou, J. Yu, X. Cheng, "Decentralized
 * Wireless Federated Learning with Differential Privacy", arXiv:2109.09142, 2021, Theorem IV.1;
 * pure, no ns-3 header): eps_i of eq. (11), the orthogonal-transmission eps_{j->i}, the
 * corrected O(1/sqrt N) bound, and the calibration of the artificial-noise power fractions
 * beta_k (and the largest feasible kappa) for a target (eps, delta) per round.
 *
 * All budgets are per round (the paper does not compose over rounds). The Gaussian mechanism
 * (Lemma IV.1, Dwork & Roth) is stated for eps < 1; the formulas are returned for any eps.
 */
#ifndef FL_DWFL_PRIVACY_H
#define FL_DWFL_PRIVACY_H

#include "ns3/privacy-accountant.h"

#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

namespace ns3
{
namespace fl
{

/// Round parameters that enter DWFL's privacy formulas.
struct DwflPrivacyParams
{
    double gamma = 0.0;   ///< SGD step size gamma
    double gMax = 0.0;    ///< gradient-norm bound g_max^(t) (the clipping threshold)
    double sigma2 = 0.0;  ///< artificial-noise variance sigma^2 per entry of G_k
    double sigmaM2 = 1.0; ///< receiver-noise variance sigma_m^2 per entry of m_i
    double delta = 1e-5;  ///< DP delta, in (0, 1)

    /// Throws ConfigError naming the field if gamma or gMax <= 0, sigma2 or sigmaM2 < 0, delta
    /// outside (0, 1), or any value is not finite.
    void Validate() const;
};

/**
 * The privacy constant K = 2 gamma g_max c sqrt(2 ln(1.25 / delta)): the L2 sensitivity
 * 2 c gamma g_max of a receiver's query c sum_{k != i} x_k to one worker's data (proof of
 * Theorem IV.1) times the Gaussian-mechanism factor (Lemma IV.1), so that eps = K / sigma_s for
 * a total noise standard deviation sigma_s. `amplitude` is c (the aligned amplitude; eq. 11 has
 * c = sqrt(min_j |h_j|^2 P_j)), or |h_j| sqrt(P_j) for the orthogonal link.
 */
double DwflPrivacyConstant(double amplitude, const DwflPrivacyParams& params);

/// L2 sensitivity 2 gamma g_max a of a received aligned query with amplitude a (c, or
/// |h_j| sqrt(P_j) for an orthogonal link): proof of Theorem IV.1.
double DwflSensitivity(double amplitude, const DwflPrivacyParams& params);

/// Artificial-noise variance per entry that sender k adds at every receiver:
/// |h_k|^2 beta_k P_k sigma^2.
double DwflSenderNoisePower(double gainAbs, double powerW, double beta, double sigma2);

/**
 * eps_i of eq. (11): the per-round (eps_i, delta)-DP that receiver i's signal v_i gives every
 * other worker,
 *   eps_i = 2 gamma g_max c sqrt(2 ln(1.25/delta)) / sqrt(sum_{k != i} |h_k|^2 beta_k P_k sigma^2
 *           + sigma_m^2),
 * from the realised |h_k| (`gainAbs`), P_k (`powerW`), beta_k (`beta`) and the aligned
 * amplitude c (a guarantee for the first round: doc/fl-privacy.rst, section "DWFL in one round: eq.
 * (11)"; over rounds see dwfl-composition.h). +inf if there is no noise at all. Throws ConfigError
 * on bad channels or params, a beta of the wrong size, or i >= N.
 */
double DwflEpsilon(std::size_t i,
                   const std::vector<double>& gainAbs,
                   const std::vector<double>& powerW,
                   const std::vector<double>& beta,
                   double c,
                   const DwflPrivacyParams& params);

/**
 * eps_{j->i} of orthogonal transmission (section 3.3): the link j -> i carries only sender j's
 * noise, and the paper's numerator uses the full amplitude |h_j| sqrt(P_j),
 *   eps_{j->i} = 2 gamma g_max sqrt(|h_j|^2 P_j) sqrt(2 ln(1.25/delta))
 *                / sqrt(|h_j|^2 beta_j P_j sigma^2 + sigma_m^2).
 * It does not depend on the receiver i nor on N.
 */
double DwflOrthogonalEpsilon(double gainAbs,
                             double powerW,
                             double beta,
                             const DwflPrivacyParams& params);

/**
 * The largest amplitude with which a sender other than `i` reaches the receiver when the powers
 * were aligned on channel estimates: sender k chose alpha_k P_k |h^_k|^2 = c^2 from its estimate
 * |h^_k| (`estimatedGain`), so its true channel |h_k| (`trueGain`) delivers c |h_k| / |h^_k|,
 * whatever the phase error (a projection shortens it). Returns max_{k != i} c |h_k| / |h^_k|
 * (i >= N: over every sender, the parameter server's receiver); c when the estimates are exact.
 * The sensitivity of a misaligned round's query is 2 gamma g_max times it. Throws ConfigError
 * naming "trueGain" on sizes that differ or a gain that is not finite and > 0.
 */
double DwflMisalignedAmplitude(std::size_t i,
                               const std::vector<double>& trueGain,
                               const std::vector<double>& estimatedGain,
                               double c);

/**
 * The corrected O(1/sqrt N) bound on eq. (11) (Remark IV.1 as printed is invalid for
 * N > 2):
 *   eps_i <= K / sqrt((N-1) m_0 + sigma_m^2) <= K / (sqrt(N-1) sqrt(m_0)),
 *   m_0 = min_{k != i} |h_k|^2 beta_k P_k sigma^2,  K = DwflPrivacyConstant(c).
 * Returns the first (finite whenever sigma_m^2 > 0) form. Errors as DwflEpsilon.
 */
double DwflEpsilonBound(std::size_t i,
                        const std::vector<double>& gainAbs,
                        const std::vector<double>& powerW,
                        const std::vector<double>& beta,
                        double c,
                        const DwflPrivacyParams& params);

/**
 * The Gaussian mechanism behind eq. (11), for a privacy accountant: receiver i's query
 * c sum_{k != i} x_k has L2 sensitivity 2 gamma g_max c and noise standard deviation
 *   sigma_s = sqrt(sum_{k != i} |h_k|^2 beta_k P_k sigma^2 + sigma_m^2),
 * so that GaussianEpsilonClassic(sensitivity, sigma_s, delta) = eps_i. Kind None if there is no
 * noise at all. Errors as DwflEpsilon.
 */
MechanismSpec DwflReceiverMechanism(std::size_t i,
                                    const std::vector<double>& gainAbs,
                                    const std::vector<double>& powerW,
                                    const std::vector<double>& beta,
                                    double c,
                                    const DwflPrivacyParams& params);

/**
 * The Gaussian mechanism of the orthogonal link j -> i (section 3.3): sensitivity
 * 2 gamma g_max |h_j| sqrt(P_j) (the paper's full-amplitude numerator), noise standard deviation
 * sqrt(|h_j|^2 beta_j P_j sigma^2 + sigma_m^2); GaussianEpsilonClassic of it is
 * DwflOrthogonalEpsilon. Kind None if there is no noise at all.
 */
MechanismSpec DwflOrthogonalMechanism(double gainAbs,
                                      double powerW,
                                      double beta,
                                      const DwflPrivacyParams& params);

/**
 * Calibration of the orthogonal baseline's per-link noise for a target eps per round: the link
 * j -> i carries only sender j's noise, so (inverting DwflOrthogonalEpsilon)
 *   beta_j = max(0, (K_j / eps)^2 - sigma_m^2) / (|h_j|^2 P_j sigma^2),
 *   K_j = DwflPrivacyConstant(|h_j| sqrt(P_j)).
 * Returns beta; the caller checks alpha_j + beta_j <= 1 (CheckDwflPowerBudget). Throws
 * ConfigError on bad inputs, eps <= 0, or sigma^2 = 0 when artificial noise is needed.
 */
std::vector<double> CalibrateDwflOrthogonalBeta(const std::vector<double>& gainAbs,
                                                const std::vector<double>& powerW,
                                                const DwflPrivacyParams& params,
                                                double epsilon);

/**
 * Calibration of the artificial noise for a target eps per round (Theorem IV.1), symmetric split:
 *   sigma_s,req = K / eps,  S = max(0, sigma_s,req^2 - sigma_m^2),
 *   beta_k = S / ((N-1) |h_k|^2 P_k sigma^2),
 * so that every receiver collects exactly S of artificial noise and eps_i = eps for every i
 * (eps_i < eps when the receiver noise alone suffices, S = 0, beta = 0). Returns beta.
 * Throws ConfigError on bad inputs, and, if some worker k would need alpha_k + beta_k > 1,
 * one naming that worker and the changes that make the target feasible: lower kappa (to at
 * most DwflMaxKappa), raise sigma^2, or raise eps (with the thresholds when they exist).
 */
std::vector<double> CalibrateDwflBeta(const std::vector<double>& gainAbs,
                                      const std::vector<double>& powerW,
                                      double c,
                                      const DwflPrivacyParams& params,
                                      double epsilon);

/**
 * The largest kappa in (0, 1] (c = kappa min_j sqrt(|h_j|^2 P_j)) for which CalibrateDwflBeta
 * meets the target eps, derived in closed form from the weakest worker (G_min = c_0^2 =
 * min_j |h_j|^2 P_j, alpha = kappa^2, all others have more headroom):
 *   kappa^2 c_0^2 + max(0, kappa^2 c_0^2 A - sigma_m^2) / ((N-1) sigma^2) <= c_0^2,
 *   A = (K(1) / eps)^2, K(1) = DwflPrivacyConstant(1)
 *   => kappa* = min(1, sqrt(u) / c_0),  u = ((N-1) sigma^2 c_0^2 + sigma_m^2) / ((N-1) sigma^2 +
 * A). A larger c lowers the practical decode's residual noise, so kappa* is the best feasible
 * choice. Throws ConfigError on bad inputs or eps <= 0.
 */
double DwflMaxKappa(const std::vector<double>& gainAbs,
                    const std::vector<double>& powerW,
                    const DwflPrivacyParams& params,
                    double epsilon);

// ------------------------------------------------------------------------------------------
// The centralized over-the-air parameter server of Seif, Tandon, Li (ISIT 2020; ref. [11] of
// the DWFL paper, the baseline of its Fig. 6): the N workers send their clipped gradients g_k
// (not models), aligned to amplitude c with artificial noise, and the server receives
// y = sum_k |h_k| (sqrt(alpha_k P_k) g_k + sqrt(beta_k P_k) G_k) + m. The adversary is the
// server; the query c sum_k g_k has L2 sensitivity 2 g_max c (gamma does not enter), and the
// noise is that of all N senders plus the server's receiver noise.

/**
 * The Gaussian mechanism of the server's reception: sensitivity 2 g_max c, noise standard
 * deviation sqrt(sum_k |h_k|^2 beta_k P_k sigma^2 + sigma_m^2) (every worker, none excluded).
 * params.gamma is not used. Kind None if there is no noise. Errors as DwflEpsilon.
 */
MechanismSpec OtaPsServerMechanism(const std::vector<double>& gainAbs,
                                   const std::vector<double>& powerW,
                                   const std::vector<double>& beta,
                                   double c,
                                   const DwflPrivacyParams& params);

/**
 * Per-round eps of the server's reception against every worker's data (composed over rounds at this
 * one-round sensitivity: doc/fl-privacy.rst, section "The over-the-air parameter server over
 * rounds"):
 *   eps_PS = 2 g_max c sqrt(2 ln(1.25/delta)) / sqrt(sum_k |h_k|^2 beta_k P_k sigma^2 + sigma_m^2).
 * +inf without noise. Errors as DwflEpsilon.
 */
double OtaPsEpsilon(const std::vector<double>& gainAbs,
                    const std::vector<double>& powerW,
                    const std::vector<double>& beta,
                    double c,
                    const DwflPrivacyParams& params);

/**
 * Calibration of the workers' artificial noise for a target eps per round at the server:
 * S = max(0, (2 g_max c sqrt(2 ln(1.25/delta)) / eps)^2 - sigma_m^2) split over the N senders,
 *   beta_k = S / (N |h_k|^2 P_k sigma^2),
 * so that OtaPsEpsilon = eps. Errors as CalibrateDwflBeta (with OtaPsMaxKappa in the fix).
 */
std::vector<double> CalibrateOtaPsBeta(const std::vector<double>& gainAbs,
                                       const std::vector<double>& powerW,
                                       double c,
                                       const DwflPrivacyParams& params,
                                       double epsilon);

/**
 * The largest kappa in (0, 1] for which CalibrateOtaPsBeta meets eps: DwflMaxKappa's closed
 * form with N senders and the gradient's sensitivity (gamma = 1).
 */
double OtaPsMaxKappa(const std::vector<double>& gainAbs,
                     const std::vector<double>& powerW,
                     const DwflPrivacyParams& params,
                     double epsilon);

/**
 * What eq. (11)'s per-round eps means: the Gaussian mechanism (channel and artificial noise; the
 * classic bound, Dwork & Roth 2014, Thm. A.1), l2 sensitivity 2 gamma g_max c of one clipped
 * gradient step, one worker's data set replaced, observed by one receiver (`receiver`: e.g.
 * "another worker", "the parameter server"), the first round alone (a later round, given the
 * earlier ones, has a larger sensitivity: see DwflComposedStatement), proven in doc/fl-privacy.rst,
 * section "DWFL in one round: eq. (11)".
 */
PrivacyStatement DwflRoundStatement(const std::string& receiver);

/**
 * The artificial-noise variance the orthogonal transmission needs for a target eps on every
 * channel: link j needs beta_j = max(0, (K_1 / eps)^2 - sigma_m^2 / (|h_j|^2 P_j)) / sigma^2 < 1
 * (CalibrateDwflOrthogonalBeta; then a kappa > 0 fits the power budget), with
 * K_1 = DwflPrivacyConstant(1) = 2 gamma g_max sqrt(2 ln(1.25/delta)); as |h_j| grows this tends
 * to (K_1 / eps)^2 / sigma^2, so every channel is feasible iff sigma^2 > (K_1 / eps)^2, which
 * this returns. Throws ConfigError on bad params or eps <= 0.
 */
double DwflOrthogonalSigma2Floor(double eps, const DwflPrivacyParams& params);

/// One row of the eps table of N workers (DwflPrivacyTableRowFor).
struct DwflPrivacyTableRow
{
    std::size_t n{0};    ///< workers N
    double c{0.0};       ///< aligned amplitude c = kappa min_k sqrt(|h_k|^2 P_k)
    double epsMax{0.0};  ///< eq. (11): largest eps_i over the receivers i
    double epsMin{0.0};  ///< eq. (11): smallest eps_i
    double orthMax{0.0}; ///< orthogonal eps_{j->i}: largest over the senders j
    double orthMin{0.0}; ///< orthogonal eps_{j->i}: smallest
};

/**
 * The eps of N = gainPower.size() workers whose |h_k|^2 P_k are `gainPower` (in units of the
 * receiver noise sigma_m^2), aligned at c = kappa min_k sqrt(|h_k|^2 P_k) (eq. 4 with kappa), all
 * spare power on artificial noise (beta_k = 1 - alpha_k, alpha_k = c^2 / (|h_k|^2 P_k), eq. 3):
 * eps_i of eq. (11) over the receivers and the orthogonal eps_{j->i} over the senders (section
 * 3.3). Throws ConfigError as DwflEpsilon.
 */
DwflPrivacyTableRow DwflPrivacyTableRowFor(const std::vector<double>& gainPower,
                                           double kappa,
                                           const DwflPrivacyParams& params);

/**
 * Writes the eps table as CSV (12 significant digits): a header, two comment lines saying what
 * each eps means (DwflRoundStatement), and one row per N of `nList` (DwflPrivacyTableRowFor with
 * |h_k|^2 P_k = gainPower[0] for every k if it has one value, else its first N values): n, c,
 * eps_i_max, eps_i_min, eps_orth_max, eps_orth_min, eps_i_max x sqrt(N - 1) (the O(1/sqrt N)
 * scaling). With composedRounds T > 0 a last column eps_composed: the largest over the receivers
 * of the composed eps after T rounds (DwflComposedEpsilon, Practical decode, averaging rate
 * DwflAveragingRate(eta, N), the same beta), with a third comment line. Throws ConfigError if
 * gainPower has more than one and fewer than N values.
 */
void WriteDwflPrivacyTable(std::ostream& os,
                           const std::vector<uint32_t>& nList,
                           const std::vector<double>& gainPower,
                           double kappa,
                           const DwflPrivacyParams& params,
                           uint32_t composedRounds = 0,
                           double eta = 0.0);

} // namespace fl
} // namespace ns3

#endif // FL_DWFL_PRIVACY_H
