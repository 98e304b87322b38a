/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ns3/gfl-privacy.h"

#include <cmath>
#include <limits>
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
GflEpsilonV000(double mu, double gradientBound, uint64_t iteration, double sigmaG)
{
    CheckMuG(mu, gradientBound);
    CheckPositive(sigmaG, "sigmaG", "use a positive noise standard deviation sigma_g");
    const auto i = static_cast<double>(iteration);
    return std::sqrt(2.0) * mu * gradientBound * i * (i + 1.0) / sigmaG;
}

double
GflSigmaV000(double mu, double gradientBound, uint64_t horizon, double epsilon)
{
    CheckMuG(mu, gradientBound);
    CheckPositive(epsilon, "epsilon", "use a positive privacy budget");
    const auto t = static_cast<double>(horizon);
    return std::sqrt(2.0) * mu * gradientBound * t * (t + 1.0) / epsilon;
}

double
GflSensitivityV003(double b, double bPrime, std::size_t servers, double optimumShift)
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
GflEpsilonV003(double sensitivityC, uint64_t iteration, double sigmaG)
{
    Require(sensitivityC >= 0.0 && std::isfinite(sensitivityC),
            "C",
            sensitivityC,
            "use GflSensitivityV003");
    CheckPositive(sigmaG, "sigmaG", "use a positive noise standard deviation sigma_g");
    return std::sqrt(2.0) * sensitivityC * (static_cast<double>(iteration) + 1.0) / sigmaG;
}

double
GflSigmaV003(double sensitivityC, uint64_t horizon, double epsilon)
{
    Require(sensitivityC >= 0.0 && std::isfinite(sensitivityC),
            "C",
            sensitivityC,
            "use GflSensitivityV003");
    CheckPositive(epsilon, "epsilon", "use a positive privacy budget");
    return std::sqrt(2.0) * sensitivityC * (static_cast<double>(horizon) + 1.0) / epsilon;
}

double
DriftingSensitivity(double mu,
                    double gradientBound,
                    uint64_t iteration,
                    std::size_t dim,
                    bool conservativeL1)
{
    CheckMuG(mu, gradientBound);
    const double l2 = 2.0 * mu * gradientBound * static_cast<double>(iteration); // Delta(n)
    return conservativeL1 ? l2 * std::sqrt(static_cast<double>(dim)) : l2;
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
                                                             bool conservativeL1,
                                                             double delta)
    : m_kind(kind),
      m_scale(scale),
      m_mu(mu),
      m_gradientBound(gradientBound),
      m_dim(dim),
      m_conservative(conservativeL1),
      m_delta(delta)
{
    CheckMuG(mu, gradientBound);
    if (kind != MechanismKind::None)
    {
        ValidateMechanism(MechanismSpec{kind, 0.0, scale});
    }
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
    m_accountant.Add(MechanismSpec{
        m_kind,
        DriftingSensitivity(m_mu, m_gradientBound, m_iterations, m_dim, m_conservative),
        m_scale});
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

} // namespace fl
} // namespace ns3
