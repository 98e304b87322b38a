/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Asynchronous FL on the strategy seam, over the network: FedAsyncStrategy and FedBuffStrategy
 * on the generic server and clients. Every model version of a network run equals the in-process
 * replay (fl::ReplayAsync) of the same arrival sequence, bit for bit; a stale update is weighted
 * by s(tau); secure aggregation refuses FedAsync (FedBuff runs it per buffer:
 * test-secbuff-network).
 */
#include "fl-test-config-error.h"
#include "fl-test-task.h"

#include "ns3/async-fl.h"
#include "ns3/core-module.h"
#include "ns3/error-model.h"
#include "ns3/fl-async-strategies.h"
#include "ns3/fl-helper.h"
#include "ns3/fl-network-scenarios.h"
#include "ns3/lte-ue-net-device.h"
#include "ns3/lte-ue-phy.h"

#include <algorithm>
#include <cmath>
#include <gtest/gtest.h>
#include <map>
#include <set>

using namespace ns3;

namespace
{

struct Version
{
    uint32_t round{0};
    std::vector<FlUpdateInfo> updates;
    fl::ParamVector model;
};

struct AsyncRun
{
    std::vector<Version> versions; ///< round 0 (initial model) first
    std::vector<uint64_t> seeds;
    uint32_t completed{0};
    FlServerApplication::Counters counters;
    std::vector<FlRoundRecord> rounds;    ///< the learning monitor's rows
    std::map<uint32_t, Time> roundStarts; ///< when each version was first sent
    /// each client's trainings: (version trained on, when its model came, compute time)
    std::vector<std::vector<FlTrainingReport>> trainings;
};

void
RecordStart(std::map<uint32_t, Time>* out, uint32_t round, const std::vector<uint32_t>&)
{
    out->emplace(round, Simulator::Now());
}

void
RecordTraining(std::vector<std::vector<FlTrainingReport>>* out, const FlTrainingReport& r)
{
    out->at(r.client).push_back(r);
}

void
Record(std::vector<Version>* out, const FlRoundReport& r)
{
    out->push_back(Version{r.round, r.updates, *r.globalModel});
}

/// A UDP run in which the last client hears nothing during [from, until) (its device loses
/// every frame it receives), its computation `slowdown` times slower than in the other runs.
struct Outage
{
    double from{0.0};     ///< [s]
    double until{0.0};    ///< [s]
    double slowdown{1.0}; ///< every client's compute time x this
};

/**
 * n clients on a CSMA LAN, client i computing (1 + 3 i) times slower than client 0; over TCP,
 * or over UDP with `outage`.
 */
AsyncRun
RunAsync(std::shared_ptr<const fl::LearningTask> task,
         const std::string& strategy,
         const std::string& attr,
         const AttributeValue& value,
         uint32_t versions,
         uint32_t concurrency = 0,
         const Outage* outage = nullptr)
{
    const uint32_t n = static_cast<uint32_t>(task->NumClients());
    FlCsmaSceneHelper csma;
    FlScene scene = csma.Build(n);
    if (outage)
    {
        Ptr<RateErrorModel> em = CreateObject<RateErrorModel>();
        em->SetAttribute("ErrorUnit", StringValue("ERROR_UNIT_PACKET"));
        em->SetAttribute("ErrorRate", DoubleValue(1.0));
        em->Disable();
        scene.devices.Get(n)->SetAttribute("ReceiveErrorModel", PointerValue(em));
        Simulator::Schedule(Seconds(outage->from), &ErrorModel::Enable, em);
        Simulator::Schedule(Seconds(outage->until), &ErrorModel::Disable, em);
    }
    FlFedAvgHelper fedavg(task);
    if (outage)
    {
        fedavg.SetTransportAttribute("Transport", StringValue("udp"));
    }
    fedavg.SetServerAttribute("Rounds", UintegerValue(versions));
    fedavg.SetServerAttribute("InitSeed", UintegerValue(7));
    fedavg.SetServerAttribute("ClientsPerRound", UintegerValue(concurrency));
    fedavg.SetStrategy(strategy, attr, value);
    FlFedAvgStack stack = fedavg.Install(scene.serverNode, scene.clients, scene.serverAddress);
    AsyncRun run;
    for (uint32_t i = 0; i < n; ++i)
    {
        run.seeds.push_back(100 + i);
        stack.clientApps.Get(i)->SetAttribute("TrainingSeed", UintegerValue(run.seeds.back()));
        stack.clientApps.Get(i)->SetAttribute(
            "SecondsPerSample",
            DoubleValue(0.001 * (1 + 3 * i) * (outage ? outage->slowdown : 1.0)));
    }
    stack.server->TraceConnectWithoutContext("RoundEnd",
                                             MakeBoundCallback(&Record, &run.versions));
    stack.server->TraceConnectWithoutContext("RoundStart",
                                             MakeBoundCallback(&RecordStart, &run.roundStarts));
    run.trainings.resize(n);
    for (uint32_t i = 0; i < n; ++i)
    {
        stack.clientApps.Get(i)->TraceConnectWithoutContext(
            "RoundTrained",
            MakeBoundCallback(&RecordTraining, &run.trainings));
    }
    Simulator::Stop(Seconds(120));
    Simulator::Run();
    EXPECT_TRUE(stack.server->IsFinished());
    run.completed = stack.server->GetCompletedRounds();
    run.counters = stack.server->GetCounters();
    run.rounds = stack.monitor->GetRecords();
    Simulator::Destroy();
    return run;
}

/// The in-process replay of the run's arrivals (in commit order, then arrival order).
std::vector<fl::ParamVector>
Replay(const fl::LearningTask& task, const AsyncRun& run, fl::AsyncRule& rule)
{
    std::vector<fl::AsyncArrival> arrivals;
    for (std::size_t v = 1; v < run.versions.size(); ++v)
    {
        for (const FlUpdateInfo& u : run.versions[v].updates)
        {
            arrivals.push_back({u.client, u.trainedRound});
        }
    }
    auto train = [&](uint32_t client, uint32_t version, const fl::ParamVector& model) {
        fl::Rng rng(fl::DeriveSeed(run.seeds.at(client), version));
        return task.TrainClient(client, model, rng).params;
    };
    return fl::ReplayAsync(run.versions.at(0).model, arrivals, rule, train);
}

} // namespace

