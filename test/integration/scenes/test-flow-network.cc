/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Flow-level network fidelity: the processor-sharing arithmetic against hand-computed delivery
 * times, lossless flow runs learning the same models as packet runs, loss and the Wi-Fi
 * stations' association reproduced by --RngRun, and malformed or oversized messages handled as
 * on TCP.
 */

#include "fl-test-task.h"

#include "ns3/core-module.h"
#include "ns3/fl-flow-network.h"
#include "ns3/fl-helper.h"
#include "ns3/fl-network-scenarios.h"
#include "ns3/fl-ns3-compat.h"
#include "ns3/fl-transport.h"
#include "ns3/inet-socket-address.h"
#include "ns3/learning-monitor.h"
#include "ns3/model-message.h"
#include "ns3/processor-sharing.h"

#include <algorithm>
#include <gtest/gtest.h>

using namespace ns3;
using fltest::MakeTask;

namespace
{

constexpr double kTol = 1e-12;

TEST(ProcessorSharing, PerFlowMatchesHandComputedTimes)
{
    // 0-0.5: A alone (rate 1), 0.5 left. At 0.5 B and C start: rate 1/3 each; C (0.25) ends
    // after 0.75 at 1.25; then A and B at 1/2: A (0.25 left) ends at 1.75; B (0.5 left) alone
    // ends at 2.25.
    const auto t = fl::ProcessorSharingCompletions({{0.0, 1.0, 0}, {0.5, 1.0, 1}, {0.5, 0.25, 2}});
    ASSERT_EQ(t.size(), 3u);
    EXPECT_NEAR(t[0], 1.75, kTol);
    EXPECT_NEAR(t[1], 2.25, kTol);
    EXPECT_NEAR(t[2], 1.25, kTol);
}

TEST(ProcessorSharing, PerSenderServesEachStationsQueueInOrder)
{
    // Sender 0 queues A then B (1 s each), sender 1 sends C (0.5 s) at 0.5. 0-0.5: A alone,
    // 0.5 left. Then A and C at 1/2 each: both end at 1.5. B alone from 1.5: ends at 2.5.
    const auto t = fl::ProcessorSharingCompletions({{0.0, 1.0, 0}, {0.0, 1.0, 0}, {0.5, 0.5, 1}},
                                                   0.0,
                                                   fl::SharingDiscipline::PerSender);
    EXPECT_NEAR(t[0], 1.5, kTol);
    EXPECT_NEAR(t[1], 2.5, kTol);
    EXPECT_NEAR(t[2], 1.5, kTol);
    // per flow instead: A, B and C share from 0.5: A and B at 0.75 left... every flow at 1/3
    const auto f = fl::ProcessorSharingCompletions({{0.0, 1.0, 0}, {0.0, 1.0, 0}, {0.5, 0.5, 1}});
    // 0-0.5: A, B at 1/2 -> 0.75 left each; C joins: 1/3 each; C (0.5) ends at 2.0, A and B
    // have 0.25 left, 1/2 each: end at 2.5
    EXPECT_NEAR(f[2], 2.0, kTol);
    EXPECT_NEAR(f[0], 2.5, kTol);
    EXPECT_NEAR(f[1], 2.5, kTol);
}

TEST(ProcessorSharing, PerSenderSharedSplitsEachStationsShareAmongItsFlows)
{
    // Sender 0 sends A and B (1 s each) from 0, sender 1 sends C (0.5 s) at 0.5. 0-0.5: sender
    // 0 alone, A and B at 1/2 each: 0.75 left each. From 0.5: 1/2 per sender, A and B at 1/4,
    // C at 1/2: C ends at 1.5, A and B have 0.5 left; then A and B at 1/2: both end at 2.5.
    const auto t = fl::ProcessorSharingCompletions({{0.0, 1.0, 0}, {0.0, 1.0, 0}, {0.5, 0.5, 1}},
                                                   0.0,
                                                   fl::SharingDiscipline::PerSenderShared);
    EXPECT_NEAR(t[0], 2.5, kTol);
    EXPECT_NEAR(t[1], 2.5, kTol);
    EXPECT_NEAR(t[2], 1.5, kTol);
    // unequal flows of one sender: D (0.25) and E (1) from 0, alone: 1/2 each; D ends at 0.5,
    // E has 0.75 left at full rate: ends at 1.25
    const auto u = fl::ProcessorSharingCompletions({{0.0, 0.25, 0}, {0.0, 1.0, 0}},
                                                   0.0,
                                                   fl::SharingDiscipline::PerSenderShared);
    EXPECT_NEAR(u[0], 0.5, kTol);
    EXPECT_NEAR(u[1], 1.25, kTol);
    // rates: 1/2 per sender, split among the sender's flows
    fl::ProcessorSharingMedium m(0.0, fl::SharingDiscipline::PerSenderShared);
    m.Add(1, 1.0, 0);
    m.Add(2, 1.0, 0);
    m.Add(3, 1.0, 1);
    EXPECT_NEAR(m.Rate(1), 0.25, kTol);
    EXPECT_NEAR(m.Rate(2), 0.25, kTol);
    EXPECT_NEAR(m.Rate(3), 0.5, kTol);
    EXPECT_EQ(m.Rate(4), 0.0);
}

TEST(ProcessorSharing, BySizeBurstsShortFlowsAndInterleavesBulkOnes)
{
    // Sender 0: short A and B (0.5 s each); sender 1: bulk C and D (1 s each), all from 0.
    // 1/2 per sender. Sender 0 serves A alone: A ends at 1.0; sender 1 splits its half: C and
    // D at 1/4, 0.75 left each at 1.0. B at 1/2 ends at 2.0; C and D have 0.5 left; then
    // sender 1 alone, C and D at 1/2 each: both end at 3.0.
    const auto t = fl::ProcessorSharingCompletions(
        {{0.0, 0.5, 0, false}, {0.0, 0.5, 0, false}, {0.0, 1.0, 1, true}, {0.0, 1.0, 1, true}},
        0.0,
        fl::SharingDiscipline::BySize);
    EXPECT_NEAR(t[0], 1.0, kTol);
    EXPECT_NEAR(t[1], 2.0, kTol);
    EXPECT_NEAR(t[2], 3.0, kTol);
    EXPECT_NEAR(t[3], 3.0, kTol);
    // behind a bulk flow a short one waits: E (bulk, 1 s) then F (short, 0.25 s), one sender
    fl::ProcessorSharingMedium m(0.0, fl::SharingDiscipline::BySize);
    m.Add(1, 1.0, 0, true);
    m.Add(2, 0.25, 0, false);
    EXPECT_NEAR(m.Rate(1), 1.0, kTol);
    EXPECT_EQ(m.Rate(2), 0.0);
    EXPECT_FALSE(m.InService(2));
    const auto u = fl::ProcessorSharingCompletions({{0.0, 1.0, 0, true}, {0.0, 0.25, 0, false}},
                                                   0.0,
                                                   fl::SharingDiscipline::BySize);
    EXPECT_NEAR(u[0], 1.0, kTol);
    EXPECT_NEAR(u[1], 1.25, kTol);
}

TEST(ProcessorSharing, BulkLoadLowersTheCapacityBeyondTheFreeFlows)
{
    EXPECT_NEAR(fl::BulkLoadCapacity(0, 3.0, 1.0), 1.0, kTol);
    EXPECT_NEAR(fl::BulkLoadCapacity(3, 3.0, 1.0), 1.0, kTol);
    EXPECT_NEAR(fl::BulkLoadCapacity(6, 3.0, 1.0), 2.0 / 3.0, kTol); // 1 / (1 + 1/2)
    EXPECT_NEAR(fl::BulkLoadCapacity(12, 3.0, 0.5), 1.0 / 1.375, kTol); // 1 / (1 + 0.5 x 3/4)
    EXPECT_NEAR(fl::BulkLoadCapacity(100, 3.0, 0.0), 1.0, kTol);
    // free 1, penalty 1, per flow: bulk A (1 s) alone from 0 at rate 1, 0.5 left at 0.5; bulk
    // B (1 s) joins: capacity 1 / (1 + 1/2) = 2/3, 1/3 each; A ends 1.5 s later at 2.0, B
    // has 0.5 left and ends alone at 2.5
    const auto t = fl::ProcessorSharingCompletions({{0.0, 1.0, 0, true}, {0.5, 1.0, 1, true}},
                                                   0.0,
                                                   fl::SharingDiscipline::PerFlow,
                                                   1.0,
                                                   1.0);
    EXPECT_NEAR(t[0], 2.0, kTol);
    EXPECT_NEAR(t[1], 2.5, kTol);
    // a short B does not count: 1/2 each from 0.5, A ends at 1.5, B (0.5 left) at 2.0
    const auto u = fl::ProcessorSharingCompletions({{0.0, 1.0, 0, true}, {0.5, 1.0, 1, false}},
                                                   0.0,
                                                   fl::SharingDiscipline::PerFlow,
                                                   1.0,
                                                   1.0);
    EXPECT_NEAR(u[0], 1.5, kTol);
    EXPECT_NEAR(u[1], 2.0, kTol);
}

TEST(ProcessorSharing, ContentionLowersTheSharedCapacity)
{
    EXPECT_NEAR(fl::SharedCapacity(1, 0.5), 1.0, kTol);
    EXPECT_NEAR(fl::SharedCapacity(3, 0.5), 0.5, kTol);
    // two senders, contention 0.5: capacity 2/3, 1/3 each: both 1 s flows end at 3 s
    const auto t = fl::ProcessorSharingCompletions({{0.0, 1.0, 0}, {0.0, 1.0, 1}}, 0.5);
    EXPECT_NEAR(t[0], 3.0, kTol);
    EXPECT_NEAR(t[1], 3.0, kTol);
    // zero work ends at its arrival; a flow alone ends after its work
    const auto z = fl::ProcessorSharingCompletions({{2.0, 0.0, 0}, {1.0, 0.5, 0}});
    EXPECT_NEAR(z[0], 2.0, kTol);
    EXPECT_NEAR(z[1], 1.5, kTol);
}

TEST(WifiAssociation, SuccessesSaturateAtTheCapacity)
{
    // (m^-k + C^-k)^(-1/k)
    EXPECT_NEAR(fl::AssociationSuccesses(0.0, 17.0, 5.0), 0.0, kTol);
    EXPECT_NEAR(fl::AssociationSuccesses(1.0, 1.0, 1.0), 0.5, kTol);               // 1 / (1 + 1)
    EXPECT_NEAR(fl::AssociationSuccesses(2.0, 2.0, 2.0), 1.4142135623730951, kTol); // sqrt 2
    EXPECT_NEAR(fl::AssociationSuccesses(10.0, 20.0, 1.0), 6.666666666666667, kTol); // 1/0.15
    // m = C = 17, k = 5: 17 x 2^(-1/5) = 17 x 0.87055056329612413
    EXPECT_NEAR(fl::AssociationSuccesses(17.0, 17.0, 5.0), 14.79935957603411, kTol);
    // failure: 1 - S / m
    EXPECT_NEAR(fl::AssociationFailureProbability(0.0, 17.0, 5.0), 0.0, kTol);
    EXPECT_NEAR(fl::AssociationFailureProbability(2.0, 2.0, 2.0), 0.2928932188134524, kTol);
    EXPECT_NEAR(fl::AssociationFailureProbability(10.0, 20.0, 1.0), 1.0 / 3.0, kTol);
    EXPECT_NEAR(fl::AssociationFailureProbability(17.0, 17.0, 5.0), 0.1294494367038759, kTol);
}

TEST(WifiAssociation, TimesOfTheAttemptsAndRanks)
{
    const fl::AssociationModel m; // 0.1196 s, 0.89 ms per station, retry 0.5 s
    EXPECT_NEAR(fl::AssociationTime(0, 0, m), 0.12049, kTol);
    EXPECT_NEAR(fl::AssociationTime(2, 3, m), 1.12316, kTol); // 0.1196 + 1 + 4 x 0.00089
    // C = 1, k = 1: p(m) = 1 - 1 / (1 + m): 3/4 with 3 contending, 1/2 with 1
    fl::AssociationModel s;
    s.firstS = 1.0;
    s.retryS = 10.0;
    s.perStationS = 0.1;
    s.capacity = 1.0;
    s.sharpness = 1.0;
    const std::vector<double> u{0.8, 0.1, 0.9, 0.4, 0.6};
    std::size_t next = 0;
    const auto t = fl::DrawAssociationTimes(3, s, [&]() { return u.at(next++); });
    ASSERT_EQ(t.size(), 3u);
    EXPECT_EQ(next, 5u);
    EXPECT_NEAR(t[0], 1.1, kTol);  // attempt 0, rank 0
    EXPECT_NEAR(t[1], 21.1, kTol); // failed (0.1 < 3/4), then (0.4 < 1/2), then attempt 2
    EXPECT_NEAR(t[2], 1.2, kTol);  // attempt 0, rank 1
    // after maxAttempts the stations left get the next attempt's times
    s.maxAttempts = 1;
    const auto v = fl::DrawAssociationTimes(3, s, []() { return 0.0; });
    EXPECT_NEAR(v[0], 11.1, kTol);
    EXPECT_NEAR(v[1], 11.2, kTol);
    EXPECT_NEAR(v[2], 11.3, kTol);
}

/// What a FedAvg run produced.
struct FedAvgRun
{
    std::vector<FlRoundRecord> records;
    uint32_t completed{0};
    double wall{0.0};
};

FedAvgRun
RunFedAvgOn(FlFidelity fidelity, const std::string& kind, uint32_t clients, uint32_t rounds)
{
    auto task = MakeTask<double>(clients, "softmax:l2=0.001");
    FlScene scene;
    std::function<int64_t(int64_t)> assign;
    if (kind == "wifi")
    {
        FlWifiScenarioHelper h;
        h.SetFidelity(fidelity);
        scene = h.Build(clients);
        assign = [&scene](int64_t s) { return FlWifiScenarioHelper::AssignStreams(scene, s); };
    }
    else
    {
        FlCsmaSceneHelper h;
        h.SetFidelity(fidelity);
        scene = h.Build(clients);
        assign = [&scene](int64_t s) { return FlCsmaSceneHelper::AssignStreams(scene, s); };
    }
    FlFedAvgHelper fedavg(task);
    fedavg.SetServerAttribute("Rounds", UintegerValue(rounds));
    fedavg.SetMonitorAttribute("Verbose", BooleanValue(false));
    FlFedAvgStack stack = fedavg.Install(scene.serverNode, scene.clients, scene.serverAddress);
    const int64_t used = FlFedAvgHelper::AssignStreams(stack, 100);
    assign(100 + used);
    Simulator::Stop(Seconds(100));
    Simulator::Run();
    FedAvgRun out;
    out.records = stack.monitor->GetRecords();
    out.completed = stack.server->GetCompletedRounds();
    Simulator::Destroy();
    return out;
}

TEST(FlowFidelity, LosslessFlowLearnsTheSameModelsAsPackets)
{
    for (const std::string kind : {"wifi", "csma"})
    {
        const FedAvgRun packet = RunFedAvgOn(FlFidelity::Packet, kind, 4, 3);
        const FedAvgRun flow = RunFedAvgOn(FlFidelity::Flow, kind, 4, 3);
        ASSERT_EQ(packet.completed, 3u) << kind;
        ASSERT_EQ(flow.completed, 3u) << kind;
        ASSERT_EQ(packet.records.size(), flow.records.size()) << kind;
        for (std::size_t r = 0; r < packet.records.size(); ++r)
        {
            const auto& a = packet.records[r];
            const auto& b = flow.records[r];
            // the learning columns, bit for bit
            EXPECT_EQ(a.testLoss, b.testLoss) << kind << " round " << r;
            EXPECT_EQ(a.testAccuracy, b.testAccuracy) << kind << " round " << r;
            EXPECT_EQ(a.trainLoss, b.trainLoss) << kind << " round " << r;
            EXPECT_EQ(a.participants, b.participants) << kind << " round " << r;
            // the same bytes on the wire (same encoding, same header)
            EXPECT_EQ(a.bytesDown, b.bytesDown) << kind << " round " << r;
            EXPECT_EQ(a.bytesUp, b.bytesUp) << kind << " round " << r;
        }
    }
}

/// A flow-level FedAvg round over a BSS of `stations` in run `run`: the stations' association
/// times and the end of round 1 [s].
std::pair<std::vector<double>, double>
WifiFirstRound(uint32_t stations, uint32_t run)
{
    RngSeedManager::SetRun(run);
    auto task = MakeTask<double>(stations, "softmax:l2=0.001");
    FlWifiScenarioHelper h;
    h.SetFidelity(FlFidelity::Flow);
    FlScene scene = h.Build(stations);
    FlFedAvgHelper fedavg(task);
    fedavg.SetServerAttribute("Rounds", UintegerValue(1));
    fedavg.SetMonitorAttribute("Verbose", BooleanValue(false));
    fedavg.SetStartTimes(Seconds(0), Seconds(0.5), MilliSeconds(20));
    FlFedAvgStack stack = fedavg.Install(scene.serverNode, scene.clients, scene.serverAddress);
    const int64_t used = FlFedAvgHelper::AssignStreams(stack, 100);
    FlWifiScenarioHelper::AssignStreams(scene, 100 + used);
    Simulator::Stop(Seconds(100));
    Simulator::Run();
    const auto records = stack.monitor->GetRecords();
    const double end = records.size() > 1 ? records[1].timeS : -1.0;
    std::vector<double> assoc = scene.flowNetwork->AssociationTimes();
    Simulator::Destroy();
    RngSeedManager::SetRun(1);
    return {assoc, end};
}

TEST(FlowFidelity, WifiAssociationIsDrawnPerRunAndDelaysOnlyLateStations)
{
    for (const uint32_t n : {8u, 30u})
    {
        const auto a = WifiFirstRound(n, 1);
        const auto b = WifiFirstRound(n, 1);
        EXPECT_EQ(a.first, b.first) << n; // --RngRun reproduces it
        EXPECT_EQ(a.second, b.second) << n;
        ASSERT_EQ(a.first.size(), n);
        bool late = false;
        for (uint32_t i = 0; i < n; ++i)
        {
            EXPECT_GT(a.first[i], 0.12) << n;
            late = late || a.first[i] >= 0.5 + 0.02 * i; // after the client's first SYN
        }
        // a station that associates after its client's first SYN (at 0.5 s or later) costs the
        // round the SYN's retry, 1 s later (the connection timeout, FlSynRetryWait); otherwise
        // the round ends within 1.5 s
        if (late)
        {
            EXPECT_GT(a.second, 1.5) << n;
        }
        else
        {
            EXPECT_LT(a.second, 1.5) << n;
        }
    }
    // with 30 stations about 13 fail their first request (0.44 each): some do in run 1,
    // and other runs draw other stations
    const auto c = WifiFirstRound(30, 1);
    EXPECT_GT(*std::max_element(c.first.begin(), c.first.end()), 0.6);
    EXPECT_NE(c.first, WifiFirstRound(30, 2).first);
}

/// The warnings of a flow-level FedAvg run over CSMA (FlFlowNetwork::ValidityWarnings).
std::vector<std::string>
FlowWarnings(uint32_t clients, const std::string& model)
{
    auto task = MakeTask<double>(clients, model);
    FlCsmaSceneHelper h;
    h.SetFidelity(FlFidelity::Flow);
    FlScene scene = h.Build(clients);
    FlFedAvgHelper fedavg(task);
    fedavg.SetServerAttribute("Rounds", UintegerValue(2));
    fedavg.SetMonitorAttribute("Verbose", BooleanValue(false));
    FlFedAvgStack stack = fedavg.Install(scene.serverNode, scene.clients, scene.serverAddress);
    const int64_t used = FlFedAvgHelper::AssignStreams(stack, 100);
    FlCsmaSceneHelper::AssignStreams(scene, 100 + used);
    Simulator::Stop(Seconds(100));
    Simulator::Run();
    EXPECT_EQ(stack.server->GetCompletedRounds(), 2u);
    auto out = scene.flowNetwork->ValidityWarnings();
    Simulator::Destroy();
    return out;
}

bool
AnyContains(const std::vector<std::string>& lines, const std::string& what)
{
    return std::any_of(lines.begin(), lines.end(), [&what](const std::string& l) {
        return l.find(what) != std::string::npos;
    });
}

TEST(FlowFidelity, WarnsWhereTheModelWasNotValidated)
{
    // 6 clients x 127 KB models: 6 messages of 48 KB or more at once on the LAN, above 5
    const auto heavy = FlowWarnings(6, "mlp:hidden=1024");
    EXPECT_TRUE(AnyContains(heavy, "in flight at once")) << heavy.size();
    // 5 clients: within the validated load; small models: no bulk at all
    EXPECT_FALSE(AnyContains(FlowWarnings(5, "mlp:hidden=1024"), "in flight at once"));
    EXPECT_TRUE(FlowWarnings(6, "softmax:l2=0.001").empty());
    // more stations than validated, and any loss
    {
        FlWifiScenarioHelper h;
        h.SetFidelity(FlFidelity::Flow);
        FlScene scene = h.Build(31);
        EXPECT_TRUE(AnyContains(scene.flowNetwork->ValidityWarnings(), "stations per Wi-Fi cell"));
        Simulator::Destroy();
        FlScene within = h.Build(30);
        EXPECT_FALSE(AnyContains(within.flowNetwork->ValidityWarnings(), "per Wi-Fi cell"));
        Simulator::Destroy();
    }
    {
        // CSMA: validated up to 30 clients (50: rounds 18 to 34 % longer at packet level)
        FlCsmaSceneHelper h;
        h.SetFidelity(FlFidelity::Flow);
        FlScene scene = h.Build(31);
        EXPECT_TRUE(AnyContains(scene.flowNetwork->ValidityWarnings(), "clients per CSMA LAN"));
        Simulator::Destroy();
        FlScene within = h.Build(30);
        EXPECT_FALSE(AnyContains(within.flowNetwork->ValidityWarnings(), "per CSMA LAN"));
        Simulator::Destroy();
    }
    {
        FlCsmaSceneHelper h;
        h.SetFidelity(FlFidelity::Flow);
        h.SetFlowMessageLoss(0.01);
        FlScene scene = h.Build(2);
        EXPECT_TRUE(AnyContains(scene.flowNetwork->ValidityWarnings(), "loss probability"));
        Simulator::Destroy();
    }
}

/// Two transports on a flow-level CSMA LAN (server node listening on 9000, one client node).
struct Pair
{
    FlScene scene;
    Ptr<FlTransport> server;
    Ptr<FlTransport> client;
    std::vector<uint32_t> received; ///< rounds of the delivered messages
};

std::shared_ptr<Pair>
MakePair(double loss, uint32_t maxMessageBytes = fl::kDefaultMaxMessageBytes)
{
    auto p = std::make_shared<Pair>();
    FlCsmaSceneHelper h;
    h.SetFidelity(FlFidelity::Flow);
    h.SetFlowMessageLoss(loss);
    p->scene = h.Build(1);
    FlTransportConfig c;
    c.kind = FlTransportKind::Flow;
    c.maxMessageBytes = maxMessageBytes;
    p->server = FlTransport::Create(p->scene.serverNode, 0, c);
    p->client = FlTransport::Create(p->scene.clients.Get(0), 1, c);
    EXPECT_TRUE(p->server->Listen(9000));
    EXPECT_TRUE(p->client->Open());
    Pair* raw = p.get();
    p->server->SetReceiveCallback(FlCallback<void, FlInboundMessage&>(
        [raw](FlInboundMessage& in) { raw->received.push_back(in.msg.header.round); }));
    return p;
}

std::vector<uint32_t>
LossPattern(uint32_t run)
{
    RngSeedManager::SetRun(run);
    auto p = MakePair(0.3);
    p->scene.flowNetwork->AssignStreams(7);
    const Address to = InetSocketAddress(p->scene.serverAddress, 9000);
    for (uint32_t i = 0; i < 200; ++i)
    {
        p->client->SendRaw(to, {fl::MessageKind::Control, i, 0, 0, 0}, std::vector<uint8_t>(16));
    }
    Simulator::Run();
    std::vector<uint32_t> out = p->received;
    p->server->Close();
    p->client->Close();
    Simulator::Destroy();
    RngSeedManager::SetRun(1);
    return out;
}

TEST(FlowFidelity, LossIsReproducedByRngRun)
{
    const auto a = LossPattern(1);
    const auto b = LossPattern(1);
    const auto c = LossPattern(2);
    EXPECT_EQ(a, b);
    EXPECT_NE(a, c);
    // about 30 % lost, and what arrives arrives in order
    EXPECT_GT(a.size(), 100u);
    EXPECT_LT(a.size(), 180u);
    EXPECT_TRUE(std::is_sorted(a.begin(), a.end()));
}

TEST(FlowFidelity, MalformedAndOversizedMessagesAreCountedAndDropped)
{
    const uint32_t bound = 4096;
    auto p = MakePair(0.0, bound);
    const Address to = InetSocketAddress(p->scene.serverAddress, 9000);
    // an oversized raw message (its header declares more than the receiver's bound)
    p->client->SendRaw(to, {fl::MessageKind::Control, 1, 0, 0, 0}, std::vector<uint8_t>(2 * bound));
    // bytes that are no message at all, from a node of the network
    auto junk = std::make_shared<std::vector<uint8_t>>(100, 0xAB);
    EXPECT_TRUE(p->scene.flowNetwork->Transmit(p->scene.clients.Get(0)->GetId(),
                                               InetSocketAddress(p->scene.clients.Get(0)
                                                                     ->GetObject<FlFlowStack>()
                                                                     ->GetNetwork()
                                                                     ->GetInterfaces(
                                                                         p->scene.clients.Get(0)
                                                                             ->GetId())
                                                                     .front()
                                                                     .address,
                                                                 5),
                                               to,
                                               junk));
    // a message with a corrupted payload (message CRC fails)
    auto bytes = std::make_shared<std::vector<uint8_t>>();
    fl::EncodeRawMessage({fl::MessageKind::Control, 2, 1, 0, 0}, junk->data(), 10, *bytes);
    bytes->back() ^= 0xFF;
    p->scene.flowNetwork->Transmit(p->scene.clients.Get(0)->GetId(),
                                   InetSocketAddress(Ipv4Address("10.1.0.2"), 6),
                                   to,
                                   bytes);
    // a truncated message
    auto cut = std::make_shared<std::vector<uint8_t>>();
    fl::EncodeRawMessage({fl::MessageKind::Control, 3, 1, 0, 0}, junk->data(), 50, *cut);
    cut->resize(cut->size() - 10);
    p->scene.flowNetwork->Transmit(p->scene.clients.Get(0)->GetId(),
                                   InetSocketAddress(Ipv4Address("10.1.0.2"), 7),
                                   to,
                                   cut);
    // then a valid message still arrives
    p->client->SendRaw(to, {fl::MessageKind::Control, 9, 0, 0, 0}, std::vector<uint8_t>(16));
    // nothing listens there: counted as unsent, not a crash
    p->client->SendRaw(InetSocketAddress(p->scene.serverAddress, 9999),
                       {fl::MessageKind::Control, 10, 0, 0, 0},
                       std::vector<uint8_t>(16));
    Simulator::Run();
    EXPECT_EQ(p->received, std::vector<uint32_t>({9}));
    const FlTransportStats s = p->server->Stats();
    EXPECT_EQ(s.malformed, 4u);
    EXPECT_EQ(s.messagesDelivered, 1u);
    EXPECT_EQ(p->client->Stats().messagesUnsent, 1u);
    p->server->Close();
    p->client->Close();
    Simulator::Destroy();
}

TEST(FlowFidelity, FlowTransportNeedsAFlowScene)
{
    Ptr<Node> n = CreateObject<Node>();
    FlTransportConfig c;
    c.kind = FlTransportKind::Flow;
    EXPECT_THROW(FlTransport::Create(n, 0, c), fl::ConfigError);
    Simulator::Destroy();
}

} // namespace

