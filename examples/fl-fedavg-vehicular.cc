/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * fl-fedavg-vehicular: synchronous FedAvg with cars as clients, over 802.11p roadside units.
 *
 * R roadside units (RSUs) stand along a 2 km road, each wired to the server; the clients are
 * cars that upload through the nearest RSU (802.11p OCB, ns-3's wave module: ns-3.35 to 3.38),
 * over 3GPP TR 37.885's highway (or urban) V2V path loss. By default the cars drive as the
 * module's SUMO trace says (data/sumo/highway-2km.ns2: 44 cars over 300 s, made by
 * utils/make-sumo-trace.sh); a car not on the road is parked far away, so that a round counts
 * its upload lost at the deadline. --speed=V > 0 drives the clients instead along the road at
 * V m/s, one every --spacing metres. The round CSV carries per round the lost uploads (lost,
 * given_up, disconnected); --clientOutput adds per client and round the distance to its RSU and
 * the SNR when its upload left (upload_distance_m, upload_snr_db, lost). Rounds are --roundGap
 * (5 s) apart, so that 30 rounds span the trace's traffic.
 *
 *   fl-fedavg-vehicular                          # 44 cars of the SUMO trace, 4 RSUs, 30 rounds
 *   fl-fedavg-vehicular --rsus=2 --clientOutput=clients.csv
 *   fl-fedavg-vehicular --speed=30 --clients=10  # ten cars at 30 m/s, 10 m apart
 *   fl-fedavg-vehicular --help
 */

#include "fl-example-common.h"

#include "ns3/fl-network-scenarios.h"

using namespace ns3;

NS_LOG_COMPONENT_DEFINE("FlFedAvgVehicular");

// The build's data folder (every example gets FL_EGA_DATA_DIR), else data/ of the working folder.
#ifdef FL_EGA_DATA_DIR
#define FL_VEHICULAR_TRACE FL_EGA_DATA_DIR "/sumo/highway-2km.ns2"
#else
#define FL_VEHICULAR_TRACE "data/sumo/highway-2km.ns2"
#endif

