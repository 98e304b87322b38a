/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Algorithm 1 of the EGA paper (Zeng et al., arXiv:2205.13216, 2022): offline training of the
 * learned EGA codec (ega-trainer.h).
 */
#include "ns3/ega-trainer.h"

#include "ns3/ega-quantizer.h"

#include <chrono>
#include <cmath>
#include <string>

namespace ns3
{
namespace fl
{

namespace
{

void
CheckPositive(uint32_t v, const char* name, const char* fix)
{
    if (v == 0)
    {
        throw ConfigError(name, "is 0", fix);
    }
}

void
CheckOpenUnit(double v, const char* name, bool allowOne)
{
    if (!std::isfinite(v) || v <= 0.0 || v > 1.0 || (!allowOne && v == 1.0))
    {
        throw ConfigError(name,
                          std::to_string(v) + " is outside (0, 1" + (allowOne ? "]" : ")"),
                          "use the usual Adam values (beta1 0.9, beta2 0.999, decay factor 0.05)");
    }
}

/// Column means of consecutive groups of m columns: out (rows x cols/m).
void
GroupMeans(const Eigen::Ref<const Eigen::MatrixXd>& x, uint32_t m, Eigen::MatrixXd& out)
{
    const Eigen::Index groups = x.cols() / m;
    out.resize(x.rows(), groups);
    const double inv = 1.0 / static_cast<double>(m);
    for (Eigen::Index g = 0; g < groups; ++g)
    {
        out.col(g) = x.middleCols(g * m, m).rowwise().sum() * inv;
    }
}

} // namespace

void
EgaTrainConfig::Validate() const
{
    CheckPositive(epochs, "epochs", "train for at least one epoch");
    CheckPositive(trainGroups, "trainGroups", "use at least one training group (paper: 10,000)");
    CheckPositive(testGroups, "testGroups", "use at least one held-out group (paper: 5,000)");
    CheckPositive(batchGroups, "batchGroups", "use at least one group per Adam step");
    if (!std::isfinite(learningRate) || learningRate <= 0.0)
    {
        throw ConfigError("learningRate",
                          std::to_string(learningRate) + " is not finite and > 0",
                          "use an Adam step size such as 1e-3");
    }
    CheckOpenUnit(finalLearningRateFactor, "finalLearningRateFactor", true);
    CheckOpenUnit(beta1, "beta1", false);
    CheckOpenUnit(beta2, "beta2", false);
    if (!std::isfinite(epsilon) || epsilon <= 0.0)
    {
        throw ConfigError("epsilon", "is not finite and > 0", "use 1e-8");
    }
}

EgaIntMatrix
EgaSyntheticVectors(uint32_t b, uint32_t s, uint32_t m, uint32_t groups, Rng& rng)
{
    ValidateEgaQuantizer(s, 1.0);
    CheckPositive(b, "b", "use a block length b >= 1");
    CheckPositive(m, "m", "use m >= 1 clients per group");
    EgaIntMatrix out(b, static_cast<Eigen::Index>(groups) * m);
    const uint64_t range = 2ULL * s + 1;
    int16_t* p = out.data();
    const Eigen::Index size = out.size();
    for (Eigen::Index i = 0; i < size; ++i)
    {
        // rng() % range: the modulo bias is below 2^-48 for range <= 65535.
        p[i] = static_cast<int16_t>(static_cast<int64_t>(rng() % range) - static_cast<int64_t>(s));
    }
    return out;
}

double
EgaGroupLossAndGradient(const EgaMlpCodec& codec,
                        const Eigen::Ref<const Eigen::MatrixXd>& inputs,
                        Eigen::Ref<Eigen::VectorXd> gradEncoder,
                        Eigen::Ref<Eigen::VectorXd> gradDecoder)
{
    const uint32_t m = codec.DesignClients();
    const uint32_t b = codec.BlockSize();
    if (inputs.rows() != b || inputs.cols() == 0 || inputs.cols() % m != 0)
    {
        throw ConfigError(
            "inputs",
            "a " + std::to_string(inputs.rows()) + " x " + std::to_string(inputs.cols()) + " batch",
            "pass b = " + std::to_string(b) +
                " rows and a positive multiple of m = " + std::to_string(m) + " columns");
    }
    const EgaMlp& enc = codec.EncoderNet();
    const EgaMlp& dec = codec.DecoderNet();
    EgaMlp::Tape encTape;
    EgaMlp::Tape decTape;
    enc.ForwardTape(codec.EncoderParameters(), inputs, encTape);
    Eigen::MatrixXd meanCodes;
    GroupMeans(encTape.output, m, meanCodes);
    dec.ForwardTape(codec.DecoderParameters(), meanCodes, decTape);
    Eigen::MatrixXd target;
    GroupMeans(inputs, m, target);
    const Eigen::Index groups = target.cols();
    const double scale = 1.0 / (static_cast<double>(groups) * b);
    Eigen::MatrixXd dy = decTape.output - target;
    const double loss = dy.squaredNorm() * scale;
    dy *= 2.0 * scale;
    gradEncoder.setZero();
    gradDecoder.setZero();
    Eigen::MatrixXd dMean;
    dec.Backward(codec.DecoderParameters(), decTape, dy, gradDecoder, &dMean);
    // d mean_g / d code_i = 1/m for each member i of group g.
    Eigen::MatrixXd dCodes(dMean.rows(), inputs.cols());
    const double inv = 1.0 / static_cast<double>(m);
    for (Eigen::Index g = 0; g < groups; ++g)
    {
        dCodes.middleCols(g * m, m) = (dMean.col(g) * inv).replicate(1, m);
    }
    enc.Backward(codec.EncoderParameters(), encTape, dCodes, gradEncoder, nullptr);
    return loss;
}

double
EgaCodecSigma(const EgaCodec& codec, const EgaIntMatrix& vectors, uint32_t m, Rng& rng)
{
    CheckPositive(m, "m", "use m >= 1 clients per group");
    if (vectors.rows() != codec.BlockSize() || vectors.cols() == 0 || vectors.cols() % m != 0)
    {
        throw ConfigError("vectors",
                          "a " + std::to_string(vectors.rows()) + " x " +
                              std::to_string(vectors.cols()) + " set",
                          "pass b rows and a positive multiple of m columns");
    }
    const Eigen::Index groups = vectors.cols() / m;
    const Eigen::Index chunk = 256;
    Eigen::MatrixXd x;
    Eigen::MatrixXd codes;
    Eigen::MatrixXd meanCodes;
    Eigen::MatrixXd decoded;
    Eigen::MatrixXd target;
    double sum = 0.0;
    for (Eigen::Index g0 = 0; g0 < groups; g0 += chunk)
    {
        const Eigen::Index g = std::min(chunk, groups - g0);
        x = vectors.middleCols(g0 * m, g * m).cast<double>();
        codec.Encode(x, codes);
        GroupMeans(codes, m, meanCodes);
        codec.Decode(meanCodes, decoded, rng);
        GroupMeans(x, m, target);
        sum += (decoded - target).squaredNorm();
    }
    return std::sqrt(sum / (static_cast<double>(groups) * vectors.rows()));
}

EgaProbeStats
EgaCodecProbeStats(const EgaCodec& codec, const EgaIntMatrix& vectors, uint32_t m, Rng& rng)
{
    CheckPositive(m, "m", "use m >= 1 clients per group");
    if (vectors.rows() != codec.BlockSize() || vectors.cols() == 0 || vectors.cols() % m != 0)
    {
        throw ConfigError("vectors",
                          "a " + std::to_string(vectors.rows()) + " x " +
                              std::to_string(vectors.cols()) + " set",
                          "pass b rows and a positive multiple of m columns");
    }
    const Eigen::Index groups = vectors.cols() / m;
    const Eigen::Index chunk = 256;
    Eigen::MatrixXd zero;
    codec.Encode(Eigen::MatrixXd::Zero(codec.BlockSize(), 1), zero);
    Eigen::MatrixXd x;
    Eigen::MatrixXd codes;
    Eigen::MatrixXd meanCodes;
    Eigen::MatrixXd swapped;
    Eigen::MatrixXd all;
    Eigen::MatrixXd without;
    double errSum = 0.0;
    double refSum = 0.0;
    double cosSum = 0.0;
    const double md = static_cast<double>(m);
    for (Eigen::Index g0 = 0; g0 < groups; g0 += chunk)
    {
        const Eigen::Index g = std::min(chunk, groups - g0);
        x = vectors.middleCols(g0 * m, g * m).cast<double>();
        codec.Encode(x, codes);
        GroupMeans(codes, m, meanCodes);
        swapped = meanCodes;
        for (Eigen::Index k = 0; k < g; ++k)
        {
            swapped.col(k) += (zero.col(0) - codes.col(k * m)) / md;
        }
        codec.Decode(meanCodes, all, rng);
        codec.Decode(swapped, without, rng);
        for (Eigen::Index k = 0; k < g; ++k)
        {
            const Eigen::VectorXd leak = md * (all.col(k) - without.col(k));
            const Eigen::VectorXd l0 = x.col(k * m);
            errSum += (leak - l0).squaredNorm();
            refSum += l0.squaredNorm();
            const double denom = leak.norm() * l0.norm();
            cosSum += denom > 0.0 ? leak.dot(l0) / denom : 0.0;
        }
    }
    return {std::sqrt(errSum / refSum), cosSum / static_cast<double>(groups)};
}

EgaIntMatrix
EgaHeldOutSet(const EgaMlpCodec& codec, const EgaTrainConfig& config)
{
    Rng rng(DeriveSeed(config.seed, 0xE6A, 2));
    return EgaSyntheticVectors(codec.BlockSize(),
                               codec.DesignLevel(),
                               codec.DesignClients(),
                               config.testGroups,
                               rng);
}

EgaTrainResult
EgaTrainCodec(EgaMlpCodec& codec,
              const EgaTrainConfig& config,
              const std::function<void(const EgaEpochReport&)>& progress)
{
    using Clock = std::chrono::steady_clock;
    config.Validate();
    const auto start = Clock::now();
    const uint32_t b = codec.BlockSize();
    const uint32_t s = codec.DesignLevel();
    const uint32_t m = codec.DesignClients();
    Rng dataRng(DeriveSeed(config.seed, 0xE6A, 1));
    const EgaIntMatrix train = EgaSyntheticVectors(b, s, m, config.trainGroups, dataRng);
    const EgaIntMatrix test = EgaHeldOutSet(codec, config);
    Rng shuffleRng(DeriveSeed(config.seed, 0xE6A, 3));
    Rng evalRng(DeriveSeed(config.seed, 0xE6A, 4)); // unused by the learned codec's decoder

    Eigen::VectorXd& pe = codec.EncoderParameters();
    Eigen::VectorXd& pd = codec.DecoderParameters();
    Eigen::VectorXd ge(pe.size());
    Eigen::VectorXd gd(pd.size());
    Eigen::VectorXd me = Eigen::VectorXd::Zero(pe.size());
    Eigen::VectorXd ve = Eigen::VectorXd::Zero(pe.size());
    Eigen::VectorXd md = Eigen::VectorXd::Zero(pd.size());
    Eigen::VectorXd vd = Eigen::VectorXd::Zero(pd.size());

    EgaTrainResult result;
    result.bestEpoch = 0;
    result.heldOutSigma = EgaCodecSigma(codec, test, m, evalRng);
    Eigen::VectorXd bestE = pe;
    Eigen::VectorXd bestD = pd;

    const std::size_t vectors = static_cast<std::size_t>(train.cols());
    std::vector<std::size_t> perm(vectors);
    for (std::size_t i = 0; i < vectors; ++i)
    {
        perm[i] = i;
    }
    const double invS = 1.0 / static_cast<double>(s);
    const double pi = std::acos(-1.0);
    uint64_t step = 0;
    Eigen::MatrixXd batch;
    for (uint32_t epoch = 1; epoch <= config.epochs; ++epoch)
    {
        const double phase =
            config.epochs > 1 ? static_cast<double>(epoch - 1) / (config.epochs - 1) : 0.0;
        const double f = config.finalLearningRateFactor;
        const double lr =
            config.learningRate * (f + (1.0 - f) * 0.5 * (1.0 + std::cos(pi * phase)));
        // Fisher-Yates with the engine (std::shuffle's algorithm is library-specific).
        for (std::size_t i = vectors - 1; i > 0; --i)
        {
            std::swap(perm[i], perm[shuffleRng() % (i + 1)]);
        }
        double lossSum = 0.0;
        uint32_t batches = 0;
        for (std::size_t g0 = 0; g0 < config.trainGroups; g0 += config.batchGroups)
        {
            const std::size_t groups =
                std::min<std::size_t>(config.batchGroups, config.trainGroups - g0);
            batch.resize(b, static_cast<Eigen::Index>(groups * m));
            for (std::size_t j = 0; j < groups * m; ++j)
            {
                batch.col(static_cast<Eigen::Index>(j)) =
                    train.col(static_cast<Eigen::Index>(perm[g0 * m + j])).cast<double>() * invS;
            }
            lossSum += EgaGroupLossAndGradient(codec, batch, ge, gd);
            ++batches;
            ++step;
            const double c1 = 1.0 - std::pow(config.beta1, static_cast<double>(step));
            const double c2 = 1.0 - std::pow(config.beta2, static_cast<double>(step));
            const double stepSize = lr * std::sqrt(c2) / c1;
            const double epsHat = config.epsilon * std::sqrt(c2);
            auto adam = [&](Eigen::VectorXd& p,
                            const Eigen::VectorXd& g,
                            Eigen::VectorXd& mo,
                            Eigen::VectorXd& vo) {
                mo = config.beta1 * mo + (1.0 - config.beta1) * g;
                vo = config.beta2 * vo + (1.0 - config.beta2) * g.cwiseAbs2();
                p.array() -= stepSize * mo.array() / (vo.array().sqrt() + epsHat);
            };
            adam(pe, ge, me, ve);
            adam(pd, gd, md, vd);
        }
        EgaEpochReport report;
        report.epoch = epoch;
        report.trainLoss = lossSum / batches;
        report.heldOutSigma = EgaCodecSigma(codec, test, m, evalRng);
        report.best = report.heldOutSigma < result.heldOutSigma;
        report.learningRate = lr;
        report.seconds = std::chrono::duration<double>(Clock::now() - start).count();
        if (report.best)
        {
            result.heldOutSigma = report.heldOutSigma;
            result.bestEpoch = epoch;
            bestE = pe;
            bestD = pd;
        }
        result.epochs.push_back(report);
        if (progress)
        {
            progress(report);
        }
    }
    pe = bestE;
    pd = bestD;
    codec.SetHeldOutSigma(result.heldOutSigma);
    result.seconds = std::chrono::duration<double>(Clock::now() - start).count();
    return result;
}

} // namespace fl
} // namespace ns3