// A SYN sent `early` before the link is up: ns-3 sends it again after T, 2T, 4T, ... (SYNs at
// 0, T, 3T, 7T); the first at or after the ready time gets through.
TEST(FlFlowNetwork, SynRetryWaitDoublesAsTcpSocketBase)
{
    const Time t = Seconds(1);
    EXPECT_EQ(FlSynRetryWait(Time(), t), Time());
    EXPECT_EQ(FlSynRetryWait(Seconds(-2), t), Time());
    EXPECT_EQ(FlSynRetryWait(MilliSeconds(1), t), Seconds(1));
    EXPECT_EQ(FlSynRetryWait(Seconds(1), t), Seconds(1));
    EXPECT_EQ(FlSynRetryWait(MilliSeconds(1001), t), Seconds(3));
    EXPECT_EQ(FlSynRetryWait(Seconds(3), t), Seconds(3));
    EXPECT_EQ(FlSynRetryWait(Seconds(5), t), Seconds(7));
    EXPECT_EQ(FlSynRetryWait(Seconds(40), t), Seconds(63));
    EXPECT_EQ(FlSynRetryWait(MilliSeconds(100), Seconds(3)), Seconds(3)); // ns-3's 3 s
    EXPECT_EQ(FlSynRetryWait(Seconds(4), Seconds(3)), Seconds(9));
}
