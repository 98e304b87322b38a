/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Command-line flags of the fl examples: every flag is read by ns-3's CommandLine as text and
 * parsed with the module's one number and list parser (ns3/text-parse.h) after
 * CommandLine::Parse: whole-string parse, range check, unsigned values that never wrap, sizes
 * bounded with a message saying how to raise the bound, output files checked for writability.
 * A bad value makes Flags::Parse print one message naming the flag and its valid range, before
 * any simulation starts; the example then exits with status 2.
 *
 * Every example also takes --checkFlags: Parse() then checks every flag as usual (values,
 * cross-flag checks, output files) and ends the program at once, with status 0 if all are valid
 * or 2 after printing the error, running nothing else (utils/fl-sweep checks a whole grid so).
 * The checks are the run's own: a rule a run enforces belongs in a check (AddCheck), so that
 * --checkFlags refuses what the run would refuse.
 *
 * The command line holds nothing else: a name that is neither a flag of the program, nor one of
 * ns-3's (--help, --PrintGlobals, ...; a global value such as --RngRun; an attribute default such
 * as --ns3::TcpSocket::SegmentSize=1448, whose value is checked too), nor a word without "--" is
 * refused in one line naming it (status 2), where ns-3's CommandLine would print the whole help
 * and exit 1. A flag's old name (AddRefusedAlias) is refused with a message naming the new one.
 * Flags set only by a runner for the jobs it starts (Hidden()) are left out of --help.
 */
#ifndef FL_EXAMPLE_FLAGS_H
#define FL_EXAMPLE_FLAGS_H

#include "ns3/fl-ns3-compat.h"
#include "ns3/core-module.h"
#include "ns3/fl-experiment-helper.h"
#include "ns3/global-value.h"
#include "ns3/text-parse.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <iostream>
#include <limits>
#include <list>
#include <numeric>
#include <sstream>
#include <string>
#include <sys/stat.h>
#include <vector>

namespace ns3
{
namespace flexample
{

/// Exit status of an example given a bad flag value.
constexpr int kExitBadFlag = 2;

/**
 * Upper bound of a size flag (a count that drives memory or run time), with where it is set,
 * so that the error message can say how to raise it.
 */
struct Bound
{
    uint64_t value;    ///< largest accepted value
    const char* where; ///< the constant and file that set it
};

/**
 * Valid values of a real flag: an interval whose ends may be open or absent (infinite).
 */
struct Range
{
    double min{-std::numeric_limits<double>::infinity()}; ///< lower end
    double max{std::numeric_limits<double>::infinity()};  ///< upper end
    bool minOpen{false};                                  ///< min itself is excluded
    bool maxOpen{false};                                  ///< max itself is excluded

    /// [lo, hi]
    static Range Closed(double lo, double hi)
    {
        return {lo, hi, false, false};
    }

    /// >= lo
    static Range AtLeast(double lo)
    {
        return {lo, std::numeric_limits<double>::infinity(), false, false};
    }

    /// > lo
    static Range Above(double lo)
    {
        return {lo, std::numeric_limits<double>::infinity(), true, false};
    }

    /// True if x is in the range.
    bool Contains(double x) const
    {
        return (minOpen ? x > min : x >= min) && (maxOpen ? x < max : x <= max);
    }

