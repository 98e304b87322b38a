/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * fl-flow-validation: the flow-level network against packets. For every network (802.11n BSS,
 * CSMA LAN, LTE cell), client count and model size it runs the same FedAvg job twice, once with
 * ns-3 devices and packets, once over the flow-level model (FlSceneHelperBase::SetFidelity),
 * and prints the error of the flow run on the mean round duration and on the time to the
 * target accuracy, whether the learned models are identical, and the wall-clock speed-up.
 *
 *   fl-flow-validation                                  # the validation set of the documentation
 *   fl-flow-validation --networks=wifi --clients=1 --models=mlp:hidden=64,mlp:hidden=1024
 *   fl-flow-validation --networks=gfl-wifi --gflSizes=3x20x5,10x50x11 --gflIterations=6
 *
 * gfl-wifi: GFL (Rizk, Vlaski, Sayed, "Privatized Graph Federated Learning", EURASIP J. Adv.
 * Signal Process. 2023) with P servers on point-to-point links, each with an 802.11a cell of K
 * clients of which L are sampled per iteration (FlGraphSceneHelper, FlGflHelper; the regression
 * task and graph of fl-gfl's benchmark): "clients" is P x K, "model" is L, a round is one
 * iteration (every server has combined), the time to accuracy is the time at which the
 * centroid MSD first reaches --gflTargetMsdDb.
 *   fl-flow-validation --help
 *
 * The table is printed and written to --output (CSV, the same columns; tta_err_pct empty where
 * a fidelity did not reach the target).
 */

#include "../fl-example-common.h"

#include "ns3/fl-network-scenarios.h"
#include "ns3/fl-packet-probes.h"
#include "../support/gfl-figures.h"
#include "ns3/gfl-helper.h"
#include "ns3/gfl.h"
#include "ns3/graph.h"
#include "ns3/internet-stack-helper.h"
#include "ns3/linear-models.h"
#include "ns3/synthetic-data.h"
#include "ns3/wifi-helper.h"

#include <fstream>
#include <iomanip>
#include <sstream>

using namespace ns3;

NS_LOG_COMPONENT_DEFINE("FlFlowValidation");

namespace
{

/// Mean duration of rounds 2.. (round 1 also holds the joins) [s].
double
MeanRound(const flexample::RunResult& r)
{
    double sum = 0.0;
    uint32_t n = 0;
    for (std::size_t i = 2; i < r.records.size(); ++i)
    {
        sum += r.records[i].durationS;
        ++n;
    }
    return n ? sum / n : std::nan("");
}

bool
SameLearning(const flexample::RunResult& a, const flexample::RunResult& b)
{
    if (a.records.size() != b.records.size())
    {
        return false;
    }
    for (std::size_t i = 0; i < a.records.size(); ++i)
    {
        if (a.records[i].testLoss != b.records[i].testLoss ||
            a.records[i].testAccuracy != b.records[i].testAccuracy)
        {
            return false;
        }
    }
    return true;
}

/// One FedAvg run; `losses` (packet level, if given) gets where the run lost packets, `learnS`
/// the wall time of the learning (the data's set-up, training and evaluation).
flexample::RunResult
RunOne(const std::string& net,
       FlFidelity fidelity,
       flexample::FedAvgOptions o,
       double& learnS,
       std::string* losses = nullptr)
{
    flexample::RunResult result;
    const auto wallStart = std::chrono::steady_clock::now();
    auto task = std::make_shared<FlTimedLearningTask>(flexample::BuildFedAvgTask(o));
    const double setupS =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - wallStart).count();
    FlScene scene;
    std::function<int64_t(int64_t)> assign;
    if (net == "wifi")
    {
        FlWifiScenarioHelper h;
        h.SetFidelity(fidelity);
        scene = h.Build(o.clients);
        assign = [&scene](int64_t s) { return FlWifiScenarioHelper::AssignStreams(scene, s); };
    }
    else if (net == "csma")
    {
        FlCsmaSceneHelper h;
        h.SetFidelity(fidelity);
        scene = h.Build(o.clients);
        assign = [&scene](int64_t s) { return FlCsmaSceneHelper::AssignStreams(scene, s); };
    }
    else
    {
        FlLteSceneHelper h;
        h.SetFidelity(fidelity);
        scene = h.Build(o.clients);
        assign = [&scene](int64_t s) { return FlLteSceneHelper::AssignStreams(scene, s); };
    }
    FlPrintFlowWarnings("fl-flow-validation", scene);
    std::shared_ptr<FlPacketLosses> counts;
    if (losses && !scene.flowNetwork)
    {
        counts = FlCountPacketLosses(scene);
    }
    flexample::RunFedAvg("fl-flow-validation",
                         o,
                         task,
                         scene.serverNode,
                         scene.clients,
                         scene.serverAddress,
                         assign,
                         wallStart,
                         {},
                         &result);
    if (counts)
    {
        *losses = counts->Describe();
    }
    learnS = setupS + task->Seconds();
    return result;
}

/// One GFL run: the time every iteration ended, the servers' models, the centroid MSD.
struct GflRun
{
    std::vector<double> endS;                         ///< simulated end of iterations 0..T [s]
    std::vector<std::vector<fl::ParamVector>> models; ///< per iteration, per server
    std::vector<double> msdDb;                        ///< centroid MSD per iteration [dB]
    double wallS{0.0};
    std::size_t peakCell{0}; ///< flow: most messages in flight at once in one cell
    std::size_t largest{0};  ///< flow: largest message [bytes]
};

/// One GFL size: P servers, K clients each, L sampled.
struct GflSize
{
    uint32_t servers{0};
    uint32_t clients{0};
    uint32_t sampled{0};
};

/// Parses "PxKxL".
GflSize
ParseGflSize(const std::string& text)
{
    GflSize g;
    char x1 = 0;
    char x2 = 0;
    std::stringstream ss(text);
    if (!(ss >> g.servers >> x1 >> g.clients >> x2 >> g.sampled) || x1 != 'x' || x2 != 'x' ||
        !ss.eof() || g.servers < 1 || g.servers > 100 || g.clients < 1 || g.clients > 1000 ||
        g.sampled < 1 || g.sampled > g.clients)
    {
        throw fl::ConfigError("--gflSizes",
                              "'" + text + "' is not a GFL size",
                              "give PxKxL: P in [1, 100] servers, K in [1, 1000] clients per "
                              "server, L in [1, K] sampled, e.g. 3x20x5");
    }
    return g;
}

/// GFL with Wi-Fi cells (the scene and task of fl-gfl --figure=bench) in one fidelity.
GflRun
RunGflOne(FlFidelity fidelity, const GflSize& g, uint32_t dim, uint32_t iterations, uint64_t seed)
{
    GflRun run;
    const auto wallStart = std::chrono::steady_clock::now();
    const uint32_t P = g.servers;
    const uint32_t K = g.clients;
    // data: N = 100 samples per client, M = dim (ridge rho = 0.1); M = 2 is the GFL papers'
    // regression, a larger M makes the messages longer (8 M bytes of model each)
    GflRegressionRun r = MakeGflNetworkRegressionRun(P, K, g.sampled, 0.4, iterations, seed, dim);
    const Eigen::VectorXd wOpt = r.setup.wOpt;
    auto task = r.setup.task;
    fl::GflConfig& c = r.config;
    // the scene of fl-gfl --mode=network --cell=wifi with its defaults
    FlGraphSceneHelper sceneHelper;
    sceneHelper.SetFidelity(fidelity);
    sceneHelper.SetCell("wifi");
    sceneHelper.SetCellAssociationStagger(MilliSeconds(1));
    FlGraphScene scene = sceneHelper.Build(c.combination, K);
    if (!scene.flowNetwork)
    {
        // fixed streams for the cells' devices and the nodes' stacks: a row's packet-level
        // run draws the same backoffs whatever ran before it in this process
        WifiHelper wifi;
        const int64_t used = wifi.AssignStreams(scene.cellDevices, 1000);
        NodeContainer all(scene.servers);
        for (const auto& cell : scene.cells)
        {
            all.Add(cell);
        }
        InternetStackHelper stack;
        stack.AssignStreams(all, 1000 + used);
    }
    FlGflHelper gfl(task, c);
    gfl.SetClientStartStagger(MilliSeconds(2));
    gfl.SetIterationCallback([&run](const fl::NetworkIterationReport& r) {
        run.endS.push_back(Simulator::Now().GetSeconds());
        run.models.push_back(*r.models);
        run.msdDb.push_back(10.0 * std::log10(r.centroidMsd));
    });
    gfl.SetStallTimeout(Seconds(300));
    gfl.Install(scene);
    Simulator::Stop(Seconds(1e5));
    Simulator::Run();
    if (scene.flowNetwork)
    {
        run.peakCell = scene.flowNetwork->PeakInFlight("wifi");
        run.largest = scene.flowNetwork->LargestMessage();
    }
    if (gfl.Tracker()->CompletedIterations() != iterations)
    {
        std::cerr << "fl-flow-validation: warning: the GFL run stopped after "
                  << gfl.Tracker()->CompletedIterations() << " of " << iterations << " iterations"
                  << std::endl;
    }
    Simulator::Destroy();
    run.wallS = std::chrono::duration<double>(std::chrono::steady_clock::now() - wallStart).count();
    return run;
}

/// Mean duration of iterations 2.. (iteration 1 also holds the association and joins) [s].
double
MeanIteration(const GflRun& r)
{
    // endS[0] is iteration 0 (the initial models, at Install)
    if (r.endS.size() < 3)
    {
        return std::nan("");
    }
    return (r.endS.back() - r.endS[1]) / static_cast<double>(r.endS.size() - 2);
}

/// Simulated time at which the centroid MSD first reaches `targetDb` (-1: never).
double
GflTimeToTarget(const GflRun& r, double targetDb)
{
    for (std::size_t i = 1; i < r.msdDb.size(); ++i)
    {
        if (r.msdDb[i] <= targetDb)
        {
            return r.endS[i];
        }
    }
    return -1.0;
}

bool
SameModels(const GflRun& a, const GflRun& b)
{
    return !a.models.empty() && a.models == b.models;
}

} // namespace

