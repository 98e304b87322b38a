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
 *   fl-dwfl --figure=mobility    # moving workers: speed and CSI age on correlated fading
 *   fl-dwfl --figure=workers --runs=10   # 10 seeds (RngRun, RngRun + 1, ...): mean and 95 % CI
 *   fl-dwfl --quick --output=F.csv
 *   fl-dwfl --privacyTable --nList=2,10,30 --gainPower=1e6 --kappa=0.5
 *   fl-dwfl --figure=workers --runs=10 --engine=parallel # the same CSV, one job per seed run
 *                                                        # by utils/fl-sweep (serial, slurm too)
 *
 * A figure is a list of runs (DwflFigureRuns in examples/support/dwfl-figures.h: a scene, a
 * scheme, its settings); each run is built here with helpers (DwflHelper on an OtaChannel, or
 * DwflDigitalHelper on a Wi-Fi ad hoc scene) and observed by an FlLearningTracker; an
 * FlFigureRunner repeats it over seeds, in this process or as jobs of utils/fl-sweep
 * (--engine); the CSV has one row per (run, round), averaged over the seeds with 95 %
 * confidence half-widths (DwflWriteFigureRows), and the paper's orderings are checked on the
 * means (FlReportFigure). Plot with utils/plot-dwfl.sh.
 */

#include "../fl-example-data.h"
#include "../fl-example-flags.h"

#include "ns3/dwfl-digital-helper.h"
#include "../support/dwfl-figures.h"
#include "ns3/dwfl-helper.h"
#include "ns3/fl-experiment-helper.h"
#include "ns3/fl-network-scenarios.h"
#include "ns3/dwfl-worker-application.h"
#include "ns3/mobility-module.h"
#include "ns3/ota-signal.h"

#include <fstream>
#include <iomanip>
#include <map>
#include <memory>

using namespace ns3;

namespace
{

/**
 * The aggregate error of analog DWFL (--aggregateOutput): per round, the mean over the receivers
 * i of ||v_i / c - sum_{k != i} x_k^(t)||^2 / d, v_i the real view of receiver i's data-slot
 * reception, c the round's alignment amplitude and x_k^(t) what worker k sent (its Round trace):
 * the receiver and artificial noise plus, on a moving channel with aged estimates, the
 * misalignment c (h_k / h^_k - 1) x_k of every sender.
 */
class AggregateError
{
  public:
    AggregateError(std::ostream& out, const std::string& figure, const std::string& series)
        : m_out(out),
          m_figure(figure),
          m_series(series)
    {
    }

    /// Connects to the workers' receptions and Round traces of `net` (N workers).
    void Connect(const DwflNetwork& net)
    {
        m_n = net.workers.GetN();
        for (uint32_t i = 0; i < m_n; ++i)
        {
            auto worker = DynamicCast<DwflWorkerApplication>(net.workers.Get(i));
            net.phys.Get(i)->TraceConnectWithoutContext(
                "Rx",
                FlCallback<void, const OtaReception&>([this, i, worker](const OtaReception& rx) {
                    if (rx.slot >= worker->GetDataSlot() && rx.contributors > 1)
                    {
                        m_rounds[worker->GetRoundsDone()].received[i] = fl::RealView(rx.symbols);
                    }
                }));
            worker->TraceConnectWithoutContext(
                "Round",
                FlCallback<void, const DwflRoundReport&>([this, i](const DwflRoundReport& r) {
                    Round& round = m_rounds[r.round - 1];
                    round.sent[i] = *r.localModel;
                    round.c[i] = r.c;
                    if (round.sent.size() == m_n)
                    {
                        Write(r.round, round);
                        m_rounds.erase(r.round - 1);
                    }
                }));
        }
    }

  private:
    struct Round
    {
        std::map<uint32_t, Eigen::VectorXd> received; ///< receiver -> real view of v_i
        std::map<uint32_t, Eigen::VectorXd> sent;     ///< worker -> x_k^(t)
        std::map<uint32_t, double> c;                 ///< worker -> c
    };

