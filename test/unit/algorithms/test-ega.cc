/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * (Just over 1,000 lines: the one suite of EGA's pure core, every test on the same codecs.)
 *
 * EGA pure core (D. Zeng et al., "Encoded Gradients Aggregation against Gradient Leakage in
 * Federated Learning", arXiv:2205.13216, 2022): the stochastic quantiser against the paper's
 * definition and its moments, blocking, the clean bounds of Lemma 3 and Theorem 1 against hand
 * computations, the linear codec (exactly additive), the Gaussian surrogate, the residual-MLP
 * codec (parameter count of the paper, forward paths, a finite-difference check of the
 * hand-written backpropagation, Algorithm 1 on a tiny codec), the codec file (bit-exact round
 * trip, every corruption rejected), aggregation in the encoded domain and the curious-server
 * probe of Eq. (2), and the uplink codec's sum path (a fixed-point sum of the codes, as secure
 * aggregation delivers it, decodes to the per-client aggregate bit for bit).
 *
 * Statistical checks use fixed seeds and bounds derived from the distribution: a sample mean is
 * within 5 standard deviations of its expectation (two-sided probability < 6e-7 under a normal
 * approximation), with the standard deviation computed from the law, not from the run.
 */
#include "fl-test-config-error.h"

#include "ns3/ega-aggregate.h"
#include "ns3/ega-codec.h"
#include "ns3/ega-mlp-codec.h"
#include "ns3/ega-quantizer.h"
#include "ns3/ega-trainer.h"
#include "ns3/ega-uplink-codec.h"
#include "ns3/secagg-protocol.h"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <gtest/gtest.h>
#include <numeric>
#include <string>
#include <vector>

using namespace ns3::fl;
using fltest::ExpectConfigError;

namespace
{

constexpr double kSigmas = 5.0; // width of every statistical acceptance band

/// Expects `call` to throw DataError whose message contains `fragment`.
template <typename F>
void
ExpectDataError(F call, const std::string& fragment)
{
    try
    {
        call();
        ADD_FAILURE() << "no DataError (expected '" << fragment << "')";
    }
    catch (const DataError& e)
    {
        EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
    }
}

Eigen::VectorXd
UniformVector(std::size_t d, double lo, double hi, Rng& rng)
{
    Eigen::VectorXd v(static_cast<Eigen::Index>(d));
    for (auto& e : v)
    {
        e = lo + (hi - lo) * EgaUniform(rng);
    }
    return v;
}

Eigen::MatrixXd
IntegerBlocks(uint32_t b, Eigen::Index cols, uint32_t s, Rng& rng)
{
    return EgaSyntheticVectors(b, s, 1, static_cast<uint32_t>(cols), rng).cast<double>();
}

bool
BitEqual(const Eigen::VectorXd& a, const Eigen::VectorXd& b)
{
    return a.size() == b.size() &&
           std::memcmp(a.data(), b.data(), sizeof(double) * static_cast<std::size_t>(a.size())) ==
               0;
}

/// A tiny trained codec shared by the training, Theorem 1 and probe tests (trained once).
const EgaMlpCodec&
TinyTrainedCodec(EgaTrainResult* result = nullptr)
{
    static EgaTrainResult trained;
    static const EgaMlpCodec codec = [] {
        Rng init(11);
        EgaMlpCodec c(EgaMlpShape{16, 16, 64, 1, 2}, 8, 4, init);
        EgaTrainConfig cfg;
        cfg.epochs = 12;
        cfg.trainGroups = 2000;
        cfg.testGroups = 500;
        cfg.batchGroups = 16;
        cfg.learningRate = 3e-3;
        cfg.seed = 5;
        trained = EgaTrainCodec(c, cfg);
        return c;
    }();
    if (result != nullptr)
    {
        *result = trained;
    }
    return codec;
}

} // namespace

// ------------------------------------------------------------------------------- quantiser

TEST(EgaQuantizer, CoordinateFollowsTheDefinition)
{
    // x = 0.3, n = 1, s = 4: x s / n = 1.2, floor 1, round up with probability 0.2.
    EXPECT_NEAR(EgaScaledCoordinate(0.3, 4, 1.0), 1.2, 1e-12);
    EXPECT_NEAR(EgaRoundUpProbability(0.3, 4, 1.0), 0.2, 1e-12);
    EXPECT_EQ(EgaQuantizeCoordinate(0.3, 4, 1.0, 0.1), 2.0);
    EXPECT_EQ(EgaQuantizeCoordinate(0.3, 4, 1.0, 0.5), 1.0);
    // x = -0.3: -1.2, floor -2, up (to -1) with probability 0.8.
    EXPECT_NEAR(EgaRoundUpProbability(-0.3, 4, 1.0), 0.8, 1e-12);
    EXPECT_EQ(EgaQuantizeCoordinate(-0.3, 4, 1.0, 0.5), -1.0);
    EXPECT_EQ(EgaQuantizeCoordinate(-0.3, 4, 1.0, 0.9), -2.0);
    // x = 0.75, n = 2, s = 8: exactly 3, deterministic.
    EXPECT_EQ(EgaRoundUpProbability(0.75, 8, 2.0), 0.0);
    EXPECT_EQ(EgaQuantizeCoordinate(0.75, 8, 2.0, 0.0), 3.0);
    // |x| > n saturates at +-s; x = +-n maps to +-s.
    EXPECT_EQ(EgaQuantizeCoordinate(5.0, 8, 2.0, 0.0), 8.0);
    EXPECT_EQ(EgaQuantizeCoordinate(-5.0, 8, 2.0, 0.99), -8.0);
    EXPECT_EQ(EgaQuantizeCoordinate(2.0, 8, 2.0, 0.0), 8.0);
    EXPECT_EQ(EgaQuantizeCoordinate(-2.0, 8, 2.0, 0.0), -8.0);
    // Dequantisation and variance (n/s)^2 p (1 - p).
    EXPECT_NEAR(EgaDequantizeCoordinate(3.0, 8, 2.0), 0.75, 1e-15);
    EXPECT_NEAR(EgaQuantizationVariance(0.3, 4, 1.0), 0.0625 * 0.2 * 0.8, 1e-12);
    EXPECT_NEAR(EgaQuantizationVarianceBound(4, 1.0), 0.0625 / 4.0, 1e-15);
}

TEST(EgaQuantizer, UnbiasedAndVarianceWithinSampleBounds)
{
    const uint32_t s = 16;
    const double n = 0.5;
    const std::size_t draws = 40000;
    const double step = n / s;
    Rng rng(21);
    for (double x : {0.0123, -0.2071, 0.49, -0.0007, 0.3333})
    {
        const double p = EgaRoundUpProbability(x, s, n);
        const double var = EgaQuantizationVariance(x, s, n);
        ASSERT_LE(var, EgaQuantizationVarianceBound(s, n) + 1e-18);
        Eigen::VectorXd xs = Eigen::VectorXd::Constant(static_cast<Eigen::Index>(draws), x);
        Eigen::VectorXd l(xs.size());
        EgaQuantize(xs, s, n, rng, l);
        const Eigen::VectorXd est = l * step;
        const double mean = est.mean();
        // Unbiased: |mean - x| <= k sd / sqrt(N), sd from the law.
        EXPECT_LE(std::abs(mean - x), kSigmas * std::sqrt(var / draws)) << "x = " << x;
        // Variance: the sample variance of a scaled Bernoulli(p) has variance
        // step^4 p(1-p)[(1-p)^3 + p^3 - p(1-p)] / N (fourth central moment minus var^2).
        const double sampleVar = (est.array() - mean).square().sum() / (draws - 1);
        const double v4 =
            std::pow(step, 4) * p * (1 - p) * (std::pow(1 - p, 3) + std::pow(p, 3) - p * (1 - p));
        EXPECT_LE(std::abs(sampleVar - var), kSigmas * std::sqrt(v4 / draws) + 1e-15)
            << "x = " << x;
        EXPECT_LE(sampleVar, EgaQuantizationVarianceBound(s, n) + kSigmas * std::sqrt(v4 / draws));
    }
}

TEST(EgaQuantizer, IntegersInRangeAndReproducible)
{
    const uint32_t s = 8;
    const double n = 1.0;
    Rng draw(3);
    const Eigen::VectorXd x = UniformVector(5000, -2.0, 2.0, draw); // half of them saturate
    Rng a(9);
    Rng b(9);
    Eigen::VectorXd la(x.size());
    EgaQuantize(x, s, n, a, la);
    for (Eigen::Index k = 0; k < x.size(); ++k)
    {
        ASSERT_EQ(la[k], std::floor(la[k]));
        ASSERT_GE(la[k], -double(s));
        ASSERT_LE(la[k], double(s));
        ASSERT_LE(std::abs(la[k] - EgaScaledCoordinate(x[k], s, n)), 1.0);
    }
    // Blocks drawn from the same engine state hold the same integers, zero-padded.
    Eigen::MatrixXd blocks;
    EgaQuantizeToBlocks(x, s, n, 64, b, blocks);
    ASSERT_EQ(blocks.rows(), 64);
    ASSERT_EQ(blocks.cols(), 79); // ceil(5000 / 64)
    Eigen::VectorXd back;
    EgaFromBlocks(blocks, 5000, back);
    EXPECT_TRUE(BitEqual(back, la));
    EXPECT_EQ(Eigen::Map<const Eigen::VectorXd>(blocks.data() + 5000, 79 * 64 - 5000)
                  .cwiseAbs()
                  .maxCoeff(),
              0.0);
    // lambda scales before quantisation: lambda x with lambda = 2 equals Q(2 x).
    Rng c(4);
    Rng d(4);
    EgaQuantizeToBlocks(x, s, n, 64, c, blocks, 2.0);
    Eigen::VectorXd l2(x.size());
    EgaQuantize(2.0 * x, s, n, d, l2);
    EgaFromBlocks(blocks, 5000, back);
    EXPECT_TRUE(BitEqual(back, l2));
}

TEST(EgaQuantizer, BadInputsNameTheParameter)
{
    Rng rng(1);
    Eigen::VectorXd x = Eigen::VectorXd::Ones(4);
    Eigen::VectorXd out(4);
    ExpectConfigError([&] { EgaQuantize(x, 0, 1.0, rng, out); }, "s");
    ExpectConfigError([&] { EgaQuantize(x, 4, 0.0, rng, out); }, "n");
    ExpectConfigError([&] { EgaQuantize(x, 4, std::nan(""), rng, out); }, "n");
    Eigen::VectorXd shortOut(3);
    ExpectConfigError([&] { EgaQuantize(x, 4, 1.0, rng, shortOut); }, "x");
    x[2] = std::nan("");
    ExpectConfigError([&] { EgaQuantize(x, 4, 1.0, rng, out); }, "x");
    Eigen::MatrixXd blocks;
    ExpectConfigError(
        [&] { EgaQuantizeToBlocks(Eigen::VectorXd::Ones(4), 4, 1.0, 0, rng, blocks); },
        "b");
    ExpectConfigError(
        [&] { EgaQuantizeToBlocks(Eigen::VectorXd::Ones(4), 4, 1.0, 2, rng, blocks, INFINITY); },
        "lambda");
    ExpectConfigError([&] { EgaFromBlocks(Eigen::MatrixXd::Zero(2, 2), 5, out); }, "d");
}

// --------------------------------------------------------------------------------- blocking

TEST(EgaBlocking, RoundTripWithZeroPadding)
{
    Rng rng(2);
    for (std::size_t d :
         {std::size_t{1}, std::size_t{63}, std::size_t{64}, std::size_t{65}, std::size_t{1000}})
    {
        const Eigen::VectorXd v = UniformVector(d, -1.0, 1.0, rng);
        Eigen::MatrixXd blocks;
        EgaToBlocks(v, 64, blocks);
        ASSERT_EQ(static_cast<std::size_t>(blocks.cols()), EgaNumBlocks(d, 64));
        ASSERT_EQ(static_cast<std::size_t>(blocks.cols()), (d + 63) / 64);
        for (Eigen::Index k = 0; k < blocks.cols(); ++k)
        {
            for (Eigen::Index i = 0; i < 64; ++i)
            {
                const std::size_t idx = static_cast<std::size_t>(k * 64 + i);
                ASSERT_EQ(blocks(i, k), idx < d ? v[static_cast<Eigen::Index>(idx)] : 0.0);
            }
        }
        Eigen::VectorXd back;
        EgaFromBlocks(blocks, d, back);
        EXPECT_TRUE(BitEqual(back, v));
    }
    Eigen::MatrixXd empty;
    EgaToBlocks(Eigen::VectorXd(0), 8, empty);
    EXPECT_EQ(empty.cols(), 0);
}

// ----------------------------------------------------------------------------------- bounds

TEST(EgaBounds, CleanAndPaperFormsMatchHandComputations)
{
    // s = 64, n = 0.5, m = 10, sigma = 2: n^2/(4 m s^2) = 0.25/163840; (n/s)^2 sigma^2 = 4
    // (0.5/64)^2.
    EXPECT_NEAR(EgaAggregateQuantizationBound(64, 0.5, 10), 0.25 / 163840.0, 1e-18);
    EXPECT_NEAR(EgaTheorem1Bound(64, 0.5, 10, 2.0), 0.25 / 163840.0 + 4.0 * 0.25 / 4096.0, 1e-15);
    EXPECT_NEAR(EgaTheorem1Bound(64, 0.5, 10, 0.0), EgaAggregateQuantizationBound(64, 0.5, 10), 0);
    // Paper's Lemma 3, d = 7850: min(7850/4096, sqrt(7850)/64) = sqrt(7850)/64.
    EXPECT_NEAR(EgaPaperLemma3Bound(64, 0.5, 10, 7850), 0.05 * std::sqrt(7850.0) / 64.0, 1e-15);
    // d = 100: min(100/4096, 10/64) = 100/4096.
    EXPECT_NEAR(EgaPaperLemma3Bound(64, 0.5, 10, 100), 0.05 * 100.0 / 4096.0, 1e-15);
    EXPECT_NEAR(EgaPaperTheorem1Bound(64, 0.5, 10, 100, 2.0),
                0.05 * 100.0 / 4096.0 + 4.0 * 0.25 / 4096.0,
                1e-15);
    ExpectConfigError([] { EgaTheorem1Bound(64, 0.5, 0, 1.0); }, "m");
    ExpectConfigError([] { EgaTheorem1Bound(64, 0.5, 10, -1.0); }, "sigma");
}

TEST(EgaBounds, MeanOfQuantisedClientsWithinLemma3)
{
    // m clients, |x| <= n: the per-coordinate MSE of the dequantised mean has expectation
    // (1/m^2) sum_i Var_i <= n^2/(4 m s^2). Each squared error is <= step^2, so its variance is
    // <= step^2 E[e^2] and the sample MSE over d coordinates is within k step sqrt(bound/d).
    const uint32_t s = 8;
    const uint32_t m = 10;
    const double n = 0.1;
    const std::size_t d = 20000;
    const double step = n / s;
    Rng rng(17);
    std::vector<Eigen::VectorXd> xs;
    Eigen::VectorXd mean = Eigen::VectorXd::Zero(d);
    Eigen::VectorXd qmean = Eigen::VectorXd::Zero(d);
    double expected = 0.0;
    for (uint32_t i = 0; i < m; ++i)
    {
        const Eigen::VectorXd x = UniformVector(d, -n, n, rng);
        Eigen::VectorXd l(x.size());
        EgaQuantize(x, s, n, rng, l);
        mean += x / m;
        qmean += l * (step / m);
        for (Eigen::Index k = 0; k < x.size(); ++k)
        {
            expected += EgaQuantizationVariance(x[k], s, n) / (double(m) * m * d);
        }
    }
    const double bound = EgaAggregateQuantizationBound(s, n, m);
    EXPECT_LE(expected, bound);
    const double mse = (qmean - mean).squaredNorm() / d;
    EXPECT_LE(std::abs(mse - expected), kSigmas * step * std::sqrt(bound / d));
}

// ------------------------------------------------------------------------------ linear codec

TEST(EgaLinearCodec, ExactlyAdditiveAndOneProductForAllBlocks)
{
    Rng rng(8);
    const uint32_t b = 32;
    const uint32_t s = 64;
    const uint32_t m = 10;
    EgaLinearCodec codec(b, 48, rng);
    EXPECT_NEAR((codec.Matrix().transpose() * codec.Matrix() - Eigen::MatrixXd::Identity(b, b))
                    .cwiseAbs()
                    .maxCoeff(),
                0.0,
                1e-12);
    const Eigen::Index blocks = 20;
    Eigen::MatrixXd sum;
    Eigen::MatrixXd mean = Eigen::MatrixXd::Zero(b, blocks);
    for (uint32_t i = 0; i < m; ++i)
    {
        const Eigen::MatrixXd l = IntegerBlocks(b, blocks, s, rng);
        Eigen::MatrixXd codes;
        codec.Encode(l, codes);
        ASSERT_EQ(codes.rows(), 48);
        // Blocks as columns in one product equal one block at a time.
        Eigen::MatrixXd one;
        codec.Encode(l.col(7), one);
        EXPECT_LE((one - codes.col(7)).cwiseAbs().maxCoeff(), 1e-12 * s);
        EgaAccumulate(sum, codes);
        mean += l / m;
    }
    Eigen::MatrixXd decoded;
    codec.Decode(sum / m, decoded, rng);
    EXPECT_LE((decoded - mean).cwiseAbs().maxCoeff(), 1e-12 * s);
    ExpectConfigError([&] { EgaLinearCodec(32, 16, rng); }, "h");
    ExpectConfigError([&] { codec.Encode(Eigen::MatrixXd::Zero(31, 2), decoded); }, "blocks");
    ExpectConfigError([&] { codec.Decode(Eigen::MatrixXd::Zero(31, 2), decoded, rng); }, "codes");
}

// ------------------------------------------------------------------------- Gaussian surrogate

TEST(EgaGaussianCodec, DecodeErrorHasTheTableSigma)
{
    const double sigma = 0.7;
    EgaGaussianCodec codec(64, sigma, 64, 10);
    Rng rng(12);
    const Eigen::MatrixXd l = IntegerBlocks(64, 500, 64, rng);
    Eigen::MatrixXd codes;
    codec.Encode(l, codes);
    EXPECT_TRUE((codes.array() == l.array()).all());
    Eigen::MatrixXd decoded;
    codec.Decode(codes, decoded, rng);
    const Eigen::ArrayXXd err = (decoded - l).array();
    const double count = static_cast<double>(err.size());
    // Mean within k sigma/sqrt(N); sample variance within k sqrt(2 sigma^4 / N).
    EXPECT_LE(std::abs(err.mean()), kSigmas * sigma / std::sqrt(count));
    EXPECT_LE(std::abs(err.square().mean() - sigma * sigma),
              kSigmas * std::sqrt(2.0 / count) * sigma * sigma);
    ExpectConfigError([] { EgaGaussianCodec(64, -1.0); }, "sigma");
    ExpectConfigError([] { EgaLookupSigma(3, 3, 3, 3); }, "sigma");
    // The lowest measured sigma of a (b, h, s, m), as Algorithm 1 keeps the best codec.
    EXPECT_EQ(EgaLookupSigma(32, 16, 64, 10), 8.307344867162428);
}

// -------------------------------------------------------------------------------- MLP codec

TEST(EgaMlpCodec, ParameterCountOfThePaper)
{
    // The paper's MNIST encoder: b = h = 256, width 512, 3 residual blocks of expansion 4:
    // 6,824,704 each.
    const EgaMlpShape paper{256, 256, 512, 3, 4};
    EXPECT_EQ(EgaMlp::Encoder(paper).NumParameters(), 6824704u);
    EXPECT_EQ(EgaMlp::Decoder(paper).NumParameters(), 6824704u);
    ExpectConfigError([] { EgaMlpShape{0, 4, 4, 1, 1}.Validate(); }, "b");
    ExpectConfigError([] { EgaMlpShape{4, 4, 4, 1, 0}.Validate(); }, "expansion");
    Rng rng(1);
    ExpectConfigError([&] { EgaMlpCodec(EgaMlpShape{4, 4, 4, 1, 1}, 0, 2, rng); }, "s");
    ExpectConfigError([&] { EgaMlpCodec(EgaMlpShape{4, 4, 4, 1, 1}, 4, 0, rng); }, "m");
}

TEST(EgaMlpCodec, ForwardPathsAgreeAndBlocksAreColumns)
{
    Rng rng(4);
    const uint32_t s = 16;
    EgaMlpCodec codec(EgaMlpShape{12, 8, 20, 2, 3}, s, 3, rng);
    const Eigen::MatrixXd l = IntegerBlocks(12, 37, s, rng);
    Eigen::MatrixXd codes;
    codec.Encode(l, codes);
    ASSERT_EQ(codes.rows(), 8);
    ASSERT_EQ(codes.cols(), 37);
    // The inference path (input scale folded into the first product) equals the training path.
    EgaMlp::Tape tape;
    codec.EncoderNet().ForwardTape(codec.EncoderParameters(), l / double(s), tape);
    EXPECT_LE((tape.output - codes).cwiseAbs().maxCoeff(), 1e-12);
    for (Eigen::Index k : {0, 19, 36})
    {
        Eigen::MatrixXd one;
        codec.Encode(l.col(k), one);
        EXPECT_LE((one - codes.col(k)).cwiseAbs().maxCoeff(), 1e-12);
    }
    Eigen::MatrixXd decoded;
    codec.Decode(codes, decoded, rng);
    codec.DecoderNet().ForwardTape(codec.DecoderParameters(), codes, tape);
    EXPECT_LE((tape.output * double(s) - decoded).cwiseAbs().maxCoeff(), 1e-12);
}

TEST(EgaMlpCodec, BackpropagationMatchesFiniteDifferences)
{
    Rng rng(31);
    const uint32_t m = 3;
    EgaMlpCodec codec(EgaMlpShape{5, 4, 6, 2, 2}, 8, m, rng);
    // Larger biases than the initialisation so that the ReLU masks are mixed.
    for (Eigen::VectorXd* p : {&codec.EncoderParameters(), &codec.DecoderParameters()})
    {
        for (auto& e : *p)
        {
            e += 0.1 * (EgaUniform(rng) - 0.5);
        }
    }
    const Eigen::MatrixXd inputs = IntegerBlocks(5, 2 * m, 8, rng) / 8.0;
    Eigen::VectorXd ge(codec.EncoderParameters().size());
    Eigen::VectorXd gd(codec.DecoderParameters().size());
    EgaGroupLossAndGradient(codec, inputs, ge, gd);
    Eigen::VectorXd se(ge.size());
    Eigen::VectorXd sd(gd.size());
    const double h = 1e-6;
    double worst = 0.0;
    for (int net = 0; net < 2; ++net)
    {
        Eigen::VectorXd& p = net == 0 ? codec.EncoderParameters() : codec.DecoderParameters();
        const Eigen::VectorXd& g = net == 0 ? ge : gd;
        for (Eigen::Index i = 0; i < p.size(); ++i)
        {
            const double keep = p[i];
            p[i] = keep + h;
            const double up = EgaGroupLossAndGradient(codec, inputs, se, sd);
            p[i] = keep - h;
            const double down = EgaGroupLossAndGradient(codec, inputs, se, sd);
            p[i] = keep;
            const double numeric = (up - down) / (2 * h);
            const double err =
                std::abs(numeric - g[i]) / std::max(1e-4, std::abs(numeric) + std::abs(g[i]));
            worst = std::max(worst, err);
            EXPECT_LE(err, 1e-5) << (net == 0 ? "encoder" : "decoder") << " parameter " << i
                                 << ": analytic " << g[i] << ", numeric " << numeric;
        }
    }
    RecordProperty("worst_relative_error", std::to_string(worst));
    ExpectConfigError([&] { EgaGroupLossAndGradient(codec, inputs.leftCols(4), ge, gd); },
                      "inputs");
}

TEST(EgaMlpCodec, TrainingReachesHalfTheZeroDecoderError)
{
    // Bound from the data law: a decoder that outputs 0 has sigma0 = sqrt(s(s+1)/(3m)) (the sd
    // of the mean of m uniform integers on [-s, s]); a codec that learned the task must explain
    // at least 3/4 of that variance, sigma < sigma0 / 2.
    EgaTrainResult result;
    const EgaMlpCodec& codec = TinyTrainedCodec(&result);
    const double s = 8.0;
    const double m = 4.0;
    const double sigma0 = std::sqrt(s * (s + 1) / (3 * m));
    RecordProperty("held_out_sigma", std::to_string(result.heldOutSigma));
    EXPECT_LT(result.heldOutSigma, sigma0 / 2.0);
    // The best epoch's weights are kept and their sigma is the recorded one.
    double best = std::numeric_limits<double>::infinity();
    for (const auto& e : result.epochs)
    {
        best = std::min(best, e.heldOutSigma);
    }
    EXPECT_EQ(result.heldOutSigma, best);
    EXPECT_EQ(codec.HeldOutSigma(), best);
    EgaTrainConfig cfg;
    cfg.testGroups = 500;
    cfg.seed = 5;
    Rng unused(0);
    EXPECT_NEAR(EgaCodecSigma(codec, EgaHeldOutSet(codec, cfg), 4, unused), best, 1e-12);
}

TEST(EgaMlpCodec, TrainingIsDeterministic)
{
    EgaTrainConfig cfg;
    cfg.epochs = 2;
    cfg.trainGroups = 200;
    cfg.testGroups = 50;
    cfg.batchGroups = 8;
    cfg.seed = 3;
    Rng a(7);
    Rng b(7);
    EgaMlpCodec ca(EgaMlpShape{8, 8, 16, 1, 2}, 8, 4, a);
    EgaMlpCodec cb(EgaMlpShape{8, 8, 16, 1, 2}, 8, 4, b);
    EgaTrainCodec(ca, cfg);
    EgaTrainCodec(cb, cfg);
    EXPECT_TRUE(BitEqual(ca.EncoderParameters(), cb.EncoderParameters()));
    EXPECT_TRUE(BitEqual(ca.DecoderParameters(), cb.DecoderParameters()));
    cfg.batchGroups = 0;
    ExpectConfigError([&] { EgaTrainCodec(ca, cfg); }, "batchGroups");
}

// ------------------------------------------------------------------------------- codec file

TEST(EgaCodecFile, RoundTripIsBitExact)
{
    Rng rng(6);
    EgaMlpCodec codec(EgaMlpShape{6, 5, 7, 2, 2}, 16, 4, rng);
    codec.SetHeldOutSigma(0.125);
    const std::vector<uint8_t> bytes = codec.Serialize();
    ASSERT_EQ(bytes.size(),
              kEgaCodecHeaderBytes +
                  8 * (codec.EncoderParameters().size() + codec.DecoderParameters().size()) + 4);
    EXPECT_EQ(std::string(bytes.begin(), bytes.begin() + 8), "FLEGACOD");
    const EgaMlpCodec back = EgaMlpCodec::Deserialize(bytes.data(), bytes.size(), "memory");
    EXPECT_TRUE(BitEqual(back.EncoderParameters(), codec.EncoderParameters()));
    EXPECT_TRUE(BitEqual(back.DecoderParameters(), codec.DecoderParameters()));
    EXPECT_EQ(back.HeldOutSigma(), 0.125);
    EXPECT_EQ(back.DesignLevel(), 16u);
    EXPECT_EQ(back.DesignClients(), 4u);
    EXPECT_EQ(back.Shape().depth, 2u);
    EXPECT_EQ(back.Serialize(), bytes);

    // Through a file, float64 and float32 (float32 stores the rounded weights, and a second
    // round trip is bit-exact).
    const std::string path = ::testing::TempDir() + "ega-codec-roundtrip.bin";
    codec.Save(path);
    EXPECT_EQ(EgaMlpCodec::Load(path).Serialize(), bytes);
    codec.Save(path, Precision::Float32);
    const EgaMlpCodec f32 = EgaMlpCodec::Load(path);
    EgaMlpCodec rounded = codec;
    rounded.RoundWeights(Precision::Float32);
    EXPECT_TRUE(BitEqual(f32.EncoderParameters(), rounded.EncoderParameters()));
    EXPECT_TRUE(BitEqual(f32.DecoderParameters(), rounded.DecoderParameters()));
    EXPECT_EQ(f32.Serialize(Precision::Float32), codec.Serialize(Precision::Float32));
    std::remove(path.c_str());
    // An unmeasured sigma (NaN) survives too.
    EgaMlpCodec fresh(EgaMlpShape{2, 2, 2, 0, 1}, 2, 2, rng);
    const auto fb = fresh.Serialize();
    EXPECT_TRUE(std::isnan(EgaMlpCodec::Deserialize(fb.data(), fb.size(), "m").HeldOutSigma()));
}

TEST(EgaCodecFile, CorruptTruncatedAndWrongVersionRejected)
{
    Rng rng(6);
    EgaMlpCodec codec(EgaMlpShape{4, 3, 5, 1, 2}, 8, 3, rng);
    const std::vector<uint8_t> good = codec.Serialize();
    auto parse = [](std::vector<uint8_t> v) {
        return [v] { EgaMlpCodec::Deserialize(v.data(), v.size(), "test.bin"); };
    };
    // Recomputes the CRC so that only the intended defect remains.
    auto fixCrc = [](std::vector<uint8_t>& v) {
        if (v.size() < 4)
        {
            return;
        }
        // CRC-32 (zlib polynomial), bitwise.
        uint32_t crc = 0xFFFFFFFFu;
        for (std::size_t i = 0; i + 4 < v.size(); ++i)
        {
            crc ^= v[i];
            for (int k = 0; k < 8; ++k)
            {
                crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1u)));
            }
        }
        crc ^= 0xFFFFFFFFu;
        std::memcpy(v.data() + v.size() - 4, &crc, 4);
    };
    {
        std::vector<uint8_t> same = good;
        fixCrc(same);
        ASSERT_EQ(same, good) << "the test's CRC differs from the file's";
    }
    for (std::size_t len : {std::size_t{0},
                            std::size_t{7},
                            std::size_t{40},
                            kEgaCodecHeaderBytes - 1,
                            kEgaCodecHeaderBytes,
                            kEgaCodecHeaderBytes + 9,
                            good.size() - 1})
    {
        ExpectDataError(parse(std::vector<uint8_t>(good.begin(), good.begin() + len)), "truncated");
    }
    std::vector<uint8_t> longer = good;
    longer.push_back(0);
    ExpectDataError(parse(longer), "trailing");
    std::vector<uint8_t> v = good;
    v[0] = 'X';
    ExpectDataError(parse(v), "magic");
    v = good;
    v[8] = 2; // version 2
    fixCrc(v);
    ExpectDataError(parse(v), "version 2");
    v = good;
    v[12] = 3; // precision code
    fixCrc(v);
    ExpectDataError(parse(v), "precision");
    v = good;
    v[28] = 2; // depth 2: the counts no longer match the shape
    fixCrc(v);
    ExpectDataError(parse(v), "parameter counts");
    v = good;
    v[16] = 0; // b = 0
    fixCrc(v);
    ExpectDataError(parse(v), "b");
    v = good;
    {
        const double minusOne = -1.0; // a negative held-out sigma
        std::memcpy(v.data() + 48, &minusOne, 8);
    }
    fixCrc(v);
    ExpectDataError(parse(v), "sigma");
    v = good;
    v[kEgaCodecHeaderBytes + 3] ^= 0x10; // one weight bit
    ExpectDataError(parse(v), "CRC");
    v = good;
    {
        const double nan = std::nan("");
        std::memcpy(v.data() + kEgaCodecHeaderBytes + 8, &nan, 8);
    }
    fixCrc(v);
    ExpectDataError(parse(v), "not finite");
    // Every single-byte corruption is rejected with a DataError, never accepted or crashing.
    for (std::size_t i = 0; i < good.size(); ++i)
    {
        v = good;
        v[i] ^= 0x5A;
        EXPECT_THROW(EgaMlpCodec::Deserialize(v.data(), v.size(), "flip"), DataError) << i;
    }
    // Files: missing, and truncated on disk.
    ExpectDataError([] { EgaMlpCodec::Load("/nonexistent/ega.bin"); }, "cannot open");
    const std::string path = ::testing::TempDir() + "ega-codec-truncated.bin";
    {
        std::ofstream out(path, std::ios::binary);
        out.write(reinterpret_cast<const char*>(good.data()),
                  static_cast<std::streamsize>(good.size() / 2));
    }
    ExpectDataError([&] { EgaMlpCodec::Load(path); }, "truncated");
    std::remove(path.c_str());
}

