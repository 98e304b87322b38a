/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ns3/sweep-grid.h"

#include "ns3/fl-types.h"

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

// ------------------------------------------------------------------------------- tidy CSV

void
WriteCsvRecord(std::ostream& os, const std::vector<std::string>& fields)
{
    if (fields.size() == 1 && fields[0].empty())
    {
        os << "\"\"\n";
        return;
    }
    for (std::size_t i = 0; i < fields.size(); ++i)
    {
        const std::string& f = fields[i];
        if (i)
        {
            os << ',';
        }
        if (f.find_first_of(",\"\r\n") == std::string::npos)
        {
            os << f;
            continue;
        }
        os << '"';
        for (char ch : f)
        {
            if (ch == '"')
            {
                os << '"';
            }
            os << ch;
        }
        os << '"';
    }
    os << '\n';
}

std::vector<std::vector<std::string>>
ReadCsvRecords(const std::string& text)
{
    std::vector<std::vector<std::string>> records;
    std::vector<std::string> record;
    std::string field;
    bool quoted = false;
    bool atRecordStart = true;
    std::size_t i = 0;
    const auto endRecord = [&]() {
        record.push_back(field);
        records.push_back(record);
        record.clear();
        field.clear();
        atRecordStart = true;
    };
    while (i < text.size())
    {
        const char ch = text[i];
        if (atRecordStart && !quoted && ch == '#')
        {
            const std::size_t eol = text.find('\n', i);
            i = eol == std::string::npos ? text.size() : eol + 1;
            continue;
        }
        atRecordStart = false;
        if (quoted)
        {
            if (ch == '"' && i + 1 < text.size() && text[i + 1] == '"')
            {
                field += '"';
                i += 2;
                continue;
            }
            if (ch == '"')
            {
                quoted = false;
            }
            else
            {
                field += ch;
            }
            ++i;
            continue;
        }
        if (ch == '"')
        {
            quoted = true;
        }
        else if (ch == ',')
        {
            record.push_back(field);
            field.clear();
        }
        else if (ch == '\n')
        {
            endRecord();
        }
        else if (ch != '\r' || i + 1 >= text.size() || text[i + 1] != '\n')
        {
            field += ch;
        }
        ++i;
    }
    if (!atRecordStart)
    {
        endRecord();
    }
    return records;
}

bool
SameCsvRecordsExcept(const std::string& pathA,
                     const std::string& pathB,
                     std::size_t column,
                     const std::string& measured)
{
    auto records = [column, &measured](const std::string& path) {
        std::ifstream in(path);
        std::stringstream text;
        text << in.rdbuf();
        std::vector<std::vector<std::string>> kept;
        for (auto& r : ReadCsvRecords(text.str()))
        {
            if (r.size() <= column || r[column].find(measured) == std::string::npos)
            {
                kept.push_back(std::move(r));
            }
        }
        return kept;
    };
    const auto a = records(pathA);
    return !a.empty() && a == records(pathB);
}

// ------------------------------------------------------------------------------- sweep grid

