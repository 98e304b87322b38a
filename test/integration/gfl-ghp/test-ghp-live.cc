/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * GHP diffusion on a graph the agents learn from their hellos (DiffusionHelper::
 * SetNeighbourDiscovery) over ad hoc Wi-Fi with a 40 m radio range (ns-3's
 * RangePropagationLossModel): on still nodes the learned neighbours and Metropolis columns are
 * the graph's, so the run equals the one given that graph's Metropolis matrix bit for bit, with
 * the same epsilons and a stochasticity error of rounding only; when a node walks away the
 * weights stop summing to one in the iteration released before the hellos' timeout tells, by
 * the amount a hand calculation gives, and only in that one.
 */
#include "fl-test-adhoc-range.h"
#include "fl-test-gfl-fixture.h"
#include "fl-test-gfl-network.h"

#include "ns3/core-module.h"
#include "ns3/gfl-helper.h"
#include "ns3/graph.h"
#include "ns3/internet-module.h"
#include "ns3/mobility-module.h"
#include "ns3/propagation-module.h"
#include "ns3/wifi-module.h"

#include <cmath>
#include <gtest/gtest.h>
#include <vector>

using namespace ns3;
using namespace ns3::fl;

namespace
{

using Fixture = fltest::RegressionFixture;

/// Ad hoc Wi-Fi nodes at x = 0, 30, 60, ... m (a 40 m range: a line graph); the last one walks
/// to x = 600 m between `leaveAt` and `leaveAt` + 2 s if `leaveAt` > 0.
struct Line
{
    NodeContainer nodes;
    std::vector<Ipv4Address> addresses;
};

Line
BuildLine(uint32_t count, double leaveAt)
{
    Line line;
    line.nodes.Create(count);
    for (uint32_t k = 0; k < count; ++k)
    {
        const Vector at(30.0 * k, 0, 0);
        if (k + 1 == count && leaveAt > 0.0)
        {
            Ptr<WaypointMobilityModel> walk = CreateObject<WaypointMobilityModel>();
            line.nodes.Get(k)->AggregateObject(walk);
            walk->AddWaypoint(Waypoint(Seconds(0), at));
            walk->AddWaypoint(Waypoint(Seconds(leaveAt), at));
            walk->AddWaypoint(Waypoint(Seconds(leaveAt + 2), Vector(600, 0, 0)));
        }
        else
        {
            Ptr<ConstantPositionMobilityModel> still = CreateObject<ConstantPositionMobilityModel>();
            still->SetPosition(at);
            line.nodes.Get(k)->AggregateObject(still);
        }
    }
    Ipv4InterfaceContainer interfaces = fltest::InstallRangeAdhoc(line.nodes, 40.0, "10.8.0.0");
    for (uint32_t k = 0; k < count; ++k)
    {
        line.addresses.push_back(interfaces.GetAddress(k));
    }
    return line;
}

/// The path graph 0 - 1 - ... - (n - 1).
Graph
PathGraph(std::size_t n)
{
    std::vector<Edge> edges;
    for (uint32_t k = 0; k + 1 < n; ++k)
    {
        edges.push_back({k, k + 1});
    }
    return Graph(n, edges);
}

DiffusionConfig
LineDiffusion(const Fixture& f, uint32_t iterations)
{
    DiffusionConfig c;
    c.mu = 0.1;
    c.batchSize = 2;
    c.clipNorm = 1.0;
    c.iterations = iterations;
    c.seed = 23;
    c.reference = f.wOpt;
    c.noise = NodeNoiseConfig{NodeNoiseKind::GraphHomomorphic, NoiseDistribution::Laplace, 0.3};
    return c;
}

struct Outcome
{
    std::vector<std::vector<ParamVector>> models;
    std::vector<NetworkIterationReport> reports;
    uint64_t changes{0};           ///< neighbourhood changes over the agents
};

/// Runs `c` on `line` (broadcast releases jittered by up to 0.3 s, one iteration per second) and,
/// if `live`, with hellos every 0.5 s and a 1.5 s timeout.
Outcome
RunLine(const Fixture& f, const DiffusionConfig& c, Line& line, bool live)
{
    DiffusionHelper diffusion(f.task, c);
    diffusion.SetTransport("broadcast"); // one transmission per release, heard by every node in range
    diffusion.SetIterationPeriod(Seconds(1));
    diffusion.SetReleaseJitter(MilliSeconds(300)); // nodes two hops apart are hidden terminals
    diffusion.SetExchangeTimeout(MilliSeconds(600));
    diffusion.AssignStreams(100);
    if (live)
    {
        diffusion.SetNeighbourDiscovery(MilliSeconds(500), MilliSeconds(1500));
    }
    Outcome out;
    diffusion.SetIterationCallback([&out](const NetworkIterationReport& r) {
        out.models.push_back(*r.models);
        out.reports.push_back(r);
        out.reports.back().models = nullptr;
        out.reports.back().aggregates = nullptr;
        out.reports.back().centroid = nullptr;
    });
    auto agents = diffusion.Install(line.nodes, line.addresses);
    Simulator::Stop(Seconds(60));
    Simulator::Run();
    for (const auto& a : agents)
    {
        out.changes += a->GetExchangeStats()->neighbourhoodChanges;

    }
    Simulator::Destroy();
    return out;
}

} // namespace

