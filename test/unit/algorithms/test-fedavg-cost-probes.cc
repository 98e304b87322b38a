/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The FedAvg cost probes: the median and mean of a series, the ideal link's per-message work
 * (the model it delivers, the bytes it counts, a lossy wire that changes the model), the GEMM
 * rate's sanity.
 */
#include "fl-test-task.h"

#include "ns3/fedavg-cost-probes.h"
#include "ns3/model-message.h"

#include <gtest/gtest.h>

#include <stdexcept>

using namespace ns3;

namespace
{

fl::TimedRunConfig
TimedConfig(const fl::LearningTask& task, uint32_t rounds)
{
    fl::TimedRunConfig cfg;
    cfg.rounds = rounds;
    cfg.initSeed = 7;
    for (uint32_t k = 0; k < task.NumClients(); ++k)
    {
        cfg.clientSeeds.push_back(100 + k);
    }
    return cfg;
}

} // namespace

TEST(FedAvgCostProbes, MedianAndMean)
{
    fl::RoundWallSeries s;
    EXPECT_EQ(s.Median(), 0.0);
    EXPECT_EQ(s.Mean(), 0.0);
    s.roundWall = {3.0, 1.0, 2.0};
    EXPECT_EQ(s.Median(), 2.0);
    EXPECT_EQ(s.Mean(), 2.0);
    s.roundWall = {4.0, 1.0, 3.0, 2.0, 100.0, 0.5};
    EXPECT_EQ(s.Median(), 2.5); // (2 + 3) / 2: the outlier does not move it
    EXPECT_NEAR(s.Mean(), 110.5 / 6.0, 1e-12);
}

TEST(FedAvgCostProbes, IdealLinkDeliversTheSameModelAndCountsEveryByte)
{
    const auto task = fltest::MakeTask<float>(4, "mlp:hidden=6");
    const uint32_t rounds = 3;
    const fl::RoundWallSeries plain = fl::TimeFedAvgRounds(*task, TimedConfig(*task, rounds));
    const fl::RoundWallSeries linked =
        fl::TimeFedAvgRoundsOverIdealLink(*task, TimedConfig(*task, rounds), fl::Precision::Float32, 100);
    ASSERT_EQ(plain.roundWall.size(), rounds);
    ASSERT_EQ(linked.roundWall.size(), rounds);
    EXPECT_EQ(plain.bytes, 0u);
    EXPECT_EQ(linked.finalModel, plain.finalModel); // float32 task, float32 wire: lossless
    EXPECT_EQ(linked.samples, plain.samples);
    EXPECT_GT(plain.samples, 0u);
    // Every round: the global model to each of 4 clients, one update from each; a message is
    // its header plus 4 bytes per parameter, whatever the round's values.
    std::vector<uint8_t> msg;
    fl::EncodeMessage({fl::MessageKind::GlobalModel, 1, 0, fl::kBroadcastId, 0},
                      plain.finalModel,
                      fl::Precision::Float32,
                      msg);
    EXPECT_GT(msg.size(), 4 * task->NumParameters());
    EXPECT_EQ(linked.bytes, uint64_t{rounds} * 8u * msg.size());
}

TEST(FedAvgCostProbes, ALossyWireChangesTheModel)
{
    // A float64 task sent as float32 is rounded on every hop: the link is really in the loop.
    const auto task = fltest::MakeTask<double>(3, "mlp:hidden=6");
    const fl::RoundWallSeries plain = fl::TimeFedAvgRounds(*task, TimedConfig(*task, 2));
    const fl::RoundWallSeries lossless =
        fl::TimeFedAvgRoundsOverIdealLink(*task, TimedConfig(*task, 2), fl::Precision::Float64, 1448);
    const fl::RoundWallSeries lossy =
        fl::TimeFedAvgRoundsOverIdealLink(*task, TimedConfig(*task, 2), fl::Precision::Float32, 1448);
    EXPECT_EQ(lossless.finalModel, plain.finalModel);
    EXPECT_FALSE(lossy.finalModel == plain.finalModel);
    EXPECT_THROW(fl::TimeFedAvgRoundsOverIdealLink(*task, TimedConfig(*task, 1), fl::Precision::Float64, 0),
                 std::invalid_argument);
}

TEST(FedAvgCostProbes, GemmRateIsAPositiveFiniteRate)
{
    const double r = fl::GemmRate(64, 64, 64, 1);
    EXPECT_GT(r, 0.0);
    EXPECT_LT(r, 1e5); // GFLOP/s: far above any single core
}
