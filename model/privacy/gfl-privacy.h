/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Privacy formulas of GFL (E. Rizk, S. Vlaski, A. H. Sayed, "Privatized Graph Federated
 * Learning": the preprint's Theorem 2 and the journal version's Theorem 3) and of GHP diffusion
 * (S. Vlaski, A. H. Sayed, "Graph-Homomorphic Perturbations for Private Decentralized
 * Learning", ICASSP 2021, Theorem 1), pure (no ns-3 header).
 *
 * Both papers compose Laplace mechanisms sequentially (basic composition) over the messages one
 * node releases to its neighbours, with a sensitivity that grows with the iteration:
 *  - GHP Theorem 1 (eq. 27) and the GFL preprint's Theorem 2: the centre of the message of
 *    iteration n moves by at most Delta(n) = 2 mu G n (G bounds the gradients, e.g. a clipping
 *    norm), so eps(i) = sum_{n=0..i} 2 mu G n / b = mu G i (i + 1) / b, b = sigma_g / sqrt(2);
 *  - the GFL journal version's Theorem 3: with high probability Delta <= C = B + B' +
 *    sqrt(P) ||w° - w'°|| at every iteration, so eps(i) = C (i + 1) / b (linear in i).
 * The papers' formulas are implemented as printed (GhpEpsilon; GflEpsilonPreprint and
 * GflEpsilonJournal, named after the version of the GFL paper whose theorem each implements).
 * They bound an l2 sensitivity, but the vector Laplace mechanism needs the l1 one, and a node
 * that sends differently noised copies to d neighbours releases d mechanisms per iteration. The
 * accountants below (what the module reports) use the l1 bound sqrt(M) times the l2 one for
 * Laplace noise, the l2 sensitivity for Gaussian noise, and count every copy the adversary sees.
 */
#ifndef FL_GFL_PRIVACY_H
#define FL_GFL_PRIVACY_H

#include "ns3/local-trainer.h"
#include "ns3/perturbation.h"
#include "ns3/privacy-accountant.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

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
 * The GFL preprint's Theorem 2: eps(i) = sqrt(2) mu B i (i + 1) / sigma_g (Laplace of scale
 * sigma_g / sqrt(2)). Errors as GhpEpsilon, naming "sigmaG".
 */
double GflEpsilonPreprint(double mu, double gradientBound, uint64_t iteration, double sigmaG);

/// sigma_g = sqrt(2) mu B T (T + 1) / eps (the preprint's Theorem 2 solved for sigma_g).
double GflSigmaPreprint(double mu, double gradientBound, uint64_t horizon, double epsilon);

/**
 * The sensitivity constant of the journal version's Theorem 3, C = B + B' + sqrt(P) ||w° - w'°||:
 * the consistent reading of a typo in Theorem 3, which prints B + B' sqrt(P) ||w° - w'°|| while
 * the main text's sensitivity bound is B + B' + sqrt(P) ||w° - w'°|| (and the proof in its
 * Appendix 5 drops the sqrt(P)). Throws ConfigError on negative inputs or P = 0.
 */
double GflSensitivityJournal(double b, double bPrime, std::size_t servers, double optimumShift);

/// The GFL journal version's Theorem 3: eps(i) = sqrt(2) C (i + 1) / sigma_g.
double GflEpsilonJournal(double sensitivityC, uint64_t iteration, double sigmaG);

/// sigma_g = sqrt(2) C (T + 1) / eps (the journal version's Theorem 3 solved for sigma_g).
double GflSigmaJournal(double sensitivityC, uint64_t horizon, double epsilon);

/**
 * The sensitivity of the message of iteration n under the drifting-sensitivity argument, in the
 * norm the noise needs: the centre of the message moves by at most 2 mu G n in l2 (G bounds the
 * l2 norm of every clipped gradient). Gaussian noise needs the l2 sensitivity: 2 mu G n. The
 * i.i.d. Laplace mechanism needs the l1 sensitivity, bounded by sqrt(M) times the l2 one
 * (Cauchy-Schwarz in M dimensions): sqrt(M) 2 mu G n. None: 0.
 */
double DriftingSensitivity(MechanismKind kind,
                           double mu,
                           double gradientBound,
                           uint64_t iteration,
                           std::size_t dim);

/// Who observes a node's releases on a graph.
enum class GraphAdversary : uint8_t
{
    OneNeighbour, ///< one neighbour: the copy addressed to it
    AllLinks,     ///< every neighbour together, or an eavesdropper on every link of the node
};

/// "one-neighbour" or "all-links".
const char* GraphAdversaryName(GraphAdversary adversary);

/**
 * Independently noised copies of one node's message that the adversary sees per iteration:
 * per-link i.i.d. noise sends a differently noised copy to each of the node's `neighbours`, so
 * AllLinks sees `neighbours` releases (one if it has no neighbour); every other kind sends one
 * noisy vector to all (per-sender and broadcast i.i.d. noise, graph-homomorphic noise), so every
 * adversary sees one release. Graph-homomorphic noise cancels only in the network centroid
 * (the sender's compensating self term never leaves it): it protects nothing against an
 * observer of the network average.
 */
uint32_t CopiesSeen(NodeNoiseKind kind, GraphAdversary adversary, std::size_t neighbours);

/**
 * The statement behind a graph node's epsilon: `kind` of noise with `mechanism` (Laplace or
 * Gaussian; None: no privacy), the drifting sensitivity, `unit` (the privacy unit, e.g. "the
 * data of one server's clients"), replace-one neighbouring, `adversary`, composition basic
 * (Laplace) or Renyi DP at `delta` (Gaussian) over iterations and copies.
 */
PrivacyStatement GraphReleaseStatement(NodeNoiseKind kind,
                                       MechanismKind mechanism,
                                       GraphAdversary adversary,
                                       const std::string& unit,
                                       double delta);

