/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "ns3/fl-packet-probes.h"

#include "ns3/config.h"
#include "ns3/sweep-grid.h"
#include "ns3/fl-ns3-compat.h"
#include "ns3/node-list.h"
#include "ns3/packet.h"
#include "ns3/processor-sharing.h"
#include "ns3/queue-disc.h"
#include "ns3/random-variable-stream.h"
#include "ns3/rng-seed-manager.h"
#include "ns3/simulator.h"
#include "ns3/sta-wifi-mac.h"
#include "ns3/tcp-l4-protocol.h"
#include "ns3/tcp-socket-base.h"
#include "ns3/wifi-mac.h"
#if FL_NS3_VERSION >= 337
#include "ns3/wifi-mpdu.h"
#endif
#include "ns3/wifi-net-device.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <iomanip>
#include <limits>
#include <set>
#include <sstream>

namespace ns3
{

std::vector<double>
FlMeasureWifiAssociation(uint32_t stations, int64_t stream, Time until)
{
    FlWifiScenarioHelper helper;
    const FlScene scene = helper.Build(stations);
    FlWifiScenarioHelper::AssignStreams(scene, stream);
    auto times =
        std::make_shared<std::vector<double>>(stations, std::numeric_limits<double>::quiet_NaN());
    for (uint32_t i = 0; i < stations; ++i)
    {
        Ptr<WifiNetDevice> dev = DynamicCast<WifiNetDevice>(scene.devices.Get(1 + i));
        NS_ABORT_MSG_IF(!dev, "FlMeasureWifiAssociation: station " << i << " has no Wi-Fi device");
        dev->GetMac()->TraceConnectWithoutContext(
            "Assoc",
            FlCallback<void, Mac48Address>([times, i](Mac48Address) {
                if (std::isnan((*times)[i]))
                {
                    (*times)[i] = Simulator::Now().GetSeconds();
                }
            }));
    }
    Simulator::Stop(until);
    Simulator::Run();
    Simulator::Destroy();
    return *times;
}

void
FlPrintWifiAssociationSurvey(const std::vector<std::string>& sizes,
                             uint32_t runs,
                             double start,
                             std::ostream& out,
                             std::ostream& csv)
{
    const uint32_t firstRun = RngSeedManager::GetRun();
    csv << "fidelity,stations,run,station,assoc_s,first_syn_s\n";
    out << "fidelity stations runs assoc_median_s assoc_p90_s assoc_max_s after_first_syn "
           "runs_with_one_after"
        << std::endl;
    Ptr<UniformRandomVariable> u = CreateObject<UniformRandomVariable>();
    for (const auto& c : sizes)
    {
        const uint32_t n = static_cast<uint32_t>(std::stoul(c));
        for (const std::string fidelity : {"packet", "flow"})
        {
            std::vector<double> all;
            uint32_t late = 0;
            uint32_t lateRuns = 0;
            for (uint32_t r = firstRun; r < firstRun + runs; ++r)
            {
                RngSeedManager::SetRun(r);
                std::vector<double> t;
                if (fidelity == "packet")
                {
                    t = FlMeasureWifiAssociation(n, 100, Seconds(start + 10));
                }
                else
                {
                    u->SetStream(100); // the flow network's draw (FlFlowNetwork::SetAssociation)
                    t = fl::DrawAssociationTimes(n, fl::AssociationModel{}, [&u]() {
                        return u->GetValue(0.0, 1.0);
                    });
                }
                bool any = false;
                for (uint32_t i = 0; i < n; ++i)
                {
                    const double syn = start + 0.02 * i;
                    csv << fidelity << "," << n << "," << r << "," << i << "," << t[i] << "," << syn
                        << "\n";
                    all.push_back(std::isnan(t[i]) ? 1e9 : t[i]);
                    if (!(t[i] < syn))
                    {
                        ++late;
                        any = true;
                    }
                }
                lateRuns += any ? 1 : 0;
            }
            std::sort(all.begin(), all.end());
            const auto q = [&all](double p) {
                return all[static_cast<std::size_t>(p * (all.size() - 1))];
            };
            out << std::left << std::setw(9) << fidelity << std::setw(9) << n << std::setw(5)
                << runs << std::right << std::fixed << std::setprecision(4) << std::setw(15)
                << q(0.5) << std::setw(12) << q(0.9) << std::setw(12) << all.back() << std::setw(11)
                << late << "/" << all.size() << std::setw(16) << lateRuns << "/" << runs
                << std::defaultfloat << std::endl;
        }
    }
    RngSeedManager::SetRun(firstRun);
}

/// Prints the row under the table's header and writes it to the CSV (same columns).
void
FlEmitValidationRow(const FlValidationRow& r, std::ostream& csv)
{
    const bool tta = r.ttaPacketS >= 0 && r.ttaFlowS >= 0;
    const double roundErr = 100.0 * (r.roundFlowS - r.roundPacketS) / r.roundPacketS;
    const double ttaErr = tta ? 100.0 * (r.ttaFlowS - r.ttaPacketS) / r.ttaPacketS : std::nan("");
    const double speedup = r.wallPacketS / r.wallFlowS;
    // without the learning's time (the same computation at both fidelities), and the speed-up
    // if the flow network cost nothing (Amdahl's bound: the learning stays)
    const double networkSpeedup = (r.wallPacketS - r.learnPacketS) / (r.wallFlowS - r.learnFlowS);
    const double bound = r.wallPacketS / r.learnFlowS;
    std::cout << std::left << std::setw(9) << r.network << std::setw(8) << r.clients
              << std::setw(18) << r.model << std::right << std::fixed << std::setprecision(4)
              << std::setw(14) << r.roundPacketS << std::setw(13) << r.roundFlowS
              << std::setprecision(1) << std::setw(12) << roundErr << std::setprecision(3)
              << std::setw(13) << r.ttaPacketS << std::setw(11) << r.ttaFlowS
              << std::setprecision(1) << std::setw(10) << ttaErr << std::setw(12)
              << (r.sameModels ? "yes" : "no") << std::setprecision(2) << std::setw(14)
              << r.wallPacketS << std::setw(12) << r.wallFlowS << std::setprecision(0)
              << std::setw(8) << speedup << std::setw(12) << networkSpeedup << std::setw(8) << bound
              << std::defaultfloat << std::endl;
    std::ostringstream row;
    row << std::setprecision(6) << r.network << "," << r.clients << "," << r.model << ","
        << r.roundPacketS << "," << r.roundFlowS << "," << roundErr << "," << r.ttaPacketS << ","
        << r.ttaFlowS << ",";
    if (tta)
    {
        row << ttaErr;
    }
    row << "," << (r.sameModels ? "yes" : "no") << "," << r.wallPacketS << "," << r.wallFlowS << ","
        << speedup << "," << r.learnPacketS << "," << r.learnFlowS << "," << networkSpeedup << ","
        << bound << "\n";
    csv << row.str() << std::flush;
}

FlTimedLearningTask::FlTimedLearningTask(std::shared_ptr<const fl::LearningTask> inner)
    : m_inner(std::move(inner))
{
    NS_ABORT_MSG_IF(!m_inner, "FlTimedLearningTask: no task to time");
}

double
FlTimedLearningTask::Seconds() const
{
    std::lock_guard<std::mutex> lock(m_clock.mutex);
    return m_clock.seconds;
}

namespace
{

/// Adds to the task's time the wall time during which at least one call is in progress (the
/// union of the calls' intervals, so parallel training threads count once).
class ScopedTimer
{
  public:
    explicit ScopedTimer(FlTimedLearningTask::Clock& c)
        : m_c(c)
    {
        std::lock_guard<std::mutex> lock(m_c.mutex);
        if (m_c.active++ == 0)
        {
            m_c.since = std::chrono::steady_clock::now();
        }
    }

