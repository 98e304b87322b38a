/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The figures of DWFL (Chen et al., "Decentralized Wireless Federated Learning with Differential
 * Privacy", arXiv:2109.09142, 2021) as the programs' shared parts
 * (examples/support/dwfl-figures.h): the runs of every figure (the paper's sweeps of Figs. 2-6,
 * best first within each ordering), the feasibility
 * check, --quick's settings, and the figure rows: means and 95 % half-widths over the seeds,
 * checked against values computed by hand.
 */
#include "../examples/support/dwfl-figures.h"

#include <cmath>
#include <gtest/gtest.h>
#include <iomanip>
#include <map>
#include <sstream>

using namespace ns3;

namespace
{

/// The series labels of a figure's runs.
std::vector<std::string>
Labels(const std::vector<DwflFigureRun>& runs)
{
    std::vector<std::string> out;
    for (const DwflFigureRun& r : runs)
    {
        out.push_back(r.series);
    }
    return out;
}

/// The fields of a CSV line (no quoting in the figure rows).
std::vector<std::string>
Fields(const std::string& line)
{
    std::vector<std::string> out;
    std::stringstream ss(line);
    std::string f;
    while (std::getline(ss, f, ','))
    {
        out.push_back(f);
    }
    return out;
}

} // namespace

TEST(DwflFigures, RunsOfEveryFigure)
{
    const DwflFigureSettings c;
    const std::map<std::string, std::size_t> sizes = {{"power", 10},
                                                      {"workers", 12},
                                                      {"epsilon", 10},
                                                      {"orthogonal", 6},
                                                      {"centralized", 6},
                                                      {"perlink", 10},
                                                      {"digital", 4},
                                                      {"mobility", 8},
                                                      {"quick", 3},
                                                      {"fig7", 0}};
    for (const auto& [figure, size] : sizes)
    {
        EXPECT_EQ(DwflFigureRuns(figure, c).size(), size) << figure;
    }
    for (const std::string& figure : DwflFigureNames())
    {
        EXPECT_NE(sizes.find(figure), sizes.end()) << figure;
        EXPECT_NO_THROW(DwflCheckFigureFeasible(c, DwflFigureRuns(figure, c))) << figure;
    }
    // Fig. 2: 80 >= 60 >= 40 >= 20 dBm per N, best first, then the noiseless run
    const std::vector<DwflFigureRun> power = DwflFigureRuns("power", c);
    EXPECT_EQ(Labels(power),
              (std::vector<std::string>{"N=10 P=80 dBm",
                                        "N=10 P=60 dBm",
                                        "N=10 P=40 dBm",
                                        "N=10 P=20 dBm",
                                        "N=10 noiseless",
                                        "N=30 P=80 dBm",
                                        "N=30 P=60 dBm",
                                        "N=30 P=40 dBm",
                                        "N=30 P=20 dBm",
                                        "N=30 noiseless"}));
    EXPECT_EQ(power[1].pDbm, 60.0);
    EXPECT_EQ(power[1].epsilon, 0.5);
    EXPECT_EQ(power[1].group, "N=10");
    EXPECT_EQ(power[4].group, "");
    EXPECT_EQ(power[4].scheme, "noiseless");
    EXPECT_EQ(power[4].epsilon, 0.0);
    // Fig. 3: the groups are the eps values, N = 30 first
    const std::vector<DwflFigureRun> workers = DwflFigureRuns("workers", c);
    EXPECT_EQ(workers[0].series, "eps=0.1 N=30");
    EXPECT_EQ(workers[0].group, "eps=0.1");
    EXPECT_EQ(workers[7].series, "eps=0.5 N=15");
    EXPECT_EQ(workers[7].epsilon, 0.5);
    // Figs. 5 and 6: the baseline after DWFL in each N
    const std::vector<DwflFigureRun> orth = DwflFigureRuns("orthogonal", c);
    EXPECT_EQ(orth[0].series, "N=10 non-orthogonal");
    EXPECT_EQ(orth[1].scheme, "orthogonal");
    EXPECT_EQ(orth[1].epsilon, 0.1);
    EXPECT_EQ(DwflFigureRuns("centralized", c)[4].scheme, "centralized");
    EXPECT_EQ(DwflFigureRuns("centralized", c)[4].n, 30u);
    // the per-link study sets each run's channel; the channel names of the CSV
    const std::vector<DwflFigureRun> perlink = DwflFigureRuns("perlink", c);
    EXPECT_EQ(perlink[0].Channel(), "sender-fixed");
    EXPECT_EQ(perlink[1].Channel(), "perlink-fixed");
    EXPECT_EQ(perlink[2].Channel(), "sender-block");
    EXPECT_EQ(perlink[3].Channel(), "perlink-block");
    // moving workers: speeds at a CSI age of 0.5 ms, then CSI ages at 30 m/s, correlated fading
    const std::vector<DwflFigureRun> mobility = DwflFigureRuns("mobility", c);
    EXPECT_EQ(mobility[0].series, "v=0 m/s CSI age=0.5 ms");
    EXPECT_EQ(mobility[3].speed, 30.0);
    EXPECT_EQ(mobility[3].csiAgeMs, 0.5);
    EXPECT_EQ(mobility[4].series, "v=30 m/s CSI age=0 ms");
    EXPECT_EQ(mobility[4].Channel(), "sender-correlated");
    EXPECT_EQ(mobility[7].scheme, "noiseless");
    EXPECT_EQ(mobility[7].Channel(), "sender-fixed");
    EXPECT_EQ(perlink[1].group, "N=10 fixed");
    EXPECT_EQ(DwflFigureRuns("digital", c)[2].Channel(), "wifi");
    // the settings' channel applies to the other figures
    DwflFigureSettings block = c;
    block.perLink = true;
    block.blockFading = true;
    EXPECT_EQ(DwflFigureRuns("epsilon", block)[0].Channel(), "perlink-block");
    // --onlyN
    DwflFigureSettings only = c;
    only.onlyN = {30};
    const std::vector<DwflFigureRun> power30 = DwflFigureRuns("power", only);
    ASSERT_EQ(power30.size(), 5u);
    for (const DwflFigureRun& r : power30)
    {
        EXPECT_EQ(r.n, 30u);
    }
    only.onlyN = {11};
    EXPECT_TRUE(DwflFigureRuns("power", only).empty());
    // the series for the runner and the summary
    const std::vector<FlFigureSeries> series = DwflFigureSeries(perlink);
    ASSERT_EQ(series.size(), perlink.size());
    EXPECT_EQ(series[1].label, perlink[1].series);
    EXPECT_EQ(series[1].group, "N=10 fixed");
    EXPECT_EQ(series[1].detail, "perlink-fixed");
}

TEST(DwflFigures, FeasibilityNamesTheFlag)
{
    DwflFigureSettings c;
    c.orthSigma2 = 1e-3; // far below the floor of a link at eps = 0.1
    try
    {
        DwflCheckFigureFeasible(c, DwflFigureRuns("orthogonal", c));
        FAIL() << "an infeasible orthogonal baseline was accepted";
    }
    catch (const fl::ConfigError& e)
    {
        EXPECT_EQ(e.Parameter(), "--orthSigma2");
    }
    // the other figures have no orthogonal run
    EXPECT_NO_THROW(DwflCheckFigureFeasible(c, DwflFigureRuns("power", c)));
    DwflFigureSettings silent;
    silent.sigma2 = 0.0;
    silent.sigmaM2 = 0.0;
    try
    {
        DwflCheckFigureFeasible(silent, DwflFigureRuns("epsilon", silent));
        FAIL() << "eps > 0 without any noise was accepted";
    }
    catch (const fl::ConfigError& e)
    {
        EXPECT_EQ(e.Parameter(), "--sigma2");
    }
    // runs without a privacy target need no noise
    EXPECT_NO_THROW(DwflCheckFigureFeasible(silent, {DwflFigureRuns("digital", silent)[1]}));
}

TEST(DwflFigures, SettingsAndQuick)
{
    DwflFigureSettings c;
    EXPECT_NEAR(c.EtaFor(10), 0.9, 1e-15);
    c.eta = 0.5;
    EXPECT_EQ(c.EtaFor(10), 0.5);
    const fl::TaskSpec t = c.Task(7);
    EXPECT_EQ(t.clients, 7u);
    EXPECT_EQ(t.samplesPerClient, 500u);
    EXPECT_EQ(t.learningRate, 0.05);
    EXPECT_EQ(t.clipNorm, 1.0);
    EXPECT_EQ(t.localEpochs, 0.0);
    const fl::DwflPrivacyParams p = c.Privacy(3.0);
    EXPECT_EQ(p.sigma2, 3.0);
    EXPECT_EQ(p.sigmaM2, 1.0);
    EXPECT_EQ(p.delta, 1e-5);
    std::string figure = "power";
    DwflQuickFigure(c, figure);
    EXPECT_EQ(figure, "quick");
    EXPECT_EQ(c.rounds, 5u);
    EXPECT_EQ(c.samplesPerWorker, 200u);
    EXPECT_EQ(c.testSamples, 500u);
    EXPECT_EQ(c.gamma, 0.2);
    DwflFigureSettings small;
    small.rounds = 3;
    small.gamma = 0.5;
    small.testSamples = 100;
    DwflQuickFigure(small, figure);
    EXPECT_EQ(small.rounds, 3u);
    EXPECT_EQ(small.gamma, 0.5);
    EXPECT_EQ(small.testSamples, 100u);
    std::ostringstream os;
    small.Print(os);
    EXPECT_NE(os.str().find("CIFAR-10 is not available offline"), std::string::npos);
}

// The rows of a run over two seeds: the means and the 95 % half-widths t_{0.975,1} s / sqrt(2)
// of two values a, b are (a + b) / 2 and t |a - b| / 2, t = 12.706205 (the t table at one degree
// of freedom, as fl::StudentT975 holds it).
TEST(DwflFigures, RowsAreMeansAndHalfWidthsByHand)
{
    const double t = 12.706205;
    std::vector<std::vector<FlRoundSummary>> seeds(2);
    for (int s = 0; s < 2; ++s)
    {
        FlRoundSummary r0;
        r0.timeS = 0.1;
        r0.centroidLoss = 2.0;
        r0.centroidAccuracy = 0.1;
        r0.nodeLoss = 2.0;
        r0.nodeAccuracy = 0.1;
        FlRoundSummary r1;
        r1.round = 1;
        r1.timeS = 0.2 + 0.01 * s;
        r1.centroidLoss = s == 0 ? 1.5 : 1.7;
        r1.centroidAccuracy = s == 0 ? 0.40 : 0.50;
        r1.nodeLoss = s == 0 ? 1.6 : 1.9;
        r1.nodeAccuracy = s == 0 ? 0.30 : 0.36;
        r1.disagreement = s == 0 ? 3.0 : 5.0;
        r1.epsilon = s == 0 ? 0.8 : 0.9;
        seeds[s] = {r0, r1};
    }
    seeds[1].pop_back(); // the second seed stopped after round 0 ...
    DwflFigureRun run = DwflFigureRuns("quick", DwflFigureSettings())[0];
    std::ostringstream one;
    DwflWriteFigureRows(one, "quick", run, seeds);
    EXPECT_EQ(one.str().find('\n'), one.str().size() - 1) << "only round 0 is in every seed";
    seeds[1].push_back(FlRoundSummary()); // ... now it has round 1 too
    seeds[1][1].round = 1;
    seeds[1][1].timeS = 0.21;
    seeds[1][1].centroidLoss = 1.7;
    seeds[1][1].centroidAccuracy = 0.5;
    seeds[1][1].nodeLoss = 1.9;
    seeds[1][1].nodeAccuracy = 0.36;
    seeds[1][1].disagreement = 5.0;
    seeds[1][1].epsilon = 0.9;
    std::ostringstream csv;
    csv << std::setprecision(17);
    DwflWriteFigureRows(csv, "quick", run, seeds);
    std::stringstream lines(csv.str());
    std::string line0;
    std::string line1;
    std::getline(lines, line0);
    std::getline(lines, line1);
    const std::vector<std::string> f = Fields(line1);
    ASSERT_EQ(f.size(), 19u) << line1;
    EXPECT_EQ(f[0], "quick");
    EXPECT_EQ(f[1], "analog DWFL N=4");
    EXPECT_EQ(f[2], "dwfl");
    EXPECT_EQ(f[3], "4");
    EXPECT_EQ(f[6], "1");
    EXPECT_NEAR(std::stod(f[7]), 0.205, 1e-12);     // time_s
    EXPECT_NEAR(std::stod(f[8]), 1.6, 1e-12);       // test_loss
    EXPECT_NEAR(std::stod(f[9]), 0.45, 1e-12);      // test_accuracy
    EXPECT_NEAR(std::stod(f[10]), 1.75, 1e-12);     // worker_test_loss
    EXPECT_NEAR(std::stod(f[11]), 0.33, 1e-12);     // worker_test_accuracy
    EXPECT_NEAR(std::stod(f[12]), 4.0, 1e-12);      // disagreement
    EXPECT_EQ(f[13], "sender-fixed");               // channel
    EXPECT_EQ(f[14], "2");                          // runs
    EXPECT_NEAR(std::stod(f[15]), t * 0.1, 1e-12);  // test_loss_ci95
    EXPECT_NEAR(std::stod(f[16]), t * 0.05, 1e-12); // test_accuracy_ci95
    EXPECT_NEAR(std::stod(f[17]), t * 1.0, 1e-12);  // disagreement_ci95
    EXPECT_NEAR(std::stod(f[18]), 0.85, 1e-12);     // epsilon_composed
    // round 0: no spread, no accountant yet
    const std::vector<std::string> g = Fields(line0);
    EXPECT_EQ(g[15], "0");
    EXPECT_TRUE(std::isnan(std::stod(g[18]))) << g[18];
    std::ostringstream header;
    DwflWriteFigureHeader(header, DwflFigureSettings());
    EXPECT_EQ(header.str().substr(0, header.str().find('\n')),
              "figure,series,scheme,n,p_dbm,epsilon,round,time_s,test_loss,test_accuracy,"
              "worker_test_loss,worker_test_accuracy,disagreement,channel,runs,test_loss_ci95,"
              "test_accuracy_ci95,disagreement_ci95,epsilon_composed");
    EXPECT_NE(header.str().find("\n# epsilon: "), std::string::npos);
    EXPECT_NE(header.str().find("\n# epsilon_composed: "), std::string::npos);
}
