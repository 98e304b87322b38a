/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * FedBuff (Nguyen et al., "Federated Learning with Buffered Asynchronous Aggregation", AISTATS
 * 2022) with one secure aggregation per buffer (Bonawitz et al., "Practical Secure Aggregation
 * for Privacy-Preserving Machine Learning", ACM CCS 2017) over a CSMA LAN, every protocol
 * message a real packet. Each buffer is a cohort of K clients sent the same model together:
 *  - the server's model sequence equals, bit for bit, an in-process computation that trains
 *    each cohort's clients on the version they were sent, sums their fixed-point encodings
 *    without any mask (fl::SecAggPlainSum) and applies FedBuff's step to that sum with the
 *    cohort's staleness;
 *  - what the server holds of each client is masked: its upload is a key advertisement and its
 *    masked input differs from its encoded update in every coordinate; only the sum is known;
 *  - a client dropping out of a cohort above the threshold is recovered (the buffer is the
 *    survivors' sum), below the threshold the buffer is dropped and counted;
 *  - FedAsync, a buffer of one, too few busy clients and StragglerPolicy accept are refused
 *    with the attribute and the fix (by the helper, or with exit status 2 at run time).
 */
#include "fl-test-config-error.h"
#include "fl-test-task.h"

#include "ns3/async-fl.h"
#include "ns3/core-module.h"
#include "ns3/fl-async-strategies.h"
#include "ns3/fl-helper.h"
#include "ns3/fl-network-scenarios.h"
#include "ns3/fl-ns3-compat.h"
#include "ns3/secagg-helper.h"
#include "ns3/secagg-wire.h"
#include "ns3/secagg-protocol.h"
#include "ns3/secagg-primitives.h"

#include <gtest/gtest.h>
#include <map>

using namespace ns3;
using fltest::ExpectConfigError;
using fltest::MakeTask;

namespace
{

/**
 * The server's half of secure aggregation, recorded from the server's seat: it forwards
 * everything to the real SecAggServerStep and keeps what the server holds of each client
 * (uploads, masked inputs), each cohort's members and the version it was sent, and the results
 * in the order they completed.
 */
class ServerView : public FlUplinkServerStep
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("ns3::test::SecBuffServerView")
                                .SetParent<FlUplinkServerStep>()
                                .SetGroupName("Fl");
        return tid;
    }

    explicit ServerView(Ptr<SecAggServerStep> inner)
        : m_inner(inner)
    {
    }

    void SetPort(Port port) override
    {
        m_inner->SetPort(port);
    }

    void RoundStarting(uint32_t round,
                       const std::vector<uint32_t>& selected,
                       std::size_t dim) override
    {
        members[round] = selected;
        version[round] = okSoFar + 1; // versions: 1 = the initial model, one more per sum
        m_dim = dim;
        m_inner->RoundStarting(round, selected, dim);
    }

    void Aggregate(uint32_t round,
                   const std::vector<uint32_t>& clients,
                   const std::vector<const std::vector<uint8_t>*>& uploads,
                   Done done) override
    {
        for (std::size_t i = 0; i < clients.size(); ++i)
        {
            fl::SecAggMessageType type;
            uint64_t instance = 0;
            const bool keys = fl::PeekSecAggHeader(*uploads[i], type, instance) &&
                              type == fl::SecAggMessageType::AdvertiseKeys;
            uploadsAreKeys = uploadsAreKeys && keys;
            uploadBytes = std::max<std::size_t>(uploadBytes, uploads[i]->size());
        }
        m_inner->Aggregate(round, clients, uploads, [this, round, done](const Result& r) {
            results.emplace_back(round, r);
            okSoFar += r.ok ? 1 : 0; // before `done`: it commits and sends the next cohorts
            done(r);
        });
    }

    bool Receive(uint32_t client,
                 uint32_t round,
                 uint32_t tag,
                 const std::vector<uint8_t>& bytes) override
    {
        fl::SecAggMessageType type;
        uint64_t instance = 0;
        fl::SecAggMaskedInput y;
        if (fl::PeekSecAggHeader(bytes, type, instance) &&
            type == fl::SecAggMessageType::MaskedInput &&
            fl::ParseSecAggMaskedInput(bytes, m_dim + 1, instance, y))
        {
            masked[round][client] = y.words;
        }
        return m_inner->Receive(client, round, tag, bytes);
    }

    void Forget(uint32_t round) override
    {
        m_inner->Forget(round);
    }

    void Stop() override
    {
        m_inner->Stop();
    }

    std::map<uint32_t, std::vector<uint32_t>> members; ///< cohort -> its clients
    std::map<uint32_t, uint32_t> version;              ///< cohort -> version it was sent
    std::map<uint32_t, std::map<uint32_t, std::vector<uint64_t>>> masked; ///< y_u per cohort
    std::vector<std::pair<uint32_t, Result>> results; ///< (cohort, result), completion order
    uint32_t okSoFar{0};
    bool uploadsAreKeys{true};
    std::size_t uploadBytes{0}; ///< the largest upload

  private:
    Ptr<SecAggServerStep> m_inner;
    std::size_t m_dim{0};
};

struct VersionRecord
{
    uint32_t round{0};
    std::vector<FlUpdateInfo> updates;
    fl::ParamVector model;
};

/// Settings of one run.
struct Spec
{
    uint32_t clients{6};
    uint32_t k{3};
    uint32_t versions{6};
    uint32_t busy{0}; ///< ClientsPerRound (0: all)
    double eta{0.8};  ///< ServerLearningRate
    Time deadline{Seconds(0)}; ///< RoundDeadline: closes a cohort's uploads
    /// client -> (phase, cohorts) it drops out of (SecAggClientStep DropBeforePhase/DropRounds)
    std::map<uint32_t, std::pair<std::string, std::string>> drops;
};

struct SecBuffRun
{
    std::vector<VersionRecord> versions; ///< round 0 (the initial model) first
    std::vector<FlRoundReport> aborted;  ///< RoundEnd reports of aborted cohorts (model cleared)
    std::vector<fl::ParamVector> abortedModels; ///< the global model at each of them
    std::vector<FlRoundRecord> rows;            ///< the monitor's rows
    std::vector<uint64_t> seeds;
    std::map<uint32_t, std::vector<uint32_t>> members;
    std::map<uint32_t, uint32_t> version;
    std::map<uint32_t, std::map<uint32_t, std::vector<uint64_t>>> masked;
    std::vector<std::pair<uint32_t, FlUplinkServerStep::Result>> results;
    bool uploadsAreKeys{false};
    std::size_t uploadBytes{0};
    FlServerApplication::Counters app;
    SecAggServerStep::Counters step;
    uint32_t completed{0};
    bool finished{false};
};

SecBuffRun
RunSecBuff(std::shared_ptr<const fl::LearningTask> task, const Spec& spec)
{
    FlCsmaSceneHelper csma;
    FlScene scene = csma.Build(spec.clients);
    FlSecAggHelper secagg;
    secagg.SetAttribute("Threshold", UintegerValue(2));
    secagg.SetAttribute("FractionBits", UintegerValue(32));
    secagg.SetServerAttribute("Timeout", TimeValue(Seconds(1)));
    secagg.AssignStreams(11);
    FlFedAvgHelper fedavg(task);
    fedavg.SetServerAttribute("Rounds", UintegerValue(spec.versions));
    fedavg.SetServerAttribute("InitSeed", UintegerValue(4242));
    fedavg.SetServerAttribute("ClientsPerRound", UintegerValue(spec.busy));
    fedavg.SetServerAttribute("RoundDeadline", TimeValue(spec.deadline));
    fedavg.SetStrategy("ns3::FedBuffStrategy", "BufferSize", UintegerValue(spec.k));
    fedavg.SetStrategyAttribute("ServerLearningRate", DoubleValue(spec.eta));
    fedavg.SetSecureAggregation(secagg);
    FlFedAvgStack stack = fedavg.Install(scene.serverNode, scene.clients, scene.serverAddress);
    FlFedAvgHelper::AssignStreams(stack, 100); // the cohorts' draws: the same in every run
    Ptr<ServerView> view = CreateObject<ServerView>(stack.secAgg.server);
    stack.server->SetUplinkStep(view);
    SecBuffRun run;
    for (uint32_t i = 0; i < spec.clients; ++i)
    {
        run.seeds.push_back(300 + 7 * i);
        stack.clientApps.Get(i)->SetAttribute("TrainingSeed", UintegerValue(run.seeds.back()));
        // unequal speeds: cohorts finish out of order, so some are stale
        stack.clientApps.Get(i)->SetAttribute("SecondsPerSample", DoubleValue(0.002 * (1 + i)));
        auto drop = spec.drops.find(i);
        if (drop != spec.drops.end())
        {
            stack.secAgg.clients.at(i)->SetAttribute("DropBeforePhase",
                                                     StringValue(drop->second.first));
            stack.secAgg.clients.at(i)->SetAttribute("DropRounds",
                                                     StringValue(drop->second.second));
        }
    }
    stack.server->TraceConnectWithoutContext(
        "RoundEnd",
        FlCallback<void, const FlRoundReport&>([&run](const FlRoundReport& r) {
            if (r.status == FlRoundStatus::Aborted)
            {
                run.aborted.push_back(r);
                run.aborted.back().globalModel = nullptr;
                run.abortedModels.push_back(*r.globalModel);
                return;
            }
            run.versions.push_back(VersionRecord{r.round, r.updates, *r.globalModel});
        }));
    Simulator::Stop(Seconds(300));
    Simulator::Run();
    run.finished = stack.server->IsFinished();
    run.completed = stack.server->GetCompletedRounds();
    run.app = stack.server->GetCounters();
    run.step = stack.secAgg.server->GetCounters();
    run.members = view->members;
    run.version = view->version;
    run.masked = view->masked;
    run.results = view->results;
    run.uploadsAreKeys = view->uploadsAreKeys;
    run.uploadBytes = view->uploadBytes;
    run.rows = stack.monitor->GetRecords();
    Simulator::Destroy();
    return run;
}

/// Client `client`'s trained model in cohort `cohort` (its messages' round), sent `base`.
Eigen::VectorXd
Trained(const fl::LearningTask& task,
        const SecBuffRun& run,
        uint32_t client,
        uint32_t cohort,
        const fl::ParamVector& base)
{
    fl::Rng rng(fl::DeriveSeed(run.seeds.at(client), cohort));
    return task.TrainClient(client, base, rng)
        .params.ConvertedTo(fl::Precision::Float64)
        .Get<double>();
}

/**
 * The in-process computation: every completed cohort's sum recomputed without masks from its
 * survivors' trained models (checked against the network's sum), FedBuff's step applied to it.
 * Returns the number of versions compared.
 */
std::size_t
CheckAgainstInProcess(const fl::LearningTask& task, const SecBuffRun& run, double eta)
{
    std::vector<fl::ParamVector> models{run.versions.at(0).model}; // models[v - 1]: version v
    fl::ParamVector global = models[0];
    std::size_t made = 0;
    uint32_t staleCohorts = 0;
    for (const auto& [cohort, r] : run.results)
    {
        if (!r.ok)
        {
            continue;
        }
        if (made + 1 >= run.versions.size())
        {
            break; // completed after the last version (the run had finished)
        }
        const uint32_t current = static_cast<uint32_t>(models.size());
        const uint32_t trained = run.version.at(cohort);
        const uint32_t tau = current - trained;
        staleCohorts += tau > 0 ? 1 : 0;
        const fl::ParamVector& base = models.at(trained - 1);
        std::vector<Eigen::VectorXd> inputs;
        std::vector<uint64_t> weights;
        for (uint32_t p : r.participants)
        {
            inputs.push_back(Trained(task, run, p, cohort, base));
            weights.push_back(task.ClientSamples(p));
        }
        std::vector<const Eigen::VectorXd*> ptrs;
        for (const auto& x : inputs)
        {
            ptrs.push_back(&x);
        }
        const fl::SecAggResult plain =
            fl::SecAggPlainSum(ptrs, weights, 32, run.members.at(cohort).size());
        EXPECT_TRUE(plain.sum == r.sum) << "cohort " << cohort << ": the network's sum";
        EXPECT_EQ(plain.totalWeight, static_cast<uint64_t>(r.totalWeight));
        const double s = fl::AsyncStalenessWeight(fl::StalenessFunction::Polynomial, tau, 0.5, 4.0);
        const auto m = static_cast<uint32_t>(r.participants.size());
        fl::FedBuffApply(
            global,
            fl::FedBuffBufferFromSum(plain.sum, static_cast<double>(plain.totalWeight), m, base, s),
            m,
            eta);
        ++made;
        const VersionRecord& v = run.versions.at(made);
        EXPECT_EQ(v.round, current);
        EXPECT_TRUE(v.model == global) << "version " << current + 1;
        std::vector<uint32_t> reported;
        for (const FlUpdateInfo& u : v.updates)
        {
            reported.push_back(u.client);
            EXPECT_EQ(u.staleness, tau);
            EXPECT_EQ(u.trainedRound, trained);
            EXPECT_DOUBLE_EQ(u.weight, s);
        }
        EXPECT_EQ(reported, r.participants);
        models.push_back(global);
    }
    EXPECT_GT(staleCohorts, 0u) << "no cohort was stale: the staleness weighting went untested";
    return made;
}

} // namespace

