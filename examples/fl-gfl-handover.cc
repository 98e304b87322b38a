/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * fl-gfl-handover: graph federated learning whose clients move between the servers' cells.
 *
 * P servers run privatized graph federated learning (E. Rizk, S. Vlaski, A. H. Sayed,
 * "Privatized Graph Federated Learning", EURASIP J. Adv. Signal Process. 2023, article 87,
 * eqs. (3), (6)-(8)) on a ridge regression: each samples L of its clients, averages their
 * noisy models and combines with its neighbours on a line graph (Metropolis weights) under
 * graph-homomorphic noise. The servers stand 80 m apart on a line, linked by point-to-point
 * links, each the access point of an 802.11a cell of K clients. The clients move by random
 * waypoint in the strip along the cells. The paper's clients belong to one server for good;
 * the cells are one extended service set (FlGraphSceneHelper::SetCellRoaming: a station
 * associates with the AP it hears) and the program compares two memberships:
 *   --membership=handover: a client joins the server whose AP its station associates with,
 *                          and each server samples L of the clients in its cell now;
 *   --membership=home:     a client stays with its first server (the paper's membership on
 *                          the move): it reaches that server only from its cell, and the
 *                          server keeps sampling it wherever it is.
 * Per iteration: the centroid's MSD, the disagreement, the uploads aggregated, the sampled
 * clients whose upload did not come, the handovers so far, against the clients' speed.
 *
 * Output: one tidy CSV row per (membership, speed, run, iteration);
 *   utils/plot-gfl-handover.sh fl-gfl-handover.csv -> fl-gfl-handover.png
 *
 *   fl-gfl-handover --help
 *   fl-gfl-handover --speeds=0,2,5 --membership=handover,home --iterations=100 --runs=3
 */

#include "fl-example-flags.h"
#include "fl-example-regression.h"

#include "ns3/core-module.h"
#include "ns3/fl-mobility-presets.h"
#include "ns3/fl-wifi-ess-scene.h"
#include "ns3/gfl-helper.h"
#include "ns3/gfl.h"
#include "ns3/graph.h"
#include "ns3/text-parse.h"

#include <chrono>
#include <fstream>
#include <iostream>
#include <map>

using namespace ns3;

