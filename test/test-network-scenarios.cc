/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * FedAvg over every network scene of fl-network-scenarios.h (CSMA, point-to-point star, Wi-Fi ad
 * hoc, LTE): every round completes with every client, and a lossless wired network gives global
 * models bit-identical to those of a Wi-Fi run with the same seeds.
 */
#include "fl-test-task.h"

#include "ns3/core-module.h"
#include "ns3/fl-helper.h"
#include "ns3/fl-network-scenarios.h"
#include "ns3/fl-wifi-scenario-helper.h"
#include "ns3/learning-monitor.h"
#include "ns3/learning-task.h"
#include "ns3/partition.h"
#include "ns3/synthetic-data.h"

#include <functional>
#include <gtest/gtest.h>

using namespace ns3;

namespace
{

std::shared_ptr<fl::SupervisedTask<float>>
MakeTask(std::size_t clients)
{
    return fltest::MakeTask<float>(clients, "mlp:hidden=16");
}

struct SceneRun
{
    std::vector<fl::ParamVector> globals;
    std::vector<FlRoundRecord> records;
    uint32_t completed{0};
};

/// Builds a scene (the function also fixes its streams), runs FedAvg over it with fixed seeds.
SceneRun
RunFedAvg(std::shared_ptr<const fl::LearningTask> task,
          uint32_t rounds,
          const std::function<FlScene()>& build)
{
    SceneRun out;
    {
        FlScene scene = build();
        FlServerHelper sh(task);
        sh.SetAttribute("Rounds", UintegerValue(rounds));
        sh.SetAttribute("WirePrecision", StringValue("float32"));
        sh.SetAttribute("InitSeed", UintegerValue(12345));
        ApplicationContainer sapps = sh.Install(scene.serverNode);
        FlClientHelper ch(task, scene.serverAddress);
        ch.SetAttribute("WirePrecision", StringValue("float32"));
        ApplicationContainer capps = ch.Install(scene.clients);
        for (uint32_t i = 0; i < capps.GetN(); ++i)
        {
            capps.Get(i)->SetAttribute("TrainingSeed", UintegerValue(777 + 17 * i));
        }
        sapps.Start(Seconds(0));
        capps.Start(Seconds(0.5)); // after Wi-Fi association and LTE attachment

        Ptr<FlServerApplication> server = DynamicCast<FlServerApplication>(sapps.Get(0));
        server->TraceConnectWithoutContext(
            "RoundEnd",
            MakeCallback(+[](std::vector<fl::ParamVector>* v, const FlRoundReport& r) {
                v->push_back(*r.globalModel);
            }).Bind(&out.globals));
        Ptr<LearningMonitor> monitor = CreateObject<LearningMonitor>();
        monitor->Install(server);
        Simulator::Stop(Seconds(200));
        Simulator::Run();
        out.records = monitor->GetRecords();
        out.completed = server->GetCompletedRounds();
    }
    Simulator::Destroy();
    return out;
}

void
ExpectEveryRoundWithEveryClient(const SceneRun& run, uint32_t rounds, uint32_t clients)
{
    EXPECT_EQ(run.completed, rounds);
    ASSERT_EQ(run.records.size(), rounds + 1);
    ASSERT_EQ(run.globals.size(), rounds + 1);
    for (uint32_t r = 1; r <= rounds; ++r)
    {
        EXPECT_EQ(run.records[r].round, r);
        EXPECT_EQ(run.records[r].participants, clients) << "round " << r;
        EXPECT_GT(run.records[r].timeS, run.records[r - 1].timeS);
        EXPECT_FALSE(run.globals[r] == run.globals[r - 1]) << "round " << r;
    }
}

FlScene
BuildCsma(uint32_t n)
{
    FlCsmaSceneHelper h;
    h.SetDataRate(DataRate("100Mb/s"));
    h.SetDelay(MicroSeconds(5));
    FlScene s = h.Build(n);
    FlCsmaSceneHelper::AssignStreams(s, 100);
    return s;
}

} // namespace

