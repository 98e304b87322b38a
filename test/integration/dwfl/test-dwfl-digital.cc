/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The digital DWFL reference (DwflDigitalApplication over the transport seam): every worker's
 * model after T rounds equals the same rounds computed in process (the task's local step, then
 * eq. (7) without noise), over TCP and over UDP; eta = (N-1)/N leaves every worker with the
 * same model; rounds take simulated time; bad settings stop with a message. The variant on
 * the graph the hellos tell (SetNeighbourSource): the complete graph gives the reference's
 * models, a line its Metropolis combination.
 */
#include "fl-test-adhoc-range.h"
#include "fl-test-task.h"

#include "ns3/core-module.h"
#include "ns3/dwfl-digital-helper.h"
#include "ns3/dwfl.h"
#include "ns3/fl-network-scenarios.h"
#include "ns3/graph.h"
#include "ns3/mobility-module.h"

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
    uint64_t missing{0}; ///< neighbour models missing at a combination (heard-graph variant)
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

// ------------------------------------------ the variant on the graph the hellos tell

namespace
{

/// The heard-graph variant in process on the fixed graph of combination matrix A:
/// x_i^(t) = local step, then x_i^(t+1/2) = sum_l A(l, i) x_l^(t).
std::vector<Eigen::VectorXd>
InProcessOnGraph(const fl::LearningTask& task, const fl::ParamVector& x0, const Eigen::MatrixXd& A)
{
    std::vector<fl::ParamVector> x(kWorkers, x0);
    for (uint32_t t = 0; t < kRounds; ++t)
    {
        std::vector<Eigen::VectorXd> local;
        for (uint32_t i = 0; i < kWorkers; ++i)
        {
            fl::Rng rng(fl::DeriveSeed(kSeed, t));
            local.push_back(task.TrainClient(i, x[i], rng).params.Get<double>());
        }
        for (uint32_t i = 0; i < kWorkers; ++i)
        {
            Eigen::VectorXd sum = Eigen::VectorXd::Zero(x0.Size());
            for (uint32_t l = 0; l < kWorkers; ++l)
            {
                sum += A(l, i) * local[l];
            }
            x[i] = fl::ParamVector(sum);
        }
    }
    std::vector<Eigen::VectorXd> out;
    for (const auto& p : x)
    {
        out.push_back(p.Get<double>());
    }
    return out;
}

/// The heard-graph variant over ad hoc Wi-Fi with a 40 m range, workers at `where`, hellos
/// every 0.5 s (timeout 1.5 s), workers from 1.6 s.
DigitalRun
RunHeard(std::shared_ptr<fl::LearningTask> task,
         const fl::ParamVector& x0,
         const std::vector<Vector>& where)
{
    NodeContainer nodes;
    nodes.Create(kWorkers);
    for (uint32_t i = 0; i < kWorkers; ++i)
    {
        Ptr<ConstantPositionMobilityModel> m = CreateObject<ConstantPositionMobilityModel>();
        m->SetPosition(where[i]);
        nodes.Get(i)->AggregateObject(m);
    }
    Ipv4InterfaceContainer ifs = fltest::InstallRangeAdhoc(nodes, 40.0, "10.9.0.0");
    DwflDigitalHelper digital(task);
    digital.SetAttribute("Rounds", UintegerValue(kRounds));
    digital.SetAttribute("TrainingSeed", UintegerValue(kSeed));
    digital.SetAttribute("ComputeTime", TimeValue(MilliSeconds(5)));
    digital.SetAttribute("ExchangeTimeout", TimeValue(Seconds(1)));
    digital.SetNeighbourDiscovery(MilliSeconds(500), MilliSeconds(1500));
    ApplicationContainer apps = digital.Install(nodes, ifs, x0);
    apps.Start(Seconds(1.6));
    DwflDigitalHelper::AssignStreams(apps, 10);
    Simulator::Stop(Seconds(30));
    Simulator::Run();
    DigitalRun r;
    for (uint32_t i = 0; i < kWorkers; ++i)
    {
        auto app = DynamicCast<DwflDigitalApplication>(apps.Get(i));
        r.models.push_back(app->GetModel().Get<double>());
        r.rounds.push_back(app->GetRoundsCompleted());
        r.ignored += app->GetIgnoredMessages();
        r.missing += app->GetExchangeStats()->missing;
    }
    Simulator::Destroy();
    return r;
}

} // namespace

// Four workers within range of each other: the hellos tell the complete graph, whose
// Metropolis weights are 1/4, and the heard-graph variant is eq. (7) with eta = (N-1)/N: the
// reference's models to rounding. On the line 0 - 1 - 2 - 3 (30 m apart) it is the Metropolis
// combination of the line, computed in process.
TEST(DwflDigital, HeardGraphVariantIsTheMetropolisCombinationOfWhatTheHellosTell)
{
    auto task = fltest::MakeTask<double>(kWorkers, "softmax:l2=0");
    fl::Rng initRng(3);
    const fl::ParamVector x0 = task->InitialParameters(initRng);
    {
        const DigitalRun net =
            RunHeard(task, x0, {Vector(0, 0, 0), Vector(20, 0, 0), Vector(0, 20, 0), Vector(20, 20, 0)});
        const std::vector<Eigen::VectorXd> ref = InProcess(*task, x0, 0.75);
        EXPECT_EQ(net.missing, 0u);
        for (uint32_t i = 0; i < kWorkers; ++i)
        {
            EXPECT_EQ(net.rounds[i], kRounds) << "worker " << i;
            EXPECT_LE((net.models[i] - ref[i]).cwiseAbs().maxCoeff(), 1e-12) << "worker " << i;
        }
    }
    {
        const DigitalRun net =
            RunHeard(task, x0, {Vector(0, 0, 0), Vector(30, 0, 0), Vector(60, 0, 0), Vector(90, 0, 0)});
        std::vector<fl::Edge> edges{{0, 1}, {1, 2}, {2, 3}};
        const Eigen::MatrixXd A = fl::MetropolisWeights(fl::Graph(kWorkers, edges));
        const std::vector<Eigen::VectorXd> ref = InProcessOnGraph(*task, x0, A);
        const std::vector<Eigen::VectorXd> complete = InProcess(*task, x0, 0.75);
        EXPECT_EQ(net.missing, 0u);
        for (uint32_t i = 0; i < kWorkers; ++i)
        {
            EXPECT_EQ(net.rounds[i], kRounds) << "worker " << i;
            EXPECT_LE((net.models[i] - ref[i]).cwiseAbs().maxCoeff(), 1e-12) << "worker " << i;
            // and not the complete graph's
            EXPECT_GT((net.models[i] - complete[i]).cwiseAbs().maxCoeff(), 1e-6) << "worker " << i;
        }
    }
}
