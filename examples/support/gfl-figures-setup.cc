/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The GFL and GHP figures (gfl-figures.h), their set-up: the options' checks, each figure's
 * variants as data (the noise schemes, the sweeps of GFL Figs. 3, 4 and journal Fig. 6) and the
 * papers' regression runs (data, servers' graph, local work, seeds) that every variant of a run
 * shares. The network runs are in gfl-figures-network.cc, the figures in gfl-figures-paper.cc,
 * the benchmark, output and claims in gfl-figures.cc.
 */
#include "gfl-figures.h"

#include "ns3/graph.h"
#include "ns3/linear-models.h"
#include "ns3/synthetic-data.h"
#include "ns3/text-parse.h"

#include <cmath>
#include <sstream>

namespace ns3
{

// ------------------------------------------------------------------------------- options

std::vector<uint32_t>
ParseGflBenchClients(const std::string& list)
{
    std::vector<uint32_t> sizes;
    std::stringstream ss(list);
    std::string item;
    while (std::getline(ss, item, ','))
    {
        sizes.push_back(fl::ParseUnsigned<uint32_t>(item, "--benchClients", 1, 1000));
    }
    return sizes;
}

void
CheckGflFigureOptions(const GflFigureOptions& o)
{
    if (o.clientStaggerMs < 0.0 && o.clientStaggerMs != -1.0)
    {
        throw fl::ConfigError("--clientStaggerMs",
                              std::to_string(o.clientStaggerMs) + " is negative",
                              "give -1 (the default for the cell type) or a value >= 0");
    }
    // GHP network schedule: ComputeTime (1 ms) + jitter + exchange timeout must fit in one
    // period (the timeout defaults to 0.9 period - 1 ms - jitter)
    const double period =
        o.ghpPeriodMs > 0.0 ? o.ghpPeriodMs : (o.ghpTransport == "broadcast" ? 50.0 : 0.0);
    const double timeoutMs =
        o.exchangeTimeout > 0.0 ? 1e3 * o.exchangeTimeout : 0.9 * period - 1.0 - o.ghpJitterMs;
    if (o.mode == "network" && period > 0.0 &&
        (timeoutMs <= 0.0 || 1.0 + o.ghpJitterMs + timeoutMs > period))
    {
        throw fl::ConfigError("--ghpJitterMs / --ghpPeriodMs / --exchangeTimeout",
                              "leave no time to combine within one iteration period (" +
                                  std::to_string(period) + " ms)",
                              "keep 1 ms + jitter + timeout <= period, e.g. a longer "
                              "--ghpPeriodMs or a shorter --ghpJitterMs");
    }
    if (o.secure && (o.sampled == 1 || o.clientsPerServer == 1))
    {
        throw fl::ConfigError(o.sampled == 1 ? "--sampled" : "--clientsPerServer",
                              "1 with --secure",
                              "sample at least 2 clients per server (the sum of one upload "
                              "is the upload), or drop --secure");
    }
    ParseGflBenchClients(o.benchClients);
    const bool inProcessOnly =
        o.figure == "gfl3" || o.figure == "gfl4" || o.figure == "fl6" || o.figure == "class";
    if (o.mode == "network" && inProcessOnly)
    {
        throw fl::ConfigError("--figure",
                              o.figure + " runs in process only",
                              "use --mode=inprocess, or --figure=gfl|fl|ghp over the network");
    }
    ParseFlFidelity(o.network, "--network");
    if (o.mode == "network" && o.network == "flow")
    {
        if (o.figure == "ghp" || o.figure == "all")
        {
            throw fl::ConfigError("--network",
                                  "flow with --figure=" + o.figure,
                                  "GHP's agents run over packet-level Wi-Fi ad hoc only: use "
                                  "--figure=gfl or fl in flow fidelity, or --network=packet");
        }
        if (o.serverLinks != "p2p" || o.transport != "tcp" || o.linkLoss > 0.0)
        {
            throw fl::ConfigError("--network",
                                  "flow with --serverLinks=" + o.serverLinks + ", --transport=" +
                                      o.transport + (o.linkLoss > 0.0 ? " and --linkLoss" : ""),
                                  "the flow-level model carries TCP's bytes over point-to-point "
                                  "server links without loss: use --serverLinks=p2p "
                                  "--transport=tcp --linkLoss=0, or --network=packet");
        }
    }
}

// ------------------------------------------------------------------------------- variants

const std::vector<std::pair<std::string, fl::NodeNoiseKind>>&
GflServerSchemes()
{
    static const std::vector<std::pair<std::string, fl::NodeNoiseKind>> schemes = {
        {"none", fl::NodeNoiseKind::None},
        {"iid-per-link", fl::NodeNoiseKind::IidPerLink},
        {"iid-broadcast", fl::NodeNoiseKind::IidBroadcast},
        {"graph-homomorphic", fl::NodeNoiseKind::GraphHomomorphic}};
    return schemes;
}

fl::NodeNoiseConfig
GflLaplaceNoise(fl::NodeNoiseKind kind, double sigma2)
{
    return fl::NodeNoiseConfig{kind, fl::NoiseDistribution::Laplace, std::sqrt(sigma2 / 2.0)};
}

std::vector<GflFigureVariant>
GflServerSchemeVariants(const std::string& figure, double sigma2, bool withEpsilon)
{
    std::vector<GflFigureVariant> variants;
    for (const auto& [name, kind] : GflServerSchemes())
    {
        variants.push_back(
            {figure + "/" + name, withEpsilon, [kind = kind, sigma2](fl::GflConfig& c) {
                 c.serverNoise = GflLaplaceNoise(kind, sigma2);
             }});
    }
    return variants;
}

std::vector<GflFigureVariant>
GflFlFig5Variants()
{
    const fl::NodeNoiseConfig noise = GflLaplaceNoise(fl::NodeNoiseKind::IidPerLink, 0.02);
    return {{"fl/none",
             false,
             [](fl::GflConfig& c) {
                 c.uplink = fl::GflUplink::Models;
                 c.clientNoise = fl::NodeNoiseConfig{};
             }},
            {"fl/noisy-models",
             false,
             [noise](fl::GflConfig& c) {
                 c.uplink = fl::GflUplink::Models;
                 c.clientNoise = noise;
             }},
            {"fl/noisy-updates", false, [noise](fl::GflConfig& c) {
                 c.uplink = fl::GflUplink::Updates;
                 c.clientNoise = noise;
             }}};
}

namespace
{

/// "0.001", "0.1", "2": a swept value as it appears in a variant name.
std::string
ValueName(double v)
{
    std::ostringstream s;
    s << v;
    return s.str();
}

} // namespace

std::vector<GflFigureVariant>
GflSweepVariants(bool overMu)
{
    const std::string fig = overMu ? "gfl4" : "gfl3";
    const std::vector<double> values = overMu
                                           ? std::vector<double>{0.1, 0.5, 1.0, 5.0}
                                           : std::vector<double>{0.001, 0.01, 0.1, 1.0, 2.0, 10.0};
    const std::string param = overMu ? "mu" : "s2";
    std::vector<GflFigureVariant> variants;
    for (double v : values)
    {
        const double sigma2 = overMu ? 0.1 : v;
        const double mu = overMu ? v : 0.7;
        const std::string suffix = "/" + param + "=" + ValueName(v);
        if (overMu || v == values.front())
        {
            variants.push_back(
                {fig + "/none" + (overMu ? suffix : "/s2=0"), false, [mu](fl::GflConfig& c) {
                     c.mu = mu;
                     c.serverNoise = fl::NodeNoiseConfig{};
                 }});
        }
        // the random schemes (iid Laplace, both readings) and graph-homomorphic
        for (std::size_t s = 1; s < GflServerSchemes().size(); ++s)
        {
            const auto& [name, kind] = GflServerSchemes()[s];
            variants.push_back(
                {fig + "/" + name + suffix, false, [mu, kind = kind, sigma2](fl::GflConfig& c) {
                     c.mu = mu;
                     c.serverNoise = GflLaplaceNoise(kind, sigma2);
                 }});
        }
    }
    return variants;
}

std::vector<GflFigureVariant>
GflFl6Variants()
{
    const std::vector<double> mus = {0.05, 0.1, 0.2, 0.5, 1.0};
    const std::vector<double> sigmas = {0.01, 0.05, 0.1, 0.5};
    const std::vector<std::pair<std::string, fl::GflUplink>> schemes = {
        {"noisy-models", fl::GflUplink::Models},
        {"noisy-updates", fl::GflUplink::Updates}};
    const auto noise = [](double sigma2) {
        return GflLaplaceNoise(fl::NodeNoiseKind::IidPerLink, sigma2);
    };
    std::vector<GflFigureVariant> variants;
    for (double mu : mus)
    {
        const std::string suffix = "/mu=" + ValueName(mu);
        variants.push_back({"fl6mu/none" + suffix, false, [mu](fl::GflConfig& c) {
                                c.mu = mu;
                                c.uplink = fl::GflUplink::Models;
                                c.clientNoise = fl::NodeNoiseConfig{};
                            }});
        for (const auto& [name, uplink] : schemes)
        {
            variants.push_back({"fl6mu/" + name + suffix,
                                false,
                                [mu, uplink = uplink, n = noise(0.02)](fl::GflConfig& c) {
                                    c.mu = mu;
                                    c.uplink = uplink;
                                    c.clientNoise = n;
                                }});
        }
    }
    for (double sigma2 : sigmas)
    {
        for (const auto& [name, uplink] : schemes)
        {
            variants.push_back({"fl6s2/" + name + "/s2=" + ValueName(sigma2),
                                false,
                                [uplink = uplink, n = noise(sigma2)](fl::GflConfig& c) {
                                    c.mu = 0.2;
                                    c.uplink = uplink;
                                    c.clientNoise = n;
                                }});
        }
    }
    return variants;
}

// ------------------------------------------------------------------------------- runs

GflRegressionSetup
MakeGflRegression(std::size_t agents,
                  std::size_t samples,
                  double rho,
                  uint64_t seed,
                  std::size_t dim)
{
    fl::RegressionTaskConfig rc;
    rc.dim = dim;
    rc.agents = agents;
    rc.samplesPerAgent = samples;
    fl::Rng rng(seed);
    auto data = fl::MakeRegressionTask<double>(rc, rng);
    std::vector<fl::Dataset<double>> parts;
    std::vector<const fl::Dataset<double>*> ptrs;
    for (auto& a : data.agents)
    {
        parts.push_back(std::move(a.data));
    }
    for (const auto& p : parts)
    {
        ptrs.push_back(&p);
    }
    GflRegressionSetup s;
    s.wOpt = fl::RidgeOptimum(ptrs, rho);
    fl::LocalTrainerConfig trainer; // replaced per client by GflTrainerConfig
    s.task = std::make_shared<fl::SupervisedTask<double>>(
        std::make_shared<fl::RidgeRegression<double>>(dim, rho),
        trainer,
        std::move(parts),
        fl::Dataset<double>{});
    return s;
}

Eigen::MatrixXd
GflPaperCombination(std::size_t P, double p, uint64_t seed)
{
    if (P <= 1)
    {
        return Eigen::MatrixXd::Ones(1, 1);
    }
    fl::Rng graphRng(seed);
    fl::ConnectivityRequirement req;
    req.connected = true;
    return fl::MetropolisWeights(fl::ErdosRenyiGraph(P, p, graphRng, req));
}

GflRegressionRun
MakeGflRegressionRun(std::size_t P,
                     std::size_t K,
                     std::size_t L,
                     double mu,
                     double rho,
                     uint32_t T,
                     uint64_t runSeed)
{
    GflRegressionRun r;
    r.setup = MakeGflRegression(P * K, 100, rho, fl::DeriveSeed(runSeed, 1));
    fl::GflConfig& c = r.config;
    c.combination = GflPaperCombination(P, 0.4, fl::DeriveSeed(runSeed, 2));
    c.clientsPerServer = K;
    c.sampledClients = L;
    c.mu = mu;
    c.work = fl::DrawGflLocalWork(P * K, 1, 10, 5, 10, fl::DeriveSeed(runSeed, 3));
    c.iterations = T;
    c.seed = fl::DeriveSeed(runSeed, 4);
    c.reference = r.setup.wOpt;
    return r;
}

GflRegressionRun
MakeGflNetworkRegressionRun(std::size_t P,
                            std::size_t K,
                            std::size_t L,
                            double p,
                            uint32_t T,
                            uint64_t seed,
                            std::size_t dim)
{
    GflRegressionRun r;
    r.setup = MakeGflRegression(P * K, 100, 0.1, fl::DeriveSeed(seed, 1), dim);
    fl::GflConfig& c = r.config;
    c.combination = GflPaperCombination(P, p, fl::DeriveSeed(seed, 2));
    c.clientsPerServer = K;
    c.sampledClients = L;
    c.mu = 0.7;
    c.work = fl::DrawGflLocalWork(P * K, 1, 10, 5, 10, fl::DeriveSeed(seed, 3));
    c.iterations = T;
    c.seed = seed;
    c.reference = r.setup.wOpt;
    if (P > 1)
    {
        c.serverNoise = fl::NodeNoiseConfig{fl::NodeNoiseKind::GraphHomomorphic,
                                            fl::NoiseDistribution::Laplace,
                                            std::sqrt(0.05)};
    }
    return r;
}

} // namespace ns3
