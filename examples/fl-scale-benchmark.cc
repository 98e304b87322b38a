/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * fl-scale-benchmark: what paper-size runs cost on one machine, each number printed beside its
 * goal. Every measured run is a separate process (this program again, or one of the other
 * examples), so that its peak resident memory (getrusage of the child) is its own.
 *
 *   fl-scale-benchmark --part=memory              # peak RSS, 10 vs 100 rounds, every scene
 *   fl-scale-benchmark --part=memory --sizes=10,100,1000 --timeout=600
 *   fl-scale-benchmark --part=threads             # training threads: learning only, Wi-Fi
 *   fl-scale-benchmark --part=gfl                 # paper-size GFL over Wi-Fi cells, speed-up
 *   fl-scale-benchmark --part=fidelity            # flow-level against packet-level runs
 *
 * One run of a scene (what the memory part starts):
 *   fl-scale-benchmark --run=fedavg --scene=csma --clients=100 --rounds=10 --transport=udp
 *   fl-scale-benchmark --run=stock --scene=wifi --clients=100   # stock ns-3, one exchange
 */

#include "fl-example-common.h"
#include "fl-example-flags.h"

#include "ns3/applications-module.h"
#include "ns3/fl-energy-helper.h"
#include "ns3/fl-network-scenarios.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <map>
#include <set>
#include <sstream>
#include <sys/stat.h>
#include <fcntl.h>
#include <spawn.h>
#include <string>
#include <sys/resource.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>
#include <vector>

extern char** environ;

using namespace ns3;

namespace
{

/// What one child process cost.
struct ChildCost
{
    double peakRssMb{0.0};
    double wallS{0.0};
    int exitCode{-1};    ///< exit status, or -1 if killed
    bool timedOut{false};
};

/// The directory this program lives in (the other examples are its siblings).
std::string
ProgramDir()
{
    char buf[4096];
    const ssize_t n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);
    if (n <= 0)
    {
        return ".";
    }
    std::string path(buf, static_cast<std::size_t>(n));
    const auto slash = path.rfind('/');
    return slash == std::string::npos ? "." : path.substr(0, slash);
}

std::string
SelfPath()
{
    char buf[4096];
    const ssize_t n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);
    return n > 0 ? std::string(buf, static_cast<std::size_t>(n)) : "fl-scale-benchmark";
}

/**
 * Runs argv[0] with its arguments, output to `log`, kills it after `timeoutS` seconds, and
 * returns its peak resident memory (ru_maxrss of the child alone) and wall time.
 */
