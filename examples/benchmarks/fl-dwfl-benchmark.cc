/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * fl-dwfl-benchmark: wall time of one DWFL round (DwflWorkerApplication over OtaPhy/OtaChannel)
 * on one core, for N = 100 workers and a model of about 1e5 parameters (an MLP 784-128-10 on
 * a 10-class Gaussian mixture: 101,770 parameters), with eps = 0.5 per round (calibrated
 * artificial noise) and receiver noise. The time of the rounds after the setup round is split by
 * the module's phase accounting (fl::PhaseTimer, phase-timer.h):
 *  - learning: the N local steps (LearningTask::TrainClient);
 *  - noise generation: the artificial noise G_k (N d draws) and the receiver noise m_i
 *    (N d draws);
 *  - channel: the signals, the channel's sum-once superposition, each receiver's
 *    copy-and-remove-own, the reception and the eq. (7) update;
 *  - other: ns-3 events and scheduling (N^2 arrivals per slot), bookkeeping.
 * The channel part is also measured for N/4 and N/2 workers: O(N d) per slot means its cost per
 * (worker x value) stays flat. The process CPU time per round is printed next to the wall time
 * (the two differ when other jobs share the machine).
 *
 *   fl-dwfl-benchmark                       # N = 100, 5 timed rounds
 *   fl-dwfl-benchmark --workers=30 --rounds=3
 */

#include "../fl-example-flags.h"

#include "ns3/core-module.h"
#include "ns3/dwfl-helper.h"
#include "ns3/fl-ns3-compat.h"
#include "ns3/mobility-module.h"
#include "ns3/phase-timer.h"
#include "ns3/synthetic-data.h"

#include <chrono>
#include <ctime>
#include <iomanip>
#include <iostream>

using namespace ns3;

