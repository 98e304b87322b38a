/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * FedAvg with moving clients (the round view's mobility columns): a constant position through
 * the mobility path changes nothing (models and CSV rows bit for bit); a client that walks out
 * of the BSS's coverage during its upload is counted lost by the round (TCP with a deadline;
 * UDP given up by the transport); the SNR column follows a client that moves; LTE rows carry
 * the distance to the eNB and its SINR report.
 */
#include "fl-test-task.h"

#include "ns3/constant-position-mobility-model.h"
#include "ns3/core-module.h"
#include "ns3/fl-helper.h"
#include "ns3/fl-network-scenarios.h"
#include "ns3/learning-monitor.h"
#include "ns3/mobility-model.h"
#include "ns3/position-allocator.h"
#include "ns3/waypoint-mobility-model.h"

#include <cmath>
#include <fstream>
#include <functional>
#include <gtest/gtest.h>
#include <sstream>

using namespace ns3;

namespace
{

NodeContainer
Nodes(uint32_t n)
{
    NodeContainer c;
    c.Create(n);
    return c;
}

std::string
Slurp(const std::string& path)
{
    std::ifstream f(path);
    std::ostringstream os;
    os << f.rdbuf();
    return os.str();
}

/// The CSV without its last `drop` columns on every line.
std::string
DropColumns(const std::string& csv, int drop)
{
    std::istringstream in(csv);
    std::ostringstream out;
    std::string line;
    while (std::getline(in, line))
    {
        for (int k = 0; k < drop; ++k)
        {
            line = line.substr(0, line.rfind(','));
        }
        out << line << '\n';
    }
    return out.str();
}

} // namespace

namespace
{

/// What a FedAvg run over a Wi-Fi BSS wrote and reported.
struct WifiRun
{
    std::vector<fl::ParamVector> globals;
    std::vector<FlRoundRecord> records;
    std::vector<FlClientRoundRecord> clientRecords;
    std::vector<FlRoundReport> reports; ///< without their global models
    std::string roundCsv;
    std::string clientCsv;
    uint32_t completed{0};
};

/**
 * FedAvg over a Wi-Fi BSS built by `build` (which fixes nothing else), fixed seeds, the scene's
 * link state handed to the server as FlFedAvgHelper does, a LearningMonitor on the server and
 * the clients writing both CSVs.
 */
WifiRun
RunWifi(std::shared_ptr<const fl::LearningTask> task,
        uint32_t rounds,
        const std::function<FlScene()>& build,
        const std::string& transport,
        Time deadline,
        const std::string& tag,
        const std::function<int64_t(const FlScene&, int64_t)>& assign =
            &FlWifiScenarioHelper::AssignStreams,
        Time stop = Seconds(60))
{
    WifiRun out;
    const std::string roundFile = ::testing::TempDir() + "fl-mobility-" + tag + "-rounds.csv";
    const std::string clientFile = ::testing::TempDir() + "fl-mobility-" + tag + "-clients.csv";
    {
        FlScene scene = build();
        assign(scene, 100);
        FlServerHelper sh(task);
        sh.SetAttribute("Rounds", UintegerValue(rounds));
        sh.SetAttribute("WirePrecision", StringValue("float32"));
        sh.SetAttribute("InitSeed", UintegerValue(12345));
        sh.SetAttribute("Transport", StringValue(transport));
        sh.SetAttribute("RoundDeadline", TimeValue(deadline));
        ApplicationContainer sapps = sh.Install(scene.serverNode);
        FlClientHelper ch(task, scene.serverAddress);
        ch.SetAttribute("WirePrecision", StringValue("float32"));
        ch.SetAttribute("Transport", StringValue(transport));
        ApplicationContainer capps = ch.Install(scene.clients);
        for (uint32_t i = 0; i < capps.GetN(); ++i)
        {
            capps.Get(i)->SetAttribute("TrainingSeed", UintegerValue(777 + 17 * i));
        }
        sapps.Start(Seconds(0));
        capps.Start(Seconds(0.5));
        Ptr<FlServerApplication> server = DynamicCast<FlServerApplication>(sapps.Get(0));
        const FlSceneLinkState* links = PeekPointer(FlGetSceneLinkState(scene.serverNode));
        server->SetLinkStateProvider([links](uint32_t c) { return links->Get(c); });
        server->TraceConnectWithoutContext("RoundEnd",
                                           MakeCallback(+[](WifiRun* o, const FlRoundReport& r) {
                                               o->globals.push_back(*r.globalModel);
                                               FlRoundReport copy = r;
                                               copy.globalModel = nullptr;
                                               o->reports.push_back(copy);
                                           }).Bind(&out));
        Ptr<LearningMonitor> monitor = CreateObject<LearningMonitor>();
        monitor->SetAttribute("OutputFile", StringValue(roundFile));
        monitor->SetAttribute("ClientOutputFile", StringValue(clientFile));
        monitor->SetAttribute("KeepClientRecords", BooleanValue(true));
        monitor->Install(server);
        monitor->InstallClients(capps);
        Simulator::Stop(stop);
        Simulator::Run();
        out.records = monitor->GetRecords();
        out.clientRecords = monitor->GetClientRecords();
        out.completed = server->GetCompletedRounds();
        monitor->Dispose(); // closes the files
    }
    Simulator::Destroy();
    out.roundCsv = Slurp(roundFile);
    out.clientCsv = Slurp(clientFile);
    return out;
}

const std::vector<Vector> kPositions{{5, 0, 0}, {0, 7, 0}, {-4, -3, 0}};

Ptr<ListPositionAllocator>
ListOf(const std::vector<Vector>& where)
{
    Ptr<ListPositionAllocator> list = CreateObject<ListPositionAllocator>();
    for (const Vector& v : where)
    {
        list->Add(v);
    }
    return list;
}

} // namespace