// ------------------------------------------------------------------------------ aggregation

namespace
{

/// A round of m clients with updates uniform in [-n, n]^d: true mean, aggregate, codes.
struct Round
{
    std::vector<Eigen::VectorXd> updates;
    std::vector<Eigen::MatrixXd> codes;
    Eigen::MatrixXd codeSum;
    Eigen::VectorXd trueMean;
    Eigen::VectorXd aggregate;
};

Round
RunRound(const EgaCodec& codec, uint32_t m, std::size_t d, uint32_t s, double n, uint64_t seed)
{
    Round r;
    Rng data(seed);
    r.trueMean = Eigen::VectorXd::Zero(static_cast<Eigen::Index>(d));
    for (uint32_t i = 0; i < m; ++i)
    {
        r.updates.push_back(UniformVector(d, -n, n, data));
        Rng q(DeriveSeed(seed, i, 1));
        Eigen::MatrixXd codes;
        EgaEncodeUpdate(codec, r.updates.back(), s, n, q, codes);
        EgaAccumulate(r.codeSum, codes);
        r.codes.push_back(codes);
        r.trueMean += r.updates.back() / m;
    }
    Rng dec(DeriveSeed(seed, 99));
    EgaDecodeAggregate(codec, r.codeSum, m, d, s, n, dec, r.aggregate);
    return r;
}

/// (n/s) Q(x) with client i's engine of RunRound.
Eigen::VectorXd
Dequantised(const Eigen::VectorXd& x, uint32_t s, double n, uint64_t seed, uint32_t i)
{
    Rng q(DeriveSeed(seed, i, 1));
    Eigen::VectorXd l(x.size());
    EgaQuantize(x, s, n, q, l);
    return l * (n / s);
}

} // namespace

