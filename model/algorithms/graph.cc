/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ns3/graph.h"

#include <Eigen/Eigenvalues>
#include <algorithm>
#include <cmath>
#include <sstream>

namespace ns3
{
namespace fl
{

namespace
{

/// "a_{l,k}" as it appears in messages.
std::string
EntryName(Eigen::Index l, Eigen::Index k)
{
    return "a_{" + std::to_string(l) + "," + std::to_string(k) + "}";
}

/// A number with enough digits to tell it from its neighbours in a message.
std::string
GraphNum(double x)
{
    std::ostringstream s;
    s.precision(17);
    s << x;
    return s.str();
}

/// Throws ConfigError unless A is square and non-empty.
void
CheckSquare(const Eigen::MatrixXd& A, const std::string& parameter)
{
    if (A.rows() == 0 || A.rows() != A.cols())
    {
        throw ConfigError(parameter,
                          "is " + std::to_string(A.rows()) + " x " + std::to_string(A.cols()) +
                              ", not a non-empty square matrix",
                          "give one row and one column per node");
    }
}

/// Throws ConfigError unless n >= minimum (`unit` names what n counts).
void
CheckNodes(std::size_t n,
           std::size_t minimum,
           const std::string& what,
           const std::string& unit = "nodes")
{
    if (n < minimum)
    {
        throw ConfigError(what,
                          "has " + std::to_string(n) + " " + unit,
                          "use at least " + std::to_string(minimum));
    }
}

/// The graph of a generator's result (lets DrawGraph treat Graph and GeometricGraph alike).
const Graph&
GraphOf(const Graph& g)
{
    return g;
}

const Graph&
GraphOf(const GeometricGraph& g)
{
    return g.graph;
}

/// Draws with `draw` until the result is connected (if required), at most maxTries times.
template <typename Draw>
auto
DrawGraph(const ConnectivityRequirement& requirement, const std::string& what, Draw draw)
    -> decltype(draw())
{
    if (!requirement.connected)
    {
        return draw();
    }
    if (requirement.maxTries == 0)
    {
        throw ConfigError(what + " maxTries", "is 0", "allow at least one draw");
    }
    for (std::size_t t = 0; t < requirement.maxTries; ++t)
    {
        auto g = draw();
        if (GraphOf(g).IsConnected())
        {
            return g;
        }
    }
    throw ConfigError(what,
                      "no connected graph in " + std::to_string(requirement.maxTries) + " draws",
                      "raise the edge probability or radius, or allow more tries");
}

} // namespace

Graph::Graph(std::size_t nodes, const std::vector<Edge>& edges, const std::string& parameter)
    : m_neighbors(nodes)
{
    for (const auto& [a, b] : edges)
    {
        auto edgeError = [&, a = a, b = b](const std::string& problem, const std::string& fix) {
            return ConfigError(parameter,
                               "edge " + std::to_string(a) + "-" + std::to_string(b) + " " +
                                   problem,
                               fix);
        };
        if (a >= nodes || b >= nodes)
        {
            throw edgeError("names a node >= the node count " + std::to_string(nodes) +
                                " (out of range)",
                            "use node ids 0 to n-1");
        }
        if (a == b)
        {
            throw edgeError("is a self loop",
                            "list edges between distinct nodes (self-weights come from the "
                            "combination rule)");
        }
        auto& na = m_neighbors[a];
        const auto it = std::lower_bound(na.begin(), na.end(), b);
        if (it != na.end() && *it == b)
        {
            throw edgeError("is listed twice", "list each undirected edge once");
        }
        na.insert(it, b);
        auto& nb = m_neighbors[b];
        nb.insert(std::lower_bound(nb.begin(), nb.end(), a), a);
        ++m_edges;
    }
}

std::vector<std::size_t>
Graph::Degrees() const
{
    std::vector<std::size_t> d;
    d.reserve(m_neighbors.size());
    for (const auto& n : m_neighbors)
    {
        d.push_back(n.size());
    }
    return d;
}

bool
Graph::HasEdge(uint32_t a, uint32_t b) const
{
    const auto& na = m_neighbors.at(a);
    return std::binary_search(na.begin(), na.end(), b);
}

std::vector<Edge>
Graph::Edges() const
{
    std::vector<Edge> e;
    e.reserve(m_edges);
    for (uint32_t a = 0; a < m_neighbors.size(); ++a)
    {
        for (uint32_t b : m_neighbors[a])
        {
            if (a < b)
            {
                e.emplace_back(a, b);
            }
        }
    }
    return e;
}

Eigen::MatrixXd
Graph::AdjacencyMatrix() const
{
    const auto n = static_cast<Eigen::Index>(m_neighbors.size());
    Eigen::MatrixXd adj = Eigen::MatrixXd::Zero(n, n);
    for (uint32_t a = 0; a < m_neighbors.size(); ++a)
    {
        for (uint32_t b : m_neighbors[a])
        {
            adj(a, b) = 1.0;
        }
    }
    return adj;
}

bool
Graph::IsConnected() const
{
    if (m_neighbors.empty())
    {
        return false;
    }
    std::vector<bool> seen(m_neighbors.size(), false);
    std::vector<uint32_t> stack{0};
    seen[0] = true;
    std::size_t reached = 1;
    while (!stack.empty())
    {
        const uint32_t k = stack.back();
        stack.pop_back();
        for (uint32_t l : m_neighbors[k])
        {
            if (!seen[l])
            {
                seen[l] = true;
                ++reached;
                stack.push_back(l);
            }
        }
    }
    return reached == m_neighbors.size();
}

Graph
ErdosRenyiGraph(std::size_t n, double p, Rng& rng, const ConnectivityRequirement& requirement)
{
    CheckNodes(n, 1, "Erdos-Renyi graph");
    if (!(p >= 0.0 && p <= 1.0))
    {
        throw ConfigError("Erdos-Renyi edge probability",
                          "p = " + GraphNum(p) + " is outside [0, 1]",
                          "use a probability, e.g. 0.3");
    }
    return DrawGraph(requirement, "Erdos-Renyi graph", [&]() {
        std::bernoulli_distribution edge(p);
        std::vector<Edge> edges;
        for (uint32_t a = 0; a < n; ++a)
        {
            for (uint32_t b = a + 1; b < n; ++b)
            {
                if (edge(rng))
                {
                    edges.emplace_back(a, b);
                }
            }
        }
        return Graph(n, edges);
    });
}

Graph
RadiusGraph(const Eigen::MatrixX2d& positions, double radius)
{
    CheckNodes(static_cast<std::size_t>(positions.rows()), 1, "geometric graph");
    if (!(radius >= 0.0) || !std::isfinite(radius))
    {
        throw ConfigError("geometric graph radius",
                          "r = " + GraphNum(radius) + " is negative or not finite",
                          "use a radius >= 0, e.g. 0.35 in the unit square");
    }
    const double r2 = radius * radius;
    std::vector<Edge> edges;
    for (Eigen::Index a = 0; a < positions.rows(); ++a)
    {
        for (Eigen::Index b = a + 1; b < positions.rows(); ++b)
        {
            if ((positions.row(a) - positions.row(b)).squaredNorm() <= r2)
            {
                edges.emplace_back(static_cast<uint32_t>(a), static_cast<uint32_t>(b));
            }
        }
    }
    return Graph(static_cast<std::size_t>(positions.rows()), edges);
}

GeometricGraph
RandomGeometricGraph(std::size_t n,
                     double radius,
                     Rng& rng,
                     const ConnectivityRequirement& requirement)
{
    CheckNodes(n, 1, "geometric graph");
    return DrawGraph(requirement, "random geometric graph", [&]() {
        std::uniform_real_distribution<double> uniform(0.0, 1.0);
        GeometricGraph g;
        g.positions.resize(static_cast<Eigen::Index>(n), 2);
        for (Eigen::Index k = 0; k < g.positions.rows(); ++k)
        {
            g.positions(k, 0) = uniform(rng);
            g.positions(k, 1) = uniform(rng);
        }
        g.graph = RadiusGraph(g.positions, radius);
        return g;
    });
}

Graph
RingGraph(std::size_t n)
{
    CheckNodes(n, 3, "ring graph");
    std::vector<Edge> edges;
    for (uint32_t k = 0; k < n; ++k)
    {
        edges.emplace_back(k, static_cast<uint32_t>((k + 1) % n));
    }
    return Graph(n, edges);
}

Graph
GridGraph(std::size_t rows, std::size_t cols)
{
    CheckNodes(rows, 1, "grid graph", "rows");
    CheckNodes(cols, 1, "grid graph", "columns");
    std::vector<Edge> edges;
    for (std::size_t r = 0; r < rows; ++r)
    {
        for (std::size_t c = 0; c < cols; ++c)
        {
            const auto k = static_cast<uint32_t>(r * cols + c);
            if (c + 1 < cols)
            {
                edges.emplace_back(k, k + 1);
            }
            if (r + 1 < rows)
            {
                edges.emplace_back(k, static_cast<uint32_t>(k + cols));
            }
        }
    }
    return Graph(rows * cols, edges);
}

Graph
CompleteGraph(std::size_t n)
{
    CheckNodes(n, 1, "complete graph");
    std::vector<Edge> edges;
    for (uint32_t a = 0; a < n; ++a)
    {
        for (uint32_t b = a + 1; b < n; ++b)
        {
            edges.emplace_back(a, b);
        }
    }
    return Graph(n, edges);
}

Graph
ParseGraph(std::size_t nodes, const std::string& text, const std::string& parameter)
{
    auto trim = [](const std::string& s) {
        const auto b = s.find_first_not_of(" \t");
        return b == std::string::npos ? std::string()
                                      : s.substr(b, s.find_last_not_of(" \t") - b + 1);
    };
    auto parseId = [&](const std::string& raw, const std::string& item) {
        const std::string s = trim(raw);
        if (s.empty() || s.size() > 9 || s.find_first_not_of("0123456789") != std::string::npos)
        {
            throw ConfigError(parameter,
                              "item \"" + item + "\": \"" + s + "\" is not a node id",
                              "write edges as non-negative ids joined by '-', e.g. \"0-1,1-2\"");
        }
        return static_cast<uint32_t>(std::stoul(s));
    };
    std::vector<Edge> edges;
    if (!trim(text).empty())
    {
        std::size_t start = 0;
        while (true)
        {
            const std::size_t comma = text.find(',', start);
            const std::string item = trim(
                text.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
            const std::size_t dash = item.find('-');
            if (dash == std::string::npos)
            {
                throw ConfigError(parameter,
                                  "item \"" + item + "\" is not an edge \"a-b\"",
                                  "separate edges by ',' and join ids by '-', e.g. \"0-1,1-2\"");
            }
            edges.emplace_back(parseId(item.substr(0, dash), item),
                               parseId(item.substr(dash + 1), item));
            if (comma == std::string::npos)
            {
                break;
            }
            start = comma + 1;
        }
    }
    return Graph(nodes, edges, parameter);
}

Eigen::MatrixXd
MetropolisWeights(const Graph& graph)
{
    const auto n = static_cast<Eigen::Index>(graph.NumNodes());
    Eigen::MatrixXd A = Eigen::MatrixXd::Zero(n, n);
    for (uint32_t k = 0; k < graph.NumNodes(); ++k)
    {
        double offDiagonal = 0.0;
        for (uint32_t l : graph.Neighbors(k))
        {
            // a_lk = 1 / max(n_l, n_k), n = degree + 1
            A(l, k) = 1.0 / static_cast<double>(std::max(graph.Degree(l), graph.Degree(k)) + 1);
            offDiagonal += A(l, k);
        }
        A(k, k) = 1.0 - offDiagonal; // a_kk = 1 - sum_{l != k} a_lk
    }
    return A;
}

Eigen::MatrixXd
LazyMetropolisWeights(const Graph& graph)
{
    const Eigen::MatrixXd A = MetropolisWeights(graph);
    // (I + A) / 2
    return 0.5 * (Eigen::MatrixXd::Identity(A.rows(), A.cols()) + A);
}

Eigen::MatrixXd
UniformWeights(const Graph& graph)
{
    CheckNodes(graph.NumNodes(), 1, "graph for uniform weights");
    const std::size_t d = graph.Degree(0);
    for (uint32_t k = 1; k < graph.NumNodes(); ++k)
    {
        if (graph.Degree(k) != d)
        {
            throw ConfigError("graph for uniform weights",
                              "is not regular: node " + std::to_string(k) + " has degree " +
                                  std::to_string(graph.Degree(k)) + ", node 0 has degree " +
                                  std::to_string(d),
                              "use MetropolisWeights on irregular graphs");
        }
    }
    const double w = 1.0 / static_cast<double>(d + 1); // a_lk = 1 / (d + 1)
    Eigen::MatrixXd A = w * (graph.AdjacencyMatrix());
    A.diagonal().setConstant(w);
    return A;
}

double
MixingRate(const Eigen::MatrixXd& A)
{
    CheckSquare(A, "combination matrix");
    const auto n = A.rows();
    // iota_2 = rho(A - (1/n) 1 1^T)
    const Eigen::MatrixXd B = A - Eigen::MatrixXd::Constant(n, n, 1.0 / static_cast<double>(n));
    if (A == A.transpose())
    {
        Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> solver(B, Eigen::EigenvaluesOnly);
        return solver.eigenvalues().cwiseAbs().maxCoeff();
    }
    Eigen::EigenSolver<Eigen::MatrixXd> solver(B, false);
    return solver.eigenvalues().cwiseAbs().maxCoeff();
}

void
ValidateSymmetric(const Eigen::MatrixXd& A, const std::string& parameter, double tol)
{
    CheckSquare(A, parameter);
    for (Eigen::Index l = 0; l < A.rows(); ++l)
    {
        for (Eigen::Index k = l + 1; k < A.cols(); ++k)
        {
            if (std::abs(A(l, k) - A(k, l)) > tol)
            {
                throw ConfigError(parameter,
                                  "is not symmetric: " + EntryName(l, k) + " = " + GraphNum(A(l, k)) +
                                      " but " + EntryName(k, l) + " = " + GraphNum(A(k, l)),
                                  "use symmetric weights, e.g. Metropolis");
            }
        }
    }
}

void
ValidateDoublyStochastic(const Eigen::MatrixXd& A, const std::string& parameter, double tol)
{
    CheckSquare(A, parameter);
    for (Eigen::Index l = 0; l < A.rows(); ++l)
    {
        for (Eigen::Index k = 0; k < A.cols(); ++k)
        {
            if (!(A(l, k) >= -tol))
            {
                throw ConfigError(parameter,
                                  "has a negative entry: " + EntryName(l, k) + " = " + GraphNum(A(l, k)),
                                  "use non-negative weights, e.g. Metropolis");
            }
        }
    }
    for (Eigen::Index i = 0; i < A.rows(); ++i)
    {
        const double row = A.row(i).sum();
        const double col = A.col(i).sum();
        if (!(std::abs(row - 1.0) <= tol))
        {
            throw ConfigError(parameter,
                              "is not doubly stochastic: row " + std::to_string(i) + " sums to " +
                                  GraphNum(row),
                              "make every row and column sum to 1, e.g. Metropolis weights");
        }
        if (!(std::abs(col - 1.0) <= tol))
        {
            throw ConfigError(parameter,
                              "is not doubly stochastic: column " + std::to_string(i) +
                                  " sums to " + GraphNum(col),
                              "make every row and column sum to 1, e.g. Metropolis weights");
        }
    }
}

void
ValidateConnected(const Eigen::MatrixXd& A, const std::string& parameter, double tol)
{
    CheckSquare(A, parameter);
    const auto n = A.rows();
    // Node 0 reaches every node along l -> k (|a_lk| > tol), and every node reaches node 0
    // (the same search on the transpose).
    for (bool transposed : {false, true})
    {
        std::vector<bool> seen(static_cast<std::size_t>(n), false);
        std::vector<Eigen::Index> stack{0};
        seen[0] = true;
        while (!stack.empty())
        {
            const Eigen::Index l = stack.back();
            stack.pop_back();
            for (Eigen::Index k = 0; k < n; ++k)
            {
                const double a = transposed ? A(k, l) : A(l, k);
                if (!seen[k] && std::abs(a) > tol)
                {
                    seen[k] = true;
                    stack.push_back(k);
                }
            }
        }
        const auto missing = std::find(seen.begin(), seen.end(), false);
        if (missing != seen.end())
        {
            const auto k = std::to_string(missing - seen.begin());
            throw ConfigError(
                parameter,
                "is not connected: node " + k +
                    (transposed ? " cannot reach node 0" : " is unreachable from node 0") +
                    " through non-zero weights",
                "use weights on a connected graph (redraw or add edges)");
        }
    }
}

void
ValidatePositiveDiagonal(const Eigen::MatrixXd& A, const std::string& parameter, double tol)
{
    CheckSquare(A, parameter);
    for (Eigen::Index k = 0; k < A.rows(); ++k)
    {
        if (!(A(k, k) > tol))
        {
            throw ConfigError(parameter,
                              "has a non-positive self-weight: " + EntryName(k, k) + " = " +
                                  GraphNum(A(k, k)),
                              "use weights with a_kk > 0, e.g. Metropolis or lazy Metropolis");
        }
    }
}

void
ValidateSupport(const Eigen::MatrixXd& A,
                const Graph& graph,
                const std::string& parameter,
                double tol)
{
    CheckSquare(A, parameter);
    if (static_cast<std::size_t>(A.rows()) != graph.NumNodes())
    {
        throw ConfigError(parameter,
                          "is " + std::to_string(A.rows()) + " x " + std::to_string(A.cols()) +
                              " for a graph of " + std::to_string(graph.NumNodes()) + " nodes",
                          "give one row and one column per node of the graph");
    }
    for (Eigen::Index l = 0; l < A.rows(); ++l)
    {
        for (Eigen::Index k = 0; k < A.cols(); ++k)
        {
            if (l != k && std::abs(A(l, k)) > tol &&
                !graph.HasEdge(static_cast<uint32_t>(l), static_cast<uint32_t>(k)))
            {
                throw ConfigError(parameter,
                                  "does not match the graph: " + EntryName(l, k) + " = " +
                                      GraphNum(A(l, k)) + " but nodes " + std::to_string(l) + " and " +
                                      std::to_string(k) + " are not neighbours",
                                  "set a_lk = 0 off the graph's edges");
            }
        }
    }
}

} // namespace fl
} // namespace ns3
