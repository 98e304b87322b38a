/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The GFL / GHP figures as the programs' shared parts (examples/support/gfl-figures.h) and the Monte-Carlo series and
 * level claims under them (model/runtime/monte-carlo.h): series merged over hand-made runs give
 * the hand-computed mean, 95 % CI and steady state; Monte Carlo over variants gives the same sums
 * and lines on 1 and 3 threads; a claim that is violated is reported as such; the figures'
 * definitions expand to the variants and settings of the papers; the CSV and the summary lines
 * are byte for byte the expected text; bad combinations of settings name the flag; the figures
 * and a user's own sweep run through the same parts.
 */
#include "ns3/monte-carlo.h"
#include "ns3/sweep-grid.h"
#include "ns3/fl-types.h"
#include "../examples/support/gfl-figures.h"

#include <atomic>
#include <cmath>
#include <gtest/gtest.h>
#include <sstream>

using namespace ns3;

namespace
{

/// A one-run series with `values` of `metric` at indices 0, 1, ...
fl::MonteCarloSeries
OneRun(const std::string& metric, const std::vector<double>& values)
{
    fl::MonteCarloSeries s;
    for (std::size_t i = 0; i < values.size(); ++i)
    {
        s.Add(metric, i, values[i]);
    }
    s.runs = 1;
    return s;
}

/// A series whose metric has the constant mean `level` over `n` iterations of one run.
fl::MonteCarloSeries
Constant(const std::string& metric, double level, std::size_t n = 8)
{
    return OneRun(metric, std::vector<double>(n, level));
}

/// The text without the lines that carry a wall time.
std::string
WithoutWallLines(const std::string& text)
{
    std::istringstream in(text);
    std::string line;
    std::string out;
    while (std::getline(in, line))
    {
        if (line.find(" s wall") == std::string::npos)
        {
            out += line + "\n";
        }
    }
    return out;
}

/// The ConfigError message of CheckGflFigureOptions(o) (empty if it passes).
std::string
OptionsError(const GflFigureOptions& o)
{
    try
    {
        CheckGflFigureOptions(o);
    }
    catch (const fl::ConfigError& e)
    {
        return e.what();
    }
    return "";
}

} // namespace

TEST(MonteCarloSeries, MergeOfThreeRunsGivesTheHandMeanAndCi)
{
    fl::MonteCarloSeries total;
    total.Merge(OneRun("msd", {1.0, 10.0}));
    total.Merge(OneRun("msd", {2.0, 20.0}));
    total.Merge(OneRun("msd", {6.0, 60.0}));
    EXPECT_EQ(total.runs, 3U);
    // index 0: mean 3, s^2 = (4 + 1 + 9) / 2 = 7, t_{0.975, 2} = 4.302653 (the table)
    EXPECT_NEAR(total.Mean("msd", 0), 3.0, 1e-12);
    const fl::MeanCi m0 = total.MeanCiAt("msd", 0);
    EXPECT_EQ(m0.n, 3U);
    EXPECT_NEAR(m0.mean, 3.0, 1e-12);
    EXPECT_NEAR(m0.halfWidth, 6.572411020542944, 1e-12); // 4.302653 sqrt(7 / 3)
    // index 1: mean 30, s^2 = (400 + 100 + 900) / 2 = 700
    EXPECT_NEAR(total.Mean("msd", 1), 30.0, 1e-12);
    EXPECT_NEAR(total.MeanCiAt("msd", 1).halfWidth, 65.72411020542944, 1e-11);
    // the same as MeanCi95 of the runs' values
    const fl::MeanCi direct = fl::MeanCi95({1.0, 2.0, 6.0});
    EXPECT_NEAR(m0.halfWidth, direct.halfWidth, 1e-12);
    // one run: no interval
    EXPECT_TRUE(std::isnan(OneRun("msd", {1.0}).MeanCiAt("msd", 0).halfWidth));
}

TEST(MonteCarloSeries, MergeKeepsTheLongerRunAndAddsUnequalLengths)
{
    fl::MonteCarloSeries total;
    total.Merge(OneRun("x", {1.0}));
    total.Merge(OneRun("x", {2.0, 4.0, 8.0}));
    ASSERT_EQ(total.sums.at("x").size(), 3U);
    EXPECT_DOUBLE_EQ(total.sums.at("x")[0], 3.0);
    EXPECT_DOUBLE_EQ(total.sums.at("x")[2], 8.0);
    EXPECT_DOUBLE_EQ(total.sumSquares.at("x")[0], 5.0);
    EXPECT_THROW(total.Mean("x", 3), fl::ConfigError);
    EXPECT_THROW(total.Mean("y", 0), fl::ConfigError);
}

