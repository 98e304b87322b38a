/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * GFL (E. Rizk, S. Vlaski, A. H. Sayed, "Privatized Graph Federated Learning", arXiv:2203.07105,
 * 2022, and its journal version, EURASIP J. Adv. Signal Process. 2023, article 87) pure core:
 * every equation against hand computations to
 * 1e-12 (eqs. 3, 6, 7, 8, 47, 54, 55), the graph-homomorphic cancellation in the
 * (Perron-weighted) network centroid, the a_pp > 0 validation, secure-aggregation masks from an
 * X25519 key agreement (cancellation, dropout recovery), the missing-message policies and the
 * centroid drift, and the privacy formulas through the accountant. The in-process runner is
 * test-gfl-runner.cc.
 */
#include "fl-test-config-error.h"
#include "fl-test-gfl-fixture.h"

#include "ns3/gfl-privacy.h"
#include "ns3/gfl.h"
#include "ns3/graph.h"
#include "ns3/linear-models.h"
#include "ns3/synthetic-data.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <gtest/gtest.h>
#include <iostream>
#include <map>
#include <memory>
#include <random>
#include <sodium.h>
#include <string>
#include <vector>

using namespace ns3::fl;
using fltest::ExpectConfigError;

namespace
{

ParamVector
PV(std::initializer_list<double> v)
{
    Eigen::VectorXd x(static_cast<Eigen::Index>(v.size()));
    Eigen::Index i = 0;
    for (double e : v)
    {
        x[i++] = e;
    }
    return ParamVector(x);
}

void
ExpectNear(const Eigen::VectorXd& a, const Eigen::VectorXd& b, double tol = 1e-12)
{
    ASSERT_EQ(a.size(), b.size());
    for (Eigen::Index i = 0; i < a.size(); ++i)
    {
        EXPECT_NEAR(a[i], b[i], tol) << "entry " << i;
    }
}

/// A one-client ridge task with the given samples (rows of X) and targets.
std::shared_ptr<SupervisedTask<double>>
TinyRidgeTask(const Mat<double>& X, const Vec<double>& y, double rho)
{
    Dataset<double> d;
    d.features = X;
    d.targets = y;
    d.kind = TargetKind::Regression;
    std::vector<Dataset<double>> clients{d};
    return std::make_shared<SupervisedTask<double>>(
        std::make_shared<RidgeRegression<double>>(static_cast<std::size_t>(X.cols()), rho),
        LocalTrainerConfig{},
        clients,
        Dataset<double>{});
}

using fltest::D;
using fltest::HandA;
using fltest::MakeRegressionFixture;
using fltest::RegressionFixture;
using fltest::V;

} // namespace

// ------------------------------------------------------------------------------- equations

TEST(GflEquations, LocalStepsEq3AndEq6ByHand)
{
    // u1 = (1, 0), d1 = 1; u2 = (0, 2), d2 = 2; rho = 0.5: grad J(w) = (2 w1 - 1, 5 w2 - 4).
    Mat<double> X(2, 2);
    X << 1, 0, 0, 2;
    Vec<double> y(2);
    y << 1, 2;
    auto task = TinyRidgeTask(X, y, 0.5);
    // mu = 0.4, E = 2 -> each step mu / E = 0.2; full batch B = 2 (no randomness).
    const LocalTrainerConfig cfg = GflTrainerConfig(0.4, 2, 2, 0.0);
    EXPECT_EQ(cfg.stepRule, StepRule::DividedBySteps);
    Rng rng(1);
    TrainOutcome out = TrainClientWith(*task, 0, PV({0, 0}), cfg, rng);
    // step 1: w = 0 - 0.2 (-1, -4) = (0.2, 0.8); step 2: grad = (-0.6, 0): w = (0.32, 0.8)
    ExpectNear(D(out.params), V({0.32, 0.8}));
    // eq. (6): w = w0 - (mu / E) sum_e grad = -0.2 ((-1, -4) + (-0.6, 0))
    ExpectNear(D(out.params), V({-0.2 * (-1 - 0.6), -0.2 * (-4 + 0)}));
    EXPECT_EQ(out.steps, 2U);
    EXPECT_EQ(out.samplesProcessed, 4U);
}

TEST(GflEquations, ClientUpdateEq54IsTheAveragedGradient)
{
    // From the hand case above: u = (w0 - w) / mu = (1/E) sum_e grad = ((-1.6)/2, (-4)/2).
    const ParamVector u = GflClientUpdate(PV({0, 0}), PV({0.32, 0.8}), 0.4);
    ExpectNear(D(u), V({-0.8, -2.0}));
    ExpectConfigError([] { GflClientUpdate(PV({0}), PV({0, 1}), 0.4); }, "trained");
    ExpectConfigError([] { GflClientUpdate(PV({0}), PV({1}), 0.0); }, "mu");
}

