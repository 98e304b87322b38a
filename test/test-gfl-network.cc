/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * GFL and GHP diffusion over ns-3 links (issue 11, network mode): a lossless network run equals
 * the in-process run with the same seeds bit for bit; with losses the policy acts and the
 * centroid drift of broken graph-homomorphic cancellation is reported.
 */
#include "ns3/core-module.h"
#include "ns3/error-model.h"
#include "ns3/gfl-helper.h"
#include "ns3/gfl.h"
#include "ns3/graph.h"
#include "ns3/linear-models.h"
#include "ns3/point-to-point-net-device.h"
#include "ns3/synthetic-data.h"

#include <gtest/gtest.h>
#include <iostream>

using namespace ns3;
using namespace ns3::fl;

namespace
{

struct Fixture
{
    std::shared_ptr<SupervisedTask<double>> task;
    Eigen::VectorXd wOpt;
};

Fixture
MakeFixture(std::size_t agents, std::size_t samples, double rho, uint64_t seed)
{
    RegressionTaskConfig rc;
    rc.dim = 2;
    rc.agents = agents;
    rc.samplesPerAgent = samples;
    Rng rng(seed);
    auto data = MakeRegressionTask<double>(rc, rng);
    std::vector<Dataset<double>> parts;
    for (auto& a : data.agents)
    {
        parts.push_back(std::move(a.data));
    }
    std::vector<const Dataset<double>*> ptrs;
    for (const auto& p : parts)
    {
        ptrs.push_back(&p);
    }
    Fixture f;
    f.wOpt = RidgeOptimum(ptrs, rho);
    f.task =
        std::make_shared<SupervisedTask<double>>(std::make_shared<RidgeRegression<double>>(2, rho),
                                                 LocalTrainerConfig{},
                                                 std::move(parts),
                                                 Dataset<double>{});
    return f;
}

Eigen::MatrixXd
ThreeServers()
{
    Eigen::MatrixXd A(3, 3);
    A << 0.5, 0.25, 0.25, 0.25, 0.75, 0.0, 0.25, 0.0, 0.75;
    return A;
}

GflConfig
SmallGfl(const Fixture& f, uint64_t seed)
{
    GflConfig c;
    c.combination = ThreeServers();
    c.clientsPerServer = 4;
    c.sampledClients = 3;
    c.mu = 0.5;
    c.work = DrawGflLocalWork(12, 1, 10, 5, 10, DeriveSeed(seed, 3));
    c.iterations = 6;
    c.seed = seed;
    c.reference = f.wOpt;
    c.clientNoise = NodeNoiseConfig{NodeNoiseKind::IidPerLink, NoiseDistribution::Laplace, 0.05};
    c.serverNoise =
        NodeNoiseConfig{NodeNoiseKind::GraphHomomorphic, NoiseDistribution::Laplace, 0.2};
    return c;
}

/// Runs GFL over the network; returns the per-iteration models of every server.
std::vector<std::vector<ParamVector>>
RunNetworkGfl(const Fixture& f,
              const GflConfig& c,
              const std::string& transport,
              const std::string& cell,
              std::vector<NetworkIterationReport>* reports = nullptr,
              double linkLoss = 0.0)
{
    FlGraphSceneHelper sceneHelper;
    sceneHelper.SetCell(cell);
    FlGraphScene scene = sceneHelper.Build(c.combination, c.clientsPerServer);
    if (linkLoss > 0.0)
    {
        for (uint32_t d = 0; d < scene.serverLinks.GetN(); ++d)
        {
            Ptr<RateErrorModel> em = CreateObject<RateErrorModel>();
            em->SetAttribute("ErrorUnit", StringValue("ERROR_UNIT_PACKET"));
            em->SetAttribute("ErrorRate", DoubleValue(linkLoss));
            em->AssignStreams(100 + d);
            scene.serverLinks.Get(d)->SetAttribute("ReceiveErrorModel", PointerValue(em));
        }
    }
    FlGflHelper gfl(f.task, c);
    gfl.SetTransport(transport);
    if (transport == "udp")
    {
        gfl.SetExchangeTimeout(Seconds(1));
        gfl.SetRoundDeadline(Seconds(5));
    }
    std::vector<std::vector<ParamVector>> models;
    gfl.SetIterationCallback([&](const NetworkIterationReport& r) {
        models.push_back(*r.models);
        if (reports)
        {
            reports->push_back(r);
            reports->back().models = nullptr;
            reports->back().aggregates = nullptr;
            reports->back().centroid = nullptr;
        }
    });
    gfl.Install(scene);
    Simulator::Stop(Seconds(600));
    Simulator::Run();
    EXPECT_EQ(gfl.Collector().CompletedIterations(), c.iterations);
    std::cout << transport << "/" << cell << ": " << c.iterations << " iterations in "
              << Simulator::Now().GetSeconds() << " s simulated" << std::endl;
    Simulator::Destroy();
    return models;
}

std::vector<std::vector<ParamVector>>
RunInProcessGfl(const Fixture& f, const GflConfig& c)
{
    std::vector<std::vector<ParamVector>> models;
    RunGflInProcess(*f.task, c, [&](const NetworkIterationReport& r) {
        models.push_back(*r.models);
    });
    return models;
}

void
ExpectBitForBit(const std::vector<std::vector<ParamVector>>& a,
                const std::vector<std::vector<ParamVector>>& b)
{
    ASSERT_EQ(a.size(), b.size());
    for (std::size_t i = 0; i < a.size(); ++i)
    {
        ASSERT_EQ(a[i].size(), b[i].size());
        for (std::size_t p = 0; p < a[i].size(); ++p)
        {
            const Eigen::VectorXd& x = a[i][p].Get<double>();
            const Eigen::VectorXd& y = b[i][p].Get<double>();
            ASSERT_EQ(x.size(), y.size());
            for (Eigen::Index j = 0; j < x.size(); ++j)
            {
                EXPECT_EQ(x[j], y[j]) << "iteration " << i << " node " << p << " coordinate " << j;
            }
        }
    }
}

} // namespace

