/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Pure functions of the analog over-the-air channel: fading distributions, signal packing,
 * superposition, noise, power alignment, CSI, and the analytic AirComp MSE.
 *
 * Statistical checks use fixed seeds and bounds derived from the distribution under test:
 *  - a sample mean of n i.i.d. values with standard deviation s is checked to within 5 s/sqrt(n)
 *    (central limit theorem; a correct implementation fails with probability ~6e-7);
 *  - an empirical CDF of n samples is checked with the Kolmogorov-Smirnov statistic against
 *    the asymptotic critical value 1.95/sqrt(n) (significance level 0.001).
 */
#include "fl-test-config-error.h"
#include "fl-test-stats.h"

#include "ns3/dwfl-privacy.h"
#include "ns3/ota-fading.h"
#include "ns3/ota-power-control.h"
#include "ns3/ota-signal.h"

#include <algorithm>
#include <boost/math/distributions/gamma.hpp>
#include <boost/math/distributions/non_central_chi_squared.hpp>
#include <boost/math/special_functions/expint.hpp>
#include <cmath>
#include <functional>
#include <gtest/gtest.h>
#include <vector>

using namespace ns3;
using fl::Complex;
using namespace fltest;

namespace
{

constexpr double kTwoPi = 6.283185307179586;

/// |h| CDF of each fading model.
double
AmplitudeCdf(const fl::FadingSpec& spec, double r)
{
    if (r <= 0.0)
    {
        return 0.0;
    }
    switch (spec.kind)
    {
    case fl::FadingKind::None:
        return r >= 1.0 ? 1.0 : 0.0;
    case fl::FadingKind::Rayleigh:
        return 1.0 - std::exp(-r * r);
    case fl::FadingKind::Rician: {
        // 2(K+1)|h|^2 is noncentral chi-squared with 2 degrees of freedom and noncentrality 2K.
        boost::math::non_central_chi_squared_distribution<double> d(2.0, 2.0 * spec.ricianK);
        return boost::math::cdf(d, 2.0 * (spec.ricianK + 1.0) * r * r);
    }
    case fl::FadingKind::Nakagami: {
        // |h|^2 ~ Gamma(shape m, scale 1/m).
        boost::math::gamma_distribution<double> d(spec.nakagamiM, 1.0 / spec.nakagamiM);
        return boost::math::cdf(d, r * r);
    }
    }
    return 0.0;
}

} // namespace

// ------------------------------------------------------------------------------------ fading

TEST(OtaFading, CoefficientsFromValuesAreExact)
{
    const Complex r = fl::RayleighCoefficient(0.3, -1.2);
    EXPECT_NEAR(r.real(), 0.3 / std::sqrt(2.0), 1e-15);
    EXPECT_NEAR(r.imag(), -1.2 / std::sqrt(2.0), 1e-15);
    // Rician with K = 0 is Rayleigh; with large K the LOS part dominates.
    EXPECT_NEAR(std::abs(fl::RicianCoefficient(0.0, 1.0, 0.3, -1.2) - r), 0.0, 1e-15);
    const Complex los = fl::RicianCoefficient(4.0, 0.7, 0.0, 0.0);
    EXPECT_NEAR(std::abs(los), std::sqrt(0.8), 1e-15);
    EXPECT_NEAR(std::arg(los), 0.7, 1e-15);
    const Complex k4 = fl::RicianCoefficient(4.0, 0.7, 0.5, 0.25);
    const Complex expect =
        std::polar(std::sqrt(0.8), 0.7) + std::sqrt(0.2) * Complex(0.5, 0.25) / std::sqrt(2.0);
    EXPECT_NEAR(std::abs(k4 - expect), 0.0, 1e-15);
    const Complex nk = fl::NakagamiCoefficient(2.25, -0.4);
    EXPECT_NEAR(std::norm(nk), 2.25, 1e-14);
    EXPECT_NEAR(std::arg(nk), -0.4, 1e-15);
    fl::Rng rng(1);
    EXPECT_EQ(fl::DrawFading({fl::FadingKind::None, 0, 1}, rng), Complex(1.0, 0.0));
}