TEST(GflEquations, ServerAverageEq7ByHand)
{
    const ParamVector a = PV({1, 2});
    const ParamVector b = PV({3, -4});
    const ParamVector c = PV({-1, 5});
    // (1/L) sum_k (w_k + g_k): the received vectors already carry g_k.
    ExpectNear(D(GflServerAverage({&a, &b, &c})), V({1.0, 1.0}));
    // weights 1, 2, 1 -> (1 + 6 - 1) / 4, (2 - 8 + 5) / 4
    ExpectNear(D(GflServerAverage({&a, &b, &c}, {1, 2, 1})), V({1.5, -0.25}));
    ExpectConfigError([] { GflServerAverage({}); }, "models");
}

TEST(GflEquations, ApplyUpdateEq55ByHand)
{
    // psi = w - mu * avg(u + g) = (1, 2) - 0.4 (0.5, -1) = (0.8, 2.4)
    ExpectNear(D(GflApplyUpdate(PV({1, 2}), PV({0.5, -1}), 0.4)), V({0.8, 2.4}));
    // Without noise the update path gives the model average (to rounding).
    const ParamVector w = PV({0.3, -0.2});
    const ParamVector m1 = PV({0.1, 0.5});
    const ParamVector m2 = PV({-0.7, 0.9});
    const double mu = 0.7;
    const ParamVector u1 = GflClientUpdate(w, m1, mu);
    const ParamVector u2 = GflClientUpdate(w, m2, mu);
    ExpectNear(D(GflApplyUpdate(w, GflServerAverage({&u1, &u2}), mu)),
               D(GflServerAverage({&m1, &m2})));
}

TEST(GflEquations, CombineEq8ByHand)
{
    const Eigen::MatrixXd A = HandA();
    const std::vector<ParamVector> psi{PV({1, 0}), PV({0, 1}), PV({2, 2})};
    GraphExchange ex(A, NodeNoiseConfig{}, {1, 2, 3}, MissingMessagePolicy::ReuseLast);
    std::vector<ParamVector> w;
    EXPECT_EQ(ex.Step(1, psi, w), 0U);
    // w_p = sum_m a_pm psi_m
    ExpectNear(D(w[0]), V({0.5 * 1 + 0.25 * 0 + 0.25 * 2, 0.5 * 0 + 0.25 * 1 + 0.25 * 2}));
    ExpectNear(D(w[1]), V({0.25, 0.75}));
    ExpectNear(D(w[2]), V({1.75, 1.5}));
    // The same through CombineMessages, as a server application calls it.
    ParamVector out;
    const CombineOutcome o =
        CombineMessages(psi[0],
                        psi[0],
                        0.5,
                        {{1, 0.25, &psi[1], nullptr}, {2, 0.25, &psi[2], nullptr}},
                        MissingMessagePolicy::Renormalize,
                        out);
    ExpectNear(D(out), D(w[0]));
    EXPECT_EQ(o.missing, 0U);
    EXPECT_DOUBLE_EQ(o.weightUsed, 1.0);
}

TEST(GflSampling, SamplesLDistinctClientsReproducibly)
{
    const auto s = GflSampleClients(100, 11, 42, 7);
    ASSERT_EQ(s.size(), 11U);
    EXPECT_TRUE(std::is_sorted(s.begin(), s.end()));
    EXPECT_EQ(std::adjacent_find(s.begin(), s.end()), s.end());
    EXPECT_EQ(s, GflSampleClients(100, 11, 42, 7));
    EXPECT_NE(s, GflSampleClients(100, 11, 42, 8));
    EXPECT_EQ(GflSampleClients(5, 0, 42, 1).size(), 5U);
    EXPECT_EQ(GflSampleClients(5, 9, 42, 1).size(), 5U);
}

TEST(GflSampling, LocalWorkRanges)
{
    const GflLocalWork w = DrawGflLocalWork(1000, 1, 10, 5, 10, 3);
    ASSERT_EQ(w.localSteps.size(), 1000U);
    EXPECT_EQ(*std::min_element(w.localSteps.begin(), w.localSteps.end()), 1U);
    EXPECT_EQ(*std::max_element(w.localSteps.begin(), w.localSteps.end()), 10U);
    EXPECT_EQ(*std::min_element(w.batchSizes.begin(), w.batchSizes.end()), 5U);
    EXPECT_EQ(*std::max_element(w.batchSizes.begin(), w.batchSizes.end()), 10U);
    ExpectConfigError([] { DrawGflLocalWork(3, 0, 10, 5, 10, 1); }, "localSteps");
    ExpectConfigError([] { DrawGflLocalWork(3, 1, 10, 6, 5, 1); }, "batchSize");
}

