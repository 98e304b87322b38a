/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Experiments in a user's own script, the ns-3 half (the pure half is model/runtime/
 * monte-carlo.h, Monte Carlo on the training pool, statistics over runs, ordering checks, and
 * model/runtime/sweep-grid.h, tidy CSV and the sweep grid of utils/fl-sweep): seeds through --RngRun, the tracker's long rows as
 * one summary per round, a progress line every tenth of the rounds, and the provenance of a
 * program's rows.
 */
#ifndef FL_EXPERIMENT_HELPER_H
#define FL_EXPERIMENT_HELPER_H

#include "ns3/monte-carlo.h"
#include "ns3/sweep-grid.h"
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
 * \ingroup fl-helper
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
 * \ingroup fl-helper
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
 * \ingroup fl-helper
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
 * \ingroup fl-helper
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
 * \ingroup fl-helper
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
 * \ingroup fl-helper
 * fl::BuildSupervisedTask with its random generator seeded from an ns-3 stream (stream 2^20 of
 * UniformRandomVariable), so that --RngRun changes the data, the split and the initial model
 * and a run reproduces them. Throws fl::ConfigError on a bad setting.
 */
std::shared_ptr<fl::LearningTask> FlBuildTask(const fl::TaskSpec& spec);

// ------------------------------------------------------------------------ figures over seeds

/**
 * \ingroup fl-helper
 * One series of a figure: its label (the CSV's and the orderings'), the ordering claim it
 * belongs to (the series of a group are claimed best first in the figure's order; empty: none)
 * and what the summary prints after the label in brackets (empty: nothing).
 */
struct FlFigureSeries
{
    std::string label;
    std::string group;
    std::string detail;
};

/// The rounds of every series at every seed: seeds[k][s] = series k at seed s (RngRun + s).
using FlFigureSeeds = std::vector<std::vector<std::vector<FlRoundSummary>>>;

/**
 * \ingroup fl-helper
 * Prints a figure's summary to `os`: one line per series, "  label [detail]: accuracy A,
 * worker accuracy W, disagreement D" (FlSummariseSeeds; mean +- 95 % CI over the seeds), then
 * "  ordering, group: verdict" for every group (fl::CheckOrderingGroups on the accuracies; an
 * inversion within the seeds' 95 % CI, or with one seed within two standard errors of an
 * accuracy on `accuracySamples` test samples, holds within noise).
 * @return the verdicts, one per group
 */
std::vector<fl::OrderingGroupResult> FlReportFigure(std::ostream& os,
                                                    const std::vector<FlFigureSeries>& series,
                                                    const FlFigureSeeds& seeds,
                                                    std::size_t accuracySamples);

/**
 * \ingroup fl-helper
 * The tidy rows a seed of a figure writes when it runs as one job of a sweep: a header, then
 * one row per (series, round): series_index, series, round, time_s, test_loss, test_accuracy,
 * worker_test_loss, worker_test_accuracy, disagreement, epsilon, every real at 17 significant
 * digits, so that FlReadSeedRows gives back the same doubles bit for bit (NaN as nan).
 * Throws std::invalid_argument unless every series has exactly one seed.
 */
void FlWriteSeedRows(std::ostream& csv,
                     const std::vector<FlFigureSeries>& series,
                     const FlFigureSeeds& seeds);

/**
 * \ingroup fl-helper
 * The rounds of every series at the run numbers firstRun .. firstRun + seeds - 1 from the text
 * of utils/fl-sweep's merged CSV (fl::MergeSweepCsv) of jobs that wrote FlWriteSeedRows: the
 * rng_run column gives the seed. Throws std::runtime_error naming the series and the run number
 * if a series has no rows at a run, a row's label is not its series' (another figure's sweep),
 * or a column is missing or not a number.
 */
FlFigureSeeds FlReadSeedRows(const std::string& mergedCsv,
                             const std::vector<FlFigureSeries>& series,
                             uint32_t firstRun,
                             uint32_t seeds);

/**
 * \ingroup fl-helper
 * How a figure program runs its seeds (its flags --engine, --sweepDir, --sweepTool,
 * --sweepJobs, --slurmTime, --slurmMem and --seedJob).
 */
struct FlFigureEngine
{
    /// process (every seed in this process, one after the other), or serial, parallel (GNU
    /// parallel) or slurm: one job per seed run by utils/fl-sweep with that engine
    std::string engine{"process"};
    std::string sweepDir;  ///< the sweep directory (empty: the figure CSV's path + ".sweep")
    std::string sweepTool; ///< utils/fl-sweep (empty: FlFigureRunner::DefaultSweepTool())
    uint32_t jobs{0};      ///< parallel: jobs at once (0: fl-sweep's default, every core)
    std::string slurmTime; ///< slurm: time limit per job (empty: fl-sweep's default)
    std::string slurmMem;  ///< slurm: memory per job (empty: fl-sweep's default)
    /// set by the runner in the jobs it starts: this process is one seed of a figure whose
    /// first run number is seedJob (0: not a job)
    uint32_t seedJob{0};
};

