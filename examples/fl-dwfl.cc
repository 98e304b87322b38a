/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * fl-dwfl: the experiments of DWFL (S. Chen, D. Yu, Y. Zou, J. Yu, X. Cheng, "Decentralized
 * Wireless Federated Learning with Differential Privacy", arXiv:2109.09142, 2021). Reproduces
 * the orderings the paper states for its Figs. 2-6 on Fashion-MNIST (the paper uses CIFAR-10,
 * which is not available offline), plus the digital reference (the same decentralized
 * averaging, noiseless, over Wi-Fi ad hoc) and the per-link fading study (no paper has it).
 * Inputs are centred on each worker's own data by default (--standardise; the paper normalises
 * its CIFAR-10 inputs), and every figure also draws the noiseless decentralized run of each N.
 *
 *   fl-dwfl --figure=power       # Fig. 2: P in {20,40,60,80} dBm at N = 10 and 30
 *   fl-dwfl --figure=workers     # Fig. 3: N in {15,20,25,30} at eps = 0.1 and 0.5
 *   fl-dwfl --figure=epsilon     # Fig. 4: eps in {0.1,0.25,0.5,1} at N = 10 and 30
 *   fl-dwfl --figure=orthogonal  # Fig. 5: orthogonal vs non-orthogonal
 *   fl-dwfl --figure=centralized # Fig. 6: centralized (Seif et al.) vs decentralized
 *   fl-dwfl --figure=perlink     # sender-only vs per-link channels, fixed vs block fading
 *   fl-dwfl --figure=digital     # analog vs digital on comparable radios
 *   fl-dwfl --figure=workers --runs=10   # 10 seeds (RngRun, RngRun + 1, ...): mean and 95 % CI
 *   fl-dwfl --quick --output=F.csv
 *   fl-dwfl --privacyTable --nList=2,10,30 --gainPower=1e6 --kappa=0.5
 *
 * A figure is a list of runs (a scene, a scheme, its settings); each run is built with helpers
 * (DwflHelper on an OtaChannel, or DwflDigitalHelper on a Wi-Fi ad hoc scene), observed by an
 * FlLearningTracker, repeated over seeds (FlRunSeeds) and written as one CSV row per (run, round),
 * averaged over the seeds with 95 % confidence half-widths (fl::MeanCiPerIndex); the paper's
 * orderings are checked with fl::CheckOrdering. Plot with utils/plot-dwfl.sh.
 */

#include "fl-example-flags.h"

#include "ns3/dwfl-digital-helper.h"
#include "ns3/dwfl-helper.h"
#include "ns3/dwfl-privacy.h"
#include "ns3/fl-experiment.h"
#include "ns3/fl-network-scenarios.h"
#include "ns3/mobility-module.h"

#include <fstream>
#include <iomanip>
#include <map>

using namespace ns3;

namespace
{

/// Every choice the paper leaves open, with the value this example uses.
struct Choices
{
    uint32_t rounds = 100;                 ///< T
    std::string dataset = "fashion-mnist"; ///< or the user's CSV file or IDX folder
    /// per-feature preprocessing, fitted on each worker's own data (the paper normalises its
    /// CIFAR-10 inputs; raw pixels in [0, 1] learn worse under the same noise)
    std::string standardise = "centre";
    std::string featureShift = "0";  ///< --standardise=public
    std::string featureScale = "1";  ///< --standardise=public
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

    double EtaFor(uint32_t n) const
    {
        return eta > 0.0 ? eta : (n - 1.0) / n;
    }

    fl::DwflPrivacyParams Privacy(double sigma2Value) const
    {
        fl::DwflPrivacyParams p;
        p.gamma = gamma;
        p.gMax = gMax;
        p.delta = delta;
        p.sigmaM2 = sigmaM2;
        p.sigma2 = sigma2Value;
        return p;
    }

    /// The learning task of N workers: one clipped SGD step per round, float64.
    fl::TaskSpec Task(uint32_t n) const
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

