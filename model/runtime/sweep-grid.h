/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Tidy CSV records (as Python's csv module writes and reads them) and the sweep grid of
 * utils/fl-sweep (the same text format, the same expansion, the same merged CSV with provenance
 * columns), pure (no ns-3 header). Monte Carlo over seeds is monte-carlo.h.
 */
#ifndef FL_SWEEP_GRID_H
#define FL_SWEEP_GRID_H

#include <cstddef>
#include <cstdint>
#include <map>
#include <ostream>
#include <string>
#include <vector>

namespace ns3
{
namespace fl
{

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

/**
 * Whether two CSV files hold the same records (ReadCsvRecords: comment lines skipped) once the
 * records whose field `column` contains `measured` (e.g. "wall": what a run measures of the
 * host, not of the experiment) are left out; false if either file has no record left.
 */
bool SameCsvRecordsExcept(const std::string& pathA,
                          const std::string& pathB,
                          std::size_t column,
                          const std::string& measured);

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

#endif // FL_SWEEP_GRID_H