TEST(SecBuffNetwork, EveryVersionIsFedBuffsStepOnItsCohortsUnmaskedSum)
{
    auto task = MakeTask<double>(6, "softmax:l2=0.001");
    Spec spec;
    const SecBuffRun run = RunSecBuff(task, spec);
    ASSERT_TRUE(run.finished);
    ASSERT_EQ(run.completed, spec.versions);
    ASSERT_EQ(run.versions.size(), spec.versions + 1u);
    // two cohorts of three in flight at once (C = all 6 clients)
    ASSERT_GE(run.members.size(), 2u);
    EXPECT_EQ(run.version.at(1), 1u);
    EXPECT_EQ(run.version.at(2), 1u);
    for (const auto& [cohort, m] : run.members)
    {
        EXPECT_EQ(m.size(), spec.k) << "cohort " << cohort;
    }
    EXPECT_EQ(CheckAgainstInProcess(*task, run, spec.eta), spec.versions);
    EXPECT_EQ(run.app.roundsAborted, 0u);
    EXPECT_EQ(run.step.aborted, 0u);
    EXPECT_TRUE(run.aborted.empty()); // no cohort aborted: no such report
    EXPECT_EQ(run.rows.size(), run.versions.size());
    EXPECT_EQ(run.app.unexpectedMessages, 0u);
}