TEST(EgaAggregate, LinearCodecAggregateIsTheQuantisedMean)
{
    Rng rng(1);
    EgaLinearCodec codec(32, 32, rng);
    const uint32_t m = 6;
    const uint32_t s = 64;
    const double n = 0.02;
    const std::size_t d = 1000;
    const Round r = RunRound(codec, m, d, s, n, 42);
    Eigen::VectorXd qmean = Eigen::VectorXd::Zero(d);
    for (uint32_t i = 0; i < m; ++i)
    {
        qmean += Dequantised(r.updates[i], s, n, 42, i) / m;
    }
    EXPECT_LE((r.aggregate - qmean).cwiseAbs().maxCoeff(), 1e-12 * n);
    // Shape and design checks.
    Eigen::MatrixXd sum = r.codeSum;
    ExpectConfigError([&] { EgaAccumulate(sum, r.codes[0].leftCols(3)); }, "codes");
    Eigen::VectorXd out;
    ExpectConfigError([&] { EgaDecodeAggregate(codec, r.codeSum, 0, d, s, n, rng, out); }, "m");
    ExpectConfigError([&] { EgaDecodeAggregate(codec, r.codeSum, m, d, s, -1.0, rng, out); }, "n");
    EgaGaussianCodec designed(32, 1.0, 64, 10);
    ExpectConfigError([&] { EgaDecodeAggregate(designed, r.codeSum, m, d, s, n, rng, out); }, "m");
    ExpectConfigError([&] { EgaDecodeAggregate(designed, r.codeSum, 10, d, 32, n, rng, out); },
                      "s");
}

