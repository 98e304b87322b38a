/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Tests of the generic learning tracker fed by the ModelReport trace: rounds aggregated once,
 * every role's models, the bytes-sent rows, the monitor's round view and the wide view.
 */#include "fl-test-task.h"

#include "ns3/core-module.h"
#include "ns3/fedavg-reference.h"
#include "ns3/fl-helper.h"
#include "ns3/fl-learning-tracker.h"
#include "ns3/fl-network-scenarios.h"
#include "ns3/fl-ns3-compat.h"
#include "ns3/fl-transport.h"
#include "ns3/inet-socket-address.h"
#include "ns3/perturbation.h"

#include <atomic>
#include <fstream>
#include <gtest/gtest.h>
#include <memory>
#include <sstream>
#include <tuple>

using namespace ns3;

// Two nodes out of step: node 1 reports round 1 before node 2 reports round 0. Round 0 is
// aggregated at node 1's round-1 report; node 2's late round-0 report must not write round 0 a
// second time (it is dropped and counted), and round 1 then holds both nodes' reports.
TEST(LearningTracker, AReportOfAnAggregatedRoundIsDroppedNotWrittenTwice)
{
    Ptr<FlLearningTracker> tracker = CreateObject<FlLearningTracker>();
    tracker->SetReferenceOptimum(Eigen::VectorXd::Zero(2));
    fl::ParamVector a(Eigen::VectorXd(Eigen::VectorXd::Constant(2, 1.0)));
    fl::ParamVector b(Eigen::VectorXd(Eigen::VectorXd::Constant(2, 3.0)));
    auto report = [](uint32_t round, uint32_t node, const fl::ParamVector& m) {
        FlModelReport r;
        r.round = round;
        r.node = node;
        r.role = FlNodeRole::Peer;
        r.model = &m;
        return r;
    };
    tracker->Record(report(0, 1, a), 0.1);
    tracker->Record(report(1, 1, a), 0.2); // round 0 aggregated now, with node 1 only
    tracker->Record(report(0, 2, b), 0.3); // late
    tracker->Record(report(1, 2, b), 0.4);
    tracker->Flush();
    EXPECT_EQ(tracker->GetLateReports(), 1u);
    std::map<uint32_t, std::vector<double>> nodes; // round -> values of network|nodes
    for (const auto& r : tracker->GetRows())
    {
        if (r.node == "network" && r.metric == "nodes")
        {
            nodes[r.round].push_back(r.value);
        }
    }
    ASSERT_EQ(nodes.size(), 2u);
    EXPECT_EQ(nodes[0], std::vector<double>{1.0}); // one row, node 1's report
    EXPECT_EQ(nodes[1], std::vector<double>{2.0});
    // Round 1's disagreement: centroid (2, 2), (1/2) * (2 + 2) = 2.
    double disagreement = -1.0;
    for (const auto& r : tracker->GetRows())
    {
        if (r.round == 1 && r.node == "network" && r.metric == "disagreement")
        {
            disagreement = r.value;
        }
    }
    EXPECT_NEAR(disagreement, 2.0, 1e-12);
}