TEST(MonteCarloSeries, SteadyStateIsTheMeanOverTheLastQuarter)
{
    // two runs of 12 iterations, values i and 2 i: means 1.5 i; the last quarter is iterations
    // 9, 10, 11, so the level is 1.5 * 10
    std::vector<double> a;
    std::vector<double> b;
    for (int i = 0; i < 12; ++i)
    {
        a.push_back(i);
        b.push_back(2.0 * i);
    }
    fl::MonteCarloSeries s;
    s.Merge(OneRun("m", a));
    s.Merge(OneRun("m", b));
    EXPECT_NEAR(s.SteadyState("m"), 15.0, 1e-12);
    // fewer than 4 iterations: the last one
    EXPECT_NEAR(OneRun("m", {5.0, 7.0, 9.0}).SteadyState("m"), 9.0, 1e-12);
    EXPECT_THROW(s.SteadyState("missing"), fl::ConfigError);
}

TEST(MonteCarloSeries, VariantsGiveTheSameSumsAndLinesOnAnyNumberOfThreads)
{
    const std::vector<std::string> keys = {"f/a", "f/b", "f/c"};
    auto run = [&keys](fl::ThreadPool* pool, std::atomic<int>& built) {
        fl::MonteCarloSeriesMap out;
        std::ostringstream os;
        fl::MonteCarloVariants<double>(
            4,
            keys,
            out,
            [&built](uint32_t r) {
                ++built;
                return 100.0 * (r + 1);
            },
            [](const double& setup,
               std::size_t v,
               uint32_t r,
               fl::MonteCarloSeries& series,
               std::ostream& lines) {
                series.Add("m", 0, setup + static_cast<double>(v));
                series.Add("m", 1, 0.1 * setup * (v + 1));
                lines << "  variant " << v << " run " << r << "\n";
            },
            pool,
            os);
        return std::make_pair(out, os.str());
    };
    std::atomic<int> builtSerial{0};
    std::atomic<int> builtPool{0};
    const auto serial = run(nullptr, builtSerial);
    fl::ThreadPool pool(3);
    const auto parallel = run(&pool, builtPool);
    EXPECT_EQ(builtSerial, 4); // a run's shared part is built once, for all its variants
    EXPECT_EQ(builtPool, 4);
    ASSERT_EQ(serial.first.size(), 3U);
    for (const auto& key : keys)
    {
        EXPECT_EQ(serial.first.at(key).runs, 4U);
        EXPECT_EQ(serial.first.at(key).sums, parallel.first.at(key).sums);
        EXPECT_EQ(serial.first.at(key).sumSquares, parallel.first.at(key).sumSquares);
    }
    // variant b (v = 1): runs' setups 100, 200, 300, 400 -> sum 1000 + 4 at index 0
    EXPECT_NEAR(serial.first.at("f/b").Mean("m", 0), 251.0, 1e-12);
    EXPECT_EQ(WithoutWallLines(serial.second), WithoutWallLines(parallel.second));
    EXPECT_EQ(WithoutWallLines(serial.second).rfind("  variant 0 run 0\n  variant 1 run 0\n", 0),
              0U);
    EXPECT_NE(serial.second.find("  f/c run 4: "), std::string::npos);
}

TEST(LevelClaim, BelowAndWithinGiveTheVerdictAndTheLine)
{
    const fl::LevelClaim below{fl::LevelClaimKind::Below, "gh", "iid", "msd_centroid", 3.0};
    const fl::OrderingResult ok = fl::CheckLevelClaim(below, -20.0, -10.0);
    EXPECT_EQ(ok.verdict, fl::OrderingVerdict::Holds);
    EXPECT_EQ(ok.text, "gh (-20.00 dB) below iid (-10.00 dB) by >= 3 dB: holds");
    // an inversion of 0.01 dB past the margin fails
    const fl::OrderingResult bad = fl::CheckLevelClaim(below, -12.99, -10.0);
    EXPECT_EQ(bad.verdict, fl::OrderingVerdict::DoesNotHold);
    EXPECT_EQ(bad.text, "gh (-12.99 dB) below iid (-10.00 dB) by >= 3 dB: does NOT hold");
    // exactly at the margin holds; NaN fails
    EXPECT_EQ(fl::CheckLevelClaim(below, -13.0, -10.0).verdict, fl::OrderingVerdict::Holds);
    EXPECT_EQ(fl::CheckLevelClaim(below, std::nan(""), -10.0).verdict,
              fl::OrderingVerdict::DoesNotHold);

    const fl::LevelClaim within{fl::LevelClaimKind::Within, "gh", "none", "test_error", 0.01};
    const fl::OrderingResult close = fl::CheckLevelClaim(within, 0.055, 0.05, "", 4);
    EXPECT_EQ(close.verdict, fl::OrderingVerdict::Holds);
    EXPECT_EQ(close.text, "gh (0.0550) within 0.01 of none (0.0500): holds");
    EXPECT_EQ(fl::CheckLevelClaim(within, 0.07, 0.05, "", 4).verdict,
              fl::OrderingVerdict::DoesNotHold);
    EXPECT_EQ(fl::CheckLevelClaim(within, 0.03, 0.05, "", 4).verdict,
              fl::OrderingVerdict::DoesNotHold);
}

