/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The asynchronous rules (async-fl.h) against hand-computed values: FedAsync (Xie, Koyejo,
 * Gupta, "Asynchronous Federated Optimization", 2019, Algorithm 1 and Section 5.2) and FedBuff
 * (Nguyen et al., "Federated Learning with Buffered Asynchronous Aggregation", AISTATS 2022,
 * Algorithm 1).
 */
#include "ns3/async-fl.h"
#include "ns3/fl-types.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace ns3::fl;

namespace
{
ParamVector
V(std::initializer_list<double> x)
{
    Eigen::VectorXd v(static_cast<Eigen::Index>(x.size()));
    Eigen::Index i = 0;
    for (double d : x)
    {
        v[i++] = d;
    }
    return ParamVector(v);
}
} // namespace

TEST(AsyncStaleness, TheThreeFunctionsOfFedAsync)
{
    EXPECT_EQ(AsyncStalenessWeight(StalenessFunction::Constant, 7, 0.5, 4), 1.0);
    // polynomial (1 + tau)^-a: tau = 3, a = 0.5 -> 1/2; tau = 0 -> 1
    EXPECT_NEAR(AsyncStalenessWeight(StalenessFunction::Polynomial, 3, 0.5, 4), 0.5, 1e-12);
    EXPECT_NEAR(AsyncStalenessWeight(StalenessFunction::Polynomial, 0, 0.5, 4), 1.0, 1e-12);
    // tau = 7, a = 1/3 -> 8^-1/3 = 1/2
    EXPECT_NEAR(AsyncStalenessWeight(StalenessFunction::Polynomial, 7, 1.0 / 3.0, 4), 0.5, 1e-12);
    // hinge a = 10, b = 4: 1 up to tau = 4, then 1 / (10 (tau - 4) + 1): tau = 6 -> 1/21
    EXPECT_NEAR(AsyncStalenessWeight(StalenessFunction::Hinge, 4, 10, 4), 1.0, 1e-12);
    EXPECT_NEAR(AsyncStalenessWeight(StalenessFunction::Hinge, 6, 10, 4), 1.0 / 21.0, 1e-12);
    EXPECT_THROW(AsyncStalenessWeight(StalenessFunction::Polynomial, 1, -1, 4), ConfigError);
    EXPECT_THROW(AsyncStalenessWeight(StalenessFunction::Hinge, 1, 1, -4), ConfigError);
    EXPECT_EQ(ParseStalenessFunction("hinge"), StalenessFunction::Hinge);
    try
    {
        ParseStalenessFunction("linear");
        FAIL() << "no error";
    }
    catch (const ConfigError& e)
    {
        EXPECT_EQ(e.Parameter(), "StalenessFunction");
    }
}

TEST(FedAsync, MixIsTheConvexCombinationOfAlgorithm1)
{
    ParamVector g = V({1.0, 2.0});
    FedAsyncMix(g, V({3.0, -1.0}), 0.25);
    // 0.75 * 1 + 0.25 * 3 = 1.5; 0.75 * 2 + 0.25 * (-1) = 1.25
    EXPECT_NEAR(g.At(0), 1.5, 1e-12);
    EXPECT_NEAR(g.At(1), 1.25, 1e-12);
    EXPECT_THROW(FedAsyncMix(g, V({1.0, 1.0}), 0.0), ConfigError);
    EXPECT_THROW(FedAsyncMix(g, V({1.0, 1.0}), 1.5), ConfigError);
    EXPECT_THROW(FedAsyncMix(g, V({1.0}), 0.5), ConfigError);
}

TEST(FedAsync, AStaleUpdateIsWeightedBySOfTau)
{
    FedAsyncConfig c;
    c.alpha = 0.6;
    c.function = StalenessFunction::Polynomial;
    c.a = 0.5;
    FedAsyncRule rule(c);
    ParamVector g = V({0.0, 3.0});
    double w = 0.0;
    // staleness 2: alpha_t = 0.6 / sqrt(3)
    EXPECT_TRUE(rule.Add(V({3.0, 0.0}), ParamVector(), 2, g, w));
    const double alphaT = 0.6 / std::sqrt(3.0);
    EXPECT_NEAR(w, alphaT, 1e-12);
    EXPECT_NEAR(g.At(0), 3.0 * alphaT, 1e-12);
    EXPECT_NEAR(g.At(1), 3.0 * (1.0 - alphaT), 1e-12);
    FedAsyncConfig bad;
    bad.alpha = 0.0;
    EXPECT_THROW(FedAsyncRule{bad}, ConfigError);
}

