/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * fl-dwfl: the experiments of DWFL (seed 004: Chen et al., "Decentralized Wireless Federated
 * Learning with Differential Privacy"), issue 9. Reproduces the orderings the paper states for
 * its Figs. 2-6 on Fashion-MNIST (the paper uses CIFAR-10, which is not available offline),
 * plus the digital reference: the same decentralized averaging, noiseless, over Wi-Fi ad hoc.
 *
 *   fl-dwfl --figure=power       # Fig. 2: P in {20,40,60,80} dBm at N = 10 and 30
 *   fl-dwfl --figure=workers     # Fig. 3: N in {15,20,25,30} at eps = 0.1 and 0.5
 *   fl-dwfl --figure=epsilon     # Fig. 4: eps in {0.1,0.25,0.5,1} at N = 10 and 30
 *   fl-dwfl --figure=orthogonal  # Fig. 5: orthogonal vs non-orthogonal
 *   fl-dwfl --figure=centralized # Fig. 6: centralized (Seif et al.) vs decentralized
 *   fl-dwfl --figure=digital     # analog vs digital on comparable radios
 *   fl-dwfl --quick --output=F.csv
 *   fl-dwfl --privacyTable --nList=2,10,30 --gainPower=1e6 --kappa=0.5
 *
 * One CSV row per (run, round): the centroid's and the workers' mean test loss and accuracy,
 * the disagreement, against round and simulated time. Plot with utils/plot-dwfl.sh.
 */

#include "fl-example-common.h"

#include "ns3/dwfl-digital-helper.h"
#include "ns3/dwfl-helper.h"
#include "ns3/dwfl-privacy.h"
#include "ns3/dwfl.h"
#include "ns3/fl-learning-tracker.h"
#include "ns3/fl-network-scenarios.h"
#include "ns3/mobility-helper.h"
#include "ns3/text-parse.h"

#include <fstream>
#include <map>
#include <sstream>

using namespace ns3;

NS_LOG_COMPONENT_DEFINE("FlDwfl");

namespace
{

/// Every choice the paper leaves open, with the value this example uses.
struct Choices
{
    uint32_t rounds = 100;           ///< T
    uint32_t samplesPerWorker = 500; ///< IID shares of the Fashion-MNIST training set
    uint32_t testSamples = 1000;     ///< held-out images for the evaluation
    std::string model = "softmax:l2=0";
    uint32_t batch = 32;       ///< mini-batch size
    double gamma = 0.05;       ///< SGD step size gamma
    double gMax = 1.0;         ///< clipping threshold g_max
    double eta = 0.0;          ///< averaging rate; 0 = (N-1)/N (exact averaging without noise)
    double delta = 1e-5;       ///< DP delta
    double sigmaM2 = 1.0;      ///< receiver noise variance sigma_m^2 (the unit of power)
    double computeTime = 0.01; ///< simulated compute time of a local step [s]
    double bandwidthHz = 20e6; ///< analog symbol rate B = the Wi-Fi channel width
    double maxTime = 3600.0;   ///< bound on the simulated time of a run [s]
    bool evaluateWorkers = true;

    double EtaFor(uint32_t n) const
    {
        return eta > 0.0 ? eta : (n - 1.0) / n;
    }

    void Print(std::ostream& os) const
    {
        os << "  data: Fashion-MNIST (Debian dataset-fashion-mnist), IID, " << samplesPerWorker
           << " training images per worker, " << testSamples
           << " test images; the paper's CIFAR-10 is not available offline\n"
           << "  model: " << model << " (the paper does not name its model)\n"
           << "  local step: one mini-batch SGD step, batch " << batch << ", gamma = " << gamma
           << ", gradient clipped to g_max = " << gMax << "\n"
           << "  averaging rate eta = "
           << (eta > 0.0 ? std::to_string(eta) : std::string("(N-1)/N")) << ", T = " << rounds
           << " rounds, x^(-1/2) = the model's initial parameters (zeros for softmax)\n"
           << "  privacy: delta = " << delta << ", per round (the paper does not compose over "
           << "rounds)\n"
           << "  power: P in dBm is read as the SNR over a unit receiver noise sigma_m^2 = "
           << sigmaM2 << " (P_lin = 10^(P/10), i.e. noise of 1 mW)\n"
           << "  channel: sender-only Rayleigh h_k ~ CN(0,1) drawn once per run, no path loss, "
              "full duplex, Practical decode; artificial noise sigma^2 = 1 (100 for the "
              "orthogonal baseline), beta calibrated per round for eps, largest feasible kappa\n"
           << "  timing: compute " << computeTime * 1e3
           << " ms per round; analog symbol rate B = " << bandwidthHz / 1e6
           << " MHz (ceil(d/2) complex symbols per model); digital: "
           << "802.11n ad hoc, 20 MHz, TCP, float32 on the wire\n";
    }
};

/// One run of a figure.
struct RunSpec
{
    std::string series; ///< legend label
    /// dwfl (non-orthogonal), orthogonal, centralized (analog), or digital
    std::string scheme;
    uint32_t n = 10;      ///< workers N
    double pDbm = 60.0;   ///< transmit power P [dBm]
    double epsilon = 0.5; ///< target eps per round (0: no artificial noise)
    std::string group;    ///< runs whose order the paper states (empty: none)
    int rank = 0;         ///< expected place in the group, 0 = best
};

/// One CSV row: a run's state after `round` rounds.
struct Row
{
    uint32_t round = 0;
    double timeS = 0.0;
    double loss = 0.0;
    double accuracy = 0.0;
    double workerLoss = 0.0;
    double workerAccuracy = 0.0;
    double disagreement = 0.0;
};

const char* const kCsvHeader =
    "figure,series,scheme,n,p_dbm,epsilon,round,time_s,test_loss,test_accuracy,"
    "worker_test_loss,worker_test_accuracy,disagreement";

/// "name=value" with the value as printed by a stream (60, 0.25).
std::string
Label(const std::string& name, double value)
{
    std::ostringstream os;
    os << name << "=" << value;
    return os.str();
}

/// The runs of a figure (the paper's sweeps, best expected first); empty if the name is unknown.
std::vector<RunSpec>
FigureRuns(const std::string& figure)
{
    std::vector<RunSpec> runs;
    if (figure == "power") // Fig. 2: 80 >= 60 >= 40 >= 20 dBm
    {
        for (uint32_t n : {10u, 30u})
        {
            int rank = 0;
            for (double p : {80.0, 60.0, 40.0, 20.0})
            {
                runs.push_back({Label("N", n) + " " + Label("P", p) + " dBm",
                                "dwfl",
                                n,
                                p,
                                0.5,
                                Label("N", n),
                                rank++});
            }
        }
    }
    else if (figure == "workers") // Fig. 3: 30 >= 25 >= 20 >= 15 workers
    {
        for (double eps : {0.1, 0.5})
        {
            int rank = 0;
            for (uint32_t n : {30u, 25u, 20u, 15u})
            {
                runs.push_back({Label("eps", eps) + " " + Label("N", n),
                                "dwfl",
                                n,
                                60.0,
                                eps,
                                Label("eps", eps),
                                rank++});
            }
        }
    }
    else if (figure == "epsilon") // Fig. 4: larger eps, less noise (erratum: the text says both)
    {
        for (uint32_t n : {10u, 30u})
        {
            int rank = 0;
            for (double eps : {1.0, 0.5, 0.25, 0.1})
            {
                runs.push_back({Label("N", n) + " " + Label("eps", eps),
                                "dwfl",
                                n,
                                60.0,
                                eps,
                                Label("N", n),
                                rank++});
            }
        }
    }
    else if (figure == "orthogonal") // Fig. 5: non-orthogonal beats orthogonal at the same eps
    {
        for (uint32_t n : {10u, 30u})
        {
            runs.push_back(
                {Label("N", n) + " non-orthogonal", "dwfl", n, 60.0, 0.1, Label("N", n), 0});
            runs.push_back(
                {Label("N", n) + " orthogonal", "orthogonal", n, 60.0, 0.1, Label("N", n), 1});
        }
    }
    else if (figure == "centralized") // Fig. 6: decentralized beats the centralized PS
    {
        for (uint32_t n : {10u, 30u})
        {
            runs.push_back(
                {Label("N", n) + " decentralized", "dwfl", n, 60.0, 0.5, Label("N", n), 0});
            runs.push_back(
                {Label("N", n) + " centralized", "centralized", n, 60.0, 0.5, Label("N", n), 1});
        }
    }
    else if (figure == "digital") // no ordering stated: the point is the time axis
    {
        runs.push_back({"analog DWFL eps=0.5", "dwfl", 10, 60.0, 0.5, "", 0});
        runs.push_back({"analog DWFL no artificial noise", "dwfl", 10, 60.0, 0.0, "", 0});
        runs.push_back({"digital Wi-Fi", "digital", 10, 60.0, 0.0, "", 0});
    }
    else if (figure == "quick")
    {
        runs.push_back({"analog DWFL N=4", "dwfl", 4, 60.0, 1.0, "", 0});
        runs.push_back({"digital Wi-Fi N=4", "digital", 4, 60.0, 0.0, "", 0});
    }
    return runs;
}

/// The accuracy a run is ranked by: the centroid's mean test accuracy over the last tenth of
/// the rounds (at least one), which smooths the round-to-round noise.
double
FinalAccuracy(const std::vector<Row>& rows)
{
    const std::size_t k = std::max<std::size_t>(1, (rows.size() - 1) / 10);
    double sum = 0.0;
    for (std::size_t i = rows.size() - k; i < rows.size(); ++i)
    {
        sum += rows[i].accuracy;
    }
    return sum / k;
}

/**
 * Prints, for every group of runs whose order the paper states, the runs' final accuracies in
 * the expected order and whether the order holds: "holds", "holds within noise" when a run
 * beats its predecessor by less than two standard errors of a test accuracy measured on
 * `testSamples` images (sqrt(p (1 - p) / m)), or "does not hold".
 */
void
PrintOrderings(const std::vector<RunSpec>& runs,
               const std::vector<double>& accuracy,
               uint32_t testSamples,
               std::ostream& os)
{
    std::map<std::string, std::vector<std::size_t>> groups;
    for (std::size_t k = 0; k < runs.size(); ++k)
    {
        if (!runs[k].group.empty())
        {
            groups[runs[k].group].push_back(k);
        }
    }
    for (auto& kv : groups)
    {
        std::vector<std::size_t>& g = kv.second;
        std::sort(g.begin(), g.end(), [&runs](std::size_t a, std::size_t b) {
            return runs[a].rank < runs[b].rank;
        });
        std::string verdict = "holds";
        os << "  ordering stated by the paper, " << kv.first << ":";
        for (std::size_t j = 0; j < g.size(); ++j)
        {
            os << (j ? " >= " : " ") << runs[g[j]].series << " (" << accuracy[g[j]] << ")";
            if (j > 0 && accuracy[g[j]] > accuracy[g[j - 1]])
            {
                const double p = accuracy[g[j - 1]];
                const double se = std::sqrt(p * (1.0 - p) / testSamples);
                if (accuracy[g[j]] - p > 2.0 * se)
                {
                    verdict = "does not hold";
                }
                else if (verdict == "holds")
                {
                    verdict = "holds within noise (2 standard errors)";
                }
            }
        }
        os << ": " << verdict << std::endl;
    }
}

/// Turns the tracker's long rows into one Row per round (round r = after r rounds; the
/// workers report their initial model as round 0).
std::vector<Row>
CollectRows(const FlLearningTracker& tracker)
{
    std::map<uint32_t, Row> byRound;
    std::map<uint32_t, uint32_t> workers;
    for (const FlMetricRow& m : tracker.GetRows())
    {
        Row& r = byRound[m.round];
        r.round = m.round;
        r.timeS = m.timeS;
        if (m.node == "centroid" && m.metric == "test_loss")
        {
            r.loss = m.value;
        }
        else if (m.node == "centroid" && m.metric == "test_accuracy")
        {
            r.accuracy = m.value;
        }
        else if (m.node == "network" && m.metric == "disagreement")
        {
            r.disagreement = m.value;
        }
        else if (m.node != "centroid" && m.node != "network" && m.metric == "test_loss")
        {
            r.workerLoss += m.value;
            ++workers[m.round];
        }
        else if (m.node != "centroid" && m.node != "network" && m.metric == "test_accuracy")
        {
            r.workerAccuracy += m.value;
        }
    }
    std::vector<Row> rows;
    for (auto& kv : byRound)
    {
        const uint32_t k = workers[kv.first];
        kv.second.workerLoss = k ? kv.second.workerLoss / k : std::nan("");
        kv.second.workerAccuracy = k ? kv.second.workerAccuracy / k : std::nan("");
        rows.push_back(kv.second);
    }
    return rows;
}

/**
 * The digital reference: N workers on an 802.11n ad hoc network (20 MHz), every worker sends
 * x_i^(t) to every other over TCP (float32 on the wire) and applies eq. (7) without noise.
 */
void
InstallDigital(const Choices& c,
               const RunSpec& run,
               std::shared_ptr<fl::LearningTask> task,
               const fl::ParamVector& x0)
{
    FlWifiAdhocSceneHelper adhoc;
    adhoc.SetStandard("80211n");
    FlScene scene = adhoc.Build(run.n); // the scene's "server" node stays idle
    DwflDigitalHelper digital(task);
    digital.SetAttribute("Rounds", UintegerValue(c.rounds));
    digital.SetAttribute("Eta", DoubleValue(c.EtaFor(run.n)));
    digital.SetAttribute("ComputeTime", TimeValue(Seconds(c.computeTime)));
    digital.SetAttribute("WirePrecision", StringValue("float32"));
    ApplicationContainer apps = digital.Install(scene.clients, scene.clientInterfaces, x0);
    apps.Start(Seconds(0.1));
    int64_t stream = 100;
    stream += FlWifiSceneHelperBase::AssignStreams(scene, stream);
    DwflDigitalHelper::AssignStreams(apps, stream);
}

/**
 * The analog runs: N DwflWorkerApplications on one OtaChannel (DwflHelper). The paper's channel:
 * sender-only Rayleigh |h_k| drawn once for the run, no path loss; P = run.pDbm over a noise of
 * 1 mW per real entry (sigma_m^2 = 1 in mW units: NoiseVariance = 2 sigma_m^2 mW per complex
 * symbol); artificial noise sigma^2 = 1 calibrated per round for run.epsilon (0: none), with the
 * largest feasible kappa; Practical decode; symbol rate c.bandwidthHz.
 */
void
InstallAnalog(const Choices& c, const RunSpec& run, std::shared_ptr<fl::LearningTask> task)
{
    NodeContainer nodes;
    nodes.Create(run.n);
    MobilityHelper mobility; // positions only set the propagation delays (a 10 m circle)
    Ptr<ListPositionAllocator> positions = CreateObject<ListPositionAllocator>();
    for (uint32_t k = 0; k < run.n; ++k)
    {
        const double a = 2.0 * M_PI * k / run.n;
        positions->Add(Vector(10.0 * std::cos(a), 10.0 * std::sin(a), 0.0));
    }
    mobility.SetPositionAllocator(positions);
    mobility.Install(nodes);
    DwflHelper dwfl;
    dwfl.SetBandwidth(c.bandwidthHz);
    dwfl.Ota().DisablePropagationLoss();
    dwfl.Ota().SetChannelAttribute("FadingModel", StringValue("Rayleigh"));
    dwfl.Ota().SetChannelAttribute("Coherence", StringValue("Fixed"));
    dwfl.Ota().SetPhyAttribute("TxPower", DoubleValue(run.pDbm));
    dwfl.Ota().SetPhyAttribute("NoiseModel", StringValue("Fixed"));
    dwfl.Ota().SetPhyAttribute("NoiseVariance", DoubleValue(2e-3 * c.sigmaM2));
    dwfl.SetWorkerAttribute("Rounds", UintegerValue(c.rounds));
    dwfl.SetWorkerAttribute("Eta", DoubleValue(c.EtaFor(run.n)));
    dwfl.SetWorkerAttribute("Kappa", DoubleValue(run.epsilon > 0.0 ? 0.0 : 1.0));
    dwfl.SetWorkerAttribute("TargetEpsilon", DoubleValue(run.epsilon));
    dwfl.SetWorkerAttribute("Delta", DoubleValue(c.delta));
    // Orthogonal links need (N-1) times the noise of the sum: sigma^2 = 100 keeps beta <= 1.
    dwfl.SetWorkerAttribute("Sigma2", DoubleValue(run.scheme == "orthogonal" ? 100.0 : 1.0));
    dwfl.SetWorkerAttribute("ComputeTime", TimeValue(Seconds(c.computeTime)));
    dwfl.SetWorkerAttribute(
        "Transmission",
        StringValue(run.scheme == "orthogonal" ? "Orthogonal" : "NonOrthogonal"));
    DwflNetwork net = dwfl.Install(nodes, task);
    net.workers.Start(Seconds(0.1));
    DwflHelper::AssignStreams(net, 100);
}

/// Runs one figure run and returns its rows (the initial model first).
std::vector<Row>
RunOne(const Choices& c, const RunSpec& run, std::shared_ptr<fl::LearningTask> task, bool quiet)
{
    fl::Rng initRng(1);
    const fl::ParamVector x0 = task->InitialParameters(initRng);
    if (run.scheme == "digital")
    {
        InstallDigital(c, run, task, x0);
    }
    else
    {
        InstallAnalog(c, run, task);
    }
    Ptr<FlLearningTracker> tracker = CreateObject<FlLearningTracker>();
    tracker->SetAttribute("EvaluateNodes", BooleanValue(c.evaluateWorkers));
    tracker->SetTask(task);
    tracker->InstallAll();
    const uint32_t every = std::max<uint32_t>(1, c.rounds / 10);
    std::function<void(const FlModelReport&)> progress;
    uint32_t lastPrinted = std::numeric_limits<uint32_t>::max();
    progress = [&](const FlModelReport& r) {
        if (!quiet && r.round > 0 && r.round % every == 0 && r.round != lastPrinted)
        {
            lastPrinted = r.round;
            std::cout << "    round " << r.round << "/" << c.rounds << " at "
                      << Simulator::Now().GetSeconds() << " s" << std::endl;
        }
    };
    Config::ConnectWithoutContextFailSafe(
        "/NodeList/*/ApplicationList/*/$ns3::FlApplicationBase/ModelReport",
        MakeCallback(&std::function<void(const FlModelReport&)>::operator(), &progress));
    Simulator::Stop(Seconds(c.maxTime));
    Simulator::Run();
    tracker->Flush();
    std::vector<Row> rows = CollectRows(*tracker);
    Simulator::Destroy();
    return rows;
}

/**
 * --privacyTable: eps_i of eq. (11) (largest and smallest over the receivers i) and the
 * orthogonal eps_{j->i} (over the senders j) for every N of nList, with |h_k|^2 P_k = gainPower
 * (one value for all, or the first N of a list), c = kappa min_k sqrt(|h_k|^2 P_k) and all
 * spare power on artificial noise, beta_k = 1 - alpha_k.
 */
int
PrivacyTable(const std::vector<uint32_t>& nList,
             const std::vector<double>& gainPower,
             double kappa,
             const fl::DwflPrivacyParams& params,
             std::ostream& os)
{
    const uint32_t nMax = *std::max_element(nList.begin(), nList.end());
    if (gainPower.size() > 1 && gainPower.size() < nMax)
    {
        throw fl::ConfigError("--gainPower",
                              "lists " + std::to_string(gainPower.size()) +
                                  " workers but --nList asks for N = " + std::to_string(nMax),
                              "give one value for all or at least max(--nList) values");
    }
    os << "n,c,eps_i_max,eps_i_min,eps_orth_max,eps_orth_min,eps_i_max_x_sqrt_n_minus_1\n";
    os << std::setprecision(12);
    for (uint32_t n : nList)
    {
        std::vector<double> gainAbs(n);
        const std::vector<double> powerW(n, 1.0); // |h_k|^2 P_k carried by |h_k| alone
        for (uint32_t k = 0; k < n; ++k)
        {
            gainAbs[k] = std::sqrt(gainPower.size() == 1 ? gainPower[0] : gainPower[k]);
        }
        const double c = fl::DwflAlignmentAmplitude(gainAbs, powerW, kappa);
        const std::vector<double> alpha = fl::DwflPowerFractions(gainAbs, powerW, c);
        std::vector<double> beta(n);
        for (uint32_t k = 0; k < n; ++k)
        {
            beta[k] = std::max(0.0, 1.0 - alpha[k]);
        }
        double epsMax = 0.0;
        double epsMin = std::numeric_limits<double>::infinity();
        double orthMax = 0.0;
        double orthMin = std::numeric_limits<double>::infinity();
        for (uint32_t i = 0; i < n; ++i)
        {
            const double e = fl::DwflEpsilon(i, gainAbs, powerW, beta, c, params);
            const double o = fl::DwflOrthogonalEpsilon(gainAbs[i], powerW[i], beta[i], params);
            epsMax = std::max(epsMax, e);
            epsMin = std::min(epsMin, e);
            orthMax = std::max(orthMax, o);
            orthMin = std::min(orthMin, o);
        }
        os << n << ',' << c << ',' << epsMax << ',' << epsMin << ',' << orthMax << ',' << orthMin
           << ',' << epsMax * std::sqrt(n - 1.0) << '\n';
    }
    return 0;
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
    // Flags read as text and parsed strictly (text-parse.h): a bad value exits with status 2.
    std::string rounds = std::to_string(c.rounds);
    std::string samplesPerWorker = std::to_string(c.samplesPerWorker);
    std::string testSamples = std::to_string(c.testSamples);
    std::string batch = std::to_string(c.batch);
    std::string gamma = "0.05";
    std::string gMax = "1";
    std::string eta = "0";
    std::string delta = "1e-5";
    std::string sigmaM2 = "1";
    std::string computeTime = "0.01";
    std::string maxTime = "3600";
    std::string nList = "2,5,10,15,20,25,30,50,100";
    std::string kappa = "1";
    std::string sigma2 = "1";
    std::string gainPower = "1e6";

    CommandLine cmd(__FILE__);
    cmd.Usage(
        "DWFL (seed 004) experiments on Fashion-MNIST (CIFAR-10, the paper's data set, is not "
        "available offline). --figure picks the paper's sweep: power (Fig. 2: P in "
        "{20,40,60,80} dBm at N = 10, 30), workers (Fig. 3: N in {15,20,25,30} at eps = 0.1, "
        "0.5), epsilon (Fig. 4: eps in {0.1,0.25,0.5,1} at N = 10, 30), orthogonal (Fig. 5), "
        "centralized (Fig. 6), digital (analog vs digital Wi-Fi ad hoc). Writes one CSV row per "
        "(run, round); plot with utils/plot-dwfl.sh. --privacyTable prints eps_i of eq. (11) "
        "and the orthogonal eps for N in --nList without training.");
    cmd.AddValue("figure", "power, workers, epsilon, orthogonal, centralized or digital", figure);
    cmd.AddValue("quick", "A small case in seconds (N = 4, 5 rounds; the test suite)", quick);
    cmd.AddValue("output", "CSV output file", output);
    cmd.AddValue("quiet", "No progress lines", quiet);
    cmd.AddValue("rounds", "Rounds T per run", rounds);
    cmd.AddValue("samplesPerWorker", "Training images per worker (IID)", samplesPerWorker);
    cmd.AddValue("testSamples", "Test images for the evaluation", testSamples);
    cmd.AddValue("model", "Model spec (softmax:l2=0, mlp:hidden=64, ...)", c.model);
    cmd.AddValue("batch", "Mini-batch size of the local step", batch);
    cmd.AddValue("gamma", "SGD step size gamma", gamma);
    cmd.AddValue("gmax", "Clipping threshold g_max (gradient-norm bound)", gMax);
    cmd.AddValue("eta", "Averaging rate eta (0 = (N-1)/N)", eta);
    cmd.AddValue("delta", "DP delta", delta);
    cmd.AddValue("sigmaM2", "Receiver noise variance sigma_m^2", sigmaM2);
    cmd.AddValue("computeTime", "Simulated compute time of a local step [s]", computeTime);
    cmd.AddValue("maxTime", "Bound on the simulated time of a run [s]", maxTime);
    cmd.AddValue("evaluateWorkers",
                 "Evaluate every worker's model each round (the worker_* columns)",
                 c.evaluateWorkers);
    cmd.AddValue("privacyTable", "Print the eps table (CSV on stdout) and exit", privacyTable);
    cmd.AddValue("nList", "--privacyTable: the values of N", nList);
    cmd.AddValue("kappa",
                 "--privacyTable: c = kappa min_k sqrt(|h_k|^2 P_k), 0 < kappa <= 1",
                 kappa);
    cmd.AddValue("sigma2", "--privacyTable: artificial-noise variance sigma^2", sigma2);
    cmd.AddValue("gainPower",
                 "--privacyTable: |h_k|^2 P_k in units of sigma_m^2, one value or a list",
                 gainPower);
    cmd.Parse(argc, argv);

    fl::DwflPrivacyParams params;
    std::vector<uint32_t> ns;
    std::vector<double> gains;
    double kappaValue = 1.0;
    try
    {
        c.rounds = fl::ParseUint32(rounds, "--rounds", 1);
        c.samplesPerWorker = fl::ParseUint32(samplesPerWorker, "--samplesPerWorker", 1);
        c.testSamples = fl::ParseUint32(testSamples, "--testSamples", 1, 10000);
        c.batch = fl::ParseUint32(batch, "--batch", 1);
        c.gamma = fl::ParseDouble(gamma, "--gamma", 1e-12);
        c.gMax = fl::ParseDouble(gMax, "--gmax", 1e-12);
        c.eta = fl::ParseDouble(eta, "--eta", 0.0, 2.0);
        c.delta = fl::ParseDouble(delta, "--delta", 1e-300, 1.0 - 1e-12);
        c.sigmaM2 = fl::ParseDouble(sigmaM2, "--sigmaM2", 0.0);
        c.computeTime = fl::ParseDouble(computeTime, "--computeTime", 0.0);
        c.maxTime = fl::ParseDouble(maxTime, "--maxTime", 1e-9);
        params.gamma = c.gamma;
        params.gMax = c.gMax;
        params.delta = c.delta;
        params.sigmaM2 = c.sigmaM2;
        params.sigma2 = fl::ParseDouble(sigma2, "--sigma2", 0.0);
        params.Validate();
        ns = fl::ParseUnsignedList<uint32_t>(nList, "--nList", 2, 100000);
        gains = fl::ParseDoubleList(gainPower, "--gainPower", 1e-300);
        kappaValue = fl::ParseDouble(kappa, "--kappa", 1e-12, 1.0);
        if (privacyTable)
        {
            std::cerr << "fl-dwfl --privacyTable: eps per round (the paper's privacy is per "
                         "round), beta_k = 1 - alpha_k (all spare power on artificial noise), "
                         "|h_k|^2 P_k and the variances in units of the receiver noise\n";
            return PrivacyTable(ns, gains, kappaValue, params, std::cout);
        }
    }
    catch (const fl::ConfigError& e)
    {
        std::cerr << e.what() << std::endl;
        return 2;
    }

    if (quick)
    {
        figure = "quick";
        c.rounds = std::min<uint32_t>(c.rounds, 5);
        c.samplesPerWorker = std::min<uint32_t>(c.samplesPerWorker, 200);
        c.testSamples = std::min<uint32_t>(c.testSamples, 500);
        c.gamma = std::max(c.gamma, 0.2); // a visible fall of the loss in 5 rounds
    }
    const std::vector<RunSpec> runs = FigureRuns(figure);
    for (const RunSpec& run : runs)
    {
        if (run.scheme == "centralized")
        {
            // INTEGRATION POINT: the over-the-air parameter server of Seif et al. (issue 9
            // part 1) is not on h-dwflapp yet.
            std::cerr << "fl-dwfl: --figure=" << figure << " needs the centralized "
                      << "over-the-air parameter server, which is not in this build yet"
                      << std::endl;
            return 2;
        }
    }
    if (runs.empty())
    {
        std::cerr << "fl: invalid --figure: '" << figure
                  << "' is not a figure (fix: use power, workers, epsilon, orthogonal, "
                     "centralized or digital)"
                  << std::endl;
        return 2;
    }
    std::ofstream csv(output);
    if (!csv)
    {
        std::cerr << "fl: invalid --output: cannot write '" << output
                  << "' (fix: choose a writable path)" << std::endl;
        return 2;
    }
    std::cout << "fl-dwfl: figure " << figure << ", " << runs.size() << " runs -> " << output
              << "\n";
    c.Print(std::cout);

    csv << kCsvHeader << '\n' << std::setprecision(10);
    std::map<uint32_t, std::shared_ptr<fl::LearningTask>> tasks; // one data split per N
    int status = 0;
    std::vector<double> finalAccuracy;
    for (std::size_t k = 0; k < runs.size(); ++k)
    {
        const RunSpec& run = runs[k];
        std::shared_ptr<fl::LearningTask>& task = tasks[run.n];
        if (!task)
        {
            flexample::FedAvgOptions o;
            o.clients = run.n;
            o.dataset = "fashion-mnist";
            o.model = c.model;
            o.samplesPerClient = c.samplesPerWorker;
            o.testSamples = c.testSamples;
            o.batchSize = c.batch;
            o.learningRate = c.gamma;
            o.localEpochs = 0.0; // one step per round
            o.clipNorm = c.gMax;
            o.precision = "float64";
            task = flexample::BuildFedAvgTask(o);
            if (!task)
            {
                return 2;
            }
        }
        std::cout << "run " << k + 1 << "/" << runs.size() << ": " << run.series << std::endl;
        const std::vector<Row> rows = RunOne(c, run, task, quiet);
        if (rows.empty())
        {
            std::cerr << "  run reported no model (see --maxTime)" << std::endl;
            return 1;
        }
        for (const Row& r : rows)
        {
            csv << figure << ',' << run.series << ',' << run.scheme << ',' << run.n << ','
                << run.pDbm << ',' << run.epsilon << ',' << r.round << ',' << r.timeS << ','
                << r.loss << ',' << r.accuracy << ',' << r.workerLoss << ',' << r.workerAccuracy
                << ',' << r.disagreement << '\n';
        }
        finalAccuracy.push_back(FinalAccuracy(rows));
        const Row& last = rows.back();
        std::cout << "  done: " << last.round << " rounds in " << last.timeS
                  << " s simulated, test accuracy " << last.accuracy << ", loss " << last.loss
                  << std::endl;
        if (last.round < c.rounds)
        {
            std::cerr << "  run stopped after " << last.round << " of " << c.rounds
                      << " rounds (see --maxTime)" << std::endl;
            status = 1;
        }
    }
    std::cout << "final accuracy = the centroid's mean test accuracy over the last tenth of the "
                 "rounds\n";
    PrintOrderings(runs, finalAccuracy, c.testSamples, std::cout);
    std::cout << "summary: " << runs.size() << " runs written to " << output << std::endl;
    return status;
}