// ----------------------------------------------------------------------- server perturbations

TEST(ServerPerturbation, GraphHomomorphicEq47Terms)
{
    GraphHomomorphicPerturbation gh(NoiseDistribution::Laplace, 0.3, 0.25, "a_{0,0}");
    Rng rng(5);
    gh.BeginIteration(3, rng);
    const Eigen::VectorXd v = gh.Noise();
    ASSERT_EQ(v.size(), 3);
    ParamVector toA = PV({1, 2, 3});
    ParamVector toB = PV({1, 2, 3});
    ParamVector kept = PV({1, 2, 3});
    Rng unused(9);
    gh.PerturbOutgoing(toA, 1, unused);
    gh.PerturbOutgoing(toB, 2, unused);
    gh.PerturbKept(kept, unused);
    ExpectNear(D(toA), V({1, 2, 3}) + v);                  // g_{mp} = g_p, m != p
    EXPECT_EQ(toA, toB);                                   // same message to every neighbour
    ExpectNear(D(kept), V({1, 2, 3}) - (0.75 / 0.25) * v); // g_pp = -((1-a)/a) g_p
    EXPECT_DOUBLE_EQ(gh.CompensationFactor(), 3.0);
    EXPECT_TRUE(gh.SameForEveryReceiver());
    EXPECT_EQ(gh.Name(), "graph-homomorphic-laplace");
    EXPECT_EQ(gh.Mechanism(2.0), (MechanismSpec{MechanismKind::Laplace, 2.0, 0.3}));
    ParamVector wrongSize = PV({1});
    ExpectConfigError([&] { gh.PerturbOutgoing(wrongSize, 0, unused); }, "dim");
}

TEST(ServerPerturbation, GraphHomomorphicCancelsInTheCentroid)
{
    // Random connected graph, Metropolis weights: one GH iteration over all servers.
    Rng g(11);
    ConnectivityRequirement req;
    req.connected = true;
    const Eigen::MatrixXd A = MetropolisWeights(ErdosRenyiGraph(12, 0.3, g, req));
    const std::size_t P = 12;
    const std::size_t M = 7;
    std::vector<ParamVector> psi;
    std::normal_distribution<double> normal(0.0, 3.0);
    for (std::size_t p = 0; p < P; ++p)
    {
        Eigen::VectorXd x(M);
        for (auto& e : x)
        {
            e = normal(g);
        }
        psi.emplace_back(x);
    }
    for (auto dist : {NoiseDistribution::Laplace, NoiseDistribution::Gaussian})
    {
        std::vector<uint64_t> seeds;
        for (std::size_t p = 0; p < P; ++p)
        {
            seeds.push_back(100 + p);
        }
        GraphExchange gh(A,
                         NodeNoiseConfig{NodeNoiseKind::GraphHomomorphic, dist, 5.0},
                         seeds,
                         MissingMessagePolicy::ReuseLast);
        GraphExchange clean(A, NodeNoiseConfig{}, seeds, MissingMessagePolicy::ReuseLast);
        std::vector<ParamVector> wGh;
        std::vector<ParamVector> wClean;
        gh.Step(3, psi, wGh);
        clean.Step(3, psi, wClean);
        // sum_p sum_m a_pm g_pm = 0: the centroids agree although every server's model moved.
        Eigen::VectorXd residual = Eigen::VectorXd::Zero(M);
        double moved = 0.0;
        for (std::size_t p = 0; p < P; ++p)
        {
            residual += (D(wGh[p]) - D(wClean[p])) / P;
            moved += (D(wGh[p]) - D(wClean[p])).norm();
        }
        EXPECT_LT(residual.norm(), 1e-12);
        EXPECT_GT(moved, 1.0);
        // Closed form (from the GHP construction, eq. (20)): w_k = sum_l a_lk (psi_l + v_l) - v_k.
        for (std::size_t k = 0; k < P; ++k)
        {
            Eigen::VectorXd expect = Eigen::VectorXd::Zero(M);
            for (std::size_t l = 0; l < P; ++l)
            {
                const auto& v = dynamic_cast<const GraphHomomorphicPerturbation&>(
                                    gh.NodePerturbation(static_cast<uint32_t>(l)))
                                    .Noise();
                expect += A(l, k) * (D(psi[l]) + v);
            }
            expect -= dynamic_cast<const GraphHomomorphicPerturbation&>(
                          gh.NodePerturbation(static_cast<uint32_t>(k)))
                          .Noise();
            ExpectNear(D(wGh[k]), expect, 1e-11);
        }
        std::vector<const ParamVector*> m;
        std::vector<const ParamVector*> a;
        for (std::size_t p = 0; p < P; ++p)
        {
            m.push_back(&wGh[p]);
            a.push_back(&psi[p]);
        }
        EXPECT_LT(CentroidDrift(m, a), 1e-12);
    }
}

