/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The centralized over-the-air parameter server of Seif, Tandon, Li, "Wireless Federated
 * Learning with Local Differential Privacy" (ISIT 2020; ref. [11] and the baseline of
 * Fig. 6 of S. Chen, D. Yu, Y. Zou, J. Yu, X. Cheng, "Decentralized Wireless Federated Learning
 * with Differential Privacy", arXiv:2109.09142, 2021), per-round maths (pure; no ns-3 header):
 *
 *  - worker k computes the clipped stochastic gradient g_k at the server's model w (one SGD
 *    step of the task's trainer from w gives w - gamma g_k, GradientFromStep);
 *  - it sends sqrt(alpha_k P_k) g_k + sqrt(beta_k P_k) G_k after phase pre-compensation, with the
 *    power alignment of DWFL (alpha_k = c^2 / (|h_k|^2 P_k), DwflTransmitSignal);
 *  - the server receives y = sum_k |h_k| s_k + m (all N workers, OtaPsSuperpose) and updates
 *      w <- w - gamma y / (c N)                                    (OtaPsUpdate),
 *    i.e. mini-batch SGD on the average gradient plus the noise gamma (sum_k a_k G_k + m / c) / N,
 *    a_k = |h_k| sqrt(beta_k P_k) / c; the model goes back to the workers over a noiseless
 *    downlink (as in [11]).
 *
 * Unlike DWFL (eq. 9), nothing cancels: the artificial and the receiver noise enter the global
 * model every round. The privacy side is in dwfl-privacy.h (OtaPsEpsilon, CalibrateOtaPsBeta).
 */
#ifndef FL_OTA_PARAMETER_SERVER_H
#define FL_OTA_PARAMETER_SERVER_H

#include "ns3/fl-types.h"

#include <vector>

namespace ns3
{
namespace fl
{

/**
 * The clipped gradient of one plain SGD step from `start` to `stepped` with step size gamma:
 * g = (start - stepped) / gamma, written into `out` (of the same size). Throws ConfigError on
 * mismatched sizes or gamma <= 0.
 */
void GradientFromStep(const Eigen::Ref<const Vec<double>>& start,
                      const Eigen::Ref<const Vec<double>>& stepped,
                      double gamma,
                      Eigen::Ref<Vec<double>> out);

/**
 * What the server receives over the sender-only channel: y = sum_k |h_k| s_k + m, with the
 * workers' signals s_k (DwflTransmitSignal of their gradients) and the server's receiver noise
 * m. `out` is resized to d. Throws ConfigError on mismatched counts or sizes.
 */
void OtaPsSuperpose(const std::vector<const Vec<double>*>& signals,
                    const std::vector<double>& gainAbs,
                    const Eigen::Ref<const Vec<double>>& receiverNoise,
                    Vec<double>& out);

/**
 * The server's estimate of the average gradient, y / (c N), into `out`. Throws ConfigError on
 * mismatched sizes, N < 1 or c <= 0.
 */
void OtaPsAverageGradient(const Eigen::Ref<const Vec<double>>& received,
                          double c,
                          std::size_t n,
                          Eigen::Ref<Vec<double>> out);

/**
 * The server's update in place: w <- w - gamma y / (c N). Throws ConfigError on mismatched
 * sizes, N < 1, c <= 0 or gamma <= 0.
 */
void OtaPsUpdate(Eigen::Ref<Vec<double>> w,
                 const Eigen::Ref<const Vec<double>>& received,
                 double c,
                 std::size_t n,
                 double gamma);

} // namespace fl
} // namespace ns3

#endif // FL_OTA_PARAMETER_SERVER_H
