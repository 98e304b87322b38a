/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * fl-ghp-moving: private diffusion learning between agents that move, over 802.11 ad hoc.
 *
 * K agents run perturbed adapt-then-combine diffusion with graph-homomorphic perturbations
 * (S. Vlaski, A. H. Sayed, "Graph-Homomorphic Perturbations for Private Decentralized
 * Learning", ICASSP 2021, eqs. (14)-(16) and (20)) on a ridge regression, over one 802.11n ad
 * hoc network. Agent 0 stands at the centre of a square; the others move in it by random
 * waypoint at a constant speed. Nobody is given the graph: every agent learns its neighbours
 * from hellos (sender, degree, the nodes it hears) and, before each release, forms its own
 * column of Metropolis weights from its neighbours' announced degrees and draws its
 * graph-homomorphic noise for that self weight. The paper assumes a fixed graph whose weights
 * every agent knows; what that costs on the move is what the program measures: per iteration,
 * how far the weights actually given are from doubly stochastic (the noise left in the
 * network's average), the centroid's drift, the disagreement, the centroid's MSD and the
 * epsilon against a neighbouring agent on the graph as it was. --fixedGraph=R instead gives
 * every agent the Metropolis weights of the graph of the agents within R metres at the start,
 * as the paper does, and sends no hellos.
 *
 * Output: one tidy CSV row per (speed, hello interval, run, iteration);
 *   utils/plot-ghp-moving.sh fl-ghp-moving.csv -> fl-ghp-moving.png
 *
 *   fl-ghp-moving --help
 *   fl-ghp-moving --speeds=0,5,20 --helloIntervals=0.25,1 --iterations=100
 */

#include "fl-example-flags.h"
#include "fl-example-regression.h"

#include "ns3/core-module.h"
#include "ns3/mobility-module.h"
#include "ns3/fl-mobility-presets.h"
#include "ns3/fl-wifi-adhoc-scene.h"
#include "ns3/gfl-helper.h"
#include "ns3/graph.h"
#include "ns3/text-parse.h"

#include <chrono>
#include <fstream>
#include <iostream>

using namespace ns3;
using ns3::fl::Edge;
using ns3::fl::Graph;

int
main(int argc, char* argv[])
{
    uint32_t agents = 20;
    uint32_t iterations = 100;
    uint32_t runs = 1;
    uint32_t dim = 5;
    double side = 200.0;
    double mu = 0.05;
    double clip = 1.0;
    double b = 1.0;
    double periodS = 0.1;
    double timeoutIntervals = 3.0;
    double range = 0.0;
    std::string speeds = "0,2,5,10,20";
    std::string helloIntervals = "0.5";
    std::string noise = "graph-homomorphic";
    std::string output = "fl-ghp-moving.csv";

    flexample::Flags flags(__FILE__);
    flags.Cmd().Usage("Graph-homomorphic diffusion between agents moving over 802.11 ad hoc, "
                      "each learning its neighbours and weights from hellos: stochasticity "
                      "error, drift, disagreement, MSD and epsilon against speed and hello "
                      "interval; plot with utils/plot-ghp-moving.sh.");
    flags.AddWhole("agents", "Number of agents K (agent 0 stands still at the centre)", agents, 2U, 200U);
    flags.AddWhole("iterations", "Diffusion iterations per run", iterations, 1U, 100000U);
    flags.AddWhole("runs", "Runs per setting (seeds 1..runs: data, placement, noise)", runs, 1U, 1000U);
    flags.AddWhole("dim", "Dimension M of the regression", dim, 1U, 1000U);
    flags.AddReal("side", "Side of the square the agents move in [m]", side, flexample::Range::AtLeast(1.0));
    flags.AddReal("mu", "Step size mu", mu, flexample::Range{0.0, 10.0, true, false});
    flags.AddReal("clip", "Gradient clipping norm G (the epsilon's bound)", clip, flexample::Range{0.0, 1e6, true, false});
    flags.AddReal("b", "Laplace scale b of the graph-homomorphic (or i.i.d.) noise", b, flexample::Range{0.0, 1e6, true, false});
    flags.AddReal("period", "Iteration period [s] (releases jittered over its first half)", periodS, flexample::Range{0.0, 100.0, true, false});
    flags.AddReal("timeoutIntervals", "Hello timeout in hello intervals (> 1.1)", timeoutIntervals, flexample::Range{1.1, 100.0, true, false});
    flags.AddReal("fixedGraph", "0: learn the graph from hellos; > 0: no hellos, combine over the Metropolis matrix of the agents within this range [m] at the start (the papers' fixed graph)", range, flexample::Range::AtLeast(0.0));
    flags.AddText("speeds", "Comma-separated speeds [m/s] of the moving agents (0: still, placed at random)", speeds);
    flags.AddText("helloIntervals", "Comma-separated hello intervals [s]", helloIntervals);
    flags.AddChoice("noise", "Noise: graph-homomorphic, iid-broadcast or none", noise, {"graph-homomorphic", "iid-broadcast", "none"});
    flags.AddOutput("output", "CSV file", output, false);
    std::vector<double> speedList;
    std::vector<double> helloList;
    flags.AddCheck([&]() {
        speedList = fl::ParseDoubleList(speeds, "--speeds", 0.0, 1000.0);
        helloList = fl::ParseDoubleList(helloIntervals, "--helloIntervals", 1e-3, 100.0);
    });
    if (!flags.Parse(argc, argv))
    {
        return flexample::kExitBadFlag;
    }
    std::ofstream csv(output);
    if (!csv)
    {
        std::cerr << "fl-ghp-moving: cannot write " << output << " (fix: check --output)\n";
        return 2;
    }
    if (range > 0.0)
    {
        helloList = {0.0};
    }
    csv << "speed_mps,hello_interval_s,run,iteration,time_s,mean_degree,stochasticity_error,"
           "centroid_drift,disagreement,msd_centroid,lost_messages,epsilon_neighbour\n";
    std::cout << "fl-ghp-moving: K = " << agents << " agents in a " << side << " m square, ridge "
              << "regression M = " << dim << ", mu = " << mu << ", G = " << clip << ", " << noise
              << " Laplace noise b = " << b << ", one iteration every " << periodS << " s\n";
    for (double speed : speedList)
    {
        for (double hello : helloList)
        {
            for (uint32_t run = 1; run <= runs; ++run)
            {
                const auto wall = std::chrono::steady_clock::now();
                RngSeedManager::SetRun(run);
                auto [task, wOpt] = flexample::MakeRidgeTask(agents, 50, dim, 0.1, run);
                fl::DiffusionConfig c;
                c.mu = mu;
                c.batchSize = 1;
                c.clipNorm = clip;
                c.iterations = iterations;
                c.seed = run;
                c.reference = wOpt;
                c.noise = fl::NodeNoiseConfig{fl::ParseNodeNoiseKind(noise, "--noise"),
                                              fl::NoiseDistribution::Laplace,
                                              b};
                // agent 0 at the centre, the others random waypoint in the square, or still at
                // uniform positions in it
                FlWifiAdhocSceneHelper adhoc;
                if (speed > 0.0)
                {
                    FlClientMobilityHelper moving;
                    moving.SetRandomWaypoint(Box(-side / 2, side / 2, -side / 2, side / 2, 0, 0),
                                             speed,
                                             speed,
                                             Seconds(0));
                    adhoc.SetClientMobility(moving);
                }
                else
                {
                    Ptr<RandomRectanglePositionAllocator> still =
                        CreateObject<RandomRectanglePositionAllocator>();
                    const std::string range = "ns3::UniformRandomVariable[Min=" +
                                              std::to_string(-side / 2) +
                                              "|Max=" + std::to_string(side / 2) + "]";
                    still->SetAttribute("X", StringValue(range));
                    still->SetAttribute("Y", StringValue(range));
                    still->AssignStreams(5000);
                    adhoc.SetPositionAllocator(still);
                }
                FlScene scene = adhoc.Build(agents - 1);
                FlWifiSceneHelperBase::AssignStreams(scene, 4000);
                NodeContainer nodes(scene.serverNode);
                nodes.Add(scene.clients);
                std::vector<Ipv4Address> addresses{scene.serverAddress};
                for (uint32_t k = 0; k + 1 < agents; ++k)
                {
                    addresses.push_back(scene.clientInterfaces.GetAddress(k));
                }
                if (range > 0.0)
                {
                    // the graph of the start, fixed: agents within `range` of each other
                    std::vector<Edge> edges;
                    for (uint32_t k = 0; k < agents; ++k)
                    {
                        for (uint32_t l = k + 1; l < agents; ++l)
                        {
                            if (nodes.Get(k)->GetObject<MobilityModel>()->GetDistanceFrom(
                                    nodes.Get(l)->GetObject<MobilityModel>()) <= range)
                            {
                                edges.emplace_back(k, l);
                            }
                        }
                    }
                    const Graph g(agents, edges);
                    if (!g.IsConnected())
                    {
                        std::cerr << "fl-ghp-moving: invalid --fixedGraph: the agents within "
                                  << range << " m of each other do not form a connected graph "
                                  << "in run " << run << " (fix: a larger range)\n";
                        return 2;
                    }
                    c.combination = fl::MetropolisWeights(g);
                }
                // doc:live:begin
                DiffusionHelper diffusion(task, c); // c.combination empty: learned from hellos
                diffusion.SetTransport("broadcast");
                diffusion.SetIterationPeriod(Seconds(periodS));
                diffusion.SetReleaseJitter(Seconds(periodS / 2));
                diffusion.SetExchangeTimeout(Seconds(periodS * 0.4));
                diffusion.AssignStreams(3000);
                if (range == 0.0)
                {
                    diffusion.SetNeighbourDiscovery(Seconds(hello),
                                                    Seconds(hello * timeoutIntervals));
                }
                // doc:live:end
                diffusion.SetIterationCallback([&](const fl::NetworkIterationReport& r) {
                    double degree = 0.0;
                    for (uint32_t k = 0; k < agents; ++k)
                    {
                        degree += range > 0.0
                                      ? static_cast<double>((c.combination.col(k).array() > 0).count() - 1)
                                      : static_cast<double>(diffusion.Hellos()[k]->GetNeighbours().size());
                    }
                    csv << speed << ',' << hello << ',' << run << ',' << r.iteration << ','
                        << Simulator::Now().GetSeconds() << ',' << degree / agents << ','
                        << r.stochasticityError << ',' << r.centroidDrift << ','
                        << r.disagreement << ',' << r.centroidMsd << ',' << r.lostMessages << ','
                        << r.epsilonNeighbour << '\n';
                });
                diffusion.Install(nodes, addresses);
                Simulator::Stop(Seconds(3600));
                Simulator::Run();
                const uint32_t done = diffusion.Tracker()->CompletedIterations();
                const auto& result = diffusion.Tracker()->NetworkResult();
                std::cout << "  speed " << speed << " m/s, hello " << hello << " s, run " << run
                          << ": " << done << " iterations, " << result.lostMessages
                          << " messages lost, epsilon (neighbour) " << result.epsilonNeighbour
                          << ", " << Simulator::GetEventCount() << " events, "
                          << std::chrono::duration<double>(std::chrono::steady_clock::now() - wall)
                                 .count()
                          << " s" << std::endl;
                Simulator::Destroy();
                if (done < iterations)
                {
                    std::cerr << "fl-ghp-moving: the run stopped after " << done
                              << " iterations\n";
                    return 1;
                }
            }
        }
    }
    std::cout << "results: " << output << std::endl;
    return 0;
}
