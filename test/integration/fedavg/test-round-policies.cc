/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Rounds under pressure on small scripted scenarios (point-to-point star, TCP or UDP): round
 * deadline, straggler policies (drop / accept with staleness), minimum quorum (skip / repeat),
 * failure injection (silent rounds, a client leaving mid-round), client sampling, and FedAvg
 * over lossy UDP with each hole policy. Where the outcome is a model, it is checked bit for bit
 * against an in-process computation with the same seeds.
 */
#include "fl-test-task.h"

#include "ns3/core-module.h"
#include "ns3/fedavg.h"
#include "ns3/fl-helper.h"
#include "ns3/fl-network-scenarios.h"
#include "ns3/learning-monitor.h"
#include "ns3/model-message.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"

#include <gtest/gtest.h>

using namespace ns3;
using fltest::MakeTask;

namespace
{

/// What a scripted run produced.
struct StarRun
{
    std::vector<FlRoundReport> reports;   ///< rounds 0.. (globalModel pointers cleared)
    std::vector<fl::ParamVector> globals; ///< the global model after each report
    std::vector<FlRoundRecord> records;
    std::vector<FlClientRoundRecord> clientRecords;
    std::vector<uint64_t> clientSeeds;
    std::vector<uint32_t> silent; ///< rounds each client stayed silent
    std::vector<FlDatagramStats> clientUdp;
    std::vector<uint32_t> uploadsResent; ///< per client (UDP)
    FlServerApplication::Counters counters;
    FlDatagramStats serverUdp;
    uint32_t completed{0};
    bool finished{false};
};

using ServerTweak = std::function<void(FlServerHelper&)>;
using ClientTweak = std::function<void(ApplicationContainer&)>;
/// Called once the applications are installed (e.g. to schedule a link's outage).
using SceneTweak = std::function<void(const FlScene&, Ptr<FlServerApplication>)>;

/**
 * FedAvg on a point-to-point star (10 Mb/s, 2 ms links). Client k computes for
 * 40 samples x secondsPerSample[k] per round (the test task runs 5 steps of batch 8).
 */
StarRun
RunStar(std::shared_ptr<const fl::LearningTask> task,
        uint32_t rounds,
        const std::vector<double>& secondsPerSample,
        const ServerTweak& serverTweak,
        const ClientTweak& clientTweak,
        double packetLoss = 0.0,
        const SceneTweak& sceneTweak = nullptr)
{
    StarRun out;
    FlPointToPointStarHelper star;
    FlScene scene = star.Build(static_cast<uint32_t>(task->NumClients()));
    if (packetLoss > 0.0)
    {
        for (uint32_t i = 0; i < scene.devices.GetN(); ++i)
        {
            Ptr<RateErrorModel> em = CreateObject<RateErrorModel>();
            em->SetAttribute("ErrorUnit", StringValue("ERROR_UNIT_PACKET"));
            em->SetAttribute("ErrorRate", DoubleValue(packetLoss));
            em->AssignStreams(1000 + i);
            scene.devices.Get(i)->SetAttribute("ReceiveErrorModel", PointerValue(em));
        }
    }
    FlServerHelper sh(task);
    sh.SetAttribute("Rounds", UintegerValue(rounds));
    sh.SetAttribute("InitSeed", UintegerValue(4242));
    if (serverTweak)
    {
        serverTweak(sh);
    }
    ApplicationContainer sapps = sh.Install(scene.serverNode);
    FlClientHelper ch(task, scene.serverAddress);
    ApplicationContainer capps = ch.Install(scene.clients);
    for (uint32_t i = 0; i < capps.GetN(); ++i)
    {
        out.clientSeeds.push_back(1000 + 31 * i);
        capps.Get(i)->SetAttribute("TrainingSeed", UintegerValue(out.clientSeeds.back()));
        capps.Get(i)->SetAttribute("SecondsPerSample", DoubleValue(secondsPerSample.at(i)));
    }
    if (clientTweak)
    {
        clientTweak(capps);
    }
    FlAssignStreams(sapps, 10);
    FlAssignStreams(capps, 20);
    sapps.Start(Seconds(0));
    for (uint32_t i = 0; i < capps.GetN(); ++i)
    {
        capps.Get(i)->SetStartTime(Seconds(0.1) + MilliSeconds(10) * i);
    }
    Ptr<FlServerApplication> server = DynamicCast<FlServerApplication>(sapps.Get(0));
    if (sceneTweak)
    {
        sceneTweak(scene, server);
    }
    server->TraceConnectWithoutContext("RoundEnd",
                                       MakeCallback(+[](StarRun* run, const FlRoundReport& r) {
                                           run->globals.push_back(*r.globalModel);
                                           run->reports.push_back(r);
                                           run->reports.back().globalModel = nullptr;
                                       }).Bind(&out));
    Ptr<LearningMonitor> monitor = CreateObject<LearningMonitor>();
    monitor->SetAttribute("KeepClientRecords", BooleanValue(true)); // read below
    monitor->Install(server);
    monitor->InstallClients(capps);
    Simulator::Stop(Seconds(600));
    Simulator::Run();
    out.records = monitor->GetRecords();
    out.clientRecords = monitor->GetClientRecords();
    out.counters = server->GetCounters();
    out.serverUdp = server->GetDatagramStats();
    out.completed = server->GetCompletedRounds();
    out.finished = server->IsFinished();
    for (uint32_t i = 0; i < capps.GetN(); ++i)
    {
        auto c = DynamicCast<FlClientApplication>(capps.Get(i));
        out.silent.push_back(c->GetRoundsSilent());
        out.clientUdp.push_back(c->GetDatagramStats());
        out.uploadsResent.push_back(c->GetUploadsResent());
    }
    Simulator::Destroy();
    return out;
}

/// The FedAvg aggregate of a report, recomputed in process from the previous global models.
fl::ParamVector
ReferenceAggregate(const fl::LearningTask& task,
                   const StarRun& run,
                   std::size_t reportIndex,
                   double stalenessExponent)
{
    const FlRoundReport& rep = run.reports[reportIndex];
    // The global model sent in round q is the one after the report of round q - 1.
    auto sentIn = [&](uint32_t q) -> const fl::ParamVector& {
        for (std::size_t i = 0; i < run.reports.size(); ++i)
        {
            if (run.reports[i].round == q - 1)
            {
                return run.globals[i];
            }
        }
        throw std::runtime_error("no report for round " + std::to_string(q - 1));
    };
    const fl::ParamVector& current = sentIn(rep.round);
    std::vector<fl::ParamVector> models;
    models.reserve(rep.updates.size());
    std::vector<fl::RoundUpdate> updates;
    for (const auto& u : rep.updates)
    {
        // Each client's training recomputed in process from the model it was sent.
        fl::Rng rng(fl::DeriveSeed(run.clientSeeds[u.client], u.trainedRound));
        const fl::ParamVector& base = sentIn(u.trainedRound);
        models.push_back(task.TrainClient(u.client, base, rng).params);
        fl::RoundUpdate ru;
        ru.model = &models.back();
        ru.base = &base;
        ru.sampleCount = static_cast<double>(task.ClientSamples(u.client));
        ru.staleness = u.staleness;
        updates.push_back(ru);
    }
    fl::RoundAggregationConfig cfg;
    cfg.stalenessExponent = stalenessExponent;
    fl::ParamVector velocity;
    return fl::AggregateRound(current, updates, cfg, velocity);
}

std::vector<uint32_t>
Ids(std::initializer_list<uint32_t> l)
{
    return std::vector<uint32_t>(l);
}

/// Star FedAvg over UDP (retransmit) on every application.
void
UseUdpServer(FlServerHelper& sh)
{
    sh.SetAttribute("Transport", StringValue("udp"));
}

/**
 * A packet error model on `device` that loses every packet it receives while enabled; it
 * starts disabled.
 */
Ptr<RateErrorModel>
Blackout(Ptr<NetDevice> device)
{
    Ptr<RateErrorModel> em = CreateObject<RateErrorModel>();
    em->SetAttribute("ErrorUnit", StringValue("ERROR_UNIT_PACKET"));
    em->SetAttribute("ErrorRate", DoubleValue(1.0));
    em->Disable();
    device->SetAttribute("ReceiveErrorModel", PointerValue(em));
    return em;
}

/// RoundEnd sink: at the end of round 1 the blackouts start, for good.
void
CutAfterRoundOne(std::vector<Ptr<RateErrorModel>> blackouts, const FlRoundReport& r)
{
    if (r.round == 1)
    {
        for (const auto& em : blackouts)
        {
            em->Enable();
        }
    }
}

/// RoundStart sink: 1 s into round 2 the blackout starts; it ends 11 s later.
void
OutageInRoundTwo(Ptr<RateErrorModel> blackout,
                 uint32_t round,
                 const std::vector<uint32_t>& /* selected */)
{
    if (round == 2)
    {
        Simulator::Schedule(Seconds(1), &ErrorModel::Enable, blackout);
        Simulator::Schedule(Seconds(12), &ErrorModel::Disable, blackout);
    }
}

} // namespace

