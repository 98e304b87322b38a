/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Roaming and handover with FedAvg clients: a station that walks from one AP of a roaming
 * Wi-Fi ESS to the next re-associates once, keeps its address and its uploads keep arriving;
 * a station that walks out of every AP's range is marked detached; an LTE UE that drives from
 * one eNB's cell to the next hands over once over X2 and keeps uploading. The CSV columns say
 * so.
 */
#include "fl-test-config-error.h"
#include "fl-test-task.h"

#include "ns3/core-module.h"
#include "ns3/fl-helper.h"
#include "ns3/fl-network-scenarios.h"
#include "ns3/ipv4.h"
#include "ns3/learning-monitor.h"
#include "ns3/mobility-model.h"
#include "ns3/qos-txop.h"
#include "ns3/waypoint-mobility-model.h"
#include "ns3/wifi-mac.h"
#include "ns3/wifi-net-device.h"
#include "ns3/wifi-remote-station-manager.h"

#include <cmath>
#include <fstream>
#include <functional>
#include <gtest/gtest.h>
#include <sstream>

using namespace ns3;

namespace
{

std::string
Slurp(const std::string& path)
{
    std::ifstream f(path);
    std::ostringstream os;
    os << f.rdbuf();
    return os.str();
}

/// What a FedAvg run wrote and what the scene knew of each client's link at the end.
struct RoamRun
{
    std::vector<FlRoundRecord> records;
    std::vector<FlClientRoundRecord> clientRecords;
    std::vector<FlLinkState> linkAtEnd;      ///< per client
    std::vector<Ipv4Address> addressAtStart; ///< per client, the scene's
    std::vector<Ipv4Address> addressAtEnd;   ///< per client, its node's first interface's
    std::string roundCsv;
    std::string clientCsv;
    uint32_t completed{0};
};

/**
 * FedAvg over the scene `build` makes: fixed seeds, TCP, the scene's link state handed to the
 * server, a round deadline, a gap between rounds (so that rounds span the walk), both CSVs.
 */
RoamRun
RunFedAvg(uint32_t clients,
          uint32_t rounds,
          Time deadline,
          Time gap,
          Time stop,
          const std::function<FlScene()>& build,
          const std::function<int64_t(const FlScene&, int64_t)>& assign,
          const std::string& tag,
          const std::function<void(const FlScene&)>& inspect = {})
{
    auto task = fltest::MakeTask<float>(clients, "softmax:l2=0", 512);
    RoamRun out;
    const std::string roundFile = ::testing::TempDir() + "fl-roaming-" + tag + "-rounds.csv";
    const std::string clientFile = ::testing::TempDir() + "fl-roaming-" + tag + "-clients.csv";
    {
        FlScene scene = build();
        assign(scene, 100);
        FlServerHelper sh(task);
        sh.SetAttribute("Rounds", UintegerValue(rounds));
        sh.SetAttribute("WirePrecision", StringValue("float32"));
        sh.SetAttribute("InitSeed", UintegerValue(12345));
        sh.SetAttribute("Transport", StringValue("tcp"));
        sh.SetAttribute("RoundDeadline", TimeValue(deadline));
        sh.SetAttribute("RoundGap", TimeValue(gap));
        ApplicationContainer sapps = sh.Install(scene.serverNode);
        FlClientHelper ch(task, scene.serverAddress);
        ch.SetAttribute("WirePrecision", StringValue("float32"));
        ch.SetAttribute("Transport", StringValue("tcp"));
        ApplicationContainer capps = ch.Install(scene.clients);
        for (uint32_t i = 0; i < capps.GetN(); ++i)
        {
            capps.Get(i)->SetAttribute("TrainingSeed", UintegerValue(777 + 17 * i));
        }
        sapps.Start(Seconds(0));
        capps.Start(Seconds(0.5));
        Ptr<FlServerApplication> server = DynamicCast<FlServerApplication>(sapps.Get(0));
        const Ptr<FlSceneLinkState> links = FlGetSceneLinkState(scene.serverNode);
        const FlSceneLinkState* raw = PeekPointer(links);
        server->SetLinkStateProvider([raw](uint32_t c) { return raw->Get(c); });
        Ptr<LearningMonitor> monitor = CreateObject<LearningMonitor>();
        monitor->SetAttribute("OutputFile", StringValue(roundFile));
        monitor->SetAttribute("ClientOutputFile", StringValue(clientFile));
        monitor->SetAttribute("KeepClientRecords", BooleanValue(true));
        monitor->Install(server);
        monitor->InstallClients(capps);
        for (uint32_t i = 0; i < clients; ++i)
        {
            out.addressAtStart.push_back(scene.clientInterfaces.GetAddress(i));
        }
        Simulator::Stop(stop);
        Simulator::Run();
        out.records = monitor->GetRecords();
        out.clientRecords = monitor->GetClientRecords();
        out.completed = server->GetCompletedRounds();
        for (uint32_t i = 0; i < clients; ++i)
        {
            out.linkAtEnd.push_back(links->Get(i));
            Ptr<Ipv4> ip = scene.clients.Get(i)->GetObject<Ipv4>();
            out.addressAtEnd.push_back(ip->GetAddress(1, 0).GetLocal());
        }
        if (inspect)
        {
            inspect(scene);
        }
        monitor->Dispose(); // closes the files
    }
    Simulator::Destroy();
    out.roundCsv = Slurp(roundFile);
    out.clientCsv = Slurp(clientFile);
    return out;
}

const FlClientRoundRecord*
RowOf(const RoamRun& run, uint32_t round, uint32_t client)
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

/// The round (its record) that started last at or before `t` [s].
uint32_t
RoundStartedBy(const RoamRun& run, double t)
{
    uint32_t found = 0;
    for (const auto& r : run.records)
    {
        if (r.round > 0 && r.timeS - r.durationS <= t)
        {
            found = r.round;
        }
    }
    return found;
}

} // namespace