TEST(OtaFading, ValidationAndNames)
{
    EXPECT_THROW(fl::ValidateFading({fl::FadingKind::Rician, -1.0, 1.0}), fl::ConfigError);
    EXPECT_THROW(fl::ValidateFading({fl::FadingKind::Nakagami, 1.0, 0.3}), fl::ConfigError);
    EXPECT_NO_THROW(fl::ValidateFading({fl::FadingKind::Nakagami, 1.0, 0.5}));
    EXPECT_EQ(fl::ParseFadingKind("Rician", "--fading"), fl::FadingKind::Rician);
    EXPECT_THROW(fl::ParseFadingKind("lognormal", "--fading"), fl::ConfigError);
}

/// E|h|^2 = 1 and the CDF of |h| for every model and several parameters.
TEST(OtaFading, UnitPowerAndAmplitudeCdf)
{
    const std::size_t n = 20000;
    const std::vector<fl::FadingSpec> specs = {
        {fl::FadingKind::Rayleigh, 0.0, 1.0},
        {fl::FadingKind::Rician, 0.5, 1.0},
        {fl::FadingKind::Rician, 3.0, 1.0},
        {fl::FadingKind::Rician, 10.0, 1.0},
        {fl::FadingKind::Nakagami, 0.0, 0.5},
        {fl::FadingKind::Nakagami, 0.0, 2.0},
        {fl::FadingKind::Nakagami, 0.0, 5.0},
    };
    uint64_t seed = 100;
    for (const auto& spec : specs)
    {
        fl::Rng rng(seed++);
        std::vector<double> power(n);
        std::vector<double> amplitude(n);
        std::vector<double> phase(n);
        for (std::size_t i = 0; i < n; ++i)
        {
            const Complex h = fl::DrawFading(spec, rng, 0.4);
            power[i] = std::norm(h);
            amplitude[i] = std::abs(h);
            phase[i] = std::arg(h) < 0 ? std::arg(h) + kTwoPi : std::arg(h);
        }
        const std::string what = fl::FadingName(spec.kind) + " K=" + std::to_string(spec.ricianK) +
                                 " m=" + std::to_string(spec.nakagamiM);
        // Mean of |h|^2: 1 within 5 sd(|h|^2)/sqrt(n), sd from the model's Var|h|^2.
        const double sd = std::sqrt(fl::FadingPowerVariance(spec));
        EXPECT_NEAR(Mean(power), 1.0, 5.0 * sd / std::sqrt(double(n))) << what;
        // Var|h|^2 agrees with the formula (loose: 10 % relative, a consistency check).
        EXPECT_NEAR(SampleSd(power), sd, 0.1 * sd) << what;
        EXPECT_LT(KsStatistic(amplitude, [&](double r) { return AmplitudeCdf(spec, r); }),
                  KsCritical(n))
            << what;
        if (spec.kind != fl::FadingKind::Rician)
        {
            EXPECT_LT(KsStatistic(phase, [](double p) { return p / kTwoPi; }), KsCritical(n))
                << what << " phase";
        }
    }
}

// ------------------------------------------------------------------------------------ signal

TEST(OtaSignal, PackUnpackRoundTrip)
{
    EXPECT_EQ(fl::SymbolCount(0), 0u);
    EXPECT_EQ(fl::SymbolCount(1), 1u);
    EXPECT_EQ(fl::SymbolCount(10), 5u);
    EXPECT_EQ(fl::SymbolCount(11), 6u);
    for (int d : {1, 2, 7, 10, 1001})
    {
        Eigen::VectorXd x = Eigen::VectorXd::LinSpaced(d, -3.0, 5.0);
        const fl::SymbolVector s = fl::PackReal(x);
        ASSERT_EQ(static_cast<std::size_t>(s.size()), fl::SymbolCount(d));
        EXPECT_EQ(s[0].real(), x[0]);
        if (d > 1)
        {
            EXPECT_EQ(s[0].imag(), x[1]);
        }
        if (d % 2 == 1)
        {
            EXPECT_EQ(s[s.size() - 1].imag(), 0.0);
        }
        EXPECT_EQ(fl::UnpackReal(s, d), x);
    }
    EXPECT_THROW(fl::UnpackReal(fl::SymbolVector::Zero(2), 5), fl::ConfigError);
    EXPECT_NEAR(fl::AnalogAirtime(fl::SymbolCount(1001), 1e6, 1e-5), 1e-5 + 501e-6, 1e-18);
}

