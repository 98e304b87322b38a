/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * fl-fedavg-lossy: FedAvg over UDP on lossy links, packet loss swept from 0 to 30 %, for each
 * way of handling the holes lost chunks leave in a model (drop the update, keep the previous
 * values for the missing coordinates, retransmit the missing chunks).
 *
 * The network is a point-to-point star (server at the hub, one 10 Mb/s, 2 ms link per client)
 * with independent packet losses at the given rate on every device (ns-3 RateErrorModel, both
 * directions). Models travel as chunked UDP datagrams (FlDatagramEndpoint). Each (loss, policy)
 * pair is one full simulation of the same learning task; the runs share nothing else.
 *
 * Output:
 *   fl-fedavg-lossy.csv         one row per run: loss, policy, final accuracy, time to the
 *                               target accuracy, chunks lost and retransmitted, ...
 *   fl-fedavg-lossy-rounds.csv  every run's learning-monitor rows, with loss and policy first
 *   utils/plot-lossy.sh fl-fedavg-lossy.csv   -> fl-fedavg-lossy.png (accuracy and time to
 *                                               accuracy against loss, one line per policy)
 *
 *   fl-fedavg-lossy --help
 *   fl-fedavg-lossy --losses=0,0.1,0.3 --policies=retransmit --rounds=40
 */

#include "fl-example-common.h"

#include "ns3/fl-network-scenarios.h"
#include "ns3/network-module.h"
#include "ns3/text-parse.h"

#include <fstream>

using namespace ns3;

NS_LOG_COMPONENT_DEFINE("FlFedAvgLossy");

int
main(int argc, char* argv[])
{
    flexample::FedAvgOptions o;
    o.output = "fl-fedavg-lossy.csv";
    o.transport = "udp";
    o.rounds = 30;
    o.deadline = 1.0;
    o.udpPacingMbps = 8.0;
    o.targetAccuracy = 0.75;
    o.maxTime = 600.0;
    std::string losses = "0,0.05,0.1,0.2,0.3";
    std::string policies = "drop,keep-previous,retransmit";
    double linkMbps = 10.0;

    flexample::Flags flags(__FILE__);
    flags.Cmd().Usage(
        "FedAvg over UDP on a point-to-point star with packet loss: sweeps the loss "
        "rate and the hole policy, and writes final accuracy and time-to-accuracy per "
        "run (plot with utils/plot-lossy.sh). --deadline bounds rounds whose messages "
        "were lost for good.");
    flexample::AddFedAvgOptions(flags, o);
    flags.AddText("losses", "Comma-separated packet loss rates in [0, 1)", losses);
    flags.AddText("policies",
                  "Comma-separated hole policies: drop, keep-previous, retransmit",
                  policies);
    // At least 1 b/s: the rate is handed to ns-3 in whole bits per second.
    flags.AddReal("linkMbps",
                  "Rate of every link [Mb/s]",
                  linkMbps,
                  flexample::Range::Closed(1e-6, 1e6));
    std::vector<double> lossList;
    std::vector<std::string> policyList;
    flags.AddCheck([&]() {
        lossList.clear();
        for (const std::string& item : fl::SplitList(losses, "--losses"))
        {
            lossList.push_back(
                flexample::ParseReal(item, "--losses", flexample::Range{0.0, 1.0, false, true}));
        }
        policyList = fl::SplitList(policies, "--policies");
        for (const auto& p : policyList)
        {
            ParseFlHolePolicy(p, "--policies");
        }
        if (o.udpPacingMbps > linkMbps)
        {
            throw fl::ConfigError("--udpPacingMbps",
                                  "exceeds --linkMbps: UDP would only fill queues",
                                  "keep it below the link rate");
        }
        if (o.transport != "udp")
        {
            throw fl::ConfigError("--transport",
                                  "must be udp here (the hole policies are UDP's)",
                                  "use --transport=udp");
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
    std::cout << "fl-fedavg-lossy: " << task->Describe() << "\n  network: star of " << o.clients
              << " x " << linkMbps << " Mb/s links; UDP paced at " << o.udpPacingMbps
              << " Mb/s; deadline " << o.deadline << " s" << std::endl;

    const std::string roundsFile = flexample::RoundsFileName(o.output);
    std::ofstream summary(o.output);
    std::ofstream rounds(roundsFile);
    if (!summary || !rounds)
    {
        std::cerr << "fl-fedavg-lossy: cannot write " << o.output << " or " << roundsFile
                  << " (fix: check the directory)" << std::endl;
        return 2;
    }
    summary << "loss,policy,final_accuracy,final_loss,time_to_accuracy_s,target_accuracy,"
               "simulated_time_s,rounds,mean_participants,chunks_lost,chunks_retx,bytes\n";
    rounds << "loss,policy," << LearningMonitor::CsvHeader() << "\n";
    const bool quiet = o.quiet;
    int status = 0;
    for (double loss : lossList)
    {
        for (const auto& policy : policyList)
        {
            const auto wallStart = std::chrono::steady_clock::now();
            flexample::FedAvgOptions run = o;
            run.holePolicy = policy;
            run.output = "";
            run.quiet = true;
            FlPointToPointStarHelper star;
            star.SetDataRate(DataRate(static_cast<uint64_t>(linkMbps * 1e6)));
            FlScene scene = star.Build(o.clients);
            for (uint32_t i = 0; i < scene.devices.GetN(); ++i)
            {
                Ptr<RateErrorModel> em = CreateObject<RateErrorModel>();
                em->SetAttribute("ErrorUnit", StringValue("ERROR_UNIT_PACKET"));
                em->SetAttribute("ErrorRate", DoubleValue(loss));
                em->AssignStreams(5000 + i); // RngRun still changes the draws
                scene.devices.Get(i)->SetAttribute("ReceiveErrorModel", PointerValue(em));
            }
            if (!quiet)
            {
                std::cout << "loss " << loss << ", " << policy << ": " << std::flush;
            }
            flexample::RunResult res;
            const int rc = flexample::RunFedAvg(
                "fl-fedavg-lossy",
                run,
                task,
                scene.serverNode,
                scene.clients,
                scene.serverAddress,
                [&scene](int64_t s) { return FlPointToPointStarHelper::AssignStreams(scene, s); },
                wallStart,
                {},
                &res);
            status = std::max(status, rc);
            summary << loss << ',' << policy << ',' << res.finalAccuracy << ',' << res.finalLoss
                    << ','
                    << (res.timeToAccuracyS < 0 ? std::string("nan")
                                                : std::to_string(res.timeToAccuracyS))
                    << ',' << o.targetAccuracy << ',' << res.simulatedTimeS << ','
                    << res.completedRounds << ',' << res.meanParticipants << ',' << res.chunksLost
                    << ',' << res.chunksRetx << ',' << res.bytes << '\n';
            summary.flush();
            for (const auto& r : res.records)
            {
                rounds << loss << ',' << policy << ',' << LearningMonitor::CsvRow(r) << '\n';
            }
        }
    }
    std::cout << "results: " << o.output << " and " << roundsFile << "\nplot: utils/plot-lossy.sh "
              << o.output << std::endl;
    return status;
}