// The default placement at given positions, the same positions as ConstantPositionMobilityModels
// the nodes bring (the mobility path of SetNodes), and as one-waypoint paths of the preset: the
// same global models bit for bit; the first two write the same CSVs byte for byte (no mobility
// columns: nothing moves), the third the same rows plus the mobility columns, whose distances
// are the geometry's and nobody lost.
TEST(MovingClients, ConstantPositionChangesNothing)
{
    const uint32_t n = 3;
    auto task = fltest::MakeTask<float>(n, "mlp:hidden=16");
    const WifiRun placed = RunWifi(
        task,
        3,
        [] {
            FlWifiScenarioHelper h;
            h.SetPositionAllocator(ListOf(kPositions));
            return h.Build(3);
        },
        "tcp",
        Seconds(0),
        "placed");
    const WifiRun own = RunWifi(
        task,
        3,
        [] {
            Ptr<Node> server = CreateObject<Node>();
            NodeContainer nodes = Nodes(3);
            for (uint32_t i = 0; i < 3; ++i)
            {
                Ptr<ConstantPositionMobilityModel> m =
                    CreateObject<ConstantPositionMobilityModel>();
                m->SetPosition(kPositions[i]);
                nodes.Get(i)->AggregateObject(m);
            }
            FlWifiScenarioHelper h;
            h.SetNodes(server, nodes);
            return h.Build(3);
        },
        "tcp",
        Seconds(0),
        "own");
    const WifiRun still = RunWifi(
        task,
        3,
        [] {
            FlClientMobilityHelper p;
            std::vector<std::vector<Waypoint>> paths;
            for (const Vector& v : kPositions)
            {
                paths.push_back({Waypoint(Seconds(0), v)});
            }
            p.SetWaypoints(paths);
            FlWifiScenarioHelper h;
            h.SetClientMobility(p);
            return h.Build(3);
        },
        "tcp",
        Seconds(0),
        "still");
    ASSERT_EQ(placed.completed, 3u);
    ASSERT_EQ(placed.globals.size(), 4u);
    EXPECT_EQ(own.globals, placed.globals);
    EXPECT_EQ(still.globals, placed.globals);
    EXPECT_FALSE(placed.roundCsv.empty());
    EXPECT_FALSE(placed.clientCsv.empty());
    EXPECT_EQ(own.roundCsv, placed.roundCsv);
    EXPECT_EQ(own.clientCsv, placed.clientCsv);
    EXPECT_EQ(placed.roundCsv.substr(0, placed.roundCsv.find('\n')),
              FlLearningTracker::RoundCsvHeader());
    EXPECT_EQ(still.roundCsv.substr(0, still.roundCsv.find('\n')),
              FlLearningTracker::RoundCsvHeader(true));
    EXPECT_EQ(still.clientCsv.substr(0, still.clientCsv.find('\n')),
              FlLearningTracker::ClientRoundCsvHeader(true));
    EXPECT_EQ(DropColumns(still.roundCsv, 5), DropColumns(placed.roundCsv, 0));
    EXPECT_EQ(DropColumns(still.clientCsv, 6), DropColumns(placed.clientCsv, 0));
    ASSERT_EQ(still.clientRecords.size(), 3u * n);
    for (const FlClientRoundRecord& r : still.clientRecords)
    {
        EXPECT_TRUE(r.participated);
        EXPECT_FALSE(r.lost);
        EXPECT_NEAR(r.uploadDistanceM, kPositions[r.client].GetLength(), 1e-12);
        EXPECT_TRUE(std::isfinite(r.uploadSnrDb)) << "round " << r.round << " client " << r.client;
        // one BSS: every station in cell 0, associated, no handover
        EXPECT_EQ(r.uploadCell, 0);
        EXPECT_EQ(r.handovers, 0u);
        EXPECT_FALSE(r.detached);
    }
    for (const FlRoundRecord& r : still.records)
    {
        EXPECT_EQ(r.lost, 0u);
    }
    // The SNR is that of the client's last data frame at the AP, each round's (not its first
    // frame's): the log-distance loss (exponent 3) of the scene's channel over the same noise
    // gives clients 0 and 2 (5 m) the same SNR and client 1 (7 m) 30 log10(7/5) dB less.
    for (uint32_t round = 1; round <= 3; ++round)
    {
        double snr[3];
        for (const FlClientRoundRecord& r : still.clientRecords)
        {
            if (r.round == round)
            {
                snr[r.client] = r.uploadSnrDb;
            }
        }
        EXPECT_NEAR(snr[0], snr[2], 1e-9) << "round " << round;
        EXPECT_NEAR(snr[0] - snr[1], 30.0 * std::log10(7.0 / 5.0), 1e-9) << "round " << round;
    }
}