ChildCost
RunChild(const std::vector<std::string>& args, const std::string& log, double timeoutS)
{
    ChildCost cost;
    std::vector<char*> argv;
    for (const std::string& a : args)
    {
        argv.push_back(const_cast<char*>(a.c_str()));
    }
    argv.push_back(nullptr);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 1, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_adddup2(&actions, 1, 2);
    pid_t pid = 0;
    const auto t0 = std::chrono::steady_clock::now();
    const int rc = posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    if (rc != 0)
    {
        std::cerr << "fl-scale-benchmark: cannot start " << args[0] << ": " << std::strerror(rc)
                  << std::endl;
        return cost;
    }
    int status = 0;
    struct rusage usage;
    std::memset(&usage, 0, sizeof(usage));
    while (true)
    {
        const pid_t done = wait4(pid, &status, WNOHANG, &usage);
        if (done == pid)
        {
            break;
        }
        const double elapsed =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        if (!cost.timedOut && elapsed > timeoutS)
        {
            kill(pid, SIGKILL);
            cost.timedOut = true;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    cost.wallS = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    cost.peakRssMb = static_cast<double>(usage.ru_maxrss) / 1024.0; // KiB on Linux
    cost.exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return cost;
}

/// The value of `name` in a "record,name,round,value,unit" CSV of fl-benchmark-fedavg.
double
ReadSummary(const std::string& csv, const std::string& name)
{
    std::ifstream in(csv);
    std::string line;
    while (std::getline(in, line))
    {
        std::stringstream ss(line);
        std::string record;
        std::string key;
        std::string round;
        std::string value;
        std::getline(ss, record, ',');
        std::getline(ss, key, ',');
        std::getline(ss, round, ',');
        std::getline(ss, value, ',');
        if (record == "summary" && key == name)
        {
            return std::stod(value);
        }
    }
    return std::nan("");
}

std::vector<uint32_t>
ParseSizes(const std::string& text)
{
    std::vector<uint32_t> sizes;
    std::stringstream ss(text);
    std::string item;
    while (std::getline(ss, item, ','))
    {
        sizes.push_back(fl::ParseUnsigned<uint32_t>(item, "--sizes", 1, 100000));
    }
    if (sizes.empty())
    {
        throw fl::ConfigError("--sizes", "is empty", "give a list such as 10,100,1000");
    }
    return sizes;
}

// ------------------------------------------------------------------------------ one run

/// Builds the scene `kind` with N clients (wifi, csma or lte).
FlScene
BuildScene(const std::string& kind, uint32_t n)
{
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
RunFedAvgScene(flexample::FedAvgOptions o, const std::string& sceneKind, bool energy)
{
    const auto wallStart = std::chrono::steady_clock::now();
    std::shared_ptr<fl::LearningTask> task = flexample::BuildFedAvgTask(o);
    if (!task)
    {
        return 2;
    }
    std::cout << "fl-scale-benchmark: FedAvg, " << sceneKind << ", " << o.clients
              << " clients, " << o.rounds << " rounds, " << o.transport << "; "
              << task->Describe() << std::endl;
    FlScene scene = BuildScene(sceneKind, o.clients);
    Ptr<FlRadioEnergyMeter> meter;
    if (energy && sceneKind == "wifi")
    {
        meter = Create<FlRadioEnergyMeter>();
        meter->InstallWifi(scene);
    }
    return flexample::RunFedAvg(
        "fl-scale-benchmark",
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

/**
 * Stock ns-3 on the same scene: one FedAvg exchange with ns-3's own applications. From t = 1 s
 * the server sends `bytes` to every client over TCP (BulkSend), and every client that has
 * received them sends `bytes` back; the run ends when the server has every upload. Nothing of
 * the module but the scene is used.
 */
int
RunStockScene(const std::string& sceneKind, uint32_t n, uint64_t bytes)
{
    const auto wallStart = std::chrono::steady_clock::now();
    FlScene scene = BuildScene(sceneKind, n);
    AssignSceneStreams(sceneKind, scene, 100);
    const uint16_t downPort = 9;
    const uint16_t upPort = 10;
    PacketSinkHelper upSink("ns3::TcpSocketFactory",
                            InetSocketAddress(Ipv4Address::GetAny(), upPort));
    Ptr<PacketSink> serverSink = DynamicCast<PacketSink>(upSink.Install(scene.serverNode).Get(0));
    PacketSinkHelper downSink("ns3::TcpSocketFactory",
                              InetSocketAddress(Ipv4Address::GetAny(), downPort));
    ApplicationContainer clientSinks = downSink.Install(scene.clients);
    for (uint32_t i = 0; i < n; ++i)
    {
        BulkSendHelper down("ns3::TcpSocketFactory",
                            InetSocketAddress(scene.clientInterfaces.GetAddress(i), downPort));
        down.SetAttribute("MaxBytes", UintegerValue(bytes));
        down.Install(scene.serverNode).Start(Seconds(1.0));
    }
    std::vector<uint64_t> received(n, 0);
    uint32_t uploadsStarted = 0;
    for (uint32_t i = 0; i < n; ++i)
    {
        Ptr<PacketSink> sink = DynamicCast<PacketSink>(clientSinks.Get(i));
        sink->TraceConnectWithoutContext(
            "Rx",
            FlCallback<void, Ptr<const Packet>, const Address&>(
                [&, i](Ptr<const Packet> p, const Address&) {
                    const bool wasShort = received[i] < bytes;
                    received[i] += p->GetSize();
                    if (wasShort && received[i] >= bytes)
                    {
                        // the download is complete: the client uploads (installed now, the
                        // node starts it at once)
                        BulkSendHelper up("ns3::TcpSocketFactory",
                                          InetSocketAddress(scene.serverAddress, upPort));
                        up.SetAttribute("MaxBytes", UintegerValue(bytes));
                        up.Install(scene.clients.Get(i)).Start(Seconds(0.0));
                        ++uploadsStarted;
                    }
                }));
    }
    serverSink->TraceConnectWithoutContext(
        "Rx",
        FlCallback<void, Ptr<const Packet>, const Address&>(
            [&](Ptr<const Packet>, const Address&) {
                if (serverSink->GetTotalRx() >= bytes * n)
                {
                    Simulator::Stop();
                }
            }));
    Simulator::Stop(Seconds(3600.0));
    Simulator::Run();
    const double simS = Simulator::Now().GetSeconds();
    const bool complete = serverSink->GetTotalRx() >= bytes * n;
    Simulator::Destroy();
    std::cout << "stock ns-3: " << sceneKind << ", " << n << " clients, " << bytes
              << " bytes each way: " << (complete ? "complete" : "INCOMPLETE") << " at t = "
              << simS << " s (" << uploadsStarted << " uploads started), "
              << std::chrono::duration<double>(std::chrono::steady_clock::now() - wallStart)
                     .count()
              << " s wall" << std::endl;
    return complete ? 0 : 1;
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
    std::string run;
    std::string sceneKind = "wifi";
    std::string sizesText = "10,100";
    std::string workloads = "fedavg-wifi,fedavg-csma,fedavg-lte,gfl-wifi,dwfl-ota,stock";
    uint32_t shortRounds = 10;
    uint32_t longRounds = 100;
    double timeout = 600.0;
    bool energy = true;
    std::string workDir = "fl-scale-benchmark.d";
    uint64_t stockBytes = 0;
    flexample::FedAvgOptions o;
    o.quiet = true;
    o.output = "fl-scale-benchmark.csv"; // the benchmark's CSV; --run=fedavg: the run's

    flexample::Flags flags(__FILE__);
    flags.Cmd().Usage(
        "What paper-size runs cost on one machine, each number beside its goal. --part=memory "
        "runs every workload (FedAvg over Wi-Fi, CSMA and LTE with TCP and UDP, GFL with Wi-Fi "
        "cells, DWFL over the analog channel) for --shortRounds and --longRounds rounds at each "
        "of --sizes clients, each in its own process, and reports its peak resident memory "
        "(the child's getrusage) and the growth from the short to the long run (goal: at most "
        "5 %, each run under --timeout), beside stock ns-3's cost of one exchange on the same "
        "scene (BulkSend and PacketSink). --part=threads measures the training thread pool: the "
        "learning-only reference round and a Wi-Fi FedAvg run with 1 and 2 threads, side by "
        "side. --part=gfl times the paper-size GFL network run (10 servers, Wi-Fi cells of 100 "
        "clients, L = 11) with the cells' speed settings off and on (goal: 5x over 1,000 "
        "iterations). --part=fidelity runs fl-flow-validation on FedAvg over Wi-Fi, CSMA and "
        "LTE and GFL with Wi-Fi cells (goals: round duration within 10 %, 20x faster, the same "
        "models). --run=fedavg|stock runs one case (what the memory "
        "part starts).");
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
    flags.AddChoice("run", "Run one case instead: fedavg or stock (empty: benchmark)", run,
                    {"", "fedavg", "stock"});
    flags.AddChoice("scene", "--run: wifi, csma or lte", sceneKind, {"wifi", "csma", "lte"});
    flags.AddBool("energy", "--run=fedavg --scene=wifi: measure radio energy", energy);
    flags.AddWhole<uint64_t>("stockBytes",
                             "--run=stock: bytes each way per client (0 = the FedAvg model's "
                             "float32 parameters)",
                             stockBytes);
    flexample::AddFedAvgOptions(flags, o);
    std::vector<uint32_t> sizes;
    std::set<std::string> chosen;
    flags.AddCheck([&]() {
        if (o.clients > FlLteMaxClients() && run == "fedavg" && sceneKind == "lte")
        {
            throw fl::ConfigError("--clients",
                                  std::to_string(o.clients) + " exceeds the " +
                                      std::to_string(FlLteMaxClients()) +
                                      " UEs one eNB serves here",
                                  "lower it");
        }
        if (!run.empty())
        {
            return; // one case: the benchmark's own flags do not apply
        }
        sizes = ParseSizes(sizesText);
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

    if (run == "fedavg")
    {
        return RunFedAvgScene(o, sceneKind, energy);
    }
    if (run == "stock")
    {
        if (stockBytes == 0)
        {
            std::shared_ptr<fl::LearningTask> task = flexample::BuildFedAvgTask(o);
            if (!task)
            {
                return 2;
            }
            stockBytes = 4 * task->NumParameters(); // the float32 model
        }
        return RunStockScene(sceneKind, o.clients, stockBytes);
    }

    mkdir(workDir.c_str(), 0755);
    if (access(workDir.c_str(), W_OK | X_OK) != 0)
    {
        std::cerr << "fl-scale-benchmark: invalid --workDir: cannot create or write '" << workDir
                  << "' (fix: give a directory that can be created, or a writable one)"
                  << std::endl;
        return flexample::kExitBadFlag;
    }
    const std::string output = o.output;
    std::ofstream csv(output);
    csv << "part,workload,clients,rounds,peak_rss_mb,wall_s,status\n";
    const std::string self = SelfPath();
    const std::string dir = ProgramDir();
    auto file = [&workDir](const std::string& name) { return workDir + "/" + name; };

    if (part == "threads")
    {
        // (a) learning only, 1 and 2 threads side by side in one run of the benchmark
        const std::string a = file("threads-reference.csv");
        ChildCost cost = RunChild({dir + "/fl-benchmark-fedavg", "--modes=a", "--threads=2",
                                   "--rounds=20", "--output=" + a},
                                  file("threads-reference.log"),
                                  timeout);
        const double speedup = ReadSummary(a, "a_thread_speedup");
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
                ChildCost c = RunChild({self, "--run=fedavg", "--scene=wifi", "--clients=20",
                                        "--rounds=5", "--quiet", "--samplesPerClient=2000",
                                        "--model=mlp:hidden=256",
                                        "--FlTrainingThreads=" + std::to_string(t + 1),
                                        "--output=" + file("threads-wifi.csv")},
                                       file("threads-wifi.log"),
                                       timeout);
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
            std::vector<std::string> args{dir + "/fl-gfl",
                                          "--figure=bench",
                                          "--benchClients=100",
                                          "--benchIterations=" + std::to_string(iterations),
                                          "--sampled=11",
                                          "--iterations=1",
                                          "--quiet",
                                          "--output=" + out};
            args.insert(args.end(), st.flags.begin(), st.flags.end());
            ChildCost cost = RunChild(args, file("gfl-bench.log"), timeout);
            double perIteration = std::nan("");
            double setup = std::nan("");
            std::ifstream in(out);
            std::string line;
            while (std::getline(in, line))
            {
                std::stringstream ss(line);
                std::string it;
                std::string variant;
                std::string metric;
                std::string value;
                std::getline(ss, it, ',');
                std::getline(ss, variant, ',');
                std::getline(ss, metric, ',');
                std::getline(ss, value, ',');
                if (variant == "bench/network-K100" && metric == "wall_s_per_iteration")
                {
                    perIteration = std::stod(value);
                }
                if (variant == "bench/network-K100" && metric == "setup_wall_s")
                {
                    setup = std::stod(value);
                }
            }
            const double total = setup + 999.0 * perIteration;
            projected.push_back(total);
            std::cout << std::left << std::setw(46) << st.name << std::right << std::fixed
                      << std::setprecision(3) << " set-up " << setup << " s, " << perIteration
                      << " s per iteration: 1,000 iterations in " << std::setprecision(0) << total
                      << " s" << (cost.exitCode == 0 ? "" : " (the run FAILED)") << std::endl;
            csv << "gfl," << st.name << ",1000,1000," << perIteration << "," << total << ","
                << (cost.exitCode == 0 ? "ok" : "failed") << "\n";
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
        const std::string log = file("fidelity.log");
        // the validation set: client counts and model sizes the parameters were not fitted on
        // (FedAvg), GFL sizes they were not fitted on (gfl-wifi: P x K, L)
        ChildCost cost = RunChild({dir + "/fl-flow-validation",
                                   "--networks=wifi,csma,lte,gfl-wifi",
                                   "--clients=5,15",
                                   "--models=mlp:hidden=256,mlp:hidden=512,mlp:hidden=1024",
                                   "--gflSizes=3x50x30,10x50x11,10x100x11"},
                                  log,
                                  timeout * 4);
        std::ifstream in(log);
        std::string line;
        bool table = false;
        uint32_t rows = 0;
        uint32_t metRows = 0;
        uint32_t roundRows = 0; // within 10 % on the mean round duration
        while (std::getline(in, line))
        {
            std::stringstream ss(line);
            std::vector<std::string> f;
            std::string w;
            while (ss >> w)
            {
                f.push_back(w);
            }
            if (!f.empty() && f[0] == "network")
            {
                table = true;
                continue;
            }
            if (!table || f.size() < 13)
            {
                continue;
            }
            const double err = std::stod(f[5]);
            const std::string ttaErr = f[8];
            const double speedup = std::stod(f[12]);
            const bool same = f[9] == "yes";
            const bool ok = std::abs(err) <= 10.0 && speedup >= 20.0 && same;
            ++rows;
            metRows += ok ? 1 : 0;
            roundRows += std::abs(err) <= 10.0 ? 1 : 0;
            std::cout << std::left << std::setw(9) << f[0] << std::right << std::setw(4) << f[1]
                      << " clients, " << std::left << std::setw(18) << f[2] << std::right
                      << " round duration " << std::setw(6) << f[5] << " % (goal within 10 %), "
                      << "time to accuracy " << std::setw(6) << ttaErr << " %, "
                      << std::setw(4) << f[12] << "x faster (goal 20x), same models: " << f[9]
                      << ": " << (ok ? "met" : "NOT met") << std::endl;
            csv << "fidelity," << f[0] << "-" << f[2] << "," << f[1] << ",," << err << ","
                << speedup << "," << (ok ? "met" : "not_met") << "\n";
        }
        std::cout << metRows << " of " << rows << " validation runs meet every goal; "
                  << roundRows << " of " << rows << " the round duration's"
                  << (cost.exitCode == 0 ? "" : " (fl-flow-validation FAILED, see " + log + ")")
                  << std::endl;
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
    std::map<std::pair<std::string, uint32_t>, double> stock;
    for (uint32_t n : sizes)
    {
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
                if (scene == "lte" && transport == "udp")
                {
                    continue; // the LTE scene carries TCP (RLC AM)
                }
                const std::string name = "fedavg-" + scene + "-" + transport;
                workloadArgs.emplace_back(name, [=](uint32_t rounds) {
                    return std::vector<std::string>{self,
                                                    "--run=fedavg",
                                                    "--scene=" + scene,
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
                return std::vector<std::string>{dir + "/fl-gfl",
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
                return std::vector<std::string>{dir + "/fl-dwfl-benchmark",
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
            g.shortRun = RunChild(c.args, file(name + "-" + std::to_string(n) + "-short.log"), timeout);
            Report(csv, c, g.shortRun);
            c.rounds = longRounds;
            c.args = makeArgs(longRounds);
            g.longRun = RunChild(c.args, file(name + "-" + std::to_string(n) + "-long.log"), timeout);
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
                             {self, "--run=stock", "--scene=" + scene,
                              "--clients=" + std::to_string(n)}};
                ChildCost cost = RunChild(c.args, file(c.workload + "-" + std::to_string(n) + ".log"), timeout);
                Report(csv, c, cost);
                stock[{scene, n}] = cost.exitCode == 0 ? cost.peakRssMb : std::nan("");
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