TEST(ServerPerturbation, GraphHomomorphicCancelsInThePerronCentroidOfANonSymmetricMatrix)
{
    // Column-stochastic, not symmetric (receiver k's weights a_lk sum to 1), positive diagonal.
    Eigen::MatrixXd A(4, 4);
    A << 0.5, 0.2, 0.0, 0.3, //
        0.3, 0.6, 0.1, 0.0,  //
        0.0, 0.2, 0.7, 0.3,  //
        0.2, 0.0, 0.2, 0.4;
    ASSERT_LT((A.colwise().sum().array() - 1.0).abs().maxCoeff(), 1e-15);
    const Eigen::VectorXd pi = PerronVector(A);
    ExpectNear(A * pi, pi, 1e-12);
    // But row sums are not 1: GH as constructed uses only a_ll and row l summing to one is what
    // makes each sender's terms cancel; the Perron-weighted sum cancels for any column-
    // stochastic A: sum_k pi_k sum_l a_lk q_lk = sum_l v_l ((A pi)_l - pi_l) = 0.
    Rng rng(3);
    Eigen::VectorXd residual = Eigen::VectorXd::Zero(5);
    for (Eigen::Index l = 0; l < 4; ++l)
    {
        GraphHomomorphicPerturbation gh(NoiseDistribution::Laplace, 1.0, A(l, l));
        gh.BeginIteration(5, rng);
        for (Eigen::Index k = 0; k < 4; ++k)
        {
            if (A(l, k) == 0.0)
            {
                continue;
            }
            ParamVector q = ParamVector::Zeros(Precision::Float64, 5);
            Rng unused(1);
            if (k == l)
            {
                gh.PerturbKept(q, unused);
            }
            else
            {
                gh.PerturbOutgoing(q, static_cast<uint32_t>(k), unused);
            }
            residual += pi[k] * A(l, k) * D(q);
        }
    }
    EXPECT_LT(residual.norm(), 1e-12);
}

TEST(ServerPerturbation, IidScopes)
{
    for (auto scope : {NoiseScope::PerLink, NoiseScope::PerSender, NoiseScope::Broadcast})
    {
        LaplacePerturbation lap(1.0, scope);
        Rng rng(1);
        lap.BeginIteration(4, rng);
        ParamVector a = PV({0, 0, 0, 0});
        ParamVector b = a;
        ParamVector kept = a;
        lap.PerturbOutgoing(a, 1, rng);
        lap.PerturbOutgoing(b, 2, rng);
        lap.PerturbKept(kept, rng);
        EXPECT_EQ(lap.SameForEveryReceiver(), scope != NoiseScope::PerLink);
        EXPECT_EQ(a == b, scope != NoiseScope::PerLink);
        // Broadcast keeps exactly what it broadcast (the noisy self-term of the i.i.d. baseline).
        EXPECT_EQ(kept == a, scope == NoiseScope::Broadcast);
        EXPECT_EQ(kept == PV({0, 0, 0, 0}), scope != NoiseScope::Broadcast);
    }
    EXPECT_EQ(LaplacePerturbation(1.0, NoiseScope::Broadcast).Name(), "laplace-broadcast");
    EXPECT_EQ(ParseNodeNoiseKind("gh", "x"), NodeNoiseKind::GraphHomomorphic);
    EXPECT_EQ(ParseNodeNoiseKind("iid", "x"), NodeNoiseKind::IidBroadcast);
    ExpectConfigError([] { ParseNodeNoiseKind("loud", "serverNoise"); }, "serverNoise");
}

