/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * fl-stragglers: FedAvg with heterogeneous devices over Wi-Fi, round deadline swept.
 *
 * Each client's speed (FLOP/s) is drawn once from a log-normal law (--flopRateMedian,
 * --flopRateSigma); its compute time per round is the FLOPs of its local epoch divided by its
 * speed, so slow devices straggle. For each deadline (0 = wait for everyone) and each straggler
 * policy (drop late updates, or accept them into a later round with a staleness discount) the
 * same task runs for the same simulated time budget (--maxTime) over the same 802.11n BSS.
 * Radio energy comes from ns-3's Wi-Fi energy model, compute energy from --computePower.
 * --mobility moves the stations (the same motion in every run): stragglers then come from the
 * network as well, and the rounds file gains the mobility columns (lost, handovers, ...).
 *
 * Output:
 *   fl-stragglers.csv          one row per run: final accuracy, time to target, rounds, energy
 *   fl-stragglers-rounds.csv   every run's learning-monitor rows, deadline and policy first
 *   utils/plot-stragglers.sh fl-stragglers-rounds.csv  -> fl-stragglers-rounds.png (accuracy
 *                                     against simulated time, one line per deadline)
 *
 *   fl-stragglers --help
 *   fl-stragglers --deadlines=0,1,2 --policies=drop --maxTime=30
 */

#include "fl-example-common.h"

#include "ns3/fl-energy-helper.h"
#include "ns3/fl-mobility-presets.h"
#include "ns3/fl-network-scenarios.h"
#include "ns3/text-parse.h"

#include <fstream>

using namespace ns3;

NS_LOG_COMPONENT_DEFINE("FlStragglers");

int
main(int argc, char* argv[])
{
    flexample::FedAvgOptions o;
    o.output = "fl-stragglers.csv";
    flexample::HeterogeneousDeviceDefaults(o);
    o.rounds = 10000; // the time budget ends each run
    std::string deadlines = "0,0.5,1,2";
    std::string policies = "drop,accept";
    std::string standard = "80211n";
    std::string rateManager = "ns3::IdealWifiManager";

    flexample::Flags flags(__FILE__);
    flags.Cmd().Usage(
        "FedAvg with heterogeneous devices (log-normal FLOP rates) over 802.11 Wi-Fi: "
        "sweeps the round deadline and the straggler policy, each run for --maxTime "
        "simulated seconds; plot with utils/plot-stragglers.sh.");
    flexample::AddFedAvgOptions(flags, o);
    flags.AddText("deadlines", "Comma-separated round deadlines [s] (0 = wait for all)", deadlines);
    flags.AddText("policies", "Comma-separated straggler policies: drop, accept", policies);
    flexample::AddWifiOptions(flags, standard, rateManager);
    std::string mobility = "fixed";
    const std::string network = "packet"; // this program runs at packet level only
    flexample::AddMobilityOption(flags, mobility, network);
    std::vector<double> deadlineList;
    std::vector<std::string> policyList;
    flags.AddCheck([&]() {
        deadlineList =
            fl::ParseDoubleList(deadlines, "--deadlines", 0.0, flexample::kMaxSimSeconds);
        policyList = fl::SplitList(policies, "--policies");
        for (const auto& p : policyList)
        {
            flexample::Flags::CheckChoice(p, "--policies", {"drop", "accept"});
        }
        if (!(o.flopRateMedian > 0.0))
        {
            throw fl::ConfigError("--flopRateMedian", "must be > 0 here", "e.g. 2e7");
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
    std::cout << "fl-stragglers: " << task->Describe() << "\n  network: " << standard << ", "
              << o.clients << " stations; device speeds log-normal, median " << o.flopRateMedian
              << " FLOP/s, sigma " << o.flopRateSigma << "; " << o.maxTime
              << " s of simulated time per run" << std::endl;

    const std::string roundsFile = flexample::RoundsFileName(o.output);
    std::ofstream rows(roundsFile);
    std::ofstream summary(o.output);
    if (!rows || !summary)
    {
        std::cerr << "fl-stragglers: cannot write " << o.output << " or " << roundsFile
                  << " (fix: check the directory)" << std::endl;
        return 2;
    }
    // moving clients: the rounds file gains the mobility columns (lost, handovers, ...)
    const bool moving = ParseFlClientMobility(mobility, "--mobility").Moves();
    rows << "deadline_s,policy," << FlLearningTracker::RoundCsvHeader(moving) << "\n";
    summary << "deadline_s,policy,final_accuracy,time_to_accuracy_s,target_accuracy,rounds,"
               "mean_participants,stragglers,stale,energy_radio_j,energy_compute_j\n";
    int status = 0;
    for (double deadline : deadlineList)
    {
        for (const auto& policy : policyList)
        {
            if (deadline == 0.0 && policy == "accept" && policyList.size() > 1)
            {
                continue; // without a deadline nothing is late: same run as drop
            }
            const auto wallStart = std::chrono::steady_clock::now();
            flexample::FedAvgOptions run = o;
            run.deadline = deadline;
            run.stragglerPolicy = policy;
            run.output = "";
            run.quiet = true;
            FlWifiScenarioHelper wifi;
            wifi.SetStandard(standard);
            wifi.SetRateManager(rateManager);
            wifi.SetClientMobility(ParseFlClientMobility(mobility, "--mobility"));
            FlScene scene = wifi.Build(o.clients);
            Ptr<FlRadioEnergyMeter> meter = Create<FlRadioEnergyMeter>();
            meter->InstallWifi(scene);
            if (!o.quiet)
            {
                std::cout << "deadline " << deadline << " s, " << policy << ": " << std::flush;
            }
            flexample::RunResult res;
            const int rc = flexample::RunFedAvg(
                "fl-stragglers",
                run,
                task,
                scene.serverNode,
                scene.clients,
                scene.serverAddress,
                [&scene](int64_t s) { return FlWifiScenarioHelper::AssignStreams(scene, s); },
                wallStart,
                [meter](uint32_t k) { return meter->GetRadioEnergy(k); },
                &res);
            status = std::max(status, rc);
            for (const auto& r : res.records)
            {
                rows << deadline << ',' << policy << ','
                     << FlLearningTracker::RoundCsvRow(r, moving) << '\n';
            }
            summary << deadline << ',' << policy << ',' << res.finalAccuracy << ','
                    << (res.timeToAccuracyS < 0 ? std::string("nan")
                                                : std::to_string(res.timeToAccuracyS))
                    << ',' << o.targetAccuracy << ',' << res.completedRounds << ','
                    << res.meanParticipants << ',' << res.stragglers << ',' << res.stale << ','
                    << res.energyRadioJ << ',' << res.energyComputeJ << '\n';
            rows.flush();
            summary.flush();
        }
    }
    std::cout << "results: " << o.output << " and " << roundsFile
              << "\nplot: utils/plot-stragglers.sh " << roundsFile << std::endl;
    return status;
}
