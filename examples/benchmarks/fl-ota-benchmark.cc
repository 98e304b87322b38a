/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * fl-ota-benchmark: the cost of one analog over-the-air slot in which N nodes all transmit and
 * all receive (DWFL's exchange), per (symbol x contributor).
 *
 * For N in {10, 30, 100} and d in {1e4, 1e5} real values (ceil(d/2) symbols) it times
 *  - the pure kernels: sum-once-remove-own (fl::SuperposeExcludingEach, O(N d)) and the naive
 *    loop that sums N - 1 signals for every receiver (fl::SuperposeExcludingEachNaive,
 *    O(N^2 d));
 *  - a whole slot through ns-3 (OtaPhy + OtaChannel, events, metadata, delivery) on a
 *    sender-only channel (the channel's shared per-slot sum: O(N d)) and on a per-link channel
 *    (each receiver superposes its own N - 1 coefficients: O(N^2 d), payloads never copied).
 * Receivers are noiseless so that the superposition itself is timed. This is a benchmark, not a
 * test: it prints and writes numbers, and checks only that the fast and naive sums agree.
 *
 *   fl-ota-benchmark                 # full grid (about a minute)
 *   fl-ota-benchmark --quick         # d = 1e4 only
 */

#include "../fl-example-flags.h"

#include "ns3/mobility-module.h"
#include "ns3/ota-helper.h"
#include "ns3/ota-signal.h"

#include <algorithm>
#include <chrono>
#include <fstream>
#include <iomanip>
#include <iostream>

using namespace ns3;

NS_LOG_COMPONENT_DEFINE("FlOtaBenchmark");

namespace
{

using Clock = std::chrono::steady_clock;

double
Elapsed(Clock::time_point a, Clock::time_point b)
{
    return std::chrono::duration<double>(b - a).count();
}

/// Times f() repeatedly until at least minTime has passed; returns seconds per call.
template <typename F>
double
TimePerCall(F&& f, double minTime)
{
    int calls = 0;
    const auto t0 = Clock::now();
    double elapsed = 0.0;
    do
    {
        f();
        ++calls;
        elapsed = Elapsed(t0, Clock::now());
    } while (elapsed < minTime);
    return elapsed / calls;
}

/// One ns-3 slot (averaged over `reps` slots) with N all-transmit, all-receive nodes.
double
Ns3SlotSeconds(uint32_t n,
               const std::vector<std::shared_ptr<const fl::SymbolVector>>& payload,
               std::size_t d,
               bool senderOnly,
               uint32_t reps,
               uint64_t* received)
{
    NodeContainer nodes;
    nodes.Create(n);
    MobilityHelper mobility;
    mobility.SetPositionAllocator("ns3::UniformDiscPositionAllocator", "rho", DoubleValue(50.0));
    mobility.SetMobilityModel("ns3::ConstantPositionMobilityModel");
    mobility.Install(nodes);
    OtaHelper ota;
    ota.SetChannelAttribute("Structure", StringValue(senderOnly ? "SenderOnly" : "PerLink"));
    ota.SetChannelAttribute("SlotDuration", TimeValue(OtaHelper::SlotDurationFor(d, 1e6)));
    ota.SetPhyAttribute("NoiseModel", StringValue("Fixed"));
    ota.SetPhyAttribute("NoiseVariance", DoubleValue(0.0));
    ota.SetPhyAttribute("SyncTolerance", TimeValue(MicroSeconds(2)));
    OtaPhyContainer phys = ota.Install(nodes);
    OtaHelper::AssignStreams(phys, 100);
    uint64_t count = 0;
    double checksum = 0.0;
    for (const auto& phy : phys)
    {
        phy->SetReceiveCallback(FlCallback<void, const OtaReception&>([&](const OtaReception& r) {
            ++count;
            checksum += std::abs(r.symbols[0]);
        }));
    }
    for (uint32_t r = 0; r < reps; ++r)
    {
        for (uint32_t k = 0; k < n; ++k)
        {
            phys.Get(k)->Transmit(r, payload[k], fl::Complex(1.0, 0.0));
        }
    }
    const auto t0 = Clock::now();
    Simulator::Run();
    const double t = Elapsed(t0, Clock::now());
    Simulator::Destroy();
    *received = count;
    NS_ABORT_MSG_IF(!(checksum >= 0.0), "bad checksum");
    return t / reps;
}

} // namespace

int
main(int argc, char* argv[])
{
    bool quick = false;
    double minTime = 0.2;
    std::string output = "fl-ota-benchmark.csv";
    flexample::Flags flags(__FILE__);
    flags.Cmd().Usage("Cost of an analog over-the-air slot (all N nodes transmit and receive) per "
                      "(symbol x contributor): sum-once-remove-own against the naive O(N^2 d) "
                      "loop, as pure kernels and through the ns-3 channel and phy.");
    flags.AddBool("quick", "Only d = 1e4", quick);
    flags.AddReal("minTime",
                  "Minimum measuring time per pure kernel [s]",
                  minTime,
                  flexample::Range{0.0, 60.0, true, false});
    flags.AddOutput("output", "CSV output file", output, false);
    if (!flags.Parse(argc, argv))
    {
        return flexample::kExitBadFlag;
    }

    std::ofstream csv(output);
    if (!csv)
    {
        std::cerr << "fl-ota-benchmark: cannot write " << output << std::endl;
        return 2;
    }
    csv << "n,d,symbols,ns3_slots,pure_sumonce_s,pure_naive_s,ns3_senderonly_s,ns3_perlink_s,"
           "cost_sumonce_ns,cost_naive_ns,cost_ns3_senderonly_ns,cost_ns3_perlink_ns,"
           "speedup_pure,speedup_ns3,max_rel_diff\n";
    std::cout << "fl-ota-benchmark: one slot, every node transmits and receives; cost per "
                 "(symbol x contributor) in ns"
              << std::endl;
    std::cout << std::setw(5) << "N" << std::setw(8) << "d" << std::setw(11) << "sum-once"
              << std::setw(11) << "naive" << std::setw(9) << "speedup" << std::setw(13)
              << "ns3 sender" << std::setw(13) << "ns3 perlink" << std::setw(9) << "speedup"
              << std::setw(12) << "max |diff|" << std::endl;

    std::vector<std::size_t> dims = {10000, 100000};
    if (quick)
    {
        dims = {10000};
    }
    const auto wall0 = Clock::now();
    for (std::size_t d : dims)
    {
        for (uint32_t n : {10u, 30u, 100u})
        {
            const Eigen::Index nsym = static_cast<Eigen::Index>(fl::SymbolCount(d));
            fl::Rng rng(n * 1000 + d);
            std::normal_distribution<double> g(0.0, 1.0);
            std::vector<std::shared_ptr<const fl::SymbolVector>> payload(n);
            std::vector<const fl::SymbolVector*> ptr(n);
            std::vector<fl::Complex> a(n);
            for (uint32_t k = 0; k < n; ++k)
            {
                auto s = std::make_shared<fl::SymbolVector>(nsym);
                for (Eigen::Index m = 0; m < nsym; ++m)
                {
                    (*s)[m] = fl::Complex(g(rng), g(rng));
                }
                payload[k] = s;
                ptr[k] = s.get();
                a[k] = fl::Complex(g(rng), g(rng));
            }
            std::vector<fl::SymbolVector> fast;
            std::vector<fl::SymbolVector> naive;
            const double tFast =
                TimePerCall([&]() { fl::SuperposeExcludingEach(ptr, a, fast); }, minTime);
            const double tNaive =
                TimePerCall([&]() { fl::SuperposeExcludingEachNaive(ptr, a, naive); }, minTime);
            double maxRel = 0.0;
            for (uint32_t i = 0; i < n; ++i)
            {
                maxRel = std::max(maxRel, (fast[i] - naive[i]).norm() / naive[i].norm());
            }
            fast.clear();
            naive.clear();

            const double work =
                static_cast<double>(n) * static_cast<double>(n) * static_cast<double>(nsym);
            const uint32_t reps = static_cast<uint32_t>(std::clamp(2e8 / work, 1.0, 100.0));
            uint64_t rxSender = 0;
            uint64_t rxLink = 0;
            const double tSender = Ns3SlotSeconds(n, payload, d, true, reps, &rxSender);
            const double tLink = Ns3SlotSeconds(n, payload, d, false, reps, &rxLink);
            NS_ABORT_MSG_IF(rxSender != uint64_t(n) * reps || rxLink != uint64_t(n) * reps,
                            "missing receptions");

            const double unit = static_cast<double>(n) * static_cast<double>(nsym) / 1e9;
            csv << n << ',' << d << ',' << nsym << ',' << reps << ',' << tFast << ',' << tNaive
                << ',' << tSender << ',' << tLink << ',' << tFast / unit << ',' << tNaive / unit
                << ',' << tSender / unit << ',' << tLink / unit << ',' << tNaive / tFast << ','
                << tLink / tSender << ',' << maxRel << '\n';
            csv.flush();
            std::cout << std::setw(5) << n << std::setw(8) << d << std::fixed
                      << std::setprecision(2) << std::setw(11) << tFast / unit << std::setw(11)
                      << tNaive / unit << std::setw(8) << tNaive / tFast << "x" << std::setw(13)
                      << tSender / unit << std::setw(13) << tLink / unit << std::setw(8)
                      << tLink / tSender << "x" << std::defaultfloat << std::setprecision(2)
                      << std::setw(12) << maxRel << std::setprecision(6) << std::endl;
        }
    }
    std::cout << "wall_s=" << std::setprecision(3) << Elapsed(wall0, Clock::now())
              << "\nresults: " << output << std::endl;
    return 0;
}