TEST(OtaSignal, SumOnceRemoveOwnEqualsNaive)
{
    fl::Rng rng(7);
    std::normal_distribution<double> g(0.0, 1.0);
    const std::size_t n = 12;
    std::vector<fl::SymbolVector> s(n);
    std::vector<const fl::SymbolVector*> ptr(n);
    std::vector<Complex> a(n);
    for (std::size_t k = 0; k < n; ++k)
    {
        s[k] = fl::SymbolVector(200 + (k % 3)); // unequal lengths: zero padding
        for (Eigen::Index m = 0; m < s[k].size(); ++m)
        {
            s[k][m] = Complex(g(rng), g(rng));
        }
        ptr[k] = &s[k];
        a[k] = Complex(g(rng), g(rng)) * 1e-4;
    }
    std::vector<fl::SymbolVector> fast;
    std::vector<fl::SymbolVector> naive;
    fl::SuperposeExcludingEach(ptr, a, fast);
    fl::SuperposeExcludingEachNaive(ptr, a, naive);
    ASSERT_EQ(fast.size(), n);
    for (std::size_t i = 0; i < n; ++i)
    {
        ASSERT_EQ(fast[i].size(), 202);
        EXPECT_LT(RelErr(fast[i], naive[i]), 1e-12) << i;
        // and the naive one is the definition, element by element
        fl::SymbolVector direct = fl::SymbolVector::Zero(202);
        for (std::size_t k = 0; k < n; ++k)
        {
            if (k != i)
            {
                direct.head(s[k].size()) += a[k] * s[k];
            }
        }
        EXPECT_LT(RelErr(naive[i], direct), 1e-15);
    }
    // Equal lengths take the one-pass branch; buffers are reused.
    for (auto& v : s)
    {
        v.conservativeResize(200);
    }
    fl::SuperposeExcludingEach(ptr, a, fast);
    fl::SuperposeExcludingEachNaive(ptr, a, naive);
    for (std::size_t i = 0; i < n; ++i)
    {
        ASSERT_EQ(fast[i].size(), 200);
        EXPECT_LT(RelErr(fast[i], naive[i]), 1e-12) << i;
    }
    fl::SymbolVector small = fl::SymbolVector::Zero(3);
    EXPECT_THROW(fl::Superpose(small, 1.0, s[0]), fl::ConfigError);
}

/// Receiver noise CN(0, sigma^2): E|n|^2 = sigma^2, I and Q each sigma^2/2, uncorrelated.
TEST(OtaSignal, ComplexNoiseStatistics)
{
    const double var = 3.7e-13;
    const Eigen::Index n = 100000;
    fl::SymbolVector y = fl::SymbolVector::Zero(n);
    fl::Rng rng(11);
    fl::AddComplexNoise(y, var, rng);
    std::vector<double> p(n);
    std::vector<double> i2(n);
    std::vector<double> q2(n);
    std::vector<double> iq(n);
    for (Eigen::Index m = 0; m < n; ++m)
    {
        p[m] = std::norm(y[m]);
        i2[m] = y[m].real() * y[m].real();
        q2[m] = y[m].imag() * y[m].imag();
        iq[m] = y[m].real() * y[m].imag();
    }
    const double sn = std::sqrt(double(n));
    // |n|^2 ~ Exp(mean sigma^2): sd sigma^2. I^2 ~ (sigma^2/2) chi2_1: sd sqrt(2) sigma^2/2.
    // I Q: mean 0, sd sigma^2/2.
    EXPECT_NEAR(Mean(p), var, 5.0 * var / sn);
    EXPECT_NEAR(Mean(i2), var / 2.0, 5.0 * std::sqrt(2.0) * var / 2.0 / sn);
    EXPECT_NEAR(Mean(q2), var / 2.0, 5.0 * std::sqrt(2.0) * var / 2.0 / sn);
    EXPECT_NEAR(Mean(iq), 0.0, 5.0 * var / 2.0 / sn);
    fl::SymbolVector z = fl::SymbolVector::Zero(10);
    fl::AddComplexNoise(z, 0.0, rng);
    EXPECT_EQ(z.norm(), 0.0);
}

