/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The vehicular scene (802.11p roadside units): the spans of an ns-2 trace against a hand
 * computation; the module's SUMO trace read, its cars parked off the road before and after
 * their spans; a car driving past two RSUs uploads through each in turn; the settings' checks;
 * the refusal where ns-3 has no wave module.
 */
#include "fl-test-config-error.h"
#include "fl-test-task.h"

#include "ns3/core-module.h"
#include "ns3/fl-helper.h"
#include "ns3/fl-network-scenarios.h"
#include "ns3/fl-ns3-compat.h"
#include "ns3/learning-monitor.h"
#include "ns3/mobility-model.h"
#include "ns3/point-to-point-net-device.h"

#include <cmath>
#include <fstream>
#include <gtest/gtest.h>

using namespace ns3;

#ifndef FL_VEHICULAR_TRACE
#error "FL_VEHICULAR_TRACE (the module's SUMO trace) is defined by test/CMakeLists.txt"
#endif

namespace
{

std::string
WriteTrace(const std::string& name, const std::string& text)
{
    const std::string path = ::testing::TempDir() + name;
    std::ofstream(path) << text;
    return path;
}

} // namespace

// Each span by hand, as Ns2MobilityHelper moves the nodes: node 0 from (0, 0) to (10, 0) at
// 5 m/s from t = 2 (arrives at 4), then to (10, 20) at 10 m/s from t = 5 (arrives at 7); node 2
// to (100, 0) at 10 m/s from t = 2 (would arrive at 12), cut at t = 5 at (30, 0) by a setdest
// to (30, 40) at 20 m/s (arrives at 7); node 1 is absent; node 3 never moves.
TEST(VehicularTrace, SpansByHand)
{
    const std::string path = WriteTrace("fl-vehicular-spans.ns2",
                                        "$node_(0) set X_ 0.0\n"
                                        "$node_(0) set Y_ 0.0\n"
                                        "$node_(0) set Z_ 1.5\n"
                                        "$node_(2) set X_ 0.0\n"
                                        "$node_(2) set Y_ 0.0\n"
                                        "$node_(3) set X_ 7.0\n"
                                        "$ns_ at 2.0 \"$node_(0) setdest 10.0 0.0 5.0\"\n"
                                        "$ns_ at 2.0 \"$node_(2) setdest 100.0 0.0 10.0\"\n"
                                        "$ns_ at 5.0 \"$node_(0) setdest 10.0 20.0 10.0\"\n"
                                        "$ns_ at 5.0 \"$node_(2) setdest 30.0 40.0 20.0\"\n");
    const std::vector<FlTraceSpan> s = FlReadNs2TraceSpans(path);
    ASSERT_EQ(s.size(), 4u);
    EXPECT_TRUE(s[0].present);
    EXPECT_FALSE(s[1].present);
    EXPECT_NEAR(s[0].enterS, 2.0, 1e-12);
    EXPECT_NEAR(s[0].leaveS, 7.0, 1e-12);
    EXPECT_NEAR(s[0].entry.x, 0.0, 1e-12);
    EXPECT_NEAR(s[0].entry.z, 1.5, 1e-12);
    EXPECT_NEAR(s[2].enterS, 2.0, 1e-12);
    EXPECT_NEAR(s[2].leaveS, 7.0, 1e-12);
    EXPECT_TRUE(s[3].present);
    EXPECT_EQ(s[3].enterS, 0.0);
    EXPECT_TRUE(std::isinf(s[3].leaveS));
    EXPECT_NEAR(s[3].entry.x, 7.0, 1e-12);

    fltest::ExpectConfigError([] { FlReadNs2TraceSpans("/nonexistent/trace.ns2"); },
                              "FlReadNs2TraceSpans",
                              "cannot read");
    const std::string bad =
        WriteTrace("fl-vehicular-bad.ns2", "$ns_ at x \"$node_(0) setdest 1 2 3\"\n");
    fltest::ExpectConfigError([&bad] { FlReadNs2TraceSpans(bad); }, "FlReadNs2TraceSpans", "line");
    const std::string empty = WriteTrace("fl-vehicular-empty.ns2", "# nothing\n");
    fltest::ExpectConfigError([&empty] { FlReadNs2TraceSpans(empty); },
                              "FlReadNs2TraceSpans",
                              "no node");
}