TEST(LearningTracker, AggregatesTheReportedModelsOfEveryRole)
{
    const uint32_t n = 3;
    auto task = fltest::MakeTask<double>(n, "softmax");
    FlCsmaSceneHelper csma;
    FlScene scene = csma.Build(n);
    FlFedAvgHelper fedavg(task);
    fedavg.SetServerAttribute("Rounds", UintegerValue(2));
    FlFedAvgStack stack = fedavg.Install(scene.serverNode, scene.clients, scene.serverAddress);
    Ptr<FlLearningTracker> tracker = CreateObject<FlLearningTracker>();
    tracker->SetTask(task);
    // A reference point (the origin) makes the MSD metrics appear.
    tracker->SetReferenceOptimum(
        Eigen::VectorXd::Zero(static_cast<Eigen::Index>(task->NumParameters())));
    auto accountant = std::make_shared<fl::PrivacyAccountant>();
    tracker->SetAccountant(accountant, 1e-5, fl::Composition::Zcdp);
    tracker->InstallAll();
    // Feed the accountant one Gaussian step per round, at every round start.
    stack.server->TraceConnectWithoutContext(
        "RoundStart",
        MakeCallback(+[](fl::PrivacyAccountant* acc, uint32_t, const std::vector<uint32_t>&) {
            acc->AddGaussian(1.0, 4.0);
        }).Bind(accountant.get()));
    Simulator::Stop(Seconds(60));
    Simulator::Run();
    tracker->Flush();
    const auto& monitorRows = stack.monitor->GetRecords();
    ASSERT_EQ(monitorRows.size(), 3u);
    const std::string server = std::to_string(scene.serverNode->GetId());
    std::map<std::pair<uint32_t, std::string>, double> m; // (round, node|metric|role) -> value
    for (const auto& r : tracker->GetRows())
    {
        m[{r.round, r.node + "|" + r.metric + "|" + r.role}] = r.value;
    }
    for (uint32_t round = 0; round <= 2; ++round)
    {
        // The server's model is the global model the FedAvg monitor evaluates.
        EXPECT_DOUBLE_EQ(m.at({round, server + "|test_accuracy|server"}),
                         monitorRows[round].testAccuracy);
        EXPECT_DOUBLE_EQ(m.at({round, "centroid|test_loss|server"}), monitorRows[round].testLoss);
        EXPECT_EQ(m.at({round, "network|disagreement|server"}), 0.0);
        // ||w - 0||^2 in dB
        const double norm2 = stack.server->GetGlobalModel().Get<double>().squaredNorm();
        if (round == 2)
        {
            EXPECT_NEAR(m.at({round, server + "|msd_db|server"}), 10 * std::log10(norm2), 1e-9);
        }
    }
    for (uint32_t round = 1; round <= 2; ++round)
    {
        EXPECT_EQ(m.at({round, "network|nodes|client"}), n);
        EXPECT_GT(m.at({round, "network|disagreement|client"}), 0.0); // clients drift apart
        // zCDP of `round` Gaussian steps of sensitivity 1, sigma 4: rho = round / 32
        const double rho = round / 32.0;
        EXPECT_NEAR(m.at({round, "network|epsilon|server"}),
                    rho + 2 * std::sqrt(rho * std::log(1e5)),
                    1e-12);
    }
    Simulator::Destroy();
}

namespace
{
/// A small FedAvg run (server and 3 clients over CSMA, 2 rounds) watched by one tracker that
/// also writes the wide view; every application's own transport counters are read, by a
/// second sink of the ModelReport trace, at the moment it reports.
struct TrackedFedAvgRun
{
    Ptr<FlLearningTracker> tracker;
    std::map<std::pair<uint32_t, uint32_t>, uint64_t> sentAtReport; ///< (round, node) -> bytes
    std::map<uint32_t, uint64_t> sentAfterRun;                      ///< node -> bytes
    std::map<uint32_t, std::string> roleOf;                         ///< node -> role name
    std::string wideFile;
};

struct CounterProbe
{
    TrackedFedAvgRun* run;
    Ptr<FlApplicationBase> app;
};

void
ProbeCounters(CounterProbe* probe, const FlModelReport& report)
{
    Ptr<FlTransport> t = probe->app->GetTransport();
    if (t) // a server's round-0 report comes before its transport opens
    {
        probe->run->sentAtReport[{report.round, report.node}] = t->Stats().bytesSent;
    }
    probe->run->roleOf[report.node] = FlNodeRoleName(report.role);
}

void
RunTrackedFedAvg(TrackedFedAvgRun& run, bool withReference, const std::string& wideName)
{
    const uint32_t n = 3;
    auto task = fltest::MakeTask<double>(n, "softmax");
    FlCsmaSceneHelper csma;
    FlScene scene = csma.Build(n);
    FlFedAvgHelper fedavg(task);
    fedavg.SetServerAttribute("Rounds", UintegerValue(2));
    FlFedAvgStack stack = fedavg.Install(scene.serverNode, scene.clients, scene.serverAddress);
    run.tracker = CreateObject<FlLearningTracker>();
    run.tracker->SetTask(task);
    if (withReference)
    {
        run.tracker->SetReferenceOptimum(
            Eigen::VectorXd::Zero(static_cast<Eigen::Index>(task->NumParameters())));
    }
    run.wideFile = ::testing::TempDir() + wideName;
    run.tracker->SetWideOutput(run.wideFile);
    run.tracker->InstallAll();
    std::vector<Ptr<FlApplicationBase>> apps{stack.server};
    for (auto it = stack.clientApps.Begin(); it != stack.clientApps.End(); ++it)
    {
        apps.push_back(DynamicCast<FlApplicationBase>(*it));
    }
    std::vector<std::unique_ptr<CounterProbe>> probes;
    for (const auto& app : apps)
    {
        probes.push_back(std::make_unique<CounterProbe>(CounterProbe{&run, app}));
        app->TraceConnectWithoutContext("ModelReport",
                                        MakeBoundCallback(&ProbeCounters, probes.back().get()));
    }
    Simulator::Stop(Seconds(60));
    Simulator::Run();
    run.tracker->Flush();
    for (const auto& app : apps)
    {
        ASSERT_TRUE(app->GetTransport());
        run.sentAfterRun[app->GetNodeLevelId()] = app->GetTransport()->Stats().bytesSent;
    }
    Simulator::Destroy();
}
} // namespace

