/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Neighbour discovery (neighbour-discovery.h): the hello's bytes and what a malformed one is,
 * the table's symmetric neighbours and timeout, the local Metropolis column by hand and against
 * fl::MetropolisWeights, and the stochasticity error of weights formed from stale knowledge;
 * the epsilons of a graph that changes (fl::LiveGraphPrivacyAccountant): a still graph's equal
 * the fixed accountant's, and a link that comes and goes by hand.
 */
#include "fl-test-config-error.h"

#include "ns3/gfl-privacy.h"
#include "ns3/graph.h"
#include "ns3/neighbour-discovery.h"

#include <gtest/gtest.h>
#include <map>
#include <vector>

using namespace ns3;
using namespace ns3::fl;
using fltest::ExpectConfigError;

TEST(NeighbourDiscovery, HelloRoundTripsAndMalformedOnesAreRefused)
{
    fl::Hello h;
    h.sender = 7;
    h.degree = 2;
    h.heard = {1, 4, 9};
    const std::vector<uint8_t> bytes = fl::PackHello(h);
    EXPECT_EQ(bytes.size(), 16u + 12u);
    fl::Hello back;
    ASSERT_TRUE(fl::UnpackHello(bytes, back));
    EXPECT_EQ(back.sender, 7u);
    EXPECT_EQ(back.degree, 2u);
    EXPECT_EQ(back.heard, h.heard);
    const auto refused = [](std::vector<uint8_t> b) {
        fl::Hello out;
        out.sender = 99;
        const bool ok = fl::UnpackHello(b, out);
        return !ok && out.sender == 99; // refused, and nothing written
    };
    std::vector<uint8_t> b = bytes;
    b[0] ^= 1; // magic
    EXPECT_TRUE(refused(b));
    b = bytes;
    b.pop_back(); // length
    EXPECT_TRUE(refused(b));
    b = bytes;
    b[12] = 0xff; // a count the bytes do not hold
    b[13] = 0xff;
    b[14] = 0xff;
    b[15] = 0x7f;
    EXPECT_TRUE(refused(b));
    fl::Hello bad = h;
    bad.heard = {4, 1, 9}; // not ascending
    EXPECT_TRUE(refused(fl::PackHello(bad)));
    bad.heard = {1, 7, 9}; // hears itself
    EXPECT_TRUE(refused(fl::PackHello(bad)));
    bad.heard = {1};
    bad.degree = 2; // more symmetric neighbours than heard nodes
    EXPECT_TRUE(refused(fl::PackHello(bad)));
    EXPECT_TRUE(refused({}));
}

TEST(NeighbourDiscovery, SymmetricNeighboursWithinTheTimeout)
{
    fl::NeighbourTable t(0, 1.5);
    fl::Hello from1{1, 1, {0}}; // hears 0: symmetric
    fl::Hello from2{2, 0, {3}}; // does not hear 0: one-way
    t.Heard(from1, 0.0);
    t.Heard(from2, 0.5);
    t.Heard(fl::Hello{0, 0, {}}, 0.5); // its own hello is ignored
    EXPECT_EQ(t.HeardNodes(1.0), (std::vector<uint32_t>{1, 2}));
    EXPECT_EQ(t.Neighbours(1.0), (std::vector<uint32_t>{1}));
    EXPECT_EQ(t.NeighbourDegrees(1.0), (std::map<uint32_t, uint32_t>{{1, 1}}));
    const fl::Hello mine = t.MakeHello(1.0);
    EXPECT_EQ(mine.sender, 0u);
    EXPECT_EQ(mine.degree, 1u);
    EXPECT_EQ(mine.heard, (std::vector<uint32_t>{1, 2}));
    // 1 was heard at 0: gone after 1.5 s; 2 (heard at 0.5) stays until 2.0
    EXPECT_EQ(t.HeardNodes(1.5), (std::vector<uint32_t>{1, 2}));
    EXPECT_EQ(t.HeardNodes(1.6), (std::vector<uint32_t>{2}));
    EXPECT_TRUE(t.Neighbours(1.6).empty());
    t.Expire(2.1);
    EXPECT_TRUE(t.HeardNodes(0.0).empty()); // forgotten, whatever the time asked
    ExpectConfigError([] { fl::NeighbourTable(0, 0.0); }, "timeout");
}

