/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * fl-gfl-mpi: one GFL network simulation (E. Rizk, S. Vlaski, A. H. Sayed, "Privatized Graph
 * Federated Learning", arXiv:2203.07105, 2022: the regression of Section V-A, graph-homomorphic
 * Laplace noise) split across the ranks of ns-3's distributed simulator. The P servers are linked
 * by point-to-point links along an Erdos-Renyi graph (each link is a remote point-to-point
 * channel when its servers live on two ranks; its 2 ms delay is the lookahead); each server's
 * Wi-Fi cell of K clients lives on the server's rank (--placement), so a rank simulates only its
 * cells' Wi-Fi. Every rank reports its servers' models (the ModelReport trace); rank 0 gathers
 * them (MPI) and feeds them, round by round in the order of simulated time, to one
 * FlLearningTracker, which writes the CSV (round,time_s,node,role,metric,value) that the run on
 * one process writes, byte for byte. The reports carry what each server held before it
 * combined (psi_{p,i}), the neighbour messages it missed and the clients that dropped, so the
 * tracker's network view at rank 0 computes the per-iteration GFL metrics (--networkOutput:
 * iteration,time_s,metric,value) that the GFL helper's own tracker computes in a one-process
 * network run of the same scene (--tracker=helper runs that for comparison).
 *
 *   mpirun -np 2 fl-gfl-mpi --output=gfl-mpi.csv      # in an ns-3 tree built with MPI
 *   fl-gfl-mpi                                        # one process (any build)
 *
 * The MPI route needs ns-3 configured with --enable-mpi (utils/build-mpi-tree.sh builds an
 * ns-3.37 tree with the module linked in); Debian's ns-3 packages have no mpi module, so the
 * standalone build of this program runs every server in one process and says so.
 * Paper size: --servers=10 --clients=100 --sampled=11.
 */
#include "../fl-example-flags.h"

#include "ns3/core-module.h"
#include "ns3/fl-learning-tracker.h"
#include "../support/gfl-figures.h"
#include "ns3/gfl-helper.h"
#include "ns3/gfl.h"
#include "ns3/graph.h"
#include "ns3/learning-task.h"
#include "ns3/linear-models.h"
#include "ns3/metrics.h"
#include "ns3/rank-partition.h"
#include "ns3/synthetic-data.h"

#ifdef FL_HAVE_MPI
#include "ns3/mpi-interface.h"

#include <mpi.h>
#endif

#include <chrono>
#include <cmath>
#include <ctime>
#include <cstdlib>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

using namespace ns3;

namespace
{

/// The ranks and this process's rank (1 and 0 without MPI).
struct Ranks
{
    uint32_t size{1};
    uint32_t rank{0};
};

/// What a rank spent, gathered to rank 0.
struct RankCost
{
    double runWallS{0.0};   ///< wall time of Simulator::Run
    double runCpuS{0.0};    ///< CPU time of this process during Simulator::Run
    double events{0.0};     ///< events executed
    double servers{0.0};    ///< local servers
    double clients{0.0};    ///< local clients
};

/// Copies a report's model (or aggregate) values.
std::vector<double>
Values(const fl::ParamVector& v)
{
    std::vector<double> out(v.Size());
    for (std::size_t i = 0; i < out.size(); ++i)
    {
        out[i] = v.At(i);
    }
    return out;
}

/// A packed model (or aggregate) as a ParamVector of its precision.
fl::ParamVector
ToParamVector(const std::vector<double>& values, bool float32)
{
    Eigen::VectorXd v = Eigen::Map<const Eigen::VectorXd>(values.data(), values.size());
    return float32 ? fl::ParamVector(Eigen::VectorXf(v.cast<float>()))
                   : fl::ParamVector(std::move(v));
}

/// Keeps the models this rank's servers report (ModelReport trace) with their simulated time.
struct ReportSpool
{
    std::vector<fl::RankModelReport> reports; ///< in the order reported