TEST(NetworkScenes, CsmaEveryRoundEveryClientAndSameModelsAsWifi)
{
    const uint32_t n = 4;
    const uint32_t rounds = 3;
    auto task = MakeTask(n);
    SceneRun csma = RunFedAvg(task, rounds, [n] { return BuildCsma(n); });
    ExpectEveryRoundWithEveryClient(csma, rounds, n);

    SceneRun wifi = RunFedAvg(task, rounds, [n] {
        FlWifiScenarioHelper h;
        FlWifiScenario w = h.Build(n);
        FlWifiScenarioHelper::AssignStreams(w, 100);
        FlScene s;
        s.serverNode = w.apNode;
        s.clients = w.stations;
        s.serverAddress = w.serverAddress;
        return s;
    });
    ExpectEveryRoundWithEveryClient(wifi, rounds, n);
    // The network changes the timing, never the learning.
    for (uint32_t r = 0; r <= rounds && r < csma.globals.size() && r < wifi.globals.size(); ++r)
    {
        EXPECT_TRUE(csma.globals[r] == wifi.globals[r]) << "global model of round " << r;
    }
    EXPECT_NE(csma.records.back().timeS, wifi.records.back().timeS);
}

TEST(NetworkScenes, PointToPointStarWithHeterogeneousRates)
{
    const uint32_t n = 4;
    const uint32_t rounds = 3;
    auto task = MakeTask(n);
    SceneRun fixed = RunFedAvg(task, rounds, [n] {
        FlPointToPointStarHelper h;
        h.SetDataRate(DataRate("10Mb/s"));
        h.SetDelay(MilliSeconds(5));
        return h.Build(n);
    });
    ExpectEveryRoundWithEveryClient(fixed, rounds, n);

    SceneRun hetero = RunFedAvg(task, rounds, [n] {
        Ptr<UniformRandomVariable> mbps = CreateObject<UniformRandomVariable>();
        mbps->SetAttribute("Min", DoubleValue(0.5));
        mbps->SetAttribute("Max", DoubleValue(2.0));
        mbps->SetStream(7);
        FlPointToPointStarHelper h;
        h.SetDataRateVariable(mbps);
        return h.Build(n);
    });
    ExpectEveryRoundWithEveryClient(hetero, rounds, n);
    // Slower links (at most 2 Mb/s instead of 10): the rounds take longer; the models are the same.
    EXPECT_GT(hetero.records.back().timeS, fixed.records.back().timeS);
    EXPECT_TRUE(hetero.globals.back() == fixed.globals.back());
}

// Several runs: without the static ARP caches (FlWifiAdhocSceneHelper::SetStaticArp) some runs
// lose clients whose simultaneous broadcast ARP requests collide; without the block-ack
// workaround some 802.11n runs stall.
TEST(NetworkScenes, WifiAdhocEveryRoundEveryClient)
{
    for (const char* standard : {"80211a", "80211n"})
    {
        for (uint32_t run = 1; run <= 5; ++run)
        {
            RngSeedManager::SetRun(run);
            const uint32_t n = 4;
            auto task = MakeTask(n);
            SceneRun result = RunFedAvg(task, 3, [n, standard] {
                FlWifiAdhocSceneHelper h;
                h.SetStandard(standard);
                FlScene s = h.Build(n);
                FlWifiAdhocSceneHelper::AssignStreams(s, 100);
                return s;
            });
            SCOPED_TRACE(std::string(standard) + " run " + std::to_string(run));
            ExpectEveryRoundWithEveryClient(result, 3, n);
        }
    }
    RngSeedManager::SetRun(1);
}

TEST(NetworkScenes, LteEveryRoundEveryClient)
{
    const uint32_t n = 3;
    auto task = MakeTask(n);
    SceneRun run = RunFedAvg(task, 3, [n] {
        FlLteSceneHelper h;
        FlScene s = h.Build(n);
        FlLteSceneHelper::AssignStreams(s, 100);
        return s;
    });
    ExpectEveryRoundWithEveryClient(run, 3, n);
    // Same seeds as the CSMA scene: the same models.
    SceneRun csma = RunFedAvg(task, 3, [n] { return BuildCsma(n); });
    ASSERT_EQ(csma.globals.size(), run.globals.size());
    EXPECT_TRUE(csma.globals.back() == run.globals.back());
}