TEST(EgaAggregate, ErrorWithinTheCleanTheorem1)
{
    // Gaussian surrogate: nu ~ N(0, sigma^2) independent of the quantisation, Theorem 1's
    // assumption. The per-coordinate MSE has expectation E = (1/d) sum_k (1/m^2) sum_i Var_ik
    // + (n/s)^2 sigma^2 <= the clean bound; its sample value is within k sd/sqrt(d) of E, with
    // the per-coordinate variance of e^2 at most E[e^4] <= 3 (bound)^2 (sub-Gaussian).
    const uint32_t m = 10;
    const uint32_t s = 16;
    const double n = 0.05;
    const std::size_t d = 20000;
    const double sigma = 0.8;
    EgaGaussianCodec codec(64, sigma, s, m);
    const Round r = RunRound(codec, m, d, s, n, 7);
    double expected = (n / s) * (n / s) * sigma * sigma;
    for (uint32_t i = 0; i < m; ++i)
    {
        for (Eigen::Index k = 0; k < r.updates[i].size(); ++k)
        {
            expected += EgaQuantizationVariance(r.updates[i][k], s, n) / (double(m) * m * d);
        }
    }
    const double bound = EgaTheorem1Bound(s, n, m, sigma);
    EXPECT_LE(expected, bound);
    const double mse = (r.aggregate - r.trueMean).squaredNorm() / d;
    RecordProperty("surrogate_mse_over_bound", std::to_string(mse / bound));
    EXPECT_LE(std::abs(mse - expected), kSigmas * std::sqrt(3.0 / d) * bound);
    EXPECT_LE(mse, bound * (1.0 + kSigmas * std::sqrt(3.0 / d)));

    // The learned codec: its held-out sigma was measured on uniform integer vectors; quantised
    // uniform updates are (nearly) the same law, so the MSE stays within the clean bound with its
    // sigma, up to the same sampling band.
    const EgaMlpCodec& learned = TinyTrainedCodec();
    const uint32_t ml = learned.DesignClients();
    const uint32_t sl = learned.DesignLevel();
    const Round rl = RunRound(learned, ml, d, sl, n, 8);
    const double boundL = EgaTheorem1Bound(sl, n, ml, learned.HeldOutSigma());
    const double mseL = (rl.aggregate - rl.trueMean).squaredNorm() / d;
    RecordProperty("learned_mse_over_bound", std::to_string(mseL / boundL));
    EXPECT_LE(mseL, boundL * (1.0 + kSigmas * std::sqrt(3.0 / d)));
}

