/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Tests of LocalTrainer: step counts, batching, step-size rules, clipping, FedProx,
 * determinism, and the absence of per-step allocation.
 */
#include "fl-test-config-error.h"

#include "ns3/linear-models.h"
#include "ns3/local-trainer.h"
#include "ns3/metrics.h"
#include "ns3/mlp-model.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdlib>
#include <gtest/gtest.h>
#include <random>
#include <set>

using namespace ns3::fl;
using fltest::ExpectConfigError;

// ---------------------------------------------------------------------------------------------
// Allocation counter: interposes malloc (glibc only) so a test can check that training performs
// no allocation per step. Eigen allocates through malloc, operator new does too.
// ---------------------------------------------------------------------------------------------
#if defined(__GLIBC__) && !defined(__SANITIZE_ADDRESS__)
#define FL_COUNT_MALLOC 1

namespace
{
std::atomic<bool> g_countAllocations{false};
std::atomic<long> g_allocations{0};
} // namespace

extern "C" void* __libc_malloc(std::size_t size);
extern "C" void* __libc_calloc(std::size_t n, std::size_t size);
extern "C" void* __libc_realloc(void* p, std::size_t size);

extern "C" void*
malloc(std::size_t size) noexcept
{
    if (g_countAllocations.load(std::memory_order_relaxed))
    {
        g_allocations.fetch_add(1, std::memory_order_relaxed);
    }
    return __libc_malloc(size);
}

extern "C" void*
calloc(std::size_t n, std::size_t size) noexcept
{
    if (g_countAllocations.load(std::memory_order_relaxed))
    {
        g_allocations.fetch_add(1, std::memory_order_relaxed);
    }
    return __libc_calloc(n, size);
}

extern "C" void*
realloc(void* p, std::size_t size) noexcept
{
    if (g_countAllocations.load(std::memory_order_relaxed))
    {
        g_allocations.fetch_add(1, std::memory_order_relaxed);
    }
    return __libc_realloc(p, size);
}
#endif

namespace
{

/// n x d standard normal matrix.
Mat<double>
Gaussian(Eigen::Index n, Eigen::Index d, Rng& rng)
{
    std::normal_distribution<double> normal(0.0, 1.0);
    Mat<double> X(n, d);
    for (Eigen::Index i = 0; i < X.size(); ++i)
    {
        X.data()[i] = normal(rng);
    }
    return X;
}

/// A ridge regression data set with n samples and d features.
Dataset<double>
RegressionData(Eigen::Index n, Eigen::Index d, Rng& rng)
{
    Dataset<double> data;
    data.features = Gaussian(n, d, rng);
    data.targets =
        data.features * Vec<double>::LinSpaced(d, -1.0, 1.0) + 0.1 * Gaussian(n, 1, rng).col(0);
    return data;
}

/// A 3-class data set of well-separated Gaussian blobs in 2-D.
template <typename S>
Dataset<S>
Blobs(Eigen::Index n, Rng& rng)
{
    std::normal_distribution<double> normal(0.0, 0.4);
    const double centres[3][2] = {{0.0, 2.0}, {2.0, -1.0}, {-2.0, -1.0}};
    Dataset<S> data;
    data.kind = TargetKind::Categorical;
    data.numClasses = 3;
    data.features.resize(n, 2);
    data.targets.resize(n);
    for (Eigen::Index i = 0; i < n; ++i)
    {
        const int c = static_cast<int>(i % 3);
        data.features(i, 0) = static_cast<S>(centres[c][0] + normal(rng));
        data.features(i, 1) = static_cast<S>(centres[c][1] + normal(rng));
        data.targets[i] = static_cast<S>(c);
    }
    return data;
}

/**
 * Ridge regression that records, for every LossAndGradient call, the targets of the batch. Give
 * it targets equal to the sample index to see which samples every batch holds.
 */
class SpyModel : public RidgeRegression<double>
{
  public:
    explicit SpyModel(std::size_t dim)
        : RidgeRegression<double>(dim, 0.0)
    {
    }