    void Write(uint32_t round, const Round& r)
    {
        Eigen::VectorXd total = Eigen::VectorXd::Zero(r.sent.begin()->second.size());
        for (const auto& [k, x] : r.sent)
        {
            total += x;
        }
        const auto d = total.size();
        double sum = 0.0;
        uint32_t receivers = 0;
        for (const auto& [i, v] : r.received)
        {
            const Eigen::VectorXd err = v.head(d) / r.c.at(i) - (total - r.sent.at(i));
            sum += err.squaredNorm() / static_cast<double>(d);
            ++receivers;
        }
        if (receivers > 0)
        {
            m_out << m_figure << ',' << m_series << ',' << RngSeedManager::GetRun() << ','
                  << round << ',' << sum / receivers << ',' << receivers << '\n';
        }
    }

    std::ostream& m_out;
    std::string m_figure;
    std::string m_series;
    uint32_t m_n{0};
    std::map<uint32_t, Round> m_rounds;
};

/// The --aggregateOutput stream and figure name (null: not asked for).
std::ostream* g_aggregate = nullptr;
std::string g_figure;

/**
 * The digital reference: N workers on an 802.11n ad hoc network (20 MHz), every worker sends
 * x_i^(t) to every other over TCP (float32 on the wire) and applies eq. (7) without noise.
 */
void
InstallDigital(const DwflFigureSettings& c,
               const DwflFigureRun& run,
               std::shared_ptr<fl::LearningTask> task)
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
 * server's reception when centralized), null without artificial noise (no privacy claim) and
 * for the orthogonal links and per-link channels (no valid composed bound).
 */
std::shared_ptr<fl::PrivacyAccountant>
InstallAnalog(const DwflFigureSettings& c,
              const DwflFigureRun& run,
              std::shared_ptr<fl::LearningTask> task)
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
    const bool correlated = run.speed > 0.0 || run.csiAgeMs > 0.0;
    if (correlated)
    {
        // the workers leave the circle tangentially at run.speed (no path loss: only the
        // fading's Doppler changes)
        mobility.SetMobilityModel("ns3::ConstantVelocityMobilityModel");
    }
    mobility.Install(nodes);
    for (uint32_t k = 0; correlated && k < run.n; ++k)
    {
        const double a = 2.0 * M_PI * k / run.n;
        nodes.Get(k)->GetObject<ConstantVelocityMobilityModel>()->SetVelocity(
            Vector(-run.speed * std::sin(a), run.speed * std::cos(a), 0.0));
    }
    DwflHelper dwfl;
    dwfl.SetBandwidth(c.bandwidthHz);
    dwfl.Ota().DisablePropagationLoss();
    dwfl.Ota().SetChannelAttribute("FadingModel", StringValue("Rayleigh"));
    dwfl.Ota().SetChannelAttribute("Structure",
                                   StringValue(run.perLink ? "PerLink" : "SenderOnly"));
    dwfl.Ota().SetChannelAttribute(
        "Coherence",
        StringValue(correlated ? "Correlated" : (run.blockFading ? "PerSlot" : "Fixed")));
    dwfl.Ota().SetChannelAttribute("CsiAge",
                                   TimeValue(MicroSeconds(std::llround(run.csiAgeMs * 1e3))));
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
    // Orthogonal links need (N-1) times the noise of the sum (see DwflCheckFigureFeasible).
    dwfl.SetWorkerAttribute("Sigma2", DoubleValue(orthogonal ? c.orthSigma2 : c.sigma2));
    dwfl.SetWorkerAttribute("ComputeTime", TimeValue(Seconds(c.computeTime)));
    dwfl.SetWorkerAttribute("Transmission",
                            StringValue(orthogonal ? "Orthogonal" : "NonOrthogonal"));
    dwfl.SetWorkerAttribute("NoiseSource", StringValue(c.noiseSource));
    NodeContainer workers;
    for (uint32_t k = 0; k < run.n; ++k)
    {
        workers.Add(nodes.Get(k));
    }
    DwflNetwork net = centralized ? dwfl.InstallCentralized(workers, nodes.Get(run.n), task)
                                  : dwfl.Install(workers, task);
    if (g_aggregate && run.scheme == "dwfl")
    {
        // the simulation's lifetime: destroyed with the next run's (one run at a time)
        static std::unique_ptr<AggregateError> aggregate;
        aggregate = std::make_unique<AggregateError>(*g_aggregate, g_figure, run.series);
        aggregate->Connect(net);
    }
    if (net.server)
    {
        net.server->SetStartTime(Seconds(0.1));
    }
    net.workers.Start(Seconds(0.1));
    DwflHelper::AssignStreams(net, 100);
    if (run.epsilon <= 0.0 || (!centralized && (orthogonal || run.perLink)) || run.csiAgeMs > 0.0)
    {
        // no privacy claim, or no valid composed bound (per-round eps only; with aged estimates
        // the receptions are not aligned on the true channels)
        return nullptr;
    }
    auto accountant = std::make_shared<fl::PrivacyAccountant>();
    DynamicCast<DwflWorkerApplication>(net.workers.Get(0))->SetPrivacyAccountant(accountant);
    return accountant;
}

