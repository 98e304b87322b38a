/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * fl-scale-benchmark: what paper-size runs cost on one machine, each number printed beside its
 * goal. Every measured run is a separate process (fl-scale-run or another example), so that
 * its peak resident memory (getrusage of the child) is its own.
 *
 *   fl-scale-benchmark --part=memory              # peak RSS, 10 vs 100 rounds, every scene
 *   fl-scale-benchmark --part=memory --sizes=10,100,1000 --timeout=600
 *   fl-scale-benchmark --part=threads             # training threads: learning only, Wi-Fi
 *   fl-scale-benchmark --part=gfl                 # paper-size GFL over Wi-Fi cells, speed-up
 *   fl-scale-benchmark --part=fidelity            # flow-level against packet-level runs
 */

#include "../fl-example-flags.h"

#include "ns3/child-process.h"
#include "ns3/sweep-grid.h"
#include "ns3/fl-network-scenarios.h"
#include "ns3/fl-packet-probes.h"

#include <algorithm>
#include <fstream>
#include <functional>
#include <iomanip>
#include <iostream>
#include <set>
#include <sstream>
#include <string>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

using namespace ns3;

namespace
{

using fl::ChildCost;
using fl::RunMeasuredChild;

/// Column 3 of the first CSV row with `a` in column 1 and `b` in column `col` (NaN: none).
double
CsvValue(const std::string& path, std::size_t col, const std::string& a, const std::string& b)
{
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    for (const auto& row : fl::ReadCsvRecords(text.str()))
    {
        if (row.size() > 3 && row[1] == a && row[col] == b)
        {
            return std::stod(row[3]);
        }
    }
    return std::nan("");
}

/**
 * The paper-size GFL figure run (its four variants, P = 10, K = 100, L = 11) by an earlier build
 * of fl-gfl (A) and by this one (B), in turn, at two lengths (fl::CompareBuilds): the processor
 * time's growth is the cost per iteration, the rest the set-up; both projected to 1,000
 * iterations, and the long runs' learning results compared row by row.
 */
void
CompareWithBaseline(const std::string& baseline,
                    const std::string& current,
                    const uint32_t (&lengths)[2],
                    const std::function<std::string(const std::string&)>& file,
                    double timeout,
                    std::ofstream& csv)
{
    std::cout << "paper-size GFL figure, A = " << baseline << ", B = this build:" << std::endl;
    const fl::BuildComparison r = fl::CompareBuilds(
        {baseline, current},
        {"--figure=gfl", "--mode=network", "--cell=wifi", "--runs=1", "--servers=10",
         "--clientsPerServer=100", "--sampled=11", "--quiet"},
        "iterations", lengths, [&file](const std::string& n) { return file("gfl-" + n); },
        timeout, &std::cout);
    const bool same = fl::SameCsvRecordsExcept(file("gfl-a-" + std::to_string(lengths[1])),
                                               file("gfl-b-" + std::to_string(lengths[1])),
                                               2,
                                               "wall");
    for (std::size_t b = 0; b < 2; ++b)
    {
        csv << "gfl-baseline," << (b == 0 ? "A" : "B") << ",1000,1000," << r.cost[b].perStepS
            << "," << r.cost[b].Project(1000) << "," << (r.ok ? "ok" : "failed") << "\n";
    }
    const double speedup = fl::ReportBuildComparison(std::cout, r, 1000, "iteration");
    const bool met = speedup >= 5.0 && same && r.ok;
    std::cout << "paper-size GFL, this build against A: " << std::setprecision(2) << speedup
              << "x faster over 1,000 iterations (goal >= 5x), same learning results: "
              << (same ? "yes" : "NO") << ", " << (met ? "met" : "NOT met") << std::endl;
    csv << "gfl-baseline,speedup,,1000," << speedup << ",," << (met ? "met" : "not_met") << "\n";
}

} // namespace

