/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The GFL and GHP figures (gfl-figures.h), one section per figure of the papers: GFL Fig. 2,
 * GFL journal Fig. 5, GHP Fig. 1, the sweeps of GFL Figs. 3 and 4, GFL journal Fig. 6 and the
 * classification figure (two Fashion-MNIST classes in place of Avazu). Each prints its settings,
 * runs its variants through GflMonteCarlo on the parts of gfl-figures-setup.cc and
 * gfl-figures-network.cc, and notes what its epsilons mean.
 */
#include "gfl-figures-internal.h"
#include "gfl-figures.h"

#include "ns3/data-io.h"
#include "ns3/gfl-privacy.h"
#include "ns3/graph.h"
#include "ns3/linear-models.h"
#include "ns3/partition.h"
#include "ns3/synthetic-data.h"

#include <algorithm>
#include <cmath>
#include <iostream>
#include <numeric>

namespace ns3
{

using gflfig::Fmt;
using gflfig::WithNoiseSource;

namespace
{

/// The papers' epsilon forms at the end of a run (with --clip = G, gradients clipped in l2).
void
PrintGflPrivacy(const GflFigureOptions& o,
                double mu,
                double sigma2,
                std::size_t P,
                uint32_t T,
                std::ostream& os)
{
    if (o.clip <= 0.0)
    {
        os << "Privacy: no --clip, the gradient bound B does not hold, epsilon is infinite"
           << std::endl;
        return;
    }
    const double G = o.clip;
    const double sigmaG = std::sqrt(sigma2);
    const double epsPreprint = fl::GflEpsilonPreprint(mu, G, T, sigmaG);
    // journal version: C = B + B' + sqrt(P) ||w° - w'°||; choice: B' = B, optimum shift 0
    const double cJournal = fl::GflSensitivityJournal(G, G, P, 0.0);
    const double epsJournal = fl::GflEpsilonJournal(cJournal, T, sigmaG);
    os << "Privacy at i = " << T << " (B = G = " << G << ", sigma_g = " << Fmt(sigmaG, 4)
       << "), the papers' formulas as printed: Rizk, Vlaski, Sayed (preprint, Theorem 2) "
          "eps = sqrt(2) mu B i(i+1)/sigma_g = "
       << epsPreprint
       << "; journal version (Theorem 3) eps = sqrt(2) C (i+1)/sigma_g with C = B + B' + "
          "sqrt(P)||w°-w'°|| = "
       << cJournal << " (choice: B' = B, optimum shift 0) = " << epsJournal
       << ". Neither is a guarantee as printed: the Laplace mechanism needs the l1 "
          "sensitivity (--clip bounds the l2 norm) and per-link noise releases one copy per "
          "neighbour. The epsilon rows below and in the CSV are guarantees: "
          "epsilon_one_link, epsilon_all_links and epsilon_neighbour, each described in the "
          "CSV's comment lines."
       << std::endl;
}

/// Prints a network run's cost (network mode only).
void
PrintCostIfNetwork(const GflFigureOptions& o,
                   const GflNetworkCost& cost,
                   const std::string& name,
                   std::ostream& os)
{
    if (o.mode == "network")
    {
        PrintGflNetworkCost(cost, name, os);
    }
}

/// The body of GflMonteCarlo for the GFL regression figures: variant v's settings applied to the
/// run's configuration, run in process or over the network (GflFigureRunGfl), its cost printed.
auto
GflVariants(const GflFigureOptions& o, const std::vector<GflFigureVariant>& variants)
{
    return [&o, &variants](const GflRegressionRun& r,
                           std::size_t v,
                           uint32_t,
                           fl::MonteCarloSeries&,
                           std::ostream& lines,
                           const fl::NetworkIterationCallback& cb) {
        fl::GflConfig c = r.config;
        variants[v].apply(c);
        PrintCostIfNetwork(o, GflFigureRunGfl(o, r.setup.task, c, cb), variants[v].key, lines);
    };
}

} // namespace

// ------------------------------------------------------------------------------- GFL Fig. 2

void
RunGflFig2(const GflFigureOptions& o, fl::MonteCarloSeriesMap& out, std::ostream& os)
{
    const std::size_t P = o.servers ? o.servers : (o.quick ? 4 : 10);
    const std::size_t K = o.clientsPerServer ? o.clientsPerServer : (o.quick ? 10 : 100);
    const std::size_t L = o.sampled ? o.sampled : (o.quick ? 4 : 11);
    const uint32_t T = o.iterations ? o.iterations : (o.quick ? 150 : 500);
    const double mu = 0.7;
    const double rho = 0.1;
    const double sigma2 = 0.1;
    os << "GFL Fig. 2: P = " << P << ", K = " << K << ", L = " << L
       << ", N = 100, M = 2, E ~ U{1..10}, B ~ U{5..10}, mu = " << mu << ", rho = " << rho
       << ", sigma_g^2 = " << sigma2 << " (Laplace b = " << Fmt(std::sqrt(sigma2 / 2), 4) << "), "
       << T << " iterations, " << o.runs << " run(s)" << (o.secure ? ", secure aggregation" : "")
       << (o.dropout > 0 ? ", dropout " : "");
    if (o.dropout > 0)
    {
        os << o.dropout;
    }
    os << std::endl;
    if (o.secure)
    {
        os << "  guarantee: " << fl::GflSecureAggregationGuarantee(L, 0) << std::endl;
    }
    os << "Choices: Erdos-Renyi p = 0.4 (connected), Metropolis weights, Laplace "
          "noise b = sigma_g / sqrt(2); iid-per-link = fresh draw per neighbour "
          "(per-link variant), iid-broadcast = one draw per server and iteration "
          "sent to every neighbour (per-sender broadcast variant), "
          "graph-homomorphic = eq. (47): one draw per server, the same message to "
          "every neighbour, compensating self term"
       << std::endl;
    const std::vector<GflFigureVariant> variants =
        GflServerSchemeVariants("gfl", sigma2, o.clip > 0);
    for (const auto& [name, kind] : GflServerSchemes())
    {
        NoteGflEpsilon(out["gfl/" + name],
                       WithNoiseSource(o, GflLaplaceNoise(kind, sigma2)),
                       "the data of one server's clients (the server's releases)",
                       fl::GflConfig{}.delta);
    }
    const auto policy = fl::ParseMissingMessagePolicy(o.policy, "--policy");
    GflMonteCarlo<GflRegressionRun>(
        o,
        out,
        T,
        variants,
        [&](uint32_t run) {
            const uint64_t runSeed = fl::DeriveSeed(o.seed, 0x6F1, run);
            GflRegressionRun r = MakeGflRegressionRun(P, K, L, mu, rho, T, runSeed);
            r.config.clipNorm = o.clip;
            r.config.secureAggregation = o.secure;
            r.config.dropoutProbability = o.dropout;
            r.config.missingPolicy = policy;
            return r;
        },
        GflVariants(o, variants),
        os);
    PrintGflPrivacy(o, mu, sigma2, P, T, os);
}

// ---------------------------------------------------------------------- FL (GFL journal Fig. 5)

void
RunGflFlFig5(const GflFigureOptions& o, fl::MonteCarloSeriesMap& out, std::ostream& os)
{
    const std::size_t K = o.quick ? 100 : 1000;
    const std::size_t L = o.quick ? 10 : 30;
    const uint32_t T = o.iterations ? o.iterations : (o.quick ? 150 : 1000);
    const double mu = 0.2;
    const double rho = 0.007;
    const double sigma2 = 0.02;
    os << "FL (GFL journal Fig. 5): one server, K = " << K << ", L = " << L
       << ", N = 100, M = 2, E ~ U{1..10}, B ~ U{5..10}, mu = " << mu << ", rho = " << rho
       << ", client sigma_g^2 = " << sigma2 << ", " << T << " iterations, " << o.runs << " run(s)"
       << std::endl;

    const std::vector<GflFigureVariant> variants = GflFlFig5Variants();
    GflMonteCarlo<GflRegressionRun>(
        o,
        out,
        T,
        variants,
        [&](uint32_t run) {
            const uint64_t runSeed = fl::DeriveSeed(o.seed, 0xF1, run);
            GflRegressionRun r = MakeGflRegressionRun(1, K, L, mu, rho, T, runSeed);
            r.config.clipNorm = o.clip;
            return r;
        },
        GflVariants(o, variants),
        os);
}

// ------------------------------------------------------------------------------- GHP Fig. 1

void
RunGhpFig1(const GflFigureOptions& o, fl::MonteCarloSeriesMap& out, std::ostream& os)
{
    const std::size_t K = o.quick ? 10 : 20;
    const std::size_t M = 5;
    const std::size_t N = o.quick ? 500 : 2000;
    const uint32_t T = o.iterations ? o.iterations : (o.quick ? 150 : 1000);
    const double mu = 1.0;
    const double rho = 0.1;
    const double b = o.ghpB; // sigma_p^2 = 2 b^2 = 2 for b = 1
    os << "GHP Fig. 1: K = " << K << ", M = " << M << ", mu = " << mu << ", rho = " << rho
       << ", sigma_h^2 = 1, b_v = " << b << " (sigma_p^2 = 2), " << T << " iterations, " << o.runs
       << " run(s)" << std::endl;
    const std::vector<std::pair<std::string, fl::NodeNoiseKind>> schemes = {
        {"none", fl::NodeNoiseKind::None},
        {"iid", fl::NodeNoiseKind::IidBroadcast},
        {"graph-homomorphic", fl::NodeNoiseKind::GraphHomomorphic}};
    std::vector<GflFigureVariant> variants;
    for (const auto& [name, kind] : schemes)
    {
        variants.push_back({"ghp/" + name, o.clip > 0, {}}); // diffusion: noise set below
        NoteGflEpsilon(
            out["ghp/" + name],
            WithNoiseSource(o, fl::NodeNoiseConfig{kind, fl::NoiseDistribution::Laplace, b}),
            "the data of one agent (its releases)",
            fl::DiffusionConfig{}.delta);
    }
    const auto policy = fl::ParseMissingMessagePolicy(o.policy, "--policy");

    /// What the variants of a GHP run share: the agents' data, w° and the graph.
    struct GhpRun
    {
        std::shared_ptr<fl::SupervisedTask<double>> task;
        fl::DiffusionConfig config; ///< without the noise
    };

    GflMonteCarlo<GhpRun>(
        o,
        out,
        T,
        variants,
        [&](uint32_t run) {
            const uint64_t runSeed = fl::DeriveSeed(o.seed, 0x6A9, run);
            fl::Rng dataRng(fl::DeriveSeed(runSeed, 1));
            const Eigen::VectorXd mean =
                Eigen::VectorXd::Ones(M) / std::sqrt(static_cast<double>(M));
            std::vector<fl::Dataset<double>> parts;
            for (std::size_t k = 0; k < K; ++k)
            {
                parts.push_back(fl::MakeGaussianBinary<double>(N, mean, 1.0, 0.5, dataRng));
            }
            const Eigen::VectorXd wOpt = fl::LogisticOptimum(fl::Concatenate(parts), rho);
            fl::LocalTrainerConfig trainer;
            GhpRun r;
            r.task = std::make_shared<fl::SupervisedTask<double>>(
                std::make_shared<fl::LogisticRegression<double>>(M, rho),
                trainer,
                std::move(parts),
                fl::Dataset<double>{});
            fl::Rng graphRng(fl::DeriveSeed(runSeed, 2));
            fl::ConnectivityRequirement req;
            req.connected = true;
            const auto geo = fl::RandomGeometricGraph(K, o.quick ? 0.5 : 0.35, graphRng, req);
            fl::DiffusionConfig& c = r.config;
            c.combination = o.weights == "lazy" ? fl::LazyMetropolisWeights(geo.graph)
                                                : fl::MetropolisWeights(geo.graph);
            c.mu = mu;
            c.batchSize = 1;
            c.clipNorm = o.clip;
            c.iterations = T;
            c.seed = fl::DeriveSeed(runSeed, 4);
            c.reference = wOpt;
            c.missingPolicy = policy;
            return r;
        },
        [&](const GhpRun& r,
            std::size_t v,
            uint32_t,
            fl::MonteCarloSeries& series,
            std::ostream& lines,
            const fl::NetworkIterationCallback& cb) {
            fl::DiffusionConfig c = r.config;
            c.noise = fl::NodeNoiseConfig{schemes[v].second, fl::NoiseDistribution::Laplace, b};
            const double links = static_cast<double>((c.combination.array() > 0.0).count() -
                                                     c.combination.rows()); // directed l -> k
            const GflNetworkCost cost = GflFigureRunDiffusion(
                o,
                r.task,
                c,
                [cb, &series, links, &o](const fl::NetworkIterationReport& rep) {
                    cb(rep);
                    if (o.mode == "network")
                    {
                        series.Add("loss_rate", rep.iteration, rep.lostMessages / links);
                    }
                });
            PrintCostIfNetwork(o, cost, variants[v].key, lines);
        },
        os);
    if (o.clip > 0.0)
    {
        const double eps = fl::GhpEpsilon(mu, o.clip, T, b);
        os << "Privacy at i = " << T << " (G = " << o.clip << ", b_v = " << b
           << "), the paper's formula as printed: Vlaski, Sayed (ICASSP 2021, eq. 27) eps = "
              "mu G (i^2 + i) / b_v = "
           << eps
           << ". Not a guarantee as printed: the Laplace mechanism needs the l1 "
              "sensitivity, up to sqrt(M) = sqrt(5) times the l2 clip; the epsilon rows "
              "below and in the CSV are guarantees."
           << std::endl;
    }
    else
    {
        os << "Privacy: no --clip, the gradient bound G does not hold, epsilon is infinite"
           << std::endl;
    }
}

// ------------------------------------------------------------------- GFL Figs. 3, 4 (sweeps)

namespace
{

/// The body of GflMonteCarlo for the regression figures whose variants differ only in their
/// settings: the run's configuration with variant v's settings applied, in process.
auto
InProcessVariants(const std::vector<GflFigureVariant>& variants)
{
    return [&variants](const GflRegressionRun& r,
                       std::size_t v,
                       uint32_t,
                       fl::MonteCarloSeries&,
                       std::ostream&,
                       const fl::NetworkIterationCallback& cb) {
        fl::GflConfig c = r.config;
        variants[v].apply(c);
        fl::RunGflInProcess(*r.setup.task, c, cb);
    };
}

} // namespace

void
RunGflSweepFigure(const GflFigureOptions& o,
                  fl::MonteCarloSeriesMap& out,
                  bool overMu,
                  std::ostream& os)
{
    const std::size_t P = o.servers ? o.servers : (o.quick ? 4 : 10);
    const std::size_t K = o.clientsPerServer ? o.clientsPerServer : (o.quick ? 10 : 100);
    const std::size_t L = o.sampled ? o.sampled : (o.quick ? 4 : 11);
    const uint32_t T =
        o.iterations ? o.iterations : (overMu ? (o.quick ? 1000 : 2000) : (o.quick ? 400 : 1000));
    const double rho = 0.1;
    os << "GFL Fig. " << (overMu ? "4" : "3(a), 3(b)") << ": P = " << P << ", K = " << K
       << ", L = " << L << ", N = 100, M = 2, E ~ U{1..10}, B ~ U{5..10}, rho = " << rho
       << (overMu ? ", sigma_g^2 = 0.1, mu in {0.1, 0.5, 1, 5}"
                  : ", mu = 0.7, sigma_g^2 in {0.001, 0.01, 0.1, 1, 2, 10}")
       << ", Laplace b = sigma_g / sqrt(2); random = iid-per-link (a fresh draw per link, "
          "no noise on the self term) and iid-broadcast (one draw per sender on every "
          "copy, its own term included); "
       << T << " iterations, " << o.runs << " run(s)" << std::endl;
    const std::vector<GflFigureVariant> variants = GflSweepVariants(overMu);
    GflMonteCarlo<GflRegressionRun>(
        o,
        out,
        T,
        variants,
        [&](uint32_t run) {
            const uint64_t runSeed = fl::DeriveSeed(o.seed, overMu ? 0x6F4 : 0x6F3, run);
            return MakeGflRegressionRun(P, K, L, 0.7, rho, T, runSeed);
        },
        InProcessVariants(variants),
        os);
}

// --------------------------------------------------------------- GFL journal Fig. 6 (FL)

void
RunGflFl6Figure(const GflFigureOptions& o, fl::MonteCarloSeriesMap& out, std::ostream& os)
{
    const std::size_t K = o.quick ? 100 : 1000;
    const std::size_t L = o.quick ? 10 : 30;
    const uint32_t T = o.iterations ? o.iterations : (o.quick ? 1500 : 3000);
    const double rho = 0.007;
    os << "FL (GFL journal Fig. 6): one server, K = " << K << ", L = " << L
       << ", N = 100, M = 2, E ~ U{1..10}, B ~ U{5..10}, rho = " << rho
       << "; (a), (b): sigma_g^2 = 0.02, mu in {0.05, 0.1, 0.2, 0.5, 1} (the paper gives "
          "no values: our choice); (c), (d): mu = 0.2, sigma_g^2 in {0.01, 0.05, 0.1, 0.5}; "
       << T << " iterations, " << o.runs << " run(s)" << std::endl;
    const std::vector<GflFigureVariant> variants = GflFl6Variants();
    GflMonteCarlo<GflRegressionRun>(
        o,
        out,
        T,
        variants,
        [&](uint32_t run) {
            const uint64_t runSeed = fl::DeriveSeed(o.seed, 0xF6, run);
            return MakeGflRegressionRun(1, K, L, 0.2, rho, T, runSeed);
        },
        InProcessVariants(variants),
        os);
}

// --------------------------------------------------------- classification (Avazu's place)

namespace
{

/// Fashion-MNIST classes of the classification figure: T-shirt/top (-1) vs Pullover (+1).
constexpr int kClassNegative = 0;
constexpr int kClassPositive = 2;

/**
 * The two classes of `all` as a logistic-regression data set: labels -1 (kClassNegative) / +1
 * (kClassPositive), pixels in [0, 1] plus a constant 1 feature (the intercept, regularised
 * with the rest); the other classes dropped.
 */
fl::Dataset<double>
TwoClasses(const fl::Dataset<double>& all)
{
    std::vector<std::size_t> keep;
    for (std::size_t n = 0; n < all.Size(); ++n)
    {
        const int label = all.Label(n);
        if (label == kClassNegative || label == kClassPositive)
        {
            keep.push_back(n);
        }
    }
    fl::Dataset<double> d;
    d.kind = fl::TargetKind::BinarySigned;
    d.numClasses = 2;
    d.features.resize(static_cast<Eigen::Index>(keep.size()),
                      static_cast<Eigen::Index>(all.Dim() + 1));
    d.targets.resize(static_cast<Eigen::Index>(keep.size()));
    for (std::size_t j = 0; j < keep.size(); ++j)
    {
        const auto row = static_cast<Eigen::Index>(j);
        d.features.row(row).head(static_cast<Eigen::Index>(all.Dim())) =
            all.features.row(static_cast<Eigen::Index>(keep[j]));
        d.features(row, static_cast<Eigen::Index>(all.Dim())) = 1.0;
        d.targets(row) = all.Label(keep[j]) == kClassPositive ? 1.0 : -1.0;
    }
    return d;
}

} // namespace

/**
 * The classification experiment in place of Avazu (preprint Fig. 5, journal Fig. 7): P = 5 servers,
 * K = 10 clients each, 100 training samples per client (5000, the paper has 5101) of two
 * Fashion-MNIST classes, non-iid by label shards (2 shards per client), logistic risk rho = 0.03,
 * mu = 0.5, sigma_g^2 = 0.6; our choices: L = 5, E ~ U{1..10}, B ~ U{5..10}, 300 iterations,
 * Erdos-Renyi p = 0.4 with Metropolis weights, test error of the centroid (and the mean of the
 * servers' own errors) on the 2000 test images of the two classes (the paper: 256).
 */
void
RunGflClassFigure(const GflFigureOptions& o, fl::MonteCarloSeriesMap& out, std::ostream& os)
{
    const std::string dir = fl::FindFashionMnistDirectory();
    if (dir.empty())
    {
        throw fl::ConfigError("--figure=class",
                              "needs Fashion-MNIST, which is not installed",
                              "install the Debian package dataset-fashion-mnist "
                              "(utils/install-deps.sh does), set FL_FASHION_MNIST_DIR to the "
                              "folder with its IDX files, or choose another --figure");
    }
    const std::size_t P = 5;
    const std::size_t K = 10;
    const std::size_t L = 5;
    const std::size_t perClient = o.quick ? 40 : 100;
    const uint32_t T = o.iterations ? o.iterations : (o.quick ? 100 : 300);
    const double mu = 0.5;
    const double rho = 0.03;
    const double sigma2 = 0.6;
    // quick: the first 12000 training images hold about 2400 of the two classes
    const fl::Dataset<double> train =
        TwoClasses(fl::ReadIdxDataset<double>(dir + "/train-images-idx3-ubyte.gz",
                                              dir + "/train-labels-idx1-ubyte.gz",
                                              o.quick ? 12000 : 0));
    const fl::Dataset<double> test =
        TwoClasses(fl::ReadIdxDataset<double>(dir + "/t10k-images-idx3-ubyte.gz",
                                              dir + "/t10k-labels-idx1-ubyte.gz",
                                              o.quick ? 2000 : 0));
    os << "Classification (Avazu's place): Fashion-MNIST from " << dir << ", classes "
       << kClassNegative << " (T-shirt/top) vs " << kClassPositive
       << " (Pullover), 784 pixels + intercept, P = " << P << ", K = " << K << ", L = " << L << ", "
       << perClient
       << " samples per client (label shards, 2 per client), E ~ U{1..10}, B ~ U{5..10}, "
          "logistic rho = "
       << rho << ", mu = " << mu << ", sigma_g^2 = " << sigma2 << ", " << test.Size()
       << " test images, " << T << " iterations, " << o.runs << " run(s)" << std::endl;
    const std::vector<GflFigureVariant> variants = GflServerSchemeVariants("class", sigma2, false);

    /// What the variants of a classification run share: the clients' data and the graph.
    struct ClassRun
    {
        std::shared_ptr<fl::SupervisedTask<double>> task;
        fl::GflConfig config; ///< without the server noise
    };

    GflMonteCarlo<ClassRun>(
        o,
        out,
        T,
        variants,
        [&](uint32_t run) {
            const uint64_t runSeed = fl::DeriveSeed(o.seed, 0xC1A, run);
            fl::Rng dataRng(fl::DeriveSeed(runSeed, 1));
            std::vector<std::size_t> pick(train.Size());
            std::iota(pick.begin(), pick.end(), 0);
            std::shuffle(pick.begin(), pick.end(), dataRng);
            pick.resize(std::min(train.Size(), P * K * perClient));
            const fl::Dataset<double> mine = train.Subset(pick);
            const fl::Partition part = fl::PartitionShards(mine, P * K, 2, dataRng);
            std::vector<fl::Dataset<double>> parts;
            for (const auto& idx : part)
            {
                parts.push_back(mine.Subset(idx));
            }
            ClassRun r;
            r.task = std::make_shared<fl::SupervisedTask<double>>(
                std::make_shared<fl::LogisticRegression<double>>(train.Dim(), rho),
                fl::LocalTrainerConfig{},
                std::move(parts),
                fl::Dataset<double>(test));
            fl::Rng graphRng(fl::DeriveSeed(runSeed, 2));
            fl::ConnectivityRequirement req;
            req.connected = true;
            fl::GflConfig& c = r.config;
            c.combination = fl::MetropolisWeights(fl::ErdosRenyiGraph(P, 0.4, graphRng, req));
            c.clientsPerServer = K;
            c.sampledClients = L;
            c.mu = mu;
            c.work = fl::DrawGflLocalWork(P * K, 1, 10, 5, 10, fl::DeriveSeed(runSeed, 3));
            c.iterations = T;
            c.seed = fl::DeriveSeed(runSeed, 4);
            return r;
        },
        [&](const ClassRun& r,
            std::size_t v,
            uint32_t run,
            fl::MonteCarloSeries& series,
            std::ostream& lines,
            const fl::NetworkIterationCallback&) {
            fl::GflConfig c = r.config;
            variants[v].apply(c);
            const std::string& key = variants[v].key;
            const fl::SupervisedTask<double>& task = *r.task;
            fl::RunGflInProcess(task, c, [&](const fl::NetworkIterationReport& rep) {
                const double centroidError = 1.0 - task.Evaluate(*rep.centroid).accuracy;
                double averageError = 0.0;
                for (const auto& w : *rep.models)
                {
                    averageError += (1.0 - task.Evaluate(w).accuracy) / rep.models->size();
                }
                series.Add("test_error", rep.iteration, centroidError);
                series.Add("test_error_average", rep.iteration, averageError);
                series.Add("disagreement", rep.iteration, rep.disagreement);
                const uint32_t every = std::max<uint32_t>(1, T / 10);
                if (!o.quiet && rep.iteration > 0 && rep.iteration % every == 0)
                {
                    lines << "  [" << key << " run " << run + 1 << "/" << o.runs << "] iteration "
                          << rep.iteration << "/" << T << ": centroid test error "
                          << Fmt(centroidError, 4) << ", servers' mean " << Fmt(averageError, 4)
                          << std::endl;
                }
            });
        },
        os);
}

} // namespace ns3
