/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ns3/diffusion.h"

#include "ns3/gfl-privacy.h"
#include "ns3/graph.h"
#include "ns3/metrics.h"

#include <Eigen/Eigenvalues>
#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>

namespace ns3
{
namespace fl
{

namespace
{

std::string
Num(double x)
{
    std::ostringstream s;
    s.precision(17);
    s << x;
    return s.str();
}

void
RequireSameShape(const ParamVector& v, const ParamVector& ref, const std::string& what)
{
    if (v.GetPrecision() != ref.GetPrecision() || v.Size() != ref.Size())
    {
        throw ConfigError("messages",
                          what + " has " + std::to_string(v.Size()) + " " +
                              PrecisionName(v.GetPrecision()) + " entries, the own term " +
                              std::to_string(ref.Size()) + " " + PrecisionName(ref.GetPrecision()),
                          "combine vectors of one model and precision");
    }
}

void
RequireWeight(double w, const std::string& who)
{
    if (!(w >= 0.0) || !std::isfinite(w))
    {
        throw ConfigError("weights",
                          who + " has weight " + Num(w),
                          "use finite combination weights >= 0");
    }
}

/// out = a * v (resizing out to v's precision and size).
template <typename S>
void
ScaleInto(Vec<S>& out, const Vec<S>& v, double a)
{
    out.noalias() = static_cast<S>(a) * v;
}

template <typename S>
CombineOutcome
CombineTyped(const ParamVector& ownKept,
             const ParamVector& ownClean,
             double selfWeight,
             const std::vector<NeighborMessage>& neighbors,
             MissingMessagePolicy policy,
             ParamVector& out)
{
    CombineOutcome outcome;
    for (const auto& nb : neighbors)
    {
        if (nb.message == nullptr)
        {
            ++outcome.missing;
        }
    }
    if (outcome.missing > 0 && policy == MissingMessagePolicy::Skip)
    {
        outcome.skipped = true;
        outcome.weightUsed = selfWeight;
        if (&out != &ownClean)
        {
            out = ownClean; // w_k = phi_k: no combination in this iteration
        }
        return outcome;
    }
    if (out.GetPrecision() != ownKept.GetPrecision())
    {
        out = ParamVector::Zeros(ownKept.GetPrecision(), ownKept.Size());
    }
    Vec<S>& acc = out.Get<S>();
    ScaleInto<S>(acc, ownKept.Get<S>(), selfWeight); // a_kk (phi_k + q_kk)
    double total = selfWeight;
    for (const auto& nb : neighbors)
    {
        const ParamVector* term = nb.message;
        if (term == nullptr && policy == MissingMessagePolicy::ReuseLast && nb.last != nullptr)
        {
            term = nb.last; // stale message of an earlier iteration
            ++outcome.reused;
        }
        if (term == nullptr)
        {
            continue; // dropped: renormalised below
        }
        RequireSameShape(*term, ownKept, "the message of node " + std::to_string(nb.sender));
        acc.noalias() += static_cast<S>(nb.weight) * term->Get<S>(); // a_lk (phi_l + q_lk)
        total += nb.weight;
    }
    outcome.weightUsed = total;
    if (!(total > 0.0))
    {
        throw ConfigError("weights",
                          "the terms that arrived have total weight " + Num(total),
                          "give the node a positive self-weight a_kk");
    }
    if (outcome.missing > outcome.reused)
    {
        acc *= static_cast<S>(1.0 / total); // Renormalize (also ReuseLast without a last message)
    }
    return outcome;
}

} // namespace

LocalTrainerConfig
DiffusionAdaptConfig(double mu, std::size_t batchSize, double clipNorm)
{
    if (!(mu > 0.0) || !std::isfinite(mu))
    {
        throw ConfigError("mu", "is " + Num(mu), "use a positive, finite step size");
    }
    if (batchSize == 0)
    {
        throw ConfigError("batchSize", "is 0", "use at least one sample per adapt step");
    }
    LocalTrainerConfig c;
    c.localSteps = 1;
    c.localEpochs = 0.0;
    c.batchSize = batchSize;
    c.stepRule = StepRule::Fixed;
    c.learningRate = mu;
    c.clipNorm = clipNorm;
    c.Validate();
    return c;
}

void
ReleaseNodeMessages(Perturbation& perturbation,
                    const ParamVector& value,
                    uint32_t node,
                    const std::vector<uint32_t>& neighbors,
                    uint64_t nodeSeed,
                    uint32_t iteration,
                    NodeRelease& out,
                    NoiseSource source)
{
    Rng begin(NoiseSeed(source, NodeNoiseSeed(nodeSeed, iteration)));
    perturbation.BeginIteration(value.Size(), begin);
    out.broadcast = perturbation.SameForEveryReceiver();
    if (out.broadcast)
    {
        out.perLink.clear();
        out.message = value;
        Rng link(NoiseSeed(source, LinkNoiseSeed(nodeSeed, iteration, kBroadcastReceiver)));
        perturbation.PerturbOutgoing(out.message, kBroadcastReceiver, link);
    }
    else
    {
        out.perLink.resize(neighbors.size());
        for (std::size_t j = 0; j < neighbors.size(); ++j)
        {
            out.perLink[j] = value;
            Rng link(NoiseSeed(source, LinkNoiseSeed(nodeSeed, iteration, neighbors[j])));
            perturbation.PerturbOutgoing(out.perLink[j], neighbors[j], link);
        }
    }
    out.kept = value;
    Rng self(NoiseSeed(source, LinkNoiseSeed(nodeSeed, iteration, node)));
    perturbation.PerturbKept(out.kept, self);
}

const char*
MissingMessagePolicyName(MissingMessagePolicy policy)
{
    switch (policy)
    {
    case MissingMessagePolicy::Renormalize:
        return "renormalize";
    case MissingMessagePolicy::Skip:
        return "skip";
    case MissingMessagePolicy::ReuseLast:
        break;
    }
    return "reuse-last";
}

MissingMessagePolicy
ParseMissingMessagePolicy(const std::string& name, const std::string& parameter)
{
    if (name == "reuse-last")
    {
        return MissingMessagePolicy::ReuseLast;
    }
    if (name == "renormalize" || name == "renormalise")
    {
        return MissingMessagePolicy::Renormalize;
    }
    if (name == "skip")
    {
        return MissingMessagePolicy::Skip;
    }
    throw ConfigError(parameter,
                      "unknown missing-message policy '" + name + "'",
                      "use reuse-last, renormalize or skip");
}

CombineOutcome
CombineMessages(const ParamVector& ownKept,
                const ParamVector& ownClean,
                double selfWeight,
                const std::vector<NeighborMessage>& neighbors,
                MissingMessagePolicy policy,
                ParamVector& out)
{
    RequireWeight(selfWeight, "the node itself (a_kk)");
    RequireSameShape(ownClean, ownKept, "the clean own value");
    if (&out == &ownKept)
    {
        throw ConfigError("messages",
                          "the output aliases the kept own term",
                          "combine into a separate vector");
    }
    for (const auto& nb : neighbors)
    {
        RequireWeight(nb.weight, "node " + std::to_string(nb.sender));
        if (nb.message != nullptr && nb.message == &out)
        {
            throw ConfigError("messages",
                              "the output aliases the message of node " + std::to_string(nb.sender),
                              "combine into a separate vector");
        }
    }
    if (ownKept.GetPrecision() == Precision::Float64)
    {
        return CombineTyped<double>(ownKept, ownClean, selfWeight, neighbors, policy, out);
    }
    return CombineTyped<float>(ownKept, ownClean, selfWeight, neighbors, policy, out);
}

double
CentroidDrift(const std::vector<const ParamVector*>& models,
              const std::vector<const ParamVector*>& aggregates,
              const std::vector<double>& weights)
{
    if (models.empty() || models.size() != aggregates.size() ||
        (!weights.empty() && weights.size() != models.size()))
    {
        throw ConfigError("models",
                          std::to_string(models.size()) + " models, " +
                              std::to_string(aggregates.size()) + " aggregates and " +
                              std::to_string(weights.size()) + " weights",
                          "give one model and one aggregate (and one weight, if any) per node");
    }
    double total = 0.0;
    for (std::size_t k = 0; k < models.size(); ++k)
    {
        const double w = weights.empty() ? 1.0 : weights[k];
        RequireWeight(w, "node " + std::to_string(k));
        total += w;
    }
    if (!(total > 0.0))
    {
        throw ConfigError("weights", "sum to zero", "give the nodes positive weights");
    }
    const std::size_t d = models.front()->Size();
    Eigen::VectorXd diff = Eigen::VectorXd::Zero(static_cast<Eigen::Index>(d));
    for (std::size_t k = 0; k < models.size(); ++k)
    {
        const ParamVector& w = *models[k];
        const ParamVector& a = *aggregates[k];
        if (w.Size() != d || a.Size() != d || w.GetPrecision() != a.GetPrecision())
        {
            throw ConfigError("models",
                              "node " + std::to_string(k) + " has vectors of other sizes",
                              "measure models of one architecture");
        }
        const double pk = (weights.empty() ? 1.0 : weights[k]) / total;
        if (w.GetPrecision() == Precision::Float64)
        {
            diff.noalias() += pk * (w.Get<double>() - a.Get<double>());
        }
        else
        {
            diff.noalias() += pk * (w.Get<float>() - a.Get<float>()).cast<double>();
        }
    }
    return diff.norm();
}

Eigen::VectorXd
PerronVector(const Eigen::MatrixXd& A)
{
    if (A.rows() == 0 || A.rows() != A.cols())
    {
        throw ConfigError("combination matrix",
                          "is not a non-empty square matrix",
                          "give one row and one column per node");
    }
    Eigen::EigenSolver<Eigen::MatrixXd> es(A);
    Eigen::Index best = 0;
    for (Eigen::Index i = 1; i < es.eigenvalues().size(); ++i)
    {
        if (std::abs(es.eigenvalues()[i] - 1.0) < std::abs(es.eigenvalues()[best] - 1.0))
        {
            best = i;
        }
    }
    if (std::abs(es.eigenvalues()[best] - 1.0) > 1e-9)
    {
        throw ConfigError("combination matrix",
                          "has no eigenvalue 1",
                          "use a column-stochastic matrix (every node's weights sum to one)");
    }
    Eigen::VectorXd pi = es.eigenvectors().col(best).real();
    pi /= pi.sum();
    if ((pi.array() < -1e-12).any())
    {
        throw ConfigError("combination matrix",
                          "has no non-negative Perron vector",
                          "use a non-negative column-stochastic matrix on a connected graph");
    }
    return pi.cwiseMax(0.0) / pi.cwiseMax(0.0).sum();
}

void
ValidateCombinationMatrix(const Eigen::MatrixXd& A,
                          std::size_t nodes,
                          NodeNoiseKind noise,
                          const std::string& parameter)
{
    if (static_cast<std::size_t>(A.rows()) != nodes || static_cast<std::size_t>(A.cols()) != nodes)
    {
        throw ConfigError(parameter,
                          "is " + std::to_string(A.rows()) + " x " + std::to_string(A.cols()) +
                              " for " + std::to_string(nodes) + " nodes",
                          "give one row and one column per node, e.g. MetropolisWeights(graph)");
    }
    ValidateDoublyStochastic(A, parameter);
    ValidateConnected(A, parameter);
    if (noise == NodeNoiseKind::GraphHomomorphic)
    {
        ValidatePositiveDiagonal(A, parameter);
    }
}

GraphExchange::GraphExchange(const Eigen::MatrixXd& A,
                             const NodeNoiseConfig& noise,
                             std::vector<uint64_t> nodeSeeds,
                             MissingMessagePolicy policy,
                             DeliveryFunction delivered)
    : m_A(A),
      m_seeds(std::move(nodeSeeds)),
      m_source(noise.source),
      m_policy(policy),
      m_delivered(std::move(delivered))
{
    const auto n = static_cast<std::size_t>(A.rows());
    if (m_seeds.size() != n)
    {
        throw ConfigError("nodeSeeds",
                          std::to_string(m_seeds.size()) + " seeds for " + std::to_string(n) +
                              " nodes",
                          "give one seed per node");
    }
    m_neighbors.resize(n);
    for (std::size_t k = 0; k < n; ++k)
    {
        for (std::size_t l = 0; l < n; ++l)
        {
            if (l != k && (A(l, k) > 0.0 || A(k, l) > 0.0))
            {
                m_neighbors[k].push_back(static_cast<uint32_t>(l));
            }
        }
    }
    m_indexAtSender.resize(n);
    for (std::size_t k = 0; k < n; ++k)
    {
        for (uint32_t l : m_neighbors[k])
        {
            const auto& ofL = m_neighbors[l];
            m_indexAtSender[k].push_back(static_cast<std::size_t>(
                std::lower_bound(ofL.begin(), ofL.end(), static_cast<uint32_t>(k)) - ofL.begin()));
        }
    }
    for (std::size_t k = 0; k < n; ++k)
    {
        m_perturbations.push_back(MakeNodePerturbation(
            noise,
            A(static_cast<Eigen::Index>(k), static_cast<Eigen::Index>(k)),
            "combination weight a_{" + std::to_string(k) + "," + std::to_string(k) + "}"));
    }
    m_releases.resize(n);
    m_last.resize(n);
    m_hasLast.resize(n);
    for (std::size_t k = 0; k < n; ++k)
    {
        m_last[k].resize(m_neighbors[k].size());
        m_hasLast[k].assign(m_neighbors[k].size(), false);
    }
}

std::size_t
GraphExchange::TransmissionsPerIteration() const
{
    std::size_t t = 0;
    for (std::size_t k = 0; k < m_neighbors.size(); ++k)
    {
        t += m_perturbations[k]->SameForEveryReceiver() ? (m_neighbors[k].empty() ? 0 : 1)
                                                        : m_neighbors[k].size();
    }
    return t;
}

std::size_t
GraphExchange::Step(uint32_t iteration,
                    const std::vector<ParamVector>& values,
                    std::vector<ParamVector>& models)
{
    const std::size_t n = m_neighbors.size();
    if (values.size() != n)
    {
        throw ConfigError("values",
                          std::to_string(values.size()) + " values for " + std::to_string(n) +
                              " nodes",
                          "give one value per node");
    }
    models.resize(n);
    for (std::size_t k = 0; k < n; ++k)
    {
        ReleaseNodeMessages(*m_perturbations[k],
                            values[k],
                            static_cast<uint32_t>(k),
                            m_neighbors[k],
                            m_seeds[k],
                            iteration,
                            m_releases[k],
                            m_source);
    }
    std::size_t lost = 0;
    for (std::size_t k = 0; k < n; ++k)
    {
        const auto& nbs = m_neighbors[k];
        m_scratch.resize(nbs.size());
        for (std::size_t j = 0; j < nbs.size(); ++j)
        {
            const uint32_t l = nbs[j];
            const NodeRelease& rel = m_releases[l];
            const ParamVector* msg =
                rel.broadcast ? &rel.message : &rel.perLink[m_indexAtSender[k][j]];
            const bool arrived =
                !m_delivered || m_delivered(iteration, l, static_cast<uint32_t>(k));
            if (!arrived)
            {
                ++lost;
            }
            m_scratch[j] = NeighborMessage{l,
                                           m_A(l, static_cast<Eigen::Index>(k)),
                                           arrived ? msg : nullptr,
                                           m_hasLast[k][j] ? &m_last[k][j] : nullptr};
        }
        CombineMessages(m_releases[k].kept,
                        values[k],
                        m_A(static_cast<Eigen::Index>(k), static_cast<Eigen::Index>(k)),
                        m_scratch,
                        m_policy,
                        models[k]);
        if (m_policy == MissingMessagePolicy::ReuseLast && m_delivered)
        {
            for (std::size_t j = 0; j < nbs.size(); ++j)
            {
                if (m_scratch[j].message != nullptr)
                {
                    m_last[k][j] = *m_scratch[j].message;
                    m_hasLast[k][j] = true;
                }
            }
        }
    }
    return lost;
}

void
FillNetworkMetrics(const std::vector<ParamVector>& models,
                   const std::vector<ParamVector>& aggregates,
                   const Eigen::VectorXd& reference,
                   ParamVector& centroid,
                   NetworkIterationReport& report)
{
    if (models.empty())
    {
        throw ConfigError("models", "no models", "measure at least one node");
    }
    const std::size_t n = models.size();
    const std::size_t d = models.front().Size();
    Eigen::VectorXd c = Eigen::VectorXd::Zero(static_cast<Eigen::Index>(d));
    auto asDouble = [](const ParamVector& v) -> Eigen::VectorXd {
        return v.GetPrecision() == Precision::Float64 ? v.Get<double>()
                                                      : v.Get<float>().cast<double>();
    };
    for (const auto& w : models)
    {
        c += asDouble(w);
    }
    c /= static_cast<double>(n);
    double dis = 0.0;
    double msd = 0.0;
    const bool haveRef = reference.size() == static_cast<Eigen::Index>(d);
    for (const auto& w : models)
    {
        const Eigen::VectorXd wd = asDouble(w);
        dis += (wd - c).squaredNorm();
        if (haveRef)
        {
            msd += (wd - reference).squaredNorm();
        }
    }
    const double nan = std::numeric_limits<double>::quiet_NaN();
    report.disagreement = dis / static_cast<double>(n);
    report.averageMsd = haveRef ? msd / static_cast<double>(n) : nan;
    report.centroidMsd = haveRef ? (c - reference).squaredNorm() : nan;
    std::vector<const ParamVector*> m;
    std::vector<const ParamVector*> a;
    for (std::size_t k = 0; k < n; ++k)
    {
        m.push_back(&models[k]);
        a.push_back(&aggregates.at(k));
    }
    report.centroidDrift = CentroidDrift(m, a);
    if (models.front().GetPrecision() == Precision::Float64)
    {
        centroid = ParamVector(c);
    }
    else
    {
        centroid = ParamVector(Eigen::VectorXf(c.cast<float>()));
    }
    report.centroid = &centroid;
}

void
ReportNetworkIteration(const NetworkIterationCallback& onIteration,
                       uint32_t iteration,
                       std::size_t lostMessages,
                       std::size_t droppedClients,
                       const GraphPrivacyAccountant* privacy,
                       const std::vector<ParamVector>& models,
                       const std::vector<ParamVector>& aggregates,
                       const Eigen::VectorXd& reference,
                       ParamVector& centroid,
                       NetworkIterationReport& report)
{
    if (!onIteration)
    {
        return;
    }
    report.iteration = iteration;
    report.lostMessages = lostMessages;
    report.droppedClients = droppedClients;
    report.epsilonOneLink = privacy ? privacy->EpsilonOneLink() : 0.0;
    report.epsilonAllLinks = privacy ? privacy->EpsilonAllLinks() : 0.0;
    report.epsilonNeighbour = privacy ? privacy->EpsilonNeighbour() : 0.0;
    FillNetworkMetrics(models, aggregates, reference, centroid, report);
    onIteration(report);
}

void
FinishNetworkRun(std::vector<ParamVector>& models,
                 const std::vector<ParamVector>& aggregates,
                 const Eigen::VectorXd& reference,
                 const GraphPrivacyAccountant& privacy,
                 NetworkRunResult& result)
{
    NetworkIterationReport last;
    FillNetworkMetrics(models, aggregates, reference, result.centroid, last);
    result.epsilonOneLink = privacy.EpsilonOneLink();
    result.epsilonAllLinks = privacy.EpsilonAllLinks();
    result.epsilonNeighbour = privacy.EpsilonNeighbour();
    result.models = std::move(models);
}

GraphPrivacyAccountant
MakeGraphPrivacyAccountant(const Eigen::MatrixXd& combination,
                           const NodeNoiseConfig& noise,
                           double mu,
                           double gradientBound,
                           std::size_t dim,
                           double delta)
{
    // node 0's mechanism (its self-weight a_00 scales graph-homomorphic noise; every node has
    // the same kind and scale)
    const MechanismSpec mech =
        MakeNodePerturbation(noise, combination(0, 0), "combination weight a_{0,0}")
            ->Mechanism(0.0);
    return GraphPrivacyAccountant(noise.kind,
                                  mech.kind,
                                  mech.scale,
                                  mu,
                                  gradientBound,
                                  dim,
                                  combination,
                                  delta);
}

NetworkRunResult
RunDiffusionInProcess(const LearningTask& task,
                      const DiffusionConfig& config,
                      const NetworkIterationCallback& onIteration)
{
    const std::size_t n = task.NumClients();
    ValidateCombinationMatrix(config.combination, n, config.noise.kind, "combination");
    const LocalTrainerConfig adapt =
        DiffusionAdaptConfig(config.mu, config.batchSize, config.clipNorm);
    std::vector<uint64_t> seeds(n);
    for (std::size_t k = 0; k < n; ++k)
    {
        seeds[k] = DiffusionAgentSeed(config.seed, static_cast<uint32_t>(k));
    }
    GraphExchange exchange(config.combination,
                           config.noise,
                           seeds,
                           config.missingPolicy,
                           config.delivered);
    GraphPrivacyAccountant accountant = MakeGraphPrivacyAccountant(config.combination,
                                                                   config.noise,
                                                                   config.mu,
                                                                   config.clipNorm,
                                                                   task.NumParameters(),
                                                                   config.delta);

    Rng initRng(InitialModelSeed(config.seed));
    const ParamVector w0 = task.InitialParameters(initRng);
    std::vector<ParamVector> models(n, w0);
    std::vector<ParamVector> phi(n, w0);
    NetworkRunResult result;
    ParamVector centroid;
    NetworkIterationReport report;
    report.models = &models;
    report.aggregates = &phi;
    ReportNetworkIteration(onIteration,
                           0,
                           0,
                           0,
                           &accountant,
                           models,
                           phi,
                           config.reference,
                           centroid,
                           report);
    const std::size_t perIteration = exchange.TransmissionsPerIteration();
    for (uint32_t i = 1; i <= config.iterations; ++i)
    {
        for (std::size_t k = 0; k < n; ++k)
        {
            // adapt (eq. 14): phi_k = w_k - mu grad Q_k(w_k; x_k,i)
            Rng rng(DeriveSeed(seeds[k], i));
            TrainOutcome out = TrainClientWith(task, k, models[k], adapt, rng);
            result.flops += out.flops;
            phi[k] = std::move(out.params);
        }
        // release (eq. 15 / 20) and combine (eq. 16)
        const std::size_t lost = exchange.Step(i, phi, models);
        accountant.RecordIteration();
        result.transmissions += perIteration;
        result.lostMessages += lost;
        ReportNetworkIteration(onIteration,
                               i,
                               lost,
                               0,
                               &accountant,
                               models,
                               phi,
                               config.reference,
                               centroid,
                               report);
    }
    FinishNetworkRun(models, phi, config.reference, accountant, result);
    return result;
}

} // namespace fl
} // namespace ns3
