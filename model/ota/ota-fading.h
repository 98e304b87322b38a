/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Small-scale fading coefficients of the analog over-the-air channel (pure; no ns-3 header).
 */
#ifndef FL_OTA_FADING_H
#define FL_OTA_FADING_H

#include "ns3/fl-types.h"

#include <complex>
#include <string>

namespace ns3
{
namespace fl
{

/// A complex baseband value (channel coefficient, symbol, precoder).
using Complex = std::complex<double>;

/// Distribution of the small-scale fading coefficient h; every kind has E|h|^2 = 1.
enum class FadingKind
{
    None,     ///< h = 1 (no small-scale fading)
    Rayleigh, ///< h ~ CN(0, 1): |h| Rayleigh, phase uniform
    Rician,   ///< line-of-sight part of power K/(K+1) plus CN(0, 1/(K+1))
    Nakagami, ///< |h|^2 ~ Gamma(m, 1/m), phase uniform
};

/// A fading model: its kind and its parameter (Rician K, linear; Nakagami m).
struct FadingSpec
{
    FadingKind kind = FadingKind::Rayleigh; ///< distribution
    double ricianK = 1.0;                   ///< Rician K factor (linear, >= 0)
    double nakagamiM = 1.0;                 ///< Nakagami shape m (>= 0.5)
};

/// Throws ConfigError naming the parameter if K < 0 or m < 0.5 (or either is not finite).
void ValidateFading(const FadingSpec& spec);

/// "none", "rayleigh", "rician" or "nakagami".
std::string FadingName(FadingKind kind);

/// Parses a FadingName (case-insensitive); throws ConfigError naming `parameter` otherwise.
FadingKind ParseFadingKind(const std::string& name, const std::string& parameter);

/**
 * Rayleigh coefficient from two standard normal values: h = (g1 + j g2) / sqrt(2), so that
 * h ~ CN(0, 1) and E|h|^2 = 1.
 */
Complex RayleighCoefficient(double g1, double g2);

/**
 * Rician coefficient with K factor `k` (linear): h = sqrt(K/(K+1)) e^{j phi} +
 * sqrt(1/(K+1)) (g1 + j g2)/sqrt(2), with g1, g2 standard normal and phi the phase of the
 * line-of-sight component. E|h|^2 = 1; K = 0 is Rayleigh.
 */
Complex RicianCoefficient(double k, double losPhase, double g1, double g2);

/**
 * Nakagami-m coefficient from its power gain and phase: h = sqrt(g) e^{j theta}, where
 * g ~ Gamma(shape m, scale 1/m) gives E|h|^2 = 1 and theta ~ U[0, 2 pi).
 */
Complex NakagamiCoefficient(double powerGain, double phase);

/**
 * Draws one coefficient of the given model from `rng`. Rician uses `losPhase` for its
 * line-of-sight part (fixed per link by the caller); the other kinds ignore it.
 */
Complex DrawFading(const FadingSpec& spec, Rng& rng, double losPhase = 0.0);

/// Speed of light in vacuum [m/s].
constexpr double kSpeedOfLight = 299792458.0;

/**
 * Maximum Doppler shift f_D = v f_c / c [Hz] of a terminal moving at `speed` [m/s] on a carrier
 * of `carrierHz` [Hz]. Throws ConfigError naming "speed" or "CarrierFrequency" if either is
 * negative or not finite.
 */
double DopplerFrequency(double speed, double carrierHz);

/**
 * The autocorrelation of the scattered part of the fading at lag `lag` [s] under isotropic
 * scattering (R. H. Clarke, "A statistical theory of mobile-radio reception", Bell System
 * Technical Journal 47(6), 1968; W. C. Jakes, "Microwave Mobile Communications", Wiley 1974,
 * chapter 1): rho = J0(2 pi f_D lag), J0 the Bessel function of the first kind of order 0; 1 at
 * f_D = 0.
 */
double JakesCorrelation(double dopplerHz, double lag);

/**
 * One step of the first-order Gauss-Markov (AR(1)) model of the scattered part:
 * s' = rho s + sqrt(1 - rho^2) w, w = (g1 + j g2) / sqrt(2) ~ CN(0, 1) from two standard normal
 * values, so that s' ~ CN(0, 1) when s is and E[s' conj(s)] = rho. rho = 1 returns s exactly.
 * Throws ConfigError naming "rho" outside [-1, 1].
 */
Complex GaussMarkovStep(Complex s, double rho, double g1, double g2);

/**
 * Two independent standard normal values from a 64-bit seed, cheaply (no engine to seed): the
 * Box-Muller transform g1 = r cos(2 pi u2), g2 = r sin(2 pi u2), r = sqrt(-2 ln u1), of two
 * uniform values u1 in (0, 1], u2 in [0, 1) made from DeriveSeed(seed, 1) and DeriveSeed(seed, 2)
 * (53 bits each). The innovations of the time-correlated fading, one pair per process point.
 */
void NormalPair(uint64_t seed, double& g1, double& g2);

/**
 * The coefficient of `spec` whose scattered part is `scattered` (CN(0, 1)): None 1, Rayleigh
 * the scattered part, Rician sqrt(K/(K+1)) e^{j losPhase} + sqrt(1/(K+1)) scattered (a fixed
 * line of sight). Throws ConfigError naming "FadingModel" for Nakagami (no Gaussian scattered
 * part to correlate).
 */
Complex CorrelatedCoefficient(const FadingSpec& spec, double losPhase, Complex scattered);

/// Var(|h|^2) of the model: 0 (none), 1 (Rayleigh), (1 + 2K)/(1 + K)^2 (Rician), 1/m (Nakagami).
double FadingPowerVariance(const FadingSpec& spec);

} // namespace fl
} // namespace ns3

#endif // FL_OTA_FADING_H
