/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * GFL with clients handed over between the servers' cells (FlGraphSceneHelper::SetCellRoaming):
 * with nobody moving the roaming cells give the in-process models bit for bit; a client that
 * walks from its server's cell into a neighbour's is handed over and sampled by that server
 * from then on, and by its old server no more; a client that walks back is sampled by its
 * first server again; the settings that cannot roam are refused naming the setting.
 */
#include "fl-test-config-error.h"
#include "fl-test-gfl-fixture.h"
#include "fl-test-gfl-network.h"

#include "ns3/core-module.h"
#include "ns3/fl-wifi-ess-scene.h"
#include "ns3/gfl-helper.h"
#include "ns3/gfl.h"
#include "ns3/mobility-model.h"
#include "ns3/waypoint.h"

#include <algorithm>
#include <cmath>
#include <gtest/gtest.h>
#include <map>
#include <vector>

using namespace ns3;
using namespace ns3::fl;

namespace
{

using Fixture = fltest::RegressionFixture;
using fltest::ExpectBitForBit;
using fltest::MakeRegressionFixture;

constexpr uint32_t kServers = 3;
constexpr uint32_t kPerServer = 4;

GflConfig
HandoverGfl(const Fixture& f, uint32_t iterations)
{
    GflConfig c;
    c.combination = fltest::ThreeServerCombination();
    c.clientsPerServer = kPerServer;
    c.sampledClients = 3;
    c.mu = 0.5;
    c.work = DrawGflLocalWork(kServers * kPerServer, 1, 10, 5, 10, DeriveSeed(11, 3));
    c.iterations = iterations;
    c.seed = 11;
    c.reference = f.wOpt;
    c.clientNoise = NodeNoiseConfig{NodeNoiseKind::IidPerLink, NoiseDistribution::Laplace, 0.05};
    c.serverNoise =
        NodeNoiseConfig{NodeNoiseKind::GraphHomomorphic, NoiseDistribution::Laplace, 0.2};
    return c;
}

/// Where the scene puts client k of cell p when nobody moves (10 m around its server).
Vector
HomePosition(uint32_t p, uint32_t k)
{
    const double a = 2.0 * M_PI * k / kPerServer;
    return Vector(kFlRoamingApSpacing * p + 10.0 * std::cos(a), 10.0 * std::sin(a), 0);
}

/// Every client stands at home; `walker` follows `path` instead.
std::vector<std::vector<Waypoint>>
Paths(uint32_t walker, const std::vector<Waypoint>& path)
{
    std::vector<std::vector<Waypoint>> paths;
    for (uint32_t p = 0; p < kServers; ++p)
    {
        for (uint32_t k = 0; k < kPerServer; ++k)
        {
            paths.push_back({Waypoint(Seconds(0), HomePosition(p, k))});
        }
    }
    paths[walker] = path;
    return paths;
}

/// Client 0 stands at home until 5 s, then walks at 5 m/s to 85 m on the servers' line
/// (server 1 stands at 80 m); everyone else stands at home.
FlClientMobilityHelper
WalkToTheNextCell()
{
    FlClientMobilityHelper walk;
    walk.SetWaypoints(Paths(0,
                            {Waypoint(Seconds(0), HomePosition(0, 0)),
                             Waypoint(Seconds(5), HomePosition(0, 0)),
                             Waypoint(Seconds(20), Vector(85, 0, 0))}));
    return walk;
}

/// Who each server selected and aggregated, round by round, with the time.
struct Selections
{
    struct Row
    {
        uint32_t server;
        uint32_t round;
        double time;
        std::vector<uint32_t> selected;
        std::vector<uint32_t> participants;
    };

    std::vector<Row> rows;

    void Add(uint32_t server, const FlRoundReport& r)
    {
        rows.push_back({server, r.round, r.end.GetSeconds(), r.selected, r.participants});
    }