namespace
{

/// Clients 0 and 1 stand; client 2 stands 10 m from the AP, or follows `path` if given.
FlScene
BssWithWalker(const std::vector<Waypoint>& path)
{
    const std::vector<Vector> where{{5, 0, 0}, {0, 7, 0}, {10, 0, 0}};
    FlWifiScenarioHelper h;
    if (path.empty())
    {
        h.SetPositionAllocator(ListOf(where));
        return h.Build(3);
    }
    FlClientMobilityHelper p;
    p.SetWaypoints({{Waypoint(Seconds(0), where[0])}, {Waypoint(Seconds(0), where[1])}, path});
    h.SetClientMobility(p);
    return h.Build(3);
}

const FlClientRoundRecord*
RowOf(const WifiRun& run, uint32_t round, uint32_t client)
{
    for (const auto& r : run.clientRecords)
    {
        if (r.round == round && r.client == client)
        {
            return &r;
        }
    }
    return nullptr;
}

} // namespace

// Client 2 stands 10 m from the AP until its round-2 upload leaves it (the time the same run
// without motion gives), then walks to 2 km before half of that upload's duration has passed:
// out of the BSS's coverage mid-upload. Round 1 is the run without motion bit for bit; from
// round 2 on the round closes without client 2 and counts it lost (TCP: at the round
// deadline; UDP without deadline: the server's transport gives its upload or model up), its
// row says where it was when its upload left (10 m), and the others' updates make the model.
TEST(MovingClients, OutOfCoverageMidUploadIsLost)
{
    auto task = fltest::MakeTask<float>(3, "softmax:l2=0", 2048);
    for (const std::string transport : {"tcp", "udp"})
    {
        SCOPED_TRACE(transport);
        const Time deadline = transport == "tcp" ? Seconds(3) : Seconds(0);
        const WifiRun still = RunWifi(
            task,
            3,
            [] { return BssWithWalker({}); },
            transport,
            deadline,
            "still-" + transport);
        ASSERT_EQ(still.completed, 3u);
        const FlClientRoundRecord* ref = RowOf(still, 2, 2);
        ASSERT_TRUE(ref && ref->participated);
        // the upload's duration: long enough for "mid-upload" to mean something
        ASSERT_GT(ref->uploadS, 1e-3);
        const Time sent = Seconds(still.records[2].timeS - ref->waitingS - ref->uploadS);
        const Time away = sent + Seconds(ref->uploadS / 2);
        const WifiRun walk = RunWifi(
            task,
            3,
            [sent, away] {
                return BssWithWalker({Waypoint(Seconds(0), Vector(10, 0, 0)),
                                      Waypoint(sent, Vector(10, 0, 0)),
                                      Waypoint(away, Vector(2000, 0, 0))});
            },
            transport,
            deadline,
            "walk-" + transport);
        ASSERT_EQ(walk.completed, 3u);
        ASSERT_EQ(walk.records.size(), 4u);
        EXPECT_EQ(walk.globals[1], still.globals[1]);
        EXPECT_EQ(walk.records[1].lost, 0u);
        for (uint32_t r = 2; r <= 3; ++r)
        {
            SCOPED_TRACE("round " + std::to_string(r));
            const FlRoundRecord& rec = walk.records[r];
            const FlRoundReport& rep = walk.reports[r];
            EXPECT_EQ(rep.participants, (std::vector<uint32_t>{0, 1}));
            EXPECT_EQ(rec.participants, 2u);
            EXPECT_EQ(rec.lost, 1u);
            const FlClientRoundRecord* row = RowOf(walk, r, 2);
            ASSERT_TRUE(row);
            EXPECT_TRUE(row->selected);
            EXPECT_FALSE(row->participated);
            EXPECT_TRUE(row->lost);
            if (transport == "tcp")
            {
                EXPECT_TRUE(rep.deadlineHit);
                EXPECT_EQ(rec.stragglers, 1u);
            }
            else
            {
                EXPECT_EQ(rep.givenUp, (std::vector<uint32_t>{2}));
                EXPECT_EQ(rec.givenUp, 1u);
            }
        }
        // where its round-2 upload left it: 10 m from the AP
        EXPECT_NEAR(RowOf(walk, 2, 2)->uploadDistanceM, 10.0, 1e-9);
        EXPECT_NEAR(RowOf(walk, 2, 0)->uploadDistanceM, 5.0, 1e-12);
        std::cout << "[ " << transport << " ] upload of client 2 in round 2: leaves at "
                  << sent.GetSeconds() << " s, takes " << ref->uploadS
                  << " s without motion; lost rounds: "
                  << walk.records[2].lost + walk.records[3].lost << ", round 2 lasted "
                  << walk.records[2].durationS << " s (without motion "
                  << still.records[2].durationS << " s)" << std::endl;
    }
}

