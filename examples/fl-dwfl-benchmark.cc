/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * fl-dwfl-benchmark: wall time of one DWFL round (DwflWorkerApplication over OtaPhy/OtaChannel)
 * on one core, for N = 100 workers and a model of about 1e5 parameters (an MLP 784-128-10 on
 * a 10-class Gaussian mixture: 101,770 parameters), split into
 *  - learning: the N local steps (LearningTask::TrainClient), timed directly;
 *  - noise generation: the artificial noise G_k and the receiver noise m_i, measured as the
 *    difference between a round with noise (TargetEpsilon, receiver noise) and one without;
 *  - channel: everything else (signals, the channel's sum-once superposition, each receiver's
 *    copy-and-remove-own, unpacking, the eq. (7) update, events).
 * The channel part is also timed for N/4 and N/2 workers: O(N d) per slot means it grows
 * linearly in N. Rounds after the setup round are timed.
 *
 *   fl-dwfl-benchmark                       # N = 100, 5 timed rounds
 *   fl-dwfl-benchmark --workers=30 --rounds=3
 */

#include "ns3/core-module.h"
#include "ns3/dwfl-helper.h"
#include "ns3/fl-ns3-compat.h"
#include "ns3/mobility-module.h"
#include "ns3/synthetic-data.h"

#include <chrono>
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

/// Wall seconds per round after the setup round of a DWFL run.
double
TimeRounds(std::shared_ptr<const fl::LearningTask> task,
           uint32_t workers,
           uint32_t rounds,
           bool noise)
{
    NodeContainer nodes;
    nodes.Create(workers);
    MobilityHelper mobility;
    mobility.SetPositionAllocator("ns3::GridPositionAllocator",
                                  "DeltaX",
                                  DoubleValue(1.0),
                                  "GridWidth",
                                  UintegerValue(10));
    mobility.Install(nodes);
    DwflHelper dwfl;
    dwfl.Ota().DisablePropagationLoss();
    dwfl.Ota().SetPhyAttribute("TxPower", DoubleValue(60.0));
    dwfl.Ota().SetPhyAttribute("NoiseModel", StringValue("Fixed"));
    dwfl.Ota().SetPhyAttribute("NoiseVariance", DoubleValue(noise ? 2e-3 : 0.0));
    dwfl.SetWorkerAttribute("Rounds", UintegerValue(rounds + 1));
    dwfl.SetWorkerAttribute("TargetEpsilon", DoubleValue(noise ? 0.5 : 0.0));
    dwfl.SetWorkerAttribute("Kappa", DoubleValue(noise ? 0.0 : 1.0));
    DwflNetwork net = dwfl.Install(nodes, task);
    DwflHelper::AssignStreams(net, 1);
    Clock::time_point first;
    Clock::time_point last;
    net.workers.Get(0)->TraceConnectWithoutContext(
        "ModelReport",
        FlCallback<void, const FlModelReport&>([&first, &last](const FlModelReport& r) {
            if (r.round == 1)
            {
                first = Clock::now();
            }
            last = Clock::now();
        }));
    net.workers.Start(Seconds(0));
    Simulator::Run();
    Simulator::Destroy();
    return std::chrono::duration<double>(last - first).count() / rounds;
}

/// Wall seconds of N local steps (one per worker).
double
TimeLearning(const fl::LearningTask& task, uint32_t workers, uint32_t repeats)
{
    fl::Rng init(1);
    const fl::ParamVector w = task.InitialParameters(init);
    const auto t0 = Clock::now();
    for (uint32_t r = 0; r < repeats; ++r)
    {
        for (uint32_t i = 0; i < workers; ++i)
        {
            fl::Rng rng(fl::DeriveSeed(3, r, i));
            task.TrainClient(i, w, rng);
        }
    }
    return std::chrono::duration<double>(Clock::now() - t0).count() / repeats;
}

} // namespace

int
main(int argc, char* argv[])
{
    uint32_t workers = 100;
    uint32_t rounds = 5;
    uint32_t batch = 16;
    std::string model = "mlp:hidden=128";
    CommandLine cmd(__FILE__);
    cmd.AddValue("workers", "Number of workers N", workers);
    cmd.AddValue("rounds", "Timed rounds (after the setup round)", rounds);
    cmd.AddValue("batch", "Mini-batch size of the local step", batch);
    cmd.AddValue("model", "Model spec (fl::MakeModel), input 784, 10 classes", model);
    cmd.Parse(argc, argv);

    auto task = MakeBenchmarkTask(workers, 2 * batch, batch, model);
    const std::size_t d = task->NumParameters();
    std::cout << "DWFL round benchmark: N = " << workers << ", d = " << d << " (" << model
              << ", batch " << batch << "), one core\n";
    const double learning = TimeLearning(*task, workers, rounds);
    const double full = TimeRounds(task, workers, rounds, true);
    const double quiet = TimeRounds(task, workers, rounds, false);
    std::cout << std::fixed << std::setprecision(4);
    std::cout << "wall time per round      " << full << " s (target <= 0.5 s at N = 100, d ~ 1e5)\n"
              << "  learning (N steps)     " << learning << " s\n"
              << "  noise generation       " << full - quiet << " s (" << workers << " x " << d
              << " artificial + " << workers << " x " << d << " receiver draws)\n"
              << "  channel and the rest   " << quiet - learning << " s\n";
    std::cout << "channel part against N (O(N d) per slot: linear in N):\n";
    for (uint32_t n : {workers / 4, workers / 2, workers})
    {
        if (n < 2)
        {
            continue;
        }
        auto t = MakeBenchmarkTask(n, 2 * batch, batch, model);
        const double channel = TimeRounds(t, n, rounds, false) - TimeLearning(*t, n, rounds);
        std::cout << "  N = " << std::setw(4) << n << ": " << channel << " s per round, "
                  << 1e9 * channel / (static_cast<double>(n) * d) << " ns per (worker x value)\n";
    }
    return 0;
}
