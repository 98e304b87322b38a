/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Tests of the synthetic data generators and of the partitioners.
 *
 * Statistical checks use fixed seeds, and every tolerance is derived from the sampling
 * distribution of the statistic (stated next to it), normally 5 standard deviations. Under the
 * normal approximation a 5-sigma deviation has probability about 6e-7 per check, so a failure
 * points to a bug rather than bad luck, whatever the seed.
 */
#include "ns3/partition.h"
#include "ns3/synthetic-data.h"

#include <Eigen/Cholesky>
#include <algorithm>
#include <cmath>
#include <gtest/gtest.h>
#include <numeric>
#include <set>

using namespace ns3::fl;

namespace
{

/// Every index 0..n-1 appears exactly once in the partition.
void
ExpectCoverage(const Partition& part, std::size_t n)
{
    std::vector<int> seen(n, 0);
    std::size_t total = 0;
    for (const auto& client : part)
    {
        for (std::size_t i : client)
        {
            ASSERT_LT(i, n);
            ++seen[i];
        }
        total += client.size();
    }
    EXPECT_EQ(total, n);
    EXPECT_TRUE(std::all_of(seen.begin(), seen.end(), [](int c) { return c == 1; }))
        << "some index is missing or repeated";
}

/// n samples, labels i mod classes (so that sorting by label gives equal contiguous blocks).
Dataset<double>
LabelledData(std::size_t n, int classes)
{
    Dataset<double> d;
    d.kind = TargetKind::Categorical;
    d.numClasses = classes;
    d.features.resize(static_cast<Eigen::Index>(n), 1);
    d.targets.resize(static_cast<Eigen::Index>(n));
    for (std::size_t i = 0; i < n; ++i)
    {
        d.features(i, 0) = static_cast<double>(i);
        d.targets[i] = static_cast<double>(i % classes);
    }
    return d;
}

std::vector<std::size_t>
Sizes(const Partition& p)
{
    std::vector<std::size_t> s;
    for (const auto& c : p)
    {
        s.push_back(c.size());
    }
    return s;
}

/// Mean over classes of the Herfindahl index sum_k share_{k,c}^2 of the clients' shares.
double
MeanHerfindahl(const std::vector<std::vector<std::size_t>>& counts)
{
    const std::size_t classes = counts.front().size();
    double sum = 0.0;
    for (std::size_t c = 0; c < classes; ++c)
    {
        double nc = 0.0;
        for (const auto& row : counts)
        {
            nc += static_cast<double>(row[c]);
        }
        double h = 0.0;
        for (const auto& row : counts)
        {
            h += std::pow(static_cast<double>(row[c]) / nc, 2);
        }
        sum += h;
    }
    return sum / static_cast<double>(classes);
}

// ------------------------------------------------------------------------------------------
// Partitioners
// ------------------------------------------------------------------------------------------

TEST(PartitionTest, IidSizesAndCoverage)
{
    Rng rng(11);
    const Partition p = PartitionIid(103, 10, rng);
    ASSERT_EQ(p.size(), 10u);
    ExpectCoverage(p, 103);
    const auto sizes = Sizes(p);
    for (std::size_t k = 0; k < 10; ++k)
    {
        EXPECT_EQ(sizes[k], k < 3 ? 11u : 10u) << "client " << k; // first 103 mod 10 get one more
    }
    const Partition one = PartitionIid(5, 5, rng);
    ExpectCoverage(one, 5);
    EXPECT_EQ(Sizes(one), std::vector<std::size_t>(5, 1));

    EXPECT_THROW(PartitionIid(10, 0, rng), ConfigError);
    EXPECT_THROW(PartitionIid(10, 11, rng), ConfigError);
}

TEST(PartitionTest, UnequalSizes)
{
    Rng rng(12);
    const Partition p = PartitionUnequal(1000, 20, 1.0, 10, rng);
    ASSERT_EQ(p.size(), 20u);
    ExpectCoverage(p, 1000);
    const auto sizes = Sizes(p);
    EXPECT_GE(*std::min_element(sizes.begin(), sizes.end()), 10u);
    EXPECT_GT(*std::max_element(sizes.begin(), sizes.end()),
              *std::min_element(sizes.begin(), sizes.end()) + 5);

    // sigma = 0: equal weights, so equal sizes up to the remainder (first ones get one more).
    const Partition eq = PartitionUnequal(1003, 10, 0.0, 0, rng);
    ExpectCoverage(eq, 1003);
    const auto eqSizes = Sizes(eq);
    for (std::size_t k = 0; k < 10; ++k)
    {
        EXPECT_EQ(eqSizes[k], k < 3 ? 101u : 100u);
    }

    // The minimum can take everything.
    const Partition tight = PartitionUnequal(60, 6, 3.0, 10, rng);
    EXPECT_EQ(Sizes(tight), std::vector<std::size_t>(6, 10));
    ExpectCoverage(tight, 60);

    // Very large sigma: still exact total, minimum respected.
    const Partition wild = PartitionUnequal(500, 7, 50.0, 3, rng);
    ExpectCoverage(wild, 500);
    for (auto s : Sizes(wild))
    {
        EXPECT_GE(s, 3u);
    }

    EXPECT_THROW(PartitionUnequal(100, 0, 1.0, 0, rng), ConfigError);
    EXPECT_THROW(PartitionUnequal(100, 10, -1.0, 0, rng), ConfigError);
    EXPECT_THROW(PartitionUnequal(100, 10, 1.0, 11, rng), ConfigError);
}

TEST(PartitionTest, ShardsAlignedWithClasses)
{
    // 10 classes x 100 samples; 5 clients x 2 shards = 10 shards of 100 samples = one class each.
    const auto data = LabelledData(1000, 10);
    for (auto [clients, spc] : {std::pair<std::size_t, std::size_t>{5, 2}, {10, 2}, {10, 1}})
    {
        Rng rng(13);
        const Partition p = PartitionShards(data, clients, spc, rng);
        ASSERT_EQ(p.size(), clients);
        ExpectCoverage(p, 1000);
        const auto counts = LabelCounts(data, p);
        for (std::size_t k = 0; k < clients; ++k)
        {
            EXPECT_EQ(p[k].size(), 1000 / clients);
            const auto distinct = std::count_if(counts[k].begin(),
                                                counts[k].end(),
                                                [](std::size_t c) { return c > 0; });
            EXPECT_LE(static_cast<std::size_t>(distinct), spc) << "client " << k;
        }
    }
}

TEST(PartitionTest, ShardsUnevenAndErrors)
{
    // 1003 samples in 20 shards: 3 shards of 51, 17 of 50; each client holds 2 of them.
    const auto data = LabelledData(1003, 7);
    Rng rng(14);
    const Partition p = PartitionShards(data, 10, 2, rng);
    ExpectCoverage(p, 1003);
    for (auto s : Sizes(p))
    {
        EXPECT_GE(s, 100u);
        EXPECT_LE(s, 102u);
    }

    EXPECT_THROW(PartitionShards(data, 0, 2, rng), ConfigError);
    EXPECT_THROW(PartitionShards(data, 10, 0, rng), ConfigError);
    EXPECT_THROW(PartitionShards(data, 500, 3, rng), ConfigError); // 1500 shards > 1003 samples
    auto reg = data;
    reg.kind = TargetKind::Regression;
    EXPECT_THROW(PartitionShards(reg, 10, 2, rng), ConfigError);
}

TEST(PartitionTest, DirichletCoverageAndErrors)
{
    const auto data = LabelledData(997, 10);
    for (double alpha : {0.001, 0.01, 0.5, 1.0, 1000.0})
    {
        Rng rng(15);
        const Partition p = PartitionDirichlet(data, 10, alpha, rng);
        ASSERT_EQ(p.size(), 10u);
        ExpectCoverage(p, 997);
    }
    // Binary labels work too (two classes).
    Dataset<float> bin;
    bin.kind = TargetKind::BinarySigned;
    bin.numClasses = 2;
    bin.features = Mat<float>::Zero(50, 2);
    bin.targets = Vec<float>::Ones(50);
    bin.targets.head(20).setConstant(-1.0f);
    Rng rng(16);
    const Partition pb = PartitionDirichlet(bin, 4, 1.0, rng);
    ExpectCoverage(pb, 50);
    const auto counts = LabelCounts(bin, pb);
    std::size_t neg = 0;
    for (const auto& row : counts)
    {
        neg += row[0];
    }
    EXPECT_EQ(neg, 20u);

    EXPECT_THROW(PartitionDirichlet(data, 0, 1.0, rng), ConfigError);
    EXPECT_THROW(PartitionDirichlet(data, 10, 0.0, rng), ConfigError);
    EXPECT_THROW(PartitionDirichlet(data, 10, -1.0, rng), ConfigError);
    EXPECT_THROW(PartitionDirichlet(data, 10, std::nan(""), rng), ConfigError);
}

TEST(PartitionTest, DirichletLargeAlphaIsNearUniform)
{
    // K = 10 clients, 10 classes of n_c = 1000 samples. For each class the shares are
    // p ~ Dir(alpha 1_K), so p_k ~ Beta(alpha, (K-1) alpha) with mean 1/K and variance
    // (1/K)(1 - 1/K) / (K alpha + 1) = 0.09 / 10001, i.e. sd 0.0030 for alpha = 1000.
    // Rounding the cumulative cuts moves a count by at most 1, i.e. a share by 1/n_c = 0.001.
    // Bound: |share - 0.1| <= 5 sd + 0.001 = 0.016 for all 100 (client, class) pairs.
    const std::size_t K = 10;
    const auto data = LabelledData(10000, 10);
    Rng rng(17);
    const Partition p = PartitionDirichlet(data, K, 1000.0, rng);
    ExpectCoverage(p, 10000);
    const auto counts = LabelCounts(data, p);
    const double sd = std::sqrt(0.1 * 0.9 / (K * 1000.0 + 1.0));
    for (std::size_t k = 0; k < K; ++k)
    {
        for (std::size_t c = 0; c < 10; ++c)
        {
            EXPECT_NEAR(counts[k][c] / 1000.0, 0.1, 5 * sd + 0.001)
                << "client " << k << " class " << c;
        }
    }
    // Herfindahl index sum_k p_k^2 has mean (alpha + 1) / (K alpha + 1) = 0.1001 (uniform: 0.1).
    EXPECT_LT(MeanHerfindahl(counts), 0.11);
}

TEST(PartitionTest, DirichletSmallAlphaIsSkewed)
{
    // For p ~ Dir(alpha 1_K): E[p_k^2] = alpha (alpha + 1) / (K alpha (K alpha + 1)), so the
    // Herfindahl index H = sum_k p_k^2 has mean (alpha + 1) / (K alpha + 1) = 0.918 for
    // alpha = 0.01, K = 10 (it is 1/K = 0.1 for an even split). As H lies in [1/K, 1],
    // Var(H) <= E[(1 - H)^2] <= (1 - 1/K) E[1 - H] = 0.9 * 0.082 = 0.074. Averaged over C = 50
    // independent classes: sd <= sqrt(0.074 / 50) = 0.038, and 5 sd = 0.19. Rounding the
    // cuts (n_c = 200) changes each share by <= 1/200, hence H by <= 2 * 1/200 = 0.01.
    // Bound: mean H >= 0.918 - 0.19 - 0.01 > 0.7.
    const std::size_t K = 10;
    const auto data = LabelledData(10000, 50);
    Rng rng(18);
    const Partition p = PartitionDirichlet(data, K, 0.01, rng);
    ExpectCoverage(p, 10000);
    const auto counts = LabelCounts(data, p);
    const double expected = (0.01 + 1.0) / (K * 0.01 + 1.0);
    EXPECT_NEAR(expected, 0.918, 1e-3);
    EXPECT_GT(MeanHerfindahl(counts), expected - 5 * std::sqrt(0.9 * (1 - expected) / 50) - 0.01);
}

TEST(PartitionTest, DeterministicForASeed)
{
    const auto data = LabelledData(500, 10);
    const auto run = [&](uint64_t seed) {
        Rng rng(seed);
        std::vector<Partition> out;
        out.push_back(PartitionIid(500, 7, rng));
        out.push_back(PartitionShards(data, 10, 2, rng));
        out.push_back(PartitionDirichlet(data, 8, 0.5, rng));
        out.push_back(PartitionUnequal(500, 9, 1.0, 5, rng));
        return out;
    };
    const auto a = run(42);
    const auto b = run(42);
    const auto c = run(43);
    ASSERT_EQ(a.size(), 4u);
    for (std::size_t i = 0; i < a.size(); ++i)
    {
        EXPECT_EQ(a[i], b[i]) << "partitioner " << i << " differs for the same seed";
        EXPECT_NE(a[i], c[i]) << "partitioner " << i << " ignores the seed";
    }
}

TEST(PartitionTest, LabelCounts)
{
    const auto data = LabelledData(30, 3);
    const Partition p{{0, 1, 2, 3}, {4}, {}};
    const auto counts = LabelCounts(data, p);
    ASSERT_EQ(counts.size(), 3u);
    EXPECT_EQ(counts[0], (std::vector<std::size_t>{2, 1, 1}));
    EXPECT_EQ(counts[1], (std::vector<std::size_t>{0, 1, 0}));
    EXPECT_EQ(counts[2], (std::vector<std::size_t>{0, 0, 0}));
    EXPECT_THROW(LabelCounts(data, Partition{{30}}), ConfigError);
}

// ------------------------------------------------------------------------------------------
// Synthetic data
// ------------------------------------------------------------------------------------------

TEST(SyntheticTest, RegressionMatchesGeneratingModel)
{
    RegressionTaskConfig cfg;
    cfg.dim = 3;
    cfg.agents = 4;
    cfg.samplesPerAgent = 20000;
    cfg.covarianceScale = 0.05;
    cfg.noiseVarMin = 0.01;
    cfg.noiseVarMax = 0.1;
    Rng rng(21);
    const auto task = MakeRegressionTask<double>(cfg, rng);
    ASSERT_EQ(task.wStar.size(), 3);
    ASSERT_EQ(task.agents.size(), 4u);
    const double n = static_cast<double>(cfg.samplesPerAgent);
    for (std::size_t k = 0; k < cfg.agents; ++k)
    {
        const auto& a = task.agents[k];
        ASSERT_EQ(a.data.Size(), cfg.samplesPerAgent);
        ASSERT_EQ(a.data.Dim(), 3u);
        EXPECT_EQ(a.data.kind, TargetKind::Regression);
        EXPECT_NO_THROW(a.data.Validate("regression"));
        EXPECT_GE(a.noiseVariance, cfg.noiseVarMin);
        EXPECT_LE(a.noiseVariance, cfg.noiseVarMax);
        const Eigen::MatrixXd& r = a.covariance;
        EXPECT_TRUE(r.isApprox(r.transpose(), 1e-14));
        EXPECT_EQ(Eigen::LLT<Eigen::MatrixXd>(r).info(), Eigen::Success); // positive definite

        // Sample covariance (u has known mean 0): S_ij = mean(u_i u_j), and for a zero-mean
        // Gaussian Var(u_i u_j) = R_ii R_jj + R_ij^2, so sd(S_ij) = sqrt((R_ii R_jj + R_ij^2) / N).
        const Eigen::MatrixXd u = a.data.features;
        const Eigen::MatrixXd s = u.transpose() * u / n;
        for (int i = 0; i < 3; ++i)
        {
            for (int j = 0; j < 3; ++j)
            {
                const double sd = std::sqrt((r(i, i) * r(j, j) + r(i, j) * r(i, j)) / n);
                EXPECT_NEAR(s(i, j), r(i, j), 5 * sd) << "agent " << k << " entry " << i << j;
            }
        }

        // Residual d - u^T w* is the label noise v ~ N(0, sigma_v^2), with the shared w*.
        // mean(v): sd sigma_v / sqrt(N); mean(v^2) / sigma_v^2: sd sqrt(2 / N).
        const Eigen::VectorXd v = a.data.targets - u * task.wStar;
        const double sigma2 = a.noiseVariance;
        EXPECT_NEAR(v.mean(), 0.0, 5 * std::sqrt(sigma2 / n));
        EXPECT_NEAR(v.squaredNorm() / n / sigma2, 1.0, 5 * std::sqrt(2.0 / n));
    }
    EXPECT_FALSE(task.agents[0].covariance.isApprox(task.agents[1].covariance));
}

TEST(SyntheticTest, RegressionCovarianceAndModelDistribution)
{
    // R_k = s L L^T with L standard Gaussian (M x M): E[R_k] = s M I, Var(R_ii) = 2 s^2 M,
    // Var(R_ij) = s^2 M (i != j). Averaged over A agents: sd s sqrt(2M / A) and s sqrt(M / A).
    RegressionTaskConfig cfg;
    cfg.dim = 2;
    cfg.agents = 2000;
    cfg.samplesPerAgent = 1;
    const double s = cfg.covarianceScale;
    const double m = 2.0;
    const double agents = static_cast<double>(cfg.agents);
    Rng rng(22);
    const auto task = MakeRegressionTask<double>(cfg, rng);
    Eigen::MatrixXd mean = Eigen::MatrixXd::Zero(2, 2);
    for (const auto& a : task.agents)
    {
        mean += a.covariance / agents;
    }
    EXPECT_NEAR(mean(0, 0), s * m, 5 * s * std::sqrt(2 * m / agents));
    EXPECT_NEAR(mean(1, 1), s * m, 5 * s * std::sqrt(2 * m / agents));
    EXPECT_NEAR(mean(0, 1), 0.0, 5 * s * std::sqrt(m / agents));

    // w* ~ N(0, I): over 500 seeds x M = 2 draws, mean has sd sqrt(1/1000) and the mean square
    // has sd sqrt(2/1000).
    RegressionTaskConfig small;
    small.agents = 1;
    small.samplesPerAgent = 1;
    double sum = 0.0;
    double sumSq = 0.0;
    for (uint64_t seed = 0; seed < 500; ++seed)
    {
        Rng r(seed);
        const auto t = MakeRegressionTask<double>(small, r);
        sum += t.wStar.sum();
        sumSq += t.wStar.squaredNorm();
    }
    EXPECT_NEAR(sum / 1000.0, 0.0, 5 * std::sqrt(1.0 / 1000));
    EXPECT_NEAR(sumSq / 1000.0, 1.0, 5 * std::sqrt(2.0 / 1000));
}

TEST(SyntheticTest, RegressionDeterminismFloatAndErrors)
{
    RegressionTaskConfig cfg;
    cfg.noiseVarMin = cfg.noiseVarMax = 0.05;
    Rng r1(23);
    Rng r2(23);
    Rng r3(24);
    const auto a = MakeRegressionTask<double>(cfg, r1);
    const auto f = MakeRegressionTask<float>(cfg, r2);
    const auto c = MakeRegressionTask<double>(cfg, r3);
    EXPECT_EQ(a.wStar, f.wStar);
    for (std::size_t k = 0; k < cfg.agents; ++k)
    {
        EXPECT_EQ(a.agents[k].noiseVariance, 0.05);
        EXPECT_EQ(a.agents[k].data.features.cast<float>(), f.agents[k].data.features);
        EXPECT_EQ(a.agents[k].data.targets.cast<float>(), f.agents[k].data.targets);
    }
    EXPECT_NE(a.wStar, c.wStar);

    const auto bad = [](auto mutate) {
        RegressionTaskConfig b;
        mutate(b);
        Rng r(1);
        return [b, r]() mutable { MakeRegressionTask<double>(b, r); };
    };
    EXPECT_THROW(bad([](auto& b) { b.dim = 0; })(), ConfigError);
    EXPECT_THROW(bad([](auto& b) { b.agents = 0; })(), ConfigError);
    EXPECT_THROW(bad([](auto& b) { b.samplesPerAgent = 0; })(), ConfigError);
    EXPECT_THROW(bad([](auto& b) { b.covarianceScale = 0.0; })(), ConfigError);
    EXPECT_THROW(bad([](auto& b) { b.noiseVarMin = -0.1; })(), ConfigError);
    EXPECT_THROW(bad([](auto& b) { b.noiseVarMin = 0.2; })(), ConfigError);
    try
    {
        bad([](auto& b) { b.noiseVarMin = 0.2; })();
    }
    catch (const ConfigError& e)
    {
        EXPECT_EQ(e.Parameter(), "noiseVarMin");
    }
}

TEST(SyntheticTest, GaussianBinaryClassBalanceAndMeans)
{
    // N = 20000, P(+1) = 0.3: the +1 fraction has sd sqrt(0.3 * 0.7 / N) = 0.0032. Within class
    // c with n_c samples, each coordinate of the class mean has sd sqrt(sigmaH2 / n_c), and the
    // within-class variance estimate / sigmaH2 has sd about sqrt(2 / n_c).
    const std::size_t n = 20000;
    Eigen::VectorXd mean(3);
    mean << 1.0, -0.5, 2.0;
    const double sigmaH2 = 0.5;
    const double prior = 0.3;
    Rng rng(31);
    const auto d = MakeGaussianBinary<double>(n, mean, sigmaH2, prior, rng);
    ASSERT_EQ(d.Size(), n);
    ASSERT_EQ(d.Dim(), 3u);
    EXPECT_EQ(d.kind, TargetKind::BinarySigned);
    EXPECT_EQ(d.numClasses, 2);
    EXPECT_NO_THROW(d.Validate("binary"));

    for (int g : {1, -1})
    {
        std::vector<Eigen::Index> rows;
        for (Eigen::Index i = 0; i < d.targets.size(); ++i)
        {
            if (d.targets[i] == g)
            {
                rows.push_back(i);
            }
        }
        const double nc = static_cast<double>(rows.size());
        const double share = g == 1 ? prior : 1.0 - prior;
        EXPECT_NEAR(nc / n, share, 5 * std::sqrt(prior * (1 - prior) / n));
        Eigen::VectorXd m = Eigen::VectorXd::Zero(3);
        for (auto i : rows)
        {
            m += d.features.row(i).transpose() / nc;
        }
        double var = 0.0;
        for (auto i : rows)
        {
            var += (d.features.row(i).transpose() - m).squaredNorm() / (3 * (nc - 1));
        }
        for (int j = 0; j < 3; ++j)
        {
            EXPECT_NEAR(m[j], g * mean[j], 5 * std::sqrt(sigmaH2 / nc)) << "class " << g;
        }
        // Pooled over 3 coordinates: sd sqrt(2 / (3 (n_c - 1))).
        EXPECT_NEAR(var / sigmaH2, 1.0, 5 * std::sqrt(2.0 / (3 * (nc - 1))));
    }

    Rng r0(32);
    EXPECT_TRUE(
        (MakeGaussianBinary<float>(100, mean, 1.0, 0.0, r0).targets.array() == -1.0f).all());
    EXPECT_TRUE((MakeGaussianBinary<float>(100, mean, 1.0, 1.0, r0).targets.array() == 1.0f).all());

    Rng a(33);
    Rng b(33);
    EXPECT_EQ(MakeGaussianBinary<double>(50, mean, 1.0, 0.5, a).features,
              MakeGaussianBinary<double>(50, mean, 1.0, 0.5, b).features);

    EXPECT_THROW(MakeGaussianBinary<double>(0, mean, 1.0, 0.5, rng), ConfigError);
    EXPECT_THROW(MakeGaussianBinary<double>(10, Eigen::VectorXd(), 1.0, 0.5, rng), ConfigError);
    EXPECT_THROW(MakeGaussianBinary<double>(10, mean, 0.0, 0.5, rng), ConfigError);
    EXPECT_THROW(MakeGaussianBinary<double>(10, mean, 1.0, 1.5, rng), ConfigError);
    EXPECT_THROW(MakeGaussianBinary<double>(10, mean, 1.0, -0.1, rng), ConfigError);
}

TEST(SyntheticTest, GaussianMixture)
{
    GaussianMixtureConfig cfg;
    cfg.dim = 5;
    cfg.classes = 4;
    cfg.separation = 3.0;
    Rng rng(41);
    const Eigen::MatrixXd centres = MakeMixtureCentres(cfg, rng);
    ASSERT_EQ(centres.rows(), 4);
    ASSERT_EQ(centres.cols(), 5);

    // N = 20000 equiprobable classes: each share has sd sqrt((1/4)(3/4) / N); the class-mean
    // coordinates have sd 1 / sqrt(n_c) (unit within-class covariance).
    const std::size_t n = 20000;
    const auto d = SampleGaussianMixture<double>(centres, n, rng);
    ASSERT_EQ(d.Size(), n);
    ASSERT_EQ(d.Dim(), 5u);
    EXPECT_EQ(d.kind, TargetKind::Categorical);
    EXPECT_EQ(d.numClasses, 4);
    EXPECT_NO_THROW(d.Validate("mixture"));
    std::vector<double> count(4, 0.0);
    Eigen::MatrixXd sums = Eigen::MatrixXd::Zero(4, 5);
    for (std::size_t i = 0; i < n; ++i)
    {
        const int c = d.Label(i);
        ASSERT_GE(c, 0);
        ASSERT_LT(c, 4);
        count[c] += 1.0;
        sums.row(c) += d.features.row(i);
    }
    for (int c = 0; c < 4; ++c)
    {
        EXPECT_NEAR(count[c] / n, 0.25, 5 * std::sqrt(0.25 * 0.75 / n));
        for (int j = 0; j < 5; ++j)
        {
            EXPECT_NEAR(sums(c, j) / count[c], centres(c, j), 5 / std::sqrt(count[c]))
                << "class " << c << " feature " << j;
        }
    }

    // Centre entries ~ N(0, separation^2): over 100 x 50 = 5000 entries the mean square /
    // separation^2 has sd sqrt(2 / 5000).
    GaussianMixtureConfig big;
    big.dim = 50;
    big.classes = 100;
    big.separation = 2.0;
    const Eigen::MatrixXd bc = MakeMixtureCentres(big, rng);
    EXPECT_NEAR(bc.squaredNorm() / 5000 / 4.0, 1.0, 5 * std::sqrt(2.0 / 5000));
    EXPECT_NEAR(bc.mean(), 0.0, 5 * 2.0 / std::sqrt(5000.0));

    Rng a(42);
    Rng b(42);
    EXPECT_EQ(MakeMixtureCentres(cfg, a), MakeMixtureCentres(cfg, b));
    EXPECT_EQ(SampleGaussianMixture<float>(centres, 30, a).features,
              SampleGaussianMixture<float>(centres, 30, b).features);

    GaussianMixtureConfig badCfg = cfg;
    badCfg.classes = 1;
    EXPECT_THROW(MakeMixtureCentres(badCfg, rng), ConfigError);
    badCfg = cfg;
    badCfg.dim = 0;
    EXPECT_THROW(MakeMixtureCentres(badCfg, rng), ConfigError);
    badCfg = cfg;
    badCfg.separation = -1.0;
    EXPECT_THROW(MakeMixtureCentres(badCfg, rng), ConfigError);
    EXPECT_THROW(SampleGaussianMixture<double>(centres.topRows(1), 10, rng), ConfigError);
    EXPECT_THROW(SampleGaussianMixture<double>(centres, 0, rng), ConfigError);
}

} // namespace