TEST(OtaSignal, ThermalNoiseIsKTFB)
{
    // -174 dBm/Hz at 290 K with NF = 0 dB.
    EXPECT_NEAR(fl::WToDbm(fl::ThermalNoisePower(290.0, 0.0, 1.0)), -173.975187, 1e-6);
    const double p = fl::ThermalNoisePower(290.0, 7.0, 20e6);
    EXPECT_NEAR(p / (1.380649e-23 * 290.0 * std::pow(10.0, 0.7) * 20e6), 1.0, 1e-14);
    EXPECT_NEAR(fl::DbmToW(30.0), 1.0, 1e-15);
    EXPECT_NEAR(fl::WToDbm(fl::DbmToW(-97.25)), -97.25, 1e-12);
}

// ----------------------------------------------------------------------------- power control

/// After alignment every active sender arrives with amplitude c and zero phase (DWFL eq. 3).
TEST(OtaPowerControl, AlignmentGivesAmplitudeCAndZeroPhase)
{
    fl::Rng rng(3);
    const std::size_t n = 20;
    std::vector<Complex> h(n);
    std::vector<double> p(n);
    for (std::size_t k = 0; k < n; ++k)
    {
        h[k] = fl::DrawFading({fl::FadingKind::Rayleigh, 0, 1}, rng) * 3e-5;
        p[k] = fl::DbmToW(10.0 + static_cast<double>(k % 5));
    }
    for (double kappa : {1.0, 0.6})
    {
        fl::AlignmentConfig cfg;
        cfg.kappa = kappa;
        const fl::AlignmentPlan plan = fl::PlanAlignment(h, p, cfg);
        ASSERT_EQ(plan.NumActive(), n);
        double minAmp = 1e300;
        for (std::size_t k = 0; k < n; ++k)
        {
            minAmp = std::min(minAmp, std::abs(h[k]) * std::sqrt(p[k]));
        }
        EXPECT_NEAR(plan.c / (kappa * minAmp), 1.0, 1e-14);
        double maxAlpha = 0.0;
        for (std::size_t k = 0; k < n; ++k)
        {
            const Complex a = fl::EffectiveCoefficient(h[k], plan.precoder[k]);
            EXPECT_NEAR(std::abs(a) / plan.c, 1.0, 1e-12);
            EXPECT_NEAR(std::arg(a), 0.0, 1e-12);
            EXPECT_LE(plan.powerFraction[k], 1.0 + 1e-12);
            EXPECT_NEAR(std::norm(plan.precoder[k]) / (plan.powerFraction[k] * p[k]), 1.0, 1e-12);
            maxAlpha = std::max(maxAlpha, plan.powerFraction[k]);
        }
        // The weakest sender uses all its power when kappa = 1 (alpha = kappa^2 in general).
        EXPECT_NEAR(maxAlpha, kappa * kappa, 1e-12);
    }
}

TEST(OtaPowerControl, TruncatedInversion)
{
    const std::vector<Complex> h = {{0.1, 0.0}, {0.0, 1.0}, {-2.0, 0.0}, {0.3, 0.4}};
    const std::vector<double> p = {1.0, 2.0, 0.5, 1.0};
    fl::AlignmentConfig cfg;
    cfg.gainThreshold = 0.2; // |h|^2: 0.01 (silent), 1, 4, 0.25
    const fl::AlignmentPlan plan = fl::PlanAlignment(h, p, cfg);
    EXPECT_EQ(plan.active, (std::vector<bool>{false, true, true, true}));
    EXPECT_EQ(plan.NumActive(), 3u);
    EXPECT_EQ(plan.precoder[0], Complex(0.0, 0.0));
    EXPECT_EQ(plan.powerFraction[0], 0.0);
    // c = min(1 sqrt2, 2 sqrt0.5, 0.5 sqrt1) = 0.5
    EXPECT_NEAR(plan.c, 0.5, 1e-15);
    EXPECT_NEAR(plan.powerFraction[3], 1.0, 1e-14);
    cfg.gainThreshold = 10.0;
    const fl::AlignmentPlan none = fl::PlanAlignment(h, p, cfg);
    EXPECT_EQ(none.NumActive(), 0u);
    EXPECT_EQ(none.c, 0.0);
}