// A client that starts out of coverage (2 km from the AP) and walks in at 64 s: over TCP its
// first connection cannot be opened (SYNs at 0.5 s and then 1, 2, 4, 8, 16 and 32 s later, all
// unanswered: the attempt fails at 63.5 s), and its Join is sent again on a new connection at
// the next JoinInterval check; it joins when it can, and the first round (which waits for every
// client) starts after it arrived and aggregates all three. Before, its Join was lost with the
// failed connection and no round ever started.
TEST(MovingClients, AClientOutOfRangeAtStartJoinsWhenItCan)
{
    auto task = fltest::MakeTask<float>(3, "softmax:l2=0", 2048);
    const WifiRun walk = RunWifi(
        task,
        2,
        [] {
            return BssWithWalker({Waypoint(Seconds(0), Vector(2000, 0, 0)),
                                  Waypoint(Seconds(64), Vector(2000, 0, 0)),
                                  Waypoint(Seconds(65), Vector(10, 0, 0))});
        },
        "tcp",
        Seconds(5),
        "late-join",
        &FlWifiScenarioHelper::AssignStreams,
        Seconds(120));
    ASSERT_EQ(walk.completed, 2u);
    ASSERT_EQ(walk.reports.size(), 3u);
    EXPECT_GT(walk.records[1].timeS, 65.0);
    EXPECT_EQ(walk.reports[1].participants, (std::vector<uint32_t>{0, 1, 2}));
    EXPECT_EQ(walk.reports[2].participants, (std::vector<uint32_t>{0, 1, 2}));
}

