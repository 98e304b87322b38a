/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * fl-ota-aircomp: over-the-air computation of an average on the analog OTA channel.
 *
 * N transmitters on a circle around a receiver (equal path loss, ns-3 LogDistance model and
 * constant-speed delay) send random vectors (d real values, i.i.d. N(0, 1/2): unit symbol
 * energy) in the same slot. Small-scale fading is redrawn every slot (block fading). Before each
 * slot the transmitters learn their channel (perfect CSI by default) and align by truncated
 * channel inversion: senders with |g|^2 < threshold stay silent, the others arrive with the
 * common amplitude c = kappa sqrt(P G) min |g|. The receiver estimates the average of all N
 * vectors as y / (c * active). The example reports the estimate's MSE per real entry, averaged
 * over slots, against the mean SNR per sender (rho = P G / sigma^2) and against N, next to
 * the analytic MSE (fl::AirCompMseRayleighTruncated) and to the MSE predicted for the channels
 * that were actually drawn (fl::AirCompMseGivenChannel).
 *
 *   fl-ota-aircomp                                   # both sweeps, CSV fl-ota-aircomp.csv
 *   fl-ota-aircomp --slots=4000 --output=ota.csv && utils/plot-ota-aircomp.sh ota.csv
 *   fl-ota-aircomp --help
 */

#include "../fl-example-flags.h"

#include "ns3/mobility-module.h"
#include "ns3/ota-helper.h"
#include "ns3/ota-power-control.h"
#include "ns3/ota-signal.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <limits>
#include <map>

using namespace ns3;

NS_LOG_COMPONENT_DEFINE("FlOtaAirComp");

