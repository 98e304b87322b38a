/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ns3/perturbation.h"

#include "ns3/fast-normal.h"

#include <cmath>
#include <random>
#include <sstream>

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

/// copy += factor * noise, rounded to the copy's precision.
void
AddScaledNoise(ParamVector& copy, const Eigen::VectorXd& noise, double factor)
{
    if (copy.GetPrecision() == Precision::Float64)
    {
        copy.Get<double>() += factor * noise;
    }
    else
    {
        copy.Get<float>() += (factor * noise).cast<float>();
    }
}

/// Throws ConfigError naming "dim" unless a draw of `size` entries exists.
void
CheckDraw(bool drawn, const Eigen::VectorXd& noise, std::size_t size, const std::string& what)
{
    if (!drawn || static_cast<std::size_t>(noise.size()) != size)
    {
        throw ConfigError(
            "dim",
            what + " was drawn for " +
                (drawn ? std::to_string(noise.size()) + " entries" : std::string("no iteration")) +
                " but the copy has " + std::to_string(size),
            "call BeginIteration(model size, rng) before perturbing copies");
    }
}

} // namespace

void
DrawLaplace(Eigen::VectorXd& noise, double b, Rng& rng)
{
    // |x| ~ Exp(mean b) with a fair random sign is Lap(0, b). Two statements fix the order in
    // which the engine is used.
    std::exponential_distribution<double> exponential(1.0);
    for (Eigen::Index i = 0; i < noise.size(); ++i)
    {
        const bool negative = (rng() & 1U) != 0;
        const double magnitude = b * exponential(rng);
        noise[i] = negative ? -magnitude : magnitude;
    }
}

void
DrawGaussian(Eigen::VectorXd& noise, double sigma, Rng& rng)
{
    // One 64-bit seed from the engine feeds a ziggurat generator (fast-normal.h): a few ns per
    // draw, reproducible from the engine's seed.
    FillNormal(noise, sigma, rng());
}

bool
Perturbation::SameForEveryReceiver() const
{
    return false;
}

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

bool
NoPerturbation::SameForEveryReceiver() const
{
    return true;
}

const char*
NoiseScopeName(NoiseScope scope)
{
    switch (scope)
    {
    case NoiseScope::PerSender:
        return "per-sender";
    case NoiseScope::Broadcast:
        return "broadcast";
    case NoiseScope::PerLink:
        break;
    }
    return "per-link";
}

IidNoisePerturbation::IidNoisePerturbation(NoiseScope scope, std::string distribution)
    : m_scope(scope),
      m_distribution(std::move(distribution))
{
}

void
IidNoisePerturbation::BeginIteration(std::size_t dim, Rng& rng)
{
    if (m_scope != NoiseScope::PerLink)
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
    CheckSenderNoise(copy.Size());
    AddNoise(copy, m_senderNoise);
}

void
IidNoisePerturbation::PerturbKept(ParamVector& own, Rng& /* rng */)
{
    if (m_scope != NoiseScope::Broadcast)
    {
        return;
    }
    CheckSenderNoise(own.Size());
    AddNoise(own, m_senderNoise);
}

void
IidNoisePerturbation::CheckSenderNoise(std::size_t size) const
{
    CheckDraw(m_drawn, m_senderNoise, size, std::string(NoiseScopeName(m_scope)) + " noise");
}

std::string
IidNoisePerturbation::Name() const
{
    return m_distribution + "-" + NoiseScopeName(m_scope);
}

bool
IidNoisePerturbation::SameForEveryReceiver() const
{
    return m_scope != NoiseScope::PerLink;
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
    DrawGaussian(noise, m_sigma, rng);
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
    DrawLaplace(noise, m_b, rng);
}

const char*
NoiseDistributionName(NoiseDistribution distribution)
{
    return distribution == NoiseDistribution::Gaussian ? "gaussian" : "laplace";
}

GraphHomomorphicPerturbation::GraphHomomorphicPerturbation(NoiseDistribution distribution,
                                                           double scale,
                                                           double selfWeight,
                                                           const std::string& weightName)
    : m_distribution(distribution),
      m_scale(scale),
      m_selfWeight(selfWeight)
{
    ValidateMechanism(MechanismSpec{distribution == NoiseDistribution::Gaussian
                                        ? MechanismKind::Gaussian
                                        : MechanismKind::Laplace,
                                    0.0,
                                    scale});
    if (!(selfWeight > 0.0 && selfWeight <= 1.0) || !std::isfinite(selfWeight))
    {
        std::ostringstream v;
        v.precision(17);
        v << selfWeight;
        throw ConfigError(weightName,
                          "is " + v.str() +
                              "; graph-homomorphic perturbations need a self-weight in (0, 1] "
                              "(the compensating self term is -((1 - a_ll) / a_ll) v_l, GHP eq. "
                              "20 / GFL eq. 47)",
                          "give every node a positive self-weight, e.g. Metropolis or lazy "
                          "Metropolis weights, or use independent noise instead");
    }
}

