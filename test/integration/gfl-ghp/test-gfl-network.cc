/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * GFL over ns-3 links (network mode): a lossless network run equals the in-process run with the
 * same seeds bit for bit (TCP, Wi-Fi cells, meshes, partitioned scenes, secure aggregation and
 * dropouts); with losses the policy acts and the centroid drift of broken graph-homomorphic
 * cancellation is reported. GHP diffusion over ns-3 links is test-ghp-network.cc.
 */
#include "fl-test-gfl-fixture.h"
#include "fl-test-gfl-network.h"

#include "ns3/core-module.h"
#include "ns3/error-model.h"
#include "ns3/fl-ns3-compat.h"
#include "ns3/gfl-helper.h"
#include "ns3/gfl.h"
#include "ns3/graph.h"
#include "ns3/ipv4-header.h"
#include "ns3/ipv4-l3-protocol.h"
#include "ns3/ipv4.h"
#include "ns3/linear-models.h"
#include "ns3/mobility-model.h"
#include "ns3/node-list.h"
#include "ns3/point-to-point-net-device.h"
#include "ns3/rank-partition.h"
#include "ns3/synthetic-data.h"
#include "ns3/tcp-header.h"
#include "ns3/tcp-l4-protocol.h"
#include "ns3/udp-socket-factory.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <gtest/gtest.h>
#include <iostream>
#include <map>

using namespace ns3;
using namespace ns3::fl;