// Every node's bytes_sent row is its application's own transport counter at its report (the
// last round's: at the end of the run, next test), and the network row of a role is the sum
// over the role's nodes that reported the round.
TEST(LearningTracker, BytesSentRowsAreTheTransportCountersAndTheirSum)
{
    TrackedFedAvgRun run;
    RunTrackedFedAvg(run, false, "fl-tracker-bytes-wide.csv");
    std::map<std::pair<uint32_t, uint32_t>, double> perNode;         // (round, node)
    std::map<std::pair<uint32_t, std::string>, double> networkTotal; // (round, role)
    for (const auto& r : run.tracker->GetRows())
    {
        if (r.metric != "bytes_sent")
        {
            continue;
        }
        if (r.node == "network")
        {
            EXPECT_EQ(networkTotal.count({r.round, r.role}), 0u) << "two totals";
            networkTotal[{r.round, r.role}] = r.value;
        }
        else
        {
            const auto node = static_cast<uint32_t>(std::stoul(r.node));
            EXPECT_EQ(r.role, run.roleOf.at(node));
            perNode[{r.round, node}] = r.value;
        }
    }
    // one row per report made with a transport: the server's rounds 1, 2, the clients' 1, 2
    ASSERT_EQ(perNode.size(), run.sentAtReport.size());
    EXPECT_EQ(perNode.size(), 2u + 3u * 2u);
    std::map<std::pair<uint32_t, std::string>, double> sums;
    for (const auto& kv : run.sentAtReport)
    {
        const bool last = kv.first.first == 2; // the end of the run's counters
        const uint64_t counter = last ? run.sentAfterRun.at(kv.first.second) : kv.second;
        EXPECT_EQ(perNode.at(kv.first), static_cast<double>(counter));
        EXPECT_GT(kv.second, 0u); // every node had sent something by round 1
        EXPECT_LE(kv.second, run.sentAfterRun.at(kv.first.second));
        sums[{kv.first.first, run.roleOf.at(kv.first.second)}] += static_cast<double>(counter);
    }
    EXPECT_EQ(networkTotal, sums);
    // cumulative: round 2 of a node is at least its round 1
    for (const auto& kv : run.sentAtReport)
    {
        if (kv.first.first == 2)
        {
            EXPECT_GE(kv.second, run.sentAtReport.at({1, kv.first.second}));
        }
    }
    EXPECT_GT(networkTotal.at({2, "server"}), networkTotal.at({1, "server"}));
    // the server's round-0 report precedes its transport: no bytes row, no server total
    EXPECT_EQ(networkTotal.count({0, "server"}), 0u);
}

