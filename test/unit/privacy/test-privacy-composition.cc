/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Composed privacy over rounds and iterations: DWFL's drift bound (the matrix M of a round, the
 * sensitivities Delta_t, the composed epsilon) and the graph releases' three adversaries
 * (GraphAdversaryCases, GraphDriftSensitivity, GraphPrivacyAccountant), each against a hand
 * computation; and the noise source's seeds.
 */
#include "fl-test-config-error.h"

#include "ns3/dwfl-composition.h"
#include "ns3/dwfl-privacy.h"
#include "ns3/gfl-privacy.h"
#include "ns3/graph.h"
#include "ns3/noise-source.h"

#include <cmath>
#include <gtest/gtest.h>

using namespace ns3::fl;
using fltest::ExpectConfigError;

namespace
{

/// Three workers, receiver 0, c = 1, gamma = 0.1, g_max = 1 (2 gamma g_max c = 0.2),
/// eta = 2/3, sigma_m^2 = 1; every worker has |h| = 1 and P = 2, and beta as given.
DwflRoundSetup
ThreeWorkers(double beta)
{
    DwflRoundSetup s;
    s.gainAbs = {1.0, 1.0, 1.0};
    s.powerW = {2.0, 2.0, 2.0};
    s.beta = {beta, beta, beta};
    s.c = 1.0;
    s.eta = 2.0 / 3.0;
    s.params.gamma = 0.1;
    s.params.gMax = 1.0;
    s.params.sigma2 = 1.0;
    s.params.sigmaM2 = 1.0;
    return s;
}

} // namespace

// No artificial noise (beta = 0): the reception fixes the receiver noise m_0 (b_m = 1), the
// update averages. By hand (dx = e_j, dn = -c for j != 0): M = [[1/3, 1/3, 1/3], [0, 1/3, 1/3],
// [0, 1/3, 1/3]] (worker 0's model never differs); z_0 = (0, 1, 1), z_1 = M z_0 = (2/3, 2/3,
// 2/3), z_2 = (2/3, 4/9, 4/9); Delta_t / 0.2 = 1, 2/3 + 2 = 8/3, 4/9 + 4/3 + 2 = 34/9.
TEST(DwflComposition, DriftWithoutArtificialNoiseByHand)
{
    const DwflRoundSetup s = ThreeWorkers(0.0);
    const Eigen::MatrixXd m = DwflDriftMatrix(0, DwflDecode::Practical, s);
    const double third = 1.0 / 3.0;
    Eigen::MatrixXd want(3, 3);
    want << third, third, third, 0.0, third, third, 0.0, third, third;
    EXPECT_LE((m - want).cwiseAbs().maxCoeff(), 1e-15);
    EXPECT_NEAR(DwflFreshNoiseStd(0, s), 1.0, 1e-15);
    DwflComposedBound bound(0, DwflDecode::Practical);
    const double want1[] = {1.0, 8.0 / 3.0, 34.0 / 9.0};
    PrivacyAccountant hand;
    PrivacyAccountant fed;
    for (int t = 0; t < 3; ++t)
    {
        const MechanismSpec spec = bound.AddRound(s);
        EXPECT_EQ(spec.kind, MechanismKind::Gaussian);
        EXPECT_NEAR(spec.sensitivity, 0.2 * want1[t], 1e-15) << "round " << t + 1;
        EXPECT_NEAR(spec.scale, 1.0, 1e-15);
        EXPECT_NEAR(bound.LastDriftFactor(1), want1[t], 1e-15);
        EXPECT_NEAR(bound.LastDriftFactor(2), want1[t], 1e-15);
        hand.AddGaussian(0.2 * want1[t], 1.0);
        fed.Add(spec);
    }
    EXPECT_NEAR(DwflComposedEpsilon(0, DwflDecode::Practical, s, 3, 1e-5),
                hand.Epsilon(1e-5, Composition::Rdp),
                1e-12);
    ExpectConfigError([&] { bound.LastDriftFactor(0); }, "target");
}