// Client 3 needs 4 s per round, the deadline is 1 s: with the drop policy it never contributes
// (each new model supersedes its computation), every round closes exactly at its deadline with
// one straggler, and the aggregate is that of the three others.
TEST(RoundPolicies, DeadlineDropsTheStraggler)
{
    auto task = MakeTask<double>(4, "softmax:l2=0");
    const StarRun run = RunStar(
        task,
        3,
        {1e-3, 1e-3, 1e-3, 0.1},
        [](FlServerHelper& sh) { sh.SetAttribute("RoundDeadline", TimeValue(Seconds(1))); },
        nullptr);
    ASSERT_TRUE(run.finished);
    ASSERT_EQ(run.reports.size(), 4u);
    for (std::size_t i = 1; i < run.reports.size(); ++i)
    {
        const auto& r = run.reports[i];
        EXPECT_EQ(r.status, FlRoundStatus::Aggregated);
        EXPECT_TRUE(r.deadlineHit);
        EXPECT_EQ(r.end - r.start, Seconds(1));
        EXPECT_EQ(r.selected, Ids({0, 1, 2, 3}));
        EXPECT_EQ(r.participants, Ids({0, 1, 2}));
        EXPECT_EQ(r.stragglers, 1u);
        EXPECT_EQ(r.staleUpdates, 0u);
        EXPECT_TRUE(run.globals[i] == ReferenceAggregate(*task, run, i, 0.5)) << "round " << i;
    }
    EXPECT_EQ(run.counters.staleAccepted, 0u);
}

