/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Local training on the training pool while the simulator runs: the plan of a training equals
 * what it reports, jobs submitted to the pool are joined, run by their waiter or discarded
 * safely, and a FedAvg network run gives the same client models, global models, monitor rows
 * and trace times with 1, 2 and 4 threads as with the client training in the simulator's thread.
 */
#include "fl-test-task.h"

#include "ns3/core-module.h"
#include "ns3/fl-client-application.h"
#include "ns3/fl-helper.h"
#include "ns3/fl-ns3-compat.h"
#include "ns3/fl-network-scenarios.h"
#include "ns3/gfl.h"
#include "ns3/learning-monitor.h"
#include "ns3/learning-task.h"
#include "ns3/thread-pool.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <sstream>
#include <thread>

using namespace ns3;

namespace
{

// PlanTraining / PlanClient / PlanClientWith report exactly the steps, samples and FLOPs the
// training then reports, for steps, epochs (data sizes not a multiple of the batch), full batch
// and batch sizes larger than a client's data.
TEST(TrainingPlan, EqualsWhatTrainingReports)
{
    std::vector<fl::LocalTrainerConfig> configs;
    fl::LocalTrainerConfig c = fltest::TestTrainer();
    configs.push_back(c);
    c.localEpochs = 1.5;
    configs.push_back(c);
    c.batchSize = 0;
    configs.push_back(c);
    c.localEpochs = 0.0;
    c.localSteps = 3;
    c.batchSize = 1000;
    configs.push_back(c);
    for (const auto& cfg : configs)
    {
        auto task = fltest::MakeTask<float>(5, "mlp:hidden=8", 8, cfg);
        for (std::size_t k = 0; k < task->NumClients(); ++k)
        {
            fl::TrainingPlan plan;
            ASSERT_TRUE(task->PlanClient(k, plan));
            fl::Rng rng(7 + k);
            const fl::TrainOutcome out =
                task->TrainClient(k, task->InitialParameters(rng), rng);
            EXPECT_EQ(plan.steps, out.steps);
            EXPECT_EQ(plan.samplesProcessed, out.samplesProcessed);
            EXPECT_EQ(plan.flops, out.flops);
            // with another trainer configuration (as the GFL step trains)
            fl::LocalTrainerConfig other = cfg;
            other.localSteps = 2 + k;
            other.stepRule = fl::StepRule::DividedBySteps;
            fl::TrainingPlan plan2;
            ASSERT_TRUE(fl::PlanClientWith(*task, k, other, plan2));
            fl::Rng rng2(9);
            const fl::TrainOutcome out2 =
                fl::TrainClientWith(*task, k, task->InitialParameters(rng2), other, rng2);
            EXPECT_EQ(plan2.steps, out2.steps);
            EXPECT_EQ(plan2.samplesProcessed, out2.samplesProcessed);
            EXPECT_EQ(plan2.flops, out2.flops);
        }
    }
    fl::LocalTrainerConfig none;
    EXPECT_EQ(fl::PlanTraining(none, 0, 10.0).samplesProcessed, 0u);
}

// Submit / Wait / Discard: a pool of one thread runs the job at submit; a job no worker took
// runs in the waiting thread; a discarded job that never started never runs; a job's exception
// reaches its waiter; jobs outlive the pool they were submitted to.
TEST(PoolJob, WaitRunsDiscardSkipsErrorsReachTheWaiter)
{
    {
        fl::ThreadPool one(1);
        int ran = 0;
        auto job = one.Submit([&ran]() { ++ran; });
        EXPECT_EQ(ran, 1);
        EXPECT_TRUE(job->Done());
        EXPECT_TRUE(job->Wait());
    }
    for (std::size_t threads : {2U, 4U})
    {
        fl::ThreadPool pool(threads);
        std::vector<std::shared_ptr<fl::PoolJob>> jobs;
        std::vector<int> out(64, 0);
        for (std::size_t i = 0; i < out.size(); ++i)
        {
            jobs.push_back(pool.Submit([&out, i]() { out[i] = static_cast<int>(i) * 2; }));
        }
        for (auto& j : jobs)
        {
            EXPECT_TRUE(j->Wait());
        }
        for (std::size_t i = 0; i < out.size(); ++i)
        {
            EXPECT_EQ(out[i], static_cast<int>(i) * 2);
        }
        // keep every worker busy, then discard a queued job and run another in this thread
        std::atomic<bool> release{false};
        std::vector<std::shared_ptr<fl::PoolJob>> blockers;
        for (std::size_t t = 1; t < threads; ++t)
        {
            blockers.push_back(pool.Submit([&release]() {
                while (!release.load())
                {
                    std::this_thread::sleep_for(std::chrono::milliseconds(1));
                }
            }));
        }
        std::atomic<int> discardedRan{0};
        auto discarded = pool.Submit([&discardedRan]() { ++discardedRan; });
        discarded->Discard();
        const auto self = std::this_thread::get_id();
        std::thread::id ranOn;
        auto mine = pool.Submit([&ranOn]() { ranOn = std::this_thread::get_id(); });
        auto failing = pool.Submit([]() { throw fl::ConfigError("x", "fails", "do not"); });
        EXPECT_TRUE(mine->Wait());
        EXPECT_THROW(failing->Wait(), fl::ConfigError);
        release = true;
        for (auto& b : blockers)
        {
            b->Wait();
        }
        EXPECT_FALSE(discarded->Wait());
        EXPECT_EQ(discardedRan.load(), 0);
        EXPECT_EQ(ranOn, self) << "a job nobody took runs in the thread that waits for it";
    }
    // a job submitted to a pool that is gone still runs, in its waiter
    std::shared_ptr<fl::PoolJob> orphan;
    int late = 0;
    {
        fl::ThreadPool pool(2);
        std::atomic<bool> release{false};
        auto blocker = pool.Submit([&release]() {
            while (!release.load())
            {
                std::this_thread::sleep_for(std::chrono::milliseconds(1));
            }
        });
        orphan = pool.Submit([&late]() { late = 1; });
        release = true;
    }
    EXPECT_TRUE(orphan->Wait());
    EXPECT_EQ(late, 1);
}

// The global value FlTrainingThreads sizes the training pool.
TEST(PoolJob, GlobalValueSetsThePoolSize)
{
    Config::SetGlobal("FlTrainingThreads", UintegerValue(3));
    EXPECT_EQ(fl::TrainingThreads(), 3u);
    EXPECT_EQ(fl::TrainingPool().Threads(), 3u);
    fl::SetTrainingThreads(2);
    UintegerValue v;
    GlobalValue::GetValueByName("FlTrainingThreads", v);
    EXPECT_EQ(v.Get(), 2u);
    EXPECT_EQ(fl::TrainingPool().Threads(), 2u);
    fl::SetTrainingThreads(1);
}

/// Everything a network run produces that could depend on where the clients trained.
struct Outcome
{
    std::vector<fl::ParamVector> globals;
    std::vector<std::vector<fl::ParamVector>> clientModels; ///< per round, per participant
    std::vector<std::string> monitorRows;                   ///< round and client CSV rows
    std::vector<std::string> planned;                       ///< TrainingPlanned: time + report
    std::vector<double> losses;                             ///< RoundTrained (in-thread only)
    std::vector<uint32_t> roundsTrained;
};

std::string
Describe(const FlTrainingReport& r)
{
    std::ostringstream os;
    os.precision(17);
    os << Simulator::Now().GetTimeStep() << ' ' << r.client << ' ' << r.round << ' '
       << r.received.GetTimeStep() << ' ' << r.computeTime.GetTimeStep() << ' '
       << r.computeEnergyJ << ' ' << r.steps << ' ' << r.samples << ' ' << r.flops << ' '
       << r.missingCoordinates;
    return os.str();
}

/**
 * FedAvg of a float32 MLP over Wi-Fi, 4 clients, 3 rounds. inThread: something is connected to
 * RoundTrained, so the clients train in the simulator's thread, as before the pool.
 */
Outcome
RunFedAvg(std::size_t threads, bool inThread)
{
    fl::SetTrainingThreads(threads);
    auto task = fltest::MakeTask<float>(4, "mlp:hidden=16");
    Outcome o;
    FlWifiScenarioHelper wifi;
    FlScene scene = wifi.Build(4);
    FlServerHelper sh(task);
    sh.SetAttribute("Rounds", UintegerValue(3));
    sh.SetAttribute("InitSeed", UintegerValue(11));
    ApplicationContainer sapps = sh.Install(scene.serverNode);
    FlClientHelper ch(task, scene.serverAddress);
    ch.SetAttribute("SecondsPerSample", DoubleValue(2e-3)); // training overlaps the traffic
    ApplicationContainer capps = ch.Install(scene.clients);
    std::vector<Ptr<FlClientApplication>> clients;
    for (uint32_t i = 0; i < capps.GetN(); ++i)
    {
        clients.push_back(DynamicCast<FlClientApplication>(capps.Get(i)));
        clients.back()->SetAttribute("TrainingSeed", UintegerValue(500 + 3 * i));
        clients.back()->TraceConnectWithoutContext(
            "TrainingPlanned",
            FlCallback<void, const FlTrainingReport&>(
                [&o](const FlTrainingReport& r) { o.planned.push_back(Describe(r)); }));
        if (inThread)
        {
            clients.back()->TraceConnectWithoutContext(
                "RoundTrained",
                FlCallback<void, const FlTrainingReport&>(
                    [&o](const FlTrainingReport& r) { o.losses.push_back(r.meanLoss); }));
        }
    }
    // fixed streams: every run of the process sees the same channel
    int64_t stream = FlWifiScenarioHelper::AssignStreams(scene, 100);
    stream += FlAssignStreams(sapps, 100 + stream);
    FlAssignStreams(capps, 100 + stream);
    sapps.Start(Seconds(0));
    capps.Start(Seconds(0.5));
    Ptr<FlServerApplication> server = DynamicCast<FlServerApplication>(sapps.Get(0));
    server->TraceConnectWithoutContext(
        "RoundEnd",
        FlCallback<void, const FlRoundReport&>([&o, &clients](const FlRoundReport& r) {
            o.globals.push_back(*r.globalModel);
            std::vector<fl::ParamVector> models;
            for (const auto& u : r.updates)
            {
                models.push_back(clients[u.client]->GetLastUpdate());
            }
            o.clientModels.push_back(std::move(models));
        }));
    Ptr<LearningMonitor> monitor = CreateObject<LearningMonitor>();
    monitor->Install(server);
    monitor->InstallClients(capps);
    Simulator::Stop(Seconds(1000));
    Simulator::Run();
    for (const auto& r : monitor->GetRecords())
    {
        o.monitorRows.push_back(LearningMonitor::CsvRow(r));
    }
    for (const auto& r : monitor->GetClientRecords())
    {
        o.monitorRows.push_back(LearningMonitor::ClientCsvRow(r));
    }
    for (const auto& c : clients)
    {
        o.roundsTrained.push_back(c->GetRoundsTrained());
    }
    Simulator::Destroy();
    fl::SetTrainingThreads(1);
    return o;
}

// The same network run with the clients training in the simulator's thread and on pools of 1,
// 2 and 4 threads: every client model, every global model, every monitor row and every
// TrainingPlanned report (with the simulated time it fired at) are identical.
TEST(PoolTraining, FedAvgOverWifiIndependentOfTheThreadCount)
{
    const Outcome ref = RunFedAvg(2, true);
    ASSERT_EQ(ref.globals.size(), 4u);
    ASSERT_EQ(ref.losses.size(), 12u);
    for (std::size_t threads : {1U, 2U, 4U})
    {
        const Outcome o = RunFedAvg(threads, false);
        ASSERT_EQ(o.globals.size(), ref.globals.size()) << threads;
        for (std::size_t r = 0; r < ref.globals.size(); ++r)
        {
            EXPECT_TRUE(o.globals[r] == ref.globals[r]) << threads << " threads, round " << r;
            ASSERT_EQ(o.clientModels[r].size(), ref.clientModels[r].size());
            for (std::size_t k = 0; k < ref.clientModels[r].size(); ++k)
            {
                EXPECT_TRUE(o.clientModels[r][k] == ref.clientModels[r][k])
                    << threads << " threads, round " << r << ", update " << k;
            }
        }
        EXPECT_EQ(o.monitorRows, ref.monitorRows) << threads << " threads";
        EXPECT_EQ(o.planned, ref.planned) << threads << " threads";
        EXPECT_EQ(o.roundsTrained, ref.roundsTrained);
        EXPECT_TRUE(o.losses.empty());
    }
}

// Training in flight when a client leaves, when the application stops and when the simulation
// is destroyed: the training is given up (or finishes on its own record) and nothing touches
// the applications afterwards; a later run on the same pool is unaffected.
TEST(PoolTraining, LeaveStopAndDestroyWithTrainingInFlight)
{
    for (std::size_t threads : {2U, 4U})
    {
        fl::SetTrainingThreads(threads);
        {
            auto task = fltest::MakeTask<float>(4, "mlp:hidden=32", 8);
            FlWifiScenarioHelper wifi;
            FlScene scene = wifi.Build(4);
            FlServerHelper sh(task);
            sh.SetAttribute("Rounds", UintegerValue(5));
            ApplicationContainer sapps = sh.Install(scene.serverNode);
            FlClientHelper ch(task, scene.serverAddress);
            ch.SetAttribute("SecondsPerSample", DoubleValue(1.0)); // minutes of compute
            ApplicationContainer capps = ch.Install(scene.clients);
            // client 0 leaves, the others stop, while their first training is in flight
            capps.Get(0)->SetAttribute("LeaveTime", TimeValue(Seconds(3)));
            sapps.Start(Seconds(0));
            capps.Start(Seconds(0.5));
            capps.Get(1)->SetStopTime(Seconds(4));
            Simulator::Stop(Seconds(5)); // the rest is destroyed mid-training
            Simulator::Run();
            for (uint32_t i = 0; i < capps.GetN(); ++i)
            {
                auto c = DynamicCast<FlClientApplication>(capps.Get(i));
                EXPECT_EQ(c->GetRoundsTrained(), 1u) << "client " << i;
                EXPECT_EQ(c->GetLastUpdate().Size(), 0u) << "client " << i;
            }
            EXPECT_TRUE(DynamicCast<FlClientApplication>(capps.Get(0))->HasLeft());
            Simulator::Destroy();
        }
        // the pool is free for the next run
        const Outcome o = RunFedAvg(threads, false);
        EXPECT_EQ(o.globals.size(), 4u);
    }
    fl::SetTrainingThreads(1);
}

} // namespace