    /// "in [0, 1)", ">= 0", "> 0" or "(any finite value)".
    std::string Text() const
    {
        std::ostringstream s;
        const bool hasMin = std::isfinite(min);
        const bool hasMax = std::isfinite(max);
        if (hasMin && hasMax)
        {
            s << "in " << (minOpen ? '(' : '[') << min << ", " << max << (maxOpen ? ')' : ']');
        }
        else if (hasMin)
        {
            s << (minOpen ? "> " : ">= ") << min;
        }
        else if (hasMax)
        {
            s << (maxOpen ? "< " : "<= ") << max;
        }
        else
        {
            s << "(any finite value)";
        }
        return s.str();
    }
};

/**
 * Parses a real flag value: one finite number (fl::ParseDouble) in `range`.
 * Throws fl::ConfigError naming `flag` and the range.
 */
inline double
ParseReal(const std::string& text, const std::string& flag, const Range& range)
{
    const std::string expected = "give one finite number " + range.Text();
    double value = 0.0;
    try
    {
        value = fl::ParseDouble(text, flag);
    }
    catch (const fl::ConfigError&)
    {
        throw fl::ConfigError(flag, "'" + text + "' is not a finite number", expected);
    }
    if (!range.Contains(value))
    {
        throw fl::ConfigError(flag,
                              "'" + text + "' is out of range: expected a number " + range.Text(),
                              expected);
    }
    return value;
}

/**
 * Parses a size flag value: a whole number (fl::ParseUnsigned) in [min, bound.value]. A valid
 * number above the bound gets a message that says where the bound is set.
 * Throws fl::ConfigError naming `flag` and the range.
 */
template <typename T>
T
ParseBounded(const std::string& text, const std::string& flag, T min, const Bound& bound)
{
    const T max = static_cast<T>(std::min<uint64_t>(bound.value, std::numeric_limits<T>::max()));
    try
    {
        return fl::ParseUnsigned<T>(text, flag, min, max);
    }
    catch (const fl::ConfigError&)
    {
        bool aboveBound = true;
        try
        {
            fl::ParseUnsigned<T>(text, flag, min);
        }
        catch (const fl::ConfigError&)
        {
            aboveBound = false;
        }
        if (!aboveBound)
        {
            throw;
        }
        throw fl::ConfigError(flag,
                              "'" + text + "' is above the bound of " + std::to_string(max),
                              "give a whole number in [" + std::to_string(min) + ", " +
                                  std::to_string(max) + "], or raise the bound (" + bound.where +
                                  ")");
    }
}

/**
 * Throws fl::ConfigError naming `flag` unless `path` can be written: the file is opened for
 * appending (so an existing file is left as it is) and removed again if it did not exist.
 */
inline void
CheckWritable(const std::string& path, const std::string& flag)
{
    if (path.empty())
    {
        throw fl::ConfigError(flag, "is empty", "give the name of a file to write");
    }
    struct stat st;
    const bool existed = stat(path.c_str(), &st) == 0;
    if (existed && S_ISDIR(st.st_mode))
    {
        throw fl::ConfigError(flag, "'" + path + "' is a directory", "give a file name");
    }
    std::FILE* f = std::fopen(path.c_str(), "a");
    if (!f)
    {
        throw fl::ConfigError(flag,
                              "cannot write '" + path + "': " + std::strerror(errno),
                              "give a file in an existing, writable directory");
    }
    std::fclose(f);
    if (!existed)
    {
        std::remove(path.c_str());
    }
}

/**
 * The flags of one example. Each Add* call registers a flag with ns-3's CommandLine (which
 * keeps the raw text and shows the current value as the default in --help); Parse() then
 * converts every flag the user gave, runs the cross-flag checks and checks the output files.
 * Flags not given keep the value of their variable.
 */
class Flags
{
  public:
    /// @param file the example's __FILE__ (as for CommandLine)
    explicit Flags(const std::string& file)
        : m_cmd(file)
    {
        AddBool("checkFlags",
                "Only check the flags (values, cross-flag checks, output files) and exit: "
                "status 0 if all are valid, 2 with the error printed; runs nothing",
                m_checkOnly);
    }

    /// True if --checkFlags was given (Parse() then exits instead of returning).
    bool CheckOnly() const
    {
        return m_checkOnly;
    }

    Flags(const Flags&) = delete;
    Flags& operator=(const Flags&) = delete;

    /// The underlying CommandLine (for Usage).
    CommandLine& Cmd()
    {
        return m_cmd;
    }

    /// A whole number in [min, max] (max defaults to all of T: never wraps).
    template <typename T>
    void AddWhole(const std::string& name,
                  const std::string& help,
                  T& value,
                  T min = 0,
                  T max = std::numeric_limits<T>::max())
    {
        Add(name,
            help,
            std::to_string(value),
            [&value, min, max](const std::string& text, const std::string& flag) {
                value = fl::ParseUnsigned<T>(text, flag, min, max);
            });
    }

