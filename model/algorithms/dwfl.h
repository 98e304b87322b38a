/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * DWFL (S. Chen, D. Yu, Y. Zou, J. Yu, X. Cheng, "Decentralized Wireless Federated Learning with
 * Differential Privacy", arXiv:2109.09142, 2021) per-round maths (pure; no ns-3 header): power
 * alignment (eqs. 3-4), the transmitted signal (eq. 2 before phase pre-compensation), the
 * over-the-air superposition a receiver sees (eqs. 1, 5), the local clipped SGD step and the
 * consensus update of eq. (7) in the Oracle (paper-literal: it needs the receiver's own channel
 * noise m_i) and Practical (what a worker knows) decode modes.
 *
 * Channels are sender-only and real after phase pre-compensation: sender k arrives at every
 * receiver with the amplitude gain |h_k|. The privacy side (eq. 11, calibration of beta) is in
 * dwfl-privacy.h. Per-round vectors are taken as Eigen::Ref, so a Vec<double>, a block or an
 * Eigen::Map over a received buffer is used in place, without a copy.
 */
#ifndef FL_DWFL_H
#define FL_DWFL_H

#include "ns3/fl-types.h"

#include <vector>

namespace ns3
{
namespace fl
{

/**
 * Throws ConfigError unless there are N >= 2 workers with one channel amplitude |h_k| and one
 * power budget P_k each, all positive and finite.
 */
void ValidateDwflChannels(const std::vector<double>& gainAbs, const std::vector<double>& powerW);

/**
 * Common received amplitude c = kappa min_j sqrt(|h_j|^2 P_j) (eq. 4 for kappa = 1; kappa in
 * (0, 1] leaves the weakest worker power for artificial noise). `gainAbs[j]` = |h_j|, `powerW[j]` =
 * P_j. Throws ConfigError on bad channels or kappa outside (0, 1].
 */
double DwflAlignmentAmplitude(const std::vector<double>& gainAbs,
                              const std::vector<double>& powerW,
                              double kappa);

/**
 * Power fractions of the models, alpha_k = c^2 / (|h_k|^2 P_k), so that every model arrives with
 * amplitude |h_k| sqrt(alpha_k P_k) = c (eq. 3). Throws ConfigError on bad channels or unless
 * 0 < c <= min_j sqrt(|h_j|^2 P_j) (then every alpha_k <= 1).
 */
std::vector<double> DwflPowerFractions(const std::vector<double>& gainAbs,
                                       const std::vector<double>& powerW,
                                       double c);

/// Slack of the power constraint alpha_k + beta_k <= 1 + slack, for rounding of calibrated values.
constexpr double kDwflPowerSlack = 1e-12;

/**
 * Checks the per-worker power constraint alpha_k + beta_k <= 1 (and beta_k >= 0) for every
 * worker; throws ConfigError naming the first worker that violates it and the largest beta_k it
 * could use.
 */
void CheckDwflPowerBudget(const std::vector<double>& alpha, const std::vector<double>& beta);

/**
 * The largest kappa in (0, 1] for which fixed noise fractions beta_k fit the power budget:
 * alpha_k = kappa^2 min_j |h_j|^2 P_j / (|h_k|^2 P_k) <= 1 - beta_k for every k, i.e.
 *   kappa* = min(1, sqrt(min_k (1 - beta_k) |h_k|^2 P_k / min_j |h_j|^2 P_j)).
 * (For DWFL's symmetric calibration, where beta depends on c, see DwflMaxKappa.) Throws
 * ConfigError on bad channels, a beta of the wrong size, or some beta_k outside [0, 1).
 */
double DwflMaxKappaForBudget(const std::vector<double>& gainAbs,
                             const std::vector<double>& powerW,
                             const std::vector<double>& beta);

/**
 * Gain of a worker's own artificial noise in its normalised received sum,
 * a_k = |h_k| sqrt(beta_k P_k) / c (the G_k coefficient of Phi_k in eq. 6).
 */
double DwflNoiseGain(double gainAbs, double powerW, double beta, double c);

/**
 * Local step of Algorithm 1 (steps 1-2) in place: clips the stochastic gradient g_i to L2 norm
 * g_max (reusing ClipToNorm of the local trainer), then x_i^(t) = x_i^(t-1/2) - gamma g_i.
 * Returns ||g_i|| after clipping (the realised g_max^(t) is the maximum over the workers).
 * Throws ConfigError if the sizes differ, gamma <= 0 or gMax <= 0 (DP needs a bound).
 */
double DwflLocalStep(Eigen::Ref<Vec<double>> x, Vec<double>& gradient, double gamma, double gMax);

/**
 * The real signal worker k transmits before phase pre-compensation (eq. 2 without e^{-j theta_k}):
 *   out = sqrt(alpha_k P_k) x_k + sqrt(beta_k P_k) G_k,
 * with the model x_k = x_k^(t) and the artificial noise G_k drawn by the caller, written into
 * `out` (of d entries: a vector, or in place the real view of the symbols to send,
 * RealView(symbols).head(d)); it must not alias x or noise. Throws ConfigError if the sizes
 * differ.
 */
void DwflTransmitSignal(const Eigen::Ref<const Vec<double>>& x,
                        const Eigen::Ref<const Vec<double>>& noise,
                        double alpha,
                        double beta,
                        double powerW,
                        Eigen::Ref<Vec<double>> out);

/**
 * What every receiver sees over the sender-only channel (eqs. 1, 5), for all workers at once:
 *   v_i = sum_{k != i} |h_k| s_k + m_i,
 * computed "sum once, remove own": S = sum_k |h_k| s_k once, then v_i = S - |h_i| s_i + m_i,
 * O(N d). `signals[k]` = s_k (from DwflTransmitSignal), `receiverNoise[i]` = m_i (drawn by the
 * caller). `received` is resized to N vectors of d entries; buffers of the right size are
 * reused. Throws ConfigError on mismatched counts or sizes.
 */
void DwflSuperpose(const std::vector<const Vec<double>*>& signals,
                   const std::vector<double>& gainAbs,
                   const std::vector<const Vec<double>*>& receiverNoise,
                   std::vector<Vec<double>>& received);

/**
 * The averaging rate that averages exactly in one round: eta = (N-1)/N makes the mixing matrix
 * Psi = (1 - eta) I + eta W of eq. (8) the averaging matrix 11^T/N (W = (11^T - I)/(N-1)).
 * `eta` > 0 is returned as given; 0 selects (N-1)/N. Throws ConfigError naming "Eta" for
 * N < 2 or eta < 0.
 */
double DwflAveragingRate(double eta, std::size_t n);

/**
 * Practical decode: the update of eq. (7) with what worker i knows,
 *   x_i^(t+1/2) = x_i^(t) + eta [ v_i / (c (N-1)) - x_i^(t) - a_i G_i ],
 * i.e. eq. (7) with the own virtual noise Phi_i taken as a_i G_i (the receiver noise m_i is
 * unknown). In place on x (= x_i^(t) on entry); `received` = v_i, `ownNoise` = G_i,
 * a = a_i (DwflNoiseGain), n = N, eta the averaging rate. The residual in the network average
 * is eta sum_i m_i / (c N (N-1)). Throws ConfigError on mismatched sizes, N < 2, c <= 0 or
 * eta <= 0.
 */
void DwflPracticalUpdate(Eigen::Ref<Vec<double>> x,
                         const Eigen::Ref<const Vec<double>>& received,
                         const Eigen::Ref<const Vec<double>>& ownNoise,
                         double a,
                         double c,
                         std::size_t n,
                         double eta);

/**
 * Oracle decode, eq. (7) literally:
 *   x_i^(t+1/2) = x_i^(t) + (eta / c) [ v_i / (N-1) - c (x_i^(t) + Phi_i^(t,i)) ],
 *   Phi_i^(t,i) = a_i G_i + m_i / (c (N-1))   (eq. 6),
 * which needs the receiver noise m_i (`receiverNoise`); m_i then cancels exactly and the network
 * average follows noiseless mini-batch SGD (eq. 9). Arguments and errors as
 * DwflPracticalUpdate.
 */
void DwflOracleUpdate(Eigen::Ref<Vec<double>> x,
                      const Eigen::Ref<const Vec<double>>& received,
                      const Eigen::Ref<const Vec<double>>& ownNoise,
                      const Eigen::Ref<const Vec<double>>& receiverNoise,
                      double a,
                      double c,
                      std::size_t n,
                      double eta);

} // namespace fl
} // namespace ns3

#endif // FL_DWFL_H
