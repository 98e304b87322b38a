/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Neighbour discovery over ad hoc Wi-Fi (FlHelloApplication): three nodes on a line within a
 * 40 m radio range (ns-3's RangePropagationLossModel), 30 m apart, learn the line 0 - 1 - 2 from
 * their hellos; node 2 then walks away (WaypointMobilityModel) and is dropped by node 1 after the
 * timeout, not before; a garbage datagram on the hello port is dropped and counted.
 */
#include "fl-test-adhoc-range.h"
#include "fl-test-config-error.h"

#include "ns3/core-module.h"
#include "ns3/fl-hello-application.h"
#include "ns3/fl-ns3-compat.h"
#include "ns3/internet-module.h"
#include "ns3/mobility-module.h"
#include "ns3/neighbour-discovery.h"
#include "ns3/propagation-module.h"
#include "ns3/wifi-module.h"

#include <gtest/gtest.h>
#include <map>
#include <vector>

using namespace ns3;

namespace
{

/// Three ad hoc Wi-Fi nodes at x = 0, 30, 60 m; node 2 leaves for x = 500 m at t = 10 s.
struct Line
{
    NodeContainer nodes;
    std::vector<Ptr<FlHelloApplication>> hello;
    std::map<uint32_t, std::vector<std::pair<double, std::vector<uint32_t>>>> changes;
};

void
Build(Line& line)
{
    line.nodes.Create(3);
    MobilityHelper fixed;
    Ptr<ListPositionAllocator> alloc = CreateObject<ListPositionAllocator>();
    alloc->Add(Vector(0, 0, 0));
    alloc->Add(Vector(30, 0, 0));
    fixed.SetPositionAllocator(alloc);
    fixed.Install(NodeContainer(line.nodes.Get(0), line.nodes.Get(1)));
    Ptr<WaypointMobilityModel> walk = CreateObject<WaypointMobilityModel>();
    line.nodes.Get(2)->AggregateObject(walk);
    walk->AddWaypoint(Waypoint(Seconds(0), Vector(60, 0, 0)));
    walk->AddWaypoint(Waypoint(Seconds(10), Vector(60, 0, 0)));
    walk->AddWaypoint(Waypoint(Seconds(12), Vector(500, 0, 0)));

    fltest::InstallRangeAdhoc(line.nodes, 40.0, "10.7.0.0");
    for (uint32_t i = 0; i < 3; ++i)
    {
        Ptr<FlHelloApplication> app =
            CreateObjectWithAttributes<FlHelloApplication>("Interval",
                                                           TimeValue(Seconds(1)),
                                                           "Timeout",
                                                           TimeValue(Seconds(3)));
        line.nodes.Get(i)->AddApplication(app);
        app->AssignStreams(40 + i);
        app->SetStartTime(Seconds(0.1));
        Line* l = &line;
        app->TraceConnectWithoutContext(
            "NeighboursChanged",
            FlCallback<void, uint32_t, const std::vector<uint32_t>&>(
                [l](uint32_t id, const std::vector<uint32_t>& n) {
                    l->changes[id].emplace_back(Simulator::Now().GetSeconds(), n);
                }));
        line.hello.push_back(app);
    }
}

} // namespace

TEST(HelloNetwork, NodesLearnTheLineAndDropTheOneThatLeaves)
{
    Line line;
    Build(line);
    std::map<double, std::vector<std::vector<uint32_t>>> seen; // time -> neighbours of 0, 1, 2
    for (double t : {3.0, 9.5, 11.9, 13.1, 16.0})
    {
        Simulator::Schedule(Seconds(t), [&line, &seen, t]() {
            for (uint32_t i = 0; i < 3; ++i)
            {
                seen[t].push_back(line.hello[i]->GetNeighbours());
            }
        });
    }
    Simulator::Stop(Seconds(17));
    Simulator::Run();
    using V = std::vector<uint32_t>;
    // the line, learned within the first hellos (two rounds make a link known symmetric)
    EXPECT_EQ(seen[3.0], (std::vector<V>{{1}, {0, 2}, {1}}));
    EXPECT_EQ(seen[9.5], (std::vector<V>{{1}, {0, 2}, {1}}));
    // node 2 leaves range (40 m from node 1) at 10 s + 2 s x 10 / 440 = 10.05 s; the last hello
    // of 2 that 1 heard left in (10.05 - Interval - Jitter, 10.05] = (8.95, 10.05], so 1 counts
    // 2 until that hello is Timeout = 3 s old: still at 11.9 s, no longer at 13.1 s
    EXPECT_EQ(seen[11.9][1], (V{0, 2}));
    EXPECT_EQ(seen[13.1][1], (V{0}));
    EXPECT_EQ(seen[16.0], (std::vector<V>{{1}, {0}, {}}));
    // the NeighboursChanged trace of 1 says so at its next hello or reception after the expiry:
    // in (11.95, 13.05 + Interval + Jitter]
    ASSERT_FALSE(line.changes[1].empty());
    EXPECT_EQ(line.changes[1].back().second, (V{0}));
    EXPECT_GT(line.changes[1].back().first, 11.95);
    EXPECT_LE(line.changes[1].back().first, 14.15);
    for (uint32_t i = 0; i < 3; ++i)
    {
        EXPECT_GE(line.hello[i]->GetCounters().sent, 16u);
        EXPECT_EQ(line.hello[i]->GetCounters().malformed, 0u);
    }
    Simulator::Destroy();
}

TEST(HelloNetwork, GarbageOnTheHelloPortIsDroppedAndCounted)
{
    Line line;
    Build(line);
    Simulator::Schedule(Seconds(2.5), [&line]() {
        Ptr<Socket> s = Socket::CreateSocket(line.nodes.Get(0), UdpSocketFactory::GetTypeId());
        s->SetAllowBroadcast(true);
        s->Bind();
        const uint8_t junk[20] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 255, 255, 255, 127};
        s->SendTo(Create<Packet>(junk, sizeof(junk)),
                  0,
                  InetSocketAddress(Ipv4Address("10.7.0.2"), 9797));
    });
    Simulator::Stop(Seconds(4));
    Simulator::Run();
    EXPECT_EQ(line.hello[1]->GetCounters().malformed, 1u);
    EXPECT_EQ(line.hello[1]->GetNeighbours(), (std::vector<uint32_t>{0, 2}));
    Simulator::Destroy();
}

TEST(HelloNetwork, ATimeoutWithinOneIntervalIsRefused)
{
    EXPECT_EXIT(
        {
            NodeContainer n;
            n.Create(1);
            InternetStackHelper().Install(n);
            Ptr<FlHelloApplication> app =
                CreateObjectWithAttributes<FlHelloApplication>("Interval",
                                                               TimeValue(Seconds(1)),
                                                               "Timeout",
                                                               TimeValue(Seconds(1)));
            n.Get(0)->AddApplication(app);
            Simulator::Stop(Seconds(1));
            Simulator::Run();
        },
        ::testing::ExitedWithCode(2),
        "Timeout");
}