TEST(FedBuff, BufferOfKScaledDeltasThenServerStep)
{
    FedBuffConfig c;
    c.bufferSize = 2;
    c.serverLearningRate = 1.0;
    c.function = StalenessFunction::Polynomial;
    c.a = 0.5;
    FedBuffRule rule(c);
    ParamVector g = V({10.0, 10.0});
    double w = 0.0;
    // delta 1 = [1, 2] - [0, 0], tau 0: s = 1; no commit yet
    EXPECT_FALSE(rule.Add(V({1.0, 2.0}), V({0.0, 0.0}), 0, g, w));
    EXPECT_NEAR(w, 1.0, 1e-12);
    EXPECT_EQ(g.At(0), 10.0);
    EXPECT_EQ(rule.Buffered(), 1u);
    // delta 2 = [2, 0] - [1, 1] = [1, -1], tau 3: s = 1/2; buffer [1.5, 1.5]; w += 1 * buffer / 2
    EXPECT_TRUE(rule.Add(V({2.0, 0.0}), V({1.0, 1.0}), 3, g, w));
    EXPECT_NEAR(w, 0.5, 1e-12);
    EXPECT_NEAR(g.At(0), 10.75, 1e-12);
    EXPECT_NEAR(g.At(1), 10.75, 1e-12);
    EXPECT_EQ(rule.Buffered(), 0u);
    // eta_g = 2, K = 1: w += 2 * ([4, 4] - [2, 1]) = [4, 6]
    FedBuffConfig c1;
    c1.bufferSize = 1;
    c1.serverLearningRate = 2.0;
    FedBuffRule one(c1);
    ParamVector g1 = V({0.0, 0.0});
    EXPECT_TRUE(one.Add(V({4.0, 4.0}), V({2.0, 1.0}), 0, g1, w));
    EXPECT_NEAR(g1.At(0), 4.0, 1e-12);
    EXPECT_NEAR(g1.At(1), 6.0, 1e-12);
    FedBuffConfig bad;
    bad.bufferSize = 0;
    EXPECT_THROW(FedBuffRule{bad}, ConfigError);
}

TEST(FedBuff, ABufferKnownOnlyAsACohortsSumGivesTheSameStep)
{
    // Hand-computed: a cohort of 3 sent base [0.5, 1], models summing (weights 2, 1, 1: total 4)
    // to [6, 8]; mean [1.5, 2]; s = 1/2 (tau 3, polynomial a = 1/2);
    // buffer = s * 3 * (mean - base) = 1.5 * [1, 1] = [1.5, 1.5];
    // global [1, 2] + eta_g / 3 * buffer with eta_g = 2: [2, 3].
    Eigen::VectorXd sum(2);
    sum << 6.0, 8.0;
    const double s = AsyncStalenessWeight(StalenessFunction::Polynomial, 3, 0.5, 4.0);
    const ParamVector buffer = FedBuffBufferFromSum(sum, 4.0, 3, V({0.5, 1.0}), s);
    EXPECT_NEAR(buffer.At(0), 1.5, 1e-12);
    EXPECT_NEAR(buffer.At(1), 1.5, 1e-12);
    ParamVector g = V({1.0, 2.0});
    FedBuffApply(g, buffer, 3, 2.0);
    EXPECT_NEAR(g.At(0), 2.0, 1e-12);
    EXPECT_NEAR(g.At(1), 3.0, 1e-12);

    // With equal weights it is FedBuff's buffer of the K deltas (Algorithm 1) to rounding.
    FedBuffConfig c;
    c.bufferSize = 3;
    c.serverLearningRate = 0.7;
    FedBuffRule rule(c);
    const ParamVector base = V({0.25, -1.0, 3.0});
    const std::vector<ParamVector> models = {V({1.0, 2.0, 3.5}),
                                             V({-0.5, 0.0, 2.0}),
                                             V({0.75, -3.0, 4.0})};
    ParamVector viaRule = V({2.0, 2.0, 2.0});
    double w = 0.0;
    Eigen::VectorXd total = Eigen::VectorXd::Zero(3);
    for (const ParamVector& m : models)
    {
        rule.Add(m, base, 2, viaRule, w);
        total += m.Get<double>();
    }
    ParamVector viaSum = V({2.0, 2.0, 2.0});
    FedBuffApply(viaSum, FedBuffBufferFromSum(total, 3.0, 3, base, w), 3, 0.7);
    for (std::size_t j = 0; j < 3; ++j)
    {
        EXPECT_NEAR(viaSum.At(j), viaRule.At(j), 1e-12);
    }
    // bad input names the parameter
    EXPECT_THROW(FedBuffBufferFromSum(sum, 4.0, 0, V({0.5, 1.0}), s), ConfigError);
    EXPECT_THROW(FedBuffBufferFromSum(sum, 0.0, 3, V({0.5, 1.0}), s), ConfigError);
    EXPECT_THROW(FedBuffBufferFromSum(sum, 4.0, 3, V({0.5}), s), ConfigError);
}

TEST(AsyncReplay, VersionsFollowTheArrivalSequence)
{
    // "training" adds the client index + 1 to every coordinate of the model it got
    auto train = [](uint32_t client, uint32_t, const ParamVector& m) {
        ParamVector out = m;
        out.Get<double>().array() += static_cast<double>(client + 1);
        return out;
    };
    FedAsyncConfig c;
    c.alpha = 0.5;
    c.function = StalenessFunction::Constant;
    FedAsyncRule rule(c);
    // client 0 on v1 -> v2 = 0.5 * 0 + 0.5 * 1 = 0.5; client 1 on v1 (tau 1) -> v3 = 0.5 * 0.5 +
    // 0.5 * 2 = 1.25; client 0 on v2 (tau 1) -> v4 = 0.5 * 1.25 + 0.5 * 1.5 = 1.375
    const auto versions = ReplayAsync(V({0.0}), {{0, 1}, {1, 1}, {0, 2}}, rule, train);
    ASSERT_EQ(versions.size(), 4u);
    EXPECT_NEAR(versions[1].At(0), 0.5, 1e-12);
    EXPECT_NEAR(versions[2].At(0), 1.25, 1e-12);
    EXPECT_NEAR(versions[3].At(0), 1.375, 1e-12);
    EXPECT_THROW(ReplayAsync(V({0.0}), {{0, 3}}, rule, train), ConfigError);
}