TEST(EgaAggregate, CuriousServerProbeExactForLinearNotForLearned)
{
    const std::size_t d = 4000;
    const double n = 0.01;
    // Linear codec: m (aggregate - aggregate with client 0 swapped for E(0)) = (n/s) Q(dw_0).
    {
        Rng rng(3);
        EgaLinearCodec codec(32, 32, rng);
        const uint32_t m = 10;
        const uint32_t s = 64;
        const Round r = RunRound(codec, m, d, s, n, 77);
        Eigen::VectorXd leaked;
        EgaCuriousServerProbe(codec, r.codeSum, r.codes[0], r.aggregate, m, s, n, rng, leaked);
        const Eigen::VectorXd q0 = Dequantised(r.updates[0], s, n, 77, 0);
        EXPECT_LE(EgaRelativeError(leaked, q0), 1e-12);
        // Against the raw update only the quantisation error remains: relative error below
        // sqrt((n/s)^2/4) / rms(x) = (n / 2s) / (n / sqrt 3) = sqrt(3) / (2 s), within the band.
        const double rel = EgaRelativeError(leaked, r.updates[0]);
        RecordProperty("linear_probe_relative_error", std::to_string(rel));
        EXPECT_LE(rel, std::sqrt(3.0) / (2.0 * s) * 1.1);
        EXPECT_GT(EgaCosineSimilarity(leaked, r.updates[0]), 0.999);
    }
    // Gaussian surrogate: the leak carries m (n/s)(nu - nu'), relative error sqrt(2) m sigma /
    // rms(Q(dw_0)) in expectation (rms of Q of a uniform on [-s, s] is ~ s / sqrt 3).
    {
        const uint32_t m = 10;
        const uint32_t s = 64;
        const double sigma = 1.0;
        EgaGaussianCodec codec(32, sigma, s, m);
        const Round r = RunRound(codec, m, d, s, n, 78);
        Rng rng(4);
        Eigen::VectorXd leaked;
        EgaCuriousServerProbe(codec, r.codeSum, r.codes[0], r.aggregate, m, s, n, rng, leaked);
        const Eigen::VectorXd q0 = Dequantised(r.updates[0], s, n, 78, 0);
        const double predicted =
            std::sqrt(2.0) * m * sigma * (n / s) / (q0.norm() / std::sqrt(double(d)));
        const double rel = EgaRelativeError(leaked, q0);
        RecordProperty("surrogate_probe_relative_error", std::to_string(rel));
        // Sample RMS of d Gaussians: relative sd ~ 1/sqrt(2d).
        EXPECT_NEAR(rel, predicted, kSigmas * predicted / std::sqrt(2.0 * d));
    }
    // Learned codec: not exact. The check is qualitative, ten orders of magnitude above the
    // linear codec's rounding floor (1e-12): the two decoding errors nu, nu' are correlated (the
    // decoder is smooth and the two inputs differ by one client's share), so the leak's error is
    // well below the independent-error value sqrt(2) m sigma / rms(l) (measured 0.14 against
    // 0.37 for this codec), and no bound on it follows from sigma alone.
    {
        const EgaMlpCodec& codec = TinyTrainedCodec();
        const uint32_t m = codec.DesignClients();
        const uint32_t s = codec.DesignLevel();
        const Round r = RunRound(codec, m, d, s, n, 79);
        Rng rng(5);
        Eigen::VectorXd leaked;
        EgaCuriousServerProbe(codec, r.codeSum, r.codes[0], r.aggregate, m, s, n, rng, leaked);
        const double rel = EgaRelativeError(leaked, r.updates[0]);
        const double cosine = EgaCosineSimilarity(leaked, r.updates[0]);
        const Eigen::VectorXd q0 = Dequantised(r.updates[0], s, n, 79, 0);
        RecordProperty("learned_probe_relative_error_vs_quantised",
                       std::to_string(EgaRelativeError(leaked, q0)));
        RecordProperty("learned_probe_independent_prediction",
                       std::to_string(std::sqrt(2.0) * m * codec.HeldOutSigma() * (n / s) /
                                      (q0.norm() / std::sqrt(double(d)))));
        RecordProperty("learned_probe_relative_error", std::to_string(rel));
        RecordProperty("learned_probe_cosine", std::to_string(cosine));
        EXPECT_GT(EgaRelativeError(leaked, q0), 0.01);
    }
}