    /// Rounds of `server` ending in [from, to) whose `list` (selected or participants)
    /// includes `client`.
    uint32_t Count(std::vector<uint32_t> Row::*list,
                   uint32_t server,
                   uint32_t client,
                   double from,
                   double to) const
    {
        uint32_t n = 0;
        for (const Row& r : rows)
        {
            const std::vector<uint32_t>& v = r.*list;
            if (r.server == server && r.time >= from && r.time < to &&
                std::count(v.begin(), v.end(), client) > 0)
            {
                ++n;
            }
        }
        return n;
    }

    /// Rounds of `server` ending in [from, to) that aggregated `client`'s upload.
    uint32_t Aggregated(uint32_t server, uint32_t client, double from, double to) const
    {
        return Count(&Row::participants, server, client, from, to);
    }

    /// Rounds of `server` ending in [from, to) that selected `client`.
    uint32_t Selected(uint32_t server, uint32_t client, double from, double to) const
    {
        return Count(&Row::selected, server, client, from, to);
    }
};

void
OnRoundEnd(Selections* s, uint32_t server, const FlRoundReport& r)
{
    s->Add(server, r);
}

/// What a run with roaming cells gave.
struct HandoverRun
{
    std::vector<std::vector<ParamVector>> models; ///< per iteration, every server's
    Selections selections;
    std::vector<double> handoverTimes; ///< when the walker associated with a new AP
    std::vector<int32_t> cells;        ///< the AP of each association of the walker
    uint32_t serverChanges{0};
    uint32_t clientRejoins{0}; ///< the walker's joins of the same server again
    Ipv4Address serverAddress;
    std::vector<Ipv4Address> cellServer;
    std::vector<double> firstRound; ///< when each server's first round ended
    uint32_t completed{0};
    uint64_t rejoins{0};
    std::vector<uint64_t> disconnects; ///< per server: client connections that closed
    uint64_t lost{0};                  ///< neighbour messages missing at the combinations
    uint64_t dropped{0};               ///< sampled clients whose upload did not count
    double end{0.0};
};

HandoverRun
RunRoaming(const Fixture& f,
           const GflConfig& c,
           const std::string& transport,
           const FlClientMobilityHelper& mobility,
           uint32_t walker,
           double secondsPerSample,
           bool roaming = true,
           bool handover = true,
           Time tcpMinRto = Seconds(1))
{
    FlGraphSceneHelper sceneHelper;
    sceneHelper.SetCell("wifi");
    sceneHelper.SetCellRoaming(roaming);
    sceneHelper.SetClientMobility(mobility);
    FlGraphScene scene = sceneHelper.Build(c.combination, c.clientsPerServer);
    EXPECT_EQ(scene.membership != nullptr, roaming);
    FlGflHelper gfl(f.task, c);
    gfl.SetTransport(transport);
    gfl.SetSecondsPerSample(secondsPerSample);
    gfl.SetHandover(handover);
    gfl.SetTcpMinRto(tcpMinRto);
    if (transport == "udp")
    {
        gfl.SetExchangeTimeout(Seconds(1));
    }
    HandoverRun run;
    run.cellServer = scene.cellServer;
    run.firstRound.assign(kServers, -1.0);
    gfl.SetIterationCallback([&](const NetworkIterationReport& r) {
        run.models.push_back(*r.models);
        run.lost += r.lostMessages;
        run.dropped += r.droppedClients;
    });
    const auto servers = gfl.Install(scene);
    for (uint32_t p = 0; p < servers.size(); ++p)
    {
        servers[p]->TraceConnectWithoutContext("RoundEnd",
                                               MakeBoundCallback(&OnRoundEnd, &run.selections, p));
    }
    // the walker's associations, after the helper's hand-over (which it must not replace)
    if (scene.membership)
    {
        auto handOver = scene.membership->onAssociation;
        scene.membership->onAssociation = [&run, handOver, walker](uint32_t client, uint32_t cell) {
            if (handOver)
            {
                handOver(client, cell); // the hand-over (none at home membership)
            }
            if (client == walker)
            {
                run.handoverTimes.push_back(Simulator::Now().GetSeconds());
                run.cells.push_back(static_cast<int32_t>(cell));
            }
        };
    }
    Simulator::Stop(Seconds(600));
    Simulator::Run();
    run.completed = gfl.Tracker()->CompletedIterations();
    run.serverChanges = gfl.Clients().at(walker)->GetServerChanges();
    run.clientRejoins = gfl.Clients().at(walker)->GetRejoins();
    run.serverAddress = gfl.Clients().at(walker)->GetServerAddress();
    for (const auto& s : servers)
    {
        run.rejoins += s->GetCounters().rejoins;
        run.disconnects.push_back(s->GetCounters().disconnects);
    }
    run.end = Simulator::Now().GetSeconds();
    for (const auto& row : run.selections.rows)
    {
        if (row.round > 0 && run.firstRound[row.server] < 0.0)
        {
            run.firstRound[row.server] = row.time;
        }
    }
    Simulator::Destroy();
    return run;
}

TEST(GflHandover, StillClientsInRoamingCellsEqualInProcessBitForBit)
{
    // one channel, one SSID, one subnet, the servers 80 m apart: with nobody moving every
    // server samples its own clients as the paper does, over either transport
    const Fixture f = MakeRegressionFixture(kServers * kPerServer, 40, 0.1, 5);
    const GflConfig c = HandoverGfl(f, 6);
    std::vector<std::vector<ParamVector>> ref;
    RunGflInProcess(*f.task, c, [&](const NetworkIterationReport& r) { ref.push_back(*r.models); });
    for (const bool roaming : {true, false})
    {
        for (const char* transport : {"tcp", "udp"})
        {
            SCOPED_TRACE(std::string(transport) + (roaming ? " roaming" : " separate cells"));
            FlClientMobilityHelper still; // the scene's own positions
            const HandoverRun run = RunRoaming(f, c, transport, still, 0, 1e-4, roaming);
            EXPECT_EQ(run.completed, c.iterations);
            EXPECT_EQ(run.serverChanges, 0u);
            if (roaming)
            {
                EXPECT_EQ(run.cells, std::vector<int32_t>{0}); // associated once, at home
            }
            // nothing lost: over UDP a server's message of the iteration it just closed is
            // still sent to the neighbours that wait for it
            EXPECT_EQ(run.lost, 0u);
            EXPECT_EQ(run.dropped, 0u);
            ExpectBitForBit(run.models, ref);
        }
    }
}

TEST(GflHandover, AWalkingClientIsSampledByTheServerWhoseCellItReaches)
{
    // client 0 of server 0 walks at 5 m/s from 10 m to 85 m along the line of the servers
    // (server 1 stands at 80 m): it loses server 0's AP near 51 m, associates with server 1's,
    // joins server 1 and is sampled by it, and server 0 samples it no more
    const Fixture f = MakeRegressionFixture(kServers * kPerServer, 40, 0.1, 5);
    const GflConfig c = HandoverGfl(f, 40);
    const FlClientMobilityHelper walk = WalkToTheNextCell();
    // about 1 s of simulated time per iteration (up to 100 samples at 10 ms)
    const HandoverRun run = RunRoaming(f, c, "udp", walk, 0, 0.01);
    EXPECT_EQ(run.completed, c.iterations);
    ASSERT_EQ(run.cells, (std::vector<int32_t>{0, 1}));
    const double handover = run.handoverTimes.at(1);
    // the beacons of server 0's AP stop near 51 m (at 13.2 s), the station notices 10 beacon
    // intervals (1.024 s) later and scans for 120 ms
    EXPECT_GT(handover, 13.0);
    EXPECT_LT(handover, 16.5);
    EXPECT_EQ(run.serverChanges, 1u);
    EXPECT_EQ(run.serverAddress, run.cellServer[1]);
    EXPECT_EQ(run.serverAddress, Ipv4Address("10.10.1.1"));
    // sampled and aggregated at home before, by server 1 after; never by server 0 after
    EXPECT_GE(run.selections.Aggregated(0, 0, 0.0, 13.0), 3u);
    EXPECT_EQ(run.selections.Aggregated(1, 0, 0.0, handover), 0u);
    EXPECT_GE(run.selections.Aggregated(1, 0, handover, run.end), 5u);
    EXPECT_EQ(run.selections.Selected(0, 0, handover + 0.001, run.end), 0u);
    // server 1 samples 3 of its 5 clients now: its own four keep being sampled
    for (uint32_t k = 0; k < kPerServer; ++k)
    {
        EXPECT_GE(run.selections.Aggregated(1, kPerServer + k, handover, run.end), 3u) << k;
    }
    // and every server's model stays finite and near the optimum's scale
    for (const ParamVector& w : run.models.back())
    {
        EXPECT_TRUE(w.Get<double>().allFinite());
    }
}

TEST(GflHandover, AClientThatWalksBackIsSampledByItsFirstServerAgainOverTcp)
{
    // there (5 s to 20 s) and back (25 s to 40 s) over TCP: its connection to server 0 is
    // taken up again (a Join on the same connection, or a new one: a rejoin), and server 0
    // samples it after its return
    const Fixture f = MakeRegressionFixture(kServers * kPerServer, 40, 0.1, 5);
    const GflConfig c = HandoverGfl(f, 60);
    FlClientMobilityHelper walk;
    walk.SetWaypoints(Paths(0,
                            {Waypoint(Seconds(0), HomePosition(0, 0)),
                             Waypoint(Seconds(5), HomePosition(0, 0)),
                             Waypoint(Seconds(20), Vector(85, 0, 0)),
                             Waypoint(Seconds(25), Vector(85, 0, 0)),
                             Waypoint(Seconds(40), HomePosition(0, 0))}));
    const HandoverRun run = RunRoaming(f, c, "tcp", walk, 0, 0.01);
    EXPECT_EQ(run.completed, c.iterations);
    ASSERT_EQ(run.cells, (std::vector<int32_t>{0, 1, 0}));
    EXPECT_EQ(run.serverChanges, 2u);
    EXPECT_EQ(run.serverAddress, run.cellServer[0]);
    const double there = run.handoverTimes.at(1);
    const double back = run.handoverTimes.at(2);
    // back from 85 m at 25 s: server 1's beacons stop near 29 m (36.2 s), then 1.024 s + scan
    EXPECT_GT(back, 36.0);
    EXPECT_LT(back, 38.5);
    EXPECT_GE(run.selections.Aggregated(1, 0, there, back), 2u);
    EXPECT_EQ(run.selections.Selected(0, 0, there + 0.001, back), 0u);
    EXPECT_EQ(run.selections.Selected(1, 0, back + 0.001, run.end), 0u);
    EXPECT_GE(run.selections.Aggregated(0, 0, back, run.end), 3u);
    // each hand-over joins on a new connection: server 0, which still counted the client, is
    // reached at its new address from then on
    EXPECT_EQ(run.rejoins, 1u);
}

/**
 * TCP with a 0.2 s minimum RTO, 70 iterations: the walker is carried to `away` at 13 s, just
 * before server 0 sends it the model of its next round (the round waits out its deadline),
 * which TCP retransmits until it gives up and the server forgets the client; it stays there
 * until `leaveAt` and walks or jumps home, arriving at `homeAt`.
 */
HandoverRun
RunCarriedAway(const Fixture& f, const Vector& away, double leaveAt, double homeAt)
{
    FlClientMobilityHelper walk;
    walk.SetWaypoints(Paths(0,
                            {Waypoint(Seconds(0), HomePosition(0, 0)),
                             Waypoint(Seconds(13), HomePosition(0, 0)),
                             Waypoint(Seconds(13.01), away),
                             Waypoint(Seconds(leaveAt), away),
                             Waypoint(Seconds(homeAt), HomePosition(0, 0))}));
    const HandoverRun run =
        RunRoaming(f, HandoverGfl(f, 70), "tcp", walk, 0, 0.01, true, true, MilliSeconds(200));
    EXPECT_EQ(run.completed, 70u);
    EXPECT_EQ(run.disconnects.at(0), 1u); // server 0 gave up its connection to the walker
    return run;
}

TEST(GflHandover, AClientBackAfterItsServerGaveUpItsConnectionJoinsAgain)
{
    // carried into server 1's cell and walking back at 5 m/s: the client joins server 0 on a
    // new connection (ns-3's TCP would not answer a segment of the forgotten one) as a new
    // client, and server 0 samples it again
    const Fixture f = MakeRegressionFixture(kServers * kPerServer, 40, 0.1, 5);
    const HandoverRun run = RunCarriedAway(f, Vector(85, 0, 0), 45, 60);
    ASSERT_EQ(run.cells, (std::vector<int32_t>{0, 1, 0}));
    EXPECT_EQ(run.rejoins, 0u); // a new client to server 0, not a known one at a new address
    const double back = run.handoverTimes.at(2);
    EXPECT_GE(run.selections.Aggregated(0, 0, back, run.end), 3u);
}

TEST(GflHandover, AClientBackInItsCellAfterItsServerForgotItJoinsAgain)
{
    // carried out of every cell (200 m off the line) and back to server 0's at 60 s: its
    // station associates with the same AP again, and the client, which owed nothing and would
    // have waited for a model for ever, joins again
    const Fixture f = MakeRegressionFixture(kServers * kPerServer, 40, 0.1, 5);
    const HandoverRun run = RunCarriedAway(f, Vector(10, 200, 0), 60, 60.01);
    ASSERT_EQ(run.cells, (std::vector<int32_t>{0, 0}));
    EXPECT_EQ(run.serverChanges, 0u);
    EXPECT_EQ(run.clientRejoins, 1u);
    const double back = run.handoverTimes.at(1);
    EXPECT_GT(back, 60.0);
    EXPECT_EQ(run.selections.Aggregated(0, 0, 13.1, back), 0u);
    EXPECT_GE(run.selections.Aggregated(0, 0, back, run.end), 3u);
}

TEST(GflHandover, AClientThatStartsInAnotherCellJoinsThatServerAndItsOwnStartsAfterTheWindow)
{
    // client 0 of server 0 stands in server 1's cell from the start: it associates with server
    // 1's AP and joins server 1 (which has its K = 4 at once); server 0 never gets its fourth
    // client and starts its first iteration at the join window (2 s after it started)
    const Fixture f = MakeRegressionFixture(kServers * kPerServer, 40, 0.1, 5);
    const GflConfig c = HandoverGfl(f, 10);
    FlClientMobilityHelper elsewhere;
    elsewhere.SetWaypoints(Paths(0, {Waypoint(Seconds(0), Vector(85, 5, 0))}));
    const HandoverRun run = RunRoaming(f, c, "udp", elsewhere, 0, 1e-4);
    EXPECT_EQ(run.completed, c.iterations);
    EXPECT_EQ(run.cells, std::vector<int32_t>{1});
    EXPECT_EQ(run.serverChanges, 1u); // before the client started
    EXPECT_EQ(run.serverAddress, run.cellServer[1]);
    // server 0 started at 0.1 s: its first round closes after 2.1 s; server 1's long before
    EXPECT_GE(run.firstRound[0], 2.1);
    EXPECT_LT(run.firstRound[1], 2.1);
    EXPECT_EQ(run.selections.Selected(0, 0, 0.0, run.end), 0u);
    EXPECT_GE(run.selections.Aggregated(1, 0, 0.0, run.end), 3u);
    EXPECT_EQ(run.dropped, 0u);
}

TEST(GflHandover, AtHomeMembershipTheFirstServerKeepsSamplingAClientThatLeft)
{
    // SetHandover(false): the papers' membership on the move. The walker of the test above
    // stays with server 0, which keeps sampling it after it left: those uploads never come
    const Fixture f = MakeRegressionFixture(kServers * kPerServer, 40, 0.1, 5);
    const GflConfig c = HandoverGfl(f, 40);
    const FlClientMobilityHelper walk = WalkToTheNextCell();
    const HandoverRun run = RunRoaming(f, c, "udp", walk, 0, 0.01, true, false);
    EXPECT_EQ(run.completed, c.iterations);
    ASSERT_EQ(run.cells, (std::vector<int32_t>{0, 1})); // the station roams all the same
    EXPECT_EQ(run.serverChanges, 0u);
    EXPECT_EQ(run.serverAddress, run.cellServer[0]);
    const double gone = run.handoverTimes.at(1);
    const uint32_t selected = run.selections.Selected(0, 0, gone, run.end);
    EXPECT_GE(selected, 5u);
    EXPECT_EQ(run.selections.Aggregated(0, 0, gone, run.end), 0u);
    EXPECT_EQ(run.selections.Selected(1, 0, 0.0, run.end), 0u);
    EXPECT_GE(run.dropped, selected);
}

TEST(GflHandover, SettingsThatCannotRoamAreRefusedNamingTheSetting)
{
    const Eigen::MatrixXd A = fltest::ThreeServerCombination();
    {
        FlGraphSceneHelper h; // CSMA cells (the default)
        h.SetCellRoaming(true);
        fltest::ExpectConfigError([&]() { h.Build(A, 2); }, "SetCellRoaming", "Wi-Fi cells");
    }
    {
        FlGraphSceneHelper h;
        h.SetCell("wifi");
        h.SetCellRoaming(true);
        h.SetFidelity(FlFidelity::Flow);
        fltest::ExpectConfigError([&]() { h.Build(A, 2); }, "SetCellRoaming", "packet");
    }
    {
        FlGraphSceneHelper h;
        h.SetCell("wifi");
        h.SetCellRoaming(true);
        h.SetPartition({0, 0, 1}, 0);
        fltest::ExpectConfigError([&]() { h.Build(A, 2); }, "SetCellRoaming", "one process");
    }
    {
        FlGraphSceneHelper h;
        FlClientMobilityHelper walk;
        walk.SetRandomWaypoint(Box(0, 100, 0, 100, 0, 0), 1.0, 2.0, Seconds(0));
        h.SetClientMobility(walk); // CSMA cells
        fltest::ExpectConfigError([&]() { h.Build(A, 2); }, "SetClientMobility", "Wi-Fi cells");
    }
    fltest::ExpectConfigError([]() { FlGraphSceneHelper().SetCellSpacing(0.0); },
                              "SetCellSpacing",
                              "> 0 m");
    // secure aggregation's rosters are fixed per server: the helper exits naming the scene's
    // setting (exit code 2)
    EXPECT_EXIT(
        {
            const Fixture f = MakeRegressionFixture(6, 20, 0.1, 5);
            GflConfig c = HandoverGfl(f, 2);
            c.clientsPerServer = 2;
            c.sampledClients = 2;
            c.work = DrawGflLocalWork(6, 1, 10, 5, 10, 3);
            c.clientNoise = NodeNoiseConfig{};
            c.secureAggregation = true;
            FlGraphSceneHelper h;
            h.SetCell("wifi");
            h.SetCellRoaming(true);
            FlGraphScene scene = h.Build(c.combination, 2);
            FlGflHelper gfl(f.task, c);
            gfl.Install(scene);
        },
        ::testing::ExitedWithCode(2),
        "SetCellRoaming.*secure aggregation");
}

} // namespace
