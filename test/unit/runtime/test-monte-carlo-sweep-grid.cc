/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Experiments in a user's own script (model/runtime/monte-carlo.h): Monte-Carlo runs on the pool
 * give the results and the commit order of the serial loop for 1, 2 and 4 threads; statistics over
 * runs, window means and orderings against hand values; CSV records as Python's csv module writes
 * them; the sweep grid of utils/fl-sweep (format, errors naming the line, expansion order) and its
 * merged CSV, byte for byte.
 */
#include "ns3/monte-carlo.h"
#include "ns3/sweep-grid.h"
#include "ns3/fl-types.h"

#include <cmath>
#include <cstring>
#include <gtest/gtest.h>
#include <iomanip>
#include <random>
#include <sstream>

using namespace ns3;

namespace
{

/// A run whose result depends on its index only (its own generator).
double
NoisyRun(std::size_t i)
{
    std::mt19937_64 rng(1000 + i);
    std::normal_distribution<double> normal(0.0, 1.0);
    double sum = 0.0;
    for (int k = 0; k < 1000; ++k)
    {
        sum += normal(rng);
    }
    return sum;
}

/// The ConfigError message of parsing `text` as grid "g" (empty if it parses).
std::string
GridError(const std::string& text)
{
    try
    {
        fl::ParseSweepGrid(text, "g");
    }
    catch (const fl::ConfigError& e)
    {
        return e.what();
    }
    return "";
}

} // namespace

TEST(Experiment, MonteCarloIsIndependentOfTheThreads)
{
    std::vector<std::size_t> serialOrder;
    const std::vector<double> serial =
        fl::MonteCarlo<double>(12, NoisyRun, nullptr, [&](std::size_t i, const double&) {
            serialOrder.push_back(i);
        });
    ASSERT_EQ(serial.size(), 12u);
    for (std::size_t threads : {1u, 2u, 4u})
    {
        fl::ThreadPool pool(threads);
        std::vector<std::size_t> order;
        double sum = 0.0;
        const std::vector<double> parallel =
            fl::MonteCarlo<double>(12, NoisyRun, &pool, [&](std::size_t i, const double& r) {
                order.push_back(i);
                sum += r;
            });
        EXPECT_EQ(parallel, serial) << threads << " threads";
        EXPECT_EQ(order, serialOrder) << threads << " threads";
        double serialSum = 0.0;
        for (double r : serial)
        {
            serialSum += r;
        }
        EXPECT_EQ(sum, serialSum);
    }
    for (std::size_t i = 0; i < serialOrder.size(); ++i)
    {
        EXPECT_EQ(serialOrder[i], i);
        EXPECT_EQ(serial[i], NoisyRun(i));
    }
}

TEST(Experiment, MonteCarloRethrowsAfterTheEarlierRuns)
{
    fl::ThreadPool pool(2);
    std::vector<std::size_t> done;
    EXPECT_THROW(fl::MonteCarlo<int>(
                     5,
                     [](std::size_t i) -> int {
                         if (i == 3)
                         {
                             throw std::runtime_error("run 3");
                         }
                         return static_cast<int>(i);
                     },
                     &pool,
                     [&](std::size_t i, const int&) { done.push_back(i); }),
                 std::runtime_error);
    EXPECT_EQ(done, (std::vector<std::size_t>{0, 1, 2}));
}