TEST(AsyncNetwork, FedAsyncEqualsTheReplayOfItsArrivalsBitForBit)
{
    auto task = fltest::MakeTask<double>(4, "softmax");
    const uint32_t versions = 16;
    AsyncRun run = RunAsync(task, "ns3::FedAsyncStrategy", "Alpha", DoubleValue(0.6), versions);
    ASSERT_EQ(run.completed, versions);
    ASSERT_EQ(run.versions.size(), versions + 1u);
    fl::FedAsyncConfig c; // the strategy's defaults: alpha 0.6, polynomial, a = 0.5
    fl::FedAsyncRule rule(c);
    const auto replay = Replay(*task, run, rule);
    ASSERT_EQ(replay.size(), run.versions.size());
    uint32_t staleSeen = 0;
    for (std::size_t v = 0; v < replay.size(); ++v)
    {
        EXPECT_TRUE(replay[v] == run.versions[v].model) << "version " << v + 1;
        EXPECT_EQ(run.versions[v].round, v) << "one round per version";
        if (v == 0)
        {
            continue;
        }
        ASSERT_EQ(run.versions[v].updates.size(), 1u); // FedAsync: every update is a version
        const FlUpdateInfo& u = run.versions[v].updates[0];
        EXPECT_EQ(u.staleness, run.versions[v].round - u.trainedRound);
        // alpha_t = alpha s(tau) = 0.6 (1 + tau)^-1/2
        EXPECT_NEAR(u.weight, 0.6 / std::sqrt(1.0 + u.staleness), 1e-12);
        if (u.staleness >= 2)
        {
            ++staleSeen;
        }
    }
    // the slow clients' updates arrive two or more versions late, and are weighted by s(tau)
    EXPECT_GE(staleSeen, 2u);
    EXPECT_GT(run.counters.staleAccepted, 0u);
}