    double LossAndGradient(const Vec<double>& w,
                           const MatRef& X,
                           const VecRef& y,
                           Vec<double>& grad) const override
    {
        batches.emplace_back(y.data(), y.data() + y.size());
        return RidgeRegression<double>::LossAndGradient(w, X, y, grad);
    }

    mutable std::vector<std::vector<double>> batches;
};

/// A data set whose targets are the sample indices 0..n-1.
Dataset<double>
IndexedData(Eigen::Index n, Rng& rng)
{
    Dataset<double> data;
    data.features = Gaussian(n, 2, rng);
    data.targets = Vec<double>::LinSpaced(n, 0.0, static_cast<double>(n - 1));
    return data;
}

LocalTrainerConfig
Config(std::size_t steps, std::size_t batch, double lr)
{
    LocalTrainerConfig c;
    c.localSteps = steps;
    c.batchSize = batch;
    c.learningRate = lr;
    return c;
}

} // namespace

TEST(LocalTrainer, RunsEStepsOfBatchSize)
{
    Rng rng(1);
    const Dataset<double> data = IndexedData(20, rng);
    SpyModel spy(2);
    const LocalResult<double> r =
        LocalTrainer<double>(Config(7, 4, 0.01)).Train(spy, Vec<double>::Zero(2), data, rng);
    EXPECT_EQ(r.steps, 7u);
    EXPECT_EQ(r.samplesProcessed, 28u);
    ASSERT_EQ(spy.batches.size(), 7u);
    for (const auto& b : spy.batches)
    {
        EXPECT_EQ(b.size(), 4u);
    }

    // A batch larger than the data set is the whole data set.
    spy.batches.clear();
    const LocalResult<double> big =
        LocalTrainer<double>(Config(3, 64, 0.01)).Train(spy, Vec<double>::Zero(2), data, rng);
    EXPECT_EQ(big.samplesProcessed, 60u);
    for (const auto& b : spy.batches)
    {
        EXPECT_EQ(b.size(), 20u);
    }
}

TEST(LocalTrainer, EveryPassSeesEverySampleOnceAndIsReshuffled)
{
    Rng rng(2);
    const Eigen::Index n = 12;
    const Dataset<double> data = IndexedData(n, rng);
    for (std::size_t batch : {4u, 5u, 7u})
    {
        SCOPED_TRACE(batch);
        SpyModel spy(2);
        LocalTrainerConfig c = Config(1, batch, 0.01);
        c.localEpochs = 5.0; // E = ceil(5 * 12 / B) steps of exactly B samples
        const LocalResult<double> r =
            LocalTrainer<double>(c).Train(spy, Vec<double>::Zero(2), data, rng);
        EXPECT_EQ(r.steps, static_cast<std::size_t>(std::ceil(60.0 / batch)));
        std::vector<double> stream;
        for (const auto& b : spy.batches)
        {
            stream.insert(stream.end(), b.begin(), b.end());
        }
        ASSERT_GE(stream.size(), 60u);
        std::set<std::vector<double>> orders;
        for (std::size_t pass = 0; pass < 5; ++pass)
        {
            std::vector<double> order(stream.begin() + pass * n, stream.begin() + (pass + 1) * n);
            orders.insert(order);
            std::sort(order.begin(), order.end());
            for (Eigen::Index i = 0; i < n; ++i)
            {
                EXPECT_EQ(order[i], static_cast<double>(i)) << "pass " << pass;
            }
        }
        EXPECT_GE(orders.size(), 4u) << "passes should be reshuffled";
    }
}

