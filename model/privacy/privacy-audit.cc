/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ns3/privacy-audit.h"

#include "ns3/fl-types.h"

#include <algorithm>
#include <boost/math/special_functions/beta.hpp>
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
CheckBinomial(uint64_t k, uint64_t n, double alpha)
{
    if (n == 0 || k > n)
    {
        throw ConfigError("k",
                          std::to_string(k) + " successes in " + std::to_string(n) + " trials",
                          "use 0 <= k <= n and n >= 1");
    }
    if (!(alpha > 0.0 && alpha < 1.0))
    {
        throw ConfigError("alpha", "is " + std::to_string(alpha), "use a level in (0, 1)");
    }
}

} // namespace

double
ClopperPearsonUpper(uint64_t k, uint64_t n, double alpha)
{
    CheckBinomial(k, n, alpha);
    if (k == n)
    {
        return 1.0;
    }
    // the 1 - alpha quantile of Beta(k + 1, n - k)
    return boost::math::ibeta_inv(static_cast<double>(k) + 1.0,
                                  static_cast<double>(n - k),
                                  1.0 - alpha);
}

double
ClopperPearsonLower(uint64_t k, uint64_t n, double alpha)
{
    CheckBinomial(k, n, alpha);
    if (k == 0)
    {
        return 0.0;
    }
    // the alpha quantile of Beta(k, n - k + 1)
    return boost::math::ibeta_inv(static_cast<double>(k), static_cast<double>(n - k) + 1.0, alpha);
}

double
EpsilonFromErrorRates(double fprUpper, double fnrUpper, double delta)
{
    if (!(fprUpper >= 0.0 && fprUpper <= 1.0) || !(fnrUpper >= 0.0 && fnrUpper <= 1.0))
    {
        throw ConfigError("rates",
                          "FPR " + std::to_string(fprUpper) + ", FNR " + std::to_string(fnrUpper),
                          "use error rates in [0, 1]");
    }
    if (!(delta >= 0.0 && delta < 1.0))
    {
        throw ConfigError("delta", "is " + std::to_string(delta), "use a delta in [0, 1)");
    }
    double eps = 0.0;
    // FPR + e^eps FNR >= 1 - delta  and  FNR + e^eps FPR >= 1 - delta
    auto term = [delta](double other, double rate) {
        const double num = 1.0 - delta - other;
        if (num <= 0.0)
        {
            return 0.0;
        }
        if (rate <= 0.0)
        {
            return std::numeric_limits<double>::infinity();
        }
        return std::log(num / rate);
    };
    eps = std::max(eps, term(fnrUpper, fprUpper));
    eps = std::max(eps, term(fprUpper, fnrUpper));
    return eps;
}

double
AuditableMaxEpsilon(uint64_t n0, uint64_t n1, double delta, double alpha)
{
    return EpsilonFromErrorRates(ClopperPearsonUpper(0, n0, alpha / 2.0),
                                 ClopperPearsonUpper(0, n1, alpha / 2.0),
                                 delta);
}

ThresholdAudit
EvaluateThreshold(double threshold,
                  const std::vector<double>& d0,
                  const std::vector<double>& d1,
                  double delta,
                  double alpha)
{
    if (d0.empty() || d1.empty())
    {
        throw ConfigError("scores", "an evaluation set is empty", "give trials under D0 and D1");
    }
    ThresholdAudit a;
    a.threshold = threshold;
    a.n0 = d0.size();
    a.n1 = d1.size();
    a.falsePositives = static_cast<uint64_t>(
        std::count_if(d0.begin(), d0.end(), [threshold](double s) { return s > threshold; }));
    a.falseNegatives = static_cast<uint64_t>(
        std::count_if(d1.begin(), d1.end(), [threshold](double s) { return !(s > threshold); }));
    a.fprUpper = ClopperPearsonUpper(a.falsePositives, a.n0, alpha / 2.0);
    a.fnrUpper = ClopperPearsonUpper(a.falseNegatives, a.n1, alpha / 2.0);
    a.epsilonLower = EpsilonFromErrorRates(a.fprUpper, a.fnrUpper, delta);
    a.auditableMax = AuditableMaxEpsilon(a.n0, a.n1, delta, alpha);
    return a;
}

namespace
{

/// Error counts 0, 1, ..., 16, then growing by 1/16 of themselves, up to n.
std::vector<std::size_t>
CountGrid(std::size_t n)
{
    std::vector<std::size_t> grid;
    for (std::size_t c = 0; c <= n;)
    {
        grid.push_back(c);
        c = c < 16 ? c + 1 : c + c / 16;
    }
    return grid;
}

} // namespace

double
SelectThreshold(const std::vector<double>& cal0,
                const std::vector<double>& cal1,
                double delta,
                double alpha)
{
    if (cal0.empty() || cal1.empty())
    {
        throw ConfigError("scores", "a calibration set is empty", "give trials under D0 and D1");
    }
    std::vector<double> s0 = cal0;
    std::vector<double> s1 = cal1;
    std::sort(s0.begin(), s0.end());
    std::sort(s1.begin(), s1.end());
    const std::size_t n0 = s0.size();
    const std::size_t n1 = s1.size();
    auto bound = [&](double t) {
        // FP = #{s0 > t}, FN = #{s1 <= t}
        const auto fp = static_cast<uint64_t>(s0.end() - std::upper_bound(s0.begin(), s0.end(), t));
        const auto fn =
            static_cast<uint64_t>(std::upper_bound(s1.begin(), s1.end(), t) - s1.begin());
        return EpsilonFromErrorRates(ClopperPearsonUpper(fp, n0, alpha / 2.0),
                                     ClopperPearsonUpper(fn, n1, alpha / 2.0),
                                     delta);
    };
    std::vector<double> candidates;
    for (std::size_t c : CountGrid(n0))
    {
        // c false positives: the threshold is the (c+1)-th largest D0 score
        candidates.push_back(c < n0 ? s0[n0 - 1 - c] : s0.front() - 1.0);
    }
    for (std::size_t c : CountGrid(n1))
    {
        // c false negatives: just below the (c+1)-th smallest D1 score, i.e. the c-th smallest
        candidates.push_back(
            c == 0 ? std::nextafter(s1.front(), -std::numeric_limits<double>::infinity())
                   : s1[std::min(c, n1) - 1]);
    }
    double best = candidates.front();
    double bestEps = -1.0;
    for (double t : candidates)
    {
        const double e = bound(t);
        if (e > bestEps)
        {
            bestEps = e;
            best = t;
        }
    }
    return best;
}

ThresholdAudit
AuditScores(const std::vector<double>& cal0,
            const std::vector<double>& cal1,
            const std::vector<double>& eval0,
            const std::vector<double>& eval1,
            double delta,
            double alpha)
{
    // The choice is scored at a stricter level than the bound, so that a lucky tail of the
    // calibration set (a few errors) does not win over a well-supported threshold; the choice
    // cannot bias the bound, which comes from the evaluation set alone.
    const double selection = std::min(alpha, kThresholdSelectionAlpha);
    return EvaluateThreshold(SelectThreshold(cal0, cal1, delta, selection),
                             eval0,
                             eval1,
                             delta,
                             alpha);
}

double
BonferroniAlpha(double alpha, std::size_t rows)
{
    if (!(alpha > 0.0 && alpha < 1.0) || rows == 0)
    {
        throw ConfigError("alpha",
                          "is " + std::to_string(alpha) + " over " + std::to_string(rows) + " rows",
                          "use a level in (0, 1) and at least one row");
    }
    return alpha / static_cast<double>(rows);
}

} // namespace fl
} // namespace ns3