TEST(AsyncNetwork, FedBuffEqualsTheReplayOfItsArrivalsBitForBit)
{
    auto task = fltest::MakeTask<double>(4, "softmax");
    const uint32_t versions = 6;
    AsyncRun run = RunAsync(task, "ns3::FedBuffStrategy", "BufferSize", UintegerValue(3), versions);
    ASSERT_EQ(run.completed, versions);
    fl::FedBuffConfig c;
    c.bufferSize = 3;
    fl::FedBuffRule rule(c);
    const auto replay = Replay(*task, run, rule);
    ASSERT_EQ(replay.size(), run.versions.size());
    uint32_t staleSeen = 0;
    for (std::size_t v = 0; v < replay.size(); ++v)
    {
        EXPECT_TRUE(replay[v] == run.versions[v].model) << "version " << v + 1;
        if (v == 0)
        {
            continue;
        }
        ASSERT_EQ(run.versions[v].updates.size(), 3u); // K updates per version
        for (const FlUpdateInfo& u : run.versions[v].updates)
        {
            EXPECT_NEAR(u.weight, 1.0 / std::sqrt(1.0 + u.staleness), 1e-12);
            staleSeen += u.staleness >= 2 ? 1 : 0;
        }
    }
    EXPECT_GE(staleSeen, 1u);
}

// FedBuff (K = 3 of 4 clients) sends the fast client the current version again while the
// buffer fills: client 0 trains three times on version 1 (0.04 s each), and the first buffer
// holds its three updates. The round's breakdown (means over the fresh updates of download,
// compute, upload and waiting) must pair each update with the training it came from: the k-th
// update of a client on a version with its k-th training on it (a client trains on one model
// at a time). Paired with the client's latest training instead, the first update would have
// arrived before its training ended (a negative upload time).
TEST(AsyncNetwork, FedBuffBreakdownPairsEachUpdateWithItsOwnTraining)
{
    auto task = fltest::MakeTask<double>(4, "softmax");
    AsyncRun run = RunAsync(task, "ns3::FedBuffStrategy", "BufferSize", UintegerValue(3), 6);
    ASSERT_EQ(run.completed, 6u);
    ASSERT_GE(run.versions.size(), 2u);
    const auto& v1 = run.versions.at(1);
    ASSERT_EQ(v1.round, 1u);
    ASSERT_EQ(v1.updates.size(), 3u);
    const Time start = run.roundStarts.at(1);
    std::map<uint32_t, uint32_t> seen; // client -> its updates on version 1 so far
    std::vector<const FlUpdateInfo*> byArrival;
    for (const FlUpdateInfo& u : v1.updates)
    {
        byArrival.push_back(&u);
    }
    std::sort(byArrival.begin(), byArrival.end(), [](const FlUpdateInfo* a, const FlUpdateInfo* b) {
        return a->arrival < b->arrival;
    });
    double sums[4] = {0.0, 0.0, 0.0, 0.0};
    uint32_t twice = 0;
    for (const FlUpdateInfo* u : byArrival)
    {
        ASSERT_EQ(u->trainedRound, 1u);
        ASSERT_EQ(u->staleness, 0u);
        // the client's k-th training on version 1
        const uint32_t k = seen[u->client]++;
        twice += k >= 1 ? 1 : 0;
        const FlTrainingReport* t = nullptr;
        uint32_t count = 0;
        for (const FlTrainingReport& r : run.trainings.at(u->client))
        {
            if (r.round == 1 && count++ == k)
            {
                t = &r;
            }
        }
        ASSERT_NE(t, nullptr);
        const Time sent = t->received + t->computeTime;
        ASSERT_GT(u->arrival, sent);
        sums[0] += (t->received - start).GetSeconds();
        sums[1] += t->computeTime.GetSeconds();
        sums[2] += (u->arrival - sent).GetSeconds();
        sums[3] += (run.rounds.at(1).timeS - u->arrival.GetSeconds());
    }
    EXPECT_GE(twice, 1u); // the case that needs the pairing happened
    const FlRoundRecord& r = run.rounds.at(1);
    ASSERT_EQ(r.round, 1u);
    EXPECT_NEAR(r.downloadS, sums[0] / 3, 1e-12);
    EXPECT_NEAR(r.computeS, sums[1] / 3, 1e-12);
    EXPECT_NEAR(r.uploadS, sums[2] / 3, 1e-12);
    EXPECT_NEAR(r.waitingS, sums[3] / 3, 1e-12);
    EXPECT_GT(r.uploadS, 0.0);
    EXPECT_LT(r.uploadS, 0.01); // a model of 4 KB over a 100 Mb/s LAN
    EXPECT_NEAR(r.downloadS + r.computeS + r.uploadS + r.waitingS, r.durationS, 1e-9);
}

