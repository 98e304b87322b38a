/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Analog signals of the over-the-air channel (pure; no ns-3 header): real vectors as complex
 * baseband symbols, superposition, receiver noise, airtime, and the decode and analytic MSE of
 * an over-the-air (AirComp) average.
 */
#ifndef FL_OTA_SIGNAL_H
#define FL_OTA_SIGNAL_H

#include "ns3/ota-fading.h"

#include <Eigen/Core>
#include <vector>

namespace ns3
{
namespace fl
{

/// Complex baseband symbols of one transmission (one entry per channel use).
using SymbolVector = Eigen::VectorXcd;

/// Boltzmann constant k [J/K] (exact, SI 2019).
constexpr double kBoltzmann = 1.380649e-23;

/// Number of complex symbols that carry d real values on I and Q: ceil(d / 2).
std::size_t SymbolCount(std::size_t d);

/**
 * Packs a real vector into complex symbols: s_m = x_{2m} + j x_{2m+1}. If d is odd the last
 * symbol's Q part is 0. Inverse of UnpackReal.
 */
SymbolVector PackReal(const Eigen::VectorXd& x);

/// Unpacks the first d real values from symbols (I of symbol m -> 2m, Q -> 2m + 1).
Eigen::VectorXd UnpackReal(const SymbolVector& s, std::size_t d);

/**
 * The real values that symbols carry, in place and without a copy: entry 2m is the I part of
 * symbol m and entry 2m + 1 its Q part (std::complex<double> is laid out as double[2]), so
 * RealView(PackReal(x)).head(d) == x. 2 s.size() entries.
 */
inline Eigen::Map<Eigen::VectorXd>
RealView(SymbolVector& s)
{
    return Eigen::Map<Eigen::VectorXd>(reinterpret_cast<double*>(s.data()), 2 * s.size());
}

/// Read-only RealView.
inline Eigen::Map<const Eigen::VectorXd>
RealView(const SymbolVector& s)
{
    return Eigen::Map<const Eigen::VectorXd>(reinterpret_cast<const double*>(s.data()),
                                             2 * s.size());
}

/// Mean symbol energy (1/n) sum_m |s_m|^2; 0 for an empty vector.
double MeanSymbolEnergy(const SymbolVector& s);

/**
 * Superposition of one contribution: acc[m] += a s[m] for m < s.size() (a shorter signal
 * adds to the head of the accumulator). Throws ConfigError if s is longer than acc.
 */
void Superpose(SymbolVector& acc, Complex a, const SymbolVector& s);

/**
 * Sum-once-remove-own superposition over a sender-only channel: out[i] = sum_{k != i} a_k s_k
 * for every i, computed as S = sum_k a_k s_k once, then out[i] = S - a_i s_i. Cost O(N d).
 * Signals of different lengths are zero-padded to the longest. `out` is resized; its buffers
 * are reused when they already have the right size.
 */
void SuperposeExcludingEach(const std::vector<const SymbolVector*>& s,
                            const std::vector<Complex>& a,
                            std::vector<SymbolVector>& out);

/// Reference for the above: out[i] summed directly over k != i. Cost O(N^2 d).
void SuperposeExcludingEachNaive(const std::vector<const SymbolVector*>& s,
                                 const std::vector<Complex>& a,
                                 std::vector<SymbolVector>& out);

/**
 * Adds circularly-symmetric complex Gaussian noise CN(0, variance) to every symbol: I and Q
 * each N(0, variance / 2), independent. variance = 0 leaves y untouched.
 */
void AddComplexNoise(SymbolVector& y, double variance, Rng& rng);

/// Thermal noise power k T F B [W] in a bandwidth B [Hz] at temperature T [K], F = 10^(NF/10).
double ThermalNoisePower(double temperatureK, double noiseFigureDb, double bandwidthHz);

/// dBm -> W.
double DbmToW(double dbm);

/// W -> dBm.
double WToDbm(double w);

/**
 * Airtime of an analog transmission [s]: preamble + symbols / B (symbol rate = bandwidth B).
 * A real vector of d values takes SymbolCount(d) = ceil(d/2) symbols.
 */
double AnalogAirtime(std::size_t symbols, double bandwidthHz, double preambleS);

/**
 * e^x E1(x) for x > 0, with E1 the exponential integral (series for x <= 1, continued
 * fraction above; relative error ~1e-15). +inf at x = 0.
 */
double ScaledExpIntE1(double x);

/**
 * AirComp decode: the estimate of the average of the senders' real vectors from the received
 * superposition y = c sum_{k active} PackReal(x_k) + z, where every active sender arrives with
 * amplitude c (power alignment):
 *   x_hat = UnpackReal(y, d) / (c a),  a = active > 0,
 *   x_hat = 0                          if a = 0 (nobody sent).
 * Throws ConfigError if a > 0 and c is not positive, or if y has fewer than SymbolCount(d)
 * symbols.
 */
Eigen::VectorXd AirCompDecodeAverage(const SymbolVector& y,
                                     std::size_t d,
                                     double c,
                                     std::size_t active);

/**
 * MSE per real entry of the AirComp estimate of the average of n zero-mean vectors with i.i.d.
 * entries of variance v, for a given channel: `active` senders aligned to amplitude c,
 * complex receiver noise CN(0, noiseVariance) per symbol, estimate y / (c * active):
 *   MSE = v (1/a - 1/n) + noiseVariance / (2 c^2 a^2),  a = active > 0,
 *   MSE = v / n                                       if a = 0 (the estimate is 0).
 * The first term is the truncation error (silent senders), the second the noise.
 */
double AirCompMseGivenChannel(std::size_t n,
                              std::size_t active,
                              double c,
                              double dataVariance,
                              double noiseVariance);

/**
 * Expected AirComp MSE per real entry under Rayleigh block fading with truncated channel
 * inversion: n senders with equal power P and equal large-scale gain G, small-scale power
 * gains |g_k|^2 ~ Exp(1) i.i.d., sender k active iff |g_k|^2 >= gainThreshold (normalised to
 * G), c = kappa sqrt(P G) min_{active} |g_k|, mean SNR rho = P G / noiseVariance. Then
 * a ~ Binomial(n, e^{-gth}), and given a >= 1 the minimum is gth + Exp(rate a), so
 *   E[1/min |g|^2 | a] = a e^{a gth} E1(a gth)  and
 *   MSE = sum_a Binom(a) [v (1/a - 1/n) + e^{a gth} E1(a gth) / (2 kappa^2 rho a)]
 *         + (1 - e^{-gth})^n v / n.
 * Infinite for gainThreshold = 0 (full inversion of Rayleigh fading has unbounded noise gain).
 */
double AirCompMseRayleighTruncated(std::size_t n,
                                   double dataVariance,
                                   double meanSnr,
                                   double kappa,
                                   double gainThreshold);

} // namespace fl
} // namespace ns3

#endif // FL_OTA_SIGNAL_H