TEST(GflFigures, SweepDefinitionsExpandToThePapersVariants)
{
    // Fig. 3: the non-private run once, then 3 schemes x 6 values of sigma_g^2
    const auto fig3 = GflSweepVariants(false);
    ASSERT_EQ(fig3.size(), 19U);
    EXPECT_EQ(fig3[0].key, "gfl3/none/s2=0");
    EXPECT_EQ(fig3[1].key, "gfl3/iid-per-link/s2=0.001");
    EXPECT_EQ(fig3[3].key, "gfl3/graph-homomorphic/s2=0.001");
    EXPECT_EQ(fig3[18].key, "gfl3/graph-homomorphic/s2=10");
    fl::GflConfig c;
    fig3[18].apply(c);
    EXPECT_DOUBLE_EQ(c.mu, 0.7);
    EXPECT_EQ(c.serverNoise.kind, fl::NodeNoiseKind::GraphHomomorphic);
    EXPECT_EQ(c.serverNoise.distribution, fl::NoiseDistribution::Laplace);
    EXPECT_NEAR(c.serverNoise.scale, std::sqrt(5.0), 1e-12); // b = sqrt(10 / 2)
    fig3[0].apply(c);
    EXPECT_EQ(c.serverNoise.kind, fl::NodeNoiseKind::None);

    // Fig. 4: per mu, the non-private run and the 3 schemes at sigma_g^2 = 0.1
    const auto fig4 = GflSweepVariants(true);
    ASSERT_EQ(fig4.size(), 16U);
    EXPECT_EQ(fig4[4].key, "gfl4/none/mu=0.5");
    EXPECT_EQ(fig4[6].key, "gfl4/iid-broadcast/mu=0.5");
    fl::GflConfig d;
    fig4[6].apply(d);
    EXPECT_DOUBLE_EQ(d.mu, 0.5);
    EXPECT_EQ(d.serverNoise.kind, fl::NodeNoiseKind::IidBroadcast);
    EXPECT_NEAR(d.serverNoise.scale, std::sqrt(0.05), 1e-12);

    // journal Fig. 6: 5 mu x 3 schemes, then 4 sigma_g^2 x 2 schemes
    const auto fig6 = GflFl6Variants();
    ASSERT_EQ(fig6.size(), 23U);
    EXPECT_EQ(fig6[0].key, "fl6mu/none/mu=0.05");
    EXPECT_EQ(fig6[14].key, "fl6mu/noisy-updates/mu=1");
    EXPECT_EQ(fig6[22].key, "fl6s2/noisy-updates/s2=0.5");
    fl::GflConfig e;
    fig6[21].apply(e); // fl6s2/noisy-models/s2=0.5
    EXPECT_EQ(fig6[21].key, "fl6s2/noisy-models/s2=0.5");
    EXPECT_DOUBLE_EQ(e.mu, 0.2);
    EXPECT_EQ(e.uplink, fl::GflUplink::Models);
    EXPECT_EQ(e.clientNoise.kind, fl::NodeNoiseKind::IidPerLink);
    EXPECT_NEAR(e.clientNoise.scale, 0.5, 1e-12); // sqrt(0.5 / 2)
}

