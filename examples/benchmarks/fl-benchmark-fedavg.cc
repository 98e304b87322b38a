/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * fl-benchmark-fedavg: wall-clock benchmark of the FedAvg reference workload.
 *
 * Workload (fixed; doc/fl-validation.rst, "Performance: the FedAvg reference workload"):
 * Fashion-MNIST, MLP 784-128-10 (101,770 float32 parameters), 20 clients with 500 IID samples each,
 * one local epoch of mini-batch SGD (batch 32, learning rate 0.05) per round, sample-weighted
 * averaging. It runs in one process three ways:
 *
 *   (a) learning only: an in-process FedAvg loop (SupervisedTask::TrainClient + FedAvgAggregate);
 *   (b) over 802.11n Wi-Fi with TCP (FlWifiScenarioHelper, FlServerHelper, FlClientHelper,
 *       float32 on the wire), wall time per round taken from the server's RoundEnd trace;
 *   (c) every model encoded, cut into 1448-byte TCP-segment-sized pieces and reassembled by
 *       fl::MessageReassembler in both directions, with the server's per-round bookkeeping, but
 *       handed over by an ideal zero-delay link (no ns-3 scheduler).
 *
 * (c) - (a) is the module's own cost (serialisation, framing, reassembly, bookkeeping); it is
 * reported as a fraction of (b). The program also measures the single-core Eigen float32 GEMM
 * rate and the fraction of it that the learning loop (a) reaches.
 *
 *   fl-benchmark-fedavg                       # the reference workload, modes a,b,c
 *   fl-benchmark-fedavg --modes=a,c --rounds=10 --output=bench.csv
 *   fl-benchmark-fedavg --quick               # tiny sizes, smoke run
 */

#include "../fl-example-flags.h"

#include "ns3/data-io.h"
#include "ns3/fedavg-cost-probes.h"
#include "ns3/fl-helper.h"
#include "ns3/fl-network-scenarios.h"
#include "ns3/mlp-model.h"
#include "ns3/task-builder.h"
#include "ns3/thread-pool.h"

#include <Eigen/Core>
#include <algorithm>
#include <chrono>
#include <fstream>
#include <iomanip>
#include <iostream>

using namespace ns3;

NS_LOG_COMPONENT_DEFINE("FlBenchmarkFedAvg");

