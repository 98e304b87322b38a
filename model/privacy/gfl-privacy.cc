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

double
DriftingSensitivity(MechanismKind kind,
                    double mu,
                    double gradientBound,
                    uint64_t iteration,
                    std::size_t dim)
{
    CheckMuG(mu, gradientBound);
    const double l2 = 2.0 * mu * gradientBound * static_cast<double>(iteration); // Delta(n)
    switch (kind)
    {
    case MechanismKind::Laplace:
        return std::sqrt(static_cast<double>(dim)) * l2; // ||v||_1 <= sqrt(M) ||v||_2
    case MechanismKind::Gaussian:
        return l2;
    case MechanismKind::None:
        break;
    }
    return 0.0;
}

const char*
GraphAdversaryName(GraphAdversary adversary)
{
    return adversary == GraphAdversary::OneNeighbour ? "one-neighbour" : "all-links";
}

uint32_t
CopiesSeen(NodeNoiseKind kind, GraphAdversary adversary, std::size_t neighbours)
{
    if (kind == NodeNoiseKind::IidPerLink && adversary == GraphAdversary::AllLinks)
    {
        return static_cast<uint32_t>(std::max<std::size_t>(1, neighbours));
    }
    return 1;
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
    if (kind == NodeNoiseKind::None || mechanism == MechanismKind::None)
    {
        s.mechanism = "none (no noise: eps is infinite)";
        s.sensitivity = "n/a";
        s.adversary = adversary == GraphAdversary::OneNeighbour
                          ? "one neighbour"
                          : "all neighbours, or an eavesdropper on every link";
        s.composition = "n/a";
        return s;
    }
    const bool laplace = mechanism == MechanismKind::Laplace;
    s.mechanism = std::string(laplace ? "laplace" : "gaussian") + " (" +
                  NodeNoiseKindName(kind) + " noise, i.i.d. entries)";
    s.sensitivity = laplace ? "l1 <= sqrt(M) 2 mu G n at iteration n (gradients clipped to l2 "
                              "norm G, the l1 bound by Cauchy-Schwarz)"
                            : "l2 <= 2 mu G n at iteration n (gradients clipped to l2 norm G)";
    if (adversary == GraphAdversary::OneNeighbour)
    {
        s.adversary = "one neighbour (sees the copy addressed to it)";
    }
    else if (kind == NodeNoiseKind::IidPerLink)
    {
        s.adversary = "all neighbours or an eavesdropper on every link of the worst node "
                      "(sees its d differently noised copies: d releases per iteration)";
    }
    else
    {
        s.adversary = "all neighbours or an eavesdropper on every link (every copy carries the "
                      "same noise: one release per iteration)";
        if (kind == NodeNoiseKind::GraphHomomorphic)
        {
            s.adversary += ", and graph-homomorphic noise cancels in the network average, so it "
                           "protects nothing against an observer of that average";
        }
    }
    std::ostringstream c;
    if (laplace)
    {
        c << "basic (sum of per-release eps) over iterations and copies";
    }
    else
    {
        c << "renyi dp over iterations and copies, to (eps, delta) at delta = " << delta;
    }
    s.composition = c.str();
    return s;
}

double
ClientUploadSensitivity(bool updates, double mu, double gradientBound)
{
    CheckMuG(mu, gradientBound);
    return updates ? 2.0 * gradientBound : 2.0 * mu * gradientBound;
}

DriftingSensitivityAccountant::DriftingSensitivityAccountant(MechanismKind kind,
                                                             double scale,
                                                             double mu,
                                                             double gradientBound,
                                                             std::size_t dim,
                                                             uint32_t copies,
                                                             double delta)
    : m_kind(kind),
      m_scale(scale),
      m_mu(mu),
      m_gradientBound(gradientBound),
      m_dim(dim),
      m_copies(copies),
      m_delta(delta)
{
    CheckMuG(mu, gradientBound);
    if (kind != MechanismKind::None)
    {
        ValidateMechanism(MechanismSpec{kind, 0.0, scale});
    }
    Require(copies >= 1, "copies", copies, "count at least one release per iteration");
    Require(delta > 0.0 && delta < 1.0, "delta", delta, "use a delta in (0, 1), e.g. 1e-5");
}

