/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * fl-scale-run: one measured case of fl-scale-benchmark's memory part, in its own process so that
 * its peak resident memory is its own: FedAvg on a Wi-Fi, CSMA or LTE scene (as fl-fedavg-wifi
 * and fl-fedavg-lte run it, every FedAvg flag applies), or stock ns-3's cost of one exchange of
 * the same bytes on the same scene (BulkSend and PacketSink, FlRunStockExchange).
 *
 *   fl-scale-run --run=fedavg --scene=csma --clients=100 --rounds=10 --transport=udp
 *   fl-scale-run --run=stock --scene=wifi --clients=100
 *   fl-scale-run --run=fedavg --scene=wifi --aps=10 --clients=1000 --rounds=10
 */

#include "fl-example-common.h"
#include "fl-example-flags.h"

#include "ns3/fl-energy-helper.h"
#include "ns3/fl-network-scenarios.h"
#include "ns3/fl-stock-baseline.h"

#include <chrono>
#include <iostream>
#include <string>

using namespace ns3;

namespace
{

/// Builds the scene `kind` with N clients (wifi, csma or lte; Wi-Fi as one BSS, or an ESS of
/// `aps` > 1 access points; LTE with UE CQI reports every `cqiPeriodMs`).
FlScene
BuildScene(const std::string& kind, uint32_t n, uint32_t cqiPeriodMs, uint32_t aps)
{
    if (kind == "wifi" && aps > 1)
    {
        FlWifiEssSceneHelper ess;
        ess.SetAccessPoints(aps);
        return ess.Build(n);
    }
    if (kind == "wifi")
    {
        FlWifiScenarioHelper wifi;
        return wifi.Build(n);
    }
    if (kind == "csma")
    {
        FlCsmaSceneHelper csma;
        return csma.Build(n);
    }
    FlLteSceneHelper lte;
    if (cqiPeriodMs > 0)
    {
        lte.SetCqiPeriodicity(MilliSeconds(cqiPeriodMs));
    }
    return lte.Build(n);
}

int64_t
AssignSceneStreams(const std::string& kind, const FlScene& scene, int64_t stream)
{
    if (kind == "wifi")
    {
        return FlWifiScenarioHelper::AssignStreams(scene, stream);
    }
    if (kind == "csma")
    {
        return FlCsmaSceneHelper::AssignStreams(scene, stream);
    }
    return FlLteSceneHelper::AssignStreams(scene, stream);
}

/// FedAvg on the scene, as fl-fedavg-wifi and fl-fedavg-lte run it.
int
RunFedAvgScene(flexample::FedAvgOptions o,
               const std::string& sceneKind,
               uint32_t cqiPeriodMs,
               uint32_t aps,
               bool energy)
{
    const auto wallStart = std::chrono::steady_clock::now();
    std::shared_ptr<fl::LearningTask> task = flexample::BuildFedAvgTask(o);
    if (!task)
    {
        return 2;
    }
    std::cout << "fl-scale-run: FedAvg, " << sceneKind
              << (aps > 1 ? " (ESS of " + std::to_string(aps) + " APs)" : "") << ", " << o.clients
              << " clients, " << o.rounds << " rounds, " << o.transport << "; " << task->Describe()
              << std::endl;
    FlScene scene = BuildScene(sceneKind, o.clients, cqiPeriodMs, aps);
    Ptr<FlRadioEnergyMeter> meter;
    if (energy && sceneKind == "wifi")
    {
        meter = Create<FlRadioEnergyMeter>();
        meter->InstallWifi(scene);
    }
    return flexample::RunFedAvg(
        "fl-scale-run",
        o,
        task,
        scene.serverNode,
        scene.clients,
        scene.serverAddress,
        [&scene, &sceneKind](int64_t s) { return AssignSceneStreams(sceneKind, scene, s); },
        wallStart,
        meter ? std::function<double(uint32_t)>(
                    [meter](uint32_t client) { return meter->GetRadioEnergy(client); })
              : std::function<double(uint32_t)>());
}

/// Stock ns-3 on the same scene: one exchange with ns-3's own applications (FlRunStockExchange).
int
RunStockScene(const std::string& sceneKind,
              uint32_t n,
              uint32_t cqiPeriodMs,
              uint32_t aps,
              uint64_t bytes)
{
    const auto wallStart = std::chrono::steady_clock::now();
    FlScene scene = BuildScene(sceneKind, n, cqiPeriodMs, aps);
    AssignSceneStreams(sceneKind, scene, 100);
    const FlStockExchangeResult r = FlRunStockExchange(scene, bytes);
    Simulator::Destroy();
    std::cout << "stock ns-3: " << sceneKind
              << (aps > 1 ? " (ESS of " + std::to_string(aps) + " APs)" : "") << ", " << n
              << " clients, " << bytes
              << " bytes each way: " << (r.complete ? "complete" : "INCOMPLETE")
              << " at t = " << r.simulatedS << " s (" << r.uploadsStarted << " uploads started), "
              << std::chrono::duration<double>(std::chrono::steady_clock::now() - wallStart).count()
              << " s wall" << std::endl;
    return r.complete ? 0 : 1;
}

} // namespace