// Artificial noise: |h| sqrt(beta P) = 1 for every worker (beta = 1/2, P = 2, c = 1: a_k = 1),
// sigma_n^2 = 2 a^2 sigma^2 + sigma_m^2 = 3, b_k = c a sigma^2 / sigma_n^2 = 1/3. For dx = e_1:
// dn = -1, dG_1 = dG_2 = -1/3, so worker 1 gets (1 - eta) + eta a^2 / (2 sigma_n^2) = 1/3 + 1/9
// = 4/9 and worker 2 eta / 2 + eta a^2 / (2 sigma_n^2) = 4/9: the noise the reception fixes is
// carried into the models. z_1 = (2/3, 8/9, 8/9): Delta_2 / 0.2 = 8/9 + 2 = 26/9.
TEST(DwflComposition, DriftWithArtificialNoiseByHand)
{
    const DwflRoundSetup s = ThreeWorkers(0.5);
    const Eigen::MatrixXd m = DwflDriftMatrix(0, DwflDecode::Practical, s);
    EXPECT_NEAR(m(1, 1), 4.0 / 9.0, 1e-15);
    EXPECT_NEAR(m(1, 2), 4.0 / 9.0, 1e-15);
    EXPECT_NEAR(m(2, 1), 4.0 / 9.0, 1e-15);
    EXPECT_NEAR(m(1, 0), 0.0, 1e-15);
    EXPECT_NEAR(m(0, 0), 1.0 / 3.0, 1e-15);
    EXPECT_NEAR(m(0, 1), 1.0 / 3.0, 1e-15);
    EXPECT_NEAR(DwflFreshNoiseStd(0, s), std::sqrt(3.0), 1e-15);
    DwflComposedBound bound(0, DwflDecode::Practical);
    EXPECT_NEAR(bound.AddRound(s).sensitivity, 0.2, 1e-15); // eq. (11)'s sensitivity
    const MechanismSpec second = bound.AddRound(s);
    EXPECT_NEAR(second.sensitivity, 0.2 * 26.0 / 9.0, 1e-15);
    EXPECT_NEAR(second.scale, std::sqrt(3.0), 1e-15);
}

// Oracle decode: every worker removes its own receiver noise, so worker 0's model moves too
// (M = J, all 1/3, by hand as above with dm_0 cancelled) and its gradient counts from round 2:
// Delta_3 / 0.2 = |z_2[w]| + ||z_1||_1 + ||z_0||_1 = 2/3 + 2 + 2 = 14/3.
TEST(DwflComposition, OracleDecodeByHand)
{
    const DwflRoundSetup s = ThreeWorkers(0.0);
    const Eigen::MatrixXd m = DwflDriftMatrix(0, DwflDecode::Oracle, s);
    EXPECT_LE((m.array() - 1.0 / 3.0).abs().maxCoeff(), 1e-15);
    DwflComposedBound bound(0, DwflDecode::Oracle);
    bound.AddRound(s);
    EXPECT_NEAR(bound.AddRound(s).sensitivity, 0.2 * 8.0 / 3.0, 1e-15);
    EXPECT_NEAR(bound.AddRound(s).sensitivity, 0.2 * 14.0 / 3.0, 1e-15);
}

// A setup that changes between rounds (block fading) takes the general path: the same values
// as the constant path when the setups happen to be equal, and M_s of each round otherwise.
TEST(DwflComposition, ChangingSetupUsesEachRoundsMatrix)
{
    DwflRoundSetup a = ThreeWorkers(0.0);
    DwflRoundSetup b = ThreeWorkers(0.5);
    DwflComposedBound bound(0, DwflDecode::Practical);
    bound.AddRound(b); // round 1: M_1 of b
    bound.AddRound(a); // round 2 (the setup changed)
    // Delta_2 = 0.2 [|(M_1 1_{-0})_w| + ||1_{-0}||_A] with M_1 of b: 8/9 + 2
    EXPECT_NEAR(bound.LastDriftFactor(1), 26.0 / 9.0, 1e-15);
    const MechanismSpec third = bound.AddRound(a);
    // z_{2,3} = M_a 1_{-0} = (2/3, 2/3, 2/3), z_{1,3} = M_b z_{2,3}: worker 1 gets
    // (4/9 + 4/9) 2/3 = 16/27; history ||z_{3,3}|| + ||z_{2,3}|| = 2 + 4/3
    EXPECT_NEAR(third.sensitivity, 0.2 * (16.0 / 27.0 + 2.0 + 4.0 / 3.0), 1e-15);
    EXPECT_NEAR(third.scale, 1.0, 1e-15);
}