// The end of the run: the last round's bytes_sent of every node is what its transport had sent
// when Simulator::Run returned, Stop messages after the last report included, and the role's
// network row of the last round their sum; no second row of the same (round, node, metric).
TEST(LearningTracker, LastRoundBytesSentAreTheCountersAfterTheRun)
{
    TrackedFedAvgRun run;
    RunTrackedFedAvg(run, false, "fl-tracker-final-bytes-wide.csv");
    std::map<std::string, double> roleSums;
    uint32_t lastRound = 0;
    for (const auto& kv : run.sentAtReport)
    {
        lastRound = std::max(lastRound, kv.first.first);
    }
    ASSERT_EQ(lastRound, 2u);
    for (const auto& kv : run.sentAfterRun)
    {
        const std::string node = std::to_string(kv.first);
        EXPECT_EQ(run.tracker->GetLast(node, "bytes_sent"), static_cast<double>(kv.second))
            << "node " << node;
        roleSums[run.roleOf.at(kv.first)] += static_cast<double>(kv.second);
    }
    std::map<std::tuple<uint32_t, std::string, std::string>, int> seen;
    std::map<std::string, double> lastNetwork;
    for (const auto& r : run.tracker->GetRows())
    {
        if (r.metric == "bytes_sent")
        {
            EXPECT_EQ(++seen[std::make_tuple(r.round, r.node, r.role)], 1)
                << r.round << " " << r.node;
            if (r.node == "network" && r.round == lastRound)
            {
                lastNetwork[r.role] = r.value;
            }
        }
    }
    EXPECT_EQ(lastNetwork, roleSums);
    // the server's Stop messages went out after its last report: the fix is measurable
    uint32_t server = 0;
    for (const auto& kv : run.roleOf)
    {
        server = kv.second == "server" ? kv.first : server;
    }
    ASSERT_EQ(run.roleOf.at(server), "server");
    EXPECT_GT(run.sentAfterRun.at(server), run.sentAtReport.at({lastRound, server}));
    // the wide view's last server row carries the same total
    const auto& wide = run.tracker->GetWideRows();
    for (const auto& w : wide)
    {
        if (w.round == lastRound)
        {
            EXPECT_EQ(w.bytesSent, roleSums.at(w.role)) << w.role;
        }
    }
}

namespace
{
/// A learning task that counts the evaluations made of its models (and forwards everything).
class CountingTask : public fl::LearningTask
{
  public:
    explicit CountingTask(std::shared_ptr<const fl::LearningTask> inner)
        : m_inner(std::move(inner))
    {
    }

    fl::Precision GetPrecision() const override
    {
        return m_inner->GetPrecision();
    }

    std::size_t NumParameters() const override
    {
        return m_inner->NumParameters();
    }

    std::size_t NumClients() const override
    {
        return m_inner->NumClients();
    }

    std::size_t ClientSamples(std::size_t client) const override
    {
        return m_inner->ClientSamples(client);
    }

    fl::ParamVector InitialParameters(fl::Rng& rng) const override
    {
        return m_inner->InitialParameters(rng);
    }

    const fl::LocalTrainerConfig& GetTrainerConfig() const override
    {
        return m_inner->GetTrainerConfig();
    }

    fl::TrainOutcome TrainClient(std::size_t client,
                                 const fl::ParamVector& start,
                                 fl::Rng& rng) const override
    {
        return m_inner->TrainClient(client, start, rng);
    }

    void TrainClientInto(std::size_t client,
                         const fl::ParamVector& start,
                         fl::Rng& rng,
                         fl::TrainOutcome& out) const override
    {
        m_inner->TrainClientInto(client, start, rng, out);
    }

    bool PlanClient(std::size_t client, fl::TrainingPlan& plan) const override
    {
        return m_inner->PlanClient(client, plan);
    }

    fl::Evaluation Evaluate(const fl::ParamVector& w) const override
    {
        ++evaluations;
        return m_inner->Evaluate(w);
    }

    fl::Evaluation EvaluateTraining(const fl::ParamVector& w) const override
    {
        ++trainingEvaluations;
        return m_inner->EvaluateTraining(w);
    }

    std::string Describe() const override
    {
        return m_inner->Describe();
    }

    mutable std::atomic<uint64_t> evaluations{0};         ///< Evaluate calls
    mutable std::atomic<uint64_t> trainingEvaluations{0}; ///< EvaluateTraining calls

  private:
    std::shared_ptr<const fl::LearningTask> m_inner;
};
} // namespace

