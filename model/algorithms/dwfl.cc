/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ns3/dwfl.h"

#include "ns3/local-trainer.h"
#include "ns3/ota-power-control.h"

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
RequireSameSize(const Eigen::Ref<const Vec<double>>& v,
                const Eigen::Ref<const Vec<double>>& ref,
                const std::string& name)
{
    if (v.size() != ref.size())
    {
        throw ConfigError(name,
                          "has " + std::to_string(v.size()) + " entries, expected " +
                              std::to_string(ref.size()),
                          "give every vector of a round the model dimension d");
    }
}

void
ValidateUpdate(std::size_t n, double c, double eta)
{
    if (n < 2)
    {
        throw ConfigError("N", "is " + std::to_string(n), "DWFL needs at least 2 workers");
    }
    if (!(c > 0.0 && std::isfinite(c)))
    {
        throw ConfigError("c", "is " + std::to_string(c), "use the positive alignment amplitude");
    }
    if (!(eta > 0.0 && std::isfinite(eta)))
    {
        throw ConfigError("eta",
                          "is " + std::to_string(eta),
                          "use an averaging rate 0 < eta < 2 (N-1)/N ((N-1)/N: exact averaging)");
    }
}

} // namespace

void
ValidateDwflChannels(const std::vector<double>& gainAbs, const std::vector<double>& powerW)
{
    if (gainAbs.size() < 2)
    {
        throw ConfigError("gainAbs",
                          "has " + std::to_string(gainAbs.size()) + " workers",
                          "DWFL needs at least 2 workers");
    }
    if (powerW.size() != gainAbs.size())
    {
        throw ConfigError("powerW",
                          "has " + std::to_string(powerW.size()) + " entries for " +
                              std::to_string(gainAbs.size()) + " workers",
                          "give one power budget per worker");
    }
    for (std::size_t k = 0; k < gainAbs.size(); ++k)
    {
        if (!(gainAbs[k] > 0.0 && std::isfinite(gainAbs[k])))
        {
            throw ConfigError("gainAbs",
                              "|h_" + std::to_string(k) + "| is " + std::to_string(gainAbs[k]),
                              "give every worker a positive, finite channel amplitude");
        }
        if (!(powerW[k] > 0.0 && std::isfinite(powerW[k])))
        {
            throw ConfigError("powerW",
                              "P_" + std::to_string(k) + " is " + std::to_string(powerW[k]),
                              "give every worker a positive, finite power budget in W");
        }
    }
}

double
DwflAlignmentAmplitude(const std::vector<double>& gainAbs,
                       const std::vector<double>& powerW,
                       double kappa)
{
    ValidateDwflChannels(gainAbs, powerW);
    AlignmentConfig cfg;
    cfg.kappa = kappa;
    ValidateAlignment(cfg);
    // c = kappa min_j |h_j| sqrt(P_j): eq. (4) for kappa = 1; every worker takes part.
    return AlignmentAmplitude(gainAbs, powerW, std::vector<bool>(gainAbs.size(), true), kappa);
}

std::vector<double>
DwflPowerFractions(const std::vector<double>& gainAbs, const std::vector<double>& powerW, double c)
{
    const double cMax = DwflAlignmentAmplitude(gainAbs, powerW, 1.0);
    if (!(c > 0.0 && c <= cMax))
    {
        throw ConfigError("c",
                          "is " + std::to_string(c) + ", the weakest worker reaches only " +
                              std::to_string(cMax),
                          "use 0 < c <= min_j |h_j| sqrt(P_j) (eq. 4), e.g. kappa times it");
    }
    std::vector<double> alpha(gainAbs.size());
    for (std::size_t k = 0; k < gainAbs.size(); ++k)
    {
        alpha[k] = PowerFraction(gainAbs[k], powerW[k], c); // alpha_k = c^2 / (|h_k|^2 P_k)
    }
    return alpha;
}

void
CheckDwflPowerBudget(const std::vector<double>& alpha, const std::vector<double>& beta)
{
    if (beta.size() != alpha.size())
    {
        throw ConfigError("beta",
                          "has " + std::to_string(beta.size()) + " entries for " +
                              std::to_string(alpha.size()) + " workers",
                          "give one noise power fraction per worker");
    }
    for (std::size_t k = 0; k < alpha.size(); ++k)
    {
        // (sqrt(alpha_k P_k))^2 + (sqrt(beta_k P_k))^2 <= P_k  <=>  alpha_k + beta_k <= 1
        if (!(beta[k] >= 0.0 && alpha[k] + beta[k] <= 1.0 + kDwflPowerSlack))
        {
            throw ConfigError("beta of worker " + std::to_string(k),
                              "is " + std::to_string(beta[k]) + " with alpha = " +
                                  std::to_string(alpha[k]) + ": alpha + beta must lie in [0, 1]",
                              "use 0 <= beta <= " + std::to_string(1.0 - alpha[k]) +
                                  " for this worker, or lower c (kappa) to free power");
        }
    }
}

double
DwflMaxKappaForBudget(const std::vector<double>& gainAbs,
                      const std::vector<double>& powerW,
                      const std::vector<double>& beta)
{
    ValidateDwflChannels(gainAbs, powerW);
    if (beta.size() != gainAbs.size())
    {
        throw ConfigError("beta",
                          "has " + std::to_string(beta.size()) + " entries for " +
                              std::to_string(gainAbs.size()) + " workers",
                          "give one noise power fraction per worker");
    }
    double minGain2 = std::numeric_limits<double>::infinity(); // min_j |h_j|^2 P_j
    double minRoom = std::numeric_limits<double>::infinity();  // min_k (1 - beta_k) |h_k|^2 P_k
    for (std::size_t k = 0; k < gainAbs.size(); ++k)
    {
        if (!(beta[k] >= 0.0 && beta[k] < 1.0))
        {
            throw ConfigError("beta",
                              "beta_" + std::to_string(k) + " is " + std::to_string(beta[k]) +
                                  ", leaving no power for the model",
                              "use noise fractions 0 <= beta_k < 1 (lower the noise or raise eps)");
        }
        const double g2 = gainAbs[k] * gainAbs[k] * powerW[k];
        minGain2 = std::min(minGain2, g2);
        minRoom = std::min(minRoom, (1.0 - beta[k]) * g2);
    }
    return std::min(1.0, std::sqrt(minRoom / minGain2));
}