TEST(SecBuffNetwork, TheServerHoldsOnlyMaskedInputsAndTheirSum)
{
    auto task = MakeTask<double>(6, "softmax:l2=0.001");
    Spec spec;
    spec.versions = 3;
    const SecBuffRun run = RunSecBuff(task, spec);
    ASSERT_TRUE(run.finished);
    const std::size_t d = task->NumParameters();
    // every upload is a key advertisement (no model coordinates)
    EXPECT_TRUE(run.uploadsAreKeys);
    std::vector<fl::ParamVector> models{run.versions.at(0).model};
    for (std::size_t v = 1; v < run.versions.size(); ++v)
    {
        models.push_back(run.versions[v].model);
    }
    std::size_t checked = 0;
    for (const auto& [cohort, r] : run.results)
    {
        if (!r.ok || run.masked.count(cohort) == 0)
        {
            continue;
        }
        const fl::ParamVector& base = models.at(run.version.at(cohort) - 1);
        const std::size_t n = run.members.at(cohort).size();
        for (const auto& [client, y] : run.masked.at(cohort))
        {
            ASSERT_EQ(y.size(), d + 1);
            const uint64_t samples = task->ClientSamples(client);
            const Eigen::VectorXd x = Trained(*task, run, client, cohort, base);
            std::vector<uint64_t> encoded;
            fl::EncodeFixedPoint(static_cast<double>(samples) * x, 32, n, encoded);
            std::size_t equal = 0;
            for (std::size_t j = 0; j < d; ++j)
            {
                equal += y[j] == encoded[j] ? 1 : 0;
            }
            EXPECT_EQ(equal, 0u) << "cohort " << cohort << ", client " << client
                                 << ": coordinates the server saw unmasked";
            EXPECT_NE(y[d], samples) << "the weight word is masked too";
            // nor does the decoded masked input resemble the update
            const Eigen::VectorXd seen =
                fl::DecodeFixedPoint(std::vector<uint64_t>(y.begin(), y.begin() + d), 32) /
                static_cast<double>(samples);
            EXPECT_GT((seen - x).norm(), 1e3 * (x.norm() + 1.0));
            ++checked;
        }
        // ... while the decoded sum is the sum of the updates (to the fixed-point resolution)
        Eigen::VectorXd sum = Eigen::VectorXd::Zero(d);
        for (uint32_t p : r.participants)
        {
            sum +=
                static_cast<double>(task->ClientSamples(p)) * Trained(*task, run, p, cohort, base);
        }
        EXPECT_LT((r.sum - sum).lpNorm<Eigen::Infinity>(), 1e-8);
    }
    EXPECT_GE(checked, 6u);
}

