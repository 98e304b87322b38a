/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ns3/learning-monitor.h"

#include "ns3/boolean.h"
#include "ns3/double.h"
#include "ns3/log.h"
#include "ns3/simulator.h"
#include "ns3/string.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <iomanip>
#include <iostream>
#include <limits>
#include <sstream>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("LearningMonitor");
NS_OBJECT_ENSURE_REGISTERED(LearningMonitor);

namespace
{
double
WallSeconds()
{
    using namespace std::chrono;
    return duration<double>(steady_clock::now().time_since_epoch()).count();
}
} // namespace

TypeId
LearningMonitor::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::LearningMonitor")
            .SetParent<Object>()
            .SetGroupName("Fl")
            .AddConstructor<LearningMonitor>()
            .AddAttribute("OutputFile",
                          "CSV file written row by row as rounds complete (empty = none).",
                          StringValue(""),
                          MakeStringAccessor(&LearningMonitor::m_outputFile),
                          MakeStringChecker())
            .AddAttribute("ClientOutputFile",
                          "CSV file with one row per client and round (needs InstallClients; "
                          "empty = none).",
                          StringValue(""),
                          MakeStringAccessor(&LearningMonitor::m_clientOutputFile),
                          MakeStringChecker())
            .AddAttribute("KeepClientRecords",
                          "Keep the per-client rows in memory for GetClientRecords (one per "
                          "client and round: memory grows with the run). Off: the rows are only "
                          "written to ClientOutputFile, if set, as they come.",
                          BooleanValue(false),
                          MakeBooleanAccessor(&LearningMonitor::m_keepClientRecords),
                          MakeBooleanChecker())
            .AddAttribute("Delta",
                          "DP delta of the epsilon_uplink column (clients' uplink noise).",
                          DoubleValue(1e-5),
                          MakeDoubleAccessor(&LearningMonitor::m_delta),
                          MakeDoubleChecker<double>(1e-300, 1.0 - 1e-16))
            .AddAttribute("Verbose",
                          "Print one progress line per round to standard output.",
                          BooleanValue(false),
                          MakeBooleanAccessor(&LearningMonitor::m_verbose),
                          MakeBooleanChecker())
            .AddTraceSource("RoundRecorded",
                            "A row was recorded.",
                            MakeTraceSourceAccessor(&LearningMonitor::m_recordedTrace),
                            "ns3::LearningMonitor::RoundRecordedCallback");
    return tid;
}

LearningMonitor::LearningMonitor()
    : m_verbose(false),
      m_wallStart(WallSeconds())
{
}

LearningMonitor::~LearningMonitor() = default;

void
LearningMonitor::DoDispose()
{
    m_server = nullptr;
    m_clients.clear();
    if (m_stream.is_open())
    {
        if (m_uplinkNoise)
        {
            // what the epsilon_uplink column means (the mechanism of the first noisy client)
            m_stream << UplinkComment() << '\n';
        }
        m_stream.close();
    }
    if (m_clientStream.is_open())
    {
        m_clientStream.close();
    }
    Object::DoDispose();
}

void
LearningMonitor::Install(Ptr<Application> server)
{
    NS_LOG_FUNCTION(this << server);
    if (m_server)
    {
        NS_FATAL_ERROR(
            "LearningMonitor: already installed on a server; create one monitor per server");
    }
    // Any FL application with the RoundStart and RoundEnd traces and a learning task.
    Ptr<FlApplicationBase> app = DynamicCast<FlApplicationBase>(server);
    if (!app ||
        !server->TraceConnectWithoutContext("RoundStart",
                                            MakeCallback(&LearningMonitor::HandleRoundStart,
                                                         this)) ||
        !server->TraceConnectWithoutContext("RoundEnd",
                                            MakeCallback(&LearningMonitor::HandleRoundEnd, this)))
    {
        NS_FATAL_ERROR("LearningMonitor::Install: application "
                       << server->GetInstanceTypeId().GetName()
                       << " has no RoundStart and RoundEnd traces; install the monitor on a "
                          "server");
    }
    m_server = app;
}

void
LearningMonitor::InstallClients(const ApplicationContainer& clients)
{
    for (auto it = clients.Begin(); it != clients.End(); ++it)
    {
        Ptr<FlApplicationBase> c = DynamicCast<FlApplicationBase>(*it);
        if (!c ||
            !c->TraceConnectWithoutContext("TrainingPlanned",
                                           MakeCallback(&LearningMonitor::HandleTrained, this)))
        {
            NS_FATAL_ERROR("LearningMonitor::InstallClients: application "
                           << (*it)->GetInstanceTypeId().GetName()
                           << " has no TrainingPlanned trace; pass the container of the "
                              "clients (FlClientHelper returns it)");
        }
        m_clients.push_back(c);
    }
}

