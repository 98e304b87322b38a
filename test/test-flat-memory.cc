/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Memory that does not grow with the run, measured from inside the process: the events pending
 * in ns-3's scheduler (a map scheduler that counts what it holds, cancelled events included,
 * since ns-3 removes a cancelled event only when its time comes) and the bytes the C library's
 * allocator has handed out (mallinfo2), at round 200 and at round 400 of FedAvg over an 802.11n
 * BSS with the radio energy meter on, as fl-fedavg-wifi runs by default. RSS is not used: other
 * tests running beside this one do not disturb these counters. Round 200 comes 1.7 s of
 * simulated time into the run, after the start-up (0.5 s) and past the horizon of TCP's
 * retransmission timers (at least 1 s: each segment re-schedules one and ns-3 removes the
 * cancelled ones only when their time comes, so about a second's worth of them is always held).
 */
#include "fl-test-task.h"

#include "ns3/core-module.h"
#include "ns3/fl-energy-helper.h"
#include "ns3/fl-helper.h"
#include "ns3/fl-network-scenarios.h"
#include "ns3/fl-ns3-compat.h"
#include "ns3/map-scheduler.h"

#include <gtest/gtest.h>
#include <malloc.h>

using namespace ns3;

namespace ns3
{

/// A MapScheduler that counts the events it holds.
class FlCountingScheduler : public MapScheduler
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("ns3::FlCountingScheduler")
                                .SetParent<MapScheduler>()
                                .SetGroupName("Fl")
                                .AddConstructor<FlCountingScheduler>();
        return tid;
    }

    void Insert(const Scheduler::Event& ev) override
    {
        ++Held();
        MapScheduler::Insert(ev);
    }

    Scheduler::Event RemoveNext() override
    {
        --Held();
        return MapScheduler::RemoveNext();
    }

    void Remove(const Scheduler::Event& ev) override
    {
        --Held();
        MapScheduler::Remove(ev);
    }

    /// Events held by the scheduler now (pending and cancelled ones).
    static int64_t& Held()
    {
        static int64_t held = 0;
        return held;
    }
};

NS_OBJECT_ENSURE_REGISTERED(FlCountingScheduler);

} // namespace ns3

namespace
{

/// Bytes handed out by the allocator (small blocks and mmapped ones).
double
HeapBytes()
{
    const struct mallinfo2 m = mallinfo2();
    return static_cast<double>(m.uordblks + m.hblkhd);
}

struct Snapshot
{
    int64_t events{0};
    double heap{0.0};
};

} // namespace

// FedAvg, 6 stations, 400 rounds, a small model, the radio energy meter on: the scheduler
// holds about as many events at round 400 as at round 200 (ns-3's radio energy model, which the
// meter replaced, left one cancelled depletion event per station and frame heard for the rest
// of the run), and the heap grows by at most 5 % + 256 KiB (the monitor's per-round rows).
TEST(FlatMemory, FedAvgWifiWithEnergyDoesNotGrowOverRounds)
{
    ObjectFactory scheduler;
    scheduler.SetTypeId("ns3::FlCountingScheduler");
    Simulator::SetScheduler(scheduler);
    FlCountingScheduler::Held() = 0;
    const uint32_t n = 6;
    const uint32_t rounds = 1200;
    std::map<uint32_t, Snapshot> at;
    {
        auto task = fltest::MakeTask<float>(n, "softmax");
        FlWifiScenarioHelper wifi;
        FlScene scene = wifi.Build(n);
        FlWifiScenarioHelper::AssignStreams(scene, 100);
        Ptr<FlRadioEnergyMeter> meter = Create<FlRadioEnergyMeter>();
        meter->InstallWifi(scene);
        FlFedAvgHelper fedavg(task);
        fedavg.SetServerAttribute("Rounds", UintegerValue(rounds));
        FlFedAvgStack stack = fedavg.Install(scene.serverNode, scene.clients, scene.serverAddress);
        stack.server->TraceConnectWithoutContext(
            "RoundEnd",
            FlCallback<void, const FlRoundReport&>([&at](const FlRoundReport& r) {
                if (r.round == 400 || r.round == 800 || r.round == 1200)
                {
                    at[r.round] = Snapshot{FlCountingScheduler::Held(), HeapBytes()};
                }
            }));
        Simulator::Stop(Seconds(600));
        Simulator::Run();
        ASSERT_TRUE(stack.server->IsFinished());
        EXPECT_GT(meter->GetTotalRadioEnergy(), 0.0);
    }
    Simulator::Destroy();
    ASSERT_EQ(at.size(), 3U);
    std::cout << "events held at round 1200: " << at[1200].events << " heap " << at[1200].heap/1e6 << std::endl;
    std::cout << "events held at rounds 400 / 800: " << at[400].events << " / " << at[800].events
              << "; heap " << at[400].heap / 1e6 << " / " << at[800].heap / 1e6 << " MB"
              << std::endl;
    EXPECT_LE(at[400].events, 1.1 * at[200].events);
    EXPECT_LE(at[400].heap, 1.05 * at[200].heap + 256.0 * 1024.0);
}