TEST(GflFigures, SchemeDefinitionsSetTheNoiseOfEachVariant)
{
    const auto fig2 = GflServerSchemeVariants("gfl", 0.1, true);
    ASSERT_EQ(fig2.size(), 4U);
    const std::vector<std::string> keys = {"gfl/none",
                                           "gfl/iid-per-link",
                                           "gfl/iid-broadcast",
                                           "gfl/graph-homomorphic"};
    for (std::size_t v = 0; v < 4; ++v)
    {
        EXPECT_EQ(fig2[v].key, keys[v]);
        EXPECT_TRUE(fig2[v].withEpsilon);
        fl::GflConfig c;
        fig2[v].apply(c);
        EXPECT_EQ(c.serverNoise.kind, GflServerSchemes()[v].second);
        EXPECT_NEAR(c.serverNoise.scale, std::sqrt(0.05), 1e-12);
    }
    const auto fig5 = GflFlFig5Variants();
    ASSERT_EQ(fig5.size(), 3U);
    fl::GflConfig c;
    fig5[2].apply(c);
    EXPECT_EQ(fig5[2].key, "fl/noisy-updates");
    EXPECT_EQ(c.uplink, fl::GflUplink::Updates);
    EXPECT_NEAR(c.clientNoise.scale, 0.1, 1e-12); // sqrt(0.02 / 2)
    fig5[0].apply(c);
    EXPECT_EQ(c.uplink, fl::GflUplink::Models);
    EXPECT_EQ(c.clientNoise.kind, fl::NodeNoiseKind::None);
}

TEST(GflFigures, FigureClaimsReportAViolatedOrdering)
{
    fl::MonteCarloSeriesMap s;
    s["gfl/none"] = Constant("msd_centroid", 0.01);                // -20 dB
    s["gfl/graph-homomorphic"] = Constant("msd_centroid", 0.0125); // -19.03 dB
    s["gfl/iid-per-link"] = Constant("msd_centroid", 0.1);         // -10 dB
    s["gfl/iid-broadcast"] = Constant("msd_centroid", 0.1);
    std::ostringstream os;
    auto results = CheckGflFigureClaims(s, os);
    ASSERT_EQ(results.size(), 3U); // GFL Fig. 2's three claims only
    for (const auto& r : results)
    {
        EXPECT_EQ(r.verdict, fl::OrderingVerdict::Holds) << r.text;
    }
    EXPECT_NEAR(GflLevel(s, "gfl/graph-homomorphic", "msd_centroid"),
                10.0 * std::log10(0.0125),
                1e-12);
    EXPECT_EQ(results[0].text,
              "gfl/graph-homomorphic (-19.03 dB) within 1 dB of gfl/none (-20.00 dB): holds");

    // graph-homomorphic at -10.97 dB: 9 dB above none, less than 3 dB below the random ones
    s["gfl/graph-homomorphic"] = Constant("msd_centroid", 0.08);
    std::ostringstream bad;
    results = CheckGflFigureClaims(s, bad);
    ASSERT_EQ(results.size(), 3U);
    for (const auto& r : results)
    {
        EXPECT_EQ(r.verdict, fl::OrderingVerdict::DoesNotHold) << r.text;
    }
    EXPECT_NE(bad.str().find("gfl/graph-homomorphic (-10.97 dB) below gfl/iid-per-link (-10.00 "
                             "dB) by >= 3 dB: does NOT hold"),
              std::string::npos);
    EXPECT_THROW(GflLevel(s, "gfl/missing", "msd_centroid"), fl::ConfigError);
}

TEST(GflFigures, EveryFigureHasClaimsOnItsOwnVariants)
{
    // every key a claim names is one of its figure's variants
    std::vector<std::string> known;
    for (const auto& v : GflSweepVariants(false))
    {
        known.push_back(v.key);
    }
    for (const auto& v : GflSweepVariants(true))
    {
        known.push_back(v.key);
    }
    for (const auto& v : GflFl6Variants())
    {
        known.push_back(v.key);
    }
    for (const auto& v : GflFlFig5Variants())
    {
        known.push_back(v.key);
    }
    for (const std::string fig : {"gfl", "class"})
    {
        for (const auto& v : GflServerSchemeVariants(fig, 0.1, false))
        {
            known.push_back(v.key);
        }
    }
    for (const std::string k : {"ghp/none", "ghp/iid", "ghp/graph-homomorphic"})
    {
        known.push_back(k);
    }
    const auto isKnown = [&known](const std::string& key) {
        return std::find(known.begin(), known.end(), key) != known.end();
    };
    std::size_t checked = 0;
    for (const auto& figure : GflFiguresClaims())
    {
        EXPECT_TRUE(isKnown(figure.present)) << figure.present;
        for (const auto& claim : figure.checked)
        {
            EXPECT_TRUE(isKnown(claim.a)) << claim.a;
            EXPECT_TRUE(isKnown(claim.b)) << claim.b;
            ++checked;
        }
        for (const auto& reported : figure.reported)
        {
            for (const auto& series : reported.series)
            {
                EXPECT_TRUE(isKnown(series[1])) << series[1];
            }
        }
    }
    // gfl 3, fl 2, ghp 2, gfl3 7, gfl4 4, fl6 8, class 3
    EXPECT_EQ(checked, 29U);
}