double
DwflNoiseGain(double gainAbs, double powerW, double beta, double c)
{
    return gainAbs * std::sqrt(beta * powerW) / c; // a_k = |h_k| sqrt(beta_k P_k) / c
}

double
DwflLocalStep(Eigen::Ref<Vec<double>> x, Vec<double>& gradient, double gamma, double gMax)
{
    RequireSameSize(gradient, x, "gradient");
    if (!(gamma > 0.0 && std::isfinite(gamma)))
    {
        throw ConfigError("gamma", "is " + std::to_string(gamma), "use a step size gamma > 0");
    }
    if (!(gMax > 0.0 && std::isfinite(gMax)))
    {
        throw ConfigError(
            "gMax",
            "is " + std::to_string(gMax),
            "clip gradients to a finite norm g_max > 0 (the DP sensitivity needs it)");
    }
    ClipToNorm(gradient, gMax);
    x.noalias() -= gamma * gradient; // x_i^(t) = x_i^(t-1/2) - gamma g_i^(t)
    return gradient.norm();
}

void
DwflTransmitSignal(const Eigen::Ref<const Vec<double>>& x,
                   const Eigen::Ref<const Vec<double>>& noise,
                   double alpha,
                   double beta,
                   double powerW,
                   Eigen::Ref<Vec<double>> out)
{
    RequireSameSize(noise, x, "noise");
    RequireSameSize(out, x, "out");
    // sqrt(alpha_k P_k) x_k^(t) + sqrt(beta_k P_k) G_k^(t)
    out.noalias() = std::sqrt(alpha * powerW) * x + std::sqrt(beta * powerW) * noise;
}

void
DwflSuperpose(const std::vector<const Vec<double>*>& signals,
              const std::vector<double>& gainAbs,
              const std::vector<const Vec<double>*>& receiverNoise,
              std::vector<Vec<double>>& received)
{
    const std::size_t n = signals.size();
    if (n == 0 || gainAbs.size() != n || receiverNoise.size() != n)
    {
        throw ConfigError("signals",
                          std::to_string(n) + " signals, " + std::to_string(gainAbs.size()) +
                              " gains, " + std::to_string(receiverNoise.size()) +
                              " receiver noises",
                          "give one signal, one |h_k| and one receiver noise per worker");
    }
    const Vec<double>& first = *signals.front();
    Vec<double> total = Vec<double>::Zero(first.size());
    for (std::size_t k = 0; k < n; ++k)
    {
        RequireSameSize(*signals[k], first, "signal of worker " + std::to_string(k));
        RequireSameSize(*receiverNoise[k], first, "receiver noise of worker " + std::to_string(k));
        total.noalias() += gainAbs[k] * *signals[k]; // S = sum_k |h_k| s_k
    }
    received.resize(n);
    for (std::size_t i = 0; i < n; ++i)
    {
        received[i].resize(first.size());
        // v_i = S - |h_i| s_i + m_i = sum_{k != i} |h_k| s_k + m_i
        received[i].noalias() = total - gainAbs[i] * *signals[i] + *receiverNoise[i];
    }
}

double
DwflAveragingRate(double eta, std::size_t n)
{
    if (n < 2)
    {
        throw ConfigError("Eta", "N = " + std::to_string(n) + " workers", "use at least 2 workers");
    }
    if (!(eta >= 0.0) || !std::isfinite(eta))
    {
        throw ConfigError("Eta",
                          "is " + std::to_string(eta),
                          "use 0 for (N-1)/N or an averaging rate in (0, 2(N-1)/N)");
    }
    return eta > 0.0 ? eta : (static_cast<double>(n) - 1.0) / static_cast<double>(n);
}

void
DwflPracticalUpdate(Eigen::Ref<Vec<double>> x,
                    const Eigen::Ref<const Vec<double>>& received,
                    const Eigen::Ref<const Vec<double>>& ownNoise,
                    double a,
                    double c,
                    std::size_t n,
                    double eta)
{
    RequireSameSize(received, x, "received");
    RequireSameSize(ownNoise, x, "ownNoise");
    ValidateUpdate(n, c, eta);
    const double nMinus1 = static_cast<double>(n - 1);
    // x_i <- x_i + eta [ v_i / (c (N-1)) - x_i - a_i G_i ]
    x += eta * (received / (c * nMinus1) - x - a * ownNoise);
}

void
DwflOracleUpdate(Eigen::Ref<Vec<double>> x,
                 const Eigen::Ref<const Vec<double>>& received,
                 const Eigen::Ref<const Vec<double>>& ownNoise,
                 const Eigen::Ref<const Vec<double>>& receiverNoise,
                 double a,
                 double c,
                 std::size_t n,
                 double eta)
{
    RequireSameSize(receiverNoise, x, "receiverNoise");
    // Eq. (7) = the practical update minus (eta / c) c m_i / (c (N-1)), the m_i part of Phi_i.
    DwflPracticalUpdate(x, received, ownNoise, a, c, n, eta);
    x.noalias() -= (eta / (c * static_cast<double>(n - 1))) * receiverNoise;
}

} // namespace fl
} // namespace ns3