    /// The values of the choices (doc/fl.rst, "Choices the paper leaves open", says why).
    void Print(std::ostream& os) const
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
           << ", --epsilon per round (eq. 11); "
           << "epsilon_composed: worker 0's over the rounds (Renyi DP)\n  power: P in dBm over "
           << "a receiver noise sigma_m^2 = " << sigmaM2
           << " of 1 mW; channel: " << (perLink ? "per-link" : "sender-only") << " Rayleigh, "
           << (blockFading ? "redrawn every slot" : "drawn once per run")
           << ", no path loss; artificial noise sigma^2 = " << sigma2 << " (" << orthSigma2
           << " orthogonal), largest feasible kappa\n  timing: compute " << computeTime * 1e3
           << " ms per round, analog symbol rate " << bandwidthHz / 1e6 << " MHz; digital: "
           << "802.11n ad hoc, TCP, float32\n  seeds: " << runs << " per run (RngRun, RngRun "
           << "+ 1, ...); CSV rows are means over the seeds, *_ci95 95 % half-widths\n";
    }
};

/// One run of a figure.
struct RunSpec
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

    /// The CSV name of the run's channel.
    std::string Channel() const
    {
        return scheme == "digital" ? "wifi"
                                   : std::string(perLink ? "perlink" : "sender") +
                                         (blockFading ? "-block" : "-fixed");
    }
};

/// "name=value" with the value as printed by a stream (60, 0.25).
std::string
Label(const std::string& name, double value)
{
    std::ostringstream os;
    os << name << "=" << value;
    return os.str();
}

/**
 * The runs of a figure (the paper's sweeps, best expected first within each ordering group);
 * empty if the name is unknown. Every figure also has the noiseless decentralized run of each N:
 * the same analog averaging without artificial or receiver noise (mini-batch SGD on the union of
 * the data), outside every ordering, so that what privacy and the channel cost is visible.
 */
std::vector<RunSpec>
FigureRuns(const std::string& figure, const Choices& c)
{
    std::vector<RunSpec> runs;
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
                    RunSpec* r = add(Label("N", n) + " " + (perLink ? "per-link" : "sender-only") +
                                         " " + fading,
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
                                  [&c](const RunSpec& r) {
                                      return std::find(c.onlyN.begin(), c.onlyN.end(), r.n) ==
                                             c.onlyN.end();
                                  }),
                   runs.end());
    }
    return runs;
}

/**
 * The digital reference: N workers on an 802.11n ad hoc network (20 MHz), every worker sends
 * x_i^(t) to every other over TCP (float32 on the wire) and applies eq. (7) without noise.
 */
void
InstallDigital(const Choices& c, const RunSpec& run, std::shared_ptr<fl::LearningTask> task)
{
    fl::Rng initRng(1);
    FlWifiAdhocSceneHelper adhoc;
    adhoc.SetStandard("80211n");
    FlScene scene = adhoc.Build(run.n); // the scene's "server" node stays idle
    DwflDigitalHelper digital(task);
    digital.SetAttribute("Rounds", UintegerValue(c.rounds));
    digital.SetAttribute("Eta", DoubleValue(c.EtaFor(run.n)));
    digital.SetAttribute("ComputeTime", TimeValue(Seconds(c.computeTime)));
    digital.SetAttribute("WirePrecision", StringValue("float32"));
    ApplicationContainer apps =
        digital.Install(scene.clients, scene.clientInterfaces, task->InitialParameters(initRng));
    apps.Start(Seconds(0.1));
    int64_t stream = 100;
    stream += FlWifiSceneHelperBase::AssignStreams(scene, stream);
    DwflDigitalHelper::AssignStreams(apps, stream);
}

/**
 * The analog runs: N DwflWorkerApplications on one OtaChannel (DwflHelper), plus the parameter
 * server on a node at the centre for the centralized baseline; positions on a 10 m circle only
 * set the propagation delays. The paper's channel: sender-only Rayleigh |h_k| drawn once for the
 * run, no path loss (per-link and block fading on request); P = run.pDbm over a noise of 1 mW per
 * real entry (sigma_m^2 = 1 in mW units: NoiseVariance = 2 sigma_m^2 mW per complex symbol);
 * artificial noise calibrated per round for run.epsilon (0: none), with the largest feasible
 * kappa; Practical decode; symbol rate c.bandwidthHz. Returns worker 0's accountant (the
 * server's reception when centralized), null without artificial noise (no privacy claim).
 */
