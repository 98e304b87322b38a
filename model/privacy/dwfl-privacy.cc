/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ns3/dwfl-privacy.h"

#include "ns3/dwfl-composition.h"

#include "ns3/dwfl.h"
#include "ns3/fl-types.h"
#include "ns3/privacy-accountant.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <ostream>
#include <sstream>
#include <string>

namespace ns3
{
namespace fl
{

namespace
{

/// A number for a message, in %g form (to_string would print small thresholds as 0.000000).
std::string
ShortNum(double value)
{
    char buf[32];
    std::snprintf(buf, sizeof(buf), "%.6g", value);
    return buf;
}

void
RequireFinite(double value, bool ok, const std::string& name, const std::string& fix)
{
    if (!(ok && std::isfinite(value)))
    {
        throw ConfigError(name, "is " + ShortNum(value), fix);
    }
}

/// Validates channels, params and beta, and that i names a worker.
void
ValidateRound(std::size_t i,
              const std::vector<double>& gainAbs,
              const std::vector<double>& powerW,
              const std::vector<double>& beta,
              double c,
              const DwflPrivacyParams& params)
{
    ValidateDwflChannels(gainAbs, powerW);
    params.Validate();
    if (beta.size() != gainAbs.size())
    {
        throw ConfigError("beta",
                          "has " + std::to_string(beta.size()) + " entries for " +
                              std::to_string(gainAbs.size()) + " workers",
                          "give one noise power fraction per worker");
    }
    if (i >= gainAbs.size())
    {
        throw ConfigError("i",
                          "is " + std::to_string(i) + " with " + std::to_string(gainAbs.size()) +
                              " workers",
                          "name a receiver 0 <= i < N");
    }
    RequireFinite(c, c > 0.0, "c", "use the positive alignment amplitude");
}

/**
 * Artificial-noise variance |h_k|^2 beta_k P_k sigma^2 of every sender k that reaches a
 * receiver (all k != `except`; except >= N: all N senders, the parameter server's case),
 * passed to `visit` one at a time.
 */
template <typename Visit>
void
ForEachSenderNoise(std::size_t except,
                   const std::vector<double>& gainAbs,
                   const std::vector<double>& powerW,
                   const std::vector<double>& beta,
                   double sigma2,
                   Visit visit)
{
    for (std::size_t k = 0; k < gainAbs.size(); ++k)
    {
        if (k != except)
        {
            visit(DwflSenderNoisePower(gainAbs[k], powerW[k], beta[k], sigma2));
        }
    }
}

/// Total noise variance of a query: sigma_m^2 plus every sender's artificial noise that reaches
/// the receiver (all k != except; except >= N: all N senders).
double
QueryNoiseVariance(std::size_t except,
                   const std::vector<double>& gainAbs,
                   const std::vector<double>& powerW,
                   const std::vector<double>& beta,
                   const DwflPrivacyParams& params)
{
    double sigmaS2 = params.sigmaM2;
    ForEachSenderNoise(except, gainAbs, powerW, beta, params.sigma2, [&sigmaS2](double p) {
        sigmaS2 += p;
    });
    return sigmaS2;
}

/// The Gaussian mechanism of a query with amplitude a (sensitivity 2 gamma g_max a) and noise
/// variance sigmaS2; kind None without noise.
MechanismSpec
GaussianSpec(double amplitude, double sigmaS2, const DwflPrivacyParams& params)
{
    MechanismSpec spec;
    spec.sensitivity = DwflSensitivity(amplitude, params);
    if (sigmaS2 > 0.0)
    {
        spec.kind = MechanismKind::Gaussian;
        spec.scale = std::sqrt(sigmaS2);
    }
    return spec;
}

/// eps = K / sigma_s of a spec built by GaussianSpec (+inf without noise).
double
EpsilonOf(const MechanismSpec& spec, double amplitude, const DwflPrivacyParams& params)
{
    if (spec.kind == MechanismKind::None)
    {
        return std::numeric_limits<double>::infinity();
    }
    return DwflPrivacyConstant(amplitude, params) / spec.scale;
}

void
ValidateTarget(double epsilon)
{
    RequireFinite(epsilon, epsilon > 0.0, "epsilon", "use a target privacy budget eps > 0");
}

} // namespace

void
DwflPrivacyParams::Validate() const
{
    RequireFinite(gamma, gamma > 0.0, "gamma", "use a step size gamma > 0");
    RequireFinite(gMax, gMax > 0.0, "gMax", "clip gradients to a finite norm g_max > 0");
    RequireFinite(sigma2, sigma2 >= 0.0, "sigma2", "use an artificial-noise variance >= 0");
    RequireFinite(sigmaM2, sigmaM2 >= 0.0, "sigmaM2", "use a receiver-noise variance >= 0");
    RequireFinite(delta, delta > 0.0 && delta < 1.0, "delta", "use 0 < delta < 1, e.g. 1e-5");
}

double
DwflPrivacyConstant(double amplitude, const DwflPrivacyParams& params)
{
    // K = Delta_2 sqrt(2 ln(1.25/delta)),  Delta_2 = 2 c gamma g_max: the Gaussian mechanism's
    // eps (Lemma IV.1) at unit noise standard deviation.
    return GaussianEpsilonClassic(DwflSensitivity(amplitude, params), 1.0, params.delta);
}

double
DwflSensitivity(double amplitude, const DwflPrivacyParams& params)
{
    return 2.0 * params.gamma * params.gMax * amplitude; // Delta_2 = 2 gamma g_max c
}

double
DwflSenderNoisePower(double gainAbs, double powerW, double beta, double sigma2)
{
    return gainAbs * gainAbs * beta * powerW * sigma2; // |h_k|^2 beta_k P_k sigma^2
}

MechanismSpec
DwflReceiverMechanism(std::size_t i,
                      const std::vector<double>& gainAbs,
                      const std::vector<double>& powerW,
                      const std::vector<double>& beta,
                      double c,
                      const DwflPrivacyParams& params)
{
    ValidateRound(i, gainAbs, powerW, beta, c, params);
    // sigma_s^2 = sum_{k != i} |h_k|^2 beta_k P_k sigma^2 + sigma_m^2
    return GaussianSpec(c, QueryNoiseVariance(i, gainAbs, powerW, beta, params), params);
}

double
DwflEpsilon(std::size_t i,
            const std::vector<double>& gainAbs,
            const std::vector<double>& powerW,
            const std::vector<double>& beta,
            double c,
            const DwflPrivacyParams& params)
{
    // eps_i = K / sigma_s  (eq. 11)
    return EpsilonOf(DwflReceiverMechanism(i, gainAbs, powerW, beta, c, params), c, params);
}

MechanismSpec
DwflOrthogonalMechanism(double gainAbs, double powerW, double beta, const DwflPrivacyParams& params)
{
    params.Validate();
    // amplitude |h_j| sqrt(P_j), noise |h_j|^2 beta_j P_j sigma^2 + sigma_m^2
    return GaussianSpec(gainAbs * std::sqrt(powerW),
                        DwflSenderNoisePower(gainAbs, powerW, beta, params.sigma2) + params.sigmaM2,
                        params);
}

double
DwflOrthogonalEpsilon(double gainAbs, double powerW, double beta, const DwflPrivacyParams& params)
{
    // eps_{j->i} = 2 gamma g_max sqrt(|h_j|^2 P_j) sqrt(2 ln(1.25/delta))
    //              / sqrt(|h_j|^2 beta_j P_j sigma^2 + sigma_m^2)
    return EpsilonOf(DwflOrthogonalMechanism(gainAbs, powerW, beta, params),
                     gainAbs * std::sqrt(powerW),
                     params);
}

std::vector<double>
CalibrateDwflOrthogonalBeta(const std::vector<double>& gainAbs,
                            const std::vector<double>& powerW,
                            const DwflPrivacyParams& params,
                            double epsilon)
{
    ValidateDwflChannels(gainAbs, powerW);
    params.Validate();
    ValidateTarget(epsilon);
    std::vector<double> beta(gainAbs.size(), 0.0);
    for (std::size_t j = 0; j < gainAbs.size(); ++j)
    {
        const double amplitude2 = gainAbs[j] * gainAbs[j] * powerW[j]; // |h_j|^2 P_j
        // sigma_req = K_j / eps;  S_j = max(0, sigma_req^2 - sigma_m^2)
        const double sigmaReq = DwflPrivacyConstant(std::sqrt(amplitude2), params) / epsilon;
        const double s = std::max(0.0, sigmaReq * sigmaReq - params.sigmaM2);
        if (s > 0.0 && params.sigma2 <= 0.0)
        {
            throw ConfigError("sigma2",
                              "is 0 but link " + std::to_string(j) + " needs artificial noise " +
                                  ShortNum(s) + " for eps " + ShortNum(epsilon),
                              "use an artificial-noise variance sigma^2 > 0 or raise eps");
        }
        beta[j] = s > 0.0 ? s / (amplitude2 * params.sigma2) : 0.0; // S_j / (|h_j|^2 P_j sigma^2)
    }
    return beta;
}

double
DwflMisalignedAmplitude(std::size_t i,
                        const std::vector<double>& trueGain,
                        const std::vector<double>& estimatedGain,
                        double c)
{
    if (trueGain.size() != estimatedGain.size() || trueGain.empty())
    {
        throw ConfigError("trueGain",
                          std::to_string(trueGain.size()) + " true gains for " +
                              std::to_string(estimatedGain.size()) + " estimates",
                          "give one true and one estimated gain per sender");
    }
    double worst = 0.0;
    for (std::size_t k = 0; k < trueGain.size(); ++k)
    {
        if (!(trueGain[k] > 0.0) || !std::isfinite(trueGain[k]) || !(estimatedGain[k] > 0.0) ||
            !std::isfinite(estimatedGain[k]))
        {
            throw ConfigError("trueGain",
                              "sender " + std::to_string(k) + " has a gain that is not finite "
                              "and > 0",
                              "check the channel");
        }
        if (k == i)
        {
            continue;
        }
        worst = std::max(worst, trueGain[k] == estimatedGain[k] ? c : c * trueGain[k] / estimatedGain[k]);
    }
    return worst;
}

double
DwflEpsilonBound(std::size_t i,
                 const std::vector<double>& gainAbs,
                 const std::vector<double>& powerW,
                 const std::vector<double>& beta,
                 double c,
                 const DwflPrivacyParams& params)
{
    ValidateRound(i, gainAbs, powerW, beta, c, params);
    // m_0 = min_{k != i} |h_k|^2 beta_k P_k sigma^2
    double m0 = std::numeric_limits<double>::infinity();
    ForEachSenderNoise(i, gainAbs, powerW, beta, params.sigma2, [&m0](double p) {
        m0 = std::min(m0, p);
    });
    const double nMinus1 = static_cast<double>(gainAbs.size() - 1);
    // eps_i <= K / sqrt((N-1) m_0 + sigma_m^2)
    return DwflPrivacyConstant(c, params) / std::sqrt(nMinus1 * m0 + params.sigmaM2);
}

namespace
{

/// The parameter server's query carries the clipped gradients themselves (Seif et al.), not the
/// step gamma g: its sensitivity is 2 g_max c, i.e. DWFL's with gamma = 1.
DwflPrivacyParams
GradientQuery(const DwflPrivacyParams& params)
{
    DwflPrivacyParams p = params;
    p.gamma = 1.0;
    return p;
}

/**
 * Symmetric calibration for a target eps (DWFL Theorem IV.1): every receiver hears `senders`
 * senders (N-1 for DWFL, N at the parameter server) and needs S = max(0, (K/eps)^2 - sigma_m^2) of
 * artificial noise, K = DwflPrivacyConstant(c, params); each sender contributes S / senders:
 *   beta_k = S / (senders |h_k|^2 P_k sigma^2).
 * Throws ConfigError naming the weakest worker and the fixes if it would need alpha + beta > 1.
 */
std::vector<double>
CalibrateSymmetric(const std::vector<double>& gainAbs,
                   const std::vector<double>& powerW,
                   double c,
                   const DwflPrivacyParams& params,
                   double epsilon,
                   std::size_t senders,
                   double maxKappa)
{
    const std::vector<double> alpha = DwflPowerFractions(gainAbs, powerW, c);
    const std::size_t n = gainAbs.size();
    const double spread = static_cast<double>(senders);
    // sigma_s,req = K / eps;  S = max(0, sigma_s,req^2 - sigma_m^2)
    const double sigmaReq = DwflPrivacyConstant(c, params) / epsilon;
    const double s = std::max(0.0, sigmaReq * sigmaReq - params.sigmaM2);
    std::vector<double> beta(n, 0.0);
    if (s == 0.0)
    {
        return beta; // the receiver noise alone meets the target
    }
    // alpha_k + beta_k = (c^2 + S / (senders sigma^2)) / (|h_k|^2 P_k): the weakest worker binds.
    std::size_t worst = 0;
    for (std::size_t k = 0; k < n; ++k)
    {
        // each sender contributes S / senders:  beta_k = S / (senders |h_k|^2 P_k sigma^2)
        beta[k] = s / (spread * gainAbs[k] * gainAbs[k] * powerW[k] * params.sigma2);
        if (alpha[k] > alpha[worst])
        {
            worst = k;
        }
    }
    if (alpha[worst] + beta[worst] <= 1.0 + kDwflPowerSlack)
    {
        return beta;
    }
    // Infeasible. With headroom H = |h|^2 P - c^2 of the weakest worker, the target needs
    // S <= senders sigma^2 H, i.e. sigma^2 >= S / (senders H) or
    // eps >= K / sqrt(sigma_m^2 + senders sigma^2 H).
    const double g = gainAbs[worst] * gainAbs[worst] * powerW[worst];
    const double headroom = g - c * c > kDwflPowerSlack * g ? g - c * c : 0.0;
    std::string fix = "lower kappa to <= " + ShortNum(maxKappa) + " (c = kappa min_j |h_j| sqrt(P_j))";
    if (headroom > 0.0)
    {
        fix += ", raise sigma^2 to >= " + ShortNum(s / (spread * headroom));
    }
    const double eMin = DwflPrivacyConstant(c, params) /
                        std::sqrt(params.sigmaM2 + spread * params.sigma2 * headroom);
    if (std::isfinite(eMin))
    {
        fix += ", or raise eps to >= " + ShortNum(eMin);
    }
    throw ConfigError("beta of worker " + std::to_string(worst),
                      "eps = " + ShortNum(epsilon) + " needs alpha + beta = " +
                          ShortNum(alpha[worst] + beta[worst]) + " > 1 (artificial noise S = " + ShortNum(s) +
                          " per receiver, split over " + std::to_string(senders) + " senders)",
                      fix);
}

/**
 * The largest kappa in (0, 1] for which CalibrateSymmetric meets eps, from the weakest worker
 * (G_min = c_0^2 = min_j |h_j|^2 P_j, alpha = kappa^2):
 *   kappa^2 c_0^2 + max(0, kappa^2 c_0^2 A - sigma_m^2) / (senders sigma^2) <= c_0^2,
 *   A = (K(1) / eps)^2  =>  kappa* = min(1, sqrt(u) / c_0),
 *   u = (senders sigma^2 c_0^2 + sigma_m^2) / (senders sigma^2 + A).
 */
double
MaxKappaSymmetric(const std::vector<double>& gainAbs,
                  const std::vector<double>& powerW,
                  const DwflPrivacyParams& params,
                  double epsilon,
                  std::size_t senders)
{
    const double c0 = DwflAlignmentAmplitude(gainAbs, powerW, 1.0); // c_0 = min_j |h_j| sqrt(P_j)
    params.Validate();
    ValidateTarget(epsilon);
    const double k1 = DwflPrivacyConstant(1.0, params) / epsilon;
    const double a = k1 * k1; // A = (K(1) / eps)^2
    const double spread = static_cast<double>(senders) * params.sigma2;
    const double u = (spread * c0 * c0 + params.sigmaM2) / (spread + a);
    if (!(u > 0.0))
    {
        throw ConfigError("sigma2",
                          "and sigmaM2 are both 0: no noise can meet eps = " + ShortNum(epsilon),
                          "give the workers artificial noise (sigma^2 > 0)");
    }
    return std::min(1.0, std::sqrt(u) / c0);
}

/// Validates a calibration's inputs (channels, 0 < c <= c_0, params, eps) and calibrates for
/// `senders` senders per receiver (CalibrateSymmetric, with the largest kappa in the fix).
std::vector<double>
CalibrateFor(const std::vector<double>& gainAbs,
             const std::vector<double>& powerW,
             double c,
             const DwflPrivacyParams& params,
             double epsilon,
             std::size_t senders)
{
    DwflPowerFractions(gainAbs, powerW, c); // channels and 0 < c <= c_0
    params.Validate();
    ValidateTarget(epsilon);
    return CalibrateSymmetric(gainAbs,
                              powerW,
                              c,
                              params,
                              epsilon,
                              senders,
                              MaxKappaSymmetric(gainAbs, powerW, params, epsilon, senders));
}

} // namespace

std::vector<double>
CalibrateDwflBeta(const std::vector<double>& gainAbs,
                  const std::vector<double>& powerW,
                  double c,
                  const DwflPrivacyParams& params,
                  double epsilon)
{
    // receiver i hears every k != i
    return CalibrateFor(gainAbs, powerW, c, params, epsilon, gainAbs.size() - 1);
}

double
DwflMaxKappa(const std::vector<double>& gainAbs,
             const std::vector<double>& powerW,
             const DwflPrivacyParams& params,
             double epsilon)
{
    return MaxKappaSymmetric(gainAbs, powerW, params, epsilon, gainAbs.size() - 1);
}

MechanismSpec
OtaPsServerMechanism(const std::vector<double>& gainAbs,
                     const std::vector<double>& powerW,
                     const std::vector<double>& beta,
                     double c,
                     const DwflPrivacyParams& params)
{
    ValidateRound(0, gainAbs, powerW, beta, c, params);
    // sigma_s^2 = sum_k |h_k|^2 beta_k P_k sigma^2 + sigma_m^2 (all N senders reach the server)
    return GaussianSpec(c,
                        QueryNoiseVariance(gainAbs.size(), gainAbs, powerW, beta, params),
                        GradientQuery(params));
}

double
OtaPsEpsilon(const std::vector<double>& gainAbs,
             const std::vector<double>& powerW,
             const std::vector<double>& beta,
             double c,
             const DwflPrivacyParams& params)
{
    // eps_PS = 2 g_max c sqrt(2 ln(1.25/delta)) / sqrt(sum_k |h_k|^2 beta_k P_k sigma^2 +
    // sigma_m^2)
    return EpsilonOf(OtaPsServerMechanism(gainAbs, powerW, beta, c, params),
                     c,
                     GradientQuery(params));
}

std::vector<double>
CalibrateOtaPsBeta(const std::vector<double>& gainAbs,
                   const std::vector<double>& powerW,
                   double c,
                   const DwflPrivacyParams& params,
                   double epsilon)
{
    // the server hears all N workers, and the query carries gradients
    return CalibrateFor(gainAbs, powerW, c, GradientQuery(params), epsilon, gainAbs.size());
}

double
OtaPsMaxKappa(const std::vector<double>& gainAbs,
              const std::vector<double>& powerW,
              const DwflPrivacyParams& params,
              double epsilon)
{
    return MaxKappaSymmetric(gainAbs, powerW, GradientQuery(params), epsilon, gainAbs.size());
}

PrivacyStatement
DwflRoundStatement(const std::string& receiver)
{
    PrivacyStatement s;
    s.mechanism = "gaussian (receiver noise plus the senders' artificial noise, classic bound, "
                  "Dwork and Roth 2014, Thm. A.1)";
    s.sensitivity = "l2 <= 2 gamma g_max c (one gradient step clipped to g_max, aligned "
                    "amplitude c, or |h_j| sqrt(P_j) on an orthogonal link)";
    s.unit = "the data set of one worker";
    s.neighbouring = "replace it with any other data set";
    s.adversary = receiver + " (sees its received signal)";
    s.composition = "none: the first round alone (eq. 11 as the paper states it), a later round, "
                    "given the earlier ones, has a larger sensitivity";
    s.proof = "doc/fl-privacy.rst, section \"DWFL in one round: eq. (11)\"";
    return s;
}

double
DwflOrthogonalSigma2Floor(double eps, const DwflPrivacyParams& params)
{
    if (!(eps > 0.0) || !std::isfinite(eps))
    {
        throw ConfigError("eps", "is " + std::to_string(eps), "use a positive, finite target");
    }
    const double k1 = DwflPrivacyConstant(1.0, params);
    return (k1 / eps) * (k1 / eps);
}

DwflPrivacyTableRow
DwflPrivacyTableRowFor(const std::vector<double>& gainPower,
                       double kappa,
                       const DwflPrivacyParams& params)
{
    const std::size_t n = gainPower.size();
    std::vector<double> gainAbs(n);
    const std::vector<double> powerW(n, 1.0); // |h_k|^2 P_k carried by |h_k| alone
    for (std::size_t k = 0; k < n; ++k)
    {
        gainAbs[k] = std::sqrt(gainPower[k]);
    }
    DwflPrivacyTableRow row;
    row.n = n;
    row.c = DwflAlignmentAmplitude(gainAbs, powerW, kappa);
    const std::vector<double> alpha = DwflPowerFractions(gainAbs, powerW, row.c);
    std::vector<double> beta(n);
    for (std::size_t k = 0; k < n; ++k)
    {
        beta[k] = std::max(0.0, 1.0 - alpha[k]);
    }
    row.epsMin = row.orthMin = std::numeric_limits<double>::infinity();
    for (std::size_t i = 0; i < n; ++i)
    {
        const double eps = DwflEpsilon(i, gainAbs, powerW, beta, row.c, params);
        const double orth = DwflOrthogonalEpsilon(gainAbs[i], powerW[i], beta[i], params);
        row.epsMin = std::min(row.epsMin, eps);
        row.epsMax = std::max(row.epsMax, eps);
        row.orthMin = std::min(row.orthMin, orth);
        row.orthMax = std::max(row.orthMax, orth);
    }
    return row;
}

void
WriteDwflPrivacyTable(std::ostream& os,
                      const std::vector<uint32_t>& nList,
                      const std::vector<double>& gainPower,
                      double kappa,
                      const DwflPrivacyParams& params,
                      uint32_t composedRounds,
                      double eta)
{
    os << "n,c,eps_i_max,eps_i_min,eps_orth_max,eps_orth_min,eps_i_max_x_sqrt_n_minus_1"
       << (composedRounds > 0 ? ",eps_composed" : "") << "\n";
    os << "# eps_i: eq. (11) of receiver i, max and min over the receivers | "
       << DwflRoundStatement("receiver i, another worker").Describe() << "\n";
    os << "# eps_orth: the orthogonal link j -> i, max and min over the links | "
       << DwflRoundStatement("the link's receiver").Describe() << "\n";
    if (composedRounds > 0)
    {
        os << "# eps_composed: after " << composedRounds
           << " rounds, the largest over the receivers (Practical decode) | "
           << DwflComposedStatement("receiver i", params.delta).Describe() << "\n";
    }
    const std::streamsize precision = os.precision(12);
    for (uint32_t n : nList)
    {
        if (gainPower.empty() || (gainPower.size() > 1 && gainPower.size() < n))
        {
            os.precision(precision);
            throw ConfigError("gainPower",
                              "lists " + std::to_string(gainPower.size()) +
                                  " workers for N = " + std::to_string(n),
                              "give one value for all or at least N values");
        }
        const std::vector<double> g =
            gainPower.size() == 1 ? std::vector<double>(n, gainPower[0])
                                  : std::vector<double>(gainPower.begin(), gainPower.begin() + n);
        const DwflPrivacyTableRow row = DwflPrivacyTableRowFor(g, kappa, params);
        os << n << ',' << row.c << ',' << row.epsMax << ',' << row.epsMin << ',' << row.orthMax
           << ',' << row.orthMin << ',' << row.epsMax * std::sqrt(n - 1.0);
        if (composedRounds > 0)
        {
            // the table's setup (beta_k = 1 - alpha_k), every receiver, the largest
            DwflRoundSetup s;
            s.powerW.assign(n, 1.0);
            for (double gp : g)
            {
                s.gainAbs.push_back(std::sqrt(gp));
            }
            s.c = row.c;
            const std::vector<double> alpha = DwflPowerFractions(s.gainAbs, s.powerW, s.c);
            for (double a : alpha)
            {
                s.beta.push_back(std::max(0.0, 1.0 - a));
            }
            s.eta = DwflAveragingRate(eta, n);
            s.params = params;
            double worst = 0.0;
            for (std::size_t i = 0; i < n; ++i)
            {
                worst = std::max(worst,
                                 DwflComposedEpsilon(i,
                                                     DwflDecode::Practical,
                                                     s,
                                                     composedRounds,
                                                     params.delta));
            }
            os << ',' << worst;
        }
        os << '\n';
    }
    os.precision(precision);
}

} // namespace fl
} // namespace ns3