TEST(LocalTrainer, EpochsToSteps)
{
    LocalTrainerConfig c = Config(3, 4, 0.1);
    EXPECT_EQ(c.StepsFor(20), 3u); // localEpochs == 0: localSteps
    EXPECT_EQ(c.StepsFor(0), 0u);
    c.localEpochs = 1.0;
    EXPECT_EQ(c.StepsFor(20), 5u);
    EXPECT_EQ(c.StepsFor(21), 6u);
    c.localEpochs = 2.5;
    EXPECT_EQ(c.StepsFor(10), 7u); // ceil(2.5 * 10 / 4)
    c.localEpochs = 0.3;
    EXPECT_EQ(c.StepsFor(10), 1u); // ceil(0.75)
    c.batchSize = 0;               // full batch: one step per epoch
    c.localEpochs = 3.0;
    EXPECT_EQ(c.StepsFor(10), 3u);
    c.batchSize = 50; // batch larger than the data: effective batch n
    EXPECT_EQ(c.StepsFor(10), 3u);
}

TEST(LocalTrainer, OneFullBatchStepIsExactGradientStep)
{
    Rng rng(3);
    const Dataset<double> data = RegressionData(30, 4, rng);
    RidgeRegression<double> model(4, 0.1);
    Vec<double> start(4);
    start << 0.5, -0.25, 1.0, 2.0;
    for (std::size_t batch : {0u, 30u, 1000u})
    {
        SCOPED_TRACE(batch);
        Rng trainRng(77);
        const Rng before = trainRng;
        const LocalResult<double> r =
            LocalTrainer<double>(Config(1, batch, 0.05)).Train(model, start, data, trainRng);
        Vec<double> grad;
        const double loss = model.LossAndGradient(start, data.features, data.targets, grad);
        const Vec<double> expected = start - 0.05 * grad;
        EXPECT_TRUE(r.params == expected);
        EXPECT_TRUE(r.update == r.params - start);
        EXPECT_EQ(r.meanLoss, loss);
        EXPECT_EQ(r.samplesProcessed, 30u);
        EXPECT_TRUE(trainRng == before) << "full-batch training draws no random numbers";
    }
}

TEST(LocalTrainer, DividedByStepsRuleAndMeanLoss)
{
    Rng rng(4);
    const Dataset<double> data = RegressionData(25, 3, rng);
    RidgeRegression<double> model(3, 0.0);
    const Vec<double> start = Vec<double>::Zero(3);
    LocalTrainerConfig c = Config(4, 0, 0.8);
    c.stepRule = StepRule::DividedBySteps;
    const LocalResult<double> r = LocalTrainer<double>(c).Train(model, start, data, rng);

    // Hand-rolled: 4 full-batch steps of size mu / E = 0.2.
    Vec<double> w = start;
    Vec<double> g;
    double lossSum = 0.0;
    for (int e = 0; e < 4; ++e)
    {
        lossSum += model.LossAndGradient(w, data.features, data.targets, g);
        w -= (0.8 / 4.0) * g;
    }
    EXPECT_TRUE(r.params == w);
    EXPECT_DOUBLE_EQ(r.meanLoss, lossSum / 4.0);
    EXPECT_EQ(r.steps, 4u);

    // The fixed rule with learningRate mu / E gives the same trajectory.
    const LocalResult<double> fixed =
        LocalTrainer<double>(Config(4, 0, 0.2)).Train(model, start, data, rng);
    EXPECT_TRUE(fixed.params == r.params);
}

TEST(LocalTrainer, ClipToNorm)
{
    Vec<double> g(3);
    g << 3.0, 4.0, 12.0; // norm 13
    Vec<double> big = g;
    const double f = ClipToNorm(big, 1.0);
    EXPECT_NEAR(f, 1.0 / 13.0, 1e-16);
    EXPECT_LE(big.norm(), 1.0 * (1.0 + 1e-15));
    EXPECT_NEAR(big.norm(), 1.0, 1e-15);
    EXPECT_LT((13.0 * big - g).norm(), 1e-13); // same direction

    Vec<double> small = g;
    EXPECT_EQ(ClipToNorm(small, 20.0), 1.0);
    EXPECT_TRUE(small == g);
    EXPECT_EQ(ClipToNorm(small, 0.0), 1.0); // off
    EXPECT_TRUE(small == g);

    Vec<float> gf = g.cast<float>();
    EXPECT_NEAR(ClipToNorm(gf, 6.5), 0.5f, 1e-7f);
    EXPECT_NEAR(gf.norm(), 6.5f, 1e-5f);
}

