/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The program fl-gfl and fl-ghp share (examples/benchmarks/fl-gfl.cc and fl-ghp.cc: one
 * source, no duplicated flags or metrics); what it does is described at the top of
 * examples/benchmarks/fl-gfl.cc.
 */
#include "fl-gfl-driver.h"

#include "../fl-example-flags.h"

#include "ns3/core-module.h"
#include "ns3/fl-experiment-helper.h"
#include "ns3/global-value.h"

#include "gfl-figures.h"

#include <chrono>
#include <fstream>
#include <iomanip>
#include <iostream>

using namespace ns3;

int
flexample::RunGflFigureProgram(int argc, char* argv[], bool ghp)
{
    GflFigureOptions o;
    FlFigureEngine engine;
    std::string output = "fl-gfl.csv";
    uint32_t every = 1; // CSV: every n-th iteration (and the last)
    const std::string program = ghp ? "fl-ghp" : "fl-gfl";
    if (ghp)
    {
        o.figure = "ghp";
        output = "fl-ghp.csv";
    }
    // --network's default: the global value FlGraphFidelity (NS_GLOBAL_VALUE in the environment)
    {
        StringValue fidelity;
        GlobalValue::GetValueByName("FlGraphFidelity", fidelity);
        o.network = fidelity.Get();
    }
    flexample::Flags flags(program + ".cc"); // the name --help and the errors give
    flags.Cmd().Usage(
        "GFL (Rizk, Vlaski, Sayed, \"Privatized Graph Federated Learning\", arXiv:2203.07105, "
        "2022, and EURASIP J. Adv. Signal Process. 2023) and GHP diffusion (Vlaski, Sayed, "
        "\"Graph-Homomorphic Perturbations for Private Decentralized Learning\", ICASSP 2021): "
        "the papers' main orderings (MSD vs iteration for none / iid / graph-homomorphic noise, "
        "noisy models vs noisy updates), in process or over ns-3 links (--mode=network), plus a "
        "benchmark (--figure=bench). --engine=serial|parallel|slurm runs each Monte-Carlo run "
        "(--runs) as a job of utils/fl-sweep and writes the same CSV. "
        "fl-ghp is this program with --figure=ghp by default.");
    flags.AddBool("quick",
                  "Small sizes, in seconds (the test suite): the figure's small P, K, L and "
                  "iterations, and 1 run unless --runs is given",
                  o.quick);
    flags.AddBool("quiet", "No progress lines", o.quiet);
    flags.AddChoice(
        "figure",
        "gfl (GFL Fig. 2), fl (GFL journal Fig. 5), ghp (GHP Fig. 1), all (these three), "
        "bench, or in process only: gfl3 (GFL Fig. 3(a), 3(b)), gfl4 (GFL Fig. 4), "
        "fl6 (GFL journal Fig. 6), class (two Fashion-MNIST classes in place of Avazu)",
        o.figure,
        {"gfl", "fl", "ghp", "all", "bench", "gfl3", "gfl4", "fl6", "class"});
    flags.AddChoice("mode",
                    "inprocess (ideal links) or network (ns-3 links)",
                    o.mode,
                    {"inprocess", "network"});
    flags.AddChoice("network",
                    "network mode, GFL's scenes: packet (ns-3 devices, every frame simulated) or "
                    "flow (each message's delivery time from the calibrated flow-level model of "
                    "the links; TCP, point-to-point server links; see \"Flow-level fidelity\" in "
                    "the module documentation); the default is the global value FlGraphFidelity",
                    o.network,
                    {"packet", "flow"});
    flags.AddRefusedAlias("FlGraphFidelity",
                          "--network=packet|flow",
                          " (the network fidelity is --network here)");
    flags.AddChoice("transport", "network mode: tcp or udp", o.transport, {"tcp", "udp"});
    flags.AddChoice("cell",
                    "network mode: csma or wifi cells of clients",
                    o.cell,
                    {"csma", "wifi"});
    flags.AddChoice("serverLinks",
                    "network mode: p2p (a point-to-point link per graph edge, --linkMbps, "
                    "--linkDelayMs) or mesh (one 802.11s mesh of all servers, multi-hop)",
                    o.serverLinks,
                    {"p2p", "mesh"});
    flags.AddReal("meshSpacing",
                  "network mode, --serverLinks=mesh: distance between neighbouring servers on "
                  "the grid [m]",
                  o.meshSpacing,
                  flexample::Range::Above(0.0));
    flags.AddBool("cellDoze",
                  "network mode, Wi-Fi cells: idle stations doze (their PHY sleeps until a frame "
                  "is queued for or by them), which leaves the learning results unchanged and "
                  "saves most of the simulation's work when few clients are sampled; false: "
                  "every station stays awake",
                  o.cellDoze);
    flags.AddBool("cellStaticArp",
                  "network mode, Wi-Fi cells: permanent ARP entries between the server and its "
                  "clients (no ARP request on the air)",
                  o.cellStaticArp);
    flags.AddWhole<uint32_t>("cellBeaconTu",
                             "network mode, Wi-Fi cells: the APs' beacon interval in time units "
                             "of 1024 us (100 = 102.4 ms, as ns-3)",
                             o.cellBeaconTu,
                             1,
                             65535);
    flags.AddReal("cellAssocStaggerMs",
                  "network mode, Wi-Fi cells: station k of a cell asks to associate k times this "
                  "many ms later (0 = all at once, as ns-3; set-up only)",
                  o.cellAssocStaggerMs,
                  flexample::Range::Closed(0.0, 1000.0));
    flags.AddReal("clientStaggerMs",
                  "network mode: client k of each server starts k times this many ms after "
                  "0.2 s (0 = all at once; -1 = 2 with Wi-Fi cells, 0 with CSMA cells; set-up "
                  "only)",
                  o.clientStaggerMs,
                  flexample::Range::Closed(-1.0, 1000.0));
    flags.AddReal("linkMbps",
                  "network mode: server-to-server link rate [Mb/s]",
                  o.linkMbps,
                  flexample::Range::Above(0.0));
    flags.AddReal("linkDelayMs",
                  "network mode: server-to-server link delay [ms]",
                  o.linkDelayMs,
                  flexample::Range::AtLeast(0.0));
    flags.AddReal("exchangeTimeout",
                  "network mode: combine this many s after the release even with neighbour "
                  "messages missing (0 = wait; udp: 1 s; tcp over the mesh: 2 s)",
                  o.exchangeTimeout,
                  flexample::Range::AtLeast(0.0));
    flags.AddReal("tcpMinRtoMs",
                  "network mode: minimum retransmission timeout of the TCP connections [ms] "
                  "(1000: ns-3's and RFC 6298's; Linux uses 200). Each segment leaves a "
                  "cancelled timer of this horizon in ns-3's scheduler, so a shorter one holds "
                  "less memory; it changes a run only where a timeout fires",
                  o.tcpMinRtoMs,
                  flexample::Range::Closed(1e-3, 6e4));
    flags.AddReal("linkLoss",
                  "network mode: packet error rate on the server-to-server links (use with "
                  "--transport=udp: TCP repairs every loss)",
                  o.linkLoss,
                  flexample::Range::Closed(0.0, 0.99));
    flags.AddReal("stallSeconds",
                  "network mode: stop a run in which no server finishes an iteration for this "
                  "many s of simulated time, and say so (0 = never)",
                  o.stallSeconds,
                  flexample::Range::AtLeast(0.0));
    flags.AddChoice("policy",
                    "missing neighbour message: reuse-last, renormalize or skip",
                    o.policy,
                    {"reuse-last", "renormalize", "skip"});
    flags.AddOutput("output", "CSV file (iteration,variant,metric,value)", output, false);
    flags.AddWhole<uint32_t>("runs",
                             "Monte Carlo runs per variant (--quick: 1 unless given)",
                             o.runs,
                             1,
                             100000);
    // --quick sets the run count only if --runs is not given (before the engine's checks,
    // which count the runs)
    flags.AddCheck([&o, &flags]() {
        if (o.quick && !flags.Given("runs"))
        {
            o.runs = 1;
        }
    });
    flexample::AddFigureEngineFlags(flags, engine, o.runs);
    flags.AddWhole<uint32_t>("every",
                             "CSV: write every n-th iteration (and the last; the summary uses all)",
                             every,
                             1,
                             1000000);
    flags.AddWhole<uint32_t>("iterations",
                             "Iterations per run (0 = the figure's default)",
                             o.iterations,
                             0,
                             10000000);
    flags.AddRefusedAlias("seed",
                          "--RngRun=N",
                          " (the run number, ns-3's --RngRun, seeds the data, graphs, sampling "
                          "and noise)");
    flags.AddReal("clip",
                  "Gradient clipping G (> 0 also reports epsilon)",
                  o.clip,
                  flexample::Range::AtLeast(0.0));
    flags.AddChoice("noiseSource",
                    "Where the noise seeds come from: run-seed (derived from --seed: "
                    "reproducible, and every eps assumes an adversary who does not know the "
                    "seed) or sodium (libsodium's generator: unpredictable, results change "
                    "from run to run)",
                    o.noiseSource,
                    {"run-seed", "sodium"});
    flags.AddChoice("weights",
                    "GHP combination weights: metropolis or lazy",
                    o.weights,
                    {"metropolis", "lazy"});
    flags.AddReal("ghpB",
                  "GHP Laplace scale b_v (sigma_p^2 = 2 b_v^2)",
                  o.ghpB,
                  flexample::Range::Above(0.0));
    flags.AddChoice("ghpTransport",
                    "GHP network mode: broadcast (one 802.11 broadcast per release, no MAC "
                    "ACK/retry: losses handled by --policy) or unicast (one copy per neighbour "
                    "over --transport)",
                    o.ghpTransport,
                    {"broadcast", "unicast"});
    flags.AddReal("ghpLoss",
                  "GHP network mode: frame error rate added at every Wi-Fi receiver (unicast "
                  "frames are retried by the MAC, broadcast frames are lost)",
                  o.ghpLoss,
                  flexample::Range::Closed(0.0, 0.99));
    flags.AddReal("ghpPeriodMs",
                  "GHP network mode: synchronous iteration period [ms]: every agent releases "
                  "at the same instants and combines 0.9 period later (or after "
                  "--exchangeTimeout); 0 = 50 ms with broadcast, none (next iteration as soon "
                  "as combined) with unicast",
                  o.ghpPeriodMs,
                  flexample::Range::AtLeast(0.0));
    flags.AddReal("ghpJitterMs",
                  "GHP network mode: each release happens 1 ms + U[0, J] ms after its iteration "
                  "began (agents releasing at the same instant on an idle channel collide)",
                  o.ghpJitterMs,
                  flexample::Range::Closed(0.0, 1000.0));
    flags.AddWhole<uint32_t>("servers", "GFL: servers P (0 = 10, quick 4)", o.servers, 0, 10000);
    flags.AddWhole<uint32_t>("clientsPerServer",
                             "GFL: clients per server K (0 = 100, quick 10)",
                             o.clientsPerServer,
                             0,
                             1000000);
    flags.AddWhole<uint32_t>(
        "sampled",
        "GFL: clients sampled per iteration L (0 = 11, quick 4; --figure=bench: 0 = "
        "all the cell's clients)",
        o.sampled,
        0,
        1000000);
    flags.AddBool("secure",
                  "GFL: secure aggregation of the uploads (Bonawitz et al., ACM CCS 2017; in "
                  "network mode every message of the protocol travels over the links; a round "
                  "with fewer than t = floor(2L/3)+1 survivors keeps the server's model)",
                  o.secure);
    flags.AddChoice("secureKeys",
                    "GFL --secure in network mode: random keys (libsodium), or reproducible from "
                    "the run seed (INSECURE, for simulation studies only)",
                    o.secureKeys,
                    {"random", "reproducible"});
    flags.AddReal("dropout",
                  "GFL: probability that a sampled client drops out (it trains and sends nothing "
                  "in that iteration)",
                  o.dropout,
                  flexample::Range::Closed(0.0, 0.99));
    flags.AddText("benchClients", "bench: clients per Wi-Fi cell, a list", o.benchClients);
    flags.AddWhole<uint32_t>("benchIterations",
                             "bench: network iterations per cell size (>= 2)",
                             o.benchIterations,
                             2,
                             100000);
    flags.AddCheck([&o]() { CheckGflFigureOptions(o); });
    flags.AddCheck([&o, &engine]() {
        if (o.figure == "bench" && (engine.engine != "process" || engine.seedJob > 0))
        {
            throw fl::ConfigError("--engine",
                                  "--figure=bench measures wall time in one process, not "
                                  "Monte-Carlo runs",
                                  "leave --engine out with --figure=bench");
        }
    });
    if (!flags.Parse(argc, argv))
    {
        return 2;
    }
    if (o.quick && o.figure == "bench")
    {
        o.benchClients = "3";
        o.benchIterations = 2;
    }
    // The runs go here or as jobs of utils/fl-sweep (--engine); a job runs run RngRun - seedJob
    // alone at the ns-3 run number of the in-process runs (seedJob) and writes its series.
    const FlFigureRunner runner(engine, output, argc, argv);
    // the master seed of the data, graphs, sampling and noise: the run number of the runs'
    // shared draws (--RngRun; a job's is its parent's, --seedJob)
    o.seed = runner.SharedRun();
    if (runner.IsJob())
    {
        if (RngSeedManager::GetRun() < engine.seedJob)
        {
            std::cerr << fl::ConfigError("--seedJob",
                                         "is above --RngRun (a job runs run RngRun - seedJob)",
                                         "leave --seedJob out; --engine runs the runs as jobs")
                             .what()
                      << std::endl;
            return 2;
        }
        o.firstRun = static_cast<uint32_t>(RngSeedManager::GetRun() - engine.seedJob);
    }
    PrintGflFigureSetup(o, program, std::cout);
    std::cout << "noise: "
              << fl::NoiseAssumption(fl::ParseNoiseSource(o.noiseSource, "--noiseSource"))
              << std::endl;
    fl::MonteCarloSeriesMap series; // "figure/variant" -> Monte-Carlo sums per metric
    const auto t0 = std::chrono::steady_clock::now();
    try
    {
        if (engine.engine == "process")
        {
            runner.AtSharedRun([&]() { RunGflFigures(o, series, std::cout); });
        }
        else
        {
            // the figures with no run: their variants and what their epsilons mean, then
            // every run's series from its job, merged in run order
            GflFigureOptions none = o;
            none.runsAsJobs = true;
            RunGflFigures(none, series, std::cout);
            const std::string merged = runner.RunSweep(
                o.runs,
                std::to_string(series.size()) + " variants x " + std::to_string(o.runs) + " runs",
                std::cout);
            fl::MergeMonteCarloRunRows(merged, series, runner.SharedRun(), o.runs);
            std::cout << "figure: " << o.runs << " runs read from " << runner.SweepDir()
                      << "/merged.csv" << std::endl;
        }
    }
    catch (const fl::ConfigError& e)
    {
        std::cerr << e.what() << std::endl;
        return 2;
    }
    catch (const std::runtime_error& e)
    {
        std::cerr << program << ": " << e.what() << std::endl;
        return 1;
    }

    std::ofstream csv(output);
    if (!csv)
    {
        std::cerr << program << ": cannot write " << output << std::endl;
        return 2;
    }
    if (runner.IsJob())
    {
        fl::WriteMonteCarloRunRows(csv, series, o.firstRun); // the parent writes the figure
        return csv.flush() ? 0 : 1;
    }
    WriteGflFiguresCsv(csv, series, every, runner.ProvenanceLine());
    csv.close();
    PrintGflEpsilons(series, std::cout);
    PrintGflSteadyState(series, std::cout);
    CheckGflFigureClaims(series, std::cout);
    std::cout << "Wrote " << output << " (" << std::fixed << std::setprecision(1)
              << std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count()
              << " s wall)" << std::endl;
    return 0;
}