TEST(NeighbourDiscovery, LocalMetropolisColumnByHandAndAsTheGraphsWeights)
{
    // n_k = 3; neighbour 1 (degree 1, n = 2): 1/3; neighbour 2 (degree 3, n = 4): 1/4;
    // self: 1 - 1/3 - 1/4 = 5/12
    const auto col = fl::LocalMetropolisWeights(0, 2, {{1, 1}, {2, 3}});
    EXPECT_NEAR(col.at(1), 1.0 / 3.0, 1e-15);
    EXPECT_NEAR(col.at(2), 0.25, 1e-15);
    EXPECT_NEAR(col.at(0), 5.0 / 12.0, 1e-15);
    ExpectConfigError([] { fl::LocalMetropolisWeights(0, 1, {{1, 1}, {2, 1}}); }, "selfDegree");
    // With the true degrees every node's column is fl::MetropolisWeights' column, and the
    // matrix is doubly stochastic (error 0 up to rounding).
    fl::Rng rng(4);
    const fl::Graph g = fl::ErdosRenyiGraph(12, 0.35, rng);
    const Eigen::MatrixXd a = fl::MetropolisWeights(g);
    std::map<uint32_t, std::map<uint32_t, double>> columns;
    for (uint32_t k = 0; k < g.NumNodes(); ++k)
    {
        std::map<uint32_t, uint32_t> degrees;
        for (uint32_t l : g.Neighbors(k))
        {
            degrees[l] = static_cast<uint32_t>(g.Degree(l));
        }
        columns[k] = fl::LocalMetropolisWeights(k, static_cast<uint32_t>(g.Degree(k)), degrees);
        for (const auto& [l, w] : columns[k])
        {
            EXPECT_NEAR(w, a(l, k), 1e-15) << l << " -> " << k;
        }
    }
    EXPECT_LT(fl::StochasticityError(columns), 1e-14);
}

// Three nodes on a line, 0 - 1 - 2, each hello round every node hears its neighbours' last
// hellos: after round 1 each node only hears the others (no hello listed it yet), after round 2
// the links are known symmetric. Then node 2 leaves 1's range: until 1's entry of 2 times out, 1
// still weights 2 while 2 no longer weights 1, and the stochasticity error is what the stale
// weights give by hand.
TEST(NeighbourDiscovery, HelloRoundsLearnTheGraphAndStaleKnowledgeBreaksStochasticity)
{
    const double timeout = 2.5;
    std::vector<fl::NeighbourTable> t;
    for (uint32_t k = 0; k < 3; ++k)
    {
        t.emplace_back(k, timeout);
    }
    auto exchange = [&t](double now, const std::vector<std::pair<uint32_t, uint32_t>>& links) {
        std::vector<fl::Hello> hellos;
        for (const auto& table : t)
        {
            hellos.push_back(table.MakeHello(now));
        }
        for (const auto& [a, b] : links)
        {
            t[b].Heard(hellos[a], now);
            t[a].Heard(hellos[b], now);
        }
    };
    const std::vector<std::pair<uint32_t, uint32_t>> line = {{0, 1}, {1, 2}};
    exchange(0.0, line);
    EXPECT_EQ(t[1].HeardNodes(0.0), (std::vector<uint32_t>{0, 2}));
    EXPECT_TRUE(t[1].Neighbours(0.0).empty());
    exchange(1.0, line);
    EXPECT_EQ(t[1].Neighbours(1.0), (std::vector<uint32_t>{0, 2}));
    EXPECT_EQ(t[0].Neighbours(1.0), (std::vector<uint32_t>{1}));
    exchange(2.0, line); // the degrees announced are now the true ones
    const auto columns = [&t](double now) {
        std::map<uint32_t, std::map<uint32_t, double>> c;
        for (uint32_t k = 0; k < 3; ++k)
        {
            c[k] = fl::LocalMetropolisWeights(k,
                                              static_cast<uint32_t>(t[k].Neighbours(now).size()),
                                              t[k].NeighbourDegrees(now));
        }
        return c;
    };
    EXPECT_LT(fl::StochasticityError(columns(2.0)), 1e-15);
    // 2 moves away at 2.5: only 0 - 1 hear each other from now on
    exchange(3.0, {{0, 1}});
    // at 3.0, 2 still has 1 (heard at 2.0, timeout 2.5); 1 still has 2; the degrees they hold
    // are those of the hellos of 3.0 and 2.0: no error yet
    EXPECT_LT(fl::StochasticityError(columns(3.0)), 1e-15);
    // at 4.6 both entries of the 1 - 2 link (heard at 2.0) are gone, 0 - 1 was refreshed at 3.0
    // with the degrees of then: 1 announced degree 2 (it still had 2), so 0 uses
    // a_10 = 1/max(2, 3) = 1/3 while 1 (now degree 1) uses a_01 = 1/max(2, 2) = 1/2 and
    // a_11 = 1/2: the message of 1 receives 1/3 + 1/2 = 5/6 in all, of 0: 2/3 + 1/2 = 7/6
    const auto c = columns(4.6);
    EXPECT_NEAR(c.at(0).at(1), 1.0 / 3.0, 1e-15);
    EXPECT_NEAR(c.at(1).at(0), 0.5, 1e-15);
    EXPECT_NEAR(fl::StochasticityError(c), 1.0 / 6.0, 1e-15);
}

// ------------------------------------------------- the epsilons of a graph that changes

