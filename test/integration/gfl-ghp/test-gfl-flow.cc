/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * GFL over the flow-level network (FlGraphSceneHelper in flow fidelity): the scene has the
 * addresses of the packet scene and no devices, a lossless flow run learns the same models as
 * the packet run bit for bit (the learning does not depend on timing without loss), its
 * iterations last about as long, the global value FlGraphFidelity selects it, and a run
 * beyond the validated sizes is warned about.
 */

#include "fl-test-gfl-fixture.h"

#include "ns3/core-module.h"
#include "ns3/gfl-helper.h"
#include "ns3/gfl.h"
#include "ns3/linear-models.h"
#include "ns3/processor-sharing.h"
#include "ns3/synthetic-data.h"

#include <algorithm>
#include <cmath>
#include <gtest/gtest.h>
#include <string>
#include <vector>

using namespace ns3;
using namespace ns3::fl;

namespace
{

/// A GFL regression task of `agents` clients of dimension `dim` (100 samples each).
std::shared_ptr<SupervisedTask<double>>
MakeTask(std::size_t agents, std::size_t dim, Eigen::VectorXd* wOpt)
{
    RegressionTaskConfig rc;
    rc.dim = dim;
    rc.agents = agents;
    rc.samplesPerAgent = 100;
    Rng rng(11);
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
    *wOpt = RidgeOptimum(ptrs, 0.1);
    return std::make_shared<SupervisedTask<double>>(
        std::make_shared<RidgeRegression<double>>(dim, 0.1),
        LocalTrainerConfig{},
        std::move(parts),
        Dataset<double>{});
}

/// The small scene of the tests: 3 servers (the hand cases' graph), K clients, L sampled.
GflConfig
SmallConfig(const Eigen::VectorXd& wOpt, uint32_t K, uint32_t L, uint32_t iterations)
{
    GflConfig c;
    c.combination = fltest::ThreeServerCombination();
    c.clientsPerServer = K;
    c.sampledClients = L;
    c.mu = 0.7;
    c.work = DrawGflLocalWork(3 * K, 1, 10, 5, 10, DeriveSeed(5, 3));
    c.iterations = iterations;
    c.seed = 5;
    c.reference = wOpt;
    c.serverNoise =
        NodeNoiseConfig{NodeNoiseKind::GraphHomomorphic, NoiseDistribution::Laplace, 0.2};
    c.clientNoise = NodeNoiseConfig{NodeNoiseKind::IidPerLink, NoiseDistribution::Laplace, 0.05};
    return c;
}

/// What a run gave: models per iteration, when each iteration ended, the flow warnings.
struct GflRunResult
{
    std::vector<std::vector<ParamVector>> models;
    std::vector<double> endS;
    std::vector<std::string> warnings;
    std::size_t peakCell{0};
};

GflRunResult
RunGfl(std::shared_ptr<SupervisedTask<double>> task,
       const GflConfig& c,
       FlFidelity fidelity,
       const std::string& cell = "wifi")
{
    GflRunResult run;
    FlGraphSceneHelper h;
    h.SetFidelity(fidelity);
    h.SetCell(cell);
    h.SetCellAssociationStagger(MilliSeconds(1));
    FlGraphScene scene = h.Build(c.combination, static_cast<uint32_t>(c.clientsPerServer));
    FlGflHelper gfl(task, c);
    gfl.SetClientStartStagger(MilliSeconds(2));
    gfl.SetIterationCallback([&run](const NetworkIterationReport& r) {
        run.models.push_back(*r.models);
        run.endS.push_back(Simulator::Now().GetSeconds());
    });
    gfl.Install(scene);
    Simulator::Stop(Seconds(600));
    Simulator::Run();
    EXPECT_EQ(gfl.Tracker()->CompletedIterations(), c.iterations);
    if (scene.flowNetwork)
    {
        run.warnings = scene.flowNetwork->ValidityWarnings();
        run.peakCell = scene.flowNetwork->PeakInFlight(cell);
    }
    Simulator::Destroy();
    return run;
}

/// Mean duration of iterations 2.. [s] (endS[0] is iteration 0, at Install).
double
MeanIteration(const GflRunResult& r)
{
    return (r.endS.back() - r.endS[1]) / static_cast<double>(r.endS.size() - 2);
}

bool
AnyContains(const std::vector<std::string>& lines, const std::string& what)
{
    return std::any_of(lines.begin(), lines.end(), [&what](const std::string& l) {
        return l.find(what) != std::string::npos;
    });
}

} // namespace

