/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ns3/privacy-accountant.h"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace ns3
{
namespace fl
{

namespace
{

void
RequireNonNegative(double value, const std::string& parameter, const std::string& fix)
{
    if (!(std::isfinite(value) && value >= 0.0))
    {
        throw ConfigError(parameter, "must be finite and >= 0, got " + std::to_string(value), fix);
    }
}

void
RequirePositive(double value, const std::string& parameter, const std::string& fix)
{
    if (!(std::isfinite(value) && value > 0.0))
    {
        throw ConfigError(parameter, "must be finite and > 0, got " + std::to_string(value), fix);
    }
}

void
RequireDelta(double delta, const std::string& parameter)
{
    if (!(delta > 0.0 && delta < 1.0))
    {
        throw ConfigError(parameter,
                          "must lie in (0, 1), got " + std::to_string(delta),
                          "use a small positive delta such as 1e-5 or 1/(data set size)");
    }
}

void
RequireOrder(double alpha)
{
    if (!(std::isfinite(alpha) && alpha > 1.0))
    {
        throw ConfigError("alpha",
                          "an RDP order must be finite and > 1, got " + std::to_string(alpha),
                          "use orders such as DefaultRdpOrders()");
    }
}

const std::string kSensitivityFix =
    "pass the query's sensitivity, e.g. clipping norm times step size";
const std::string kSigmaFix = "use a positive noise standard deviation";
const std::string kBFix = "use a positive Laplace scale";

} // namespace

const char*
MechanismKindName(MechanismKind kind)
{
    switch (kind)
    {
    case MechanismKind::Gaussian:
        return "gaussian";
    case MechanismKind::Laplace:
        return "laplace";
    case MechanismKind::None:
        break;
    }
    return "none";
}

void
ValidateMechanism(const MechanismSpec& spec)
{
    RequireNonNegative(spec.sensitivity, "sensitivity", kSensitivityFix);
    if (spec.kind == MechanismKind::Gaussian)
    {
        RequirePositive(spec.scale, "sigma", kSigmaFix);
    }
    else if (spec.kind == MechanismKind::Laplace)
    {
        RequirePositive(spec.scale, "b", kBFix);
    }
}

const char*
CompositionName(Composition composition)
{
    switch (composition)
    {
    case Composition::Advanced:
        return "advanced";
    case Composition::Rdp:
        return "rdp";
    case Composition::Zcdp:
        return "zcdp";
    case Composition::Basic:
        break;
    }
    return "basic";
}

const char*
RdpConversionName(RdpConversion conversion)
{
    return conversion == RdpConversion::Mironov ? "mironov-2017" : "canonne-kamath-steinke-2020";
}

double
GaussianEpsilonClassic(double sensitivity, double sigma, double delta)
{
    RequireNonNegative(sensitivity, "sensitivity", kSensitivityFix);
    RequirePositive(sigma, "sigma", kSigmaFix);
    RequireDelta(delta, "delta");
    // eps = Delta_2 sqrt(2 ln(1.25/delta)) / sigma
    return sensitivity * std::sqrt(2.0 * std::log(1.25 / delta)) / sigma;
}

double
LaplaceEpsilon(double sensitivity, double b)
{
    RequireNonNegative(sensitivity, "sensitivity", kSensitivityFix);
    RequirePositive(b, "b", kBFix);
    // eps = Delta_1 / b
    return sensitivity / b;
}

double
AdvancedComposition(const std::vector<std::pair<double, uint64_t>>& steps, double deltaPrime)
{
    RequireDelta(deltaPrime, "deltaPrime");
    double sumSquares = 0.0; // sum_i eps_i^2
    double sumExcess = 0.0;  // sum_i eps_i (e^{eps_i} - 1)
    for (const auto& [eps, times] : steps)
    {
        if (!(eps >= 0.0))
        {
            throw ConfigError("epsilon",
                              "a per-step epsilon must be >= 0, got " + std::to_string(eps),
                              "pass the per-step epsilons of the composed mechanisms");
        }
        const auto k = static_cast<double>(times);
        sumSquares += k * eps * eps;
        sumExcess += k * eps * std::expm1(eps);
    }
    // eps = sqrt(2 ln(1/delta') sum_i eps_i^2) + sum_i eps_i (e^{eps_i} - 1)
    return std::sqrt(2.0 * std::log(1.0 / deltaPrime) * sumSquares) + sumExcess;
}

double
GaussianZcdpRho(double sensitivity, double sigma)
{
    RequireNonNegative(sensitivity, "sensitivity", kSensitivityFix);
    RequirePositive(sigma, "sigma", kSigmaFix);
    // rho = Delta_2^2 / (2 sigma^2)
    return sensitivity * sensitivity / (2.0 * sigma * sigma);
}

double
ZcdpToDp(double rho, double delta)
{
    RequireNonNegative(rho, "rho", "pass the composed zCDP parameter");
    RequireDelta(delta, "delta");
    // eps = rho + 2 sqrt(rho ln(1/delta))
    return rho + 2.0 * std::sqrt(rho * std::log(1.0 / delta));
}

double
GaussianRdp(double alpha, double sensitivity, double sigma)
{
    RequireOrder(alpha);
    // RDP(alpha) = alpha Delta_2^2 / (2 sigma^2) = alpha rho
    return alpha * GaussianZcdpRho(sensitivity, sigma);
}

namespace
{
/// e^y - 1 - y without cancellation: its Taylor series for |y| < 1/2, expm1(y) - y otherwise.
double
ExpMinusOneMinusX(double y)
{
    if (std::fabs(y) >= 0.5)
    {
        return std::expm1(y) - y;
    }
    double term = y * y / 2.0;
    double sum = 0.0;
    for (int k = 3; k < 40 && term != 0.0; ++k)
    {
        sum += term;
        if (std::fabs(term) < 1e-18 * std::fabs(sum))
        {
            break;
        }
        term *= y / k;
    }
    return sum;
}
} // namespace

double
LaplaceRdp(double alpha, double sensitivity, double b)
{
    RequireOrder(alpha);
    const double x = LaplaceEpsilon(sensitivity, b); // x = Delta_1 / b
    // 1/(alpha-1) ln(alpha/(2alpha-1) e^{(alpha-1)x} + (alpha-1)/(2alpha-1) e^{-alpha x})
    const double twoAlphaMinusOne = 2.0 * alpha - 1.0;
    if ((alpha - 1.0) * x <= 1.0)
    {
        // The closed form cancels for small shifts (x minus nearly x). With p = alpha/(2alpha-1),
        // q = (alpha-1)/(2alpha-1), a = (alpha-1)x and b = -alpha x, p + q = 1 and pa + qb = 0:
        // (alpha-1) RDP = ln(p e^a + q e^b) = ln(1 + p(e^a - 1 - a) + q(e^b - 1 - b)), whose
        // two terms are >= 0, so nothing cancels.
        const double p = alpha / twoAlphaMinusOne;
        const double q = (alpha - 1.0) / twoAlphaMinusOne;
        const double u =
            p * ExpMinusOneMinusX((alpha - 1.0) * x) + q * ExpMinusOneMinusX(-alpha * x);
        return std::log1p(u) / (alpha - 1.0);
    }
    // With e^{(alpha-1)x} factored out so that large orders do not overflow:
    // x + 1/(alpha-1) ln(alpha/(2alpha-1) + (alpha-1)/(2alpha-1) e^{-(2alpha-1)x}).
    const double inner = alpha / twoAlphaMinusOne +
                         (alpha - 1.0) / twoAlphaMinusOne * std::exp(-twoAlphaMinusOne * x);
    // The divergence is >= 0; rounding of the closed form near the switch must not make it < 0.
    return std::max(0.0, x + std::log(inner) / (alpha - 1.0));
}

double
RdpToDp(double rdp, double alpha, double delta, RdpConversion conversion)
{
    RequireOrder(alpha);
    RequireNonNegative(rdp, "rdp", "pass the composed Renyi divergence");
    RequireDelta(delta, "delta");
    if (conversion == RdpConversion::Mironov)
    {
        // eps = RDP(alpha) + ln(1/delta)/(alpha-1)
        return rdp + std::log(1.0 / delta) / (alpha - 1.0);
    }
    // eps = RDP(alpha) + ln((alpha-1)/alpha) - (ln delta + ln alpha)/(alpha-1). For a large
    // delta and a weak mechanism the expression drops below 0; every mechanism is (0, delta)-DP
    // once it is (eps, delta)-DP with eps <= 0, so the bound is clamped at 0.
    return std::max(0.0,
                    rdp + std::log((alpha - 1.0) / alpha) -
                        (std::log(delta) + std::log(alpha)) / (alpha - 1.0));
}

std::string
PrivacyStatement::Describe() const
{
    std::string line = "mechanism: " + mechanism + " | sensitivity: " + sensitivity +
                       " | unit: " + unit + " | neighbouring: " + neighbouring +
                       " | adversary: " + adversary + " | composition: " + composition +
                       " | noise: " + noise;
    if (!proof.empty())
    {
        line += " | proof: " + proof;
    }
    return line;
}

std::vector<double>
DefaultRdpOrders()
{
    std::vector<double> orders;
    for (int x = 1; x <= 99; ++x)
    {
        orders.push_back(1.0 + x / 10.0);
    }
    for (int a = 11; a <= 63; ++a)
    {
        orders.push_back(a);
    }
    for (double a = 64; a <= 1024; a *= 2)
    {
        orders.push_back(a);
    }
    return orders;
}

PrivacyAccountant::PrivacyAccountant(std::vector<double> rdpOrders)
    : m_orders(std::move(rdpOrders))
{
    if (m_orders.empty())
    {
        throw ConfigError("rdpOrders",
                          "the grid of RDP orders is empty",
                          "pass DefaultRdpOrders()");
    }
    for (double alpha : m_orders)
    {
        if (!(std::isfinite(alpha) && alpha > 1.0))
        {
            throw ConfigError("rdpOrders",
                              "every RDP order must be finite and > 1, got " +
                                  std::to_string(alpha),
                              "drop orders <= 1 from the grid");
        }
    }
}

void
PrivacyAccountant::Add(const MechanismSpec& spec, uint64_t times)
{
    ValidateMechanism(spec);
    if (times == 0)
    {
        return;
    }
    if (!m_history.empty() && m_history.back().first == spec)
    {
        m_history.back().second += times;
    }
    else
    {
        m_history.emplace_back(spec, times);
    }
    m_steps += times;
}

void
PrivacyAccountant::AddGaussian(double sensitivity, double sigma, uint64_t times)
{
    Add(MechanismSpec{MechanismKind::Gaussian, sensitivity, sigma}, times);
}

void
PrivacyAccountant::AddLaplace(double sensitivity, double b, uint64_t times)
{
    Add(MechanismSpec{MechanismKind::Laplace, sensitivity, b}, times);
}

void
PrivacyAccountant::Reset()
{
    m_history.clear();
    m_steps = 0;
}

uint64_t
PrivacyAccountant::GaussianSteps() const
{
    uint64_t k = 0;
    for (const auto& [spec, times] : m_history)
    {
        k += spec.kind == MechanismKind::Gaussian ? times : 0;
    }
    return k;
}

std::vector<std::pair<double, uint64_t>>
PrivacyAccountant::StepEpsilons(double gaussianDelta, PrivacyReport& report) const
{
    std::vector<std::pair<double, uint64_t>> steps;
    double worstGaussian = 0.0;
    for (const auto& [spec, times] : m_history)
    {
        if (spec.kind == MechanismKind::Gaussian)
        {
            const double eps = GaussianEpsilonClassic(spec.sensitivity, spec.scale, gaussianDelta);
            worstGaussian = std::max(worstGaussian, eps);
            steps.emplace_back(eps, times);
        }
        else
        {
            steps.emplace_back(LaplaceEpsilon(spec.sensitivity, spec.scale), times);
        }
    }
    if (worstGaussian >= 1.0)
    {
        std::ostringstream os;
        os << "a Gaussian step has eps = " << worstGaussian
           << " >= 1, outside the range where the classic bound (Dwork & Roth Thm A.1) is "
              "proven; use Composition::Rdp or Zcdp";
        report.valid = false;
        report.notes = os.str();
    }
    return steps;
}

PrivacyReport
PrivacyAccountant::Report(double delta, Composition composition, RdpConversion conversion) const
{
    RequireDelta(delta, "delta");
    PrivacyReport report;
    report.delta = delta;
    report.composition = composition;
    bool noiseless = false;
    for (const auto& [spec, times] : m_history)
    {
        if (composition == Composition::Zcdp && spec.kind == MechanismKind::Laplace)
        {
            throw ConfigError("composition",
                              "zCDP accounting covers Gaussian steps only, but the history holds "
                              "a Laplace step",
                              "use Composition::Rdp or Composition::Basic");
        }
        noiseless = noiseless || spec.kind == MechanismKind::None;
    }

    const uint64_t k = GaussianSteps();
    switch (composition)
    {
    case Composition::Basic:
        report.method = "basic composition; classic Gaussian bound (Dwork & Roth Thm A.1) at "
                        "delta/k for each of the k Gaussian steps, Laplace steps pure";
        break;
    case Composition::Advanced:
        report.method = "advanced composition (Dwork-Rothblum-Vadhan 2010); delta' = delta/2 and "
                        "delta/(2k) for each of the k Gaussian steps (delta' = delta if k = 0)";
        break;
    case Composition::Rdp:
        report.method = std::string("Renyi DP (Mironov 2017) over ") +
                        std::to_string(m_orders.size()) + " orders, conversion " +
                        RdpConversionName(conversion);
        break;
    case Composition::Zcdp:
        report.method = "zCDP (Bun & Steinke 2016 Prop 1.3)";
        break;
    }

    if (m_history.empty())
    {
        report.notes = "no step recorded";
        return report;
    }
    if (noiseless)
    {
        report.epsilon = std::numeric_limits<double>::infinity();
        report.notes = "a step added no noise: no privacy guarantee";
        return report;
    }

    switch (composition)
    {
    case Composition::Basic: {
        const double gaussianDelta = k > 0 ? delta / static_cast<double>(k) : delta;
        for (const auto& [eps, times] : StepEpsilons(gaussianDelta, report))
        {
            report.epsilon += static_cast<double>(times) * eps;
        }
        break;
    }
    case Composition::Advanced: {
        const double deltaPrime = k > 0 ? delta / 2.0 : delta;
        const double gaussianDelta = k > 0 ? delta / (2.0 * static_cast<double>(k)) : delta;
        report.epsilon = AdvancedComposition(StepEpsilons(gaussianDelta, report), deltaPrime);
        break;
    }
    case Composition::Rdp: {
        report.epsilon = std::numeric_limits<double>::infinity();
        for (double alpha : m_orders)
        {
            double rdp = 0.0; // sum over steps of RDP(alpha)
            for (const auto& [spec, times] : m_history)
            {
                const double step = spec.kind == MechanismKind::Gaussian
                                        ? GaussianRdp(alpha, spec.sensitivity, spec.scale)
                                        : LaplaceRdp(alpha, spec.sensitivity, spec.scale);
                rdp += static_cast<double>(times) * step;
            }
            const double eps = RdpToDp(rdp, alpha, delta, conversion);
            if (eps < report.epsilon)
            {
                report.epsilon = eps;
                report.bestAlpha = alpha;
            }
        }
        const auto [lo, hi] = std::minmax_element(m_orders.begin(), m_orders.end());
        if (m_orders.size() > 1 && (report.bestAlpha == *lo || report.bestAlpha == *hi))
        {
            report.notes = "the minimum lies at the edge of the RDP order grid: widen the grid";
        }
        break;
    }
    case Composition::Zcdp: {
        double rho = 0.0; // sum over steps of Delta_2^2 / (2 sigma^2)
        for (const auto& [spec, times] : m_history)
        {
            rho += static_cast<double>(times) * GaussianZcdpRho(spec.sensitivity, spec.scale);
        }
        report.epsilon = ZcdpToDp(rho, delta);
        break;
    }
    }
    return report;
}

double
PrivacyAccountant::Epsilon(double delta, Composition composition, RdpConversion conversion) const
{
    return Report(delta, composition, conversion).epsilon;
}

} // namespace fl
} // namespace ns3