    ~ScopedTimer()
    {
        std::lock_guard<std::mutex> lock(m_c.mutex);
        if (--m_c.active == 0)
        {
            m_c.seconds +=
                std::chrono::duration<double>(std::chrono::steady_clock::now() - m_c.since).count();
        }
    }

  private:
    FlTimedLearningTask::Clock& m_c;
};

} // namespace

fl::Precision
FlTimedLearningTask::GetPrecision() const
{
    return m_inner->GetPrecision();
}

std::size_t
FlTimedLearningTask::NumParameters() const
{
    return m_inner->NumParameters();
}

std::size_t
FlTimedLearningTask::NumClients() const
{
    return m_inner->NumClients();
}

std::size_t
FlTimedLearningTask::ClientSamples(std::size_t client) const
{
    return m_inner->ClientSamples(client);
}

fl::ParamVector
FlTimedLearningTask::InitialParameters(fl::Rng& rng) const
{
    ScopedTimer t(m_clock);
    return m_inner->InitialParameters(rng);
}

const fl::LocalTrainerConfig&
FlTimedLearningTask::GetTrainerConfig() const
{
    return m_inner->GetTrainerConfig();
}

fl::TrainOutcome
FlTimedLearningTask::TrainClient(std::size_t client,
                                 const fl::ParamVector& start,
                                 fl::Rng& rng) const
{
    ScopedTimer t(m_clock);
    return m_inner->TrainClient(client, start, rng);
}

void
FlTimedLearningTask::TrainClientInto(std::size_t client,
                                     const fl::ParamVector& start,
                                     fl::Rng& rng,
                                     fl::TrainOutcome& out) const
{
    ScopedTimer t(m_clock);
    m_inner->TrainClientInto(client, start, rng, out);
}

bool
FlTimedLearningTask::PlanClient(std::size_t client, fl::TrainingPlan& plan) const
{
    ScopedTimer t(m_clock);
    return m_inner->PlanClient(client, plan);
}

fl::Evaluation
FlTimedLearningTask::Evaluate(const fl::ParamVector& w) const
{
    ScopedTimer t(m_clock);
    return m_inner->Evaluate(w);
}

fl::Evaluation
FlTimedLearningTask::EvaluateTraining(const fl::ParamVector& w) const
{
    ScopedTimer t(m_clock);
    return m_inner->EvaluateTraining(w);
}

double
FlTimedLearningTask::ClientLoss(std::size_t client, const fl::ParamVector& w) const
{
    ScopedTimer t(m_clock);
    return m_inner->ClientLoss(client, w);
}

std::string
FlTimedLearningTask::Describe() const
{
    return m_inner->Describe();
}

std::string
FlPacketLosses::Describe() const
{
    std::ostringstream os;
    os << "Wi-Fi MAC drops at the AP: " << apQueueFull << " queue full, " << apExpired
       << " MaxDelay, " << apRetryLimit << " retry limit; at the stations: " << staQueueFull
       << " queue full, " << staExpired << " MaxDelay, " << staRetryLimit << " retry limit; "
       << macOther << " other; queue discs " << queueDiscDrops << "; device queues " << deviceDrops
       << "; TCP " << tcpTimeouts << " retransmission timeouts, " << tcpFastRecovery
       << " fast recoveries";
    return os.str();
}

namespace
{

/// Connects the TCP sockets created since the last call (every socket of every node).
struct TcpSocketWatcher : public SimpleRefCount<TcpSocketWatcher>
{
    std::shared_ptr<FlPacketLosses> counts;
    std::set<TcpSocketBase*> seen;
    Time lastScan{Seconds(-1)};