TEST(GflFlow, MessageAirtimeMatchesHandComputedValue)
{
    // 3 packets of a 3000-byte message with 92 header bytes each: 3276 bytes at 54 Mb/s x 0.6
    // = 26208 / 32.4e6 s = 808.888... us, plus 3 x 120 us
    EXPECT_NEAR(FlowMessageAirtime(3276.0, 54e6, 0.6, 3.0, 120e-6),
                26208.0 / 32.4e6 + 360e-6,
                1e-12);
    EXPECT_NEAR(FlowMessageAirtime(3276.0, 54e6, 0.6, 3.0, 120e-6), 1168.8888888888889e-6, 1e-12);
    // no per-packet airtime: the bytes at the goodput only
    EXPECT_NEAR(FlowMessageAirtime(1500.0, 1e8, 1.0, 2.0, 0.0), 1.2e-4, 1e-12);
}

TEST(GflFlow, FlowSceneHasThePacketScenesAddressesAndNoDevices)
{
    const Eigen::MatrixXd A = fltest::ThreeServerCombination();
    FlGraphSceneHelper packetHelper;
    packetHelper.SetCell("wifi");
    FlGraphScene packet = packetHelper.Build(A, 5);
    const auto peers = packet.peerAddress;
    const auto cellServer = packet.cellServer;
    EXPECT_FALSE(packet.flowNetwork);
    EXPECT_GT(packet.cellDevices.GetN(), 0u);
    Simulator::Destroy();

    FlGraphSceneHelper flowHelper;
    flowHelper.SetCell("wifi");
    flowHelper.SetFidelity(FlFidelity::Flow);
    FlGraphScene flow = flowHelper.Build(A, 5);
    ASSERT_TRUE(flow.flowNetwork);
    EXPECT_EQ(flow.cellDevices.GetN(), 0u);
    EXPECT_EQ(flow.serverLinks.GetN(), 0u);
    EXPECT_EQ(flow.peerAddress, peers);
    EXPECT_EQ(flow.cellServer, cellServer);
    ASSERT_EQ(flow.cells.size(), 3u);
    for (uint32_t p = 0; p < 3; ++p)
    {
        ASSERT_EQ(flow.cells[p].GetN(), 5u);
        // client k of cell p: the packet scene's 10.10.p.(k + 2)
        const auto& ifaces = flow.flowNetwork->GetInterfaces(flow.cells[p].Get(4)->GetId());
        ASSERT_EQ(ifaces.size(), 1u);
        EXPECT_EQ(ifaces[0].address, Ipv4Address((10u << 24) | (10u << 16) | (p << 8) | 6u));
    }
    Simulator::Destroy();
}

TEST(GflFlow, LosslessFlowRunLearnsThePacketRunsModelsBitForBit)
{
    Eigen::VectorXd wOpt;
    auto task = MakeTask(15, 2, &wOpt);
    const GflConfig c = SmallConfig(wOpt, 5, 3, 5);
    const GflRunResult packet = RunGfl(task, c, FlFidelity::Packet);
    const GflRunResult flow = RunGfl(task, c, FlFidelity::Flow);
    ASSERT_EQ(packet.models.size(), c.iterations + 1u);
    ASSERT_EQ(flow.models.size(), packet.models.size());
    for (std::size_t i = 0; i < packet.models.size(); ++i)
    {
        for (std::size_t p = 0; p < 3; ++p)
        {
            EXPECT_EQ(flow.models[i][p], packet.models[i][p])
                << "iteration " << i << " server " << p;
        }
    }
    // the models moved, and the two runs did not share their timing
    EXPECT_NE(packet.models.back()[0], packet.models.front()[0]);
    EXPECT_NE(flow.endS.back(), packet.endS.back());
    // the in-process run agrees too
    std::vector<std::vector<ParamVector>> ref;
    RunGflInProcess(*task, c, [&ref](const NetworkIterationReport& r) {
        ref.push_back(*r.models);
    });
    ASSERT_EQ(ref.size(), flow.models.size());
    EXPECT_EQ(ref.back(), flow.models.back());
    // within the validated sizes: no warning
    EXPECT_TRUE(flow.warnings.empty()) << flow.warnings.front();
}

