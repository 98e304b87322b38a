/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * fl-async-wifi: synchronous FedAvg against asynchronous FL on heterogeneous devices.
 *
 * Each client's speed (FLOP/s) is drawn once from a log-normal law (--flopRateMedian,
 * --flopRateSigma), so some devices are many times slower than others. The same task runs for
 * the same simulated time (--maxTime) over the same 802.11 BSS (or LTE cell, --scene=lte) with
 * four server strategies:
 *   fedavg           synchronous FedAvg, each round waits for every selected client
 *   fedavg-deadline  synchronous FedAvg, a round closes at --deadline (late updates dropped)
 *   fedasync         FedAsync (C. Xie, S. Koyejo, I. Gupta, "Asynchronous Federated
 *                    Optimization", 2019, Algorithm 1): each update is mixed in at once with
 *                    weight alpha s(staleness)
 *   fedbuff          FedBuff (J. Nguyen et al., "Federated Learning with Buffered Asynchronous
 *                    Aggregation", AISTATS 2022, Algorithm 1): every K updates, scaled by
 *                    s(staleness), make a new model
 * The asynchronous strategies keep --concurrency clients busy: a client whose update arrives is
 * sent the current model at once. Each new global model (a round, or a version) is evaluated.
 *
 * --secure=secagg (or secaggplus) runs every strategy with secure aggregation (Bonawitz et al.,
 * "Practical Secure Aggregation for Privacy-Preserving Machine Learning", ACM CCS 2017): FedAvg
 * once per round, FedBuff once per buffer, each buffer being a cohort of --bufferSize clients
 * sent the model together (the server learns only each cohort's sum); fedasync is refused, the
 * sum of one update being the update.
 *
 * Output:
 *   fl-async-wifi.csv            one row per strategy: final accuracy, time to target, models,
 *                                bytes, mean and largest staleness
 *   fl-async-wifi-rounds.csv     every model of every run (strategy first; the learning-monitor
 *                                columns: time, accuracy, bytes down and up, ...)
 *   fl-async-wifi-staleness.csv  strategy, staleness, updates: the staleness distribution
 *   utils/plot-async.sh fl-async-wifi   -> fl-async-wifi-time.png, fl-async-wifi-bytes.png,
 *                                          fl-async-wifi-staleness.png
 *
 *   fl-async-wifi --help
 *   fl-async-wifi --strategies=fedavg,fedbuff --bufferSize=5 --maxTime=30
 *   fl-async-wifi --strategies=fedavg,fedbuff --secure=secagg --bufferSize=5
 */

#include "fl-example-common.h"

#include "ns3/fl-mobility-presets.h"
#include "ns3/fl-network-scenarios.h"
#include "ns3/text-parse.h"

#include <algorithm>
#include <fstream>

using namespace ns3;

NS_LOG_COMPONENT_DEFINE("FlAsyncWifi");

int
main(int argc, char* argv[])
{
    flexample::FedAvgOptions o;
    o.output = "fl-async-wifi.csv";
    flexample::HeterogeneousDeviceDefaults(o);
    o.rounds = 100000; // the time budget ends each run
    o.deadline = 1.0; // of fedavg-deadline only
    o.bufferSize = 5;
    std::string strategies = "fedavg,fedavg-deadline,fedasync,fedbuff";
    std::string scene = "wifi";
    uint32_t concurrency = 0;
    std::string standard = "80211n";
    std::string rateManager = "ns3::IdealWifiManager";

    flexample::Flags flags(__FILE__);
    flags.Cmd().Usage(
        "Synchronous FedAvg (with and without a round deadline), FedAsync and FedBuff on "
        "heterogeneous devices (log-normal FLOP rates) over 802.11 Wi-Fi or LTE, each for "
        "--maxTime simulated seconds: accuracy against time and bytes, and the staleness "
        "distribution; plot with utils/plot-async.sh.");
    // first: the shared options' checks ask the server's rules of --strategy
    flags.AddCheck([&o]() {
        if (o.strategy != "fedavg")
        {
            throw fl::ConfigError("--strategy",
                                  "is set by --strategies here",
                                  "list the strategies in --strategies");
        }
    });
    flexample::AddFedAvgOptions(flags, o);
    flags.AddText("strategies",
                  "Comma-separated: fedavg, fedavg-deadline (round deadline --deadline), "
                  "fedasync, fedbuff",
                  strategies);
    flags.AddSize("concurrency",
                  "Asynchronous strategies: clients kept busy (0 = all)",
                  concurrency,
                  0u,
                  flexample::kMaxClients);
    flags.AddChoice("scene", "wifi (one 802.11 BSS) or lte (one cell)", scene, {"wifi", "lte"});
    std::string mobility = "fixed";
    const std::string network = "packet"; // this program runs at packet level only
    flexample::AddMobilityOption(flags, mobility, network);
    flexample::AddWifiOptions(flags, standard, rateManager);
    // every strategy of --strategies runs with --secure (fedavg-deadline is fedavg)
    flexample::AddSecureOptions(flags, o, [&strategies]() {
        std::vector<std::string> running = fl::SplitList(strategies, "--strategies");
        for (auto& s : running)
        {
            s = s == "fedavg-deadline" ? "fedavg" : s;
        }
        return running;
    });
    std::vector<std::string> strategyList;
    flags.AddCheck([&]() {
        strategyList = fl::SplitList(strategies, "--strategies");
        for (const auto& s : strategyList)
        {
            flexample::Flags::CheckChoice(s,
                                          "--strategies",
                                          {"fedavg", "fedavg-deadline", "fedasync", "fedbuff"});
        }
        if (!(o.flopRateMedian > 0.0))
        {
            throw fl::ConfigError("--flopRateMedian", "must be > 0 here", "e.g. 2e7");
        }
        if (scene == "lte" && o.clients > FlLteMaxClients())
        {
            throw fl::ConfigError("--clients",
                                  std::to_string(o.clients) + " UEs in one LTE cell",
                                  "use at most " + std::to_string(FlLteMaxClients()));
        }
        const bool fedbuff =
            std::find(strategyList.begin(), strategyList.end(), "fedbuff") != strategyList.end();
        if (o.secure != "none" &&
            std::find(strategyList.begin(), strategyList.end(), "fedasync") != strategyList.end())
        {
            throw fl::ConfigError("--strategies",
                                  "fedasync with --secure=" + o.secure,
                                  "drop fedasync (it applies each update alone, and the sum of "
                                  "one update is the update), or use --secure=none");
        }
        if (o.secure != "none" && fedbuff && o.bufferSize < 2)
        {
            throw fl::ConfigError("--bufferSize",
                                  "1 with --secure=" + o.secure,
                                  "buffer at least 2 updates: each buffer is one securely summed "
                                  "cohort");
        }
        if (o.secure != "none" && fedbuff && o.clients < o.bufferSize)
        {
            throw fl::ConfigError("--bufferSize",
                                  std::to_string(o.bufferSize) + " with --secure=" + o.secure +
                                      " and " + std::to_string(o.clients) + " clients",
                                  "use at most --clients: a buffer is a cohort of clients");
        }
        if (o.secure != "none" && fedbuff && concurrency != 0 && concurrency < o.bufferSize)
        {
            throw fl::ConfigError("--concurrency",
                                  std::to_string(concurrency) + " with --secure=" + o.secure +
                                      " and --bufferSize=" + std::to_string(o.bufferSize),
                                  "use 0 (all) or a multiple of --bufferSize: each buffer is a "
                                  "cohort of --bufferSize busy clients");
        }
        // the server's rules for every strategy as it runs (--deadline: fedavg-deadline's only)
        for (const auto& s : strategyList)
        {
            flexample::CheckServerRules(o,
                                        s == "fedavg-deadline" ? "fedavg" : s,
                                        s == "fedavg-deadline" ? o.deadline : 0.0);
        }
        flexample::CheckWritable(flexample::RoundsFileName(o.output), "--output");
    });
    if (!flags.Parse(argc, argv))
    {
        return flexample::kExitBadFlag;
    }
    std::shared_ptr<fl::LearningTask> task = flexample::BuildFedAvgTask(o);
    if (!task)
    {
        return 2;
    }
    std::cout << "fl-async-wifi: " << task->Describe() << "\n  network: "
              << (scene == "lte" ? std::string("LTE cell") : standard) << ", " << o.clients
              << " clients; device speeds log-normal, median " << o.flopRateMedian
              << " FLOP/s, sigma " << o.flopRateSigma << "; " << o.maxTime
              << " s of simulated time per run" << std::endl;

    const std::string base = o.output.substr(0, o.output.rfind(".csv"));
    const std::string roundsFile = flexample::RoundsFileName(o.output);
    const std::string stalenessFile = base + "-staleness.csv";
    std::ofstream rows(roundsFile);
    std::ofstream summary(o.output);
    std::ofstream staleness(stalenessFile);
    if (!rows || !summary || !staleness)
    {
        std::cerr << "fl-async-wifi: cannot write " << o.output << ", " << roundsFile << " or "
                  << stalenessFile << " (fix: check the directory)" << std::endl;
        return 2;
    }
    // moving clients: the rounds file gains the mobility columns (lost, handovers, ...)
    const bool moving = ParseFlClientMobility(mobility, "--mobility").Moves();
    rows << "strategy," << FlLearningTracker::RoundCsvHeader(moving) << "\n";
    summary << "strategy,final_accuracy,time_to_accuracy_s,target_accuracy,models,bytes,"
               "mean_staleness,max_staleness,updates,secure,aborted\n";
    staleness << "strategy,staleness,updates\n";
    int status = 0;
    for (const auto& name : strategyList)
    {
        const auto wallStart = std::chrono::steady_clock::now();
        flexample::FedAvgOptions run = o;
        run.output = "";
        run.quiet = true;
        run.deadline = name == "fedavg-deadline" ? o.deadline : 0.0;
        run.strategy = name == "fedavg-deadline" ? "fedavg" : name;
        if (run.strategy != "fedavg")
        {
            run.clientsPerRound = concurrency;
        }
        // The same scene for every strategy: same stations, positions and streams.
        FlScene s;
        std::function<int64_t(int64_t)> assign;
        if (scene == "lte")
        {
            FlLteSceneHelper lte;
            lte.SetClientMobility(ParseFlClientMobility(mobility, "--mobility"));
            s = lte.Build(o.clients);
            assign = [&s](int64_t st) { return FlLteSceneHelper::AssignStreams(s, st); };
        }
        else
        {
            FlWifiScenarioHelper wifi;
            wifi.SetStandard(standard);
            wifi.SetRateManager(rateManager);
            wifi.SetClientMobility(ParseFlClientMobility(mobility, "--mobility"));
            s = wifi.Build(o.clients);
            assign = [&s](int64_t st) { return FlWifiScenarioHelper::AssignStreams(s, st); };
        }
        if (!o.quiet)
        {
            std::cout << name << ": " << std::flush;
        }
        flexample::RunResult res;
        const int rc = flexample::RunFedAvg("fl-async-wifi",
                                            run,
                                            task,
                                            s.serverNode,
                                            s.clients,
                                            s.serverAddress,
                                            assign,
                                            wallStart,
                                            nullptr,
                                            &res);
        status = std::max(status, rc);
        for (const auto& r : res.records)
        {
            rows << name << ',' << FlLearningTracker::RoundCsvRow(r, moving) << '\n';
        }
        uint64_t updates = 0;
        double sum = 0.0;
        uint32_t largest = 0;
        for (const auto& kv : res.staleness)
        {
            staleness << name << ',' << kv.first << ',' << kv.second << '\n';
            updates += kv.second;
            sum += static_cast<double>(kv.first) * static_cast<double>(kv.second);
            largest = std::max(largest, kv.first);
        }
        summary << name << ',' << res.finalAccuracy << ','
                << (res.timeToAccuracyS < 0 ? std::string("nan")
                                            : std::to_string(res.timeToAccuracyS))
                << ',' << o.targetAccuracy << ',' << res.completedRounds << ',' << res.bytes << ','
                << (updates > 0 ? sum / static_cast<double>(updates) : 0.0) << ',' << largest << ','
                << updates << ',' << o.secure << ',' << res.uplinkAborted << '\n';
        rows.flush();
        summary.flush();
        staleness.flush();
    }
    std::cout << "results: " << o.output << ", " << roundsFile << " and " << stalenessFile
              << "\nplot: utils/plot-async.sh " << base << std::endl;
    return status;
}
