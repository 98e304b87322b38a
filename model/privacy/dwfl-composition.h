/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * A valid bound on the privacy of DWFL over many rounds (pure; no ns-3 header).
 *
 * Eq. (11) of S. Chen, D. Yu, Y. Zou, J. Yu, X. Cheng, "Decentralized Wireless Federated
 * Learning with Differential Privacy" (arXiv:2109.09142, 2021) bounds one round. Over rounds the
 * receiver's observations are not independent releases: after one consensus step every worker's
 * model carries the target's influence (so the other workers' gradients, taken at those models,
 * change too), and the artificial noise of a round is carried into the next models. The bound
 * here is proven in doc/fl-privacy.rst, section "DWFL over rounds: the composed bound":
 *
 *  - the adversary is receiver i; it may even know every random draw of the run except the part
 *    of each round's fresh noise n_t = sum_{k != i} |h_k| sqrt(beta_k P_k) G_k^(t) + m_i^(t) that
 *    it cannot separate from its reception (the rest of the noise is revealed to it);
 *  - given that, round t's reception is v_t = F_t(D, revealed, v_1..v_{t-1}) + n_t, a Gaussian
 *    mechanism with fresh noise; the observations fix n_1..n_{t-1} differently under two
 *    neighbouring data sets, and a linear recursion (the matrix M_s of round s, which
 *    DwflDriftMatrix builds) carries the differences of every worker's clipped gradient of every
 *    earlier round into the round-t query, each worth at most 2 g_max:
 *      Delta_t = 2 gamma g_max c_t [ max_{w != i} |z_{1,t}[w]| + sum_{s=2..t} sum_{k in A}
 *                |z_{s,t}[k]| ],   z_{s,t} = M_s M_{s+1} ... M_{t-1} 1_{-i},
 *    A = every worker but i (Practical decode: the receiver's own model never differs) or every
 *    worker (Oracle decode);
 *  - Renyi DP composes the rounds adaptively (Mironov 2017, Prop. 1), and the bound holds for
 *    the unrevealed draws averaged out (Renyi divergence is jointly quasi-convex: van Erven and
 *    Harremoes 2014, Thm. 13).
 * No smoothness of the loss is assumed: a worker whose model moved may change its clipped
 * gradient arbitrarily within the clipping ball. The bound therefore grows about N times per
 * round of history and is large; it is what can be proven for the mechanism as the module runs it.
 */
#ifndef FL_DWFL_COMPOSITION_H
#define FL_DWFL_COMPOSITION_H

#include "ns3/dwfl-privacy.h"
#include "ns3/privacy-accountant.h"

#include <Eigen/Dense>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace ns3
{
namespace fl
{

/// How the workers decode (eq. 7): what a worker knows, or with its own receiver noise.
enum class DwflDecode : uint8_t
{
    Practical = 0, ///< DwflPracticalUpdate
    Oracle = 1,    ///< DwflOracleUpdate
};

/// One round's channel and noise as DWFL's update sees them (all data-independent).
struct DwflRoundSetup
{
    std::vector<double> gainAbs; ///< |h_k|
    std::vector<double> powerW;  ///< P_k
    std::vector<double> beta;    ///< artificial-noise power fractions beta_k
    double c{0.0};               ///< aligned amplitude c
    double eta{0.0};             ///< averaging rate eta of eq. (7), > 0
    DwflPrivacyParams params;    ///< gamma, g_max, sigma^2, sigma_m^2 (delta unused)

    bool operator==(const DwflRoundSetup& o) const
    {
        return gainAbs == o.gainAbs && powerW == o.powerW && beta == o.beta && c == o.c &&
               eta == o.eta && params.gamma == o.params.gamma && params.gMax == o.params.gMax &&
               params.sigma2 == o.params.sigma2 && params.sigmaM2 == o.params.sigmaM2;
    }
};

/**
 * The N x N matrix M of one round for receiver i: if two runs with neighbouring data sets have
 * the same receptions at i and the same revealed randomness, and their models after the local
 * step differ by the row vector dx (one entry per worker, the same in every coordinate), their
 * models after the consensus step differ by dx M. It accounts for the part of the fresh noise
 * that the reception fixes differently in the two runs: the artificial noise G_k of k != i moves
 * by b_k dn and the receiver noise m_i by b_m dn, with dn = -c sum_{k != i} dx_k,
 * b_k = |h_k| sqrt(beta_k P_k) sigma^2 / sigma_n^2 and b_m = sigma_m^2 / sigma_n^2 (the Gaussian
 * regression of each draw on n_t); everything else is fixed. Throws ConfigError on bad inputs
 * or a receiver without noise (sigma_n = 0).
 */
Eigen::MatrixXd DwflDriftMatrix(std::size_t receiver,
                                DwflDecode decode,
                                const DwflRoundSetup& setup);

/**
 * Standard deviation sigma_n of receiver i's fresh noise in a round:
 * sqrt(sum_{k != i} |h_k|^2 beta_k P_k sigma^2 + sigma_m^2) (eq. 11's denominator).
 */
double DwflFreshNoiseStd(std::size_t receiver, const DwflRoundSetup& setup);

/**
 * The composed privacy of what receiver i observes over DWFL rounds (doc/fl-privacy.rst, "DWFL over
 * rounds: the composed bound"): AddRound returns the Gaussian mechanism of round t given the
 * history, with the sensitivity Delta_t above (the largest over the target workers) and the
 * fresh noise sigma_n; a PrivacyAccountant fed with these releases composes them (Renyi DP for
 * the tightest value). Cost per round O(N^2) while the setup stays the same, O(N^2 t) in round t
 * after a change (block fading).
 */
class DwflComposedBound
{
  public:
    /// Receiver i's bound under the given decode.
    DwflComposedBound(std::size_t receiver, DwflDecode decode);

    /// Adds round t = Rounds() + 1 and returns its mechanism (kind None without noise).
    MechanismSpec AddRound(const DwflRoundSetup& setup);

    /// Rounds added.
    uint64_t Rounds() const
    {
        return m_setups.size();
    }

    /// Delta_t / (2 gamma g_max c_t) of the last round, for target worker w (w != i).
    double LastDriftFactor(std::size_t target) const;

  private:
    std::size_t m_receiver;
    DwflDecode m_decode;
    std::vector<DwflRoundSetup> m_setups;  ///< every round's setup
    std::vector<Eigen::MatrixXd> m_matrix; ///< M_s of every round s (1-based: index s - 1)
    bool m_constant{true};                 ///< every setup equal so far
    std::vector<Eigen::VectorXd> m_powers; ///< constant setup: M^r 1_{-i}, r = 0, 1, ...
    double m_historySum{0.0};    ///< constant setup: sum_{r=0}^{t-2} sum_{k in A} |(M^r 1_{-i})_k|
    Eigen::VectorXd m_lastFirst; ///< z_{1,t} of the last round t
    double m_lastHistory{0.0};   ///< the history term of the last round

    /// Whether worker k's gradient may differ from round 2 on (the set A).
    bool InHistory(std::size_t k) const;
};

/**
 * The composed epsilon at `delta` of receiver i after `rounds` rounds with one fixed setup
 * (Renyi DP, Canonne-Kamath-Steinke conversion): DwflComposedBound fed `rounds` times into a
 * PrivacyAccountant. +inf without noise.
 */
double DwflComposedEpsilon(std::size_t receiver,
                           DwflDecode decode,
                           const DwflRoundSetup& setup,
                           uint64_t rounds,
                           double delta);

/**
 * What the composed eps of a DWFL receiver means (doc/fl-privacy.rst, "DWFL over rounds: the
 * composed bound"): the Gaussian mechanism of each round's fresh noise at the receiver, the drift
 * sensitivity Delta_t, one worker's data set replaced, the receiver (`receiver`) observing every
 * round and knowing every draw but the unseparable part of its fresh noise, Renyi DP over the
 * rounds so far at `delta`.
 */
PrivacyStatement DwflComposedStatement(const std::string& receiver, double delta);

/**
 * What the over-the-air parameter server's composed eps means (doc/fl-privacy.rst, "The
 * over-the-air parameter server over rounds"): each round's reception is the Gaussian mechanism of
 * OtaPsServerMechanism on the clipped gradients at the server's own model (a function of what it
 * received before), so the rounds compose adaptively at the one-round sensitivity 2 g_max c; Renyi
 * DP at `delta`.
 */
PrivacyStatement OtaPsComposedStatement(double delta);

/// The words printed where DWFL has no composed eps (orthogonal links, per-link channels).
constexpr const char* kDwflNotComposed = "not composed: no valid bound";

} // namespace fl
} // namespace ns3

#endif // FL_DWFL_COMPOSITION_H
