/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Experiments in a user's own script, the ns-3 half (helper/fl-experiment.h): seeds through
 * RngRun (each seed's draws are those of its run number, the run number restored), the tracker's
 * long rows as one summary per round (by hand), and a program's provenance.
 */
#include "ns3/fl-experiment.h"
#include "ns3/random-variable-stream.h"

#include <gtest/gtest.h>

#include <cmath>

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