TEST(EgaAggregate, ProbeStatisticsOnSyntheticGroups)
{
    // The probe in the quantised domain over held-out-like groups: exact for the linear codec;
    // for the surrogate, leak - l_0 = m (nu - nu') with nu, nu' independent N(0, sigma^2), so the
    // relative error is sqrt(2 m^2 sigma^2 / E[l^2]) with E[l^2] = s(s+1)/3 (uniform integers).
    const uint32_t m = 10;
    const uint32_t s = 64;
    const uint32_t groups = 400;
    Rng rng(13);
    const EgaIntMatrix vectors = EgaSyntheticVectors(32, s, m, groups, rng);
    EgaLinearCodec linear(32, 32, rng);
    const EgaProbeStats exact = EgaCodecProbeStats(linear, vectors, m, rng);
    EXPECT_LE(exact.relativeError, 1e-12);
    EXPECT_NEAR(exact.cosine, 1.0, 1e-12);
    const double sigma = 2.0;
    EgaGaussianCodec surrogate(32, sigma, s, m);
    const EgaProbeStats noisy = EgaCodecProbeStats(surrogate, vectors, m, rng);
    const double predicted = std::sqrt(2.0) * m * sigma / std::sqrt(s * (s + 1.0) / 3.0);
    // Both sums are over 32 x 400 = 12,800 terms: relative sd of each below 1/sqrt(12,800/2).
    EXPECT_NEAR(noisy.relativeError, predicted, kSigmas * predicted * std::sqrt(2.0 / 12800.0) * 2);
    const EgaProbeStats learned =
        EgaCodecProbeStats(TinyTrainedCodec(), EgaSyntheticVectors(16, 8, 4, 500, rng), 4, rng);
    RecordProperty("learned_probe_stats_relative_error", std::to_string(learned.relativeError));
    RecordProperty("learned_probe_stats_cosine", std::to_string(learned.cosine));
    EXPECT_GT(learned.relativeError, 0.01); // qualitative, as in the probe test above
}

