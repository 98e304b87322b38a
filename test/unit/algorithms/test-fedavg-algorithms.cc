/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * FedAvg aggregation and FedAvgM server momentum, against hand computations.
 */
#include "fl-test-task.h"

#include "ns3/fedavg-reference.h"
#include "ns3/fedavg.h"
#include "ns3/thread-pool.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <memory>
#include <random>
#include <stdexcept>

using namespace ns3::fl;

TEST(FedAvg, WeightedAverageIsSampleWeighted)
{
    Eigen::VectorXd a(3), b(3);
    a << 1, 2, 3;
    b << 5, 6, 7;
    const Eigen::VectorXd w = WeightedAverage<double>({&a, &b}, {100, 300});
    // 0.25 a + 0.75 b
    EXPECT_NEAR(w[0], 4.0, 1e-15);
    EXPECT_NEAR(w[1], 5.0, 1e-15);
    EXPECT_NEAR(w[2], 6.0, 1e-15);
}

TEST(FedAvg, WeightedAverageRejectsBadInput)
{
    Eigen::VectorXd a(2), b(3);
    a.setZero();
    b.setZero();
    EXPECT_THROW(WeightedAverage<double>({&a, &b}, {1, 1}), ConfigError);
    EXPECT_THROW(WeightedAverage<double>({&a}, {0}), ConfigError);
    EXPECT_THROW(WeightedAverage<double>({&a}, {-1}), ConfigError);
    EXPECT_THROW(WeightedAverage<double>({}, {}), ConfigError);
}

TEST(FedAvgM, TwoStepsMatchTheHandComputation)
{
    // delta = w - avg; v <- beta v + delta; w <- w - eta v.
    const double beta = 0.9;
    const double eta = 0.5;
    Eigen::VectorXd w(2), avg1(2), avg2(2);
    w << 1.0, -2.0;
    avg1 << 0.5, -1.0;
    avg2 << 0.25, 0.0;
    Eigen::VectorXd v;
    ServerMomentumStep<double>(w, avg1, v, beta, eta);
    // v1 = (0.5, -1), w1 = (1 - 0.25, -2 + 0.5) = (0.75, -1.5)
    EXPECT_NEAR(v[0], 0.5, 1e-15);
    EXPECT_NEAR(v[1], -1.0, 1e-15);
    EXPECT_NEAR(w[0], 0.75, 1e-15);
    EXPECT_NEAR(w[1], -1.5, 1e-15);
    ServerMomentumStep<double>(w, avg2, v, beta, eta);
    // delta2 = (0.5, -1.5); v2 = 0.9 v1 + delta2 = (0.95, -2.4); w2 = w1 - 0.5 v2
    EXPECT_NEAR(v[0], 0.95, 1e-12);
    EXPECT_NEAR(v[1], -2.4, 1e-12);
    EXPECT_NEAR(w[0], 0.75 - 0.475, 1e-12);
    EXPECT_NEAR(w[1], -1.5 + 1.2, 1e-12);
}

TEST(FedAvgM, NoMomentumAndUnitRateIsTheAverage)
{
    ParamVector w(Eigen::VectorXf(Eigen::VectorXf::LinSpaced(5, -1.0f, 1.0f)));
    ParamVector avg(Eigen::VectorXf(Eigen::VectorXf::Constant(5, 0.3f)));
    ParamVector v;
    ServerMomentumStep(w, avg, v, 0.0, 1.0);
    for (std::size_t i = 0; i < 5; ++i)
    {
        EXPECT_NEAR(w.At(i), 0.3, 1e-6);
    }
    EXPECT_EQ(v.Size(), 5u);
}

TEST(FedAvgM, RejectsBadParameters)
{
    Eigen::VectorXd w = Eigen::VectorXd::Zero(2), avg = Eigen::VectorXd::Zero(2), v;
    EXPECT_THROW(ServerMomentumStep<double>(w, avg, v, 1.0, 1.0), ConfigError);
    EXPECT_THROW(ServerMomentumStep<double>(w, avg, v, -0.1, 1.0), ConfigError);
    EXPECT_THROW(ServerMomentumStep<double>(w, avg, v, 0.5, 0.0), ConfigError);
    Eigen::VectorXd shorter = Eigen::VectorXd::Zero(1);
    EXPECT_THROW(ServerMomentumStep<double>(w, shorter, v, 0.5, 1.0), ConfigError);
}