TEST(AsyncNetwork, ConcurrencyKeepsCClientsBusy)
{
    // C = 2 of 4 clients: only the two clients sampled at the start ever train.
    auto task = fltest::MakeTask<double>(4, "softmax");
    AsyncRun run =
        RunAsync(task, "ns3::FedAsyncStrategy", "Alpha", DoubleValue(0.5), 8, /* C = */ 2);
    ASSERT_EQ(run.completed, 8u);
    std::set<uint32_t> clients;
    for (std::size_t v = 1; v < run.versions.size(); ++v)
    {
        clients.insert(run.versions[v].updates.at(0).client);
    }
    EXPECT_EQ(clients.size(), 2u);
    fl::FedAsyncConfig c;
    c.alpha = 0.5;
    fl::FedAsyncRule rule(c);
    const auto replay = Replay(*task, run, rule);
    EXPECT_TRUE(replay.back() == run.versions.back().model);
}

// FedAsync over UDP; client 3 (4 s per update) hears nothing from 1 s to 12 s: the model sent
// to it after its first update is lost, and once the server's transport gives that message up
// (its probes spent after 6.4 s) the
// strategy sends it the current model again (UpdateLost), so client 3 keeps contributing after
// the outage (without it, it would never get another model). Every version still equals the
// replay of the arrivals bit for bit.
TEST(AsyncNetwork, FedAsyncOverUdpSendsAgainAfterALostModel)
{
    auto task = fltest::MakeTask<double>(4, "softmax");
    const Outage outage{1.0, 12.0, 10.0};
    AsyncRun run =
        RunAsync(task, "ns3::FedAsyncStrategy", "Alpha", DoubleValue(0.6), 80, 0, &outage);
    ASSERT_EQ(run.completed, 80u);
    EXPECT_GE(run.counters.messagesGivenUp, 1u);
    uint32_t afterOutage = 0;
    for (std::size_t v = 1; v < run.versions.size(); ++v)
    {
        for (const FlUpdateInfo& u : run.versions[v].updates)
        {
            afterOutage += (u.client == 3 && u.arrival > Seconds(outage.until)) ? 1 : 0;
        }
    }
    EXPECT_GE(afterOutage, 1u);
    fl::FedAsyncConfig c;
    fl::FedAsyncRule rule(c);
    const auto replay = Replay(*task, run, rule);
    ASSERT_EQ(replay.size(), run.versions.size());
    for (std::size_t v = 0; v < replay.size(); ++v)
    {
        EXPECT_TRUE(replay[v] == run.versions[v].model) << "version " << v;
    }
}

TEST(AsyncNetwork, SecureAggregationAndUnknownStrategiesAreRefused)
{
    auto task = fltest::MakeTask<double>(3, "softmax");
    FlCsmaSceneHelper csma;
    FlScene scene = csma.Build(3);
    {
        FlFedAvgHelper fedavg(task);
        fedavg.SetStrategy("ns3::FedAsyncStrategy");
        fedavg.SetSecureAggregation(FlSecAggHelper());
        fltest::ExpectConfigError(
            [&] { fedavg.Install(scene.serverNode, scene.clients, scene.serverAddress); },
            "strategy",
            "asynchronous");
    }
    {
        FlFedAvgHelper fedavg(task);
        // FedBuff runs one secure aggregation per buffer of BufferSize clients (10 by default):
        // three clients cannot form one
        fedavg.SetStrategy("ns3::FedBuffStrategy");
        fedavg.SetSecureAggregation(FlSecAggHelper());
        fltest::ExpectConfigError(
            [&] { fedavg.Install(scene.serverNode, scene.clients, scene.serverAddress); },
            "clients",
            "cohort of 10");
    }
    {
        FlFedAvgHelper fedavg(task);
        fltest::ExpectConfigError([&] { fedavg.SetStrategy("ns3::NoSuchStrategy"); },
                                  "strategy",
                                  "FedBuffStrategy");
    }
    Simulator::Destroy();
}

