/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Small statistics helpers shared by the OTA test suites.
 */
#ifndef FL_TEST_STATS_H
#define FL_TEST_STATS_H

#include "ns3/ota-signal.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <vector>

namespace fltest
{

/// Kolmogorov-Smirnov statistic of samples against a continuous CDF.
inline double
KsStatistic(std::vector<double> x, const std::function<double(double)>& cdf)
{
    std::sort(x.begin(), x.end());
    const double n = static_cast<double>(x.size());
    double d = 0.0;
    for (std::size_t i = 0; i < x.size(); ++i)
    {
        const double f = cdf(x[i]);
        d = std::max({d, f - static_cast<double>(i) / n, static_cast<double>(i + 1) / n - f});
    }
    return d;
}

/// Asymptotic KS critical value at significance 0.001.
inline double
KsCritical(std::size_t n)
{
    return 1.95 / std::sqrt(static_cast<double>(n));
}

/// Sample mean.
inline double
Mean(const std::vector<double>& v)
{
    double s = 0.0;
    for (double x : v)
    {
        s += x;
    }
    return s / static_cast<double>(v.size());
}

/// Sample standard deviation (n - 1 in the denominator).
inline double
SampleSd(const std::vector<double>& v)
{
    const double m = Mean(v);
    double s = 0.0;
    for (double x : v)
    {
        s += (x - m) * (x - m);
    }
    return std::sqrt(s / static_cast<double>(v.size() - 1));
}

/// Relative error ||a - b|| / ||b|| of two symbol vectors.
inline double
RelErr(const ns3::fl::SymbolVector& a, const ns3::fl::SymbolVector& b)
{
    return (a - b).norm() / std::max(1e-300, b.norm());
}

} // namespace fltest

#endif // FL_TEST_STATS_H
