/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * (Just over 1,000 lines: the one suite of DWFL's pure core, one test per equation.)
 *
 * DWFL (S. Chen, D. Yu, Y. Zou, J. Yu, X. Cheng, "Decentralized Wireless Federated Learning with
 * Differential Privacy", arXiv:2109.09142, 2021) per-round maths and privacy formulas against
 * hand computations and the exact identities the paper's equations imply: alignment (eq. 3),
 * superposition (eq. 5), the Oracle and Practical decodes of eq. (7) (eq. 9 and its practical
 * residual), eq. (11), the orthogonal eps, the corrected O(1/sqrt N) bound and the calibration
 * of beta and kappa (Theorem IV.1).
 * Random inputs use fixed seeds; every check is an identity, so no statistical bound is needed.
 */
#include "ns3/dwfl-privacy.h"
#include "ns3/dwfl.h"
#include "ns3/ota-fading.h"
#include "ns3/ota-parameter-server.h"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <sstream>
#include <gtest/gtest.h>
#include <random>
#include <string>
#include <vector>

using namespace ns3::fl;

namespace
{

using VecD = Vec<double>;

/// A realised DWFL network: N workers with Rayleigh amplitudes |h_k| and budgets P_k.
struct Network
{
    std::vector<double> gainAbs;
    std::vector<double> powerW;
};

Network
RandomNetwork(std::size_t n, Rng& rng)
{
    std::normal_distribution<double> normal(0.0, 1.0);
    std::uniform_real_distribution<double> power(0.5, 2.0);
    Network net;
    for (std::size_t k = 0; k < n; ++k)
    {
        const double g1 = normal(rng);
        const double g2 = normal(rng);
        net.gainAbs.push_back(std::abs(RayleighCoefficient(g1, g2)));
        net.powerW.push_back(power(rng));
    }
    return net;
}

VecD
RandomVec(std::size_t d, double stddev, Rng& rng)
{
    if (stddev == 0.0)
    {
        return VecD::Zero(d);
    }
    std::normal_distribution<double> normal(0.0, stddev);
    VecD v(d);
    for (auto& e : v)
    {
        e = normal(rng);
    }
    return v;
}

VecD
Mean(const std::vector<VecD>& xs)
{
    VecD m = VecD::Zero(xs.front().size());
    for (const auto& x : xs)
    {
        m += x;
    }
    return m / static_cast<double>(xs.size());
}

DwflPrivacyParams
Params(double sigma2, double sigmaM2)
{
    DwflPrivacyParams p;
    p.gamma = 0.1;
    p.gMax = 1.0;
    p.sigma2 = sigma2;
    p.sigmaM2 = sigmaM2;
    p.delta = 1e-5;
    return p;
}

enum class Decode
{
    Oracle,
    Practical
};

/**
 * One DWFL round for all workers in process: local step (clip, SGD), signals, superposition,
 * update. `x` holds x^(t-1/2) on entry and x^(t+1/2) on return; `stepped` receives x^(t).
 */
void
Round(std::vector<VecD>& x,
      std::vector<VecD> gradients,
      const Network& net,
      double c,
      const std::vector<double>& beta,
      const std::vector<VecD>& g,
      const std::vector<VecD>& m,
      double gamma,
      double gMax,
      double eta,
      Decode decode,
      std::vector<VecD>* stepped = nullptr)
{
    const std::size_t n = x.size();
    const std::vector<double> alpha = DwflPowerFractions(net.gainAbs, net.powerW, c);
    std::vector<VecD> s(n);
    std::vector<const VecD*> sp, mp;
    for (std::size_t k = 0; k < n; ++k)
    {
        DwflLocalStep(x[k], gradients[k], gamma, gMax);
        s[k].resize(x[k].size());
        DwflTransmitSignal(x[k], g[k], alpha[k], beta[k], net.powerW[k], s[k]);
        sp.push_back(&s[k]);
        mp.push_back(&m[k]);
    }
    if (stepped)
    {
        *stepped = x;
    }
    std::vector<VecD> v;
    DwflSuperpose(sp, net.gainAbs, mp, v);
    for (std::size_t i = 0; i < n; ++i)
    {
        const double a = DwflNoiseGain(net.gainAbs[i], net.powerW[i], beta[i], c);
        if (decode == Decode::Oracle)
        {
            DwflOracleUpdate(x[i], v[i], g[i], m[i], a, c, n, eta);
        }
        else
        {
            DwflPracticalUpdate(x[i], v[i], g[i], a, c, n, eta);
        }
    }
}

/// Random round inputs: models, gradients (some above the clip norm), G_k and m_i.
struct RoundInputs
{
    std::vector<VecD> x, grad, g, m;
};

RoundInputs
RandomInputs(std::size_t n, std::size_t d, double sigma2, double sigmaM2, Rng& rng)
{
    RoundInputs in;
    for (std::size_t k = 0; k < n; ++k)
    {
        in.x.push_back(RandomVec(d, 1.0, rng));
        in.grad.push_back(RandomVec(d, 1.0, rng));
        in.g.push_back(RandomVec(d, std::sqrt(sigma2), rng));
        in.m.push_back(RandomVec(d, std::sqrt(sigmaM2), rng));
    }
    return in;
}

/// Clipped gradients, as the local step uses them.
VecD
MeanClippedGradient(const std::vector<VecD>& grads, double gMax)
{
    std::vector<VecD> clipped;
    for (const auto& g : grads)
    {
        clipped.push_back(g * std::min(1.0, gMax / g.norm()));
    }
    return Mean(clipped);
}

/// Calibrated beta at 0.9 kappa* for a target eps (feasible with headroom), all positive.
std::vector<double>
CalibratedBeta(const Network& net, const DwflPrivacyParams& p, double eps, double& c)
{
    const double kappa = 0.9 * DwflMaxKappa(net.gainAbs, net.powerW, p, eps);
    c = DwflAlignmentAmplitude(net.gainAbs, net.powerW, kappa);
    auto beta = CalibrateDwflBeta(net.gainAbs, net.powerW, c, p, eps);
    for (double b : beta)
    {
        EXPECT_GT(b, 0.0) << "the test needs artificial noise; lower eps";
    }
    return beta;
}

// delta = 1.25 e^{-2} makes sqrt(2 ln(1.25/delta)) = 2; with gamma = 0.5, g_max = 1: K = 2 c.
DwflPrivacyParams
HandParams(double sigma2, double sigmaM2)
{
    DwflPrivacyParams p;
    p.gamma = 0.5;
    p.gMax = 1.0;
    p.sigma2 = sigma2;
    p.sigmaM2 = sigmaM2;
    p.delta = 1.25 * std::exp(-2.0);
    return p;
}

/// The largest share of its power budget any worker uses, max_k alpha_k + beta_k.
double
MaxPowerUse(const std::vector<double>& alpha, const std::vector<double>& beta)
{
    double use = 0.0;
    for (std::size_t k = 0; k < alpha.size(); ++k)
    {
        use = std::max(use, alpha[k] + beta[k]);
    }
    return use;
}

// |h| = {1, 2, 3}, P = {4, 2, 1}: |h|^2 P = {4, 8, 9}, c = 2, alpha = {1, 1/2, 4/9}.
const Network kHand{{1.0, 2.0, 3.0}, {4.0, 2.0, 1.0}};

} // namespace

// ------------------------------------------------------------------------------ alignment

// Eta 0 selects (N-1)/N, the rate whose mixing matrix is the exact average; a positive eta is
// kept; N < 2 and a negative eta are refused naming Eta.
TEST(DwflAveragingRate, DefaultIsExactAveraging)
{
    EXPECT_NEAR(DwflAveragingRate(0.0, 10), 0.9, 1e-12);
    EXPECT_NEAR(DwflAveragingRate(0.0, 4), 0.75, 1e-12);
    EXPECT_EQ(DwflAveragingRate(0.5, 4), 0.5);
    EXPECT_THROW(DwflAveragingRate(0.0, 1), ConfigError);
    EXPECT_THROW(DwflAveragingRate(-0.1, 4), ConfigError);
    // With (N-1)/N one practical update of noiseless models gives every worker the average:
    // x_i + eta (sum_{k != i} x_k / (N-1) - x_i) with eta = 3/4, N = 4.
    const std::vector<double> models{1.0, 2.0, 4.0, 9.0};
    const double eta = DwflAveragingRate(0.0, 4);
    for (std::size_t i = 0; i < 4; ++i)
    {
        Vec<double> x = Vec<double>::Constant(1, models[i]);
        const Vec<double> v = Vec<double>::Constant(1, 16.0 - models[i]);
        DwflPracticalUpdate(x, v, Vec<double>::Zero(1), 0.0, 1.0, 4, eta);
        EXPECT_NEAR(x[0], 4.0, 1e-12) << "worker " << i;
    }
}

TEST(DwflAlignment, HandCase)
{
    EXPECT_DOUBLE_EQ(DwflAlignmentAmplitude(kHand.gainAbs, kHand.powerW, 1.0), 2.0);
    EXPECT_DOUBLE_EQ(DwflAlignmentAmplitude(kHand.gainAbs, kHand.powerW, 0.5), 1.0);
    const auto alpha = DwflPowerFractions(kHand.gainAbs, kHand.powerW, 2.0);
    EXPECT_NEAR(alpha[0], 1.0, 1e-15);
    EXPECT_NEAR(alpha[1], 0.5, 1e-15);
    EXPECT_NEAR(alpha[2], 4.0 / 9.0, 1e-15);
}

TEST(DwflAlignment, EveryModelArrivesWithAmplitudeC)
{
    Rng rng(11);
    for (double kappa : {1.0, 0.7})
    {
        const Network net = RandomNetwork(8, rng);
        const double c = DwflAlignmentAmplitude(net.gainAbs, net.powerW, kappa);
        const auto alpha = DwflPowerFractions(net.gainAbs, net.powerW, c);
        double maxAlpha = 0.0;
        for (std::size_t k = 0; k < alpha.size(); ++k)
        {
            EXPECT_NEAR(net.gainAbs[k] * std::sqrt(alpha[k] * net.powerW[k]), c, 1e-12);
            maxAlpha = std::max(maxAlpha, alpha[k]);
        }
        EXPECT_NEAR(maxAlpha, kappa * kappa, 1e-12); // the weakest worker has alpha = kappa^2
    }
}

TEST(DwflAlignment, RejectsBadConfiguration)
{
    EXPECT_THROW(DwflAlignmentAmplitude(kHand.gainAbs, kHand.powerW, 0.0), ConfigError);
    EXPECT_THROW(DwflAlignmentAmplitude(kHand.gainAbs, kHand.powerW, 1.5), ConfigError);
    EXPECT_THROW(DwflAlignmentAmplitude({1.0}, {1.0}, 1.0), ConfigError);
    EXPECT_THROW(DwflAlignmentAmplitude({1.0, 2.0}, {1.0}, 1.0), ConfigError);
    EXPECT_THROW(DwflAlignmentAmplitude({1.0, 0.0}, {1.0, 1.0}, 1.0), ConfigError);
    EXPECT_THROW(DwflPowerFractions(kHand.gainAbs, kHand.powerW, 2.0 * (1 + 1e-9)), ConfigError);
    EXPECT_THROW(DwflPowerFractions(kHand.gainAbs, kHand.powerW, 0.0), ConfigError);
}

TEST(DwflAlignment, PowerBudgetNamesTheWorker)
{
    EXPECT_NO_THROW(CheckDwflPowerBudget({1.0, 0.5}, {0.0, 0.5}));
    try
    {
        CheckDwflPowerBudget({1.0, 0.5, 0.25}, {0.0, 0.5, 0.8});
        FAIL() << "alpha + beta = 1.05 was accepted";
    }
    catch (const ConfigError& e)
    {
        EXPECT_EQ(e.Parameter(), "beta of worker 2");
        EXPECT_NE(std::string(e.what()).find("0.75"), std::string::npos) << e.what();
    }
    EXPECT_THROW(CheckDwflPowerBudget({0.5, 0.5}, {-0.1, 0.0}), ConfigError);
    EXPECT_THROW(CheckDwflPowerBudget({0.5, 0.5}, {0.1}), ConfigError);
}

// ------------------------------------------------------------------ signal and superposition

TEST(DwflSignal, TransmitAndNoiseGainHandValues)
{
    VecD x(2), g(2), s(2);
    x << 1.0, 2.0;
    g << 3.0, -1.0;
    // alpha = 1/4, beta = 1/2, P = 4: s = 1 x + sqrt(2) G
    DwflTransmitSignal(x, g, 0.25, 0.5, 4.0, s);
    EXPECT_NEAR(s[0], 1.0 + 3.0 * std::sqrt(2.0), 1e-15);
    EXPECT_NEAR(s[1], 2.0 - std::sqrt(2.0), 1e-15);
    // a = |h| sqrt(beta P) / c = 3 sqrt(2) / 2
    EXPECT_NEAR(DwflNoiseGain(3.0, 4.0, 0.5, 2.0), 1.5 * std::sqrt(2.0), 1e-15);
    EXPECT_THROW(DwflTransmitSignal(x, VecD::Zero(3), 0.25, 0.5, 4.0, s), ConfigError);
}

TEST(DwflSuperpose, EqualsTheSumOverTheOthersPlusOwnNoise)
{
    Rng rng(3);
    const std::size_t n = 6, d = 5;
    const Network net = RandomNetwork(n, rng);
    std::vector<VecD> s, m;
    std::vector<const VecD*> sp, mp;
    for (std::size_t k = 0; k < n; ++k)
    {
        s.push_back(RandomVec(d, 1.0, rng));
        m.push_back(RandomVec(d, 0.5, rng));
    }
    for (std::size_t k = 0; k < n; ++k)
    {
        sp.push_back(&s[k]);
        mp.push_back(&m[k]);
    }
    std::vector<VecD> v;
    DwflSuperpose(sp, net.gainAbs, mp, v);
    ASSERT_EQ(v.size(), n);
    for (std::size_t i = 0; i < n; ++i)
    {
        VecD direct = m[i];
        for (std::size_t k = 0; k < n; ++k)
        {
            if (k != i)
            {
                direct += net.gainAbs[k] * s[k];
            }
        }
        EXPECT_LT((v[i] - direct).lpNorm<Eigen::Infinity>(), 1e-12);
    }
    mp.pop_back();
    EXPECT_THROW(DwflSuperpose(sp, net.gainAbs, mp, v), ConfigError);
}

TEST(DwflSuperpose, AlignedModelsArriveAsCTimesTheirSum)
{
    // beta = 0, no receiver noise: v_i = c sum_{k != i} x_k (eq. 5).
    Rng rng(4);
    const std::size_t n = 5, d = 3;
    const Network net = RandomNetwork(n, rng);
    const double c = DwflAlignmentAmplitude(net.gainAbs, net.powerW, 1.0);
    const auto alpha = DwflPowerFractions(net.gainAbs, net.powerW, c);
    std::vector<VecD> x, s(n, VecD(d));
    const VecD zero = VecD::Zero(d);
    std::vector<const VecD*> sp, mp;
    for (std::size_t k = 0; k < n; ++k)
    {
        x.push_back(RandomVec(d, 1.0, rng));
    }
    for (std::size_t k = 0; k < n; ++k)
    {
        DwflTransmitSignal(x[k], zero, alpha[k], 0.0, net.powerW[k], s[k]);
        sp.push_back(&s[k]);
        mp.push_back(&zero);
    }
    std::vector<VecD> v;
    DwflSuperpose(sp, net.gainAbs, mp, v);
    const VecD sum = Mean(x) * static_cast<double>(n);
    for (std::size_t i = 0; i < n; ++i)
    {
        EXPECT_LT((v[i] - c * (sum - x[i])).lpNorm<Eigen::Infinity>(), 1e-12);
    }
}

// ------------------------------------------------------------------------- local step, update

TEST(DwflLocalStep, ClipsToGMaxThenSteps)
{
    VecD x(2), g(2);
    x << 1.0, 1.0;
    g << 3.0, 4.0; // norm 5, clipped to 1: (0.6, 0.8)
    EXPECT_NEAR(DwflLocalStep(x, g, 0.5, 1.0), 1.0, 1e-15);
    EXPECT_NEAR(x[0], 0.7, 1e-15);
    EXPECT_NEAR(x[1], 0.6, 1e-15);
    g << 0.3, 0.4; // norm 0.5 < g_max: unchanged
    EXPECT_NEAR(DwflLocalStep(x, g, 0.5, 1.0), 0.5, 1e-15);
    EXPECT_NEAR(x[0], 0.55, 1e-15);
    EXPECT_NEAR(x[1], 0.4, 1e-15);
    EXPECT_THROW(DwflLocalStep(x, g, 0.5, 0.0), ConfigError);
    EXPECT_THROW(DwflLocalStep(x, g, 0.0, 1.0), ConfigError);
}

TEST(DwflUpdate, HandValues)
{
    // N = 3, c = 2, a = 1/2, eta = 1/2, x = 1, v = 8, G = 1, m = 4.
    // Practical: 1 + 0.5 (8 / 4 - 1 - 0.5) = 1.25.
    // Oracle (eq. 7): Phi = a G + m / (c (N-1)) = 1.5; 1 + (0.5 / 2) (8 / 2 - 2 (1 + 1.5)) = 0.75.
    VecD x(1), v(1), g(1), m(1);
    v << 8.0;
    g << 1.0;
    m << 4.0;
    std::vector<double> buffer{1.0}; // an Eigen::Map over a buffer is updated in place
    DwflPracticalUpdate(Eigen::Map<VecD>(buffer.data(), 1), v, g, 0.5, 2.0, 3, 0.5);
    EXPECT_NEAR(buffer[0], 1.25, 1e-15);
    x << 1.0;
    DwflOracleUpdate(x, v, g, m, 0.5, 2.0, 3, 0.5);
    EXPECT_NEAR(x[0], 0.75, 1e-15);
    EXPECT_THROW(DwflPracticalUpdate(x, v, g, 0.5, 2.0, 1, 0.5), ConfigError);
    EXPECT_THROW(DwflPracticalUpdate(x, v, g, 0.5, 0.0, 3, 0.5), ConfigError);
    EXPECT_THROW(DwflPracticalUpdate(x, v, g, 0.5, 2.0, 3, 0.0), ConfigError);
    EXPECT_THROW(DwflOracleUpdate(x, v, g, VecD::Zero(2), 0.5, 2.0, 3, 0.5), ConfigError);
}

TEST(DwflOracle, NetworkAverageFollowsNoiselessSgd)
{
    // Eq. (9): xbar^(t+1/2) = xbar^(t-1/2) - gamma gbar, whatever h, sigma^2 and sigma_m^2.
    Rng rng(21);
    const std::size_t n = 5, d = 4;
    const double gamma = 0.3, gMax = 1.0, eta = 0.7;
    const DwflPrivacyParams p = Params(4.0, 0.05);
    for (int trial = 0; trial < 3; ++trial)
    {
        const Network net = RandomNetwork(n, rng);
        double c = 0.0;
        const auto beta = CalibratedBeta(net, p, 0.3, c);
        RoundInputs in = RandomInputs(n, d, p.sigma2, p.sigmaM2, rng);
        const VecD expected = Mean(in.x) - gamma * MeanClippedGradient(in.grad, gMax);
        Round(in.x, in.grad, net, c, beta, in.g, in.m, gamma, gMax, eta, Decode::Oracle);
        EXPECT_LT((Mean(in.x) - expected).lpNorm<Eigen::Infinity>(), 1e-10);
    }
}

TEST(DwflOracle, UpdateDoesNotDependOnTheReceiverNoise)
{
    Rng rng(22);
    const std::size_t n = 4, d = 3;
    const DwflPrivacyParams p = Params(4.0, 0.05);
    const Network net = RandomNetwork(n, rng);
    double c = 0.0;
    const auto beta = CalibratedBeta(net, p, 0.3, c);
    RoundInputs a = RandomInputs(n, d, p.sigma2, p.sigmaM2, rng);
    RoundInputs b = a;
    for (auto& m : b.m)
    {
        m = RandomVec(d, 10.0, rng);
    }
    Round(a.x, a.grad, net, c, beta, a.g, a.m, 0.2, 1.0, 0.6, Decode::Oracle);
    Round(b.x, b.grad, net, c, beta, b.g, b.m, 0.2, 1.0, 0.6, Decode::Oracle);
    for (std::size_t i = 0; i < n; ++i)
    {
        EXPECT_LT((a.x[i] - b.x[i]).lpNorm<Eigen::Infinity>(), 1e-10);
    }
}

TEST(DwflPractical, AverageDeviatesByTheReceiverNoise)
{
    // xbar^(t+1/2) = xbar^(t-1/2) - gamma gbar + eta sum_i m_i / (c N (N-1)).
    Rng rng(23);
    const std::size_t n = 6, d = 4;
    const double gamma = 0.3, gMax = 1.0, eta = 0.8;
    const DwflPrivacyParams p = Params(4.0, 0.05);
    const Network net = RandomNetwork(n, rng);
    double c = 0.0;
    const auto beta = CalibratedBeta(net, p, 0.3, c);
    RoundInputs in = RandomInputs(n, d, p.sigma2, p.sigmaM2, rng);
    const VecD sgd = Mean(in.x) - gamma * MeanClippedGradient(in.grad, gMax);
    const VecD residual =
        eta * Mean(in.m) * static_cast<double>(n) / (c * static_cast<double>(n * (n - 1)));
    Round(in.x, in.grad, net, c, beta, in.g, in.m, gamma, gMax, eta, Decode::Practical);
    EXPECT_GT(residual.lpNorm<Eigen::Infinity>(), 1e-3); // the residual is really there
    EXPECT_LT((Mean(in.x) - sgd - residual).lpNorm<Eigen::Infinity>(), 1e-10);
}

TEST(DwflPractical, EtaNMinus1OverNAveragesExactlyWithoutNoise)
{
    Rng rng(24);
    const std::size_t n = 5, d = 3;
    const Network net = RandomNetwork(n, rng);
    const double c = DwflAlignmentAmplitude(net.gainAbs, net.powerW, 0.8);
    const std::vector<double> beta(n, 0.0);
    RoundInputs in = RandomInputs(n, d, 1.0, 0.0, rng); // G_k is drawn but beta = 0, m = 0
    std::vector<VecD> stepped;
    const double eta = static_cast<double>(n - 1) / static_cast<double>(n);
    Round(in.x, in.grad, net, c, beta, in.g, in.m, 0.3, 1.0, eta, Decode::Practical, &stepped);
    const VecD avg = Mean(stepped);
    for (std::size_t i = 0; i < n; ++i)
    {
        EXPECT_LT((in.x[i] - avg).lpNorm<Eigen::Infinity>(), 1e-12);
    }
}

// ---------------------------------------------------------------------------------- privacy

TEST(DwflPrivacy, Eq11HandValues)
{
    // beta = {0, 1/2, 1/2}, sigma^2 = 1, sigma_m^2 = 1/2: sender noise {0, 4, 9/2}; K = 2 c = 4.
    const std::vector<double> beta{0.0, 0.5, 0.5};
    const DwflPrivacyParams p = HandParams(1.0, 0.5);
    EXPECT_NEAR(DwflPrivacyConstant(2.0, p), 4.0, 1e-14);
    EXPECT_NEAR(DwflEpsilon(0, kHand.gainAbs, kHand.powerW, beta, 2.0, p), 4.0 / 3.0, 1e-12);
    EXPECT_NEAR(DwflEpsilon(1, kHand.gainAbs, kHand.powerW, beta, 2.0, p),
                4.0 / std::sqrt(5.0),
                1e-12);
    EXPECT_NEAR(DwflEpsilon(2, kHand.gainAbs, kHand.powerW, beta, 2.0, p),
                4.0 * std::sqrt(2.0) / 3.0,
                1e-12);
    EXPECT_THROW(DwflEpsilon(3, kHand.gainAbs, kHand.powerW, beta, 2.0, p), ConfigError);
    EXPECT_THROW(DwflEpsilon(0, kHand.gainAbs, kHand.powerW, {0.0}, 2.0, p), ConfigError);
    DwflPrivacyParams bad = p;
    bad.delta = 1.0;
    EXPECT_THROW(DwflEpsilon(0, kHand.gainAbs, kHand.powerW, beta, 2.0, bad), ConfigError);
}

TEST(DwflPrivacy, ChannelNoiseAloneGivesAFiniteEps)
{
    // sigma = 0: eps_i = 2 gamma g_max c sqrt(2 ln(1.25/delta)) / sigma_m = 4 / 0.5 = 8.
    const std::vector<double> beta{0.0, 0.5, 0.5};
    const DwflPrivacyParams p = HandParams(0.0, 0.25);
    for (std::size_t i = 0; i < 3; ++i)
    {
        EXPECT_NEAR(DwflEpsilon(i, kHand.gainAbs, kHand.powerW, beta, 2.0, p), 8.0, 1e-12);
    }
}

TEST(DwflPrivacy, OrthogonalHandValues)
{
    // j = 1: 2 (1/2) sqrt(8) 2 / sqrt(4 + 1/2) = 8/3;  j = 2: 6 / sqrt(9/2 + 1/2) = 6 / sqrt(5).
    const DwflPrivacyParams p = HandParams(1.0, 0.5);
    EXPECT_NEAR(DwflOrthogonalEpsilon(2.0, 2.0, 0.5, p), 8.0 / 3.0, 1e-12);
    EXPECT_NEAR(DwflOrthogonalEpsilon(3.0, 1.0, 0.5, p), 6.0 / std::sqrt(5.0), 1e-12);
}

TEST(DwflPrivacy, CorrectedBoundHoldsAndIsTightForEqualSenders)
{
    // Hand: i = 0, m_0 = min(4, 9/2) = 4: K / sqrt(2 * 4 + 1/2) = 4 / sqrt(8.5).
    const DwflPrivacyParams hand = HandParams(1.0, 0.5);
    const std::vector<double> hb{0.0, 0.5, 0.5};
    EXPECT_NEAR(DwflEpsilonBound(0, kHand.gainAbs, kHand.powerW, hb, 2.0, hand),
                4.0 / std::sqrt(8.5),
                1e-12);

    Rng rng(31);
    const std::size_t n = 7;
    const Network net = RandomNetwork(n, rng);
    const double c = DwflAlignmentAmplitude(net.gainAbs, net.powerW, 0.5);
    const DwflPrivacyParams p = Params(2.0, 1.0);
    std::uniform_real_distribution<double> frac(0.0, 0.75); // alpha <= 1/4 at kappa = 1/2
    std::vector<double> beta(n), equal(n);
    for (std::size_t k = 0; k < n; ++k)
    {
        beta[k] = frac(rng);
        // equal sender noise 0.3: |h_k|^2 beta_k P_k sigma^2 = 0.3
        equal[k] = 0.3 / (net.gainAbs[k] * net.gainAbs[k] * net.powerW[k] * p.sigma2);
    }
    for (std::size_t i = 0; i < n; ++i)
    {
        const double eps = DwflEpsilon(i, net.gainAbs, net.powerW, beta, c, p);
        const double bound = DwflEpsilonBound(i, net.gainAbs, net.powerW, beta, c, p);
        EXPECT_LT(eps, bound);
        EXPECT_NEAR(DwflEpsilon(i, net.gainAbs, net.powerW, equal, c, p),
                    DwflEpsilonBound(i, net.gainAbs, net.powerW, equal, c, p),
                    1e-12);
    }
}

TEST(DwflPrivacy, EpsTimesSqrtNMinus1TendsToAConstant)
{
    // Each sender adds q = |h_k|^2 beta_k P_k sigma^2 at a fixed c: eps_i sqrt(N-1) =
    // K / sqrt(q + sigma_m^2 / (N-1)) -> K / sqrt(q), from below, within K/sqrt(q) x/2,
    // x = sigma_m^2 / (q (N-1)) (1/sqrt(1 + x) >= 1 - x/2).
    Rng rng(32);
    const DwflPrivacyParams p = Params(1.0, 1.0);
    const double c = 0.5, q = 0.2;
    std::uniform_real_distribution<double> gain(1.0, 2.0);
    const double limit = DwflPrivacyConstant(c, p) / std::sqrt(q);
    double previous = 0.0;
    for (std::size_t n : {2u, 5u, 20u, 100u, 1000u})
    {
        Network net;
        std::vector<double> beta;
        for (std::size_t k = 0; k < n; ++k)
        {
            net.gainAbs.push_back(gain(rng));
            net.powerW.push_back(1.0);
            beta.push_back(q / (net.gainAbs[k] * net.gainAbs[k] * p.sigma2));
        }
        const double scaled =
            DwflEpsilon(0, net.gainAbs, net.powerW, beta, c, p) * std::sqrt(double(n - 1));
        const double x = p.sigmaM2 / (q * static_cast<double>(n - 1));
        EXPECT_GT(scaled, previous);
        EXPECT_LE(scaled, limit);
        EXPECT_GE(scaled, limit * (1.0 - x / 2.0));
        previous = scaled;
    }
    EXPECT_NEAR(previous / limit, 1.0, 0.003);
}

// ------------------------------------------------------------------------------ calibration

TEST(DwflCalibration, MeetsTheTargetWithinThePowerBudget)
{
    Rng rng(41);
    for (std::size_t n : {3u, 10u})
    {
        const Network net = RandomNetwork(n, rng);
        const DwflPrivacyParams p = Params(1.0, 0.01);
        for (double target : {0.1, 0.5})
        {
            const double kappaStar = DwflMaxKappa(net.gainAbs, net.powerW, p, target);
            ASSERT_LT(kappaStar, 1.0);
            for (double kappa : {0.5 * kappaStar, kappaStar})
            {
                const double c = DwflAlignmentAmplitude(net.gainAbs, net.powerW, kappa);
                const auto beta = CalibrateDwflBeta(net.gainAbs, net.powerW, c, p, target);
                const auto alpha = DwflPowerFractions(net.gainAbs, net.powerW, c);
                EXPECT_NO_THROW(CheckDwflPowerBudget(alpha, beta));
                if (kappa == kappaStar)
                {
                    // kappa* uses the weakest worker's budget
                    EXPECT_NEAR(MaxPowerUse(alpha, beta), 1.0, 1e-12);
                }
                for (std::size_t i = 0; i < n; ++i)
                {
                    EXPECT_NEAR(DwflEpsilon(i, net.gainAbs, net.powerW, beta, c, p) / target,
                                1.0,
                                1e-12);
                }
            }
        }
    }
}

TEST(DwflCalibration, ReceiverNoiseAloneNeedsNoArtificialNoise)
{
    // sigma_s,req = K / eps = 4 / 8 = 1/2 < sigma_m = 1: S = 0, beta = 0, eps_i = 4 < 8.
    const DwflPrivacyParams p = HandParams(1.0, 1.0);
    const auto beta = CalibrateDwflBeta(kHand.gainAbs, kHand.powerW, 2.0, p, 8.0);
    for (std::size_t k = 0; k < 3; ++k)
    {
        EXPECT_EQ(beta[k], 0.0);
        EXPECT_NEAR(DwflEpsilon(k, kHand.gainAbs, kHand.powerW, beta, 2.0, p), 4.0, 1e-12);
    }
    EXPECT_DOUBLE_EQ(DwflMaxKappa(kHand.gainAbs, kHand.powerW, p, 8.0), 1.0);
}

TEST(DwflCalibration, HandKappaStar)
{
    // c_0 = 2, K(1) = 2, eps = 1: A = 4; N-1 = 2, sigma^2 = 1, sigma_m^2 = 1/2:
    // u = (2 * 4 + 1/2) / (2 + 4) = 17/12, kappa* = sqrt(17/12) / 2.
    const DwflPrivacyParams p = HandParams(1.0, 0.5);
    EXPECT_NEAR(DwflMaxKappa(kHand.gainAbs, kHand.powerW, p, 1.0),
                std::sqrt(17.0 / 12.0) / 2.0,
                1e-15);
}

TEST(DwflCalibration, InfeasibleTargetsThrowNamingTheWorkerAndTheFix)
{
    Rng rng(42);
    const std::size_t n = 6;
    const Network net = RandomNetwork(n, rng);
    const DwflPrivacyParams p = Params(1.0, 0.01);
    const double target = 0.2;
    std::size_t weakest = 0;
    for (std::size_t k = 1; k < n; ++k)
    {
        if (net.gainAbs[k] * net.gainAbs[k] * net.powerW[k] <
            net.gainAbs[weakest] * net.gainAbs[weakest] * net.powerW[weakest])
        {
            weakest = k;
        }
    }
    const double kappaStar = DwflMaxKappa(net.gainAbs, net.powerW, p, target);
    ASSERT_LT(kappaStar, 1.0);
    for (double kappa : {1.0, kappaStar * (1.0 + 1e-6)})
    {
        const double c = DwflAlignmentAmplitude(net.gainAbs, net.powerW, kappa);
        try
        {
            CalibrateDwflBeta(net.gainAbs, net.powerW, c, p, target);
            FAIL() << "kappa " << kappa << " above kappa* " << kappaStar << " was accepted";
        }
        catch (const ConfigError& e)
        {
            const std::string what = e.what();
            EXPECT_EQ(e.Parameter(), "beta of worker " + std::to_string(weakest));
            EXPECT_NE(what.find("lower kappa"), std::string::npos) << what;
            EXPECT_NE(what.find("raise eps"), std::string::npos) << what;
            // at kappa = 1 the weakest worker has no headroom: raising sigma^2 cannot help
            EXPECT_EQ(what.find("raise sigma^2") == std::string::npos, kappa == 1.0) << what;
        }
    }
    // No noise at all cannot meet any eps.
    const double c = DwflAlignmentAmplitude(net.gainAbs, net.powerW, 0.5);
    EXPECT_THROW(CalibrateDwflBeta(net.gainAbs, net.powerW, c, Params(0.0, 0.0), target),
                 ConfigError);
    EXPECT_THROW(DwflMaxKappa(net.gainAbs, net.powerW, Params(0.0, 0.0), target), ConfigError);
    EXPECT_THROW(CalibrateDwflBeta(net.gainAbs, net.powerW, c, p, 0.0), ConfigError);
}

// ---------------------------------------------------------- mechanisms, orthogonal calibration

TEST(DwflPrivacy, MechanismsGiveTheEpsOfEq11AndTheOrthogonalLink)
{
    // Receiver 0: sensitivity 2 gamma g_max c = 2, sigma_s = sqrt(4 + 9/2 + 1/2) = 3;
    // with sqrt(2 ln(1.25/delta)) = 2 the classic Gaussian eps is 4/3 = eq. (11).
    const std::vector<double> beta{0.0, 0.5, 0.5};
    const DwflPrivacyParams p = HandParams(1.0, 0.5);
    const MechanismSpec rx = DwflReceiverMechanism(0, kHand.gainAbs, kHand.powerW, beta, 2.0, p);
    EXPECT_EQ(rx.kind, MechanismKind::Gaussian);
    EXPECT_NEAR(rx.sensitivity, 2.0, 1e-14);
    EXPECT_NEAR(rx.scale, 3.0, 1e-14);
    EXPECT_NEAR(GaussianEpsilonClassic(rx.sensitivity, rx.scale, p.delta), 4.0 / 3.0, 1e-12);
    // Link 1 -> i: sensitivity 2 (1/2) sqrt(8) = sqrt(8), sigma = sqrt(4 + 1/2): eps 8/3.
    const MechanismSpec link = DwflOrthogonalMechanism(2.0, 2.0, 0.5, p);
    EXPECT_NEAR(link.sensitivity, std::sqrt(8.0), 1e-14);
    EXPECT_NEAR(link.scale, std::sqrt(4.5), 1e-14);
    EXPECT_NEAR(GaussianEpsilonClassic(link.sensitivity, link.scale, p.delta), 8.0 / 3.0, 1e-12);
    // No noise at all: no guarantee.
    const DwflPrivacyParams silent = HandParams(0.0, 0.0);
    EXPECT_EQ(DwflReceiverMechanism(0, kHand.gainAbs, kHand.powerW, beta, 2.0, silent).kind,
              MechanismKind::None);
    EXPECT_EQ(DwflOrthogonalMechanism(2.0, 2.0, 0.5, silent).kind, MechanismKind::None);
}

TEST(DwflCalibration, OrthogonalLinksMeetTheTargetHandValues)
{
    // eps = 2, K_j = 2 sqrt(|h_j|^2 P_j): sigma_req^2 = |h_j|^2 P_j, beta_j = (g_j - 1/2) / g_j
    // with g = {4, 8, 9}.
    const DwflPrivacyParams p = HandParams(1.0, 0.5);
    const std::vector<double> beta =
        CalibrateDwflOrthogonalBeta(kHand.gainAbs, kHand.powerW, p, 2.0);
    const std::vector<double> expected{3.5 / 4.0, 7.5 / 8.0, 8.5 / 9.0};
    for (std::size_t j = 0; j < 3; ++j)
    {
        EXPECT_NEAR(beta[j], expected[j], 1e-12);
        EXPECT_NEAR(DwflOrthogonalEpsilon(kHand.gainAbs[j], kHand.powerW[j], beta[j], p),
                    2.0,
                    1e-12);
    }
    // Receiver noise above every sigma_req^2: no artificial noise.
    for (double b :
         CalibrateDwflOrthogonalBeta(kHand.gainAbs, kHand.powerW, HandParams(1.0, 10.0), 2.0))
    {
        EXPECT_EQ(b, 0.0);
    }
    EXPECT_THROW(
        CalibrateDwflOrthogonalBeta(kHand.gainAbs, kHand.powerW, HandParams(0.0, 0.5), 2.0),
        ConfigError);
    EXPECT_THROW(CalibrateDwflOrthogonalBeta(kHand.gainAbs, kHand.powerW, p, 0.0), ConfigError);
}

TEST(DwflAlignment, MaxKappaForFixedNoiseFractions)
{
    // |h|^2 P = {4, 8, 9}: kappa* = sqrt(min_k (1 - beta_k) g_k / 4).
    EXPECT_NEAR(DwflMaxKappaForBudget(kHand.gainAbs, kHand.powerW, {0.5, 0.5, 0.5}),
                std::sqrt(0.5),
                1e-14);
    EXPECT_NEAR(DwflMaxKappaForBudget(kHand.gainAbs, kHand.powerW, {0.0, 0.9, 0.0}),
                std::sqrt(0.2),
                1e-14);
    EXPECT_EQ(DwflMaxKappaForBudget(kHand.gainAbs, kHand.powerW, {0.0, 0.0, 0.0}), 1.0);
    EXPECT_EQ(DwflMaxKappaForBudget(kHand.gainAbs, kHand.powerW, {0.0, 0.5, 0.5}), 1.0);
    // At kappa* the budget holds with the binding worker at alpha + beta = 1.
    const std::vector<double> beta{0.0, 0.9, 0.0};
    const double c =
        DwflAlignmentAmplitude(kHand.gainAbs,
                               kHand.powerW,
                               DwflMaxKappaForBudget(kHand.gainAbs, kHand.powerW, beta));
    const std::vector<double> alpha = DwflPowerFractions(kHand.gainAbs, kHand.powerW, c);
    EXPECT_NO_THROW(CheckDwflPowerBudget(alpha, beta));
    EXPECT_NEAR(alpha[1] + beta[1], 1.0, 1e-12);
    EXPECT_THROW(DwflMaxKappaForBudget(kHand.gainAbs, kHand.powerW, {0.0, 1.0, 0.0}), ConfigError);
    EXPECT_THROW(DwflMaxKappaForBudget(kHand.gainAbs, kHand.powerW, {0.0}), ConfigError);
}

// ------------------------------------- centralized over-the-air parameter server (Seif et al.)

TEST(OtaPs, HandValues)
{
    // w = (1, 2), y = (4, -2), c = 2, N = 2, gamma = 0.5: w - gamma y / (c N) = (0.5, 2.25).
    VecD w(2), y(2), g(2);
    w << 1.0, 2.0;
    y << 4.0, -2.0;
    OtaPsAverageGradient(y, 2.0, 2, g);
    EXPECT_DOUBLE_EQ(g[0], 1.0);
    EXPECT_DOUBLE_EQ(g[1], -0.5);
    OtaPsUpdate(w, y, 2.0, 2, 0.5);
    EXPECT_DOUBLE_EQ(w[0], 0.5);
    EXPECT_DOUBLE_EQ(w[1], 2.25);
    // the gradient of a step: (start - stepped) / gamma
    VecD start(2), stepped(2), out(2);
    start << 1.0, -1.0;
    stepped << 0.5, -0.75;
    GradientFromStep(start, stepped, 0.25, out);
    EXPECT_DOUBLE_EQ(out[0], 2.0);
    EXPECT_DOUBLE_EQ(out[1], -1.0);
    EXPECT_THROW(OtaPsUpdate(w, VecD::Zero(3), 2.0, 2, 0.5), ConfigError);
    EXPECT_THROW(OtaPsUpdate(w, y, 0.0, 2, 0.5), ConfigError);
    EXPECT_THROW(OtaPsUpdate(w, y, 2.0, 0, 0.5), ConfigError);
    EXPECT_THROW(OtaPsUpdate(w, y, 2.0, 2, 0.0), ConfigError);
    EXPECT_THROW(GradientFromStep(start, stepped, 0.0, out), ConfigError);
}

/// One round of the parameter server in process from w: every worker's clipped gradient at w
/// (DwflLocalStep, recovered by GradientFromStep), signals, superposition at the server, update.
/// Returns the new w; `meanGradient` gets the average clipped gradient.
VecD
ServerRound(const VecD& w,
            std::vector<VecD> gradients,
            const Network& net,
            double c,
            const std::vector<double>& beta,
            const std::vector<VecD>& g,
            const VecD& m,
            double gamma,
            VecD& meanGradient)
{
    const std::size_t n = gradients.size();
    const std::vector<double> alpha = DwflPowerFractions(net.gainAbs, net.powerW, c);
    std::vector<VecD> s(n, VecD(w.size()));
    std::vector<const VecD*> sp;
    meanGradient = VecD::Zero(w.size());
    for (std::size_t k = 0; k < n; ++k)
    {
        VecD x = w;
        DwflLocalStep(x, gradients[k], gamma, 1.0);
        VecD clipped(w.size());
        GradientFromStep(w, x, gamma, clipped);
        EXPECT_LT((clipped - gradients[k]).lpNorm<Eigen::Infinity>(), 1e-12);
        meanGradient += clipped / static_cast<double>(n);
        DwflTransmitSignal(clipped, g[k], alpha[k], beta[k], net.powerW[k], s[k]);
        sp.push_back(&s[k]);
    }
    VecD y;
    OtaPsSuperpose(sp, net.gainAbs, m, y);
    VecD next = w;
    OtaPsUpdate(next, y, c, n, gamma);
    return next;
}

// Without noise the aligned server is mini-batch SGD on the average clipped gradient; with the
// calibrated artificial noise and receiver noise, the model moves off it by exactly
// -gamma (sum_k a_k G_k + m / c) / N: nothing cancels (unlike DWFL's eq. 9).
TEST(OtaPs, ServerIsSgdPlusTheNoiseItReceives)
{
    Rng rng(51);
    const std::size_t n = 7, d = 6;
    const double gamma = 0.2;
    const Network net = RandomNetwork(n, rng);
    const VecD w = RandomVec(d, 1.0, rng);
    std::vector<VecD> gradients, g, zeros(n, VecD::Zero(d));
    for (std::size_t k = 0; k < n; ++k)
    {
        gradients.push_back(RandomVec(d, 1.0, rng)); // some above g_max = 1: clipped
        g.push_back(RandomVec(d, 1.0, rng));
    }
    const VecD m = RandomVec(d, 0.3, rng);
    const double c = DwflAlignmentAmplitude(net.gainAbs, net.powerW, 1.0);
    VecD mean;
    const VecD quiet =
        ServerRound(w, gradients, net, c, std::vector<double>(n, 0.0), zeros, VecD::Zero(d), gamma, mean);
    EXPECT_LT((quiet - (w - gamma * mean)).lpNorm<Eigen::Infinity>(), 1e-12);

    DwflPrivacyParams p = Params(1.0, 0.09);
    p.gamma = gamma;
    const double eps = 2.0;
    const double cn = DwflAlignmentAmplitude(net.gainAbs,
                                             net.powerW,
                                             OtaPsMaxKappa(net.gainAbs, net.powerW, p, eps));
    const auto beta = CalibrateOtaPsBeta(net.gainAbs, net.powerW, cn, p, eps);
    const VecD noisy = ServerRound(w, gradients, net, cn, beta, g, m, gamma, mean);
    VecD expected = m / cn;
    for (std::size_t k = 0; k < n; ++k)
    {
        EXPECT_GT(beta[k], 0.0);
        expected += DwflNoiseGain(net.gainAbs[k], net.powerW[k], beta[k], cn) * g[k];
    }
    expected *= -gamma / static_cast<double>(n);
    EXPECT_GT(expected.norm(), 1e-3);
    EXPECT_LT((noisy - (w - gamma * mean) - expected).lpNorm<Eigen::Infinity>(), 1e-12);
}

// The server's eps by hand: kHand (c = 2), g_max = 1, sqrt(2 ln(1.25/delta)) = 2, so
// K = 2 g_max c 2 = 8 whatever gamma; beta = {1/8, 1/4, 0}, sigma^2 = 1, sigma_m^2 = 1:
// noise = 4/8 + 8/4 + 0 + 1 = 3.5, eps_PS = 8 / sqrt(3.5).
TEST(OtaPs, ServerEpsilonHandValues)
{
    const DwflPrivacyParams p = HandParams(1.0, 1.0);
    const std::vector<double> beta{1.0 / 8.0, 1.0 / 4.0, 0.0};
    EXPECT_NEAR(OtaPsEpsilon(kHand.gainAbs, kHand.powerW, beta, 2.0, p), 8.0 / std::sqrt(3.5), 1e-12);
    const MechanismSpec spec = OtaPsServerMechanism(kHand.gainAbs, kHand.powerW, beta, 2.0, p);
    EXPECT_EQ(spec.kind, MechanismKind::Gaussian);
    EXPECT_NEAR(spec.sensitivity, 4.0, 1e-15); // 2 g_max c, gamma does not enter
    EXPECT_NEAR(spec.scale, std::sqrt(3.5), 1e-15);
    // DWFL's receiver 2 hears workers 0 and 1 only, with the step's sensitivity 2 gamma g_max c.
    EXPECT_NEAR(DwflEpsilon(2, kHand.gainAbs, kHand.powerW, beta, 2.0, p),
                4.0 / std::sqrt(3.5),
                1e-12);
}

// Calibration at the server: eps_PS = the target to 1e-12 within the power budget, the largest
// kappa uses the weakest worker's whole budget, and a larger kappa is refused naming the fix.
TEST(OtaPs, CalibrationMeetsTheTargetAndKappaStarIsTight)
{
    Rng rng(52);
    const std::size_t n = 8;
    const Network net = RandomNetwork(n, rng);
    const DwflPrivacyParams p = Params(1.0, 0.01);
    for (double target : {0.5, 2.0})
    {
        const double kappaStar = OtaPsMaxKappa(net.gainAbs, net.powerW, p, target);
        ASSERT_LT(kappaStar, 1.0);
        const double c = DwflAlignmentAmplitude(net.gainAbs, net.powerW, kappaStar);
        const auto beta = CalibrateOtaPsBeta(net.gainAbs, net.powerW, c, p, target);
        EXPECT_NEAR(MaxPowerUse(DwflPowerFractions(net.gainAbs, net.powerW, c), beta), 1.0, 1e-12);
        EXPECT_NEAR(OtaPsEpsilon(net.gainAbs, net.powerW, beta, c, p) / target, 1.0, 1e-12);
        const double above = DwflAlignmentAmplitude(net.gainAbs, net.powerW, kappaStar * 1.001);
        try
        {
            CalibrateOtaPsBeta(net.gainAbs, net.powerW, above, p, target);
            FAIL() << "kappa above kappa* accepted";
        }
        catch (const ConfigError& e)
        {
            EXPECT_NE(std::string(e.what()).find("split over 8 senders"), std::string::npos)
                << e.what();
            EXPECT_NE(std::string(e.what()).find("lower kappa"), std::string::npos) << e.what();
        }
    }
}

TEST(DwflPrivacy, TableRowHandValues)
{
    // gamma = 0.5, g_max = 1, delta = 1.25 e^-2 (sqrt(2 ln(1.25/delta)) = 2): K(a) = 2a;
    // |h_k|^2 P_k = {4, 16}, kappa = 0.5: c = 0.5 * 2 = 1, alpha = {1/4, 1/16},
    // beta = {3/4, 15/16}; sigma^2 = sigma_m^2 = 1.
    // eq. (11): eps_0 = K(1) / sqrt(16 * 15/16 + 1) = 2 / 4, eps_1 = 2 / sqrt(4 * 3/4 + 1) = 1;
    // orthogonal: eps_0 = K(2) / sqrt(4 * 3/4 + 1) = 2, eps_1 = K(4) / sqrt(16 * 15/16 + 1) = 2
    DwflPrivacyParams p;
    p.gamma = 0.5;
    p.gMax = 1.0;
    p.delta = 1.25 * std::exp(-2.0);
    p.sigma2 = 1.0;
    p.sigmaM2 = 1.0;
    const DwflPrivacyTableRow row = DwflPrivacyTableRowFor({4.0, 16.0}, 0.5, p);
    EXPECT_EQ(row.n, 2u);
    EXPECT_NEAR(row.c, 1.0, 1e-12);
    EXPECT_NEAR(row.epsMax, 1.0, 1e-12);
    EXPECT_NEAR(row.epsMin, 0.5, 1e-12);
    EXPECT_NEAR(row.orthMax, 2.0, 1e-12);
    EXPECT_NEAR(row.orthMin, 2.0, 1e-12);
    EXPECT_THROW(DwflPrivacyTableRowFor({4.0, 16.0}, 0.0, p), ConfigError);
}

TEST(DwflPrivacy, TableWriterRowsAndErrors)
{
    DwflPrivacyParams p;
    p.gamma = 0.5;
    p.gMax = 1.0;
    p.delta = 1.25 * std::exp(-2.0);
    p.sigma2 = 1.0;
    p.sigmaM2 = 1.0;
    std::ostringstream os;
    WriteDwflPrivacyTable(os, {2}, {4.0, 16.0, 64.0}, 0.5, p);
    const std::string text = os.str();
    EXPECT_EQ(text.substr(0, text.find('\n')),
              "n,c,eps_i_max,eps_i_min,eps_orth_max,eps_orth_min,eps_i_max_x_sqrt_n_minus_1");
    // the row of TableRowHandValues (the first two of the three values), eps_max sqrt(1) = 1
    EXPECT_EQ(text.substr(text.rfind('\n', text.size() - 2) + 1), "2,1,1,0.5,2,2,1\n");
    EXPECT_EQ(std::count(text.begin(), text.end(), '#'), 2);
    // one value for all: |h_k|^2 P_k = 4, kappa = 1: c = 2, alpha = 1, beta = 0: only the
    // receiver noise, eps_i = K(2) / 1 = 4, orthogonal K(2) / 1 = 4, x sqrt(2) for N = 3
    std::ostringstream one;
    WriteDwflPrivacyTable(one, {3}, {4.0}, 1.0, p);
    std::ostringstream expected;
    expected << std::setprecision(12) << "3,2,4,4,4,4," << 4.0 * std::sqrt(2.0) << "\n";
    EXPECT_EQ(one.str().substr(one.str().rfind('\n', one.str().size() - 2) + 1), expected.str());
    std::ostringstream bad;
    EXPECT_THROW(WriteDwflPrivacyTable(bad, {4}, {4.0, 16.0}, 0.5, p), ConfigError);
}

TEST(DwflPrivacy, OrthogonalSigma2FloorHandValue)
{
    // gamma = 0.5, g_max = 1, delta = 1.25 e^-2: K_1 = 2 * 0.5 * 1 * sqrt(2 * 2) = 2;
    // eps = 0.5: (2 / 0.5)^2 = 16
    DwflPrivacyParams p;
    p.gamma = 0.5;
    p.gMax = 1.0;
    p.delta = 1.25 * std::exp(-2.0);
    p.sigma2 = 1.0;
    p.sigmaM2 = 1.0;
    EXPECT_NEAR(DwflOrthogonalSigma2Floor(0.5, p), 16.0, 1e-12);
    EXPECT_NEAR(DwflOrthogonalSigma2Floor(4.0, p), 0.25, 1e-12);
    EXPECT_THROW(DwflOrthogonalSigma2Floor(0.0, p), ConfigError);
}

// The composed column of the privacy table, N = 2, |h_k|^2 P_k = {4, 16}, kappa = 0.5 (c = 1,
// beta = {3/4, 15/16}), gamma = 0.5, g_max = 1 (Delta_1 = 1), eta = 1/2, T = 2. Receiver 1
// hears worker 0: sigma_n^2 = 4 (3/4) + 1 = 4, a_0 = sqrt(3), b_0 = sqrt(3) / 4, and the drift
// matrix entry (1 - eta) + eta a_0 b_0 c = 1/2 + 3/8 = 7/8, so Delta_2 = 7/8 + 1 = 15/8.
// Receiver 0 (sigma_n = 4, entry 31/32) is less exposed; the column is receiver 1's.
TEST(DwflPrivacy, TableComposedColumnByHand)
{
    DwflPrivacyParams p;
    p.gamma = 0.5;
    p.gMax = 1.0;
    p.delta = 1e-5;
    p.sigma2 = 1.0;
    p.sigmaM2 = 1.0;
    std::ostringstream os;
    WriteDwflPrivacyTable(os, {2}, {4.0, 16.0}, 0.5, p, 2, 0.0);
    const std::string text = os.str();
    EXPECT_NE(text.find(",eps_composed\n"), std::string::npos);
    EXPECT_EQ(std::count(text.begin(), text.end(), '#'), 3);
    PrivacyAccountant hand;
    hand.AddGaussian(1.0, 2.0);
    hand.AddGaussian(15.0 / 8.0, 2.0);
    const std::string last = text.substr(text.rfind(',') + 1);
    EXPECT_NEAR(std::stod(last), hand.Epsilon(1e-5, Composition::Rdp), 1e-9);
}