TEST(OtaPowerControl, ConfigurationErrors)
{
    const std::vector<Complex> h = {{1.0, 0.0}, {0.5, 0.5}};
    fl::AlignmentConfig cfg;
    cfg.kappa = 0.0;
    EXPECT_THROW(fl::PlanAlignment(h, {1.0, 1.0}, cfg), fl::ConfigError);
    cfg.kappa = 1.5;
    EXPECT_THROW(fl::PlanAlignment(h, {1.0, 1.0}, cfg), fl::ConfigError);
    cfg.kappa = 1.0;
    cfg.gainThreshold = -1.0;
    EXPECT_THROW(fl::PlanAlignment(h, {1.0, 1.0}, cfg), fl::ConfigError);
    cfg.gainThreshold = 0.0;
    EXPECT_THROW(fl::PlanAlignment(h, {1.0}, cfg), fl::ConfigError);
    EXPECT_THROW(fl::PlanAlignment(h, {1.0, 0.0}, cfg), fl::ConfigError);
}

/// Estimated CSI: h_hat = h + e, e ~ CN(0, var); the alignment error follows: h b = c h / h_hat.
TEST(OtaPowerControl, EstimatedCsiAndAlignmentError)
{
    const Complex h(0.3, -0.8);
    const Complex hh = fl::EstimateCsi(h, 0.02, 1.5, -0.5);
    EXPECT_NEAR(std::abs(hh - (h + std::sqrt(0.01) * Complex(1.5, -0.5))), 0.0, 1e-16);
    fl::Rng rng(5);
    EXPECT_EQ(fl::EstimateCsi(h, 0.0, rng), h);
    const double var = 0.05;
    const std::size_t n = 50000;
    std::vector<double> err(n);
    for (std::size_t i = 0; i < n; ++i)
    {
        err[i] = std::norm(fl::EstimateCsi(h, var, rng) - h);
    }
    // |e|^2 ~ Exp(mean var): sd = var.
    EXPECT_NEAR(Mean(err), var, 5.0 * var / std::sqrt(double(n)));
    const double c = 0.2;
    const Complex b = fl::AlignmentPrecoder(hh, 1.0, c);
    EXPECT_NEAR(std::abs(fl::EffectiveCoefficient(h, b) - c * h / hh), 0.0, 1e-15);
}

// -------------------------------------------------------------------------------- analytic MSE

TEST(OtaAnalytic, ScaledExpIntMatchesBoost)
{
    for (double x : {1e-8, 1e-3, 0.1, 0.5, 0.999, 1.0, 1.001, 2.0, 5.0, 20.0, 100.0, 500.0})
    {
        const double ref = std::exp(x) * boost::math::expint(1, x);
        EXPECT_NEAR(fl::ScaledExpIntE1(x) / ref, 1.0, 1e-12) << x;
    }
    EXPECT_TRUE(std::isinf(fl::ScaledExpIntE1(0.0)));
}

/**
 * AirComp decode x_hat = UnpackReal(y, d) / (c a): hand-computed values, then a noiseless
 * superposition of aligned senders (each arriving with amplitude c) decodes to the average of
 * the active senders' vectors; nobody active decodes to 0.
 */
