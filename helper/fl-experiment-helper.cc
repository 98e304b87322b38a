/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "fl-experiment-helper.h"

#include "ns3/config.h"
#include "ns3/fl-ns3-compat.h"
#include "ns3/random-variable-stream.h"
#include "ns3/simulator.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <limits>
#include <map>
#include <memory>
#include <ostream>
#include <spawn.h>
#include <sstream>
#include <stdexcept>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace ns3
{

std::vector<FlRoundSummary>
FlSummariseRounds(const std::vector<FlMetricRow>& rows)
{
    std::map<uint32_t, FlRoundSummary> byRound;
    std::map<uint32_t, uint32_t> nodes;
    for (const FlMetricRow& m : rows)
    {
        FlRoundSummary& r = byRound[m.round];
        r.round = m.round;
        r.timeS = m.timeS;
        const bool aggregate = m.node == "centroid" || m.node == "network";
        if (m.node == "centroid" && m.metric == "test_loss")
        {
            r.centroidLoss = m.value;
        }
        else if (m.node == "centroid" && m.metric == "test_accuracy")
        {
            r.centroidAccuracy = m.value;
        }
        else if (m.node == "network" && m.metric == "disagreement")
        {
            r.disagreement = m.value;
        }
        else if (m.node == "network" && m.metric == "epsilon")
        {
            r.epsilon = m.value;
        }
        else if (!aggregate && m.metric == "test_loss")
        {
            r.nodeLoss += m.value;
            ++nodes[m.round];
        }
        else if (!aggregate && m.metric == "test_accuracy")
        {
            r.nodeAccuracy += m.value;
        }
    }
    std::vector<FlRoundSummary> out;
    out.reserve(byRound.size());
    for (auto& [round, r] : byRound)
    {
        const uint32_t k = nodes[round];
        r.nodeLoss = k ? r.nodeLoss / k : std::nan("");
        r.nodeAccuracy = k ? r.nodeAccuracy / k : std::nan("");
        out.push_back(r);
    }
    return out;
}

std::vector<FlRoundStatistics>
FlRoundStatisticsOverSeeds(const std::vector<std::vector<FlRoundSummary>>& seeds)
{
    const auto stat = [&seeds](double FlRoundSummary::*field) {
        std::vector<std::vector<double>> values;
        for (const auto& rows : seeds)
        {
            values.emplace_back();
            for (const FlRoundSummary& r : rows)
            {
                values.back().push_back(r.*field);
            }
        }
        return fl::MeanCiPerIndex(values);
    };
    const auto time = stat(&FlRoundSummary::timeS);
    const auto loss = stat(&FlRoundSummary::centroidLoss);
    const auto acc = stat(&FlRoundSummary::centroidAccuracy);
    const auto nodeLoss = stat(&FlRoundSummary::nodeLoss);
    const auto nodeAcc = stat(&FlRoundSummary::nodeAccuracy);
    const auto dis = stat(&FlRoundSummary::disagreement);
    const auto eps = stat(&FlRoundSummary::epsilon);
    std::vector<FlRoundStatistics> out(time.size());
    for (std::size_t r = 0; r < out.size(); ++r)
    {
        out[r] = {seeds.front()[r].round,
                  seeds.size(),
                  time[r],
                  loss[r],
                  acc[r],
                  nodeLoss[r],
                  nodeAcc[r],
                  dis[r],
                  eps[r]};
    }
    return out;
}

FlSeedsSummary
FlSummariseSeeds(const std::vector<std::vector<FlRoundSummary>>& seeds)
{
    std::vector<double> acc;
    std::vector<double> nodeAcc;
    std::vector<double> dis;
    for (const auto& rows : seeds)
    {
        if (rows.empty())
        {
            continue;
        }
        std::vector<double> accuracies;
        for (const FlRoundSummary& r : rows)
        {
            accuracies.push_back(r.centroidAccuracy);
        }
        acc.push_back(fl::TailMean(accuracies, 10));
        nodeAcc.push_back(rows.back().nodeAccuracy);
        dis.push_back(rows.back().disagreement);
    }
    return {fl::MeanCi95(acc), fl::MeanCi95(nodeAcc), fl::MeanCi95(dis)};
}

std::vector<std::vector<FlRoundSummary>>
FlRunSeries(const std::string& series,
            std::size_t index,
            std::size_t total,
            uint32_t seeds,
            uint32_t rounds,
            const std::function<std::vector<FlRoundSummary>()>& simulate,
            std::ostream& os,
            bool* incomplete)
{
    return FlRunSeeds<std::vector<FlRoundSummary>>(seeds, [&](uint32_t seed) {
        os << "run " << index + 1 << "/" << total << ": " << series;
        if (seeds > 1)
        {
            os << ", seed " << seed + 1 << "/" << seeds << " (RngRun " << RngSeedManager::GetRun()
               << ")";
        }
        os << std::endl;
        std::vector<FlRoundSummary> rows = simulate();
        if (rows.empty())
        {
            throw std::runtime_error("run reported no model (see --maxTime)");
        }
        const FlRoundSummary& last = rows.back();
        os << "  done: " << last.round << " rounds in " << last.timeS
           << " s simulated, test accuracy " << last.centroidAccuracy << ", loss "
           << last.centroidLoss << ", disagreement " << last.disagreement << std::endl;
        if (last.round < rounds)
        {
            std::cerr << "  run stopped after " << last.round << " of " << rounds
                      << " rounds (see --maxTime)" << std::endl;
            if (incomplete)
            {
                *incomplete = true;
            }
        }
        return rows;
    });
}

void
FlPrintRoundProgress(uint32_t rounds, std::ostream& os)
{
    const uint32_t every = std::max<uint32_t>(1, rounds / 10);
    auto lastPrinted = std::make_shared<uint32_t>(std::numeric_limits<uint32_t>::max());
    std::ostream* out = &os;
    Config::ConnectWithoutContextFailSafe(
        "/NodeList/*/ApplicationList/*/$ns3::FlApplicationBase/ModelReport",
        FlCallback<void, const FlModelReport&>([=](const FlModelReport& r) {
            if (r.round > 0 && r.round % every == 0 && r.round != *lastPrinted)
            {
                *lastPrinted = r.round;
                *out << "    round " << r.round << "/" << rounds << " at "
                     << Simulator::Now().GetSeconds() << " s" << std::endl;
            }
        }));
}

std::shared_ptr<fl::LearningTask>
FlBuildTask(const fl::TaskSpec& spec)
{
    Ptr<UniformRandomVariable> seedStream = CreateObject<UniformRandomVariable>();
    seedStream->SetStream(1 << 20);
    fl::Rng rng(seedStream->GetInteger(1, std::numeric_limits<uint32_t>::max()));
    return fl::BuildSupervisedTask(spec, rng);
}

// ------------------------------------------------------------------------ figures over seeds

std::vector<fl::OrderingGroupResult>
FlReportFigure(std::ostream& os,
               const std::vector<FlFigureSeries>& series,
               const FlFigureSeeds& seeds,
               std::size_t accuracySamples)
{
    std::vector<std::string> groups;
    std::vector<fl::OrderingEntry> entries;
    for (std::size_t k = 0; k < series.size() && k < seeds.size(); ++k)
    {
        const FlSeedsSummary s = FlSummariseSeeds(seeds[k]);
        os << "  " << series[k].label
           << (series[k].detail.empty() ? "" : " [" + series[k].detail + "]") << ": accuracy "
           << fl::FormatMeanCi(s.accuracy) << ", worker accuracy "
           << fl::FormatMeanCi(s.nodeAccuracy) << ", disagreement "
           << fl::FormatMeanCi(s.disagreement) << "\n";
        groups.push_back(series[k].group);
        entries.push_back({series[k].label, s.accuracy});
    }
    std::vector<fl::OrderingGroupResult> verdicts =
        fl::CheckOrderingGroups(groups, entries, accuracySamples);
    for (const auto& g : verdicts)
    {
        os << "  ordering, " << g.group << ": " << g.result.text << std::endl;
    }
    return verdicts;
}

namespace
{

/// The columns of FlWriteSeedRows after series_index, series and round.
const std::vector<std::pair<std::string, double FlRoundSummary::*>>&
SeedColumns()
{
    static const std::vector<std::pair<std::string, double FlRoundSummary::*>> columns = {
        {"time_s", &FlRoundSummary::timeS},
        {"test_loss", &FlRoundSummary::centroidLoss},
        {"test_accuracy", &FlRoundSummary::centroidAccuracy},
        {"worker_test_loss", &FlRoundSummary::nodeLoss},
        {"worker_test_accuracy", &FlRoundSummary::nodeAccuracy},
        {"disagreement", &FlRoundSummary::disagreement},
        {"epsilon", &FlRoundSummary::epsilon}};
    return columns;
}

/// A double at 17 significant digits (read back bit for bit by strtod).
std::string
Exact(double x)
{
    std::ostringstream os;
    os << std::setprecision(std::numeric_limits<double>::max_digits10) << x;
    return os.str();
}

/// `text` as a double (strtod: also nan, -nan, inf); throws naming the column if it is not one.
double
ReadNumber(const std::string& text, const std::string& column)
{
    errno = 0;
    char* end = nullptr;
    const double x = std::strtod(text.c_str(), &end);
    if (text.empty() || end != text.c_str() + text.size())
    {
        throw std::runtime_error("merged seed rows: column " + column + ": '" + text +
                                 "' is not a number");
    }
    return x;
}

} // namespace

void
FlWriteSeedRows(std::ostream& csv,
                const std::vector<FlFigureSeries>& series,
                const FlFigureSeeds& seeds)
{
    if (seeds.size() != series.size())
    {
        throw std::invalid_argument("FlWriteSeedRows: " + std::to_string(seeds.size()) +
                                    " series of seeds for " + std::to_string(series.size()) +
                                    " series");
    }
    std::vector<std::string> header = {"series_index", "series", "round"};
    for (const auto& [name, field] : SeedColumns())
    {
        header.push_back(name);
    }
    fl::WriteCsvRecord(csv, header);
    for (std::size_t k = 0; k < series.size(); ++k)
    {
        if (seeds[k].size() != 1)
        {
            throw std::invalid_argument("FlWriteSeedRows: series '" + series[k].label + "' has " +
                                        std::to_string(seeds[k].size()) +
                                        " seeds; a job writes one");
        }
        for (const FlRoundSummary& r : seeds[k][0])
        {
            std::vector<std::string> row = {std::to_string(k),
                                            series[k].label,
                                            std::to_string(r.round)};
            for (const auto& [name, field] : SeedColumns())
            {
                row.push_back(Exact(r.*field));
            }
            fl::WriteCsvRecord(csv, row);
        }
    }
}

FlFigureSeeds
FlReadSeedRows(const std::string& mergedCsv,
               const std::vector<FlFigureSeries>& series,
               uint32_t firstRun,
               uint32_t seeds)
{
    const std::vector<std::vector<std::string>> records = fl::ReadCsvRecords(mergedCsv);
    if (records.empty())
    {
        throw std::runtime_error("merged seed rows: no header (no job finished)");
    }
    const std::vector<std::string>& header = records.front();
    const auto column = [&header](const std::string& name) {
        const auto it = std::find(header.begin(), header.end(), name);
        if (it == header.end())
        {
            throw std::runtime_error("merged seed rows: no column " + name +
                                     " (not the rows of a figure's seeds)");
        }
        return static_cast<std::size_t>(it - header.begin());
    };
    const std::size_t runColumn = column("rng_run");
    const std::size_t indexColumn = column("series_index");
    const std::size_t labelColumn = column("series");
    const std::size_t roundColumn = column("round");
    std::vector<std::size_t> valueColumns;
    for (const auto& [name, field] : SeedColumns())
    {
        valueColumns.push_back(column(name));
    }
    FlFigureSeeds out(series.size(), std::vector<std::vector<FlRoundSummary>>(seeds));
    for (std::size_t i = 1; i < records.size(); ++i)
    {
        const std::vector<std::string>& row = records[i];
        if (row.size() != header.size())
        {
            throw std::runtime_error("merged seed rows: row " + std::to_string(i) + " has " +
                                     std::to_string(row.size()) + " fields, the header " +
                                     std::to_string(header.size()));
        }
        const double run = ReadNumber(row[runColumn], "rng_run");
        const double k = ReadNumber(row[indexColumn], "series_index");
        if (run < firstRun || run >= double(firstRun) + seeds)
        {
            continue; // a run number this figure does not ask for
        }
        if (!(k >= 0 && k < series.size() && k == std::floor(k)))
        {
            throw std::runtime_error("merged seed rows: series_index " + row[indexColumn] +
                                     " is not one of the figure's " +
                                     std::to_string(series.size()) + " series");
        }
        const FlFigureSeries& s = series[static_cast<std::size_t>(k)];
        if (row[labelColumn] != s.label)
        {
            throw std::runtime_error("merged seed rows: series " + row[indexColumn] + " is '" +
                                     row[labelColumn] + "', the figure's is '" + s.label +
                                     "' (the rows of another figure)");
        }
        FlRoundSummary r;
        r.round = static_cast<uint32_t>(ReadNumber(row[roundColumn], "round"));
        for (std::size_t c = 0; c < valueColumns.size(); ++c)
        {
            r.*(SeedColumns()[c].second) = ReadNumber(row[valueColumns[c]], SeedColumns()[c].first);
        }
        out[static_cast<std::size_t>(k)][static_cast<std::size_t>(run - firstRun)].push_back(r);
    }
    for (std::size_t k = 0; k < series.size(); ++k)
    {
        for (uint32_t s = 0; s < seeds; ++s)
        {
            if (out[k][s].empty())
            {
                throw std::runtime_error("merged seed rows: series '" + series[k].label +
                                         "' has no row at RngRun " + std::to_string(firstRun + s) +
                                         " (its job did not finish)");
            }
        }
    }
    return out;
}

FlFigureRunner::FlFigureRunner(FlFigureEngine engine, std::string output, int argc, char* argv[])
    : m_engine(std::move(engine)),
      m_output(std::move(output)),
      m_run(static_cast<uint32_t>(RngSeedManager::GetRun()))
{
    std::error_code ec;
    const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
    if (!ec)
    {
        m_program = self.string();
    }
    else if (argc > 0 && argv[0])
    {
        m_program = std::filesystem::absolute(argv[0]).string();
    }
    for (int i = 1; i < argc; ++i)
    {
        m_flags.emplace_back(argv[i]);
    }
    if (m_engine.sweepDir.empty())
    {
        m_engine.sweepDir = m_output + ".sweep";
    }
    if (m_engine.sweepTool.empty())
    {
        m_engine.sweepTool = DefaultSweepTool();
    }
}

std::string
FlFigureRunner::DefaultSweepTool()
{
#ifdef FL_SOURCE_DIR
    return std::string(FL_SOURCE_DIR) + "/utils/fl-sweep";
#else
    return "utils/fl-sweep";
#endif
}

const std::vector<std::string>&
FlFigureRunner::FlagNames()
{
    static const std::vector<std::string> names =
        {"engine", "sweepDir", "sweepTool", "sweepJobs", "slurmTime", "slurmMem", "seedJob"};
    return names;
}

void
FlFigureRunner::Check(const FlFigureEngine& e, uint32_t seeds)
{
    const std::vector<std::string> engines = {"process", "serial", "parallel", "slurm"};
    if (std::find(engines.begin(), engines.end(), e.engine) == engines.end())
    {
        throw fl::ConfigError("--engine",
                              "'" + e.engine + "' is not an engine",
                              "use process, serial, parallel or slurm");
    }
    if (e.seedJob > 0 && (e.engine != "process" || seeds != 1))
    {
        throw fl::ConfigError("--seedJob",
                              "is set by the figure runner in the jobs it starts (one seed, "
                              "engine process)",
                              "leave --seedJob out; --engine runs the seeds as jobs");
    }
    if (e.engine != "slurm" && (!e.slurmTime.empty() || !e.slurmMem.empty()))
    {
        throw fl::ConfigError(e.slurmTime.empty() ? "--slurmMem" : "--slurmTime",
                              "only applies to --engine=slurm (the engine is " + e.engine + ")",
                              "add --engine=slurm or leave it out");
    }
    if (e.engine != "parallel" && e.jobs > 0)
    {
        throw fl::ConfigError("--sweepJobs",
                              "only applies to --engine=parallel (the engine is " + e.engine + ")",
                              "add --engine=parallel or leave it out");
    }
    if (e.engine == "process")
    {
        if (!e.sweepDir.empty() || !e.sweepTool.empty())
        {
            throw fl::ConfigError(e.sweepDir.empty() ? "--sweepTool" : "--sweepDir",
                                  "only applies to an engine other than process",
                                  "add --engine=serial, parallel or slurm, or leave it out");
        }
        return;
    }
    if (!e.sweepDir.empty())
    {
        // the directory, or the first of its parents that exists, must be writable
        std::error_code ec;
        std::filesystem::path p = std::filesystem::absolute(e.sweepDir, ec);
        while (!ec && !std::filesystem::exists(p, ec) && p.has_parent_path() &&
               p.parent_path() != p)
        {
            p = p.parent_path();
        }
        if (ec || access(p.c_str(), W_OK) != 0 || !std::filesystem::is_directory(p, ec))
        {
            throw fl::ConfigError("--sweepDir",
                                  "cannot create or write '" + e.sweepDir + "' (" + p.string() +
                                      " is not a writable directory)",
                                  "give a directory in a writable place");
        }
    }
    const std::string tool = e.sweepTool.empty() ? DefaultSweepTool() : e.sweepTool;
    if (access(tool.c_str(), X_OK) != 0)
    {
        throw fl::ConfigError("--sweepTool",
                              "no executable sweep runner at '" + tool + "' (" +
                                  std::strerror(errno) + "), needed by --engine=" + e.engine,
                              "give the path of the module's utils/fl-sweep with --sweepTool, "
                              "or use --engine=process");
    }
}

bool
FlFigureRunner::IsJob() const
{
    return m_engine.seedJob > 0;
}

uint32_t
FlFigureRunner::SharedRun() const
{
    return IsJob() ? m_engine.seedJob : m_run;
}

void
FlFigureRunner::AtSharedRun(const std::function<void()>& f) const
{
    const uint64_t before = RngSeedManager::GetRun();

    struct Restore
    {
        uint64_t run;

        ~Restore()
        {
            RngSeedManager::SetRun(run);
        }
    } restore{before};

    RngSeedManager::SetRun(SharedRun());
    f();
}

const std::string&
FlFigureRunner::SweepDir() const
{
    return m_engine.sweepDir;
}

namespace
{

/// `word` quoted for a POSIX shell (and fl-sweep's grid, which splits lines as one does).
std::string
ShellQuote(const std::string& word)
{
    if (!word.empty() && word.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuv"
                                                "wxyz0123456789@%+=:,./_-") == std::string::npos)
    {
        return word;
    }
    std::string out = "'";
    for (char c : word)
    {
        out += c == '\'' ? std::string("'\"'\"'") : std::string(1, c);
    }
    return out + "'";
}

} // namespace