namespace
{

/// Words of a line as a POSIX shell splits them (quotes and backslashes; no expansion).
std::vector<std::string>
ShellWords(const std::string& text, const std::string& where, const std::string& raw)
{
    std::vector<std::string> words;
    std::string word;
    bool inWord = false;
    char quote = 0;
    for (std::size_t i = 0; i < text.size(); ++i)
    {
        const char ch = text[i];
        if (quote == '\'')
        {
            if (ch == '\'')
            {
                quote = 0;
            }
            else
            {
                word += ch;
            }
            continue;
        }
        if (quote == '"')
        {
            if (ch == '\\' && i + 1 < text.size() &&
                std::string("\\\"$`").find(text[i + 1]) != std::string::npos)
            {
                word += text[++i];
            }
            else if (ch == '"')
            {
                quote = 0;
            }
            else
            {
                word += ch;
            }
            continue;
        }
        if (ch == ' ' || ch == '\t')
        {
            if (inWord)
            {
                words.push_back(word);
                word.clear();
                inWord = false;
            }
            continue;
        }
        inWord = true;
        if (ch == '\'' || ch == '"')
        {
            quote = ch;
        }
        else if (ch == '\\' && i + 1 < text.size())
        {
            word += text[++i];
        }
        else
        {
            word += ch;
        }
    }
    if (quote)
    {
        throw ConfigError(where, "'" + raw + "': No closing quotation", "close the quote");
    }
    if (inWord)
    {
        words.push_back(word);
    }
    return words;
}

bool
IsFlagName(const std::string& name)
{
    if (name.empty() || !std::isalpha(static_cast<unsigned char>(name[0])))
    {
        return false;
    }
    return std::all_of(name.begin(), name.end(), [](char ch) {
        return std::isalnum(static_cast<unsigned char>(ch)) || ch == '_';
    });
}

/// Why the runner sets this flag itself (empty: a flag a grid may give).
std::string
Reserved(const std::string& name)
{
    if (name == "output")
    {
        return "the runner gives every job its own --output";
    }
    if (name == "RngRun")
    {
        return "give the --RngRun values with 'runs'";
    }
    if (name == "checkFlags")
    {
        return "the runner itself checks the grid with --checkFlags";
    }
    if (name == "help")
    {
        return "--help runs nothing";
    }
    if (name == "PrintHelp")
    {
        return "--PrintHelp runs nothing";
    }
    return "";
}

std::string
Trim(const std::string& s)
{
    const std::size_t a = s.find_first_not_of(" \t\r\n\f\v");
    if (a == std::string::npos)
    {
        return "";
    }
    return s.substr(a, s.find_last_not_of(" \t\r\n\f\v") - a + 1);
}

bool
AllDigits(const std::string& s)
{
    return !s.empty() && std::all_of(s.begin(), s.end(), [](char ch) {
        return std::isdigit(static_cast<unsigned char>(ch));
    });
}

/// A run number that fits 32 bits (else 0, refused as below 1).
uint32_t
RunNumber(const std::string& digits)
{
    if (digits.size() > 10)
    {
        return 0;
    }
    const unsigned long long v = std::stoull(digits);
    return v > std::numeric_limits<uint32_t>::max() ? 0 : static_cast<uint32_t>(v);
}

std::vector<uint32_t>
ParseRuns(const std::vector<std::string>& words, const std::string& where)
{
    std::vector<uint32_t> values;
    for (const std::string& w0 : words)
    {
        std::string w = w0;
        std::replace(w.begin(), w.end(), ',', ' ');
        std::istringstream is(w);
        std::string item;
        while (is >> item)
        {
            const std::size_t dots = item.find("..");
            if (dots != std::string::npos && AllDigits(item.substr(0, dots)) &&
                AllDigits(item.substr(dots + 2)))
            {
                const uint32_t a = RunNumber(item.substr(0, dots));
                const uint32_t b = RunNumber(item.substr(dots + 2));
                if (a < 1 || b < a)
                {
                    throw ConfigError(where,
                                      "runs range '" + item + "' is empty or starts below 1",
                                      "give a..b with 1 <= a <= b, e.g. 1..5");
                }
                if (b - a > 1000000)
                {
                    throw ConfigError(where,
                                      "runs range '" + item + "' has more than a million runs",
                                      "give a smaller range");
                }
                for (uint32_t v = a; v <= b; ++v)
                {
                    values.push_back(v);
                }
            }
            else if (AllDigits(item) && RunNumber(item) >= 1)
            {
                values.push_back(RunNumber(item));
            }
            else
            {
                throw ConfigError(where,
                                  "'" + item + "' is not a run number",
                                  "give whole numbers >= 1 or ranges a..b, e.g. runs 1..5");
            }
        }
    }
    if (values.empty())
    {
        throw ConfigError(where, "runs has no value", "e.g. runs 1..5");
    }
    if (std::set<uint32_t>(values.begin(), values.end()).size() != values.size())
    {
        throw ConfigError(where, "a run number is repeated", "give each --RngRun once");
    }
    return values;
}

/// The grid line that gives flag `name` (swept or fixed), or empty.
std::string
FlagWhere(const SweepGrid& grid,
          const std::vector<std::string>& flagWhere,
          const std::vector<std::string>& fixedWhere,
          const std::string& name)
{
    for (std::size_t i = 0; i < grid.flags.size(); ++i)
    {
        if (grid.flags[i].name == name)
        {
            return flagWhere[i];
        }
    }
    for (std::size_t i = 0; i < grid.fixed.size(); ++i)
    {
        const std::string arg = grid.fixed[i].substr(grid.fixed[i].find_first_not_of('-'));
        if (arg.substr(0, arg.find('=')) == name)
        {
            return fixedWhere[i];
        }
    }
    return "";
}

} // namespace