#if FL_NS3_VERSION >= 337 // roaming needs ns-3.37 (FlWifiEssSceneHelper::SetRoaming)

// A roaming ESS of two APs 80 m apart (its default, the grid centred on the origin: AP 0 at
// (-40, 0), AP 1 at (40, 0)). The APs' beacons reach about 51 m (ns-3's threshold preamble
// detection, -82 dBm, over the log-distance loss of the default YANS channel: 16.02 dBm -
// 46.68 dB - 30 log10(51.5) = -82 dBm). Client 0 stands 5 m from AP 0, client 1 5 m from AP 1;
// client 2 walks from 10 m to 70 m from AP 0 along the line between them at 5 m/s from 5 s to
// 17 s: it loses AP 0's beacons 51.5 m out (at 13.3 s), notices after 1.024 s (10 beacons, at
// 14.3 s), scans for 120 ms and associates with AP 1 (then about 23 m away). Client 3 walks 300 m
// away at 5.5 s and stays there: it is disassociated 10.24 s after its first association
// request (the watchdog of the initial association, kFlMaxMissedBeacons intervals, runs until
// then), at about 10.4 s, and associates with nobody again. The rounds close at a 3 s deadline
// with a 1 s gap.
TEST(Roaming, WifiStationWalksToTheNextAp)
{
    const uint32_t n = 4;
    const RoamRun run = RunFedAvg(
        n,
        14,
        Seconds(3),
        Seconds(1),
        Seconds(60),
        [] {
            FlClientMobilityHelper p;
            p.SetWaypoints({{Waypoint(Seconds(0), Vector(-35, 0, 0))},
                            {Waypoint(Seconds(0), Vector(35, 0, 0))},
                            {Waypoint(Seconds(0), Vector(-30, 0, 0)),
                             Waypoint(Seconds(5), Vector(-30, 0, 0)),
                             Waypoint(Seconds(17), Vector(30, 0, 0))},
                            {Waypoint(Seconds(0), Vector(-40, 5, 0)),
                             Waypoint(Seconds(5.5), Vector(-40, 5, 0)),
                             Waypoint(Seconds(5.6), Vector(-40, 300, 0))}});
            FlWifiEssSceneHelper h;
            h.SetAccessPoints(2);
            h.SetRoaming(true);
            h.SetClientMobility(p);
            return h.Build(4);
        },
        &FlWifiScenarioHelper::AssignStreams,
        "wifi",
        [](const FlScene& scene) {
            // what the distribution system told the APs when client 2 associated with AP 1:
            // AP 0 no longer counts it as associated, and neither side keeps a block-ack
            // agreement of its stay at AP 0 (the agreements with AP 1 are new)
            auto macOf = [&scene](uint32_t device) {
                return DynamicCast<WifiNetDevice>(scene.devices.Get(device))->GetMac();
            };
            auto addressOf = [&scene](uint32_t device) {
                return Mac48Address::ConvertFrom(scene.devices.Get(device)->GetAddress());
            };
            const Mac48Address walker = addressOf(2 + 2);
            EXPECT_FALSE(macOf(0)->GetWifiRemoteStationManager()->IsAssociated(walker));
            EXPECT_TRUE(macOf(1)->GetWifiRemoteStationManager()->IsAssociated(walker));
            for (uint8_t tid = 0; tid < 8; ++tid)
            {
                EXPECT_FALSE(macOf(0)->GetQosTxop(tid)->GetBaAgreementEstablished(walker, tid));
                EXPECT_FALSE(
                    macOf(2 + 2)->GetQosTxop(tid)->GetBaAgreementEstablished(addressOf(0), tid));
            }
            // the station that stayed at AP 0 still has its agreement for the best-effort TID
            EXPECT_TRUE(macOf(0)->GetQosTxop(0)->GetBaAgreementEstablished(addressOf(2), 0));
        });
    ASSERT_EQ(run.completed, 14u);
    // where everybody is at the end, and how often it changed AP
    const std::vector<int32_t> cell{0, 1, 1, kFlNoCell};
    const std::vector<uint32_t> handovers{0, 0, 1, 0};
    for (uint32_t i = 0; i < n; ++i)
    {
        SCOPED_TRACE("client " + std::to_string(i));
        EXPECT_EQ(run.linkAtEnd[i].cell, cell[i]);
        EXPECT_EQ(run.linkAtEnd[i].handovers, handovers[i]);
        EXPECT_EQ(run.addressAtEnd[i], run.addressAtStart[i]);
    }
    EXPECT_EQ(run.addressAtStart[2], Ipv4Address("10.1.0.4"));
    // the round and client columns count the one handover
    uint32_t roundHandovers = 0;
    for (const auto& r : run.records)
    {
        roundHandovers += r.handovers;
    }
    EXPECT_EQ(roundHandovers, 1u);
    // in the round that was open from 14.3 s to 14.5 s, when the hand calculation puts it
    for (uint32_t r = 1; r < run.records.size(); ++r)
    {
        if (run.records[r - 1].timeS < 14.3 && run.records[r].timeS >= 14.5)
        {
            EXPECT_EQ(run.records[r].handovers, 1u) << "round " << r;
        }
    }
    uint32_t clientHandovers = 0;
    for (const auto& r : run.clientRecords)
    {
        clientHandovers += r.handovers;
        if (r.client != 2)
        {
            EXPECT_EQ(r.handovers, 0u);
        }
    }
    EXPECT_EQ(clientHandovers, 1u);
    // client 2 uploads through AP 0 before its walk, through AP 1 once it has roamed, and its
    // updates are aggregated there
    const uint32_t before = RoundStartedBy(run, 4.0);
    ASSERT_GE(before, 1u);
    for (uint32_t r = 1; r <= before; ++r)
    {
        const FlClientRoundRecord* row = RowOf(run, r, 2);
        ASSERT_TRUE(row);
        EXPECT_TRUE(row->participated) << "round " << r;
        EXPECT_EQ(row->uploadCell, 0) << "round " << r;
    }
    const uint32_t after = RoundStartedBy(run, 17.0) + 1;
    ASSERT_LT(after, 14u);
    for (uint32_t r = after; r <= 14; ++r)
    {
        const FlClientRoundRecord* row = RowOf(run, r, 2);
        ASSERT_TRUE(row);
        EXPECT_TRUE(row->participated) << "round " << r;
        EXPECT_EQ(row->uploadCell, 1) << "round " << r;
        EXPECT_FALSE(row->detached) << "round " << r;
        EXPECT_GT(row->uploadDistanceM, 0.0);
        EXPECT_LT(row->uploadDistanceM, 11.0); // to AP 1, 10 m away
    }
    // client 3: detached (and lost) in every round that started after its AP was gone
    const uint32_t gone = RoundStartedBy(run, 11.5) + 1;
    ASSERT_LT(gone, 14u);
    for (uint32_t r = gone; r <= 14; ++r)
    {
        const FlClientRoundRecord* row = RowOf(run, r, 3);
        ASSERT_TRUE(row);
        EXPECT_TRUE(row->detached) << "round " << r;
        EXPECT_TRUE(row->lost) << "round " << r;
        EXPECT_FALSE(row->participated) << "round " << r;
        EXPECT_GE(run.records[r].detached, 1u);
    }
    // the CSVs carry the columns
    EXPECT_EQ(run.roundCsv.substr(0, run.roundCsv.find('\n')),
              FlLearningTracker::RoundCsvHeader(true));
    EXPECT_EQ(run.clientCsv.substr(0, run.clientCsv.find('\n')),
              FlLearningTracker::ClientRoundCsvHeader(true));
    uint32_t roamed = 0;
    for (uint32_t r = 1; r <= 14; ++r)
    {
        roamed += RowOf(run, r, 2)->handovers;
    }
    EXPECT_EQ(roamed, 1u);
}

