/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * End to end: FedAvg over a simulated Wi-Fi network (TCP, real parameter bytes) gives global
 * models bit-identical to an in-process FedAvg run with the same seeds.
 */
#include "fl-test-task.h"

#include "ns3/core-module.h"
#include "ns3/fedavg-reference.h"
#include "ns3/fedavg.h"
#include "ns3/fl-helper.h"
#include "ns3/fl-network-scenarios.h"
#include "ns3/learning-monitor.h"
#include "ns3/learning-task.h"
#include "ns3/model-message.h"
#include "ns3/partition.h"
#include "ns3/synthetic-data.h"

#include <gtest/gtest.h>
#include <type_traits>

using namespace ns3;
using fltest::MakeTask;

namespace
{

/// In-process FedAvg (the shared reference runner) with the seeds the applications use; every
/// vector goes through the codec, with the quantiser seeds the applications derive (int8 only).
std::vector<fl::ParamVector>
ReferenceFedAvg(const fl::LearningTask& task,
                uint64_t initSeed,
                const std::vector<uint64_t>& clientSeeds,
                uint32_t rounds,
                fl::WireEncoding wire)
{
    std::vector<fl::ParamVector> globals;
    fl::FedAvgReferenceConfig cfg;
    cfg.rounds = rounds;
    cfg.initSeed = initSeed;
    cfg.clientSeeds = clientSeeds;
    cfg.link = fl::WireCodecLink(wire, task.GetPrecision(), initSeed, clientSeeds);
    cfg.onRound = [&globals](uint32_t, const fl::ParamVector& g) { globals.push_back(g); };
    fl::RunFedAvgReference(task, cfg);
    return globals;
}

struct NetworkRun
{
    std::vector<fl::ParamVector> globals;
    std::vector<FlRoundRecord> records;
    std::vector<uint64_t> clientSeeds;
    FlServerApplication::Counters counters;
    uint32_t completed{0};
};

NetworkRun
RunOverWifi(std::shared_ptr<const fl::LearningTask> task,
            uint32_t rounds,
            const std::string& wire,
            uint64_t initSeed,
            uint64_t seedBase,
            const std::string& standard = "80211n")
{
    NetworkRun out;
    FlWifiScenarioHelper wifi;
    wifi.SetStandard(standard);
    FlScene scene = wifi.Build(static_cast<uint32_t>(task->NumClients()));

    FlServerHelper sh(task);
    sh.SetAttribute("Rounds", UintegerValue(rounds));
    sh.SetAttribute("WirePrecision", StringValue(wire));
    sh.SetAttribute("InitSeed", UintegerValue(initSeed));
    ApplicationContainer sapps = sh.Install(scene.serverNode);
    FlClientHelper ch(task, scene.serverAddress);
    ch.SetAttribute("WirePrecision", StringValue(wire));
    ApplicationContainer capps = ch.Install(scene.clients);
    for (uint32_t i = 0; i < capps.GetN(); ++i)
    {
        out.clientSeeds.push_back(seedBase + 17 * i);
        capps.Get(i)->SetAttribute("TrainingSeed", UintegerValue(out.clientSeeds.back()));
    }
    sapps.Start(Seconds(0));
    capps.Start(Seconds(0.5));

    Ptr<FlServerApplication> server = DynamicCast<FlServerApplication>(sapps.Get(0));
    server->TraceConnectWithoutContext(
        "RoundEnd",
        MakeCallback(+[](std::vector<fl::ParamVector>* v, const FlRoundReport& r) {
            v->push_back(*r.globalModel);
        }).Bind(&out.globals));
    Ptr<LearningMonitor> monitor = CreateObject<LearningMonitor>();
    monitor->Install(server);
    Simulator::Stop(Seconds(1000));
    Simulator::Run();
    out.records = monitor->GetRecords();
    out.counters = server->GetCounters();
    out.completed = server->GetCompletedRounds();
    Simulator::Destroy();
    return out;
}

/// `wireAttribute` is the applications' WirePrecision; "auto" must send the task's precision.
template <typename S>
void
CheckBitIdentical(const std::string& modelSpec, const std::string& wireAttribute)
{
    const std::string wire = wireAttribute != "auto"          ? wireAttribute
                             : std::is_same_v<S, float> ? "float32"
                                                         : "float64";
    auto task = MakeTask<S>(4, modelSpec);
    const uint32_t rounds = 3;
    NetworkRun net = RunOverWifi(task, rounds, wireAttribute, 12345, 777);
    ASSERT_EQ(net.completed, rounds);
    ASSERT_EQ(net.globals.size(), rounds + 1); // initial + one per round
    const auto ref =
        ReferenceFedAvg(*task, 12345, net.clientSeeds, rounds, fl::ParseWireEncoding(wire, "wire"));
    for (uint32_t r = 0; r <= rounds; ++r)
    {
        EXPECT_TRUE(net.globals[r] == ref[r]) << "global model of round " << r << " differs";
    }
    // Training did something: the models changed every round.
    for (uint32_t r = 1; r <= rounds; ++r)
    {
        EXPECT_FALSE(net.globals[r] == net.globals[r - 1]);
    }
    EXPECT_EQ(net.counters.malformed, 0u);
    EXPECT_EQ(net.counters.staleUpdates, 0u);
    // The monitor saw every round, in simulated time order, with every client taking part.
    ASSERT_EQ(net.records.size(), rounds + 1);
    for (uint32_t r = 1; r <= rounds; ++r)
    {
        EXPECT_EQ(net.records[r].round, r);
        EXPECT_EQ(net.records[r].participants, 4u);
        EXPECT_GT(net.records[r].timeS, net.records[r - 1].timeS);
        // Down: the model to 4 clients; up: 4 models. Bytes follow the wire precision.
        const uint64_t msg =
            fl::MessageHeader::kSize +
            fl::EncodedSize(fl::ParseWireEncoding(wire, "w"), task->NumParameters());
        EXPECT_EQ(net.records[r].bytesDown, 4 * msg);
        EXPECT_EQ(net.records[r].bytesUp, 4 * msg);
    }
}

} // namespace

