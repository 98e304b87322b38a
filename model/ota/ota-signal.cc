/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ns3/ota-signal.h"

#include "ns3/fast-normal.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace ns3
{
namespace fl
{

std::size_t
SymbolCount(std::size_t d)
{
    return (d + 1) / 2;
}

SymbolVector
PackReal(const Eigen::VectorXd& x)
{
    const std::size_t d = static_cast<std::size_t>(x.size());
    SymbolVector s(static_cast<Eigen::Index>(SymbolCount(d)));
    auto real = RealView(s);
    real.head(x.size()) = x; // s_m = x_2m + j x_2m+1: the same memory layout
    real.tail(real.size() - x.size()).setZero(); // the Q part of the last symbol if d is odd
    return s;
}

Eigen::VectorXd
UnpackReal(const SymbolVector& s, std::size_t d)
{
    if (SymbolCount(d) > static_cast<std::size_t>(s.size()))
    {
        throw ConfigError("d",
                          std::to_string(d) + " real values need " +
                              std::to_string(SymbolCount(d)) + " symbols, got " +
                              std::to_string(s.size()),
                          "unpack at most 2 x (number of symbols) values");
    }
    return RealView(s).head(static_cast<Eigen::Index>(d));
}

double
MeanSymbolEnergy(const SymbolVector& s)
{
    return s.size() == 0 ? 0.0 : s.squaredNorm() / static_cast<double>(s.size());
}

void
Superpose(SymbolVector& acc, Complex a, const SymbolVector& s)
{
    if (s.size() > acc.size())
    {
        throw ConfigError("acc",
                          "accumulator of " + std::to_string(acc.size()) +
                              " symbols is shorter than a signal of " + std::to_string(s.size()),
                          "size the accumulator to the longest signal");
    }
    acc.head(s.size()) += a * s;
}

namespace
{
Eigen::Index
LongestSignal(const std::vector<const SymbolVector*>& s, const std::vector<Complex>& a)
{
    if (s.size() != a.size())
    {
        throw ConfigError("a",
                          "has " + std::to_string(a.size()) + " coefficients for " +
                              std::to_string(s.size()) + " signals",
                          "give one coefficient per signal");
    }
    Eigen::Index len = 0;
    for (const auto* p : s)
    {
        len = std::max(len, p->size());
    }
    return len;
}
} // namespace

void
SuperposeExcludingEach(const std::vector<const SymbolVector*>& s,
                       const std::vector<Complex>& a,
                       std::vector<SymbolVector>& out)
{
    const Eigen::Index len = LongestSignal(s, a);
    SymbolVector total = SymbolVector::Zero(len);
    for (std::size_t k = 0; k < s.size(); ++k)
    {
        Superpose(total, a[k], *s[k]);
    }
    out.resize(s.size());
    for (std::size_t i = 0; i < s.size(); ++i)
    {
        out[i].resize(len);
        if (s[i]->size() == len)
        {
            out[i].noalias() = total - a[i] * *s[i]; // one pass: S - a_i s_i
        }
        else
        {
            out[i] = total;
            Superpose(out[i], -a[i], *s[i]);
        }
    }
}

void
SuperposeExcludingEachNaive(const std::vector<const SymbolVector*>& s,
                            const std::vector<Complex>& a,
                            std::vector<SymbolVector>& out)
{
    const Eigen::Index len = LongestSignal(s, a);
    out.resize(s.size());
    for (std::size_t i = 0; i < s.size(); ++i)
    {
        out[i].setZero(len);
        for (std::size_t k = 0; k < s.size(); ++k)
        {
            if (k != i)
            {
                Superpose(out[i], a[k], *s[k]);
            }
        }
    }
}

void
AddComplexNoise(SymbolVector& y, double variance, Rng& rng)
{
    if (variance <= 0.0)
    {
        return;
    }
    // I and Q of every symbol in place (I of symbol m, then its Q), from one 64-bit seed of the
    // engine through the ziggurat generator (fast-normal.h).
    AddNormal(RealView(y), std::sqrt(variance / 2.0), rng());
}

double
ThermalNoisePower(double temperatureK, double noiseFigureDb, double bandwidthHz)
{
    return kBoltzmann * temperatureK * std::pow(10.0, noiseFigureDb / 10.0) * bandwidthHz;
}

double
DbmToW(double dbm)
{
    return std::pow(10.0, (dbm - 30.0) / 10.0);
}

double
WToDbm(double w)
{
    return 10.0 * std::log10(w) + 30.0;
}

double
AnalogAirtime(std::size_t symbols, double bandwidthHz, double preambleS)
{
    return preambleS + static_cast<double>(symbols) / bandwidthHz;
}

double
ScaledExpIntE1(double x)
{
    if (x <= 0.0)
    {
        return std::numeric_limits<double>::infinity();
    }
    constexpr double kEulerGamma = 0.57721566490153286060651209008240243;
    constexpr double kEps = 1e-17;
    if (x <= 1.0)
    {
        // E1(x) = -gamma - ln x - sum_{k>=1} (-x)^k / (k k!)
        double sum = 0.0;
        double term = 1.0; // (-x)^k / k!
        for (int k = 1; k < 200; ++k)
        {
            term *= -x / k;
            const double add = term / k;
            sum += add;
            if (std::abs(add) < kEps * std::abs(sum))
            {
                break;
            }
        }
        return std::exp(x) * (-kEulerGamma - std::log(x) - sum);
    }
    // e^x E1(x) as a continued fraction, evaluated with the modified Lentz method.
    const double tiny = 1e-300;
    double b = x + 1.0;
    double c = 1.0 / tiny;
    double d = 1.0 / b;
    double h = d;
    for (int i = 1; i < 1000; ++i)
    {
        const double an = -static_cast<double>(i) * i;
        b += 2.0;
        d = 1.0 / (an * d + b);
        c = b + an / c;
        const double del = c * d;
        h *= del;
        if (std::abs(del - 1.0) < 4e-16)
        {
            break;
        }
    }
    return h;
}

Eigen::VectorXd
AirCompDecodeAverage(const SymbolVector& y, std::size_t d, double c, std::size_t active)
{
    if (active == 0)
    {
        return Eigen::VectorXd::Zero(static_cast<Eigen::Index>(d));
    }
    if (!(c > 0.0))
    {
        throw ConfigError("c",
                          "is " + std::to_string(c) + " with " + std::to_string(active) +
                              " active senders",
                          "pass the positive common amplitude of the alignment (AlignmentPlan::c)");
    }
    // x_hat = y / (c a): every active sender arrived with amplitude c.
    return UnpackReal(y, d) / (c * static_cast<double>(active));
}

double
AirCompMseGivenChannel(std::size_t n,
                       std::size_t active,
                       double c,
                       double dataVariance,
                       double noiseVariance)
{
    if (active == 0)
    {
        return dataVariance / static_cast<double>(n);
    }
    const double a = static_cast<double>(active);
    return dataVariance * (1.0 / a - 1.0 / static_cast<double>(n)) +
           noiseVariance / (2.0 * c * c * a * a);
}

double
AirCompMseRayleighTruncated(std::size_t n,
                            double dataVariance,
                            double meanSnr,
                            double kappa,
                            double gainThreshold)
{
    if (n == 0)
    {
        throw ConfigError("n", "is 0", "use at least one sender");
    }
    if (gainThreshold <= 0.0)
    {
        return std::numeric_limits<double>::infinity();
    }
    const double nn = static_cast<double>(n);
    const double p = std::exp(-gainThreshold);
    const double logP = -gainThreshold;
    const double logQ = std::log1p(-p);
    double mse = std::exp(nn * logQ) * dataVariance / nn; // a = 0: estimate 0
    for (std::size_t ai = 1; ai <= n; ++ai)
    {
        const double a = static_cast<double>(ai);
        const double logPmf = std::lgamma(nn + 1.0) - std::lgamma(a + 1.0) -
                              std::lgamma(nn - a + 1.0) + a * logP + (nn - a) * logQ;
        const double noiseTerm =
            ScaledExpIntE1(a * gainThreshold) / (2.0 * kappa * kappa * meanSnr * a);
        mse += std::exp(logPmf) * (dataVariance * (1.0 / a - 1.0 / nn) + noiseTerm);
    }
    return mse;
}

} // namespace fl
} // namespace ns3