// There and back: client 1 of a roaming ESS (APs at (-40, 0) and (40, 0)) walks from 10 m to
// 70 m from AP 0 at 5 m/s from 1 s to 13 s and back from 16 s to 28 s; client 0 stands 5 m from
// AP 0. It roams to AP 1 once the initial watchdog has run out (10.3 s; it left AP 0's range
// at 9.3 s) and back to AP 0 at about 25.3 s (it leaves AP 1's range 51.5 m out at 24.3 s,
// then 10 beacons). Back at AP 0 its uploads arrive again: the block-ack agreements of its
// first stay ended when it associated with AP 1 (without that, AP 0's downlink agreement had
// moved on while the station was away, and the station's reordering buffer held every later
// frame). No round deadline: every round waits for both clients.
TEST(Roaming, WifiStationWalksThereAndBack)
{
    const RoamRun run = RunFedAvg(
        2,
        30,
        Seconds(0),
        Seconds(1),
        Seconds(60),
        [] {
            FlClientMobilityHelper p;
            p.SetWaypoints({{Waypoint(Seconds(0), Vector(-35, 0, 0))},
                            {Waypoint(Seconds(0), Vector(-30, 0, 0)),
                             Waypoint(Seconds(1), Vector(-30, 0, 0)),
                             Waypoint(Seconds(13), Vector(30, 0, 0)),
                             Waypoint(Seconds(16), Vector(30, 0, 0)),
                             Waypoint(Seconds(28), Vector(-30, 0, 0))}});
            FlWifiEssSceneHelper h;
            h.SetAccessPoints(2);
            h.SetRoaming(true);
            h.SetClientMobility(p);
            return h.Build(2);
        },
        &FlWifiScenarioHelper::AssignStreams,
        "back");
    ASSERT_EQ(run.completed, 30u);
    EXPECT_EQ(run.linkAtEnd[1].cell, 0);
    EXPECT_EQ(run.linkAtEnd[1].handovers, 2u);
    EXPECT_EQ(run.linkAtEnd[0].handovers, 0u);
    uint32_t roundHandovers = 0;
    for (const auto& r : run.records)
    {
        roundHandovers += r.handovers;
    }
    EXPECT_EQ(roundHandovers, 2u);
    // through AP 1 between the roams, through AP 0 again after the second
    const uint32_t away = RoundStartedBy(run, 13.0) + 1;
    const uint32_t leaving = RoundStartedBy(run, 22.0);
    const uint32_t home = RoundStartedBy(run, 28.0) + 1;
    ASSERT_LT(away, leaving);
    ASSERT_LE(home, 30u);
    for (uint32_t r = 1; r <= 30; ++r)
    {
        const FlClientRoundRecord* row = RowOf(run, r, 1);
        ASSERT_TRUE(row);
        EXPECT_TRUE(row->participated) << "round " << r;
        if (r >= away && r <= leaving)
        {
            EXPECT_EQ(row->uploadCell, 1) << "round " << r;
        }
        if (r >= home)
        {
            EXPECT_EQ(row->uploadCell, 0) << "round " << r;
        }
    }
}