TEST(OtaAnalytic, AirCompDecodeAverage)
{
    // y = (3 + 6j, 9 - 1.5j), d = 3, c = 1.5, a = 2: c a = 3.
    fl::SymbolVector y(2);
    y << Complex(3.0, 6.0), Complex(9.0, -1.5);
    const Eigen::VectorXd hand = fl::AirCompDecodeAverage(y, 3, 1.5, 2);
    ASSERT_EQ(hand.size(), 3);
    EXPECT_NEAR(hand[0], 1.0, 1e-12);
    EXPECT_NEAR(hand[1], 2.0, 1e-12);
    EXPECT_NEAR(hand[2], 3.0, 1e-12);

    const std::size_t d = 5;
    const double c = 0.37;
    std::vector<Eigen::VectorXd> x(3);
    x[0] = Eigen::VectorXd::LinSpaced(d, -1.0, 1.0);
    x[1] = Eigen::VectorXd::LinSpaced(d, 4.0, 0.0);
    x[2] = Eigen::VectorXd::Constant(d, 2.5);
    fl::SymbolVector sum = fl::SymbolVector::Zero(static_cast<Eigen::Index>(fl::SymbolCount(d)));
    for (const auto& xk : x)
    {
        fl::Superpose(sum, Complex(c, 0.0), fl::PackReal(xk));
    }
    // Entry j of the mean: (x0[j] + x1[j] + 2.5) / 3 with x0[j] = -1 + j/2, x1[j] = 4 - j.
    const Eigen::VectorXd est = fl::AirCompDecodeAverage(sum, d, c, x.size());
    ASSERT_EQ(est.size(), static_cast<Eigen::Index>(d));
    for (std::size_t j = 0; j < d; ++j)
    {
        const double mean = ((-1.0 + 0.5 * j) + (4.0 - double(j)) + 2.5) / 3.0;
        EXPECT_NEAR(est[static_cast<Eigen::Index>(j)], mean, 1e-12) << j;
    }

    EXPECT_EQ(fl::AirCompDecodeAverage(sum, d, 0.0, 0), Eigen::VectorXd::Zero(d));
    EXPECT_THROW(fl::AirCompDecodeAverage(sum, d, 0.0, 3), fl::ConfigError);
    EXPECT_THROW(fl::AirCompDecodeAverage(sum, d, -c, 3), fl::ConfigError);
    EXPECT_THROW(fl::AirCompDecodeAverage(sum, d, std::nan(""), 3), fl::ConfigError);
    EXPECT_THROW(fl::AirCompDecodeAverage(sum, d + 2, c, 3), fl::ConfigError);
}

TEST(OtaAnalytic, MseGivenChannel)
{
    EXPECT_NEAR(fl::AirCompMseGivenChannel(10, 10, 2.0, 0.5, 1.0),
                1.0 / (2.0 * 4.0 * 100.0),
                1e-16);
    EXPECT_NEAR(fl::AirCompMseGivenChannel(10, 5, 2.0, 0.5, 1.0),
                0.5 * (0.2 - 0.1) + 1.0 / (2.0 * 4.0 * 25.0),
                1e-16);
    EXPECT_NEAR(fl::AirCompMseGivenChannel(10, 0, 2.0, 0.5, 1.0), 0.05, 1e-16);
}

/**
 * The expected MSE under Rayleigh block fading with truncation against a Monte Carlo average
 * of the conditional MSE over fading draws (planned with PlanAlignment): within 5 standard
 * errors of the Monte Carlo mean.
 */
TEST(OtaAnalytic, RayleighTruncatedMseMatchesMonteCarlo)
{
    struct Case
    {
        std::size_t n;
        double snrDb;
        double kappa;
        double gth;
    };

    const std::vector<Case> cases = {
        {1, 10.0, 1.0, 0.3},
        {5, 0.0, 1.0, 0.2},
        {20, 10.0, 0.8, 0.1},
        {50, 20.0, 1.0, 0.5},
    };
    const double v = 0.5;
    const double gain = 1e-9; // large-scale gain G
    const double power = 0.01;
    for (const auto& cs : cases)
    {
        const double snr = std::pow(10.0, cs.snrDb / 10.0);
        const double noiseVar = power * gain / snr;
        fl::Rng rng(1000 + cs.n);
        const std::size_t draws = 40000;
        std::vector<double> mse(draws);
        std::vector<Complex> h(cs.n);
        const std::vector<double> p(cs.n, power);
        fl::AlignmentConfig cfg;
        cfg.kappa = cs.kappa;
        cfg.gainThreshold = cs.gth * gain;
        for (std::size_t t = 0; t < draws; ++t)
        {
            for (auto& hk : h)
            {
                hk = std::sqrt(gain) * fl::DrawFading({fl::FadingKind::Rayleigh, 0, 1}, rng);
            }
            const fl::AlignmentPlan plan = fl::PlanAlignment(h, p, cfg);
            mse[t] = fl::AirCompMseGivenChannel(cs.n, plan.NumActive(), plan.c, v, noiseVar);
        }
        const double analytic = fl::AirCompMseRayleighTruncated(cs.n, v, snr, cs.kappa, cs.gth);
        EXPECT_NEAR(Mean(mse), analytic, 5.0 * SampleSd(mse) / std::sqrt(double(draws)))
            << "n=" << cs.n << " snr=" << cs.snrDb;
    }
    EXPECT_TRUE(std::isinf(fl::AirCompMseRayleighTruncated(5, 0.5, 10.0, 1.0, 0.0)));
}

