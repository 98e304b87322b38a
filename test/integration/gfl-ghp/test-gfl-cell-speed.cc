/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The Wi-Fi cells of the GFL scene with the settings that make large cells fast to simulate
 * (idle stations doze, static ARP, the beacon interval, staggered association): a lossless run
 * gives the same models bit for bit as the configuration without them and as the in-process
 * run, the dozing stations do sleep, and a bad beacon interval is refused.
 */
#include "fl-test-gfl-fixture.h"

#include "ns3/core-module.h"
#include "ns3/fl-network-scenarios.h"
#include "ns3/gfl-helper.h"
#include "ns3/gfl.h"
#include "ns3/arp-cache.h"
#include "ns3/ipv4-interface.h"
#include "ns3/ipv4-l3-protocol.h"
#include "ns3/sta-wifi-mac.h"
#include "ns3/wifi-net-device.h"
#include "ns3/wifi-phy-state-helper.h"
#include "ns3/wifi-phy.h"

#include <functional>
#include <gtest/gtest.h>
#include <vector>

using namespace ns3;
using namespace ns3::fl;

namespace
{

using Fixture = fltest::RegressionFixture;

/// Three servers, cells of K = 12 clients of which L = 3 are sampled per iteration.
GflConfig
CellGfl(const Fixture& f, uint64_t seed)
{
    GflConfig c;
    c.combination = fltest::ThreeServerCombination();
    c.clientsPerServer = 12;
    c.sampledClients = 3;
    c.mu = 0.5;
    c.work = DrawGflLocalWork(36, 1, 10, 5, 10, DeriveSeed(seed, 3));
    c.iterations = 8;
    c.seed = seed;
    c.reference = f.wOpt;
    c.serverNoise =
        NodeNoiseConfig{NodeNoiseKind::GraphHomomorphic, NoiseDistribution::Laplace, 0.2};
    return c;
}

/// What a run gave: every server's model after every iteration, and the cells' sleep periods.
struct CellRun
{
    std::vector<std::vector<ParamVector>> models;
    uint64_t sleepPeriods{0}; ///< periods some station's PHY spent asleep
    double simulatedSeconds{0.0};
};

/// Runs GFL over Wi-Fi cells; `configure` sets the scene helper (nothing: its defaults);
/// `allAtOnce`: every client starts at 0.2 s (as before the start stagger existed).
CellRun
RunCells(const Fixture& f,
         const GflConfig& c,
         const std::function<void(FlGraphSceneHelper&)>& configure,
         bool allAtOnce = false)
{
    FlGraphSceneHelper sceneHelper;
    sceneHelper.SetCell("wifi");
    if (configure)
    {
        configure(sceneHelper);
    }
    FlGraphScene scene = sceneHelper.Build(c.combination, c.clientsPerServer);
    CellRun run;
    for (uint32_t d = 0; d < scene.cellDevices.GetN(); ++d)
    {
        Ptr<WifiNetDevice> dev = DynamicCast<WifiNetDevice>(scene.cellDevices.Get(d));
        dev->GetPhy()->GetState()->TraceConnectWithoutContext(
            "State",
            MakeBoundCallback(
                +[](uint64_t* n, Time, Time, WifiPhyState state) {
                    if (state == WifiPhyState::SLEEP)
                    {
                        ++*n;
                    }
                },
                &run.sleepPeriods));
    }
    FlGflHelper gfl(f.task, c);
    if (allAtOnce)
    {
        gfl.SetClientStartStagger(Seconds(0));
    }
    gfl.SetIterationCallback(
        [&run](const NetworkIterationReport& r) { run.models.push_back(*r.models); });
    gfl.Install(scene);
    Simulator::Stop(Seconds(600));
    Simulator::Run();
    EXPECT_EQ(gfl.Tracker()->CompletedIterations(), c.iterations);
    run.simulatedSeconds = Simulator::Now().GetSeconds();
    Simulator::Destroy();
    return run;
}

/// The configuration before these settings existed: every station awake, ARP on the air,
/// ns-3's beacon interval and passive scanning (every station at once).
void
OldConfiguration(FlGraphSceneHelper& h)
{
    h.SetCellDoze(false);
    h.SetCellStaticArp(false);
    h.SetCellBeaconInterval(MicroSeconds(102400));
    h.SetCellAssociationStagger(Seconds(0));
}

void
ExpectSameModels(const std::vector<std::vector<ParamVector>>& a,
                 const std::vector<std::vector<ParamVector>>& b)
{
    ASSERT_EQ(a.size(), b.size());
    for (std::size_t i = 0; i < a.size(); ++i)
    {
        ASSERT_EQ(a[i].size(), b[i].size());
        for (std::size_t p = 0; p < a[i].size(); ++p)
        {
            const Eigen::VectorXd x = a[i][p].Get<double>();
            const Eigen::VectorXd y = b[i][p].Get<double>();
            ASSERT_EQ(x.size(), y.size());
            for (Eigen::Index j = 0; j < x.size(); ++j)
            {
                EXPECT_EQ(x[j], y[j]) << "iteration " << i << " server " << p << " coordinate "
                                      << j;
            }
        }
    }
}

std::vector<std::vector<ParamVector>>
InProcess(const Fixture& f, const GflConfig& c)
{
    std::vector<std::vector<ParamVector>> models;
    RunGflInProcess(*f.task, c, [&](const NetworkIterationReport& r) {
        models.push_back(*r.models);
    });
    return models;
}

} // namespace