TEST(GflFlow, CsmaCellsLearnTheSameModelsAndAreFlaggedAsNotValidated)
{
    Eigen::VectorXd wOpt;
    auto task = MakeTask(15, 2, &wOpt);
    const GflConfig c = SmallConfig(wOpt, 5, 3, 3);
    const GflRunResult packet = RunGfl(task, c, FlFidelity::Packet, "csma");
    const GflRunResult flow = RunGfl(task, c, FlFidelity::Flow, "csma");
    EXPECT_EQ(flow.models, packet.models);
    EXPECT_TRUE(AnyContains(flow.warnings, "Wi-Fi cells only"));
}

TEST(GflFlow, IterationDurationIsWithinTenPercentOfPackets)
{
    // a size of the calibration set (3 cells of 20, L = 5) and one of the validation set's
    // shapes at a small size (3 cells of 10, L = 10: every client of a cell at once)
    Eigen::VectorXd wOpt;
    for (const auto& [K, L] : std::vector<std::pair<uint32_t, uint32_t>>{{20, 5}, {10, 10}})
    {
        auto task = MakeTask(3 * K, 2, &wOpt);
        const GflConfig c = SmallConfig(wOpt, K, L, 5);
        const double packet = MeanIteration(RunGfl(task, c, FlFidelity::Packet));
        const double flow = MeanIteration(RunGfl(task, c, FlFidelity::Flow));
        EXPECT_NEAR(flow / packet, 1.0, 0.10)
            << "K = " << K << ", L = " << L << ": packet " << packet << " s, flow " << flow << " s";
    }
}

TEST(GflFlow, GlobalValueSelectsTheFidelity)
{
    const Eigen::MatrixXd A = fltest::ThreeServerCombination();
    Config::SetGlobal("FlGraphFidelity", StringValue("flow"));
    {
        FlGraphSceneHelper h;
        h.SetCell("wifi");
        EXPECT_EQ(h.GetFidelity(), FlFidelity::Flow);
        FlGraphScene s = h.Build(A, 2);
        EXPECT_TRUE(s.flowNetwork);
        Simulator::Destroy();
    }
    Config::SetGlobal("FlGraphFidelity", StringValue("packets"));
    try
    {
        FlGraphSceneHelper h;
        ADD_FAILURE() << "a fidelity 'packets' was accepted";
    }
    catch (const ConfigError& e)
    {
        EXPECT_NE(std::string(e.what()).find("FlGraphFidelity"), std::string::npos) << e.what();
    }
    Config::SetGlobal("FlGraphFidelity", StringValue("packet"));
    FlGraphSceneHelper h;
    EXPECT_EQ(h.GetFidelity(), FlFidelity::Packet);
}

TEST(GflFlow, RejectsWhatTheFlowModelDoesNotHave)
{
    const Eigen::MatrixXd A = fltest::ThreeServerCombination();
    {
        FlGraphSceneHelper h;
        h.SetFidelity(FlFidelity::Flow);
        h.SetServerLinks("mesh");
        EXPECT_THROW(h.Build(A, 2), ConfigError);
    }
    {
        FlGraphSceneHelper h;
        h.SetFidelity(FlFidelity::Flow);
        h.SetPartition({0, 0, 1}, 0);
        EXPECT_THROW(h.Build(A, 2), ConfigError);
    }
    {
        FlGraphSceneHelper h;
        h.SetFidelity(FlFidelity::Flow);
        FlGraphScene s = h.Build(A, 2);
        EXPECT_THROW(FlSetServerLinkLoss(s, 0.1, 10), ConfigError);
        EXPECT_EQ(FlSetServerLinkLoss(s, 0.0, 10), 0);
        Simulator::Destroy();
    }
}

TEST(GflFlowDeathTest, UdpOnAFlowSceneStops)
{
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    Eigen::VectorXd wOpt;
    auto task = MakeTask(6, 2, &wOpt);
    const GflConfig c = SmallConfig(wOpt, 2, 1, 2);
    EXPECT_DEATH(
        {
            FlGraphSceneHelper h;
            h.SetFidelity(FlFidelity::Flow);
            FlGraphScene s = h.Build(c.combination, 2);
            FlGflHelper gfl(task, c);
            gfl.SetTransport("udp");
            gfl.Install(s);
        },
        "SetTransport.*use tcp");
}