void
LearningMonitor::SetRadioEnergyReader(std::function<double(uint32_t client)> joulesSoFar)
{
    m_radioEnergy = std::move(joulesSoFar);
}

const std::vector<FlRoundRecord>&
LearningMonitor::GetRecords() const
{
    return m_records;
}

const std::vector<FlClientRoundRecord>&
LearningMonitor::GetClientRecords() const
{
    return m_clientRecords;
}

std::string
LearningMonitor::CsvHeader()
{
    return "round,time_s,duration_s,test_loss,test_accuracy,train_loss,status,selected,"
           "participants,stale,stragglers,bytes_down,bytes_up,download_s,compute_s,upload_s,"
           "waiting_s,chunks_lost,chunks_retx,missing_coords,energy_radio_j,energy_compute_j,"
           "deadline_hit,participant_ids,epsilon_uplink";
}

std::string
LearningMonitor::CsvRow(const FlRoundRecord& r)
{
    std::ostringstream os;
    os << std::setprecision(10) << r.round << ',' << r.timeS << ',' << r.durationS << ','
       << r.testLoss << ',' << r.testAccuracy << ',' << r.trainLoss << ',' << r.status << ','
       << r.selected << ',' << r.participants << ',' << r.stale << ',' << r.stragglers << ','
       << r.bytesDown << ',' << r.bytesUp << ',' << r.downloadS << ',' << r.computeS << ','
       << r.uploadS << ',' << r.waitingS << ',' << r.chunksLost << ',' << r.chunksRetx << ','
       << r.missingCoordinates << ',' << r.energyRadioJ << ',' << r.energyComputeJ << ','
       << (r.deadlineHit ? 1 : 0) << ',' << r.participantIds << ',' << r.epsilonUplink;
    return os.str();
}

std::string
LearningMonitor::ClientCsvHeader()
{
    return "round,client,selected,participated,trained_round,staleness,download_s,compute_s,"
           "upload_s,waiting_s,missing_coords,chunks_lost,energy_radio_j,energy_compute_j";
}

std::string
LearningMonitor::ClientCsvRow(const FlClientRoundRecord& r)
{
    std::ostringstream os;
    os << std::setprecision(10) << r.round << ',' << r.client << ',' << (r.selected ? 1 : 0) << ','
       << (r.participated ? 1 : 0) << ',' << r.trainedRound << ',' << r.staleness << ','
       << r.downloadS << ',' << r.computeS << ',' << r.uploadS << ',' << r.waitingS << ','
       << r.missingCoordinates << ',' << r.chunksLost << ',' << r.energyRadioJ << ','
       << r.energyComputeJ;
    return os.str();
}

std::string
LearningMonitor::UplinkComment() const
{
    return "# epsilon_uplink: the least private client | " +
           fl::UplinkStatement(m_uplinkKind, m_delta).Describe();
}

bool
LearningMonitor::WriteCsv(const std::string& path) const
{
    std::ofstream f(path);
    if (!f)
    {
        return false;
    }
    f << CsvHeader() << '\n';
    for (const auto& r : m_records)
    {
        f << CsvRow(r) << '\n';
    }
    if (m_uplinkNoise)
    {
        f << UplinkComment() << '\n';
    }
    return static_cast<bool>(f);
}

double
LearningMonitor::TimeToAccuracy(double target) const
{
    for (const auto& r : m_records)
    {
        if (r.testAccuracy >= target)
        {
            return r.timeS;
        }
    }
    return -1.0;
}

void
LearningMonitor::Append(const FlRoundRecord& r)
{
    if (m_records.empty() && !m_outputFile.empty())
    {
        m_stream.open(m_outputFile);
        if (!m_stream)
        {
            NS_FATAL_ERROR("LearningMonitor: cannot open OutputFile '" << m_outputFile
                                                                       << "'; check the directory "
                                                                          "exists and is writable");
        }
        m_stream << CsvHeader() << '\n';
    }
    m_records.push_back(r);
    if (m_stream.is_open())
    {
        m_stream << CsvRow(r) << '\n';
        m_stream.flush();
    }
    if (m_verbose)
    {
        std::cout << "round " << std::setw(4) << r.round << "  t=" << std::fixed
                  << std::setprecision(3) << std::setw(9) << r.timeS
                  << " s  loss=" << std::setprecision(4) << r.testLoss
                  << "  acc=" << std::setprecision(4) << r.testAccuracy
                  << "  clients=" << r.participants << "/" << r.selected;
        if (r.stale > 0)
        {
            std::cout << " (" << r.stale << " stale)";
        }
        if (r.status != "aggregated" && r.status != "initial")
        {
            std::cout << "  [" << r.status << "]";
        }
        std::cout << std::defaultfloat << std::endl;
    }
    m_recordedTrace(r);
}

