/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "dwfl-figures.h"

#include "ns3/dwfl-composition.h"

#include <algorithm>
#include <iomanip>
#include <ostream>
#include <sstream>

namespace ns3
{

double
DwflFigureSettings::EtaFor(uint32_t n) const
{
    return eta > 0.0 ? eta : (n - 1.0) / n;
}

fl::DwflPrivacyParams
DwflFigureSettings::Privacy(double sigma2Value) const
{
    fl::DwflPrivacyParams p;
    p.gamma = gamma;
    p.gMax = gMax;
    p.delta = delta;
    p.sigmaM2 = sigmaM2;
    p.sigma2 = sigma2Value;
    return p;
}

fl::TaskSpec
DwflFigureSettings::Task(uint32_t n) const
{
    fl::TaskSpec t;
    t.clients = n;
    t.dataset = dataset;
    t.standardise = standardise;
    t.featureShift = featureShift;
    t.featureScale = featureScale;
    t.model = model;
    t.samplesPerClient = samplesPerWorker;
    t.testSamples = testSamples;
    t.batchSize = batch;
    t.learningRate = gamma;
    t.localEpochs = 0.0; // one step per round
    t.clipNorm = gMax;
    t.precision = "float64";
    return t;
}

void
DwflFigureSettings::Print(std::ostream& os) const
{
    os << "  data: "
       << (dataset == "fashion-mnist" ? "Fashion-MNIST (the paper's CIFAR-10 is not "
                                        "available offline), pixels in [0, 1]"
                                      : dataset)
       << ", IID, " << samplesPerWorker << " training samples per "
       << "worker, " << testSamples << " test samples, --standardise=" << standardise
       << " (fitted on each holder's own data, never pooled)\n  model: " << model
       << "; one mini-batch SGD step per round, batch " << batch << ", gamma = " << gamma
       << ", gradient clipped to g_max = " << gMax
       << "; eta = " << (eta > 0.0 ? std::to_string(eta) : std::string("(N-1)/N"))
       << ", T = " << rounds << "\n  privacy: delta = " << delta
       << ", --epsilon per round (eq. 11, the first round); "
       << "epsilon_composed: worker 0's (the server's) over the rounds (Renyi DP; nan for the "
       << "orthogonal links and per-link channels: " << fl::kDwflNotComposed
       << "); noise: " << fl::NoiseAssumption(fl::ParseNoiseSource(noiseSource, "--noiseSource"))
       << "\n  power: P in dBm over "
       << "a receiver noise sigma_m^2 = " << sigmaM2
       << " of 1 mW; channel: " << (perLink ? "per-link" : "sender-only") << " Rayleigh, "
       << (blockFading ? "redrawn every slot" : "drawn once per run")
       << ", no path loss; artificial noise sigma^2 = " << sigma2 << " (" << orthSigma2
       << " orthogonal), largest feasible kappa\n  timing: compute " << computeTime * 1e3
       << " ms per round, analog symbol rate " << bandwidthHz / 1e6 << " MHz; digital: "
       << "802.11n ad hoc, TCP, float32\n  seeds: " << runs << " per run (RngRun, RngRun "
       << "+ 1, ...); CSV rows are means over the seeds, *_ci95 95 % half-widths\n";
}

std::string
DwflFigureRun::Channel() const
{
    if (scheme == "digital")
    {
        return "wifi";
    }
    const bool correlated = speed > 0.0 || csiAgeMs > 0.0;
    return std::string(perLink ? "perlink" : "sender") +
           (correlated ? "-correlated" : (blockFading ? "-block" : "-fixed"));
}

const std::vector<std::string>&
DwflFigureNames()
{
    static const std::vector<std::string> names = {"power",
                                                   "workers",
                                                   "epsilon",
                                                   "orthogonal",
                                                   "centralized",
                                                   "perlink",
                                                   "digital",
                                                   "mobility"};
    return names;
}

namespace
{

/// "name=value" with the value as printed by a stream (60, 0.25).
std::string
Label(const std::string& name, double value)
{
    std::ostringstream os;
    os << name << "=" << value;
    return os.str();
}

} // namespace

std::vector<DwflFigureRun>
DwflFigureRuns(const std::string& figure, const DwflFigureSettings& c)
{
    std::vector<DwflFigureRun> runs;
    const auto add = [&](const std::string& series,
                         const std::string& scheme,
                         uint32_t n,
                         double p,
                         double eps,
                         const std::string& group = "") {
        runs.push_back({series, scheme, n, p, eps, c.perLink, c.blockFading, group});
        return &runs.back();
    };
    const auto noiseless = [&](uint32_t n) {
        add(Label("N", n) + " noiseless", "noiseless", n, 60.0, 0.0);
    };
    if (figure == "power") // Fig. 2: 80 >= 60 >= 40 >= 20 dBm
    {
        for (uint32_t n : {10u, 30u})
        {
            for (double p : {80.0, 60.0, 40.0, 20.0})
            {
                add(Label("N", n) + " " + Label("P", p) + " dBm", "dwfl", n, p, 0.5, Label("N", n));
            }
            noiseless(n);
        }
    }
    else if (figure == "workers") // Fig. 3: 30 >= 25 >= 20 >= 15 workers
    {
        for (double eps : {0.1, 0.5})
        {
            for (uint32_t n : {30u, 25u, 20u, 15u})
            {
                add(Label("eps", eps) + " " + Label("N", n),
                    "dwfl",
                    n,
                    60.0,
                    eps,
                    Label("eps", eps));
            }
        }
        for (uint32_t n : {30u, 25u, 20u, 15u})
        {
            noiseless(n);
        }
    }
    else if (figure == "epsilon") // Fig. 4: larger eps, less noise (erratum: the text says both)
    {
        for (uint32_t n : {10u, 30u})
        {
            for (double eps : {1.0, 0.5, 0.25, 0.1})
            {
                add(Label("N", n) + " " + Label("eps", eps), "dwfl", n, 60.0, eps, Label("N", n));
            }
            noiseless(n);
        }
    }
    else if (figure == "orthogonal" || figure == "centralized")
    {
        // Fig. 5 (eps = 0.1): non-orthogonal beats orthogonal at the same eps;
        // Fig. 6 (eps = 0.5): decentralized beats the centralized parameter server.
        const bool orthogonal = figure == "orthogonal";
        const double eps = orthogonal ? 0.1 : 0.5;
        for (uint32_t n : {10u, 30u})
        {
            const std::string N = Label("N", n);
            add(N + (orthogonal ? " non-orthogonal" : " decentralized"), "dwfl", n, 60.0, eps, N);
            add(N + " " + figure, figure, n, 60.0, eps, N);
            noiseless(n);
        }
    }
    else if (figure == "perlink")
    {
        // No paper has it. Expected: the paper's sender-only channel beats per-link channels,
        // on which alignment holds only at each sender's reference receiver (fixed or block
        // fading alike).
        for (uint32_t n : {10u, 30u})
        {
            for (bool block : {false, true})
            {
                const std::string fading = block ? "block fading" : "fixed";
                for (bool perLink : {false, true})
                {
                    DwflFigureRun* r = add(
                        Label("N", n) + " " + (perLink ? "per-link" : "sender-only") + " " + fading,
                        "dwfl",
                        n,
                        60.0,
                        0.5,
                        Label("N", n) + " " + fading);
                    r->perLink = perLink;
                    r->blockFading = block;
                }
            }
            noiseless(n);
        }
    }
    else if (figure == "digital") // no ordering stated: the point is the time axis
    {
        add("analog DWFL eps=0.5", "dwfl", 10, 60.0, 0.5);
        add("analog DWFL no artificial noise", "dwfl", 10, 60.0, 0.0);
        add("digital Wi-Fi", "digital", 10, 60.0, 0.0);
        noiseless(10);
    }
    else if (figure == "mobility")
    {
        // No paper has it: moving workers, aligned on estimates CsiAge old (chapter "Mobility").
        for (double v : {0.0, 5.0, 15.0, 30.0})
        {
            DwflFigureRun* r = add(Label("v", v) + " m/s CSI age=0.5 ms", "dwfl", 10, 60.0, 0.5);
            r->speed = v;
            r->csiAgeMs = 0.5;
        }
        for (double age : {0.0, 0.25, 1.0})
        {
            DwflFigureRun* r =
                add("v=30 m/s " + Label("CSI age", age) + " ms", "dwfl", 10, 60.0, 0.5);
            r->speed = 30.0;
            r->csiAgeMs = age;
        }
        noiseless(10);
    }
    else if (figure == "quick")
    {
        add("analog DWFL N=4", "dwfl", 4, 60.0, 1.0);
        add("analog server N=4 no artificial noise", "centralized", 4, 60.0, 0.0);
        add("digital Wi-Fi N=4", "digital", 4, 60.0, 0.0);
    }
    if (!c.onlyN.empty())
    {
        runs.erase(std::remove_if(runs.begin(),
                                  runs.end(),
                                  [&c](const DwflFigureRun& r) {
                                      return std::find(c.onlyN.begin(), c.onlyN.end(), r.n) ==
                                             c.onlyN.end();
                                  }),
                   runs.end());
    }
    return runs;
}

void
DwflCheckFigureFeasible(const DwflFigureSettings& c, const std::vector<DwflFigureRun>& runs)
{
    for (const DwflFigureRun& run : runs)
    {
        if (run.scheme == "digital" || run.epsilon <= 0.0)
        {
            continue;
        }
        std::ostringstream problem;
        const double need = fl::DwflOrthogonalSigma2Floor(run.epsilon, c.Privacy(c.orthSigma2));
        if (run.scheme == "orthogonal" && !(c.orthSigma2 > need))
        {
            problem << c.orthSigma2
                    << " is too small for the orthogonal baseline at eps = " << run.epsilon
                    << " per link: a link needs sigma^2 > " << need
                    << " (fl::DwflOrthogonalSigma2Floor) to fit the power budget whatever its "
                       "channel";
            throw fl::ConfigError("--orthSigma2",
                                  problem.str(),
                                  "raise --orthSigma2 above " + std::to_string(need) +
                                      ", or lower --gamma or --gmax");
        }
        else if (c.sigma2 <= 0.0 && c.sigmaM2 <= 0.0)
        {
            problem << "is 0 and so is --sigmaM2: no noise can give eps = " << run.epsilon;
            throw fl::ConfigError("--sigma2",
                                  problem.str(),
                                  "give the workers artificial noise (--sigma2 > 0)");
        }
    }
}

void
DwflQuickFigure(DwflFigureSettings& settings, std::string& figure)
{
    figure = "quick";
    settings.rounds = std::min<uint32_t>(settings.rounds, 5);
    settings.samplesPerWorker = std::min<uint32_t>(settings.samplesPerWorker, 200);
    settings.testSamples = std::min<uint32_t>(settings.testSamples, 500);
    settings.gamma = std::max(settings.gamma, 0.2); // a visible fall of the loss in 5 rounds
}

std::vector<FlFigureSeries>
DwflFigureSeries(const std::vector<DwflFigureRun>& runs)
{
    std::vector<FlFigureSeries> series;
    for (const DwflFigureRun& run : runs)
    {
        series.push_back({run.series, run.group, run.Channel()});
    }
    return series;
}

void
DwflWriteFigureHeader(std::ostream& csv, const DwflFigureSettings& settings)
{
    csv << "figure,series,scheme,n,p_dbm,epsilon,round,time_s,test_loss,test_accuracy,"
           "worker_test_loss,worker_test_accuracy,disagreement,channel,runs,test_loss_ci95,"
           "test_accuracy_ci95,disagreement_ci95,epsilon_composed\n"
        << std::setprecision(10) << "# epsilon: the target per round | ";
    fl::PrivacyStatement round = fl::DwflRoundStatement(
        "one receiver: another worker, the parameter server when centralized, the link's "
        "receiver when orthogonal");
    const fl::NoiseSource source = fl::ParseNoiseSource(settings.noiseSource, "--noiseSource");
    round.noise = fl::NoiseAssumption(source);
    fl::PrivacyStatement composed = fl::DwflComposedStatement("worker 0", settings.delta);
    composed.noise = round.noise;
    fl::PrivacyStatement server = fl::OtaPsComposedStatement(settings.delta);
    server.noise = round.noise;
    csv << round.Describe()
        << "\n# epsilon_composed: worker 0's reception over the rounds (DWFL, sender-only "
           "channel) | "
        << composed.Describe()
        << "\n# epsilon_composed: the server's reception over the rounds (centralized) | "
        << server.Describe()
        << "\n# epsilon_composed: nan for the orthogonal links and per-link channels: "
        << fl::kDwflNotComposed << '\n';
}

void
DwflWriteFigureRows(std::ostream& csv,
                    const std::string& figure,
                    const DwflFigureRun& run,
                    const std::vector<std::vector<FlRoundSummary>>& seeds)
{
    for (const FlRoundStatistics& r : FlRoundStatisticsOverSeeds(seeds))
    {
        csv << figure << ',' << run.series << ',' << run.scheme << ',' << run.n << ',' << run.pDbm
            << ',' << run.epsilon << ',' << r.round << ',' << r.timeS.mean << ','
            << r.centroidLoss.mean << ',' << r.centroidAccuracy.mean << ',' << r.nodeLoss.mean
            << ',' << r.nodeAccuracy.mean << ',' << r.disagreement.mean << ',' << run.Channel()
            << ',' << r.seeds << ',' << r.centroidLoss.halfWidth << ','
            << r.centroidAccuracy.halfWidth << ',' << r.disagreement.halfWidth << ','
            << r.epsilon.mean << '\n';
    }
}

} // namespace ns3