std::shared_ptr<fl::PrivacyAccountant>
InstallAnalog(const Choices& c, const RunSpec& run, std::shared_ptr<fl::LearningTask> task)
{
    const bool centralized = run.scheme == "centralized";
    NodeContainer nodes;
    nodes.Create(run.n + (centralized ? 1 : 0));
    Ptr<ListPositionAllocator> positions = CreateObject<ListPositionAllocator>();
    for (uint32_t k = 0; k < run.n; ++k)
    {
        const double a = 2.0 * M_PI * k / run.n;
        positions->Add(Vector(10.0 * std::cos(a), 10.0 * std::sin(a), 0.0));
    }
    positions->Add(Vector(0.0, 0.0, 0.0)); // the server, if any
    MobilityHelper mobility;
    mobility.SetPositionAllocator(positions);
    mobility.Install(nodes);
    DwflHelper dwfl;
    dwfl.SetBandwidth(c.bandwidthHz);
    dwfl.Ota().DisablePropagationLoss();
    dwfl.Ota().SetChannelAttribute("FadingModel", StringValue("Rayleigh"));
    dwfl.Ota().SetChannelAttribute("Structure",
                                   StringValue(run.perLink ? "PerLink" : "SenderOnly"));
    dwfl.Ota().SetChannelAttribute("Coherence", StringValue(run.blockFading ? "PerSlot" : "Fixed"));
    dwfl.Ota().SetPhyAttribute("TxPower", DoubleValue(run.pDbm));
    dwfl.Ota().SetPhyAttribute("NoiseModel", StringValue("Fixed"));
    const bool noiseless = run.scheme == "noiseless";
    dwfl.Ota().SetPhyAttribute("NoiseVariance", DoubleValue(noiseless ? 0.0 : 2e-3 * c.sigmaM2));
    const bool orthogonal = run.scheme == "orthogonal";
    dwfl.SetWorkerAttribute("Rounds", UintegerValue(c.rounds));
    dwfl.SetWorkerAttribute("Eta", DoubleValue(c.EtaFor(run.n)));
    dwfl.SetWorkerAttribute("Kappa", DoubleValue(run.epsilon > 0.0 ? 0.0 : 1.0));
    dwfl.SetWorkerAttribute("TargetEpsilon", DoubleValue(run.epsilon));
    dwfl.SetWorkerAttribute("Delta", DoubleValue(c.delta));
    // Orthogonal links need (N-1) times the noise of the sum (see CheckFeasible).
    dwfl.SetWorkerAttribute("Sigma2", DoubleValue(orthogonal ? c.orthSigma2 : c.sigma2));
    dwfl.SetWorkerAttribute("ComputeTime", TimeValue(Seconds(c.computeTime)));
    dwfl.SetWorkerAttribute("Transmission",
                            StringValue(orthogonal ? "Orthogonal" : "NonOrthogonal"));
    NodeContainer workers;
    for (uint32_t k = 0; k < run.n; ++k)
    {
        workers.Add(nodes.Get(k));
    }
    DwflNetwork net = centralized ? dwfl.InstallCentralized(workers, nodes.Get(run.n), task)
                                  : dwfl.Install(workers, task);
    if (net.server)
    {
        net.server->SetStartTime(Seconds(0.1));
    }
    net.workers.Start(Seconds(0.1));
    DwflHelper::AssignStreams(net, 100);
    if (run.epsilon <= 0.0)
    {
        return nullptr;
    }
    auto accountant = std::make_shared<fl::PrivacyAccountant>();
    DynamicCast<DwflWorkerApplication>(net.workers.Get(0))->SetPrivacyAccountant(accountant);
    return accountant;
}

