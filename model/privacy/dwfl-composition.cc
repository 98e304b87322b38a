/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ns3/dwfl-composition.h"

#include "ns3/dwfl.h"
#include "ns3/fl-types.h"

#include <cmath>
#include <limits>
#include <sstream>
#include <string>

namespace ns3
{
namespace fl
{

namespace
{

/// Validates a round's setup for receiver i (channels, params, beta, c, eta).
void
ValidateSetup(std::size_t receiver, const DwflRoundSetup& s)
{
    ValidateDwflChannels(s.gainAbs, s.powerW);
    s.params.Validate();
    if (s.beta.size() != s.gainAbs.size())
    {
        throw ConfigError("beta",
                          "has " + std::to_string(s.beta.size()) + " entries for " +
                              std::to_string(s.gainAbs.size()) + " workers",
                          "give one noise power fraction per worker");
    }
    for (double b : s.beta)
    {
        if (!(b >= 0.0 && b <= 1.0))
        {
            throw ConfigError("beta",
                              "has an entry " + std::to_string(b),
                              "use fractions in [0, 1]");
        }
    }
    if (receiver >= s.gainAbs.size())
    {
        throw ConfigError("receiver",
                          "is " + std::to_string(receiver) + " with " +
                              std::to_string(s.gainAbs.size()) + " workers",
                          "name a receiver 0 <= i < N");
    }
    if (!(s.c > 0.0 && std::isfinite(s.c)))
    {
        throw ConfigError("c", "is " + std::to_string(s.c), "use the positive aligned amplitude");
    }
    if (!(s.eta > 0.0 && std::isfinite(s.eta)))
    {
        throw ConfigError("eta",
                          "is " + std::to_string(s.eta),
                          "use the averaging rate of the run (fl::DwflAveragingRate)");
    }
}

/// Fresh-noise variance sigma_n^2 at receiver i (validated setup).
double
FreshNoiseVariance(std::size_t receiver, const DwflRoundSetup& s)
{
    double v = s.params.sigmaM2;
    for (std::size_t k = 0; k < s.gainAbs.size(); ++k)
    {
        if (k != receiver)
        {
            v += DwflSenderNoisePower(s.gainAbs[k], s.powerW[k], s.beta[k], s.params.sigma2);
        }
    }
    return v;
}

} // namespace

double
DwflFreshNoiseStd(std::size_t receiver, const DwflRoundSetup& setup)
{
    ValidateSetup(receiver, setup);
    return std::sqrt(FreshNoiseVariance(receiver, setup));
}

Eigen::MatrixXd
DwflDriftMatrix(std::size_t receiver, DwflDecode decode, const DwflRoundSetup& s)
{
    ValidateSetup(receiver, s);
    const std::size_t n = s.gainAbs.size();
    const double sn2 = FreshNoiseVariance(receiver, s); // sigma_n^2
    if (!(sn2 > 0.0))
    {
        throw ConfigError("sigmaM2",
                          "and the artificial noise reaching receiver " + std::to_string(receiver) +
                              " are 0: its reception is noiseless",
                          "give the receiver noise or the senders artificial noise");
    }
    const double c = s.c;
    const double eta = s.eta;
    const double nm1 = static_cast<double>(n - 1);
    Eigen::VectorXd a(n); // a_k = |h_k| sqrt(beta_k P_k) / c
    Eigen::VectorXd b(n); // regression of G_k on n_t: b_k = c a_k sigma^2 / sigma_n^2 (k != i)
    for (std::size_t k = 0; k < n; ++k)
    {
        a[k] = DwflNoiseGain(s.gainAbs[k], s.powerW[k], s.beta[k], c);
        b[k] = k == receiver ? 0.0 : c * a[k] * s.params.sigma2 / sn2;
    }
    const double bm = s.params.sigmaM2 / sn2; // regression of m_i on n_t
    Eigen::MatrixXd m(n, n);
    Eigen::VectorXd dx(n);
    Eigen::VectorXd dG(n);
    for (std::size_t j = 0; j < n; ++j)
    {
        dx.setZero();
        dx[j] = 1.0;
        // n_t = v_i - c sum_{k != i} x_k: fixed v_i, so dn = -c sum_{k != i} dx_k
        const double dn = j == receiver ? 0.0 : -c;
        dG = b * dn; // dG_k = b_k dn (dG_i = 0: G_i is not in n_t)
        const double dmi = bm * dn;
        // S = sum_l (dx_l + a_l dG_l); receiver k hears every l != k
        const double total = (dx + a.cwiseProduct(dG)).sum();
        for (std::size_t k = 0; k < n; ++k)
        {
            double dv = c * (total - (dx[k] + a[k] * dG[k]));
            if (k == receiver && decode == DwflDecode::Practical)
            {
                dv += dmi; // v_i = ... + m_i
            }
            // Oracle: x_k + eta [(v_k - m_k) / (c (N-1)) - x_k - a_k G_k]: m_k cancels
            // Practical: x_k + eta [v_k / (c (N-1)) - x_k - a_k G_k]
            m(static_cast<Eigen::Index>(j), static_cast<Eigen::Index>(k)) =
                (1.0 - eta) * dx[k] + eta * dv / (c * nm1) - eta * a[k] * dG[k];
        }
    }
    return m;
}

DwflComposedBound::DwflComposedBound(std::size_t receiver, DwflDecode decode)
    : m_receiver(receiver),
      m_decode(decode)
{
}

bool
DwflComposedBound::InHistory(std::size_t k) const
{
    return m_decode == DwflDecode::Oracle || k != m_receiver;
}

MechanismSpec
DwflComposedBound::AddRound(const DwflRoundSetup& setup)
{
    ValidateSetup(m_receiver, setup);
    if (!m_setups.empty() && setup.gainAbs.size() != m_setups.front().gainAbs.size())
    {
        throw ConfigError("gainAbs",
                          "changes the number of workers between rounds",
                          "keep the N workers of the run");
    }
    const std::size_t n = setup.gainAbs.size();
    const double sn2 = FreshNoiseVariance(m_receiver, setup);
    const bool noisy = sn2 > 0.0;
    m_setups.push_back(setup);
    m_matrix.push_back(
        noisy ? DwflDriftMatrix(m_receiver, m_decode, setup)
              : Eigen::MatrixXd::Zero(static_cast<Eigen::Index>(n), static_cast<Eigen::Index>(n)));
    if (m_setups.size() > 1 && !(setup == m_setups.front()))
    {
        m_constant = false;
    }
    const std::size_t t = m_setups.size();
    Eigen::VectorXd ones = Eigen::VectorXd::Ones(static_cast<Eigen::Index>(n));
    ones[static_cast<Eigen::Index>(m_receiver)] = 0.0; // 1_{-i}: the query sums k != i
    auto historyNorm = [this, n](const Eigen::VectorXd& z) {
        double sum = 0.0;
        for (std::size_t k = 0; k < n; ++k)
        {
            if (InHistory(k))
            {
                sum += std::abs(z[static_cast<Eigen::Index>(k)]);
            }
        }
        return sum;
    };
    if (m_constant)
    {
        // z_{s,t} = M^{t-s} 1_{-i}: keep M^{t-1} 1_{-i} and the running history sum
        if (t == 1)
        {
            m_lastFirst = ones;
            m_historySum = 0.0;
        }
        else
        {
            m_historySum += historyNorm(m_lastFirst); // M^{t-2} 1_{-i}
            m_lastFirst = m_matrix.front() * m_lastFirst;
        }
        m_lastHistory = m_historySum;
    }
    else
    {
        // z_{t,t} = 1_{-i}, z_{s,t} = M_s z_{s+1,t}
        Eigen::VectorXd z = ones;
        double history = 0.0;
        for (std::size_t s = t; s >= 2; --s)
        {
            history += historyNorm(z); // z_{s,t}, s >= 2
            z = m_matrix[s - 2] * z;   // z_{s-1,t} = M_{s-1} z_{s,t}
        }
        m_lastFirst = z;
        m_lastHistory = history;
    }
    MechanismSpec spec;
    if (!noisy)
    {
        spec.kind = MechanismKind::None;
        spec.sensitivity = DwflSensitivity(setup.c, setup.params);
        return spec;
    }
    double worst = 0.0;
    for (std::size_t w = 0; w < n; ++w)
    {
        if (w != m_receiver)
        {
            worst = std::max(worst, LastDriftFactor(w));
        }
    }
    spec.kind = MechanismKind::Gaussian;
    // Delta_t = 2 gamma g_max c_t [max_w |z_{1,t}[w]| + sum_{s >= 2} sum_{k in A} |z_{s,t}[k]|]
    spec.sensitivity = DwflSensitivity(setup.c, setup.params) * worst;
    spec.scale = std::sqrt(sn2);
    return spec;
}

double
DwflComposedBound::LastDriftFactor(std::size_t target) const
{
    if (m_setups.empty() || target >= static_cast<std::size_t>(m_lastFirst.size()) ||
        target == m_receiver)
    {
        throw ConfigError("target",
                          "is " + std::to_string(target),
                          "name a worker other than the receiver, after AddRound");
    }
    return std::abs(m_lastFirst[static_cast<Eigen::Index>(target)]) + m_lastHistory;
}

double
DwflComposedEpsilon(std::size_t receiver,
                    DwflDecode decode,
                    const DwflRoundSetup& setup,
                    uint64_t rounds,
                    double delta)
{
    DwflComposedBound bound(receiver, decode);
    PrivacyAccountant accountant;
    for (uint64_t r = 0; r < rounds; ++r)
    {
        const MechanismSpec spec = bound.AddRound(setup);
        if (spec.kind == MechanismKind::None)
        {
            return std::numeric_limits<double>::infinity();
        }
        accountant.Add(spec);
    }
    return accountant.Epsilon(delta, Composition::Rdp);
}

PrivacyStatement
DwflComposedStatement(const std::string& receiver, double delta)
{
    PrivacyStatement s = DwflRoundStatement(receiver);
    s.mechanism = "gaussian: each round's fresh noise at the receiver (its receiver noise plus "
                  "the other senders' artificial noise of that round)";
    s.sensitivity = "l2 <= Delta_t = 2 gamma g_max c [max_w |z_1t[w]| + sum_{s=2..t} sum_k "
                    "|z_st[k]|] in round t, z_st = M_s...M_{t-1} 1_{-i}: every worker's clipped "
                    "gradient of every earlier round may differ by 2 g_max once the target "
                    "influenced its model (no smoothness assumed)";
    s.adversary = receiver + " (sees its received signal in every round and may know every "
                             "other random draw of the run)";
    std::ostringstream c;
    c << "renyi dp over the rounds so far (adaptive, given the revealed draws), to (eps, delta) "
         "at delta = "
      << delta;
    s.composition = c.str();
    s.proof = "doc/fl-privacy.rst, section \"DWFL over rounds: the composed bound\"";
    return s;
}

PrivacyStatement
OtaPsComposedStatement(double delta)
{
    PrivacyStatement s;
    s.mechanism = "gaussian: each round's receiver noise plus the artificial noise of all N "
                  "senders (Seif, Tandon, Li, ISIT 2020)";
    s.sensitivity = "l2 <= 2 g_max c (one clipped gradient at the server's model, aligned "
                    "amplitude c)";
    s.unit = "the data set of one worker";
    s.neighbouring = "replace it with any other data set";
    s.adversary = "the parameter server (sees its received signal in every round)";
    std::ostringstream c;
    c << "renyi dp over the rounds so far (adaptive: each round's query is taken at the "
         "server's model, a function of its earlier receptions), to (eps, delta) at delta = "
      << delta;
    s.composition = c.str();
    s.proof = "doc/fl-privacy.rst, section \"The over-the-air parameter server over rounds\"";
    return s;
}

} // namespace fl
} // namespace ns3