// Same devices, StragglerPolicy accept: client 3 is not reselected while its update is
// outstanding; its update arrives late, joins a later round with staleness >= 1, and the
// aggregate applies its change to the current model with weight n_3 (1 + s)^-0.5.
TEST(RoundPolicies, AcceptedStragglerJoinsALaterRoundWithItsStaleness)
{
    auto task = MakeTask<double>(4, "softmax:l2=0");
    // Client 3 computes 40 x 0.03 = 1.2 s, the others 0.4 s; deadline 1 s: a round with client
    // 3 ends at its deadline, the next (without it) 0.4 s later, and client 3's update arrives
    // in the middle of that one (staleness 1).
    const StarRun run = RunStar(
        task,
        6,
        {0.01, 0.01, 0.01, 0.03},
        [](FlServerHelper& sh) {
            sh.SetAttribute("RoundDeadline", TimeValue(Seconds(1)));
            sh.SetAttribute("StragglerPolicy", StringValue("accept"));
            sh.SetAttribute("MaxStaleness", UintegerValue(3));
        },
        nullptr);
    ASSERT_TRUE(run.finished);
    uint32_t staleSeen = 0;
    for (std::size_t i = 1; i < run.reports.size(); ++i)
    {
        const auto& r = run.reports[i];
        ASSERT_EQ(r.status, FlRoundStatus::Aggregated);
        for (const auto& u : r.updates)
        {
            if (u.staleness > 0)
            {
                ++staleSeen;
                EXPECT_EQ(u.client, 3u);
                EXPECT_EQ(u.staleness, r.round - u.trainedRound);
                EXPECT_EQ(u.staleness, 1u);
                EXPECT_DOUBLE_EQ(u.weight,
                                 task->ClientSamples(3) * std::pow(1.0 + u.staleness, -0.5));
            }
        }
        // While client 3's update is outstanding it is not selected.
        const bool sel3 = std::find(r.selected.begin(), r.selected.end(), 3u) != r.selected.end();
        if (!sel3)
        {
            EXPECT_EQ(r.selected, Ids({0, 1, 2}));
        }
        EXPECT_TRUE(run.globals[i] == ReferenceAggregate(*task, run, i, 0.5)) << "round " << i;
    }
    EXPECT_GE(staleSeen, 1u);
    if (staleSeen == 0)
    {
        for (const auto& r : run.reports)
        {
            std::cerr << "round " << r.round << " [" << r.start.GetSeconds() << ", "
                      << r.end.GetSeconds() << "] selected " << r.selected.size()
                      << " participants " << r.participants.size() << "\n";
        }
        std::cerr << "stale dropped " << run.counters.staleUpdates << "\n";
    }
    EXPECT_EQ(run.counters.staleAccepted, staleSeen);
    EXPECT_EQ(run.counters.staleUpdates, 0u);
}