TEST(LocalTrainer, ClippingInTraining)
{
    Rng rng(5);
    Dataset<double> data = RegressionData(40, 3, rng);
    data.targets *= 100.0; // large gradients at w = 0
    RidgeRegression<double> model(3, 0.0);
    const Vec<double> start = Vec<double>::Zero(3);
    LocalTrainerConfig c = Config(1, 0, 0.1);
    c.clipNorm = 0.5;
    const LocalResult<double> r = LocalTrainer<double>(c).Train(model, start, data, rng);

    Vec<double> g;
    model.LossAndGradient(start, data.features, data.targets, g);
    ASSERT_GT(g.norm(), 0.5);
    Vec<double> clipped = g;
    const double factor = ClipToNorm(clipped, 0.5);
    EXPECT_NEAR(factor, 0.5 / g.norm(), 1e-15);
    EXPECT_TRUE(r.params == start - 0.1 * clipped);
    // The step is lr * C long: the clipped gradient has norm C.
    EXPECT_NEAR(r.update.norm(), 0.1 * 0.5, 1e-14);

    // Mini-batch steps are each at most lr * C long.
    c.localSteps = 20;
    c.batchSize = 8;
    Vec<double> w = start;
    Rng rng2(6);
    for (int k = 0; k < 5; ++k)
    {
        c.localSteps = 1;
        const LocalResult<double> one = LocalTrainer<double>(c).Train(model, w, data, rng2);
        EXPECT_LE(one.update.norm(), 0.1 * 0.5 * (1.0 + 1e-12));
        w = one.params;
    }
}

TEST(LocalTrainer, FedProxTerm)
{
    Rng rng(7);
    const Dataset<double> data = RegressionData(30, 3, rng);
    RidgeRegression<double> model(3, 0.0);
    Vec<double> start(3);
    start << 1.0, 1.0, -1.0;

    // Hand-computed: step 1 has no proximal pull (w = start); step 2 adds mu (w1 - start).
    LocalTrainerConfig c = Config(2, 0, 0.1);
    c.proxMu = 0.7;
    const LocalResult<double> r = LocalTrainer<double>(c).Train(model, start, data, rng);
    Vec<double> g;
    model.LossAndGradient(start, data.features, data.targets, g);
    const Vec<double> w1 = start - 0.1 * g;
    model.LossAndGradient(w1, data.features, data.targets, g);
    const Vec<double> w2 = w1 - 0.1 * (g + 0.7 * (w1 - start));
    EXPECT_LT((r.params - w2).norm(), 1e-15 * w2.norm());

    // A huge pull keeps the model near the start. The explicit step is stable for
    // lr * proxMu <= 2; at lr * proxMu = 1 every step lands at start - lr * grad(w_{e-1}),
    // so after E steps the model is one gradient step away from the start instead of E.
    LocalTrainerConfig plain = Config(50, 8, 0.01);
    LocalTrainerConfig prox = plain;
    prox.proxMu = 100.0;
    Rng a(8);
    Rng b(8);
    const LocalResult<double> rp = LocalTrainer<double>(plain).Train(model, start, data, a);
    const LocalResult<double> rx = LocalTrainer<double>(prox).Train(model, start, data, b);
    EXPECT_LT(rx.update.norm(), 0.1 * rp.update.norm());
    model.LossAndGradient(start, data.features, data.targets, g);
    EXPECT_LT(rx.update.norm(), 0.02 * g.norm()); // about lr * ||grad||
}

