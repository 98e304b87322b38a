/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * fl-fedavg-wifi: synchronous FedAvg over an 802.11 infrastructure network.
 *
 * One server on the access point's node, N Wi-Fi stations as clients; or, with --aps=A > 1, an
 * extended service set of A BSSs (each on its own channel) wired to the server's node. Every round
 * the server sends the global model (real parameter bytes over TCP) to the clients, each client
 * trains on its own data (Eigen, in-process) for the simulated compute time, sends its model back,
 * and the server averages them weighted by sample counts. The learning monitor evaluates each
 * global model on held-out data and writes one CSV row per round.
 *
 *   fl-fedavg-wifi                                # synthetic 10-class Gaussian mixture
 *   fl-fedavg-wifi --dataset=fashion-mnist --rounds=20   # Debian's dataset-fashion-mnist
 *   fl-fedavg-wifi --secure=secagg                # secure aggregation over the same links
 *   fl-fedavg-wifi --network=flow                 # flow-level network model: no packets
 *   fl-fedavg-wifi --clients=1000 --aps=10        # ten BSSs of 100 stations (an ESS)
 *   fl-fedavg-wifi --aps=2 --roaming --mobility=random-waypoint:side=160,min=1.5,max=1.5
 *                                                 # stations walking between two APs
 *   fl-fedavg-wifi --help
 */

#include "fl-example-common.h"

#include "ns3/fl-energy-helper.h"
#include "ns3/fl-network-scenarios.h"

using namespace ns3;

NS_LOG_COMPONENT_DEFINE("FlFedAvgWifi");

int
main(int argc, char* argv[])
{
    flexample::FedAvgOptions o;
    o.output = "fl-fedavg-wifi.csv";
    std::string standard = "80211n";
    std::string rateManager = "ns3::IdealWifiManager";
    double radius = 10.0;
    bool energy = true;
    std::string network = "packet";
    std::string mobility = "fixed";
    uint32_t aps = 1;
    bool roaming = false;
    double apSpacing = -1.0; // the scene's default

    flexample::Flags flags(__FILE__);
    flags.Cmd().Usage(
        "FedAvg over an 802.11 infrastructure network: one server on the access point, "
        "N Wi-Fi stations as clients. Writes one CSV row per round; plot it with "
        "utils/plot-learning-curve.sh. Use --RngRun=N for independent replications.");
    flexample::AddFedAvgOptions(flags, o);
    flexample::AddSecureOptions(flags, o);
    flexample::AddWifiOptions(flags, standard, rateManager);
    flexample::AddNetworkOption(flags, network, o);
    flags.AddReal("radius",
                  "Radius of the disc of stations around the AP [m]",
                  radius,
                  flexample::Range::AtLeast(0.0));
    flags.AddWhole<uint32_t>("aps",
                             "Access points: 1, one BSS with the server on its AP; A > 1, an "
                             "ESS of A BSSs, each on a channel of its own and wired to the "
                             "server's node (1 Gb/s, 100 us), client i a station of AP i mod A; "
                             "at most --clients, packet level only",
                             aps,
                             1,
                             250);
    flags.AddBool("roaming",
                  "With --aps > 1: one ESS in which stations roam and keep their address (one "
                  "SSID and channel, APs bridged to the server's LAN, an AP lost after 10 missed "
                  "beacons, Minstrel-HT unless --rateManager is given, the APs 80 m apart "
                  "around the origin unless --apSpacing is given); the CSVs' handovers columns "
                  "count the re-associations",
                  roaming);
    flags.AddReal("apSpacing",
                  "With --aps > 1: distance between neighbouring APs [m] (-1: the scene's, "
                  "1000, with --roaming 80)",
                  apSpacing,
                  flexample::Range::AtLeast(0.0));
    flags.AddCheck([&]() {
        if ((roaming || flags.Given("apSpacing")) && aps < 2)
        {
            throw fl::ConfigError(roaming ? "--roaming" : "--apSpacing",
                                  "needs an ESS and --aps is 1",
                                  "give --aps=2 or more (at most --clients)");
        }
        if (aps > o.clients)
        {
            throw fl::ConfigError("--aps",
                                  std::to_string(aps) + " access points for " +
                                      std::to_string(o.clients) + " clients",
                                  "use at most --clients access points");
        }
        if (aps > 1 && network == "flow")
        {
            throw fl::ConfigError("--aps",
                                  std::to_string(aps) + " with --network=flow",
                                  "the flow-level model has one BSS: use --aps=1 or "
                                  "--network=packet");
        }
    });
    flexample::AddMobilityOption(flags, mobility, network);
    flags.AddBool("energy",
                  "Measure each station's radio energy (the PHY state time integrated with "
                  "ns-3's Wi-Fi radio energy model's currents)",
                  energy);
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
        where << "within " << radius << " m of the AP";
    }
    else
    {
        where << "moving (" << mobility << ") around the AP";
    }
    std::cout << "fl-fedavg-wifi: " << task->Describe() << "\n"
              << "  network: " << standard << " infrastructure, " << o.clients << " stations "
              << where.str()
              << (aps > 1 ? "s of an ESS of " + std::to_string(aps) +
                                (roaming ? " APs, roaming" : " BSSs")
                          : "")
              << "; " << o.transport << "; " << o.wirePrecision << " on the wire; " << network
              << " level" << std::endl;

    auto configure = [&](FlWifiSceneHelperBase& wifi) {
        wifi.SetStandard(standard);
        wifi.SetRadius(radius);
        if (!roaming || flags.Given("rateManager"))
        {
            wifi.SetRateManager(rateManager); // roaming: Minstrel-HT unless given
        }
        wifi.SetFidelity(ParseFlFidelity(network, "--network"));
        wifi.SetClientMobility(ParseFlClientMobility(mobility, "--mobility"));
    };
    FlScene scene;
    if (aps == 1)
    {
        FlWifiScenarioHelper wifi;
        configure(wifi);
        scene = wifi.Build(o.clients);
    }
    else
    {
        FlWifiEssSceneHelper ess;
        configure(ess);
        ess.SetAccessPoints(aps);
        ess.SetRoaming(roaming);
        if (apSpacing >= 0.0)
        {
            ess.SetApSpacing(apSpacing);
        }
        scene = ess.Build(o.clients);
    }
    FlPrintFlowWarnings("fl-fedavg-wifi", scene);
    // Radio energy of every station (FlRadioEnergyMeter; CSV column energy_radio_j); a
    // flow-level scene has no radios (the column is then empty).
    Ptr<FlRadioEnergyMeter> meter;
    if (energy && !scene.flowNetwork)
    {
        meter = Create<FlRadioEnergyMeter>();
        meter->InstallWifi(scene);
    }

    return flexample::RunFedAvg(
        "fl-fedavg-wifi",
        o,
        task,
        scene.serverNode,
        scene.clients,
        scene.serverAddress,
        [&scene](int64_t stream) { return FlWifiScenarioHelper::AssignStreams(scene, stream); },
        wallStart,
        meter ? std::function<double(uint32_t)>(
                    [meter](uint32_t client) { return meter->GetRadioEnergy(client); })
              : std::function<double(uint32_t)>());
}