int
main(int argc, char* argv[])
{
    uint32_t servers = 4;
    uint32_t perServer = 5;
    uint32_t sampled = 3;
    uint32_t iterations = 100;
    uint32_t runs = 1;
    uint32_t dim = 5;
    double mu = 0.3;
    double clientNoise = 0.01;
    double serverNoise = 0.05;
    double secondsPerSample = 0.005;
    double deadlineS = 1.0;
    std::string speeds = "0,1,2,5";
    std::string memberships = "handover,home";
    std::string transport = "udp";
    std::string output = "fl-gfl-handover.csv";

    flexample::Flags flags(__FILE__);
    flags.Cmd().Usage("Graph federated learning with clients moving between the servers' Wi-Fi "
                      "cells, handed over to the server whose cell they reach (handover) or "
                      "kept by their first server (home): MSD, uploads, dropped clients and "
                      "handovers against speed; plot with utils/plot-gfl-handover.sh.");
    flags.AddWhole("servers", "Number of servers P (on a line, 80 m apart)", servers, 2U, 50U);
    flags.AddWhole("clientsPerServer", "Clients per server K (the cell each starts in)", perServer, 1U, 100U);
    flags.AddWhole("sampled", "Clients each server samples per iteration L", sampled, 1U, 100U);
    flags.AddWhole("iterations", "GFL iterations per run", iterations, 1U, 100000U);
    flags.AddWhole("runs", "Runs per setting (seeds 1..runs: data, motion, sampling, noise)", runs, 1U, 1000U);
    flags.AddWhole("dim", "Dimension M of the regression", dim, 1U, 1000U);
    flags.AddReal("mu", "Step size mu", mu, flexample::Range{0.0, 10.0, true, false});
    flags.AddReal("clientNoise", "Laplace scale of the clients' noise on their models", clientNoise, flexample::Range::AtLeast(0.0));
    flags.AddReal("serverNoise", "Laplace scale of the servers' graph-homomorphic noise", serverNoise, flexample::Range::AtLeast(0.0));
    flags.AddReal("secondsPerSample", "Simulated compute time per training sample [s]", secondsPerSample, flexample::Range::AtLeast(0.0));
    flags.AddReal("deadline", "Round deadline [s] (a client may leave mid-round)", deadlineS, flexample::Range{0.0, 1000.0, true, false});
    flags.AddText("speeds", "Comma-separated speeds [m/s] of the clients (0: still, 10 m around their server)", speeds);
    flags.AddText("membership", "Comma-separated memberships: handover (a client joins the server whose cell it is in), home (it stays with its first server)", memberships);
    flags.AddChoice("transport", "Transport of every application: udp or tcp", transport, {"udp", "tcp"});
    flags.AddOutput("output", "CSV file", output, false);
    std::vector<double> speedList;
    std::vector<std::string> membershipList;
    flags.AddCheck([&]() {
        speedList = fl::ParseDoubleList(speeds, "--speeds", 0.0, 100.0);
        membershipList = fl::SplitList(memberships, "--membership");
        for (const auto& m : membershipList)
        {
            if (m != "handover" && m != "home")
            {
                throw fl::ConfigError("--membership", "\"" + m + "\"", "use handover or home");
            }
        }
        if (sampled > perServer)
        {
            throw fl::ConfigError("--sampled", std::to_string(sampled) + " > --clientsPerServer",
                                  "sample at most the clients of a cell");
        }
    });
    if (!flags.Parse(argc, argv))
    {
        return flexample::kExitBadFlag;
    }
    std::ofstream csv(output);
    if (!csv)
    {
        std::cerr << "fl-gfl-handover: cannot write " << output << " (fix: check --output)\n";
        return 2;
    }
    csv << "membership,speed_mps,run,iteration,time_s,msd_centroid_db,disagreement,uploads,"
           "dropped_clients,handovers,lost_messages\n";
    const double spacing = kFlRoamingApSpacing;
    std::cout << "fl-gfl-handover: P = " << servers << " servers " << spacing
              << " m apart on a line graph, K = " << perServer << " clients each, L = "
              << sampled << ", ridge regression M = " << dim << ", mu = " << mu << ", "
              << transport << ", clients by random waypoint in the strip along the cells\n";
    std::vector<fl::Edge> line;
    for (uint32_t p = 0; p + 1 < servers; ++p)
    {
        line.emplace_back(p, p + 1);
    }
    const Eigen::MatrixXd A = fl::MetropolisWeights(fl::Graph(servers, line));
    for (const std::string& kind : membershipList)
    {
        for (double speed : speedList)
        {
            for (uint32_t run = 1; run <= runs; ++run)
            {
                const auto wall = std::chrono::steady_clock::now();
                RngSeedManager::SetRun(run);
                const uint32_t n = servers * perServer;
                auto [task, wOpt] = flexample::MakeRidgeTask(n, 50, dim, 0.1, run);
                fl::GflConfig c;
                c.combination = A;
                c.clientsPerServer = perServer;
                c.sampledClients = sampled;
                c.mu = mu;
                c.work = fl::DrawGflLocalWork(n, 1, 10, 5, 10, fl::DeriveSeed(run, 3));
                c.iterations = iterations;
                c.seed = run;
                c.reference = wOpt;
                c.clientNoise = fl::NodeNoiseConfig{fl::NodeNoiseKind::IidPerLink,
                                                    fl::NoiseDistribution::Laplace,
                                                    clientNoise};
                c.serverNoise = fl::NodeNoiseConfig{fl::NodeNoiseKind::GraphHomomorphic,
                                                    fl::NoiseDistribution::Laplace,
                                                    serverNoise};
                // doc:handover:begin
                FlGraphSceneHelper sceneHelper;
                sceneHelper.SetCell("wifi");
                sceneHelper.SetCellRoaming(true);
                if (speed > 0.0)
                {
                    FlClientMobilityHelper moving; // the strip along the line of cells
                    moving.SetRandomWaypoint(
                        Box(-20, spacing * (servers - 1) + 20, -20, 20, 0, 0),
                        speed,
                        speed,
                        Seconds(0));
                    sceneHelper.SetClientMobility(moving);
                }
                FlGraphScene scene = sceneHelper.Build(c.combination, perServer);
                FlGflHelper gfl(task, c);
                gfl.SetTransport(transport);
                gfl.SetSecondsPerSample(secondsPerSample);
                gfl.SetRoundDeadline(Seconds(deadlineS));
                gfl.SetExchangeTimeout(Seconds(deadlineS));
                gfl.SetHandover(kind == "handover");
                // doc:handover:end
                FlAssignGraphSceneStreams(scene, 4000);
                std::map<uint32_t, uint32_t> uploads; // per iteration, over the servers
                gfl.SetIterationCallback([&](const fl::NetworkIterationReport& r) {
                    uint64_t handovers = 0;
                    if (scene.membership)
                    {
                        for (uint32_t a : scene.membership->associations)
                        {
                            handovers += a > 1 ? a - 1 : 0;
                        }
                    }
                    csv << kind << ',' << speed << ',' << run << ',' << r.iteration << ','
                        << Simulator::Now().GetSeconds() << ','
                        << 10.0 * std::log10(r.centroidMsd) << ',' << r.disagreement << ','
                        << uploads[r.iteration] << ',' << r.droppedClients << ',' << handovers
                        << ',' << r.lostMessages << '\n';
                });
                gfl.Install(scene);
                for (const auto& step : gfl.Steps())
                {
                    step->SetIterationCallback(
                        [&uploads](const GflIterationReport& r) { uploads[r.iteration] += r.uploads; });
                }
                Simulator::Stop(Seconds(3600));
                Simulator::Run();
                const uint32_t done = gfl.Tracker()->CompletedIterations();
                uint32_t changes = 0;
                for (const auto& client : gfl.Clients())
                {
                    changes += client->GetServerChanges();
                }
                std::cout << "  " << kind << " membership, speed " << speed << " m/s, run " << run
                          << ": " << done << " iterations in " << Simulator::Now().GetSeconds()
                          << " s, " << changes << " server changes, "
                          << Simulator::GetEventCount() << " events, "
                          << std::chrono::duration<double>(std::chrono::steady_clock::now() - wall)
                                 .count()
                          << " s" << std::endl;
                Simulator::Destroy();
                if (done < iterations)
                {
                    std::cerr << "fl-gfl-handover: the run stopped after " << done
                              << " iterations\n";
                    return 1;
                }
            }
        }
    }
    std::cout << "results: " << output << std::endl;
    return 0;
}