/**
 * Feeds a PrivacyAccountant with the messages one node releases per iteration, each with the
 * drifting sensitivity DriftingSensitivity(kind, n) of its iteration n = 1, 2, ... (the n = 0
 * release has sensitivity 0), `copies` times per iteration (the independently noised copies the
 * adversary sees, CopiesSeen), and reports eps: basic composition for Laplace noise (which
 * gives GHP eq. (27) with the l1 sensitivity when copies = 1) and Renyi DP at `delta` for
 * Gaussian noise. With no noise, or no gradient bound (G = 0: gradients not clipped), eps is
 * +infinity.
 */
class DriftingSensitivityAccountant
{
  public:
    /**
     * @param kind noise kind of the released messages (None: no privacy)
     * @param scale b (Laplace) or sigma (Gaussian)
     * @param mu step size
     * @param gradientBound G (an l2 clipping norm); 0 = unbounded gradients
     * @param dim model dimension M (the l1 bound of Laplace noise)
     * @param copies independently noised copies the adversary sees per iteration (>= 1)
     * @param delta target delta for Gaussian noise, in (0, 1)
     * Throws ConfigError naming the bad parameter.
     */
    DriftingSensitivityAccountant(MechanismKind kind,
                                  double scale,
                                  double mu,
                                  double gradientBound,
                                  std::size_t dim,
                                  uint32_t copies = 1,
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
    uint32_t m_copies;
    double m_delta;
    uint64_t m_iterations{0};
    PrivacyAccountant m_accountant;
};

/// Each node's number of neighbours in combination matrix A (l != k with a_lk > 0 or a_kl > 0).
std::vector<std::size_t> NeighbourCounts(const Eigen::MatrixXd& A);

/**
 * L2 sensitivity of a client's uploaded model to the replacement of its data set, for E local
 * steps of clipped SGD from the same (public) global model, w_e = w_{e-1} - eta_e (clip_G(g_e) +
 * proxMu (w_{e-1} - w_0)): the two runs' difference d_e = (1 - eta_e proxMu) d_{e-1} - eta_e
 * (c_e - c'_e) with ||c_e - c'_e|| <= 2 G, so ||d_E|| <= 2 G sum_e eta_e whenever
 * 0 <= eta_e proxMu <= 2. sum_e eta_e = eta E (fixed steps) or eta (steps eta / E). +infinity
 * if gradients are not clipped (clipNorm = 0) or eta proxMu > 2. Throws ConfigError as
 * LocalTrainerConfig::Validate and on steps = 0.
 */
double LocalTrainingSensitivity(const LocalTrainerConfig& trainer, std::size_t steps);

/**
 * What a FedAvg client's uplink epsilon means: `mechanism` noise on its uploaded model, the l2
 * (Gaussian) or l1 <= sqrt(M) l2 (Laplace) sensitivity of LocalTrainingSensitivity, one client's
 * data set replaced, the server or an eavesdropper of the client's uplink, composed over the
 * rounds the client uploaded in (basic for Laplace, Renyi DP at `delta` for Gaussian).
 */
PrivacyStatement UplinkStatement(MechanismKind mechanism, double delta);

/**
 * The privacy a client's uplink noise gives its data set against the server: fed once per
 * upload with the perturbation's mechanism at LocalTrainingSensitivity (times sqrt(M) for
 * Laplace noise), composed with basic composition (Laplace) or Renyi DP (Gaussian). Each round
 * starts from the broadcast global model, a post-processing of earlier releases, so adaptive
 * composition applies without a drifting sensitivity.
 */
class UplinkPrivacyAccountant
{
  public:
    /// Records one upload: the mechanism's kind and scale, the local steps it trained and M.
    void RecordUpload(const MechanismSpec& noise,
                      const LocalTrainerConfig& trainer,
                      std::size_t steps,
                      std::size_t dim);
    /// Uploads recorded.
    uint64_t Uploads() const
    {
        return m_uploads;
    }
    /// eps at delta (0 before any upload; +inf if an upload had no noise or no clipping).
    double Epsilon(double delta) const;

  private:
    PrivacyAccountant m_accountant;
    uint64_t m_uploads{0};
    bool m_infinite{false};
    bool m_gaussian{false};
};

/**
 * The two epsilons of a graph node's releases: against one neighbour and against all its links
 * (the worst node: the most neighbours under per-link noise). `neighbours[k]` is node k's
 * number of neighbours.
 */
class GraphPrivacyAccountant
{
  public:
    /// Arguments as DriftingSensitivityAccountant; `noise` the node-noise kind.
    GraphPrivacyAccountant(NodeNoiseKind noise,
                           MechanismKind kind,
                           double scale,
                           double mu,
                           double gradientBound,
                           std::size_t dim,
                           const std::vector<std::size_t>& neighbours,
                           double delta = 1e-5);

    /// Records the next iteration's releases.
    void RecordIteration();

    /// eps against one neighbour.
    double EpsilonOneNeighbour() const
    {
        return m_one.Epsilon();
    }

    /// eps against all links of the worst node.
    double EpsilonAllLinks() const
    {
        return m_all.Epsilon();
    }

  private:
    DriftingSensitivityAccountant m_one;
    DriftingSensitivityAccountant m_all;
};

/**
 * [derived, not in the papers] L2 sensitivity of one client upload to the replacement of that
 * client's data with clipped gradients (norm <= G) from the same start: a model moves by at most
 * 2 mu G, an averaged update (the GFL journal version's eq. 54) by at most 2 G.
 */
double ClientUploadSensitivity(bool updates, double mu, double gradientBound);

} // namespace fl
} // namespace ns3

#endif // FL_GFL_PRIVACY_H