// MinQuorum 3 with two clients always late (drop policy): every round is below quorum and
// skipped, the model never changes, and the rounds still count.
TEST(RoundPolicies, BelowQuorumSkippedKeepsTheModel)
{
    auto task = MakeTask<double>(4, "softmax:l2=0");
    const StarRun run = RunStar(
        task,
        3,
        {1e-3, 1e-3, 0.1, 0.1},
        [](FlServerHelper& sh) {
            sh.SetAttribute("RoundDeadline", TimeValue(Seconds(1)));
            sh.SetAttribute("MinQuorum", UintegerValue(3));
            sh.SetAttribute("QuorumPolicy", StringValue("skip"));
        },
        nullptr);
    ASSERT_TRUE(run.finished);
    ASSERT_EQ(run.reports.size(), 4u);
    for (std::size_t i = 1; i < run.reports.size(); ++i)
    {
        EXPECT_EQ(run.reports[i].status, FlRoundStatus::Skipped);
        EXPECT_EQ(run.reports[i].round, i);
        EXPECT_EQ(run.reports[i].completedRounds, i);
        EXPECT_TRUE(run.reports[i].participants.empty());
        EXPECT_TRUE(run.globals[i] == run.globals[0]);
    }
    EXPECT_EQ(run.counters.roundsSkipped, 3u);
    EXPECT_EQ(run.records.back().status, "skipped");
}

