/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Experiments in a user's own script, the ns-3 half (helper/fl-experiment-helper.h): seeds through
 * RngRun (each seed's draws are those of its run number, the run number restored), the tracker's
 * long rows as one summary per round (by hand), a program's provenance, and a figure's seeds
 * (FlFigureRunner): its per-seed rows through the sweep runner's merge bit for bit, its flags,
 * its grid, the process engine and a job, the summary and the orderings.
 */
#include "ns3/fl-experiment-helper.h"
#include "ns3/random-variable-stream.h"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <gtest/gtest.h>
#include <sstream>

using namespace ns3;

namespace
{

/// The first draw of a uniform stream 7 at the current run number.
double
FirstDraw()
{
    Ptr<UniformRandomVariable> u = CreateObject<UniformRandomVariable>();
    u->SetStream(7);
    return u->GetValue();
}

} // namespace

TEST(ExperimentHelper, SeedsAreRunNumbers)
{
    const uint64_t before = RngSeedManager::GetRun();
    RngSeedManager::SetRun(5);
    std::vector<uint32_t> done;
    const std::vector<double> draws = FlRunSeeds<double>(
        3,
        [](uint32_t) { return FirstDraw(); },
        [&](uint32_t seed, const double&) { done.push_back(seed); });
    EXPECT_EQ(RngSeedManager::GetRun(), 5u);
    EXPECT_EQ(done, (std::vector<uint32_t>{0, 1, 2}));
    for (uint32_t s = 0; s < 3; ++s)
    {
        RngSeedManager::SetRun(5 + s);
        EXPECT_EQ(draws[s], FirstDraw()) << "seed " << s;
    }
    EXPECT_NE(draws[0], draws[1]);
    // restored after a throw too
    RngSeedManager::SetRun(9);
    EXPECT_THROW(FlRunSeeds<int>(2,
                                 [](uint32_t s) -> int {
                                     if (s == 1)
                                     {
                                         throw std::runtime_error("seed 1");
                                     }
                                     return 0;
                                 }),
                 std::runtime_error);
    EXPECT_EQ(RngSeedManager::GetRun(), 9u);
    RngSeedManager::SetRun(before);
}

TEST(ExperimentHelper, RoundSummariesByHand)
{
    const std::vector<FlMetricRow> rows{
        {0, 0.1, "centroid", "worker", "test_loss", 2.0},
        {0, 0.1, "centroid", "worker", "test_accuracy", 0.1},
        {0, 0.1, "0", "worker", "test_loss", 2.5},
        {0, 0.1, "1", "worker", "test_loss", 1.5},
        {0, 0.1, "0", "worker", "test_accuracy", 0.2},
        {0, 0.1, "1", "worker", "test_accuracy", 0.4},
        {0, 0.1, "network", "worker", "disagreement", 0.0},
        {1, 0.2, "centroid", "worker", "test_accuracy", 0.5},
        {1, 0.25, "network", "worker", "epsilon", 0.75},
        {1, 0.3, "network", "worker", "disagreement", 0.125},
    };
    const auto s = FlSummariseRounds(rows);
    ASSERT_EQ(s.size(), 2u);
    EXPECT_EQ(s[0].round, 0u);
    EXPECT_NEAR(s[0].timeS, 0.1, 1e-12);
    EXPECT_NEAR(s[0].centroidLoss, 2.0, 1e-12);
    EXPECT_NEAR(s[0].centroidAccuracy, 0.1, 1e-12);
    EXPECT_NEAR(s[0].nodeLoss, 2.0, 1e-12);     // (2.5 + 1.5) / 2
    EXPECT_NEAR(s[0].nodeAccuracy, 0.3, 1e-12); // (0.2 + 0.4) / 2
    EXPECT_TRUE(std::isnan(s[0].epsilon));
    EXPECT_EQ(s[1].round, 1u);
    EXPECT_NEAR(s[1].timeS, 0.3, 1e-12); // the round's last row
    EXPECT_NEAR(s[1].centroidAccuracy, 0.5, 1e-12);
    EXPECT_NEAR(s[1].epsilon, 0.75, 1e-12);
    EXPECT_NEAR(s[1].disagreement, 0.125, 1e-12);
    EXPECT_TRUE(std::isnan(s[1].nodeLoss)); // no node evaluated in round 1
}

TEST(ExperimentHelper, ProgramProvenance)
{
    char a0[] = "/some/dir/fl-dwfl";
    char a1[] = "--figure=power";
    char a2[] = "--runs=3";
    char* argv[] = {a0, a1, a2};
    const FlProgramProvenance p = FlGetProgramProvenance(3, argv);
    EXPECT_EQ(p.provenance.program, "fl-dwfl");
    EXPECT_EQ(p.flags, "--figure=power --runs=3");
#ifdef FL_NS3_VERSION
    EXPECT_EQ(p.provenance.ns3Version,
              std::to_string(FL_NS3_VERSION / 100) + "." + std::to_string(FL_NS3_VERSION % 100));
#endif
}

TEST(ExperimentHelper, StatisticsOverSeedsByHand)
{
    FlRoundSummary a0{0, 0.1, 2.0, 0.1, 2.0, 0.1, 0.0, std::nan("")};
    FlRoundSummary a1{1, 0.2, 1.0, 0.5, 1.5, 0.4, 0.2, 0.5};
    FlRoundSummary b0{0, 0.1, 2.0, 0.1, 2.0, 0.1, 0.0, std::nan("")};
    FlRoundSummary b1{1, 0.4, 1.0, 0.7, 1.5, 0.6, 0.4, 0.5};
    FlRoundSummary b2{2, 0.6, 0.5, 0.9, 1.0, 0.8, 0.1, 0.7};
    const std::vector<std::vector<FlRoundSummary>> seeds{{a0, a1}, {b0, b1, b2}};
    const auto stats = FlRoundStatisticsOverSeeds(seeds);
    ASSERT_EQ(stats.size(), 2u); // the shortest seed
    EXPECT_EQ(stats[1].round, 1u);
    EXPECT_EQ(stats[1].seeds, 2u);
    EXPECT_NEAR(stats[1].timeS.mean, 0.3, 1e-12);
    EXPECT_NEAR(stats[1].centroidAccuracy.mean, 0.6, 1e-12);
    // {0.5, 0.7}: s = 0.1 sqrt(2), half-width 12.706205 * 0.1
    EXPECT_NEAR(stats[1].centroidAccuracy.halfWidth, 1.2706205, 1e-12);
    EXPECT_NEAR(stats[1].disagreement.mean, 0.3, 1e-12);
    EXPECT_NEAR(stats[1].epsilon.mean, 0.5, 1e-12);
    EXPECT_TRUE(std::isnan(stats[0].epsilon.mean));
    // ranking: the last max(1, (rounds - 1) / 10) = 1 round of each seed: 0.5 and 0.9
    const FlSeedsSummary s = FlSummariseSeeds(seeds);
    EXPECT_NEAR(s.accuracy.mean, 0.7, 1e-12);
    EXPECT_NEAR(s.nodeAccuracy.mean, 0.6, 1e-12);  // (0.4 + 0.8) / 2
    EXPECT_NEAR(s.disagreement.mean, 0.15, 1e-12); // (0.2 + 0.1) / 2
    EXPECT_EQ(s.accuracy.n, 2u);
}

TEST(ExperimentHelper, RunSeriesPrintsAndChecksRounds)
{
    const uint64_t before = RngSeedManager::GetRun();
    RngSeedManager::SetRun(3);
    std::ostringstream os;
    bool incomplete = false;
    uint32_t calls = 0;
    const auto seeds = FlRunSeries(
        "my series",
        1,
        4,
        2,
        1,
        [&]() {
            ++calls;
            return std::vector<FlRoundSummary>{{0, 0.1, 2.0, 0.25, 0, 0, 0.0, 0},
                                               {calls, 0.5, 1.0, 0.75, 0, 0, 0.125, 0}};
        },
        os,
        &incomplete);
    EXPECT_EQ(seeds.size(), 2u);
    EXPECT_EQ(os.str(),
              "run 2/4: my series, seed 1/2 (RngRun 3)\n"
              "  done: 1 rounds in 0.5 s simulated, test accuracy 0.75, loss 1, disagreement "
              "0.125\n"
              "run 2/4: my series, seed 2/2 (RngRun 4)\n"
              "  done: 2 rounds in 0.5 s simulated, test accuracy 0.75, loss 1, disagreement "
              "0.125\n");
    EXPECT_FALSE(incomplete);
    FlRunSeries(
        "short",
        0,
        1,
        1,
        5,
        [&]() { return seeds[0]; },
        os,
        &incomplete);
    EXPECT_TRUE(incomplete); // 1 of 5 rounds
    EXPECT_THROW(FlRunSeries(
                     "none",
                     0,
                     1,
                     1,
                     5,
                     []() { return std::vector<FlRoundSummary>{}; },
                     os,
                     nullptr),
                 std::runtime_error);
    EXPECT_EQ(RngSeedManager::GetRun(), 3u);
    RngSeedManager::SetRun(before);
}

TEST(ExperimentHelper, TaskSpecChecks)
{
    fl::TaskSpec spec; // synthetic: nothing to read
    spec.model = "softmax:l2=0";
    EXPECT_NO_THROW(fl::CheckTaskSpec(spec));
    const auto parameterOf = [](const fl::TaskSpec& s) {
        try
        {
            fl::CheckTaskSpec(s);
        }
        catch (const fl::ConfigError& e)
        {
            return e.Parameter();
        }
        return std::string();
    };
    fl::TaskSpec bad = spec;
    bad.model = "nope";
    EXPECT_EQ(parameterOf(bad), "--model");
    bad = spec;
    bad.standardise = "public";
    bad.featureShift = "1,2"; // 20 features
    EXPECT_EQ(parameterOf(bad), "--featureShift");
    bad = spec;
    bad.precision = "float8";
    EXPECT_EQ(parameterOf(bad), "--precision");
    bad = spec;
    bad.dataset = "/nonexistent/data.csv";
    EXPECT_EQ(parameterOf(bad), "--dataset");
    // the task it checks builds (20 features, 10 classes, 2 clients)
    bad = spec;
    bad.clients = 2;
    bad.samplesPerClient = 30;
    bad.testSamples = 40;
    const auto task = FlBuildTask(bad);
    ASSERT_TRUE(task);
}

// ------------------------------------------------------------------------- figures over seeds

namespace
{

/// A figure's rounds with values a text round trip could lose (1/3, 1e-300, NaN), different
/// per series k, seed s and round r.
FlFigureSeeds
AwkwardSeeds(std::size_t series, std::size_t seeds, uint32_t rounds)
{
    FlFigureSeeds out(series);
    for (std::size_t k = 0; k < series; ++k)
    {
        for (std::size_t s = 0; s < seeds; ++s)
        {
            std::vector<FlRoundSummary> rows;
            for (uint32_t r = 0; r <= rounds; ++r)
            {
                FlRoundSummary x;
                x.round = r;
                x.timeS = 0.1 + r / 3.0;
                x.centroidLoss = 2.0 / (1.0 + r + s + 7.0 * k);
                x.centroidAccuracy = (1.0 + r + s) / (7.0 + r + s + k);
                x.nodeLoss = k == 1 ? std::nan("") : std::exp(-0.1 * (r + s));
                x.nodeAccuracy = k == 1 ? std::nan("") : 1.0 / (3.0 + s);
                x.disagreement = 1e-300 * (1.0 + s) + 1e5 * r;
                x.epsilon = r == 0 ? std::nan("") : std::sqrt(2.0 * r) + s / 11.0;
                rows.push_back(x);
            }
            out[k].push_back(rows);
        }
    }
    return out;
}

/// Both doubles the same bits, or both NaN.
bool
Same(double a, double b)
{
    return (std::isnan(a) && std::isnan(b)) || std::memcmp(&a, &b, sizeof a) == 0;
}

/// What fl-sweep merges from jobs that wrote FlWriteSeedRows, seed s at run firstRun + s.
std::string
MergedSeedRows(const std::vector<FlFigureSeries>& series,
               const FlFigureSeeds& seeds,
               uint32_t firstRun)
{
    const fl::SweepGrid grid =
        fl::ParseSweepGrid("program fl-figure\nruns " + std::to_string(firstRun) + ".." +
                               std::to_string(firstRun + 2) + "\n",
                           "grid");
    std::vector<fl::SweepJobResult> jobs;
    for (std::size_t s = 0; s < seeds.front().size(); ++s)
    {
        FlFigureSeeds job;
        for (const auto& k : seeds)
        {
            job.push_back({k[s]});
        }
        std::ostringstream csv;
        FlWriteSeedRows(csv, series, job);
        fl::SweepJobResult r;
        r.point.run = firstRun + static_cast<uint32_t>(s);
        r.programFlags = "--runs=1";
        r.csv = csv.str();
        jobs.push_back(r);
    }
    std::ostringstream merged;
    fl::MergeSweepCsv(grid, jobs, {"fl-figure", "abc", "3.40"}, merged);
    return merged.str();
}

} // namespace

// The seeds of a figure written by its jobs, merged by the sweep runner and read back are the
// same doubles bit for bit, so the statistics over them are the in-process statistics exactly.
TEST(FigureRunner, SeedRowsRoundTripBitForBit)
{
    const std::vector<FlFigureSeries> series = {{"a, quoted \"label\"", "g", ""},
                                                {"b", "g", "wifi"}};
    const FlFigureSeeds seeds = AwkwardSeeds(2, 3, 4);
    const std::string merged = MergedSeedRows(series, seeds, 7);
    const FlFigureSeeds back = FlReadSeedRows(merged, series, 7, 3);
    ASSERT_EQ(back.size(), 2u);
    for (std::size_t k = 0; k < 2; ++k)
    {
        ASSERT_EQ(back[k].size(), 3u);
        for (std::size_t s = 0; s < 3; ++s)
        {
            ASSERT_EQ(back[k][s].size(), 5u);
            for (std::size_t r = 0; r < 5; ++r)
            {
                const FlRoundSummary& x = seeds[k][s][r];
                const FlRoundSummary& y = back[k][s][r];
                EXPECT_EQ(x.round, y.round);
                for (double FlRoundSummary::*f : {&FlRoundSummary::timeS,
                                                  &FlRoundSummary::centroidLoss,
                                                  &FlRoundSummary::centroidAccuracy,
                                                  &FlRoundSummary::nodeLoss,
                                                  &FlRoundSummary::nodeAccuracy,
                                                  &FlRoundSummary::disagreement,
                                                  &FlRoundSummary::epsilon})
                {
                    EXPECT_TRUE(Same(x.*f, y.*f)) << "series " << k << " seed " << s << " round "
                                                  << r << ": " << x.*f << " read back as " << y.*f;
                }
            }
        }
        const auto a = FlRoundStatisticsOverSeeds(seeds[k]);
        const auto b = FlRoundStatisticsOverSeeds(back[k]);
        ASSERT_EQ(a.size(), b.size());
        for (std::size_t r = 0; r < a.size(); ++r)
        {
            EXPECT_TRUE(Same(a[r].centroidAccuracy.mean, b[r].centroidAccuracy.mean));
            EXPECT_TRUE(Same(a[r].centroidLoss.halfWidth, b[r].centroidLoss.halfWidth));
            EXPECT_TRUE(Same(a[r].epsilon.mean, b[r].epsilon.mean));
        }
    }
    std::ostringstream inProcess;
    std::ostringstream fromJobs;
    FlReportFigure(inProcess, series, seeds, 100);
    FlReportFigure(fromJobs, series, back, 100);
    EXPECT_EQ(inProcess.str(), fromJobs.str());
}

TEST(FigureRunner, SeedRowsRefuseWhatIsNotTheFigure)
{
    const std::vector<FlFigureSeries> series = {{"a", "", ""}, {"b", "", ""}};
    const FlFigureSeeds seeds = AwkwardSeeds(2, 3, 1);
    const std::string merged = MergedSeedRows(series, seeds, 7);
    // a run number with no job
    try
    {
        FlReadSeedRows(merged, series, 7, 4);
        FAIL() << "a missing run was accepted";
    }
    catch (const std::runtime_error& e)
    {
        EXPECT_NE(std::string(e.what()).find("no row at RngRun 10"), std::string::npos) << e.what();
    }
    // the rows of another figure
    EXPECT_THROW(FlReadSeedRows(merged, {{"a", "", ""}, {"c", "", ""}}, 7, 3), std::runtime_error);
    // more series in the rows than in the figure
    EXPECT_THROW(FlReadSeedRows(merged, {{"a", "", ""}}, 7, 3), std::runtime_error);
    // not seed rows
    EXPECT_THROW(FlReadSeedRows("rng_run,x\n7,1\n", series, 7, 1), std::runtime_error);
    EXPECT_THROW(FlReadSeedRows("", series, 7, 1), std::runtime_error);
    // runs outside the figure's are not its seeds
    const FlFigureSeeds two = FlReadSeedRows(merged, series, 8, 2);
    EXPECT_TRUE(Same(two[0][0][1].centroidAccuracy, seeds[0][1][1].centroidAccuracy));
    // a job writes one seed
    std::ostringstream os;
    EXPECT_THROW(FlWriteSeedRows(os, series, seeds), std::invalid_argument);
}

TEST(FigureRunner, ChecksItsFlags)
{
    const auto parameter = [](const FlFigureEngine& e, uint32_t seeds) -> std::string {
        try
        {
            FlFigureRunner::Check(e, seeds);
        }
        catch (const fl::ConfigError& error)
        {
            EXPECT_NE(std::string(error.what()).find("(fix: "), std::string::npos);
            return error.Parameter();
        }
        return "";
    };
    FlFigureEngine e;
    EXPECT_EQ(parameter(e, 3), "");
    e.engine = "mpi";
    EXPECT_EQ(parameter(e, 3), "--engine");
    e.engine = "parallel";
    e.sweepTool = "/nonexistent/fl-sweep";
    EXPECT_EQ(parameter(e, 3), "--sweepTool");
    e.sweepTool = "/bin/true";
    EXPECT_EQ(parameter(e, 3), "");
    e.jobs = 2;
    EXPECT_EQ(parameter(e, 3), "");
    e.engine = "serial";
    EXPECT_EQ(parameter(e, 3), "--sweepJobs");
    e.jobs = 0;
    e.slurmTime = "0:10:00";
    EXPECT_EQ(parameter(e, 3), "--slurmTime");
    e.engine = "slurm";
    EXPECT_EQ(parameter(e, 3), "");
    e = FlFigureEngine();
    e.slurmMem = "1G";
    EXPECT_EQ(parameter(e, 3), "--slurmMem");
    e = FlFigureEngine();
    e.sweepDir = "sweep";
    EXPECT_EQ(parameter(e, 3), "--sweepDir");
    e.engine = "serial";
    e.sweepTool = "/bin/true";
    EXPECT_EQ(parameter(e, 3), "");
    e.sweepDir = "/dev/null/sweep"; // under a file
    EXPECT_EQ(parameter(e, 3), "--sweepDir");
    e = FlFigureEngine();
    e.sweepTool = "/bin/true";
    EXPECT_EQ(parameter(e, 3), "--sweepTool");
    e = FlFigureEngine();
    e.seedJob = 4;
    EXPECT_EQ(parameter(e, 1), "");
    EXPECT_EQ(parameter(e, 2), "--seedJob");
    e.engine = "serial";
    e.sweepTool = "/bin/true";
    EXPECT_EQ(parameter(e, 1), "--seedJob");
}

// The grid of a figure's sweep: the program itself, one job per seed, the program's own flags
// without the runner's, --runs=1 and the first run number for the shared draws.
TEST(FigureRunner, GridOfTheSeeds)
{
    const uint64_t before = RngSeedManager::GetRun();
    RngSeedManager::SetRun(3);
    std::vector<std::string> args = {"fl-figure",
                                     "--figure=power",
                                     "--runs=4",
                                     "--engine=parallel",
                                     "--sweepDir=/tmp/s",
                                     "--sweepJobs=2",
                                     "--output=f.csv",
                                     "--RngRun=3",
                                     "-quiet",
                                     "--label=a b'c"};
    std::vector<char*> argv;
    for (std::string& a : args)
    {
        argv.push_back(a.data());
    }
    FlFigureEngine e;
    e.engine = "parallel";
    e.jobs = 2;
    const FlFigureRunner runner(e, "out/f.csv", static_cast<int>(argv.size()), argv.data());
    RngSeedManager::SetRun(before);
    EXPECT_EQ(runner.SweepDir(), "out/f.csv.sweep");
    EXPECT_FALSE(runner.IsJob());
    EXPECT_EQ(runner.SharedRun(), 3u);
    const fl::SweepGrid grid = fl::ParseSweepGrid(runner.GridText(4), "grid.txt");
    EXPECT_EQ(grid.runs, (std::vector<uint32_t>{3, 4, 5, 6}));
    EXPECT_EQ(grid.fixed,
              (std::vector<std::string>{"--figure=power",
                                        "--quiet",
                                        "--label=a b'c",
                                        "--runs=1",
                                        "--seedJob=3"}));
    EXPECT_TRUE(grid.flags.empty());
    EXPECT_EQ(grid.program.front(), '/'); // this executable, absolute
    EXPECT_EQ(fl::ExpandSweepGrid(grid).size(), 4u);
    const std::vector<std::string> cmd = runner.SweepCommand();
    EXPECT_EQ(cmd.front(), FlFigureRunner::DefaultSweepTool());
    EXPECT_EQ(std::vector<std::string>(cmd.begin() + 1, cmd.end()),
              (std::vector<std::string>{"run",
                                        "out/f.csv.sweep/grid.txt",
                                        "--dir",
                                        "out/f.csv.sweep",
                                        "--engine",
                                        "parallel",
                                        "--jobs",
                                        "2"}));
    EXPECT_NE(runner.ProvenanceLine().find("# provenance: "), std::string::npos);
    // a '#' would end the grid's line early
    std::string hash = "--label=x#y";
    char* bad[] = {argv[0], hash.data()};
    EXPECT_THROW(FlFigureRunner(e, "f.csv", 2, bad).GridText(2), fl::ConfigError);
}

// The process engine runs every seed at RngRun + s; a job runs one seed at its RngRun, with the
// shared draws at the figure's first run number, and writes the rows the figure reads back.
TEST(FigureRunner, ProcessAndJob)
{
    const uint64_t before = RngSeedManager::GetRun();
    const std::vector<FlFigureSeries> series = {{"x", "", ""}, {"y", "", ""}};
    const auto simulate = [](std::size_t k) {
        FlRoundSummary r0;
        FlRoundSummary r1;
        r1.round = 1;
        r1.centroidAccuracy = FirstDraw() + k;
        return std::vector<FlRoundSummary>{r0, r1};
    };
    char name[] = "fl-figure";
    char* argv[] = {name};
    RngSeedManager::SetRun(4);
    const FlFigureRunner process(FlFigureEngine(), "f.csv", 1, argv);
    std::vector<std::size_t> done;
    std::ostringstream os;
    bool incomplete = false;
    const FlFigureSeeds seeds =
        process.Run(series,
                    2,
                    1,
                    simulate,
                    os,
                    &incomplete,
                    [&](std::size_t k, const std::vector<std::vector<FlRoundSummary>>& s) {
                        done.push_back(k);
                        EXPECT_EQ(s.size(), 2u);
                    });
    EXPECT_EQ(done, (std::vector<std::size_t>{0, 1}));
    EXPECT_FALSE(incomplete);
    EXPECT_EQ(RngSeedManager::GetRun(), 4u);
    double shared = 0.0;
    process.AtSharedRun([&]() { shared = FirstDraw(); });
    EXPECT_EQ(shared, seeds[0][0][1].centroidAccuracy); // the first seed is RngRun itself

    // the job of the second seed: --RngRun=5 --seedJob=4
    const std::string rows = testing::TempDir() + "fl-figure-job.csv";
    FlFigureEngine e;
    e.seedJob = 4;
    RngSeedManager::SetRun(5);
    const FlFigureRunner job(e, rows, 1, argv);
    EXPECT_TRUE(job.IsJob());
    EXPECT_EQ(job.SharedRun(), 4u);
    job.AtSharedRun([&]() { EXPECT_EQ(FirstDraw(), shared); });
    EXPECT_EQ(RngSeedManager::GetRun(), 5u);
    done.clear();
    const FlFigureSeeds one =
        job.Run(series, 2, 3, simulate, os, &incomplete, [&](auto k, auto&) { done.push_back(k); });
    EXPECT_TRUE(done.empty()); // a job writes rows, not the figure
    EXPECT_TRUE(incomplete);   // 1 of 3 rounds
    ASSERT_EQ(one.size(), 2u);
    ASSERT_EQ(one[1].size(), 1u);
    EXPECT_EQ(one[1][0][1].centroidAccuracy, seeds[1][1][1].centroidAccuracy);
    std::ifstream in(rows);
    std::stringstream text;
    text << in.rdbuf();
    fl::SweepJobResult r;
    r.point.run = 5;
    r.csv = text.str();
    std::ostringstream merged;
    fl::MergeSweepCsv(fl::ParseSweepGrid("program fl-figure\nruns 5\n", "grid"),
                      {r},
                      {"fl-figure", "unknown", "unknown"},
                      merged);
    const FlFigureSeeds back = FlReadSeedRows(merged.str(), series, 5, 1);
    EXPECT_EQ(back[1][0][1].centroidAccuracy, seeds[1][1][1].centroidAccuracy);
    std::remove(rows.c_str());
    RngSeedManager::SetRun(before);
}

TEST(FigureRunner, ReportPrintsSeriesAndOrderings)
{
    FlFigureSeeds seeds(2);
    for (std::size_t k = 0; k < 2; ++k)
    {
        for (double acc : {0.8 - 0.3 * k, 0.82 - 0.3 * k})
        {
            FlRoundSummary r;
            r.centroidAccuracy = acc;
            r.nodeAccuracy = acc;
            seeds[k].push_back({r});
        }
    }
    std::ostringstream os;
    const auto verdicts =
        FlReportFigure(os, {{"best", "claim", "sender"}, {"worst", "claim", ""}}, seeds, 100);
    ASSERT_EQ(verdicts.size(), 1u);
    EXPECT_EQ(verdicts[0].group, "claim");
    EXPECT_EQ(verdicts[0].result.verdict, fl::OrderingVerdict::Holds);
    const std::string text = os.str();
    EXPECT_NE(text.find("  best [sender]: accuracy 0.81 +- "), std::string::npos) << text;
    EXPECT_NE(text.find("  worst: accuracy 0.51 +- "), std::string::npos) << text;
    EXPECT_NE(text.find("  ordering, claim: "), std::string::npos) << text;
    // the claim reversed does not hold
    std::swap(seeds[0], seeds[1]);
    std::ostringstream reversed;
    EXPECT_EQ(FlReportFigure(reversed, {{"a", "claim", ""}, {"b", "claim", ""}}, seeds, 100)
                  .front()
                  .result.verdict,
              fl::OrderingVerdict::DoesNotHold);
}