// ---------------------------------------------------------------- the channel over time

TEST(OtaTimeMath, DopplerAndJakesCorrelationByHand)
{
    // f_D = v f_c / c: 30 m/s at 2.4 GHz
    EXPECT_NEAR(fl::DopplerFrequency(30.0, 2.4e9), 30.0 * 2.4e9 / 299792458.0, 1e-12);
    EXPECT_EQ(fl::DopplerFrequency(0.0, 2.4e9), 0.0);
    // J0 at known points: J0(1) = 0.7651976865579666, J0's first zero 2.404825557695773
    const double fD = 1.0 / (2.0 * M_PI);
    EXPECT_NEAR(fl::JakesCorrelation(fD, 1.0), 0.7651976865579666, 1e-12);
    EXPECT_NEAR(fl::JakesCorrelation(fD, 2.404825557695773), 0.0, 1e-12);
    EXPECT_NEAR(fl::JakesCorrelation(fD, -1.0), 0.7651976865579666, 1e-12); // even in the lag
    EXPECT_EQ(fl::JakesCorrelation(0.0, 5.0), 1.0);
    fltest::ExpectConfigError([] { fl::DopplerFrequency(-1.0, 2.4e9); }, "speed");
    fltest::ExpectConfigError([] { fl::DopplerFrequency(1.0, std::nan("")); }, "CarrierFrequency");
}

TEST(OtaTimeMath, GaussMarkovStepAndCorrelatedCoefficientByHand)
{
    const Complex s(0.3, -0.2);
    // rho s + sqrt(1 - rho^2) (g1 + j g2) / sqrt(2)
    const Complex step = fl::GaussMarkovStep(s, 0.6, 1.1, -0.4);
    const Complex hand = 0.6 * s + 0.8 * Complex(1.1, -0.4) / std::sqrt(2.0);
    EXPECT_NEAR(std::abs(step - hand), 0.0, 1e-15);
    EXPECT_EQ(fl::GaussMarkovStep(s, 1.0, 7.0, 7.0), s); // no motion: exactly the last value
    fltest::ExpectConfigError([&] { fl::GaussMarkovStep(s, 1.5, 0.0, 0.0); }, "rho");
    fl::FadingSpec rician;
    rician.kind = fl::FadingKind::Rician;
    rician.ricianK = 3.0;
    const Complex h = fl::CorrelatedCoefficient(rician, 0.4, s);
    EXPECT_NEAR(std::abs(h - (std::polar(std::sqrt(0.75), 0.4) + 0.5 * s)), 0.0, 1e-15);
    // at the first point the Rician coefficient is the one DrawFading makes from the same draws
    EXPECT_EQ(fl::CorrelatedCoefficient(rician, 0.4, fl::RayleighCoefficient(1.1, -0.4)),
              fl::RicianCoefficient(3.0, 0.4, 1.1, -0.4));
    fl::FadingSpec nakagami;
    nakagami.kind = fl::FadingKind::Nakagami;
    fltest::ExpectConfigError([&] { fl::CorrelatedCoefficient(nakagami, 0.0, s); },
                              "FadingModel");
}