TEST(ServerPerturbation, ZeroSelfWeightIsRejectedNamingTheWeight)
{
    ExpectConfigError(
        [] { GraphHomomorphicPerturbation(NoiseDistribution::Laplace, 1.0, 0.0, "a_{2,2}"); },
        "a_{2,2}");
    // A doubly stochastic matrix with a zero self-weight: fine for i.i.d. noise, not for GH.
    Eigen::MatrixXd A(3, 3);
    A << 0.0, 0.5, 0.5, 0.5, 0.5, 0.0, 0.5, 0.0, 0.5;
    const RegressionFixture f = MakeRegressionFixture(6, 20, 0.1, 1);
    GflConfig c;
    c.combination = A;
    c.clientsPerServer = 2;
    c.iterations = 2;
    c.serverNoise = NodeNoiseConfig{NodeNoiseKind::IidPerLink, NoiseDistribution::Laplace, 0.1};
    EXPECT_NO_THROW(RunGflInProcess(*f.task, c));
    c.serverNoise.kind = NodeNoiseKind::GraphHomomorphic;
    ExpectConfigError([&] { RunGflInProcess(*f.task, c); }, "combination", "a_{0,0}");
    // The exchange alone names the weight the same way.
    ExpectConfigError(
        [&] {
            GraphExchange(A, c.serverNoise, {1, 2, 3}, MissingMessagePolicy::Skip);
        },
        "combination weight a_{0,0}");
}

// ------------------------------------------------------------------------- secure aggregation

TEST(SecureAggregation, X25519AgreementIsSymmetric)
{
    auto pair = [](KeySource& keys) {
        MaskKeyPair kp;
        kp.secretKey = keys.Key();
        crypto_scalarmult_base(kp.publicKey.data(), kp.secretKey.data());
        return kp;
    };
    KeySource keys;
    const MaskKeyPair a = pair(keys);
    const MaskKeyPair b = pair(keys);
    const MaskKeyPair c = pair(keys);
    EXPECT_EQ(AgreeMaskSecret(a, b.publicKey), AgreeMaskSecret(b, a.publicKey));
    EXPECT_NE(AgreeMaskSecret(a, b.publicKey), AgreeMaskSecret(a, c.publicKey));
    EXPECT_NE(a.publicKey, b.publicKey);
    // The all-zero point has low order: rejected.
    ExpectConfigError([&] { AgreeMaskSecret(a, MaskPublicKey{}); }, "peer public key");
    ExpectConfigError([&] { AgreeMaskSecret(a, a.publicKey); }, "peer public key");
}

TEST(SecureAggregation, MaskPrgIsDeterministicAndInvertible)
{
    KeySource keys = KeySource::Reproducible(SecAggRunSeed{}, 4, 9);
    const MaskSecret seed = keys.Key();
    std::vector<uint64_t> a(17, 123);
    std::vector<uint64_t> b(17, 123);
    ApplyPairwiseMask(a, seed, true);
    ApplyPairwiseMask(b, seed, true);
    EXPECT_EQ(a, b);
    EXPECT_NE(a, std::vector<uint64_t>(17, 123));
    ApplyPairwiseMask(a, seed, false);
    EXPECT_EQ(a, std::vector<uint64_t>(17, 123));
}

TEST(SecureAggregation, FixedPointLimitsNameTheParameter)
{
    std::vector<uint64_t> out;
    ExpectConfigError([&] { EncodeFixedPoint(Eigen::Vector2d(1e7, 0), 40, 10, out); },
                      "maskFractionBits");
    ExpectConfigError([&] { EncodeFixedPoint(Eigen::Vector2d(1, 0), 60, 10, out); },
                      "maskFractionBits");
    ExpectConfigError([&] { EncodeFixedPoint(Eigen::Vector2d(NAN, 0), 40, 10, out); },
                      "maskFractionBits");
    EncodeFixedPoint(Eigen::Vector2d(-1.5, 0.25), 40, 10, out);
    ExpectNear(DecodeFixedPoint(out, 40), V({-1.5, 0.25}), 0.0);
}