TEST(GflFigures, CsvIsTidyThinnedAndInDecibels)
{
    fl::MonteCarloSeriesMap s;
    fl::MonteCarloSeries run = OneRun("msd_centroid", {1.0, 0.1, 0.01, 0.001});
    for (std::size_t i = 0; i < 4; ++i)
    {
        run.Add("epsilon_one_link", i, 1.0 + i);
    }
    fl::MonteCarloSeries& a = s["fig/a"];
    a.Merge(run);
    a.Merge(run);
    a.statements["epsilon_one_link"] = "what it means";
    a.statements["epsilon_all_links"] = "not measured: no line";
    // a sweep variant (ideal links): no lost_messages and centroid_drift rows
    fl::MonteCarloSeries sweepRun = OneRun("disagreement", {4.0, 2.0});
    sweepRun.Add("lost_messages", 0, 1.0);
    sweepRun.Add("centroid_drift", 1, 1.0);
    s["fig/b/s2=1"].Merge(sweepRun);
    std::ostringstream csv;
    WriteGflFiguresCsv(csv, s, 2);
    EXPECT_EQ(csv.str(),
              "iteration,variant,metric,value\n"
              "# fig/a epsilon_one_link: what it means\n"
              "0,fig/a,epsilon_one_link,1\n"
              "2,fig/a,epsilon_one_link,3\n"
              "3,fig/a,epsilon_one_link,4\n"
              "0,fig/a,msd_centroid_db,0\n"
              "2,fig/a,msd_centroid_db,-20\n"
              "3,fig/a,msd_centroid_db,-30\n"
              "0,fig/b/s2=1,disagreement,4\n"
              "1,fig/b/s2=1,disagreement,2\n");
}

TEST(GflFigures, OptionsThatDoNotFitNameTheFlag)
{
    GflFigureOptions o;
    EXPECT_EQ(OptionsError(o), "");
    o.clientStaggerMs = -0.5;
    EXPECT_NE(OptionsError(o).find("--clientStaggerMs"), std::string::npos);
    o = GflFigureOptions{};
    o.mode = "network";
    o.figure = "gfl3";
    EXPECT_NE(OptionsError(o).find("--figure"), std::string::npos);
    o = GflFigureOptions{};
    o.mode = "network";
    o.ghpPeriodMs = 10.0; // 1 ms + 20 ms jitter does not fit
    EXPECT_NE(OptionsError(o).find("--ghpJitterMs"), std::string::npos);
    o.mode = "inprocess"; // the schedule is a network setting
    EXPECT_EQ(OptionsError(o), "");
    o = GflFigureOptions{};
    o.secure = true;
    o.sampled = 1;
    EXPECT_NE(OptionsError(o).find("--sampled"), std::string::npos);
    o = GflFigureOptions{};
    o.benchClients = "5,x";
    EXPECT_NE(OptionsError(o).find("--benchClients"), std::string::npos);
    EXPECT_EQ(ParseGflBenchClients("5,10,20"), (std::vector<uint32_t>{5, 10, 20}));
}

TEST(GflFigures, Fig2RunsEveryVariantWithCommonRandomNumbers)
{
    GflFigureOptions o;
    o.figure = "gfl";
    o.quiet = true;
    o.runs = 2;
    o.servers = 3;
    o.clientsPerServer = 3;
    o.sampled = 2;
    o.iterations = 6;
    fl::MonteCarloSeriesMap out;
    std::ostringstream os;
    RunGflFigures(o, out, os);
    ASSERT_EQ(out.size(), 4U);
    for (const auto& [key, s] : out)
    {
        EXPECT_EQ(s.runs, 2U) << key;
        EXPECT_EQ(s.sums.at("msd_centroid").size(), 7U) << key; // iterations 0..6
        EXPECT_EQ(s.statements.size(), 3U) << key;              // the three epsilons described
        EXPECT_EQ(s.sums.count("epsilon_one_link"), 0U);        // no --clip
    }
    // common random numbers: the same data, graph and initial model in every variant
    EXPECT_DOUBLE_EQ(out.at("gfl/none").sums.at("msd_centroid")[0],
                     out.at("gfl/graph-homomorphic").sums.at("msd_centroid")[0]);
    // the noise changes the path
    EXPECT_NE(out.at("gfl/none").sums.at("msd_centroid")[6],
              out.at("gfl/iid-per-link").sums.at("msd_centroid")[6]);
    EXPECT_NE(os.str().find("GFL Fig. 2: P = 3, K = 3, L = 2"), std::string::npos);
    EXPECT_NE(os.str().find("  gfl/graph-homomorphic run 2: "), std::string::npos);
}

