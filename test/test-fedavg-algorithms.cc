/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * FedAvg aggregation and FedAvgM server momentum, against hand computations.
 */
#include "ns3/fedavg.h"

#include <gtest/gtest.h>

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
