/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Memory that does not grow with the run, measured from inside the process: the events held by
 * ns-3's scheduler (a map scheduler that counts them, cancelled events included, since ns-3
 * removes a cancelled event only when its time comes) and the bytes the C library's allocator
 * has handed out (mallinfo2), at three rounds of FedAvg over an 802.11n BSS with
 * the radio energy meter on, as fl-fedavg-wifi runs by default, over TCP and over UDP. RSS is
 * not used: other tests running beside this one do not disturb these counters. The first
 * snapshot comes past the start-up (0.5 s) and past every bounded horizon: over TCP round 400
 * (2.8 s of simulated time), past its retransmission timers (MinRto, 1 s: each segment
 * re-schedules one and the cancelled ones stay until their time, so about a second's worth is
 * always held); over UDP round 1600 (about 11 s), past the endpoint's memory of completed
 * messages (9.6 s by default: a sender's probes back off, see FlRetryWait) and its chunk
 * tallies (64 rounds).
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
    Time time;             ///< when the round ended
    fl::ParamVector model; ///< the global model then
};

/**
 * FedAvg, 6 stations, 3 x `first` rounds, a small model, the radio energy meter on, over
 * `transport`: snapshots of the scheduler and the heap at rounds first, 2 x first, 3 x first.
 * `minRto`: FlApplicationBase::TcpMinRto.
 */
std::map<uint32_t, Snapshot>
RunRounds(const std::string& transport, uint32_t first, Time minRto = Seconds(1))
{
    ObjectFactory scheduler;
    scheduler.SetTypeId("ns3::FlCountingScheduler");
    Simulator::SetScheduler(scheduler);
    FlCountingScheduler::Held() = 0;
    const uint32_t n = 6;
    const uint32_t rounds = 3 * first;
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
        fedavg.SetTransportAttribute("Transport", StringValue(transport));
        fedavg.SetTransportAttribute("TcpMinRto", TimeValue(minRto));
        FlFedAvgStack stack = fedavg.Install(scene.serverNode, scene.clients, scene.serverAddress);
        FlFedAvgHelper::AssignStreams(stack, 1000); // the same run whatever ran before
        stack.server->TraceConnectWithoutContext(
            "RoundEnd",
            FlCallback<void, const FlRoundReport&>([&at, first](const FlRoundReport& r) {
                if (r.round == first || r.round == 2 * first || r.round == 3 * first)
                {
                    at[r.round] = Snapshot{FlCountingScheduler::Held(),
                                           HeapBytes(),
                                           Simulator::Now(),
                                           *r.globalModel};
                }
            }));
        Simulator::Stop(Seconds(600));
        Simulator::Run();
        EXPECT_TRUE(stack.server->IsFinished());
        EXPECT_GT(meter->GetTotalRadioEnergy(), 0.0);
    }
    Simulator::Destroy();
    for (const auto& kv : at)
    {
        std::cout << transport << " round " << kv.first << ": " << kv.second.events
                  << " events held, heap " << kv.second.heap / 1e6 << " MB" << std::endl;
    }
    return at;
}

/**
 * What must hold between the first snapshot and the two later ones: the rounds do the same work, so
 * the scheduler holds as many events, within 2 % + 32 (which cancelled timers have not reached
 * their time yet depends on the few milliseconds before the snapshot); the heap grows by at
 * most 5 % (allocator slack) plus the monitor's per-round rows (the one thing kept per round:
 * sizeof(FlRoundRecord) per round, twice for the vector's capacity doubling; 6 participants'
 * ids fit in the string's inline buffer).
 */
void
ExpectFlat(std::map<uint32_t, Snapshot> at)
{
    ASSERT_EQ(at.size(), 3U);
    const uint32_t first = at.begin()->first;
    for (uint32_t later : {2 * first, 3 * first})
    {
        const double rows = 2.0 * sizeof(FlRoundRecord) * (later - first);
        EXPECT_LE(at[later].events, 1.02 * at[first].events + 32) << "round " << later;
        EXPECT_LE(at[later].heap, 1.05 * at[first].heap + rows) << "round " << later;
    }
}

} // namespace

// ns-3.37's TCP with timestamps echoed the handshake's timestamp on these connections, so the
// retransmission timeout, and the cancelled timers held, grew with the connection's age.
TEST(FlatMemory, FedAvgWifiTcpDoesNotGrowOverRounds)
{
    ExpectFlat(RunRounds("tcp", 400));
}

// The UDP endpoint kept a chunk tally per round and the keys of every completed message, the
// monitor a row per client and round.
TEST(FlatMemory, FedAvgWifiUdpDoesNotGrowOverRounds)
{
    ExpectFlat(RunRounds("udp", 1600));
}

// The cancelled retransmission timers held are those of the last MinRto: with Linux's 200 ms
// instead of ns-3's 1 s the scheduler holds less than half as many events (the rest are the
// radios' and the beacons'), flat as well, and the run is the same (no timeout fires in this
// cell): every round ends at the same time with the same model.
TEST(FlatMemory, ShorterTcpMinRtoHoldsFewerCancelledTimers)
{
    const auto ns3Default = RunRounds("tcp", 200);
    const auto shortRto = RunRounds("tcp", 200, MilliSeconds(200));
    ExpectFlat(shortRto);
    ASSERT_EQ(ns3Default.size(), shortRto.size());
    for (const auto& kv : ns3Default)
    {
        const Snapshot& shorter = shortRto.at(kv.first);
        EXPECT_LT(shorter.events, kv.second.events / 2) << "round " << kv.first;
        EXPECT_EQ(shorter.time, kv.second.time) << "round " << kv.first;
        EXPECT_TRUE(shorter.model == kv.second.model) << "round " << kv.first;
    }
}
