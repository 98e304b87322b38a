/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The EGA experiments as library parts (Zeng et al., "Encoded Gradients Aggregation against
 * Gradient Leakage in Federated Learning", arXiv:2205.13216, 2022): the single-sample
 * softmax-regression gradient and the input reconstruction from it, the clipped PSNR, the uplink
 * byte counts, the client sampler, the float64 pass-through codec, the curious server's Eq. (2)
 * estimate, the leakage experiment, rounds to a target accuracy and one Wi-Fi run
 * (FlRunEgaNetwork). Maths against hand-computed values to 1e-12.
 */
#include "fl-test-task.h"

#include "ns3/core-module.h"
#include "ns3/ega-aggregate.h"
#include "ns3/ega-experiment.h"
#include "ns3/ega-network-helper.h"
#include "ns3/gradient-leakage.h"
#include "ns3/model-message.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <gtest/gtest.h>
#include <set>

using namespace ns3;

namespace
{

constexpr double kTol = 1e-12;

TEST(GradientLeakage, SingleSampleGradientHandValues)
{
    // W = 0, b = 0: p = (1/2, 1/2); y = 0: p - e_y = (-1/2, 1/2); x = (1, 2).
    Eigen::MatrixXd W = Eigen::MatrixXd::Zero(2, 2);
    Eigen::VectorXd b = Eigen::VectorXd::Zero(2);
    Eigen::VectorXd x(2);
    x << 1.0, 2.0;
    Eigen::VectorXd g = fl::SoftmaxSingleSampleGradient(W, b, x, 0);
    ASSERT_EQ(g.size(), 6);
    const double want0[] = {-0.5, -1.0, 0.5, 1.0, -0.5, 0.5};
    for (int i = 0; i < 6; ++i)
    {
        EXPECT_NEAR(g(i), want0[i], kTol) << i;
    }
    // W = [[1, 0], [0, 0]]: z = (1, 0), p_0 = e / (1 + e) = 0.7310585786300049; y = 1.
    W(0, 0) = 1.0;
    g = fl::SoftmaxSingleSampleGradient(W, b, x, 1);
    const double p0 = 0.7310585786300049;
    const double p1m1 = -0.7310585786300049; // 1 / (1 + e) - 1
    const double want1[] = {p0, 2 * p0, p1m1, 2 * p1m1, p0, p1m1};
    for (int i = 0; i < 6; ++i)
    {
        EXPECT_NEAR(g(i), want1[i], kTol) << i;
    }
}

TEST(GradientLeakage, ReconstructRecoversTheInputFromAnyScale)
{
    Eigen::MatrixXd W(3, 4);
    W << 0.1, -0.2, 0.3, 0.0, 0.05, 0.4, -0.1, 0.2, -0.3, 0.1, 0.0, 0.25;
    Eigen::VectorXd b(3);
    b << 0.1, 0.0, -0.2;
    Eigen::VectorXd x(4);
    x << 0.25, 0.5, 0.0, 1.0;
    const Eigen::VectorXd g = -0.1 * fl::SoftmaxSingleSampleGradient(W, b, x, 2);
    const Eigen::VectorXd rec = fl::ReconstructSoftmaxInput(g, 3, 4);
    ASSERT_EQ(rec.size(), 4);
    for (int i = 0; i < 4; ++i)
    {
        EXPECT_NEAR(rec(i), x(i), kTol) << i;
    }
    // db all zero: nothing to divide by, zeros.
    const Eigen::VectorXd zero = fl::ReconstructSoftmaxInput(Eigen::VectorXd::Zero(15), 3, 4);
    EXPECT_EQ(zero, Eigen::VectorXd::Zero(4));
}

TEST(GradientLeakage, ClippedPsnrHandValues)
{
    Eigen::VectorXd ref(2);
    ref << 0.5, 0.5;
    Eigen::VectorXd est(2);
    est << 0.5, 1.5; // clipped to (0.5, 1): MSE = 0.25 / 2 = 0.125, PSNR = 10 log10(8)
    EXPECT_NEAR(fl::ClippedPsnr(est, ref), 9.030899869919435, kTol);
    est << -1.0, 0.5; // clipped to (0, 0.5): MSE 0.125 again
    EXPECT_NEAR(fl::ClippedPsnr(est, ref), 9.030899869919435, kTol);
    EXPECT_EQ(fl::ClippedPsnr(ref, ref), 99.0);
    est << 0.5, 0.5 + 1e-6; // 10 log10(2e12) = 123 dB, capped
    EXPECT_EQ(fl::ClippedPsnr(est, ref), 99.0);
}

TEST(GradientLeakage, WriteImageMatrixClipsAndLaysOutRows)
{
    Eigen::VectorXd img(4);
    img << 0.25, 2.0, -1.0, 0.123456;
    const std::string path = "test-ega-experiment-image.txt";
    ASSERT_TRUE(fl::WriteImageMatrix(path, img, 2));
    std::ifstream f(path);
    const std::string text((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    EXPECT_EQ(text, "0.25 1\n0 0.1235\n");
    std::remove(path.c_str());
}

TEST(EgaExperiment, UplinkBytesHandValues)
{
    // d = 100: ceil(100/32) = 4 blocks of h = 32/c codes, 4 bytes each.
    EXPECT_EQ(fl::EgaCodesBytes(100, 1), 512u);
    EXPECT_EQ(fl::EgaCodesBytes(100, 2), 256u);
    EXPECT_EQ(fl::EgaCodesBytes(64, 8), 32u);
    const uint64_t H = fl::MessageHeader::kSize;
    EXPECT_EQ(fl::EgaUplinkBytesPerClientRound(100, 0), H + 400);
    EXPECT_EQ(fl::EgaUplinkBytesPerClientRound(100, 1), (H + 16) + (H + 512));
    EXPECT_EQ(fl::EgaUplinkBytesPerClientRound(7850, 4), (H + 16) + (H + 4 * 246 * 8));
}

TEST(EgaExperiment, ClientSeedsAndSampler)
{
    const auto seeds = fl::EgaClientSeeds(7, 5);
    ASSERT_EQ(seeds.size(), 5u);
    for (uint32_t k = 0; k < 5; ++k)
    {
        EXPECT_EQ(seeds[k], fl::DeriveSeed(7, k, 0xC1));
    }
    const auto sample = fl::UniformClientSampler(20, 6, 3);
    std::set<std::vector<uint32_t>> distinct;
    for (uint32_t r = 1; r <= 10; ++r)
    {
        const auto s = sample(r);
        ASSERT_EQ(s.size(), 6u);
        EXPECT_TRUE(std::is_sorted(s.begin(), s.end()));
        EXPECT_EQ(std::set<uint32_t>(s.begin(), s.end()).size(), 6u);
        EXPECT_LT(s.back(), 20u);
        EXPECT_EQ(s, fl::UniformClientSampler(20, 6, 3)(r)); // reproducible
        distinct.insert(s);
    }
    EXPECT_GT(distinct.size(), 5u); // the rounds differ
    EXPECT_EQ(fl::UniformClientSampler(4, 10, 3)(1), (std::vector<uint32_t>{0, 1, 2, 3}));
}

TEST(EgaExperiment, Float64CodecIsTheExactWeightedMean)
{
    fl::Float64UplinkCodec codec;
    Eigen::VectorXd u1(3);
    u1 << 1.0, -2.0, 0.5;
    Eigen::VectorXd u2(3);
    u2 << 3.0, 2.0, -0.5;
    const auto params = codec.Agree({{0, 0.0, 1.0}, {1, 0.0, 3.0}});
    EXPECT_EQ(params.totalWeight, 4.0);
    auto agg = codec.Begin(params, 3, fl::Precision::Float64);
    fl::Rng rng(1);
    EXPECT_TRUE(agg->Add(0, codec.Encode(fl::ParamVector(u1), params, 0, 1.0, rng), 1.0));
    EXPECT_TRUE(agg->Add(1, codec.Encode(fl::ParamVector(u2), params, 1, 3.0, rng), 3.0));
    EXPECT_FALSE(agg->Add(2, {1, 2, 3}, 1.0)); // malformed: refused
    EXPECT_EQ(agg->Count(), 2u);
    const Eigen::VectorXd mean = agg->Finish(rng).Get<double>();
    // (u1 + 3 u2) / 4 = (2.5, 1, -0.25)
    EXPECT_NEAR(mean(0), 2.5, kTol);
    EXPECT_NEAR(mean(1), 1.0, kTol);
    EXPECT_NEAR(mean(2), -0.25, kTol);
}

TEST(EgaExperiment, SurrogateSettings)
{
    const auto st = fl::MakeEgaSettings("no-such-folder", false, 10, 64);
    ASSERT_EQ(st.size(), 5u);
    EXPECT_EQ(st[0].name, "fedavg");
    EXPECT_EQ(st[0].codec, nullptr);
    const char* names[] = {"ega-1x", "ega-2x", "ega-4x", "ega-8x"};
    for (int k = 1; k <= 4; ++k)
    {
        EXPECT_EQ(st[k].name, names[k - 1]);
        EXPECT_EQ(st[k].compression, 1u << (k - 1));
        EXPECT_EQ(st[k].source, "gaussian-surrogate");
        ASSERT_NE(st[k].codec, nullptr);
        EXPECT_EQ(st[k].codec->DesignClients(), 10u);
        EXPECT_GT(st[k].sigma, 0.0);
    }
    EXPECT_EQ(st[1].sigma, fl::EgaLookupSigma(32, 32, 64, 10));
}

TEST(EgaExperiment, ProbeEstimateLinearCodecLeaksTheSurrogateDoesNot)
{
    fl::Rng rng(5);
    std::normal_distribution<double> nd(0.0, 1.0);
    std::vector<Eigen::VectorXd> updates(10, Eigen::VectorXd(70));
    for (auto& u : updates)
    {
        for (Eigen::Index i = 0; i < u.size(); ++i)
        {
            u(i) = nd(rng);
        }
    }
    fl::Rng lrng(9);
    auto linear = std::make_shared<fl::EgaLinearCodec>(32, 32, lrng);
    const Eigen::VectorXd a = fl::EgaProbeEstimate(linear, 64, updates, 3, 1, 0);
    ASSERT_EQ(a.size(), 70);
    EXPECT_LT(fl::EgaRelativeError(a, updates[3]), 0.05);
    EXPECT_EQ(a, fl::EgaProbeEstimate(linear, 64, updates, 3, 1, 0)); // reproducible
    const auto st = fl::MakeEgaSettings("no-such-folder", true, 10, 64);
    const Eigen::VectorXd b = fl::EgaProbeEstimate(st[2].codec, 64, updates, 3, 1, 0);
    EXPECT_GT(fl::EgaRelativeError(b, updates[3]), 10 * fl::EgaRelativeError(a, updates[3]));
    EXPECT_THROW(fl::EgaProbeEstimate(linear, 64, updates, 10, 1, 0), fl::ConfigError);
}

TEST(EgaExperiment, LeakageRawIsExactAndRecordsAreOrdered)
{
    fl::EgaLeakageConfig cfg;
    fl::Rng rng(1);
    fl::MakeStripeImages(16, 8, rng, cfg.images, cfg.labels);
    ASSERT_EQ(cfg.images.size(), 16u);
    EXPECT_EQ(cfg.labels[12], 2);
    fl::InitLeakageModel(cfg, 10, 0.01, rng);
    EXPECT_EQ(cfg.W.rows(), 10);
    EXPECT_EQ(cfg.W.cols(), 64);
    cfg.trials = 2;
    fl::Rng lrng(9);
    cfg.cases.emplace_back("linear", std::make_shared<fl::EgaLinearCodec>(32, 32, lrng));
    const fl::EgaLeakageResult res = fl::RunEgaLeakage(cfg);
    ASSERT_EQ(res.records.size(), 4u);
    EXPECT_EQ(res.records[0].setting, "raw");
    EXPECT_EQ(res.records[1].setting, "linear");
    EXPECT_EQ(res.records[2].trial, 1u);
    // Raw: x = dW_k / db_k exactly (PSNR capped at 99 dB); the linear code leaks almost as well.
    EXPECT_EQ(res.records[0].psnr, 99.0);
    EXPECT_GT(res.records[1].psnr, 25.0);
    EXPECT_GT(res.records[1].cosine, 0.99);
    ASSERT_EQ(res.meanPsnr.size(), 2u);
    EXPECT_EQ(res.meanPsnr[0].first, "linear");
    EXPECT_NEAR(res.meanPsnr[0].second, (res.records[1].psnr + res.records[3].psnr) / 2, kTol);
    EXPECT_EQ(res.meanPsnr[1].first, "raw");
    cfg.bias = Eigen::VectorXd::Zero(3);
    EXPECT_THROW(fl::RunEgaLeakage(cfg), fl::ConfigError);
}

TEST(EgaExperiment, RunFedAvgToTargetStopsAtTheTarget)
{
    auto task = fl::MakeEgaTask("", 10, 1);
    EXPECT_EQ(task->NumClients(), 10u);
    fl::FedAvgReferenceConfig cfg;
    cfg.rounds = 4;
    cfg.initSeed = 1;
    cfg.clientSeeds = fl::EgaClientSeeds(1, 10);
    cfg.select = fl::UniformClientSampler(10, 5, 1);
    cfg.uplinkCodec = std::make_shared<fl::Float64UplinkCodec>();
    std::vector<double> acc;
    auto record = [&acc](uint32_t r, double a, double best) {
        EXPECT_EQ(r, acc.size());
        acc.push_back(a);
        EXPECT_EQ(best, *std::max_element(acc.begin(), acc.end()));
    };
    const auto all = fl::RunFedAvgToTarget(*task, cfg, 0.0, false, record);
    EXPECT_EQ(acc.size(), 5u); // the initial model and 4 rounds
    EXPECT_EQ(all.reached, 0u);
    const std::vector<double> full = acc;
    acc.clear();
    const auto stop = fl::RunFedAvgToTarget(*task, cfg, 0.0, true, record);
    EXPECT_EQ(stop.reached, 1u); // round 1 reaches any accuracy >= 0
    EXPECT_EQ(acc.size(), 2u);
    EXPECT_EQ(acc[1], full[1]); // the same run, stopped
}

TEST(EgaExperiment, WifiRunMeasuresRoundsAndProbes)
{
    auto task = fl::MakeEgaTask("", 3, 1);
    FlEgaNetworkConfig cfg;
    cfg.clients = 3;
    cfg.rounds = 2;
    const auto st = fl::MakeEgaSettings("no-such-folder", true, 3, 64);
    cfg.codec = st[1].codec;
    const FlEgaNetworkResult res = FlRunEgaNetwork(task, cfg);
    EXPECT_EQ(res.completedRounds, 2u);
    ASSERT_EQ(res.rounds.size(), 2u);
    EXPECT_EQ(res.probes.size(), 6u); // every client in every round
    EXPECT_EQ(res.uploads, 6u);
    EXPECT_EQ(res.payloadBytes, fl::EgaCodesBytes(task->NumParameters(), 1));
    double up = 0.0;
    for (const auto& r : res.rounds)
    {
        EXPECT_LE(r.start, r.agreed);
        EXPECT_LT(r.agreed, r.end);
        EXPECT_GT(r.bytesUp, 3 * res.payloadBytes);
        up += static_cast<double>(r.bytesUp);
    }
    EXPECT_NEAR(res.MeanUplinkBytes(), up / 2, kTol);
    EXPECT_GT(res.MeanProbeRelativeError(), 0.0);
    // FedAvg: no codec, no probes, the float32 model as payload.
    cfg.codec = nullptr;
    const FlEgaNetworkResult plain = FlRunEgaNetwork(task, cfg);
    EXPECT_EQ(plain.completedRounds, 2u);
    EXPECT_TRUE(plain.probes.empty());
    EXPECT_EQ(plain.MeanProbeCosine(), 0.0);
    EXPECT_EQ(plain.payloadBytes, 4 * task->NumParameters());
}

} // namespace