/// One measured case of the memory part.
struct MemoryCase
{
    std::string workload; ///< e.g. fedavg-wifi-tcp
    uint32_t clients;
    uint32_t rounds; ///< 0: one exchange (stock ns-3)
    std::vector<std::string> args;
};

/// Prints and writes one measured case.
void
Report(std::ofstream& csv, const MemoryCase& c, const ChildCost& cost)
{
    const std::string status = cost.timedOut ? "timeout" : cost.exitCode == 0 ? "ok" : "failed";
    std::cout << std::left << std::setw(22) << c.workload << std::right << std::setw(6)
              << c.clients << std::setw(7) << c.rounds << std::fixed << std::setprecision(1)
              << std::setw(11) << cost.peakRssMb << " MB" << std::setw(10) << cost.wallS << " s  "
              << status << std::endl;
    csv << "memory," << c.workload << "," << c.clients << "," << c.rounds << ","
        << std::setprecision(3) << cost.peakRssMb << "," << cost.wallS << "," << status << "\n";
    csv.flush();
}

int
main(int argc, char* argv[])
{
    std::string part = "memory";
    std::string sizesText = "10,100";
    std::string workloads = "fedavg-wifi,fedavg-csma,fedavg-lte,gfl-wifi,dwfl-ota,stock";
    uint32_t shortRounds = 10;
    uint32_t longRounds = 100;
    double timeout = 600.0;
    std::string workDir = "fl-scale-benchmark.d";
    std::string output = "fl-scale-benchmark.csv";

    flexample::Flags flags(__FILE__);
    flags.Cmd().Usage(
        "What paper-size runs cost on one machine, each number beside its goal. --part=memory runs "
        "every workload (FedAvg over Wi-Fi, from 1,000 clients 10 stations per AP, CSMA, from "
        "1,000 clients switched, and LTE with TCP and UDP, GFL with Wi-Fi cells, DWFL over the "
        "analog channel) for --shortRounds and --longRounds rounds at each of --sizes clients, "
        "each in its own process, and reports its peak resident memory (the child's getrusage) and "
        "the growth from the short to the long run (goal: at most 5 %, each run under --timeout), "
        "beside stock ns-3's cost of one exchange on the same scene (BulkSend and PacketSink); "
        "fl-scale-run runs each case. --part=threads measures the training thread pool: the "
        "learning-only reference round and a Wi-Fi FedAvg run with 1 and 2 threads, side by side. "
        "--part=gfl times the paper-size GFL network run (10 servers, Wi-Fi cells of 100 clients, "
        "L = 11) with the cells' speed settings off and on, and with --baselineGfl against an "
        "earlier build (goal: 5x over 1,000 iterations). --part=fidelity runs fl-flow-validation "
        "on FedAvg over Wi-Fi, CSMA and LTE and GFL with Wi-Fi cells, Wi-Fi again as means of 3 "
        "runs, and 30 clients over 20 rounds (goals: round duration within 10 %, 20x faster, the "
        "same models; also the speed-up without the learning and its Amdahl bound).");
    flags.AddChoice("part",
                    "memory, threads, gfl or fidelity",
                    part,
                    {"memory", "threads", "gfl", "fidelity"});
    flags.AddText("sizes", "memory: client counts, a list", sizesText);
    flags.AddText("workloads",
                  "memory: a subset of fedavg-wifi, fedavg-csma, fedavg-lte, gfl-wifi, dwfl-ota, "
                  "stock",
                  workloads);
    flags.AddWhole<uint32_t>("shortRounds", "memory: rounds of the short run", shortRounds, 1);
    flags.AddWhole<uint32_t>("longRounds", "memory: rounds of the long run", longRounds, 2);
    flags.AddReal("timeout",
                  "Longest wall time of one run [s]; longer runs are stopped and reported",
                  timeout,
                  flexample::Range::Above(0.0));
    flags.AddText("workDir", "Directory for the runs' logs and CSVs", workDir);
    flags.AddOutput("output", "The benchmark's CSV", output, false);
    std::string baselineGfl;
    flags.AddText("baselineGfl",
                  "gfl: also run the paper-size GFL figure with this earlier fl-gfl build and this "
                  "one in turn (utils/build-baseline.sh builds one; empty: do not)",
                  baselineGfl);
    uint32_t gflLengths[2] = {23, 203};
    flags.AddWhole<uint32_t>("gflShort", "gfl --baselineGfl: iterations of the short runs",
                             gflLengths[0], 1);
    flags.AddWhole<uint32_t>("gflLong", "gfl --baselineGfl: iterations of the long runs",
                             gflLengths[1], 2);
    std::vector<uint32_t> sizes;
    std::set<std::string> chosen;
    flags.AddCheck([&]() {
        sizes = fl::ParseUnsignedList<uint32_t>(sizesText, "--sizes", 1, 100000);
        if (gflLengths[1] <= gflLengths[0])
        {
            throw fl::ConfigError("--gflLong", "must exceed --gflShort", "give more iterations");
        }
        if (!baselineGfl.empty() && access(baselineGfl.c_str(), X_OK) != 0)
        {
            throw fl::ConfigError("--baselineGfl",
                                  "'" + baselineGfl + "' is not an executable program",
                                  "give the path of an fl-gfl build (utils/build-baseline.sh)");
        }
        if (longRounds <= shortRounds)
        {
            throw fl::ConfigError("--longRounds",
                                  "must exceed --shortRounds",
                                  "give more rounds than --shortRounds");
        }
        std::stringstream ss(workloads);
        std::string w;
        const std::set<std::string> known{
            "fedavg-wifi", "fedavg-csma", "fedavg-lte", "gfl-wifi", "dwfl-ota", "stock"};
        while (std::getline(ss, w, ','))
        {
            if (!known.count(w))
            {
                throw fl::ConfigError("--workloads",
                                      "'" + w + "' is not a workload",
                                      "use fedavg-wifi, fedavg-csma, fedavg-lte, gfl-wifi, "
                                      "dwfl-ota or stock");
            }
            chosen.insert(w);
        }
    });
    if (!flags.Parse(argc, argv))
    {
        return flexample::kExitBadFlag;
    }

    mkdir(workDir.c_str(), 0755);
    if (access(workDir.c_str(), W_OK | X_OK) != 0)
    {
        std::cerr << "fl-scale-benchmark: invalid --workDir: cannot create or write '" << workDir
                  << "' (fix: give a directory that can be created, or a writable one)"
                  << std::endl;
        return flexample::kExitBadFlag;
    }
    std::ofstream csv(output);
    csv << "part,workload,clients,rounds,peak_rss_mb,wall_s,status\n";
    // the other programs, named as this build names this one (ns-3's builds add a prefix)
    auto program = [](const std::string& n) { return fl::SiblingProgram("fl-scale-benchmark", n); };
    const std::string self = program("fl-scale-run"); // one case of a scene in its own process
    auto file = [&workDir](const std::string& name) { return workDir + "/" + name; };

    if (part == "threads")
    {
        // (a) learning only, 1 and 2 threads side by side in one run of the benchmark
        const std::string a = file("threads-reference.csv");
        const std::string reference = program("fl-benchmark-fedavg");
        ChildCost cost = RunMeasuredChild({reference, "--modes=a", "--threads=2",
                                   "--rounds=20", "--output=" + a},
                                  file("threads-reference.log"),
                                  timeout);
        const double speedup = CsvValue(a, 0, "a_thread_speedup", "summary");
        std::cout << "learning-only reference round, 2 threads against 1: " << std::setprecision(3)
                  << speedup << "x (goal >= 1.7x), " << (speedup >= 1.7 ? "met" : "NOT met")
                  << std::endl;
        csv << "threads,reference_speedup,,," << speedup << "," << cost.wallS << ","
            << (speedup >= 1.7 ? "met" : "not_met") << "\n";
        // (b) a Wi-Fi FedAvg run, alternately with 1 and 2 threads
        double wall[2] = {0.0, 0.0};
        const int reps = 3;
        for (int rep = 0; rep < reps; ++rep)
        {
            for (int t = 0; t < 2; ++t)
            {
                const std::vector<std::string> args{
                    self, "--run=fedavg", "--scene=wifi", "--clients=20", "--rounds=5",
                    "--quiet", "--samplesPerClient=2000", "--model=mlp:hidden=256",
                    "--FlTrainingThreads=" + std::to_string(t + 1),
                    "--output=" + file("threads-wifi.csv")};
                ChildCost c = RunMeasuredChild(args, file("threads-wifi.log"), timeout);
                wall[t] += c.wallS / reps;
            }
        }
        const double ratio = wall[0] / wall[1];
        std::cout << "Wi-Fi FedAvg run (20 clients, 5 rounds), 2 threads against 1: "
                  << std::setprecision(3) << wall[1] << " s against " << wall[0] << " s, "
                  << ratio << "x (goal: no slower, >= 1.0x), "
                  << (ratio >= 1.0 ? "met" : "NOT met") << std::endl;
        csv << "threads,wifi_speedup,20,5," << ratio << "," << wall[0] + wall[1] << ","
            << (ratio >= 1.0 ? "met" : "not_met") << "\n";
        return 0;
    }

    if (part == "gfl")
    {
        // the paper's size: P = 10 servers, K = 100 clients per Wi-Fi cell, L = 11 sampled
        struct Setting
        {
            const char* name;
            std::vector<std::string> flags;
        };
        const std::vector<Setting> settings{
            {"before (cells' speed settings off)",
             {"--cellDoze=false",
              "--cellStaticArp=false",
              "--clientStaggerMs=0",
              "--cellAssocStaggerMs=0"}},
            {"doze, static ARP, no staggers", {"--clientStaggerMs=0", "--cellAssocStaggerMs=0"}},
            {"defaults (doze, static ARP, staggers)", {}}};
        const int iterations = 20;
        std::vector<double> projected;
        for (const Setting& st : settings)
        {
            const std::string out = file("gfl-bench.csv");
            std::vector<std::string> args{program("fl-gfl"),
                                          "--figure=bench",
                                          "--benchClients=100",
                                          "--benchIterations=" + std::to_string(iterations),
                                          "--sampled=11",
                                          "--iterations=1",
                                          "--quiet",
                                          "--output=" + out};
            args.insert(args.end(), st.flags.begin(), st.flags.end());
            ChildCost cost = RunMeasuredChild(args, file("gfl-bench.log"), timeout);
            const double perIteration =
                CsvValue(out, 2, "bench/network-K100", "wall_s_per_iteration");
            const double setup = CsvValue(out, 2, "bench/network-K100", "setup_wall_s");
            const double total = setup + 999.0 * perIteration;
            projected.push_back(total);
            std::cout << std::left << std::setw(46) << st.name << std::right << std::fixed
                      << std::setprecision(3) << " set-up " << setup << " s, " << perIteration
                      << " s per iteration: 1,000 iterations in " << std::setprecision(0) << total
                      << " s" << (cost.exitCode == 0 ? "" : " (the run FAILED)") << std::endl;
            csv << "gfl,\"" << st.name << "\",1000,1000," << perIteration << "," << total << ","
                << (cost.exitCode == 0 ? "ok" : "failed") << "\n";
        }
        if (!baselineGfl.empty())
        {
            CompareWithBaseline(baselineGfl, program("fl-gfl"), gflLengths, file, timeout, csv);
        }
        for (std::size_t i = 1; i < projected.size(); ++i)
        {
            const double speedup = projected[0] / projected[i];
            std::cout << "paper-size GFL, " << settings[i].name << ": " << std::setprecision(2)
                      << speedup << "x faster over 1,000 iterations (set-up + 999 x the mean "
                      << "iteration; goal >= 5x), " << (speedup >= 5.0 ? "met" : "NOT met")
                      << std::endl;
            csv << "gfl,speedup," << i << ",1000," << speedup << ",," 
                << (speedup >= 5.0 ? "met" : "not_met") << "\n";
        }
        return 0;
    }
    if (part == "fidelity")
    {
        // the validation sets: client counts, model sizes and GFL sizes the parameters were
        // not fitted on; Wi-Fi again as means of 3 runs (its association is random), and
        // larger Wi-Fi and CSMA runs (20 rounds) where the network's share grows
        const std::string models = "--models=mlp:hidden=256,mlp:hidden=512,mlp:hidden=1024";
        const std::vector<std::pair<std::string, std::vector<std::string>>> sets{
            {"validation set, one run each",
             {"--networks=wifi,csma,lte,gfl-wifi", "--clients=5,15", models,
              "--gflSizes=3x50x30,10x50x11,10x100x11"}},
            {"Wi-Fi validation set, means of runs 1 to 3", {"--networks=wifi", "--clients=5,15",
                                                             models, "--runs=3"}},
            {"larger runs, 20 rounds", {"--networks=wifi,csma", "--clients=30", "--rounds=20",
                                        "--models=mlp:hidden=64,mlp:hidden=256"}}};
        FlFidelityGoalCount total;
        for (std::size_t k = 0; k < sets.size(); ++k)
        {
            const std::string name = "fidelity-" + std::to_string(k);
            std::vector<std::string> args{program("fl-flow-validation")};
            args.insert(args.end(), sets[k].second.begin(), sets[k].second.end());
            args.push_back("--output=" + file(name + ".csv"));
            const ChildCost cost = RunMeasuredChild(args, file(name + ".log"), timeout * 4);
            std::ifstream in(file(name + ".csv"));
            std::stringstream text;
            text << in.rdbuf();
            const auto n = FlPrintFidelityGoals(text.str(), sets[k].first, std::cout, csv);
            std::cout << n.met << " of " << n.rows << " meet every goal; " << n.roundMet << " of "
                      << n.rows << " the round duration's; " << n.networkMet << " of " << n.rows
                      << " are 20x faster on the network alone"
                      << (cost.exitCode == 0 ? "" : " (FAILED, see " + file(name + ".log") + ")")
                      << std::endl;
            total.rows += n.rows;
            total.met += n.met;
        }
        std::cout << total.met << " of " << total.rows << " runs meet every goal" << std::endl;
        return 0;
    }

    // ---------------------------------------------------------------------- memory
    std::cout << "workload               clients rounds   peak RSS      wall   status"
              << std::endl;
    struct Growth
    {
        std::string workload;
        uint32_t clients;
        ChildCost shortRun;
        ChildCost longRun;
    };
    std::vector<Growth> growth;
    for (uint32_t n : sizes)
    {
        // from 1,000 clients: an ESS of 10 stations per AP, a switched LAN whose ports hold 1,000
        // packets (at ns-3's 100 the server's overflows: TCP incast)
        const std::string aps = "--aps=" + std::to_string(n >= 1000 ? std::min(250u, n / 10) : 1);
        const std::string lan = n >= 1000 ? "--switched=true" : "--switched=false";
        std::vector<std::pair<std::string, std::function<std::vector<std::string>(uint32_t)>>>
            workloadArgs;
        for (const std::string scene : {"wifi", "csma", "lte"})
        {
            if (!chosen.count("fedavg-" + scene) || (scene == "lte" && n > FlLteMaxClients()))
            {
                continue;
            }
            for (const std::string transport : {"tcp", "udp"})
            {
                const std::string name = "fedavg-" + scene + "-" + transport;
                workloadArgs.emplace_back(name, [=](uint32_t rounds) {
                    return std::vector<std::string>{self,
                                                    "--run=fedavg",
                                                    "--scene=" + scene,
                                                    scene == "wifi" ? aps : "--aps=1",
                                                    scene == "csma" ? lan : "--switched=false",
                                                    "--switchQueue=1000",
                                                    "--transport=" + transport,
                                                    "--clients=" + std::to_string(n),
                                                    "--rounds=" + std::to_string(rounds),
                                                    "--quiet",
                                                    "--output=" + file(name + ".csv")};
                });
            }
        }
        if (chosen.count("gfl-wifi") && n >= 10 && n % 10 == 0)
        {
            workloadArgs.emplace_back("gfl-wifi", [=](uint32_t rounds) {
                const uint32_t k = n / 10;
                return std::vector<std::string>{program("fl-gfl"),
                                                "--figure=gfl",
                                                "--mode=network",
                                                "--cell=wifi",
                                                "--runs=1",
                                                "--quiet",
                                                "--servers=10",
                                                "--clientsPerServer=" + std::to_string(k),
                                                "--sampled=" + std::to_string(std::min(11u, k)),
                                                "--iterations=" + std::to_string(rounds),
                                                "--output=" + file("gfl-wifi.csv")};
            });
        }
        if (chosen.count("dwfl-ota"))
        {
            workloadArgs.emplace_back("dwfl-ota", [=](uint32_t rounds) {
                return std::vector<std::string>{program("fl-dwfl-benchmark"),
                                                "--workers=" + std::to_string(n),
                                                "--rounds=" + std::to_string(rounds),
                                                "--warmup=0",
                                                "--scaling=false",
                                                "--model=softmax:l2=0"};
            });
        }
        for (const auto& [name, makeArgs] : workloadArgs)
        {
            Growth g{name, n, {}, {}};
            MemoryCase c{name, n, shortRounds, makeArgs(shortRounds)};
            const std::string log = file(name + "-" + std::to_string(n));
            g.shortRun = RunMeasuredChild(c.args, log + "-short.log", timeout);
            Report(csv, c, g.shortRun);
            c.rounds = longRounds;
            c.args = makeArgs(longRounds);
            g.longRun = RunMeasuredChild(c.args, log + "-long.log", timeout);
            Report(csv, c, g.longRun);
            growth.push_back(g);
        }
        if (chosen.count("stock"))
        {
            for (const std::string scene : {"wifi", "csma"})
            {
                MemoryCase c{"stock-ns3-" + scene,
                             n,
                             0,
                             {self,
                              "--run=stock",
                              "--scene=" + scene,
                              scene == "wifi" ? aps : "--aps=1",
                              scene == "csma" ? lan : "--switched=false",
                              "--switchQueue=1000",
                              "--clients=" + std::to_string(n)}};
                const std::string log = file(c.workload + "-" + std::to_string(n) + ".log");
                ChildCost cost = RunMeasuredChild(c.args, log, timeout);
                Report(csv, c, cost);
            }
        }
    }

    std::cout << "\nmemory growth from " << shortRounds << " to " << longRounds
              << " rounds (goal: at most 5 %, each run under " << timeout << " s):" << std::endl;
    uint32_t met = 0;
    for (const Growth& g : growth)
    {
        const bool ran = !g.shortRun.timedOut && !g.longRun.timedOut &&
                         g.shortRun.exitCode == 0 && g.longRun.exitCode == 0;
        const double pct = 100.0 * (g.longRun.peakRssMb / g.shortRun.peakRssMb - 1.0);
        const bool ok = ran && pct <= 5.0;
        met += ok ? 1 : 0;
        std::cout << "  " << std::left << std::setw(20) << g.workload << std::right << std::setw(6)
                  << g.clients << " clients: " << std::fixed << std::setprecision(1)
                  << g.shortRun.peakRssMb << " -> " << g.longRun.peakRssMb << " MB ("
                  << std::showpos << pct << std::noshowpos << " %), "
                  << (ok ? "met" : ran ? "NOT met" : "did not finish") << std::endl;
        csv << "growth," << g.workload << "," << g.clients << "," << longRounds << "," << pct
            << "," << g.longRun.wallS << "," << (ok ? "met" : ran ? "not_met" : "unfinished")
            << "\n";
    }
    std::cout << met << " of " << growth.size() << " met; results: " << output << std::endl;
    return 0;
}