TEST(GflFigures, AUsersOwnSweepUsesTheSameParts)
{
    // doc/fl-gfl-ghp.rst's example, small: graph-homomorphic noise at two step sizes, 2 runs
    GflFigureOptions o;
    o.runs = 2;
    o.quiet = true;
    std::vector<GflFigureVariant> variants;
    for (const auto& [name, mu] : {std::pair<std::string, double>{"0.1", 0.1}, {"1", 1.0}})
    {
        variants.push_back({"mine/gh/mu=" + name, false, [mu = mu](fl::GflConfig& c) {
                                c.mu = mu;
                                c.serverNoise =
                                    GflLaplaceNoise(fl::NodeNoiseKind::GraphHomomorphic, 0.1);
                            }});
    }
    fl::MonteCarloSeriesMap out;
    std::ostringstream lines;
    GflMonteCarlo<GflRegressionRun>(
        o,
        out,
        40,
        variants,
        [](uint32_t run) {
            return MakeGflRegressionRun(3, 4, 2, 0.7, 0.1, 40, fl::DeriveSeed(7, run));
        },
        [&](const GflRegressionRun& r,
            std::size_t v,
            uint32_t,
            fl::MonteCarloSeries&,
            std::ostream&,
            const fl::NetworkIterationCallback& cb) {
            fl::GflConfig c = r.config;
            variants[v].apply(c);
            GflFigureRunGfl(o, r.setup.task, c, cb); // in process or over ns-3 links (o.mode)
        },
        lines);
    ASSERT_EQ(out.size(), 2U);
    EXPECT_EQ(out.at("mine/gh/mu=1").runs, 2U);
    EXPECT_EQ(out.at("mine/gh/mu=1").sums.at("msd_centroid").size(), 41U);
    const fl::LevelClaim claim{fl::LevelClaimKind::Below,
                               "mine/gh/mu=0.1",
                               "mine/gh/mu=1",
                               "msd_centroid",
                               0.0};
    const fl::OrderingResult result = fl::CheckLevelClaim(claim,
                                                          GflLevel(out, claim.a, claim.metric),
                                                          GflLevel(out, claim.b, claim.metric));
    EXPECT_EQ(result.text.rfind("mine/gh/mu=0.1 (", 0), 0U);
    std::ostringstream csv;
    WriteGflFiguresCsv(csv, out, 10);
    EXPECT_NE(csv.str().find("\n40,mine/gh/mu=1,msd_centroid_db,"), std::string::npos);
}

TEST(GflFigures, IterationReportsAndProgressAddTheRunsMetrics)
{
    fl::NetworkIterationReport r;
    r.iteration = 2;
    r.centroidMsd = 0.5;
    r.averageMsd = 0.75;
    r.disagreement = 0.125;
    r.centroidDrift = 0.25;
    r.epsilonOneLink = 3.0;
    r.epsilonAllLinks = 6.0;
    r.epsilonNeighbour = 7.0;
    r.lostMessages = 4;
    fl::MonteCarloSeries s;
    AddGflIterationReport(s, r, false);
    EXPECT_EQ(s.sums.size(), 5U); // no epsilons
    AddGflIterationReport(s, r, true);
    ASSERT_EQ(s.sums.size(), 8U);
    EXPECT_EQ(s.sums.at("msd_centroid"), (std::vector<double>{0.0, 0.0, 1.0}));
    EXPECT_DOUBLE_EQ(s.sums.at("msd_average")[2], 1.5);
    EXPECT_DOUBLE_EQ(s.sums.at("lost_messages")[2], 8.0);
    EXPECT_DOUBLE_EQ(s.sums.at("epsilon_all_links")[2], 6.0);

    // the progress callback adds the report and prints every tenth of the iterations
    GflFigureOptions o;
    o.runs = 3;
    fl::MonteCarloSeries run;
    std::ostringstream os;
    const auto cb = GflProgressCallback(o, "fig/x", 1, 20, run, false, os);
    r.iteration = 2;
    cb(r);
    r.iteration = 3;
    cb(r);
    EXPECT_EQ(run.sums.at("msd_centroid").size(), 4U);
    EXPECT_EQ(os.str(),
              "  [fig/x run 2/3] iteration 2/20: centroid MSD -3.01 dB, average MSD -1.25 dB\n");
    o.quiet = true;
    std::ostringstream quiet;
    GflProgressCallback(o, "fig/x", 1, 20, run, false, quiet)(r);
    EXPECT_EQ(quiet.str(), "");
}

