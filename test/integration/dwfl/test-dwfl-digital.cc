/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The digital DWFL reference (DwflDigitalApplication over the transport seam): every worker's
 * model after T rounds equals the same rounds computed in process (the task's local step, then
 * eq. (7) without noise), over TCP and over UDP; eta = (N-1)/N leaves every worker with the
 * same model; rounds take simulated time; bad settings stop with a message.
 */
#include "fl-test-task.h"

#include "ns3/core-module.h"
#include "ns3/dwfl-digital-helper.h"
#include "ns3/dwfl.h"
#include "ns3/fl-network-scenarios.h"

#include <gtest/gtest.h>

using namespace ns3;

namespace
{

constexpr uint32_t kWorkers = 4;
constexpr uint32_t kRounds = 3;
constexpr uint64_t kSeed = 7;

/// The rounds in process: x_i^(t) = local step of x_i^(t-1/2), then eq. (7) without noise.
std::vector<Eigen::VectorXd>
InProcess(const fl::LearningTask& task, const fl::ParamVector& x0, double eta)
{
    std::vector<fl::ParamVector> x(kWorkers, x0);
    for (uint32_t t = 0; t < kRounds; ++t)
    {
        std::vector<fl::ParamVector> local;
        for (uint32_t i = 0; i < kWorkers; ++i)
        {
            fl::Rng rng(fl::DeriveSeed(kSeed, t));
            local.push_back(task.TrainClient(i, x[i], rng).params);
        }
        for (uint32_t i = 0; i < kWorkers; ++i)
        {
            Eigen::VectorXd others = Eigen::VectorXd::Zero(x0.Size());
            for (uint32_t k = 0; k < kWorkers; ++k)
            {
                if (k != i)
                {
                    others += local[k].Get<double>();
                }
            }
            const Eigen::VectorXd& xi = local[i].Get<double>();
            // x_i^(t+1/2) = x_i^(t) + eta (sum_{k != i} x_k^(t) / (N-1) - x_i^(t))
            x[i] = fl::ParamVector(Eigen::VectorXd(xi + eta * (others / (kWorkers - 1.0) - xi)));
        }
    }
    std::vector<Eigen::VectorXd> out;
    for (const auto& p : x)
    {
        out.push_back(p.Get<double>());
    }
    return out;
}

struct DigitalRun
{
    std::vector<Eigen::VectorXd> models;
    std::vector<uint32_t> rounds;
    std::vector<double> lastRoundS;
    uint64_t ignored{0};
};

DigitalRun
RunDigital(std::shared_ptr<fl::LearningTask> task,
           const fl::ParamVector& x0,
           double eta,
           const std::string& transport,
           Time slowCompute = Seconds(0))
{
    FlCsmaSceneHelper csma;
    FlScene scene = csma.Build(kWorkers);
    DwflDigitalHelper digital(task);
    digital.SetAttribute("Rounds", UintegerValue(kRounds));
    digital.SetAttribute("Eta", DoubleValue(eta));
    digital.SetAttribute("TrainingSeed", UintegerValue(kSeed));
    digital.SetAttribute("ComputeTime", TimeValue(MilliSeconds(5)));
    digital.SetAttribute("Transport", StringValue(transport));
    ApplicationContainer apps = digital.Install(scene.clients, scene.clientInterfaces, x0);
    if (slowCompute.IsStrictlyPositive())
    {
        apps.Get(0)->SetAttribute("ComputeTime", TimeValue(slowCompute)); // a slow worker 0
    }
    apps.Start(Seconds(0.1));
    DwflDigitalHelper::AssignStreams(apps, 10);
    Simulator::Stop(Seconds(30));
    Simulator::Run();
    DigitalRun r;
    for (uint32_t i = 0; i < kWorkers; ++i)
    {
        auto app = DynamicCast<DwflDigitalApplication>(apps.Get(i));
        r.models.push_back(app->GetModel().Get<double>());
        r.rounds.push_back(app->GetRoundsCompleted());
        r.lastRoundS.push_back(app->GetLastRoundTime().GetSeconds());
        r.ignored += app->GetIgnoredMessages();
    }
    Simulator::Destroy();
    return r;
}

void
ExpectSameAsInProcess(const std::string& transport, double eta, Time slowCompute = Seconds(0))
{
    auto task = fltest::MakeTask<double>(kWorkers, "softmax:l2=0");
    fl::Rng initRng(3);
    const fl::ParamVector x0 = task->InitialParameters(initRng);
    const DigitalRun net = RunDigital(task, x0, eta, transport, slowCompute);
    const std::vector<Eigen::VectorXd> ref = InProcess(*task, x0, eta);
    EXPECT_EQ(net.ignored, 0u);
    for (uint32_t i = 0; i < kWorkers; ++i)
    {
        EXPECT_EQ(net.rounds[i], kRounds) << "worker " << i;
        // Each round costs at least the compute time and the exchange on a 100 Mb/s LAN.
        EXPECT_GT(net.lastRoundS[i], 0.1 + kRounds * 0.005) << "worker " << i;
        ASSERT_EQ(net.models[i].size(), ref[i].size());
        // float64 on the wire: only the order of the sums differs.
        EXPECT_LE((net.models[i] - ref[i]).cwiseAbs().maxCoeff(), 1e-12) << "worker " << i;
        EXPECT_GT((net.models[i] - x0.Get<double>()).norm(), 0.0);
    }
}

} // namespace