TEST(SecureAggregation, SecureAverageIsTheProtocolsFixedPointSum)
{
    // 5 sampled, 3 survivors (t = 3, tolerating no colluder): the fixed-point sum of the
    // survivors' encodings (summands 5) over 3, which is what the protocol decodes whatever its
    // keys. The default t = floor(2 * 5 / 3) + 1 = 4 aborts with 3 survivors.
    const std::vector<ParamVector> up{PV({1, 2}), PV({0.5, -3}), PV({7, 0.25})};
    ParamVector avg;
    EXPECT_FALSE(GflSecureAverage({0, 1, 2, 3, 4}, {&up[0], &up[1], &up[2]}, 0, 40, avg));
    ASSERT_TRUE(GflSecureAverage({0, 1, 2, 3, 4}, {&up[0], &up[1], &up[2]}, 3, 40, avg));
    std::vector<uint64_t> sum(2, 0);
    for (const auto& u : up)
    {
        std::vector<uint64_t> w;
        EncodeFixedPoint(D(u), 40, 5, w);
        sum[0] += w[0];
        sum[1] += w[1];
    }
    EXPECT_EQ(D(avg), Eigen::VectorXd(DecodeFixedPoint(sum, 40) / 3.0));
    // the fixed point rounds each upload to 2^-41: the average is within 2^-41 of the plain one
    ExpectNear(D(avg), D(GflServerAverage({&up[0], &up[1], &up[2]})), std::ldexp(1.0, -41));
    // ... and equals RunSecAggInProcess's sum over 3 survivors of 5, both key modes, bit for bit
    SecAggConfig c;
    c.instance = 4;
    c.clients = {0, 1, 2, 3, 4};
    c.threshold = 3;
    c.dim = 2;
    c.fractionBits = 40;
    SecAggDropouts drops;
    drops.beforeKeys = {1, 3};
    const std::vector<Eigen::VectorXd> x{D(up[0]),
                                         Eigen::VectorXd::Zero(2),
                                         D(up[1]),
                                         Eigen::VectorXd::Zero(2),
                                         D(up[2])};
    for (KeyMode mode : {KeyMode::Random, KeyMode::Reproducible})
    {
        const auto run =
            RunSecAggInProcess(c, x, std::vector<uint64_t>(5, 1), mode, SecAggRunSeed{}, drops);
        ASSERT_EQ(run.status, SecAggStatus::Ok);
        EXPECT_EQ(Eigen::VectorXd(run.result.Mean()), D(avg));
    }
    // Below t the protocol aborts: 2 survivors of 5 (t = 3).
    EXPECT_FALSE(GflSecureAverage({0, 1, 2, 3, 4}, {&up[0], &up[1]}, 0, 40, avg));
    EXPECT_FALSE(GflSecureAverage({0, 1, 2, 3, 4}, {}, 0, 40, avg));
    // One sampled client cannot be aggregated securely at all.
    ExpectConfigError([&] { GflSecureAverage({0}, {&up[0]}, 0, 40, avg); }, "clients");
}

// ---------------------------------------------------------------------- missing messages

TEST(LossPolicies, HandCases)
{
    const ParamVector own = PV({1, 1});       // kept (perturbed) own term
    const ParamVector clean = PV({0.5, 0.5}); // psi_p before perturbation
    const ParamVector m1 = PV({2, 0});
    const ParamVector m2 = PV({0, 4});
    const ParamVector last2 = PV({8, 8});
    ParamVector out;
    // Everything arrived: every policy gives the sum.
    for (auto p : {MissingMessagePolicy::ReuseLast,
                   MissingMessagePolicy::Renormalize,
                   MissingMessagePolicy::Skip})
    {
        CombineMessages(own, clean, 0.5, {{1, 0.25, &m1, nullptr}, {2, 0.25, &m2, &last2}}, p, out);
        ExpectNear(D(out), V({0.5 + 0.5, 0.5 + 1.0}));
    }
    // Node 2's message is missing.
    CombineOutcome o = CombineMessages(own,
                                       clean,
                                       0.5,
                                       {{1, 0.25, &m1, nullptr}, {2, 0.25, nullptr, &last2}},
                                       MissingMessagePolicy::ReuseLast,
                                       out);
    ExpectNear(D(out), V({0.5 + 0.5 + 2.0, 0.5 + 0 + 2.0})); // stale message with weight a
    EXPECT_EQ(o.missing, 1U);
    EXPECT_EQ(o.reused, 1U);
    o = CombineMessages(own,
                        clean,
                        0.5,
                        {{1, 0.25, &m1, nullptr}, {2, 0.25, nullptr, nullptr}},
                        MissingMessagePolicy::ReuseLast,
                        out);
    ExpectNear(D(out), V({(0.5 + 0.5) / 0.75, 0.5 / 0.75})); // nothing to reuse: renormalise
    EXPECT_EQ(o.reused, 0U);
    o = CombineMessages(own,
                        clean,
                        0.5,
                        {{1, 0.25, &m1, nullptr}, {2, 0.25, nullptr, &last2}},
                        MissingMessagePolicy::Renormalize,
                        out);
    ExpectNear(D(out), V({(0.5 + 0.5) / 0.75, 0.5 / 0.75}));
    EXPECT_DOUBLE_EQ(o.weightUsed, 0.75);
    o = CombineMessages(own,
                        clean,
                        0.5,
                        {{1, 0.25, &m1, nullptr}, {2, 0.25, nullptr, &last2}},
                        MissingMessagePolicy::Skip,
                        out);
    EXPECT_TRUE(o.skipped);
    EXPECT_EQ(out, clean);
    // Errors.
    ExpectConfigError(
        [&] { CombineMessages(own, clean, -0.1, {}, MissingMessagePolicy::Skip, out); },
        "weights");
    ExpectConfigError(
        [&] {
            CombineMessages(own,
                            clean,
                            0.0,
                            {{1, 0.5, nullptr, nullptr}},
                            MissingMessagePolicy::Renormalize,
                            out);
        },
        "weights");
    const ParamVector short1 = PV({1});
    ExpectConfigError(
        [&] {
            CombineMessages(own,
                            clean,
                            0.5,
                            {{1, 0.5, &short1, nullptr}},
                            MissingMessagePolicy::Renormalize,
                            out);
        },
        "messages");
    EXPECT_EQ(ParseMissingMessagePolicy("renormalise", "p"), MissingMessagePolicy::Renormalize);
    ExpectConfigError([] { ParseMissingMessagePolicy("pray", "missingPolicy"); }, "missingPolicy");
}