    void Scan()
    {
        if (Simulator::Now() - lastScan < MilliSeconds(5))
        {
            return;
        }
        lastScan = Simulator::Now();
        const Config::MatchContainer m =
            Config::LookupMatches("/NodeList/*/$ns3::TcpL4Protocol/SocketList/*");
        for (uint32_t i = 0; i < m.GetN(); ++i)
        {
            Ptr<TcpSocketBase> s = DynamicCast<TcpSocketBase>(m.Get(i));
            if (!s || !seen.insert(PeekPointer(s)).second)
            {
                continue;
            }
            auto c = counts;
            s->TraceConnectWithoutContext(
                "CongState",
                FlCallback<void, TcpSocketState::TcpCongState_t, TcpSocketState::TcpCongState_t>(
                    [c](TcpSocketState::TcpCongState_t, TcpSocketState::TcpCongState_t now) {
                        if (now == TcpSocketState::CA_LOSS)
                        {
                            ++c->tcpTimeouts;
                        }
                        else if (now == TcpSocketState::CA_RECOVERY)
                        {
                            ++c->tcpFastRecovery;
                        }
                    }));
        }
    }
};

} // namespace

std::shared_ptr<FlPacketLosses>
FlCountPacketLosses(const FlScene& scene)
{
    auto counts = std::make_shared<FlPacketLosses>();
    Ptr<TcpSocketWatcher> watcher = Create<TcpSocketWatcher>();
    watcher->counts = counts;
    for (uint32_t d = 0; d < scene.devices.GetN(); ++d)
    {
        Ptr<WifiNetDevice> dev = DynamicCast<WifiNetDevice>(scene.devices.Get(d));
        if (!dev)
        {
            continue;
        }
        const bool ap = d == 0;
#if FL_NS3_VERSION >= 337
        dev->GetMac()->TraceConnectWithoutContext(
            "DroppedMpdu",
            FlCallback<void, WifiMacDropReason, Ptr<const WifiMpdu>>(
                [counts, ap](WifiMacDropReason reason, Ptr<const WifiMpdu>) {
                    switch (reason)
                    {
                    case WIFI_MAC_DROP_FAILED_ENQUEUE:
                        ++(ap ? counts->apQueueFull : counts->staQueueFull);
                        break;
                    case WIFI_MAC_DROP_EXPIRED_LIFETIME:
                        ++(ap ? counts->apExpired : counts->staExpired);
                        break;
                    case WIFI_MAC_DROP_REACHED_RETRY_LIMIT:
                        ++(ap ? counts->apRetryLimit : counts->staRetryLimit);
                        break;
                    default:
                        ++counts->macOther;
                    }
                }));
#endif
        // TCP's sockets are looked for whenever the AP's MAC hands up a frame (a socket is
        // created by a SYN or before one), at most every 5 ms
        if (ap)
        {
            dev->GetMac()->TraceConnectWithoutContext(
                "MacRx",
                FlCallback<void, Ptr<const Packet>>(
                    [watcher](Ptr<const Packet>) { watcher->Scan(); }));
        }
    }
    Config::ConnectWithoutContextFailSafe(
        "/NodeList/*/$ns3::TrafficControlLayer/RootQueueDiscList/*/Drop",
        FlCallback<void, Ptr<const QueueDiscItem>>(
            [counts](Ptr<const QueueDiscItem>) { ++counts->queueDiscDrops; }));
    Config::ConnectWithoutContextFailSafe(
        "/NodeList/*/DeviceList/*/TxQueue/Drop",
        FlCallback<void, Ptr<const Packet>>([counts](Ptr<const Packet>) { ++counts->deviceDrops; }));
    if (scene.devices.GetN() > 0 && !DynamicCast<WifiNetDevice>(scene.devices.Get(0)))
    {
        // no AP: look for sockets on every frame the server's device receives
        Config::ConnectWithoutContextFailSafe(
            "/NodeList/" + std::to_string(scene.serverNode->GetId()) + "/DeviceList/*/MacRx",
            FlCallback<void, Ptr<const Packet>>([watcher](Ptr<const Packet>) { watcher->Scan(); }));
    }
    return counts;
}

FlFidelityGoalCount
FlPrintFidelityGoals(const std::string& text,
                     const std::string& label,
                     std::ostream& out,
                     std::ostream& csv)
{
    FlFidelityGoalCount n;
    out << label << ":" << std::endl;
    for (const auto& f : fl::ReadCsvRecords(text)) // fl-flow-validation's columns
    {
        if (f.size() < 17 || f[0] == "network")
        {
            continue;
        }
        const double err = std::stod(f[5]);
        const double speedup = std::stod(f[12]);
        const double network = std::stod(f[15]);
        const bool ok = std::abs(err) <= 10.0 && speedup >= 20.0 && f[9] == "yes";
        ++n.rows;
        n.met += ok ? 1 : 0;
        n.roundMet += std::abs(err) <= 10.0 ? 1 : 0;
        n.networkMet += network >= 20.0 ? 1 : 0;
        // a missing value (target not reached, no learning time: GFL) prints as "-"
        const auto value = [](const std::string& text, int precision, const char* unit) {
            std::ostringstream os;
            const double v = text.empty() ? std::nan("") : std::stod(text);
            os << std::fixed << std::setprecision(precision);
            if (std::isnan(v))
            {
                os << "-";
            }
            else
            {
                os << v << unit;
            }
            return os.str();
        };
        std::ostringstream num;
        num << std::setw(8) << value(f[5], 1, " %") << " (goal within 10 %), time to accuracy "
            << std::setw(8) << value(f[8], 1, " %") << ", " << std::setw(6) << value(f[12], 1, "x")
            << " faster (goal 20x; network only " << std::setw(6) << value(f[15], 1, "x")
            << ", bound " << std::setw(5) << value(f[16], 1, "x") << ")";
        out << std::left << std::setw(9) << f[0] << std::right << std::setw(7) << f[1]
            << " clients, " << std::left << std::setw(18) << f[2] << std::right
            << " round duration " << num.str() << ", same models: " << f[9] << ": "
            << (ok ? "met" : "NOT met") << std::endl;
        csv << "fidelity," << f[0] << "-" << f[2] << "," << f[1] << ",," << err << "," << speedup
            << "," << (ok ? "met" : "not_met") << "\n";
    }
    return n;
}

} // namespace ns3