TEST(Experiment, MeanCiPerIndexByHand)
{
    // index 0: {1, 3}: mean 2, s = sqrt(2), half-width t_{0.975,1} s / sqrt(2) = 12.706205;
    // index 1: {2, 4}: the same spread; index 2 only in the first run: not summarised
    const auto m = fl::MeanCiPerIndex({{1.0, 2.0, 5.0}, {3.0, 4.0}});
    ASSERT_EQ(m.size(), 2u);
    EXPECT_NEAR(m[0].mean, 2.0, 1e-12);
    EXPECT_NEAR(m[0].halfWidth, 12.706205, 1e-12);
    EXPECT_EQ(m[0].n, 2u);
    EXPECT_NEAR(m[1].mean, 3.0, 1e-12);
    // three runs {0.1, 0.2, 0.6}: mean 0.3, s^2 = (0.04 + 0.01 + 0.09) / 2 = 0.07,
    // half-width 4.302653 sqrt(0.07 / 3)
    const auto three = fl::MeanCiPerIndex({{0.1}, {0.2}, {0.6}});
    ASSERT_EQ(three.size(), 1u);
    EXPECT_NEAR(three[0].mean, 0.3, 1e-12);
    EXPECT_NEAR(three[0].halfWidth, 4.302653 * std::sqrt(0.07 / 3.0), 1e-12);
    EXPECT_TRUE(fl::MeanCiPerIndex({}).empty());
}

TEST(Experiment, WindowAndTailMeansByHand)
{
    const std::vector<double> v{0.0, 1.0, 2.0, 4.0, 8.0};
    EXPECT_NEAR(fl::WindowMean(v, 1, 3), 7.0 / 3.0, 1e-12);
    EXPECT_NEAR(fl::WindowMean(v, 3, 99), 6.0, 1e-12); // clipped to the values
    EXPECT_TRUE(std::isnan(fl::WindowMean(v, 5, 6)));
    EXPECT_TRUE(std::isnan(fl::WindowMean(v, 3, 2)));
    // 5 values = rounds 0..4: (5 - 1) / 10 = 0, so the last one
    EXPECT_NEAR(fl::TailMean(v, 10), 8.0, 1e-12);
    // 21 values = rounds 0..20: the last 2
    std::vector<double> w(21, 0.0);
    w[19] = 0.5;
    w[20] = 0.75;
    EXPECT_NEAR(fl::TailMean(w, 10), 0.625, 1e-12);
}

TEST(Experiment, OrderingVerdictsByHand)
{
    fl::MeanCi a{0.8, 0.0, 1};
    fl::MeanCi b{0.7, 0.0, 1};
    auto r = fl::CheckOrdering({{"a", a}, {"b", b}}, 100);
    EXPECT_EQ(r.verdict, fl::OrderingVerdict::Holds);
    EXPECT_EQ(r.text, "a (0.8) >= b (0.7): holds");

    // one run each: 2 sqrt(p (1 - p) / m) = 2 sqrt(0.7 * 0.3 / 100) = 0.0916515...; an
    // inversion of 0.09 is within it, 0.1 is not
    r = fl::CheckOrdering({{"b", b}, {"c", {0.79, 0.0, 1}}}, 100);
    EXPECT_EQ(r.verdict, fl::OrderingVerdict::HoldsWithinNoise);
    EXPECT_EQ(r.text, "b (0.7) >= c (0.79): holds within noise (2 standard errors)");
    r = fl::CheckOrdering({{"b", b}, {"c", {0.8, 0.0, 1}}}, 100);
    EXPECT_EQ(r.verdict, fl::OrderingVerdict::DoesNotHold);
    EXPECT_EQ(r.text, "b (0.7) >= c (0.8): does not hold");
    // without a sample count any inversion fails
    EXPECT_EQ(fl::CheckOrdering({{"b", b}, {"c", {0.7001, 0.0, 1}}}).verdict,
              fl::OrderingVerdict::DoesNotHold);

    // several runs: the CI of the difference sqrt(0.03^2 + 0.04^2) = 0.05
    fl::MeanCi x{0.60, 0.03, 5};
    EXPECT_EQ(fl::CheckOrdering({{"x", x}, {"y", {0.649, 0.04, 5}}}).verdict,
              fl::OrderingVerdict::HoldsWithinNoise);
    EXPECT_EQ(fl::CheckOrdering({{"x", x}, {"y", {0.651, 0.04, 5}}}).verdict,
              fl::OrderingVerdict::DoesNotHold);
    r = fl::CheckOrdering({{"x", x}, {"y", {0.62, 0.04, 5}}});
    EXPECT_EQ(r.text, "x (0.6 +- 0.03) >= y (0.62 +- 0.04): holds within noise (95 % CI)");
    // a failure anywhere in a chain decides
    r = fl::CheckOrdering({{"a", a}, {"b", b}, {"c", {0.9, 0.0, 1}}, {"d", {0.1, 0.0, 1}}}, 100);
    EXPECT_EQ(r.verdict, fl::OrderingVerdict::DoesNotHold);
}