/**
 * \ingroup fl-helper
 * Runs the series of a figure over its seeds, in this process or as one job per seed through
 * utils/fl-sweep (serial, GNU parallel or Slurm), and gives back the same rounds either way, so
 * that the figure's statistics (FlRoundStatisticsOverSeeds, FlReportFigure) and its CSV are the
 * same bytes whatever the engine.
 *
 * With an engine other than process, Run writes the grid sweepDir/grid.txt: the program itself
 * (this executable), runs RngRun .. RngRun + seeds - 1, and fixed: the program's own flags
 * without the runner's, --runs and --output, plus --runs=1 --seedJob=RngRun; it runs
 * `fl-sweep run grid.txt --dir sweepDir --engine E`, waits, and reads the seeds from
 * sweepDir/merged.csv. Each job (seedJob > 0) runs its one seed of every series at its RngRun
 * with the draws shared by the seeds (the data split: AtSharedRun) made at seedJob, as the
 * process engine makes them at RngRun, and writes FlWriteSeedRows to its --output. The sweep
 * resumes: a rerun with the same sweep directory runs only the jobs not finished. A flag value
 * that names an existing file or folder relative to the current directory is passed to the jobs
 * as an absolute path (jobs run in the sweep directory).
 */
class FlFigureRunner
{
  public:
    /**
     * @param engine the engine flags
     * @param output the figure CSV (in a job: where its seed rows go)
     * @param argc, argv the program's command line (the jobs get its flags)
     */
    FlFigureRunner(FlFigureEngine engine, std::string output, int argc, char* argv[]);

    /// utils/fl-sweep in the module's source tree (as configured by CMake).
    static std::string DefaultSweepTool();

    /// The flags of FlFigureEngine (without --), which the jobs do not get.
    static const std::vector<std::string>& FlagNames();

    /**
     * Throws fl::ConfigError naming the flag and the fix for: an unknown engine, a sweep tool
     * that is missing or not executable (with an engine other than process), --slurmTime or
     * --slurmMem without --engine=slurm, --sweepJobs without --engine=parallel, --sweepDir or
     * --sweepTool with the process engine, a sweep directory that cannot be created, a
     * --seedJob with another engine or with `seeds` != 1.
     */
    static void Check(const FlFigureEngine& engine, uint32_t seeds);

    /// True in a job started by the runner (seedJob > 0).
    bool IsJob() const;

    /// The run number of the draws shared by the seeds: seedJob in a job, else RngRun.
    uint32_t SharedRun() const;

    /// Calls f() with ns-3's run number set to SharedRun(), restored afterwards.
    void AtSharedRun(const std::function<void()>& f) const;

    /// The sweep directory (engine other than process).
    const std::string& SweepDir() const;

    /**
     * The series over `seeds` seeds: seeds[k][s] = series k at RngRun + s. Process engine:
     * FlRunSeries for each series, done(k, seeds[k]) after it. Job: one seed of every series,
     * its rows written to the output (FlWriteSeedRows); done is not called. Other engines: the
     * sweep (see the class), then done(k, seeds[k]) for every series. A seed that stopped
     * before `rounds` is reported on stderr and sets *incomplete.
     * Throws fl::ConfigError if fl-sweep refuses the grid (status 2), std::runtime_error if a
     * job failed or is not finished (Slurm: rerun the same command later); exceptions of
     * `simulate` pass through.
     */
    FlFigureSeeds Run(
        const std::vector<FlFigureSeries>& series,
        uint32_t seeds,
        uint32_t rounds,
        const std::function<std::vector<FlRoundSummary>(std::size_t k)>& simulate,
        std::ostream& os,
        bool* incomplete,
        const std::function<void(std::size_t k, const std::vector<std::vector<FlRoundSummary>>&)>&
            done = {}) const;

    /**
     * The sweep alone (engine other than process): writes sweepDir/grid.txt (GridText), prints
     * "figure: <what> as <seeds> jobs (one per seed) of <command>" to `os`, runs
     * SweepCommand() and waits, and returns the text of sweepDir/merged.csv, the rows every job
     * wrote to its --output with the rng_run column first (fl::MergeSweepCsv's format). Run
     * uses it with FlReadSeedRows; a figure whose jobs write other rows (e.g.
     * fl::WriteMonteCarloRunRows) reads them with its own function. Throws as Run does.
     */
    std::string RunSweep(uint32_t seeds, const std::string& what, std::ostream& os) const;

    /// The grid of the sweep over `seeds` seeds (utils/fl-sweep's format; see the class).
    std::string GridText(uint32_t seeds) const;

    /// The command that runs the sweep (the tool first).
    std::vector<std::string> SweepCommand() const;

    /// "# provenance: ..." (where the seeds ran) with an engine other than process, else "".
    std::string ProvenanceLine() const;

  private:
    FlFigureEngine m_engine;
    std::string m_output;
    std::string m_program;            ///< this executable, absolute
    std::vector<std::string> m_flags; ///< the program's flags as given
    uint32_t m_run;                   ///< RngRun when constructed
};

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