namespace
{

/// Most transmitters of a point.
constexpr flexample::Bound kMaxTransmitters{
    1000,
    "kMaxTransmitters in examples/benchmarks/fl-ota-aircomp.cc"};
/// Most real values per vector.
constexpr flexample::Bound kMaxDim{10000000, "kMaxDim in examples/benchmarks/fl-ota-aircomp.cc"};
/// Most slots per point.
constexpr flexample::Bound kMaxSlots{10000000,
                                     "kMaxSlots in examples/benchmarks/fl-ota-aircomp.cc"};
/// Most values (slots x dim) whose true average a point keeps in memory.
constexpr flexample::Bound kMaxSlotValues{
    100000000,
    "kMaxSlotValues in examples/benchmarks/fl-ota-aircomp.cc"};
/// Most points of the SNR sweep.
constexpr flexample::Bound kMaxSweepPoints{
    1000,
    "kMaxSweepPoints in examples/benchmarks/fl-ota-aircomp.cc"};

struct Options
{
    uint32_t n = 20;
    uint32_t dim = 1000;
    uint32_t slots = 2000;
    double snrMin = -10.0;
    double snrMax = 30.0;
    double snrStep = 5.0;
    std::string nList = "2,5,10,20,50,100";
    double snrFixed = 10.0;
    double threshold = 0.2;
    double kappa = 1.0;
    double radius = 50.0;
    double bandwidth = 1e6;
    double csiError = 0.0;
    std::string fading = "rayleigh";
    std::string output = "fl-ota-aircomp.csv";
    bool quiet = false;
};

struct PointResult
{
    double txPowerDbm = 0.0;
    double mseSim = 0.0;
    double mseSimSe = 0.0;
    double mseGiven = 0.0;
    double mseAnalytic = std::numeric_limits<double>::quiet_NaN();
    double meanActive = 0.0;
    double simTimeS = 0.0;
    double wallS = 0.0;
};

double
Mean(const std::vector<double>& v)
{
    double s = 0.0;
    for (double x : v)
    {
        s += x;
    }
    return s / static_cast<double>(v.size());
}

double
StdErr(const std::vector<double>& v)
{
    const double m = Mean(v);
    double s = 0.0;
    for (double x : v)
    {
        s += (x - m) * (x - m);
    }
    return std::sqrt(s / static_cast<double>(v.size() - 1) / static_cast<double>(v.size()));
}

/// One (N, SNR) point: a fresh scene, `slots` AirComp slots, MSE statistics.
PointResult
RunPoint(const Options& o, uint32_t n, double snrDb, int64_t stream)
{
    const auto wall0 = std::chrono::steady_clock::now();
    const fl::FadingKind fading = fl::ParseFadingKind(o.fading, "--fading");
    const double dataVariance = 0.5; // per real entry: unit mean symbol energy

    NodeContainer nodes;
    nodes.Create(n + 1); // node 0 receives
    MobilityHelper mobility;
    Ptr<ListPositionAllocator> alloc = CreateObject<ListPositionAllocator>();
    alloc->Add(Vector(0.0, 0.0, 0.0));
    for (uint32_t k = 0; k < n; ++k)
    {
        const double phi = 2.0 * M_PI * k / n;
        alloc->Add(Vector(o.radius * std::cos(phi), o.radius * std::sin(phi), 0.0));
    }
    mobility.SetPositionAllocator(alloc);
    mobility.SetMobilityModel("ns3::ConstantPositionMobilityModel");
    mobility.Install(nodes);

    OtaHelper ota;
    const char* fadingNames[] = {"None", "Rayleigh", "Rician", "Nakagami"};
    ota.SetChannelAttribute("FadingModel", StringValue(fadingNames[static_cast<int>(fading)]));
    ota.SetChannelAttribute("Coherence", StringValue("PerSlot"));
    ota.SetChannelAttribute("Structure", StringValue("PerLink"));
    ota.SetChannelAttribute("Bandwidth", DoubleValue(o.bandwidth));
    ota.SetChannelAttribute("SlotDuration",
                            TimeValue(OtaHelper::SlotDurationFor(o.dim, o.bandwidth)));
    ota.SetPhyAttribute("CsiErrorVariance", DoubleValue(o.csiError));
    OtaPhyContainer phys = ota.Install(nodes);
    stream += OtaHelper::AssignStreams(phys, stream);
    Ptr<OtaChannel> channel = phys.GetChannel();
    Ptr<OtaPhy> rx = phys.Get(0);

    // Transmit power for the requested mean SNR per sender: rho = P G / sigma^2.
    const double gainDb = channel->GetLargeScaleGainDb(1, 0);
    const double gain = std::pow(10.0, gainDb / 10.0);
    const double noise = rx->GetNoiseVariance();
    PointResult res;
    res.txPowerDbm = snrDb + fl::WToDbm(noise) - gainDb;
    for (uint32_t k = 1; k <= n; ++k)
    {
        phys.Get(k)->SetAttribute("TxPower", DoubleValue(res.txPowerDbm));
        phys.Get(k)->SetAttribute("ReceiveEnabled", BooleanValue(false));
    }

    // The data vectors come from an engine seeded from an ns-3 stream (--RngRun changes them).
    Ptr<UniformRandomVariable> seedRv = CreateObject<UniformRandomVariable>();
    seedRv->SetStream(stream);
    fl::Rng data(seedRv->GetInteger(1, std::numeric_limits<uint32_t>::max()));
    std::normal_distribution<double> gauss(0.0, std::sqrt(dataVariance));

    struct SlotTruth
    {
        Eigen::VectorXd mean;
        double c;
        std::size_t active;
    };

    std::map<uint64_t, SlotTruth> truth;
    std::map<uint64_t, double> mse;
    rx->SetReceiveCallback(FlCallback<void, const OtaReception&>([&](const OtaReception& r) {
        auto it = truth.find(r.slot);
        NS_ABORT_MSG_IF(it == truth.end(), "reception for an unplanned slot");
        const SlotTruth& t = it->second;
        const Eigen::VectorXd estimate = fl::AirCompDecodeAverage(r.symbols, o.dim, t.c, t.active);
        mse[r.slot] = (estimate - t.mean).squaredNorm() / o.dim;
    }));

    fl::AlignmentConfig cfg;
    cfg.kappa = o.kappa;
    cfg.gainThreshold = o.threshold * gain; // threshold on |g|^2, i.e. on |h|^2 / G
    std::function<void(uint64_t)> plan = [&](uint64_t slot) {
        // Set-up of the slot: CSI, alignment, data; transmissions start at the slot boundary.
        std::vector<fl::Complex> h(n);
        std::vector<double> p(n);
        for (uint32_t k = 0; k < n; ++k)
        {
            h[k] = phys.Get(k + 1)->GetChannelEstimate(rx, slot);
            p[k] = phys.Get(k + 1)->GetTxPowerW();
        }
        const fl::AlignmentPlan alignment = fl::PlanAlignment(h, p, cfg);
        Eigen::VectorXd mean = Eigen::VectorXd::Zero(o.dim);
        for (uint32_t k = 0; k < n; ++k)
        {
            Eigen::VectorXd x(o.dim);
            for (uint32_t j = 0; j < o.dim; ++j)
            {
                x[j] = gauss(data);
            }
            mean += x / static_cast<double>(n);
            if (alignment.active[k])
            {
                phys.Get(k + 1)->TransmitReal(slot, x, alignment.precoder[k]);
            }
        }
        if (alignment.NumActive() == 0)
        {
            mse[slot] = mean.squaredNorm() / o.dim; // nobody sends: the estimate is 0
        }
        truth[slot] = {mean, alignment.c, alignment.NumActive()};
        if (slot + 1 < o.slots)
        {
            const uint64_t next = slot + 1;
            FlSchedule(channel->GetSlotStart(next) - Simulator::Now(),
                       [&plan, next]() { plan(next); });
        }
    };
    FlSchedule(Seconds(0), [&plan]() { plan(0); });
    Simulator::Run();
    res.simTimeS = Simulator::Now().GetSeconds();
    Simulator::Destroy();

    NS_ABORT_MSG_IF(mse.size() != o.slots, "a slot was not received");
    std::vector<double> sim;
    std::vector<double> given;
    double active = 0.0;
    for (const auto& [slot, m] : mse)
    {
        const SlotTruth& t = truth.at(slot);
        sim.push_back(m);
        given.push_back(fl::AirCompMseGivenChannel(n, t.active, t.c, dataVariance, noise));
        active += static_cast<double>(t.active);
    }
    res.mseSim = Mean(sim);
    res.mseSimSe = StdErr(sim);
    res.mseGiven = Mean(given);
    res.meanActive = active / static_cast<double>(o.slots);
    if (fading == fl::FadingKind::Rayleigh && o.csiError == 0.0)
    {
        res.mseAnalytic = fl::AirCompMseRayleighTruncated(n,
                                                          dataVariance,
                                                          std::pow(10.0, snrDb / 10.0),
                                                          o.kappa,
                                                          o.threshold);
    }
    res.wallS = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
    return res;
}

} // namespace