// The module's SUMO trace: 44 cars, each on the road for a while within [1, 300] s; car 0 enters
// at the east end at 1 s, car 43 last at 229 s.
TEST(VehicularTrace, ModuleTraceSpans)
{
    const std::vector<FlTraceSpan> s = FlReadNs2TraceSpans(FL_VEHICULAR_TRACE);
    ASSERT_EQ(s.size(), 44u);
    for (uint32_t i = 0; i < s.size(); ++i)
    {
        EXPECT_TRUE(s[i].present) << i;
        EXPECT_GE(s[i].enterS, 1.0) << i;
        EXPECT_LT(s[i].enterS, s[i].leaveS) << i;
        EXPECT_LE(s[i].leaveS, 301.0) << i;
        EXPECT_GE(s[i].entry.x, 0.0) << i;
        EXPECT_LE(s[i].entry.x, 2000.0) << i;
        EXPECT_LE(std::abs(s[i].entry.y), 10.0) << i;
    }
    EXPECT_EQ(s[0].enterS, 1.0);
    EXPECT_NEAR(s[0].entry.x, 1994.9, 1e-9);
    EXPECT_EQ(s[43].enterS, 229.0);
}

TEST(VehicularScene, Availability)
{
    // ns-3.39 removed the wave module; every release before has it (if enabled)
    if (FL_NS3_VERSION >= 339)
    {
        EXPECT_FALSE(FlVehicularSceneAvailable());
    }
    EXPECT_NO_THROW(FlRequireVehicularScene(true));
    fltest::ExpectConfigError([] { FlRequireVehicularScene(false); },
                              "FlVehicularSceneHelper::Build",
                              {"wave", "ns-3.35 to ns-3.38", "ns-3.39"});
    if (!FlVehicularSceneAvailable())
    {
        fltest::ExpectConfigError([] { FlVehicularSceneHelper().Build(2); },
                                  "FlVehicularSceneHelper::Build",
                                  "ns-3.35 to ns-3.38");
    }
}

TEST(VehicularScene, SettingsChecked)
{
    FlVehicularSceneHelper h;
    fltest::ExpectConfigError([&h] { h.SetRoadsideUnits(0); },
                              "FlVehicularSceneHelper::SetRoadsideUnits");
    fltest::ExpectConfigError([&h] { h.SetRsuLine(Vector(1, 2, 3), Vector(1, 2, 3)); },
                              "FlVehicularSceneHelper::SetRsuLine");
    fltest::ExpectConfigError([&h] { h.SetEnvironment("rural"); },
                              "FlVehicularSceneHelper::SetEnvironment",
                              "highway");
    fltest::ExpectConfigError([&h] { h.SetTxPower(40); }, "FlVehicularSceneHelper::SetTxPower");
    fltest::ExpectConfigError([&h] { h.SetDataMode("OfdmRate6Mbps"); },
                              "FlVehicularSceneHelper::SetDataMode",
                              "OfdmRate6MbpsBW10MHz");
    fltest::ExpectConfigError([&h] { h.SetRouteUpdateInterval(Seconds(0)); },
                              "FlVehicularSceneHelper::SetRouteUpdateInterval");
    // RSUs at the middles of R equal parts of the line; the nearest, the first on a tie
    const std::vector<Vector> p =
        FlVehicularSceneHelper::RsuPositions(4, Vector(0, 0, 0), Vector(2000, 0, 0));
    ASSERT_EQ(p.size(), 4u);
    EXPECT_EQ(p[0].x, 250.0);
    EXPECT_EQ(p[3].x, 1750.0);
    EXPECT_EQ(FlVehicularSceneHelper::NearestRsu(p, Vector(760, 3, 0)), 1u);
    EXPECT_EQ(FlVehicularSceneHelper::NearestRsu(p, Vector(1000, 0, 0)), 1u);
    EXPECT_EQ(FlVehicularSceneHelper::NearestRsu(p, Vector(1001, 0, 0)), 2u);
}