// MinQuorum 4 and QuorumPolicy repeat; client 1 is silent in round 1 only: round 1 is repeated
// (new round number 2, same model), then every round aggregates all four clients.
TEST(RoundPolicies, BelowQuorumRepeatedThenAggregated)
{
    auto task = MakeTask<double>(4, "softmax:l2=0");
    const StarRun run = RunStar(
        task,
        2,
        {1e-3, 1e-3, 1e-3, 1e-3},
        [](FlServerHelper& sh) {
            sh.SetAttribute("RoundDeadline", TimeValue(Seconds(1)));
            sh.SetAttribute("MinQuorum", UintegerValue(4));
            sh.SetAttribute("QuorumPolicy", StringValue("repeat"));
        },
        [](ApplicationContainer& c) { c.Get(1)->SetAttribute("SilentRounds", StringValue("1")); });
    ASSERT_TRUE(run.finished);
    ASSERT_EQ(run.reports.size(), 4u); // initial, repeated 1, aggregated 2, aggregated 3
    EXPECT_EQ(run.reports[1].status, FlRoundStatus::Repeated);
    EXPECT_EQ(run.reports[1].completedRounds, 0u);
    EXPECT_TRUE(run.reports[1].deadlineHit);
    EXPECT_TRUE(run.globals[1] == run.globals[0]);
    for (std::size_t i = 2; i < 4; ++i)
    {
        EXPECT_EQ(run.reports[i].status, FlRoundStatus::Aggregated);
        EXPECT_EQ(run.reports[i].round, i);
        EXPECT_EQ(run.reports[i].completedRounds, i - 1);
        EXPECT_EQ(run.reports[i].participants, Ids({0, 1, 2, 3}));
        EXPECT_TRUE(run.globals[i] == ReferenceAggregate(*task, run, i, 0.5));
    }
    EXPECT_EQ(run.silent, (std::vector<uint32_t>{0, 1, 0, 0}));
    EXPECT_EQ(run.counters.roundsRepeated, 1u);
}

// Repeats are bounded: a client silent forever and MaxRepeats 2 give repeated, repeated,
// skipped for every counted round.
TEST(RoundPolicies, RepeatsAreBoundedByMaxRepeats)
{
    auto task = MakeTask<double>(3, "softmax:l2=0");
    const StarRun run = RunStar(
        task,
        2,
        {1e-3, 1e-3, 1e-3},
        [](FlServerHelper& sh) {
            sh.SetAttribute("RoundDeadline", TimeValue(Seconds(0.5)));
            sh.SetAttribute("MinQuorum", UintegerValue(3));
            sh.SetAttribute("QuorumPolicy", StringValue("repeat"));
            sh.SetAttribute("MaxRepeats", UintegerValue(2));
        },
        [](ApplicationContainer& c) {
            c.Get(2)->SetAttribute("DropoutProbability", DoubleValue(1.0));
        });
    ASSERT_TRUE(run.finished);
    std::vector<FlRoundStatus> st;
    for (std::size_t i = 1; i < run.reports.size(); ++i)
    {
        st.push_back(run.reports[i].status);
    }
    using S = FlRoundStatus;
    EXPECT_EQ(st,
              (std::vector<
                  S>{S::Repeated, S::Repeated, S::Skipped, S::Repeated, S::Repeated, S::Skipped}));
    EXPECT_EQ(run.completed, 2u);
}

// Failure injection over TCP: client 1 is silent in round 2; client 2 leaves in the middle of
// round 2 (its connection closes). No deadline is needed for the leaver (the server stops
// waiting when the connection closes) but the silent client costs round 2 its deadline.
TEST(RoundPolicies, SilentAndLeavingClientsTheServerKeepsGoing)
{
    auto task = MakeTask<double>(4, "softmax:l2=0");
    // Each round: ~0.4 s of compute. Round 1 starts at ~0.13 s and ends at ~0.55 s; round 2
    // then runs until its 2 s deadline; client 2 leaves at 0.8 s, in round 2.
    const StarRun run = RunStar(
        task,
        4,
        {0.01, 0.01, 0.01, 0.01},
        [](FlServerHelper& sh) { sh.SetAttribute("RoundDeadline", TimeValue(Seconds(2))); },
        [](ApplicationContainer& c) {
            c.Get(1)->SetAttribute("SilentRounds", StringValue("2"));
            c.Get(2)->SetAttribute("LeaveTime", TimeValue(Seconds(0.8) - MilliSeconds(120)));
        });
    ASSERT_TRUE(run.finished);
    ASSERT_EQ(run.reports.size(), 5u);
    EXPECT_EQ(run.reports[1].participants, Ids({0, 1, 2, 3}));
    EXPECT_FALSE(run.reports[1].deadlineHit);
    EXPECT_EQ(run.reports[2].participants, Ids({0, 3}));
    EXPECT_EQ(run.reports[2].disconnected, 1u);
    EXPECT_TRUE(run.reports[2].deadlineHit);
    for (std::size_t i = 3; i < 5; ++i)
    {
        EXPECT_EQ(run.reports[i].selected, Ids({0, 1, 3}));
        EXPECT_EQ(run.reports[i].participants, Ids({0, 1, 3}));
        EXPECT_FALSE(run.reports[i].deadlineHit);
    }
    for (std::size_t i = 1; i < 5; ++i)
    {
        EXPECT_TRUE(run.globals[i] == ReferenceAggregate(*task, run, i, 0.5)) << "round " << i;
    }
    EXPECT_EQ(run.counters.disconnects, 1u);
    EXPECT_EQ(run.silent[1], 1u);
}