// An asynchronous strategy with a round deadline is a configuration error found when the server
// starts, inside Simulator::Run: the run ends with the reason and exit status 2.
TEST(AsyncNetwork, DeadlineWithAnAsynchronousStrategyEndsTheRunWithStatus2)
{
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    EXPECT_EXIT(
        {
            auto task = fltest::MakeTask<double>(3, "softmax");
            FlCsmaSceneHelper csma;
            FlScene scene = csma.Build(3);
            FlFedAvgHelper fedavg(task);
            fedavg.SetServerAttribute("RoundDeadline", TimeValue(Seconds(1)));
            fedavg.SetStrategy("ns3::FedAsyncStrategy");
            fedavg.Install(scene.serverNode, scene.clients, scene.serverAddress);
            Simulator::Stop(Seconds(10));
            Simulator::Run();
        },
        ::testing::ExitedWithCode(2),
        "invalid RoundDeadline:.*asynchronous");
}

namespace
{
// A strategy that selects by the link state its port reports: from round 2 on, the two clients
// that answered fastest in their last round (the server's measured response time).
class FastestResponders : public FedAvgStrategy
{
  public:
    bool SelectClients(uint32_t round,
                       const std::vector<uint32_t>& eligible,
                       std::vector<uint32_t>& selected) override
    {
        if (round == 1)
        {
            return false; // everybody once, so that every link is measured
        }
        std::vector<std::pair<double, uint32_t>> byTime;
        for (uint32_t k : eligible)
        {
            const FlLinkState st = Port().linkState(k);
            byTime.emplace_back(st.lastResponse.GetSeconds(), k);
            seen.push_back(st);
        }
        std::sort(byTime.begin(), byTime.end());
        selected = {byTime.at(0).second, byTime.at(1).second};
        std::sort(selected.begin(), selected.end());
        return true;
    }

    std::vector<FlLinkState> seen;
};

/// Runs the stack's three rounds (at most 60 s) and returns the clients selected in each.
std::vector<std::vector<uint32_t>>
RunAndRecordSelections(const FlFedAvgStack& stack)
{
    std::vector<std::vector<uint32_t>> selected;
    stack.server->TraceConnectWithoutContext(
        "RoundStart",
        MakeBoundCallback(
            +[](std::vector<std::vector<uint32_t>>* out, uint32_t, const std::vector<uint32_t>& s) {
                out->push_back(s);
            },
            &selected));
    Simulator::Stop(Seconds(60));
    Simulator::Run();
    EXPECT_TRUE(stack.server->IsFinished());
    Simulator::Destroy();
    return selected;
}
} // namespace

TEST(StrategyPort, AStrategySelectsClientsByTheirMeasuredLinkState)
{
    auto task = fltest::MakeTask<double>(4, "softmax");
    FlCsmaSceneHelper csma;
    FlScene scene = csma.Build(4);
    FlFedAvgHelper fedavg(task);
    fedavg.SetServerAttribute("Rounds", UintegerValue(3));
    Ptr<FastestResponders> strategy = CreateObject<FastestResponders>();
    fedavg.SetStrategy(strategy);
    FlFedAvgStack stack = fedavg.Install(scene.serverNode, scene.clients, scene.serverAddress);
    for (uint32_t i = 0; i < 4; ++i)
    {
        // client 3 fastest, then 2, 1, 0
        stack.clientApps.Get(i)->SetAttribute("SecondsPerSample", DoubleValue(0.001 * (4 - i)));
    }
    const std::vector<std::vector<uint32_t>> selected = RunAndRecordSelections(stack);
    ASSERT_EQ(selected.size(), 3u);
    EXPECT_EQ(selected[0].size(), 4u);
    EXPECT_EQ(selected[1], (std::vector<uint32_t>{2, 3}));
    EXPECT_EQ(selected[2], (std::vector<uint32_t>{2, 3}));
    ASSERT_FALSE(strategy->seen.empty());
    for (const FlLinkState& st : strategy->seen)
    {
        EXPECT_GT(st.lastResponse.GetSeconds(), 0.0); // measured
        EXPECT_TRUE(std::isnan(st.snrDb));           // a CSMA LAN has no SNR
        EXPECT_EQ(st.rateBps, 100e6);                // the LAN's data rate (the default)
        EXPECT_EQ(st.rtt, NanoSeconds(2 * 6560));    // twice its delay (the default)
    }
}

TEST(SceneLinkState, SnrIsSignalMinusNoise)
{
    EXPECT_NEAR(FlSnrDb(-60.5, -93.97), 33.47, 1e-12);
    EXPECT_NEAR(FlSnrDb(-95.0, -93.97), -1.03, 1e-12);
}

