/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Experiments in a user's own script, the ns-3 half (the pure half is model/learning/
 * experiment.h: Monte Carlo on the training pool, statistics over runs, ordering checks, tidy
 * CSV and the sweep grid of utils/fl-sweep): seeds through --RngRun, the tracker's long rows as
 * one summary per round, a progress line every tenth of the rounds, and the provenance of a
 * program's rows.
 */
#ifndef FL_EXPERIMENT_HELPER_H
#define FL_EXPERIMENT_HELPER_H

#include "ns3/experiment.h"
#include "ns3/fl-learning-tracker.h"
#include "ns3/rng-seed-manager.h"
#include "ns3/task-builder.h"

#include <cstdint>
#include <functional>
#include <iosfwd>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup fl
 * A run's state after one round, from the tracker's long rows (FlMetricRow): the centroid's test
 * loss and accuracy, the mean over the nodes of their own models' (EvaluateNodes), the network's
 * disagreement and composed epsilon. What a run did not measure is NaN (node means, epsilon) or
 * 0 (the rest).
 */
struct FlRoundSummary
{
    uint32_t round{0};            ///< rounds done (0: the initial model)
    double timeS{0.0};            ///< simulated time of the round's last report [s]
    double centroidLoss{0.0};     ///< node "centroid", metric test_loss
    double centroidAccuracy{0.0}; ///< node "centroid", metric test_accuracy
    double nodeLoss{0.0};         ///< mean test_loss of the nodes (NaN: none evaluated)
    double nodeAccuracy{0.0};     ///< mean test_accuracy of the nodes (NaN: none)
    double disagreement{0.0};     ///< node "network", metric disagreement
    double epsilon{std::nan("")}; ///< node "network", metric epsilon (NaN: no accountant)
};

/// One FlRoundSummary per round of the rows, in round order.
std::vector<FlRoundSummary> FlSummariseRounds(const std::vector<FlMetricRow>& rows);

/**
 * \ingroup fl
 * The statistics of one round over the seeds of a run: mean and 95 % CI (fl::MeanCi95) of every
 * field of FlRoundSummary.
 */
struct FlRoundStatistics
{
    uint32_t round{0}; ///< the round (of the first seed)
    std::size_t seeds{0};
    fl::MeanCi timeS;
    fl::MeanCi centroidLoss;
    fl::MeanCi centroidAccuracy;
    fl::MeanCi nodeLoss;
    fl::MeanCi nodeAccuracy;
    fl::MeanCi disagreement;
    fl::MeanCi epsilon;
};

/// One FlRoundStatistics per round that every seed reached (seeds[s] = a seed's rounds).
std::vector<FlRoundStatistics> FlRoundStatisticsOverSeeds(
    const std::vector<std::vector<FlRoundSummary>>& seeds);

/**
 * \ingroup fl
 * What a figure program ranks a run by, over its seeds (mean and 95 % CI): the centroid's test
 * accuracy over the last tenth of the rounds (fl::TailMean, at least the last round), which
 * smooths the round-to-round noise; the nodes' mean accuracy and the disagreement at the last
 * round.
 */
struct FlSeedsSummary
{
    fl::MeanCi accuracy;
    fl::MeanCi nodeAccuracy;
    fl::MeanCi disagreement;
};

/// The FlSeedsSummary of the seeds of a run (every seed with at least one round).
FlSeedsSummary FlSummariseSeeds(const std::vector<std::vector<FlRoundSummary>>& seeds);

/**
 * \ingroup fl
 * Runs `run(seed)` for seed = 0 .. seeds - 1 with ns-3's run number RngRun + seed (RngRun: the
 * value when called, e.g. --RngRun), one after the other (one simulator per process), calling
 * done(seed, result) after each; the run number is restored afterwards, also if a run throws.
 * Draws of the seeds differ; a draw made before the call (e.g. the data split) is shared.
 */
template <typename R>
std::vector<R>
FlRunSeeds(uint32_t seeds,
           const std::function<R(uint32_t seed)>& run,
           const std::function<void(uint32_t seed, const R&)>& done = {})
{
    const uint64_t base = RngSeedManager::GetRun();

    struct Restore
    {
        uint64_t run;

        ~Restore()
        {
            RngSeedManager::SetRun(run);
        }
    } restore{base};

    return fl::MonteCarlo<R>(
        seeds,
        [&](std::size_t seed) {
            RngSeedManager::SetRun(base + seed);
            return run(static_cast<uint32_t>(seed));
        },
        nullptr,
        [&](std::size_t seed, const R& result) {
            if (done)
            {
                done(static_cast<uint32_t>(seed), result);
            }
        });
}

/**
 * \ingroup fl
 * One series of a figure over its seeds (FlRunSeeds), with the lines a figure program prints:
 * "run k/K: series" (and ", seed s/S (RngRun r)" with several seeds) before a seed, "  done: R
 * rounds in T s simulated, test accuracy A, loss L, disagreement D" after it. A seed that stopped
 * before `rounds` is reported on stderr and sets *incomplete. Throws std::runtime_error if a
 * seed reported no round; exceptions of `simulate` pass through.
 * @param index, total the series' place among the figure's series (printed k/K, k = index + 1)
 */
std::vector<std::vector<FlRoundSummary>> FlRunSeries(
    const std::string& series,
    std::size_t index,
    std::size_t total,
    uint32_t seeds,
    uint32_t rounds,
    const std::function<std::vector<FlRoundSummary>()>& simulate,
    std::ostream& os,
    bool* incomplete);

/**
 * Prints "    round r/T at t s" to `os` when an application reports round r (its ModelReport
 * trace), for every tenth of the T rounds (once per round). Connects to the applications that
 * exist when called; the connection lives as long as they do.
 */
void FlPrintRoundProgress(uint32_t rounds, std::ostream& os);

/**
 * \ingroup fl
 * fl::BuildSupervisedTask with its random generator seeded from an ns-3 stream (stream 2^20 of
 * UniformRandomVariable), so that --RngRun changes the data, the split and the initial model
 * and a run reproduces them. Throws fl::ConfigError on a bad setting.
 */
std::shared_ptr<fl::LearningTask> FlBuildTask(const fl::TaskSpec& spec);

/**
 * What utils/fl-sweep's merge writes in a row's last columns, for this program: its name (the
 * last part of argv[0]), its flags (argv[1..] joined by spaces, the program_flags column), the
 * module's ns-3 release ("3.42"; "unknown" if the build did not say) and the git commit given in
 * the environment variable FL_GIT_COMMIT ("unknown" without it).
 */
struct FlProgramProvenance
{
    fl::SweepProvenance provenance;
    std::string flags;
};

/// The provenance of the running program (see FlProgramProvenance).
FlProgramProvenance FlGetProgramProvenance(int argc, char* argv[]);

} // namespace ns3

#endif // FL_EXPERIMENT_HELPER_H