// The time breakdown adds up: for each fresh update, download + compute + upload + waiting =
// round duration; compute is exactly 40 samples x SecondsPerSample.
TEST(RoundPolicies, TimeBreakdownAddsUpToTheRoundDuration)
{
    auto task = MakeTask<double>(3, "softmax:l2=0");
    const std::vector<double> sps = {0.001, 0.002, 0.004};
    const StarRun run = RunStar(task, 2, sps, nullptr, nullptr);
    ASSERT_TRUE(run.finished);
    ASSERT_EQ(run.clientRecords.size(), 6u);
    for (const auto& c : run.clientRecords)
    {
        ASSERT_TRUE(c.participated);
        const double duration = run.records[c.round].durationS;
        EXPECT_NEAR(c.downloadS + c.computeS + c.uploadS + c.waitingS, duration, 1e-9);
        EXPECT_NEAR(c.computeS, 40 * sps[c.client], 1e-12);
        EXPECT_GT(c.downloadS, 0.002); // the 2 ms link's propagation at least
        EXPECT_GT(c.uploadS, 0.002);
        EXPECT_GE(c.waitingS, 0.0);
    }
    // The slowest client waits least.
    for (uint32_t r = 1; r <= 2; ++r)
    {
        EXPECT_NEAR(run.clientRecords[3 * (r - 1) + 2].waitingS, 0.0, 1e-12);
    }
}

// FedAvg over UDP, retransmit policy, 10 % packet loss on every link: every round aggregates
// every client, chunks were lost and retransmitted, and the models equal the in-process FedAvg
// bit for bit (what arrives is exactly what was sent).
TEST(RoundPolicies, UdpRetransmitUnderLossIsBitIdentical)
{
    auto task = MakeTask<double>(4, "mlp:hidden=16");
    const StarRun run = RunStar(
        task,
        3,
        {1e-3, 1e-3, 1e-3, 1e-3},
        [](FlServerHelper& sh) {
            sh.SetAttribute("Transport", StringValue("udp"));
            sh.SetAttribute("UdpPacingRate", DataRateValue(DataRate("5Mb/s")));
        },
        [](ApplicationContainer& c) {
            for (uint32_t i = 0; i < c.GetN(); ++i)
            {
                c.Get(i)->SetAttribute("Transport", StringValue("udp"));
                c.Get(i)->SetAttribute("UdpPacingRate", DataRateValue(DataRate("5Mb/s")));
            }
        },
        0.1);
    ASSERT_TRUE(run.finished);
    uint64_t lostOrRetx = run.serverUdp.chunksRetransmitted;
    for (const auto& s : run.clientUdp)
    {
        lostOrRetx += s.chunksRetransmitted;
    }
    EXPECT_GT(lostOrRetx, 0u);
    for (std::size_t i = 1; i < run.reports.size(); ++i)
    {
        EXPECT_EQ(run.reports[i].participants, Ids({0, 1, 2, 3}));
        EXPECT_EQ(run.reports[i].missingCoordinates, 0u);
        EXPECT_TRUE(run.globals[i] == ReferenceAggregate(*task, run, i, 0.5)) << "round " << i;
    }
}