TEST(GflFlow, WarnsBeyondTheValidatedSizes)
{
    Eigen::VectorXd wOpt;
    // more clients per cell than validated (one server, two iterations: cheap in flow)
    {
        const uint32_t K = FlGflFlowValidity::kMaxClientsPerCell + 1;
        auto task = MakeTask(K, 2, &wOpt);
        GflConfig c = SmallConfig(wOpt, K, 2, 2);
        c.combination = Eigen::MatrixXd::Ones(1, 1);
        c.serverNoise = NodeNoiseConfig{};
        c.work = DrawGflLocalWork(K, 1, 10, 5, 10, 3);
        testing::internal::CaptureStderr();
        const GflRunResult r = RunGfl(task, c, FlFidelity::Flow);
        const std::string err = testing::internal::GetCapturedStderr();
        EXPECT_TRUE(AnyContains(r.warnings, "stations per Wi-Fi cell")) << r.warnings.size();
        EXPECT_FALSE(AnyContains(r.warnings, "sampled"));
        // the helper prints them at the end of the run
        EXPECT_NE(err.find("FlGflHelper: warning: flow-level network: Wi-Fi cell 0: "),
                  std::string::npos)
            << err;
    }
    // more sampled clients per cell than validated
    {
        const uint32_t L = FlGflFlowValidity::kMaxSampledPerCell + 1;
        auto task = MakeTask(L, 2, &wOpt);
        GflConfig c = SmallConfig(wOpt, L, L, 2);
        c.combination = Eigen::MatrixXd::Ones(1, 1);
        c.serverNoise = NodeNoiseConfig{};
        c.work = DrawGflLocalWork(L, 1, 10, 5, 10, 3);
        testing::internal::CaptureStderr();
        const GflRunResult r = RunGfl(task, c, FlFidelity::Flow);
        const std::string err = testing::internal::GetCapturedStderr();
        EXPECT_TRUE(AnyContains(r.warnings, "sampled clients per cell")) << r.warnings.size();
        EXPECT_FALSE(AnyContains(r.warnings, "stations per Wi-Fi cell"));
        EXPECT_NE(err.find("FlGflHelper: warning: flow-level network: L = "), std::string::npos)
            << err;
    }
    // longer messages than validated (8 M bytes of model each)
    {
        const std::size_t M = FlGflFlowValidity::kMaxMessageBytes / 8 + 10;
        auto task = MakeTask(6, M, &wOpt);
        GflConfig c = SmallConfig(wOpt, 2, 2, 2);
        c.clientNoise = NodeNoiseConfig{};
        c.work = DrawGflLocalWork(6, 1, 2, 5, 10, 3);
        const GflRunResult r = RunGfl(task, c, FlFidelity::Flow);
        EXPECT_TRUE(AnyContains(r.warnings, "bytes, above")) << r.warnings.size();
    }
    // ... each text once per process: two more runs of the first case print none (a figure
    // runs one scene per run and variant)
    {
        auto task = MakeTask(FlGflFlowValidity::kMaxClientsPerCell + 1, 2, &wOpt);
        GflConfig c = SmallConfig(wOpt, FlGflFlowValidity::kMaxClientsPerCell + 1, 2, 2);
        c.combination = Eigen::MatrixXd::Ones(1, 1);
        c.serverNoise = NodeNoiseConfig{};
        c.work = DrawGflLocalWork(FlGflFlowValidity::kMaxClientsPerCell + 1, 1, 10, 5, 10, 3);
        for (int run = 0; run < 2; ++run)
        {
            testing::internal::CaptureStderr();
            const GflRunResult r = RunGfl(task, c, FlFidelity::Flow);
            const std::string err = testing::internal::GetCapturedStderr();
            EXPECT_TRUE(AnyContains(r.warnings, "stations per Wi-Fi cell"));
            EXPECT_EQ(err.find("stations per Wi-Fi cell"), std::string::npos)
                << "printed again in run " << run << ": " << err;
        }
    }
}
