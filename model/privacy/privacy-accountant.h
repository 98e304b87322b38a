/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Differential-privacy accounting: per-step epsilon of the Gaussian and Laplace mechanisms and
 * their composition over rounds (basic, advanced, Renyi DP, zero-concentrated DP).
 */
#ifndef FL_PRIVACY_ACCOUNTANT_H
#define FL_PRIVACY_ACCOUNTANT_H

#include "ns3/fl-types.h"
#include "ns3/noise-source.h"

#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

namespace ns3
{
namespace fl
{

/// Noise distribution of a privacy mechanism.
enum class MechanismKind : uint8_t
{
    None,     ///< no noise: no privacy guarantee (epsilon is infinite)
    Gaussian, ///< i.i.d. N(0, sigma^2) entries; sensitivity is the L2 sensitivity Delta_2
    Laplace,  ///< i.i.d. Lap(0, b) entries; sensitivity is the L1 sensitivity Delta_1
};

/// Name of a mechanism kind ("none", "gaussian", "laplace").
const char* MechanismKindName(MechanismKind kind);

/**
 * One release of a noisy query, as the accountant sees it: the noise kind, the sensitivity of
 * the query (L2 for Gaussian, L1 for Laplace; the algorithm that knows its clipping norm or step
 * size supplies it) and the noise scale (sigma for Gaussian, b for Laplace; unused for None).
 */
struct MechanismSpec
{
    MechanismKind kind{MechanismKind::None}; ///< noise distribution
    double sensitivity{0.0};                 ///< Delta (L2 for Gaussian, L1 for Laplace), >= 0
    double scale{0.0};                       ///< sigma (Gaussian) or b (Laplace), > 0

