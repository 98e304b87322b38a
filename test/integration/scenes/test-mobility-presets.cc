/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Mobility presets of the radio scenes' clients: each installs the ns-3 model it names (type,
 * speeds, positions in its box), reproducibly from its streams, and refuses bad parameters
 * naming them (the setters and the programs' --mobility); the radio scenes move their clients
 * with a preset and their link state gives each client's distance to its access point.
 */
#include "fl-test-config-error.h"
#include "fl-test-task.h"

#include "ns3/constant-position-mobility-model.h"
#include "ns3/constant-velocity-mobility-model.h"
#include "ns3/core-module.h"
#include "ns3/fl-network-scenarios.h"
#include "ns3/gauss-markov-mobility-model.h"
#include "ns3/mobility-model.h"
#include "ns3/position-allocator.h"
#include "ns3/random-waypoint-mobility-model.h"
#include "ns3/steady-state-random-waypoint-mobility-model.h"
#include "ns3/waypoint-mobility-model.h"

#include <cmath>
#include <fstream>
#include <functional>
#include <gtest/gtest.h>
#include <sstream>

using namespace ns3;

namespace
{

Box
Square(double side)
{
    return Box(0.0, side, 0.0, side, 0.0, 0.0);
}

bool
Inside(const Box& b, const Vector& p)
{
    const double eps = 1e-9; // a node on a wall: the models stop there up to rounding
    return p.x >= b.xMin - eps && p.x <= b.xMax + eps && p.y >= b.yMin - eps &&
           p.y <= b.yMax + eps && p.z >= b.zMin - eps && p.z <= b.zMax + eps;
}

/// Positions and speeds of every node every `step` until `end` (the simulator runs).
struct Track
{
    std::vector<std::vector<Vector>> position; ///< [sample][node]
    std::vector<std::vector<double>> speed;    ///< [sample][node]
};

Track
Sample(const NodeContainer& nodes, Time step, Time end)
{
    Track t;
    std::function<void()> sample = [&]() {
        std::vector<Vector> p;
        std::vector<double> v;
        for (uint32_t i = 0; i < nodes.GetN(); ++i)
        {
            Ptr<MobilityModel> m = nodes.Get(i)->GetObject<MobilityModel>();
            p.push_back(m->GetPosition());
            v.push_back(m->GetVelocity().GetLength());
        }
        t.position.push_back(p);
        t.speed.push_back(v);
        if (Simulator::Now() + step <= end)
        {
            Simulator::Schedule(step, sample);
        }
    };
    Simulator::ScheduleNow(sample);
    Simulator::Stop(end + step);
    Simulator::Run();
    return t;
}

NodeContainer
Nodes(uint32_t n)
{
    NodeContainer c;
    c.Create(n);
    return c;
}

template <typename M>
void
ExpectModels(const NodeContainer& nodes)
{
    for (uint32_t i = 0; i < nodes.GetN(); ++i)
    {
        EXPECT_TRUE(DynamicCast<M>(nodes.Get(i)->GetObject<MobilityModel>())) << "client " << i;
    }
}

} // namespace

// Each preset installs the model it names on every client, moves inside its box at its
// speeds, and starts where it says.
TEST(MobilityPresets, EachPresetInstallsWhatItSays)
{
    const uint32_t n = 6;
    const Box box = Square(100.0);
    {
        SCOPED_TRACE("random waypoint");
        NodeContainer c = Nodes(n);
        FlClientMobilityHelper p;
        p.SetRandomWaypoint(box, 2.0, 5.0, Seconds(1));
        EXPECT_EQ(p.GetName(), "random-waypoint");
        EXPECT_GT(p.Install(c), 0);
        ExpectModels<RandomWaypointMobilityModel>(c);
        const Track t = Sample(c, Seconds(0.5), Seconds(120));
        bool moved = false;
        for (std::size_t s = 0; s < t.position.size(); ++s)
        {
            for (uint32_t i = 0; i < n; ++i)
            {
                EXPECT_TRUE(Inside(box, t.position[s][i])) << "sample " << s;
                const double v = t.speed[s][i];
                EXPECT_TRUE(v == 0.0 || (v >= 2.0 - 1e-9 && v <= 5.0 + 1e-9)) << v;
                moved = moved || v > 0.0;
            }
        }
        EXPECT_TRUE(moved);
        Simulator::Destroy();
    }
    {
        SCOPED_TRACE("steady-state random waypoint");
        NodeContainer c = Nodes(n);
        FlClientMobilityHelper p;
        p.SetSteadyStateRandomWaypoint(Box(0, 100, 0, 50, 1.5, 1.5),
                                       1.0,
                                       3.0,
                                       Seconds(0),
                                       Seconds(2));
        p.Install(c);
        ExpectModels<SteadyStateRandomWaypointMobilityModel>(c);
        const Track t = Sample(c, Seconds(0.5), Seconds(120));
        for (std::size_t s = 1; s < t.position.size(); ++s) // from the first draw on
        {
            for (uint32_t i = 0; i < n; ++i)
            {
                EXPECT_TRUE(Inside(Box(0, 100, 0, 50, 1.5, 1.5), t.position[s][i]));
                const double v = t.speed[s][i];
                EXPECT_TRUE(v == 0.0 || (v >= 1.0 - 1e-9 && v <= 3.0 + 1e-9)) << v;
            }
        }
        Simulator::Destroy();
    }
    {
        SCOPED_TRACE("Gauss-Markov, alpha 1: constant speed");
        NodeContainer c = Nodes(n);
        FlClientMobilityHelper p;
        p.SetGaussMarkov(box, 4.0, 0.0, 1.0, Seconds(0.25));
        p.Install(c);
        ExpectModels<GaussMarkovMobilityModel>(c);
        const Track t = Sample(c, Seconds(0.5), Seconds(120));
        for (std::size_t s = 1; s < t.position.size(); ++s)
        {
            for (uint32_t i = 0; i < n; ++i)
            {
                EXPECT_TRUE(Inside(box, t.position[s][i])) << "sample " << s;
                EXPECT_NEAR(t.speed[s][i], 4.0, 1e-9);
            }
        }
        Simulator::Destroy();
    }
    {
        SCOPED_TRACE("Gauss-Markov, alpha 0.5: inside the box");
        NodeContainer c = Nodes(n);
        FlClientMobilityHelper p;
        p.SetGaussMarkov(box, 4.0, 1.0, 0.5, Seconds(0.25));
        p.Install(c);
        const Track t = Sample(c, Seconds(0.5), Seconds(120));
        double sum = 0.0;
        std::size_t count = 0;
        for (std::size_t s = 1; s < t.position.size(); ++s)
        {
            for (uint32_t i = 0; i < n; ++i)
            {
                EXPECT_TRUE(Inside(box, t.position[s][i])) << "sample " << s;
                sum += t.speed[s][i];
                ++count;
            }
        }
        // the speed is 4 m/s plus noise bounded by 3 sigma, clipped at 0: its mean within
        // 4 +- 3 x 1 whatever the draws
        EXPECT_GT(sum / count, 1.0);
        EXPECT_LT(sum / count, 7.0);
        Simulator::Destroy();
    }
    {
        SCOPED_TRACE("road");
        NodeContainer c = Nodes(n);
        FlClientMobilityHelper p;
        p.SetRoad(Vector(-100, 5, 0), Vector(3, 4, 0), 20.0, 15.0);
        EXPECT_EQ(p.Install(c), 0);
        ExpectModels<ConstantVelocityMobilityModel>(c);
        const Track t = Sample(c, Seconds(1), Seconds(4));
        for (uint32_t i = 0; i < n; ++i)
        {
            const double along0 = 20.0 * i;
            const double along4 = along0 + 15.0 * 4.0;
            EXPECT_NEAR(t.position[0][i].x, -100 + 0.6 * along0, 1e-9);
            EXPECT_NEAR(t.position[0][i].y, 5 + 0.8 * along0, 1e-9);
            EXPECT_NEAR(t.position[4][i].x, -100 + 0.6 * along4, 1e-9);
            EXPECT_NEAR(t.position[4][i].y, 5 + 0.8 * along4, 1e-9);
            EXPECT_NEAR(t.speed[2][i], 15.0, 1e-12);
        }
        Simulator::Destroy();
    }
    {
        SCOPED_TRACE("waypoints");
        NodeContainer c = Nodes(2);
        FlClientMobilityHelper p;
        p.SetWaypoints(
            {{Waypoint(Seconds(0), Vector(0, 0, 0)), Waypoint(Seconds(10), Vector(100, 0, 0))},
             {Waypoint(Seconds(2), Vector(5, 5, 0))}});
        p.Install(c);
        ExpectModels<WaypointMobilityModel>(c);
        const Track t = Sample(c, Seconds(2.5), Seconds(12.5));
        EXPECT_NEAR(t.position[1][0].x, 25.0, 1e-9); // 2.5 s of 10 m/s
        EXPECT_NEAR(t.position[2][0].x, 50.0, 1e-9);
        EXPECT_NEAR(t.position[5][0].x, 100.0, 1e-9); // stays at its last waypoint
        EXPECT_EQ(t.position[3][1], Vector(5, 5, 0));
        Simulator::Destroy();
    }
    {
        SCOPED_TRACE("ns-2 trace");
        const std::string path = ::testing::TempDir() + "fl-mobility-trace.ns_movements";
        {
            std::ofstream f(path);
            f << "$node_(0) set X_ 10.0\n$node_(0) set Y_ 0.0\n$node_(0) set Z_ 0.0\n"
                 "$node_(1) set X_ 0.0\n$node_(1) set Y_ 20.0\n$node_(1) set Z_ 0.0\n"
                 "$ns_ at 1.0 \"$node_(0) setdest 50.0 0.0 8.0\"\n";
        }
        NodeContainer c = Nodes(2);
        FlClientMobilityHelper p;
        p.SetNs2Trace(path);
        p.Install(c);
        ExpectModels<ConstantVelocityMobilityModel>(c);
        const Track t = Sample(c, Seconds(1), Seconds(3));
        EXPECT_NEAR(t.position[0][0].x, 10.0, 1e-9);
        EXPECT_NEAR(t.position[3][0].x, 26.0, 1e-9); // 2 s at 8 m/s from 1 s on
        EXPECT_NEAR(t.position[3][1].y, 20.0, 1e-9);
        Simulator::Destroy();

        NodeContainer three = Nodes(3); // the trace moves two nodes only
        fltest::ExpectConfigError([&] { p.Install(three); }, "Install", "$node_(2)");
        Simulator::Destroy();
    }
    {
        SCOPED_TRACE("fixed");
        NodeContainer c = Nodes(2);
        FlClientMobilityHelper p;
        EXPECT_FALSE(p.Moves());
        EXPECT_EQ(p.Install(c), 0);
        EXPECT_FALSE(c.Get(0)->GetObject<MobilityModel>());
        Simulator::Destroy();
    }
}

// The same streams move the clients alike; other streams otherwise.
TEST(MobilityPresets, StreamsReproduce)
{
    auto trackOf = [](int64_t stream) {
        NodeContainer c = Nodes(4);
        FlClientMobilityHelper p;
        p.SetRandomWaypoint(Square(200.0), 1.0, 10.0, Seconds(0.5));
        if (stream >= 0)
        {
            p.SetStream(stream);
        }
        p.Install(c);
        const Track t = Sample(c, Seconds(5), Seconds(60));
        Simulator::Destroy();
        return t.position;
    };
    const auto a = trackOf(-1);
    EXPECT_EQ(a, trackOf(-1));
    EXPECT_EQ(trackOf(kFlMobilityStream), a);
    EXPECT_NE(trackOf(7), a);
}

// Bad parameters: fl::ConfigError naming the setter and the parameter, with the fix.
TEST(MobilityPresets, BadParametersNamed)
{
    using fltest::ExpectConfigError;
    FlClientMobilityHelper p;
    const double nan = std::nan("");
    ExpectConfigError([&] { p.SetRandomWaypoint(Box(0, 0, 0, 1, 0, 0), 1, 2, Seconds(0)); },
                      "SetRandomWaypoint box");
    ExpectConfigError([&] { p.SetRandomWaypoint(Box(0, nan, 0, 1, 0, 0), 1, 2, Seconds(0)); },
                      "SetRandomWaypoint box");
    ExpectConfigError([&] { p.SetRandomWaypoint(Square(10), 0, 2, Seconds(0)); },
                      "SetRandomWaypoint minSpeed",
                      "minSpeed > 0");
    ExpectConfigError([&] { p.SetRandomWaypoint(Square(10), 3, 2, Seconds(0)); },
                      "SetRandomWaypoint maxSpeed");
    ExpectConfigError([&] { p.SetRandomWaypoint(Square(10), 1, 2, Seconds(-1)); },
                      "SetRandomWaypoint pause");
    ExpectConfigError(
        [&] {
            p.SetSteadyStateRandomWaypoint(Box(0, 10, 0, 10, 0, 1), 1, 2, Seconds(0), Seconds(1));
        },
        "SetSteadyStateRandomWaypoint box",
        "zMin = zMax");
    ExpectConfigError(
        [&] { p.SetSteadyStateRandomWaypoint(Square(10), 1, 2, Seconds(2), Seconds(1)); },
        "SetSteadyStateRandomWaypoint maxPause");
    ExpectConfigError([&] { p.SetGaussMarkov(Square(10), -1, 0, 0.5, Seconds(1)); },
                      "SetGaussMarkov meanSpeed");
    ExpectConfigError([&] { p.SetGaussMarkov(Square(10), 1, nan, 0.5, Seconds(1)); },
                      "SetGaussMarkov speedStdDev");
    ExpectConfigError([&] { p.SetGaussMarkov(Square(10), 1, 0, 1.5, Seconds(1)); },
                      "SetGaussMarkov alpha");
    ExpectConfigError([&] { p.SetGaussMarkov(Square(10), 1, 0, 0.5, Seconds(0)); },
                      "SetGaussMarkov timeStep");
    ExpectConfigError([&] { p.SetRoad(Vector(0, 0, 0), Vector(0, 0, 0), 1, 1); },
                      "SetRoad direction");
    ExpectConfigError([&] { p.SetRoad(Vector(0, 0, 0), Vector(1, 0, 0), -1, 1); },
                      "SetRoad spacing");
    ExpectConfigError([&] { p.SetRoad(Vector(0, 0, 0), Vector(1, 0, 0), 1, nan); },
                      "SetRoad speed");
    ExpectConfigError([&] { p.SetWaypoints({}); }, "SetWaypoints paths");
    ExpectConfigError([&] { p.SetWaypoints({{}}); }, "SetWaypoints paths", "path 0 is empty");
    ExpectConfigError(
        [&] {
            p.SetWaypoints(
                {{Waypoint(Seconds(1), Vector(0, 0, 0)), Waypoint(Seconds(1), Vector(1, 0, 0))}});
        },
        "SetWaypoints paths",
        "strictly increasing");
    ExpectConfigError([&] { p.SetNs2Trace("/nonexistent/trace.tcl"); }, "SetNs2Trace path");
    ExpectConfigError([&] { p.SetStream(-1); }, "SetStream stream");
    EXPECT_FALSE(p.Moves()); // nothing was set

    // Install: one path per client, nodes without a model
    p.SetWaypoints({{Waypoint(Seconds(0), Vector(0, 0, 0))}});
    NodeContainer two = Nodes(2);
    ExpectConfigError([&] { p.Install(two); }, "Install", "1 waypoint paths for 2 clients");
    two.Get(0)->AggregateObject(CreateObject<ConstantPositionMobilityModel>());
    ExpectConfigError([&] { p.Install(two); }, "Install", "has a MobilityModel already");

    // a moving preset needs positions: flow fidelity refuses it
    FlWifiScenarioHelper wifi;
    FlClientMobilityHelper road;
    road.SetRoad(Vector(0, 0, 0), Vector(1, 0, 0), 1, 1);
    wifi.SetClientMobility(road);
    wifi.SetFidelity(FlFidelity::Flow);
    ExpectConfigError([&] { wifi.Build(2); }, "SetClientMobility", "flow");
    FlLteSceneHelper lte;
    lte.SetClientMobility(road);
    lte.SetFidelity(FlFidelity::Flow);
    ExpectConfigError([&] { lte.Build(2); }, "SetClientMobility", "flow");
    Simulator::Destroy();
}

// Every radio scene moves its clients with a preset (and keeps a node's own model); the
// scene's link state gives each client's distance to its access point.
TEST(MobilityPresets, RadioScenesMoveTheirClients)
{
    FlClientMobilityHelper road;
    road.SetRoad(Vector(10, 0, 0), Vector(0, 1, 0), 5.0, 20.0);
    auto check = [](const FlScene& s, const std::function<Vector(uint32_t)>& accessPoint) {
        Ptr<FlSceneLinkState> links = FlGetSceneLinkState(s.serverNode);
        ASSERT_TRUE(links);
        for (uint32_t i = 0; i < s.clients.GetN(); ++i)
        {
            Ptr<MobilityModel> m = s.clients.Get(i)->GetObject<MobilityModel>();
            ASSERT_TRUE(DynamicCast<ConstantVelocityMobilityModel>(m)) << "client " << i;
            EXPECT_EQ(m->GetVelocity(), Vector(0, 20, 0));
            const Vector p = m->GetPosition();
            EXPECT_EQ(p, Vector(10, 5.0 * i, 0));
            EXPECT_NEAR(links->Get(i).distanceM, CalculateDistance(p, accessPoint(i)), 1e-9);
        }
    };
    {
        FlWifiScenarioHelper h;
        h.SetClientMobility(road);
        check(h.Build(3), [](uint32_t) { return Vector(0, 0, 0); });
    }
    Simulator::Destroy();
    {
        FlWifiAdhocSceneHelper h;
        h.SetClientMobility(road);
        check(h.Build(3), [](uint32_t) { return Vector(0, 0, 0); });
    }
    Simulator::Destroy();
    {
        FlWifiEssSceneHelper h;
        h.SetAccessPoints(2);
        h.SetClientMobility(road);
        FlScene s = h.Build(4);
        check(s, [&s](uint32_t i) {
            return s.infrastructure.Get(i % 2)->GetObject<MobilityModel>()->GetPosition();
        });
    }
    Simulator::Destroy();
    {
        FlLteSceneHelper h;
        h.SetClientMobility(road);
        check(h.Build(3), [](uint32_t) { return Vector(0, 0, 0); });
    }
    Simulator::Destroy();
    {
        // a node's own model stays; the others take the preset
        Ptr<Node> server = CreateObject<Node>();
        NodeContainer nodes = Nodes(2);
        Ptr<ConstantPositionMobilityModel> own = CreateObject<ConstantPositionMobilityModel>();
        own->SetPosition(Vector(1, 2, 0));
        nodes.Get(0)->AggregateObject(own);
        FlWifiScenarioHelper h;
        h.SetNodes(server, nodes);
        h.SetClientMobility(road);
        h.Build(2);
        EXPECT_EQ(nodes.Get(0)->GetObject<MobilityModel>(), own);
        EXPECT_TRUE(
            DynamicCast<ConstantVelocityMobilityModel>(nodes.Get(1)->GetObject<MobilityModel>()));
    }
    Simulator::Destroy();
}

// The programs' --mobility: every kind with its keys, the defaults, and errors naming the flag.
TEST(MobilityPresets, ParseFlag)
{
    using K = FlClientMobilityHelper::Kind;
    EXPECT_EQ(ParseFlClientMobility("fixed", "--mobility").GetKind(), K::Fixed);
    EXPECT_EQ(ParseFlClientMobility("random-waypoint", "--mobility").GetKind(), K::RandomWaypoint);
    EXPECT_EQ(
        ParseFlClientMobility("steady-state-random-waypoint:min=2,max=3,maxPause=4", "--mobility")
            .GetKind(),
        K::SteadyStateRandomWaypoint);
    EXPECT_EQ(ParseFlClientMobility("gauss-markov:speed=3,sd=0.5,alpha=0.9,step=0.5", "--mobility")
                  .GetKind(),
              K::GaussMarkov);
    {
        // the box is a square of the side around the origin; the road runs along +x
        NodeContainer c = Nodes(3);
        ParseFlClientMobility("random-waypoint:side=20,min=1,max=2,pause=0", "--mobility")
            .Install(c);
        const Track t = Sample(c, Seconds(1), Seconds(30));
        for (const auto& sample : t.position)
        {
            for (const Vector& p : sample)
            {
                EXPECT_TRUE(Inside(Box(-10, 10, -10, 10, 0, 0), p));
            }
        }
        Simulator::Destroy();
        NodeContainer r = Nodes(2);
        ParseFlClientMobility("road:speed=12,spacing=7,x0=-50,y=3", "--mobility").Install(r);
        const Track u = Sample(r, Seconds(1), Seconds(1));
        EXPECT_EQ(u.position[0][1], Vector(-43, 3, 0));
        EXPECT_EQ(u.position[1][1], Vector(-31, 3, 0));
        Simulator::Destroy();
    }
    using fltest::ExpectConfigError;
    ExpectConfigError([] { ParseFlClientMobility("teleport", "--mobility"); },
                      "--mobility",
                      "not a mobility preset");
    ExpectConfigError([] { ParseFlClientMobility("road:speed", "--mobility"); },
                      "--mobility",
                      "not key=value");
    ExpectConfigError([] { ParseFlClientMobility("road:velocity=3", "--mobility"); },
                      "--mobility",
                      "not a key of road");
    ExpectConfigError([] { ParseFlClientMobility("road:speed=3x", "--mobility"); },
                      "--mobility",
                      "speed='3x' is not a number");
    ExpectConfigError([] { ParseFlClientMobility("random-waypoint:min=0", "--mobility"); },
                      "--mobility",
                      "SetRandomWaypoint minSpeed");
    ExpectConfigError([] { ParseFlClientMobility("gauss-markov:side=-1", "--mobility"); },
                      "--mobility",
                      "SetGaussMarkov box");
}