TEST(LossPolicies, LostMessagesBreakTheGraphHomomorphicCancellation)
{
    const Eigen::MatrixXd A = HandA();
    const std::vector<ParamVector> psi{PV({1, 0}), PV({0, 1}), PV({2, 2})};
    auto drift = [&](NodeNoiseKind kind, MissingMessagePolicy policy, bool lose) {
        DeliveryFunction d;
        if (lose)
        {
            d = [](uint32_t, uint32_t from, uint32_t to) { return !(from == 1 && to == 0); };
        }
        GraphExchange ex(A,
                         NodeNoiseConfig{kind, NoiseDistribution::Laplace, 1.0},
                         {7, 8, 9},
                         policy,
                         d);
        std::vector<ParamVector> w;
        const std::size_t lost = ex.Step(1, psi, w);
        EXPECT_EQ(lost, lose ? 1U : 0U);
        return CentroidDrift({&w[0], &w[1], &w[2]}, {&psi[0], &psi[1], &psi[2]});
    };
    EXPECT_LT(drift(NodeNoiseKind::GraphHomomorphic, MissingMessagePolicy::Renormalize, false),
              1e-12);
    EXPECT_LT(drift(NodeNoiseKind::None, MissingMessagePolicy::ReuseLast, false), 1e-12);
    // A lost GH message leaks the sender's noise into the centroid.
    const double noiseLeak =
        drift(NodeNoiseKind::GraphHomomorphic, MissingMessagePolicy::Renormalize, true);
    const double reweighting = drift(NodeNoiseKind::None, MissingMessagePolicy::Renormalize, true);
    EXPECT_GT(std::abs(noiseLeak - reweighting), 1e-3);
    // i.i.d. broadcast noise moves the centroid by the mean noise even without loss.
    GraphExchange iid(A,
                      NodeNoiseConfig{NodeNoiseKind::IidBroadcast, NoiseDistribution::Laplace, 1.0},
                      {7, 8, 9},
                      MissingMessagePolicy::ReuseLast);
    std::vector<ParamVector> w;
    iid.Step(1, psi, w);
    Eigen::VectorXd meanNoise = Eigen::VectorXd::Zero(2);
    for (uint32_t p = 0; p < 3; ++p)
    {
        meanNoise += (D(iid.Release(p).message) - D(psi[p])) / 3.0;
    }
    EXPECT_NEAR(CentroidDrift({&w[0], &w[1], &w[2]}, {&psi[0], &psi[1], &psi[2]}),
                meanNoise.norm(),
                1e-12);
}

TEST(LossPolicies, ReuseLastUsesTheMessageOfTheLastIterationThatArrived)
{
    const Eigen::MatrixXd A = HandA();
    // Server 1's message to server 0 arrives in iteration 1 and is lost in iteration 2.
    GraphExchange ex(
        A,
        NodeNoiseConfig{},
        {1, 2, 3},
        MissingMessagePolicy::ReuseLast,
        [](uint32_t i, uint32_t from, uint32_t to) { return !(i == 2 && from == 1 && to == 0); });
    std::vector<ParamVector> w;
    ex.Step(1, {PV({1, 0}), PV({0, 1}), PV({2, 2})}, w);
    ex.Step(2, {PV({3, 3}), PV({5, 5}), PV({1, 1})}, w);
    // w_0 = 0.5 (3,3) + 0.25 (0,1) [stale] + 0.25 (1,1)
    ExpectNear(D(w[0]), V({1.5 + 0.0 + 0.25, 1.5 + 0.25 + 0.25}));
}

// ------------------------------------------------------------------------------- privacy