// ---------------------------------------------------------------------- the default codec

TEST(EgaDefaultCodec, CheckedInFileLoadsAndItsSigmaReproduces)
{
#ifndef FL_EGA_DEFAULT_CODEC
    GTEST_SKIP() << "FL_EGA_DEFAULT_CODEC not defined by the build";
#else
    const EgaMlpCodec codec = EgaMlpCodec::Load(FL_EGA_DEFAULT_CODEC);
    // The shape and training of doc/fl-ega.rst "EGA codec" (fl-ega-train with its defaults).
    const EgaMlpShape def;
    EXPECT_EQ(codec.Shape().blockSize, def.blockSize);
    EXPECT_EQ(codec.Shape().codeSize, def.codeSize);
    EXPECT_EQ(codec.Shape().width, def.width);
    EXPECT_EQ(codec.Shape().depth, def.depth);
    EXPECT_EQ(codec.Shape().expansion, def.expansion);
    EXPECT_EQ(codec.DesignLevel(), 64u);
    EXPECT_EQ(codec.DesignClients(), 10u);
    // The header's sigma is the one measured on the held-out set of the training seed; it is
    // reproduced here up to floating-point summation order (another SIMD width).
    const EgaTrainConfig cfg; // seed 1, 5,000 held-out groups
    Rng unused(0);
    const double sigma = EgaCodecSigma(codec, EgaHeldOutSet(codec, cfg), 10, unused);
    EXPECT_NEAR(sigma, codec.HeldOutSigma(), 1e-6 * codec.HeldOutSigma());
    EXPECT_EQ(EgaLookupSigma(def.blockSize, def.codeSize, 64, 10), codec.HeldOutSigma());
    RecordProperty("default_sigma", std::to_string(sigma));
#endif
}

