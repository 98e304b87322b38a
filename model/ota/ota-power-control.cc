/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ns3/ota-power-control.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace ns3
{
namespace fl
{

std::size_t
AlignmentPlan::NumActive() const
{
    return static_cast<std::size_t>(std::count(active.begin(), active.end(), true));
}

void
ValidateAlignment(const AlignmentConfig& cfg)
{
    if (!(cfg.kappa > 0.0 && cfg.kappa <= 1.0))
    {
        throw ConfigError("kappa",
                          "is " + std::to_string(cfg.kappa),
                          "use 0 < kappa <= 1 (c = kappa min_j |h_j| sqrt(P_j); 1 is the paper's)");
    }
    if (!(std::isfinite(cfg.gainThreshold) && cfg.gainThreshold >= 0.0))
    {
        throw ConfigError("gainThreshold",
                          "is " + std::to_string(cfg.gainThreshold),
                          "use a finite channel power gain >= 0 (0: no truncation)");
    }
}

bool
AboveGainThreshold(double gainAbs, double gainThreshold)
{
    return gainAbs * gainAbs >= gainThreshold && gainAbs > 0.0;
}

double
AlignmentAmplitude(const std::vector<double>& gainAbs,
                   const std::vector<double>& powerW,
                   const std::vector<bool>& active,
                   double kappa)
{
    double best = std::numeric_limits<double>::infinity();
    for (std::size_t j = 0; j < gainAbs.size(); ++j)
    {
        if (active[j])
        {
            best = std::min(best, gainAbs[j] * std::sqrt(powerW[j]));
        }
    }
    return std::isfinite(best) ? kappa * best : 0.0;
}

double
PowerFraction(double gainAbs, double powerW, double c)
{
    return c * c / (gainAbs * gainAbs * powerW);
}

Complex
AlignmentPrecoder(Complex hEstimate, double powerW, double c)
{
    const double alpha = PowerFraction(std::abs(hEstimate), powerW, c);
    return std::sqrt(alpha * powerW) * std::polar(1.0, -std::arg(hEstimate));
}

AlignmentPlan
PlanAlignment(const std::vector<Complex>& hEstimate,
              const std::vector<double>& powerW,
              const AlignmentConfig& cfg)
{
    ValidateAlignment(cfg);
    if (hEstimate.size() != powerW.size())
    {
        throw ConfigError("powerW",
                          "has " + std::to_string(powerW.size()) + " entries for " +
                              std::to_string(hEstimate.size()) + " channel estimates",
                          "give one power budget per sender");
    }
    const std::size_t n = hEstimate.size();
    AlignmentPlan plan;
    plan.active.assign(n, false);
    plan.powerFraction.assign(n, 0.0);
    plan.precoder.assign(n, Complex(0.0, 0.0));
    std::vector<double> gainAbs(n);
    for (std::size_t k = 0; k < n; ++k)
    {
        if (!(powerW[k] > 0.0 && std::isfinite(powerW[k])))
        {
            throw ConfigError("powerW",
                              "entry " + std::to_string(k) + " is " + std::to_string(powerW[k]),
                              "give every sender a positive, finite power budget in W");
        }
        gainAbs[k] = std::abs(hEstimate[k]);
        plan.active[k] = AboveGainThreshold(gainAbs[k], cfg.gainThreshold);
    }
    plan.c = AlignmentAmplitude(gainAbs, powerW, plan.active, cfg.kappa);
    for (std::size_t k = 0; k < n; ++k)
    {
        if (plan.active[k])
        {
            plan.powerFraction[k] = PowerFraction(gainAbs[k], powerW[k], plan.c);
            plan.precoder[k] = AlignmentPrecoder(hEstimate[k], powerW[k], plan.c);
        }
    }
    return plan;
}

Complex
EstimateCsi(Complex h, double errorVariance, double g1, double g2)
{
    return h + std::sqrt(errorVariance / 2.0) * Complex(g1, g2);
}

Complex
EstimateCsi(Complex h, double errorVariance, Rng& rng)
{
    if (errorVariance <= 0.0)
    {
        return h;
    }
    std::normal_distribution<double> normal(0.0, 1.0);
    const double g1 = normal(rng);
    const double g2 = normal(rng);
    return EstimateCsi(h, errorVariance, g1, g2);
}

Complex
EffectiveCoefficient(Complex h, Complex precoder)
{
    return h * precoder;
}

} // namespace fl
} // namespace ns3