// Without any noise at the receiver there is no guarantee; bad setups are refused by name.
TEST(DwflComposition, NoNoiseAndBadInput)
{
    DwflRoundSetup s = ThreeWorkers(0.0);
    s.params.sigmaM2 = 0.0;
    DwflComposedBound bound(0, DwflDecode::Practical);
    EXPECT_EQ(bound.AddRound(s).kind, MechanismKind::None);
    EXPECT_TRUE(std::isinf(DwflComposedEpsilon(0, DwflDecode::Practical, s, 2, 1e-5)));
    ExpectConfigError([&] { DwflDriftMatrix(0, DwflDecode::Practical, s); }, "sigmaM2");
    DwflRoundSetup e = ThreeWorkers(0.0);
    e.eta = 0.0;
    ExpectConfigError([&] { DwflDriftMatrix(0, DwflDecode::Practical, e); }, "eta");
    ExpectConfigError([&] { DwflDriftMatrix(3, DwflDecode::Practical, ThreeWorkers(0.0)); },
                      "receiver");
    DwflRoundSetup four = ThreeWorkers(0.0);
    four.gainAbs.push_back(1.0);
    four.powerW.push_back(2.0);
    four.beta.push_back(0.0);
    DwflComposedBound b2(0, DwflDecode::Practical);
    b2.AddRound(ThreeWorkers(0.0));
    ExpectConfigError([&] { b2.AddRound(four); }, "gainAbs");
    const PrivacyStatement st = DwflComposedStatement("worker 0", 1e-5);
    EXPECT_NE(st.Describe().find("proof: doc/fl-privacy.rst"), std::string::npos);
    EXPECT_NE(st.Describe().find("noise: "), std::string::npos);
}

// The complete graph of 4 nodes with Metropolis weights (every a = 1/4), by hand.
//  - one link, per-link noise: 12 placements (one per directed link), one release each; for
//    0 -> 1 every entry of B is 1/4 except B_10 = 0 (the observed copy);
//  - graph-homomorphic noise, one link from node 0: the eavesdropper knows node 0's draw, so
//    B_00 = a_00 / a_00 = 1 and no copy of node 0 moves anything (B_k0 = 0);
//  - broadcast noise, all links of node 0: its kept copy is the observed message (no B_00);
//  - a neighbouring node 0 with per-sender noise hears every other node: B is diagonal, a_kk.
// The drift of graph-homomorphic noise on one link (2 mu G = 1): e(1) = 1,
// e(2) = (1 + 3/4 + 1, 3/4 + 1, ...) = (2.75, 1.75, 1.75, 1.75), e_0(3) = 2.75 + (3/4) 1.75 + 1
// = 5.0625: linear growth, 1 + 3/4 e_k with e_k -> 4 per iteration.
TEST(GraphPrivacy, PlacementsAndDriftOnTheCompleteGraph)
{
    const Eigen::MatrixXd A = MetropolisWeights(CompleteGraph(4));
    using Row = std::vector<std::pair<uint32_t, double>>;
    const auto link =
        GraphAdversaryPlacements(A, NodeNoiseKind::IidPerLink, GraphAdversary::OneLink);
    ASSERT_EQ(link.size(), 12U);
    EXPECT_EQ(link[0].releases, (std::vector<std::pair<uint32_t, uint32_t>>{{0, 1}}));
    EXPECT_EQ(link[0].drift[1], (Row{{1, 0.25}, {2, 0.25}, {3, 0.25}}));
    EXPECT_EQ(link[0].drift[0], (Row{{0, 0.25}, {1, 0.25}, {2, 0.25}, {3, 0.25}}));
    const auto gh =
        GraphAdversaryPlacements(A, NodeNoiseKind::GraphHomomorphic, GraphAdversary::OneLink);
    ASSERT_EQ(gh.size(), 4U); // the shared draw: one placement per sender
    EXPECT_EQ(gh[0].drift[0], (Row{{0, 1.0}, {1, 0.25}, {2, 0.25}, {3, 0.25}}));
    EXPECT_EQ(gh[0].drift[2], (Row{{2, 0.25}, {1, 0.25}, {3, 0.25}})); // diagonal first
    const auto bc =
        GraphAdversaryPlacements(A, NodeNoiseKind::IidBroadcast, GraphAdversary::AllLinks);
    EXPECT_EQ(bc[0].drift[0], (Row{{1, 0.25}, {2, 0.25}, {3, 0.25}}));
    EXPECT_EQ(bc[0].releases, (std::vector<std::pair<uint32_t, uint32_t>>{{0, 1}}));
    const auto pl =
        GraphAdversaryPlacements(A, NodeNoiseKind::IidPerLink, GraphAdversary::AllLinks);
    EXPECT_EQ(pl[0].releases, (std::vector<std::pair<uint32_t, uint32_t>>{{0, 3}}));
    const auto nb =
        GraphAdversaryPlacements(A, NodeNoiseKind::IidPerSender, GraphAdversary::Neighbour);
    EXPECT_EQ(nb[0].releases, (std::vector<std::pair<uint32_t, uint32_t>>{{1, 1}, {2, 1}, {3, 1}}));
    EXPECT_EQ(nb[0].drift[2], (Row{{2, 0.25}}));
    Eigen::VectorXd e;
    GraphDriftStep(gh[0], 1.0, 1, e);
    EXPECT_EQ(e, Eigen::VectorXd::Ones(4));
    GraphDriftStep(gh[0], 1.0, 2, e);
    EXPECT_NEAR(e[0], 2.75, 1e-15);
    EXPECT_NEAR(e[1], 1.75, 1e-15);
    GraphDriftStep(gh[0], 1.0, 3, e);
    EXPECT_NEAR(e[0], 5.0625, 1e-15);
    ExpectConfigError(
        [] {
            GraphAdversaryPlacements(Eigen::MatrixXd(2, 3),
                                     NodeNoiseKind::None,
                                     GraphAdversary::OneLink);
        },
        "combination");
}

