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
 *   fl-scale-run --run=fedavg --scene=wifi --aps=100 --clients=1000 --rounds=10
 *   fl-scale-run --run=fedavg --scene=csma --switched --clients=1000 --rounds=10
 */

#include "../fl-example-common.h"
#include "../fl-example-flags.h"

#include "ns3/fl-energy-helper.h"
#include "ns3/fl-network-scenarios.h"
#include "ns3/fl-stock-baseline.h"

#include <chrono>
#include <iostream>
#include <string>

using namespace ns3;

namespace
{

/// The scene's flags.
struct SceneOptions
{
    std::string kind{"wifi"};  ///< wifi, csma or lte
    uint32_t cqiPeriodMs{0};   ///< LTE: the UEs' CQI period (0: the scene's)
    uint32_t aps{1};           ///< Wi-Fi: one BSS, or an ESS of aps > 1 access points
    bool switched{false};      ///< CSMA: a switched LAN instead of one shared segment
    uint32_t switchQueue{100}; ///< CSMA switched: each port's queue [packets]

    /// "wifi (ESS of 10 APs)", "csma (switched)", ...
    std::string Describe() const
    {
        return kind + (aps > 1 ? " (ESS of " + std::to_string(aps) + " APs)" : "") +
               (switched ? " (switched)" : "");
    }
};

/// Builds the scene with N clients.
FlScene
BuildScene(const SceneOptions& sc, uint32_t n)
{
    if (sc.kind == "wifi" && sc.aps > 1)
    {
        FlWifiEssSceneHelper ess;
        ess.SetAccessPoints(sc.aps);
        return ess.Build(n);
    }
    if (sc.kind == "wifi")
    {
        FlWifiScenarioHelper wifi;
        return wifi.Build(n);
    }
    if (sc.kind == "csma")
    {
        FlCsmaSceneHelper csma;
        csma.SetSwitched(sc.switched);
        csma.SetSwitchPortQueueSize(QueueSize(QueueSizeUnit::PACKETS, sc.switchQueue));
        return csma.Build(n);
    }
    FlLteSceneHelper lte;
    if (sc.cqiPeriodMs > 0)
    {
        lte.SetCqiPeriodicity(MilliSeconds(sc.cqiPeriodMs));
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
RunFedAvgScene(flexample::FedAvgOptions o, const SceneOptions& sc, bool energy)
{
    const auto wallStart = std::chrono::steady_clock::now();
    std::shared_ptr<fl::LearningTask> task = flexample::BuildFedAvgTask(o);
    if (!task)
    {
        return 2;
    }
    std::cout << "fl-scale-run: FedAvg, " << sc.Describe() << ", " << o.clients << " clients, "
              << o.rounds << " rounds, " << o.transport << "; " << task->Describe() << std::endl;
    FlScene scene = BuildScene(sc, o.clients);
    Ptr<FlRadioEnergyMeter> meter;
    if (energy && sc.kind == "wifi")
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
        [&scene, &sc](int64_t s) { return AssignSceneStreams(sc.kind, scene, s); },
        wallStart,
        meter ? std::function<double(uint32_t)>(
                    [meter](uint32_t client) { return meter->GetRadioEnergy(client); })
              : std::function<double(uint32_t)>());
}

/// Stock ns-3 on the same scene: one exchange with ns-3's own applications (FlRunStockExchange).
int
RunStockScene(const SceneOptions& sc, uint32_t n, uint64_t bytes)
{
    const auto wallStart = std::chrono::steady_clock::now();
    FlScene scene = BuildScene(sc, n);
    AssignSceneStreams(sc.kind, scene, 100);
    const FlStockExchangeResult r = FlRunStockExchange(scene, bytes);
    Simulator::Destroy();
    std::cout << "stock ns-3: " << sc.Describe() << ", " << n << " clients, " << bytes
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
    SceneOptions sc;
    bool energy = true;
    uint64_t stockBytes = 0;
    flexample::FedAvgOptions o;
    o.quiet = true;
    o.output = "fl-scale-run.csv";

    flexample::Flags flags(__FILE__);
    flags.Cmd().Usage(
        "One case of fl-scale-benchmark's memory part: --run=fedavg runs FedAvg on the --scene "
        "(every FedAvg flag applies); --run=stock runs one exchange of the model's bytes with "
        "stock ns-3 applications (BulkSend, PacketSink) on the same scene, the baseline.");
    flags.AddChoice("run", "fedavg or stock", run, {"fedavg", "stock"});
    flags.AddChoice("scene", "wifi, csma or lte", sc.kind, {"wifi", "csma", "lte"});
    flags.AddBool("energy", "--run=fedavg --scene=wifi: measure radio energy", energy);
    flags.AddWhole<uint64_t>("stockBytes",
                             "--run=stock: bytes each way per client (0 = the FedAvg model's "
                             "float32 parameters)",
                             stockBytes);
    flags.AddWhole<uint32_t>("cqiPeriod",
                             "--scene=lte: period of the UEs' downlink CQI reports [ms], 1 to 160 "
                             "(1: ns-3's own); 0: the scene's, 40 ms in its static cell, where "
                             "every period gives the same run",
                             sc.cqiPeriodMs,
                             0,
                             160);
    flags.AddWhole<uint32_t>("aps",
                             "--scene=wifi: access points; 1 is one BSS with the server on its "
                             "AP, A > 1 an ESS of A BSSs wired to the server (client i on AP "
                             "i mod A), at most --clients",
                             sc.aps,
                             1,
                             250);
    flags.AddBool("switched",
                  "--scene=csma: a switched LAN (every host on its own segment to one Ethernet "
                  "switch) instead of one shared segment",
                  sc.switched);
    flags.AddWhole<uint32_t>("switchQueue",
                             "--switched: each switch port's output queue [packets] (many "
                             "clients sending to the server at once overflow its port: TCP "
                             "incast)",
                             sc.switchQueue,
                             1,
                             1000000);
    flexample::AddFedAvgOptions(flags, o);
    flags.AddCheck([&]() {
        if (sc.aps > 1 && (sc.kind != "wifi" || sc.aps > o.clients))
        {
            throw fl::ConfigError("--aps",
                                  std::to_string(sc.aps) + " access points with --scene=" +
                                      sc.kind + " and " + std::to_string(o.clients) + " clients",
                                  "use --aps > 1 with --scene=wifi and at most --clients");
        }
        if (sc.switched && sc.kind != "csma")
        {
            throw fl::ConfigError("--switched",
                                  "a switched LAN with --scene=" + sc.kind,
                                  "use --switched with --scene=csma");
        }
        if (o.clients > FlLteMaxClients() && sc.kind == "lte")
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
        return RunFedAvgScene(o, sc, energy);
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
    return RunStockScene(sc, o.clients, stockBytes);
}