#endif

// Roaming off, the ESS reports each station's AP (its cell, client mod A) and no handover.
TEST(Roaming, WifiEssWithoutRoamingReportsTheCell)
{
    const RoamRun run = RunFedAvg(
        3,
        2,
        Seconds(0),
        Seconds(0),
        Seconds(30),
        [] {
            FlClientMobilityHelper p;
            p.SetWaypoints({{Waypoint(Seconds(0), Vector(5, 0, 0))},
                            {Waypoint(Seconds(0), Vector(1005, 0, 0))},
                            {Waypoint(Seconds(0), Vector(0, 5, 0))}});
            FlWifiEssSceneHelper h;
            h.SetAccessPoints(2);
            h.SetClientMobility(p);
            return h.Build(3);
        },
        &FlWifiScenarioHelper::AssignStreams,
        "ess");
    ASSERT_EQ(run.completed, 2u);
    for (uint32_t i = 0; i < 3; ++i)
    {
        EXPECT_EQ(run.linkAtEnd[i].cell, static_cast<int32_t>(i % 2));
        EXPECT_EQ(run.linkAtEnd[i].handovers, 0u);
    }
    for (const auto& r : run.clientRecords)
    {
        EXPECT_EQ(r.uploadCell, static_cast<int32_t>(r.client % 2));
        EXPECT_EQ(r.handovers, 0u);
        EXPECT_FALSE(r.detached);
    }
}