TEST(LocalTrainer, DeterministicGivenTheRngState)
{
    Rng dataRng(9);
    const Dataset<float> data = Blobs<float>(100, dataRng);
    MlpClassifier<float> model({2, 16, 3}, Activation::Relu, 1e-4);
    Rng initRng(10);
    const Vec<float> start = model.InitialParameters(initRng);
    const LocalTrainer<float> trainer(Config(30, 8, 0.1));

    Rng a(123);
    Rng b(123);
    Rng c(124);
    const LocalResult<float> ra = trainer.Train(model, start, data, a);
    const LocalResult<float> rb = trainer.Train(model, start, data, b);
    const LocalResult<float> rc = trainer.Train(model, start, data, c);
    EXPECT_TRUE(ra.params == rb.params);
    EXPECT_EQ(ra.meanLoss, rb.meanLoss);
    EXPECT_TRUE(a == b);
    EXPECT_FALSE(ra.params == rc.params);
    EXPECT_TRUE(ra.update == ra.params - start);
    EXPECT_TRUE(rc.update == rc.params - start);
}

TEST(LocalTrainer, LearnsASeparableProblem)
{
    Rng rng(11);
    const Dataset<float> train = Blobs<float>(300, rng);
    const Dataset<float> test = Blobs<float>(300, rng);
    MlpClassifier<float> model({2, 16, 3}, Activation::Tanh, 0.0);
    const Vec<float> start = model.InitialParameters(rng);
    LocalTrainerConfig c = Config(1, 16, 0.2);
    c.localEpochs = 10.0;
    const LocalResult<float> r = LocalTrainer<float>(c).Train(model, start, train, rng);
    EXPECT_EQ(r.steps, 188u); // ceil(10 * 300 / 16)
    const Evaluation before = Evaluate(model, start, test);
    const Evaluation after = Evaluate(model, r.params, test);
    EXPECT_LT(after.loss, 0.5 * before.loss);
    EXPECT_GT(after.accuracy, 0.95);
}

TEST(LocalTrainer, EmptyDataMakesNoSteps)
{
    Rng rng(12);
    Dataset<double> empty;
    empty.features.resize(0, 3);
    RidgeRegression<double> model(3, 0.0);
    const Vec<double> start = Vec<double>::Ones(3);
    const LocalResult<double> r =
        LocalTrainer<double>(Config(5, 4, 0.1)).Train(model, start, empty, rng);
    EXPECT_EQ(r.steps, 0u);
    EXPECT_EQ(r.samplesProcessed, 0u);
    EXPECT_TRUE(r.params == start);
    EXPECT_TRUE(r.update.isZero(0.0));
}

TEST(LocalTrainer, BadConfigurationIsRejected)
{
    auto bad = [](auto mutate) {
        LocalTrainerConfig c;
        mutate(c);
        return c;
    };
    ExpectConfigError([&] { bad([](auto& c) { c.learningRate = 0.0; }).Validate(); },
                      "learningRate");
    ExpectConfigError([&] { bad([](auto& c) { c.learningRate = -1.0; }).Validate(); },
                      "learningRate");
    ExpectConfigError([&] { bad([](auto& c) { c.learningRate = std::nan(""); }).Validate(); },
                      "learningRate");
    ExpectConfigError([&] { bad([](auto& c) { c.localSteps = 0; }).Validate(); }, "localSteps");
    ExpectConfigError([&] { bad([](auto& c) { c.localEpochs = -1.0; }).Validate(); },
                      "localEpochs");
    ExpectConfigError([&] { bad([](auto& c) { c.clipNorm = -0.5; }).Validate(); }, "clipNorm");
    ExpectConfigError([&] { bad([](auto& c) { c.proxMu = -0.1; }).Validate(); }, "proxMu");
    ExpectConfigError([&] { LocalTrainer<double>(bad([](auto& c) { c.learningRate = 0.0; })); },
                      "learningRate");
    // localSteps = 0 is fine when epochs decide.
    EXPECT_NO_THROW(bad([](auto& c) {
                        c.localSteps = 0;
                        c.localEpochs = 1.0;
                    }).Validate());
    EXPECT_NO_THROW(LocalTrainerConfig().Validate());

    Rng rng(13);
    const Dataset<double> data = RegressionData(10, 3, rng);
    RidgeRegression<double> model(3, 0.0);
    const LocalTrainer<double> trainer(Config(1, 4, 0.1));
    ExpectConfigError([&] { trainer.Train(model, Vec<double>::Zero(4), data, rng); }, "start");
    RidgeRegression<double> wide(5, 0.0);
    ExpectConfigError([&] { trainer.Train(wide, Vec<double>::Zero(5), data, rng); }, "data");
}