// The process keeps CN(0, 1) and has lag-one correlation rho: 20,000 steps from a fixed seed;
// Re(s' conj(s)) has mean rho and variance (1 + rho^2) / 2, |s|^2 mean 1 and variance 1 (each
// mean within 5 standard errors; the steps are a Markov chain, whose dependence the check
// allows for by using every 10th pair, 2,000 nearly independent ones).
TEST(OtaTimeMath, GaussMarkovProcessHasTheJakesCorrelation)
{
    const double rho = fl::JakesCorrelation(240.0, 1e-3);
    fl::Rng rng(2024);
    std::normal_distribution<double> normal(0.0, 1.0);
    Complex s = fl::RayleighCoefficient(normal(rng), normal(rng));
    double corr = 0.0;
    double power = 0.0;
    int pairs = 0;
    for (int t = 0; t < 20000; ++t)
    {
        const double g1 = normal(rng);
        const double g2 = normal(rng);
        const Complex next = fl::GaussMarkovStep(s, rho, g1, g2);
        if (t % 10 == 0)
        {
            corr += std::real(next * std::conj(s));
            power += std::norm(next);
            ++pairs;
        }
        s = next;
    }
    corr /= pairs;
    power /= pairs;
    EXPECT_NEAR(corr, rho, 5.0 * std::sqrt((1.0 + rho * rho) / (2.0 * pairs)));
    EXPECT_NEAR(power, 1.0, 5.0 * std::sqrt(1.0 / pairs));
}

TEST(OtaTimeMath, MisalignedAmplitudeByHand)
{
    const std::vector<double> trueGain = {1.0, 2.0, 3.0};
    const std::vector<double> estimate = {1.0, 1.0, 4.0};
    // receiver 0: max(2 x 2/1, 2 x 3/4) = 4; the server (all senders): max(2, 4, 1.5) = 4;
    // receiver 1: max(2 x 1/1, 2 x 3/4) = 2
    EXPECT_EQ(fl::DwflMisalignedAmplitude(0, trueGain, estimate, 2.0), 4.0);
    EXPECT_EQ(fl::DwflMisalignedAmplitude(3, trueGain, estimate, 2.0), 4.0);
    EXPECT_EQ(fl::DwflMisalignedAmplitude(1, trueGain, estimate, 2.0), 2.0);
    EXPECT_EQ(fl::DwflMisalignedAmplitude(1, trueGain, trueGain, 0.37), 0.37); // exact CSI: c
    fltest::ExpectConfigError(
        [&] { fl::DwflMisalignedAmplitude(0, trueGain, {1.0, 2.0}, 1.0); }, "trueGain");
    fltest::ExpectConfigError(
        [&] { fl::DwflMisalignedAmplitude(0, {1.0, 0.0, 1.0}, estimate, 1.0); }, "trueGain");
}

// The innovations' generator: Box-Muller of two 53-bit uniforms from the seed (by hand), and
// standard normal: over 100,000 seeds the mean within 5 standard errors of 0 (1 / sqrt(n) each),
// the variance within 5 of 1 (sqrt(2 / n)), the fraction beyond 1.96 within 5 binomial standard
// errors of 0.05.
TEST(OtaTimeMath, NormalPairIsBoxMullerOfTheSeed)
{
    double g1 = 0.0;
    double g2 = 0.0;
    fl::NormalPair(77, g1, g2);
    const double u1 = static_cast<double>((fl::DeriveSeed(77, 1) >> 11) + 1) / 9007199254740992.0;
    const double u2 = static_cast<double>(fl::DeriveSeed(77, 2) >> 11) / 9007199254740992.0;
    EXPECT_NEAR(g1, std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * M_PI * u2), 1e-12);
    EXPECT_NEAR(g2, std::sqrt(-2.0 * std::log(u1)) * std::sin(2.0 * M_PI * u2), 1e-12);
    const int n = 100000;
    double sum = 0.0;
    double sq = 0.0;
    int tail = 0;
    for (int i = 0; i < n / 2; ++i)
    {
        fl::NormalPair(fl::DeriveSeed(5, i), g1, g2);
        for (double g : {g1, g2})
        {
            sum += g;
            sq += g * g;
            tail += std::abs(g) > 1.959963984540054 ? 1 : 0;
        }
    }
    EXPECT_NEAR(sum / n, 0.0, 5.0 / std::sqrt(n));
    EXPECT_NEAR(sq / n, 1.0, 5.0 * std::sqrt(2.0 / n));
    EXPECT_NEAR(static_cast<double>(tail) / n, 0.05, 5.0 * std::sqrt(0.05 * 0.95 / n));
}