namespace
{

using Clock = std::chrono::steady_clock;

constexpr uint64_t kInitSeed = 12345;       ///< initial global model (all modes)
constexpr uint64_t kTrainingSeedBase = 777; ///< per-client training seeds (all modes)
constexpr std::size_t kSegmentBytes = 1448; ///< TCP segment size used by the apps
constexpr fl::Precision kWire = fl::Precision::Float32;
/// Most rounds per mode.
constexpr flexample::Bound kMaxRounds{10000,
                                      "kMaxRounds in examples/benchmarks/fl-benchmark-fedavg.cc"};
/// Most clients (Fashion-MNIST has 60000 training images).
constexpr flexample::Bound kMaxClients{60000,
                                       "kMaxClients in examples/benchmarks/fl-benchmark-fedavg.cc"};
/// Most samples per client (Fashion-MNIST has 60000 training images).
constexpr flexample::Bound kMaxSamplesPerClient{
    60000,
    "kMaxSamplesPerClient in examples/benchmarks/fl-benchmark-fedavg.cc"};

double
ElapsedS(Clock::time_point a, Clock::time_point b)
{
    return std::chrono::duration<double>(b - a).count();
}

uint64_t
TrainingSeed(uint32_t client)
{
    return fl::DeriveSeed(kTrainingSeedBase, client, 1);
}

/// The probes' settings: the seeds mode (b) gives its applications.
fl::TimedRunConfig
Timed(const fl::LearningTask& task, uint32_t rounds, const char* label)
{
    fl::TimedRunConfig cfg;
    cfg.rounds = rounds;
    cfg.initSeed = kInitSeed;
    for (uint32_t k = 0; k < task.NumClients(); ++k)
    {
        cfg.clientSeeds.push_back(TrainingSeed(k));
    }
    cfg.label = label;
    cfg.progress = &std::cout;
    return cfg;
}

using ModeResult = fl::RoundWallSeries;

/// State of mode (b)'s trace sinks.
struct WifiProbe
{
    uint32_t rounds{0};
    uint32_t clients{0};
    uint32_t joined{0};
    Clock::time_point roundStart;
    ModeResult* res{nullptr};
};

WifiProbe g_probe;

void
OnClientJoined(uint32_t /* client */, uint32_t /* samples */)
{
    if (++g_probe.joined == g_probe.clients)
    {
        g_probe.roundStart = Clock::now(); // round 1 starts now (ScheduleNow)
    }
}

void
OnRoundEnd(const FlRoundReport& report)
{
    if (report.round == 0)
    {
        return; // the initial model
    }
    const auto now = Clock::now();
    g_probe.res->roundWall.push_back(ElapsedS(g_probe.roundStart, now));
    g_probe.res->bytes += report.bytesDown + report.bytesUp;
    g_probe.roundStart = now; // the next round follows after RoundGap (0)
    std::cout << "  (b) round " << report.round << "/" << g_probe.rounds << ": " << std::fixed
              << std::setprecision(4) << g_probe.res->roundWall.back() << " s wall, "
              << (report.end - report.start).GetSeconds() << " s simulated, "
              << report.participants.size() << " updates" << std::endl;
}

/// Mode (b): over Wi-Fi with TCP.
ModeResult
RunWifi(std::shared_ptr<const fl::SupervisedTask<float>> task, uint32_t rounds)
{
    ModeResult res;
    const auto n = static_cast<uint32_t>(task->NumClients());
    g_probe = WifiProbe();
    g_probe.rounds = rounds;
    g_probe.clients = n;
    g_probe.res = &res;

    FlWifiScenarioHelper wifi; // 802.11n, defaults
    FlScene scene = wifi.Build(n);

    FlServerHelper serverHelper(task);
    serverHelper.SetAttribute("Rounds", UintegerValue(rounds));
    serverHelper.SetAttribute("WirePrecision", StringValue(fl::PrecisionName(kWire)));
    serverHelper.SetAttribute("InitSeed", UintegerValue(kInitSeed));
    ApplicationContainer serverApps = serverHelper.Install(scene.serverNode);

    FlClientHelper clientHelper(task, scene.serverAddress);
    clientHelper.SetAttribute("WirePrecision", StringValue(fl::PrecisionName(kWire)));
    ApplicationContainer clientApps = clientHelper.Install(scene.clients);
    for (uint32_t k = 0; k < n; ++k)
    {
        clientApps.Get(k)->SetAttribute("TrainingSeed", UintegerValue(TrainingSeed(k)));
    }

    int64_t stream = 100;
    stream += FlWifiScenarioHelper::AssignStreams(scene, stream);
    stream += FlAssignStreams(serverApps, stream);
    FlAssignStreams(clientApps, stream);

    Ptr<FlServerApplication> server = DynamicCast<FlServerApplication>(serverApps.Get(0));
    server->TraceConnectWithoutContext("RoundEnd", MakeCallback(&OnRoundEnd));
    server->TraceConnectWithoutContext("ClientJoined", MakeCallback(&OnClientJoined));
    serverApps.Start(ns3::Seconds(0.0));
    clientApps.Start(ns3::Seconds(0.5)); // after association

    Simulator::Stop(ns3::Seconds(3600.0));
    Simulator::Run();
    if (!server->IsFinished())
    {
        Simulator::Destroy();
        throw std::runtime_error("mode b: the simulation stopped before the last round");
    }
    res.finalModel = server->GetGlobalModel();
    for (uint32_t k = 0; k < n; ++k)
    {
        res.samples += task->ClientSamples(k) * rounds; // one epoch per round
    }
    Simulator::Destroy();
    return res;
}

} // namespace

