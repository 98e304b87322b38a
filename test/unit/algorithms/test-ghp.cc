/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * GHP diffusion (S. Vlaski, A. H. Sayed, "Graph-Homomorphic Perturbations for Private
 * Decentralized Learning", ICASSP 2021): the adapt step (eq. 3) by hand, the checkable claims
 * that follow from it -- C1 per-agent nullspace, C4 constant centroid under pure averaging, C5
 * exact centroid under a common Hessian, C6 identical messages, C7 steady-state disagreement
 * against closed forms we derived (not in the paper), C9 the Fig. 1 ordering on fixed seeds, C11
 * the privacy formula through the accountant -- plus the a_kk > 0 validation and the centroid
 * leak of lost messages (the cancellation needs every neighbour to receive).
 */
#include "fl-test-config-error.h"

#include "ns3/diffusion.h"
#include "ns3/gfl-privacy.h"
#include "ns3/graph.h"
#include "ns3/linear-models.h"
#include "ns3/synthetic-data.h"

#include <Eigen/Eigenvalues>
#include <cmath>
#include <functional>
#include <gtest/gtest.h>
#include <iostream>
#include <memory>
#include <random>
#include <string>
#include <vector>

using namespace ns3::fl;
using fltest::ExpectConfigError;

namespace
{

const Eigen::VectorXd&
D(const ParamVector& v)
{
    return v.Get<double>();
}

double
Db(double x)
{
    return 10.0 * std::log10(x);
}

/// Metropolis weights on a connected random geometric graph (radius 0.35).
Eigen::MatrixXd
GeometricMetropolis(std::size_t K, double radius, uint64_t seed, bool lazy = false)
{
    Rng rng(seed);
    ConnectivityRequirement req;
    req.connected = true;
    const Graph g = RandomGeometricGraph(K, radius, rng, req).graph;
    return lazy ? LazyMetropolisWeights(g) : MetropolisWeights(g);
}

/// Random models, one per node.
std::vector<ParamVector>
RandomModels(std::size_t K, std::size_t M, uint64_t seed)
{
    Rng rng(seed);
    std::normal_distribution<double> normal(0.0, 1.0);
    std::vector<ParamVector> v;
    for (std::size_t k = 0; k < K; ++k)
    {
        Eigen::VectorXd x(static_cast<Eigen::Index>(M));
        for (auto& e : x)
        {
            e = normal(rng);
        }
        v.emplace_back(x);
    }
    return v;
}

Eigen::VectorXd
CentroidOf(const std::vector<ParamVector>& w)
{
    Eigen::VectorXd c = Eigen::VectorXd::Zero(D(w.front()).size());
    for (const auto& x : w)
    {
        c += D(x);
    }
    return c / static_cast<double>(w.size());
}

std::vector<uint64_t>
Seeds(std::size_t K)
{
    std::vector<uint64_t> s;
    for (std::size_t k = 0; k < K; ++k)
    {
        s.push_back(DiffusionAgentSeed(77, static_cast<uint32_t>(k)));
    }
    return s;
}

/// The logistic task of GHP Fig. 1 (Section 4): K agents, M = 5, class means +-1/sqrt(M) 1.
struct LogisticFixture
{
    std::shared_ptr<SupervisedTask<double>> task;
    Eigen::VectorXd wOpt;
};

LogisticFixture
MakeLogistic(std::size_t K, std::size_t N, double rho, uint64_t seed)
{
    const std::size_t M = 5;
    Rng rng(seed);
    const Eigen::VectorXd mean = Eigen::VectorXd::Ones(M) / std::sqrt(static_cast<double>(M));
    std::vector<Dataset<double>> parts;
    for (std::size_t k = 0; k < K; ++k)
    {
        parts.push_back(MakeGaussianBinary<double>(N, mean, 1.0, 0.5, rng));
    }
    LogisticFixture f;
    f.wOpt = LogisticOptimum(Concatenate(parts), rho);
    f.task = std::make_shared<SupervisedTask<double>>(
        std::make_shared<LogisticRegression<double>>(M, rho),
        LocalTrainerConfig{},
        std::move(parts),
        Dataset<double>{});
    return f;
}

} // namespace

TEST(GhpEquations, AdaptEq3ByHand)
{
    // One sample h = (1, -2), gamma = +1; rho = 0.1, w = (0.5, 0.25), mu = 0.3.
    // grad Q = -gamma h / (1 + exp(gamma h^T w)) + rho w, h^T w = 0:
    //        = -(1, -2) / 2 + 0.1 (0.5, 0.25) = (-0.45, 1.025)
    Dataset<double> d;
    d.features = Mat<double>(1, 2);
    d.features << 1, -2;
    d.targets = Vec<double>::Constant(1, 1.0);
    d.kind = TargetKind::BinarySigned;
    d.numClasses = 2;
    SupervisedTask<double> task(std::make_shared<LogisticRegression<double>>(2, 0.1),
                                LocalTrainerConfig{},
                                {d},
                                Dataset<double>{});
    Rng rng(1);
    const TrainOutcome out =
        TrainClientWith(task,
                        0,
                        ParamVector(Eigen::VectorXd(Eigen::Vector2d(0.5, 0.25))),
                        DiffusionAdaptConfig(0.3, 1, 0.0),
                        rng);
    EXPECT_NEAR(D(out.params)[0], 0.5 - 0.3 * -0.45, 1e-12);
    EXPECT_NEAR(D(out.params)[1], 0.25 - 0.3 * 1.025, 1e-12);
    ExpectConfigError([] { DiffusionAdaptConfig(0.0, 1, 0.0); }, "mu");
    ExpectConfigError([] { DiffusionAdaptConfig(0.1, 0, 0.0); }, "batchSize");
}

TEST(GhpClaims, C1PerAgentNullspaceAndC6IdenticalMessages)
{
    const std::size_t K = 15;
    const Eigen::MatrixXd A = GeometricMetropolis(K, 0.4, 3);
    const auto phi = RandomModels(K, 4, 5);
    GraphExchange ex(
        A,
        NodeNoiseConfig{NodeNoiseKind::GraphHomomorphic, NoiseDistribution::Laplace, 1.0},
        Seeds(K),
        MissingMessagePolicy::ReuseLast);
    std::vector<ParamVector> w;
    ex.Step(1, phi, w);
    for (uint32_t l = 0; l < K; ++l)
    {
        const NodeRelease& r = ex.Release(l);
        EXPECT_TRUE(r.broadcast); // C6: one message for every neighbour
        EXPECT_TRUE(r.perLink.empty());
        // C1: sum_k a_lk q_lk = a_ll q_ll + sum_{k ~ l} a_lk q_lk = 0 for this agent alone
        Eigen::VectorXd s = A(l, l) * (D(r.kept) - D(phi[l]));
        for (uint32_t k : ex.Neighbors(l))
        {
            s += A(l, k) * (D(r.message) - D(phi[l]));
        }
        EXPECT_LT(s.norm(), 1e-12) << "agent " << l;
    }
    EXPECT_EQ(ex.TransmissionsPerIteration(), K);
}

TEST(GhpClaims, C4PureAveragingKeepsTheGhpCentroidAndMovesTheIidOne)
{
    const std::size_t K = 20;
    const Eigen::MatrixXd A = GeometricMetropolis(K, 0.35, 7);
    auto run = [&](NodeNoiseKind kind) {
        GraphExchange ex(A,
                         NodeNoiseConfig{kind, NoiseDistribution::Laplace, 1.0},
                         Seeds(K),
                         MissingMessagePolicy::ReuseLast);
        std::vector<ParamVector> w = RandomModels(K, 5, 9);
        const Eigen::VectorXd c0 = CentroidOf(w);
        std::vector<ParamVector> next;
        for (uint32_t i = 1; i <= 300; ++i)
        {
            ex.Step(i, w, next); // mu = 0: phi = w
            std::swap(w, next);
        }
        return (CentroidOf(w) - c0).norm();
    };
    EXPECT_LT(run(NodeNoiseKind::GraphHomomorphic), 1e-11);
    EXPECT_GT(run(NodeNoiseKind::IidBroadcast), 1.0); // a random walk of variance i M sigma^2 / K
}

TEST(GhpClaims, C5CommonHessianGivesTheNonPrivateCentroidExactly)
{
    // Ridge losses with the same features (common Hessian) and agent-specific targets, full
    // batch (deterministic gradients): the GHP centroid trajectory is the non-private one.
    const std::size_t K = 8;
    const std::size_t N = 20;
    Rng rng(4);
    std::normal_distribution<double> normal(0.0, 1.0);
    Mat<double> X(N, 3);
    for (Eigen::Index r = 0; r < X.rows(); ++r)
    {
        for (Eigen::Index c = 0; c < 3; ++c)
        {
            X(r, c) = 0.3 * normal(rng);
        }
    }
    std::vector<Dataset<double>> parts;
    for (std::size_t k = 0; k < K; ++k)
    {
        Dataset<double> d;
        d.features = X;
        d.targets = Vec<double>(N);
        for (auto& t : d.targets)
        {
            t = normal(rng) + static_cast<double>(k);
        }
        d.kind = TargetKind::Regression;
        parts.push_back(d);
    }
    SupervisedTask<double> task(std::make_shared<RidgeRegression<double>>(3, 0.05),
                                LocalTrainerConfig{},
                                parts,
                                Dataset<double>{});
    DiffusionConfig c;
    c.combination = GeometricMetropolis(K, 0.6, 2);
    c.mu = 0.2;
    c.batchSize = N;
    c.iterations = 60;
    std::vector<Eigen::VectorXd> clean;
    std::vector<double> disagreement;
    RunDiffusionInProcess(task, c, [&](const NetworkIterationReport& r) {
        clean.push_back(D(*r.centroid));
    });
    c.noise = NodeNoiseConfig{NodeNoiseKind::GraphHomomorphic, NoiseDistribution::Laplace, 1.0};
    std::size_t i = 0;
    RunDiffusionInProcess(task, c, [&](const NetworkIterationReport& r) {
        EXPECT_LT((D(*r.centroid) - clean[i]).norm(), 1e-10) << "iteration " << i;
        disagreement.push_back(r.disagreement);
        ++i;
    });
    EXPECT_EQ(i, clean.size());
    EXPECT_GT(disagreement.back(), 0.1); // the agents themselves are perturbed
}

TEST(GhpClaims, C7SteadyStateDisagreementMatchesTheClosedForms)
{
    // mu = 0, closed forms we derived: GHP (M s^2 / K) sum_{m>=2} (1 - l_m) / (1 + l_m),
    // i.i.d. (broadcast) (M s^2 / K) sum_{m>=2} l_m^2 / (1 - l_m^2), s^2 = 2 b^2.
    const std::size_t K = 20;
    const std::size_t M = 5;
    const double b = 1.0;
    const Eigen::MatrixXd A = GeometricMetropolis(K, 0.35, 13);
    Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> es(A);
    Eigen::VectorXd lambda = es.eigenvalues(); // ascending: lambda_1 = 1 is the last
    double ghSum = 0.0;
    double iidSum = 0.0;
    for (Eigen::Index m = 0; m + 1 < lambda.size(); ++m)
    {
        ghSum += (1.0 - lambda[m]) / (1.0 + lambda[m]);
        iidSum += lambda[m] * lambda[m] / (1.0 - lambda[m] * lambda[m]);
    }
    const double s2 = 2.0 * b * b;
    const double ghPredicted = M * s2 / K * ghSum;
    const double iidPredicted = M * s2 / K * iidSum;
    auto empirical = [&](NodeNoiseKind kind) {
        GraphExchange ex(A,
                         NodeNoiseConfig{kind, NoiseDistribution::Laplace, b},
                         Seeds(K),
                         MissingMessagePolicy::ReuseLast);
        std::vector<ParamVector> w(K, ParamVector(Eigen::VectorXd(Eigen::VectorXd::Zero(M))));
        std::vector<ParamVector> next;
        double sum = 0.0;
        int n = 0;
        for (uint32_t i = 1; i <= 8000; ++i)
        {
            ex.Step(i, w, next);
            std::swap(w, next);
            if (i > 1000)
            {
                const Eigen::VectorXd c = CentroidOf(w);
                double d = 0.0;
                for (const auto& x : w)
                {
                    d += (D(x) - c).squaredNorm();
                }
                sum += d / K;
                ++n;
            }
        }
        return sum / n;
    };
    const double gh = empirical(NodeNoiseKind::GraphHomomorphic);
    const double iid = empirical(NodeNoiseKind::IidBroadcast);
    EXPECT_NEAR(gh, ghPredicted, 0.1 * ghPredicted) << "GHP";
    EXPECT_NEAR(iid, iidPredicted, 0.1 * iidPredicted) << "iid";
}

TEST(GhpClaims, C9Fig1OrderingOnFixedSeeds)
{
    // mu = 1, rho = 0.1, sigma_h^2 = 1, b_v = 1 (sigma_p^2 = 2), equal noise for both private
    // schemes, lazy Metropolis weights (a_kk >= 1/2).
    const std::size_t K = 12;
    const LogisticFixture f = MakeLogistic(K, 600, 0.1, 17);
    DiffusionConfig c;
    c.combination = GeometricMetropolis(K, 0.45, 17, true);
    c.mu = 1.0;
    c.iterations = 600;
    c.seed = 17;
    c.reference = f.wOpt;

    struct Level
    {
        double first{0.0};
        double centroid{0.0};
        double average{0.0};
    };

    auto run = [&](NodeNoiseKind kind) {
        c.noise = NodeNoiseConfig{kind, NoiseDistribution::Laplace, 1.0};
        Level l;
        int n = 0;
        RunDiffusionInProcess(*f.task, c, [&](const NetworkIterationReport& r) {
            if (r.iteration == 0)
            {
                l.first = r.centroidMsd;
            }
            if (r.iteration > c.iterations / 2)
            {
                l.centroid += r.centroidMsd;
                l.average += r.averageMsd;
                ++n;
            }
        });
        l.centroid = Db(l.centroid / n);
        l.average = Db(l.average / n);
        return l;
    };
    const Level none = run(NodeNoiseKind::None);
    const Level gh = run(NodeNoiseKind::GraphHomomorphic);
    const Level iid = run(NodeNoiseKind::IidBroadcast);
    // The non-private run learns: its steady state is 6 dB below w_0 = 0 (mu = 1 with one sample
    // per step leaves a large gradient-noise floor).
    EXPECT_LT(none.centroid, Db(none.first) - 6.0);
    std::cout << "centroid MSD: none " << none.centroid << " dB, GH " << gh.centroid << " dB, iid "
              << iid.centroid << " dB; average MSD: GH " << gh.average << " dB, iid " << iid.average
              << " dB" << std::endl;
    EXPECT_LT(gh.centroid + 3.0, iid.centroid)
        << "GH " << gh.centroid << " dB, iid " << iid.centroid << " dB";
    EXPECT_LT(none.centroid, gh.centroid + 0.5);
    // C12: with lazy weights the GHP agents are also less perturbed than the i.i.d. ones.
    EXPECT_LT(gh.average, iid.average);
}

TEST(GhpClaims, C11EpsilonIsEq27ForBothPrivateSchemes)
{
    EXPECT_NEAR(GhpEpsilon(0.5, 2.0, 10, 3.0), 0.5 * 2.0 * 110 / 3.0, 1e-12);
    EXPECT_NEAR(GhpLaplaceScale(0.5, 2.0, 10, GhpEpsilon(0.5, 2.0, 10, 3.0)), 3.0, 1e-12);
    const LogisticFixture f = MakeLogistic(6, 50, 0.1, 3);
    DiffusionConfig c;
    c.combination = GeometricMetropolis(6, 0.7, 3);
    c.mu = 0.5;
    c.clipNorm = 2.0;
    c.iterations = 30;
    for (auto kind : {NodeNoiseKind::GraphHomomorphic, NodeNoiseKind::IidBroadcast})
    {
        // the drift bound with the l1 sensitivity (sqrt(M) = sqrt(5)), for one link and for all
        // links alike (one vector to every neighbour): at most eq. (27)'s argument (growth
        // 2 mu G per iteration) for broadcast noise, more for graph-homomorphic noise (the
        // eavesdropper knows the sender's kept copy up to phi / a_kk)
        c.noise = NodeNoiseConfig{kind, NoiseDistribution::Laplace, 3.0};
        const NetworkRunResult r = RunDiffusionInProcess(*f.task, c);
        EXPECT_NEAR(r.epsilonOneLink, r.epsilonAllLinks, 1e-12 * r.epsilonOneLink);
        const double eq27 = std::sqrt(5.0) * GhpEpsilon(0.5, 2.0, 30, 3.0);
        if (kind == NodeNoiseKind::IidBroadcast)
        {
            EXPECT_LE(r.epsilonOneLink, eq27 * (1 + 1e-12));
        }
        else
        {
            EXPECT_GT(r.epsilonOneLink, eq27);
        }
    }
    c.noise.kind = NodeNoiseKind::None;
    EXPECT_TRUE(std::isinf(RunDiffusionInProcess(*f.task, c).epsilonOneLink));
}

TEST(GhpPrivacy, PerLinkNoiseCountsOneReleasePerNeighbourOnRingStarAndIrregularGraphs)
{
    // M = 5 (logistic on 4 features + bias), mu = 0.5, G = 2, Laplace b = 3, 4 iterations.
    // The l1 sensitivity at iteration n is at most sqrt(5) 2 mu G n = 2 sqrt(5) n (the drift
    // grows by at most 2 mu G per iteration: B's rows sum to at most 1 for i.i.d. noise), so
    // an eavesdropper on one link sees at most eps = sum_{n=1..4} 2 sqrt(5) n / 3 =
    // 20 sqrt(5) / 3 = 14.9071... (exactly that in iteration 1: 2 sqrt(5) / 3); with per-link
    // noise a node of degree d releases d copies per iteration, so all its links see up to d
    // times that; one vector to all (per-sender, broadcast) keeps it at one release. A
    // neighbouring node of degree d sees one release in iteration 1 and d in each later one:
    // at most (2 sqrt(5) / 3) (1 + d (2 + 3 + 4)).
    const LogisticFixture f = MakeLogistic(6, 30, 0.1, 3);
    const double oneNeighbour = 20.0 * std::sqrt(5.0) / 3.0;
    struct Case
    {
        const char* name;
        Graph graph;
        std::size_t maxDegree;
    };
    const std::vector<Case> cases = {
        {"ring", RingGraph(6), 2},
        {"star", ParseGraph(6, "0-1,0-2,0-3,0-4,0-5"), 5},
        {"irregular", ParseGraph(6, "0-1,1-2,2-3,3-0,0-2,0-4,3-4,4-5"), 4}, // degrees 4,2,3,3,3,1
    };
    for (const Case& g : cases)
    {
        DiffusionConfig c;
        c.combination = MetropolisWeights(g.graph);
        c.mu = 0.5;
        c.clipNorm = 2.0;
        c.iterations = 4;
        for (auto kind :
             {NodeNoiseKind::IidPerLink, NodeNoiseKind::IidPerSender, NodeNoiseKind::IidBroadcast})
        {
            c.noise = NodeNoiseConfig{kind, NoiseDistribution::Laplace, 3.0};
            const NetworkRunResult r = RunDiffusionInProcess(*f.task, c);
            const double copies = kind == NodeNoiseKind::IidPerLink ? g.maxDegree : 1.0;
            EXPECT_LE(r.epsilonOneLink, oneNeighbour * (1 + 1e-12))
                << g.name << " " << NodeNoiseKindName(kind);
            EXPECT_GT(r.epsilonOneLink, oneNeighbour / 10.0 * 1.5) << g.name; // > iteration 1's
            EXPECT_LE(r.epsilonAllLinks, copies * oneNeighbour * (1 + 1e-12))
                << g.name << " " << NodeNoiseKindName(kind);
            if (kind == NodeNoiseKind::IidPerLink)
            {
                EXPECT_GT(r.epsilonAllLinks, r.epsilonOneLink) << g.name;
            }
            // the neighbouring node: one release in iteration 1, d later, each drifting by at
            // most 2 mu G per iteration: (2 sqrt(5) / 3) (1 + d (2 + 3 + 4)) bounds it
            const double neighbour = 2.0 * std::sqrt(5.0) / 3.0 * (1.0 + g.maxDegree * 9.0);
            EXPECT_LE(r.epsilonNeighbour, neighbour * (1 + 1e-12))
                << g.name << " " << NodeNoiseKindName(kind);
            EXPECT_GT(r.epsilonNeighbour, 2.0 * std::sqrt(5.0) / 3.0) << g.name;
        }
        c.noise = NodeNoiseConfig{NodeNoiseKind::GraphHomomorphic, NoiseDistribution::Laplace, 3.0};
        EXPECT_GT(RunDiffusionInProcess(*f.task, c).epsilonOneLink, oneNeighbour) << g.name;
        // Gaussian per-link noise, sigma = 3: Renyi DP adds over the d copies and 4 iterations,
        // at most one Gaussian of squared sensitivity d sum_n (2 n)^2 (no sqrt(M): l2).
        c.noise = NodeNoiseConfig{NodeNoiseKind::IidPerLink, NoiseDistribution::Gaussian, 3.0};
        const NetworkRunResult r = RunDiffusionInProcess(*f.task, c);
        PrivacyAccountant one;
        PrivacyAccountant all;
        one.AddGaussian(std::sqrt(4.0 * (1 + 4 + 9 + 16)), 3.0);
        all.AddGaussian(std::sqrt(4.0 * (1 + 4 + 9 + 16) * g.maxDegree), 3.0);
        EXPECT_LE(r.epsilonOneLink, one.Epsilon(1e-5, Composition::Rdp) + 1e-9) << g.name;
        EXPECT_LE(r.epsilonAllLinks, all.Epsilon(1e-5, Composition::Rdp) + 1e-9) << g.name;
        EXPECT_GT(r.epsilonAllLinks, r.epsilonOneLink) << g.name;
        // and it is the accountant of the run's graph and noise
        GraphPrivacyAccountant acc(NodeNoiseKind::IidPerLink,
                                   MechanismKind::Gaussian,
                                   3.0,
                                   0.5,
                                   2.0,
                                   5,
                                   c.combination);
        for (int n = 0; n < 4; ++n)
        {
            acc.RecordIteration();
        }
        EXPECT_DOUBLE_EQ(r.epsilonAllLinks, acc.EpsilonAllLinks()) << g.name;
    }
    // The statement names the mechanism, norm, unit, neighbouring, adversary and composition.
    const std::string d = GraphReleaseStatement(NodeNoiseKind::IidPerLink,
                                                MechanismKind::Laplace,
                                                GraphAdversary::AllLinks,
                                                "the data of one agent",
                                                1e-5)
                              .Describe();
    for (const char* part : {"mechanism: laplace",
                             "sensitivity: l1",
                             "unit: the data of one agent",
                             "neighbouring: replace",
                             "adversary: an eavesdropper on every",
                             "composition: basic",
                             "proof: doc/fl-privacy.rst"})
    {
        EXPECT_NE(d.find(part), std::string::npos) << part << " in " << d;
    }
    EXPECT_NE(GraphReleaseStatement(NodeNoiseKind::GraphHomomorphic,
                                    MechanismKind::Gaussian,
                                    GraphAdversary::AllLinks,
                                    "u",
                                    1e-5)
                  .Describe()
                  .find("cancels in the network average"),
              std::string::npos);
}

TEST(GhpClaims, ZeroSelfWeightIsRejectedNamingTheWeight)
{
    const LogisticFixture f = MakeLogistic(3, 20, 0.1, 3);
    Eigen::MatrixXd A(3, 3);
    A << 0.5, 0.5, 0.0, 0.5, 0.0, 0.5, 0.0, 0.5, 0.5;
    DiffusionConfig c;
    c.combination = A;
    c.iterations = 2;
    c.noise = NodeNoiseConfig{NodeNoiseKind::IidBroadcast, NoiseDistribution::Laplace, 1.0};
    EXPECT_NO_THROW(RunDiffusionInProcess(*f.task, c));
    c.noise.kind = NodeNoiseKind::GraphHomomorphic;
    ExpectConfigError([&] { RunDiffusionInProcess(*f.task, c); }, "combination", "a_{1,1}");
    c.combination = Eigen::MatrixXd::Identity(4, 4);
    ExpectConfigError([&] { RunDiffusionInProcess(*f.task, c); }, "combination");
}

TEST(GhpClaims, LostMessagesLeakGhpNoiseIntoTheCentroid)
{
    // The cancellation needs every neighbour to receive: with mu = 0 the lossless GHP centroid
    // stays put; dropping 20 % of the messages (renormalising) lets it drift.
    const std::size_t K = 12;
    const Eigen::MatrixXd A = GeometricMetropolis(K, 0.45, 5);
    auto drift = [&](double loss) {
        DeliveryFunction d = [loss](uint32_t i, uint32_t from, uint32_t to) {
            Rng r(DeriveSeed(i, from, to));
            return std::uniform_real_distribution<double>(0.0, 1.0)(r) >= loss;
        };
        GraphExchange ex(
            A,
            NodeNoiseConfig{NodeNoiseKind::GraphHomomorphic, NoiseDistribution::Laplace, 1.0},
            Seeds(K),
            MissingMessagePolicy::Renormalize,
            d);
        std::vector<ParamVector> w(K, ParamVector(Eigen::VectorXd(Eigen::VectorXd::Zero(3))));
        std::vector<ParamVector> next;
        double total = 0.0;
        for (uint32_t i = 1; i <= 100; ++i)
        {
            ex.Step(i, w, next);
            std::vector<const ParamVector*> m;
            std::vector<const ParamVector*> a;
            for (std::size_t k = 0; k < K; ++k)
            {
                m.push_back(&next[k]);
                a.push_back(&w[k]);
            }
            total += CentroidDrift(m, a);
            std::swap(w, next);
        }
        return total;
    };
    EXPECT_LT(drift(0.0), 1e-10);
    EXPECT_GT(drift(0.2), 1.0);
}

// The noise source of the node noise: derived from the run's seed (the default) reproduces the
// run; libsodium's generator changes it from run to run (and the statement says so).
TEST(GhpPrivacy, SodiumNodeNoiseChangesFromRunToRun)
{
    const LogisticFixture f = MakeLogistic(4, 30, 0.1, 3);
    DiffusionConfig c;
    c.combination = MetropolisWeights(RingGraph(4));
    c.mu = 0.5;
    c.iterations = 3;
    c.noise = NodeNoiseConfig{NodeNoiseKind::GraphHomomorphic, NoiseDistribution::Laplace, 1.0};
    EXPECT_TRUE(RunDiffusionInProcess(*f.task, c).models[0] ==
                RunDiffusionInProcess(*f.task, c).models[0]);
    c.noise.source = NoiseSource::Sodium;
    const NetworkRunResult a = RunDiffusionInProcess(*f.task, c);
    const NetworkRunResult b = RunDiffusionInProcess(*f.task, c);
    EXPECT_FALSE(a.models[0] == b.models[0]);
}
