/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The figures of DWFL (S. Chen, D. Yu, Y. Zou, J. Yu, X. Cheng, "Decentralized Wireless
 * Federated Learning with Differential Privacy", arXiv:2109.09142, 2021) as data the programs
 * share (the fl-example-support library; not part of the module): the choices
 * the paper leaves open, the runs of each figure (its Figs. 2-6 and two studies of this module),
 * the check that every run can meet its epsilon, and the figure CSV (one row per run and round,
 * means and 95 % CIs over the seeds). The scenes themselves (DwflHelper, DwflDigitalHelper) are
 * built by the program (examples/benchmarks/fl-dwfl.cc); the seeds run through FlFigureRunner.
 */
#ifndef DWFL_FIGURES_H
#define DWFL_FIGURES_H

#include "ns3/dwfl-privacy.h"
#include "ns3/fl-experiment-helper.h"
#include "ns3/task-builder.h"

#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

namespace ns3
{

/**
 * Every choice the DWFL paper leaves open, with the value fl-dwfl uses (doc/fl-ota-dwfl.rst,
 * "Choices the paper leaves open", says why).
 */
struct DwflFigureSettings
{
    uint32_t rounds = 100;                 ///< T
    std::string dataset = "fashion-mnist"; ///< or the user's CSV file or IDX folder
    /// per-feature preprocessing, fitted on each worker's own data (the paper normalises its
    /// CIFAR-10 inputs; raw pixels in [0, 1] learn worse under the same noise)
    std::string standardise = "centre";
    std::string featureShift = "0";  ///< standardise = public
    std::string featureScale = "1";  ///< standardise = public
    uint32_t samplesPerWorker = 500; ///< IID shares of the training set
    uint32_t testSamples = 1000;     ///< held-out samples for the evaluation
    std::string model = "softmax:l2=0";
    uint32_t batch = 32;       ///< mini-batch size
    double gamma = 0.05;       ///< SGD step size gamma
    double gMax = 1.0;         ///< clipping threshold g_max
    double eta = 0.0;          ///< averaging rate; 0 = (N-1)/N (exact averaging without noise)
    double delta = 1e-5;       ///< DP delta
    double sigmaM2 = 1.0;      ///< receiver noise variance sigma_m^2 (the unit of power)
    double sigma2 = 1.0;       ///< artificial-noise variance sigma^2 (DWFL, server)
    double orthSigma2 = 100.0; ///< artificial-noise variance of the orthogonal baseline
    double computeTime = 0.01; ///< simulated compute time of a local step [s]
    double bandwidthHz = 20e6; ///< analog symbol rate B = the Wi-Fi channel width
    double maxTime = 3600.0;   ///< bound on the simulated time of a run [s]
    bool evaluateWorkers = true;
    uint32_t runs = 1;           ///< seeds per run (RngRun, RngRun + 1, ...)
    std::vector<uint32_t> onlyN; ///< run only the figure's runs with these N (empty: all)
    bool perLink = false;        ///< analog channel: per-link coefficients (else sender-only)
    bool blockFading = false;    ///< analog channel: redrawn every slot (else fixed for the run)
    std::string noiseSource = "run-seed"; ///< artificial-noise seeds: run-seed or sodium

    /// eta, or (N-1)/N if eta is 0.
    double EtaFor(uint32_t n) const;

    /// The privacy parameters of eq. (11) with artificial-noise variance sigma2Value.
    fl::DwflPrivacyParams Privacy(double sigma2Value) const;

    /// The learning task of N workers: one clipped SGD step per round, float64.
    fl::TaskSpec Task(uint32_t n) const;

    /// The values of the choices, as fl-dwfl prints them before it runs.
    void Print(std::ostream& os) const;
};

/**
 * One run of a figure: a scheme on a channel at N, P and eps.
 */
struct DwflFigureRun
{
    std::string series; ///< legend label
    /// dwfl (non-orthogonal), orthogonal, centralized (analog), noiseless or digital
    std::string scheme;
    uint32_t n = 10;          ///< workers N
    double pDbm = 60.0;       ///< transmit power P [dBm]
    double epsilon = 0.5;     ///< target eps per round (0: no artificial noise)
    bool perLink = false;     ///< per-link channel coefficients
    bool blockFading = false; ///< coefficients redrawn every slot
    std::string group;        ///< runs whose order is checked, best first (empty: none)
    double speed = 0.0;       ///< workers' speed [m/s] (> 0 or csiAgeMs > 0: Correlated fading)
    double csiAgeMs = 0.0;    ///< age of the channel estimates [ms]

    /// The CSV name of the run's channel: wifi, or sender / perlink, then -fixed / -block /
    /// -correlated.
    std::string Channel() const;
};

/// The figures of fl-dwfl --figure (DwflFigureRuns also knows quick, --quick's small case).
const std::vector<std::string>& DwflFigureNames();

/**
 * The runs of a figure (the paper's sweeps, best expected first within each ordering group),
 * keeping only the N of settings.onlyN if it is not empty; empty if the name is unknown:
 *  - power (Fig. 2): P in {80, 60, 40, 20} dBm at eps = 0.5, N = 10 and 30;
 *  - workers (Fig. 3): N in {30, 25, 20, 15} at eps = 0.1 and 0.5;
 *  - epsilon (Fig. 4): eps in {1, 0.5, 0.25, 0.1} at N = 10 and 30;
 *  - orthogonal (Fig. 5, eps = 0.1) and centralized (Fig. 6, eps = 0.5): DWFL above the
 *    baseline at N = 10 and 30;
 *  - perlink: sender-only above per-link channels, fixed and block fading, N = 10 and 30;
 *  - digital: analog DWFL against digital Wi-Fi at N = 10 (no ordering);
 *  - mobility: DWFL at N = 10 on time-correlated fading (f_c = 2.4 GHz) with moving workers,
 *    speeds {0, 5, 15, 30} m/s at a CSI age of 0.5 ms and CSI ages {0, 0.25, 0.5, 1} ms at
 *    30 m/s (no ordering stated: the figure measures it);
 *  - quick: N = 4, analog DWFL, the analog server and digital Wi-Fi.
 * Every figure but quick also has the noiseless decentralized run of each N (no artificial or
 * receiver noise: mini-batch SGD on the union of the data), outside every ordering.
 */
std::vector<DwflFigureRun> DwflFigureRuns(const std::string& figure,
                                          const DwflFigureSettings& settings);

/**
 * Throws fl::ConfigError naming the flag and the fix unless every run can meet its eps whatever
 * channels it draws, so that no run stops half-way: the orthogonal baseline needs sigma^2 above
 * fl::DwflOrthogonalSigma2Floor (--orthSigma2); DWFL and the server need some noise (--sigma2 or
 * --sigmaM2 > 0: then the largest kappa is positive).
 */
void DwflCheckFigureFeasible(const DwflFigureSettings& settings,
                             const std::vector<DwflFigureRun>& runs);

/// fl-dwfl --quick: the figure quick, at most 5 rounds, 200 samples per worker, 500 test
/// samples, gamma at least 0.2 (a visible fall of the loss in 5 rounds).
void DwflQuickFigure(DwflFigureSettings& settings, std::string& figure);

/// The series of the runs for FlFigureRunner and FlReportFigure (label, group, channel).
std::vector<FlFigureSeries> DwflFigureSeries(const std::vector<DwflFigureRun>& runs);

/**
 * The figure CSV's header and its comment lines (what epsilon and epsilon_composed claim);
 * leaves the stream at 10 significant digits, the rows' precision.
 */
void DwflWriteFigureHeader(std::ostream& csv, const DwflFigureSettings& settings);

/**
 * The rows of one run: per round that every seed reached, the means over the seeds and the
 * 95 % CI half-widths (FlRoundStatisticsOverSeeds) of the centroid's and the workers' test loss
 * and accuracy, the disagreement and worker 0's composed epsilon.
 */
void DwflWriteFigureRows(std::ostream& csv,
                         const std::string& figure,
                         const DwflFigureRun& run,
                         const std::vector<std::vector<FlRoundSummary>>& seeds);

} // namespace ns3

#endif // DWFL_FIGURES_H