TEST(GflPrivacy, TheoremsByHandAndThroughTheAccountant)
{
    // The GFL preprint's Theorem 2: eps(i) = sqrt(2) mu B i (i + 1) / sigma_g
    EXPECT_NEAR(GflEpsilonPreprint(0.5, 2.0, 10, 3.0), std::sqrt(2.0) * 0.5 * 2.0 * 110 / 3.0, 1e-12);
    EXPECT_NEAR(GflSigmaPreprint(0.5, 2.0, 10, GflEpsilonPreprint(0.5, 2.0, 10, 3.0)), 3.0, 1e-12);
    // The journal version's Theorem 3: C = B + B' + sqrt(P) ||w° - w'°||, eps(i) = sqrt(2) C (i +
    // 1) / sigma_g
    const double C = GflSensitivityJournal(1.0, 2.0, 4, 0.5);
    EXPECT_DOUBLE_EQ(C, 4.0);
    EXPECT_NEAR(GflEpsilonJournal(C, 9, 2.0), std::sqrt(2.0) * 4.0 * 10 / 2.0, 1e-12);
    EXPECT_NEAR(GflSigmaJournal(C, 9, GflEpsilonJournal(C, 9, 2.0)), 2.0, 1e-12);
    // The accountant path (an eavesdropper on one link of a ring of 4) stays within the
    // preprint's Theorem 2 formula with the l1 sensitivity (Laplace of scale b = sigma_g /
    // sqrt(2), sqrt(M) times the l2 clip as the l1 bound): the drift grows by at most 2 mu G
    // per iteration, and exactly 2 mu G in iteration 1.
    const double sigmaG = 0.8;
    const Eigen::MatrixXd ring = MetropolisWeights(RingGraph(4));
    GraphPrivacyAccountant acc(NodeNoiseKind::IidPerLink,
                               MechanismKind::Laplace,
                               sigmaG / std::sqrt(2.0),
                               0.7,
                               1.5,
                               2,
                               ring);
    acc.RecordIteration();
    EXPECT_NEAR(acc.EpsilonOneLink(),
                std::sqrt(2.0) * GflEpsilonPreprint(0.7, 1.5, 1, sigmaG),
                1e-12);
    for (int i = 1; i < 25; ++i)
    {
        acc.RecordIteration();
    }
    EXPECT_LE(acc.EpsilonOneLink(), std::sqrt(2.0) * GflEpsilonPreprint(0.7, 1.5, 25, sigmaG));
    // By hand on the complete graph of 3 (a = 1/3), broadcast noise: the eavesdropper knows the
    // broadcast, every node hears it, so rho = 1 - 1/3 = 2/3 and M_n = 2 mu G (1 + 2/3 + ...):
    // M_1 = 2.1, M_2 = 3.5; M = 4, b = 1: eps = 2 (2.1 + 3.5) = 11.2 after two iterations.
    const Eigen::MatrixXd k3 = MetropolisWeights(CompleteGraph(3));
    GraphPrivacyAccountant
        bc(NodeNoiseKind::IidBroadcast, MechanismKind::Laplace, 1.0, 0.7, 1.5, 4, k3);
    bc.RecordIteration();
    EXPECT_NEAR(bc.EpsilonOneLink(), 4.2, 1e-12);
    bc.RecordIteration();
    EXPECT_NEAR(bc.EpsilonOneLink(), 11.2, 1e-12);
    // Gaussian noise is never inflated by sqrt(M): l2 sensitivity, Renyi DP.
    GraphPrivacyAccountant
        g(NodeNoiseKind::IidPerLink, MechanismKind::Gaussian, 2.0, 0.7, 1.5, 10000, ring);
    g.RecordIteration();
    PrivacyAccountant ref;
    ref.AddGaussian(2.0 * 0.7 * 1.5, 2.0);
    EXPECT_NEAR(g.EpsilonOneLink(), ref.Epsilon(1e-5, Composition::Rdp), 1e-12);
    // No noise: no guarantee.
    GraphPrivacyAccountant none(NodeNoiseKind::None, MechanismKind::None, 0.0, 0.7, 1.5, 2, ring);
    none.RecordIteration();
    EXPECT_TRUE(std::isinf(none.EpsilonOneLink()));
    ExpectConfigError(
        [&] {
            GraphPrivacyAccountant(NodeNoiseKind::IidPerLink,
                                   MechanismKind::Laplace,
                                   1.0,
                                   0.7,
                                   1.5,
                                   4,
                                   ring,
                                   0.0);
        },
        "delta");
    EXPECT_DOUBLE_EQ(ClientUploadSensitivity(false, 0.2, 1.0), 0.4);
    EXPECT_DOUBLE_EQ(ClientUploadSensitivity(true, 0.2, 1.0), 2.0);
    ExpectConfigError([] { GflEpsilonPreprint(0.0, 1.0, 1, 1.0); }, "mu");
    ExpectConfigError([] { GflEpsilonPreprint(0.1, 1.0, 1, 0.0); }, "sigmaG");
}
