/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * EGA quantisation and blocking (see ega-quantizer.h).
 */
#include "ns3/ega-quantizer.h"

#include <algorithm>
#include <cmath>
#include <string>

namespace ns3
{
namespace fl
{

void
ValidateEgaQuantizer(uint32_t s, double n)
{
    if (s < 1 || s > kEgaMaxLevel)
    {
        throw ConfigError("s",
                          "quantisation level " + std::to_string(s) + " is outside [1, " +
                              std::to_string(kEgaMaxLevel) + "]",
                          "use an integer level s >= 1 (the paper uses 8 to 64)");
    }
    if (!std::isfinite(n) || n <= 0.0)
    {
        throw ConfigError("n",
                          "normalisation " + std::to_string(n) + " is not finite and > 0",
                          "set n to the largest absolute update entry of the round (n > 0)");
    }
}

double
EgaScaledCoordinate(double x, uint32_t s, double n)
{
    const double sd = static_cast<double>(s);
    const double y = x / n * sd;
    return std::min(sd, std::max(-sd, y));
}

double
EgaRoundUpProbability(double x, uint32_t s, double n)
{
    const double y = EgaScaledCoordinate(x, s, n);
    return y - std::floor(y);
}

double
EgaQuantizeCoordinate(double x, uint32_t s, double n, double u)
{
    const double y = EgaScaledCoordinate(x, s, n);
    const double f = std::floor(y);
    return u < (y - f) ? f + 1.0 : f;
}

namespace
{

void
CheckFinite(const Eigen::Ref<const Eigen::VectorXd>& x)
{
    if (!x.allFinite())
    {
        throw ConfigError("x",
                          "the vector to quantise has a non-finite entry",
                          "clip or drop the update before EGA (NaN or inf after local training)");
    }
}

} // namespace

void
EgaQuantize(const Eigen::Ref<const Eigen::VectorXd>& x,
            uint32_t s,
            double n,
            Rng& rng,
            Eigen::Ref<Eigen::VectorXd> out)
{
    ValidateEgaQuantizer(s, n);
    CheckFinite(x);
    if (out.size() != x.size())
    {
        throw ConfigError("x",
                          "output has " + std::to_string(out.size()) + " entries, input " +
                              std::to_string(x.size()),
                          "size the output like the input");
    }
    for (Eigen::Index k = 0; k < x.size(); ++k)
    {
        out[k] = EgaQuantizeCoordinate(x[k], s, n, EgaUniform(rng));
    }
}

double
EgaQuantizationVariance(double x, uint32_t s, double n)
{
    const double p = EgaRoundUpProbability(x, s, n);
    const double step = n / static_cast<double>(s);
    return step * step * p * (1.0 - p);
}

double
EgaQuantizationVarianceBound(uint32_t s, double n)
{
    ValidateEgaQuantizer(s, n);
    const double step = n / static_cast<double>(s);
    return step * step / 4.0;
}

namespace
{

void
CheckClients(uint32_t m)
{
    if (m == 0)
    {
        throw ConfigError("m", "zero clients", "aggregate at least one client (m >= 1)");
    }
}

void
CheckSigma(double sigma)
{
    if (!std::isfinite(sigma) || sigma < 0.0)
    {
        throw ConfigError("sigma",
                          "codec error " + std::to_string(sigma) + " is not finite and >= 0",
                          "pass the held-out sigma of the codec (fl-ega-train prints it)");
    }
}

} // namespace

double
EgaAggregateQuantizationBound(uint32_t s, double n, uint32_t m)
{
    CheckClients(m);
    return EgaQuantizationVarianceBound(s, n) / static_cast<double>(m);
}

double
EgaPaperLemma3Bound(uint32_t s, double n, uint32_t m, std::size_t d)
{
    ValidateEgaQuantizer(s, n);
    CheckClients(m);
    const double sd = static_cast<double>(s);
    const double dd = static_cast<double>(d);
    return n / static_cast<double>(m) * std::min(dd / (sd * sd), std::sqrt(dd) / sd);
}

double
EgaTheorem1Bound(uint32_t s, double n, uint32_t m, double sigma)
{
    CheckSigma(sigma);
    const double step = n / static_cast<double>(s);
    return EgaAggregateQuantizationBound(s, n, m) + step * step * sigma * sigma;
}

double
EgaPaperTheorem1Bound(uint32_t s, double n, uint32_t m, std::size_t d, double sigma)
{
    CheckSigma(sigma);
    const double step = n / static_cast<double>(s);
    return EgaPaperLemma3Bound(s, n, m, d) + step * step * sigma * sigma;
}

std::size_t
EgaNumBlocks(std::size_t d, uint32_t b)
{
    if (b == 0)
    {
        throw ConfigError("b", "block length 0", "use a block length b >= 1 (the paper uses 256)");
    }
    return (d + b - 1) / b;
}

void
EgaToBlocks(const Eigen::Ref<const Eigen::VectorXd>& v, uint32_t b, Eigen::MatrixXd& blocks)
{
    const std::size_t d = static_cast<std::size_t>(v.size());
    const std::size_t k = EgaNumBlocks(d, b);
    blocks.resize(b, static_cast<Eigen::Index>(k));
    // Column-major: the block matrix's memory is the zero-padded vector.
    double* dst = blocks.data();
    std::copy(v.data(), v.data() + d, dst);
    std::fill(dst + d, dst + k * b, 0.0);
}

void
EgaFromBlocks(const Eigen::Ref<const Eigen::MatrixXd>& blocks, std::size_t d, Eigen::VectorXd& out)
{
    const std::size_t total = static_cast<std::size_t>(blocks.size());
    if (total < d)
    {
        throw ConfigError("d",
                          "the blocks hold " + std::to_string(total) +
                              " entries, fewer than d = " + std::to_string(d),
                          "decode ceil(d / b) blocks of the codec's length b");
    }
    out.resize(static_cast<Eigen::Index>(d));
    if (blocks.outerStride() == blocks.rows())
    {
        std::copy(blocks.data(), blocks.data() + d, out.data());
        return;
    }
    for (std::size_t i = 0; i < d; ++i)
    {
        out[static_cast<Eigen::Index>(i)] = blocks(static_cast<Eigen::Index>(i % blocks.rows()),
                                                   static_cast<Eigen::Index>(i / blocks.rows()));
    }
}

void
EgaQuantizeToBlocks(const Eigen::Ref<const Eigen::VectorXd>& x,
                    uint32_t s,
                    double n,
                    uint32_t b,
                    Rng& rng,
                    Eigen::MatrixXd& blocks,
                    double lambda)
{
    ValidateEgaQuantizer(s, n);
    if (!std::isfinite(lambda))
    {
        throw ConfigError("lambda",
                          "client weight " + std::to_string(lambda) + " is not finite",
                          "use a finite weight lambda_i (1 for FedAvg)");
    }
    CheckFinite(x);
    const std::size_t d = static_cast<std::size_t>(x.size());
    const std::size_t k = EgaNumBlocks(d, b);
    blocks.resize(b, static_cast<Eigen::Index>(k));
    double* dst = blocks.data();
    const double* src = x.data();
    for (std::size_t i = 0; i < d; ++i)
    {
        dst[i] = EgaQuantizeCoordinate(lambda * src[i], s, n, EgaUniform(rng));
    }
    std::fill(dst + d, dst + k * b, 0.0);
}

} // namespace fl
} // namespace ns3