// Client 3's link loses everything, both ways, from the end of round 1 on; UDP (retransmit), no
// round deadline. The server's model to it is never acknowledged; once its transport gives the
// message up the round stops waiting for client 3 (before, it waited until the simulation's
// end): every round completes with the three others, reports the client given up, and its
// aggregate equals the in-process FedAvg of the three bit for bit.
TEST(RoundPolicies, UdpLinkLostForGoodTheRoundStopsWaiting)
{
    auto task = MakeTask<double>(4, "mlp:hidden=16");
    const StarRun run = RunStar(
        task,
        3,
        {1e-3, 1e-3, 1e-3, 1e-3},
        UseUdpServer,
        [](ApplicationContainer& c) {
            for (uint32_t i = 0; i < c.GetN(); ++i)
            {
                c.Get(i)->SetAttribute("Transport", StringValue("udp"));
            }
        },
        0.0,
        [](const FlScene& scene, Ptr<FlServerApplication> server) {
            // link of client 3: the server's device 6 and the client's device 7
            std::vector<Ptr<RateErrorModel>> cut{Blackout(scene.devices.Get(6)),
                                                 Blackout(scene.devices.Get(7))};
            server->TraceConnectWithoutContext("RoundEnd",
                                               MakeBoundCallback(&CutAfterRoundOne, cut));
        });
    ASSERT_TRUE(run.finished);
    ASSERT_EQ(run.reports.size(), 4u);
    EXPECT_EQ(run.reports[1].participants, Ids({0, 1, 2, 3}));
    EXPECT_TRUE(run.reports[1].givenUp.empty());
    for (std::size_t i = 2; i < run.reports.size(); ++i)
    {
        const FlRoundReport& r = run.reports[i];
        EXPECT_EQ(r.status, FlRoundStatus::Aggregated);
        EXPECT_EQ(r.givenUp, Ids({3}));
        // the round's row: sent to four, three answered, one straggler
        EXPECT_EQ(run.records.at(i).selected, 4u);
        EXPECT_EQ(run.records.at(i).participants, 3u);
        EXPECT_EQ(run.records.at(i).stragglers, 1u);
        EXPECT_EQ(r.selected, Ids({0, 1, 2}));
        EXPECT_EQ(r.participants, Ids({0, 1, 2}));
        EXPECT_FALSE(r.deadlineHit);
        // the probes of the model back off: 0.2 s x (1 + 2 + 4 + ...) before it is given up
        EXPECT_GT(r.end - r.start, Seconds(3));
        EXPECT_TRUE(run.globals[i] == ReferenceAggregate(*task, run, i, 0.5)) << "round " << i;
    }
    EXPECT_GE(run.counters.messagesGivenUp, 2u);
    EXPECT_GE(run.serverUdp.messagesUnacked, 2u);
    EXPECT_EQ(run.counters.givenUpRecovered, 0u);
}

