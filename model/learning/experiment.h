/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Experiments in a user's own script, the pure half: Monte-Carlo runs over seeds on the training
 * pool (results independent of the number of threads), statistics over the runs per round, the
 * ordering check of the figure programs ("series A above series B over rounds r1..r2", checked
 * and printed), tidy CSV fields, and the sweep grid of utils/fl-sweep (the same text format, the
 * same expansion, the same merged CSV with provenance columns). No ns-3 header here; the ns-3
 * half (seeds through --RngRun, the tracker's rows per round, the program's provenance) is
 * helper/fl-experiment.h.
 */
#ifndef FL_EXPERIMENT_H
#define FL_EXPERIMENT_H

#include "metrics.h"
#include "thread-pool.h"

#include <cstdint>
#include <functional>
#include <iosfwd>
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

// ------------------------------------------------------------------------------- tidy CSV

/**
 * One CSV record as Python's csv module writes it (QUOTE_MINIMAL, utils/fl-sweep's merge): a
 * field is quoted if it holds a comma, a double quote, a CR or a LF (inner quotes doubled), and
 * a record of one empty field is written "". Ends with '\n'.
 */
void WriteCsvRecord(std::ostream& os, const std::vector<std::string>& fields);

/**
 * Splits the CSV text into records (RFC 4180: quoted fields may hold commas, doubled quotes and
 * line breaks); lines starting with '#' outside a quoted field are the project's comment lines
 * and are skipped. A CR before LF is dropped.
 */
std::vector<std::vector<std::string>> ReadCsvRecords(const std::string& text);

// ------------------------------------------------------------------------------- sweep grid

/// A swept flag: its name (without --), its values and the grid line that gave it.
struct SweepFlag
{
    std::string name;
    std::vector<std::string> values;
    std::string where;
};

/**
 * A grid in utils/fl-sweep's text format, one directive a line, '#' starts a comment, words
 * split as a POSIX shell does:
 *     program fl-fedavg-wifi          the program
 *     flag clients 10 20 30           a swept flag and its values
 *     runs 1..5                       the --RngRun values: ranges a..b and/or single values
 *     fixed --rounds=5 --quiet        flags given to every job as they are
 */
struct SweepGrid
{
    std::string program;
    std::vector<SweepFlag> flags;
    std::vector<uint32_t> runs; ///< empty in the text: {1}
    std::vector<std::string> fixed;
};

/**
 * Parses a grid; `source` names it in errors ("grid.txt" gives "grid.txt:3"). Throws ConfigError
 * naming the line and the fix for what utils/fl-sweep refuses: an unknown directive, a second
 * program or runs line, a flag given twice or with a repeated value, a flag the runner sets itself
 * (output, RngRun, checkFlags, help, PrintHelp), a bad run number or range, no program.
 */
SweepGrid ParseSweepGrid(const std::string& text, const std::string& source);

/// Reads and parses a grid file (ConfigError naming the file if it cannot be read).
SweepGrid ReadSweepGrid(const std::string& path);

/// One job of a grid: the swept flags' values (grid order) and the --RngRun value.
struct SweepPoint
{
    std::vector<std::pair<std::string, std::string>> flags;
    uint32_t run{1};

    /// The job's command-line flags as utils/fl-sweep passes them: --name=value for the swept
    /// flags, the fixed flags, then --RngRun=run (the runner adds --output).
    std::vector<std::string> Args(const SweepGrid& grid) const;
};

/// Every point of the grid in utils/fl-sweep's order: every combination of the flags' values
/// (the first flag slowest), each for every run.
std::vector<SweepPoint> ExpandSweepGrid(const SweepGrid& grid);

/// Where a merged row comes from (utils/fl-sweep's last columns).
struct SweepProvenance
{
    std::string program;              ///< the program's name
    std::string gitCommit{"unknown"}; ///< the commit of the sources, "-dirty" if changed
    std::string ns3Version{"unknown"};
};

/// One finished job: its point, its full flags (the program_flags column) and its CSV text.
struct SweepJobResult
{
    SweepPoint point;
    std::string programFlags;
    std::string csv;
};

/**
 * utils/fl-sweep's merge: one CSV with the grid's flags and rng_run first (prefixed flag_ if a
 * name clashes with a column of the jobs' CSV), then the job's columns, then program,
 * program_flags, git_commit, ns3_version; one row per data row of every job, jobs in the order
 * given. Jobs with an empty CSV are skipped; a job whose header differs from the first one's
 * throws ConfigError naming the job. Comment lines ('#') are not data rows.
 * @return the number of data rows written
 */
std::size_t MergeSweepCsv(const SweepGrid& grid,
                          const std::vector<SweepJobResult>& jobs,
                          const SweepProvenance& provenance,
                          std::ostream& out);

} // namespace fl
} // namespace ns3

#endif // FL_EXPERIMENT_H