void
GraphHomomorphicPerturbation::BeginIteration(std::size_t dim, Rng& rng)
{
    m_noise.resize(static_cast<Eigen::Index>(dim));
    if (m_distribution == NoiseDistribution::Gaussian)
    {
        DrawGaussian(m_noise, m_scale, rng);
    }
    else
    {
        DrawLaplace(m_noise, m_scale, rng);
    }
    m_drawn = true;
}

void
GraphHomomorphicPerturbation::CheckDrawn(std::size_t size) const
{
    CheckDraw(m_drawn, m_noise, size, "graph-homomorphic noise");
}

void
GraphHomomorphicPerturbation::PerturbOutgoing(ParamVector& copy,
                                              uint32_t /* receiver */,
                                              Rng& /* rng */)
{
    CheckDrawn(copy.Size());
    AddNoise(copy, m_noise); // q_lk = v_l for every k != l
}

void
GraphHomomorphicPerturbation::PerturbKept(ParamVector& own, Rng& /* rng */)
{
    CheckDrawn(own.Size());
    AddScaledNoise(own, m_noise, -CompensationFactor()); // q_ll = -((1 - a_ll) / a_ll) v_l
}

MechanismSpec
GraphHomomorphicPerturbation::Mechanism(double sensitivity) const
{
    return MechanismSpec{m_distribution == NoiseDistribution::Gaussian ? MechanismKind::Gaussian
                                                                       : MechanismKind::Laplace,
                         sensitivity,
                         m_scale};
}

std::string
GraphHomomorphicPerturbation::Name() const
{
    return std::string("graph-homomorphic-") + NoiseDistributionName(m_distribution);
}

bool
GraphHomomorphicPerturbation::SameForEveryReceiver() const
{
    return true;
}

const char*
NodeNoiseKindName(NodeNoiseKind kind)
{
    switch (kind)
    {
    case NodeNoiseKind::IidPerLink:
        return "iid-per-link";
    case NodeNoiseKind::IidPerSender:
        return "iid-per-sender";
    case NodeNoiseKind::IidBroadcast:
        return "iid-broadcast";
    case NodeNoiseKind::GraphHomomorphic:
        return "graph-homomorphic";
    case NodeNoiseKind::None:
        break;
    }
    return "none";
}

NodeNoiseKind
ParseNodeNoiseKind(const std::string& name, const std::string& parameter)
{
    if (name == "none")
    {
        return NodeNoiseKind::None;
    }
    if (name == "iid-per-link")
    {
        return NodeNoiseKind::IidPerLink;
    }
    if (name == "iid-per-sender")
    {
        return NodeNoiseKind::IidPerSender;
    }
    if (name == "iid-broadcast" || name == "iid")
    {
        return NodeNoiseKind::IidBroadcast;
    }
    if (name == "graph-homomorphic" || name == "gh" || name == "homomorphic")
    {
        return NodeNoiseKind::GraphHomomorphic;
    }
    throw ConfigError(parameter,
                      "unknown noise kind '" + name + "'",
                      "use none, iid-per-link, iid-per-sender, iid-broadcast (iid) or "
                      "graph-homomorphic (gh)");
}

std::unique_ptr<Perturbation>
MakeNodePerturbation(const NodeNoiseConfig& config,
                     double selfWeight,
                     const std::string& weightName)
{
    auto iid = [&config](NoiseScope scope) -> std::unique_ptr<Perturbation> {
        if (config.distribution == NoiseDistribution::Gaussian)
        {
            return std::make_unique<GaussianPerturbation>(config.scale, scope);
        }
        return std::make_unique<LaplacePerturbation>(config.scale, scope);
    };
    switch (config.kind)
    {
    case NodeNoiseKind::IidPerLink:
        return iid(NoiseScope::PerLink);
    case NodeNoiseKind::IidPerSender:
        return iid(NoiseScope::PerSender);
    case NodeNoiseKind::IidBroadcast:
        return iid(NoiseScope::Broadcast);
    case NodeNoiseKind::GraphHomomorphic:
        return std::make_unique<GraphHomomorphicPerturbation>(config.distribution,
                                                              config.scale,
                                                              selfWeight,
                                                              weightName);
    case NodeNoiseKind::None:
        break;
    }
    return std::make_unique<NoPerturbation>();
}

} // namespace fl
} // namespace ns3