// Client 3 computes for 2 s in round 2; its uplink loses everything from 1 s into the round
// until 12 s into it, longer than its transport probes the upload before giving it up (its
// probes back off: 0.2, 0.4, 0.8, ... s, until 6.4 s after its last chunk). The
// server saw no chunk of it and, without a deadline, waits; the client sends the upload again
// (UploadResends) and round 2 aggregates all four clients, bit for bit the in-process FedAvg.
// With UploadResends = 0 the server waits until the simulation stops.
TEST(RoundPolicies, UdpUploadGivenUpIsSentAgain)
{
    auto task = MakeTask<double>(4, "mlp:hidden=16");
    for (const uint32_t resends : {3u, 0u})
    {
        SCOPED_TRACE("UploadResends " + std::to_string(resends));
        const StarRun run = RunStar(
            task,
            3,
            {1e-3, 1e-3, 1e-3, 0.05},
            UseUdpServer,
            [resends](ApplicationContainer& c) {
                for (uint32_t i = 0; i < c.GetN(); ++i)
                {
                    c.Get(i)->SetAttribute("Transport", StringValue("udp"));
                    c.Get(i)->SetAttribute("UploadResends", UintegerValue(resends));
                }
            },
            0.0,
            [](const FlScene& scene, Ptr<FlServerApplication> server) {
                // what client 3 sends is lost at the server's device 6
                server->TraceConnectWithoutContext(
                    "RoundStart",
                    MakeBoundCallback(&OutageInRoundTwo, Blackout(scene.devices.Get(6))));
            });
        if (resends == 0)
        {
            EXPECT_FALSE(run.finished);
            EXPECT_EQ(run.completed, 1u);
            EXPECT_EQ(run.uploadsResent[3], 0u);
            continue;
        }
        ASSERT_TRUE(run.finished);
        ASSERT_EQ(run.reports.size(), 4u);
        EXPECT_GE(run.uploadsResent[3], 1u);
        EXPECT_GE(run.clientUdp[3].messagesUnacked, 1u);
        EXPECT_EQ(run.counters.messagesGivenUp, 0u);
        EXPECT_GT(run.reports[2].end - run.reports[2].start, Seconds(8));
        for (std::size_t i = 1; i < run.reports.size(); ++i)
        {
            EXPECT_EQ(run.reports[i].participants, Ids({0, 1, 2, 3})) << "round " << i;
            EXPECT_TRUE(run.reports[i].givenUp.empty());
            EXPECT_TRUE(run.globals[i] == ReferenceAggregate(*task, run, i, 0.5)) << "round " << i;
        }
    }
}

// UDP with keep-previous and 10 % loss: updates arrive with holes that the server fills with
// the global model's values; the holes are counted, and no update is lost for good unless its
// header chunk was lost.
TEST(RoundPolicies, UdpKeepPreviousFillsHoles)
{
    auto task = MakeTask<double>(4, "mlp:hidden=16");
    auto udp = [](ApplicationContainer& c) {
        for (uint32_t i = 0; i < c.GetN(); ++i)
        {
            c.Get(i)->SetAttribute("Transport", StringValue("udp"));
            c.Get(i)->SetAttribute("HolePolicy", StringValue("keep-previous"));
        }
    };
    const StarRun run = RunStar(
        task,
        4,
        {1e-3, 1e-3, 1e-3, 1e-3},
        [](FlServerHelper& sh) {
            sh.SetAttribute("Transport", StringValue("udp"));
            sh.SetAttribute("HolePolicy", StringValue("keep-previous"));
            sh.SetAttribute("RoundDeadline", TimeValue(Seconds(2)));
        },
        udp,
        0.1);
    ASSERT_TRUE(run.finished);
    uint64_t holes = 0;
    for (std::size_t i = 1; i < run.reports.size(); ++i)
    {
        holes += run.reports[i].missingCoordinates;
        EXPECT_LE(run.reports[i].participants.size(), 4u);
    }
    EXPECT_GT(holes, 0u);
    EXPECT_GT(run.counters.partialUpdates, 0u);
    EXPECT_GT(run.serverUdp.chunksLost, 0u);
    // Updates always have a base (the model their client trained on): never retransmitted.
    // The server retransmits only chunks of first global models (clients without a base).
    for (const auto& s : run.clientUdp)
    {
        EXPECT_EQ(s.chunksRetransmitted, 0u);
    }
}

TEST(RoundPolicies, ParseRoundList)
{
    EXPECT_EQ(fl::ParseRoundList("", "p"), std::set<uint32_t>{});
    EXPECT_EQ(fl::ParseRoundList(" 3, 5-7 ,10", "p"), (std::set<uint32_t>{3, 5, 6, 7, 10}));
    for (const char* bad : {"3,", "a", "5-3", "1,,2", "-4", "2-"})
    {
        try
        {
            fl::ParseRoundList(bad, "FlClientApplication::SilentRounds");
            ADD_FAILURE() << "accepted '" << bad << "'";
        }
        catch (const fl::ConfigError& e)
        {
            EXPECT_NE(std::string(e.what()).find("SilentRounds"), std::string::npos);
        }
    }
}