// The accountant on the same graph, Laplace b = 2, mu = 0.5, G = 1 (2 mu G = 1), M = 4 (l1 =
// 2 l2), 3 iterations, by hand with the recursion above:
//  - one link 0 -> 1, per-link: e_0 = 1, 2, 1/4 (2) + 1/4 (1.75 + 2 + 2) + 1 = 2.9375:
//    eps = 2 (1 + 2 + 2.9375) / 2 = 5.9375;
//  - all links of node 0, per-link: e_0 = 1, 2, 1/4 (2) + 3/4 (1.75) + 1 = 2.8125, 3 copies:
//    3 (1 + 2 + 2.8125) = 17.4375;
//  - neighbouring node 0, per-link: e_m = 1, 3/4 + 1 = 1.75, 3/4 (1.75) + 1 = 2.3125 for
//    m = 1, 2, 3; 1 release in iteration 1, 3 later: 1 + 3 (1.75 + 2.3125) = 13.1875;
//  - graph-homomorphic, one link: 2 (1 + 2.75 + 5.0625) / 2 = 8.8125.
// Gaussian sigma = 2, per-sender noise: one link e_0 = 1, 2, 2.8125, sum of squares
// 1 + 4 + 7.91015625 = 12.91015625; the neighbour (B = a_kk I: e_m = 1, 1.25, 1.3125):
// 1 + 3 (1.5625 + 1.72265625) = 10.85546875. A stronger adversary's bound can come out lower:
// it conditions on more, which pins more of the models (each bound also holds for every weaker
// adversary).
TEST(GraphPrivacy, AccountantByHand)
{
    const Eigen::MatrixXd A = MetropolisWeights(CompleteGraph(4));
    GraphPrivacyAccountant
        lap(NodeNoiseKind::IidPerLink, MechanismKind::Laplace, 2.0, 0.5, 1.0, 4, A);
    EXPECT_DOUBLE_EQ(lap.EpsilonOneLink(), 0.0);
    for (int i = 0; i < 3; ++i)
    {
        lap.RecordIteration();
    }
    EXPECT_NEAR(lap.EpsilonOneLink(), 5.9375, 1e-12);
    EXPECT_NEAR(lap.EpsilonAllLinks(), 17.4375, 1e-12);
    EXPECT_NEAR(lap.EpsilonNeighbour(), 13.1875, 1e-12);
    GraphPrivacyAccountant
        gau(NodeNoiseKind::IidPerSender, MechanismKind::Gaussian, 2.0, 0.5, 1.0, 4, A, 1e-5);
    for (int i = 0; i < 3; ++i)
    {
        gau.RecordIteration();
    }
    PrivacyAccountant one;
    one.AddGaussian(std::sqrt(12.91015625), 2.0);
    PrivacyAccountant neighbour;
    neighbour.AddGaussian(std::sqrt(10.85546875), 2.0);
    EXPECT_NEAR(gau.EpsilonOneLink(), one.Epsilon(1e-5, Composition::Rdp), 1e-12);
    EXPECT_NEAR(gau.EpsilonAllLinks(), one.Epsilon(1e-5, Composition::Rdp), 1e-12);
    EXPECT_NEAR(gau.EpsilonNeighbour(), neighbour.Epsilon(1e-5, Composition::Rdp), 1e-12);
    GraphPrivacyAccountant
        gh(NodeNoiseKind::GraphHomomorphic, MechanismKind::Laplace, 2.0, 0.5, 1.0, 4, A);
    for (int i = 0; i < 3; ++i)
    {
        gh.RecordIteration();
    }
    EXPECT_NEAR(gh.EpsilonOneLink(), 8.8125, 1e-12);
    // no noise, or no clipping: no guarantee
    GraphPrivacyAccountant none(NodeNoiseKind::None, MechanismKind::None, 0.0, 0.5, 1.0, 4, A);
    none.RecordIteration();
    EXPECT_TRUE(std::isinf(none.EpsilonNeighbour()));
    GraphPrivacyAccountant
        unclipped(NodeNoiseKind::IidPerLink, MechanismKind::Laplace, 1.0, 0.5, 0.0, 4, A);
    unclipped.RecordIteration();
    EXPECT_TRUE(std::isinf(unclipped.EpsilonOneLink()));
    const std::string d = GraphReleaseStatement(NodeNoiseKind::IidPerLink,
                                                MechanismKind::Laplace,
                                                GraphAdversary::Neighbour,
                                                "u",
                                                1e-5)
                              .Describe();
    EXPECT_NE(d.find("adversary: a neighbouring node"), std::string::npos) << d;
    EXPECT_NE(d.find("proof: doc/fl-privacy.rst"), std::string::npos) << d;
}