int
main(int argc, char* argv[])
{
    uint32_t rounds = 5;
    uint32_t clients = 20;
    uint32_t samplesPerClient = 500;
    std::string modes = "a,b,c";
    std::string output;
    bool quick = false;
    uint32_t threads = 0;

    flexample::Flags flags(__FILE__);
    flags.Cmd().Usage(
        "Wall-clock benchmark of the FedAvg reference workload (Fashion-MNIST, MLP "
        "784-128-10, float32, 20 clients x 500 IID samples, 1 local epoch of SGD, batch 32, "
        "lr 0.05) run three ways: (a) learning only, (b) over 802.11n Wi-Fi with TCP, (c) with "
        "the module's serialisation, framing and reassembly over an ideal zero-delay link. "
        "Prints wall time per round, the module's own cost (c)-(a) as a fraction of (b), and "
        "(a)'s share of the single-core Eigen float32 GEMM rate.");
    flags.AddSize("rounds", "Number of FedAvg rounds per mode", rounds, 1u, kMaxRounds);
    flags.AddSize("clients",
                  "Number of clients (Wi-Fi stations in mode b)",
                  clients,
                  1u,
                  kMaxClients);
    flags.AddSize("samplesPerClient",
                  "IID training samples per client",
                  samplesPerClient,
                  1u,
                  kMaxSamplesPerClient);
    flags.AddText("modes", "Comma-separated subset of a,b,c", modes);
    flags.AddOutput("output",
                    "Write the measurements to this CSV file (empty: do not)",
                    output,
                    true);
    flags.AddBool("quick", "Tiny sizes for a smoke run (4 clients x 64 samples, 2 rounds)", quick);
    flags.AddWhole("threads",
                   "Training threads of the second run of mode (a), measured beside the one-thread "
                   "run (0 = every hardware thread; the other modes use one thread)",
                   threads,
                   0u,
                   1024u);
    bool runA = false;
    bool runB = false;
    bool runC = false;
    flags.AddCheck([&]() {
        for (const std::string& m : fl::SplitList(modes, "--modes", 3))
        {
            flexample::Flags::CheckChoice(m, "--modes", {"a", "b", "c"});
            runA = runA || m == "a";
            runB = runB || m == "b";
            runC = runC || m == "c";
        }
    });
    flags.AddCheck([]() {
        if (fl::FindFashionMnistDirectory().empty())
        {
            throw fl::ConfigError("Fashion-MNIST",
                                  "the data files are not found",
                                  "sudo apt-get install dataset-fashion-mnist, or set "
                                  "FL_FASHION_MNIST_DIR to the folder with the IDX files");
        }
    });
    if (!flags.Parse(argc, argv))
    {
        return flexample::kExitBadFlag;
    }

    if (quick)
    {
        rounds = std::min<uint32_t>(rounds, 2);
        clients = std::min<uint32_t>(clients, 4);
        samplesPerClient = std::min<uint32_t>(samplesPerClient, 64);
    }
    Eigen::setNbThreads(1);

    // --- Data and task: Fashion-MNIST, MLP 784-128-10, IID, float32 ------------------------
    std::shared_ptr<fl::SupervisedTask<float>> task;
    std::vector<std::size_t> layers;
    try
    {
        fl::TaskSpec spec;
        spec.clients = clients;
        spec.dataset = "fashion-mnist";
        spec.samplesPerClient = samplesPerClient;
        spec.testSamples = quick ? 200 : 2000;
        spec.model = "mlp:hidden=128";
        std::cout << "fl-benchmark-fedavg: loading Fashion-MNIST from "
                  << fl::FindFashionMnistDirectory() << std::endl;
        fl::Rng rng(2024);
        task = std::dynamic_pointer_cast<fl::SupervisedTask<float>>(
            fl::BuildSupervisedTask(spec, rng));
        layers = dynamic_cast<const fl::MlpClassifier<float>&>(task->GetModel()).Layers();
    }
    catch (const std::exception& e)
    {
        std::cerr << "fl-benchmark-fedavg: " << e.what() << std::endl;
        return 2;
    }
    const double gemmFlopsPerSample = fl::MlpGemmFlopsPerSample(layers);
    const double modelFlopsPerSample = task->GetModel().FlopsPerSample();
    std::cout << "workload: " << task->Describe() << "\n"
              << "  parameters: " << task->NumParameters() << " (float32), rounds: " << rounds
              << ", GEMM FLOPs/sample: " << gemmFlopsPerSample
              << ", Model::FlopsPerSample: " << modelFlopsPerSample << std::endl;

    // --- GEMM reference rate ---------------------------------------------------------------
    std::cout << "measuring single-core Eigen float32 GEMM rate..." << std::endl;
    const int reps = quick ? 2 : 5;
    const double gemm512 = fl::GemmRate(quick ? 128 : 512, quick ? 128 : 512, quick ? 128 : 512, reps);
    const double gemm1024 =
        fl::GemmRate(quick ? 256 : 1024, quick ? 256 : 1024, quick ? 256 : 1024, quick ? 2 : 3);
    const double gemmPeak = std::max(gemm512, gemm1024);
    // The MLP's own first-layer shapes (batch 32): forward X*W1, weight gradient X^T*D.
    const double gemmFwd = fl::GemmRate(32, static_cast<int>(layers[0]), 128, reps);
    const double gemmGrad = fl::GemmRate(static_cast<int>(layers[0]), 32, 128, reps);
    std::cout << std::fixed << std::setprecision(2) << "  GEMM " << (quick ? 128 : 512)
              << "^3: " << gemm512 << " GFLOP/s, " << (quick ? 256 : 1024) << "^3: " << gemm1024
              << " GFLOP/s; MLP shapes 32x784x128: " << gemmFwd
              << " GFLOP/s, 784x32x128: " << gemmGrad << " GFLOP/s" << std::endl;

    // --- Modes -----------------------------------------------------------------------------
    ModeResult a;
    ModeResult aParallel; // mode (a) with --threads training threads
    std::size_t aThreads = 1;
    ModeResult b;
    ModeResult c;
    try
    {
        if (runA)
        {
            std::cout << "mode (a): learning only, 1 training thread" << std::endl;
            fl::SetTrainingThreads(1);
            a = fl::TimeFedAvgRounds(*task, Timed(*task, rounds, "(a)"));
            fl::SetTrainingThreads(threads);
            aThreads = fl::TrainingThreads();
            std::cout << "mode (a): learning only, " << aThreads << " training threads"
                      << std::endl;
            aParallel = fl::TimeFedAvgRounds(*task, Timed(*task, rounds, "(a)"));
            fl::SetTrainingThreads(1);
        }
        if (runC)
        {
            std::cout << "mode (c): encode + 1448-byte segments + reassembly, ideal link"
                      << std::endl;
            c = fl::TimeFedAvgRoundsOverIdealLink(*task,
                                                  Timed(*task, rounds, "(c)"),
                                                  kWire,
                                                  kSegmentBytes);
        }
        if (runB)
        {
            std::cout << "mode (b): 802.11n Wi-Fi, " << clients << " stations, TCP, float32"
                      << std::endl;
            b = RunWifi(task, rounds);
        }
    }
    catch (const std::exception& e)
    {
        std::cerr << "fl-benchmark-fedavg: " << e.what() << std::endl;
        return 1;
    }

    // --- Summary ---------------------------------------------------------------------------
    std::cout << "\nsummary (wall time per round; mean / median over " << rounds << " rounds)\n"
              << std::fixed << std::setprecision(4);
    auto line = [](const char* name, const ModeResult& r) {
        std::cout << "  " << name << ": " << r.Mean() << " s / " << r.Median() << " s";
        if (r.bytes > 0)
        {
            std::cout << "  (" << r.bytes / 1e6 << " MB handed over)";
        }
        std::cout << "\n";
    };
    if (runA)
    {
        line("(a) learning only      ", a);
    }
    if (runB)
    {
        line("(b) Wi-Fi + TCP        ", b);
    }
    if (runC)
    {
        line("(c) ideal link         ", c);
    }
    double aGflops = 0.0;
    double gemmFraction = 0.0;
    if (runA)
    {
        // Per-round rate from the median round (the first round pays for cold caches).
        const double samplesPerRound = static_cast<double>(a.samples) / rounds;
        aGflops = gemmFlopsPerSample * samplesPerRound / a.Median() / 1e9;
        gemmFraction = aGflops / gemmPeak;
        const double modelGflops = modelFlopsPerSample * samplesPerRound / a.Median() / 1e9;
        std::cout << std::setprecision(2) << "  (a) FLOP rate: " << aGflops
                  << " GFLOP/s (GEMM FLOPs), " << modelGflops
                  << " GFLOP/s (Model::FlopsPerSample); single-core GEMM peak " << gemmPeak
                  << " GFLOP/s -> " << 100.0 * gemmFraction
                  << " % (target >= 40 %: " << (gemmFraction >= 0.4 ? "met" : "MISSED") << ")\n";
    }
    double threadSpeedup = 0.0;
    if (runA)
    {
        threadSpeedup = a.Median() / aParallel.Median();
        std::cout << std::setprecision(4) << "  (a) with " << aThreads
                  << " training threads: " << aParallel.Median() << " s per round (median), "
                  << std::setprecision(2) << threadSpeedup << "x the one-thread round (target >= "
                  << "1.7x with 2 threads: "
                  << (aThreads < 2 ? "n/a, one hardware thread"
                                   : (threadSpeedup >= 1.7 ? "met" : "MISSED"))
                  << "); models identical: "
                  << (a.finalModel == aParallel.finalModel ? "yes" : "NO") << "\n";
    }
    double moduleCost = 0.0;
    double moduleFraction = 0.0;
    if (runA && runC)
    {
        moduleCost = c.Median() - a.Median();
        std::cout << std::setprecision(4) << "  module cost (c)-(a): " << moduleCost
                  << " s per round (median)";
        if (runB)
        {
            moduleFraction = moduleCost / b.Median();
            std::cout << std::setprecision(2) << " = " << 100.0 * moduleFraction
                      << " % of (b) (target <= 10 %: "
                      << (moduleFraction <= 0.10 ? "met" : "MISSED") << ")";
        }
        std::cout << "\n";
    }
    if (runA && runB)
    {
        std::cout << std::setprecision(4) << "  ns-3 cost (b)-(c): "
                  << (runC ? b.Median() - c.Median() : b.Median() - a.Median())
                  << " s per round (median)\n";
    }
    // The three modes use the same seeds, so they must produce the same global model.
    auto same = [](const ModeResult& x, const ModeResult& y) {
        return x.finalModel == y.finalModel;
    };
    if (runA && runC)
    {
        std::cout << "  final model (a) == (c): " << (same(a, c) ? "yes" : "NO") << "\n";
    }
    if (runA && runB)
    {
        std::cout << "  final model (a) == (b): " << (same(a, b) ? "yes" : "NO") << "\n";
    }
    const ModeResult* any = runA ? &a : (runC ? &c : &b);
    const fl::Evaluation ev = task->Evaluate(any->finalModel);
    std::cout << std::setprecision(4) << "  test accuracy after " << rounds
              << " rounds: " << ev.accuracy << std::endl;

    if (!output.empty())
    {
        std::ofstream csv(output);
        if (!csv)
        {
            std::cerr << "fl-benchmark-fedavg: cannot write " << output << std::endl;
            return 1;
        }
        csv << "record,name,round,value,unit\n" << std::setprecision(9);
        auto rows = [&csv](const char* name, const ModeResult& r) {
            for (std::size_t i = 0; i < r.roundWall.size(); ++i)
            {
                csv << "round," << name << "," << i + 1 << "," << r.roundWall[i] << ",s\n";
            }
            csv << "summary," << name << "_median,," << r.Median() << ",s\n";
            csv << "summary," << name << "_mean,," << r.Mean() << ",s\n";
        };
        if (runA)
        {
            rows("a", a);
            rows("a_threads", aParallel);
        }
        if (runB)
        {
            rows("b", b);
        }
        if (runC)
        {
            rows("c", c);
        }
        csv << "summary,gemm_512,," << gemm512 << ",GFLOP/s\n";
        csv << "summary,gemm_1024,," << gemm1024 << ",GFLOP/s\n";
        csv << "summary,gemm_mlp_fwd_32x784x128,," << gemmFwd << ",GFLOP/s\n";
        csv << "summary,gemm_mlp_grad_784x32x128,," << gemmGrad << ",GFLOP/s\n";
        if (runA)
        {
            csv << "summary,a_gflops,," << aGflops << ",GFLOP/s\n";
            csv << "summary,a_gemm_fraction,," << gemmFraction << ",1\n";
            csv << "summary,a_training_threads,," << aThreads << ",1\n";
            csv << "summary,a_thread_speedup,," << threadSpeedup << ",1\n";
        }
        if (runA && runC)
        {
            csv << "summary,module_cost,," << moduleCost << ",s\n";
        }
        if (runA && runB && runC)
        {
            csv << "summary,module_cost_fraction_of_b,," << moduleFraction << ",1\n";
        }
        std::cout << "results: " << output << std::endl;
    }
    return 0;
}