TEST(SecBuffNetwork, DropoutAboveThresholdIsRecoveredBelowItTheBufferIsDropped)
{
    auto task = MakeTask<double>(6, "softmax:l2=0.001");
    Spec spec;
    // the cohorts of the first two dispatches (the draws do not depend on what follows)
    const SecBuffRun clean = RunSecBuff(task, spec);
    ASSERT_GE(clean.members.size(), 2u);
    const std::vector<uint32_t> first = clean.members.at(1);
    const std::vector<uint32_t> second = clean.members.at(2);
    // cohort 1: one client silent before its masked input (t = 2 of 3 left: recovered);
    // cohort 2: two clients silent before their shares (1 left, below t = 2: aborted)
    spec.drops[first[1]] = {"input", "1"};
    spec.drops[second[0]] = {"shares", "2"};
    spec.drops[second[2]] = {"shares", "2"};
    const SecBuffRun run = RunSecBuff(task, spec);
    ASSERT_TRUE(run.finished);
    EXPECT_EQ(run.members.at(1), first);
    EXPECT_EQ(run.members.at(2), second);
    bool sawFirst = false;
    bool sawSecond = false;
    for (const auto& [cohort, r] : run.results)
    {
        if (cohort == 1)
        {
            sawFirst = true;
            EXPECT_TRUE(r.ok) << r.status;
            EXPECT_EQ(r.participants, (std::vector<uint32_t>{first[0], first[2]}));
        }
        if (cohort == 2)
        {
            sawSecond = true;
            EXPECT_FALSE(r.ok);
            std::cout << "cohort 2: " << r.status << std::endl;
        }
    }
    EXPECT_TRUE(sawFirst && sawSecond);
    EXPECT_EQ(run.app.roundsAborted, 1u);
    EXPECT_EQ(run.step.aborted, 1u);
    EXPECT_EQ(run.completed, spec.versions);
    // the aborted cohort is a RoundEnd report and a monitor row with status "aborted": its
    // clients, no straggler (the two silent ones uploaded, then fell silent in the step's
    // phases), the model of the version being built unchanged
    ASSERT_EQ(run.aborted.size(), 1u);
    const FlRoundReport& a = run.aborted.front();
    EXPECT_EQ(a.selected, second);
    EXPECT_TRUE(a.participants.empty());
    EXPECT_TRUE(a.updates.empty());
    EXPECT_EQ(a.stragglers, 0u);
    for (const auto& [cohort, r] : run.results)
    {
        if (cohort == 2)
        {
            EXPECT_EQ(a.uplinkStatus, r.status);
        }
    }
    EXPECT_GE(a.end, a.start);
    EXPECT_GT(a.start, Seconds(0));
    // the version being built: the last version before it, and the one after has its number
    const VersionRecord* before = nullptr;
    for (const VersionRecord& v : run.versions)
    {
        before = v.round < a.round ? &v : before;
    }
    ASSERT_NE(before, nullptr);
    EXPECT_TRUE(run.abortedModels.front() == before->model);
    uint32_t rowsAborted = 0;
    for (const FlRoundRecord& row : run.rows)
    {
        if (row.status == "aborted")
        {
            ++rowsAborted;
            EXPECT_EQ(row.round, a.round);
            EXPECT_EQ(row.selected, 3u);
            EXPECT_EQ(row.participants, 0u);
            EXPECT_EQ(row.stragglers, 0u);
            EXPECT_EQ(row.bytesDown + row.bytesUp, 0u);
        }
    }
    EXPECT_EQ(rowsAborted, 1u);
    EXPECT_EQ(run.rows.size(), run.versions.size() + 1u);
    // the versions are still FedBuff's steps on the surviving cohorts' sums (the first made of
    // two updates)
    EXPECT_EQ(CheckAgainstInProcess(*task, run, spec.eta), spec.versions);
    std::size_t ofTwo = 0;
    for (const VersionRecord& v : run.versions)
    {
        ofTwo += v.round > 0 && v.updates.size() == 2 ? 1 : 0;
    }
    EXPECT_EQ(ofTwo, 1u);
}