// RunSeed passes the derived seed through; Sodium draws fresh 64-bit seeds (two draws differ
// with probability 1 - 2^-64) and ignores the derived one; the names parse both ways.
TEST(NoiseSourceTest, SeedsAndNames)
{
    EXPECT_EQ(NoiseSeed(NoiseSource::RunSeed, 12345U), 12345U);
    EXPECT_NE(NoiseSeed(NoiseSource::Sodium, 12345U), NoiseSeed(NoiseSource::Sodium, 12345U));
    EXPECT_EQ(ParseNoiseSource("sodium", "x"), NoiseSource::Sodium);
    EXPECT_EQ(ParseNoiseSource("run-seed", "x"), NoiseSource::RunSeed);
    EXPECT_STREQ(NoiseSourceName(NoiseSource::Sodium), "sodium");
    ExpectConfigError([] { ParseNoiseSource("urandom", "--noiseSource"); }, "--noiseSource");
    EXPECT_NE(NoiseAssumption(NoiseSource::RunSeed).find("not to know the run seed"),
              std::string::npos);
    EXPECT_NE(NoiseAssumption(NoiseSource::Sodium).find("change from run to run"),
              std::string::npos);
}

// Every statement is one CSV comment line without a semicolon (list-splitting readers, such as
// CMake's, keep it whole) and names its noise assumption and its proof.
TEST(NoiseSourceTest, StatementsAreOneLineWithNoiseAndProof)
{
    std::vector<PrivacyStatement> all{DwflRoundStatement("worker 1"),
                                      DwflComposedStatement("worker 0", 1e-5),
                                      OtaPsComposedStatement(1e-5),
                                      UplinkStatement(MechanismKind::Gaussian, 1e-5)};
    for (auto kind : {NodeNoiseKind::IidPerLink, NodeNoiseKind::GraphHomomorphic})
    {
        for (auto adv :
             {GraphAdversary::OneLink, GraphAdversary::AllLinks, GraphAdversary::Neighbour})
        {
            all.push_back(GraphReleaseStatement(kind, MechanismKind::Laplace, adv, "u", 1e-5));
        }
    }
    PrivacyStatement sodium = DwflRoundStatement("worker 1");
    sodium.noise = NoiseAssumption(NoiseSource::Sodium);
    all.push_back(sodium);
    for (const PrivacyStatement& s : all)
    {
        const std::string d = s.Describe();
        EXPECT_EQ(d.find(';'), std::string::npos) << d;
        EXPECT_EQ(d.find('\n'), std::string::npos) << d;
        EXPECT_NE(d.find(" | noise: "), std::string::npos) << d;
        EXPECT_NE(d.find(" | proof: doc/fl-privacy.rst, section \""), std::string::npos) << d;
    }
}