#ifdef FL_COUNT_MALLOC
TEST(LocalTrainer, NoAllocationPerStep)
{
    Rng rng(14);
    const Dataset<float> blobs = Blobs<float>(64, rng);
    Dataset<float> wide;
    wide.features = Gaussian(64, 20, rng).cast<float>();
    wide.targets = Gaussian(64, 1, rng).col(0).cast<float>();
    wide.kind = TargetKind::Regression;

    MlpClassifier<float> mlp({2, 32, 16, 3}, Activation::Relu, 1e-3);
    SoftmaxRegression<float> softmax(2, 3, 1e-3);
    RidgeRegression<float> ridge(20, 0.1);
    LogisticRegression<float> logistic(20, 0.1);
    Dataset<float> signs = wide;
    signs.targets = wide.targets.unaryExpr([](float t) { return t > 0 ? 1.0f : -1.0f; });

    struct Case
    {
        const Model<float>* model;
        const Dataset<float>* data;
    };

    const std::vector<Case> cases{{&mlp, &blobs},
                                  {&softmax, &blobs},
                                  {&ridge, &wide},
                                  {&logistic, &signs}};
    for (const Case& k : cases)
    {
        for (std::size_t batch : {0u, 8u, 10u})
        {
            SCOPED_TRACE(k.model->Name() + " batch " + std::to_string(batch));
            const Vec<float> start = k.model->InitialParameters(rng);
            LocalTrainerConfig c = Config(5, batch, 0.01);
            c.clipNorm = 1.0;
            c.proxMu = 0.1;
            const LocalTrainer<float> few(c);
            c.localSteps = 60;
            const LocalTrainer<float> many(c);
            // warm up the model's and the trainers' scratch buffers
            few.Train(*k.model, start, *k.data, rng);
            many.Train(*k.model, start, *k.data, rng);

            g_allocations = 0;
            g_countAllocations = true;
            const LocalResult<float> a = few.Train(*k.model, start, *k.data, rng);
            g_countAllocations = false;
            const long fewAllocations = g_allocations.load();

            g_allocations = 0;
            g_countAllocations = true;
            const LocalResult<float> b = many.Train(*k.model, start, *k.data, rng);
            g_countAllocations = false;
            const long manyAllocations = g_allocations.load();

            EXPECT_EQ(a.steps, 5u);
            EXPECT_EQ(b.steps, 60u);
            EXPECT_GT(fewAllocations, 0); // the counter works (result vectors, batch buffer)
            EXPECT_EQ(manyAllocations, fewAllocations);

            // TrainInto a vector of the right size allocates nothing at all, and gives Train's
            // parameters bit for bit.
            Vec<float> w = start;
            Rng r1(15);
            Rng r2(15);
            g_allocations = 0;
            g_countAllocations = true;
            many.TrainInto(*k.model, start, *k.data, r1, w);
            g_countAllocations = false;
            EXPECT_EQ(g_allocations.load(), 0);
            EXPECT_TRUE(w == many.Train(*k.model, start, *k.data, r2).params);
        }
    }
}
#endif
