/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * EGA (D. Zeng, S. Liu, S. Liang, Z. Li, H. Wang, I. King, Z. Xu, "Encoded Gradients Aggregation
 * against Gradient Leakage in Federated Learning", arXiv:2205.13216, 2022) quantisation and
 * blocking, pure (no ns-3 header).
 *
 * Section 3.2 of the paper: the stochastic quantiser Q(x; s, n) maps a real update to the
 * integer domain Q_s^d = {-s, ..., s}^d, unbiased after rescaling by n/s; the quantised vector is
 * cut into ceil(d/b) blocks of length b (the last one zero-padded) that the block-level encoder
 * E_c : Q_s^b -> R^h maps one by one. Blocks are the *columns* of a b x K column-major matrix:
 * its memory is the zero-padded vector itself, and an encoder maps all K blocks of a client in
 * one matrix product. The error bounds are clean per-coordinate forms of the paper's Lemma 3 and
 * Theorem 1 (whose printed forms are dimensionally inconsistent), next to the literal forms.
 *
 * Randomness: as every pure layer of the module (see perturbation.h), the functions take the
 * engine `Rng&` (std::mt19937_64) that the ns-3 layer seeds from a RandomVariableStream. One
 * uniform in [0, 1) is drawn per coordinate, as the top 53 bits of one engine output, so a seed
 * reproduces the integers bit for bit on every platform.
 */
#ifndef FL_EGA_QUANTIZER_H
#define FL_EGA_QUANTIZER_H

#include "ns3/fl-types.h"

#include <cstddef>
#include <cstdint>

namespace ns3
{
namespace fl
{

/// Largest quantisation level s accepted (the training set stores integers as int16).
constexpr uint32_t kEgaMaxLevel = 32767;

/**
 * Throws ConfigError naming "s" unless 1 <= s <= kEgaMaxLevel, and naming "n" unless n is finite
 * and > 0.
 */
void ValidateEgaQuantizer(uint32_t s, double n);

/// One uniform draw in [0, 1): the top 53 bits of one engine output times 2^-53.
inline double
EgaUniform(Rng& rng)
{
    return static_cast<double>(rng() >> 11) * 0x1.0p-53;
}

/**
 * The scaled coordinate x s / n of the paper, clamped to [-s, s] (Q's range; coordinates with
 * |x| > n saturate at +-s and are the only ones for which Q is biased).
 */
double EgaScaledCoordinate(double x, uint32_t s, double n);

/**
 * Probability that Q rounds up: p = y - floor(y) with y = EgaScaledCoordinate(x, s, n), so that
 * l = floor(y) with probability 1 - p and floor(y) + 1 with probability p (Section 3.2).
 */
double EgaRoundUpProbability(double x, uint32_t s, double n);

/**
 * Q(x; s, n) of one coordinate given the uniform draw u in [0, 1): floor(y) + 1 if u < p, else
 * floor(y) (y and p as above). The result is an integer in [-s, s], returned as a double.
 */
double EgaQuantizeCoordinate(double x, uint32_t s, double n, double u);

/**
 * Q(x; s, n) of a vector: out[k] = EgaQuantizeCoordinate(x[k], s, n, u_k) with one fresh
 * uniform u_k = EgaUniform(rng) per coordinate, in order k = 0, 1, ... `out` must have x's
 * size; it may alias x. Throws ConfigError on bad s or n, or naming "x" if x has a non-finite
 * entry or out has the wrong size.
 */
void EgaQuantize(const Eigen::Ref<const Eigen::VectorXd>& x,
                 uint32_t s,
                 double n,
                 Rng& rng,
                 Eigen::Ref<Eigen::VectorXd> out);

/// Dequantisation (n / s) l, the unbiased estimate of x from l = Q(x; s, n) when |x| <= n.
inline double
EgaDequantizeCoordinate(double l, uint32_t s, double n)
{
    return l * n / static_cast<double>(s);
}

/**
 * Variance of the dequantised coordinate, Var[(n/s) Q(x)] = (n/s)^2 p (1 - p) with p =
 * EgaRoundUpProbability(x, s, n) (zero when x s / n is an integer or saturates).
 */
double EgaQuantizationVariance(double x, uint32_t s, double n);

/// Per-coordinate variance bound of one client, (n/s)^2 / 4 (p (1 - p) <= 1/4).
double EgaQuantizationVarianceBound(uint32_t s, double n);

/**
 * Clean Lemma 3: per-coordinate variance of the mean of m independently quantised
 * clients, E[((n/s)(1/m) sum_i Q(x_i) - (1/m) sum_i x_i)^2] <= n^2 / (4 m s^2) for |x_i| <= n.
 * Throws ConfigError on bad s, n or m = 0.
 */
double EgaAggregateQuantizationBound(uint32_t s, double n, uint32_t m);

/**
 * Lemma 3 as printed in the paper, (n/m) min(d/s^2, sqrt(d)/s) (dimensionally odd: QSGD's bound,
 * which it applies, scales with n^2, not n; kept for comparison only).
 */
double EgaPaperLemma3Bound(uint32_t s, double n, uint32_t m, std::size_t d);

/**
 * Clean Theorem 1: per-coordinate mean squared error of the EGA aggregate
 * (n/s) D_c((1/m) sum_i E_c(Q(x_i))) against (1/m) sum_i x_i, under the paper's assumption that the
 * encoding-decoding error nu is N(0, sigma^2) independent of the quantisation:
 *   MSE <= n^2 / (4 m s^2) + (n/s)^2 sigma^2,
 * where sigma is the codec's error in quantised units. Throws ConfigError on bad s, n, m or a
 * negative or non-finite sigma.
 */
double EgaTheorem1Bound(uint32_t s, double n, uint32_t m, double sigma);

/**
 * Theorem 1 as printed in the paper, (n/m) min(d/s^2, sqrt(d)/s) + (n/s)^2 sigma^2 (for
 * comparison only).
 */
double EgaPaperTheorem1Bound(uint32_t s, double n, uint32_t m, std::size_t d, double sigma);

/// Number of blocks ceil(d / b); throws ConfigError naming "b" if b = 0.
std::size_t EgaNumBlocks(std::size_t d, uint32_t b);

/**
 * Cuts v into ceil(d/b) blocks of length b, the columns of `blocks` (resized to b x K), the last
 * one zero-padded. Throws ConfigError naming "b" if b = 0.
 */
void EgaToBlocks(const Eigen::Ref<const Eigen::VectorXd>& v, uint32_t b, Eigen::MatrixXd& blocks);

/**
 * Inverse of EgaToBlocks: the first d entries of the blocks in column order (the padding is
 * dropped). Throws ConfigError naming "d" if the blocks hold fewer than d entries.
 */
void EgaFromBlocks(const Eigen::Ref<const Eigen::MatrixXd>& blocks,
                   std::size_t d,
                   Eigen::VectorXd& out);

/**
 * The client side before the encoder in one pass, without an intermediate vector: blocks =
 * EgaToBlocks(Q(lambda x; s, n), b). lambda is the client weight lambda_i of Algorithm 2 (1 for
 * FedAvg; q-FedAvg changes it). The uniforms are drawn in coordinate order exactly as EgaQuantize
 * on lambda x, so both give the same integers for the same engine state. Padding entries are 0
 * and draw nothing. Throws ConfigError on bad s, n, b, lambda or a non-finite entry of x.
 */
void EgaQuantizeToBlocks(const Eigen::Ref<const Eigen::VectorXd>& x,
                         uint32_t s,
                         double n,
                         uint32_t b,
                         Rng& rng,
                         Eigen::MatrixXd& blocks,
                         double lambda = 1.0);

} // namespace fl
} // namespace ns3

#endif // FL_EGA_QUANTIZER_H