/// Runs one seed of one figure run and returns its rounds (the initial model first).
std::vector<FlRoundSummary>
RunOne(const Choices& c, const RunSpec& run, std::shared_ptr<fl::LearningTask> task, bool quiet)
{
    std::shared_ptr<fl::PrivacyAccountant> accountant;
    if (run.scheme == "digital")
    {
        InstallDigital(c, run, task);
    }
    else
    {
        accountant = InstallAnalog(c, run, task);
    }
    Ptr<FlLearningTracker> tracker = CreateObject<FlLearningTracker>();
    tracker->SetAttribute("EvaluateNodes", BooleanValue(c.evaluateWorkers));
    tracker->SetTask(task);
    if (accountant)
    {
        // worker 0's reception composed over rounds at the drifting sensitivity
        tracker->SetAccountant(
            accountant,
            c.delta,
            fl::Composition::Rdp,
            fl::DwflComposedStatement("worker 0 or the parameter server", c.delta));
    }
    tracker->InstallAll();
    if (!quiet)
    {
        FlPrintRoundProgress(c.rounds, std::cout);
    }
    Simulator::Stop(Seconds(c.maxTime));
    Simulator::Run();
    tracker->Flush();
    std::vector<FlRoundSummary> rows = FlSummariseRounds(tracker->GetRows());
    Simulator::Destroy();
    return rows;
}

/**
 * Throws fl::ConfigError naming the flag and the fix unless every run of the figure can meet its
 * eps whatever channels the run draws, so that no run stops half-way: the orthogonal baseline
 * needs sigma^2 above fl::DwflOrthogonalSigma2Floor; DWFL and the server need some noise
 * (sigma^2 or sigma_m^2 > 0: then the largest kappa is positive).
 */
