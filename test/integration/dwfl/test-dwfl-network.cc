/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * DWFL workers over the simulated analog channel (DwflWorkerApplication + DwflHelper on
 * OtaChannel/OtaPhy): the identities of DWFL's equations (alignment, eq. (9)) measured on what the
 * phys actually delivered, the slot timing, privacy bookkeeping and a small end-to-end run.
 *
 * Identities are checked to 1e-10 (absolute, on models of norm O(1)); their inputs are noisy
 * (Rayleigh sender-only channels, receiver noise, calibrated artificial noise), and each test
 * also checks that the noise it claims to cancel is there.
 */
#include "fl-test-task.h"

#include "ns3/core-module.h"
#include "ns3/dwfl-helper.h"
#include "ns3/dwfl-privacy.h"
#include "ns3/dwfl-worker-application.h"
#include "ns3/dwfl.h"
#include "ns3/fl-learning-tracker.h"
#include "ns3/fl-ns3-compat.h"
#include "ns3/mobility-module.h"
#include "ns3/ota-channel.h"
#include "ns3/ota-signal.h"

#include <gtest/gtest.h>
#include <map>
#include <memory>
#include <set>
#include <vector>

using namespace ns3;

namespace
{

/// One local SGD step with clipping per round (Algorithm 1).
fl::LocalTrainerConfig
OneStep(double gamma = 0.1, double gMax = 1.0)
{
    fl::LocalTrainerConfig tc = fltest::TestTrainer();
    tc.localSteps = 1;
    tc.learningRate = gamma;
    tc.clipNorm = gMax;
    return tc;
}

/// What every worker reported, by round and worker.
struct DwflRun
{
    std::shared_ptr<fl::SupervisedTask<double>> task;
    DwflNetwork net;
    std::map<uint32_t, std::map<uint32_t, Eigen::VectorXd>> local;    ///< x_i^(t) (Round trace)
    std::map<uint32_t, std::map<uint32_t, Eigen::VectorXd>> noise;    ///< m_i^(t)
    std::map<uint32_t, std::map<uint32_t, Eigen::VectorXd>> ownNoise; ///< G_i^(t)
    std::map<uint32_t, std::map<uint32_t, DwflRoundReport>> report;   ///< scalars of the trace
    std::map<uint32_t, std::map<uint32_t, Eigen::VectorXd>>
        model;                                       ///< x_i after round (ModelReport)
    std::map<uint32_t, double> finishedAt;           ///< sim time of round ends
    std::map<uint32_t, Eigen::VectorXd> serverModel; ///< centralized: w after round (server)
    std::map<uint32_t, Eigen::VectorXd> serverNoise; ///< centralized: m of the uplink of round
    /// every data-slot reception: (round, receiver phy) -> the reception (Rx trace)
    std::map<std::pair<uint32_t, uint32_t>, OtaReception> receptions;

    /// Network average of map[round] over the workers.
    static Eigen::VectorXd Mean(const std::map<uint32_t, Eigen::VectorXd>& byWorker)
    {
        Eigen::VectorXd sum = Eigen::VectorXd::Zero(byWorker.begin()->second.size());
        for (const auto& [w, v] : byWorker)
        {
            sum += v;
        }
        return sum / static_cast<double>(byWorker.size());
    }
};

class DwflNetworkTest : public ::testing::Test
{
  protected:
    void SetUp() override
    {
        RngSeedManager::SetSeed(1);
        RngSeedManager::SetRun(1);
    }

    void TearDown() override
    {
        Simulator::Destroy();
    }

