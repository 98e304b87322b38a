/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Graphs, generators, combination matrices, their validators and network metrics, against hand
 * computations, closed forms and binomial bounds.
 */
#include "ns3/graph.h"
#include "ns3/network-metrics.h"

#include <cmath>
#include <functional>
#include <gtest/gtest.h>
#include <limits>
#include <string>

using namespace ns3::fl;

namespace
{

/// Expects `f` to throw ConfigError whose message contains every string of `parts`.
void
ExpectConfigError(const std::function<void()>& f, const std::vector<std::string>& parts)
{
    try
    {
        f();
        ADD_FAILURE() << "no ConfigError thrown";
    }
    catch (const ConfigError& e)
    {
        const std::string what = e.what();
        for (const auto& p : parts)
        {
            EXPECT_NE(what.find(p), std::string::npos) << "\"" << p << "\" not in: " << what;
        }
    }
}

/// A small example graph: 0-1, 1-2, 1-3, 2-3 (degrees 1, 3, 2, 2).
Graph
KiteGraph()
{
    return Graph(4, {{0, 1}, {1, 2}, {3, 1}, {2, 3}});
}

const double kPi = 3.14159265358979323846;

} // namespace

// ---------------------------------------------------------------------------------- graphs

TEST(Graph, StoresSortedNeighboursDegreesEdgesAndAdjacency)
{
    const Graph g = KiteGraph();
    EXPECT_EQ(g.NumNodes(), 4u);
    EXPECT_EQ(g.NumEdges(), 4u);
    EXPECT_EQ(g.Neighbors(1), (std::vector<uint32_t>{0, 2, 3}));
    EXPECT_EQ(g.Neighbors(3), (std::vector<uint32_t>{1, 2}));
    EXPECT_EQ(g.Degrees(), (std::vector<std::size_t>{1, 3, 2, 2}));
    EXPECT_TRUE(g.HasEdge(3, 1));
    EXPECT_TRUE(g.HasEdge(1, 3));
    EXPECT_FALSE(g.HasEdge(0, 2));
    EXPECT_EQ(g.Edges(), (std::vector<Edge>{{0, 1}, {1, 2}, {1, 3}, {2, 3}}));
    Eigen::MatrixXd adj(4, 4);
    adj << 0, 1, 0, 0, //
        1, 0, 1, 1,    //
        0, 1, 0, 1,    //
        0, 1, 1, 0;
    EXPECT_EQ(g.AdjacencyMatrix(), adj);
}

TEST(Graph, RejectsOutOfRangeIdsSelfLoopsAndRepeatedEdges)
{
    ExpectConfigError([] { Graph(3, {{0, 3}}); }, {"edges", "0-3", "out of range"});
    ExpectConfigError([] { Graph(3, {{2, 2}}); }, {"2-2", "self loop"});
    ExpectConfigError(
        [] {
            Graph(3, {{0, 1}, {1, 0}}, "ServerGraph");
        },
        {"ServerGraph", "1-0", "listed twice"});
}

TEST(Graph, Connectivity)
{
    EXPECT_TRUE(KiteGraph().IsConnected());
    EXPECT_TRUE(Graph(1, {}).IsConnected());
    EXPECT_FALSE(Graph().IsConnected());
    EXPECT_FALSE(Graph(4, {{0, 1}, {2, 3}}).IsConnected());
    EXPECT_FALSE(Graph(3, {{0, 1}}).IsConnected()); // isolated node 2
    EXPECT_TRUE(GridGraph(3, 4).IsConnected());
}

TEST(Generators, RingGridComplete)
{
    const Graph ring = RingGraph(5);
    EXPECT_EQ(ring.NumEdges(), 5u);
    for (uint32_t k = 0; k < 5; ++k)
    {
        EXPECT_EQ(ring.Degree(k), 2u);
        EXPECT_TRUE(ring.HasEdge(k, (k + 1) % 5));
    }
    EXPECT_EQ(ring.Neighbors(0), (std::vector<uint32_t>{1, 4}));

    // 3 x 4 grid: 3 * 3 horizontal + 2 * 4 vertical edges; node r * 4 + c.
    const Graph grid = GridGraph(3, 4);
    EXPECT_EQ(grid.NumNodes(), 12u);
    EXPECT_EQ(grid.NumEdges(), 17u);
    EXPECT_EQ(grid.Neighbors(0), (std::vector<uint32_t>{1, 4}));
    EXPECT_EQ(grid.Neighbors(5), (std::vector<uint32_t>{1, 4, 6, 9}));
    EXPECT_EQ(grid.Neighbors(11), (std::vector<uint32_t>{7, 10}));
    EXPECT_EQ(GridGraph(1, 4).NumEdges(), 3u);

    const Graph complete = CompleteGraph(6);
    EXPECT_EQ(complete.NumEdges(), 15u);
    for (uint32_t k = 0; k < 6; ++k)
    {
        EXPECT_EQ(complete.Degree(k), 5u);
    }

    ExpectConfigError([] { RingGraph(2); }, {"ring graph", "2 nodes"});
    ExpectConfigError([] { GridGraph(0, 3); }, {"grid graph", "0 rows"});
    ExpectConfigError([] { CompleteGraph(0); }, {"complete graph"});
}