// LearningMonitor is the round view of its tracker: its rows are the tracker's, and when the
// same tracker also takes the applications' ModelReport, each global model is evaluated once
// (the server's long rows and its centroid take the round view's evaluation).
TEST(LearningTracker, MonitorRowsAreTheTrackersRoundViewWithOneEvaluationPerGlobalModel)
{
    const uint32_t n = 3;
    const uint32_t rounds = 2;
    auto task = std::make_shared<CountingTask>(fltest::MakeTask<double>(n, "softmax"));
    FlCsmaSceneHelper csma;
    FlScene scene = csma.Build(n);
    FlFedAvgHelper fedavg(task);
    fedavg.SetServerAttribute("Rounds", UintegerValue(rounds));
    const std::string file = ::testing::TempDir() + "fl-monitor-round-view.csv";
    fedavg.SetMonitorAttribute("OutputFile", StringValue(file));
    FlFedAvgStack stack = fedavg.Install(scene.serverNode, scene.clients, scene.serverAddress);
    Ptr<FlLearningTracker> tracker = stack.monitor->GetTracker();
    ASSERT_TRUE(tracker);
    tracker->SetTask(task);
    tracker->Install(stack.serverApps);
    tracker->Install(stack.clientApps);
    Simulator::Stop(Seconds(60));
    Simulator::Run();
    tracker->Flush();
    const auto& records = stack.monitor->GetRecords();
    EXPECT_EQ(&records, &tracker->GetRoundRecords());
    ASSERT_EQ(records.size(), rounds + 1u);
    const std::string server = std::to_string(stack.server->GetNodeLevelId());
    std::map<uint32_t, double> serverLoss, centroidLoss;
    for (const auto& r : tracker->GetRows())
    {
        if (r.role == "server" && r.metric == "test_loss")
        {
            (r.node == server ? serverLoss : centroidLoss)[r.round] = r.value;
        }
    }
    ASSERT_EQ(serverLoss.size(), rounds + 1u);
    for (const auto& rec : records)
    {
        EXPECT_EQ(serverLoss.at(rec.round), rec.testLoss) << rec.round;
        EXPECT_EQ(centroidLoss.at(rec.round), rec.testLoss) << rec.round;
    }
    // one evaluation per global model (rounds 0..2), the 3 clients' models of rounds 1 and 2
    // and their centroids; the training loss only for the global models
    EXPECT_EQ(task->evaluations.load(), (rounds + 1u) + n * rounds + rounds);
    EXPECT_EQ(task->trainingEvaluations.load(), rounds + 1u);
    Simulator::Destroy();
    // the file: the header and one CsvRow per record
    std::ifstream in(file);
    std::string line;
    ASSERT_TRUE(std::getline(in, line));
    EXPECT_EQ(line, LearningMonitor::CsvHeader());
    for (const auto& rec : records)
    {
        ASSERT_TRUE(std::getline(in, line));
        EXPECT_EQ(line, LearningMonitor::CsvRow(rec));
    }
}