    /// The ModelReport trace sink of graph node (server) `index`.
    void Add(uint32_t index, const FlModelReport& r)
    {
        fl::RankModelReport m;
        m.round = r.round;
        m.node = r.node;
        m.role = static_cast<uint32_t>(r.role);
        m.timeS = Simulator::Now().GetSeconds();
        m.float32 = r.model->GetPrecision() == fl::Precision::Float32;
        m.countsBytes = r.countsBytes;
        m.bytesSent = r.bytesSent;
        m.bytesReceived = r.bytesReceived;
        m.model = Values(*r.model);
        m.graphIndex = index;
        m.missingNeighbours = r.missingNeighbours;
        m.droppedClients = r.droppedClients;
        if (r.aggregate)
        {
            m.hasAggregate = true;
            m.aggregateFloat32 = r.aggregate->GetPrecision() == fl::Precision::Float32;
            m.aggregate = Values(*r.aggregate);
        }
        reports.push_back(std::move(m));
    }
};

/// ReportSpool::Add bound to a server's graph index (MakeBoundCallback).
void
SpoolReport(ReportSpool* spool, uint32_t index, const FlModelReport& r)
{
    spool->Add(index, r);
}

/// One row of the network view's CSV per metric of an iteration (iteration,time_s,metric,value).
void
WriteNetworkRows(std::ostream& os, const fl::NetworkIterationReport& r, double timeS)
{
    // time as the tracker writes it (10 digits); values exact (17 digits: the double itself)
    auto row = [&](const char* metric, double value) {
        os << r.iteration << ',' << std::setprecision(10) << timeS << ',' << metric << ','
           << std::setprecision(17) << value << '\n';
    };
    row("msd_centroid_db", fl::ToDb(r.centroidMsd));
    row("msd_average_db", fl::ToDb(r.averageMsd));
    row("disagreement", r.disagreement);
    row("centroid_drift", r.centroidDrift);
    row("lost_messages", static_cast<double>(r.lostMessages));
    row("dropped_clients", static_cast<double>(r.droppedClients));
    // without gradient clipping (this program clips none) a release's epsilon is infinite
    if (std::isfinite(r.epsilonOneLink))
    {
        row("epsilon_one_link", r.epsilonOneLink);
    }
    if (std::isfinite(r.epsilonAllLinks))
    {
        row("epsilon_all_links", r.epsilonAllLinks);
    }
    if (std::isfinite(r.epsilonNeighbour))
    {
        row("epsilon_neighbour", r.epsilonNeighbour);
    }
}

/// CPU time of this process [s].
double
ProcessCpuSeconds()
{
    timespec t{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

/// Gathers every rank's doubles to rank 0 (concatenated in rank order); others get nothing.
std::vector<double>
GatherToRoot(const std::vector<double>& mine, const Ranks& ranks)
{
#ifdef FL_HAVE_MPI
    if (MpiInterface::IsEnabled())
    {
        MPI_Comm comm = MpiInterface::GetCommunicator();
        long long n = static_cast<long long>(mine.size());
        std::vector<long long> counts(ranks.size, 0);
        MPI_Gather(&n, 1, MPI_LONG_LONG, counts.data(), 1, MPI_LONG_LONG, 0, comm);
        std::vector<int> icounts(ranks.size, 0);
        std::vector<int> displs(ranks.size, 0);
        std::vector<double> all;
        if (ranks.rank == 0)
        {
            long long total = 0;
            for (uint32_t r = 0; r < ranks.size; ++r)
            {
                if (counts[r] > 2147483647LL || total > 2147483647LL - counts[r])
                {
                    std::cerr << "fl-gfl-mpi: the reports of the ranks exceed one MPI gather "
                                 "(2^31 values); run fewer --iterations"
                              << std::endl;
                    MPI_Abort(comm, 1);
                }
                icounts[r] = static_cast<int>(counts[r]);
                displs[r] = static_cast<int>(total);
                total += counts[r];
            }
            all.resize(static_cast<std::size_t>(total));
        }
        MPI_Gatherv(mine.data(),
                    static_cast<int>(n),
                    MPI_DOUBLE,
                    all.data(),
                    icounts.data(),
                    displs.data(),
                    MPI_DOUBLE,
                    0,
                    comm);
        return all;
    }
#endif
    (void)ranks;
    return mine;
}

/// Releases MPI (every exit path once MPI is enabled).
void
EndMpi()
{
#ifdef FL_HAVE_MPI
    if (MpiInterface::IsEnabled())
    {
        MpiInterface::Disable();
    }
#endif
}

} // namespace

int
main(int argc, char* argv[])
{
    Ranks ranks;
#ifdef FL_HAVE_MPI
    // the granted-time-window synchronisation: a rank that has stopped keeps taking part in the
    // window computations until every rank has (ranks stop at different times here: each when
    // its own servers are done)
    GlobalValue::Bind("SimulatorImplementationType", StringValue("ns3::DistributedSimulatorImpl"));
    MpiInterface::Enable(&argc, &argv);
    ranks.size = MpiInterface::GetSize();
    ranks.rank = MpiInterface::GetSystemId();
#else
    // Started by mpirun without MPI in this build: every process would run the whole
    // simulation and write the same file.
    for (const char* var : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE"})
    {
        const char* v = std::getenv(var);
        if (v && std::atoi(v) > 1)
        {
            std::cerr << "fl-gfl-mpi: this build has no MPI (ns-3's mpi module is missing; "
                         "Debian's ns-3 packages have none) but mpirun started "
                      << v
                      << " processes (fix: run it without mpirun, or build the MPI route with "
                         "utils/build-mpi-overlay.sh or utils/build-mpi-tree.sh)"
                      << std::endl;
            return 2;
        }
    }
#endif

    uint32_t P = 10;
    uint32_t K = 100;
    uint32_t L = 11;
    uint32_t iterations = 10;
    uint64_t seed = 1;
    std::string cell = "wifi";
    std::string placement = "block";
    std::string output = "fl-gfl-mpi.csv";
    std::string networkOutput;
    std::string costOutput;
    std::string trackerKind = "gathered";
    double linkDelayMs = 2.0;
    double edgeProbability = 0.4;

    flexample::Flags flags(__FILE__);
    flags.Cmd().Usage(
        "One GFL network simulation (Rizk, Vlaski, Sayed, arXiv:2203.07105, 2022; the "
        "regression of Section V-A) split across MPI ranks with ns-3's distributed simulator: "
        "server p and its Wi-Fi cell on one rank (--placement), the servers' point-to-point "
        "links crossing ranks. Rank 0 gathers every server's models and writes one CSV, the "
        "same bytes on 1, 2 or 4 ranks. Run with mpirun -np R in an ns-3 tree built with MPI "
        "(utils/build-mpi-tree.sh); without MPI it runs on one process. Paper size: "
        "--servers=10 --clients=100 --sampled=11.");
    flags.AddWhole<uint32_t>("servers", "P: servers (>= 1; at least the number of ranks)", P, 1,
                             4096);
    flags.AddWhole<uint32_t>("clients", "K: clients in each server's cell (>= 1)", K, 1, 1000);
    flags.AddWhole<uint32_t>("sampled",
                             "L: clients sampled per server and iteration (1..K)",
                             L,
                             1,
                             1000);
    flags.AddWhole<uint32_t>("iterations", "GFL iterations (>= 1)", iterations, 1, 100000);
    flags.AddRefusedAlias("seed",
                          "--RngRun=N",
                          " (the run number, ns-3's --RngRun, seeds the data, graph, sampling "
                          "and noise)");
    flags.AddRefusedAlias("FlGraphFidelity",
                          "fl-gfl --mode=network --network=flow for a flow-level run",
                          ": it simulates packets across ranks (the flow-level model runs in "
                          "one process)");
    flags.AddChoice("cell", "clients' cells: wifi (802.11a) or csma", cell, {"wifi", "csma"});
    flags.AddChoice("placement",
                    "servers on ranks: block (neighbouring indices together) or round-robin",
                    placement,
                    {"block", "round-robin"});
    flags.AddReal("linkDelayMs",
                  "delay of the server-to-server links [ms] (> 0: the distributed simulator's "
                  "lookahead)",
                  linkDelayMs,
                  {0.001, 1000.0});
    flags.AddReal("edgeProbability",
                  "edge probability of the servers' Erdos-Renyi graph (0, 1]; redrawn until "
                  "connected",
                  edgeProbability,
                  {0.0, 1.0, true, false});
    flags.AddOutput("output", "the tracker's CSV (rank 0 writes it)", output, false);
    flags.AddOutput("networkOutput",
                    "the network view's CSV: iteration,time_s,metric,value (GFL metrics per "
                    "iteration: MSD of the centroid and average MSD in dB against w°, "
                    "disagreement, centroid drift, lost messages, dropped clients; rank 0 writes "
                    "it; empty = --output with -network.csv for .csv)",
                    networkOutput,
                    true);
    flags.AddChoice("tracker",
                    "whose network view writes --networkOutput: gathered (rank 0's tracker, fed "
                    "every rank's reports after the run) or helper (the GFL helper's own tracker "
                    "watching the servers during the run: the one-process network run, on 1 "
                    "rank only, for comparison)",
                    trackerKind,
                    {"gathered", "helper"});
    flags.AddOutput("costOutput",
                    "per-rank cost CSV: ranks,rank,servers,clients,run_wall_s,run_cpu_s,events "
                    "(empty = none)",
                    costOutput,
                    true);
    flags.AddCheck([&]() {
        if (L > K)
        {
            throw fl::ConfigError("--sampled",
                                  std::to_string(L) + " sampled of " + std::to_string(K) +
                                      " clients",
                                  "give --sampled <= --clients");
        }
    });
    if (!flags.Parse(argc, argv))
    {
        EndMpi();
        return flexample::kExitBadFlag;
    }
    if (networkOutput.empty())
    {
        const bool csv = output.size() >= 4 && output.compare(output.size() - 4, 4, ".csv") == 0;
        networkOutput = (csv ? output.substr(0, output.size() - 4) : output) + "-network.csv";
    }
    const bool helperTracker = trackerKind == "helper";
    if (helperTracker && ranks.size > 1)
    {
        if (ranks.rank == 0)
        {
            std::cerr << "fl-gfl-mpi: --tracker=helper on " << ranks.size
                      << " ranks (a rank's helper sees only its own servers; fix: run it on one "
                         "process, or use --tracker=gathered)"
                      << std::endl;
        }
        EndMpi();
        return flexample::kExitBadFlag;
    }
    std::vector<uint32_t> rankOf;
    try
    {
        rankOf = fl::PartitionServers(P, ranks.size, placement);
    }
    catch (const fl::ConfigError& e)
    {
        if (ranks.rank == 0)
        {
            std::cerr << "fl-gfl-mpi: " << e.what() << " (--servers=" << P << ")" << std::endl;
        }
        EndMpi();
        return flexample::kExitBadFlag;
    }
    if (ranks.rank == 0)
    {
#ifdef FL_HAVE_MPI
        std::cout << "fl-gfl-mpi: " << ranks.size
                  << " rank(s), ns-3's DistributedSimulatorImpl (granted time window)" << std::endl;
#else
        std::cout << "fl-gfl-mpi: this build has no MPI (ns-3's mpi module is missing; Debian's "
                     "ns-3 packages have none): every server runs in this process. "
                     "utils/build-mpi-overlay.sh (then cmake -DFL_MPI_OVERLAY=DIR) or "
                     "utils/build-mpi-tree.sh builds the MPI route."
                  << std::endl;
#endif
    }

    // the regression of the GFL paper (Section V-A): M = 2, 100 samples per client, rho = 0.1;
    // the learning seed (data, graph, sampling, noise) is the run number
    seed = RngSeedManager::GetRun();
    GflRegressionRun r = MakeGflNetworkRegressionRun(P, K, L, edgeProbability, iterations, seed);
    const Eigen::VectorXd wOpt = r.setup.wOpt;
    auto task = r.setup.task;
    fl::GflConfig& c = r.config;

    const auto t0 = std::chrono::steady_clock::now();
    FlGraphSceneHelper sceneHelper;
    sceneHelper.SetCell(cell);
    sceneHelper.SetServerLinkDelay(
        MicroSeconds(static_cast<int64_t>(std::llround(linkDelayMs * 1e3))));
    sceneHelper.SetPartition(rankOf, ranks.rank);
    FlGraphScene scene;
    try
    {
        scene = sceneHelper.Build(c.combination, K);
    }
    catch (const fl::ConfigError& e)
    {
        if (ranks.rank == 0)
        {
            std::cerr << "fl-gfl-mpi: " << e.what() << std::endl;
        }
        EndMpi();
        return flexample::kExitBadFlag;
    }
    FlGflHelper gfl(task, c);
    // The network view: the helper's tracker (FlGflHelper sets it up for P servers, with w° and
    // the graph privacy accountant of the servers' noise). Partitioned, nothing feeds it during
    // the run and rank 0 records every rank's gathered reports in it afterwards; with
    // --tracker=helper the helper installs it on the servers (the one-process network run).
    std::ostringstream networkRows;
    double completedAt = 0.0; // simulated time of the report that completes an iteration
    gfl.SetIterationCallback([&](const fl::NetworkIterationReport& r) {
        WriteNetworkRows(networkRows,
                         r,
                         helperTracker ? Simulator::Now().GetSeconds() : completedAt);
    });
    if (!helperTracker)
    {
        gfl.SetPartition(rankOf, ranks.rank);
    }
    std::vector<Ptr<FlServerApplication>> servers = gfl.Install(scene);

    // this rank's servers' models, with the simulated time of each report; Install returns the
    // local servers in the order of their graph index p
    ReportSpool spool;
    {
        std::size_t next = 0;
        for (uint32_t p = 0; p < P; ++p)
        {
            if (!helperTracker && rankOf[p] != ranks.rank)
            {
                continue;
            }
            servers.at(next++)->TraceConnectWithoutContext(
                "ModelReport",
                MakeBoundCallback(&SpoolReport, &spool, p));
        }
    }
    const auto built = std::chrono::steady_clock::now();
    const double cpu0 = ProcessCpuSeconds();
    Simulator::Run();
    const double cpu1 = ProcessCpuSeconds();
    const auto ran = std::chrono::steady_clock::now();

    RankCost cost;
    cost.runWallS = std::chrono::duration<double>(ran - built).count();
    cost.runCpuS = cpu1 - cpu0;
    cost.events = static_cast<double>(Simulator::GetEventCount());
    cost.servers = static_cast<double>(servers.size());
    cost.clients = static_cast<double>(gfl.Clients().size());
    const std::vector<double> costs =
        GatherToRoot({cost.runWallS, cost.events, cost.servers, cost.clients, cost.runCpuS}, ranks);
    const std::vector<double> all = GatherToRoot(fl::PackModelReports(spool.reports), ranks);
    spool.reports.clear();

    int status = 0;
    if (ranks.rank == 0)
    {
        std::vector<fl::RankModelReport> merged;
        try
        {
            merged = fl::UnpackModelReports(all.data(), all.size());
        }
        catch (const fl::ConfigError& e)
        {
            std::cerr << "fl-gfl-mpi: the gathered reports are malformed: " << e.what()
                      << std::endl;
            Simulator::Destroy();
            EndMpi();
            return 1;
        }
        fl::SortModelReports(merged);
        Ptr<FlLearningTracker> tracker = gfl.Tracker();
        tracker->SetAttribute("OutputFile", StringValue(output));
        // (the regression has no held-out data: MSD against w° is the metric)
        tracker->SetReferenceOptimum(wOpt);
        std::size_t last = 0;
        for (const auto& m : merged)
        {
            const fl::ParamVector model = ToParamVector(m.model, m.float32);
            const fl::ParamVector aggregate = ToParamVector(m.aggregate, m.aggregateFloat32);
            FlModelReport r;
            r.round = m.round;
            r.node = m.node;
            r.role = static_cast<FlNodeRole>(m.role);
            r.model = &model;
            r.aggregate = m.hasAggregate ? &aggregate : nullptr;
            r.missingNeighbours = m.missingNeighbours;
            r.droppedClients = m.droppedClients;
            r.countsBytes = m.countsBytes;
            r.bytesSent = m.bytesSent;
            r.bytesReceived = m.bytesReceived;
            tracker->Record(r, m.timeS);
            if (!helperTracker)
            {
                if (m.graphIndex >= P)
                {
                    std::cerr << "fl-gfl-mpi: a gathered report names server " << m.graphIndex
                              << " of " << P << std::endl;
                    Simulator::Destroy();
                    EndMpi();
                    return 1;
                }
                completedAt = m.timeS;
                tracker->RecordNetwork(m.graphIndex, r);
            }
            last = std::max<std::size_t>(last, m.round);
        }
        tracker->Flush();
        {
            std::ofstream f(networkOutput);
            f << "iteration,time_s,metric,value\n" << networkRows.str();
            if (!f.flush())
            {
                std::cerr << "fl-gfl-mpi: cannot write " << networkOutput << std::endl;
                status = 1;
            }
        }
        const double wall = std::chrono::duration<double>(ran - t0).count();
        double maxRun = 0.0;
        for (uint32_t r = 0; r < ranks.size; ++r)
        {
            maxRun = std::max(maxRun, costs[5 * r]);
        }
        std::cout << "fl-gfl-mpi: P = " << P << " servers, K = " << K << " clients per " << cell
                  << " cell, L = " << L << ", " << iterations << " iterations, " << merged.size()
                  << " server reports gathered; last round " << last << ", centroid MSD "
                  << std::setprecision(6) << tracker->GetLast("centroid", "msd_db")
                  << " dB; network view (" << trackerKind << "): " << tracker->CompletedIterations()
                  << " iterations complete at every server, "
                  << tracker->NetworkResult().lostMessages << " lost messages" << std::endl;
        std::cout << "  Simulator::Run " << maxRun << " s wall (slowest rank); set-up and run "
                  << wall << " s on rank 0" << std::endl;
        for (uint32_t r = 0; r < ranks.size; ++r)
        {
            std::cout << "  rank " << r << ": " << costs[5 * r + 2] << " servers, "
                      << costs[5 * r + 3] << " clients, " << costs[5 * r + 1] << " events, "
                      << costs[5 * r] << " s wall, " << costs[5 * r + 4] << " s CPU" << std::endl;
        }
        if (tracker->CompletedIterations() < iterations)
        {
            std::cerr << "fl-gfl-mpi: the network view completed " << tracker->CompletedIterations()
                      << " of " << iterations << " iterations" << std::endl;
            status = 1;
        }
        if (last < iterations)
        {
            std::cerr << "fl-gfl-mpi: the servers reported " << last << " of " << iterations
                      << " iterations" << std::endl;
            status = 1;
        }
        if (!costOutput.empty())
        {
            std::ofstream f(costOutput);
            f << "ranks,rank,servers,clients,run_wall_s,run_cpu_s,events\n"
              << std::setprecision(10);
            for (uint32_t r = 0; r < ranks.size; ++r)
            {
                f << ranks.size << "," << r << "," << costs[5 * r + 2] << "," << costs[5 * r + 3]
                  << "," << costs[5 * r] << "," << costs[5 * r + 4] << "," << costs[5 * r + 1]
                  << "\n";
            }
        }
        std::cout << "  wrote " << output << " and " << networkOutput << std::endl;
    }
    Simulator::Destroy();
    EndMpi();
    return status;
}