TEST(Staleness, PolynomialDiscount)
{
    EXPECT_EQ(StalenessWeight(0, 0.5), 1.0);
    EXPECT_EQ(StalenessWeight(7, 0.0), 1.0);
    EXPECT_NEAR(StalenessWeight(3, 0.5), 0.5, 1e-15);
    EXPECT_NEAR(StalenessWeight(1, 2.0), 0.25, 1e-15);
    EXPECT_NEAR(StalenessWeight(4, 1.0), 0.2, 1e-15);
    EXPECT_THROW(StalenessWeight(1, -0.1), ConfigError);
    try
    {
        StalenessWeight(1, std::nan(""));
        ADD_FAILURE() << "NaN exponent accepted";
    }
    catch (const ConfigError& e)
    {
        EXPECT_EQ(e.Parameter(), "StalenessExponent");
    }
}

TEST(Staleness, TranslateAppliesTheUpdateToTheCurrentModel)
{
    Eigen::VectorXd w(3), base(3), cur(3);
    w << 1.0, 2.0, 3.0;
    base << 0.5, 2.5, 3.0;
    cur << 10.0, 20.0, 30.0;
    const ParamVector t = TranslateStaleModel(ParamVector(w), ParamVector(base), ParamVector(cur));
    EXPECT_NEAR(t.At(0), 10.5, 1e-12);
    EXPECT_NEAR(t.At(1), 19.5, 1e-12);
    EXPECT_NEAR(t.At(2), 30.0, 1e-12);
    // base == current gives the client's model exactly.
    const ParamVector same = TranslateStaleModel(ParamVector(w), ParamVector(cur), ParamVector(cur));
    EXPECT_TRUE(same == ParamVector(Eigen::VectorXd(cur + (w - cur))));
    EXPECT_THROW(TranslateStaleModel(ParamVector(w), ParamVector(Eigen::VectorXd(2)), ParamVector(cur)),
                 ConfigError);
    EXPECT_THROW(TranslateStaleModel(ParamVector(Eigen::VectorXf(3)), ParamVector(base), ParamVector(cur)),
                 ConfigError);
}

TEST(ClientSampling, ScriptedDrawsPickByCumulativeWeight)
{
    const std::vector<uint32_t> pool = {10, 20, 30};
    const std::vector<double> w = {1.0, 2.0, 7.0};
    auto draws = [](std::vector<double> u) {
        auto it = std::make_shared<std::size_t>(0);
        return [u, it]() { return u.at((*it)++); };
    };
    EXPECT_EQ(WeightedSampleWithoutReplacement(pool, w, 1, draws({0.05})), (std::vector<uint32_t>{10}));
    EXPECT_EQ(WeightedSampleWithoutReplacement(pool, w, 1, draws({0.15})), (std::vector<uint32_t>{20}));
    EXPECT_EQ(WeightedSampleWithoutReplacement(pool, w, 1, draws({0.95})), (std::vector<uint32_t>{30}));
    // 30 first (9.5 of 10), then among {10: 1, 20: 2}: 0.5 x 3 = 1.5 -> 20.
    EXPECT_EQ(WeightedSampleWithoutReplacement(pool, w, 2, draws({0.95, 0.5})),
              (std::vector<uint32_t>{20, 30}));
    // count >= pool: everything, no draw.
    EXPECT_EQ(WeightedSampleWithoutReplacement(pool, w, 3, draws({})), (std::vector<uint32_t>{10, 20, 30}));
    // Zero weights are never drawn, even with u at the very end.
    EXPECT_EQ(WeightedSampleWithoutReplacement(pool, {0.0, 1.0, 0.0}, 1, draws({0.999999})),
              (std::vector<uint32_t>{20}));
    EXPECT_THROW(WeightedSampleWithoutReplacement(pool, {0.0, 1.0, 0.0}, 2, draws({0.1, 0.1})),
                 ConfigError);
    EXPECT_THROW(WeightedSampleWithoutReplacement(pool, {1.0, -1.0, 1.0}, 1, draws({0.1})),
                 ConfigError);
    EXPECT_THROW(WeightedSampleWithoutReplacement(pool, {1.0}, 1, draws({0.1})), ConfigError);
}