// LTE: two eNBs 500 m apart on the x axis, joined by X2. UE 0 stands 50 m from eNB 1 (cell 1);
// UE 1 drives from 150 m to 350 m at 20 m/s from 1 s to 11 s. Under Friis loss (LteHelper's
// default) their RSRPs differ by the A3 hysteresis (3 dB) where the distances' ratio is
// 10^(3/20) = 1.41, at x = 293 m (8.2 s), and the handover follows the time to trigger (256 ms)
// later: one handover, from cell 1 to cell 2, and UE 1 keeps uploading through cell 2 with its
// address. The CQI period is fixed at 40 ms: nothing fades, only the distances change.
TEST(Roaming, LteUeHandsOverOverX2)
{
    const RoamRun run = RunFedAvg(
        2,
        16,
        Seconds(0),
        Seconds(1),
        Seconds(40),
        [] {
            FlClientMobilityHelper p;
            p.SetWaypoints({{Waypoint(Seconds(0), Vector(50, 0, 0))},
                            {Waypoint(Seconds(0), Vector(150, 0, 0)),
                             Waypoint(Seconds(1), Vector(150, 0, 0)),
                             Waypoint(Seconds(11), Vector(350, 0, 0))}});
            FlLteSceneHelper h;
            h.SetEnbs(2);
            h.SetEnbSpacing(500.0);
            h.SetCqiPeriodicity(MilliSeconds(40));
            h.SetClientMobility(p);
            return h.Build(2);
        },
        &FlLteSceneHelper::AssignStreams,
        "lte");
    ASSERT_EQ(run.completed, 16u);
    EXPECT_EQ(run.linkAtEnd[0].cell, 1);
    EXPECT_EQ(run.linkAtEnd[0].handovers, 0u);
    EXPECT_EQ(run.linkAtEnd[1].cell, 2);
    EXPECT_EQ(run.linkAtEnd[1].handovers, 1u);
    EXPECT_EQ(run.addressAtEnd[1], run.addressAtStart[1]);
    uint32_t roundHandovers = 0;
    for (const auto& r : run.records)
    {
        roundHandovers += r.handovers;
    }
    EXPECT_EQ(roundHandovers, 1u);
    const uint32_t before = RoundStartedBy(run, 7.0);
    const uint32_t after = RoundStartedBy(run, 9.0) + 1;
    ASSERT_GE(before, 1u);
    ASSERT_LT(after, 16u);
    for (uint32_t r = 1; r <= 16; ++r)
    {
        const FlClientRoundRecord* row = RowOf(run, r, 1);
        ASSERT_TRUE(row);
        EXPECT_TRUE(row->participated) << "round " << r;
        EXPECT_FALSE(row->detached) << "round " << r;
        if (r <= before)
        {
            EXPECT_EQ(row->uploadCell, 1) << "round " << r;
        }
        if (r >= after)
        {
            EXPECT_EQ(row->uploadCell, 2) << "round " << r;
            // the distance to the serving eNB (500 m): at most 350 m, once it has arrived 150 m
            EXPECT_LE(row->uploadDistanceM, 350.0 + 1e-9) << "round " << r;
        }
        EXPECT_EQ(RowOf(run, r, 0)->uploadCell, 1);
    }
}

// Bad settings of roaming and handover: a clear error naming the setter.
TEST(Roaming, BadSettingsNameTheSetter)
{
    FlLteSceneHelper lte;
    fltest::ExpectConfigError([&lte] { lte.SetEnbs(0); }, "FlLteSceneHelper::SetEnbs");
    fltest::ExpectConfigError([&lte] { lte.SetEnbs(17); }, "FlLteSceneHelper::SetEnbs");
    fltest::ExpectConfigError([&lte] { lte.SetEnbSpacing(0.0); },
                              "FlLteSceneHelper::SetEnbSpacing");
    fltest::ExpectConfigError([&lte] { lte.SetEnbSpacing(std::nan("")); },
                              "FlLteSceneHelper::SetEnbSpacing");
    lte.SetEnbs(2);
    lte.SetFidelity(FlFidelity::Flow);
    fltest::ExpectConfigError([&lte] { lte.Build(4); }, "FlLteSceneHelper::SetEnbs");
    FlWifiEssSceneHelper ess;
#if FL_NS3_VERSION >= 337
    ess.SetRoaming(true);
    ess.SetFidelity(FlFidelity::Flow);
    fltest::ExpectConfigError([&ess] { ess.Build(4); }, "FlWifiEssSceneHelper::SetFidelity");
#else
    fltest::ExpectConfigError([&ess] { ess.SetRoaming(true); }, "FlWifiEssSceneHelper::SetRoaming");
#endif
    Simulator::Destroy();
}
