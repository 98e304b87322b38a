/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * DWFL workers over the simulated analog channel (DwflWorkerApplication + DwflHelper on
 * OtaChannel/OtaPhy): the identities of notes/dwfl.md section 6 measured on what the phys
 * actually delivered, the slot timing, privacy bookkeeping and a small end-to-end run.
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
#include "ns3/mobility-module.h"
#include "ns3/ota-channel.h"

#include <gtest/gtest.h>
#include <map>
#include <memory>
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
        model;                             ///< x_i after round (ModelReport)
    std::map<uint32_t, double> finishedAt; ///< sim time of round ends

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
                                      fl::LocalTrainerConfig trainer = OneStep())
    {
        auto run = std::make_unique<DwflRun>();
        run->task = fltest::MakeTask<double>(n, "softmax", 8, trainer);
        NodeContainer nodes;
        nodes.Create(n);
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
        configure(dwfl);
        run->net = dwfl.Install(nodes, run->task);
        DwflHelper::AssignStreams(run->net, 11);
        DynamicCast<DwflWorkerApplication>(run->net.workers.Get(0))
            ->SetPrivacyAccountant(accountant);
        DwflRun* r = run.get();
        for (uint32_t i = 0; i < n; ++i)
        {
            Ptr<Application> app = run->net.workers.Get(i);
            app->TraceConnectWithoutContext(
                "Round",
                MakeCallback(+[](DwflRun* r, uint32_t i, const DwflRoundReport& rep) {
                    r->local[rep.round][i] = *rep.localModel;
                    r->ownNoise[rep.round][i] = *rep.ownNoise;
                    if (rep.receiverNoise)
                    {
                        r->noise[rep.round][i] = *rep.receiverNoise;
                    }
                    r->report[rep.round][i] = rep;
                }).Bind(r, i));
            app->TraceConnectWithoutContext(
                "ModelReport",
                MakeCallback(+[](DwflRun* r, uint32_t i, const FlModelReport& rep) {
                    r->model[rep.round][i] = rep.model->Get<double>();
                    r->finishedAt[rep.round] = Simulator::Now().GetSeconds();
                }).Bind(r, i));
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

// The accountant is fed once per round with the reception's Gaussian mechanism (eps_i of
// eq. 11 = the target): basic composition over T rounds at delta is, by hand,
// T eps sqrt(2 ln(1.25 T / delta)) / sqrt(2 ln(1.25 / delta)) (classic bound at delta / T each).
TEST_F(DwflNetworkTest, AccountantGetsOneMechanismPerRound)
{
    const double eps = 0.5;
    const double delta = 1e-5;
    auto accountant = std::make_shared<fl::PrivacyAccountant>();
    Simulate(
        4,
        3,
        0.02,
        [&](DwflHelper& h) {
            h.SetWorkerAttribute("TargetEpsilon", DoubleValue(eps));
            h.SetWorkerAttribute("Delta", DoubleValue(delta));
            h.SetWorkerAttribute("Kappa", DoubleValue(0.0));
        },
        accountant);
    ASSERT_EQ(accountant->Steps(), 3U);
    const double expected =
        3 * eps * std::sqrt(2 * std::log(1.25 * 3 / delta)) / std::sqrt(2 * std::log(1.25 / delta));
    EXPECT_NEAR(accountant->Epsilon(delta, fl::Composition::Basic), expected, 1e-9 * expected);
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

} // namespace