// Inclusion frequencies of successive sampling (2 of 4) match their exact probabilities
// P(i) = p_i + sum_{j != i} p_j p_i / (1 - p_j) within 5 binomial standard deviations.
TEST(ClientSampling, InclusionFrequenciesMatchSuccessiveSampling)
{
    const std::vector<uint32_t> pool = {0, 1, 2, 3};
    const std::vector<double> w = {1.0, 2.0, 3.0, 4.0};
    const double total = 10.0;
    std::mt19937_64 eng(2024);
    std::uniform_real_distribution<double> unif(0.0, 1.0);
    const int n = 20000;
    std::vector<int> hits(4, 0);
    for (int t = 0; t < n; ++t)
    {
        for (uint32_t k : WeightedSampleWithoutReplacement(pool, w, 2, [&]() { return unif(eng); }))
        {
            ++hits[k];
        }
    }
    for (int i = 0; i < 4; ++i)
    {
        const double pi = w[i] / total;
        double p = pi;
        for (int j = 0; j < 4; ++j)
        {
            if (j != i)
            {
                const double pj = w[j] / total;
                p += pj * pi / (1.0 - pj);
            }
        }
        const double sd = std::sqrt(p * (1.0 - p) / n);
        EXPECT_NEAR(static_cast<double>(hits[i]) / n, p, 5.0 * sd) << "item " << i;
    }
}

// ------------------------------------------------------------------ training threads

// Every index runs exactly once, whatever the pool size; the lowest-numbered failure is the one
// rethrown; a loop started from inside an item runs in the calling thread instead of waiting
// for itself.
TEST(ThreadPool, EveryItemOnceLowestErrorAndNestedLoops)
{
    for (std::size_t threads : {1U, 2U, 4U})
    {
        ns3::fl::ThreadPool pool(threads);
        EXPECT_EQ(pool.Threads(), threads);
        std::vector<int> hits(1000, 0);
        pool.ParallelFor(hits.size(), [&hits](std::size_t i) { ++hits[i]; });
        EXPECT_EQ(std::count(hits.begin(), hits.end(), 1), 1000) << threads << " threads";
        std::atomic<int> ran{0};
        try
        {
            pool.ParallelFor(50, [&ran](std::size_t i) {
                ++ran;
                if (i == 7 || i == 31)
                {
                    throw std::runtime_error("item " + std::to_string(i));
                }
            });
            ADD_FAILURE() << "no exception";
        }
        catch (const std::runtime_error& e)
        {
            EXPECT_EQ(std::string(e.what()), "item 7");
        }
        EXPECT_EQ(ran.load(), 50);
        std::atomic<int> inner{0};
        pool.ParallelFor(4, [&pool, &inner](std::size_t) {
            pool.ParallelFor(3, [&inner](std::size_t) { ++inner; });
        });
        EXPECT_EQ(inner.load(), 12);
    }
    EXPECT_THROW(ns3::fl::SetTrainingThreads(5000), ns3::fl::ConfigError);
}

// The in-process FedAvg runner trains a round's clients on the training pool: 1, 2 and 4
// threads give the same global model bit for bit (MLP and softmax tasks, mini-batches drawn
// from each client's own seeded generator).
TEST(ThreadPool, ReferenceRunnerIsIndependentOfTheThreadCount)
{
    for (const char* spec : {"mlp:hidden=16", "softmax"})
    {
        auto task = fltest::MakeTask<float>(8, spec);
        ns3::fl::FedAvgReferenceConfig cfg;
        cfg.rounds = 3;
        cfg.initSeed = 5;
        for (uint64_t k = 0; k < 8; ++k)
        {
            cfg.clientSeeds.push_back(100 + k);
        }
        std::vector<Eigen::VectorXf> finals;
        for (std::size_t threads : {1U, 2U, 4U})
        {
            ns3::fl::SetTrainingThreads(threads);
            finals.push_back(ns3::fl::RunFedAvgReference(*task, cfg).finalModel.Get<float>());
        }
        ns3::fl::SetTrainingThreads(1);
        EXPECT_EQ(finals[0], finals[1]) << spec;
        EXPECT_EQ(finals[0], finals[2]) << spec;
    }
}