TEST(Experiment, AboveOverRounds)
{
    // A: runs {0, 0.5, 0.7, 0.9} and {0, 0.52, 0.8, 1.0}: rounds 2..3 give 0.8 and 0.9
    // B: one value of 0.85 and 0.95 over the same rounds: B above A
    const std::vector<std::vector<double>> a{{0.0, 0.5, 0.7, 0.9}, {0.0, 0.52, 0.8, 1.0}};
    const std::vector<std::vector<double>> b{{0.0, 0.1, 0.8, 0.9}, {0.0, 0.1, 0.9, 1.0}};
    auto r = fl::CheckAboveOverRounds("B", b, "A", a, 2, 3);
    EXPECT_EQ(r.verdict, fl::OrderingVerdict::Holds);
    // B's means 0.85, 0.95: mean 0.9, half-width 12.706205 * sqrt(0.005) / sqrt(2)
    std::ostringstream expected;
    expected << "B over rounds 2..3 (0.9 +- " << std::setprecision(2)
             << 12.706205 * std::sqrt(0.005) / std::sqrt(2.0) << ") >= A (0.85 +- "
             << 12.706205 * std::sqrt(0.005) / std::sqrt(2.0) << "): holds";
    EXPECT_EQ(r.text, expected.str());
    // over rounds 1..1 A (0.51 +- 12.706205 * 0.01) is above B (0.1) by more than its CI
    EXPECT_EQ(fl::CheckAboveOverRounds("B", b, "A", a, 1, 1).verdict,
              fl::OrderingVerdict::DoesNotHold);
    EXPECT_THROW(fl::CheckAboveOverRounds("B", b, "A", a, 3, 2), fl::ConfigError);
}

TEST(Experiment, CsvRecordsAsPythonWritesThem)
{
    std::ostringstream os;
    fl::WriteCsvRecord(os, {"a", "b,c", "say \"hi\"", "", "x\ny"});
    fl::WriteCsvRecord(os, {""});
    EXPECT_EQ(os.str(), "a,\"b,c\",\"say \"\"hi\"\"\",,\"x\ny\"\n\"\"\n");
    const auto records = fl::ReadCsvRecords("h1,h2\r\n# a comment, not a row\n" + os.str());
    ASSERT_EQ(records.size(), 3u);
    EXPECT_EQ(records[0], (std::vector<std::string>{"h1", "h2"}));
    EXPECT_EQ(records[1], (std::vector<std::string>{"a", "b,c", "say \"hi\"", "", "x\ny"}));
    EXPECT_EQ(records[2], (std::vector<std::string>{""}));
    EXPECT_EQ(fl::ReadCsvRecords("a,b").size(), 1u); // no final line break
}