    /// A size: a whole number in [min, bound.value] (see ParseBounded).
    template <typename T>
    void AddSize(const std::string& name,
                 const std::string& help,
                 T& value,
                 T min,
                 const Bound& bound)
    {
        Add(name,
            help,
            std::to_string(value),
            [&value, min, bound](const std::string& text, const std::string& flag) {
                value = ParseBounded<T>(text, flag, min, bound);
            });
    }

    /**
     * A boolean: true, false, 1 or 0 (any case); the bare flag toggles the value, as ns-3's
     * CommandLine does for its boolean flags.
     */
    void AddBool(const std::string& name, const std::string& help, bool& value)
    {
        Add(name,
            help,
            value ? "true" : "false",
            [&value](const std::string& text, const std::string& flag) {
                std::string lower = text;
                std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) {
                    return std::tolower(c);
                });
                if (lower.empty())
                {
                    value = !value;
                }
                else if (lower == "true" || lower == "1")
                {
                    value = true;
                }
                else if (lower == "false" || lower == "0")
                {
                    value = false;
                }
                else
                {
                    throw fl::ConfigError(flag,
                                          "'" + text + "' is not a boolean",
                                          "use true or false (1 or 0)");
                }
            });
    }

    /// A finite real number in `range`.
    void AddReal(const std::string& name,
                 const std::string& help,
                 double& value,
                 const Range& range)
    {
        std::ostringstream initial;
        initial << value;
        Add(name,
            help,
            initial.str(),
            [&value, range](const std::string& text, const std::string& flag) {
                value = ParseReal(text, flag, range);
            });
    }

    /// Free text (a list, a model specification, ...), checked by the caller in AddCheck.
    void AddText(const std::string& name, const std::string& help, std::string& value)
    {
        Add(name, help, value, [&value](const std::string& text, const std::string&) {
            value = text;
        });
    }

    /// One of `allowed`.
    void AddChoice(const std::string& name,
                   const std::string& help,
                   std::string& value,
                   std::vector<std::string> allowed)
    {
        Add(name, help, value, [&value, allowed](const std::string& text, const std::string& flag) {
            CheckChoice(text, flag, allowed);
            value = text;
        });
    }

    /**
     * An output file, checked for writability after every other flag. If `optional`, an empty
     * value means "no file" and is not checked.
     */
    void AddOutput(const std::string& name,
                   const std::string& help,
                   std::string& value,
                   bool optional)
    {
        AddText(name, help, value);
        m_outputs.emplace_back([&value, optional, name]() {
            if (!(optional && value.empty()))
            {
                CheckWritable(value, "--" + name);
            }
        });
    }

    /// A check of the parsed values (e.g. one flag against another); throws fl::ConfigError.
    void AddCheck(std::function<void()> check)
    {
        m_checks.push_back(std::move(check));
    }

    /// Throws fl::ConfigError naming `flag` unless `value` is one of `allowed`.
    static void CheckChoice(const std::string& value,
                            const std::string& flag,
                            const std::vector<std::string>& allowed)
    {
        std::string list;
        for (const std::string& a : allowed)
        {
            if (value == a)
            {
                return;
            }
            list += (list.empty() ? "" : ", ") + a;
        }
        throw fl::ConfigError(flag, "'" + value + "' is not accepted", "use one of " + list);
    }