std::string
FlFigureRunner::GridText(uint32_t seeds) const
{
    std::vector<std::string> dropped = FlagNames();
    dropped.insert(dropped.end(), {"runs", "output", "RngRun", "checkFlags"});
    std::ostringstream grid;
    grid << "# the seeds of a figure, one job each (written by the figure program; rerun the "
            "program with the same flags to resume)\n"
         << "program " << ShellQuote(m_program) << "\n"
         << "runs " << m_run << ".." << (m_run + seeds - 1) << "\n"
         << "fixed";
    for (const std::string& arg : m_flags)
    {
        if (arg.find_first_of("#\n\r") != std::string::npos)
        {
            throw fl::ConfigError("--engine",
                                  "the flag '" + arg +
                                      "' holds a '#' or a line break, which a "
                                      "sweep grid cannot carry",
                                  "leave them out of the flags, or use --engine=process");
        }
        if (arg.empty() || arg[0] != '-')
        {
            throw fl::ConfigError("--engine",
                                  "'" + arg + "' is not a --name=value flag",
                                  "give every flag as --name=value");
        }
        const std::string body = arg.substr(arg.find_first_not_of('-'));
        const std::size_t eq = body.find('=');
        const std::string name = body.substr(0, eq);
        if (std::find(dropped.begin(), dropped.end(), name) != dropped.end())
        {
            continue;
        }
        std::string value = eq == std::string::npos ? "" : body.substr(eq + 1);
        std::error_code ec;
        if (!value.empty() && value[0] != '/' && std::filesystem::exists(value, ec))
        {
            value = std::filesystem::absolute(value).string(); // jobs run in the sweep directory
        }
        grid << " " << ShellQuote("--" + name + (eq == std::string::npos ? "" : "=" + value));
    }
    grid << " --runs=1 --seedJob=" << m_run << "\n";
    return grid.str();
}