namespace
{

/// Every epsilon of a live accountant fed `A` for `iterations` iterations and of the fixed
/// accountant on `A`.
void
ExpectLiveEqualsFixed(const Eigen::MatrixXd& A,
                      NodeNoiseKind noise,
                      MechanismKind kind,
                      uint32_t iterations)
{
    const double scale = 0.7;
    const double mu = 0.1;
    const double clip = 1.5;
    const std::size_t dim = 4;
    GraphPrivacyAccountant fixed(noise, kind, scale, mu, clip, dim, A);
    LiveGraphPrivacyAccountant live(noise, kind, scale, mu, clip, dim, A.rows());
    for (uint32_t i = 1; i <= iterations; ++i)
    {
        fixed.RecordIteration();
        live.RecordIteration(A);
        for (GraphAdversary adversary :
             {GraphAdversary::OneLink, GraphAdversary::AllLinks, GraphAdversary::Neighbour})
        {
            // exact: the recursion is non-decreasing on a fixed graph (B >= 0, and rounding
            // is monotone), so the running maximum changes nothing
            EXPECT_EQ(live.Epsilon(adversary), fixed.Epsilon(adversary))
                << NodeNoiseKindName(noise) << " " << GraphAdversaryName(adversary)
                << " iteration " << i;
        }
    }
}

} // namespace

TEST(LiveGraphPrivacy, AStillGraphGivesTheFixedGraphsEpsilons)
{
    Rng g(5);
    ConnectivityRequirement req;
    req.connected = true;
    const std::vector<Eigen::MatrixXd> graphs{MetropolisWeights(RingGraph(5)),
                                              MetropolisWeights(ErdosRenyiGraph(6, 0.5, g, req))};
    for (const auto& A : graphs)
    {
        for (NodeNoiseKind noise : {NodeNoiseKind::GraphHomomorphic,
                                    NodeNoiseKind::IidPerLink,
                                    NodeNoiseKind::IidBroadcast})
        {
            for (MechanismKind kind : {MechanismKind::Laplace, MechanismKind::Gaussian})
            {
                ExpectLiveEqualsFixed(A, noise, kind, 6);
            }
        }
    }
}

TEST(LiveGraphPrivacy, ALinkThatComesAndGoesByHand)
{
    // Two nodes joined in iterations 1 and 3 (a = 1/2 everywhere), apart in iteration 2;
    // graph-homomorphic Laplace noise b = 0.5, mu G = 0.1, M = 1: c = 2 mu G = 0.2. Against the
    // neighbour (node 1 observes node 0):
    //  n = 1: e = (c, c); node 0's own release: c;
    //  n = 2: nothing observed, B = I: e = (2c, 2c);
    //  n = 3: node 1 knows node 0's draw, so node 0's kept term moves by a_00 / a_00 = 1 times
    //         e_0, node 1's by a_11 = 1/2 times e_1: e = max((2c, 2c), (3c, 2c)) = (3c, 2c);
    //         it observes node 0's release: 3c.
    // Sum 4c = 0.8: eps = 0.8 / b = 1.6. The still graph would give c + 2c + 3c = 6c: 2.4.
    Eigen::MatrixXd joined = Eigen::MatrixXd::Constant(2, 2, 0.5);
    Eigen::MatrixXd apart = Eigen::MatrixXd::Identity(2, 2);
    LiveGraphPrivacyAccountant live(NodeNoiseKind::GraphHomomorphic,
                                    MechanismKind::Laplace,
                                    0.5,
                                    0.1,
                                    1.0,
                                    1,
                                    2);
    live.RecordIteration(joined);
    EXPECT_NEAR(live.Epsilon(GraphAdversary::Neighbour), 0.4, 1e-15);
    live.RecordIteration(apart);
    EXPECT_NEAR(live.Epsilon(GraphAdversary::Neighbour), 0.4, 1e-15);
    live.RecordIteration(joined);
    EXPECT_NEAR(live.Epsilon(GraphAdversary::Neighbour), 1.6, 1e-15);
    GraphPrivacyAccountant still(NodeNoiseKind::GraphHomomorphic,
                                 MechanismKind::Laplace,
                                 0.5,
                                 0.1,
                                 1.0,
                                 1,
                                 joined);
    for (int i = 0; i < 3; ++i)
    {
        still.RecordIteration();
    }
    EXPECT_NEAR(still.Epsilon(GraphAdversary::Neighbour), 2.4, 1e-15);
    // a bad matrix names the parameter
    ExpectConfigError([&]() { live.RecordIteration(Eigen::MatrixXd::Identity(3, 3)); },
                      "combination");
    ExpectConfigError(
        [&]() {
            LiveGraphPrivacyAccountant(NodeNoiseKind::GraphHomomorphic,
                                       MechanismKind::Laplace,
                                       0.5,
                                       0.1,
                                       1.0,
                                       1,
                                       0);
        },
        "nodes");
}
