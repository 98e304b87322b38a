/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Experiments in a user's own script, the ns-3 half (helper/fl-experiment.h): seeds through
 * RngRun (each seed's draws are those of its run number, the run number restored), the tracker's
 * long rows as one summary per round (by hand), and a program's provenance.
 */
#include "ns3/fl-experiment.h"
#include "ns3/random-variable-stream.h"

#include <cmath>
#include <gtest/gtest.h>
#include <sstream>

using namespace ns3;

namespace
{

/// The first draw of a uniform stream 7 at the current run number.
double
FirstDraw()
{
    Ptr<UniformRandomVariable> u = CreateObject<UniformRandomVariable>();
    u->SetStream(7);
    return u->GetValue();
}

} // namespace

TEST(ExperimentHelper, SeedsAreRunNumbers)
{
    const uint64_t before = RngSeedManager::GetRun();
    RngSeedManager::SetRun(5);
    std::vector<uint32_t> done;
    const std::vector<double> draws = FlRunSeeds<double>(
        3,
        [](uint32_t) { return FirstDraw(); },
        [&](uint32_t seed, const double&) { done.push_back(seed); });
    EXPECT_EQ(RngSeedManager::GetRun(), 5u);
    EXPECT_EQ(done, (std::vector<uint32_t>{0, 1, 2}));
    for (uint32_t s = 0; s < 3; ++s)
    {
        RngSeedManager::SetRun(5 + s);
        EXPECT_EQ(draws[s], FirstDraw()) << "seed " << s;
    }
    EXPECT_NE(draws[0], draws[1]);
    // restored after a throw too
    RngSeedManager::SetRun(9);
    EXPECT_THROW(FlRunSeeds<int>(2,
                                 [](uint32_t s) -> int {
                                     if (s == 1)
                                     {
                                         throw std::runtime_error("seed 1");
                                     }
                                     return 0;
                                 }),
                 std::runtime_error);
    EXPECT_EQ(RngSeedManager::GetRun(), 9u);
    RngSeedManager::SetRun(before);
}

TEST(ExperimentHelper, RoundSummariesByHand)
{
    const std::vector<FlMetricRow> rows{
        {0, 0.1, "centroid", "worker", "test_loss", 2.0},
        {0, 0.1, "centroid", "worker", "test_accuracy", 0.1},
        {0, 0.1, "0", "worker", "test_loss", 2.5},
        {0, 0.1, "1", "worker", "test_loss", 1.5},
        {0, 0.1, "0", "worker", "test_accuracy", 0.2},
        {0, 0.1, "1", "worker", "test_accuracy", 0.4},
        {0, 0.1, "network", "worker", "disagreement", 0.0},
        {1, 0.2, "centroid", "worker", "test_accuracy", 0.5},
        {1, 0.25, "network", "worker", "epsilon", 0.75},
        {1, 0.3, "network", "worker", "disagreement", 0.125},
    };
    const auto s = FlSummariseRounds(rows);
    ASSERT_EQ(s.size(), 2u);
    EXPECT_EQ(s[0].round, 0u);
    EXPECT_NEAR(s[0].timeS, 0.1, 1e-12);
    EXPECT_NEAR(s[0].centroidLoss, 2.0, 1e-12);
    EXPECT_NEAR(s[0].centroidAccuracy, 0.1, 1e-12);
    EXPECT_NEAR(s[0].nodeLoss, 2.0, 1e-12);     // (2.5 + 1.5) / 2
    EXPECT_NEAR(s[0].nodeAccuracy, 0.3, 1e-12); // (0.2 + 0.4) / 2
    EXPECT_TRUE(std::isnan(s[0].epsilon));
    EXPECT_EQ(s[1].round, 1u);
    EXPECT_NEAR(s[1].timeS, 0.3, 1e-12); // the round's last row
    EXPECT_NEAR(s[1].centroidAccuracy, 0.5, 1e-12);
    EXPECT_NEAR(s[1].epsilon, 0.75, 1e-12);
    EXPECT_NEAR(s[1].disagreement, 0.125, 1e-12);
    EXPECT_TRUE(std::isnan(s[1].nodeLoss)); // no node evaluated in round 1
}

TEST(ExperimentHelper, ProgramProvenance)
{
    char a0[] = "/some/dir/fl-dwfl";
    char a1[] = "--figure=power";
    char a2[] = "--runs=3";
    char* argv[] = {a0, a1, a2};
    const FlProgramProvenance p = FlGetProgramProvenance(3, argv);
    EXPECT_EQ(p.provenance.program, "fl-dwfl");
    EXPECT_EQ(p.flags, "--figure=power --runs=3");
#ifdef FL_NS3_VERSION
    EXPECT_EQ(p.provenance.ns3Version,
              std::to_string(FL_NS3_VERSION / 100) + "." + std::to_string(FL_NS3_VERSION % 100));
#endif
}

TEST(ExperimentHelper, StatisticsOverSeedsByHand)
{
    FlRoundSummary a0{0, 0.1, 2.0, 0.1, 2.0, 0.1, 0.0, std::nan("")};
    FlRoundSummary a1{1, 0.2, 1.0, 0.5, 1.5, 0.4, 0.2, 0.5};
    FlRoundSummary b0{0, 0.1, 2.0, 0.1, 2.0, 0.1, 0.0, std::nan("")};
    FlRoundSummary b1{1, 0.4, 1.0, 0.7, 1.5, 0.6, 0.4, 0.5};
    FlRoundSummary b2{2, 0.6, 0.5, 0.9, 1.0, 0.8, 0.1, 0.7};
    const std::vector<std::vector<FlRoundSummary>> seeds{{a0, a1}, {b0, b1, b2}};
    const auto stats = FlRoundStatisticsOverSeeds(seeds);
    ASSERT_EQ(stats.size(), 2u); // the shortest seed
    EXPECT_EQ(stats[1].round, 1u);
    EXPECT_EQ(stats[1].seeds, 2u);
    EXPECT_NEAR(stats[1].timeS.mean, 0.3, 1e-12);
    EXPECT_NEAR(stats[1].centroidAccuracy.mean, 0.6, 1e-12);
    // {0.5, 0.7}: s = 0.1 sqrt(2), half-width 12.706205 * 0.1
    EXPECT_NEAR(stats[1].centroidAccuracy.halfWidth, 1.2706205, 1e-12);
    EXPECT_NEAR(stats[1].disagreement.mean, 0.3, 1e-12);
    EXPECT_NEAR(stats[1].epsilon.mean, 0.5, 1e-12);
    EXPECT_TRUE(std::isnan(stats[0].epsilon.mean));
    // ranking: the last max(1, (rounds - 1) / 10) = 1 round of each seed: 0.5 and 0.9
    const FlSeedsSummary s = FlSummariseSeeds(seeds);
    EXPECT_NEAR(s.accuracy.mean, 0.7, 1e-12);
    EXPECT_NEAR(s.nodeAccuracy.mean, 0.6, 1e-12);  // (0.4 + 0.8) / 2
    EXPECT_NEAR(s.disagreement.mean, 0.15, 1e-12); // (0.2 + 0.1) / 2
    EXPECT_EQ(s.accuracy.n, 2u);
}

TEST(ExperimentHelper, RunSeriesPrintsAndChecksRounds)
{
    const uint64_t before = RngSeedManager::GetRun();
    RngSeedManager::SetRun(3);
    std::ostringstream os;
    bool incomplete = false;
    uint32_t calls = 0;
    const auto seeds = FlRunSeries(
        "my series",
        1,
        4,
        2,
        1,
        [&]() {
            ++calls;
            return std::vector<FlRoundSummary>{{0, 0.1, 2.0, 0.25, 0, 0, 0.0, 0},
                                               {calls, 0.5, 1.0, 0.75, 0, 0, 0.125, 0}};
        },
        os,
        &incomplete);
    EXPECT_EQ(seeds.size(), 2u);
    EXPECT_EQ(os.str(),
              "run 2/4: my series, seed 1/2 (RngRun 3)\n"
              "  done: 1 rounds in 0.5 s simulated, test accuracy 0.75, loss 1, disagreement "
              "0.125\n"
              "run 2/4: my series, seed 2/2 (RngRun 4)\n"
              "  done: 2 rounds in 0.5 s simulated, test accuracy 0.75, loss 1, disagreement "
              "0.125\n");
    EXPECT_FALSE(incomplete);
    FlRunSeries(
        "short",
        0,
        1,
        1,
        5,
        [&]() { return seeds[0]; },
        os,
        &incomplete);
    EXPECT_TRUE(incomplete); // 1 of 5 rounds
    EXPECT_THROW(FlRunSeries(
                     "none",
                     0,
                     1,
                     1,
                     5,
                     []() { return std::vector<FlRoundSummary>{}; },
                     os,
                     nullptr),
                 std::runtime_error);
    EXPECT_EQ(RngSeedManager::GetRun(), 3u);
    RngSeedManager::SetRun(before);
}

TEST(ExperimentHelper, TaskSpecChecks)
{
    fl::TaskSpec spec; // synthetic: nothing to read
    spec.model = "softmax:l2=0";
    EXPECT_NO_THROW(fl::CheckTaskSpec(spec));
    const auto parameterOf = [](const fl::TaskSpec& s) {
        try
        {
            fl::CheckTaskSpec(s);
        }
        catch (const fl::ConfigError& e)
        {
            return e.Parameter();
        }
        return std::string();
    };
    fl::TaskSpec bad = spec;
    bad.model = "nope";
    EXPECT_EQ(parameterOf(bad), "--model");
    bad = spec;
    bad.standardise = "public";
    bad.featureShift = "1,2"; // 20 features
    EXPECT_EQ(parameterOf(bad), "--featureShift");
    bad = spec;
    bad.precision = "float8";
    EXPECT_EQ(parameterOf(bad), "--precision");
    bad = spec;
    bad.dataset = "/nonexistent/data.csv";
    EXPECT_EQ(parameterOf(bad), "--dataset");
    // the task it checks builds (20 features, 10 classes, 2 clients)
    bad = spec;
    bad.clients = 2;
    bad.samplesPerClient = 30;
    bad.testSamples = 40;
    const auto task = FlBuildTask(bad);
    ASSERT_TRUE(task);
}