TEST(SceneLinkState, WiredScenesKnowRateAndDelayFlowScenesNothing)
{
    FlPointToPointStarHelper star;
    star.SetDelay(MilliSeconds(3));
    Ptr<DeterministicRandomVariable> mbps = CreateObject<DeterministicRandomVariable>();
    double rates[] = {5.0, 20.0};
    mbps->SetValueArray(rates, 2);
    star.SetDataRateVariable(mbps);
    FlScene s = star.Build(2);
    Ptr<FlSceneLinkState> links = FlGetSceneLinkState(s.serverNode);
    ASSERT_TRUE(links);
    EXPECT_EQ(links->Get(0).rateBps, 5e6);
    EXPECT_EQ(links->Get(1).rateBps, 20e6);
    EXPECT_EQ(links->Get(1).rtt, MilliSeconds(6));
    EXPECT_TRUE(std::isnan(links->Get(1).snrDb));
    EXPECT_TRUE(std::isnan(links->Get(2).rateBps)); // no such client

    FlCsmaSceneHelper flow;
    flow.SetFidelity(FlFidelity::Flow);
    FlScene f = flow.Build(2);
    EXPECT_FALSE(FlGetSceneLinkState(f.serverNode));
    Simulator::Destroy();
}

namespace
{
// A strategy that selects by channel quality: from round 2 on, the two clients whose frames
// arrived at the AP with the highest SNR (the scene's link state).
class BestSnr : public FedAvgStrategy
{
  public:
    bool SelectClients(uint32_t round,
                       const std::vector<uint32_t>& eligible,
                       std::vector<uint32_t>& selected) override
    {
        if (round == 1)
        {
            return false; // everybody once, so that the AP hears every station's data
        }
        std::vector<std::pair<double, uint32_t>> bySnr;
        for (uint32_t k : eligible)
        {
            const FlLinkState st = Port().linkState(k);
            bySnr.emplace_back(-st.snrDb, k);
            seen.emplace_back(k, st);
        }
        std::sort(bySnr.begin(), bySnr.end());
        selected = {bySnr.at(0).second, bySnr.at(1).second};
        std::sort(selected.begin(), selected.end());
        return true;
    }

    std::vector<std::pair<uint32_t, FlLinkState>> seen;
};
} // namespace

TEST(StrategyPort, AStrategySelectsTheClientsWithTheBestSnrOnWifi)
{
    const std::vector<double> distance = {30.0, 5.0, 20.0, 10.0}; // metres from the AP
    auto task = fltest::MakeTask<double>(4, "softmax");
    FlWifiScenarioHelper wifi;
    Ptr<ListPositionAllocator> at = CreateObject<ListPositionAllocator>();
    for (double d : distance)
    {
        at->Add(Vector(d, 0.0, 0.0));
    }
    wifi.SetPositionAllocator(at);
    FlScene scene = wifi.Build(4);
    FlWifiScenarioHelper::AssignStreams(scene, 100);
    FlFedAvgHelper fedavg(task);
    fedavg.SetServerAttribute("Rounds", UintegerValue(3));
    Ptr<BestSnr> strategy = CreateObject<BestSnr>();
    fedavg.SetStrategy(strategy);
    FlFedAvgStack stack = fedavg.Install(scene.serverNode, scene.clients, scene.serverAddress);
    const std::vector<std::vector<uint32_t>> selected = RunAndRecordSelections(stack);
    ASSERT_EQ(selected.size(), 3u);
    EXPECT_EQ(selected[0].size(), 4u);
    // the two nearest stations: client 1 (5 m) and client 3 (10 m)
    EXPECT_EQ(selected[1], (std::vector<uint32_t>{1, 3}));
    EXPECT_EQ(selected[2], (std::vector<uint32_t>{1, 3}));
    // round 2 saw every station: the SNR falls with the distance, every rate is known
    ASSERT_GE(strategy->seen.size(), 4u);
    std::vector<std::pair<double, double>> snrByDistance;
    for (uint32_t i = 0; i < 4; ++i)
    {
        const auto& [k, st] = strategy->seen[i];
        EXPECT_TRUE(std::isfinite(st.snrDb));
        EXPECT_GT(st.rateBps, 0.0);
        EXPECT_LT(st.rtt, Seconds(0)); // Wi-Fi: unknown
        snrByDistance.emplace_back(distance.at(k), st.snrDb);
    }
    std::sort(snrByDistance.begin(), snrByDistance.end());
    for (uint32_t i = 1; i < 4; ++i)
    {
        EXPECT_GT(snrByDistance[i - 1].second, snrByDistance[i].second + 1.0)
            << "at " << snrByDistance[i].first << " m";
    }
}

