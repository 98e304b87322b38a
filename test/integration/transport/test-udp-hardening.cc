/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * UDP hardening: FedAvg over UDP finishes on every scene (Wi-Fi, LTE, CSMA,
 * point-to-point) with every hole policy and no round deadline, with no chunk lost and none
 * retransmitted on loss-free links (address resolution no longer eats the first burst); losses
 * are counted per round and per client whatever happened to the rest of a message, and a
 * round still open when the simulation ends gets a "timeout" row.
 */
#include "fl-test-task.h"

#include "ns3/chunking.h"
#include "ns3/core-module.h"
#include "ns3/error-model.h"
#include "ns3/fl-helper.h"
#include "ns3/fl-network-scenarios.h"
#include "ns3/fl-transport.h"
#include "ns3/learning-monitor.h"
#include "ns3/model-message.h"
#include "ns3/network-module.h"
#include "ns3/payload-codec.h"

#include <gtest/gtest.h>

using namespace ns3;
using fltest::MakeTask;

namespace
{

/// What a FedAvg run over a scene produced.
struct SceneRun
{
    std::vector<FlRoundRecord> records;
    std::vector<FlClientRoundRecord> clientRecords;
    uint64_t retransmitted{0}; ///< UDP chunks retransmitted, server and clients
    bool finished{false};
    bool reportedTimeout{false}; ///< ReportUnfinishedRound found an open round
};

/**
 * FedAvg over UDP on `scene` with the given hole policy and retry limit: 2 rounds, no deadline
 * unless `deadline` > 0, stopped at `stopAt`. The model (dim 64, MLP with 64 hidden units:
 * 4,420 parameters, about 25 chunks per float64 message) is large enough that a burst of its
 * chunks overflows ARP's 3-packet pending queue.
 */
SceneRun
RunOver(FlScene scene,
        const std::string& policy,
        uint32_t retryLimit,
        double stopAt,
        double deadline = 0.0)
{
    auto task = MakeTask<double>(scene.clients.GetN(), "mlp:hidden=64", 64);
    FlFedAvgHelper fedavg(task);
    fedavg.SetServerAttribute("Rounds", UintegerValue(2));
    fedavg.SetServerAttribute("RoundDeadline", TimeValue(Seconds(deadline)));
    fedavg.SetClientAttribute("SecondsPerSample", DoubleValue(1e-4));
    fedavg.SetTransportAttribute("Transport", StringValue("udp"));
    fedavg.SetTransportAttribute("HolePolicy", StringValue(policy));
    fedavg.SetTransportAttribute("RetryLimit", UintegerValue(retryLimit));
    fedavg.SetMonitorAttribute("KeepClientRecords", BooleanValue(true)); // read below
    FlFedAvgStack stack = fedavg.Install(scene.serverNode, scene.clients, scene.serverAddress);
    FlFedAvgHelper::AssignStreams(stack, 100);
    Simulator::Stop(Seconds(stopAt));
    Simulator::Run();
    SceneRun out;
    out.finished = stack.server->IsFinished();
    out.reportedTimeout = stack.server->ReportUnfinishedRound();
    out.records = stack.monitor->GetRecords();
    out.clientRecords = stack.monitor->GetClientRecords();
    out.retransmitted = stack.server->GetDatagramStats().chunksRetransmitted;
    for (uint32_t i = 0; i < stack.clientApps.GetN(); ++i)
    {
        out.retransmitted += DynamicCast<FlClientApplication>(stack.clientApps.Get(i))
                                 ->GetDatagramStats()
                                 .chunksRetransmitted;
    }
    Simulator::Destroy();
    return out;
}

FlScene
BuildScene(const std::string& kind, uint32_t clients)
{
    if (kind == "wifi")
    {
        return FlWifiScenarioHelper().Build(clients);
    }
    if (kind == "lte")
    {
        return FlLteSceneHelper().Build(clients);
    }
    if (kind == "csma")
    {
        return FlCsmaSceneHelper().Build(clients);
    }
    return FlPointToPointStarHelper().Build(clients);
}

/// Chunks of a float64 model message of the test task's model over a 1500-byte MTU.
uint32_t
ModelChunks(std::size_t parameters)
{
    return fl::ChunkCount(fl::MessageHeader::kSize +
                              fl::EncodedSize(fl::WireEncoding::Float64, parameters),
                          fl::MaxChunkPayloadForMtu(1500));
}

} // namespace

