/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ns3/ota-fading.h"

#include <algorithm>
#include <cctype>
#include <cmath>

namespace ns3
{
namespace fl
{

namespace
{
constexpr double kTwoPi = 6.283185307179586476925286766559;
} // namespace

void
ValidateFading(const FadingSpec& spec)
{
    if (spec.kind == FadingKind::Rician && !(std::isfinite(spec.ricianK) && spec.ricianK >= 0.0))
    {
        throw ConfigError("RicianK",
                          "is " + std::to_string(spec.ricianK),
                          "use a finite K factor >= 0 (linear; 0 is Rayleigh)");
    }
    if (spec.kind == FadingKind::Nakagami &&
        !(std::isfinite(spec.nakagamiM) && spec.nakagamiM >= 0.5))
    {
        throw ConfigError("NakagamiM",
                          "is " + std::to_string(spec.nakagamiM),
                          "use a finite shape m >= 0.5 (m = 1 is Rayleigh)");
    }
}

std::string
FadingName(FadingKind kind)
{
    switch (kind)
    {
    case FadingKind::None:
        return "none";
    case FadingKind::Rayleigh:
        return "rayleigh";
    case FadingKind::Rician:
        return "rician";
    case FadingKind::Nakagami:
        return "nakagami";
    }
    return "unknown";
}

FadingKind
ParseFadingKind(const std::string& name, const std::string& parameter)
{
    std::string s = name;
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
    for (FadingKind k :
         {FadingKind::None, FadingKind::Rayleigh, FadingKind::Rician, FadingKind::Nakagami})
    {
        if (s == FadingName(k))
        {
            return k;
        }
    }
    throw ConfigError(parameter,
                      "unknown fading model '" + name + "'",
                      "use none, rayleigh, rician or nakagami");
}

Complex
RayleighCoefficient(double g1, double g2)
{
    return Complex(g1, g2) * std::sqrt(0.5);
}

Complex
RicianCoefficient(double k, double losPhase, double g1, double g2)
{
    const double los = std::sqrt(k / (k + 1.0));
    const double scatter = std::sqrt(1.0 / (k + 1.0));
    return std::polar(los, losPhase) + scatter * RayleighCoefficient(g1, g2);
}

Complex
NakagamiCoefficient(double powerGain, double phase)
{
    return std::polar(std::sqrt(powerGain), phase);
}

Complex
DrawFading(const FadingSpec& spec, Rng& rng, double losPhase)
{
    std::normal_distribution<double> normal(0.0, 1.0);
    switch (spec.kind)
    {
    case FadingKind::None:
        return Complex(1.0, 0.0);
    case FadingKind::Rayleigh: {
        const double g1 = normal(rng);
        const double g2 = normal(rng);
        return RayleighCoefficient(g1, g2);
    }
    case FadingKind::Rician: {
        const double g1 = normal(rng);
        const double g2 = normal(rng);
        return RicianCoefficient(spec.ricianK, losPhase, g1, g2);
    }
    case FadingKind::Nakagami: {
        std::gamma_distribution<double> gamma(spec.nakagamiM, 1.0 / spec.nakagamiM);
        std::uniform_real_distribution<double> uniform(0.0, kTwoPi);
        const double g = gamma(rng);
        const double phase = uniform(rng);
        return NakagamiCoefficient(g, phase);
    }
    }
    return Complex(1.0, 0.0);
}

double
DopplerFrequency(double speed, double carrierHz)
{
    if (!(speed >= 0.0) || !std::isfinite(speed))
    {
        throw ConfigError("speed", "must be finite and >= 0 m/s", "check the mobility model");
    }
    if (!(carrierHz >= 0.0) || !std::isfinite(carrierHz))
    {
        throw ConfigError("CarrierFrequency",
                          "must be finite and >= 0 Hz",
                          "pass e.g. CarrierFrequency=2.4e9");
    }
    return speed * carrierHz / kSpeedOfLight;
}

double
JakesCorrelation(double dopplerHz, double lag)
{
    if (!(dopplerHz >= 0.0) || !std::isfinite(dopplerHz) || !std::isfinite(lag))
    {
        throw ConfigError("dopplerHz", "must be finite and >= 0", "check the speed and carrier");
    }
    const double x = kTwoPi * dopplerHz * std::abs(lag);
    return x == 0.0 ? 1.0 : std::cyl_bessel_j(0.0, x);
}

Complex
GaussMarkovStep(Complex s, double rho, double g1, double g2)
{
    if (!(rho >= -1.0 && rho <= 1.0))
    {
        throw ConfigError("rho", "must be in [-1, 1]", "use a correlation coefficient");
    }
    if (rho == 1.0)
    {
        return s;
    }
    return rho * s + std::sqrt(1.0 - rho * rho) * RayleighCoefficient(g1, g2);
}

void
NormalPair(uint64_t seed, double& g1, double& g2)
{
    constexpr double kUnit = 1.0 / 9007199254740992.0;                              // 2^-53
    const double u1 = static_cast<double>((DeriveSeed(seed, 1) >> 11) + 1) * kUnit; // (0, 1]
    const double u2 = static_cast<double>(DeriveSeed(seed, 2) >> 11) * kUnit;       // [0, 1)
    const double r = std::sqrt(-2.0 * std::log(u1));
    g1 = r * std::cos(kTwoPi * u2);
    g2 = r * std::sin(kTwoPi * u2);
}

Complex
CorrelatedCoefficient(const FadingSpec& spec, double losPhase, Complex scattered)
{
    switch (spec.kind)
    {
    case FadingKind::None:
        return Complex(1.0, 0.0);
    case FadingKind::Rayleigh:
        return scattered;
    case FadingKind::Rician: {
        const double los = std::sqrt(spec.ricianK / (spec.ricianK + 1.0));
        const double scatter = std::sqrt(1.0 / (spec.ricianK + 1.0));
        return std::polar(los, losPhase) + scatter * scattered;
    }
    case FadingKind::Nakagami:
        break;
    }
    throw ConfigError("FadingModel",
                      "Nakagami fading correlated in time",
                      "use Rayleigh or Rician with Coherence Correlated (their scattered part is "
                      "Gaussian)");
}

double
FadingPowerVariance(const FadingSpec& spec)
{
    switch (spec.kind)
    {
    case FadingKind::None:
        return 0.0;
    case FadingKind::Rayleigh:
        return 1.0;
    case FadingKind::Rician:
        return (1.0 + 2.0 * spec.ricianK) / ((1.0 + spec.ricianK) * (1.0 + spec.ricianK));
    case FadingKind::Nakagami:
        return 1.0 / spec.nakagamiM;
    }
    return 0.0;
}

} // namespace fl
} // namespace ns3
