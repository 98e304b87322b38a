/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ns3/async-fl.h"

#include "ns3/fl-types.h"

#include <cmath>
#include <string>

namespace ns3
{
namespace fl
{

StalenessFunction
ParseStalenessFunction(const std::string& text, const std::string& parameter)
{
    if (text == "constant")
    {
        return StalenessFunction::Constant;
    }
    if (text == "polynomial")
    {
        return StalenessFunction::Polynomial;
    }
    if (text == "hinge")
    {
        return StalenessFunction::Hinge;
    }
    throw ConfigError(parameter,
                      "\"" + text + "\" is not a staleness function",
                      "use constant, polynomial or hinge");
}

const char*
StalenessFunctionName(StalenessFunction f)
{
    switch (f)
    {
    case StalenessFunction::Constant:
        return "constant";
    case StalenessFunction::Polynomial:
        return "polynomial";
    case StalenessFunction::Hinge:
        return "hinge";
    }
    return "unknown";
}

double
AsyncStalenessWeight(StalenessFunction f, uint32_t tau, double a, double b)
{
    if (!(a >= 0.0) || !std::isfinite(a))
    {
        throw ConfigError("StalenessA",
                          "a = " + std::to_string(a) + " is negative or not finite",
                          "use e.g. 0.5 (polynomial) or 10 (hinge)");
    }
    if (!(b >= 0.0) || !std::isfinite(b))
    {
        throw ConfigError("StalenessB",
                          "b = " + std::to_string(b) + " is negative or not finite",
                          "use e.g. 4");
    }
    const double t = static_cast<double>(tau);
    switch (f)
    {
    case StalenessFunction::Constant:
        return 1.0;
    case StalenessFunction::Polynomial:
        return std::pow(1.0 + t, -a);
    case StalenessFunction::Hinge:
        return t <= b ? 1.0 : 1.0 / (a * (t - b) + 1.0);
    }
    return 1.0;
}

namespace
{
void
CheckSameShape(const ParamVector& x, const ParamVector& y, const char* what)
{
    if (x.Size() != y.Size() || x.GetPrecision() != y.GetPrecision())
    {
        throw ConfigError(what,
                          "has " + std::to_string(y.Size()) + " parameters (or another precision), "
                              "the global model " + std::to_string(x.Size()),
                          "send models of the global model's architecture and precision");
    }
}

template <typename S>
void
Mix(Vec<S>& g, const Vec<S>& x, double alphaT)
{
    const S a = static_cast<S>(alphaT);
    const S keep = static_cast<S>(1.0 - alphaT);
    g = keep * g + a * x;
}

template <typename S>
void
Accumulate(Vec<S>& buf, const Vec<S>& x, const Vec<S>& base, double weight)
{
    buf.noalias() += static_cast<S>(weight) * (x - base);
}

template <typename S>
void
Apply(Vec<S>& g, const Vec<S>& buf, double scale)
{
    g.noalias() += static_cast<S>(scale) * buf;
}
} // namespace

void
FedAsyncMix(ParamVector& global, const ParamVector& local, double alphaT)
{
    if (!(alphaT > 0.0 && alphaT <= 1.0))
    {
        throw ConfigError("Alpha",
                          "the mixing weight alpha_t = " + std::to_string(alphaT) +
                              " is outside (0, 1]",
                          "use an Alpha in (0, 1], e.g. 0.6");
    }
    CheckSameShape(global, local, "local");
    if (global.GetPrecision() == Precision::Float64)
    {
        Mix<double>(global.Get<double>(), local.Get<double>(), alphaT);
    }
    else
    {
        Mix<float>(global.Get<float>(), local.Get<float>(), alphaT);
    }
}

void
FedBuffAccumulate(ParamVector& buffer,
                  const ParamVector& local,
                  const ParamVector& base,
                  double weight)
{
    CheckSameShape(local, base, "base");
    if (buffer.Size() == 0)
    {
        buffer = ParamVector::Zeros(local.GetPrecision(), local.Size());
    }
    CheckSameShape(buffer, local, "local");
    if (buffer.GetPrecision() == Precision::Float64)
    {
        Accumulate<double>(buffer.Get<double>(),
                           local.Get<double>(),
                           base.Get<double>(),
                           weight);
    }
    else
    {
        Accumulate<float>(buffer.Get<float>(), local.Get<float>(), base.Get<float>(), weight);
    }
}

void
FedBuffApply(ParamVector& global, const ParamVector& buffer, uint32_t k, double etaG)
{
    if (k == 0)
    {
        throw ConfigError("BufferSize", "K = 0", "buffer at least one update, e.g. 10");
    }
    if (!(etaG > 0.0) || !std::isfinite(etaG))
    {
        throw ConfigError("ServerLearningRate",
                          "eta_g = " + std::to_string(etaG) + " is not positive",
                          "use e.g. 1");
    }
    CheckSameShape(global, buffer, "buffer");
    const double scale = etaG / static_cast<double>(k);
    if (global.GetPrecision() == Precision::Float64)
    {
        Apply<double>(global.Get<double>(), buffer.Get<double>(), scale);
    }
    else
    {
        Apply<float>(global.Get<float>(), buffer.Get<float>(), scale);
    }
}

ParamVector
FedBuffBufferFromSum(const Eigen::VectorXd& sum,
                     double totalWeight,
                     uint32_t count,
                     const ParamVector& base,
                     double s)
{
    if (count == 0)
    {
        throw ConfigError("count", "an empty buffer", "apply a buffer of at least one update");
    }
    if (!(totalWeight > 0.0) || !std::isfinite(totalWeight))
    {
        throw ConfigError("totalWeight",
                          std::to_string(totalWeight) + " is not positive",
                          "give the updates positive weights");
    }
    if (static_cast<std::size_t>(sum.size()) != base.Size())
    {
        throw ConfigError("sum",
                          "has " + std::to_string(sum.size()) + " values, the base model " +
                              std::to_string(base.Size()),
                          "sum models of the global model's architecture");
    }
    const Eigen::VectorXd b = base.ConvertedTo(Precision::Float64).Get<double>();
    // Delta-bar = s * count * (mean - base)
    const Eigen::VectorXd buffer = (s * static_cast<double>(count)) * (sum / totalWeight - b);
    return ParamVector(buffer).ConvertedTo(base.GetPrecision());
}

void
FedAsyncConfig::Validate() const
{
    if (!(alpha > 0.0 && alpha <= 1.0))
    {
        throw ConfigError("Alpha",
                          "alpha = " + std::to_string(alpha) + " is outside (0, 1]",
                          "use e.g. 0.6");
    }
    AsyncStalenessWeight(function, 0, a, b); // checks a and b
}

FedAsyncRule::FedAsyncRule(FedAsyncConfig config)
    : m_config(config)
{
    m_config.Validate();
}

bool
FedAsyncRule::Add(const ParamVector& local,
                  const ParamVector& /* base */,
                  uint32_t tau,
                  ParamVector& global,
                  double& weightOut)
{
    weightOut = m_config.alpha * AsyncStalenessWeight(m_config.function, tau, m_config.a, m_config.b);
    FedAsyncMix(global, local, weightOut);
    return true;
}

void
FedBuffConfig::Validate() const
{
    if (bufferSize == 0)
    {
        throw ConfigError("BufferSize", "K = 0", "buffer at least one update, e.g. 10");
    }
    if (!(serverLearningRate > 0.0) || !std::isfinite(serverLearningRate))
    {
        throw ConfigError("ServerLearningRate",
                          "eta_g = " + std::to_string(serverLearningRate) + " is not positive",
                          "use e.g. 1");
    }
    AsyncStalenessWeight(function, 0, a, b);
}

FedBuffRule::FedBuffRule(FedBuffConfig config)
    : m_config(config)
{
    m_config.Validate();
}

bool
FedBuffRule::Add(const ParamVector& local,
                 const ParamVector& base,
                 uint32_t tau,
                 ParamVector& global,
                 double& weightOut)
{
    weightOut = AsyncStalenessWeight(m_config.function, tau, m_config.a, m_config.b);
    FedBuffAccumulate(m_buffer, local, base, weightOut);
    if (++m_count < m_config.bufferSize)
    {
        return false;
    }
    FedBuffApply(global, m_buffer, m_count, m_config.serverLearningRate);
    m_buffer = ParamVector();
    m_count = 0;
    return true;
}

std::vector<ParamVector>
ReplayAsync(
    const ParamVector& initial,
    const std::vector<AsyncArrival>& arrivals,
    AsyncRule& rule,
    const std::function<ParamVector(uint32_t client, uint32_t version, const ParamVector& model)>&
        train)
{
    std::vector<ParamVector> versions{initial};
    ParamVector global = initial;
    for (const AsyncArrival& a : arrivals)
    {
        const uint32_t current = static_cast<uint32_t>(versions.size());
        if (a.trainedOn < 1 || a.trainedOn > current)
        {
            throw ConfigError("arrivals",
                              "client " + std::to_string(a.client) + " trained on version " +
                                  std::to_string(a.trainedOn) + ", but only versions 1.." +
                                  std::to_string(current) + " exist",
                              "give arrivals in the order the server received them");
        }
        const ParamVector& base = versions[a.trainedOn - 1];
        const ParamVector local = train(a.client, a.trainedOn, base);
        double weight = 0.0;
        if (rule.Add(local, base, current - a.trainedOn, global, weight))
        {
            versions.push_back(global);
        }
    }
    return versions;
}

} // namespace fl
} // namespace ns3