// Every hole policy (retransmit with RetryLimit 0, so that nothing may be repaired) on every
// scene, without a deadline: both rounds complete, nothing is lost, nothing retransmitted.
// Before address resolution held the queue, the first burst lost all but 3 chunks to ARP on
// Wi-Fi and CSMA and no round ever completed.
TEST(UdpHardening, EveryHolePolicyFinishesOnEverySceneWithoutDeadline)
{
    for (const std::string scene : {"wifi", "lte", "csma", "p2p"})
    {
        for (const std::string policy : {"drop", "keep-previous", "retransmit"})
        {
            SCOPED_TRACE(scene + " / " + policy);
            const SceneRun run = RunOver(BuildScene(scene, 2), policy, 0, 60.0);
            EXPECT_TRUE(run.finished);
            EXPECT_FALSE(run.reportedTimeout);
            EXPECT_EQ(run.records.size(), 3u);
            for (std::size_t i = 1; i < run.records.size(); ++i)
            {
                EXPECT_EQ(run.records[i].status, "aggregated");
                EXPECT_EQ(run.records[i].participants, 2u);
                EXPECT_EQ(run.records[i].chunksLost, 0u);
            }
            EXPECT_EQ(run.retransmitted, 0u);
        }
    }
}

// Every downlink chunk lost (the clients' devices drop everything they receive), drop policy,
// 1 s deadline: no client ever sees a chunk, so no receiver knows of the loss, yet each round
// counts every chunk of the two models it sent, and each client row its own model's chunks.
TEST(UdpHardening, ChunksLostCountWholeMessagesLostPerRoundAndClient)
{
    FlScene scene = BuildScene("p2p", 2);
    for (uint32_t k = 0; k < 2; ++k)
    {
        Ptr<RateErrorModel> em = CreateObject<RateErrorModel>();
        em->SetAttribute("ErrorUnit", StringValue("ERROR_UNIT_PACKET"));
        em->SetAttribute("ErrorRate", DoubleValue(1.0));
        scene.devices.Get(2 * k + 1)->SetAttribute("ReceiveErrorModel", PointerValue(em));
    }
    const uint32_t chunks = ModelChunks(4420);
    const SceneRun run = RunOver(scene, "drop", 5, 60.0, 1.0);
    EXPECT_TRUE(run.finished);
    ASSERT_EQ(run.records.size(), 3u);
    for (std::size_t i = 1; i < run.records.size(); ++i)
    {
        EXPECT_EQ(run.records[i].status, "empty");
        EXPECT_EQ(run.records[i].chunksLost, 2u * chunks);
    }
    ASSERT_EQ(run.clientRecords.size(), 4u);
    for (const auto& row : run.clientRecords)
    {
        EXPECT_EQ(row.chunksLost, chunks);
    }
}

// The same loss without a deadline: round 1 never completes. ReportUnfinishedRound writes its
// row with status timeout, the model unchanged, and the chunks lost so far.
TEST(UdpHardening, RoundOpenAtTheEndGetsATimeoutRow)
{
    FlScene scene = BuildScene("p2p", 2);
    for (uint32_t k = 0; k < 2; ++k)
    {
        Ptr<RateErrorModel> em = CreateObject<RateErrorModel>();
        em->SetAttribute("ErrorUnit", StringValue("ERROR_UNIT_PACKET"));
        em->SetAttribute("ErrorRate", DoubleValue(1.0));
        scene.devices.Get(2 * k + 1)->SetAttribute("ReceiveErrorModel", PointerValue(em));
    }
    const SceneRun run = RunOver(scene, "drop", 5, 5.0);
    EXPECT_FALSE(run.finished);
    EXPECT_TRUE(run.reportedTimeout);
    ASSERT_EQ(run.records.size(), 2u);
    const FlRoundRecord& r = run.records[1];
    EXPECT_EQ(r.round, 1u);
    EXPECT_EQ(r.status, "timeout");
    EXPECT_EQ(r.participants, 0u);
    EXPECT_EQ(r.selected, 2u);
    EXPECT_DOUBLE_EQ(r.timeS, 5.0);
    EXPECT_EQ(r.testLoss, run.records[0].testLoss);
    EXPECT_EQ(r.chunksLost, 2u * ModelChunks(4420));
}

// The default bound of incoming messages: a float64 model message plus 4 KiB.
TEST(UdpHardening, MaxModelMessageBytes)
{
    EXPECT_EQ(FlMaxModelMessageBytes(0), fl::MessageHeader::kSize + 4096u);
    EXPECT_EQ(FlMaxModelMessageBytes(4420), fl::MessageHeader::kSize + 8u * 4420u + 4096u);
    EXPECT_EQ(FlMaxModelMessageBytes(std::size_t(1) << 40), 0xFFFFFFFFu);
}
