/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The figures of the GFL and GHP papers as parts the programs share (the fl-example-support
 * library; not part of the module): what each figure runs (its variants
 * as data), Monte Carlo over runs with common random numbers (in process on the training pool,
 * or over ns-3 links one run after the other), the tidy series they give, their CSV and summary,
 * and the orderings the papers' figures show as claims checked on the results. fl-gfl and fl-ghp
 * choose a figure and call these; a user's own figure or sweep uses the same parts.
 *
 * Papers: E. Rizk, S. Vlaski, A. H. Sayed, "Privatized Graph Federated Learning",
 * arXiv:2203.07105, 2022 (Figs. 2-5) and EURASIP J. Adv. Signal Process. 2023, article 87
 * ("journal", Figs. 2-7); S. Vlaski, A. H. Sayed, "Graph-Homomorphic Perturbations for Private
 * Decentralized Learning", ICASSP 2021 (Fig. 1).
 *
 * Choices where the papers are silent: GFL graph Erdos-Renyi p = 0.4 (connected) with
 * Metropolis weights, R_k = 0.05 L L^T, sigma_v^2 ~ U[0.01, 0.1], w* ~ N(0, I), w_0 = 0, Laplace
 * noise with b = sigma_g / sqrt(2); GHP graph random geometric (radius 0.35, connected) with lazy
 * Metropolis weights (a_kk >= 1/2: less GHP per-agent noise; weights "metropolis" for plain
 * ones), class means +-1/sqrt(M) 1, equal priors, 2000 samples per agent drawn one at a time, w°
 * by Newton on all agents' data.
 */
#ifndef FL_GFL_FIGURES_H
#define FL_GFL_FIGURES_H

#include "ns3/monte-carlo.h"
#include "ns3/rng-seed-manager.h"
#include "ns3/gfl-helper.h"
#include "ns3/gfl.h"
#include "ns3/learning-task.h"
#include "ns3/thread-pool.h"

#include <array>
#include <cstdint>
#include <functional>
#include <iosfwd>
#include <memory>
#include <string>
#include <vector>

namespace ns3
{

/**
 * The settings of the GFL / GHP figures (fl-gfl's flags, one field each; 0 means "the figure's
 * default" where noted).
 */
struct GflFigureOptions
{
    bool quick = false;                     ///< small sizes, in seconds
    bool quiet = false;                     ///< no progress lines
    std::string figure = "all";             ///< gfl fl ghp all bench gfl3 gfl4 fl6 class
    std::string mode = "inprocess";         ///< inprocess or network
    std::string transport = "tcp";          ///< network mode: tcp or udp
    std::string cell = "csma";              ///< network mode: csma or wifi cells
    std::string serverLinks = "p2p";        ///< network mode: p2p links or an 802.11s mesh
    double meshSpacing = 30.0;              ///< network mode, mesh: servers' grid spacing [m]
    double linkMbps = 100.0;                ///< network mode: server-link rate
    double linkDelayMs = 2.0;               ///< network mode: server-link delay
    double exchangeTimeout = 0.0;           ///< network mode: combine after this many s (0 = wait)
    double linkLoss = 0.0;                  ///< network mode: packet error rate on server links
    double tcpMinRtoMs = 1000.0;            ///< network mode: TCP minimum RTO [ms] (ns-3's 1 s)
    double stallSeconds = 300.0;            ///< network mode: stop a run that makes no progress
    std::string policy = "reuse-last";      ///< missing-message policy
    bool cellDoze = true;                   ///< network mode, Wi-Fi cells: idle stations doze
    bool cellStaticArp = true;              ///< network mode, Wi-Fi cells: permanent ARP entries
    uint32_t cellBeaconTu = 100;            ///< network mode, Wi-Fi cells: beacon interval [TU]
    double cellAssocStaggerMs = 1.0;        ///< network mode, Wi-Fi cells: association stagger
    double clientStaggerMs = -1.0;          ///< network mode: client k starts k times this later
                                            ///< (-1: 2 ms with Wi-Fi cells, 0 with CSMA cells)
    std::string benchClients = "5,10,20";   ///< bench: clients per Wi-Fi cell
    uint32_t benchIterations = 10;          ///< bench: network iterations per cell size
    uint32_t runs = 3;                      ///< Monte-Carlo runs per variant
    uint32_t iterations = 0;                ///< 0 = the figure's default
    uint64_t seed = 1;                      ///< master seed (fl-gfl: the run number, --RngRun)
    std::string network = "packet";         ///< network mode, GFL's scenes: packet or flow
    double clip = 0.0;                      ///< gradient clipping G (> 0: epsilon rows)
    std::string noiseSource = "run-seed";   ///< the noise seeds: run-seed or sodium
    std::string weights = "lazy";           ///< GHP combination weights: lazy or metropolis
    double ghpB = 1.0;                      ///< GHP Laplace scale b_v
    uint32_t servers = 0;                   ///< GFL P (0 = the figure's default)
    uint32_t clientsPerServer = 0;          ///< GFL K (0 = default)
    uint32_t sampled = 0;                   ///< GFL L (0 = default)
    bool secure = false;                    ///< GFL: secure aggregation of the uploads
    std::string secureKeys = "random";      ///< its key mode: random or reproducible (INSECURE)
    double dropout = 0.0;                   ///< GFL: P(a sampled client drops out in an iteration)
    std::string ghpTransport = "broadcast"; ///< GHP network mode: broadcast or unicast
    double ghpLoss = 0.0;                   ///< GHP network mode: frame error rate at receivers
    double ghpPeriodMs = 0.0;               ///< GHP network mode: iteration period (0 = auto)
    double ghpJitterMs = 20.0;              ///< GHP network mode: release jitter U[0, J]

