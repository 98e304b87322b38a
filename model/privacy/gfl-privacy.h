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
 * They bound an l2 sensitivity, but the vector Laplace mechanism needs the l1 one, a node that
 * sends differently noised copies to d neighbours releases d mechanisms per iteration, and a
 * neighbouring node also receives, through its other neighbours, messages that depend on the
 * target's data. The accountant below (what the module reports) uses the l1 bound sqrt(M)
 * times the l2 one for Laplace noise, the l2 sensitivity for Gaussian noise, and counts every
 * release each adversary observes (doc/fl-privacy.rst, "GFL and GHP over iterations: the drift
 * bound and the adversaries").
 */
#ifndef FL_GFL_PRIVACY_H
#define FL_GFL_PRIVACY_H

#include "ns3/local-trainer.h"
#include "ns3/perturbation.h"
#include "ns3/privacy-accountant.h"
#include "ns3/uplink-privacy.h"

#include <cstddef>
#include <cstdint>
#include <map>
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

/// Who observes a node's releases on a graph.
enum class GraphAdversary : uint8_t
{
    OneLink,   ///< an eavesdropper on one link k -> l: the copy sent on it
    AllLinks,  ///< an eavesdropper on every outgoing link of one node: all its copies
    Neighbour, ///< a neighbouring node l (honest but curious): every message l receives
};

/// "one-link", "all-links" or "neighbour".
const char* GraphAdversaryName(GraphAdversary adversary);

/**
 * One placement of an adversary on the graph (doc/fl-privacy.rst, section "GFL and GHP over
 * iterations: the drift bound and the adversaries"): the releases it observes per iteration and
 * the drift matrix B of its observation. Given what the adversary observed before iteration n
 * (and every random draw it does not observe), the l2 distance between what node k releases at
 * iteration n under two neighbouring data sets is at most e_k(n), with e(1) = 2 mu G 1 and
 *   e(n) = B e(n - 1) + 2 mu G 1,
 * B_kk = a_kk f_k and B_kl = a_lk for every copy l -> k (l != k) the adversary does not observe
 * (0 if it does): each iteration's clipped local steps add at most 2 mu G at every node, and a
 * node combines the differences of what it holds. f_k = 1/a_kk if the adversary knows node k's
 * graph-homomorphic draw (its kept copy phi_k - (1 - a_kk)/a_kk v_k is then known up to
 * phi_k / a_kk), 0 if it knows k's broadcast draw (the kept copy is the observed message), 1
 * otherwise.
 */
struct GraphPlacement
{
    GraphAdversary adversary{GraphAdversary::OneLink}; ///< who observes
    /// the observed senders and how many differently noised copies of each per iteration (in
    /// iteration 1 only the target's own release depends on its data: one release)
    std::vector<std::pair<uint32_t, uint32_t>> releases;
    /// B, row by row: drift[k] = (l, B_kl) for the nonzero entries
    std::vector<std::vector<std::pair<uint32_t, double>>> drift;

    bool operator==(const GraphPlacement& o) const
    {
        return adversary == o.adversary && releases == o.releases && drift == o.drift;
    }
};

/**
 * Every placement of `adversary` on the graph of combination matrix A (a_lk = A(l, k): the
 * weight node k gives to what it receives from l; l ~ k if a_lk > 0), distinct placements
 * only: OneLink, each link p -> l (the copy on it; with a draw shared by every copy, the
 * eavesdropper knows the draw on every copy of p); AllLinks, each node p (its out-degree copies
 * under per-link noise, one otherwise); Neighbour, each node l (one release per in-neighbour:
 * each neighbour's message carries its own draw; the adversary's own messages never move).
 * Throws ConfigError on a non-square or negative A.
 */
std::vector<GraphPlacement> GraphAdversaryPlacements(const Eigen::MatrixXd& A,
                                                     NodeNoiseKind kind,
                                                     GraphAdversary adversary);

/**
 * One iteration of the drift recursion: e = 2 mu G 1 if `iteration` is 1, else
 * e = B e + 2 mu G 1 (`twoMuG` = 2 mu G). `e` has one entry per node.
 */
void GraphDriftStep(const GraphPlacement& placement,
                    double twoMuG,
                    uint64_t iteration,
                    Eigen::VectorXd& e);

/**
 * The statement behind a graph node's epsilon: `kind` of noise with `mechanism` (Laplace or
 * Gaussian; None: no privacy), the drift sensitivity, `unit` (the privacy unit, e.g. "the
 * data of one server's clients"), replace-one neighbouring, `adversary`, composition basic
 * (Laplace) or Renyi DP at `delta` (Gaussian) over iterations and releases, and the proof's
 * section of doc/fl-privacy.rst.
 */
PrivacyStatement GraphReleaseStatement(NodeNoiseKind kind,
                                       MechanismKind mechanism,
                                       GraphAdversary adversary,
                                       const std::string& unit,
                                       double delta);

/// Each node's number of neighbours in combination matrix A (l != k with a_lk > 0 or a_kl > 0).
std::vector<std::size_t> NeighbourCounts(const Eigen::MatrixXd& A);

/**
 * The epsilons of a graph's releases against the three adversaries (GraphAdversary), each the
 * largest over the adversary's placements (GraphAdversaryPlacements) and so over the target
 * nodes: per iteration n each observed release of sender m at the drift sensitivity e_m(n)
 * (GraphDriftStep; l2 for Gaussian noise, sqrt(M) times it in l1 for Laplace noise), composed
 * with basic composition (Laplace) or Renyi DP at delta (Gaussian). With no noise, or no gradient
 * bound (G = 0: gradients not clipped), every epsilon is +infinity. Proof: doc/fl-privacy.rst,
 * section "GFL and GHP over iterations: the drift bound and the adversaries". Cost per
 * iteration: the placements times the graph's edges.
 */
class GraphPrivacyAccountant
{
  public:
    /**
     * @param noise node-noise kind of the releases
     * @param kind noise distribution (None: no privacy)
     * @param scale b (Laplace) or sigma (Gaussian)
     * @param mu step size
     * @param gradientBound G (an l2 clipping norm); 0 = unbounded gradients
     * @param dim model dimension M (the l1 bound of Laplace noise)
     * @param combination the combination matrix A (who hears whom, and the weights)
     * @param delta target delta for Gaussian noise, in (0, 1)
     * Throws ConfigError naming the bad parameter.
     */
    GraphPrivacyAccountant(NodeNoiseKind noise,
                           MechanismKind kind,
                           double scale,
                           double mu,
                           double gradientBound,
                           std::size_t dim,
                           const Eigen::MatrixXd& combination,
                           double delta = 1e-5);

    /// Records the releases of the next iteration n = Iterations() + 1.
    void RecordIteration();

    /// Iterations recorded.
    uint64_t Iterations() const
    {
        return m_iterations;
    }

    /// eps against `adversary` after the recorded iterations (0 before any).
    double Epsilon(GraphAdversary adversary) const;

    /// eps against an eavesdropper on one link.
    double EpsilonOneLink() const
    {
        return Epsilon(GraphAdversary::OneLink);
    }

    /// eps against an eavesdropper on every outgoing link of the worst node.
    double EpsilonAllLinks() const
    {
        return Epsilon(GraphAdversary::AllLinks);
    }

    /// eps against the worst neighbouring node (server or agent).
    double EpsilonNeighbour() const
    {
        return Epsilon(GraphAdversary::Neighbour);
    }

  private:
    /// One placement's drift and running sum.
    struct Track
    {
        GraphPlacement placement;
        Eigen::VectorXd drift; ///< e(n) of the last iteration
        double sum{0.0}; ///< Laplace: sum of l1 sensitivities; Gaussian: sum of squared l2 ones
    };

    MechanismKind m_kind;
    double m_scale;
    double m_mu;
    double m_gradientBound;
    std::size_t m_dim;
    double m_delta;
    bool m_noPrivacy{false};
    uint64_t m_iterations{0};
    std::vector<Track> m_tracks;
};

/**
 * Every placement of `adversary` on the graph of A with its position: the node p (Neighbour:
 * the adversary node; AllLinks: the sender whose links are watched) as key p, or the link
 * p -> k (OneLink) as key p N + k; a position whose adversary observes nothing on this graph
 * is left out. GraphAdversaryPlacements is these placements without the positions, distinct.
 * Throws as GraphAdversaryPlacements.
 */
std::vector<std::pair<uint64_t, GraphPlacement>> GraphAdversaryPlacementsByPosition(
    const Eigen::MatrixXd& A,
    NodeNoiseKind kind,
    GraphAdversary adversary);

/**
 * The epsilons of a graph's releases when the graph changes from iteration to iteration (nodes
 * that move, neighbours learned from hellos): GraphPrivacyAccountant's statement with the
 * combination matrix A_n of each iteration, the weights the nodes actually gave (column k:
 * node k's own term and the messages it combined, its reused ones included). Each adversary
 * position (a node, or a link p -> k) keeps its own drift bound through every iteration,
 * observed or not:
 *   e(1) = 2 mu G 1,   e(n) = max(e(n - 1), B_n e(n - 1) + 2 mu G 1)   (entrywise),
 * B_n the drift matrix of that position on A_n (GraphAdversaryPlacementsByPosition; all of A_n
 * unobserved where the position observes nothing in iteration n). The step B_n e + 2 mu G
 * bounds what a node holds after combining from the bounds of what it combined, whatever the
 * weights of that iteration; the maximum makes the bound non-decreasing, so that a reused
 * older message (ReuseLast) is covered by the bound of the iteration it is reused in. Per
 * iteration each release the position observes adds its sender's e_m(n) (l1: sqrt(M) times
 * it, Laplace; squared, Gaussian), composed as GraphPrivacyAccountant does; an epsilon is the
 * largest over the positions. Proof: doc/fl-privacy.rst, section "GFL and GHP over iterations:
 * the drift bound and the adversaries", paragraph "Graphs that change". Cost per iteration:
 * N^2 positions (links) times the edges.
 */
class LiveGraphPrivacyAccountant
{
  public:
    /**
     * @param nodes the graph's size N (>= 1)
     * The other parameters as GraphPrivacyAccountant's. Throws ConfigError naming the bad one.
     */
    LiveGraphPrivacyAccountant(NodeNoiseKind noise,
                               MechanismKind kind,
                               double scale,
                               double mu,
                               double gradientBound,
                               std::size_t dim,
                               std::size_t nodes,
                               double delta = 1e-5);

    /// Records iteration n = Iterations() + 1 on its combination matrix A_n (N x N, >= 0).
    void RecordIteration(const Eigen::MatrixXd& combination);

    /// Iterations recorded.
    uint64_t Iterations() const
    {
        return m_iterations;
    }

    /// eps against `adversary` after the recorded iterations (0 before any).
    double Epsilon(GraphAdversary adversary) const;

  private:
    /// One position's drift bound and running sum.
    struct Track
    {
        Eigen::VectorXd drift; ///< e(n) of the last iteration
        double sum{0.0};       ///< as GraphPrivacyAccountant's
    };

    NodeNoiseKind m_noise;
    MechanismKind m_kind;
    double m_scale;
    double m_mu;
    double m_gradientBound;
    std::size_t m_dim;
    std::size_t m_nodes;
    double m_delta;
    bool m_noPrivacy{false};
    uint64_t m_iterations{0};
    std::map<std::pair<uint8_t, uint64_t>, Track> m_tracks; ///< (adversary, position)
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