TEST(GflFigures, SummaryLinesFromHandMadeSeries)
{
    fl::MonteCarloSeriesMap s;
    fl::MonteCarloSeries run = OneRun("msd_centroid", {1.0, 0.1, 0.01, 0.01});
    for (std::size_t i = 0; i < 4; ++i)
    {
        run.Add("msd_average", i, 0.1);
        run.Add("epsilon_one_link", i, 1.0 + i);
        run.Add("epsilon_all_links", i, 2.0 * (1.0 + i));
        run.Add("epsilon_neighbour", i, 3.0 * (1.0 + i));
    }
    s["fig/a"].Merge(run);
    s["fig/a"].Merge(run);
    s["fig/a"].statements["epsilon_one_link"] = "one";
    s["bench/x"].Merge(OneRun("wall_s", {1.0}));
    std::ostringstream steady;
    PrintGflSteadyState(s, steady);
    EXPECT_EQ(steady.str(),
              "Steady state (mean over the last quarter of the iterations), centroid / average "
              "MSD:\n"
              "  fig/a                   -20.00 dB / -10.00 dB\n");
    std::ostringstream eps;
    PrintGflEpsilons(s, eps);
    EXPECT_EQ(eps.str(),
              "Privacy of fig/a: eps = 4 (an eavesdropper on one link), 8 (an eavesdropper on "
              "all links of the worst node), 12 (the worst neighbouring node)\n"
              "  epsilon_one_link: one\n");

    GflNetworkCost cost;
    cost.bytes = 3000;
    cost.simSeconds = 1.5;
    cost.wallSeconds = 0.25;
    std::ostringstream net;
    PrintGflNetworkCost(cost, "ghp/iid", net);
    EXPECT_EQ(net.str(), "  ghp/iid: 3000 bytes sent, 1.5 s simulated, 0.25 s wall\n");
    cost.iterations = 10;
    cost.links = 4;
    cost.lost = 2;
    cost.worstLinkLost = 1;
    cost.frames = 25;
    cost.transmissions = 20;
    cost.airtimeSeconds = 0.005;
    std::ostringstream perIteration;
    PrintGflNetworkCost(cost, "ghp/iid", perIteration);
    EXPECT_NE(perIteration.str().find("  ghp/iid per iteration: 300 bytes, 0.500 ms airtime, 2.5 "
                                      "PHY frames, 2.0 messages sent (broadcasts or copies); "
                                      "loss rate 5.00 % of 4 directed links (worst link 10.0 %)"),
              std::string::npos);
}

TEST(GflFigures, SetupLineNamesTheNetworkSettings)
{
    GflFigureOptions o;
    std::ostringstream in;
    PrintGflFigureSetup(o, "fl-gfl", in);
    EXPECT_EQ(in.str(), "fl-gfl: mode inprocess\n");
    o.mode = "network";
    o.transport = "udp";
    o.linkLoss = 0.2;
    std::ostringstream net;
    PrintGflFigureSetup(o, "fl-ghp", net);
    EXPECT_EQ(net.str(),
              "fl-ghp: mode network (packet level, udp, csma cells, server links 100 Mb/s / 2 ms, "
              "loss 0.2, "
              "policy reuse-last; GHP agents on 802.11n ad hoc, broadcast, frame loss 0)\n");
}

TEST(GflFigures, RegressionRunsShareTheirDrawsAndOneServerHasNoGraph)
{
    const GflRegressionRun a = MakeGflRegressionRun(4, 3, 2, 0.7, 0.1, 10, 99);
    const GflRegressionRun b = MakeGflRegressionRun(4, 3, 2, 0.7, 0.1, 10, 99);
    ASSERT_EQ(a.config.combination.rows(), 4);
    EXPECT_EQ(a.config.combination, b.config.combination); // the same seed, the same run
    EXPECT_EQ(a.setup.wOpt, b.setup.wOpt);
    EXPECT_EQ(a.config.reference, a.setup.wOpt);
    // doubly stochastic (Metropolis weights)
    EXPECT_NEAR((a.config.combination.rowwise().sum().array() - 1.0).abs().maxCoeff(), 0.0, 1e-12);
    EXPECT_NEAR((a.config.combination.colwise().sum().array() - 1.0).abs().maxCoeff(), 0.0, 1e-12);
    EXPECT_EQ(a.config.work.localSteps.size(), 12U); // E and B per client
    EXPECT_EQ(a.config.work.localSteps, b.config.work.localSteps);
    EXPECT_EQ(a.config.work.batchSizes.size(), 12U);
    const GflRegressionRun other = MakeGflRegressionRun(4, 3, 2, 0.7, 0.1, 10, 100);
    EXPECT_NE(a.setup.wOpt, other.setup.wOpt);
    const GflRegressionRun one = MakeGflRegressionRun(1, 5, 2, 0.2, 0.007, 10, 99);
    EXPECT_EQ(one.config.combination, Eigen::MatrixXd::Ones(1, 1));
    EXPECT_EQ(one.config.clientsPerServer, 5U);
}