int
main(int argc, char* argv[])
{
    std::string run = "fedavg";
    std::string sceneKind = "wifi";
    bool energy = true;
    uint64_t stockBytes = 0;
    uint32_t cqiPeriodMs = 0; // the scene's choice
    uint32_t aps = 1;
    flexample::FedAvgOptions o;
    o.quiet = true;
    o.output = "fl-scale-run.csv";

    flexample::Flags flags(__FILE__);
    flags.Cmd().Usage(
        "One case of fl-scale-benchmark's memory part: --run=fedavg runs FedAvg on the --scene "
        "(every FedAvg flag applies); --run=stock runs one exchange of the model's bytes with "
        "stock ns-3 applications (BulkSend, PacketSink) on the same scene, the baseline.");
    flags.AddChoice("run", "fedavg or stock", run, {"fedavg", "stock"});
    flags.AddChoice("scene", "wifi, csma or lte", sceneKind, {"wifi", "csma", "lte"});
    flags.AddBool("energy", "--run=fedavg --scene=wifi: measure radio energy", energy);
    flags.AddWhole<uint64_t>("stockBytes",
                             "--run=stock: bytes each way per client (0 = the FedAvg model's "
                             "float32 parameters)",
                             stockBytes);
    flags.AddWhole<uint32_t>("cqiPeriod",
                             "--scene=lte: period of the UEs' downlink CQI reports [ms], 1 to 160 "
                             "(1: ns-3's own); 0: the scene's, 40 ms in its static cell, where "
                             "every period gives the same run",
                             cqiPeriodMs,
                             0,
                             160);
    flags.AddWhole<uint32_t>("aps",
                             "--scene=wifi: access points; 1 is one BSS with the server on its "
                             "AP, A > 1 an ESS of A BSSs wired to the server (client i on AP "
                             "i mod A), at most --clients",
                             aps,
                             1,
                             250);
    flexample::AddFedAvgOptions(flags, o);
    flags.AddCheck([&]() {
        if (aps > 1 && (sceneKind != "wifi" || aps > o.clients))
        {
            throw fl::ConfigError("--aps",
                                  std::to_string(aps) + " access points with --scene=" + sceneKind +
                                      " and " + std::to_string(o.clients) + " clients",
                                  "use --aps > 1 with --scene=wifi and at most --clients");
        }
        if (o.clients > FlLteMaxClients() && sceneKind == "lte")
        {
            throw fl::ConfigError("--clients",
                                  std::to_string(o.clients) + " exceeds the " +
                                      std::to_string(FlLteMaxClients()) +
                                      " UEs one eNB serves here",
                                  "lower it");
        }
    });
    if (!flags.Parse(argc, argv))
    {
        return flexample::kExitBadFlag;
    }
    if (run == "fedavg")
    {
        return RunFedAvgScene(o, sceneKind, cqiPeriodMs, aps, energy);
    }
    if (stockBytes == 0)
    {
        std::shared_ptr<fl::LearningTask> task = flexample::BuildFedAvgTask(o);
        if (!task)
        {
            return 2;
        }
        stockBytes = 4 * task->NumParameters(); // the float32 model
    }
    return RunStockScene(sceneKind, o.clients, cqiPeriodMs, aps, stockBytes);
}