TEST(SecBuffNetwork, RoundDeadlineClosesACohortsUploadsWithoutASilentClient)
{
    // three clients, K = 3: every cohort is {0, 1, 2}, one at a time; client 1 never uploads
    // its keys in cohort 2, whose uploads close at the 5 s RoundDeadline with two
    auto task = MakeTask<double>(3, "softmax:l2=0.001");
    Spec spec;
    spec.clients = 3;
    spec.versions = 4;
    spec.deadline = Seconds(5);
    spec.drops[1] = {"keys", "2"};
    const SecBuffRun run = RunSecBuff(task, spec);
    ASSERT_TRUE(run.finished);
    ASSERT_EQ(run.completed, spec.versions);
    for (const auto& [cohort, r] : run.results)
    {
        EXPECT_TRUE(r.ok) << "cohort " << cohort << ": " << r.status;
        const std::vector<uint32_t> expected =
            cohort == 2 ? std::vector<uint32_t>{0, 2} : std::vector<uint32_t>{0, 1, 2};
        EXPECT_EQ(r.participants, expected);
    }
    EXPECT_EQ(run.app.roundsAborted, 0u);
    // one cohort at a time: every cohort is fresh (staleness 0)
    for (std::size_t v = 1; v < run.versions.size(); ++v)
    {
        for (const FlUpdateInfo& u : run.versions[v].updates)
        {
            EXPECT_EQ(u.staleness, 0u);
        }
    }
    // the versions are FedBuff's steps on the sums; the second took the deadline to close
    std::vector<fl::ParamVector> models{run.versions.at(0).model};
    fl::ParamVector global = models[0];
    for (std::size_t i = 0; i < run.results.size() && i + 1 < run.versions.size(); ++i)
    {
        const auto& [cohort, r] = run.results[i];
        const fl::ParamVector& base = models.at(run.version.at(cohort) - 1);
        std::vector<Eigen::VectorXd> inputs;
        std::vector<const Eigen::VectorXd*> ptrs;
        std::vector<uint64_t> weights;
        for (uint32_t p : r.participants)
        {
            inputs.push_back(Trained(*task, run, p, cohort, base));
            weights.push_back(task->ClientSamples(p));
        }
        for (const auto& x : inputs)
        {
            ptrs.push_back(&x);
        }
        const fl::SecAggResult plain = fl::SecAggPlainSum(ptrs, weights, 32, 3);
        const auto m = static_cast<uint32_t>(r.participants.size());
        fl::FedBuffApply(global,
                         fl::FedBuffBufferFromSum(plain.sum,
                                                  static_cast<double>(plain.totalWeight),
                                                  m,
                                                  base,
                                                  1.0),
                         m,
                         spec.eta);
        EXPECT_TRUE(run.versions.at(i + 1).model == global) << "version " << i + 2;
        models.push_back(global);
    }
}