TEST(Generators, ErdosRenyiEdgeCountWithinBinomialBounds)
{
    // m ~ Binomial(n(n-1)/2, p): mean 354, sd sqrt(1770 * 0.2 * 0.8) = 16.8; 4 sd either side.
    const std::size_t n = 60;
    const double p = 0.2;
    const double pairs = n * (n - 1) / 2.0;
    const double sd = std::sqrt(pairs * p * (1 - p));
    Rng rng(20240611);
    const Graph g = ErdosRenyiGraph(n, p, rng);
    EXPECT_NEAR(static_cast<double>(g.NumEdges()), pairs * p, 4 * sd);
    std::size_t degreeSum = 0;
    for (std::size_t d : g.Degrees())
    {
        degreeSum += d;
    }
    EXPECT_EQ(degreeSum, 2 * g.NumEdges());

    Rng a(7);
    Rng b(7);
    EXPECT_EQ(ErdosRenyiGraph(20, 0.3, a).Edges(), ErdosRenyiGraph(20, 0.3, b).Edges());
    EXPECT_EQ(ErdosRenyiGraph(10, 0.0, rng).NumEdges(), 0u);
    EXPECT_EQ(ErdosRenyiGraph(10, 1.0, rng).NumEdges(), 45u);
    ExpectConfigError([&] { ErdosRenyiGraph(10, 1.5, rng); }, {"probability", "1.5"});
}

TEST(Generators, RedrawUntilConnectedOrFailAfterMaxTries)
{
    Rng rng(3);
    // n = 20, p = 0.3: a draw is connected with high probability, and redraws make it certain.
    EXPECT_TRUE(ErdosRenyiGraph(20, 0.3, rng, {true, 100}).IsConnected());
    // n = 30 needs >= 29 edges; p = 0.02 gives 8.7 on average: no connected draw in 5 tries.
    ExpectConfigError(
        [&] {
            ErdosRenyiGraph(30, 0.02, rng, {true, 5});
        },
        {"Erdos-Renyi", "no connected graph in 5 draws"});
    ExpectConfigError([&] { ErdosRenyiGraph(30, 0.5, rng, {true, 0}); }, {"maxTries"});

    const GeometricGraph rgg = RandomGeometricGraph(20, 0.35, rng, {true, 1000});
    EXPECT_TRUE(rgg.graph.IsConnected());
    EXPECT_EQ(rgg.graph.Edges(), RadiusGraph(rgg.positions, 0.35).Edges());
    ExpectConfigError(
        [&] {
            RandomGeometricGraph(20, 0.01, rng, {true, 3});
        },
        {"geometric", "no connected graph in 3 draws"});
}

TEST(Generators, GeometricGraphEdgesAreExactlyThePairsWithinTheRadius)
{
    const double r = 0.25;
    Rng rng(11);
    const GeometricGraph g = RandomGeometricGraph(40, r, rng);
    ASSERT_EQ(g.positions.rows(), 40);
    EXPECT_GE(g.positions.minCoeff(), 0.0);
    EXPECT_LT(g.positions.maxCoeff(), 1.0);
    std::size_t within = 0;
    for (uint32_t a = 0; a < 40; ++a)
    {
        for (uint32_t b = a + 1; b < 40; ++b)
        {
            const double d = std::hypot(g.positions(a, 0) - g.positions(b, 0),
                                        g.positions(a, 1) - g.positions(b, 1));
            EXPECT_EQ(g.graph.HasEdge(a, b), d <= r) << a << "-" << b << " at distance " << d;
            within += d <= r ? 1 : 0;
        }
    }
    EXPECT_EQ(g.graph.NumEdges(), within);
    EXPECT_GT(within, 0u);

    // Given positions; the radius is inclusive (0-1 at distance exactly 0.5).
    Eigen::MatrixX2d pos(3, 2);
    pos << 0.0, 0.0, 0.5, 0.0, 0.0, 0.75;
    EXPECT_EQ(RadiusGraph(pos, 0.5).Edges(), (std::vector<Edge>{{0, 1}}));
    // 1-2 at distance sqrt(0.8125) = 0.901... > 0.9: no edge.
    EXPECT_EQ(RadiusGraph(pos, 0.9).Edges(), (std::vector<Edge>{{0, 1}, {0, 2}}));
    ExpectConfigError([&] { RadiusGraph(pos, -1.0); }, {"radius", "-1"});
}