    /**
     * N workers within 5 m of each other on a Rayleigh sender-only channel without path loss,
     * fixed receiver noise `noiseVariance` per complex symbol; `configure` sets the rest.
     */
    std::unique_ptr<DwflRun> Simulate(uint32_t n,
                                      uint32_t rounds,
                                      double noiseVariance,
                                      const std::function<void(DwflHelper&)>& configure,
                                      std::shared_ptr<fl::PrivacyAccountant> accountant = nullptr,
                                      fl::LocalTrainerConfig trainer = OneStep(),
                                      bool centralized = false)
    {
        auto run = std::make_unique<DwflRun>();
        run->task = fltest::MakeTask<double>(n, "softmax", 8, trainer);
        NodeContainer nodes;
        nodes.Create(n + (centralized ? 1 : 0));
        MobilityHelper mobility;
        mobility.SetPositionAllocator("ns3::GridPositionAllocator",
                                      "DeltaX",
                                      DoubleValue(1.0),
                                      "GridWidth",
                                      UintegerValue(5));
        mobility.Install(nodes);
        DwflHelper dwfl;
        dwfl.Ota().DisablePropagationLoss();
        dwfl.Ota().SetPhyAttribute("TxPower", DoubleValue(30.0));
        dwfl.Ota().SetPhyAttribute("NoiseModel", StringValue("Fixed"));
        dwfl.Ota().SetPhyAttribute("NoiseVariance", DoubleValue(noiseVariance));
        dwfl.Ota().SetPhyAttribute("RecordNoise", BooleanValue(true));
        dwfl.SetWorkerAttribute("Rounds", UintegerValue(rounds));
        // The tests' baseline, which each test changes where it needs: no artificial noise,
        // eta = 0.5, no compute time (the defaults are the paper's settings; see
        // DefaultsAreThePapersSettings).
        dwfl.SetWorkerAttribute("TargetEpsilon", DoubleValue(0.0));
        dwfl.SetWorkerAttribute("Eta", DoubleValue(0.5));
        dwfl.SetWorkerAttribute("ComputeTime", TimeValue(Seconds(0)));
        configure(dwfl);
        if (centralized)
        {
            NodeContainer workers;
            for (uint32_t i = 0; i < n; ++i)
            {
                workers.Add(nodes.Get(i));
            }
            run->net = dwfl.InstallCentralized(workers, nodes.Get(n), run->task);
        }
        else
        {
            run->net = dwfl.Install(nodes, run->task);
        }
        DwflHelper::AssignStreams(run->net, 11);
        DynamicCast<DwflWorkerApplication>(run->net.workers.Get(0))
            ->SetPrivacyAccountant(accountant);
        DwflRun* r = run.get();
        for (uint32_t i = 0; i < n; ++i)
        {
            Ptr<Application> app = run->net.workers.Get(i);
            app->TraceConnectWithoutContext(
                "Round",
                FlCallback<void, const DwflRoundReport&>([r, i](const DwflRoundReport& rep) {
                    // stored by the paper's index t = round - 1 (x^(t), G^(t), m^(t)); the
                    // models (ModelReport) by round, so model[t + 1] follows local[t]
                    const uint32_t t = rep.round - 1;
                    r->local[t][i] = *rep.localModel;
                    r->ownNoise[t][i] = *rep.ownNoise;
                    if (rep.receiverNoise)
                    {
                        r->noise[t][i] = *rep.receiverNoise;
                    }
                    r->report[t][i] = rep;
                }));
            app->TraceConnectWithoutContext(
                "ModelReport",
                FlCallback<void, const FlModelReport&>([r, i](const FlModelReport& rep) {
                    r->model[rep.round][i] = rep.model->Get<double>();
                    r->finishedAt[rep.round] = Simulator::Now().GetSeconds();
                }));
        }
        // Every data-slot reception of every worker's phy, keyed by the worker's round (the
        // trace fires before the worker's own callback finishes the round).
        for (uint32_t p = 0; p < n; ++p)
        {
            run->net.phys.Get(p)->TraceConnectWithoutContext(
                "Rx",
                FlCallback<void, const OtaReception&>([r, p](const OtaReception& rx) {
                    auto worker = DynamicCast<DwflWorkerApplication>(r->net.workers.Get(p));
                    if (rx.slot >= worker->GetDataSlot() && rx.contributors > 1)
                    {
                        r->receptions[{worker->GetRoundsDone(), p}] = rx;
                    }
                }));
        }
        if (run->net.server)
        {
            const auto d = static_cast<Eigen::Index>(run->task->NumParameters());
            run->net.server->TraceConnectWithoutContext(
                "ModelReport",
                MakeCallback(+[](DwflRun* r, const FlModelReport& rep) {
                    r->serverModel[rep.round] = rep.model->Get<double>();
                    r->finishedAt[rep.round] = Simulator::Now().GetSeconds();
                }).Bind(r));
            run->net.phys.Get(n)->TraceConnectWithoutContext(
                "Rx",
                FlCallback<void, const OtaReception&>([r, d](const OtaReception& rx) {
                    if (rx.noise.size() > 0 && rx.contributors > 1)
                    {
                        r->serverNoise[r->net.server->GetRoundsDone()] =
                            fl::RealView(rx.noise).head(d);
                    }
                }));
            run->net.server->SetStartTime(Seconds(0));
        }
        run->net.workers.Start(Seconds(0));
        Simulator::Run();
        return run;
    }
};

/// Largest |a_k - b_k|.
double
MaxAbsDiff(const Eigen::VectorXd& a, const Eigen::VectorXd& b)
{
    return (a - b).cwiseAbs().maxCoeff();
}

// Oracle decode: the network average after the update equals the average of the transmitted
// models x^(t) = x^(t-1/2) - gamma g, i.e. noiseless mini-batch SGD on the average (eq. 9),
// although every worker's own model carries noise.
TEST_F(DwflNetworkTest, OracleAverageFollowsNoiselessSgd)
{
    const uint32_t n = 5;
    auto run = Simulate(n, 4, 0.02, [](DwflHelper& h) {
        h.SetWorkerAttribute("DecodeMode", StringValue("Oracle"));
        h.SetWorkerAttribute("TargetEpsilon", DoubleValue(0.5));
        h.SetWorkerAttribute("Kappa", DoubleValue(0.0));
    });
    ASSERT_EQ(run->local.size(), 4U);
    double betaMax = 0.0;
    for (uint32_t t = 0; t < 4; ++t)
    {
        ASSERT_EQ(run->model[t + 1].size(), n);
        const Eigen::VectorXd sgd = DwflRun::Mean(run->local[t]);
        const Eigen::VectorXd after = DwflRun::Mean(run->model[t + 1]);
        EXPECT_LT(MaxAbsDiff(after, sgd), 1e-10) << "round " << t;
        for (uint32_t i = 0; i < n; ++i)
        {
            betaMax = std::max(betaMax, run->report[t][i].beta);
            // The noise did reach the workers: each model is off the average by far more.
            EXPECT_GT(run->noise[t][i].norm(), 0.1);
        }
    }
    EXPECT_GT(betaMax, 0.0); // artificial noise was on
}

// Practical decode: the average's deviation from noiseless SGD is exactly
// eta sum_i m_i / (c N (N-1)) for the receiver noise the phys realised; the artificial noise
// still cancels.
TEST_F(DwflNetworkTest, PracticalAverageDeviationIsTheReceiverNoiseTerm)
{
    const uint32_t n = 6;
    const double eta = 0.7;
    auto run = Simulate(n, 3, 0.02, [eta](DwflHelper& h) {
        h.SetWorkerAttribute("Eta", DoubleValue(eta));
        h.SetWorkerAttribute("TargetEpsilon", DoubleValue(0.5));
        h.SetWorkerAttribute("Kappa", DoubleValue(0.0));
    });
    for (uint32_t t = 0; t < 3; ++t)
    {
        const double c = run->report[t][0].c;
        Eigen::VectorXd sumM = Eigen::VectorXd::Zero(run->local[t][0].size());
        for (uint32_t i = 0; i < n; ++i)
        {
            EXPECT_DOUBLE_EQ(run->report[t][i].c, c); // every worker aligned to the same c
            sumM += run->noise[t][i];
        }
        const Eigen::VectorXd expected = eta * sumM / (c * n * (n - 1.0));
        const Eigen::VectorXd deviation =
            DwflRun::Mean(run->model[t + 1]) - DwflRun::Mean(run->local[t]);
        EXPECT_GT(expected.norm(), 1e-4); // the term is not negligible
        EXPECT_LT(MaxAbsDiff(deviation, expected), 1e-10) << "round " << t;
    }
}

// Without noise, eta = (N-1)/N makes every worker hold the exact average after one round.
TEST_F(DwflNetworkTest, EtaNMinus1OverNAveragesExactlyInOneRound)
{
    const uint32_t n = 4;
    auto run = Simulate(n, 1, 0.0, [n](DwflHelper& h) {
        h.SetWorkerAttribute("Eta", DoubleValue((n - 1.0) / n));
    });
    const Eigen::VectorXd avg = DwflRun::Mean(run->local[0]);
    EXPECT_GT(MaxAbsDiff(run->local[0][0], avg), 1e-3); // the workers did differ
    for (uint32_t i = 0; i < n; ++i)
    {
        EXPECT_LT(MaxAbsDiff(run->model[1][i], avg), 1e-12) << "worker " << i;
    }
}

// Orthogonal baseline: N data slots per round (plus N control slots in the setup round), per-link
// noise calibrated to the target eps per link, and the same update (Oracle: eq. 9 again).
TEST_F(DwflNetworkTest, OrthogonalTakesNSlotsPerRound)
{
    const uint32_t n = 5;
    const double eps = 2.0; // per link: orthogonal links need (N-1)x the noise
    auto run = Simulate(n, 3, 0.02, [eps](DwflHelper& h) {
        h.SetWorkerAttribute("Transmission", StringValue("Orthogonal"));
        h.SetWorkerAttribute("DecodeMode", StringValue("Oracle"));
        h.SetWorkerAttribute("TargetEpsilon", DoubleValue(eps));
        h.SetWorkerAttribute("Kappa", DoubleValue(0.0));
        h.SetWorkerAttribute("Sigma2", DoubleValue(4.0));
    });
    const double slot = run->net.channel->GetSlotDuration().GetSeconds();
    for (uint32_t t = 0; t < 3; ++t)
    {
        for (uint32_t i = 0; i < n; ++i)
        {
            const DwflRoundReport& rep = run->report[t][i];
            EXPECT_EQ(rep.received, n - 1);
            EXPECT_NEAR(rep.roundDuration.GetSeconds(), (t == 0 ? 2 * n : n) * slot, 1e-12);
            EXPECT_LE(rep.epsilon, eps * (1 + 1e-12)); // every link at most the target
        }
        EXPECT_LT(MaxAbsDiff(DwflRun::Mean(run->model[t + 1]), DwflRun::Mean(run->local[t])),
                  1e-10);
    }
    EXPECT_NEAR(run->finishedAt[3], (2 * n + 2 * n) * slot, 1e-12);
}

// Non-orthogonal rounds take one data slot (plus N control slots in the setup round); the
// realised eps_i of eq. (11) equals the calibrated target and the accountant gets one
// Gaussian mechanism per round whose classic eps is that eps_i.
TEST_F(DwflNetworkTest, OneSlotPerRoundAndCalibratedEpsilon)
{
    const uint32_t n = 6;
    const double eps = 0.5;
    auto run = Simulate(n, 3, 0.02, [eps](DwflHelper& h) {
        h.SetWorkerAttribute("TargetEpsilon", DoubleValue(eps));
        h.SetWorkerAttribute("Kappa", DoubleValue(0.0));
        h.SetWorkerAttribute("ComputeTime", TimeValue(MicroSeconds(1)));
    });
    const double slot = run->net.channel->GetSlotDuration().GetSeconds();
    for (uint32_t t = 0; t < 3; ++t)
    {
        for (uint32_t i = 0; i < n; ++i)
        {
            const DwflRoundReport& rep = run->report[t][i];
            EXPECT_EQ(rep.received, 1U);
            // control slots (setup round) + 1 compute slot + 1 data slot
            EXPECT_NEAR(rep.roundDuration.GetSeconds(), ((t == 0 ? n : 0) + 2) * slot, 1e-12);
            EXPECT_NEAR(rep.epsilon, eps, 1e-9 * eps);
            EXPECT_LE(rep.alpha + rep.beta, 1.0 + 1e-12);
            EXPECT_LE(rep.gradientNorm, 1.0 + 1e-12);
        }
    }
}

// The defaults work for any placement: with a privacy target and no Kappa given, the workers
// (Rayleigh channels, all different) take the largest feasible kappa and reach the target.
// The defaults are the paper's settings where it has one (TargetEpsilon 0.5, its default
// privacy level) and otherwise those the module documents: eta = (N-1)/N, 10 ms of compute,
// the largest feasible kappa. With nothing set but the rounds, workers at random places (path
// loss from the channel's reference position, Rayleigh fading) complete every round at the
// calibrated eps; the compute time shows in the round's duration.
TEST_F(DwflNetworkTest, DefaultsAreThePapersSettings)
{
    auto app = CreateObject<DwflWorkerApplication>();
    DoubleValue eps;
    DoubleValue eta;
    DoubleValue kappa;
    TimeValue compute;
    app->GetAttribute("TargetEpsilon", eps);
    app->GetAttribute("Eta", eta);
    app->GetAttribute("Kappa", kappa);
    app->GetAttribute("ComputeTime", compute);
    EXPECT_EQ(eps.Get(), 0.5);
    EXPECT_EQ(eta.Get(), 0.0); // (N-1)/N
    EXPECT_EQ(kappa.Get(), 0.0);
    EXPECT_EQ(compute.Get(), MilliSeconds(10));

    const uint32_t n = 6;
    const uint32_t rounds = 3;
    auto task = fltest::MakeTask<double>(n, "softmax", 8, OneStep());
    NodeContainer nodes;
    nodes.Create(n);
    MobilityHelper mobility;
    mobility.SetPositionAllocator("ns3::RandomDiscPositionAllocator",
                                  "Rho",
                                  StringValue("ns3::UniformRandomVariable[Min=1|Max=30]"));
    mobility.Install(nodes);
    DwflHelper dwfl;
    dwfl.SetWorkerAttribute("Rounds", UintegerValue(rounds));
    DwflNetwork net = dwfl.Install(nodes, task);
    DwflHelper::AssignStreams(net, 7);
    std::map<uint32_t, uint32_t> reports; // round -> reports
    std::vector<double> epsilons;
    Time longest;
    for (uint32_t i = 0; i < n; ++i)
    {
        net.workers.Get(i)->TraceConnectWithoutContext(
            "Round",
            FlCallback<void, const DwflRoundReport&>([&](const DwflRoundReport& rep) {
                ++reports[rep.round];
                epsilons.push_back(rep.epsilon);
                longest = std::max(longest, rep.roundDuration);
            }));
    }
    net.workers.Start(Seconds(0));
    Simulator::Run();
    ASSERT_EQ(reports.size(), rounds);
    EXPECT_EQ(reports.begin()->first, 1U); // round 0 is the initial model
    for (const auto& [round, count] : reports)
    {
        EXPECT_EQ(count, n) << "round " << round;
    }
    for (double e : epsilons)
    {
        EXPECT_NEAR(e, 0.5, 1e-9);
    }
    EXPECT_GE(longest, MilliSeconds(10));
    for (uint32_t i = 0; i < n; ++i)
    {
        EXPECT_EQ(DynamicCast<DwflWorkerApplication>(net.workers.Get(i))->GetRoundsDone(), rounds);
    }
}

// One round convention: the DWFL Round trace's round r, the workers' ModelReport round r and
// the tracker's rows of round r are the same model (round 0 = the initial model, which only the
// tracker has). The tracker's Row trace hands every row over as it is recorded: during the run
// for every round but the last, which comes at Flush().
TEST_F(DwflNetworkTest, TrackerRowsAndRoundTraceShareRoundNumbers)
{
    const uint32_t n = 4;
    const uint32_t rounds = 3;
    auto task = fltest::MakeTask<double>(n, "softmax", 8, OneStep());
    NodeContainer nodes;
    nodes.Create(n);
    MobilityHelper mobility;
    mobility.Install(nodes);
    DwflHelper dwfl;
    dwfl.Ota().DisablePropagationLoss();
    dwfl.SetWorkerAttribute("Rounds", UintegerValue(rounds));
    DwflNetwork net = dwfl.Install(nodes, task);
    DwflHelper::AssignStreams(net, 3);
    std::map<uint32_t, double> roundTraceTime; // Round trace: round -> simulated time [s]
    for (uint32_t i = 0; i < n; ++i)
    {
        net.workers.Get(i)->TraceConnectWithoutContext(
            "Round",
            FlCallback<void, const DwflRoundReport&>([&](const DwflRoundReport& rep) {
                roundTraceTime[rep.round] = Simulator::Now().GetSeconds();
            }));
    }
    Ptr<FlLearningTracker> tracker = CreateObject<FlLearningTracker>();
    tracker->SetTask(task);
    tracker->Install(net.workers);
    std::vector<FlMetricRow> traced;
    bool running = true;
    std::set<uint32_t> roundsSeenWhileRunning;
    tracker->TraceConnectWithoutContext(
        "Row",
        FlCallback<void, const FlMetricRow&>([&](const FlMetricRow& row) {
            traced.push_back(row);
            if (running)
            {
                roundsSeenWhileRunning.insert(row.round);
            }
        }));
    net.workers.Start(Seconds(0));
    Simulator::Run();
    running = false;
    tracker->Flush();

    ASSERT_EQ(traced.size(), tracker->GetRows().size());
    for (std::size_t k = 0; k < traced.size(); ++k)
    {
        EXPECT_EQ(traced[k].round, tracker->GetRows()[k].round);
        EXPECT_EQ(traced[k].metric, tracker->GetRows()[k].metric);
        EXPECT_EQ(traced[k].value, tracker->GetRows()[k].value);
    }
    EXPECT_EQ(roundsSeenWhileRunning, (std::set<uint32_t>{0, 1, 2})); // round 3 at Flush
    ASSERT_EQ(roundTraceTime.size(), rounds);
    EXPECT_EQ(roundTraceTime.begin()->first, 1U);
    std::set<uint32_t> trackerRounds;
    for (const FlMetricRow& row : traced)
    {
        trackerRounds.insert(row.round);
        if (row.round > 0)
        {
            EXPECT_DOUBLE_EQ(row.timeS, roundTraceTime.at(row.round)) << "round " << row.round;
        }
    }
    EXPECT_EQ(trackerRounds, (std::set<uint32_t>{0, 1, 2, 3}));
}

TEST_F(DwflNetworkTest, DefaultKappaFitsAnyChannels)
{
    const uint32_t n = 5;
    const double eps = 0.5;
    auto run = Simulate(n, 2, 0.02, [eps](DwflHelper& h) {
        h.SetWorkerAttribute("TargetEpsilon", DoubleValue(eps));
    });
    for (uint32_t i = 0; i < n; ++i)
    {
        EXPECT_NEAR(run->report[1][i].epsilon, eps, 1e-9 * eps);
        EXPECT_GT(run->report[1][i].beta, 0.0);
    }
}

// A fixed Kappa = 1 leaves the artificial noise no power once the channels differ: the run ends
// with the reason and exit status 2 (a configuration error raised inside Simulator::Run), never
// an uncaught exception or an abort.
TEST_F(DwflNetworkTest, InfeasibleKappaEndsTheRunWithStatus2)
{
    EXPECT_EXIT(
        {
            Simulate(5, 2, 0.02, [](DwflHelper& h) {
                h.SetWorkerAttribute("TargetEpsilon", DoubleValue(0.5));
                h.SetWorkerAttribute("Kappa", DoubleValue(1.0));
            });
        },
        ::testing::ExitedWithCode(2),
        "DwflWorkerApplication: fl: invalid");
}

// The accountant is fed once per round with worker 0's composed mechanism (doc/fl-privacy.rst,
// "DWFL over rounds: the composed bound"): round t's fresh noise at the drift sensitivity Delta_t
// of fl::DwflComposedBound, from the run's own channels (announced |h_k|, P_k), beta_k, c, eta and
// the trainer's gamma and g_max. Round 1 is eq. (11): its classic eps is the target.
TEST_F(DwflNetworkTest, AccountantGetsTheComposedMechanismPerRound)
{
    const double eps = 0.5;
    const double delta = 1e-5;
    const uint32_t n = 4;
    auto accountant = std::make_shared<fl::PrivacyAccountant>();
    auto run = Simulate(
        n,
        3,
        0.02,
        [&](DwflHelper& h) {
            h.SetWorkerAttribute("TargetEpsilon", DoubleValue(eps));
            h.SetWorkerAttribute("Delta", DoubleValue(delta));
            h.SetWorkerAttribute("Kappa", DoubleValue(0.0));
        },
        accountant);
    ASSERT_EQ(accountant->Steps(), 3U);
    fl::DwflRoundSetup s;
    for (uint32_t k = 0; k < n; ++k)
    {
        const auto w = DynamicCast<DwflWorkerApplication>(run->net.workers.Get(k));
        s.gainAbs.push_back(w->GetAnnouncedChannel().first);
        s.powerW.push_back(w->GetAnnouncedChannel().second);
        s.beta.push_back(run->report[0][k].beta);
    }
    s.c = run->report[0][0].c;
    s.eta = 0.5;
    const fl::LocalTrainerConfig tc = run->task->GetTrainerConfig();
    s.params.gamma = tc.learningRate;
    s.params.gMax = tc.clipNorm;
    s.params.sigma2 = 1.0;
    s.params.sigmaM2 = 0.01; // NoiseVariance / 2 per real value
    s.params.delta = delta;
    fl::DwflComposedBound bound(0, fl::DwflDecode::Practical);
    fl::PrivacyAccountant expected;
    for (int t = 0; t < 3; ++t)
    {
        const fl::MechanismSpec spec = bound.AddRound(s);
        if (t == 0)
        {
            EXPECT_NEAR(fl::GaussianEpsilonClassic(spec.sensitivity, spec.scale, delta), eps, 1e-9);
        }
        expected.Add(spec);
    }
    const double want = expected.Epsilon(delta, fl::Composition::Rdp);
    EXPECT_NEAR(accountant->Epsilon(delta, fl::Composition::Rdp), want, 1e-9 * want);
    EXPECT_GT(bound.LastDriftFactor(1), 3.0); // the drift: far above t = 3 one-step sensitivities
}

// The parameter server's receptions compose at the one-round sensitivity: with the noise
// calibrated for eps = 0.5 per round (classic bound) each round is a Gaussian of
// Delta / sigma = 0.5 / sqrt(2 ln(1.25 / delta)), whatever the channels; T = 3 such releases
// by hand (one Gaussian of sensitivity sqrt(3) Delta under Renyi DP).
TEST_F(DwflNetworkTest, ParameterServerComposesAtTheOneRoundSensitivity)
{
    const double delta = 1e-5;
    auto accountant = std::make_shared<fl::PrivacyAccountant>();
    Simulate(
        4,
        3,
        0.02,
        [](DwflHelper& h) {
            h.SetWorkerAttribute("TargetEpsilon", DoubleValue(0.5));
            h.SetWorkerAttribute("Kappa", DoubleValue(0.0));
            h.SetWorkerAttribute("ComputeTime", TimeValue(MicroSeconds(1)));
        },
        accountant,
        OneStep(),
        true);
    ASSERT_EQ(accountant->Steps(), 3U);
    fl::PrivacyAccountant hand;
    hand.AddGaussian(std::sqrt(3.0) * 0.5, std::sqrt(2.0 * std::log(1.25 / delta)));
    const double want = hand.Epsilon(delta, fl::Composition::Rdp);
    EXPECT_NEAR(accountant->Epsilon(delta, fl::Composition::Rdp), want, 1e-9 * want);
}

// The noise source: run-seed reproduces the run bit for bit, sodium draws the artificial noise's
// seeds from libsodium, so two runs differ.
TEST_F(DwflNetworkTest, SodiumNoiseChangesFromRunToRun)
{
    auto finalModel = [this](const std::string& source) {
        auto run = Simulate(3, 2, 0.02, [&source](DwflHelper& h) {
            h.SetWorkerAttribute("TargetEpsilon", DoubleValue(0.5));
            h.SetWorkerAttribute("Kappa", DoubleValue(0.0));
            h.SetWorkerAttribute("NoiseSource", StringValue(source));
        });
        const Eigen::VectorXd m = run->model[2][0];
        Simulator::Destroy();
        return m;
    };
    EXPECT_EQ(finalModel("run-seed"), finalModel("run-seed"));
    EXPECT_NE(finalModel("sodium"), finalModel("sodium"));
    EXPECT_EXIT(finalModel("urandom"), ::testing::ExitedWithCode(2), "NoiseSource");
}

// Orthogonal links have no valid composed bound: an accountant stops the run (exit status 2).
TEST_F(DwflNetworkTest, NoComposedBoundForOrthogonalLinks)
{
    EXPECT_EXIT(
        {
            Simulate(
                3,
                1,
                0.02,
                [](DwflHelper& h) {
                    h.SetWorkerAttribute("Transmission", StringValue("Orthogonal"));
                },
                std::make_shared<fl::PrivacyAccountant>());
        },
        ::testing::ExitedWithCode(2),
        "not composed: no valid bound");
}

// A small end-to-end run learns: the test loss of the network average falls from ln 4 (the
// uniform prediction of the zero-initialised 4-class softmax) by at least a factor 2 in 100
// rounds of Practical DWFL with eps = 1 per round.
TEST_F(DwflNetworkTest, SmallRunConverges)
{
    const uint32_t n = 8;
    const uint32_t rounds = 100;
    auto run = Simulate(
        n,
        rounds,
        0.02,
        [](DwflHelper& h) {
            h.SetWorkerAttribute("TargetEpsilon", DoubleValue(1.0));
            h.SetWorkerAttribute("Kappa", DoubleValue(0.0));
            h.SetWorkerAttribute("Eta", DoubleValue(0.8));
        },
        nullptr,
        OneStep(0.5, 1.0));
    ASSERT_EQ(run->model[rounds].size(), n);
    const double before = run->task->Evaluate(fl::ParamVector(DwflRun::Mean(run->model[0]))).loss;
    const double after =
        run->task->Evaluate(fl::ParamVector(DwflRun::Mean(run->model[rounds]))).loss;
    EXPECT_NEAR(before, std::log(4.0), 1e-9);
    EXPECT_LT(after, before / 2) << "loss " << before << " -> " << after;
}

// A trainer that is not one clipped step is refused with the parameter named.
TEST_F(DwflNetworkTest, TaskMustMakeOneClippedStep)
{
    auto app = CreateObject<DwflWorkerApplication>();
    EXPECT_THROW(app->SetTask(fltest::MakeTask<double>(2, "softmax"), 0), fl::ConfigError);
    EXPECT_THROW(app->SetTask(fltest::MakeTask<double>(2, "softmax", 8, OneStep(0.1, 0.0)), 0),
                 fl::ConfigError);
    EXPECT_THROW(app->SetTask(fltest::MakeTask<float>(2, "softmax", 8, OneStep()), 0),
                 fl::ConfigError);
    EXPECT_NO_THROW(app->SetTask(fltest::MakeTask<double>(2, "softmax", 8, OneStep()), 1));
}

// The centralized parameter server over the simulated channel (Seif et al.): every round the
// server's model moves from w by -gamma (mean clipped gradient + (sum_k a_k G_k + m / c) / N)
// exactly, for the artificial noise the workers drew and the receiver noise the server's phy
// realised; the realised eps at the server equals the target; a round is N control slots (setup
// round), one compute slot, the uplink and the downlink; the workers hold the server's model.
TEST_F(DwflNetworkTest, CentralizedServerReceivesTheAlignedSumOfGradients)
{
    const uint32_t n = 5;
    const uint32_t rounds = 3;
    const double eps = 1.0;
    const double gamma = 0.1; // OneStep()
    auto run = Simulate(
        n,
        rounds,
        0.02,
        [eps](DwflHelper& h) {
            h.SetWorkerAttribute("TargetEpsilon", DoubleValue(eps));
            h.SetWorkerAttribute("Kappa", DoubleValue(0.0));
            h.SetWorkerAttribute("ComputeTime", TimeValue(MicroSeconds(1)));
        },
        nullptr,
        OneStep(),
        true);
    ASSERT_TRUE(run->net.server);
    ASSERT_EQ(run->serverModel.size(), rounds + 1);
    ASSERT_EQ(run->serverNoise.size(), rounds);
    const double slot = run->net.channel->GetSlotDuration().GetSeconds();
    for (uint32_t t = 0; t < rounds; ++t)
    {
        const Eigen::VectorXd& w = run->serverModel[t];
        const double c = run->report[t][0].c;
        Eigen::VectorXd meanGradient = Eigen::VectorXd::Zero(w.size());
        Eigen::VectorXd noise = run->serverNoise[t] / c;
        for (uint32_t k = 0; k < n; ++k)
        {
            const DwflRoundReport& rep = run->report[t][k];
            EXPECT_DOUBLE_EQ(rep.c, c);
            EXPECT_NEAR(rep.epsilon, eps, 1e-9 * eps);
            EXPECT_LE(rep.alpha + rep.beta, 1.0 + 1e-12);
            EXPECT_GT(rep.beta, 0.0);
            EXPECT_NEAR(rep.roundDuration.GetSeconds(), ((t == 0 ? n : 0) + 3) * slot, 1e-12);
            meanGradient += (w - run->local[t][k]) / (gamma * n); // x_k^(t) = w - gamma g_k
            auto worker = DynamicCast<DwflWorkerApplication>(run->net.workers.Get(k));
            const auto [gain, power] = worker->GetAnnouncedChannel();
            noise += fl::DwflNoiseGain(gain, power, rep.beta, c) * run->ownNoise[t][k];
        }
        const Eigen::VectorXd expected = w - gamma * meanGradient - gamma * noise / n;
        EXPECT_GT((gamma * noise / n).norm(), 1e-3); // the noise is there, and it stays
        EXPECT_LT(MaxAbsDiff(run->serverModel[t + 1], expected), 1e-10) << "round " << t;
    }
    for (uint32_t k = 0; k < n; ++k)
    {
        auto worker = DynamicCast<DwflWorkerApplication>(run->net.workers.Get(k));
        EXPECT_EQ(worker->GetRoundsDone(), rounds);
        EXPECT_TRUE(worker->GetModel().Get<double>() == run->serverModel[rounds]);
    }
    EXPECT_EQ(run->model.size(), 0U); // the workers do not report: the server holds the model
}

/// The effective coefficient (h b) with which sender `k` arrived in a reception.
fl::Complex
EffectiveOf(const OtaReception& rx, uint32_t k)
{
    for (const OtaContribution& c : rx.contributions)
    {
        if (c.sender == k)
        {
            return c.effective;
        }
    }
    ADD_FAILURE() << "sender " << k << " not in the reception of " << rx.receiver;
    return {0.0, 0.0};
}

// Per-link channels: each worker aligns to its reference receiver (the next worker), so the
// model of sender k arrives there with amplitude |h b| sqrt(alpha_k P_k) = c and phase 0 exactly,
// but every other receiver sees it with another amplitude and phase: its sum of the others is not c
// sum_{k != i} x_k. With block fading the alignment is recomputed every round (a new c) and again
// holds only at the reference. On the paper's sender-only channel every receiver sees exactly c sum
// x_k.
TEST_F(DwflNetworkTest, PerLinkChannelsAlignOnlyAtTheReferenceReceiver)
{
    const uint32_t n = 5;
    const uint32_t rounds = 3;
    for (std::string structure : {"SenderOnly", "PerLink"})
    {
        for (std::string coherence : {"Fixed", "PerSlot"})
        {
            SCOPED_TRACE(structure + " " + coherence);
            auto run = Simulate(n, rounds, 0.0, [&](DwflHelper& h) {
                h.Ota().SetChannelAttribute("Structure", StringValue(structure));
                h.Ota().SetChannelAttribute("Coherence", StringValue(coherence));
            });
            const bool perLink = structure == "PerLink";
            std::set<double> cs;
            for (uint32_t t = 0; t < rounds; ++t)
            {
                const double c = run->report[t][0].c;
                cs.insert(c);
                for (uint32_t i = 0; i < n; ++i)
                {
                    const auto it = run->receptions.find({t, i});
                    ASSERT_NE(it, run->receptions.end()) << "round " << t << " receiver " << i;
                    const OtaReception& rx = it->second;
                    EXPECT_EQ(rx.contributors, n - 1);
                    Eigen::VectorXd aligned = Eigen::VectorXd::Zero(run->local[t][0].size());
                    uint32_t misaligned = 0;
                    for (uint32_t k = 0; k < n; ++k)
                    {
                        if (k == i)
                        {
                            continue;
                        }
                        aligned += c * run->local[t][k];
                        // h b of the arrival times the model's amplitude sqrt(alpha_k P_k)
                        auto sender = DynamicCast<DwflWorkerApplication>(run->net.workers.Get(k));
                        const fl::Complex e =
                            EffectiveOf(rx, k) * std::sqrt(run->report[t][k].alpha *
                                                           sender->GetAnnouncedChannel().second);
                        if (!perLink || (k + 1) % n == i)
                        {
                            // the reference receiver (every receiver if sender-only)
                            EXPECT_NEAR(e.real(), c, 1e-12 * c);
                            EXPECT_NEAR(e.imag(), 0.0, 1e-12 * c);
                        }
                        else if (std::abs(e - c) > 1e-3 * c)
                        {
                            ++misaligned;
                        }
                    }
                    const Eigen::VectorXd v =
                        fl::RealView(rx.symbols).head(aligned.size()); // noiseless channel
                    const double error = (v - aligned).norm() / aligned.norm();
                    if (perLink)
                    {
                        EXPECT_EQ(misaligned, n - 2); // all but the one it is the reference of
                        EXPECT_GT(error, 1e-2) << "receiver " << i << " round " << t;
                    }
                    else
                    {
                        EXPECT_LT(error, 1e-12) << "receiver " << i << " round " << t;
                    }
                }
            }
            // block fading re-aligns every round: c changes; fixed fading keeps it
            EXPECT_EQ(cs.size(), coherence == "PerSlot" ? rounds : 1U);
        }
    }
}

} // namespace