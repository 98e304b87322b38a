/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * q-FFL (T. Li, M. Sanjabi, A. Beirami, V. Smith, "Fair Resource Allocation in Federated
 * Learning", ICLR 2020, Algorithm 2): the client quantities Delta_k and h_k and the server step
 * against values computed by hand for three clients and q in {0, 1, 5}; q = 0 is FedAvg's step;
 * and the strategy pair over a Wi-Fi network equals the in-process run bit for bit.
 */
#include "fl-test-config-error.h"
#include "fl-test-task.h"

#include "ns3/core-module.h"
#include "ns3/fedavg.h"
#include "ns3/fl-helper.h"
#include "ns3/fl-network-scenarios.h"
#include "ns3/metrics.h"
#include "ns3/qffl-strategy.h"
#include "ns3/qffl.h"

#include <gtest/gtest.h>

using namespace ns3;
using fltest::ExpectConfigError;
using fltest::MakeTask;

namespace
{

fl::ParamVector
Vec2(double a, double b)
{
    Eigen::VectorXd v(2);
    v << a, b;
    return fl::ParamVector(v);
}

/// The three clients of the hand computations: w^t = (1, 2), eta = 0.1 (L = 10),
/// w_bar = (0.9, 1.8), (1.1, 2.0), (0.5, 2.5) and F = 0.5, 2, 1, so that L (w^t - w_bar) =
/// (1, 2), (-1, 0), (5, -5) with squared norms 5, 1, 50.
struct Three
{
    fl::ParamVector w = Vec2(1.0, 2.0);
    std::vector<fl::ParamVector> local{Vec2(0.9, 1.8), Vec2(1.1, 2.0), Vec2(0.5, 2.5)};
    std::vector<double> loss{0.5, 2.0, 1.0};
    double L = 10.0;

    fl::ParamVector Step(double q, std::vector<fl::QfflClientUpdate>& u) const
    {
        u.clear();
        for (std::size_t k = 0; k < 3; ++k)
        {
            u.push_back(fl::QfflClientQuantities(w, local[k], loss[k], q, L));
        }
        fl::ParamVector next = w;
        fl::QfflServerStep(next, {&u[0], &u[1], &u[2]});
        return next;
    }
};

} // namespace

// q = 0: Delta_k = L (w - w_bar_k) = (1, 2), (-1, 0), (5, -5), h_k = L = 10; sum Delta = (5, -3),
// sum h = 30: w' = (1 - 5/30, 2 + 3/30) = (0.8333333333333334, 2.1), the plain average of w_bar.
TEST(Qffl, QZeroByHandIsFedAvg)
{
    const Three t;
    std::vector<fl::QfflClientUpdate> u;
    const fl::ParamVector next = t.Step(0.0, u);
    for (const auto& x : u)
    {
        EXPECT_DOUBLE_EQ(x.h, 10.0);
    }
    EXPECT_NEAR((u[0].delta - Eigen::Vector2d(1.0, 2.0)).cwiseAbs().maxCoeff(), 0.0, 1e-12);
    EXPECT_NEAR((u[2].delta - Eigen::Vector2d(5.0, -5.0)).cwiseAbs().maxCoeff(), 0.0, 1e-12);
    EXPECT_NEAR(next.At(0), 0.8333333333333334, 1e-12);
    EXPECT_NEAR(next.At(1), 2.1, 1e-12);
    // FedAvg's step on the same local models, every client weighted alike (Algorithm 2 samples
    // in proportion to n_k and averages uniformly)
    const fl::ParamVector avg =
        fl::FedAvgAggregate({&t.local[0], &t.local[1], &t.local[2]}, {1.0, 1.0, 1.0});
    EXPECT_NEAR((next.Get<double>() - avg.Get<double>()).cwiseAbs().maxCoeff(), 0.0, 1e-15);
}

// q = 1: Delta_k = F_k L (w - w_bar_k) = (0.5, 1), (-2, 0), (5, -5); h_k = ||L(w - w_bar_k)||^2
// + L F_k = 5 + 5, 1 + 20, 50 + 10 = 10, 21, 60; sum Delta = (3.5, -4), sum h = 91:
// w' = (1 - 3.5/91, 2 + 4/91) = (0.9615384615384616, 2.043956043956044).
TEST(Qffl, QOneByHand)
{
    const Three t;
    std::vector<fl::QfflClientUpdate> u;
    const fl::ParamVector next = t.Step(1.0, u);
    EXPECT_NEAR(u[0].h, 10.0, 1e-12);
    EXPECT_NEAR(u[1].h, 21.0, 1e-12);
    EXPECT_NEAR(u[2].h, 60.0, 1e-12);
    EXPECT_NEAR((u[1].delta - Eigen::Vector2d(-2.0, 0.0)).cwiseAbs().maxCoeff(), 0.0, 1e-12);
    EXPECT_NEAR(next.At(0), 0.9615384615384616, 1e-12);
    EXPECT_NEAR(next.At(1), 2.043956043956044, 1e-12);
}

// q = 5: F^5 = 1/32, 32, 1; Delta = (1/32, 1/16), (-32, 0), (5, -5), sum (-26.96875, -4.9375);
// h_k = 5 F^4 ||.||^2 + 10 F^5 = 5 (1/16) 5 + 10/32, 5 (16) 1 + 320, 5 (1) 50 + 10 = 1.875, 400,
// 260; sum h = 661.875: w' = (1 + 26.96875/661.875, 2 + 4.9375/661.875) =
// (1.040745986779981, 2.007459867799811).
TEST(Qffl, QFiveByHand)
{
    const Three t;
    std::vector<fl::QfflClientUpdate> u;
    const fl::ParamVector next = t.Step(5.0, u);
    EXPECT_NEAR(u[0].h, 1.875, 1e-12);
    EXPECT_NEAR(u[1].h, 400.0, 1e-12);
    EXPECT_NEAR(u[2].h, 260.0, 1e-12);
    EXPECT_NEAR(next.At(0), 1.040745986779981, 1e-12);
    EXPECT_NEAR(next.At(1), 2.007459867799811, 1e-12);
}

// The wire form, the sampling and the refusals.
TEST(Qffl, PackSampleAndErrors)
{
    const Three t;
    fl::QfflClientUpdate u = fl::QfflClientQuantities(t.w, t.local[2], 1.0, 1.0, t.L);
    fl::QfflClientUpdate back;
    ASSERT_TRUE(fl::UnpackQfflUpdate(fl::PackQfflUpdate(u), 2, back));
    EXPECT_EQ(back.h, u.h);
    EXPECT_EQ(back.delta, u.delta);
    EXPECT_FALSE(fl::UnpackQfflUpdate(fl::PackQfflUpdate(u), 3, back)); // wrong size
    std::vector<uint8_t> bad = fl::PackQfflUpdate(u);
    bad[7] = 0x7F;
    bad[6] = 0xF8; // h = NaN
    EXPECT_FALSE(fl::UnpackQfflUpdate(bad, 2, back));
    const std::vector<uint32_t> all{0, 1, 2, 3, 4};
    const std::vector<double> n{10, 20, 30, 40, 50};
    EXPECT_EQ(fl::QfflSampleClients(all, n, 0, 1, 1), all);
    const auto s = fl::QfflSampleClients(all, n, 2, 9, 3);
    ASSERT_EQ(s.size(), 2U);
    EXPECT_LT(s[0], s[1]);
    EXPECT_EQ(fl::QfflSampleClients(all, n, 2, 9, 3), s); // from the seed and the round
    ExpectConfigError([&] { fl::QfflClientQuantities(t.w, t.local[0], 1.0, -1.0, 10.0); }, "q");
    ExpectConfigError([&] { fl::QfflClientQuantities(t.w, t.local[0], 1.0, 1.0, 0.0); }, "L");
    ExpectConfigError([&] { fl::QfflClientQuantities(t.w, t.local[0], -1.0, 1.0, 10.0); }, "loss");
    ExpectConfigError([&] { fl::QfflClientQuantities(t.w, t.local[0], 0.0, 0.5, 10.0); }, "loss");
    fl::ParamVector w = t.w;
    ExpectConfigError([&] { fl::QfflServerStep(w, {}); }, "updates");
    fl::LocalTrainerConfig divided;
    divided.stepRule = fl::StepRule::DividedBySteps;
    ExpectConfigError([&] { fl::QfflLipschitz(divided); }, "stepRule");
    // F_k(w) of a task: the model's loss on the client's whole training set
    auto task = MakeTask<double>(3, "softmax:l2=0.001");
    fl::Rng rng(1);
    const fl::ParamVector w0 = task->InitialParameters(rng);
    EXPECT_DOUBLE_EQ(task->ClientLoss(1, w0),
                     fl::Evaluate(task->GetModel(), w0.Get<double>(), task->ClientData(1)).loss);
}

namespace
{

/// q-FFL over one Wi-Fi cell (4 clients, |S_t| = 3, q as given): the global model of every round.
std::vector<fl::ParamVector>
RunOverWifi(std::shared_ptr<const fl::LearningTask> task,
            double q,
            uint32_t rounds,
            std::vector<uint64_t>& seeds)
{
    std::vector<fl::ParamVector> globals;
    FlWifiScenarioHelper wifi;
    FlScene scene = wifi.Build(static_cast<uint32_t>(task->NumClients()));
    FlFedAvgHelper fedavg(task);
    fedavg.SetServerAttribute("Rounds", UintegerValue(rounds));
    fedavg.SetServerAttribute("InitSeed", UintegerValue(4242));
    fedavg.SetStrategy("ns3::QfflServerStrategy", "ClientsPerRound", UintegerValue(3));
    fedavg.SetClientStrategy("ns3::QfflClientStrategy", "Q", DoubleValue(q));
    FlFedAvgStack stack = fedavg.Install(scene.serverNode, scene.clients, scene.serverAddress);
    seeds.clear();
    for (uint32_t i = 0; i < stack.clientApps.GetN(); ++i)
    {
        seeds.push_back(900 + 13 * i);
        stack.clientApps.Get(i)->SetAttribute("TrainingSeed", UintegerValue(seeds.back()));
    }
    stack.server->TraceConnectWithoutContext(
        "RoundEnd",
        MakeCallback(+[](std::vector<fl::ParamVector>* g, const FlRoundReport& r) {
            g->push_back(*r.globalModel);
        }).Bind(&globals));
    Simulator::Stop(Seconds(1000));
    Simulator::Run();
    EXPECT_EQ(stack.server->GetCompletedRounds(), rounds);
    EXPECT_EQ(stack.server->GetCounters().malformed, 0U);
    Simulator::Destroy();
    return globals;
}

} // namespace

// The strategy pair over the network (raw uploads of h_k and Delta_k, the server's sampling in
// proportion to n_k) gives the in-process run's global models bit for bit, for q = 0 and 5.
TEST(QfflNetwork, EqualsInProcessBitForBit)
{
    for (double q : {0.0, 5.0})
    {
        auto task = MakeTask<double>(4, "softmax:l2=0.001");
        std::vector<uint64_t> seeds;
        const uint32_t rounds = 3;
        const auto net = RunOverWifi(task, q, rounds, seeds);
        ASSERT_EQ(net.size(), rounds + 1) << "q = " << q;
        std::vector<fl::ParamVector> ref;
        fl::QfflReferenceConfig cfg;
        cfg.rounds = rounds;
        cfg.initSeed = 4242;
        cfg.clientSeeds = seeds;
        cfg.q = q;
        cfg.clientsPerRound = 3;
        cfg.onRound = [&ref](uint32_t, const fl::ParamVector& g) { ref.push_back(g); };
        fl::RunQfflReference(*task, cfg);
        ASSERT_EQ(ref.size(), rounds + 1);
        for (uint32_t r = 0; r <= rounds; ++r)
        {
            EXPECT_TRUE(net[r] == ref[r]) << "q = " << q << ", round " << r;
        }
        EXPECT_FALSE(net[rounds] == net[0]);
    }
}

// Uplink noise is refused with q-FFL (no accounting covers the loss in h_k): exit status 2.
TEST(QfflNetwork, RefusesUplinkNoise)
{
    EXPECT_EXIT(
        {
            auto task = MakeTask<double>(2, "softmax:l2=0.001");
            FlWifiScenarioHelper wifi;
            FlScene scene = wifi.Build(2);
            FlFedAvgHelper fedavg(task);
            fedavg.SetServerAttribute("Rounds", UintegerValue(1));
            fedavg.SetStrategy("ns3::QfflServerStrategy");
            fedavg.SetClientStrategy("ns3::QfflClientStrategy");
            fedavg.SetUplinkPerturbation([] {
                return std::make_shared<fl::GaussianPerturbation>(1.0, fl::NoiseScope::PerLink);
            });
            FlFedAvgStack stack =
                fedavg.Install(scene.serverNode, scene.clients, scene.serverAddress);
            Simulator::Stop(Seconds(100));
            Simulator::Run();
        },
        ::testing::ExitedWithCode(2),
        "SetUplinkPerturbation");
}
