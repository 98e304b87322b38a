/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Monte-Carlo runs on the training pool: OrderedParallelFor commits every item once, in item
 * order, after its work (also nested and when items throw), and Monte-Carlo runs of the
 * in-process runners (GFL with secure aggregation, dropout and noise; GHP diffusion; FedAvg,
 * which itself trains its clients on the pool) give the same values, bit for bit, with 1, 2
 * and 4 threads as one after the other outside the pool.
 */
#include "fl-test-gfl-fixture.h"
#include "fl-test-task.h"

#include "ns3/diffusion.h"
#include "ns3/fedavg-reference.h"
#include "ns3/gfl.h"
#include "ns3/graph.h"
#include "ns3/thread-pool.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <mutex>
#include <sstream>
#include <stdexcept>
#include <thread>

using namespace ns3;

namespace
{

/// Restores the default thread count after a test that changed it.
struct ThreadsGuard
{
    ~ThreadsGuard()
    {
        fl::SetTrainingThreads(0);
    }
};

/// Bitwise equality of two series (NaN equals NaN of the same bits).
void
ExpectSameBits(const std::vector<double>& a, const std::vector<double>& b, const std::string& what)
{
    ASSERT_EQ(a.size(), b.size()) << what;
    for (std::size_t i = 0; i < a.size(); ++i)
    {
        EXPECT_EQ(0, std::memcmp(&a[i], &b[i], sizeof(double)))
            << what << " [" << i << "]: " << a[i] << " vs " << b[i];
    }
}

TEST(OrderedParallelFor, CommitsEveryItemOnceInOrderAfterItsWork)
{
    for (std::size_t threads : {1U, 2U, 4U})
    {
        fl::ThreadPool pool(threads);
        const std::size_t n = 40;
        std::vector<std::atomic<int>> done(n);
        std::vector<std::size_t> committed;
        std::atomic<int> inCommit{0};
        bool overlapped = false;
        fl::OrderedParallelFor(
            pool,
            n,
            [&](std::size_t i) {
                // later items often finish first
                std::this_thread::sleep_for(std::chrono::microseconds(((n - i) % 7) * 200));
                done[i] = 1;
            },
            [&](std::size_t i) {
                overlapped = overlapped || inCommit.fetch_add(1) != 0;
                EXPECT_EQ(done[i].load(), 1);
                committed.push_back(i);
                inCommit.fetch_sub(1);
            });
        ASSERT_EQ(committed.size(), n) << threads << " threads";
        for (std::size_t i = 0; i < n; ++i)
        {
            EXPECT_EQ(committed[i], i);
        }
        EXPECT_FALSE(overlapped);
    }
}

TEST(OrderedParallelFor, StopsCommittingAtTheFirstItemThatThrew)
{
    for (std::size_t threads : {1U, 2U, 4U})
    {
        fl::ThreadPool pool(threads);
        std::vector<std::size_t> committed;
        std::atomic<int> ran{0};
        try
        {
            fl::OrderedParallelFor(
                pool,
                12,
                [&](std::size_t i) {
                    ++ran;
                    if (i == 5 || i == 9)
                    {
                        throw std::runtime_error("item " + std::to_string(i));
                    }
                },
                [&](std::size_t i) { committed.push_back(i); });
            FAIL() << "no exception";
        }
        catch (const std::runtime_error& e)
        {
            EXPECT_EQ(std::string(e.what()), "item 5");
        }
        EXPECT_EQ(ran.load(), 12); // the other items still run to the end
        ASSERT_EQ(committed.size(), 5u) << threads << " threads";
        for (std::size_t i = 0; i < committed.size(); ++i)
        {
            EXPECT_EQ(committed[i], i);
        }
    }
}

TEST(OrderedParallelFor, NestedCallRunsSeriallyInItsItem)
{
    fl::ThreadPool pool(3);
    std::vector<std::vector<std::size_t>> inner(4);
    std::vector<std::size_t> outer;
    fl::OrderedParallelFor(
        pool,
        4,
        [&](std::size_t i) {
            std::vector<std::size_t> mine;
            fl::OrderedParallelFor(
                pool,
                5,
                [&](std::size_t j) { mine.push_back(10 * j); },
                [&](std::size_t j) { mine.push_back(10 * j + 1); });
            inner[i] = mine;
        },
        [&](std::size_t i) { outer.push_back(i); });
    EXPECT_EQ(outer, (std::vector<std::size_t>{0, 1, 2, 3}));
    for (const auto& v : inner)
    {
        EXPECT_EQ(v, (std::vector<std::size_t>{0, 1, 10, 11, 20, 21, 30, 31, 40, 41}));
    }
}

/// What one Monte-Carlo run of a runner reported: every iteration's scalars, and its lines.
struct Trace
{
    std::map<std::string, std::vector<double>> metrics;
    std::string lines;
};

/// Records every scalar of a report into `t`, and a progress line every 5 iterations.
fl::NetworkIterationCallback
Record(Trace& t, std::ostream& os, const std::string& name)
{
    return [&t, &os, name](const fl::NetworkIterationReport& r) {
        t.metrics["msd_centroid"].push_back(r.centroidMsd);
        t.metrics["msd_average"].push_back(r.averageMsd);
        t.metrics["disagreement"].push_back(r.disagreement);
        t.metrics["centroid_drift"].push_back(r.centroidDrift);
        t.metrics["lost"].push_back(static_cast<double>(r.lostMessages));
        t.metrics["dropped"].push_back(static_cast<double>(r.droppedClients));
        t.metrics["epsilon_one"].push_back(r.epsilonOneLink);
        t.metrics["epsilon_all"].push_back(r.epsilonAllLinks);
        for (const auto& w : *r.models)
        {
            const Eigen::VectorXd v = w.Get<double>();
            t.metrics["models"].insert(t.metrics["models"].end(), v.data(), v.data() + v.size());
        }
        if (r.iteration % 5 == 0)
        {
            os << name << " iteration " << r.iteration << ": " << r.centroidMsd << "\n";
        }
    };
}

/// Runs x variants of a runner; `one(run, variant, cb)` runs one of them.
using OneRun = std::function<void(uint32_t, std::size_t, const fl::NetworkIterationCallback&)>;

/**
 * The Monte-Carlo loop as the figure programs run it in process: every (run, variant) on the
 * training pool into its own trace, the traces summed and their lines printed in run order.
 */
std::pair<std::map<std::string, std::vector<double>>, std::string>
MonteCarloOnPool(uint32_t runs, std::size_t variants, const OneRun& one)
{
    std::vector<Trace> slots(runs * variants);
    std::map<std::string, std::vector<double>> sums;
    std::string out;
    fl::OrderedParallelFor(
        fl::TrainingPool(),
        slots.size(),
        [&](std::size_t i) {
            std::ostringstream os;
            one(static_cast<uint32_t>(i / variants),
                i % variants,
                Record(slots[i], os, "item " + std::to_string(i)));
            slots[i].lines = os.str();
        },
        [&](std::size_t i) {
            for (const auto& [metric, v] : slots[i].metrics)
            {
                auto& s = sums[metric + "/" + std::to_string(i % variants)];
                s.resize(std::max(s.size(), v.size()), 0.0);
                for (std::size_t k = 0; k < v.size(); ++k)
                {
                    s[k] += v[k];
                }
            }
            out += slots[i].lines;
        });
    return {sums, out};
}

/// The same runs one after the other in this thread, accumulated as they report.
std::pair<std::map<std::string, std::vector<double>>, std::string>
MonteCarloSerial(uint32_t runs, std::size_t variants, const OneRun& one)
{
    std::map<std::string, std::vector<double>> sums;
    std::ostringstream out;
    for (uint32_t run = 0; run < runs; ++run)
    {
        for (std::size_t v = 0; v < variants; ++v)
        {
            Trace t;
            one(run, v, Record(t, out, "item " + std::to_string(run * variants + v)));
            for (const auto& [metric, x] : t.metrics)
            {
                auto& s = sums[metric + "/" + std::to_string(v)];
                s.resize(std::max(s.size(), x.size()), 0.0);
                for (std::size_t k = 0; k < x.size(); ++k)
                {
                    s[k] += x[k];
                }
            }
        }
    }
    return {sums, out.str()};
}

/// The pool results with 1, 2 and 4 threads equal the serial ones in every value and line.
void
ExpectSameOnEveryThreadCount(uint32_t runs, std::size_t variants, const OneRun& one)
{
    ThreadsGuard guard;
    const auto serial = MonteCarloSerial(runs, variants, one);
    ASSERT_FALSE(serial.first.empty());
    for (std::size_t threads : {1U, 2U, 4U})
    {
        fl::SetTrainingThreads(threads);
        const auto pooled = MonteCarloOnPool(runs, variants, one);
        ASSERT_EQ(pooled.first.size(), serial.first.size());
        for (const auto& [key, v] : serial.first)
        {
            ExpectSameBits(pooled.first.at(key), v, key + ", " + std::to_string(threads) + " threads");
        }
        EXPECT_EQ(pooled.second, serial.second) << threads << " threads";
    }
}

TEST(MonteCarlo, GflRunsAndVariantsIdenticalOnOneTwoFourThreads)
{
    const std::size_t P = 3;
    const std::size_t K = 5;
    const std::vector<fl::NodeNoiseKind> kinds = {fl::NodeNoiseKind::None,
                                                  fl::NodeNoiseKind::IidPerLink,
                                                  fl::NodeNoiseKind::IidBroadcast,
                                                  fl::NodeNoiseKind::GraphHomomorphic};
    std::vector<fltest::RegressionFixture> data;
    for (uint64_t run = 0; run < 3; ++run)
    {
        data.push_back(fltest::MakeRegressionFixture(P * K, 40, 0.1, 100 + run));
    }
    ExpectSameOnEveryThreadCount(3, kinds.size(), [&](uint32_t run, std::size_t v, const auto& cb) {
        fl::GflConfig c;
        c.combination = fltest::ThreeServerCombination();
        c.clientsPerServer = K;
        c.sampledClients = 3;
        c.mu = 0.5;
        c.work = fl::DrawGflLocalWork(P * K, 1, 4, 2, 6, fl::DeriveSeed(7, run));
        c.clipNorm = 1.0;
        c.secureAggregation = run == 1;
        c.dropoutProbability = run == 2 ? 0.3 : 0.0;
        c.clientNoise = v == 1 ? fl::NodeNoiseConfig{fl::NodeNoiseKind::IidPerLink,
                                                     fl::NoiseDistribution::Laplace,
                                                     0.05}
                               : fl::NodeNoiseConfig{};
        c.serverNoise = fl::NodeNoiseConfig{kinds[v], fl::NoiseDistribution::Laplace, 0.1};
        c.iterations = 30;
        c.seed = fl::DeriveSeed(11, run);
        c.reference = data[run].wOpt;
        fl::RunGflInProcess(*data[run].task, c, cb);
    });
}

TEST(MonteCarlo, DiffusionRunsAndVariantsIdenticalOnOneTwoFourThreads)
{
    const std::size_t K = 6;
    const std::vector<fl::NodeNoiseKind> kinds = {fl::NodeNoiseKind::None,
                                                  fl::NodeNoiseKind::IidBroadcast,
                                                  fl::NodeNoiseKind::GraphHomomorphic};
    std::vector<fltest::RegressionFixture> data;
    std::vector<Eigen::MatrixXd> graphs;
    for (uint64_t run = 0; run < 3; ++run)
    {
        data.push_back(fltest::MakeRegressionFixture(K, 30, 0.1, 200 + run));
        fl::Rng rng(300 + run);
        fl::ConnectivityRequirement req;
        req.connected = true;
        graphs.push_back(fl::MetropolisWeights(fl::ErdosRenyiGraph(K, 0.5, rng, req)));
    }
    ExpectSameOnEveryThreadCount(3, kinds.size(), [&](uint32_t run, std::size_t v, const auto& cb) {
        fl::DiffusionConfig c;
        c.combination = graphs[run];
        c.mu = 0.1;
        c.batchSize = 2;
        c.clipNorm = 2.0;
        c.noise = fl::NodeNoiseConfig{kinds[v], fl::NoiseDistribution::Laplace, 0.2};
        c.iterations = 40;
        c.seed = fl::DeriveSeed(21, run);
        c.reference = data[run].wOpt;
        fl::RunDiffusionInProcess(*data[run].task, c, cb);
    });
}

// FedAvg's in-process reference trains the clients of a round on the training pool itself: as
// an item of a Monte-Carlo loop on the same pool its inner loop runs serially, with the same
// models as alone (its clients then on every thread of the pool).
TEST(MonteCarlo, NestedTrainingOnThePoolIdentical)
{
    ThreadsGuard guard;
    auto task = fltest::MakeTask<float>(6, "mlp:hidden=8");
    const uint32_t runs = 4;
    auto config = [](uint32_t run) {
        fl::FedAvgReferenceConfig cfg;
        cfg.rounds = 3;
        cfg.initSeed = 5 + run;
        for (uint64_t k = 0; k < 6; ++k)
        {
            cfg.clientSeeds.push_back(fl::DeriveSeed(100 + run, k));
        }
        return cfg;
    };
    std::vector<Eigen::VectorXf> alone;
    fl::SetTrainingThreads(4);
    for (uint32_t run = 0; run < runs; ++run)
    {
        alone.push_back(fl::RunFedAvgReference(*task, config(run)).finalModel.Get<float>());
    }
    for (std::size_t threads : {1U, 2U, 4U})
    {
        fl::SetTrainingThreads(threads);
        std::vector<Eigen::VectorXf> slots(runs);
        std::vector<uint32_t> order;
        fl::OrderedParallelFor(
            fl::TrainingPool(),
            runs,
            [&](std::size_t run) {
                slots[run] = fl::RunFedAvgReference(*task, config(static_cast<uint32_t>(run)))
                                 .finalModel.Get<float>();
            },
            [&](std::size_t run) { order.push_back(static_cast<uint32_t>(run)); });
        EXPECT_EQ(order, (std::vector<uint32_t>{0, 1, 2, 3}));
        for (uint32_t run = 0; run < runs; ++run)
        {
            ASSERT_EQ(slots[run].size(), alone[run].size());
            EXPECT_EQ(0,
                      std::memcmp(slots[run].data(),
                                  alone[run].data(),
                                  sizeof(float) * static_cast<std::size_t>(alone[run].size())))
                << "run " << run << ", " << threads << " threads";
        }
    }
}

} // namespace