TEST(SecBuffNetwork, HelperRefusesWhatSecureAggregationCannotServe)
{
    auto task = MakeTask<double>(6, "softmax");
    FlCsmaSceneHelper csma;
    FlScene scene = csma.Build(6);
    auto install = [&](FlFedAvgHelper& fedavg) {
        fedavg.SetSecureAggregation(FlSecAggHelper());
        fedavg.Install(scene.serverNode, scene.clients, scene.serverAddress);
    };
    {
        FlFedAvgHelper fedavg(task);
        fedavg.SetStrategy("ns3::FedAsyncStrategy");
        ExpectConfigError([&] { install(fedavg); },
                          "strategy",
                          {"ns3::FedAsyncStrategy", "FedBuffStrategy", "the sum of one update"});
    }
    {
        FlFedAvgHelper fedavg(task);
        fedavg.SetStrategy("ns3::FedBuffStrategy", "BufferSize", UintegerValue(1));
        ExpectConfigError([&] { install(fedavg); }, "strategy", "BufferSize >= 2");
    }
    {
        FlFedAvgHelper fedavg(task);
        fedavg.SetStrategy("ns3::FedBuffStrategy", "BufferSize", UintegerValue(3));
        fedavg.SetServerAttribute("StragglerPolicy", StringValue("accept"));
        ExpectConfigError([&] { install(fedavg); }, "StragglerPolicy", "use drop");
    }
    {
        FlFedAvgHelper fedavg(task);
        fedavg.SetStrategy("ns3::FedBuffStrategy", "BufferSize", UintegerValue(3));
        fedavg.SetServerAttribute("ClientsPerRound", UintegerValue(2));
        ExpectConfigError([&] { install(fedavg); }, "ClientsPerRound", "multiple of 3");
    }
    {
        FlFedAvgHelper fedavg(task);
        fedavg.SetStrategy("ns3::FedBuffStrategy", "BufferSize", UintegerValue(8));
        ExpectConfigError([&] { install(fedavg); }, "clients", "cohort of 8");
    }
    {
        FlFedAvgHelper fedavg(task);
        fedavg.SetStrategy("ns3::FedBuffStrategy", "BufferSize", UintegerValue(3));
        FlSecAggHelper secagg;
        secagg.SetAttribute("Threshold", UintegerValue(4));
        fedavg.SetSecureAggregation(secagg);
        ExpectConfigError(
            [&] { fedavg.Install(scene.serverNode, scene.clients, scene.serverAddress); },
            "ns3::SecAggServerStep::Threshold",
            "rosters of 3 clients");
    }
    Simulator::Destroy();
}