TEST(Experiment, SweepGridFormatAndExpansion)
{
    const fl::SweepGrid grid =
        fl::ParseSweepGrid("# a sweep\n"
                           "program fl-fedavg-wifi\n"
                           "flag clients 10 20   # two sizes\n"
                           "flag --transport tcp udp\n"
                           "runs 3..4\n"
                           "fixed --rounds=5 '--model=mlp:hidden=8' --quiet\n",
                           "g");
    EXPECT_EQ(grid.program, "fl-fedavg-wifi");
    ASSERT_EQ(grid.flags.size(), 2u);
    EXPECT_EQ(grid.flags[1].name, "transport");
    EXPECT_EQ(grid.flags[1].where, "g:4");
    EXPECT_EQ(grid.runs, (std::vector<uint32_t>{3, 4}));
    EXPECT_EQ(grid.fixed,
              (std::vector<std::string>{"--rounds=5", "--model=mlp:hidden=8", "--quiet"}));
    const auto points = fl::ExpandSweepGrid(grid);
    ASSERT_EQ(points.size(), 8u);
    // the first flag slowest, the runs fastest
    EXPECT_EQ(points[0].flags,
              (std::vector<std::pair<std::string, std::string>>{{"clients", "10"},
                                                                {"transport", "tcp"}}));
    EXPECT_EQ(points[1].run, 4u);
    EXPECT_EQ(points[2].flags[1].second, "udp");
    EXPECT_EQ(points[4].flags[0].second, "20");
    EXPECT_EQ(points[7].Args(grid),
              (std::vector<std::string>{"--clients=20",
                                        "--transport=udp",
                                        "--rounds=5",
                                        "--model=mlp:hidden=8",
                                        "--quiet",
                                        "--RngRun=4"}));
    const fl::SweepGrid plain = fl::ParseSweepGrid("program p\nruns 1,3 5..6\n", "g");
    EXPECT_EQ(plain.runs, (std::vector<uint32_t>{1, 3, 5, 6}));
    EXPECT_EQ(fl::ExpandSweepGrid(plain).size(), 4u);
    EXPECT_EQ(fl::ParseSweepGrid("program p\n", "g").runs, (std::vector<uint32_t>{1}));
}

TEST(Experiment, SweepGridErrorsNameTheLine)
{
    EXPECT_EQ(GridError("program p\nbogus x\n"),
              "fl: invalid g:2: 'bogus' is not a grid directive (fix: use program, flag, runs or "
              "fixed)");
    EXPECT_EQ(GridError("flag a 1\n"),
              "fl: invalid g: no program (fix: a 'program NAME' line in the grid)");
    EXPECT_NE(GridError("program p\nprogram q\n").find("g:2: a second 'program' line"),
              std::string::npos);
    EXPECT_NE(GridError("program p\nflag a 1\nflag a 2\n").find("given twice (also at g:2)"),
              std::string::npos);
    EXPECT_NE(GridError("program p\nflag a 1 1\n").find("repeats a value"), std::string::npos);
    EXPECT_NE(GridError("program p\nflag output x\n").find("cannot be swept"), std::string::npos);
    EXPECT_NE(GridError("program p\nfixed --RngRun=3\n").find("cannot be fixed"),
              std::string::npos);
    EXPECT_NE(GridError("program p\nflag a 1\nfixed --a=2\n").find("also given at g:2"),
              std::string::npos);
    EXPECT_NE(GridError("program p\nflag 9a 1\n").find("is not a flag name"), std::string::npos);
    EXPECT_NE(GridError("program p\nflag a\n").find("has no value"), std::string::npos);
    EXPECT_NE(GridError("program p\nruns 5..2\n").find("empty or starts below 1"),
              std::string::npos);
    EXPECT_NE(GridError("program p\nruns 0\n").find("'0' is not a run number"), std::string::npos);
    EXPECT_NE(GridError("program p\nruns 1 1\n").find("repeated"), std::string::npos);
    EXPECT_NE(GridError("program p\nruns 1\nruns 2\n").find("a second 'runs' line"),
              std::string::npos);
    EXPECT_NE(GridError("program p\nfixed rounds=3\n").find("is not a flag"), std::string::npos);
    EXPECT_NE(GridError("program 'p\n").find("g:1"), std::string::npos);
    EXPECT_THROW(fl::ReadSweepGrid("/nonexistent/grid.txt"), fl::ConfigError);
}