SweepGrid
ParseSweepGrid(const std::string& text, const std::string& source)
{
    SweepGrid grid;
    std::vector<std::string> flagWhere;
    std::vector<std::string> fixedWhere;
    std::string programWhere;
    std::string runsWhere;
    std::istringstream lines(text);
    std::string raw;
    std::size_t number = 0;
    while (std::getline(lines, raw))
    {
        ++number;
        const std::string where = source + ":" + std::to_string(number);
        const std::string line = Trim(raw.substr(0, raw.find('#')));
        if (line.empty())
        {
            continue;
        }
        const std::vector<std::string> words = ShellWords(line, where, Trim(raw));
        if (words.empty())
        {
            continue;
        }
        const std::string& key = words[0];
        const std::vector<std::string> rest(words.begin() + 1, words.end());
        if (key == "program")
        {
            if (rest.size() != 1)
            {
                throw ConfigError(where, "'program' takes one name", "program fl-fedavg-wifi");
            }
            if (!grid.program.empty())
            {
                throw ConfigError(where, "a second 'program' line", "one program per grid");
            }
            grid.program = rest[0];
            programWhere = where;
        }
        else if (key == "flag")
        {
            if (rest.empty())
            {
                throw ConfigError(where, "'flag' without a name", "flag NAME V1 V2 ...");
            }
            std::string name = rest[0].rfind("--", 0) == 0 ? rest[0].substr(2) : rest[0];
            const std::vector<std::string> values(rest.begin() + 1, rest.end());
            if (!IsFlagName(name))
            {
                throw ConfigError(where,
                                  "'" + name + "' is not a flag name",
                                  "write flag NAME V1 V2 ..., e.g. flag clients 10 20");
            }
            if (!Reserved(name).empty())
            {
                throw ConfigError(where,
                                  "flag " + name + " cannot be swept (" + Reserved(name) + ")",
                                  "leave it out of the grid");
            }
            if (values.empty())
            {
                throw ConfigError(where,
                                  "flag " + name + " has no value",
                                  "list its values, e.g. flag " + name + " V1 V2");
            }
            const std::string other = FlagWhere(grid, flagWhere, fixedWhere, name);
            if (!other.empty())
            {
                throw ConfigError(where,
                                  "flag " + name + " is given twice (also at " + other + ")",
                                  "keep one line");
            }
            if (std::set<std::string>(values.begin(), values.end()).size() != values.size())
            {
                throw ConfigError(where,
                                  "flag " + name + " repeats a value",
                                  "give each value once");
            }
            grid.flags.push_back({name, values, where});
            flagWhere.push_back(where);
        }
        else if (key == "runs")
        {
            if (!runsWhere.empty())
            {
                throw ConfigError(where, "a second 'runs' line", "keep one");
            }
            grid.runs = ParseRuns(rest, where);
            runsWhere = where;
        }
        else if (key == "fixed")
        {
            for (const std::string& arg : rest)
            {
                if (arg.rfind("--", 0) != 0 || arg.size() < 3)
                {
                    throw ConfigError(where,
                                      "'" + arg + "' is not a flag",
                                      "write fixed --name=value ...");
                }
                const std::string name = arg.substr(2, arg.find('=') - 2);
                if (!Reserved(name).empty())
                {
                    throw ConfigError(where,
                                      "--" + name + " cannot be fixed (" + Reserved(name) + ")",
                                      "leave it out of the grid");
                }
                const std::string other = FlagWhere(grid, flagWhere, fixedWhere, name);
                if (!other.empty())
                {
                    throw ConfigError(where,
                                      "--" + name + " is also given at " + other,
                                      "keep one");
                }
                grid.fixed.push_back(arg);
                fixedWhere.push_back(where);
            }
        }
        else
        {
            throw ConfigError(where,
                              "'" + key + "' is not a grid directive",
                              "use program, flag, runs or fixed");
        }
    }
    if (grid.program.empty())
    {
        throw ConfigError(source, "no program", "a 'program NAME' line in the grid");
    }
    if (grid.runs.empty())
    {
        grid.runs = {1};
    }
    return grid;
}