    /// the index of the first of the runs: run r draws its data, graph and local work from
    /// (seed, r) whatever runs before it, so that a job of a sweep (fl-gfl --engine) that runs
    /// run r alone (runs = 1, firstRun = r) reproduces run r of the in-process Monte Carlo
    uint32_t firstRun = 0;
    /// true: the runs are jobs of a sweep (fl-gfl --engine), the figures run none of them here
    /// and only set up their variants' series and what their epsilons mean
    bool runsAsJobs = false;
};

/**
 * Checks the combinations of GflFigureOptions that single flags cannot (each flag's own range is
 * the program's): --clientStaggerMs negative but not -1, a --benchClients item, --secure with
 * one client, an in-process-only figure over the network, a GHP network schedule (1 ms +
 * jitter + exchange timeout) that does not fit in one --ghpPeriodMs, and flow fidelity
 * (--network=flow) where the flow-level model does not apply (GHP's ad hoc network, mesh server
 * links, UDP, lossy server links). Throws fl::ConfigError naming the flag and the fix.
 */
void CheckGflFigureOptions(const GflFigureOptions& o);

/// "5,10,20" -> {5, 10, 20}; fl::ConfigError naming --benchClients for an item not in 1..1000.
std::vector<uint32_t> ParseGflBenchClients(const std::string& list);

/**
 * One variant of a figure as data: its series key ("figure/scheme" or
 * "figure/scheme/parameter=value" for a sweep), whether its runs record epsilons, and the
 * settings it puts on the run's shared configuration (noise, uplink, step size).
 */
struct GflFigureVariant
{
    std::string key;
    bool withEpsilon{false};
    std::function<void(fl::GflConfig&)> apply;
};

/**
 * The server-level schemes of GFL's figures, in their order: none, iid-per-link (a fresh Laplace
 * draw per link), iid-broadcast (one draw per sender on every copy and its own term) and
 * graph-homomorphic (eq. (47) of the preprint).
 */
const std::vector<std::pair<std::string, fl::NodeNoiseKind>>& GflServerSchemes();

/// Laplace server or client noise of variance sigma2 (b = sigma_g / sqrt(2)) of the given kind.
fl::NodeNoiseConfig GflLaplaceNoise(fl::NodeNoiseKind kind, double sigma2);

/**
 * One variant per server-level scheme (GflServerSchemes), "<figure>/<scheme>", each setting
 * Laplace server noise of variance sigma2 of its kind: GFL Fig. 2 ("gfl", 0.1) and the
 * classification figure ("class", 0.6).
 */
std::vector<GflFigureVariant> GflServerSchemeVariants(const std::string& figure,
                                                      double sigma2,
                                                      bool withEpsilon);

/**
 * The variants of GFL journal Fig. 5 (one server): "fl/none", "fl/noisy-models" (the clients
 * upload models with iid Laplace noise of variance 0.02) and "fl/noisy-updates" (updates, the
 * same noise).
 */
std::vector<GflFigureVariant> GflFlFig5Variants();

/**
 * The variants of GFL Fig. 3 (overMu = false: sigma_g^2 in {0.001, 0.01, 0.1, 1, 2, 10} at
 * mu = 0.7, "gfl3/<scheme>/s2=<v>" for iid-per-link, iid-broadcast and graph-homomorphic, and
 * the non-private run once, "gfl3/none/s2=0") or Fig. 4 (overMu = true: mu in {0.1, 0.5, 1, 5}
 * at sigma_g^2 = 0.1, "gfl4/<scheme>/mu=<v>" with the non-private run per mu), in run order.
 */
std::vector<GflFigureVariant> GflSweepVariants(bool overMu);

/**
 * The variants of GFL journal Fig. 6 (one server): (a), (b) "fl6mu/<scheme>/mu=<v>" for mu in
 * {0.05, 0.1, 0.2, 0.5, 1}, schemes none, noisy-models, noisy-updates at sigma_g^2 = 0.02; (c),
 * (d) "fl6s2/<scheme>/s2=<v>" for sigma_g^2 in {0.01, 0.05, 0.1, 0.5} at mu = 0.2, noisy-models
 * and noisy-updates; client noise iid Laplace per upload.
 */
std::vector<GflFigureVariant> GflFl6Variants();

/// The data (N = 100 per client, M = 2) and the ridge optimum w° of a regression run.
struct GflRegressionSetup
{
    std::shared_ptr<fl::SupervisedTask<double>> task;
    Eigen::VectorXd wOpt;
};

/**
 * The synthetic regression of the GFL papers (preprint Section V-A): `agents` clients of
 * `samples` each, M = `dim` (the papers': 2), ridge rho, drawn from `seed`; w° on all clients'
 * data.
 */
GflRegressionSetup MakeGflRegression(std::size_t agents,
                                     std::size_t samples,
                                     double rho,
                                     uint64_t seed,
                                     std::size_t dim = 2);

/**
 * The servers' graph of the GFL papers' experiments: for P > 1 a connected Erdos-Renyi graph of
 * edge probability `p` (the papers': 0.4) with Metropolis weights, drawn from `seed`; P = 1: A =
 * [1].
 */
Eigen::MatrixXd GflPaperCombination(std::size_t P, double p, uint64_t seed);

/// One Monte-Carlo run of the regression figures (GFL Figs. 2-4, journal Figs. 5-6).
struct GflRegressionRun
{
    GflRegressionSetup setup; ///< data and w°
    fl::GflConfig config;     ///< A, K, L, mu, E and B per client, seeds, w°; no noise yet
};

/**
 * The regression run of the GFL papers from `runSeed`: data DeriveSeed(runSeed, 1), for P > 1
 * an Erdos-Renyi p = 0.4 graph (connected) with Metropolis weights from DeriveSeed(runSeed, 2)
 * (P = 1: A = [1]), E ~ U{1..10}, B ~ U{5..10} per client from DeriveSeed(runSeed, 3), the
 * run's seed DeriveSeed(runSeed, 4). Every variant of a run shares all of it (common random
 * numbers).
 */
GflRegressionRun MakeGflRegressionRun(std::size_t P,
                                      std::size_t K,
                                      std::size_t L,
                                      double mu,
                                      double rho,
                                      uint32_t T,
                                      uint64_t runSeed);

/**
 * The regression run of the GFL papers as the network programs run it (fl-gfl-mpi,
 * fl-flow-validation): data DeriveSeed(seed, 1) (N = 100 per client, M = `dim`, rho = 0.1),
 * an Erdos-Renyi graph of edge probability `p` from DeriveSeed(seed, 2) (P = 1: A = [1]),
 * E ~ U{1..10}, B ~ U{5..10} per client from DeriveSeed(seed, 3), step size mu = 0.7, the run's
 * seed `seed` itself, and the servers' graph-homomorphic Laplace noise of variance 0.05 (none
 * for P = 1).
 */
GflRegressionRun MakeGflNetworkRegressionRun(std::size_t P,
                                             std::size_t K,
                                             std::size_t L,
                                             double p,
                                             uint32_t T,
                                             uint64_t seed,
                                             std::size_t dim = 2);

/**
 * What a network run cost (GflFigureRunGfl, GflFigureRunDiffusion).
 */
struct GflNetworkCost
{
    uint64_t bytes{0};    ///< bytes handed to sockets by every server and client
    double simSeconds{0}; ///< simulated time at the end
    double wallSeconds{0};
    // GHP over Wi-Fi ad hoc only
    double airtimeSeconds{0};  ///< PHY TX time summed over every device (data, ACK, control)
    uint64_t frames{0};        ///< PHY transmissions (PSDUs) of every device
    uint64_t transmissions{0}; ///< messages the agents' transports sent (one per broadcast,
                               ///< one per neighbour copy)
    uint64_t lost{0};          ///< neighbour messages missing at a combination
    uint64_t links{0};         ///< directed graph links l -> k
    uint64_t notNeighbor{0};   ///< overheard messages from non-neighbours, ignored
    uint64_t malformed{0};     ///< malformed chunks / messages dropped by the transports
    uint64_t worstLinkLost{0}; ///< losses of the worst link over the run
    uint32_t iterations{0};    ///< iterations completed
};

/**
 * Runs GFL with configuration `c`: in process (o.mode "inprocess", fl::RunGflInProcess) or over
 * ns-3 links (FlGraphSceneHelper with o's cell, server-link and stagger settings, FlGflHelper
 * with o's transport and timeouts), reporting every iteration to `cb`. A network run that stops
 * early says why on stderr. Returns the network run's cost (zeros in process).
 */
GflNetworkCost GflFigureRunGfl(const GflFigureOptions& o,
                               std::shared_ptr<const fl::LearningTask> task,
                               const fl::GflConfig& c,
                               const fl::NetworkIterationCallback& cb);

/**
 * Runs GHP diffusion with configuration `c`: in process (fl::RunDiffusionInProcess) or over
 * 802.11 ad hoc (DiffusionHelper; o.ghpTransport, o.ghpLoss at every receiver, o.ghpPeriodMs,
 * o.ghpJitterMs), reporting every iteration to `cb`. Returns the cost with airtime, PHY frames
 * and losses per link (zeros in process).
 */
GflNetworkCost GflFigureRunDiffusion(const GflFigureOptions& o,
                                     std::shared_ptr<const fl::LearningTask> task,
                                     const fl::DiffusionConfig& c,
                                     const fl::NetworkIterationCallback& cb);

/// Prints a network run's cost (bytes, time; with links: per-iteration airtime, frames, loss).
void PrintGflNetworkCost(const GflNetworkCost& cost, const std::string& name, std::ostream& os);

/**
 * Adds an iteration report to one run's series: msd_centroid, msd_average, disagreement,
 * centroid_drift, lost_messages and, withEpsilon, epsilon_one_link, epsilon_all_links and
 * epsilon_neighbour (the three adversaries of fl::GraphPrivacyAccountant).
 */
void AddGflIterationReport(fl::MonteCarloSeries& series,
                           const fl::NetworkIterationReport& r,
                           bool withEpsilon);

/**
 * Records what a variant's two epsilon metrics mean (the guarantee of its noise against one
 * neighbour and against all links of the worst node) in series.statements.
 */
/// The CSV metric of an adversary's eps: epsilon_one_link, epsilon_all_links, epsilon_neighbour.
std::string GflEpsilonColumn(fl::GraphAdversary adversary);

void NoteGflEpsilon(fl::MonteCarloSeries& series,
                    const fl::NodeNoiseConfig& noise,
                    const std::string& unit,
                    double delta);

/**
 * The callback of one run of a variant: adds each iteration's report to the run's series
 * (AddGflIterationReport) and prints "  [<name> run r/R] iteration i/T: centroid MSD x dB,
 * average MSD y dB" on `os` every tenth of the `iterations` (unless o.quiet). `o`, `series`
 * and `os` must outlive the callback.
 */
fl::NetworkIterationCallback GflProgressCallback(const GflFigureOptions& o,
                                                 const std::string& name,
                                                 uint32_t run,
                                                 uint32_t iterations,
                                                 fl::MonteCarloSeries& series,
                                                 bool withEpsilon,
                                                 std::ostream& os);

/**
 * The figures' Monte Carlo: o.runs runs of every variant through fl::MonteCarloVariants, on the
 * training pool (fl::TrainingPool(), --FlTrainingThreads) in process and one after the other over
 * the network (o.mode "network"); `body(setup, v, run, series, os, cb)` runs variant v of the
 * run's shared `setup` and reports every iteration to `cb` (GflProgressCallback). The runs are
 * o.firstRun .. o.firstRun + o.runs - 1: makeRun and body get these indices (none with
 * o.runsAsJobs: `out` then holds the variants' empty series). Over the network, run r simulates at
 * ns-3 run number (the current one) + r: its own draws, shared by its variants.
 */
template <typename Setup>
void
GflMonteCarlo(const GflFigureOptions& o,
              fl::MonteCarloSeriesMap& out,
              uint32_t iterations,
              const std::vector<GflFigureVariant>& variants,
              const std::function<Setup(uint32_t run)>& makeRun,
              const std::function<void(const Setup& setup,
                                       std::size_t variant,
                                       uint32_t run,
                                       fl::MonteCarloSeries& series,
                                       std::ostream& os,
                                       const fl::NetworkIterationCallback& cb)>& body,
              std::ostream& os)
{
    std::vector<std::string> keys;
    for (const auto& v : variants)
    {
        keys.push_back(v.key);
    }
    // Over the network, run r's ns-3 draws (back-offs, losses) come from run number base + r:
    // every run has its own, every variant of a run the same (common random numbers), in
    // process and in a job alike.
    const uint64_t base = RngSeedManager::GetRun();
    fl::MonteCarloVariants<Setup>(
        o.runsAsJobs ? 0 : o.runs,
        keys,
        out,
        [&](uint32_t run) { return makeRun(o.firstRun + run); },
        [&](const Setup& setup,
            std::size_t v,
            uint32_t local,
            fl::MonteCarloSeries& series,
            std::ostream& lines) {
            const uint32_t run = o.firstRun + local;
            if (o.mode == "network")
            {
                RngSeedManager::SetRun(base + run);
            }
            body(setup,
                 v,
                 run,
                 series,
                 lines,
                 GflProgressCallback(o,
                                     variants[v].key,
                                     run,
                                     iterations,
                                     series,
                                     variants[v].withEpsilon,
                                     lines));
        },
        o.mode == "network" ? nullptr : &fl::TrainingPool(),
        os);
    RngSeedManager::SetRun(base);
}

/**
 * Runs the figure o.figure ("all": gfl, fl and ghp) into `out`, printing its settings, progress
 * and privacy lines on `os`: gfl (GFL Fig. 2), fl (journal Fig. 5), ghp (GHP Fig. 1), bench,
 * gfl3 / gfl4 (Figs. 3, 4), fl6 (journal Fig. 6), class (two Fashion-MNIST classes in place of
 * Avazu; fl::ConfigError if the data set is not installed).
 */
void RunGflFigures(const GflFigureOptions& o, fl::MonteCarloSeriesMap& out, std::ostream& os);

/// GFL Fig. 2: P = 10, K = 100, L = 11, M = 2, mu = 0.7, sigma_g^2 = 0.1, the four schemes.
void RunGflFig2(const GflFigureOptions& o, fl::MonteCarloSeriesMap& out, std::ostream& os);
/// GFL journal Fig. 5: one server, K = 1000, L = 30, mu = 0.2: none / noisy models / updates.
void RunGflFlFig5(const GflFigureOptions& o, fl::MonteCarloSeriesMap& out, std::ostream& os);
/// GHP Fig. 1: K = 20 agents, M = 5, mu = 1, b_v = 1: none / iid / graph-homomorphic.
void RunGhpFig1(const GflFigureOptions& o, fl::MonteCarloSeriesMap& out, std::ostream& os);
/// GFL Fig. 3 (overMu = false) or Fig. 4 (overMu = true), in process (GflSweepVariants).
void RunGflSweepFigure(const GflFigureOptions& o,
                       fl::MonteCarloSeriesMap& out,
                       bool overMu,
                       std::ostream& os);
/// GFL journal Fig. 6, in process (GflFl6Variants).
void RunGflFl6Figure(const GflFigureOptions& o, fl::MonteCarloSeriesMap& out, std::ostream& os);
/// Two Fashion-MNIST classes in place of Avazu (preprint Fig. 5, journal Fig. 7): test error.
void RunGflClassFigure(const GflFigureOptions& o, fl::MonteCarloSeriesMap& out, std::ostream& os);
/**
 * The benchmark: in-process wall time of P = 10 x K = 100, 1000 iterations of Fig. 2, and the
 * network's wall and simulated time per iteration for Wi-Fi cells of o.benchClients clients
 * (variants bench/inprocess and bench/network-K<k>, one value each at iteration 0).
 */
void RunGflBenchmark(const GflFigureOptions& o, fl::MonteCarloSeriesMap& out, std::ostream& os);

/**
 * The figures' tidy CSV (iteration,variant,metric,value): `provenance` right after the header
 * (comment lines saying where the runs ran, e.g. FlFigureRunner::ProvenanceLine(); empty:
 * none), a comment line per epsilon metric saying what it means, then the Monte-Carlo mean of
 * every metric of every variant at every `every`-th iteration and the last; msd_* metrics in dB
 * (metric name + "_db"); sweep variants (two '/' in the key, ideal links) without lost_messages
 * and centroid_drift rows.
 */
void WriteGflFiguresCsv(std::ostream& csv,
                        const fl::MonteCarloSeriesMap& series,
                        uint32_t every,
                        const std::string& provenance = "");

/// The last epsilons of every variant that has them, with what they mean.
void PrintGflEpsilons(const fl::MonteCarloSeriesMap& series, std::ostream& os);

/// The steady-state centroid / average MSD (dB) of every variant that has them.
void PrintGflSteadyState(const fl::MonteCarloSeriesMap& series, std::ostream& os);

/**
 * The steady-state level of a variant's metric (MonteCarloSeries::SteadyState): in dB for
 * msd_* metrics, as is otherwise (test errors).
 */
double GflLevel(const fl::MonteCarloSeriesMap& series,
                const std::string& key,
                const std::string& metric);

/**
 * The orderings one figure shows, as data: checked if the figure's `present` series is in the
 * results. `checked` are robust claims with margins from the theory's scalings (a failure is a
 * failure); `reported` lists claims the paper makes weakly ("not significant"), whose levels
 * are printed side by side without a verdict: each is a title and the (label, key, metric) of
 * its series.
 */
struct GflFigureClaims
{
    std::string figure;  ///< "gfl", "fl", "ghp", "gfl3", "gfl4", "fl6", "class"
    std::string present; ///< a series key of the figure
    std::vector<fl::LevelClaim> checked;

    struct Reported
    {
        std::string title;
        std::vector<std::array<std::string, 3>> series; ///< label, key, metric
    };

    std::vector<Reported> reported;
};

/// The claims of every figure (GFL Fig. 2, journal Fig. 5, GHP Fig. 1, Figs. 3, 4, journal
/// Fig. 6, the classification figure), in that order.
const std::vector<GflFigureClaims>& GflFiguresClaims();

/**
 * Checks the claims of every figure present in `series` (fl::CheckLevelClaim on GflLevel; dB
 * for the MSD, 4 decimals for test errors) and prints each verdict line, the reported claims and
 * the figures' notes (GHP: graph-homomorphic against none; class: the test-error table).
 * @return the results of the checked claims, in order
 */
std::vector<fl::OrderingResult> CheckGflFigureClaims(const fl::MonteCarloSeriesMap& series,
                                                     std::ostream& os);

/**
 * Prints the program's set-up line ("<program>: mode ..." with the network settings) and, with
 * o.secure, the secure-aggregation threat model.
 */
void PrintGflFigureSetup(const GflFigureOptions& o, const std::string& program, std::ostream& os);

} // namespace ns3

#endif // FL_GFL_FIGURES_H
