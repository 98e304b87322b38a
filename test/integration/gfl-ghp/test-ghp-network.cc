/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * GHP diffusion over ns-3 links (network mode): a lossless run over Wi-Fi ad hoc unicast or a
 * CSMA or Wi-Fi broadcast equals the in-process run with the same seeds bit for bit; lost
 * broadcasts trigger the policy and are counted per link; one frame per release.
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

} // namespace

TEST(DiffusionNetwork, LosslessWifiAdhocUnicastRunEqualsInProcessBitForBit)
{
    const std::size_t K = 5;
    const Fixture f = MakeRegressionFixture(K, 40, 0.1, 17);
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
    std::vector<NetworkIterationReport> refReports;
    auto keep = [](std::vector<NetworkIterationReport>& reports, const NetworkIterationReport& r) {
        reports.push_back(r);
        reports.back().models = nullptr;
        reports.back().aggregates = nullptr;
        reports.back().centroid = nullptr;
    };
    RunDiffusionInProcess(*f.task, c, [&](const NetworkIterationReport& r) {
        ref.push_back(*r.models);
        keep(refReports, r);
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
    diffusion.SetTransport("tcp"); // unicast: one acknowledged copy per neighbour, lossless
    std::vector<std::vector<ParamVector>> net;
    std::vector<NetworkIterationReport> netReports;
    diffusion.SetIterationCallback([&](const NetworkIterationReport& r) {
        net.push_back(*r.models);
        keep(netReports, r);
    });
    // the tracker's NetworkIteration trace carries the same reports as the callback
    std::vector<NetworkIterationReport> traced;
    diffusion.Tracker()->TraceConnectWithoutContext(
        "NetworkIteration",
        MakeBoundCallback(
            +[](std::vector<NetworkIterationReport>* out, const NetworkIterationReport& r) {
                out->push_back(r);
            },
            &traced));
    diffusion.Install(nodes, addresses);
    Simulator::Stop(Seconds(600));
    Simulator::Run();
    EXPECT_EQ(diffusion.Tracker()->CompletedIterations(), c.iterations);
    EXPECT_EQ(diffusion.Tracker()->NetworkResult().models, net.back());
    Simulator::Destroy();
    ExpectBitForBit(net, ref);
    ExpectSameReports(netReports, refReports);
    ASSERT_EQ(traced.size(), netReports.size());
    for (std::size_t i = 0; i < traced.size(); ++i)
    {
        EXPECT_EQ(traced[i].iteration, netReports[i].iteration);
        EXPECT_EQ(traced[i].disagreement, netReports[i].disagreement);
    }
}

// ------------------------------------------------------------------ GHP over link-layer broadcast

namespace
{

/// A small GHP configuration on a K-agent Erdos-Renyi graph that is not complete.
DiffusionConfig
SmallDiffusion(const Fixture& f, std::size_t K, uint64_t seed)
{
    DiffusionConfig c;
    Rng g(seed);
    ConnectivityRequirement req;
    req.connected = true;
    c.combination = MetropolisWeights(ErdosRenyiGraph(K, 0.5, g, req));
    c.mu = 0.1;
    c.batchSize = 2;
    c.iterations = 5;
    c.seed = seed;
    c.reference = f.wOpt;
    c.noise = NodeNoiseConfig{NodeNoiseKind::GraphHomomorphic, NoiseDistribution::Laplace, 0.3};
    return c;
}

/// What a broadcast diffusion run left behind.
struct BroadcastRun
{
    std::vector<std::vector<ParamVector>> models;               ///< per iteration, w_k
    std::vector<std::vector<ParamVector>> aggregates;           ///< per iteration, phi_k
    std::vector<NetworkIterationReport> reports;                ///< pointers cleared
    std::map<std::pair<uint32_t, uint32_t>, uint64_t> lossesAt; ///< (i, k) -> lost messages
    std::vector<FlGraphExchangeStats> exchange;                 ///< per agent
    std::vector<FlTransportStats> transport;                    ///< per agent
    std::vector<FlDatagramStats> datagram;                      ///< per agent
    uint64_t phyTx{0};                                          ///< Wi-Fi PHY transmissions
    uint32_t completed{0};
};

/// Runs diffusion with the given transport on a CSMA LAN (receive error rate `loss` on every
/// device) or on the Wi-Fi ad hoc scene.
BroadcastRun
RunDiffusionNetwork(const Fixture& f,
                    const DiffusionConfig& c,
                    const std::string& scene,
                    const std::string& transport,
                    double loss = 0.0,
                    bool injectGarbage = false)
{
    const auto K = static_cast<uint32_t>(c.combination.rows());
    FlScene s;
    if (scene == "csma")
    {
        s = FlCsmaSceneHelper().Build(K - 1);
        for (uint32_t d = 0; loss > 0.0 && d < s.devices.GetN(); ++d)
        {
            Ptr<RateErrorModel> em = CreateObject<RateErrorModel>();
            em->SetAttribute("ErrorUnit", StringValue("ERROR_UNIT_PACKET"));
            em->SetAttribute("ErrorRate", DoubleValue(loss));
            em->AssignStreams(300 + d);
            s.devices.Get(d)->SetAttribute("ReceiveErrorModel", PointerValue(em));
        }
    }
    else
    {
        s = FlWifiAdhocSceneHelper().Build(K - 1);
    }
    BroadcastRun run;
    Config::ConnectWithoutContextFailSafe(
        "/NodeList/*/DeviceList/*/$ns3::WifiNetDevice/Phy/PhyTxBegin",
        MakeBoundCallback(
            +[](uint64_t* n, Ptr<const Packet>, double) { ++*n; },
            &run.phyTx));
    NodeContainer nodes(s.serverNode);
    nodes.Add(s.clients);
    std::vector<Ipv4Address> addresses{s.serverAddress};
    for (uint32_t k = 0; k + 1 < K; ++k)
    {
        addresses.push_back(s.clientInterfaces.GetAddress(k));
    }
    DiffusionHelper diffusion(f.task, c);
    diffusion.SetTransport(transport);
    diffusion.SetIterationCallback([&run](const NetworkIterationReport& r) {
        run.models.push_back(*r.models);
        run.aggregates.push_back(r.aggregates ? *r.aggregates : std::vector<ParamVector>());
        run.reports.push_back(r);
        run.reports.back().models = nullptr;
        run.reports.back().aggregates = nullptr;
        run.reports.back().centroid = nullptr;
    });
    diffusion.SetLinkLossCallback([&run](uint32_t i, uint32_t, uint32_t k) {
        ++run.lossesAt[{i, k}];
    });
    auto agents = diffusion.Install(nodes, addresses);
    Ptr<Socket> garbage;
    if (injectGarbage)
    {
        // one malformed datagram broadcast to the agents' port by node 0 at 0.15 s
        garbage = Socket::CreateSocket(nodes.Get(0), UdpSocketFactory::GetTypeId());
        garbage->SetAllowBroadcast(true);
        garbage->Bind();
        const Ipv4Address bcast = nodes.Get(0)->GetObject<Ipv4>()->GetAddress(1, 0).GetBroadcast();
        FlSchedule(Seconds(0.15), [garbage, bcast]() {
            std::vector<uint8_t> junk(64);
            for (std::size_t b = 0; b < junk.size(); ++b)
            {
                junk[b] = static_cast<uint8_t>(37 * b + 11);
            }
            garbage->SendTo(Create<Packet>(junk.data(), junk.size()),
                            0,
                            InetSocketAddress(bcast, 9200));
        });
    }
    Simulator::Stop(Seconds(600));
    Simulator::Run();
    run.completed = diffusion.Tracker()->CompletedIterations();
    for (auto& a : agents)
    {
        run.exchange.push_back(*a->GetExchangeStats());
        run.transport.push_back(a->GetTransport()->Stats());
        run.datagram.push_back(a->GetTransport()->DatagramStats());
    }
    Simulator::Destroy();
    return run;
}

/// Graph neighbours of k (l != k with a_lk > 0).
std::size_t
Degree(const Eigen::MatrixXd& A, Eigen::Index k)
{
    std::size_t d = 0;
    for (Eigen::Index l = 0; l < A.rows(); ++l)
    {
        d += (l != k && A(l, k) > 0.0) ? 1 : 0;
    }
    return d;
}

} // namespace

TEST(DiffusionNetwork, LosslessCsmaBroadcastEqualsInProcessBitForBit)
{
    // CSMA never loses a frame: one broadcast per release reaches every agent, so the run is the
    // in-process one, bit for bit; every agent sends exactly one message per iteration (no
    // per-neighbour copies) and ignores, counting them, the broadcasts of non-neighbours.
    const std::size_t K = 6;
    const Fixture f = MakeRegressionFixture(K, 40, 0.1, 19);
    const DiffusionConfig c = SmallDiffusion(f, K, 19);
    std::vector<std::vector<ParamVector>> ref;
    RunDiffusionInProcess(*f.task, c, [&](const NetworkIterationReport& r) {
        ref.push_back(*r.models);
    });
    // plus one malformed datagram broadcast to every agent: dropped and counted, nothing else
    const BroadcastRun net = RunDiffusionNetwork(f, c, "csma", "broadcast", 0.0, true);
    EXPECT_EQ(net.completed, c.iterations);
    ExpectBitForBit(net.models, ref);
    for (std::size_t k = 0; k < K; ++k)
    {
        EXPECT_EQ(net.datagram[k].chunksMalformed, k == 0 ? 0U : 1U) << "agent " << k;
    }
    EXPECT_GT((ref.back()[0].Get<double>() - ref.front()[0].Get<double>()).norm(), 1e-3);
    uint64_t ignoredTotal = 0;
    for (std::size_t k = 0; k < K; ++k)
    {
        const auto& ex = net.exchange[k];
        EXPECT_EQ(ex.messagesSent, c.iterations) << "agent " << k;
        EXPECT_EQ(ex.broadcasts, c.iterations) << "agent " << k;
        EXPECT_EQ(net.transport[k].messagesSent, c.iterations) << "agent " << k;
        EXPECT_EQ(net.datagram[k].chunksSent, c.iterations) << "agent " << k; // one chunk each
        EXPECT_EQ(ex.missing, 0U);
        EXPECT_EQ(ex.messagesReceived, Degree(c.combination, k) * c.iterations);
        // every other agent's broadcasts reach k: the non-neighbours' are counted and ignored
        EXPECT_EQ(ex.notNeighbor, (K - 1 - Degree(c.combination, k)) * c.iterations)
            << "agent " << k;
        ignoredTotal += ex.notNeighbor;
    }
    EXPECT_GT(ignoredTotal, 0U); // the graph is not complete: the check above is not vacuous
    for (const auto& r : net.reports)
    {
        EXPECT_LT(r.centroidDrift, 1e-12); // graph-homomorphic noise cancels in the centroid
    }
}

TEST(DiffusionNetwork, LostBroadcastsTriggerThePolicyAndAreCountedPerLink)
{
    // 25 % of the frames every CSMA device receives are dropped: broadcasts have no
    // retransmission, so agents combine at the timeout without some neighbours. Under Skip an
    // agent that missed a message keeps its own adapted iterate (w_k = phi_k) and one that
    // missed none combines (w_k != phi_k); every loss is reported once per (link, iteration).
    const std::size_t K = 6;
    const Fixture f = MakeRegressionFixture(K, 40, 0.1, 23);
    DiffusionConfig c = SmallDiffusion(f, K, 23);
    c.iterations = 8;
    c.missingPolicy = MissingMessagePolicy::Skip;
    const BroadcastRun net = RunDiffusionNetwork(f, c, "csma", "broadcast", 0.25);
    ASSERT_EQ(net.completed, c.iterations);
    uint64_t lostReported = 0;
    uint64_t lostByLink = 0;
    uint64_t lostByExchange = 0;
    for (const auto& kv : net.lossesAt)
    {
        lostReported += kv.second;
    }
    for (const auto& ex : net.exchange)
    {
        lostByExchange += ex.missing;
        for (uint64_t m : ex.missingFrom)
        {
            lostByLink += m;
        }
    }
    uint64_t lostInReports = 0;
    double driftLost = 0.0;
    for (const auto& r : net.reports)
    {
        lostInReports += r.lostMessages;
        if (r.lostMessages > 0)
        {
            driftLost = std::max(driftLost, r.centroidDrift);
        }
    }
    std::cout << "lossy broadcast: " << lostReported << " lost messages in " << c.iterations
              << " iterations; max centroid drift with losses " << driftLost << std::endl;
    EXPECT_GT(lostReported, 0U);
    EXPECT_EQ(lostReported, lostByLink);
    EXPECT_EQ(lostReported, lostByExchange);
    EXPECT_EQ(lostReported, lostInReports);
    EXPECT_GT(driftLost, 1e-9); // a lost graph-homomorphic message breaks the cancellation
    std::size_t skipped = 0;
    std::size_t combined = 0;
    for (uint32_t i = 1; i <= c.iterations; ++i)
    {
        for (uint32_t k = 0; k < K; ++k)
        {
            const Eigen::VectorXd& w = net.models[i][k].Get<double>();
            const Eigen::VectorXd& phi = net.aggregates[i][k].Get<double>();
            if (net.lossesAt.count({i, k}) != 0)
            {
                EXPECT_EQ(w, phi) << "iteration " << i << " agent " << k;
                ++skipped;
            }
            else
            {
                EXPECT_NE(w, phi) << "iteration " << i << " agent " << k;
                ++combined;
            }
        }
    }
    EXPECT_GT(skipped, 0U);
    EXPECT_GT(combined, 0U);
}

TEST(DiffusionNetwork, WifiBroadcastIsOneFramePerReleaseUnicastIsNot)
{
    // Over 802.11 ad hoc a release is one PHY frame (no copies, no ACKs, no retries): K agents
    // and T iterations give exactly K T transmissions. Unicast UDP sends a frame per neighbour
    // plus the ACKs. Broadcast losses (collisions) are possible here; the timeout combines anyway.
    const std::size_t K = 5;
    const Fixture f = MakeRegressionFixture(K, 40, 0.1, 29);
    DiffusionConfig c = SmallDiffusion(f, K, 29);
    c.iterations = 4;
    const BroadcastRun b = RunDiffusionNetwork(f, c, "wifi", "broadcast");
    EXPECT_EQ(b.completed, c.iterations);
    EXPECT_EQ(b.phyTx, K * c.iterations);
    std::size_t links = 0;
    for (std::size_t k = 0; k < K; ++k)
    {
        links += Degree(c.combination, k);
    }
    const BroadcastRun u = RunDiffusionNetwork(f, c, "wifi", "udp");
    EXPECT_EQ(u.completed, c.iterations);
    EXPECT_GE(u.phyTx, 2 * links * c.iterations); // a data frame and an ACK per link at least
    std::cout << "Wi-Fi PHY frames for " << c.iterations << " iterations: broadcast " << b.phyTx
              << ", unicast " << u.phyTx << " (" << links << " directed links)" << std::endl;
}

TEST(DiffusionNetwork, BroadcastTransportRejectsTcpAndFeedbackPolicies)
{
    FlTransportConfig c;
    c.kind = FlTransportKind::Tcp;
    c.broadcastAddress = Ipv4Address("10.1.255.255");
    EXPECT_THROW(FlTransport::Create(Ptr<Node>(), 0, c), ConfigError);
    c.kind = FlTransportKind::Udp;
    c.datagram.holePolicy = FlHolePolicy::Retransmit;
    EXPECT_THROW(FlTransport::Create(Ptr<Node>(), 0, c), ConfigError);
    c.datagram.holePolicy = FlHolePolicy::Drop;
    EXPECT_NO_THROW(FlTransport::Create(Ptr<Node>(), 0, c));
}