TEST(Experiment, MergeAsTheSweepRunnerDoes)
{
    const fl::SweepGrid grid = fl::ParseSweepGrid("program prog\nflag n 2 3\nruns 1\n", "g");
    const auto points = fl::ExpandSweepGrid(grid);
    std::vector<fl::SweepJobResult> jobs{
        {points[0],
         "--n=2 --RngRun=1 --output=jobs/a/out.csv",
         "round,acc\n# note\n0,0.5\n1,0.6\n"},
        {points[1], "--n=3 --RngRun=1 --output=jobs/b/out.csv", "round,acc\n0,\"0,7\"\n"}};
    fl::SweepProvenance prov{"prog", "abc123", "3.42"};
    std::ostringstream out;
    EXPECT_EQ(fl::MergeSweepCsv(grid, jobs, prov, out), 3u);
    EXPECT_EQ(out.str(),
              "n,rng_run,round,acc,program,program_flags,git_commit,ns3_version\n"
              "2,1,0,0.5,prog,--n=2 --RngRun=1 --output=jobs/a/out.csv,abc123,3.42\n"
              "2,1,1,0.6,prog,--n=2 --RngRun=1 --output=jobs/a/out.csv,abc123,3.42\n"
              "3,1,0,\"0,7\",prog,--n=3 --RngRun=1 --output=jobs/b/out.csv,abc123,3.42\n");
    // a grid column named like a CSV column: every grid column gets the prefix flag_
    jobs[0].csv = "n,acc\n5,0.1\n";
    jobs[1].csv = "";
    std::ostringstream clash;
    EXPECT_EQ(fl::MergeSweepCsv(grid, jobs, prov, clash), 1u);
    EXPECT_EQ(clash.str().substr(0, clash.str().find('\n')),
              "flag_n,rng_run,n,acc,program,program_flags,git_commit,ns3_version");
    // other columns in a later job
    jobs[1].csv = "m,acc\n1,2\n";
    std::ostringstream bad;
    EXPECT_THROW(fl::MergeSweepCsv(grid, jobs, prov, bad), fl::ConfigError);
}

TEST(Experiment, OrderingGroups)
{
    const auto results = fl::CheckOrderingGroups({"N=30", "N=10", "", "N=10", "N=30"},
                                                 {{"a", {0.9, 0.0, 1}},
                                                  {"b", {0.8, 0.0, 1}},
                                                  {"x", {1.0, 0.0, 1}},
                                                  {"c", {0.7, 0.0, 1}},
                                                  {"d", {0.95, 0.0, 1}}});
    ASSERT_EQ(results.size(), 2u);
    EXPECT_EQ(results[0].group, "N=10"); // groups in the order of their names
    EXPECT_EQ(results[0].result.text, "b (0.8) >= c (0.7): holds");
    EXPECT_EQ(results[1].group, "N=30");
    EXPECT_EQ(results[1].result.verdict, fl::OrderingVerdict::DoesNotHold);
    EXPECT_THROW(fl::CheckOrderingGroups({"a"}, {}), fl::ConfigError);
}