TEST(GflCellSpeed, DefaultsGiveTheOldConfigurationsModelsBitForBit)
{
    const Fixture f = fltest::MakeRegressionFixture(36, 40, 0.1, 21);
    const GflConfig c = CellGfl(f, 21);
    const CellRun old = RunCells(f, c, OldConfiguration, true);
    const CellRun now = RunCells(f, c, nullptr);
    ASSERT_EQ(old.models.size(), c.iterations + 1);
    ExpectSameModels(now.models, old.models);
    ExpectSameModels(now.models, InProcess(f, c));
    EXPECT_EQ(old.sleepPeriods, 0u);
    EXPECT_GT(now.sleepPeriods, 0u); // the defaults doze
}

TEST(GflCellSpeed, EverySettingAloneAndAllTogetherKeepTheModels)
{
    const Fixture f = fltest::MakeRegressionFixture(36, 40, 0.1, 22);
    GflConfig c = CellGfl(f, 22);
    c.iterations = 5;
    const auto ref = InProcess(f, c);
    const CellRun doze = RunCells(
        f,
        c,
        [](FlGraphSceneHelper& h) {
            OldConfiguration(h);
            h.SetCellDoze(true);
        },
        true);
    ExpectSameModels(doze.models, ref);
    // 3 of 12 stations per cell sampled: the others doze, and wake when sampled again
    EXPECT_GT(doze.sleepPeriods, 3u * 9u);
    const CellRun arp = RunCells(
        f,
        c,
        [](FlGraphSceneHelper& h) {
            OldConfiguration(h);
            h.SetCellStaticArp(true);
        },
        true);
    ExpectSameModels(arp.models, ref);
    EXPECT_EQ(arp.sleepPeriods, 0u);
    const CellRun all = RunCells(f, c, [](FlGraphSceneHelper& h) {
        h.SetCellDoze(true);
        h.SetCellStaticArp(true);
        h.SetCellBeaconInterval(MicroSeconds(1024 * 500));
        h.SetCellAssociationStagger(MilliSeconds(1)); // active probing, dozing until the probe
    });
    ExpectSameModels(all.models, ref);
    EXPECT_GT(all.sleepPeriods, doze.sleepPeriods / 2);
}

// ns-3 flushes a device's ARP cache, permanent entries too, when its link comes up; a Wi-Fi
// station's comes up when it associates, after the scene wrote the static entries. They must
// be there after association, or every station broadcasts an ARP request that wakes the whole
// dozing cell.
TEST(GflCellSpeed, StaticArpEntriesSurviveAssociation)
{
    FlGraphSceneHelper h;
    h.SetCell("wifi");
    FlGraphScene scene = h.Build(fltest::ThreeServerCombination(), 4);
    Simulator::Stop(Seconds(1.5));
    Simulator::Run();
    uint32_t checked = 0;
    for (uint32_t p = 0; p < scene.cells.size(); ++p)
    {
        for (uint32_t k = 0; k < scene.cells[p].GetN(); ++k)
        {
            Ptr<Node> node = scene.cells[p].Get(k);
            Ptr<WifiNetDevice> dev;
            for (uint32_t d = 0; d < node->GetNDevices() && !dev; ++d)
            {
                dev = DynamicCast<WifiNetDevice>(node->GetDevice(d));
            }
            ASSERT_TRUE(dev);
            EXPECT_TRUE(DynamicCast<StaWifiMac>(dev->GetMac())->IsAssociated());
            Ptr<Ipv4L3Protocol> ipv4 = node->GetObject<Ipv4L3Protocol>();
            Ptr<ArpCache> cache =
                ipv4->GetInterface(ipv4->GetInterfaceForDevice(dev))->GetArpCache();
            ArpCache::Entry* entry = cache->Lookup(scene.cellServer[p]);
            ASSERT_NE(entry, nullptr) << "cell " << p << " station " << k;
            EXPECT_TRUE(entry->IsPermanent()) << "cell " << p << " station " << k;
            ++checked;
        }
    }
    EXPECT_EQ(checked, 12u);
    Simulator::Destroy();
}

TEST(GflCellSpeed, SceneRefusesABeaconIntervalThatIsNotWholeTimeUnits)
{
    FlGraphSceneHelper h;
    EXPECT_DEATH(h.SetCellBeaconInterval(MilliSeconds(100)), "beacon interval");
    EXPECT_DEATH(h.SetCellBeaconInterval(MicroSeconds(1024 * 65536)), "beacon interval");
    EXPECT_DEATH(h.SetCellBeaconInterval(Time(0)), "beacon interval");
    h.SetCellBeaconInterval(MicroSeconds(1024));
}