void
CheckFeasible(const Choices& c, const std::vector<RunSpec>& runs)
{
    for (const RunSpec& run : runs)
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

/// Writes the CSV rows of one run: per round, the means over the seeds and the 95 % CIs.
void
WriteRows(std::ostream& csv,
          const std::string& figure,
          const RunSpec& run,
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

} // namespace

int
main(int argc, char* argv[])
{
    Choices c;
    std::string figure = "digital";
    bool quick = false;
    bool quiet = false;
    std::string output = "fl-dwfl.csv";
    bool privacyTable = false;
    std::string channel = "sender";
    std::string nList = "2,5,10,15,20,25,30,50,100";
    double kappa = 1.0;
    std::string gainPower = "1e6";
    std::string onlyN;
    std::vector<uint32_t> ns;
    std::vector<double> gains;

    flexample::Flags flags(__FILE__);
    flags.Cmd().Usage(
        "DWFL (Chen et al., arXiv:2109.09142, 2021) experiments on Fashion-MNIST (CIFAR-10, the "
        "paper's data set, is not available offline). --figure picks the paper's sweep: power "
        "(Fig. 2: P in {20,40,60,80} dBm at N = 10, 30), workers (Fig. 3: N in {15,20,25,30} "
        "at eps = 0.1, 0.5), epsilon (Fig. 4: eps in {0.1,0.25,0.5,1} at N = 10, 30), "
        "orthogonal (Fig. 5), centralized (Fig. 6: the over-the-air parameter server of Seif et "
        "al.), perlink (sender-only vs per-link channels, fixed vs block fading), digital (analog "
        "vs digital Wi-Fi ad hoc). --runs repeats every run over seeds RngRun, RngRun + 1, ... "
        "and checks the orderings on the means. Every figure also draws the noiseless "
        "decentralized run of each N (no artificial or receiver noise: what privacy costs). "
        "Inputs are centred on each worker's own data (--standardise=centre; none for raw "
        "pixels in [0, 1]). Writes one CSV row per (run, round); plot with utils/plot-dwfl.sh. "
        "--privacyTable prints eps_i of eq. (11) and the orthogonal eps for N in --nList "
        "without training.");
    flags.AddChoice(
        "figure",
        "power, workers, epsilon, orthogonal, centralized, perlink or digital",
        figure,
        {"power", "workers", "epsilon", "orthogonal", "centralized", "perlink", "digital"});
    flags.AddBool("quick", "A small case in seconds (N = 4, 5 rounds; the test suite)", quick);
    flags.AddOutput("output", "CSV output file", output, false);
    flags.AddBool("quiet", "No progress lines", quiet);
    flags.AddSize("runs",
                  "Seeds per run (RngRun, RngRun + 1, ...): means and 95 % CIs",
                  c.runs,
                  1U,
                  flexample::Bound{1000, "fl-dwfl.cc, flag --runs"});
    flags.AddChoice("channel",
                    "Analog channel: sender (the paper's: one h_k per sender) or per-link "
                    "(h_k->i; each worker aligns to the next one)",
                    channel,
                    {"sender", "per-link"});
    flags.AddBool("blockFading",
                  "Redraw the analog channel every slot (alignment redone every round)",
                  c.blockFading);
    const flexample::Bound trainSet{60000, "the Fashion-MNIST training set"};
    flags.AddSize("rounds",
                  "Rounds T per run",
                  c.rounds,
                  1U,
                  {100000, "fl-dwfl.cc, flag --rounds"});
    flags.AddSize("samplesPerWorker",
                  "Training images per worker (IID)",
                  c.samplesPerWorker,
                  1U,
                  trainSet);
    flags.AddSize("testSamples",
                  "Test images for the evaluation",
                  c.testSamples,
                  1U,
                  {10000, "the Fashion-MNIST test set"});
    flags.AddText("dataset",
                  "fashion-mnist (Debian's dataset-fashion-mnist), or a CSV file (a header line, "
                  "numeric features, the class 0..C-1 last) or an IDX folder of yours",
                  c.dataset);
    flags.AddChoice("standardise",
                    "Per-feature preprocessing, fitted on each holder's own data (every worker "
                    "its own, the evaluator its test set; never pooled): none, centre (minus the "
                    "mean; the default), standardise (also divided by the standard deviation), "
                    "or public (--featureShift, --featureScale)",
                    c.standardise,
                    {"none", "centre", "standardise", "public"});
    flags.AddText("featureShift",
                  "--standardise=public: the shift, one value or one per feature",
                  c.featureShift);
    flags.AddText("featureScale",
                  "--standardise=public: the scale (> 0), one value or one per feature",
                  c.featureScale);
    flags.AddText("model", "Model spec (softmax:l2=0, mlp:hidden=64, ...)", c.model);
    flags.AddSize("batch", "Mini-batch size of the local step", c.batch, 1U, trainSet);
    const flexample::Range positive = flexample::Range::Above(0.0);
    const flexample::Range nonNegative = flexample::Range::AtLeast(0.0);

    struct RealFlag
    {
        const char* name;
        const char* help;
        double& value;
        flexample::Range range;
    };

    for (const RealFlag& f : std::initializer_list<RealFlag>{
             {"gamma", "SGD step size gamma", c.gamma, positive},
             {"gmax", "Clipping threshold g_max (gradient-norm bound)", c.gMax, positive},
             {"eta", "Averaging rate eta (0 = (N-1)/N)", c.eta, {0.0, 2.0, false, true}},
             {"delta", "DP delta", c.delta, {0.0, 1.0, true, true}},
             {"sigmaM2", "Receiver noise variance sigma_m^2", c.sigmaM2, nonNegative},
             {"sigma2",
              "Artificial-noise variance sigma^2 (DWFL, the server, --privacyTable)",
              c.sigma2,
              nonNegative},
             {"orthSigma2",
              "Artificial-noise variance sigma^2 of the orthogonal baseline",
              c.orthSigma2,
              positive},
             {"computeTime",
              "Simulated compute time of a local step [s]",
              c.computeTime,
              nonNegative},
             {"maxTime", "Bound on the simulated time of a run [s]", c.maxTime, positive}})
    {
        flags.AddReal(f.name, f.help, f.value, f.range);
    }
    flags.AddBool("evaluateWorkers",
                  "Evaluate every worker's model each round (the worker_* columns)",
                  c.evaluateWorkers);
    flags.AddBool("privacyTable", "Print the eps table (CSV on stdout) and exit", privacyTable);
    flags.AddText("nList", "--privacyTable: the values of N", nList);
    flags.AddText("onlyN",
                  "Run only the figure's runs with these N, e.g. 10 or 10,30 (empty: all)",
                  onlyN);
    flags.AddReal("kappa",
                  "--privacyTable: c = kappa min_k sqrt(|h_k|^2 P_k), 0 < kappa <= 1",
                  kappa,
                  flexample::Range{0.0, 1.0, true, false});
    flags.AddText("gainPower",
                  "--privacyTable: |h_k|^2 P_k in units of sigma_m^2, one value or a list",
                  gainPower);
    flags.AddCheck([&]() {
        ns = fl::ParseUnsignedList<uint32_t>(nList, "--nList", 2, 100000);
        gains = fl::ParseDoubleList(gainPower, "--gainPower", 1e-300);
        const uint32_t nMax = *std::max_element(ns.begin(), ns.end());
        if (gains.size() > 1 && gains.size() < nMax)
        {
            throw fl::ConfigError("--gainPower",
                                  "lists " + std::to_string(gains.size()) +
                                      " workers but --nList asks for N = " + std::to_string(nMax),
                                  "give one value for all or at least max(--nList) values");
        }
        if (c.dataset == "synthetic")
        {
            throw fl::ConfigError("--dataset",
                                  "synthetic is not offered here",
                                  "use fashion-mnist, a CSV file or an IDX folder");
        }
        fl::CheckTaskSpec(c.Task(2)); // data files, preprocessing constants, model spec
        c.perLink = channel == "per-link";
        c.Privacy(c.sigma2).Validate();
    });
    // --quick's small case, applied after the flags.
    const auto applyQuick = [](Choices& config, std::string& fig) {
        fig = "quick";
        config.rounds = std::min<uint32_t>(config.rounds, 5);
        config.samplesPerWorker = std::min<uint32_t>(config.samplesPerWorker, 200);
        config.testSamples = std::min<uint32_t>(config.testSamples, 500);
        config.gamma = std::max(config.gamma, 0.2); // a visible fall of the loss in 5 rounds
    };
    // Every run of the figure must be feasible (checked on a copy, so that --checkFlags refuses
    // an infeasible figure too).
    flags.AddCheck([&]() {
        if (privacyTable)
        {
            return;
        }
        if (!onlyN.empty())
        {
            c.onlyN = fl::ParseUnsignedList<uint32_t>(onlyN, "--onlyN", 2, 100000);
        }
        Choices copy = c;
        std::string fig = figure;
        if (quick)
        {
            applyQuick(copy, fig);
        }
        const std::vector<RunSpec> figureRuns = FigureRuns(fig, copy);
        if (figureRuns.empty())
        {
            throw fl::ConfigError("--onlyN",
                                  "the figure has no run with N in {" + onlyN + "}",
                                  "give N values the figure uses (see --help for each figure's "
                                  "N), or leave --onlyN empty");
        }
        CheckFeasible(copy, figureRuns);
    });
    if (!flags.Parse(argc, argv))
    {
        return flexample::kExitBadFlag;
    }
    if (privacyTable)
    {
        std::cerr << "fl-dwfl --privacyTable: eps per round (the paper's privacy is per round), "
                     "beta_k = 1 - alpha_k (all spare power on artificial noise), |h_k|^2 P_k "
                     "and the variances in units of the receiver noise\n";
        fl::WriteDwflPrivacyTable(std::cout, ns, gains, kappa, c.Privacy(c.sigma2));
        return 0;
    }

    if (quick)
    {
        applyQuick(c, figure);
    }
    const std::vector<RunSpec> runs = FigureRuns(figure, c);
    std::ofstream csv(output);
    if (!csv)
    {
        std::cerr << "fl-dwfl: invalid --output: cannot write '" << output
                  << "' (fix: choose a writable path)" << std::endl;
        return flexample::kExitBadFlag;
    }
    std::cout << "fl-dwfl: figure " << figure << ", " << runs.size() << " runs x " << c.runs
              << " seeds -> " << output << "\n";
    c.Print(std::cout);

    // One data split per N, drawn at the base RngRun; the seeds vary the rest.
    std::map<uint32_t, std::shared_ptr<fl::LearningTask>> tasks;
    try
    {
        for (const RunSpec& run : runs)
        {
            if (!tasks[run.n])
            {
                tasks[run.n] = FlBuildTask(c.Task(run.n));
            }
        }
    }
    catch (const std::exception& e)
    {
        std::cerr << e.what() << std::endl;
        return flexample::kExitBadFlag;
    }

    csv << "figure,series,scheme,n,p_dbm,epsilon,round,time_s,test_loss,test_accuracy,"
           "worker_test_loss,worker_test_accuracy,disagreement,channel,runs,test_loss_ci95,"
           "test_accuracy_ci95,disagreement_ci95,epsilon_composed\n"
        << std::setprecision(10) << "# epsilon: the target per round | "
        << fl::DwflRoundStatement("one receiver: another worker, the parameter server when "
                                  "centralized, the link's receiver when orthogonal")
               .Describe()
        << "\n# epsilon_composed: worker 0's reception (the server's when centralized) | "
        << fl::DwflComposedStatement("worker 0 or the parameter server", c.delta).Describe()
        << '\n';
    // Every run over the seeds; a run is ranked by the centroid's accuracy over the last tenth
    // of its rounds (FlSummariseSeeds), the paper's orderings are checked on the means.
    std::vector<FlSeedsSummary> results;
    bool incomplete = false;
    for (std::size_t k = 0; k < runs.size(); ++k)
    {
        const RunSpec& run = runs[k];
        std::vector<std::vector<FlRoundSummary>> seeds;
        try
        {
            seeds = FlRunSeries(
                run.series,
                k,
                runs.size(),
                c.runs,
                c.rounds,
                [&]() { return RunOne(c, run, tasks[run.n], quiet); },
                std::cout,
                &incomplete);
        }
        catch (const fl::ConfigError& e)
        {
            // a configuration that the drawn channels make infeasible (CheckFeasible rules out
            // the ones it can foresee)
            std::cerr << "fl-dwfl: " << e.what() << std::endl;
            return flexample::kExitBadFlag;
        }
        catch (const std::runtime_error& e)
        {
            std::cerr << "  " << e.what() << std::endl;
            return 1;
        }
        results.push_back(FlSummariseSeeds(seeds));
        WriteRows(csv, figure, run, seeds);
    }
    std::cout << "final accuracy = the centroid's mean test accuracy over the last tenth of the "
                 "rounds; worker accuracy and disagreement at the last round"
              << (c.runs > 1 ? "; mean +- 95 % CI over the seeds" : "") << "\n";
    std::vector<std::string> groups;
    std::vector<fl::OrderingEntry> entries;
    for (std::size_t k = 0; k < runs.size(); ++k)
    {
        std::cout << "  " << runs[k].series << " [" << runs[k].Channel() << "]: accuracy "
                  << fl::FormatMeanCi(results[k].accuracy) << ", worker accuracy "
                  << fl::FormatMeanCi(results[k].nodeAccuracy) << ", disagreement "
                  << fl::FormatMeanCi(results[k].disagreement) << "\n";
        groups.push_back(runs[k].group);
        entries.push_back({runs[k].series, results[k].accuracy});
    }
    // an inversion within the seeds' 95 % CI (with one seed: two standard errors of an accuracy
    // on testSamples images) is "within noise"
    for (const auto& g : fl::CheckOrderingGroups(groups, entries, c.testSamples))
    {
        std::cout << "  ordering, " << g.group << ": " << g.result.text << std::endl;
    }
    std::cout << "summary: " << runs.size() << " runs x " << c.runs << " seeds written to "
              << output << std::endl;
    return incomplete ? 1 : 0;
}