void
LearningMonitor::HandleRoundStart(uint32_t round, const std::vector<uint32_t>& /* selected */)
{
    m_roundStarts[round] = Simulator::Now();
}

void
LearningMonitor::HandleTrained(const FlTrainingReport& report)
{
    m_trainings[{report.client, report.round}] = report;
    m_computeEnergyWindow[report.client] += report.computeEnergyJ;
}

uint64_t
LearningMonitor::ChunkCounter(bool lost) const
{
    auto pick = [lost](const FlDatagramStats& s) {
        return lost ? s.chunksLost : s.chunksRetransmitted;
    };
    auto stats = [](const Ptr<FlApplicationBase>& app) {
        Ptr<FlTransport> t = app->GetTransport();
        return t ? t->DatagramStats() : FlDatagramStats();
    };
    uint64_t n = pick(stats(m_server));
    for (const auto& c : m_clients)
    {
        n += pick(stats(c));
    }
    return n;
}

uint64_t
LearningMonitor::CountLostChunks(uint32_t round, std::map<uint32_t, FlClientRoundRecord>& rows)
{
    auto tallies = [round](Ptr<FlTransport> t) {
        return t ? t->ChunkTallies(round) : std::map<uint32_t, FlChunkTally>();
    };
    auto find = [](const std::map<uint32_t, FlChunkTally>& m, uint32_t peer) {
        auto it = m.find(peer);
        return it == m.end() ? FlChunkTally() : it->second;
    };
    auto minus = [](uint64_t a, uint64_t b) { return a > b ? a - b : 0; };
    if (round != m_lossRound)
    {
        m_lossRound = round;
        m_lossReported.clear();
    }
    const uint32_t serverId = m_server->GetNodeLevelId();
    const auto atServer = tallies(m_server->GetTransport());
    uint64_t total = 0;
    for (const auto& c : m_clients)
    {
        const FlChunkTally client = find(tallies(c->GetTransport()), serverId);
        const FlChunkTally server = find(atServer, c->GetNodeLevelId());
        // uplink: sent by the client, not received by the server; downlink: the other way
        const uint64_t lost =
            minus(client.sent, server.received) + minus(server.sent, client.received);
        uint64_t& reported = m_lossReported[c->GetLearnerIndex()]; // by an earlier repetition
        const uint64_t now = minus(lost, reported);
        reported = std::max(reported, lost);
        rows[c->GetLearnerIndex()].chunksLost = now;
        total += now;
    }
    return total;
}