TEST(Generators, ParsesEdgeTextAndNamesTheBadItem)
{
    EXPECT_EQ(ParseGraph(3, "0-1,1-2,2-0").Edges(), RingGraph(3).Edges());
    EXPECT_EQ(ParseGraph(4, " 0 - 1 , 3-2 ").Edges(), (std::vector<Edge>{{0, 1}, {2, 3}}));
    EXPECT_EQ(ParseGraph(3, "").NumEdges(), 0u);
    ExpectConfigError([] { ParseGraph(3, "0-1,,1-2", "ServerGraph"); },
                      {"ServerGraph", "item \"\"", "not an edge"});
    ExpectConfigError([] { ParseGraph(3, "0-x"); }, {"\"x\" is not a node id"});
    ExpectConfigError([] { ParseGraph(3, "-1-2"); }, {"item \"-1-2\"", "is not a node id"});
    ExpectConfigError([] { ParseGraph(4, "1-2-3"); }, {"\"2-3\" is not a node id"});
    ExpectConfigError([] { ParseGraph(3, "01"); }, {"item \"01\" is not an edge"});
    ExpectConfigError([] { ParseGraph(3, "0-5"); }, {"0-5", "out of range"});
    ExpectConfigError([] { ParseGraph(3, "1-1"); }, {"1-1", "self loop"});
    ExpectConfigError([] { ParseGraph(3, "0-1,1-0"); }, {"1-0", "listed twice"});
}

// -------------------------------------------------------------------- combination matrices

TEST(Weights, MetropolisByHand)
{
    // n_k = degree + 1 = (2, 4, 3, 3); a_lk = 1 / max(n_l, n_k); a_kk = 1 - sum.
    Eigen::MatrixXd expected(4, 4);
    expected << 3.0 / 4, 1.0 / 4, 0, 0,     //
        1.0 / 4, 1.0 / 4, 1.0 / 4, 1.0 / 4, //
        0, 1.0 / 4, 5.0 / 12, 1.0 / 3,      //
        0, 1.0 / 4, 1.0 / 3, 5.0 / 12;
    const Eigen::MatrixXd A = MetropolisWeights(KiteGraph());
    EXPECT_LE((A - expected).cwiseAbs().maxCoeff(), 1e-12);
    const Eigen::MatrixXd lazy = LazyMetropolisWeights(KiteGraph());
    EXPECT_LE((lazy - 0.5 * (Eigen::MatrixXd::Identity(4, 4) + expected)).cwiseAbs().maxCoeff(),
              1e-12);
    EXPECT_GE(lazy.diagonal().minCoeff(), 0.5);
}

TEST(Weights, GeneratedMatricesPassEveryValidator)
{
    Rng rng(5);
    const Graph g = RandomGeometricGraph(25, 0.35, rng, {true, 1000}).graph;
    for (const Eigen::MatrixXd& A : {MetropolisWeights(g), LazyMetropolisWeights(g)})
    {
        EXPECT_NO_THROW(ValidateSymmetric(A));
        EXPECT_NO_THROW(ValidateDoublyStochastic(A));
        EXPECT_NO_THROW(ValidateConnected(A));
        EXPECT_NO_THROW(ValidatePositiveDiagonal(A));
        EXPECT_NO_THROW(ValidateSupport(A, g));
        EXPECT_LT(MixingRate(A), 1.0);
    }
    EXPECT_NO_THROW(ValidateDoublyStochastic(UniformWeights(RingGraph(6))));
}

TEST(Weights, UniformWeightsOnRegularGraphsOnly)
{
    const Eigen::MatrixXd complete = UniformWeights(CompleteGraph(5));
    EXPECT_LE((complete - Eigen::MatrixXd::Constant(5, 5, 0.2)).cwiseAbs().maxCoeff(), 1e-15);
    const Eigen::MatrixXd ring = UniformWeights(RingGraph(5));
    EXPECT_NEAR(ring(0, 0), 1.0 / 3, 1e-15);
    EXPECT_NEAR(ring(4, 0), 1.0 / 3, 1e-15);
    EXPECT_EQ(ring(2, 0), 0.0);
    ExpectConfigError([] { UniformWeights(KiteGraph()); },
                      {"not regular", "node 1 has degree 3", "MetropolisWeights"});
}