    /**
     * Parses the command line, every given flag, the checks and the output files.
     * With --checkFlags it does not return: the process exits with status 0 if every flag is
     * valid (printing "<program>: flags valid") and with kExitBadFlag after the first error.
     * @return false after printing the first error (the example exits with kExitBadFlag)
     */
    bool Parse(int argc, char* argv[])
    {
        std::vector<char*> passed{argv[0]}; // what ns-3's CommandLine parses
        try
        {
            for (int i = 1; i < argc; ++i)
            {
                if (Screen(argv[i]))
                {
                    passed.push_back(argv[i]);
                }
            }
        }
        catch (const fl::ConfigError& e)
        {
            std::cerr << m_cmd.GetName() << ": " << e.what() << std::endl;
            if (m_checkOnly || HasCheckFlag(argc, argv))
            {
                std::exit(kExitBadFlag);
            }
            return false;
        }
        m_cmd.Parse(static_cast<int>(passed.size()), passed.data());
        try
        {
            for (const Item& item : m_items)
            {
                if (item.given)
                {
                    item.apply(item.text, "--" + item.name);
                }
            }
            for (const auto& check : m_checks)
            {
                check();
            }
            for (const auto& check : m_outputs)
            {
                check();
            }
        }
        catch (const fl::ConfigError& e)
        {
            std::cerr << m_cmd.GetName() << ": " << e.what() << std::endl;
            if (m_checkOnly)
            {
                std::exit(kExitBadFlag);
            }
            return false;
        }
        if (m_checkOnly)
        {
            std::cout << m_cmd.GetName() << ": flags valid" << std::endl;
            std::exit(0);
        }
        return true;
    }

    /**
     * The next flag added (AddWhole, AddText, ...) is set only by a runner for the jobs it
     * starts: Parse() takes it off the command line and --help does not show it.
     */
    Flags& Hidden()
    {
        m_nextHidden = true;
        return *this;
    }

    /**
     * Refuses --`name`, an old name of a flag, with a message that names the new one: "invalid
     * --name: is not a flag of <program>`why` (fix: use `replacement`)".
     */
    void AddRefusedAlias(const std::string& name,
                         const std::string& replacement,
                         const std::string& why = "")
    {
        m_aliases.push_back({name, replacement, why});
    }

    /// True if the flag `name` was given on the command line (after Parse).
    bool Given(const std::string& name)
    {
        const Item* item = Find(name);
        return item && item->given;
    }

  private:
    /// True if --checkFlags is among the arguments (before they are parsed).
    static bool HasCheckFlag(int argc, char* argv[])
    {
        for (int i = 1; i < argc; ++i)
        {
            const std::string a = argv[i];
            if (a == "--checkFlags" || a.rfind("--checkFlags=", 0) == 0)
            {
                return true;
            }
        }
        return false;
    }

    /// One flag: its raw text and how to apply it.
    struct Item
    {
        std::string name;
        std::string text;
        bool given{false};
        std::function<void(const std::string& text, const std::string& flag)> apply;
        bool hidden{false}; ///< set by a runner for its jobs; not in --help
    };

    /// An old name of a flag, refused with a message naming the new one.
    struct Alias
    {
        std::string name;        ///< the old name (without --)
        std::string replacement; ///< e.g. "--RngRun=N"
        std::string why;         ///< appended to "is not a flag of <program>"
    };

    void Add(const std::string& name,
             const std::string& help,
             const std::string& initial,
             std::function<void(const std::string&, const std::string&)> apply)
    {
        m_items.push_back({name, initial, false, std::move(apply), m_nextHidden});
        Item* item = &m_items.back();
        if (m_nextHidden)
        {
            m_nextHidden = false; // not shown by --help: Parse() takes it off the command line
            return;
        }
        m_cmd.AddValue(name,
                       help,
                       ns3::FlMakeStringCallback([item](const std::string& text) {
                           item->text = text;
                           item->given = true;
                           return true;
                       }),
                       initial);
    }

    /// The flag called `name` (visible or hidden), or nullptr.
    Item* Find(const std::string& name)
    {
        for (Item& item : m_items)
        {
            if (item.name == name)
            {
                return &item;
            }
        }
        return nullptr;
    }