namespace
{
// Records the link state the port reports in round 2.
class RecordLinks : public FedAvgStrategy
{
  public:
    bool SelectClients(uint32_t round,
                       const std::vector<uint32_t>& eligible,
                       std::vector<uint32_t>&) override
    {
        if (round == 2)
        {
            for (uint32_t k : eligible)
            {
                seen.push_back(Port().linkState(k));
            }
        }
        return false;
    }

    std::vector<FlLinkState> seen;
};

/// Runs two FedAvg rounds on the scene and returns the link states the port reported in round 2.
std::vector<FlLinkState>
RecordedLinks(std::shared_ptr<const fl::LearningTask> task, const FlScene& scene)
{
    FlFedAvgHelper fedavg(task);
    fedavg.SetServerAttribute("Rounds", UintegerValue(2));
    Ptr<RecordLinks> strategy = CreateObject<RecordLinks>();
    fedavg.SetStrategy(strategy);
    FlFedAvgStack stack = fedavg.Install(scene.serverNode, scene.clients, scene.serverAddress);
    Simulator::Stop(Seconds(60));
    Simulator::Run();
    EXPECT_TRUE(stack.server->IsFinished());
    Simulator::Destroy();
    return strategy->seen;
}
} // namespace

TEST(SceneLinkState, WifiAdhocReportsTheSnrAtTheServer)
{
    auto task = fltest::MakeTask<double>(2, "softmax");
    FlWifiAdhocSceneHelper adhoc;
    Ptr<ListPositionAllocator> at = CreateObject<ListPositionAllocator>();
    at->Add(Vector(20.0, 0.0, 0.0)); // client 0: 20 m from the server
    at->Add(Vector(5.0, 0.0, 0.0));  // client 1: 5 m
    adhoc.SetPositionAllocator(at);
    FlScene scene = adhoc.Build(2);
    FlWifiAdhocSceneHelper::AssignStreams(scene, 100);
    const std::vector<FlLinkState> seen = RecordedLinks(task, scene);
    ASSERT_EQ(seen.size(), 2u);
    for (const FlLinkState& st : seen)
    {
        EXPECT_TRUE(std::isfinite(st.snrDb));
        EXPECT_GT(st.rateBps, 0.0);
    }
    // log-distance path loss, exponent 3: 4x the distance is 18 dB less
    EXPECT_NEAR(seen[1].snrDb - seen[0].snrDb, 18.06, 0.5);
}

TEST(SceneLinkState, LteReportsEachUesUplinkSinr)
{
    auto task = fltest::MakeTask<double>(2, "softmax");
    FlLteSceneHelper lte;
    Ptr<ListPositionAllocator> at = CreateObject<ListPositionAllocator>();
    at->Add(Vector(40.0, 0.0, 0.0)); // client 0: 40 m from the eNB
    at->Add(Vector(10.0, 0.0, 0.0)); // client 1: 10 m
    lte.SetPositionAllocator(at);
    FlScene scene = lte.Build(2);
    FlLteSceneHelper::AssignStreams(scene, 100);
    // ns-3's uplink power control compensates the whole path loss (Alpha 1): without it the
    // nearer UE arrives with the higher SINR
    for (uint32_t i = 1; i <= 2; ++i)
    {
        DynamicCast<LteUeNetDevice>(scene.devices.Get(i))
            ->GetPhy()
            ->SetAttribute("EnableUplinkPowerControl", BooleanValue(false));
    }
    const std::vector<FlLinkState> seen = RecordedLinks(task, scene);
    ASSERT_EQ(seen.size(), 2u);
    for (const FlLinkState& st : seen)
    {
        EXPECT_TRUE(std::isfinite(st.snrDb));
        EXPECT_TRUE(std::isnan(st.rateBps)); // the cell knows no per-UE rate
    }
    // Friis: 4x the distance is 12 dB less
    EXPECT_GT(seen[1].snrDb, seen[0].snrDb + 6.0);
}