TEST(MixingRate, CompleteGraphAveragesInOneStep)
{
    EXPECT_NEAR(MixingRate(UniformWeights(CompleteGraph(7))), 0.0, 1e-12);
    EXPECT_NEAR(MixingRate(MetropolisWeights(CompleteGraph(7))), 0.0, 1e-12);
}

TEST(MixingRate, RingMatchesCirculantEigenvalues)
{
    // Metropolis on a ring: a = 1/3 on self and both neighbours, a circulant with eigenvalues
    // lambda_k = (1 + 2 cos(2 pi k / n)) / 3; lazy: (1 + lambda_k) / 2. iota_2 = max_{k>0} |.|.
    for (std::size_t n : {5u, 8u, 12u})
    {
        double iota = 0.0;
        double iotaLazy = 0.0;
        for (std::size_t k = 1; k < n; ++k)
        {
            const double lambda = (1.0 + 2.0 * std::cos(2.0 * kPi * k / n)) / 3.0;
            iota = std::max(iota, std::abs(lambda));
            iotaLazy = std::max(iotaLazy, std::abs((1.0 + lambda) / 2.0));
        }
        EXPECT_NEAR(MixingRate(MetropolisWeights(RingGraph(n))), iota, 1e-12) << n;
        EXPECT_NEAR(MixingRate(LazyMetropolisWeights(RingGraph(n))), iotaLazy, 1e-12) << n;
    }
    // n = 8: iota_2 = (1 + sqrt 2) / 3.
    EXPECT_NEAR(MixingRate(MetropolisWeights(RingGraph(8))), (1.0 + std::sqrt(2.0)) / 3.0, 1e-12);
}

TEST(MixingRate, NonSymmetricMatrixUsesTheGeneralSolver)
{
    // (I + P) / 2 with P the 4-cycle permutation: eigenvalues (1 + i^k) / 2, so the largest
    // modulus after removing k = 0 is |1 + i| / 2 = sqrt(2) / 2.
    Eigen::MatrixXd P = Eigen::MatrixXd::Zero(4, 4);
    for (int k = 0; k < 4; ++k)
    {
        P(k, (k + 1) % 4) = 1.0;
    }
    const Eigen::MatrixXd A = 0.5 * (Eigen::MatrixXd::Identity(4, 4) + P);
    EXPECT_NEAR(MixingRate(A), std::sqrt(2.0) / 2.0, 1e-12);
    ExpectConfigError([] { MixingRate(Eigen::MatrixXd(2, 3)); }, {"2 x 3", "square"});
}

// ------------------------------------------------------------------------------ validators

TEST(Validators, SymmetricNamesTheMismatchedPair)
{
    Eigen::MatrixXd A = MetropolisWeights(KiteGraph());
    A(2, 3) += 0.125;
    ExpectConfigError([&] { ValidateSymmetric(A, "ServerWeights"); },
                      {"ServerWeights", "not symmetric", "a_{2,3} = 0.458", "a_{3,2} = 0.333"});
}

TEST(Validators, DoublyStochasticNamesNegativeEntryRowOrColumn)
{
    Eigen::MatrixXd negative(2, 2);
    negative << 1.5, -0.5, -0.5, 1.5;
    ExpectConfigError([&] { ValidateDoublyStochastic(negative); },
                      {"negative entry", "a_{0,1} = -0.5"});
    Eigen::MatrixXd row(2, 2);
    row << 0.5, 0.4, 0.4, 0.6;
    ExpectConfigError([&] { ValidateDoublyStochastic(row); }, {"row 0 sums to 0.9"});
    Eigen::MatrixXd column(2, 2);
    column << 0.5, 0.5, 0.625, 0.375;
    ExpectConfigError([&] { ValidateDoublyStochastic(column); }, {"column 0 sums to 1.125"});
    ExpectConfigError([] { ValidateDoublyStochastic(Eigen::MatrixXd(0, 0)); }, {"0 x 0"});
}

TEST(Validators, ConnectedNamesTheUnreachableNode)
{
    Eigen::MatrixXd split = Eigen::MatrixXd::Zero(4, 4);
    split.topLeftCorner(2, 2).setConstant(0.5);
    split.bottomRightCorner(2, 2).setConstant(0.5);
    ExpectConfigError([&] { ValidateConnected(split); },
                      {"not connected", "node 2 is unreachable from node 0"});
    // Directed support 0 -> 1 only: node 0 reaches 1, but 1 cannot reach 0.
    Eigen::MatrixXd oneWay(2, 2);
    oneWay << 0.5, 0.5, 0.0, 1.0;
    ExpectConfigError([&] { ValidateConnected(oneWay); }, {"node 1 cannot reach node 0"});
    // A directed cycle is strongly connected.
    Eigen::MatrixXd cycle(3, 3);
    cycle << 0.5, 0.5, 0, 0, 0.5, 0.5, 0.5, 0, 0.5;
    EXPECT_NO_THROW(ValidateConnected(cycle));
}