TEST(FedAvgOverWifi, BitIdenticalToInProcessFloat64Softmax)
{
    CheckBitIdentical<double>("softmax:l2=0.001", "float64");
}

TEST(FedAvgOverWifi, BitIdenticalToInProcessFloat32Mlp)
{
    CheckBitIdentical<float>("mlp:hidden=16", "float32");
}

// WirePrecision's default (auto) sends a float32 model as float32 (half the bytes of float64)
// and a float64 model as float64, bit-identical to the in-process reference.
TEST(FedAvgOverWifi, DefaultWireTakesTheTaskPrecision)
{
    CheckBitIdentical<float>("mlp:hidden=16", "auto");
    CheckBitIdentical<double>("softmax:l2=0.001", "auto");
    TypeId::AttributeInformation info;
    ASSERT_TRUE(FlClientApplication::GetTypeId().LookupAttributeByName("WirePrecision", &info));
    EXPECT_EQ(info.initialValue->SerializeToString(info.checker), "auto");
}

TEST(FedAvgOverWifi, Float32WireWithFloat64ModelsMatchesTheQuantisedReference)
{
    CheckBitIdentical<double>("softmax:l2=0", "float32");
}

TEST(FedAvgOverWifi, Float16WireMatchesTheReferenceBitForBit)
{
    CheckBitIdentical<float>("mlp:hidden=16", "float16");
}

TEST(FedAvgOverWifi, Int8StochasticWireMatchesTheReferenceBitForBit)
{
    // The quantiser's random draws come from seeds derived from the applications' seeds, so the
    // in-process reference reproduces them exactly.
    CheckBitIdentical<double>("softmax:l2=0", "int8");
}

TEST(FedAvgOverWifi, LearningImprovesAccuracy)
{
    auto task = MakeTask<double>(4, "softmax:l2=0");
    NetworkRun net = RunOverWifi(task, 8, "float64", 1, 2);
    ASSERT_EQ(net.records.size(), 9u);
    const double first = task->Evaluate(net.globals.front()).accuracy;
    const double last = net.records.back().testAccuracy;
    // 4 well-separated classes: chance is 0.25; after 8 rounds the model must be far above it.
    EXPECT_LT(first, 0.5);
    EXPECT_GT(last, 0.8);
}

// Regression test for the ns-3.37 block-ack stall (see
// FlWifiScenarioHelper::SetBlockAckWorkaround): 10 and 20 stations receiving ~9.5 KB models at once
// over A-MPDU links. Before the workaround, some stations never received the model and the first
// round never closed.
TEST(FedAvgOverWifi, ManyStationsWithAmpduCompleteEveryRound)
{
    for (const char* standard : {"80211n", "80211ac"})
    {
        for (std::size_t clients : {10, 20})
        {
            auto task = MakeTask<float>(clients, "mlp:hidden=64", 32);
            ASSERT_EQ(task->NumParameters(), 32u * 64 + 64 + 64 * 4 + 4);
            NetworkRun net = RunOverWifi(task, 3, "float32", 1, 2, standard);
            EXPECT_EQ(net.completed, 3u) << standard << " with " << clients << " stations";
            for (const auto& r : net.records)
            {
                if (r.round > 0)
                {
                    EXPECT_EQ(r.participants, clients) << standard << " round " << r.round;
                }
            }
        }
    }
}