namespace
{
/// The server and clients by hand (no helper checks): the server finds what it cannot run.
void
RunByHand(const std::string& strategy, const std::string& stragglerPolicy)
{
    auto task = MakeTask<double>(4, "softmax");
    FlCsmaSceneHelper csma;
    FlScene scene = csma.Build(4);
    FlServerHelper sh(task);
    sh.SetAttribute("StragglerPolicy", StringValue(stragglerPolicy));
    ApplicationContainer sapps = sh.Install(scene.serverNode);
    sapps.Start(Seconds(0));
    Ptr<FlServerApplication> server = DynamicCast<FlServerApplication>(sapps.Get(0));
    ObjectFactory f;
    f.SetTypeId(strategy);
    if (strategy == "ns3::FedBuffStrategy")
    {
        f.Set("BufferSize", UintegerValue(2));
    }
    server->SetStrategy(f.Create<FlServerStrategy>());
    FlClientHelper ch(task, scene.serverAddress);
    ApplicationContainer capps = ch.Install(scene.clients);
    FlSecAggParties parties = FlSecAggHelper().Create({0, 1, 2, 3});
    server->SetUplinkStep(parties.server);
    for (uint32_t i = 0; i < capps.GetN(); ++i)
    {
        DynamicCast<FlClientApplication>(capps.Get(i))->SetUplinkStep(parties.clients.at(i));
    }
    Simulator::Stop(Seconds(10));
    Simulator::Run();
}
} // namespace

TEST(SecBuffNetwork, TheServerRefusesFedAsyncWithAnUplinkStepWithStatus2)
{
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    EXPECT_EXIT(RunByHand("ns3::FedAsyncStrategy", "drop"),
                ::testing::ExitedWithCode(2),
                "invalid strategy:.*FedAsyncStrategy.*the sum of one update is the update");
}

TEST(SecBuffNetwork, TheServerRefusesStragglerPolicyAcceptWithAnUplinkStepWithStatus2)
{
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    EXPECT_EXIT(RunByHand("ns3::FedBuffStrategy", "accept"),
                ::testing::ExitedWithCode(2),
                "invalid StragglerPolicy:.*accept.*use drop");
    EXPECT_EXIT(RunByHand("ns3::FedAvgStrategy", "accept"),
                ::testing::ExitedWithCode(2),
                "invalid StragglerPolicy:.*accept.*use drop");
}