TEST(Validators, PositiveDiagonalNamesTheZeroSelfWeight)
{
    // Symmetric, doubly stochastic, connected, but no self-weights: (S + S^T) / 2 on a 4-ring.
    Eigen::MatrixXd A = 0.5 * RingGraph(4).AdjacencyMatrix();
    EXPECT_NO_THROW(ValidateDoublyStochastic(A));
    ExpectConfigError([&] { ValidatePositiveDiagonal(A); },
                      {"non-positive self-weight", "a_{0,0} = 0"});
}

TEST(Validators, SupportNamesTheEntryOffTheGraph)
{
    const Graph path(3, {{0, 1}, {1, 2}});
    EXPECT_NO_THROW(ValidateSupport(MetropolisWeights(path), path));
    ExpectConfigError(
        [&] { ValidateSupport(MetropolisWeights(CompleteGraph(3)), path); },
        {"does not match the graph", "a_{0,2} = 0.333", "0 and 2 are not neighbours"});
    ExpectConfigError([&] { ValidateSupport(MetropolisWeights(CompleteGraph(4)), path); },
                      {"4 x 4 for a graph of 3 nodes"});
}

// --------------------------------------------------------------------------------- metrics

TEST(NetworkMetrics, ByHand)
{
    Eigen::VectorXd w1(2), w2(2), w3(2), wOpt(2);
    w1 << 1, 2;
    w2 << 3, -2;
    w3 << -1, 3;
    wOpt << 0, 1;
    const std::vector<const Eigen::VectorXd*> models{&w1, &w2, &w3};

    const Eigen::VectorXd c = Centroid<double>(models); // (1, 1)
    EXPECT_NEAR(c[0], 1.0, 1e-12);
    EXPECT_NEAR(c[1], 1.0, 1e-12);
    const Eigen::VectorXd cw = Centroid<double>(models, {1, 2, 1}); // (6, 1) / 4
    EXPECT_NEAR(cw[0], 1.5, 1e-12);
    EXPECT_NEAR(cw[1], 0.25, 1e-12);

    EXPECT_NEAR(MsdDb<double>(c, wOpt), 0.0, 1e-12); // ||(1, 0)||^2 = 1
    EXPECT_NEAR(MsdDb<double>(w2, wOpt), 10 * std::log10(18.0), 1e-12);
    EXPECT_EQ(MsdDb<double>(wOpt, wOpt), -std::numeric_limits<double>::infinity());
    // (2 + 18 + 5) / 3
    EXPECT_NEAR(AverageMsdDb<double>(models, wOpt), 10 * std::log10(25.0 / 3), 1e-12);
    // (||(0, 1)||^2 + ||(2, -3)||^2 + ||(-2, 2)||^2) / 3 = (1 + 13 + 8) / 3
    EXPECT_NEAR(Disagreement<double>(models), 22.0 / 3, 1e-12);
    EXPECT_NEAR(Disagreement<double>({&w1, &w1}), 0.0, 1e-15);
}

TEST(NetworkMetrics, FloatModelsAndBadInput)
{
    Eigen::VectorXf a(2), b(2);
    a << 1, 2;
    b << 3, -2;
    Eigen::VectorXd wOpt(2);
    wOpt << 0, 1;
    // centroid (2, 0); disagreement (5 + 5) / 2; MSDs 2 and 18.
    EXPECT_NEAR(Disagreement<float>({&a, &b}), 5.0, 1e-12);
    EXPECT_NEAR(AverageMsdDb<float>({&a, &b}, wOpt), 10.0, 1e-12);

    Eigen::VectorXd x(2), y(3);
    x.setZero();
    y.setZero();
    ExpectConfigError([] { Centroid<double>({}); }, {"models", "no models"});
    ExpectConfigError([] { Disagreement<double>({}); }, {"no models"});
    ExpectConfigError([&] { AverageMsdDb<double>({}, wOpt); }, {"no models"});
    ExpectConfigError([&] { Disagreement<double>({&x, &y}); }, {"model 1 has 3 parameters"});
    ExpectConfigError([&] { AverageMsdDb<double>({&y}, wOpt); }, {"wOpt"});
    ExpectConfigError([&] { Centroid<double>({&x, &x}, {1.0}); }, {"1 weights for 2 models"});
}
