/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Monte Carlo in a user's own script, pure (no ns-3 header): Monte-Carlo runs over seeds on the
 * training pool (results independent of the number of threads), statistics over the runs per
 * round, the ordering check of the figure programs ("series A above series B over rounds
 * r1..r2", checked and printed), Monte-Carlo series of several variants with common random
 * numbers and claims on their steady-state levels, and a run's series as the rows of a sweep job
 * (their merge back). Tidy CSV and the sweep grid of utils/fl-sweep are sweep-grid.h; the ns-3
 * half (seeds through --RngRun, the tracker's rows per round, the program's provenance) is
 * helper/fl-experiment-helper.h.
 */
#ifndef FL_MONTE_CARLO_H
#define FL_MONTE_CARLO_H

#include "ns3/metrics.h"
#include "ns3/thread-pool.h"

#include <Eigen/Core>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <iomanip>
#include <map>
#include <memory>
#include <mutex>
#include <ostream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace ns3
{
namespace fl
{

// ------------------------------------------------------------------------------ Monte Carlo

/**
 * Runs `run(i)` for i = 0 .. runs - 1 and returns the results in that order. With a pool
 * (e.g. TrainingPool()) the runs go in parallel and `done(i, result)` is called in the order
 * 0, 1, 2, ... from the calling thread's side of fl::OrderedParallelFor, so that what it prints
 * or adds up is that of the serial loop for any number of threads; without one (nullptr: every
 * run of an ns-3 simulation, whose simulator is one per process) they go one after the other.
 * `run` must draw its randomness from its index only (a seed derived from i), never from a
 * shared generator. An exception of run(i) is rethrown after the runs before i are done.
 */
template <typename R>
std::vector<R>
MonteCarlo(std::size_t runs,
           const std::function<R(std::size_t)>& run,
           ThreadPool* pool = nullptr,
           const std::function<void(std::size_t, const R&)>& done = {})
{
    std::vector<R> results(runs);
    if (!pool)
    {
        for (std::size_t i = 0; i < runs; ++i)
        {
            results[i] = run(i);
            if (done)
            {
                done(i, results[i]);
            }
        }
        return results;
    }
    OrderedParallelFor(
        *pool,
        runs,
        [&](std::size_t i) { results[i] = run(i); },
        [&](std::size_t i) {
            if (done)
            {
                done(i, results[i]);
            }
        });
    return results;
}

/**
 * Mean and 95 % confidence half-width (MeanCi95) over the runs at every index (round) that every
 * run reached: element r summarises runs[0][r], runs[1][r], ...; the result has the length of
 * the shortest run.
 */
std::vector<MeanCi> MeanCiPerIndex(const std::vector<std::vector<double>>& runs);

/// The mean of values[first..last] (inclusive, clipped to the values); NaN if that is empty.
double WindowMean(const std::vector<double>& values, std::size_t first, std::size_t last);

/**
 * The mean over the last `1/divisor` of a run's rounds: values[0] is round 0 (the initial model),
 * so the last max(1, (values.size() - 1) / divisor) values. The figure programs rank a run by
 * the accuracy over its last tenth (divisor 10), which smooths the round-to-round noise.
 */
double TailMean(const std::vector<double>& values, std::size_t divisor);

// ------------------------------------------------------------------------------- orderings

/// One series of an ordering claim: its label and its value over the runs (mean, 95 % CI).
struct OrderingEntry
{
    std::string label;
    MeanCi value;
};

/// Verdict on a claimed order.
enum class OrderingVerdict
{
    Holds,            ///< the means are in the claimed order
    HoldsWithinNoise, ///< every inversion is smaller than its noise
    DoesNotHold       ///< an inversion is larger than its noise
};

/// The verdict of CheckOrdering and the line it prints.
struct OrderingResult
{
    OrderingVerdict verdict{OrderingVerdict::Holds};
    std::string text; ///< "a (0.81) >= b (0.79): holds", as printed by FormatOrdering
};

/**
 * Checks the claim "entries[0] >= entries[1] >= ..." (best first, larger is better) on the
 * means. An inversion (a later mean above the one before) is within noise if it is at most the
 * 95 % CI of the difference, sqrt(h_a^2 + h_b^2) from the two half-widths; when either side has
 * one run and `accuracySamples` > 0 the noise is two standard errors of an accuracy p measured on
 * that many test samples, 2 sqrt(p (1 - p) / m) with p the earlier mean (else 0: any inversion
 * fails).
 * @return the verdict and the text "  a (m_a) >= b (m_b) ...: holds | holds within noise (95 %
 *         CI) | holds within noise (2 standard errors) | does not hold"
 */
OrderingResult CheckOrdering(const std::vector<OrderingEntry>& entries,
                             std::size_t accuracySamples = 0);

/// The verdict of one group of CheckOrderingGroups.
struct OrderingGroupResult
{
    std::string group;
    OrderingResult result;
};

/**
 * Checks several claims at once: series k belongs to the claim groups[k] (empty: to none) and
 * the series of a group are claimed in their order in `entries` (best first). Groups come out in
 * the order of their names; each is checked by CheckOrdering.
 */
std::vector<OrderingGroupResult> CheckOrderingGroups(const std::vector<std::string>& groups,
                                                     const std::vector<OrderingEntry>& entries,
                                                     std::size_t accuracySamples = 0);

/// "0.652 +- 0.004": a mean at 4 significant digits and, for more than one run, the 95 %
/// half-width at 2.
std::string FormatMeanCi(const MeanCi& m);

/**
 * The claim "series A above series B over rounds r1..r2": every run's mean over those rounds
 * (WindowMean), then their mean and 95 % CI over the runs, checked by CheckOrdering.
 * @param a, b the runs of each series, one vector of per-round values per run (index = round)
 */
OrderingResult CheckAboveOverRounds(const std::string& labelA,
                                    const std::vector<std::vector<double>>& a,
                                    const std::string& labelB,
                                    const std::vector<std::vector<double>>& b,
                                    std::size_t r1,
                                    std::size_t r2,
                                    std::size_t accuracySamples = 0);

// ----------------------------------------------------------- Monte-Carlo series of variants

/**
 * The Monte-Carlo sums of one variant of an experiment: per metric, the sum over the runs of the
 * value each run reported at index i (an iteration or round), and the sum of its squares, so
 * that the mean (sums / runs, what the figure programs write) and a 95 % confidence interval
 * come out at every index without keeping the runs. A run reports at most one value per
 * (metric, index); runs of different lengths leave the later indices with fewer terms, which
 * Mean divides by `runs` all the same (the figure programs' runs all have the same length).
 */
struct MonteCarloSeries
{
    std::map<std::string, std::vector<double>> sums;       ///< metric -> sum over the runs
    std::map<std::string, std::vector<double>> sumSquares; ///< metric -> sum of the squares
    uint32_t runs{0};                                      ///< runs merged in
    /// metric -> what its number means (e.g. an epsilon's guarantee), written as CSV comments
    std::map<std::string, std::string> statements;

    /// Adds `value` (and its square) at `index` of `metric`, growing the vectors with zeros.
    void Add(const std::string& metric, std::size_t index, double value);

    /**
     * Merges another series into this one: its sums and squares index by index (the longer
     * length kept) and its run count; call with a one-run series after every run. Statements
     * are not copied (they describe the variant, not a run).
     */
    void Merge(const MonteCarloSeries& other);

    /// The mean over the runs at `index`: sums[metric][index] / runs.
    double Mean(const std::string& metric, std::size_t index) const;

    /**
     * Mean and 95 % confidence half-width over the runs at `index` (as fl::MeanCi95 of the
     * runs' values: t_{0.975, n-1} s / sqrt(n), s from the sums of squares; NaN for one run).
     */
    MeanCi MeanCiAt(const std::string& metric, std::size_t index) const;

    /**
     * The steady-state level of a metric: the mean over the runs, averaged over the last quarter
     * of the indices (at least the last one). Throws ConfigError if the metric is missing or
     * empty.
     */
    double SteadyState(const std::string& metric) const;
};

/// Variant name -> its Monte-Carlo series (a figure's results; ordered by name).
using MonteCarloSeriesMap = std::map<std::string, MonteCarloSeries>;

/**
 * Runs `runs` Monte-Carlo runs of every variant with common random numbers: `makeRun(run)` builds
 * what the variants of a run share (data, graph, local work), `body(setup, v, run, series, os)`
 * runs variant v of it and adds what it measures to `series` (one run's series, runs = 1,
 * merged into out[keys[v]] afterwards) and its progress lines to `os`. After each (run,
 * variant) the line "  <key> run <run+1>: <wall> s wall" follows its lines on `os`.
 *
 * With a pool (e.g. TrainingPool()) the (run, variant) pairs run in parallel, each into its own
 * series and buffered lines, which are merged and printed in run order, then variant order, as
 * they complete (fl::OrderedParallelFor): the sums and the text are those of one thread for any
 * number of threads. A run's shared part is built by the first of its variants to start and
 * freed after the last one ends; Eigen's own threads are turned off (the runs are the
 * parallelism). Without a pool (nullptr: every ns-3 simulation, whose simulator is one per
 * process) the runs go one after the other and their lines are printed as they happen. Every
 * key has its series in `out` afterwards. An exception of `body` passes through.
 */
template <typename Setup>
void
MonteCarloVariants(uint32_t runs,
                   const std::vector<std::string>& keys,
                   MonteCarloSeriesMap& out,
                   const std::function<Setup(uint32_t run)>& makeRun,
                   const std::function<void(const Setup& setup,
                                            std::size_t variant,
                                            uint32_t run,
                                            MonteCarloSeries& series,
                                            std::ostream& os)>& body,
                   ThreadPool* pool,
                   std::ostream& os)
{
    const std::size_t V = keys.size();
    for (const auto& key : keys)
    {
        out[key]; // every variant has its series, also if a run fails
    }
    const auto wallLine = [&keys](std::ostream& to, std::size_t v, uint32_t run, double wall) {
        std::ostringstream s;
        s << std::fixed << std::setprecision(3) << wall;
        to << "  " << keys[v] << " run " << run + 1 << ": " << s.str() << " s wall" << std::endl;
    };
    if (!pool)
    {
        for (uint32_t run = 0; run < runs; ++run)
        {
            const Setup setup = makeRun(run);
            for (std::size_t v = 0; v < V; ++v)
            {
                MonteCarloSeries mine;
                mine.runs = 1;
                const auto t0 = std::chrono::steady_clock::now();
                body(setup, v, run, mine, os);
                out[keys[v]].Merge(mine);
                wallLine(
                    os,
                    v,
                    run,
                    std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
            }
        }
        return;
    }

    struct Shared
    {
        std::once_flag built;
        std::unique_ptr<Setup> setup;
        std::atomic<std::size_t> pending{0}; ///< variants of the run not finished yet
    };

    struct Slot
    {
        MonteCarloSeries series;
        std::ostringstream lines;
        double wallSeconds{0.0};
    };

    std::vector<Shared> shared(runs);
    for (auto& s : shared)
    {
        s.pending = V;
    }
    std::vector<Slot> slots(static_cast<std::size_t>(runs) * V);
    Eigen::setNbThreads(1); // the runs are the parallelism; Eigen's own threads would compete
    OrderedParallelFor(
        *pool,
        slots.size(),
        [&](std::size_t i) {
            const auto run = static_cast<uint32_t>(i / V);
            const std::size_t v = i % V;
            Shared& s = shared[run];
            std::call_once(s.built, [&]() { s.setup = std::make_unique<Setup>(makeRun(run)); });
            Slot& slot = slots[i];
            slot.series.runs = 1;
            const auto t0 = std::chrono::steady_clock::now();
            try
            {
                body(*s.setup, v, run, slot.series, slot.lines);
            }
            catch (...)
            {
                if (--s.pending == 0)
                {
                    s.setup.reset();
                }
                throw;
            }
            slot.wallSeconds =
                std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
            if (--s.pending == 0)
            {
                s.setup.reset(); // the run's last variant: its data go
            }
        },
        [&](std::size_t i) {
            Slot& slot = slots[i];
            out[keys[i % V]].Merge(slot.series);
            slot.series = MonteCarloSeries{};
            os << slot.lines.str();
            wallLine(os, i % V, static_cast<uint32_t>(i / V), slot.wallSeconds);
            slot.lines = std::ostringstream{};
        });
}

/**
 * One Monte-Carlo run of a figure as the tidy rows a job of a sweep writes (one job per run):
 * a header run,variant,metric,index,sum,sum_square, then one row per (variant, metric, index) of
 * `run` (variants and metrics in map order, every index of the vectors, also the zeros a run left
 * between its reports), the reals at 17 significant digits so that MergeMonteCarloRunRows gives
 * back the same doubles bit for bit (NaN as nan or -nan). Throws std::invalid_argument naming
 * the variant unless every series holds exactly one run and at least one metric, or if a
 * series' sums and squares of a metric differ in length.
 * @param runIndex the run's index in the figure's Monte Carlo (the run column)
 */
void WriteMonteCarloRunRows(std::ostream& csv, const MonteCarloSeriesMap& run, uint32_t runIndex);

/**
 * Merges the runs firstRun .. firstRun + runs - 1 of utils/fl-sweep's merged CSV (MergeSweepCsv)
 * of jobs that wrote WriteMonteCarloRunRows into `out`, as MonteCarloVariants merges them in
 * process: for each run in run order (whatever the order of the rows), a one-run series per
 * variant of `out`, MonteCarloSeries::Merge'd into it, so that the sums are the same bits. The
 * rng_run column minus firstRun is the run index; `out` holds the figure's variants (and their
 * statements) beforehand, e.g. from the figure run with zero runs. Rows of other run numbers are
 * ignored. Throws std::runtime_error naming the variant and the run if a variant of `out` has no
 * row at a run (its job did not finish), a row's variant is not one of `out` (another figure's
 * sweep), a row's run column is not its rng_run minus firstRun, an (variant, metric, index)
 * repeats, or a column is missing or not a number.
 */
void MergeMonteCarloRunRows(const std::string& mergedCsv,
                            MonteCarloSeriesMap& out,
                            uint32_t firstRun,
                            uint32_t runs);

// ------------------------------------------------------------------------ level claims

/// How two steady-state levels of a claim compare.
enum class LevelClaimKind
{
    Below, ///< a + margin <= b (e.g. "a below b by >= 3 dB"; margin 0: a <= b)
    Within ///< |a - b| <= margin (e.g. "a within 1 dB of b")
};

/**
 * A figure's claim on two series' steady-state levels of one metric, as data: "a below b by >=
 * margin" or "a within margin of b". The figure programs keep their claims in lists and check
 * them with CheckLevelClaim.
 */
struct LevelClaim
{
    LevelClaimKind kind{LevelClaimKind::Below};
    std::string a;      ///< the series claimed lower (Below) or close (Within)
    std::string b;      ///< the series it is compared with
    std::string metric; ///< the metric of both
    double margin{0.0}; ///< in the unit of the levels (dB for the MSD)
};

/**
 * Checks a LevelClaim on the levels of its two series. Below is the ordering "b >= a + margin"
 * checked by CheckOrdering on the two levels (one value each, so any inversion fails); Within
 * holds if |levelA - levelB| <= margin. A NaN level fails either claim.
 * @param unit printed after each level and the margin (" dB", or "" for a test error)
 * @param precision decimals of the printed levels
 * @return the verdict (Holds or DoesNotHold) and the text "a (x dB) below b (y dB) by >= m dB:
 *         holds" or "a (x dB) within m dB of b (y dB): does NOT hold"
 */
OrderingResult CheckLevelClaim(const LevelClaim& claim,
                               double levelA,
                               double levelB,
                               const std::string& unit = " dB",
                               int precision = 2);

} // namespace fl
} // namespace ns3

#endif // FL_MONTE_CARLO_H