TEST(DwflDigital, TcpRunEqualsTheRoundsInProcess)
{
    ExpectSameAsInProcess("tcp", 0.5);
}

TEST(DwflDigital, UdpRunEqualsTheRoundsInProcess)
{
    ExpectSameAsInProcess("udp", 0.5);
}

TEST(DwflDigital, PeerModelsThatArriveBeforeTheOwnSendAreKept)
{
    // Worker 0 computes for 300 ms: its peers' models of round 0 reach its neighbour exchange
    // (FlGraphExchangeNode) before it sends its own, and every later round too; they wait in
    // the exchange's buffer and the run equals the rounds in process.
    ExpectSameAsInProcess("tcp", 0.5, MilliSeconds(300));
}

TEST(DwflDigital, EtaNMinus1OverNAveragesExactly)
{
    // eta = (N-1)/N: Psi = J, every worker ends each round on the average of all local models.
    auto task = fltest::MakeTask<double>(kWorkers, "softmax:l2=0");
    fl::Rng initRng(3);
    const fl::ParamVector x0 = task->InitialParameters(initRng);
    const DigitalRun net = RunDigital(task, x0, (kWorkers - 1.0) / kWorkers, "tcp");
    for (uint32_t i = 1; i < kWorkers; ++i)
    {
        EXPECT_LE((net.models[i] - net.models[0]).cwiseAbs().maxCoeff(), 1e-12);
    }
}

TEST(DwflDigitalDeathTest, BadEtaStopsWithAMessage)
{
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    auto task = fltest::MakeTask<double>(kWorkers, "softmax:l2=0");
    fl::Rng initRng(3);
    const fl::ParamVector x0 = task->InitialParameters(initRng);
    // 2 (N-1)/N = 1.5 for N = 4: eta = 1.5 does not contract.
    EXPECT_DEATH(RunDigital(task, x0, 1.5, "tcp"), "Eta.*fix: use 0 < eta < 2 \\(N-1\\)/N");
}

TEST(DwflDigitalDeathTest, Float32TaskStopsWithAMessage)
{
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    auto task32 = fltest::MakeTask<float>(kWorkers, "softmax:l2=0");
    fl::Rng initRng(3);
    const fl::ParamVector x0 = task32->InitialParameters(initRng);
    EXPECT_DEATH(RunDigital(task32, x0, 0.5, "tcp"), "float32.*build the task in float64");
}