namespace
{

using Clock = std::chrono::steady_clock;

/// The benchmark's task: 10-class mixture in 784 dimensions, `perClient` samples per worker.
std::shared_ptr<fl::SupervisedTask<double>>
MakeBenchmarkTask(uint32_t workers, uint32_t perClient, uint32_t batch, const std::string& model)
{
    fl::Rng rng(7);
    fl::GaussianMixtureConfig cfg;
    cfg.dim = 784;
    cfg.classes = 10;
    const Eigen::MatrixXd centres = fl::MakeMixtureCentres(cfg, rng);
    std::vector<fl::Dataset<double>> clients;
    for (uint32_t i = 0; i < workers; ++i)
    {
        clients.push_back(fl::SampleGaussianMixture<double>(centres, perClient, rng));
    }
    fl::LocalTrainerConfig tc;
    tc.localSteps = 1;
    tc.batchSize = batch;
    tc.learningRate = 0.05;
    tc.clipNorm = 1.0;
    return std::make_shared<fl::SupervisedTask<double>>(
        fl::MakeModel<double>(model, cfg.dim, cfg.classes),
        tc,
        std::move(clients),
        fl::SampleGaussianMixture<double>(centres, 100, rng));
}

/// Process CPU seconds.
double
CpuSeconds()
{
    timespec ts{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

/// Per-round seconds of the timed rounds (after the setup round) of one run.
struct RoundTimes
{
    double wall{0.0};
    double cpu{0.0};
    double phase[static_cast<std::size_t>(fl::Phase::Count)]{};
};

/// Runs 1 + `warmup` + `rounds` DWFL rounds and times the last `rounds` of them.
RoundTimes
TimeRounds(std::shared_ptr<const fl::LearningTask> task,
           uint32_t workers,
           uint32_t rounds,
           uint32_t warmup,
           double speed,
           double csiAgeMs)
{
    NodeContainer nodes;
    nodes.Create(workers);
    MobilityHelper mobility;
    mobility.SetPositionAllocator("ns3::GridPositionAllocator",
                                  "DeltaX",
                                  DoubleValue(1.0),
                                  "GridWidth",
                                  UintegerValue(10));
    const bool moving = speed > 0.0 || csiAgeMs > 0.0;
    if (moving)
    {
        mobility.SetMobilityModel("ns3::ConstantVelocityMobilityModel");
    }
    mobility.Install(nodes);
    for (uint32_t i = 0; moving && i < workers; ++i)
    {
        nodes.Get(i)->GetObject<ConstantVelocityMobilityModel>()->SetVelocity(
            Vector(speed, 0.0, 0.0));
    }
    DwflHelper dwfl;
    dwfl.Ota().DisablePropagationLoss();
    if (moving)
    {
        // time-correlated fading at 2.4 GHz, estimates csiAgeMs old: a new alignment per round
        dwfl.Ota().SetChannelAttribute("Coherence", StringValue("Correlated"));
        dwfl.Ota().SetChannelAttribute(
            "CsiAge",
            TimeValue(MicroSeconds(static_cast<int64_t>(std::llround(csiAgeMs * 1e3)))));
    }
    dwfl.Ota().SetPhyAttribute("TxPower", DoubleValue(60.0));
    dwfl.Ota().SetPhyAttribute("NoiseModel", StringValue("Fixed"));
    dwfl.Ota().SetPhyAttribute("NoiseVariance", DoubleValue(2e-3));
    dwfl.SetWorkerAttribute("Rounds", UintegerValue(1 + warmup + rounds));
    dwfl.SetWorkerAttribute("TargetEpsilon", DoubleValue(0.5));
    dwfl.SetWorkerAttribute("Kappa", DoubleValue(0.0));
    DwflNetwork net = dwfl.Install(nodes, task);
    DwflHelper::AssignStreams(net, 1);
    struct Marks
    {
        uint32_t start{0};
        Clock::time_point first;
        Clock::time_point last;
        double cpuFirst{0.0};
        double cpuLast{0.0};
    } marks;
    marks.start = 1 + warmup;
    // Worker 0 reports round r once its update of round r - 1 is done; all workers update in
    // the same simulated instant, so the timed span is the last `rounds` rounds.
    net.workers.Get(0)->TraceConnectWithoutContext(
        "ModelReport",
        MakeCallback(+[](Marks* m, const FlModelReport& r) {
            if (r.round == m->start)
            {
                fl::PhaseTimer::Start();
                m->first = Clock::now();
                m->cpuFirst = CpuSeconds();
            }
            m->last = Clock::now();
            m->cpuLast = CpuSeconds();
        }).Bind(&marks));
    net.workers.Start(Seconds(0));
    Simulator::Run();
    fl::PhaseTimer::Stop();
    Simulator::Destroy();
    RoundTimes t;
    t.wall = std::chrono::duration<double>(marks.last - marks.first).count() / rounds;
    t.cpu = (marks.cpuLast - marks.cpuFirst) / rounds;
    for (std::size_t p = 0; p < static_cast<std::size_t>(fl::Phase::Count); ++p)
    {
        t.phase[p] = fl::PhaseTimer::Seconds(static_cast<fl::Phase>(p)) / rounds;
    }
    return t;
}

double
PhaseOf(const RoundTimes& t, fl::Phase p)
{
    return t.phase[static_cast<std::size_t>(p)];
}

} // namespace

int
main(int argc, char* argv[])
{
    uint32_t workers = 100;
    uint32_t rounds = 5;
    uint32_t warmup = 3;
    uint32_t batch = 16;
    bool scaling = true;
    double speed = 0.0;
    double csiAgeMs = 0.0;
    std::string model = "mlp:hidden=128";
    flexample::Flags flags(__FILE__);
    flags.Cmd().Usage("Wall time of one DWFL round (N workers over the analog channel, eps = 0.5 "
                      "per round, receiver noise) split into learning, noise generation, channel "
                      "and the rest; target <= 0.5 s at N = 100, d ~ 1e5 on one core.");
    struct SizeFlag
    {
        const char* name;
        const char* help;
        uint32_t& value;
        uint32_t min;
        flexample::Bound bound;
    };

    for (const SizeFlag& f : std::initializer_list<SizeFlag>{
             {"workers", "Number of workers N", workers, 2, {1000, "fl-dwfl-benchmark.cc"}},
             {"rounds",
              "Timed rounds (after the setup round and the warm-up)",
              rounds,
              1,
              {1000, "fl-dwfl-benchmark.cc"}},
             {"warmup",
              "Untimed rounds after the setup round (buffers settle)",
              warmup,
              0,
              {1000, "fl-dwfl-benchmark.cc"}},
             {"batch", "Mini-batch size of the local step", batch, 1, {10000, "fl-dwfl-benchmark.cc"}}})
    {
        flags.AddSize(f.name, f.help, f.value, f.min, f.bound);
    }
    flags.AddText("model", "Model spec (fl::MakeModel), input 784, 10 classes", model);
    flags.AddBool("scaling", "Also time the channel part at N/4 and N/2", scaling);
    flags.AddReal("speed",
                  "Workers' speed [m/s] on time-correlated fading (0 with --csiAge=0: the fixed "
                  "channel, one alignment)",
                  speed,
                  flexample::Range::Closed(0.0, 1000.0));
    flags.AddReal("csiAge",
                  "Age of the channel estimates [ms] (time-correlated fading)",
                  csiAgeMs,
                  flexample::Range::Closed(0.0, 1000.0));
    flags.AddCheck([&model]() {
        try
        {
            fl::MakeModel<double>(model, 784, 10);
        }
        catch (const fl::ConfigError&)
        {
            throw fl::ConfigError("--model",
                                  "'" + model + "' is not a model specification",
                                  "use e.g. mlp:hidden=128 or softmax:l2=0 (fl::MakeModel)");
        }
    });
    if (!flags.Parse(argc, argv))
    {
        return flexample::kExitBadFlag;
    }

    auto task = MakeBenchmarkTask(workers, 2 * batch, batch, model);
    const std::size_t d = task->NumParameters();
    std::cout << "DWFL round benchmark: N = " << workers << ", d = " << d << " (" << model
              << ", batch " << batch << "), eps = 0.5, one core, " << rounds
              << " timed rounds after the setup round and " << warmup << " more" << std::endl;
    if (speed > 0.0 || csiAgeMs > 0.0)
    {
        std::cout << "moving workers: " << speed << " m/s, estimates " << csiAgeMs
                  << " ms old, time-correlated fading (a new alignment every round)" << std::endl;
    }
    const RoundTimes t = TimeRounds(task, workers, rounds, warmup, speed, csiAgeMs);
    const double nd = static_cast<double>(workers) * static_cast<double>(d);
    std::cout << std::fixed << std::setprecision(4);
    std::cout << "wall time per round      " << t.wall << " s (target <= 0.5 s at N = 100, "
              << "d ~ 1e5; process CPU " << t.cpu << " s)\n"
              << "  learning (N steps)     " << PhaseOf(t, fl::Phase::Learning) << " s\n"
              << "  noise generation       " << PhaseOf(t, fl::Phase::Noise) << " s (" << workers
              << " x " << d << " artificial + " << workers << " x " << d
              << " receiver draws: " << std::setprecision(2)
              << 1e9 * PhaseOf(t, fl::Phase::Noise) / (2.0 * nd) << " ns per draw)\n"
              << std::setprecision(4) << "  channel                " << PhaseOf(t, fl::Phase::Channel)
              << " s (" << std::setprecision(2) << 1e9 * PhaseOf(t, fl::Phase::Channel) / nd
              << " ns per worker x value)\n"
              << std::setprecision(4) << "  events and the rest    " << PhaseOf(t, fl::Phase::Other)
              << " s" << std::endl;
    if (scaling)
    {
        std::cout << "channel part against N (O(N d) per slot: flat per worker x value):\n";
        for (uint32_t n : {workers / 4, workers / 2, workers})
        {
            if (n < 2)
            {
                continue;
            }
            const RoundTimes s =
                n == workers ? t : TimeRounds(MakeBenchmarkTask(n, 2 * batch, batch, model),
                                          n,
                                          rounds,
                                          warmup,
                                          speed,
                                          csiAgeMs);
            const double channel = PhaseOf(s, fl::Phase::Channel);
            std::cout << "  N = " << std::setw(4) << n << ": channel " << std::setprecision(4)
                      << channel << " s per round, " << std::setprecision(2)
                      << 1e9 * channel / (static_cast<double>(n) * d)
                      << " ns per (worker x value); whole round " << std::setprecision(4)
                      << s.wall << " s" << std::endl;
        }
    }
    return 0;
}
