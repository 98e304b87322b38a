/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Undirected graphs, their generators, combination (mixing) matrices over them and the
 * validators the decentralised algorithms (GFL server graph, GHP diffusion, DWFL) rely on.
 */
#ifndef FL_GRAPH_H
#define FL_GRAPH_H

#include "ns3/fl-types.h"

#include <Eigen/Core>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace ns3
{
namespace fl
{

/// An undirected edge between two node ids.
using Edge = std::pair<uint32_t, uint32_t>;

/**
 * A simple undirected graph on nodes 0..n-1: no self loops, no parallel edges, every
 * neighbour list sorted ascending. Immutable once built.
 */
class Graph
{
  public:
    /// A graph with no nodes.
    Graph() = default;

    /**
     * A graph on `nodes` nodes with the given undirected edges (a-b and b-a are the same edge).
     * Throws ConfigError naming `parameter` on an id >= nodes, a self loop or an edge listed
     * twice.
     */
    Graph(std::size_t nodes,
          const std::vector<Edge>& edges,
          const std::string& parameter = "edges");

    /// Number of nodes n.
    std::size_t NumNodes() const
    {
        return m_neighbors.size();
    }

    /// Number of undirected edges.
    std::size_t NumEdges() const
    {
        return m_edges;
    }

    /// Neighbours of node k, sorted ascending, k itself excluded.
    const std::vector<uint32_t>& Neighbors(uint32_t k) const
    {
        return m_neighbors.at(k);
    }

    /// Degree of node k (number of neighbours, k itself excluded).
    std::size_t Degree(uint32_t k) const
    {
        return m_neighbors.at(k).size();
    }

    /// Degrees of all nodes.
    std::vector<std::size_t> Degrees() const;

    /// True if a and b (a != b) are neighbours.
    bool HasEdge(uint32_t a, uint32_t b) const;

    /// Every edge once, as (a, b) with a < b, sorted.
    std::vector<Edge> Edges() const;

    /// The n x n 0/1 adjacency matrix (symmetric, zero diagonal).
    Eigen::MatrixXd AdjacencyMatrix() const;

    /// True if the graph has at least one node and every node is reachable from node 0.
    bool IsConnected() const;

  private:
    std::vector<std::vector<uint32_t>> m_neighbors;
    std::size_t m_edges{0};
};

// ------------------------------------------------------------------------------ generators

/**
 * How random generators treat disconnected draws: with `connected` set, a draw that is not
 * connected is discarded and redrawn, at most `maxTries` draws in all; then ConfigError.
 */
struct ConnectivityRequirement
{
    bool connected{false};      ///< redraw until the graph is connected
    std::size_t maxTries{1000}; ///< draws allowed in all (>= 1)
};

/**
 * Erdos-Renyi G(n, p): each of the n(n-1)/2 node pairs is an edge independently with
 * probability p (pairs drawn in the order (0,1), (0,2), ..., (n-2,n-1)). Throws ConfigError if
 * n = 0, p is outside [0, 1], or no connected draw was found when one is required.
 */
Graph ErdosRenyiGraph(std::size_t n,
                      double p,
                      Rng& rng,
                      const ConnectivityRequirement& requirement = {});

/// A random geometric graph with the node positions it was built from.
struct GeometricGraph
{
    Graph graph;                ///< nodes within the radius of each other are neighbours
    Eigen::MatrixX2d positions; ///< row k = (x, y) of node k
};

/**
 * The graph of the given points (row k = node k) in which k and l are neighbours iff their
 * Euclidean distance is <= radius. Throws ConfigError if there are no points or the radius is
 * negative or not finite.
 */
Graph RadiusGraph(const Eigen::MatrixX2d& positions, double radius);

/**
 * Random geometric graph: n points drawn uniformly in the unit square [0, 1)^2 (x then y for
 * each node in turn), joined by RadiusGraph(positions, radius). With a connectivity
 * requirement the positions are redrawn too. Throws ConfigError as RadiusGraph, if n = 0, or if
 * no connected draw was found when one is required.
 */
GeometricGraph RandomGeometricGraph(std::size_t n,
                                    double radius,
                                    Rng& rng,
                                    const ConnectivityRequirement& requirement = {});

/// Ring (cycle) k ~ k+1 mod n. Throws ConfigError if n < 3.
Graph RingGraph(std::size_t n);

/**
 * rows x cols grid (4-neighbour lattice): node r * cols + c is joined to its right and lower
 * neighbours. Throws ConfigError if rows or cols is 0.
 */
Graph GridGraph(std::size_t rows, std::size_t cols);

/// Complete graph on n nodes. Throws ConfigError if n = 0.
Graph CompleteGraph(std::size_t n);

/**
 * Parses an edge list such as "0-1,1-2,2-0" (spaces around ids and commas allowed; "" is the
 * graph without edges) on `nodes` nodes. Throws ConfigError naming `parameter` and the bad item
 * on malformed text, ids >= nodes, self loops and repeated edges.
 */
Graph ParseGraph(std::size_t nodes,
                 const std::string& text,
                 const std::string& parameter = "edges");

// ------------------------------------------------------------------ combination matrices
//
// Convention (as in the GHP and GFL papers): A = [a_lk] is n x n, a_lk is the weight node k gives
// to what it receives from node l, and a_lk = 0 unless l = k or l ~ k. Every matrix built here
// is symmetric (a_lk = a_kl), so it is also the GFL reading "a_pm = weight server p gives to m",
// and doubly stochastic: rows and columns sum to 1.

/**
 * Metropolis(-Hastings) weights: a_lk = 1 / max(n_l, n_k) for neighbours l ~ k, with
 * n_k = degree(k) + 1 (the node counts itself), a_kk = 1 - sum_{l != k} a_lk >= 1 / n_k > 0.
 * Symmetric and doubly stochastic on any graph.
 */
Eigen::MatrixXd MetropolisWeights(const Graph& graph);

/// Lazy Metropolis weights (I + A) / 2 with A = MetropolisWeights(graph): a_kk >= 1/2.
Eigen::MatrixXd LazyMetropolisWeights(const Graph& graph);

/**
 * Uniform weights on a regular graph of degree d: a_lk = 1 / (d + 1) for l = k and l ~ k
 * (the complete graph gives 1 1^T / n). Throws ConfigError naming the first node whose degree
 * differs from node 0's (uniform weights on an irregular graph are not doubly stochastic).
 */
Eigen::MatrixXd UniformWeights(const Graph& graph);

/**
 * Mixing rate iota_2 = rho(A - (1/n) 1 1^T): the spectral radius of A with the averaging part
 * removed (lambda_2 in the GHP paper; < 1 for a connected graph with positive self-weights).
 * An exactly symmetric A uses the self-adjoint eigensolver, any other the general one.
 * Throws ConfigError if A is empty or not square.
 */
double MixingRate(const Eigen::MatrixXd& A);

// ----------------------------------------------------------------------------- validators
//
// Each throws ConfigError naming `parameter`, the problem and the offending entry; entries are
// compared with absolute tolerance `tol`. A must be square and non-empty (also checked).

/// a_lk = a_kl for every pair.
void ValidateSymmetric(const Eigen::MatrixXd& A,
                       const std::string& parameter = "combination matrix",
                       double tol = 1e-10);

/// Every entry >= 0 and every row and column sums to 1.
void ValidateDoublyStochastic(const Eigen::MatrixXd& A,
                              const std::string& parameter = "combination matrix",
                              double tol = 1e-10);

/**
 * The support of A (l -> k where |a_lk| > tol, l != k) is strongly connected: every node
 * reaches node 0 and node 0 reaches every node. For a symmetric A this is plain connectivity.
 */
void ValidateConnected(const Eigen::MatrixXd& A,
                       const std::string& parameter = "combination matrix",
                       double tol = 1e-10);

/// a_kk > tol for every k (graph-homomorphic perturbations divide by a_kk).
void ValidatePositiveDiagonal(const Eigen::MatrixXd& A,
                              const std::string& parameter = "combination matrix",
                              double tol = 1e-10);

/// A is n x n for the graph's n and |a_lk| <= tol for every l != k that are not neighbours.
void ValidateSupport(const Eigen::MatrixXd& A,
                     const Graph& graph,
                     const std::string& parameter = "combination matrix",
                     double tol = 1e-10);

} // namespace fl
} // namespace ns3

#endif // FL_GRAPH_H