TEST(GflFigures, GhpFigureRunsItsThreeVariantsInProcess)
{
    GflFigureOptions o;
    o.figure = "ghp";
    o.quick = true;
    o.quiet = true;
    o.runs = 1;
    o.iterations = 4;
    o.clip = 1.0;
    fl::MonteCarloSeriesMap out;
    std::ostringstream os;
    RunGflFigures(o, out, os);
    ASSERT_EQ(out.size(), 3U);
    for (const std::string key : {"ghp/none", "ghp/iid", "ghp/graph-homomorphic"})
    {
        ASSERT_EQ(out.count(key), 1U) << key;
        EXPECT_EQ(out.at(key).sums.at("msd_centroid").size(), 5U);
        EXPECT_EQ(out.at(key).sums.count("epsilon_one_link"), 1U);      // --clip > 0
        EXPECT_EQ(out.at(key).sums.count("loss_rate"), 0U);             // in process
    }
    EXPECT_NE(os.str().find("eq. 27) eps = mu G (i^2 + i) / b_v = 20"), std::string::npos);
}

TEST(GflFigures, RunsAsJobsGiveTheInProcessCsvByteForByte)
{
    // fl-gfl --engine: run r alone (runs = 1, firstRun = r), its rows through the sweep
    // runner's merge, merged into the figures with no run: the CSV of the in-process loop
    GflFigureOptions o;
    o.figure = "all";
    o.quick = true;
    o.quiet = true;
    o.runs = 3;
    o.iterations = 12;
    o.clip = 1.0; // epsilon rows and their statements
    fl::MonteCarloSeriesMap inProcess;
    std::ostringstream os;
    RunGflFigures(o, inProcess, os);
    std::ostringstream want;
    WriteGflFiguresCsv(want, inProcess, 1);

    const fl::SweepGrid grid = fl::ParseSweepGrid("program fl-gfl\nruns 7..9\n", "grid.txt");
    const auto points = fl::ExpandSweepGrid(grid);
    std::vector<fl::SweepJobResult> jobs;
    for (uint32_t r : {1U, 2U, 0U}) // finished out of order
    {
        GflFigureOptions job = o;
        job.runs = 1;
        job.firstRun = r;
        fl::MonteCarloSeriesMap one;
        std::ostringstream lines;
        RunGflFigures(job, one, lines);
        std::ostringstream rows;
        fl::WriteMonteCarloRunRows(rows, one, r);
        jobs.push_back({points.at(r), "--runs=1 --seedJob=7", rows.str()});
    }
    std::ostringstream merged;
    fl::MergeSweepCsv(grid, jobs, fl::SweepProvenance{"fl-gfl"}, merged);
    GflFigureOptions none = o;
    none.runsAsJobs = true;
    fl::MonteCarloSeriesMap fromJobs;
    std::ostringstream noLines;
    RunGflFigures(none, fromJobs, noLines);
    EXPECT_EQ(noLines.str().find(" run 1: "), std::string::npos); // no run here
    for (const auto& [key, s] : fromJobs)
    {
        EXPECT_EQ(s.runs, 0U) << key;
    }
    fl::MergeMonteCarloRunRows(merged.str(), fromJobs, 7, 3);
    std::ostringstream got;
    WriteGflFiguresCsv(got, fromJobs, 1);
    EXPECT_EQ(got.str(), want.str());
    EXPECT_NE(want.str().find("# gfl/iid-per-link epsilon_all_links: "), std::string::npos);
    // run 1 alone is not run 0: firstRun changes the draws
    GflFigureOptions first = o;
    first.figure = "ghp";
    first.runs = 1;
    fl::MonteCarloSeriesMap run0;
    fl::MonteCarloSeriesMap run1;
    RunGflFigures(first, run0, os);
    first.firstRun = 1;
    RunGflFigures(first, run1, os);
    EXPECT_NE(run0.at("ghp/none").sums.at("msd_centroid")[1],
              run1.at("ghp/none").sums.at("msd_centroid")[1]);
    // the provenance line goes right after the header
    std::ostringstream withProvenance;
    WriteGflFiguresCsv(withProvenance, fromJobs, 1, "# provenance: jobs\n");
    EXPECT_EQ(withProvenance.str().rfind("iteration,variant,metric,value\n# provenance: jobs\n", 0),
              0U);
}