int
main(int argc, char* argv[])
{
    std::string networks = "wifi,csma,lte";
    std::string clientList = "1,10,20";
    std::string models = "mlp:hidden=64,mlp:hidden=1024";
    uint32_t rounds = 8;
    double target = 0.6;
    std::string gflSizes = "3x20x5";
    uint32_t gflIterations = 6;
    uint32_t gflDim = 2;
    double gflTargetDb = -10.0;
    uint32_t associationRuns = 0;
    uint32_t runs = 1;
    bool lossTrace = false;

    flexample::Flags flags(__FILE__);
    flags.Cmd().Usage(
        "Runs the same FedAvg job over packets and over the flow-level network model and prints "
        "the flow run's error on the mean round duration and the time to accuracy, whether the "
        "learned models are identical, and the wall-clock speed-up. One client per network is "
        "the calibration set of the flow model's parameters; more clients validate it.");
    std::string output = "fl-flow-validation.csv";
    flags.AddOutput("output", "CSV of the table (one row per configuration)", output, false);
    flags.AddText("networks",
                  "Comma-separated networks: wifi, csma, lte (FedAvg) or gfl-wifi (GFL with "
                  "Wi-Fi cells, sizes from --gflSizes)",
                  networks);
    flags.AddText("clients", "Comma-separated client counts (1 to 100)", clientList);
    flags.AddText("models", "Comma-separated model specs (see fl-fedavg-wifi --model)", models);
    flags.AddSize("rounds",
                  "FedAvg rounds per run",
                  rounds,
                  3u,
                  flexample::Bound{1000, "fl-flow-validation.cc"});
    flags.AddReal("targetAccuracy",
                  "Accuracy of the time-to-accuracy column",
                  target,
                  flexample::Range::Closed(0.0, 1.0));
    flags.AddText("gflSizes",
                  "gfl-wifi: comma-separated sizes PxKxL (P servers, K clients per server, L "
                  "sampled per iteration)",
                  gflSizes);
    flags.AddSize("gflIterations",
                  "gfl-wifi: iterations per run",
                  gflIterations,
                  3u,
                  flexample::Bound{1000, "fl-flow-validation.cc"});
    flags.AddSize("gflDim",
                  "gfl-wifi: dimension M of the regression model (2: the GFL papers'; each "
                  "message carries 8 M bytes of model)",
                  gflDim,
                  1u,
                  flexample::Bound{100000, "fl-flow-validation.cc"});
    flags.AddReal("gflTargetMsdDb",
                  "gfl-wifi: centroid MSD [dB] of the time-to-accuracy column",
                  gflTargetDb,
                  flexample::Range::Closed(-200.0, 100.0));
    flags.AddSize("associationRuns",
                  "Instead of the table: the association time of every station of an 802.11n "
                  "BSS of each --clients size, packet level and the flow model's draw, in this "
                  "many runs from --RngRun on, no learning (0: the table)",
                  associationRuns,
                  0u,
                  flexample::Bound{1000, "fl-flow-validation.cc"});
    flags.AddSize("runs",
                  "FedAvg: runs per row (ns-3's RngRun, RngRun+1, ...); the row gives the "
                  "means over them (wall times: the sums)",
                  runs,
                  1u,
                  flexample::Bound{100, "fl-flow-validation.cc"});
    flags.AddBool("lossTrace",
                  "After each FedAvg row, where its packet-level run lost packets (Wi-Fi MAC "
                  "drops by queue and reason, queue discs, TCP timeouts and fast recoveries)",
                  lossTrace);
    std::vector<std::string> netList;
    std::vector<std::string> sizeList;
    std::vector<std::string> clientItems;
    std::vector<std::string> modelList;
    flags.AddCheck([&]() {
        netList = fl::SplitList(networks, "--networks");
        for (const auto& n : netList)
        {
            flexample::Flags::CheckChoice(n, "--networks", {"wifi", "csma", "lte", "gfl-wifi"});
        }
        sizeList = fl::SplitList(gflSizes, "--gflSizes");
        for (const auto& g : sizeList)
        {
            ParseGflSize(g);
        }
        for (const uint32_t c : fl::ParseUnsignedList<uint32_t>(clientList, "--clients", 1, 100))
        {
            clientItems.push_back(std::to_string(c));
        }
        modelList = fl::SplitList(models, "--models");
    });
    if (!flags.Parse(argc, argv))
    {
        return flexample::kExitBadFlag;
    }

    if (associationRuns > 0)
    {
        std::ofstream csv(output);
        FlPrintWifiAssociationSurvey(clientItems, associationRuns, 0.5, std::cout, csv);
        return 0;
    }
    std::cout << "network clients model              round_packet_s round_flow_s round_err_% "
                 "tta_packet_s tta_flow_s tta_err_% same_models wall_packet_s wall_flow_s "
                 "speedup net_speedup bound"
              << std::endl;
    std::ofstream csv(output);
    csv << "network,clients,model,round_packet_s,round_flow_s,round_err_pct,tta_packet_s,"
           "tta_flow_s,tta_err_pct,same_models,wall_packet_s,wall_flow_s,speedup,learn_packet_s,"
           "learn_flow_s,network_speedup,speedup_bound\n";
    for (const auto& net : netList)
    {
        if (net == "gfl-wifi")
        {
            for (const auto& text : sizeList)
            {
                const GflSize g = ParseGflSize(text);
                const uint64_t seed = 1;
                const GflRun p = RunGflOne(FlFidelity::Packet, g, gflDim, gflIterations, seed);
                const GflRun f = RunGflOne(FlFidelity::Flow, g, gflDim, gflIterations, seed);
                const double rp = MeanIteration(p);
                const double rf = MeanIteration(f);
                const double tp = GflTimeToTarget(p, gflTargetDb);
                const double tf = GflTimeToTarget(f, gflTargetDb);
                const std::string size =
                    std::to_string(g.servers) + "x" + std::to_string(g.clients);
                const std::string label = "L=" + std::to_string(g.sampled) +
                                          (gflDim != 2 ? ",M=" + std::to_string(gflDim) : "");
                FlEmitValidationRow(
                    {net, size, label, rp, rf, tp, tf, SameModels(p, f), p.wallS, f.wallS},
                    csv);
                std::cout << "# flow: peak " << f.peakCell << " messages in one cell, largest "
                          << f.largest << " bytes" << std::endl;
            }
            continue;
        }
        for (const auto& c : clientItems)
        {
            for (const auto& model : modelList)
            {
                flexample::FedAvgOptions o;
                o.clients = static_cast<uint32_t>(std::stoul(c));
                o.rounds = rounds;
                o.model = model;
                o.quiet = true;
                o.output = "";
                o.wirePrecision = "float32";
                o.targetAccuracy = target;
                // means over runs firstRun.. (a time to accuracy: -1 if a run missed it)
                const uint32_t firstRun = RngSeedManager::GetRun();
                FlValidationRow m{net, c, model, 0, 0, 0, 0, true, 0, 0, 0, 0};
                std::string losses;
                for (uint32_t k = 0; k < runs; ++k)
                {
                    RngSeedManager::SetRun(firstRun + k);
                    std::streambuf* saved = std::cout.rdbuf();
                    std::ostringstream sink;
                    std::cout.rdbuf(sink.rdbuf()); // the runs' summaries
                    double lp = 0.0;
                    double lf = 0.0;
                    const auto p =
                        RunOne(net, FlFidelity::Packet, o, lp, lossTrace ? &losses : nullptr);
                    const auto f = RunOne(net, FlFidelity::Flow, o, lf);
                    m.learnPacketS += lp;
                    m.learnFlowS += lf;
                    std::cout.rdbuf(saved);
                    m.roundPacketS += MeanRound(p) / runs;
                    m.roundFlowS += MeanRound(f) / runs;
                    const bool reached = p.timeToAccuracyS >= 0 && f.timeToAccuracyS >= 0;
                    m.ttaPacketS =
                        reached && m.ttaPacketS >= 0 ? m.ttaPacketS + p.timeToAccuracyS / runs : -1;
                    m.ttaFlowS =
                        reached && m.ttaFlowS >= 0 ? m.ttaFlowS + f.timeToAccuracyS / runs : -1;
                    m.sameModels = m.sameModels && SameLearning(p, f);
                    m.wallPacketS += p.wallS;
                    m.wallFlowS += f.wallS;
                    if (lossTrace || runs > 1)
                    {
                        std::cout << "# run " << firstRun + k << ", time to accuracy packet "
                                  << p.timeToAccuracyS << " s, flow " << f.timeToAccuracyS
                                  << " s" << (lossTrace ? "; packet: " + losses : "") << std::endl;
                    }
                }
                RngSeedManager::SetRun(firstRun);
                FlEmitValidationRow(m, csv);
            }
        }
    }
    return 0;
}