namespace
{

using Fixture = fltest::RegressionFixture;
using fltest::ExpectBitForBit;
using fltest::ExpectSameReports;
using fltest::MakeRegressionFixture;

Eigen::MatrixXd
ThreeServers()
{
    return fltest::ThreeServerCombination();
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

/// Optional hooks of a network run: before Install, after Install (before Run), after Run.
struct NetHooks
{
    std::function<void(FlGflHelper&)> beforeInstall;
    std::function<void(FlGflHelper&, FlGraphScene&)> afterInstall;
    std::function<void(FlGflHelper&)> afterRun;
};

/// Runs GFL over the network; returns the per-iteration models of every server.
std::vector<std::vector<ParamVector>>
RunNetworkGfl(const Fixture& f,
              const GflConfig& c,
              const std::string& transport,
              const std::string& cell,
              std::vector<NetworkIterationReport>* reports = nullptr,
              double linkLoss = 0.0,
              const NetHooks& hooks = {},
              const std::string& serverLinks = "p2p",
              double meshSpacing = 30.0)
{
    FlGraphSceneHelper sceneHelper;
    sceneHelper.SetCell(cell);
    sceneHelper.SetServerLinks(serverLinks);
    sceneHelper.SetMeshSpacing(meshSpacing);
    FlGraphScene scene = sceneHelper.Build(c.combination, c.clientsPerServer);
    if (linkLoss > 0.0)
    {
        FlSetServerLinkLoss(scene, linkLoss, 100);
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
    if (hooks.beforeInstall)
    {
        hooks.beforeInstall(gfl);
    }
    gfl.Install(scene);
    if (hooks.afterInstall)
    {
        hooks.afterInstall(gfl, scene);
    }
    Simulator::Stop(Seconds(600));
    Simulator::Run();
    EXPECT_EQ(gfl.Tracker()->CompletedIterations(), c.iterations);
    if (!models.empty())
    {
        EXPECT_EQ(gfl.Tracker()->NetworkResult().models, models.back());
    }
    if (hooks.afterRun)
    {
        hooks.afterRun(gfl);
    }
    std::cout << transport << "/" << cell << "/" << serverLinks << ": " << c.iterations
              << " iterations in " << Simulator::Now().GetSeconds() << " s simulated" << std::endl;
    Simulator::Destroy();
    return models;
}

/**
 * The network view of the helpers' tracker fills the runner's report from the nodes' ModelReport
 * (the aggregates psi_{p,i} / phi_{k,i} included: the centroid drift), bit for bit.
 */
std::vector<std::vector<ParamVector>>
RunInProcessGfl(const Fixture& f,
                const GflConfig& c,
                std::vector<NetworkIterationReport>* reports = nullptr)
{
    std::vector<std::vector<ParamVector>> models;
    RunGflInProcess(*f.task, c, [&](const NetworkIterationReport& r) {
        models.push_back(*r.models);
        if (reports)
        {
            reports->push_back(r);
            reports->back().models = nullptr;
            reports->back().aggregates = nullptr;
            reports->back().centroid = nullptr;
        }
    });
    return models;
}

/// Secure aggregation's counters over the servers, and the dropped clients of the GFL steps.
struct SecureTotals
{
    uint64_t rounds{0};
    uint64_t completed{0};
    uint64_t aborted{0};
    uint64_t malformed{0};
    uint64_t rejected{0};
    uint64_t timeouts{0};
    uint64_t droppedClients{0};
};

SecureTotals
SumSecure(const FlGflHelper& gfl)
{
    SecureTotals t;
    for (const auto& parties : gfl.SecAggParties())
    {
        const auto& s = parties.server->GetCounters();
        t.rounds += s.rounds;
        t.completed += s.completed;
        t.aborted += s.aborted;
        t.malformed += s.malformed;
        t.rejected += s.rejected;
        t.timeouts += s.timeouts;
    }
    for (const auto& step : gfl.Steps())
    {
        t.droppedClients += step->GetDroppedClients();
    }
    return t;
}

/// TCP payload bytes a node received, concatenated per source address (lossless links: in order).
struct TcpCapture
{
    std::map<Ipv4Address, std::vector<uint8_t>> streams;

    void Rx(Ptr<const Packet> packet, Ptr<Ipv4> /* ipv4 */, uint32_t /* interface */)
    {
        Ptr<Packet> p = packet->Copy();
        Ipv4Header ip;
        p->RemoveHeader(ip);
        if (ip.GetProtocol() != TcpL4Protocol::PROT_NUMBER)
        {
            return;
        }
        TcpHeader tcp;
        p->RemoveHeader(tcp);
        std::vector<uint8_t> bytes(p->GetSize());
        p->CopyData(bytes.data(), bytes.size());
        auto& stream = streams[ip.GetSource()];
        stream.insert(stream.end(), bytes.begin(), bytes.end());
    }
};

bool
Contains(const std::vector<uint8_t>& haystack, const std::vector<uint8_t>& needle)
{
    return std::search(haystack.begin(), haystack.end(), needle.begin(), needle.end()) !=
           haystack.end();
}

std::vector<uint8_t>
BytesOf(const Eigen::VectorXd& x)
{
    std::vector<uint8_t> out(static_cast<std::size_t>(x.size()) * sizeof(double));
    std::memcpy(out.data(), x.data(), out.size());
    return out;
}

} // namespace

TEST(GflNetwork, LosslessTcpRunEqualsInProcessBitForBit)
{
    const Fixture f = MakeRegressionFixture(12, 40, 0.1, 7);
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

/// Keeps the models the servers report (ModelReport), per round and server.
struct ServerModels
{
    std::map<uint32_t, std::map<uint32_t, ParamVector>> byRound;

    void Add(const FlModelReport& r)
    {
        byRound[r.round][r.node] = *r.model;
    }
};

TEST(GflNetwork, PartitionedSceneOnOneRankEqualsInProcessBitForBit)
{
    // the scene and helper of a distributed run (fixed cell streams, per-rank stop), all on
    // rank 0: the servers' reports are the in-process models
    const Fixture f = MakeRegressionFixture(12, 40, 0.1, 7);
    GflConfig c = SmallGfl(f, 7);
    const auto ref = RunInProcessGfl(f, c);
    for (const char* cell : {"csma", "wifi"})
    {
        const auto P = static_cast<uint32_t>(c.combination.rows());
        const auto rankOf = PartitionServers(P, 1, "block");
        FlGraphSceneHelper sceneHelper;
        sceneHelper.SetCell(cell);
        sceneHelper.SetPartition(rankOf, 0);
        FlGraphScene scene = sceneHelper.Build(c.combination, c.clientsPerServer);
        FlGflHelper gfl(f.task, c);
        gfl.SetPartition(rankOf, 0);
        ServerModels got;
        for (auto& s : gfl.Install(scene))
        {
            s->TraceConnectWithoutContext("ModelReport", MakeCallback(&ServerModels::Add, &got));
        }
        Simulator::Stop(Seconds(600));
        Simulator::Run();
        // stopped by the partitioned helper (1 s after the last server), not by the 600 s limit
        EXPECT_LT(Simulator::Now().GetSeconds(), 100.0) << cell;
        Simulator::Destroy();
        ASSERT_EQ(got.byRound.size(), ref.size()) << cell;
        std::vector<std::vector<ParamVector>> net;
        for (const auto& [round, models] : got.byRound)
        {
            ASSERT_EQ(models.size(), P) << cell << " round " << round;
            std::vector<ParamVector> row;
            for (const auto& [node, w] : models)
            {
                EXPECT_EQ(node, row.size()); // server p is node p
                row.push_back(w);
            }
            net.push_back(row);
        }
        ExpectBitForBit(net, ref);
    }
}

TEST(GflNetwork, APartitionedRankBuildsAndRunsOnlyItsOwnCells)
{
    // rank 1 of 2 (built in one process: no MPI needed to check the scene): every server and
    // server link exists, with its rank as system id, but only rank 1's cells and apps
    const Fixture f = MakeRegressionFixture(12, 40, 0.1, 7);
    GflConfig c = SmallGfl(f, 7);
    const auto P = static_cast<uint32_t>(c.combination.rows());
    const auto K = static_cast<uint32_t>(c.clientsPerServer);
    const auto rankOf = PartitionServers(P, 2, "round-robin");
    FlGraphSceneHelper sceneHelper;
    sceneHelper.SetCell("wifi");
    sceneHelper.SetPartition(rankOf, 1);
    FlGraphScene scene = sceneHelper.Build(c.combination, K);
    uint32_t localCells = 0;
    for (uint32_t p = 0; p < P; ++p)
    {
        EXPECT_EQ(scene.servers.Get(p)->GetId(), p);
        EXPECT_EQ(scene.servers.Get(p)->GetSystemId(), rankOf[p]);
        if (rankOf[p] == 1)
        {
            ++localCells;
            ASSERT_EQ(scene.cells[p].GetN(), K);
            EXPECT_EQ(scene.cells[p].Get(0)->GetSystemId(), 1u);
        }
        else
        {
            EXPECT_EQ(scene.cells[p].GetN(), 0u);
        }
    }
    EXPECT_EQ(scene.cellDevices.GetN(), localCells * (K + 1));
    EXPECT_EQ(NodeList::GetNNodes(), P + localCells * K);
    FlGflHelper gfl(f.task, c);
    gfl.SetPartition(rankOf, 1);
    const auto servers = gfl.Install(scene);
    EXPECT_EQ(servers.size(), localCells);
    EXPECT_EQ(gfl.Clients().size(), localCells * K);
    for (const auto& s : servers)
    {
        EXPECT_EQ(s->GetNode()->GetSystemId(), 1u);
    }
    Simulator::Destroy();
}

TEST(GflNetwork, OnlyPointToPointServerLinksCanBePartitioned)
{
    const Fixture f = MakeRegressionFixture(12, 40, 0.1, 7);
    GflConfig c = SmallGfl(f, 7);
    const auto P = static_cast<uint32_t>(c.combination.rows());
    EXPECT_DEATH(
        {
            FlGraphSceneHelper h;
            h.SetServerLinks("mesh");
            h.SetPartition(PartitionServers(P, 2, "block"), 0);
            h.Build(c.combination, c.clientsPerServer);
        },
        "only point-to-point server links can be split across ranks");
}

TEST(GflNetwork, PerLinkNoiseOverWifiCellsEqualsInProcessBitForBit)
{
    const Fixture f = MakeRegressionFixture(12, 40, 0.1, 11);
    GflConfig c = SmallGfl(f, 11);
    c.iterations = 3;
    c.serverNoise = NodeNoiseConfig{NodeNoiseKind::IidPerLink, NoiseDistribution::Laplace, 0.1};
    std::vector<NetworkIterationReport> netReports;
    std::vector<NetworkIterationReport> refReports;
    ExpectBitForBit(RunNetworkGfl(f, c, "tcp", "wifi", &netReports),
                    RunInProcessGfl(f, c, &refReports));
    ExpectSameReports(netReports, refReports);
    // i.i.d. noise per link does not cancel: the centroid drifts, and only the aggregates the
    // servers report (psi_{p,i}) show it
    double drift = 0.0;
    for (const auto& r : netReports)
    {
        drift = std::max(drift, r.centroidDrift);
    }
    EXPECT_GT(drift, 0.0);
}

TEST(GflNetwork, MeshBetweenServersEqualsInProcessBitForBit)
{
    // The servers talk over one 802.11s mesh (HWMP, peer management) instead of
    // point-to-point links: TCP repairs what the air loses, so the run is the in-process one.
    const Fixture f = MakeRegressionFixture(12, 40, 0.1, 13);
    GflConfig c = SmallGfl(f, 13);
    c.iterations = 4;
    std::vector<NetworkIterationReport> reports;
    NetHooks hooks;
    hooks.afterInstall = [](FlGflHelper&, FlGraphScene& scene) {
        EXPECT_EQ(scene.serverLinkKind, "mesh");
        ASSERT_EQ(scene.serverLinks.GetN(), 3u); // one mesh point per server
        for (uint32_t d = 0; d < scene.serverLinks.GetN(); ++d)
        {
            EXPECT_EQ(scene.serverLinks.Get(d)->GetInstanceTypeId().GetName(),
                      "ns3::MeshPointDevice");
        }
        // every neighbour is addressed on the mesh subnet 10.4.0.0/16
        for (const auto& kv : scene.peerAddress)
        {
            EXPECT_TRUE(kv.second.CombineMask(Ipv4Mask("255.255.0.0")) == Ipv4Address("10.4.0.0"))
                << kv.second;
        }
    };
    ExpectBitForBit(RunNetworkGfl(f, c, "tcp", "csma", &reports, 0.0, hooks, "mesh"),
                    RunInProcessGfl(f, c));
    for (const auto& r : reports)
    {
        EXPECT_EQ(r.lostMessages, 0u);
    }
}

TEST(GflNetwork, MultiHopMeshEqualsInProcessBitForBit)
{
    // Four servers on a 2 x 2 grid 45 m apart, every pair neighbours: the diagonals (64 m) are
    // out of ns-3's 802.11s range, so those messages take two hops chosen by HWMP.
    const Fixture f = MakeRegressionFixture(16, 40, 0.1, 17);
    GflConfig c = SmallGfl(f, 17);
    c.combination = LazyMetropolisWeights(CompleteGraph(4));
    c.work = DrawGflLocalWork(16, 1, 10, 5, 10, DeriveSeed(17, 3));
    c.iterations = 3;
    std::vector<NetworkIterationReport> reports;
    NetHooks hooks;
    hooks.afterInstall = [](FlGflHelper&, FlGraphScene& scene) {
        ASSERT_EQ(scene.servers.GetN(), 4u);
        const Vector a = scene.servers.Get(0)->GetObject<MobilityModel>()->GetPosition();
        const Vector b = scene.servers.Get(3)->GetObject<MobilityModel>()->GetPosition();
        EXPECT_NEAR(CalculateDistance(a, b), 45.0 * std::sqrt(2.0), 1e-9);
    };
    ExpectBitForBit(RunNetworkGfl(f, c, "tcp", "csma", &reports, 0.0, hooks, "mesh", 45.0),
                    RunInProcessGfl(f, c));
}

/// A report of `node`'s model `w` after `iteration`, as a graph node's ModelReport.
FlModelReport
NetworkReport(uint32_t iteration, const ParamVector& w)
{
    FlModelReport r;
    r.round = iteration;
    r.role = FlNodeRole::Peer;
    r.model = &w;
    return r;
}

TEST(GflNetwork, TrackerWatchdogStopsARunThatMakesNoProgress)
{
    // Two nodes; both report their initial model at 0 s; node 0 finishes iterations 1..3 at 5,
    // 10, 15 s, node 1 only iteration 1: no iteration completes after 1, but progress is
    // reported until 15 s, so a 20 s watchdog stops the run at 35 s (15 + 20), not earlier,
    // and says it stalled.
    const ParamVector w = ParamVector::Zeros(Precision::Float64, 2);
    Ptr<FlLearningTracker> c = CreateObject<FlLearningTracker>();
    c->SetNetwork(2, Eigen::VectorXd(), nullptr);
    c->SetFinish(3, []() { Simulator::Stop(); });
    c->RecordNetwork(0, NetworkReport(0, w));
    c->RecordNetwork(1, NetworkReport(0, w));
    for (uint32_t i = 1; i <= 3; ++i)
    {
        FlSchedule(Seconds(5.0 * i), [c, &w, i]() { c->RecordNetwork(0, NetworkReport(i, w)); });
    }
    FlSchedule(Seconds(5.0), [c, &w]() { c->RecordNetwork(1, NetworkReport(1, w)); });
    c->SetStallTimeout(Seconds(20), []() { Simulator::Stop(); });
    FlSchedule(Seconds(1000), []() {}); // something that would keep the run going
    Simulator::Run();
    EXPECT_TRUE(c->Stalled());
    EXPECT_EQ(c->CompletedIterations(), 1u);
    EXPECT_DOUBLE_EQ(Simulator::Now().GetSeconds(), 35.0);
    Simulator::Destroy();

    // the same run with node 1 keeping up finishes at 15 s and is not stalled
    Ptr<FlLearningTracker> d = CreateObject<FlLearningTracker>();
    d->SetNetwork(2, Eigen::VectorXd(), nullptr);
    d->SetFinish(3, []() { Simulator::Stop(); });
    d->RecordNetwork(0, NetworkReport(0, w));
    d->RecordNetwork(1, NetworkReport(0, w));
    for (uint32_t i = 1; i <= 3; ++i)
    {
        FlSchedule(Seconds(5.0 * i), [d, &w, i]() {
            d->RecordNetwork(0, NetworkReport(i, w));
            d->RecordNetwork(1, NetworkReport(i, w));
        });
    }
    d->SetStallTimeout(Seconds(20), []() { Simulator::Stop(); });
    FlSchedule(Seconds(1000), []() {});
    Simulator::Run();
    EXPECT_FALSE(d->Stalled());
    EXPECT_EQ(d->CompletedIterations(), 3u);
    EXPECT_DOUBLE_EQ(Simulator::Now().GetSeconds(), 15.0);
    Simulator::Destroy();
}

TEST(GflNetwork, TrackerNetworkViewReportsEachIterationOnceAllNodesReported)
{
    // Two nodes of dimension 1, reference w° = 0. Iteration 0: w = (1, 3). Iteration 1: node 1
    // reports first, then a duplicate, then node 0; node 0 also reports iteration 2 before
    // node 1 finished it. Hand-computed: iteration 0: centroid 2, centroid MSD 4, average MSD
    // (1 + 9) / 2 = 5, disagreement ((1-2)^2 + (3-2)^2) / 2 = 1, nothing lost. Iteration 1:
    // w = (2, 4), aggregates psi = (0, 4) (node 1 carries none: its model stands for it),
    // centroid 3, centroid MSD 9, average MSD (4 + 16) / 2 = 10, disagreement 1, messages lost
    // 1 + 2 = 3, dropped clients 1.
    auto vec = [](double v) {
        Eigen::VectorXd x(1);
        x << v;
        return ParamVector(x);
    };
    Ptr<FlLearningTracker> t = CreateObject<FlLearningTracker>();
    t->SetNetwork(2, Eigen::VectorXd::Zero(1), nullptr);
    std::vector<NetworkIterationReport> seen;
    std::vector<std::vector<double>> models;
    std::vector<std::vector<double>> aggregates;
    t->SetIterationCallback([&](const NetworkIterationReport& r) {
        seen.push_back(r);
        models.push_back({(*r.models)[0].At(0), (*r.models)[1].At(0)});
        aggregates.push_back({(*r.aggregates)[0].At(0), (*r.aggregates)[1].At(0)});
    });
    uint32_t traced = 0;
    t->TraceConnectWithoutContext(
        "NetworkIteration",
        MakeBoundCallback(+[](uint32_t* n, const NetworkIterationReport&) { ++*n; }, &traced));
    const ParamVector w00 = vec(1), w10 = vec(3), w01 = vec(2), w11 = vec(4), psi01 = vec(0);
    const ParamVector w02 = vec(5);
    t->RecordNetwork(0, NetworkReport(0, w00));
    EXPECT_TRUE(seen.empty());
    t->RecordNetwork(1, NetworkReport(0, w10));
    ASSERT_EQ(seen.size(), 1u);
    FlModelReport r11 = NetworkReport(1, w11);
    r11.missingNeighbours = 2;
    t->RecordNetwork(1, r11);
    t->RecordNetwork(1, NetworkReport(1, w00)); // a duplicate: dropped and counted
    FlModelReport r02 = NetworkReport(2, w02);
    t->RecordNetwork(0, r02); // iteration 2 pends until node 1 finished it
    EXPECT_EQ(seen.size(), 1u);
    FlModelReport r01 = NetworkReport(1, w01);
    r01.aggregate = &psi01;
    r01.missingNeighbours = 1;
    r01.droppedClients = 1;
    t->RecordNetwork(0, r01);
    ASSERT_EQ(seen.size(), 2u);
    EXPECT_EQ(traced, 2u);
    EXPECT_EQ(t->CompletedIterations(), 1u);
    EXPECT_EQ(t->GetLateReports(), 1u);

    EXPECT_EQ(seen[0].iteration, 0u);
    EXPECT_NEAR(seen[0].centroidMsd, 4.0, 1e-12);
    EXPECT_NEAR(seen[0].averageMsd, 5.0, 1e-12);
    EXPECT_NEAR(seen[0].disagreement, 1.0, 1e-12);
    EXPECT_EQ(seen[0].lostMessages, 0u);
    EXPECT_EQ(aggregates[0], (std::vector<double>{1.0, 3.0}));

    EXPECT_EQ(seen[1].iteration, 1u);
    EXPECT_EQ(models[1], (std::vector<double>{2.0, 4.0}));
    EXPECT_EQ(aggregates[1], (std::vector<double>{0.0, 4.0}));
    EXPECT_NEAR(seen[1].centroidMsd, 9.0, 1e-12);
    EXPECT_NEAR(seen[1].averageMsd, 10.0, 1e-12);
    EXPECT_NEAR(seen[1].disagreement, 1.0, 1e-12);
    EXPECT_EQ(seen[1].lostMessages, 3u);
    EXPECT_EQ(seen[1].droppedClients, 1u);
    EXPECT_DOUBLE_EQ(seen[1].epsilonOneLink, 0.0);

    const fl::NetworkRunResult& res = t->NetworkResult();
    ASSERT_EQ(res.models.size(), 2u);
    EXPECT_EQ(res.models[0].At(0), 2.0);
    EXPECT_NEAR(res.centroid.At(0), 3.0, 1e-12);
    EXPECT_EQ(res.lostMessages, 3u);
    EXPECT_EQ(res.droppedClients, 1u);
}

TEST(GflNetwork, TrackerNetworkViewRejectsAMismatchedNetwork)
{
    Ptr<FlLearningTracker> t = CreateObject<FlLearningTracker>();
    EXPECT_DEATH(t->SetNetwork(0, Eigen::VectorXd(), nullptr), "a network of 0 nodes; give N >= 1");
    t->SetNetwork(2, Eigen::VectorXd(), nullptr);
    EXPECT_DEATH(t->InstallNetwork({}),
                 "0 applications for a network of 2 nodes .SetNetwork.; give one application "
                 "per node");
    const ParamVector w = ParamVector::Zeros(Precision::Float64, 1);
    EXPECT_DEATH(t->RecordNetwork(2, NetworkReport(0, w)),
                 "node 2 of a network of 2 nodes; call SetNetwork with N first");
}

TEST(GflNetwork, SceneRejectsUnknownServerLinksAndBadMeshSpacing)
{
    FlGraphSceneHelper h;
    EXPECT_DEATH(h.SetServerLinks("wifi"),
                 "server links \"wifi\" are not a link kind \\(use p2p or mesh\\)");
    EXPECT_DEATH(h.SetMeshSpacing(0.0),
                 "mesh spacing 0 m is not a distance; give a finite value > 0 m");
    EXPECT_DEATH(h.SetMeshSpacing(std::nan("")), "give a finite value > 0 m");
}

TEST(GflNetwork, LossyUdpLinksTriggerThePolicyAndBreakTheCancellation)
{
    const Fixture f = MakeRegressionFixture(12, 40, 0.1, 13);
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

TEST(GflNetwork, SecureAggregationAndDropoutEqualInProcessBitForBit)
{
    // Secure aggregation (SecAggServerStep / SecAggClientStep, every protocol message a packet)
    // decodes the fixed-point sum of the survivors' encodings exactly, and the in-process runner
    // computes that same sum (GflSecureAverage), so the network run equals the in-process run bit
    // for bit, in both key modes, with and without dropouts (a dropped client advertises no keys;
    // below t = 2 of L = 3 the round aborts and the server keeps w_{p,i-1}, in both modes).
    const Fixture f = MakeRegressionFixture(12, 40, 0.1, 19);

    struct Case
    {
        bool secure;
        double dropout;
        GflUplink uplink;
        const char* keys;
    };

    for (const Case& k : {Case{true, 0.0, GflUplink::Models, "random"},
                          Case{true, 0.0, GflUplink::Models, "reproducible"},
                          Case{true, 0.35, GflUplink::Models, "random"},
                          Case{true, 0.35, GflUplink::Updates, "reproducible"},
                          Case{false, 0.35, GflUplink::Models, "random"}})
    {
        GflConfig c = SmallGfl(f, 19);
        c.secureAggregation = k.secure;
        c.dropoutProbability = k.dropout;
        c.uplink = k.uplink;
        // t = 2 of L = 3 (no colluder tolerated) so that rounds with one dropout still decode;
        // the default floor(2L/3) + 1 = 3 would abort them all
        c.secureThreshold = 2;
        std::vector<NetworkIterationReport> refReports;
        std::vector<NetworkIterationReport> netReports;
        const auto ref = RunInProcessGfl(f, c, &refReports);
        SecureTotals counters;
        NetHooks hooks;
        hooks.beforeInstall = [&k](FlGflHelper& gfl) {
            gfl.SecureAggregation().SetAttribute("KeyMode", StringValue(k.keys));
        };
        hooks.afterRun = [&counters](FlGflHelper& gfl) { counters = SumSecure(gfl); };
        const auto net = RunNetworkGfl(f, c, "tcp", "csma", &netReports, 0.0, hooks);
        SCOPED_TRACE(std::string(k.secure ? "secure" : "plain") + ", dropout " +
                     std::to_string(k.dropout) + ", " + GflUplinkName(k.uplink) + ", keys " +
                     k.keys);
        ExpectBitForBit(net, ref);
        ExpectSameReports(netReports, refReports);
        std::size_t dropped = 0;
        for (std::size_t i = 0; i < refReports.size(); ++i)
        {
            EXPECT_EQ(netReports[i].droppedClients, refReports[i].droppedClients)
                << "iteration " << i;
            dropped += refReports[i].droppedClients;

        }
        std::cout << "dropped clients: " << dropped << "; secure rounds " << counters.completed
                  << " decoded, " << counters.aborted << " aborted below t" << std::endl;
        EXPECT_EQ(counters.malformed + counters.rejected, 0U);
        EXPECT_EQ(counters.droppedClients, dropped);
        if (k.dropout > 0.0)
        {
            // 6 iterations x 3 servers x 3 sampled at P(drop) = 0.35: dropouts happen (seeded)
            EXPECT_GT(dropped, 0U);
        }
        if (k.secure)
        {
            EXPECT_EQ(counters.rounds, 3U * c.iterations);
            EXPECT_EQ(counters.completed + counters.aborted, 3U * c.iterations);
            EXPECT_EQ(counters.timeouts, 0U); // a dropout is silent before the protocol starts
            if (k.dropout == 0.0)
            {
                EXPECT_EQ(counters.aborted, 0U);
            }
        }
    }
}

TEST(GflNetwork, NeitherTheUploadNorItsPlainEncodingIsOnTheWire)
{
    const Fixture f = MakeRegressionFixture(12, 40, 0.1, 23);
    GflConfig c = SmallGfl(f, 23);
    c.iterations = 1;
    c.secureAggregation = true;
    c.clientNoise = NodeNoiseConfig{}; // the plaintext upload is then the trained model
    // What client k of server 0 uploads in iteration 1, recomputed with the pure functions.
    const uint32_t K = 4;
    const std::vector<uint32_t> sampled =
        GflSampleClients(K, c.sampledClients, GflServerSeed(c.seed, 0), 1);
    const uint32_t k = sampled.front();
    Rng initRng(InitialModelSeed(c.seed));
    const ParamVector w0 = f.task->InitialParameters(initRng);
    const GflClientResult step =
        GflClientStep(*f.task,
                      k,
                      w0,
                      GflTrainerConfig(c.mu, c.work.localSteps[k], c.work.batchSizes[k], 0.0),
                      c.uplink,
                      c.mu,
                      nullptr,
                      0,
                      GflClientSeed(c.seed, 0, k),
                      1);
    std::vector<uint64_t> plainWords;
    EncodeFixedPoint(step.upload.Get<double>(), c.maskFractionBits, sampled.size(), plainWords);
    std::vector<uint8_t> plainBytes;
    for (uint64_t w : plainWords)
    {
        for (int b = 0; b < 8; ++b)
        {
            plainBytes.push_back(static_cast<uint8_t>(w >> (8 * b)));
        }
    }

    auto capture = std::make_shared<TcpCapture>();
    Ipv4Address clientAddress;
    NetHooks hooks;
    hooks.afterInstall = [&](FlGflHelper&, FlGraphScene& scene) {
        clientAddress = scene.cells[0].Get(k)->GetObject<Ipv4>()->GetAddress(1, 0).GetLocal();
        scene.servers.Get(0)->GetObject<Ipv4L3Protocol>()->TraceConnectWithoutContext(
            "Rx",
            MakeCallback(&TcpCapture::Rx, capture.get()));
    };
    SecureTotals counters;
    hooks.afterRun = [&counters](FlGflHelper& gfl) { counters = SumSecure(gfl); };
    RunNetworkGfl(f, c, "tcp", "csma", nullptr, 0.0, hooks);
    const std::vector<uint8_t>& stream = capture->streams[clientAddress];
    std::cout << "client " << k << " sent " << stream.size() << " TCP payload bytes to server 0"
              << std::endl;
    EXPECT_EQ(counters.completed, 3U);
    // the protocol's masked input went out (its header magic is on the wire) ...
    EXPECT_TRUE(Contains(stream, {'F', 'L', 'S', 'A'}));
    // ... and neither the plaintext model (float64) nor its unmasked fixed-point encoding did
    EXPECT_FALSE(Contains(stream, BytesOf(step.upload.Get<double>())));
    EXPECT_FALSE(Contains(stream, plainBytes));
}

TEST(GflNetwork, ASilentClientIsNotInTheSumAndTheRoundStillDecodes)
{
    // A dropout the network decides (a sampled client silent in iteration 2, the server closing
    // the round at its deadline): the two others are >= t = 2 (set: of L = 3 it tolerates one
    // dropout and no colluder; the default floor(2L/3) + 1 = 3 tolerates no dropout), so the
    // round decodes their sum.
    // The secure run equals the plain run with the same silence up to the fixed-point rounding:
    // each survivor's upload is rounded to 2^-(f+1) = 2^-41 per entry, so psi moves by at most
    // 2^-41 ~ 4.5e-13 per iteration; the combination is convex and a ridge SGD step with
    // mu = 0.5 on these data is non-expansive, so after 6 iterations the models differ by
    // < 6 x 4.5e-13 ~ 3e-12 (asserted with margin: 1e-10).
    const Fixture f = MakeRegressionFixture(12, 40, 0.1, 29);
    GflConfig c = SmallGfl(f, 29);
    const std::vector<uint32_t> sampled =
        GflSampleClients(4, c.sampledClients, GflServerSeed(c.seed, 0), 2);
    const uint32_t silent = sampled.front();
    std::vector<std::vector<ParamVector>> runs[2];
    SecureTotals counters;
    c.secureThreshold = 2;
    for (bool secure : {false, true})
    {
        c.secureAggregation = secure;
        std::vector<NetworkIterationReport> reports;
        NetHooks hooks;
        hooks.beforeInstall = [](FlGflHelper& gfl) { gfl.SetRoundDeadline(Seconds(5)); };
        hooks.afterInstall = [silent](FlGflHelper& gfl, FlGraphScene&) {
            gfl.Clients().at(silent)->SetAttribute("SilentRounds", StringValue("2"));
        };
        hooks.afterRun = [&counters](FlGflHelper& gfl) { counters = SumSecure(gfl); };
        runs[secure ? 1 : 0] = RunNetworkGfl(f, c, "tcp", "csma", &reports, 0.0, hooks);
        ASSERT_EQ(reports.size(), c.iterations + 1U);
        EXPECT_EQ(reports[2].droppedClients, 1U);
    }
    EXPECT_EQ(counters.completed, 3U * c.iterations);
    EXPECT_EQ(counters.aborted, 0U);
    EXPECT_EQ(counters.droppedClients, 1U);
    ASSERT_EQ(runs[0].size(), runs[1].size());
    double maxDiff = 0.0;
    for (std::size_t i = 0; i < runs[0].size(); ++i)
    {
        for (std::size_t p = 0; p < runs[0][i].size(); ++p)
        {
            maxDiff = std::max(maxDiff,
                               (runs[0][i][p].Get<double>() - runs[1][i][p].Get<double>())
                                   .lpNorm<Eigen::Infinity>());
        }
    }
    std::cout << "secure vs plain with a silent client: max |difference| " << maxDiff << std::endl;
    EXPECT_LT(maxDiff, 1e-10);
}

TEST(GflNetwork, AClientLeavingMidProtocolAbortsTheRoundWithoutHanging)
{
    // Iteration 2 of server 0: client A stays silent (a dropout), client B uploads its keys and
    // then leaves (LeaveTime 2 s, inside the 5 s deadline wait), so only the third client is left
    // to share keys: fewer than t = 2. The phase closes at the step's Timeout, the round aborts
    // (psi = w_{p,i-1}, every sampled client counted as dropped) and the run goes on to its last
    // iteration.
    const Fixture f = MakeRegressionFixture(12, 40, 0.1, 31);
    GflConfig c = SmallGfl(f, 31);
    c.secureAggregation = true;
    c.secureThreshold = 2; // of L = 3: one dropout tolerated
    const std::vector<uint32_t> sampled =
        GflSampleClients(4, c.sampledClients, GflServerSeed(c.seed, 0), 2);
    ASSERT_EQ(sampled.size(), 3U);
    const uint32_t silent = sampled[0];
    const uint32_t leaver = sampled[1];
    SecureTotals counters;
    std::vector<NetworkIterationReport> reports;
    NetHooks hooks;
    hooks.beforeInstall = [](FlGflHelper& gfl) {
        gfl.SetRoundDeadline(Seconds(5));
        gfl.SecureAggregation().SetServerAttribute("Timeout", TimeValue(Seconds(2)));
    };
    hooks.afterInstall = [&](FlGflHelper& gfl, FlGraphScene&) {
        gfl.Clients().at(silent)->SetAttribute("SilentRounds", StringValue("2"));
        gfl.Clients().at(leaver)->SetAttribute("LeaveTime", TimeValue(Seconds(2)));
    };
    hooks.afterRun = [&counters](FlGflHelper& gfl) { counters = SumSecure(gfl); };
    RunNetworkGfl(f, c, "tcp", "csma", &reports, 0.0, hooks);
    ASSERT_EQ(reports.size(), c.iterations + 1U);
    // Iteration 2 aborts for want of t; once B has left, server 0 can sample only 2 clients,
    // fewer than the smallest roster its clients take part in (MinClients = L = 3): iterations
    // 4 to 6 abort before anything is sent (a smaller roster would weaken the guarantee).
    EXPECT_EQ(counters.aborted, 4U);
    EXPECT_GE(counters.timeouts, 1U);
    EXPECT_EQ(reports[2].droppedClients, 3U); // no upload of server 0 counted in iteration 2
    EXPECT_EQ(counters.malformed + counters.rejected, 0U);
}
