/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ns3/monte-carlo.h"

#include "ns3/fl-types.h"
#include "ns3/sweep-grid.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <iomanip>
#include <limits>
#include <map>
#include <ostream>
#include <set>
#include <sstream>
#include <stdexcept>

namespace ns3
{
namespace fl
{

std::vector<MeanCi>
MeanCiPerIndex(const std::vector<std::vector<double>>& runs)
{
    std::size_t length = runs.empty() ? 0 : std::numeric_limits<std::size_t>::max();
    for (const auto& r : runs)
    {
        length = std::min(length, r.size());
    }
    std::vector<MeanCi> out;
    out.reserve(length);
    std::vector<double> column(runs.size());
    for (std::size_t i = 0; i < length; ++i)
    {
        for (std::size_t k = 0; k < runs.size(); ++k)
        {
            column[k] = runs[k][i];
        }
        out.push_back(MeanCi95(column));
    }
    return out;
}

double
WindowMean(const std::vector<double>& values, std::size_t first, std::size_t last)
{
    if (values.empty() || first > last || first >= values.size())
    {
        return std::nan("");
    }
    last = std::min(last, values.size() - 1);
    double sum = 0.0;
    for (std::size_t i = first; i <= last; ++i)
    {
        sum += values[i];
    }
    return sum / static_cast<double>(last - first + 1);
}

double
TailMean(const std::vector<double>& values, std::size_t divisor)
{
    if (values.empty() || divisor == 0)
    {
        return std::nan("");
    }
    const std::size_t k = std::max<std::size_t>(1, (values.size() - 1) / divisor);
    return WindowMean(values, values.size() - k, values.size() - 1);
}

std::string
FormatMeanCi(const MeanCi& m)
{
    std::ostringstream os;
    os << std::setprecision(4) << m.mean;
    if (m.n > 1)
    {
        os << " +- " << std::setprecision(2) << m.halfWidth;
    }
    return os.str();
}

OrderingResult
CheckOrdering(const std::vector<OrderingEntry>& entries, std::size_t accuracySamples)
{
    OrderingResult result;
    bool ciNoise = false;
    std::ostringstream os;
    for (std::size_t j = 0; j < entries.size(); ++j)
    {
        const MeanCi& now = entries[j].value;
        os << (j ? " >= " : "") << entries[j].label << " (" << FormatMeanCi(now) << ")";
        if (j == 0 || !(now.mean > entries[j - 1].value.mean))
        {
            continue;
        }
        const MeanCi& before = entries[j - 1].value;
        const double p = before.mean;
        const bool bothCi = before.n > 1 && now.n > 1;
        const double noise =
            bothCi ? std::sqrt(before.halfWidth * before.halfWidth + now.halfWidth * now.halfWidth)
            : accuracySamples ? 2.0 * std::sqrt(p * (1.0 - p) / accuracySamples)
                              : 0.0;
        if (now.mean - p > noise)
        {
            result.verdict = OrderingVerdict::DoesNotHold;
        }
        else if (result.verdict == OrderingVerdict::Holds)
        {
            result.verdict = OrderingVerdict::HoldsWithinNoise;
            ciNoise = now.n > 1;
        }
    }
    os << ": "
       << (result.verdict == OrderingVerdict::Holds ? "holds"
           : result.verdict == OrderingVerdict::DoesNotHold
               ? "does not hold"
               : (ciNoise ? "holds within noise (95 % CI)"
                          : "holds within noise (2 standard errors)"));
    result.text = os.str();
    return result;
}

std::vector<OrderingGroupResult>
CheckOrderingGroups(const std::vector<std::string>& groups,
                    const std::vector<OrderingEntry>& entries,
                    std::size_t accuracySamples)
{
    if (groups.size() != entries.size())
    {
        throw ConfigError("groups",
                          std::to_string(groups.size()) + " groups for " +
                              std::to_string(entries.size()) + " series",
                          "give one group (or an empty one) per series");
    }
    std::map<std::string, std::vector<OrderingEntry>> byGroup;
    for (std::size_t k = 0; k < groups.size(); ++k)
    {
        if (!groups[k].empty())
        {
            byGroup[groups[k]].push_back(entries[k]);
        }
    }
    std::vector<OrderingGroupResult> out;
    for (const auto& [group, members] : byGroup)
    {
        out.push_back({group, CheckOrdering(members, accuracySamples)});
    }
    return out;
}

OrderingResult
CheckAboveOverRounds(const std::string& labelA,
                     const std::vector<std::vector<double>>& a,
                     const std::string& labelB,
                     const std::vector<std::vector<double>>& b,
                     std::size_t r1,
                     std::size_t r2,
                     std::size_t accuracySamples)
{
    if (r1 > r2)
    {
        throw ConfigError("rounds",
                          "the window " + std::to_string(r1) + ".." + std::to_string(r2) +
                              " is empty",
                          "give r1 <= r2");
    }
    const auto summarise = [r1, r2](const std::vector<std::vector<double>>& runs) {
        std::vector<double> means;
        for (const auto& run : runs)
        {
            means.push_back(WindowMean(run, r1, r2));
        }
        return MeanCi95(means);
    };
    const std::string window = " over rounds " + std::to_string(r1) + ".." + std::to_string(r2);
    return CheckOrdering({{labelA + window, summarise(a)}, {labelB, summarise(b)}},
                         accuracySamples);
}

// ----------------------------------------------------------- Monte-Carlo series of variants

void
MonteCarloSeries::Add(const std::string& metric, std::size_t index, double value)
{
    auto& sum = sums[metric];
    auto& squares = sumSquares[metric];
    if (sum.size() <= index)
    {
        sum.resize(index + 1, 0.0);
    }
    if (squares.size() <= index)
    {
        squares.resize(index + 1, 0.0);
    }
    sum[index] += value;
    squares[index] += value * value;
}

void
MonteCarloSeries::Merge(const MonteCarloSeries& other)
{
    const auto addInto = [](std::map<std::string, std::vector<double>>& into,
                            const std::map<std::string, std::vector<double>>& from) {
        for (const auto& [metric, v] : from)
        {
            auto& sum = into[metric];
            if (sum.size() < v.size())
            {
                sum.resize(v.size(), 0.0);
            }
            for (std::size_t i = 0; i < v.size(); ++i)
            {
                sum[i] += v[i];
            }
        }
    };
    addInto(sums, other.sums);
    addInto(sumSquares, other.sumSquares);
    runs += other.runs;
}

namespace
{

/// The values of `metric` in `s`, or ConfigError naming it.
const std::vector<double>&
SeriesValues(const std::map<std::string, std::vector<double>>& s,
             const std::string& metric,
             std::size_t index)
{
    const auto it = s.find(metric);
    if (it == s.end() || it->second.size() <= index)
    {
        throw ConfigError("metric",
                          "'" + metric + "' has no value at index " + std::to_string(index),
                          "ask for a metric the runs reported, at an index they reached");
    }
    return it->second;
}

} // namespace

double
MonteCarloSeries::Mean(const std::string& metric, std::size_t index) const
{
    return SeriesValues(sums, metric, index)[index] / runs;
}

MeanCi
MonteCarloSeries::MeanCiAt(const std::string& metric, std::size_t index) const
{
    MeanCi r;
    r.n = runs;
    r.mean = Mean(metric, index);
    if (runs < 2)
    {
        r.halfWidth = std::numeric_limits<double>::quiet_NaN();
        return r;
    }
    const double n = runs;
    const double ss = SeriesValues(sumSquares, metric, index)[index] - n * r.mean * r.mean;
    const double sd = std::sqrt(std::max(0.0, ss) / (n - 1.0));
    r.halfWidth = StudentT975(runs - 1) * sd / std::sqrt(n);
    return r;
}

double
MonteCarloSeries::SteadyState(const std::string& metric) const
{
    const auto it = sums.find(metric);
    if (it == sums.end() || it->second.empty())
    {
        throw ConfigError("metric",
                          "'" + metric + "' has no values",
                          "ask for a metric the runs reported");
    }
    const auto& v = it->second;
    const std::size_t from = v.size() - std::max<std::size_t>(1, v.size() / 4);
    double sum = 0.0;
    for (std::size_t i = from; i < v.size(); ++i)
    {
        sum += v[i] / runs;
    }
    return sum / static_cast<double>(v.size() - from);
}

namespace
{

/// A double at 17 significant digits (strtod reads back the same bits).
std::string
ExactReal(double x)
{
    std::ostringstream os;
    os << std::setprecision(std::numeric_limits<double>::max_digits10) << x;
    return os.str();
}

/// `text` as a double (strtod: also nan, -nan, inf); throws naming the column if it is not one.
double
RunRowNumber(const std::string& text, const std::string& column, std::size_t row)
{
    char* end = nullptr;
    const double x = std::strtod(text.c_str(), &end);
    if (text.empty() || end != text.c_str() + text.size())
    {
        throw std::runtime_error("merged run rows: row " + std::to_string(row) + ", column " +
                                 column + ": '" + text + "' is not a number");
    }
    return x;
}

/// `text` as a whole number >= 0 (the run, rng_run and index columns).
uint64_t
RunRowWhole(const std::string& text, const std::string& column, std::size_t row)
{
    const double x = RunRowNumber(text, column, row);
    if (!(x >= 0.0 && x == std::floor(x) && x < 9.0e15))
    {
        throw std::runtime_error("merged run rows: row " + std::to_string(row) + ", column " +
                                 column + ": '" + text + "' is not a whole number >= 0");
    }
    return static_cast<uint64_t>(x);
}

} // namespace

void
WriteMonteCarloRunRows(std::ostream& csv, const MonteCarloSeriesMap& run, uint32_t runIndex)
{
    WriteCsvRecord(csv, {"run", "variant", "metric", "index", "sum", "sum_square"});
    for (const auto& [variant, s] : run)
    {
        if (s.runs != 1)
        {
            throw std::invalid_argument("WriteMonteCarloRunRows: variant '" + variant + "' holds " +
                                        std::to_string(s.runs) + " runs; a job writes one");
        }
        if (s.sums.empty())
        {
            throw std::invalid_argument("WriteMonteCarloRunRows: variant '" + variant +
                                        "' has no metric (its rows could not be told from a "
                                        "job that did not finish)");
        }
        for (const auto& [metric, sums] : s.sums)
        {
            const auto squares = s.sumSquares.find(metric);
            if (squares == s.sumSquares.end() || squares->second.size() != sums.size())
            {
                throw std::invalid_argument("WriteMonteCarloRunRows: variant '" + variant +
                                            "', metric '" + metric +
                                            "': sums and squares differ in length");
            }
            for (std::size_t i = 0; i < sums.size(); ++i)
            {
                WriteCsvRecord(csv,
                               {std::to_string(runIndex),
                                variant,
                                metric,
                                std::to_string(i),
                                ExactReal(sums[i]),
                                ExactReal(squares->second[i])});
            }
        }
    }
}

void
MergeMonteCarloRunRows(const std::string& mergedCsv,
                       MonteCarloSeriesMap& out,
                       uint32_t firstRun,
                       uint32_t runs)
{
    const std::vector<std::vector<std::string>> records = ReadCsvRecords(mergedCsv);
    if (records.empty())
    {
        throw std::runtime_error("merged run rows: no header (no job finished)");
    }
    const std::vector<std::string>& header = records.front();
    const auto column = [&header](const std::string& name) {
        const auto it = std::find(header.begin(), header.end(), name);
        if (it == header.end())
        {
            throw std::runtime_error("merged run rows: no column " + name +
                                     " (not the rows of a figure's Monte-Carlo runs)");
        }
        return static_cast<std::size_t>(it - header.begin());
    };
    const std::size_t rngRunColumn = column("rng_run");
    const std::size_t runColumn = column("run");
    const std::size_t variantColumn = column("variant");
    const std::size_t metricColumn = column("metric");
    const std::size_t indexColumn = column("index");
    const std::size_t sumColumn = column("sum");
    const std::size_t squareColumn = column("sum_square");

    // the one-run series of every run, filled from the rows in whatever order they come
    std::vector<MonteCarloSeriesMap> perRun(runs);
    std::vector<std::map<std::string, std::map<std::string, std::vector<bool>>>> seen(runs);
    for (std::size_t i = 1; i < records.size(); ++i)
    {
        const std::vector<std::string>& row = records[i];
        if (row.size() != header.size())
        {
            throw std::runtime_error("merged run rows: row " + std::to_string(i) + " has " +
                                     std::to_string(row.size()) + " fields, the header " +
                                     std::to_string(header.size()));
        }
        const uint64_t rngRun = RunRowWhole(row[rngRunColumn], "rng_run", i);
        if (rngRun < firstRun || rngRun >= uint64_t(firstRun) + runs)
        {
            continue; // a run number this figure does not ask for
        }
        const auto r = static_cast<uint32_t>(rngRun - firstRun);
        if (RunRowWhole(row[runColumn], "run", i) != r)
        {
            throw std::runtime_error(
                "merged run rows: row " + std::to_string(i) + " is run " + row[runColumn] +
                " at rng_run " + row[rngRunColumn] + ", expected run " + std::to_string(r) +
                " (rng_run minus the first run number " + std::to_string(firstRun) + ")");
        }
        const std::string& variant = row[variantColumn];
        if (!out.count(variant))
        {
            throw std::runtime_error("merged run rows: variant '" + variant +
                                     "' is not one of the figure's (the rows of another figure)");
        }
        const std::string& metric = row[metricColumn];
        const auto index = static_cast<std::size_t>(RunRowWhole(row[indexColumn], "index", i));
        if (index > 100000000)
        {
            throw std::runtime_error("merged run rows: row " + std::to_string(i) + ": index " +
                                     row[indexColumn] + " is beyond any figure's iterations");
        }
        MonteCarloSeries& s = perRun[r][variant];
        std::vector<bool>& have = seen[r][variant][metric];
        if (have.size() <= index)
        {
            have.resize(index + 1, false);
        }
        if (have[index])
        {
            throw std::runtime_error("merged run rows: variant '" + variant + "', metric '" +
                                     metric + "', index " + row[indexColumn] + " repeats at run " +
                                     std::to_string(r));
        }
        have[index] = true;
        for (auto [vectors, value] :
             {std::make_pair(&s.sums, RunRowNumber(row[sumColumn], "sum", i)),
              std::make_pair(&s.sumSquares, RunRowNumber(row[squareColumn], "sum_square", i))})
        {
            std::vector<double>& v = (*vectors)[metric];
            if (v.size() <= index)
            {
                v.resize(index + 1, 0.0);
            }
            v[index] = value;
        }
    }
    for (uint32_t r = 0; r < runs; ++r)
    {
        for (const auto& [variant, s] : out)
        {
            if (!perRun[r].count(variant))
            {
                throw std::runtime_error("merged run rows: variant '" + variant +
                                         "' has no row at run " + std::to_string(r) + " (rng_run " +
                                         std::to_string(uint64_t(firstRun) + r) +
                                         "; its job did not finish)");
            }
        }
    }
    // run order, then variant order: MonteCarloVariants' order of the merges
    for (uint32_t r = 0; r < runs; ++r)
    {
        for (auto& [variant, s] : out)
        {
            MonteCarloSeries& one = perRun[r][variant];
            one.runs = 1;
            s.Merge(one);
            one = MonteCarloSeries{};
        }
    }
}

// ------------------------------------------------------------------------ level claims

OrderingResult
CheckLevelClaim(const LevelClaim& claim,
                double levelA,
                double levelB,
                const std::string& unit,
                int precision)
{
    const auto fmt = [precision](double x) {
        std::ostringstream s;
        s << std::fixed << std::setprecision(precision) << x;
        return s.str();
    };
    bool ok = false;
    std::ostringstream text;
    if (claim.kind == LevelClaimKind::Below)
    {
        // "b >= a + margin", larger first: one value each (n = 1), so any inversion fails
        const OrderingResult order = CheckOrdering(
            {{claim.b, MeanCi{levelB, 0.0, 1}}, {claim.a, MeanCi{levelA + claim.margin, 0.0, 1}}});
        ok = order.verdict == OrderingVerdict::Holds && !std::isnan(levelA) && !std::isnan(levelB);
        text << claim.a << " (" << fmt(levelA) << unit << ") below " << claim.b << " ("
             << fmt(levelB) << unit << ") by >= " << claim.margin << unit;
    }
    else
    {
        ok = std::abs(levelA - levelB) <= claim.margin;
        text << claim.a << " (" << fmt(levelA) << unit << ") within " << claim.margin << unit
             << " of " << claim.b << " (" << fmt(levelB) << unit << ")";
    }
    text << ": " << (ok ? "holds" : "does NOT hold");
    return OrderingResult{ok ? OrderingVerdict::Holds : OrderingVerdict::DoesNotHold, text.str()};
}

} // namespace fl
} // namespace ns3