// The wide view holds, row by row, the values of the long rows of the same run.
TEST(LearningTracker, WideViewEqualsTheLongRowsOfTheSameRun)
{
    TrackedFedAvgRun run;
    RunTrackedFedAvg(run, true, "fl-tracker-wide.csv");
    const double nan = std::numeric_limits<double>::quiet_NaN();
    // (round, node|metric, role) -> value of the aggregate rows
    std::map<std::tuple<uint32_t, std::string, std::string>, double> aggregate;
    std::map<std::pair<uint32_t, std::string>, std::vector<double>> nodeLoss, nodeAcc;
    std::map<uint32_t, double> times;
    for (const auto& r : run.tracker->GetRows())
    {
        times[r.round] = r.timeS;
        if (r.node == "network" || r.node == "centroid")
        {
            aggregate[{r.round, r.node + "|" + r.metric, r.role}] = r.value;
        }
        else if (r.metric == "test_loss")
        {
            nodeLoss[{r.round, r.role}].push_back(r.value);
        }
        else if (r.metric == "test_accuracy")
        {
            nodeAcc[{r.round, r.role}].push_back(r.value);
        }
    }
    auto long_ = [&](uint32_t round, const std::string& what, const std::string& role) {
        auto it = aggregate.find({round, what, role});
        return it == aggregate.end() ? nan : it->second;
    };
    auto mean = [](const std::vector<double>& v) {
        double s = 0.0;
        for (double x : v)
        {
            s += x;
        }
        return s / static_cast<double>(v.size());
    };
    auto same = [](double a, double b) { return (std::isnan(a) && std::isnan(b)) || a == b; };
    const auto& wide = run.tracker->GetWideRows();
    // rounds 0..2 of the server, 1..2 of the clients
    ASSERT_EQ(wide.size(), 5u);
    for (const auto& w : wide)
    {
        SCOPED_TRACE(std::to_string(w.round) + " " + w.role);
        EXPECT_EQ(w.timeS, times.at(w.round));
        EXPECT_EQ(w.nodes, long_(w.round, "network|nodes", w.role));
        EXPECT_EQ(w.nodes, w.role == "server" ? 1.0 : 3.0);
        EXPECT_EQ(w.centroidTestLoss, long_(w.round, "centroid|test_loss", w.role));
        EXPECT_EQ(w.centroidTestAccuracy, long_(w.round, "centroid|test_accuracy", w.role));
        EXPECT_EQ(w.disagreement, long_(w.round, "network|disagreement", w.role));
        EXPECT_EQ(w.centroidMsdDb, long_(w.round, "centroid|msd_db", w.role));
        EXPECT_EQ(w.avgMsdDb, long_(w.round, "network|avg_msd_db", w.role));
        EXPECT_TRUE(same(w.bytesSent, long_(w.round, "network|bytes_sent", w.role)));
        EXPECT_EQ(w.meanNodeTestLoss, mean(nodeLoss.at({w.round, w.role})));
        EXPECT_EQ(w.meanNodeTestAccuracy, mean(nodeAcc.at({w.round, w.role})));
        EXPECT_TRUE(std::isnan(w.epsilon)); // no accountant in this run
        EXPECT_FALSE(std::isnan(w.centroidMsdDb));
    }
    EXPECT_TRUE(std::isnan(wide.front().bytesSent)); // the server's round 0: nothing counted
    EXPECT_FALSE(std::isnan(wide.back().bytesSent));
    // the file: the header, then the same values, with empty fields for NaN
    std::ifstream in(run.wideFile);
    std::string line;
    ASSERT_TRUE(std::getline(in, line));
    EXPECT_EQ(line, FlLearningTracker::WideCsvHeader());
    for (const auto& w : wide)
    {
        ASSERT_TRUE(std::getline(in, line));
        std::vector<std::string> f;
        std::stringstream ss(line);
        std::string cell;
        while (std::getline(ss, cell, ','))
        {
            f.push_back(cell);
        }
        if (!line.empty() && line.back() == ',')
        {
            f.emplace_back();
        }
        ASSERT_EQ(f.size(), 13u) << line;
        EXPECT_EQ(std::stoul(f[0]), w.round);
        EXPECT_EQ(f[2], w.role);
        const double values[] = {w.timeS,
                                 nan,
                                 w.nodes,
                                 w.centroidTestLoss,
                                 w.centroidTestAccuracy,
                                 w.meanNodeTestLoss,
                                 w.meanNodeTestAccuracy,
                                 w.disagreement,
                                 w.centroidMsdDb,
                                 w.avgMsdDb,
                                 w.epsilon,
                                 w.bytesSent};
        for (std::size_t k = 1; k < 13; ++k)
        {
            if (k == 2)
            {
                continue;
            }
            const double v = values[k - 1];
            if (std::isnan(v))
            {
                EXPECT_TRUE(f[k].empty()) << "column " << k << ": " << f[k];
            }
            else if (std::isinf(v)) // MSD of the zero initial model against w = 0
            {
                EXPECT_EQ(std::stod(f[k]), v) << "column " << k;
            }
            else
            {
                EXPECT_NEAR(std::stod(f[k]), v, 1e-9 * std::max(1.0, std::abs(v)))
                    << "column " << k;
            }
        }
    }
    EXPECT_FALSE(std::getline(in, line));
}