void
DriftingSensitivityAccountant::RecordIteration()
{
    ++m_iterations;
    if (m_kind == MechanismKind::None || m_gradientBound <= 0.0)
    {
        return;
    }
    m_accountant.Add(
        MechanismSpec{m_kind,
                      DriftingSensitivity(m_kind, m_mu, m_gradientBound, m_iterations, m_dim),
                      m_scale},
        m_copies);
}

double
DriftingSensitivityAccountant::Epsilon() const
{
    if (m_iterations == 0)
    {
        return 0.0;
    }
    if (m_kind == MechanismKind::None || m_gradientBound <= 0.0)
    {
        return std::numeric_limits<double>::infinity();
    }
    return m_accountant.Epsilon(m_delta,
                                m_kind == MechanismKind::Laplace ? Composition::Basic
                                                                 : Composition::Rdp);
}

double
LocalTrainingSensitivity(const LocalTrainerConfig& trainer, std::size_t steps)
{
    trainer.Validate();
    Require(steps >= 1, "steps", 0.0, "count the local steps the client ran (>= 1)");
    const double eta = trainer.stepRule == StepRule::DividedBySteps
                           ? trainer.learningRate / static_cast<double>(steps)
                           : trainer.learningRate;
    if (trainer.clipNorm <= 0.0 || eta * trainer.proxMu > 2.0)
    {
        return std::numeric_limits<double>::infinity();
    }
    return 2.0 * trainer.clipNorm * eta * static_cast<double>(steps);
}

PrivacyStatement
UplinkStatement(MechanismKind mechanism, double delta)
{
    PrivacyStatement s;
    const bool laplace = mechanism == MechanismKind::Laplace;
    s.mechanism = mechanism == MechanismKind::None
                      ? "none (no noise: eps is infinite)"
                      : std::string(laplace ? "laplace" : "gaussian") +
                            " noise, i.i.d. entries, on the uploaded model";
    s.sensitivity = std::string(laplace ? "l1 <= sqrt(M) " : "l2 <= ") +
                    "2 G sum_e eta_e (E local steps, gradients clipped to l2 norm G, from the "
                    "broadcast model)";
    s.unit = "the data set of one client";
    s.neighbouring = "replace it with any other data set of the same size";
    s.adversary = "the server (honest but curious) or an eavesdropper on the client's uplink";
    std::ostringstream c;
    if (laplace)
    {
        c << "basic (sum of per-upload eps) over the rounds the client uploaded in";
    }
    else
    {
        c << "renyi dp over the rounds the client uploaded in, to (eps, delta) at delta = "
          << delta;
    }
    s.composition = c.str();
    return s;
}

void
UplinkPrivacyAccountant::RecordUpload(const MechanismSpec& noise,
                                      const LocalTrainerConfig& trainer,
                                      std::size_t steps,
                                      std::size_t dim)
{
    ++m_uploads;
    const double l2 = LocalTrainingSensitivity(trainer, steps);
    if (noise.kind == MechanismKind::None || !std::isfinite(l2))
    {
        m_infinite = true;
        return;
    }
    m_gaussian = m_gaussian || noise.kind == MechanismKind::Gaussian;
    const double sensitivity =
        noise.kind == MechanismKind::Laplace ? std::sqrt(static_cast<double>(dim)) * l2 : l2;
    m_accountant.Add(MechanismSpec{noise.kind, sensitivity, noise.scale});
}

double
UplinkPrivacyAccountant::Epsilon(double delta) const
{
    if (m_uploads == 0)
    {
        return 0.0;
    }
    if (m_infinite)
    {
        return std::numeric_limits<double>::infinity();
    }
    return m_accountant.Epsilon(delta, m_gaussian ? Composition::Rdp : Composition::Basic);
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
                                               const std::vector<std::size_t>& neighbours,
                                               double delta)
    : m_one(kind, scale, mu, gradientBound, dim, 1, delta),
      m_all(kind,
            scale,
            mu,
            gradientBound,
            dim,
            CopiesSeen(noise,
                       GraphAdversary::AllLinks,
                       neighbours.empty()
                           ? 0
                           : *std::max_element(neighbours.begin(), neighbours.end())),
            delta)
{
}

void
GraphPrivacyAccountant::RecordIteration()
{
    m_one.RecordIteration();
    m_all.RecordIteration();
}

} // namespace fl
} // namespace ns3