// The trace's cars in the scene: parked at FlParkingPosition(i) before their span and after it,
// on the road (within the road's 2 km and 10 m of its axis) within it, and the routes know it;
// each car changes RSU only while it drives past them.
TEST(VehicularScene, CarsEnterAndLeave)
{
    if (!FlVehicularSceneAvailable())
    {
        GTEST_SKIP() << "ns-3 without the wave module (Availability checks the refusal)";
    }
    const std::vector<FlTraceSpan> spans = FlReadNs2TraceSpans(FL_VEHICULAR_TRACE);
    const uint32_t n = spans.size();
    FlClientMobilityHelper cars;
    cars.SetNs2Trace(FL_VEHICULAR_TRACE);
    FlVehicularSceneHelper h;
    h.SetClientMobility(cars);
    FlScene s = h.Build(n);
    Ptr<FlVehicularRoutes> routes = s.serverNode->GetObject<FlVehicularRoutes>();
    ASSERT_TRUE(routes);

    struct Check
    {
        uint32_t client;
        double t;
        bool onRoad;
    };

    std::vector<Check> checks;
    for (uint32_t i = 0; i < n; ++i)
    {
        checks.push_back({i, spans[i].enterS - 0.5, false});
        checks.push_back({i, 0.5 * (spans[i].enterS + spans[i].leaveS), true});
        checks.push_back({i, spans[i].leaveS + 0.5, false});
    }
    uint32_t failures = 0;
    for (const Check& c : checks)
    {
        FlSchedule(Seconds(c.t), [&s, c, &failures, routes]() {
            const Vector p = s.clients.Get(c.client)->GetObject<MobilityModel>()->GetPosition();
            const Vector parked = FlParkingPosition(c.client);
            const bool isParked = CalculateDistance(p, parked) < 1e-6;
            const bool isOnRoad = p.x > -1.0 && p.x < 2001.0 && std::abs(p.y) < 10.0;
            if ((c.onRoad ? !isOnRoad : !isParked) || routes->IsOnRoad(c.client) != c.onRoad)
            {
                ++failures;
                ADD_FAILURE() << "car " << c.client << " at " << c.t << " s is at " << p
                              << (c.onRoad ? ", not on the road" : ", not parked");
            }
        });
    }
    Simulator::Stop(Seconds(302));
    Simulator::Run();
    // along a straight road past 4 RSUs a car changes RSU at most 3 times (entering the road
    // and parking are no changes), and the cars that cross the whole road do 3 times
    uint32_t crossed = 0;
    for (uint32_t i = 0; i < n; ++i)
    {
        EXPECT_LE(routes->GetRsuChanges(i), 3u) << "car " << i;
        crossed += routes->GetRsuChanges(i) == 3 ? 1 : 0;
    }
    EXPECT_GT(crossed, n / 2);
    Simulator::Destroy();
    EXPECT_EQ(failures, 0u);
}