/// Runs one seed of one figure run and returns its rounds (the initial model first).
std::vector<FlRoundSummary>
RunOne(const DwflFigureSettings& c,
       const DwflFigureRun& run,
       std::shared_ptr<fl::LearningTask> task,
       bool quiet)
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
        // worker 0's reception (the server's) composed over the rounds (doc/fl-privacy.rst: "DWFL
        // over rounds: the composed bound", "The over-the-air parameter server over rounds")
        fl::PrivacyStatement statement = run.scheme == "centralized"
                                             ? fl::OtaPsComposedStatement(c.delta)
                                             : fl::DwflComposedStatement("worker 0", c.delta);
        statement.noise = fl::NoiseAssumption(fl::ParseNoiseSource(c.noiseSource, "--noiseSource"));
        tracker->SetAccountant(accountant, c.delta, fl::Composition::Rdp, statement);
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

} // namespace

int
main(int argc, char* argv[])
{
    DwflFigureSettings c;
    FlFigureEngine engine;
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
    std::string aggregateOutput;
    uint32_t composedRounds = 0;
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
        "vs digital Wi-Fi ad hoc), mobility (moving workers on time-correlated fading at 2.4 GHz: "
        "speed in {0,5,15,30} m/s at a CSI age of 0.5 ms, CSI age in {0,0.25,1} ms at 30 m/s). "
        "--runs repeats every run over seeds RngRun, RngRun + 1, ... "
        "and checks the orderings on the means; --engine=serial|parallel|slurm runs each seed "
        "as a job of utils/fl-sweep and writes the same CSV. Every figure also draws the noiseless "
        "decentralized run of each N (no artificial or receiver noise: what privacy costs). "
        "Inputs are centred on each worker's own data (--standardise=centre; none for raw "
        "pixels in [0, 1]). Writes one CSV row per (run, round); plot with utils/plot-dwfl.sh. "
        "--privacyTable prints eps_i of eq. (11) and the orthogonal eps for N in --nList "
        "without training.");
    flags.AddChoice("figure",
                    "power, workers, epsilon, orthogonal, centralized, perlink, digital or mobility",
                    figure,
                    DwflFigureNames());
    flags.AddBool("quick",
                  "A small case in seconds (the test suite): its own figure (N = 4), at most 5 "
                  "rounds, 200 samples per worker and 500 test samples, gamma at least 0.2, "
                  "unless those flags are given",
                  quick);
    flags.AddOutput("output", "CSV output file", output, false);
    flags.AddBool("quiet", "No progress lines", quiet);
    flags.AddSize("runs",
                  "Seeds per run (RngRun, RngRun + 1, ...): means and 95 % CIs",
                  c.runs,
                  1U,
                  flexample::Bound{1000, "fl-dwfl.cc, flag --runs"});
    flexample::AddFigureEngineFlags(flags, engine, c.runs);
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
                  "fashion-mnist (Debian's dataset-fashion-mnist), or a CSV file (numeric "
                  "features, the class last: labels 0..C-1, or k..k+C-1 renumbered 0..C-1; "
                  "the first line is a header if one of its fields is not a number) or an IDX "
                  "folder of yours",
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
    flags.AddChoice("noiseSource",
                    "Where the artificial noise's seeds come from: run-seed (derived from the "
                    "run seed: reproducible, and every eps assumes an adversary who does not "
                    "know it) or sodium (libsodium's generator: unpredictable, results change "
                    "from run to run)",
                    c.noiseSource,
                    {"run-seed", "sodium"});
    flags.AddBool("evaluateWorkers",
                  "Evaluate every worker's model each round (the worker_* columns)",
                  c.evaluateWorkers);
    flags.AddText("aggregateOutput",
                  "Also write, per analog DWFL run and round, the aggregate error: the mean over "
                  "the receivers of ||v_i / c - sum_{k != i} x_k||^2 / d (noise and, on a moving "
                  "channel, misalignment) as CSV to this file (empty: none; --engine=process only)",
                  aggregateOutput);
    flags.AddBool("privacyTable", "Print the eps table (CSV on stdout) and exit", privacyTable);
    flags.AddText("nList", "--privacyTable: the values of N", nList);
    flags.AddText("onlyN",
                  "Run only the figure's runs with these N, e.g. 10 or 10,30 (empty: all)",
                  onlyN);
    flags.AddReal("kappa",
                  "--privacyTable: c = kappa min_k sqrt(|h_k|^2 P_k), 0 < kappa <= 1",
                  kappa,
                  flexample::Range{0.0, 1.0, true, false});
    flags.AddWhole<uint32_t>("composedRounds",
                             "--privacyTable: add eps_composed, the largest over the receivers "
                             "of the composed eps after this many rounds (0: none)",
                             composedRounds,
                             0,
                             100000);
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
    // --quick: its own small figure; the sizes it sets unless given (DwflQuickFigure)
    const auto applyQuick = [&](DwflFigureSettings& settings, std::string& fig) {
        const DwflFigureSettings given = settings;
        DwflQuickFigure(settings, fig);
        settings.rounds = flags.Given("rounds") ? given.rounds : settings.rounds;
        settings.samplesPerWorker =
            flags.Given("samplesPerWorker") ? given.samplesPerWorker : settings.samplesPerWorker;
        settings.testSamples =
            flags.Given("testSamples") ? given.testSamples : settings.testSamples;
        settings.gamma = flags.Given("gamma") ? given.gamma : settings.gamma;
    };
    flags.AddCheck([&]() {
        if (quick && flags.Given("figure"))
        {
            throw fl::ConfigError("--figure",
                                  figure + " with --quick",
                                  "--quick runs its own small figure: drop --figure or --quick");
        }
    });
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
        DwflFigureSettings copy = c;
        std::string fig = figure;
        if (quick)
        {
            applyQuick(copy, fig);
        }
        const std::vector<DwflFigureRun> figureRuns = DwflFigureRuns(fig, copy);
        if (figureRuns.empty())
        {
            throw fl::ConfigError("--onlyN",
                                  "the figure has no run with N in {" + onlyN + "}",
                                  "give N values the figure uses (see --help for each figure's "
                                  "N), or leave --onlyN empty");
        }
        DwflCheckFigureFeasible(copy, figureRuns);
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
        fl::WriteDwflPrivacyTable(std::cout,
                                  ns,
                                  gains,
                                  kappa,
                                  c.Privacy(c.sigma2),
                                  composedRounds,
                                  c.eta);
        return 0;
    }

    if (quick)
    {
        applyQuick(c, figure);
    }
    std::ofstream aggregateCsv;
    if (!aggregateOutput.empty())
    {
        if (engine.engine != "process")
        {
            std::cerr << "fl-dwfl: invalid --aggregateOutput with --engine=" << engine.engine
                      << " (fix: use --engine=process, the default)" << std::endl;
            return flexample::kExitBadFlag;
        }
        aggregateCsv.open(aggregateOutput);
        if (!aggregateCsv)
        {
            std::cerr << "fl-dwfl: invalid --aggregateOutput: cannot write '" << aggregateOutput
                      << "' (fix: choose a writable path)" << std::endl;
            return flexample::kExitBadFlag;
        }
        aggregateCsv << "figure,series,rng_run,round,aggregate_mse,receivers\n"
                     << std::setprecision(10);
        g_aggregate = &aggregateCsv;
        g_figure = figure;
    }
    const std::vector<DwflFigureRun> runs = DwflFigureRuns(figure, c);
    const std::vector<FlFigureSeries> series = DwflFigureSeries(runs);
    // The seeds run here or as jobs of utils/fl-sweep (--engine); a job writes its seed's rows.
    const FlFigureRunner runner(engine, output, argc, argv);
    std::ofstream csv;
    if (!runner.IsJob())
    {
        csv.open(output);
        if (!csv)
        {
            std::cerr << "fl-dwfl: invalid --output: cannot write '" << output
                      << "' (fix: choose a writable path)" << std::endl;
            return flexample::kExitBadFlag;
        }
    }
    std::cout << "fl-dwfl: figure " << figure << ", " << runs.size() << " runs x " << c.runs
              << " seeds -> " << output << "\n";
    c.Print(std::cout);
    flexample::PrintDatasetNotes(c.dataset, c.standardise, std::cout);

    // One data split per N, drawn at the base RngRun (in a job too); the seeds vary the rest.
    std::map<uint32_t, std::shared_ptr<fl::LearningTask>> tasks;
    try
    {
        runner.AtSharedRun([&]() {
            for (const DwflFigureRun& run : runs)
            {
                if (!tasks[run.n])
                {
                    tasks[run.n] = FlBuildTask(c.Task(run.n));
                }
            }
        });
    }
    catch (const std::exception& e)
    {
        std::cerr << e.what() << std::endl;
        return flexample::kExitBadFlag;
    }

    if (!runner.IsJob())
    {
        DwflWriteFigureHeader(csv, c);
        csv << runner.ProvenanceLine();
    }
    // Every run over the seeds, its rows written as soon as its seeds are done; a run is ranked
    // by the centroid's accuracy over the last tenth of its rounds, the paper's orderings are
    // checked on the means.
    FlFigureSeeds seeds;
    bool incomplete = false;
    try
    {
        seeds = runner.Run(
            series,
            c.runs,
            c.rounds,
            [&](std::size_t k) { return RunOne(c, runs[k], tasks[runs[k].n], quiet); },
            std::cout,
            &incomplete,
            [&](std::size_t k, const std::vector<std::vector<FlRoundSummary>>& s) {
                DwflWriteFigureRows(csv, figure, runs[k], s);
            });
    }
    catch (const fl::ConfigError& e)
    {
        // a configuration that the drawn channels make infeasible (DwflCheckFigureFeasible
        // rules out the ones it can foresee), or a sweep the runner refused
        std::cerr << "fl-dwfl: " << e.what() << std::endl;
        return flexample::kExitBadFlag;
    }
    catch (const std::runtime_error& e)
    {
        std::cerr << "  " << e.what() << std::endl;
        return 1;
    }
    if (runner.IsJob())
    {
        return 0; // its rows are written; the figure checks the rounds of every seed
    }
    std::cout << "final accuracy = the centroid's mean test accuracy over the last tenth of the "
                 "rounds; worker accuracy and disagreement at the last round"
              << (c.runs > 1 ? "; mean +- 95 % CI over the seeds" : "") << "\n";
    // an inversion within the seeds' 95 % CI (with one seed: two standard errors of an accuracy
    // on testSamples images) is "within noise"
    FlReportFigure(std::cout, series, seeds, c.testSamples);
    std::cout << "summary: " << runs.size() << " runs x " << c.runs << " seeds written to "
              << output << std::endl;
    return incomplete ? 1 : 0;
}