SweepGrid
ReadSweepGrid(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    if (!in)
    {
        throw ConfigError("grid file '" + path + "'",
                          "cannot be read",
                          "give a readable grid file");
    }
    std::ostringstream text;
    text << in.rdbuf();
    return ParseSweepGrid(text.str(), path);
}

std::vector<std::string>
SweepPoint::Args(const SweepGrid& grid) const
{
    std::vector<std::string> args;
    for (const auto& [name, value] : flags)
    {
        args.push_back("--" + name + "=" + value);
    }
    args.insert(args.end(), grid.fixed.begin(), grid.fixed.end());
    args.push_back("--RngRun=" + std::to_string(run));
    return args;
}

std::vector<SweepPoint>
ExpandSweepGrid(const SweepGrid& grid)
{
    std::vector<std::vector<std::pair<std::string, std::string>>> points(1);
    for (const SweepFlag& f : grid.flags)
    {
        std::vector<std::vector<std::pair<std::string, std::string>>> next;
        for (const auto& p : points)
        {
            for (const std::string& v : f.values)
            {
                next.push_back(p);
                next.back().emplace_back(f.name, v);
            }
        }
        points = std::move(next);
    }
    const std::vector<uint32_t> runs = grid.runs.empty() ? std::vector<uint32_t>{1} : grid.runs;
    std::vector<SweepPoint> out;
    for (const auto& p : points)
    {
        for (uint32_t run : runs)
        {
            out.push_back(SweepPoint{p, run});
        }
    }
    return out;
}

std::size_t
MergeSweepCsv(const SweepGrid& grid,
              const std::vector<SweepJobResult>& jobs,
              const SweepProvenance& provenance,
              std::ostream& out)
{
    std::vector<std::string> header;
    bool haveHeader = false;
    std::vector<std::pair<const SweepJobResult*, std::vector<std::string>>> rows;
    for (const SweepJobResult& job : jobs)
    {
        auto records = ReadCsvRecords(job.csv);
        if (records.empty())
        {
            continue;
        }
        if (!haveHeader)
        {
            header = records[0];
            haveHeader = true;
        }
        else if (records[0] != header)
        {
            std::string id;
            for (const auto& [name, value] : job.point.flags)
            {
                id += name + "=" + value + " ";
            }
            throw ConfigError("merge",
                              "the job " + id + "run=" + std::to_string(job.point.run) +
                                  " has other columns than the first job's",
                              "sweep one program whose CSV columns do not depend on the flags");
        }
        for (std::size_t i = 1; i < records.size(); ++i)
        {
            rows.emplace_back(&job, std::move(records[i]));
        }
    }
    if (!haveHeader)
    {
        return 0;
    }
    std::vector<std::string> gridColumns;
    for (const SweepFlag& f : grid.flags)
    {
        gridColumns.push_back(f.name);
    }
    bool clash = std::find(header.begin(), header.end(), "rng_run") != header.end();
    for (const std::string& c : gridColumns)
    {
        clash = clash || std::find(header.begin(), header.end(), c) != header.end();
    }
    std::vector<std::string> outHeader;
    for (const std::string& c : gridColumns)
    {
        outHeader.push_back((clash ? "flag_" : "") + c);
    }
    outHeader.push_back("rng_run");
    outHeader.insert(outHeader.end(), header.begin(), header.end());
    for (const char* p : {"program", "program_flags", "git_commit", "ns3_version"})
    {
        outHeader.emplace_back(p);
    }
    WriteCsvRecord(out, outHeader);
    for (const auto& [job, record] : rows)
    {
        std::vector<std::string> line;
        for (const auto& kv : job->point.flags)
        {
            line.push_back(kv.second);
        }
        line.push_back(std::to_string(job->point.run));
        line.insert(line.end(), record.begin(), record.end());
        line.push_back(provenance.program);
        line.push_back(job->programFlags);
        line.push_back(provenance.gitCommit);
        line.push_back(provenance.ns3Version);
        WriteCsvRecord(out, line);
    }
    return rows.size();
}

} // namespace fl
} // namespace ns3