void
LearningMonitor::HandleRoundEnd(const FlRoundReport& report)
{
    NS_LOG_FUNCTION(this << report.round);
    const double nan = std::numeric_limits<double>::quiet_NaN();
    auto task = m_server->GetLearningTask();
    FlRoundRecord r;
    r.round = report.round;
    r.timeS = report.end.GetSeconds();
    r.durationS = (report.end - report.start).GetSeconds();
    const fl::Evaluation test = task->Evaluate(*report.globalModel);
    r.testLoss = test.loss;
    r.testAccuracy = test.accuracy;
    r.trainLoss = task->EvaluateTraining(*report.globalModel).loss;
    r.status = FlRoundStatusName(report.status);
    r.selected = static_cast<uint32_t>(report.selected.size());
    r.participants = static_cast<uint32_t>(report.participants.size());
    r.stale = report.staleUpdates;
    r.stragglers = report.stragglers;
    r.bytesDown = report.bytesDown;
    r.bytesUp = report.bytesUp;
    r.deadlineHit = report.deadlineHit;
    r.missingCoordinates = report.missingCoordinates;
    std::ostringstream ids;
    for (std::size_t i = 0; i < report.participants.size(); ++i)
    {
        ids << (i ? ";" : "") << report.participants[i];
    }
    r.participantIds = ids.str();

    // Per-client rows, and the round's breakdown as means over its fresh updates.
    std::map<uint32_t, FlClientRoundRecord> rows;
    for (const auto& c : m_clients)
    {
        FlClientRoundRecord row;
        row.round = report.round;
        row.client = c->GetLearnerIndex();
        row.downloadS = row.computeS = row.uploadS = row.waitingS = nan;
        rows[row.client] = row;
    }
    for (uint32_t k : report.selected)
    {
        rows[k].selected = true;
    }
    double sums[4] = {0.0, 0.0, 0.0, 0.0};
    uint32_t fresh = 0;
    for (const auto& u : report.updates)
    {
        FlClientRoundRecord& row = rows[u.client];
        row.round = report.round;
        row.client = u.client;
        row.participated = true;
        row.trainedRound = u.trainedRound;
        row.staleness = u.staleness;
        row.missingCoordinates = u.missingCoordinates;
        row.waitingS = (report.end - u.arrival).GetSeconds();
        auto tr = m_trainings.find({u.client, u.trainedRound});
        auto st = m_roundStarts.find(u.trainedRound);
        if (tr != m_trainings.end() && st != m_roundStarts.end())
        {
            const Time sent = tr->second.received + tr->second.computeTime;
            row.downloadS = (tr->second.received - st->second).GetSeconds();
            row.computeS = tr->second.computeTime.GetSeconds();
            row.uploadS = (u.arrival - sent).GetSeconds();
        }
        if (u.staleness == 0)
        {
            ++fresh;
            sums[0] += row.downloadS;
            sums[1] += row.computeS;
            sums[2] += row.uploadS;
            sums[3] += row.waitingS;
        }
    }
    r.downloadS = fresh ? sums[0] / fresh : nan;
    r.computeS = fresh ? sums[1] / fresh : nan;
    r.uploadS = fresh ? sums[2] / fresh : nan;
    r.waitingS = fresh ? sums[3] / fresh : nan;

    // Energy: radio from the reader (difference of readings), compute from the trainings that
    // started since the previous round end.
    r.energyRadioJ = m_radioEnergy ? 0.0 : nan;
    r.energyComputeJ = m_clients.empty() ? nan : 0.0;
    for (auto& kv : rows)
    {
        const uint32_t k = kv.first;
        FlClientRoundRecord& row = kv.second;
        if (m_radioEnergy)
        {
            const double now = m_radioEnergy(k);
            row.energyRadioJ = now - m_radioAtLastEnd[k];
            m_radioAtLastEnd[k] = now;
            r.energyRadioJ += row.energyRadioJ;
        }
        else
        {
            row.energyRadioJ = nan;
        }
        row.energyComputeJ = m_computeEnergyWindow[k];
        r.energyComputeJ += row.energyComputeJ;
    }
    m_computeEnergyWindow.clear();

    // Privacy of the clients' uplink noise: the least private client so far.
    r.epsilonUplink = nan;
    for (const auto& client : m_clients)
    {
        if (client->HasUplinkPerturbation())
        {
            if (!m_uplinkNoise)
            {
                m_uplinkKind = client->GetUplinkMechanism();
            }
            m_uplinkNoise = true;
            const double e = client->GetUplinkEpsilon(m_delta);
            r.epsilonUplink = std::isnan(r.epsilonUplink) ? e : std::max(r.epsilonUplink, e);
        }
    }

    if (m_server)
    {
        const uint64_t lost = ChunkCounter(true);
        const uint64_t retx = ChunkCounter(false);
        r.chunksLost =
            m_clients.empty() ? lost - m_chunksLostAtLastEnd : CountLostChunks(report.round, rows);
        r.chunksRetx = retx - m_chunksRetxAtLastEnd;
        m_chunksLostAtLastEnd = lost;
        m_chunksRetxAtLastEnd = retx;
    }
    r.wallS = WallSeconds() - m_wallStart;
    Append(r);

    if (report.round > 0 && !m_clients.empty())
    {
        if (!m_clientStream.is_open() && !m_clientOutputFile.empty())
        {
            m_clientStream.open(m_clientOutputFile);
            if (!m_clientStream)
            {
                NS_FATAL_ERROR("LearningMonitor: cannot open ClientOutputFile '"
                               << m_clientOutputFile
                               << "'; check the directory exists and is writable");
            }
            m_clientStream << ClientCsvHeader() << '\n';
        }
        for (const auto& kv : rows)
        {
            if (m_keepClientRecords)
            {
                m_clientRecords.push_back(kv.second);
            }
            if (m_clientStream.is_open())
            {
                m_clientStream << ClientCsvRow(kv.second) << '\n';
            }
        }
        if (m_clientStream.is_open())
        {
            m_clientStream.flush();
        }
    }
    // Forget what no later round can refer to (updates are at most a few rounds stale).
    const uint32_t keep = 64;
    if (report.round > keep)
    {
        const uint32_t oldest = report.round - keep;
        m_roundStarts.erase(m_roundStarts.begin(), m_roundStarts.lower_bound(oldest));
        for (auto it = m_trainings.begin(); it != m_trainings.end();)
        {
            it = it->first.second < oldest ? m_trainings.erase(it) : std::next(it);
        }
    }
}

} // namespace ns3