namespace
{

/// A one-run series map of run r: values that no decimal rounding keeps (thirds, tiny, huge,
/// negative), a gap the run left at indices 1, 2 of "gap", a NaN, sums that depend on the order.
fl::MonteCarloSeriesMap
OneRun(uint32_t r)
{
    fl::MonteCarloSeriesMap m;
    for (const std::string key : {"f/a", "f/b/s2=0.1"})
    {
        fl::MonteCarloSeries& s = m[key];
        s.runs = 1;
        const double base = key == "f/a" ? 1.0 : -7.0;
        for (std::size_t i = 0; i < 4; ++i)
        {
            s.Add("msd", i, base / (3.0 + r + i) + 1e-17 * i);
        }
        s.Add("gap", 0, 1e-300 * (r + 1));
        s.Add("gap", 3, 1e300 / (r + 3));
        s.Add("nan", 0, r == 1 ? std::nan("") : 0.1 * r);
        // 1e16 + 1 rounds to 1e16: in run order 1e16, 1, -1e16 sum to 0, in another to 1
        s.Add("order", 0, r == 0 ? 1e16 : (r == 1 ? 1.0 : -1e16));
    }
    return m;
}

/// Bits of every sum, square and run count of `m`, equal for equal doubles (NaN included).
std::string
Bits(const fl::MonteCarloSeriesMap& m)
{
    std::ostringstream os;
    for (const auto& [key, s] : m)
    {
        os << key << " " << s.runs << "\n";
        for (const auto* vectors : {&s.sums, &s.sumSquares})
        {
            for (const auto& [metric, v] : *vectors)
            {
                os << metric << ":";
                for (double x : v)
                {
                    uint64_t u;
                    std::memcpy(&u, &x, sizeof u);
                    os << " " << std::hex << u << std::dec;
                }
                os << "\n";
            }
        }
        for (const auto& [metric, text] : s.statements)
        {
            os << metric << " = " << text << "\n";
        }
    }
    return os.str();
}

/// The merged CSV of utils/fl-sweep of jobs at rng_run first + r writing run r's rows (job
/// order as given).
std::string
MergedRunRows(uint32_t first, const std::vector<uint32_t>& order)
{
    const fl::SweepGrid grid = fl::ParseSweepGrid("program prog\nruns " + std::to_string(first) +
                                                      ".." + std::to_string(first + 2) + "\n",
                                                  "g");
    const auto points = fl::ExpandSweepGrid(grid);
    std::vector<fl::SweepJobResult> jobs;
    for (uint32_t r : order)
    {
        std::ostringstream csv;
        fl::WriteMonteCarloRunRows(csv, OneRun(r), r);
        jobs.push_back({points.at(r), "--runs=1", csv.str()});
    }
    std::ostringstream out;
    fl::MergeSweepCsv(grid, jobs, fl::SweepProvenance{"prog"}, out);
    return out.str();
}

} // namespace

TEST(Experiment, MonteCarloRunRowsRoundTripBitForBit)
{
    const fl::MonteCarloSeriesMap run = OneRun(1);
    std::ostringstream csv;
    fl::WriteMonteCarloRunRows(csv, run, 1);
    const std::string text = csv.str();
    EXPECT_EQ(text.substr(0, text.find('\n')), "run,variant,metric,index,sum,sum_square");
    // 17 significant digits: 1/4 of run 1 at index 0 is exact, 1/3 is not
    EXPECT_NE(text.find("\n1,f/a,msd,0,0.25,0.0625\n"), std::string::npos);
    EXPECT_NE(text.find("\n1,f/a,msd,1,0.20000000000000001,"), std::string::npos);
    EXPECT_NE(text.find("\n1,f/a,gap,1,0,0\n"), std::string::npos); // the gap is written
    EXPECT_NE(text.find("\n1,f/a,nan,0,nan,nan\n"), std::string::npos);
    // read back through the sweep runner's merge: the same bits
    fl::MonteCarloSeriesMap back{{"f/a", {}}, {"f/b/s2=0.1", {}}};
    fl::MergeMonteCarloRunRows(MergedRunRows(5, {1, 0}), back, 5, 2); // rng_run 5 + r: run r
    fl::MonteCarloSeriesMap want{{"f/a", {}}, {"f/b/s2=0.1", {}}};
    for (auto& [key, s] : want)
    {
        s.Merge(OneRun(0).at(key));
        s.Merge(run.at(key));
    }
    EXPECT_EQ(back.at("f/a").runs, 2U);
    EXPECT_EQ(Bits(back), Bits(want));
    // a job writes one run, with metrics
    fl::MonteCarloSeriesMap two = run;
    two["f/a"].runs = 2;
    std::ostringstream sink;
    EXPECT_THROW(fl::WriteMonteCarloRunRows(sink, two, 0), std::invalid_argument);
    fl::MonteCarloSeriesMap empty{{"f/c", {}}};
    empty["f/c"].runs = 1;
    EXPECT_THROW(fl::WriteMonteCarloRunRows(sink, empty, 0), std::invalid_argument);
}