int
main(int argc, char* argv[])
{
    Options o;
    flexample::Flags flags(__FILE__);
    flags.Cmd().Usage("Over-the-air computation of an average on the analog OTA channel: N "
                      "transmitters, one receiver, Rayleigh block fading, truncated channel "
                      "inversion. Sweeps the mean SNR per sender (at --n) and the number of "
                      "transmitters (at --snrFixed), and writes simulated and analytic MSE to a "
                      "CSV; plot it with utils/plot-ota-aircomp.sh. Use --RngRun=N for independent "
                      "replications.");
    const flexample::Range snrRange = flexample::Range::Closed(-200.0, 200.0);
    flags.AddSize("n", "Transmitters in the SNR sweep", o.n, 1u, kMaxTransmitters);
    flags.AddSize("dim",
                  "Real values per vector (sent as ceil(dim/2) complex symbols)",
                  o.dim,
                  1u,
                  kMaxDim);
    flags.AddSize("slots",
                  "Slots (independent fading and data draws) per point",
                  o.slots,
                  2u,
                  kMaxSlots);
    flags.AddReal("snrMin", "First mean SNR per sender [dB]", o.snrMin, snrRange);
    flags.AddReal("snrMax", "Last mean SNR per sender [dB]", o.snrMax, snrRange);
    flags.AddReal("snrStep", "SNR step [dB]", o.snrStep, flexample::Range::Closed(1e-3, 400.0));
    flags.AddText("nList", "Comma-separated numbers of transmitters for the N sweep", o.nList);
    flags.AddReal("snrFixed", "Mean SNR per sender in the N sweep [dB]", o.snrFixed, snrRange);
    flags.AddReal("threshold",
                  "Truncation: a sender with |g|^2 below this stays silent (0: no truncation)",
                  o.threshold,
                  flexample::Range::AtLeast(0.0));
    flags.AddReal("kappa",
                  "c = kappa sqrt(P G) min |g| over active senders, 0 < kappa <= 1",
                  o.kappa,
                  flexample::Range{0.0, 1.0, true, false});
    flags.AddReal("radius",
                  "Distance of the transmitters from the receiver [m]",
                  o.radius,
                  flexample::Range::Above(0.0));
    // Symbol rates from 1 Hz (the channel's lower limit) to 1 GHz (1 ns symbols: ns-3's time step).
    flags.AddReal("bandwidth",
                  "Bandwidth = symbol rate [Hz]",
                  o.bandwidth,
                  flexample::Range::Closed(1.0, 1e9));
    flags.AddReal("csiError",
                  "CSI error variance relative to the path gain (0: perfect; no analytic curve)",
                  o.csiError,
                  flexample::Range::AtLeast(0.0));
    flags.AddText("fading",
                  "Small-scale fading: rayleigh (analytic curve), rician, nakagami or none",
                  o.fading);
    flags.AddOutput("output", "CSV output file", o.output, false);
    flags.AddBool("quiet", "Do not print a line per point", o.quiet);
    std::vector<uint32_t> nList;
    flags.AddCheck([&]() {
        fl::ParseFadingKind(o.fading, "--fading");
        nList.clear();
        for (const std::string& item : fl::SplitList(o.nList, "--nList"))
        {
            nList.push_back(
                flexample::ParseBounded<uint32_t>(item, "--nList", 1, kMaxTransmitters));
        }
        if (o.snrMax < o.snrMin)
        {
            throw fl::ConfigError("--snrMax",
                                  "is below --snrMin: empty SNR sweep",
                                  "give --snrMax >= --snrMin");
        }
        const double points = std::floor((o.snrMax - o.snrMin) / o.snrStep) + 1.0;
        if (points > static_cast<double>(kMaxSweepPoints.value))
        {
            throw fl::ConfigError("--snrStep",
                                  "gives " + std::to_string(points) +
                                      " SNR points, above the bound of " +
                                      std::to_string(kMaxSweepPoints.value),
                                  "use a larger step or a narrower sweep, or raise the bound (" +
                                      std::string(kMaxSweepPoints.where) + ")");
        }
        const uint64_t values = static_cast<uint64_t>(o.slots) * o.dim;
        if (values > kMaxSlotValues.value)
        {
            throw fl::ConfigError("--slots/--dim",
                                  "slots x dim = " + std::to_string(values) +
                                      " values kept per point, above the bound of " +
                                      std::to_string(kMaxSlotValues.value),
                                  "use fewer slots or a smaller dim, or raise the bound (" +
                                      std::string(kMaxSlotValues.where) + ")");
        }
        if (o.threshold <= 0.0 && o.fading == "rayleigh")
        {
            std::cerr << "note: --threshold=0 under Rayleigh fading: full channel inversion has "
                         "an infinite expected MSE; expect erratic simulated values\n";
        }
    });
    if (!flags.Parse(argc, argv))
    {
        return flexample::kExitBadFlag;
    }

    std::ofstream csv(o.output);
    if (!csv)
    {
        std::cerr << "fl-ota-aircomp: cannot write " << o.output << std::endl;
        return flexample::kExitBadFlag;
    }
    csv << "sweep,n,snr_db,tx_power_dbm,slots,dim,threshold,kappa,mse_sim,mse_sim_se,"
           "mse_given_channel,mse_analytic,z,mean_active,sim_time_s,wall_s\n";
    csv << std::setprecision(10);

    struct Job
    {
        std::string sweep;
        uint32_t n;
        double snr;
    };

    std::vector<Job> jobs;
    for (double snr = o.snrMin; snr <= o.snrMax + 1e-9; snr += o.snrStep)
    {
        jobs.push_back({"snr", o.n, snr});
    }
    for (uint32_t n : nList)
    {
        jobs.push_back({"n", n, o.snrFixed});
    }

    std::cout << "fl-ota-aircomp: " << o.fading
              << " block fading, truncation |g|^2 >= " << o.threshold << ", kappa " << o.kappa
              << ", d = " << o.dim << " (" << fl::SymbolCount(o.dim) << " symbols at "
              << o.bandwidth / 1e6 << " MHz), " << o.slots << " slots per point, " << jobs.size()
              << " points" << std::endl;
    const auto wall0 = std::chrono::steady_clock::now();
    double maxAbsZ = 0.0;
    double sumRel = 0.0;
    int analyticPoints = 0;
    for (std::size_t j = 0; j < jobs.size(); ++j)
    {
        const Job& job = jobs[j];
        const PointResult r = RunPoint(o, job.n, job.snr, 1000 + 1000 * static_cast<int64_t>(j));
        const double z = (r.mseSim - r.mseAnalytic) / r.mseSimSe;
        if (std::isfinite(r.mseAnalytic))
        {
            maxAbsZ = std::max(maxAbsZ, std::abs(z));
            sumRel += std::abs(r.mseSim / r.mseAnalytic - 1.0);
            ++analyticPoints;
        }
        csv << job.sweep << ',' << job.n << ',' << job.snr << ',' << r.txPowerDbm << ',' << o.slots
            << ',' << o.dim << ',' << o.threshold << ',' << o.kappa << ',' << r.mseSim << ','
            << r.mseSimSe << ',' << r.mseGiven << ',' << r.mseAnalytic << ',' << z << ','
            << r.meanActive << ',' << r.simTimeS << ',' << r.wallS << '\n';
        csv.flush();
        if (!o.quiet)
        {
            std::cout << "[" << std::setw(2) << j + 1 << "/" << jobs.size() << "] " << std::setw(3)
                      << job.sweep << " sweep: N=" << std::setw(3) << job.n
                      << " SNR=" << std::setw(5) << job.snr << " dB (P=" << std::fixed
                      << std::setprecision(1) << r.txPowerDbm << " dBm)" << std::defaultfloat
                      << std::setprecision(4) << "  MSE sim " << r.mseSim << " +- " << r.mseSimSe
                      << "  analytic " << r.mseAnalytic << "  z=" << std::fixed
                      << std::setprecision(2) << z << std::defaultfloat << std::setprecision(6)
                      << "  [" << std::setprecision(2) << r.wallS << " s]" << std::setprecision(6)
                      << std::endl;
        }
    }
    // Dense analytic curves for the plot (rows without simulation: slots = 0, mse_sim = nan).
    if (o.fading == "rayleigh" && o.csiError == 0.0)
    {
        const double nan = std::numeric_limits<double>::quiet_NaN();
        auto curveRow = [&](const char* sweep, uint32_t n, double snr) {
            const double a = fl::AirCompMseRayleighTruncated(n,
                                                             0.5,
                                                             std::pow(10.0, snr / 10.0),
                                                             o.kappa,
                                                             o.threshold);
            csv << sweep << ',' << n << ',' << snr << ',' << nan << ",0," << o.dim << ','
                << o.threshold << ',' << o.kappa << ',' << nan << ',' << nan << ',' << nan << ','
                << a << ',' << nan << ',' << nan << ',' << nan << ',' << nan << '\n';
        };
        for (double snr = o.snrMin; snr <= o.snrMax + 1e-9; snr += 0.5)
        {
            curveRow("snr_curve", o.n, snr);
        }
        const uint32_t nMin = *std::min_element(nList.begin(), nList.end());
        const uint32_t nMax = *std::max_element(nList.begin(), nList.end());
        for (uint32_t n = nMin; n <= nMax; ++n)
        {
            curveRow("n_curve", n, o.snrFixed);
        }
    }
    const double wall =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
    std::cout << "summary: points=" << jobs.size();
    if (analyticPoints > 0)
    {
        std::cout << " max_abs_z=" << std::setprecision(3) << maxAbsZ
                  << " mean_rel_dev=" << sumRel / analyticPoints;
    }
    std::cout << " wall_s=" << std::setprecision(3) << wall << "\n"
              << "results: " << o.output << " (plot: utils/plot-ota-aircomp.sh " << o.output << ")"
              << std::endl;
    return 0;
}
