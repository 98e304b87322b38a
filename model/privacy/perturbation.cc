/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ns3/perturbation.h"

#include "ns3/fast-normal.h"

#include <random>

namespace ns3
{
namespace fl
{

namespace
{

/// copy += noise, rounded to the copy's precision.
void
AddNoise(ParamVector& copy, const Eigen::VectorXd& noise)
{
    if (copy.GetPrecision() == Precision::Float64)
    {
        copy.Get<double>() += noise;
    }
    else
    {
        copy.Get<float>() += noise.cast<float>();
    }
}

} // namespace

void
Perturbation::BeginIteration(std::size_t /* dim */, Rng& /* rng */)
{
}

void
Perturbation::PerturbKept(ParamVector& /* own */, Rng& /* rng */)
{
}

void
NoPerturbation::PerturbOutgoing(ParamVector& /* copy */, uint32_t /* receiver */, Rng& /* rng */)
{
}

MechanismSpec
NoPerturbation::Mechanism(double sensitivity) const
{
    return MechanismSpec{MechanismKind::None, sensitivity, 0.0};
}

std::string
NoPerturbation::Name() const
{
    return "none";
}

const char*
NoiseScopeName(NoiseScope scope)
{
    return scope == NoiseScope::PerSender ? "per-sender" : "per-link";
}

IidNoisePerturbation::IidNoisePerturbation(NoiseScope scope, std::string distribution)
    : m_scope(scope),
      m_distribution(std::move(distribution))
{
}

void
IidNoisePerturbation::BeginIteration(std::size_t dim, Rng& rng)
{
    if (m_scope == NoiseScope::PerSender)
    {
        m_senderNoise.resize(static_cast<Eigen::Index>(dim));
        Draw(m_senderNoise, rng);
        m_drawn = true;
    }
}

void
IidNoisePerturbation::PerturbOutgoing(ParamVector& copy, uint32_t /* receiver */, Rng& rng)
{
    if (m_scope == NoiseScope::PerLink)
    {
        Eigen::VectorXd noise(static_cast<Eigen::Index>(copy.Size()));
        Draw(noise, rng);
        AddNoise(copy, noise);
        return;
    }
    if (!m_drawn || static_cast<std::size_t>(m_senderNoise.size()) != copy.Size())
    {
        throw ConfigError("dim",
                          "per-sender noise was drawn for " +
                              (m_drawn ? std::to_string(m_senderNoise.size()) + " entries"
                                       : std::string("no iteration")) +
                              " but the copy has " + std::to_string(copy.Size()),
                          "call BeginIteration(model size, rng) before perturbing copies");
    }
    AddNoise(copy, m_senderNoise);
}

std::string
IidNoisePerturbation::Name() const
{
    return m_distribution + "-" + NoiseScopeName(m_scope);
}

GaussianPerturbation::GaussianPerturbation(double sigma, NoiseScope scope)
    : IidNoisePerturbation(scope, "gaussian"),
      m_sigma(sigma)
{
    ValidateMechanism(MechanismSpec{MechanismKind::Gaussian, 0.0, sigma});
}

MechanismSpec
GaussianPerturbation::Mechanism(double sensitivity) const
{
    return MechanismSpec{MechanismKind::Gaussian, sensitivity, m_sigma};
}

void
GaussianPerturbation::Draw(Eigen::VectorXd& noise, Rng& rng) const
{
    // One 64-bit seed from the engine feeds a ziggurat generator (fast-normal.h): a few ns per
    // draw, reproducible from the engine's seed.
    FillNormal(noise, m_sigma, rng());
}

LaplacePerturbation::LaplacePerturbation(double b, NoiseScope scope)
    : IidNoisePerturbation(scope, "laplace"),
      m_b(b)
{
    ValidateMechanism(MechanismSpec{MechanismKind::Laplace, 0.0, b});
}

MechanismSpec
LaplacePerturbation::Mechanism(double sensitivity) const
{
    return MechanismSpec{MechanismKind::Laplace, sensitivity, m_b};
}

void
LaplacePerturbation::Draw(Eigen::VectorXd& noise, Rng& rng) const
{
    // |x| ~ Exp(mean b) with a fair random sign is Lap(0, b). Two statements fix the order in
    // which the engine is used.
    std::exponential_distribution<double> exponential(1.0);
    for (Eigen::Index i = 0; i < noise.size(); ++i)
    {
        const bool negative = (rng() & 1U) != 0;
        const double magnitude = m_b * exponential(rng);
        noise[i] = negative ? -magnitude : magnitude;
    }
}

} // namespace fl
} // namespace ns3