int
main(int argc, char* argv[])
{
    flexample::FedAvgOptions o;
    o.output = "fl-fedavg-vehicular.csv";
    o.clients = 44;    // the cars of the SUMO trace
    o.rounds = 30;     // 30 rounds about 10 s apart: they span the trace's traffic
    o.deadline = 5.0;  // a car that leaves the road is lost, not waited for
    o.maxTime = 300.0; // the trace's length
    double roundGap = 5.0;
    std::string trace = FL_VEHICULAR_TRACE;
    uint32_t rsus = 4;
    double speed = 0.0;
    double spacing = 10.0;
    std::string environment = "highway";
    std::string mode = "OfdmRate6MbpsBW10MHz";
    double txPower = 23.0;

    flexample::Flags flags(__FILE__);
    flags.Cmd().Usage(
        "FedAvg with cars as clients: roadside units along a 2 km road wired to the server, "
        "802.11p (ns-3's wave module, ns-3.35 to 3.38) with 3GPP V2V path loss, cars driving "
        "as a SUMO trace says (a car off the road is parked out of reach: its upload is lost "
        "at the round deadline). Writes one CSV row per round with the lost uploads; "
        "--clientOutput adds each client's distance to its RSU and SNR at upload.");
    flexample::AddFedAvgOptions(flags, o);
    flags.AddWhole<uint32_t>("rsus",
                             "Roadside units, evenly along the road from x = 0 to 2000 m "
                             "(RSU r at x = (r + 1/2) 2000 / R)",
                             rsus,
                             1,
                             250);
    flags.AddText("trace",
                  "ns-2 movement trace of the cars (client i is $node_(i); a car is on the road "
                  "from its first line to its last destination, parked out of reach otherwise); "
                  "used unless --speed > 0",
                  trace);
    flags.AddReal("speed",
                  "0: the cars follow --trace; V > 0: they drive along +x at V m/s from x = 0, "
                  "one every --spacing metres behind the other, and on past the road's end "
                  "at 2000 m, out of reach of the RSUs [m/s]",
                  speed,
                  flexample::Range::Closed(0.0, 100.0));
    flags.AddReal("spacing",
                  "--speed > 0: distance between consecutive cars [m]",
                  spacing,
                  flexample::Range::Closed(0.0, 1000.0));
    flags.AddReal(
        "roundGap",
        "Idle time between the end of a round and the start of the next [s] (the "
        "server's RoundGap; 5 s: with the 5 s deadline, 30 rounds span the trace's 300 s)",
        roundGap,
        flexample::Range::Closed(0.0, 3600.0));
    flags.AddText("environment",
                  "3GPP TR 37.885 V2V scenario of the path loss and channel condition: highway "
                  "or urban",
                  environment);
    flags.AddText("mode",
                  "802.11p data rate (a 10 MHz OFDM WifiMode, e.g. OfdmRate6MbpsBW10MHz, "
                  "OfdmRate12MbpsBW10MHz)",
                  mode);
    flags.AddReal("txPower",
                  "Transmit power of RSUs and cars [dBm]",
                  txPower,
                  flexample::Range::Closed(-10.0, 33.0));
    flags.AddCheck([&]() {
        // the scene's own checks, with the flags' names
        FlVehicularSceneHelper probe;
        try
        {
            probe.SetEnvironment(environment);
        }
        catch (const fl::ConfigError&)
        {
            throw fl::ConfigError("--environment", "'" + environment + "'", "use highway or urban");
        }
        try
        {
            probe.SetDataMode(mode);
        }
        catch (const fl::ConfigError&)
        {
            throw fl::ConfigError("--mode",
                                  "'" + mode + "'",
                                  "use a 10 MHz OFDM mode, e.g. "
                                  "OfdmRate6MbpsBW10MHz");
        }
        if (speed == 0.0)
        {
            std::vector<FlTraceSpan> spans;
            try
            {
                spans = FlReadNs2TraceSpans(trace);
            }
            catch (const fl::ConfigError&)
            {
                throw fl::ConfigError("--trace",
                                      "'" + trace + "' is no readable ns-2 movement trace",
                                      "give an ns-2 movement file (utils/make-sumo-trace.sh "
                                      "makes the module's), or --speed > 0");
            }
            if (o.clients > spans.size())
            {
                throw fl::ConfigError("--clients",
                                      std::to_string(o.clients) + " clients for the " +
                                          std::to_string(spans.size()) + " cars of '" + trace + "'",
                                      "use at most " + std::to_string(spans.size()) +
                                          " clients, another --trace, or --speed > 0");
            }
        }
    });
    if (!flags.Parse(argc, argv))
    {
        return flexample::kExitBadFlag;
    }
    if (!FlVehicularSceneAvailable())
    {
        try
        {
            FlRequireVehicularScene(false);
        }
        catch (const fl::ConfigError& e)
        {
            std::cerr << "fl-fedavg-vehicular: " << e.what() << std::endl;
        }
        return flexample::kExitBadFlag;
    }

    const auto wallStart = std::chrono::steady_clock::now();
    std::shared_ptr<fl::LearningTask> task = flexample::BuildFedAvgTask(o);
    if (!task)
    {
        return 2;
    }
    FlClientMobilityHelper cars;
    std::ostringstream how;
    if (speed > 0.0)
    {
        cars.SetRoad(Vector(0, 0, 0), Vector(1, 0, 0), spacing, speed);
        how << o.clients << " cars along +x at " << speed << " m/s, " << spacing << " m apart";
    }
    else
    {
        // Each car's client starts when the car enters the road (a parked car cannot reach an
        // RSU, so it could not join); round 1 starts when the first car has joined.
        cars.SetNs2Trace(trace);
        const std::vector<FlTraceSpan> spans = FlReadNs2TraceSpans(trace);
        for (uint32_t i = 0; i < o.clients && i < spans.size(); ++i)
        {
            o.clientStartS.push_back(std::max(o.clientStart, spans[i].enterS));
        }
        o.expectedClients = 1;
        how << o.clients << " cars of the trace " << trace
            << " (each client starts as its car enters the road)";
    }
    std::cout << "fl-fedavg-vehicular: " << task->Describe() << "\n"
              << "  network: 802.11p (" << mode << ", " << txPower << " dBm), " << rsus
              << " RSUs on a 2 km road, 3GPP V2V " << environment << "; " << how.str() << "; "
              << o.transport << ", round deadline " << o.deadline << " s, " << roundGap
              << " s between rounds" << std::endl;

    Config::SetDefault("ns3::FlServerApplication::RoundGap", TimeValue(Seconds(roundGap)));
    FlVehicularSceneHelper road;
    road.SetRoadsideUnits(rsus);
    road.SetEnvironment(environment);
    road.SetDataMode(mode);
    road.SetTxPower(txPower);
    road.SetClientMobility(cars);
    FlScene scene = road.Build(o.clients);

    // the RSU changes (handovers between RSUs) of the cars' routes, said after the run
    const Ptr<FlVehicularRoutes> routes = scene.serverNode->GetObject<FlVehicularRoutes>();
    const int status = flexample::RunFedAvg(
        "fl-fedavg-vehicular",
        o,
        task,
        scene.serverNode,
        scene.clients,
        scene.serverAddress,
        [&scene](int64_t stream) { return FlVehicularSceneHelper::AssignStreams(scene, stream); },
        wallStart);
    uint32_t changes = 0;
    for (uint32_t i = 0; i < o.clients; ++i)
    {
        changes += routes->GetRsuChanges(i);
    }
    std::cout << "fl-fedavg-vehicular: " << changes << " RSU changes of the cars' routes"
              << std::endl;
    return status;
}