TEST(GflNetwork, LosslessTcpRunEqualsInProcessBitForBit)
{
    const Fixture f = MakeFixture(12, 40, 0.1, 7);
    for (GflUplink uplink : {GflUplink::Models, GflUplink::Updates})
    {
        GflConfig c = SmallGfl(f, 7);
        c.uplink = uplink;
        const auto ref = RunInProcessGfl(f, c);
        const auto net = RunNetworkGfl(f, c, "tcp", "csma");
        ExpectBitForBit(net, ref);
        EXPECT_GT((ref.back()[0].Get<double>() - ref.front()[0].Get<double>()).norm(), 1e-3);
    }
    // a control: another seed in the network run gives other models
    GflConfig other = SmallGfl(f, 7);
    const auto ref = RunInProcessGfl(f, other);
    other.seed = 8;
    const auto net = RunNetworkGfl(f, other, "tcp", "csma");
    EXPECT_NE(net.back()[0], ref.back()[0]);
}

TEST(GflNetwork, PerLinkNoiseOverWifiCellsEqualsInProcessBitForBit)
{
    const Fixture f = MakeFixture(12, 40, 0.1, 11);
    GflConfig c = SmallGfl(f, 11);
    c.iterations = 3;
    c.serverNoise = NodeNoiseConfig{NodeNoiseKind::IidPerLink, NoiseDistribution::Laplace, 0.1};
    ExpectBitForBit(RunNetworkGfl(f, c, "tcp", "wifi"), RunInProcessGfl(f, c));
}

TEST(GflNetwork, LossyUdpLinksTriggerThePolicyAndBreakTheCancellation)
{
    const Fixture f = MakeFixture(12, 40, 0.1, 13);
    GflConfig c = SmallGfl(f, 13);
    c.iterations = 12;
    c.missingPolicy = MissingMessagePolicy::Renormalize;
    std::vector<NetworkIterationReport> reports;
    RunNetworkGfl(f, c, "udp", "csma", &reports, 0.3);
    std::size_t lost = 0;
    double maxDriftWhenLost = 0.0;
    double maxDriftWhenComplete = 0.0;
    for (const auto& r : reports)
    {
        lost += r.lostMessages;
        (r.lostMessages > 0 ? maxDriftWhenLost : maxDriftWhenComplete) =
            std::max(r.lostMessages > 0 ? maxDriftWhenLost : maxDriftWhenComplete, r.centroidDrift);
    }
    std::cout << "lossy UDP run: " << lost << " neighbour messages missing in "
              << reports.size() - 1 << " iterations; max centroid drift " << maxDriftWhenLost
              << " with losses, " << maxDriftWhenComplete << " without" << std::endl;
    EXPECT_GT(lost, 0U);
    EXPECT_GT(maxDriftWhenLost, 1e-6);
    EXPECT_LT(maxDriftWhenComplete, 1e-9);
}

TEST(DiffusionNetwork, LosslessWifiAdhocRunEqualsInProcessBitForBit)
{
    const std::size_t K = 5;
    const Fixture f = MakeFixture(K, 40, 0.1, 17);
    DiffusionConfig c;
    Rng g(17);
    ConnectivityRequirement req;
    req.connected = true;
    c.combination = MetropolisWeights(ErdosRenyiGraph(K, 0.5, g, req));
    c.mu = 0.1;
    c.batchSize = 2;
    c.iterations = 5;
    c.seed = 17;
    c.reference = f.wOpt;
    c.noise = NodeNoiseConfig{NodeNoiseKind::GraphHomomorphic, NoiseDistribution::Laplace, 0.3};
    std::vector<std::vector<ParamVector>> ref;
    RunDiffusionInProcess(*f.task, c, [&](const NetworkIterationReport& r) {
        ref.push_back(*r.models);
    });

    FlWifiAdhocSceneHelper adhoc;
    FlScene scene = adhoc.Build(K - 1);
    NodeContainer nodes(scene.serverNode);
    nodes.Add(scene.clients);
    std::vector<Ipv4Address> addresses{scene.serverAddress};
    for (uint32_t k = 0; k + 1 < K; ++k)
    {
        addresses.push_back(scene.clientInterfaces.GetAddress(k));
    }
    DiffusionHelper diffusion(f.task, c);
    std::vector<std::vector<ParamVector>> net;
    diffusion.SetIterationCallback(
        [&](const NetworkIterationReport& r) { net.push_back(*r.models); });
    diffusion.Install(nodes, addresses);
    Simulator::Stop(Seconds(600));
    Simulator::Run();
    EXPECT_EQ(diffusion.Collector().CompletedIterations(), c.iterations);
    Simulator::Destroy();
    ExpectBitForBit(net, ref);
}