    bool operator==(const MechanismSpec& other) const
    {
        return kind == other.kind && sensitivity == other.sensitivity && scale == other.scale;
    }
};

/**
 * Throws ConfigError unless the spec is usable: sensitivity finite and >= 0 (parameter
 * "sensitivity"), and for Gaussian/Laplace a finite scale > 0 (parameter "sigma" or "b").
 */
void ValidateMechanism(const MechanismSpec& spec);

/// How per-step privacy losses are composed into one (epsilon, delta).
enum class Composition : uint8_t
{
    Basic,    ///< sum of per-step epsilons (classic Gaussian bound at delta/k per Gaussian step)
    Advanced, ///< advanced composition (Dwork, Rothblum, Vadhan 2010), heterogeneous form
    Rdp,      ///< Renyi DP (Mironov 2017), minimised over a grid of orders alpha
    Zcdp,     ///< zero-concentrated DP (Bun & Steinke 2016); Gaussian-only histories
};

/// Name of a composition ("basic", "advanced", "rdp", "zcdp").
const char* CompositionName(Composition composition);

/// Conversion from RDP of order alpha to (epsilon, delta)-DP.
enum class RdpConversion : uint8_t
{
    /// eps = RDP(alpha) + ln((alpha-1)/alpha) - (ln delta + ln alpha)/(alpha-1)
    /// (Canonne, Kamath, Steinke 2020, Prop. 12; Balle et al. 2020, Thm. 21). Tighter.
    CanonneKamathSteinke,
    /// eps = RDP(alpha) + ln(1/delta)/(alpha-1) (Mironov 2017, Prop. 3).
    Mironov,
};

/// Name of an RDP conversion ("canonne-kamath-steinke-2020", "mironov-2017").
const char* RdpConversionName(RdpConversion conversion);

/**
 * Classic Gaussian mechanism bound (Dwork & Roth 2014, Thm. A.1):
 *   eps = Delta_2 * sqrt(2 ln(1.25/delta)) / sigma.
 * Proven only for eps < 1; the caller reports whether the result is in that range.
 * Throws ConfigError on sensitivity < 0, sigma <= 0 or delta outside (0, 1).
 */
double GaussianEpsilonClassic(double sensitivity, double sigma, double delta);

/**
 * Laplace mechanism (Dwork & Roth 2014, Thm. 3.6), pure DP: eps = Delta_1 / b.
 * Throws ConfigError on sensitivity < 0 or b <= 0.
 */
double LaplaceEpsilon(double sensitivity, double b);

/**
 * Advanced composition (Dwork, Rothblum, Vadhan 2010; Dwork & Roth 2014 Thm. 3.20), in the
 * heterogeneous form that the same proof gives: k mechanisms, mechanism i being (eps_i,
 * delta_i)-DP, compose to (eps, delta' + sum_i delta_i)-DP with eps = sqrt(2 ln(1/delta') sum_i
 * eps_i^2) + sum_i eps_i (e^{eps_i} - 1). `steps` lists (eps_i, multiplicity) pairs. Throws
 * ConfigError on a negative eps_i or delta' outside (0, 1).
 */
double AdvancedComposition(const std::vector<std::pair<double, uint64_t>>& steps,
                           double deltaPrime);

/**
 * zCDP parameter of the Gaussian mechanism (Bun & Steinke 2016, Prop. 1.6):
 *   rho = Delta_2^2 / (2 sigma^2).
 * Throws ConfigError on sensitivity < 0 or sigma <= 0.
 */
double GaussianZcdpRho(double sensitivity, double sigma);

/**
 * rho-zCDP to (eps, delta)-DP (Bun & Steinke 2016, Prop. 1.3):
 *   eps = rho + 2 sqrt(rho ln(1/delta)).
 * Throws ConfigError on rho < 0 or delta outside (0, 1).
 */
double ZcdpToDp(double rho, double delta);

/**
 * Renyi DP of order alpha of the Gaussian mechanism (Mironov 2017, Table II):
 *   RDP(alpha) = alpha Delta_2^2 / (2 sigma^2) = alpha * rho.
 * Throws ConfigError on alpha <= 1, sensitivity < 0 or sigma <= 0.
 */
double GaussianRdp(double alpha, double sensitivity, double sigma);

/**
 * Renyi DP of order alpha > 1 of the Laplace mechanism (Mironov 2017, Prop. 6, scale b and
 * sensitivity Delta_1, x = Delta_1 / b):
 *   RDP(alpha) = 1/(alpha-1) ln( alpha/(2 alpha-1) e^{(alpha-1) x} + (alpha-1)/(2 alpha-1)
 * e^{-alpha x} ). It tends to x as alpha grows. For a vector of i.i.d. Laplace entries the
 * per-coordinate divergences add, and the bound above with the L1 sensitivity dominates their sum
 * (the divergence is a log-sum-exp of linear functions of the shift, hence convex, zero at zero and
 * so superadditive). Throws ConfigError on alpha <= 1, sensitivity < 0 or b <= 0.
 */
double LaplaceRdp(double alpha, double sensitivity, double b);

/**
 * (eps, delta) from RDP `rdp` of order alpha with the given conversion (see RdpConversion).
 * Throws ConfigError on alpha <= 1, rdp < 0 or delta outside (0, 1).
 */
double RdpToDp(double rdp, double alpha, double delta, RdpConversion conversion);

/**
 * The default grid of RDP orders (as in Opacus): 1.1, 1.2, ..., 10.9 (1 + x/10, x = 1..99),
 * 11, 12, ..., 63, then 64, 128, 256, 512, 1024 for weak per-step mechanisms.
 */
std::vector<double> DefaultRdpOrders();

/**
 * What an epsilon means. Every epsilon the module reports (a CSV column, a printed line) comes
 * with one of these: the noise mechanism, the sensitivity's norm and bound, the privacy unit
 * (whose data is protected), the neighbouring relation, the adversary (what it observes) and
 * the composition. Describe() gives them as one line for logs and CSV comment lines.
 */
struct PrivacyStatement
{
    std::string mechanism;    ///< noise, e.g. "laplace, i.i.d. entries of scale b"
    std::string sensitivity;  ///< norm and bound, e.g. "l1 <= sqrt(M) 2 mu G n"
    std::string unit;         ///< privacy unit, e.g. "the data of one server's clients"
    std::string neighbouring; ///< neighbouring relation, e.g. "replace that data"
    std::string adversary;    ///< who observes what
    std::string composition;  ///< how releases compose, e.g. "basic (sum) over iterations"
    /// what the value assumes about the noise (NoiseAssumption of the run's NoiseSource)
    std::string noise{NoiseAssumption(NoiseSource::RunSeed)};
    /// where the value is proven (a section of doc/fl-privacy.rst)
    std::string proof;

