/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ns3/gfl-privacy.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>
#include <string>

namespace ns3
{
namespace fl
{

namespace
{

void
Require(bool ok, const std::string& parameter, double value, const std::string& fix)
{
    if (!ok)
    {
        throw ConfigError(parameter, "is " + std::to_string(value), fix);
    }
}

void
CheckMuG(double mu, double g)
{
    Require(mu > 0.0 && std::isfinite(mu), "mu", mu, "use a positive, finite step size");
    Require(g >= 0.0 && std::isfinite(g),
            "G",
            g,
            "use a finite gradient bound >= 0 (the clipping norm)");
}

void
CheckPositive(double v, const std::string& parameter, const std::string& fix)
{
    Require(v > 0.0 && std::isfinite(v), parameter, v, fix);
}

} // namespace

double
GhpEpsilon(double mu, double gradientBound, uint64_t iteration, double b)
{
    CheckMuG(mu, gradientBound);
    CheckPositive(b, "b", "use a positive Laplace scale b_v");
    const auto i = static_cast<double>(iteration);
    return mu * gradientBound * (i * i + i) / b; // eq. (27)
}

double
GhpLaplaceScale(double mu, double gradientBound, uint64_t horizon, double epsilon)
{
    CheckMuG(mu, gradientBound);
    CheckPositive(epsilon, "epsilon", "use a positive privacy budget");
    const auto t = static_cast<double>(horizon);
    return mu * gradientBound * t * (t + 1.0) / epsilon;
}

double
GflEpsilonPreprint(double mu, double gradientBound, uint64_t iteration, double sigmaG)
{
    CheckMuG(mu, gradientBound);
    CheckPositive(sigmaG, "sigmaG", "use a positive noise standard deviation sigma_g");
    const auto i = static_cast<double>(iteration);
    return std::sqrt(2.0) * mu * gradientBound * i * (i + 1.0) / sigmaG;
}

double
GflSigmaPreprint(double mu, double gradientBound, uint64_t horizon, double epsilon)
{
    CheckMuG(mu, gradientBound);
    CheckPositive(epsilon, "epsilon", "use a positive privacy budget");
    const auto t = static_cast<double>(horizon);
    return std::sqrt(2.0) * mu * gradientBound * t * (t + 1.0) / epsilon;
}

double
GflSensitivityJournal(double b, double bPrime, std::size_t servers, double optimumShift)
{
    Require(b >= 0.0 && std::isfinite(b), "B", b, "use a threshold B >= 0");
    Require(bPrime >= 0.0 && std::isfinite(bPrime), "B'", bPrime, "use a threshold B' >= 0");
    Require(servers > 0, "P", 0.0, "use at least one server");
    Require(optimumShift >= 0.0 && std::isfinite(optimumShift),
            "optimumShift",
            optimumShift,
            "use ||w° - w'°|| >= 0");
    return b + bPrime + std::sqrt(static_cast<double>(servers)) * optimumShift;
}

double
GflEpsilonJournal(double sensitivityC, uint64_t iteration, double sigmaG)
{
    Require(sensitivityC >= 0.0 && std::isfinite(sensitivityC),
            "C",
            sensitivityC,
            "use GflSensitivityJournal");
    CheckPositive(sigmaG, "sigmaG", "use a positive noise standard deviation sigma_g");
    return std::sqrt(2.0) * sensitivityC * (static_cast<double>(iteration) + 1.0) / sigmaG;
}

double
GflSigmaJournal(double sensitivityC, uint64_t horizon, double epsilon)
{
    Require(sensitivityC >= 0.0 && std::isfinite(sensitivityC),
            "C",
            sensitivityC,
            "use GflSensitivityJournal");
    CheckPositive(epsilon, "epsilon", "use a positive privacy budget");
    return std::sqrt(2.0) * sensitivityC * (static_cast<double>(horizon) + 1.0) / epsilon;
}

const char*
GraphAdversaryName(GraphAdversary adversary)
{
    switch (adversary)
    {
    case GraphAdversary::AllLinks:
        return "all-links";
    case GraphAdversary::Neighbour:
        return "neighbour";
    case GraphAdversary::OneLink:
        break;
    }
    return "one-link";
}

namespace
{

/// The epsilon of a track's running sum: basic composition of Laplace releases (sum of
/// Delta_1 / b), or Gaussian releases in RDP as one release of l2 sensitivity sqrt(sum Delta^2).
double
EpsilonOfSum(MechanismKind kind, double scale, double delta, double sum)
{
    if (kind == MechanismKind::Laplace)
    {
        return sum / scale;
    }
    PrivacyAccountant accountant;
    accountant.AddGaussian(std::sqrt(sum), scale);
    return accountant.Epsilon(delta, Composition::Rdp);
}

/// Whether every copy of a sender carries the same draw (one release per sender).
bool
SharedNoise(NodeNoiseKind kind)
{
    return kind == NodeNoiseKind::IidPerSender || kind == NodeNoiseKind::IidBroadcast ||
           kind == NodeNoiseKind::GraphHomomorphic;
}

} // namespace

std::vector<GraphPlacement>
GraphAdversaryPlacements(const Eigen::MatrixXd& A, NodeNoiseKind kind, GraphAdversary adversary)
{
    std::vector<GraphPlacement> placements;
    for (auto& [position, p] : GraphAdversaryPlacementsByPosition(A, kind, adversary))
    {
        if (std::find(placements.begin(), placements.end(), p) == placements.end())
        {
            placements.push_back(std::move(p));
        }
    }
    return placements;
}

std::vector<std::pair<uint64_t, GraphPlacement>>
GraphAdversaryPlacementsByPosition(const Eigen::MatrixXd& A,
                                   NodeNoiseKind kind,
                                   GraphAdversary adversary)
{
    if (A.rows() != A.cols() || A.rows() == 0)
    {
        throw ConfigError("combination",
                          "is " + std::to_string(A.rows()) + " x " + std::to_string(A.cols()),
                          "use the square combination matrix of the graph");
    }
    if ((A.array() < 0.0).any())
    {
        throw ConfigError("combination", "has a negative weight", "use weights >= 0");
    }
    const auto n = static_cast<std::size_t>(A.rows());
    const bool shared = SharedNoise(kind);
    auto a = [&A](std::size_t l, std::size_t k) {
        return A(static_cast<Eigen::Index>(l), static_cast<Eigen::Index>(k));
    };
    auto edge = [&a](std::size_t l, std::size_t k) { return l != k && a(l, k) > 0.0; };
    // B of a placement: `known[k]` the adversary knows node k's shared draw; `observed(l, k)` it
    // observes (or fixes) the copy l -> k
    auto driftOf = [&](const std::vector<bool>& known, auto observed) {
        std::vector<std::vector<std::pair<uint32_t, double>>> b(n);
        for (std::size_t k = 0; k < n; ++k)
        {
            double kept = 1.0; // the kept copy moves with phi_k
            if (known[k] && kind == NodeNoiseKind::GraphHomomorphic && a(k, k) > 0.0)
            {
                kept = 1.0 / a(k, k); // phi_k / a_kk - (1 - a_kk) / a_kk y_k
            }
            else if (known[k] && kind == NodeNoiseKind::IidBroadcast)
            {
                kept = 0.0; // the kept copy is the observed message
            }
            if (a(k, k) * kept != 0.0)
            {
                b[k].emplace_back(static_cast<uint32_t>(k), a(k, k) * kept);
            }
            for (std::size_t l = 0; l < n; ++l)
            {
                if (edge(l, k) && !observed(l, k))
                {
                    b[k].emplace_back(static_cast<uint32_t>(l), a(l, k));
                }
            }
        }
        return b;
    };
    std::vector<std::pair<uint64_t, GraphPlacement>> placements;
    auto add = [&placements](uint64_t position, GraphPlacement p) {
        placements.emplace_back(position, std::move(p));
    };
    for (std::size_t p = 0; p < n; ++p)
    {
        GraphPlacement pl;
        pl.adversary = adversary;
        if (adversary == GraphAdversary::Neighbour)
        {
            // node p is the adversary: it hears every l with a_lp > 0; its own messages never
            // move (its data and everything it combines are fixed)
            std::vector<bool> known(n, false);
            for (std::size_t l = 0; l < n; ++l)
            {
                if (edge(l, p))
                {
                    pl.releases.emplace_back(static_cast<uint32_t>(l), 1U);
                    known[l] = shared;
                }
            }
            if (pl.releases.empty())
            {
                continue;
            }
            pl.drift = driftOf(known, [&](std::size_t l, std::size_t k) {
                return l == p || k == p || (shared && known[l]);
            });
            add(p, std::move(pl));
            continue;
        }
        // an eavesdropper on p's links: one (OneLink, each in turn) or all (AllLinks)
        std::vector<std::size_t> out;
        for (std::size_t k = 0; k < n; ++k)
        {
            if (edge(p, k))
            {
                out.push_back(k);
            }
        }
        std::vector<std::vector<std::size_t>> sets;
        if (adversary == GraphAdversary::AllLinks)
        {
            sets.push_back(out);
        }
        else
        {
            for (std::size_t k : out)
            {
                sets.push_back({k});
            }
        }
        for (const auto& seen : sets)
        {
            if (seen.empty())
            {
                continue;
            }
            std::vector<bool> known(n, false);
            known[p] = shared;
            GraphPlacement q;
            q.adversary = adversary;
            q.releases.emplace_back(static_cast<uint32_t>(p),
                                    shared ? 1U : static_cast<uint32_t>(seen.size()));
            q.drift = driftOf(known, [&](std::size_t l, std::size_t k) {
                return l == p && (shared || std::find(seen.begin(), seen.end(), k) != seen.end());
            });
            add(adversary == GraphAdversary::AllLinks ? p : p * n + seen.front(), std::move(q));
        }
    }
    return placements;
}

void
GraphDriftStep(const GraphPlacement& placement,
               double twoMuG,
               uint64_t iteration,
               Eigen::VectorXd& e)
{
    const auto n = static_cast<Eigen::Index>(placement.drift.size());
    if (iteration <= 1 || e.size() != n)
    {
        e = Eigen::VectorXd::Constant(n, twoMuG); // e(1) = 2 mu G 1
        return;
    }
    Eigen::VectorXd next(n);
    for (Eigen::Index k = 0; k < n; ++k)
    {
        double sum = twoMuG; // this iteration's clipped steps
        for (const auto& [l, b] : placement.drift[static_cast<std::size_t>(k)])
        {
            sum += b * e[l]; // what node k combines
        }
        next[k] = sum;
    }
    e.swap(next);
}

PrivacyStatement
GraphReleaseStatement(NodeNoiseKind kind,
                      MechanismKind mechanism,
                      GraphAdversary adversary,
                      const std::string& unit,
                      double delta)
{
    PrivacyStatement s;
    s.unit = unit;
    s.neighbouring = "replace it with any other data (same sizes)";
    s.proof = "doc/fl-privacy.rst, section \"GFL and GHP over iterations: the drift bound and the "
              "adversaries\"";
    switch (adversary)
    {
    case GraphAdversary::OneLink:
        s.adversary = "an eavesdropper on one link (sees the copy sent on it in every "
                      "iteration), the worst link";
        break;
    case GraphAdversary::AllLinks:
        s.adversary = kind == NodeNoiseKind::IidPerLink
                          ? "an eavesdropper on every outgoing link of one node (sees its d "
                            "differently noised copies: d releases per iteration), the worst node"
                          : "an eavesdropper on every outgoing link of one node (every copy "
                            "carries the same draw: one release per iteration), the worst node";
        break;
    case GraphAdversary::Neighbour:
        s.adversary = "a neighbouring node, honest but curious (sees every message it receives: "
                      "the target's and, from the second iteration, its other neighbours', which "
                      "carry the target's influence), the worst node";
        break;
    }
    if (kind == NodeNoiseKind::GraphHomomorphic)
    {
        s.adversary += ", and graph-homomorphic noise cancels in the network average, so it "
                       "protects nothing against an observer of that average";
    }
    if (kind == NodeNoiseKind::None || mechanism == MechanismKind::None)
    {
        s.mechanism = "none (no noise: eps is infinite)";
        s.sensitivity = "n/a";
        s.composition = "n/a";
        return s;
    }
    const bool laplace = mechanism == MechanismKind::Laplace;
    s.mechanism = std::string(laplace ? "laplace" : "gaussian") + " (" +
                  NodeNoiseKindName(kind) + " noise, i.i.d. entries)";
    const std::string drift = "e_k(n) for the release of node k at iteration n, e(1) = 2 mu G, "
                              "e(n) = B e(n-1) + 2 mu G (gradients clipped to l2 norm G, B: "
                              "the combination weights of what the adversary does not observe)";
    s.sensitivity =
        laplace ? "l1 <= sqrt(M) " + drift + ", the l1 bound by Cauchy-Schwarz" : "l2 <= " + drift;
    std::ostringstream c;
    if (laplace)
    {
        c << "basic (sum of per-release eps) over iterations and observed releases";
    }
    else
    {
        c << "renyi dp over iterations and observed releases (adaptive, given every draw the "
             "adversary does not observe), to (eps, delta) at delta = "
          << delta;
    }
    c << ", valid when every message arrives or a missing one is replaced by the last received "
         "(ReuseLast)";
    s.composition = c.str();
    return s;
}

double
ClientUploadSensitivity(bool updates, double mu, double gradientBound)
{
    CheckMuG(mu, gradientBound);
    return updates ? 2.0 * gradientBound : 2.0 * mu * gradientBound;
}

std::vector<std::size_t>
NeighbourCounts(const Eigen::MatrixXd& A)
{
    std::vector<std::size_t> counts(static_cast<std::size_t>(A.rows()), 0);
    for (Eigen::Index k = 0; k < A.rows(); ++k)
    {
        for (Eigen::Index l = 0; l < A.cols(); ++l)
        {
            if (l != k && (A(l, k) > 0.0 || (k < A.cols() && l < A.rows() && A(k, l) > 0.0)))
            {
                ++counts[static_cast<std::size_t>(k)];
            }
        }
    }
    return counts;
}

GraphPrivacyAccountant::GraphPrivacyAccountant(NodeNoiseKind noise,
                                               MechanismKind kind,
                                               double scale,
                                               double mu,
                                               double gradientBound,
                                               std::size_t dim,
                                               const Eigen::MatrixXd& combination,
                                               double delta)
    : m_kind(kind),
      m_scale(scale),
      m_mu(mu),
      m_gradientBound(gradientBound),
      m_dim(dim),
      m_delta(delta)
{
    CheckMuG(mu, gradientBound);
    if (kind != MechanismKind::None)
    {
        ValidateMechanism(MechanismSpec{kind, 0.0, scale});
    }
    Require(delta > 0.0 && delta < 1.0, "delta", delta, "use a delta in (0, 1), e.g. 1e-5");
    m_noPrivacy =
        noise == NodeNoiseKind::None || kind == MechanismKind::None || !(gradientBound > 0.0);
    for (GraphAdversary adversary :
         {GraphAdversary::OneLink, GraphAdversary::AllLinks, GraphAdversary::Neighbour})
    {
        for (GraphPlacement& p : GraphAdversaryPlacements(combination, noise, adversary))
        {
            m_tracks.push_back(Track{std::move(p), Eigen::VectorXd(), 0.0});
        }
    }
}

void
GraphPrivacyAccountant::RecordIteration()
{
    ++m_iterations;
    if (m_noPrivacy)
    {
        return;
    }
    const double twoMuG = 2.0 * m_mu * m_gradientBound;
    const double l1Factor = std::sqrt(static_cast<double>(m_dim)); // ||v||_1 <= sqrt(M) ||v||_2
    for (Track& t : m_tracks)
    {
        GraphDriftStep(t.placement, twoMuG, m_iterations, t.drift);
        auto add = [&](double l2, double copies) {
            t.sum += m_kind == MechanismKind::Laplace ? copies * l1Factor * l2 : copies * l2 * l2;
        };
        if (m_iterations == 1)
        {
            // only the target's own release depends on its data: 2 mu G, on each copy the
            // adversary sees of it
            const uint32_t copies = t.placement.adversary == GraphAdversary::Neighbour
                                        ? 1U
                                        : t.placement.releases.front().second;
            add(twoMuG, copies);
            continue;
        }
        for (const auto& [sender, copies] : t.placement.releases)
        {
            add(t.drift[sender], copies);
        }
    }
}

double
GraphPrivacyAccountant::Epsilon(GraphAdversary adversary) const
{
    if (m_iterations == 0)
    {
        return 0.0;
    }
    if (m_noPrivacy)
    {
        return std::numeric_limits<double>::infinity();
    }
    double worst = -1.0;
    for (const Track& t : m_tracks)
    {
        if (t.placement.adversary == adversary)
        {
            worst = std::max(worst, t.sum);
        }
    }
    if (worst < 0.0)
    {
        return 0.0; // no placement: a graph without edges releases nothing
    }
    if (!std::isfinite(worst))
    {
        return std::numeric_limits<double>::infinity();
    }
    return EpsilonOfSum(m_kind, m_scale, m_delta, worst);
}

LiveGraphPrivacyAccountant::LiveGraphPrivacyAccountant(NodeNoiseKind noise,
                                                       MechanismKind kind,
                                                       double scale,
                                                       double mu,
                                                       double gradientBound,
                                                       std::size_t dim,
                                                       std::size_t nodes,
                                                       double delta)
    : m_noise(noise),
      m_kind(kind),
      m_scale(scale),
      m_mu(mu),
      m_gradientBound(gradientBound),
      m_dim(dim),
      m_nodes(nodes),
      m_delta(delta)
{
    CheckMuG(mu, gradientBound);
    if (kind != MechanismKind::None)
    {
        ValidateMechanism(MechanismSpec{kind, 0.0, scale});
    }
    Require(delta > 0.0 && delta < 1.0, "delta", delta, "use a delta in (0, 1), e.g. 1e-5");
    if (nodes == 0)
    {
        throw ConfigError("nodes", "is 0", "give the graph's number of nodes N >= 1");
    }
    m_noPrivacy =
        noise == NodeNoiseKind::None || kind == MechanismKind::None || !(gradientBound > 0.0);
}

void
LiveGraphPrivacyAccountant::RecordIteration(const Eigen::MatrixXd& A)
{
    const auto n = static_cast<Eigen::Index>(m_nodes);
    if (A.rows() != n || A.cols() != n || !A.allFinite() || (A.array() < 0.0).any())
    {
        throw ConfigError("combination",
                          "of iteration " + std::to_string(m_iterations + 1) + " is not an " +
                              std::to_string(n) + " x " + std::to_string(n) +
                              " matrix of finite weights >= 0",
                          "give the weights the N nodes gave in that iteration");
    }
    ++m_iterations;
    if (m_noPrivacy)
    {
        return;
    }
    const double twoMuG = 2.0 * m_mu * m_gradientBound;
    const double l1Factor = std::sqrt(static_cast<double>(m_dim));
    // B of a position that observes nothing in this iteration: every term moves
    GraphPlacement none;
    none.drift.resize(m_nodes);
    for (Eigen::Index k = 0; k < n; ++k)
    {
        for (Eigen::Index l = 0; l < n; ++l)
        {
            if (A(l, k) > 0.0)
            {
                none.drift[static_cast<std::size_t>(k)].emplace_back(static_cast<uint32_t>(l),
                                                                     A(l, k));
            }
        }
    }
    for (GraphAdversary adversary :
         {GraphAdversary::OneLink, GraphAdversary::AllLinks, GraphAdversary::Neighbour})
    {
        std::map<uint64_t, GraphPlacement> observed;
        for (auto& [position, p] : GraphAdversaryPlacementsByPosition(A, m_noise, adversary))
        {
            observed.emplace(position, std::move(p));
        }
        const uint64_t positions = adversary == GraphAdversary::OneLink
                                       ? static_cast<uint64_t>(m_nodes) * m_nodes
                                       : static_cast<uint64_t>(m_nodes);
        for (uint64_t position = 0; position < positions; ++position)
        {
            if (adversary == GraphAdversary::OneLink && position / m_nodes == position % m_nodes)
            {
                continue; // no link from a node to itself
            }
            Track& t = m_tracks[{static_cast<uint8_t>(adversary), position}];
            auto found = observed.find(position);
            const GraphPlacement* seen = found == observed.end() ? nullptr : &found->second;
            auto add = [&](double l2, double copies) {
                t.sum +=
                    m_kind == MechanismKind::Laplace ? copies * l1Factor * l2 : copies * l2 * l2;
            };
            if (m_iterations == 1)
            {
                t.drift = Eigen::VectorXd::Constant(n, twoMuG); // e(1) = 2 mu G 1
                if (seen != nullptr)
                {
                    // only the target's own release depends on its data (as the fixed graph)
                    add(twoMuG,
                        adversary == GraphAdversary::Neighbour ? 1U
                                                               : seen->releases.front().second);
                }
                continue;
            }
            Eigen::VectorXd previous = t.drift;
            GraphDriftStep(seen != nullptr ? *seen : none, twoMuG, m_iterations, t.drift);
            t.drift = t.drift.cwiseMax(previous); // non-decreasing: covers reused messages
            if (seen != nullptr)
            {
                for (const auto& [sender, copies] : seen->releases)
                {
                    add(t.drift[sender], copies);
                }
            }
        }
    }
}

double
LiveGraphPrivacyAccountant::Epsilon(GraphAdversary adversary) const
{
    if (m_iterations == 0)
    {
        return 0.0;
    }
    if (m_noPrivacy)
    {
        return std::numeric_limits<double>::infinity();
    }
    double worst = 0.0;
    for (const auto& [key, t] : m_tracks)
    {
        if (key.first == static_cast<uint8_t>(adversary))
        {
            worst = std::max(worst, t.sum);
        }
    }
    if (!std::isfinite(worst))
    {
        return std::numeric_limits<double>::infinity();
    }
    return worst > 0.0 ? EpsilonOfSum(m_kind, m_scale, m_delta, worst) : 0.0;
}

} // namespace fl
} // namespace ns3
