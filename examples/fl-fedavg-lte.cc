/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * fl-fedavg-lte: synchronous FedAvg over LTE.
 *
 * The clients are UEs of one LTE cell (one eNB, UEs on a disc around it); the server is a remote
 * host behind the EPC's PGW (FlLteSceneHelper). Same flags and CSV as fl-fedavg-wifi, with LTE
 * settings instead of the Wi-Fi ones. Every round the server
 * sends the global model (real parameter bytes over TCP) to the clients, each client trains on
 * its own data (Eigen, in-process) for the simulated compute time, sends its model back, and
 * the server averages them weighted by sample counts. The learning monitor evaluates each global
 * model on held-out data and writes one CSV row per round.
 *
 *   fl-fedavg-lte                                 # synthetic 10-class Gaussian mixture
 *   fl-fedavg-lte --dataset=fashion-mnist --rounds=20    # Debian's dataset-fashion-mnist
 *   fl-fedavg-lte --network=flow                  # flow-level network model: no packets
 *   fl-fedavg-lte --enbs=2 --mobility=road:speed=20,x0=100   # UEs driving past two eNBs
 *   fl-fedavg-lte --help
 *   utils/plot-learning-curve.sh fl-fedavg-lte.csv     # PNG of the learning curves
 */

#include "fl-example-common.h"

#include "ns3/fl-network-scenarios.h"

using namespace ns3;

NS_LOG_COMPONENT_DEFINE("FlFedAvgLte");

int
main(int argc, char* argv[])
{
    flexample::FedAvgOptions o;
    o.output = "fl-fedavg-lte.csv";
    double radius = 50.0;
    uint32_t bandwidth = 25;
    std::string rlc = "am";
    std::string network = "packet";
    std::string mobility = "fixed";
    uint32_t cqiPeriodMs = 0; // the scene's choice
    uint32_t enbs = 1;
    double enbSpacing = 500.0;

    flexample::Flags flags(__FILE__);
    flags.Cmd().Usage(
        "FedAvg over LTE: N UEs of one cell as clients, the server a remote host behind "
        "the EPC. Writes one CSV row per round; plot it with "
        "utils/plot-learning-curve.sh. Use --RngRun=N for independent replications.");
    flexample::AddFedAvgOptions(flags, o);
    flags.AddReal("radius",
                  "Radius of the disc of UEs around the eNB [m]",
                  radius,
                  flexample::Range::AtLeast(0.0));
    flags.AddWhole("bandwidth",
                   "LTE bandwidth in resource blocks: 6, 15, 25, 50, 75 or 100",
                   bandwidth);
    flags.AddChoice("rlc", "RLC mode of the UEs' bearers: am or um", rlc, {"am", "um"});
    flags.AddWhole<uint32_t>("cqiPeriod",
                             "Period of the UEs' downlink CQI reports [ms], 1 to 160 "
                             "(1: ns-3's own); 0: the scene's, 40 ms in its static cell, where "
                             "every period gives the same run",
                             cqiPeriodMs,
                             0,
                             160);
    flexample::AddNetworkOption(flags, network, o);
    flags.AddWhole<uint32_t>("enbs",
                             "eNBs on the x axis, --enbSpacing apart from the origin; more than "
                             "one: X2 handover by A3-RSRP (hysteresis 3 dB, time to trigger "
                             "256 ms), counted in the CSVs' handovers columns (packet level only)",
                             enbs,
                             1,
                             16);
    flags.AddReal("enbSpacing",
                  "Distance between neighbouring eNBs [m] (with --enbs > 1)",
                  enbSpacing,
                  flexample::Range::Above(0.0));
    flags.AddCheck([&enbs, &network]() {
        if (enbs > 1 && network == "flow")
        {
            throw fl::ConfigError("--enbs",
                                  std::to_string(enbs) + " with --network=flow",
                                  "the flow-level model has one cell: use --enbs=1 or "
                                  "--network=packet");
        }
    });
    flexample::AddMobilityOption(flags, mobility, network);
    flags.AddCheck([&o, &bandwidth]() {
        if (o.clients > FlLteMaxClients())
        {
            throw fl::ConfigError("--clients",
                                  std::to_string(o.clients) + " exceeds the " +
                                      std::to_string(FlLteMaxClients()) +
                                      " UEs one eNB serves here",
                                  "give a whole number in [1, " +
                                      std::to_string(FlLteMaxClients()) + "]");
        }
        if (bandwidth != 6 && bandwidth != 15 && bandwidth != 25 && bandwidth != 50 &&
            bandwidth != 75 && bandwidth != 100)
        {
            throw fl::ConfigError("--bandwidth",
                                  "is " + std::to_string(bandwidth) + " RBs",
                                  "use 6, 15, 25, 50, 75 or 100");
        }
    });
    if (!flags.Parse(argc, argv))
    {
        return flexample::kExitBadFlag;
    }
    const auto wallStart = std::chrono::steady_clock::now();
    std::shared_ptr<fl::LearningTask> task = flexample::BuildFedAvgTask(o);
    if (!task)
    {
        return 2;
    }
    std::ostringstream where; // the clients' placement
    if (mobility == "fixed")
    {
        where << "within " << radius << " m of the eNB";
    }
    else
    {
        where << "moving (" << mobility << ") around the eNB";
    }
    std::cout << "fl-fedavg-lte: " << task->Describe() << "\n"
              << "  network: LTE, "
              << (enbs > 1 ? std::to_string(enbs) + " eNBs (X2 handover, A3-RSRP), " : "")
              << bandwidth << " RBs, RLC " << rlc << ", " << o.clients << " UEs " << where.str()
              << ", server behind the EPC; TCP; " << o.wirePrecision << " on the wire; " << network
              << " level" << std::endl;

    FlLteSceneHelper lte;
    lte.SetRadius(radius);
    lte.SetBandwidth(static_cast<uint16_t>(bandwidth));
    lte.SetRlcMode(rlc);
    if (cqiPeriodMs > 0)
    {
        lte.SetCqiPeriodicity(MilliSeconds(cqiPeriodMs));
    }
    lte.SetFidelity(ParseFlFidelity(network, "--network"));
    lte.SetClientMobility(ParseFlClientMobility(mobility, "--mobility"));
    lte.SetEnbs(enbs);
    lte.SetEnbSpacing(enbSpacing);
    FlScene scene = lte.Build(o.clients);
    FlPrintFlowWarnings("fl-fedavg-lte", scene);

    return flexample::RunFedAvg(
        "fl-fedavg-lte",
        o,
        task,
        scene.serverNode,
        scene.clients,
        scene.serverAddress,
        [&scene](int64_t stream) { return FlLteSceneHelper::AssignStreams(scene, stream); },
        wallStart);
}