    /// "mechanism: ... | sensitivity: ... | unit: ... | neighbouring: ... | adversary: ... |
    /// composition: ... | noise: ... | proof: ..." (one line, no semicolon, so that
    /// list-splitting readers keep it whole; the proof only if set).
    std::string Describe() const;
};

/// What the accountant reports for a target delta.
struct PrivacyReport
{
    /// Composed epsilon (+infinity if a step added no noise).
    double epsilon{0.0};
    /// The target delta.
    double delta{0.0};
    /// Composition used.
    Composition composition{Composition::Basic};
    /// Formula and delta split, or RDP conversion, for logs and result files.
    std::string method;
    /// RDP order that attains the minimum (NaN unless Composition::Rdp).
    double bestAlpha{std::numeric_limits<double>::quiet_NaN()};
    /// False if a bound was used outside its proven range (see notes).
    bool valid{true};
    /// Why the report is not valid, or other caveats (grid edge, no noise); empty if none.
    std::string notes;
};

/**
 * Privacy accountant in the style of Opacus: fed the mechanism of every released step (a round,
 * an iteration), asked for epsilon at a target delta at any time.
 *
 * The privacy unit (a sample, a client, a worker's data set) and the observer (a receiver, the
 * server) are fixed by the caller through the sensitivity it feeds; the accountant composes
 * whatever it is given. Delta splits:
 *  - Basic: each of the k Gaussian steps gets delta/k; Laplace steps are pure (delta 0).
 *  - Advanced: delta' = delta/2 and each of the k Gaussian steps delta/(2k); with no Gaussian
 *    step delta' = delta.
 *  - Rdp and Zcdp: the whole delta goes to the conversion.
 * A history with no step reports epsilon 0; a None step makes epsilon infinite.
 */
class PrivacyAccountant
{
  public:
    /// An empty accountant; `rdpOrders` (every order > 1 and finite) is the RDP grid.
    explicit PrivacyAccountant(std::vector<double> rdpOrders = DefaultRdpOrders());

    /// Records `times` releases of the mechanism (throws ConfigError if it is not valid).
    void Add(const MechanismSpec& spec, uint64_t times = 1);

    /// Records `times` Gaussian releases: L2 sensitivity Delta_2, noise standard deviation sigma.
    void AddGaussian(double sensitivity, double sigma, uint64_t times = 1);

    /// Records `times` Laplace releases: L1 sensitivity Delta_1, noise scale b.
    void AddLaplace(double sensitivity, double b, uint64_t times = 1);

    /// Number of recorded releases.
    uint64_t Steps() const
    {
        return m_steps;
    }

    /// Forgets every recorded release.
    void Reset();

    /// The RDP grid of orders.
    const std::vector<double>& RdpOrders() const
    {
        return m_orders;
    }

    /**
     * (epsilon, delta) of everything recorded so far. Throws ConfigError on delta outside
     * (0, 1), and on a Laplace step under Composition::Zcdp (use Rdp or Basic instead).
     */
    PrivacyReport Report(double delta,
                         Composition composition,
                         RdpConversion conversion = RdpConversion::CanonneKamathSteinke) const;

    /// Report(delta, composition, conversion).epsilon.
    double Epsilon(double delta,
                   Composition composition,
                   RdpConversion conversion = RdpConversion::CanonneKamathSteinke) const;

  private:
    /// Per-step epsilons (classic Gaussian bound at gaussianDelta) with multiplicities;
    /// clears report.valid and explains in report.notes when a Gaussian step has eps >= 1.
    std::vector<std::pair<double, uint64_t>> StepEpsilons(double gaussianDelta,
                                                          PrivacyReport& report) const;
    /// Number of recorded Gaussian releases.
    uint64_t GaussianSteps() const;

    std::vector<std::pair<MechanismSpec, uint64_t>> m_history; ///< (mechanism, times), in order
    std::vector<double> m_orders;                              ///< RDP orders alpha
    uint64_t m_steps{0};                                       ///< total releases
};

} // namespace fl
} // namespace ns3

#endif // FL_PRIVACY_ACCOUNTANT_H