    /// Levenshtein distance of a and b, ignoring case (for "did you mean").
    static std::size_t Distance(const std::string& a, const std::string& b)
    {
        std::vector<std::size_t> row(b.size() + 1);
        std::iota(row.begin(), row.end(), 0);
        for (std::size_t i = 1; i <= a.size(); ++i)
        {
            std::size_t diagonal = row[0];
            row[0] = i;
            for (std::size_t j = 1; j <= b.size(); ++j)
            {
                const std::size_t up = row[j];
                const bool same = std::tolower(static_cast<unsigned char>(a[i - 1])) ==
                                  std::tolower(static_cast<unsigned char>(b[j - 1]));
                row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (same ? 0 : 1)});
                diagonal = up;
            }
        }
        return row[b.size()];
    }

    /// "; did you mean --x?" for the visible flag nearest to `name`, if one is near enough.
    std::string Suggestion(const std::string& name) const
    {
        std::string best;
        std::size_t bestDistance = std::max<std::size_t>(2, name.size() / 3) + 1;
        for (const Item& item : m_items)
        {
            const std::size_t d = Distance(name, item.name);
            if (!item.hidden && d < bestDistance)
            {
                best = item.name;
                bestDistance = d;
            }
        }
        return best.empty() ? std::string() : "; did you mean --" + best + "?";
    }

    /**
     * Checks one argument of the command line before ns-3's CommandLine sees it (see the file
     * comment). Returns false for a hidden flag (recorded here, not passed on); throws
     * fl::ConfigError for an argument CommandLine would not take or that is refused here.
     */
    bool Screen(const std::string& arg)
    {
        std::string param;
        if (arg.rfind("--", 0) == 0)
        {
            param = arg.substr(2);
        }
        else if (arg.size() > 1 && arg[0] == '-')
        {
            param = arg.substr(1);
        }
        else
        {
            throw fl::ConfigError("command line",
                                  "'" + arg + "' is not a flag",
                                  "give every setting as --name=value (see " + m_cmd.GetName() +
                                      " --help)");
        }
        const std::size_t eq = param.find('=');
        const std::string name = param.substr(0, eq);
        const std::string value = eq == std::string::npos ? "" : param.substr(eq + 1);
        for (const Alias& alias : m_aliases)
        {
            if (alias.name == name)
            {
                throw fl::ConfigError("--" + name,
                                      "is not a flag of " + m_cmd.GetName() + alias.why,
                                      "use " + alias.replacement);
            }
        }
        if (Item* item = Find(name))
        {
            if (item->hidden)
            {
                item->text = value;
                item->given = true;
                return false;
            }
            return true;
        }
        for (const char* builtin : {"help",
                                    "PrintHelp",
                                    "version",
                                    "PrintVersion",
                                    "PrintGlobals",
                                    "PrintGroups",
                                    "PrintGroup",
                                    "PrintTypeIds",
                                    "PrintAttributes"})
        {
            if (name == builtin)
            {
                return true;
            }
        }
        // ns-3's global values (--RngRun, --SimulatorImplementationType, ...)
        for (auto g = GlobalValue::Begin(); g != GlobalValue::End(); ++g)
        {
            if ((*g)->GetName() == name)
            {
                CheckValue(name, value, (*g)->GetChecker(), "global value");
                return true;
            }
        }
        // an attribute default: --ns3::TypeName::Attribute=value
        const std::size_t sep = name.rfind("::");
        TypeId tid;
        TypeId::AttributeInformation info;
        if (sep != std::string::npos && sep > 0 &&
            TypeId::LookupByNameFailSafe(name.substr(0, sep), &tid) &&
            tid.LookupAttributeByName(name.substr(sep + 2), &info))
        {
            CheckValue(name, value, info.checker, "attribute");
            return true;
        }
        throw fl::ConfigError("--" + name,
                              "is not a flag of " + m_cmd.GetName(),
                              "see " + m_cmd.GetName() + " --help for its flags" +
                                  Suggestion(name));
    }

    /**
     * Throws fl::ConfigError naming --`name` unless `checker` accepts `value`. Numbers and times
     * are checked for their form first: ns-3.37 aborts the program on a malformed one.
     */
    static void CheckValue(const std::string& name,
                           const std::string& value,
                           Ptr<const AttributeChecker> checker,
                           const std::string& kind)
    {
        const std::string type = checker ? checker->GetValueTypeName() : "";
        const auto digitsFrom = [&value](std::size_t i) {
            return i < value.size() &&
                   std::all_of(value.begin() + static_cast<std::ptrdiff_t>(i),
                               value.end(),
                               [](unsigned char c) { return std::isdigit(c) != 0; });
        };
        const bool sign = !value.empty() && (value[0] == '-' || value[0] == '+');
        bool wellFormed = true;
        if (type == "ns3::UintegerValue")
        {
            wellFormed = digitsFrom(0);
        }
        else if (type == "ns3::IntegerValue")
        {
            wellFormed = digitsFrom(sign ? 1 : 0);
        }
        else if (type == "ns3::DoubleValue" || type == "ns3::TimeValue")
        {
            // a finite number; a time may end in one of ns-3's units (none: seconds)
            const char* begin = value.c_str();
            char* end = nullptr;
            errno = 0;
            const double x = std::strtod(begin, &end);
            std::string unit(end);
            wellFormed =
                end != begin && errno == 0 && std::isfinite(x) &&
                (unit.empty() ||
                 (type == "ns3::TimeValue" &&
                  (unit == "y" || unit == "d" || unit == "h" || unit == "min" || unit == "s" ||
                   unit == "ms" || unit == "us" || unit == "ns" || unit == "ps" || unit == "fs")));
        }
        if (!wellFormed || !checker || !checker->CreateValidValue(StringValue(value)))
        {
            throw fl::ConfigError(
                "--" + name,
                "'" + value + "' is not a valid value of ns-3's " + kind + " " + name,
                kind == "attribute" ? "see --PrintAttributes=" + name.substr(0, name.rfind("::")) +
                                          " for what it takes"
                                    : "see --PrintGlobals for what it takes");
        }
    }

    CommandLine m_cmd;
    bool m_checkOnly{false}; ///< --checkFlags: check, then exit
    bool m_nextHidden{false}; ///< the next flag added is hidden (AddHidden)
    std::list<Item> m_items; ///< a list: CommandLine's callbacks point into it
    std::vector<Alias> m_aliases;
    std::vector<std::function<void()>> m_checks;
    std::vector<std::function<void()>> m_outputs;
};