TEST(Experiment, MonteCarloRunRowsMergeInRunOrderAsInProcess)
{
    // in process: three runs of two variants, merged run after run (with a pool too)
    const std::vector<std::string> keys = {"f/a", "f/b/s2=0.1"};
    fl::MonteCarloSeriesMap inProcess;
    inProcess["f/a"].statements["nan"] = "what it means";
    std::ostringstream lines;
    fl::ThreadPool pool(2);
    fl::MonteCarloVariants<fl::MonteCarloSeriesMap>(
        3,
        keys,
        inProcess,
        [](uint32_t r) { return OneRun(r); },
        [&keys](const fl::MonteCarloSeriesMap& setup,
                std::size_t v,
                uint32_t,
                fl::MonteCarloSeries& series,
                std::ostream&) {
            const fl::MonteCarloSeries& mine = setup.at(keys[v]);
            series.sums = mine.sums;
            series.sumSquares = mine.sumSquares;
        },
        &pool,
        lines);
    // the sums are not associative: in run order "order" sums to 0, in job order to 1
    ASSERT_EQ(inProcess.at("f/a").sums.at("order")[0], 0.0);
    ASSERT_EQ(((0.0 + -1e16) + 1e16) + 1.0, 1.0);
    // jobs finished in another order (run 2 first): merged in run order all the same
    fl::MonteCarloSeriesMap fromJobs;
    fromJobs["f/a"].statements["nan"] = "what it means";
    fromJobs["f/b/s2=0.1"];
    fl::MergeMonteCarloRunRows(MergedRunRows(4, {2, 0, 1}), fromJobs, 4, 3);
    EXPECT_EQ(fromJobs.at("f/a").runs, 3U);
    EXPECT_EQ(Bits(fromJobs), Bits(inProcess));
    // the mean at index 0 of f/a: (1/3 + 1/4 + 1/5) / 3
    EXPECT_NEAR(fromJobs.at("f/a").Mean("msd", 0), (1.0 / 3 + 1.0 / 4 + 1.0 / 5) / 3, 1e-12);
}

TEST(Experiment, MonteCarloRunRowsRefuseMissingAndForeignRuns)
{
    const auto message = [](const std::string& merged,
                            fl::MonteCarloSeriesMap skeleton,
                            uint32_t first,
                            uint32_t runs) {
        try
        {
            fl::MergeMonteCarloRunRows(merged, skeleton, first, runs);
        }
        catch (const std::runtime_error& e)
        {
            return std::string(e.what());
        }
        return std::string();
    };
    const fl::MonteCarloSeriesMap skeleton{{"f/a", {}}, {"f/b/s2=0.1", {}}};
    // run 1's job did not finish
    EXPECT_NE(message(MergedRunRows(1, {0, 2}), skeleton, 1, 3).find("has no row at run 1"),
              std::string::npos);
    // a variant the figure does not have (another figure's sweep)
    EXPECT_NE(message(MergedRunRows(1, {0}), {{"f/a", {}}}, 1, 1).find("another figure"),
              std::string::npos);
    // a job of run 0 at rng_run 2 (first run 1: run 1 expected)
    std::string shifted = MergedRunRows(1, {0});
    std::size_t at = 0;
    while ((at = shifted.find("\n1,0,", at)) != std::string::npos)
    {
        shifted.replace(at, 5, "\n2,0,");
    }
    EXPECT_NE(message(shifted, skeleton, 1, 2).find("expected run 1"), std::string::npos);
    // not the rows of a Monte Carlo
    EXPECT_NE(message("rng_run,round\n1,0\n", skeleton, 1, 1).find("no column run"),
              std::string::npos);
    EXPECT_NE(message("", skeleton, 1, 1).find("no job finished"), std::string::npos);
    // a value that is not a number
    std::string bad = MergedRunRows(1, {0});
    bad.replace(bad.find(",0.25,"), 6, ",x,");
    EXPECT_NE(message(bad, skeleton, 1, 1).find("column sum: 'x'"), std::string::npos);
    // rows of other run numbers are ignored
    EXPECT_EQ(message(MergedRunRows(1, {0, 1, 2}), skeleton, 1, 2), "");
}