TEST(GhpLiveGraph, StillNodesLearnTheirGraphAndEqualItsMetropolisMatrixBitForBit)
{
    const uint32_t K = 5;
    const Fixture f = fltest::MakeRegressionFixture(K, 40, 0.1, 23);
    DiffusionConfig fixedConfig = LineDiffusion(f, 6);
    fixedConfig.combination = MetropolisWeights(PathGraph(K));
    Line a = BuildLine(K, 0.0);
    const Outcome fixedRun = RunLine(f, fixedConfig, a, false);

    DiffusionConfig liveConfig = LineDiffusion(f, 6);
    Line b = BuildLine(K, 0.0);
    const Outcome liveRun = RunLine(f, liveConfig, b, true);

    ASSERT_EQ(liveRun.models.size(), 7U);
    fltest::ExpectBitForBit(liveRun.models, fixedRun.models);
    fltest::ExpectSameReports(liveRun.reports, fixedRun.reports); // epsilons too
    EXPECT_EQ(liveRun.changes, 0U);
    for (std::size_t i = 1; i < liveRun.reports.size(); ++i)
    {
        // each column is 1 - (sum of the others) and every sender's row the same terms: the
        // error is rounding only, a few ulps of 1
        EXPECT_LE(liveRun.reports[i].stochasticityError, 4e-16) << "iteration " << i;
        EXPECT_LE(fixedRun.reports[i].stochasticityError, 4e-16) << "iteration " << i;
        EXPECT_EQ(liveRun.reports[i].lostMessages, 0U);
    }
    EXPECT_GT(liveRun.reports.back().epsilonNeighbour, 0.0);
}

TEST(GhpLiveGraph, ANodeThatLeavesBreaksTheWeightsUntilTheHellosTell)
{
    // Line 0 - 1 - 2 - 3 (Metropolis: n = 2, 3, 3, 2, every weight between neighbours 1/3);
    // node 3 walks off at 8 s and leaves node 2's range (x > 100 m) at 8 + 2 x 10 / 510 =
    // 8.04 s. Iteration i is released at 1.6 + (i - 1) + 0.001 + U[0, 0.3] s. Up to iteration
    // 7 (released by 7.9 s) every node knows the line. Iteration 8 is released in [8.6, 8.9]
    // s, before 2 and 3 drop each other (they heard each other's last hello by 8.04 s and keep
    // it for the 1.5 s timeout, to 9.54 s at the latest): 3 sends to nobody who hears it and
    // gets nothing from 2, so both lose a message; 3's own weight is a_33 = 1 - 1/3, and 2's
    // message gets a_22 + a_21 = 1/3 + 1/3: the error is 1/3 for both. From iteration 9
    // (released after 9.6 s) 2 and 3 have dropped each other: 3 alone keeps all of its own
    // weight, 2's column is a_12 = 1 / max(2, 3) = 1/3, a_22 = 2/3, and 1's weight for 2 stays
    // 1 / max(3, n_2) = 1/3 whatever 1 believes n_2 is: consistent again, error 0.
    const uint32_t K = 4;
    const Fixture f = fltest::MakeRegressionFixture(K, 40, 0.1, 29);
    Line line = BuildLine(K, 8.0);
    const Outcome run = RunLine(f, LineDiffusion(f, 14), line, true);
    ASSERT_EQ(run.reports.size(), 15U);

    for (uint32_t i = 1; i <= 14; ++i)
    {
        const double err = run.reports[i].stochasticityError;
        SCOPED_TRACE("iteration " + std::to_string(i));
        if (i != 8)
        {
            EXPECT_LE(err, 4e-16);
            EXPECT_EQ(run.reports[i].lostMessages, 0U);
        }
    }
    EXPECT_NEAR(run.reports[8].stochasticityError, 1.0 / 3.0, 1e-15);
    EXPECT_EQ(run.reports[8].lostMessages, 2U);
    EXPECT_GT(run.changes, 0U);
    // the neighbour-discovery epsilon keeps growing, and the still line's is not reached by the
    // isolated node: it stays finite and positive
    EXPECT_GT(run.reports[14].epsilonNeighbour, run.reports[7].epsilonNeighbour);
    EXPECT_TRUE(std::isfinite(run.reports[14].epsilonNeighbour));
}