namespace
{

/// One sum-path comparison: per-client Add of fixed-point-rounded payloads against AddSum of
/// their fixed-point sum (SecAggPlainSum, weight 1), the same decode seed.
void
ExpectSumPathBitIdentical(const EgaUplinkCodec& codec,
                          std::size_t d,
                          uint32_t clients,
                          const std::vector<uint32_t>& participants,
                          unsigned fractionBits,
                          Precision precision)
{
    Rng rng(77);
    std::vector<ParamVector> updates;
    std::vector<UplinkReport> reports;
    for (uint32_t c = 0; c < clients; ++c)
    {
        updates.emplace_back(UniformVector(d, -0.3 - 0.1 * c, 0.2 + 0.05 * c, rng));
        reports.push_back({c, codec.Statistic(updates.back()), 10.0 + 3.0 * c});
    }
    const UplinkRoundParams params = codec.Agree(reports);
    auto perClient = codec.Begin(params, d, precision);
    auto summed = codec.Begin(params, d, precision);
    std::vector<Eigen::VectorXd> values;
    double weight = 0.0;
    for (uint32_t c : participants)
    {
        Rng enc(UplinkEncodeSeed(100 + c, 1));
        const std::vector<uint8_t> payload =
            codec.Encode(updates[c], params, c, reports[c].weight, enc);
        Eigen::VectorXd v;
        ASSERT_TRUE(codec.PayloadValues(payload, d, v));
        ASSERT_EQ(static_cast<std::size_t>(v.size()), codec.SumSize(d));
        ASSERT_EQ(payload.size(), 4 * codec.SumSize(d));
        // The per-client reference over the same fixed-point encoding: the codes rounded to the
        // 2^-f grid (still float32 values: at most 24 significant bits), packed and added.
        std::vector<uint64_t> words;
        EncodeFixedPoint(v, fractionBits, clients, words);
        const Eigen::VectorXd rounded = DecodeFixedPoint(words, fractionBits);
        const std::vector<uint8_t> roundedPayload = EgaPackCodes(
            Eigen::Map<const Eigen::MatrixXd>(rounded.data(),
                                              codec.Codec().CodeSize(),
                                              rounded.size() / codec.Codec().CodeSize()));
        Eigen::VectorXd back;
        ASSERT_TRUE(codec.PayloadValues(roundedPayload, d, back));
        ASSERT_TRUE(back == rounded) << "a rounded code is not a float32 value";
        ASSERT_TRUE(perClient->Add(c, roundedPayload, reports[c].weight));
        values.push_back(v);
        weight += reports[c].weight;
    }
    std::vector<const Eigen::VectorXd*> inputs;
    for (const auto& v : values)
    {
        inputs.push_back(&v);
    }
    const SecAggResult sum =
        SecAggPlainSum(inputs, std::vector<uint64_t>(inputs.size(), 1), fractionBits, clients);
    EXPECT_EQ(sum.totalWeight, participants.size());
    // refusals change nothing
    EXPECT_FALSE(
        summed->AddSum(Eigen::VectorXd(sum.sum.head(sum.sum.size() - 1)), participants, weight));
    EXPECT_FALSE(summed->AddSum(sum.sum, {}, weight));
    EXPECT_FALSE(summed->AddSum(sum.sum, participants, 0.0));
    std::vector<uint32_t> tooMany(params.slots + 1);
    std::iota(tooMany.begin(), tooMany.end(), 0u);
    EXPECT_FALSE(summed->AddSum(sum.sum, tooMany, weight));
    Eigen::VectorXd bad = sum.sum;
    bad[0] = std::nan("");
    EXPECT_FALSE(summed->AddSum(bad, participants, weight));
    EXPECT_EQ(summed->Count(), 0u);
    ASSERT_TRUE(summed->AddSum(sum.sum, participants, weight));
    EXPECT_FALSE(summed->AddSum(sum.sum, participants, weight)); // once
    std::vector<uint8_t> anyPayload(4 * codec.SumSize(d), 0);
    EXPECT_FALSE(summed->Add(0, anyPayload, 1.0)); // no Add after a sum
    EXPECT_EQ(summed->Count(), perClient->Count());
    Rng decodeA(UplinkDecodeSeed(5, 1));
    Rng decodeB(UplinkDecodeSeed(5, 1));
    const ParamVector a = perClient->Finish(decodeA);
    const ParamVector b = summed->Finish(decodeB);
    ASSERT_EQ(a.Size(), d);
    EXPECT_TRUE(a == b) << "the sum path differs from the per-client path";
    EXPECT_GT(a.ConvertedTo(Precision::Float64).Get<double>().norm(), 0.0);
}

} // namespace

TEST(EgaUplinkCodecSumPath, FixedPointSumDecodesLikeThePerClientPathBitForBit)
{
    // Linear codec (exactly additive, any m): all clients, and one missing (its slot is E(0)
    // on both paths because the linear codec's m is the number of reporters).
    Rng crng(3);
    EgaUplinkCodec linear(std::make_shared<EgaLinearCodec>(8, 8, crng), 64);
    ExpectSumPathBitIdentical(linear, 37, 4, {0, 1, 2, 3}, 32, Precision::Float64);
    ExpectSumPathBitIdentical(linear, 37, 4, {0, 2, 3}, 40, Precision::Float64);
    // Gaussian surrogate trained for m = 5 (decode draws noise; two slots filled with E(0)),
    // compressing 16 -> 16, float32 model.
    EgaUplinkCodec gauss(std::make_shared<EgaGaussianCodec>(16, 0.4, 32, 5), 32);
    ExpectSumPathBitIdentical(gauss, 50, 4, {1, 2, 3}, 24, Precision::Float32);
    ExpectSumPathBitIdentical(gauss, 50, 5, {0, 1, 2, 3, 4}, 36, Precision::Float64);
}

TEST(EgaUplinkCodecSumPath, CodecsWithoutASumPathSayNo)
{
    // The seam's defaults: no sum size, no values, an aggregator that refuses a sum.
    class Plain : public UplinkCodec
    {
      public:
        std::string Name() const override
        {
            return "plain";
        }

        UplinkRoundParams Agree(const std::vector<UplinkReport>&) const override
        {
            return UplinkRoundParams{1.0, 1.0, 1};
        }

        std::vector<uint8_t> Encode(const ParamVector&,
                                    const UplinkRoundParams&,
                                    uint32_t,
                                    double,
                                    Rng&) const override
        {
            return {};
        }

        std::unique_ptr<UplinkAggregator> Begin(const UplinkRoundParams&,
                                                std::size_t,
                                                Precision) const override
        {
            class Agg : public UplinkAggregator
            {
              public:
                bool Add(uint32_t, const std::vector<uint8_t>&, double) override
                {
                    return true;
                }

                uint32_t Count() const override
                {
                    return 0;
                }

                ParamVector Finish(Rng&) override
                {
                    return ParamVector();
                }
            };

            return std::make_unique<Agg>();
        }
    };

    Plain plain;
    Eigen::VectorXd v;
    EXPECT_EQ(plain.SumSize(10), 0u);
    EXPECT_FALSE(plain.PayloadValues({1, 2, 3, 4}, 10, v));
    EXPECT_FALSE(
        plain.Begin({}, 10, Precision::Float64)->AddSum(Eigen::VectorXd::Zero(3), {0}, 1.0));
}
