/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ns3/ota-parameter-server.h"

#include <cmath>
#include <string>

namespace ns3
{
namespace fl
{

namespace
{

void
RequireSize(Eigen::Index size, Eigen::Index expected, const std::string& name)
{
    if (size != expected)
    {
        throw ConfigError(name,
                          "has " + std::to_string(size) + " entries, expected " +
                              std::to_string(expected),
                          "give every vector of a round the model dimension d");
    }
}

void
ValidateServer(std::size_t n, double c)
{
    if (n < 1)
    {
        throw ConfigError("N", "is 0", "the parameter server needs at least one worker");
    }
    if (!(c > 0.0 && std::isfinite(c)))
    {
        throw ConfigError("c", "is " + std::to_string(c), "use the positive alignment amplitude");
    }
}

void
ValidateGamma(double gamma)
{
    if (!(gamma > 0.0 && std::isfinite(gamma)))
    {
        throw ConfigError("gamma", "is " + std::to_string(gamma), "use a step size gamma > 0");
    }
}

} // namespace

void
GradientFromStep(const Eigen::Ref<const Vec<double>>& start,
                 const Eigen::Ref<const Vec<double>>& stepped,
                 double gamma,
                 Eigen::Ref<Vec<double>> out)
{
    RequireSize(stepped.size(), start.size(), "stepped");
    RequireSize(out.size(), start.size(), "out");
    ValidateGamma(gamma);
    out.noalias() = (start - stepped) / gamma; // w - (w - gamma g) = gamma g
}

void
OtaPsSuperpose(const std::vector<const Vec<double>*>& signals,
               const std::vector<double>& gainAbs,
               const Eigen::Ref<const Vec<double>>& receiverNoise,
               Vec<double>& out)
{
    if (signals.empty() || gainAbs.size() != signals.size())
    {
        throw ConfigError("signals",
                          std::to_string(signals.size()) + " signals and " +
                              std::to_string(gainAbs.size()) + " gains",
                          "give one signal and one |h_k| per worker");
    }
    out = receiverNoise; // y = m + sum_k |h_k| s_k
    for (std::size_t k = 0; k < signals.size(); ++k)
    {
        RequireSize(signals[k]->size(), out.size(), "signal of worker " + std::to_string(k));
        out.noalias() += gainAbs[k] * *signals[k];
    }
}

void
OtaPsAverageGradient(const Eigen::Ref<const Vec<double>>& received,
                     double c,
                     std::size_t n,
                     Eigen::Ref<Vec<double>> out)
{
    RequireSize(out.size(), received.size(), "out");
    ValidateServer(n, c);
    out.noalias() = received / (c * static_cast<double>(n)); // y / (c N)
}

void
OtaPsUpdate(Eigen::Ref<Vec<double>> w,
            const Eigen::Ref<const Vec<double>>& received,
            double c,
            std::size_t n,
            double gamma)
{
    RequireSize(received.size(), w.size(), "received");
    ValidateServer(n, c);
    ValidateGamma(gamma);
    w.noalias() -= (gamma / (c * static_cast<double>(n))) * received; // w - gamma y / (c N)
}

} // namespace fl
} // namespace ns3