/**
 * The flags of a figure program's seeds runner (FlFigureRunner): --engine, --sweepDir,
 * --sweepTool, --sweepJobs, --slurmTime, --slurmMem and --seedJob (set by the runner in the jobs
 * it starts: hidden from --help), checked with
 * FlFigureRunner::Check against the number of seeds (`seeds`, read when the checks run).
 */
inline void
AddFigureEngineFlags(Flags& flags, FlFigureEngine& engine, const uint32_t& seeds)
{
    flags.AddChoice("engine",
                    "How the seeds (--runs) run: process (one after the other in this "
                    "program), or serial, parallel (GNU parallel) or slurm: one job per seed "
                    "run by utils/fl-sweep, then the same figure CSV from their rows",
                    engine.engine,
                    {"process", "serial", "parallel", "slurm"});
    flags.AddText("sweepDir",
                  "--engine other than process: the sweep directory (grid, jobs, merged rows; "
                  "empty: the --output path + .sweep); a rerun resumes it",
                  engine.sweepDir);
    flags.AddText("sweepTool",
                  "--engine other than process: the sweep runner (empty: utils/fl-sweep of "
                  "the module's sources, " +
                      FlFigureRunner::DefaultSweepTool() + ")",
                  engine.sweepTool);
    flags.AddWhole<uint32_t>("sweepJobs",
                             "--engine=parallel: jobs at once (0: every core)",
                             engine.jobs,
                             0,
                             100000);
    flags.AddText("slurmTime",
                  "--engine=slurm: time limit per job, e.g. 0:10:00 (empty: the runner's "
                  "default, 3x the longest finished job, else 1 hour)",
                  engine.slurmTime);
    flags.AddText("slurmMem",
                  "--engine=slurm: memory per job, e.g. 1G (empty: the runner's default, 3x "
                  "the largest finished job, else 2 GB)",
                  engine.slurmMem);
    flags.Hidden().AddWhole<uint32_t>(
        "seedJob",
        "Set by the runner in the jobs it starts: run one seed at --RngRun "
        "with the shared draws (data split) at this run number and write its "
        "rows to --output (0: not a job)",
        engine.seedJob);
    flags.AddCheck([&engine, &seeds]() { FlFigureRunner::Check(engine, seeds); });
}

} // namespace flexample
} // namespace ns3

#endif // FL_EXAMPLE_FLAGS_H