// One car drives along +x at 25 m/s past two RSUs (x = 250 and 750 m): FedAvg rounds run all
// along; its uploads reach the server through RSU 0 until it passes x = 500 m (t = 20 s),
// through RSU 1 after; its routes moved once, between 20 s and 20 s + the update interval.
TEST(VehicularScene, CarUploadsToEachRsuInTurn)
{
    if (!FlVehicularSceneAvailable())
    {
        GTEST_SKIP() << "ns-3 without the wave module (Availability checks the refusal)";
    }
    auto task = fltest::MakeTask<float>(1, "softmax");
    FlClientMobilityHelper car;
    car.SetRoad(Vector(0, 0, 0), Vector(1, 0, 0), 0.0, 25.0);
    FlVehicularSceneHelper h;
    h.SetRoadsideUnits(2);
    h.SetRsuLine(Vector(0, 0, 0), Vector(1000, 0, 0));
    h.SetClientMobility(car);
    FlScene scene = h.Build(1);
    FlVehicularSceneHelper::AssignStreams(scene, 100);

    // bytes each RSU forwarded to the server, before and after 20 s
    uint64_t forwarded[2][2] = {{0, 0}, {0, 0}}; // [rsu][after 20 s]
    for (uint32_t r = 0; r < 2; ++r)
    {
        const Ptr<Node> rsu = scene.infrastructure.Get(r);
        for (uint32_t d = 0; d < rsu->GetNDevices(); ++d)
        {
            Ptr<PointToPointNetDevice> p2p = DynamicCast<PointToPointNetDevice>(rsu->GetDevice(d));
            if (p2p)
            {
                p2p->TraceConnectWithoutContext(
                    "MacTx",
                    FlCallback<void, Ptr<const Packet>>([&forwarded, r](Ptr<const Packet> p) {
                        forwarded[r][Simulator::Now() >= Seconds(20) ? 1 : 0] += p->GetSize();
                    }));
            }
        }
    }
    std::vector<std::pair<double, uint32_t>> moves;
    Ptr<FlVehicularRoutes> routes = scene.serverNode->GetObject<FlVehicularRoutes>();
    ASSERT_TRUE(routes);
    routes->TraceConnectWithoutContext(
        "RsuChange",
        FlCallback<void, uint32_t, uint32_t, uint32_t>([&moves](uint32_t, uint32_t, uint32_t to) {
            moves.emplace_back(Simulator::Now().GetSeconds(), to);
        }));
    std::vector<double> roundEnds;
    FlServerHelper sh(task);
    sh.SetAttribute("Rounds", UintegerValue(100000));
    sh.SetAttribute("InitSeed", UintegerValue(12345));
    sh.SetAttribute("RoundDeadline", TimeValue(Seconds(5)));
    ApplicationContainer sapps = sh.Install(scene.serverNode);
    FlClientHelper ch(task, scene.serverAddress);
    ApplicationContainer capps = ch.Install(scene.clients);
    sapps.Start(Seconds(0));
    capps.Start(Seconds(0.5));
    Ptr<FlServerApplication> server = DynamicCast<FlServerApplication>(sapps.Get(0));
    const FlSceneLinkState* links = PeekPointer(FlGetSceneLinkState(scene.serverNode));
    server->SetLinkStateProvider([links](uint32_t c) { return links->Get(c); });
    std::vector<FlLinkState> atRoundEnd;
    server->TraceConnectWithoutContext("RoundEnd",
                                       FlCallback<void, const FlRoundReport&>(
                                           [&roundEnds, &atRoundEnd, links](const FlRoundReport&) {
                                               roundEnds.push_back(Simulator::Now().GetSeconds());
                                               atRoundEnd.push_back(links->Get(0));
                                           }));
    Simulator::Stop(Seconds(40));
    Simulator::Run();
    Simulator::Destroy();

    ASSERT_EQ(moves.size(), 1u);
    EXPECT_GE(moves[0].first, 20.0);
    EXPECT_LE(moves[0].first, 20.2 + 1e-9);
    EXPECT_EQ(moves[0].second, 1u);
    EXPECT_EQ(routes->GetRsuChanges(0), 1u);
    // the uploads: through RSU 0 before 20 s, RSU 1 after (one update interval of overlap
    // allowed: the route moves at the first update after 20 s)
    EXPECT_GT(forwarded[0][0], 10000u);
    EXPECT_GT(forwarded[1][1], 10000u);
    EXPECT_EQ(forwarded[1][0], 0u);
    EXPECT_LT(forwarded[0][1], forwarded[1][1] / 10);
    // rounds completed on both sides of the handover
    uint32_t before = 0;
    uint32_t after = 0;
    for (double t : roundEnds)
    {
        (t < 19.0 ? before : after) += (t < 19.0 || t > 21.0) ? 1 : 0;
    }
    EXPECT_GT(before, 3u);
    EXPECT_GT(after, 3u);
    // the link state: an SNR of the RSU's, the distance to the car's RSU (at most 250 m here)
    ASSERT_FALSE(atRoundEnd.empty());
    const FlLinkState& last = atRoundEnd.back();
    EXPECT_TRUE(std::isfinite(last.snrDb));
    EXPECT_GT(last.snrDb, 5.0);
    EXPECT_LE(last.distanceM, 250.0 + 1e-9);
    // the serving RSU and the RSU changes, as the CSVs' upload_cell and handovers columns show
    EXPECT_EQ(atRoundEnd.front().cell, 0);
    EXPECT_EQ(atRoundEnd.front().handovers, 0u);
    EXPECT_EQ(last.cell, 1);
    EXPECT_EQ(last.handovers, 1u);
}