std::vector<std::string>
FlFigureRunner::SweepCommand() const
{
    std::vector<std::string> cmd = {m_engine.sweepTool,
                                    "run",
                                    m_engine.sweepDir + "/grid.txt",
                                    "--dir",
                                    m_engine.sweepDir,
                                    "--engine",
                                    m_engine.engine};
    if (m_engine.jobs > 0)
    {
        cmd.insert(cmd.end(), {"--jobs", std::to_string(m_engine.jobs)});
    }
    if (!m_engine.slurmTime.empty())
    {
        cmd.insert(cmd.end(), {"--time", m_engine.slurmTime});
    }
    if (!m_engine.slurmMem.empty())
    {
        cmd.insert(cmd.end(), {"--mem", m_engine.slurmMem});
    }
    return cmd;
}

std::string
FlFigureRunner::ProvenanceLine() const
{
    if (m_engine.engine == "process")
    {
        return "";
    }
    return "# provenance: the seeds ran as jobs of utils/fl-sweep --engine=" + m_engine.engine +
           " in " + m_engine.sweepDir + " (their rows: merged.csv there)\n";
}

std::string
FlFigureRunner::RunSweep(uint32_t seeds, const std::string& what, std::ostream& os) const
{
    std::filesystem::create_directories(m_engine.sweepDir);
    const std::string gridText = GridText(seeds);
    fl::ParseSweepGrid(gridText, m_engine.sweepDir + "/grid.txt"); // refuses what fl-sweep would
    {
        std::ofstream grid(m_engine.sweepDir + "/grid.txt");
        grid << gridText;
        if (!grid.flush())
        {
            throw fl::ConfigError("--sweepDir",
                                  "cannot write '" + m_engine.sweepDir + "/grid.txt'",
                                  "give a writable directory");
        }
    }
    const std::vector<std::string> cmd = SweepCommand();
    os << "figure: " << what << " as " << seeds << " jobs (one per seed) of";
    for (const std::string& word : cmd)
    {
        os << " " << ShellQuote(word);
    }
    os << std::endl;
    std::vector<char*> args;
    for (const std::string& word : cmd)
    {
        args.push_back(const_cast<char*>(word.c_str()));
    }
    args.push_back(nullptr);
    pid_t pid = 0;
    if (const int err = posix_spawn(&pid, args[0], nullptr, nullptr, args.data(), environ))
    {
        throw fl::ConfigError("--sweepTool",
                              "cannot start '" + cmd[0] + "': " + std::strerror(err),
                              "give the path of the module's utils/fl-sweep");
    }
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
    {
    }
    const int rc = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    if (rc == 2)
    {
        throw fl::ConfigError("--engine",
                              "utils/fl-sweep refused the sweep of " + m_engine.sweepDir +
                                  "/grid.txt (its message is above)",
                              "fix what it names, or use --engine=process");
    }
    if (rc != 0)
    {
        throw std::runtime_error("utils/fl-sweep exited with " + std::to_string(rc) +
                                 ": a job failed or is not finished (see its message above and "
                                 "the jobs' log.txt in " +
                                 m_engine.sweepDir +
                                 "/jobs); rerun the same command to run what is left");
    }
    std::ifstream in(m_engine.sweepDir + "/merged.csv");
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

FlFigureSeeds
FlFigureRunner::Run(
    const std::vector<FlFigureSeries>& series,
    uint32_t seeds,
    uint32_t rounds,
    const std::function<std::vector<FlRoundSummary>(std::size_t k)>& simulate,
    std::ostream& os,
    bool* incomplete,
    const std::function<void(std::size_t, const std::vector<std::vector<FlRoundSummary>>&)>& done)
    const
{
    FlFigureSeeds out;
    if (m_engine.engine == "process")
    {
        const uint32_t n = IsJob() ? 1 : seeds;
        for (std::size_t k = 0; k < series.size(); ++k)
        {
            out.push_back(FlRunSeries(
                series[k].label,
                k,
                series.size(),
                n,
                rounds,
                [&]() { return simulate(k); },
                os,
                incomplete));
            if (done && !IsJob())
            {
                done(k, out.back());
            }
        }
        if (IsJob())
        {
            std::ofstream csv(m_output);
            FlWriteSeedRows(csv, series, out);
            if (!csv.flush())
            {
                throw std::runtime_error("cannot write the seed rows to '" + m_output + "'");
            }
        }
        return out;
    }

    out = FlReadSeedRows(
        RunSweep(seeds,
                 std::to_string(series.size()) + " series x " + std::to_string(seeds) + " seeds",
                 os),
        series,
        m_run,
        seeds);
    for (std::size_t k = 0; k < series.size(); ++k)
    {
        for (uint32_t s = 0; s < seeds; ++s)
        {
            if (out[k][s].back().round < rounds)
            {
                std::cerr << "  " << series[k].label << " at RngRun " << m_run + s
                          << " stopped after " << out[k][s].back().round << " of " << rounds
                          << " rounds (see --maxTime)" << std::endl;
                if (incomplete)
                {
                    *incomplete = true;
                }
            }
        }
        if (done)
        {
            done(k, out[k]);
        }
    }
    os << "figure: " << series.size() << " series x " << seeds << " seeds read from "
       << m_engine.sweepDir << "/merged.csv" << std::endl;
    return out;
}

FlProgramProvenance
FlGetProgramProvenance(int argc, char* argv[])
{
    FlProgramProvenance p;
    if (argc > 0 && argv[0])
    {
        const std::string program = argv[0];
        p.provenance.program = program.substr(program.find_last_of('/') + 1);
    }
    for (int i = 1; i < argc; ++i)
    {
        p.flags += (i > 1 ? " " : "") + std::string(argv[i]);
    }
#ifdef FL_NS3_VERSION
    p.provenance.ns3Version =
        std::to_string(FL_NS3_VERSION / 100) + "." + std::to_string(FL_NS3_VERSION % 100);
#endif
    if (const char* commit = std::getenv("FL_GIT_COMMIT"))
    {
        p.provenance.gitCommit = commit;
    }
    return p;
}

} // namespace ns3
