/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Privacy formulas of GFL (seeds 000 and 003, notes/gfl.md section 3.4) and GHP diffusion
 * (seed 001, notes/ghp.md section 3.2), pure (no ns-3 header).
 *
 * Both papers compose Laplace mechanisms sequentially (basic composition) over the messages one
 * node releases to its neighbours, with a sensitivity that grows with the iteration:
 *  - GHP Theorem 1 (eq. 27) and GFL V000 Theorem 2: the centre of the message of iteration n
 *    moves by at most Delta(n) = 2 mu G n (G bounds the gradients, e.g. a clipping norm), so
 *      eps(i) = sum_{n=0..i} 2 mu G n / b = mu G i (i + 1) / b,   b = sigma_g / sqrt(2);
 *  - GFL V003 Theorem 3: with high probability Delta <= C = B + B' + sqrt(P) ||w° - w'°|| at
 *    every iteration, so eps(i) = C (i + 1) / b (linear in i).
 * The papers bound an L2 sensitivity but the vector Laplace mechanism needs the L1 one; the
 * "conservative" variants multiply the sensitivity by sqrt(M) (notes/ghp.md section 3.2,
 * caveat 1). The same eps holds for graph-homomorphic and i.i.d. noise of equal scale: what a
 * neighbour receives has the same form (notes/ghp.md C6, C11).
 */
#ifndef FL_GFL_PRIVACY_H
#define FL_GFL_PRIVACY_H

#include "ns3/privacy-accountant.h"

#include <cstddef>
#include <cstdint>

namespace ns3
{
namespace fl
{

/**
 * GHP Theorem 1, eq. (27): eps(i) = mu G (i^2 + i) / b_v. Throws ConfigError naming "mu", "G"
 * or "b" unless mu > 0, G >= 0 and b > 0 (all finite).
 */
double GhpEpsilon(double mu, double gradientBound, uint64_t iteration, double b);

/// Laplace scale b_v = mu G T (T + 1) / eps for a target eps at horizon T (inverse of eq. 27).
double GhpLaplaceScale(double mu, double gradientBound, uint64_t horizon, double epsilon);

/**
 * GFL V000 Theorem 2: eps(i) = sqrt(2) mu B i (i + 1) / sigma_g (Laplace of scale
 * sigma_g / sqrt(2)). Errors as GhpEpsilon, naming "sigmaG".
 */
double GflEpsilonV000(double mu, double gradientBound, uint64_t iteration, double sigmaG);

/// sigma_g = sqrt(2) mu B T (T + 1) / eps (V000 Theorem 2 solved for sigma_g).
double GflSigmaV000(double mu, double gradientBound, uint64_t horizon, double epsilon);

/**
 * The V003 sensitivity constant C = B + B' + sqrt(P) ||w° - w'°|| (the consistent reading of
 * Theorem 3, notes/gfl.md section 2.6 [TYPO]). Throws ConfigError on negative inputs or P = 0.
 */
double GflSensitivityV003(double b, double bPrime, std::size_t servers, double optimumShift);

/// GFL V003 Theorem 3: eps(i) = sqrt(2) C (i + 1) / sigma_g.
double GflEpsilonV003(double sensitivityC, uint64_t iteration, double sigmaG);

/// sigma_g = sqrt(2) C (T + 1) / eps (V003 Theorem 3 solved for sigma_g).
double GflSigmaV003(double sensitivityC, uint64_t horizon, double epsilon);

/**
 * The sensitivity of the message of iteration n under the drifting-sensitivity argument:
 * 2 mu G n, times sqrt(dim) if `conservativeL1` (the L1 bound a vector Laplace mechanism needs).
 */
double DriftingSensitivity(double mu,
                           double gradientBound,
                           uint64_t iteration,
                           std::size_t dim,
                           bool conservativeL1);

/**
 * [derived, not in the papers] L2 sensitivity of one client upload to the replacement of that
 * client's data with clipped gradients (norm <= G) from the same start: a model moves by at most
 * 2 mu G, an averaged update (V003 eq. 54) by at most 2 G.
 */
double ClientUploadSensitivity(bool updates, double mu, double gradientBound);

/**
 * Feeds a PrivacyAccountant with the messages one node releases per iteration, each with the
 * drifting sensitivity DriftingSensitivity(n) of its iteration n = 1, 2, ... (the n = 0 release
 * has sensitivity 0), and reports eps: basic composition for Laplace noise (which gives eq. 27
 * exactly) and Renyi DP at `delta` for Gaussian noise. With no noise, or no gradient bound
 * (G = 0: gradients not clipped), eps is +infinity.
 */
class DriftingSensitivityAccountant
{
  public:
    /**
     * @param kind noise kind of the released messages (None: no privacy)
     * @param scale b (Laplace) or sigma (Gaussian)
     * @param mu step size
     * @param gradientBound G (a clipping norm); 0 = unbounded gradients
     * @param dim model dimension M (for the conservative L1 variant)
     * @param conservativeL1 multiply the sensitivity by sqrt(M)
     * @param delta target delta for Gaussian noise, in (0, 1)
     * Throws ConfigError naming the bad parameter.
     */
    DriftingSensitivityAccountant(MechanismKind kind,
                                  double scale,
                                  double mu,
                                  double gradientBound,
                                  std::size_t dim,
                                  bool conservativeL1,
                                  double delta = 1e-5);

    /// Records the release of the next iteration n = Iterations() + 1.
    void RecordIteration();

    /// Iterations recorded.
    uint64_t Iterations() const
    {
        return m_iterations;
    }

    /// eps after the recorded iterations (0 before any; +inf without noise or gradient bound).
    double Epsilon() const;

    /// The underlying accountant (empty if eps is infinite by construction).
    const PrivacyAccountant& Accountant() const
    {
        return m_accountant;
    }

  private:
    MechanismKind m_kind;
    double m_scale;
    double m_mu;
    double m_gradientBound;
    std::size_t m_dim;
    bool m_conservative;
    double m_delta;
    uint64_t m_iterations{0};
    PrivacyAccountant m_accountant;
};

} // namespace fl
} // namespace ns3

#endif // FL_GFL_PRIVACY_H