// The SNR column follows a client that moves: client 2 stands 5 m from the AP in round 1, then
// steps to 7 m within 1 ms of the round's end. Its round-2 upload leaves 7 m away, but the last
// frame the AP had from it may be of the step's first millisecond (the round-2 download's
// acknowledgements); in round 3 its SNR is client 1's (7 m) to 1e-9, not that of its first
// frames (the AP's sniffer reads the MPDUs inside A-MPDUs too).
TEST(MovingClients, SnrFollowsTheClient)
{
    auto task = fltest::MakeTask<float>(3, "softmax:l2=0", 2048); // uploads in A-MPDUs
    auto run = [&task](Time step) {
        return RunWifi(
            task,
            3,
            [step] {
                FlClientMobilityHelper p;
                std::vector<std::vector<Waypoint>> paths;
                for (const Vector& v : kPositions)
                {
                    paths.push_back({Waypoint(Seconds(0), v)});
                }
                if (step.IsStrictlyPositive())
                {
                    paths[2].push_back(Waypoint(step, kPositions[2]));
                    paths[2].push_back(Waypoint(step + MilliSeconds(1), Vector(0, -7, 0)));
                }
                p.SetWaypoints(paths);
                FlWifiScenarioHelper h;
                h.SetClientMobility(p);
                return h.Build(3);
            },
            "tcp",
            Seconds(0),
            "step");
    };
    const WifiRun still = run(Seconds(0));
    const WifiRun step = run(Seconds(still.records[1].timeS));
    ASSERT_EQ(step.completed, 3u);
    for (uint32_t round = 1; round <= 3; ++round)
    {
        double snr[3];
        for (const FlClientRoundRecord& r : step.clientRecords)
        {
            if (r.round == round)
            {
                snr[r.client] = r.uploadSnrDb;
                EXPECT_NEAR(r.uploadDistanceM,
                            round == 1 || r.client < 2 ? kPositions[r.client].GetLength() : 7.0,
                            1e-9);
            }
        }
        if (round != 2)
        {
            EXPECT_NEAR(snr[2], round == 1 ? snr[0] : snr[1], 1e-9) << "round " << round;
        }
    }
}

// LTE: the per-client columns carry each UE's distance to the eNB and the eNB's uplink SINR of
// it (its SRS reports): two UEs standing on a road through the cell (speed 0: a model that could
// move), 30 m and 230 m from the eNB. ns-3's uplink power control (open loop, alpha = 1)
// compensates the path loss of both within the UE's maximum power: the eNB receives both at the
// same SINR.
TEST(MovingClients, LteDistanceAndSinr)
{
    auto task = fltest::MakeTask<float>(2, "mlp:hidden=16");
    const WifiRun run = RunWifi(
        task,
        2,
        [] {
            FlClientMobilityHelper road;
            road.SetRoad(Vector(30, 0, 0), Vector(1, 0, 0), 200.0, 0.0);
            FlLteSceneHelper h;
            h.SetClientMobility(road);
            return h.Build(2);
        },
        "tcp",
        Seconds(0),
        "lte",
        &FlLteSceneHelper::AssignStreams);
    ASSERT_EQ(run.completed, 2u);
    ASSERT_EQ(run.clientRecords.size(), 4u);
    for (uint32_t round = 1; round <= 2; ++round)
    {
        double sinr[2];
        for (const FlClientRoundRecord& r : run.clientRecords)
        {
            if (r.round == round)
            {
                EXPECT_TRUE(r.participated);
                EXPECT_EQ(r.uploadDistanceM, r.client == 0 ? 30.0 : 230.0);
                sinr[r.client] = r.uploadSnrDb;
            }
        }
        EXPECT_TRUE(std::isfinite(sinr[0]) && std::isfinite(sinr[1])) << "round " << round;
        EXPECT_NEAR(sinr[0], sinr[1], 1e-9) << "round " << round;
    }
}
