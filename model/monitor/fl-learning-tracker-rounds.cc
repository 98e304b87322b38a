/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * FlLearningTracker's round view (InstallRounds): one record per round of a server-clients
 * algorithm, the global model evaluated once, per-client rows, FedAvg's per-round CSV.
 */
#include "ns3/fl-learning-tracker.h"

#include "ns3/boolean.h"
#include "ns3/constant-position-mobility-model.h"
#include "ns3/fl-ns3-compat.h"
#include "ns3/log.h"
#include "ns3/mobility-model.h"
#include "ns3/network-metrics.h"
#include "ns3/node-list.h"
#include "ns3/node.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/trace-source-accessor.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <iomanip>
#include <limits>
#include <sstream>

namespace ns3
{

/// The log component of FlLearningTracker (NS_LOG=FlLearningTracker), defined in fl-learning-tracker.cc.
LogComponent& FlLearningTrackerLog();

namespace
{
LogComponent& g_log = FlLearningTrackerLog();
} // namespace

namespace
{
double
WallSeconds()
{
    using namespace std::chrono;
    return duration<double>(steady_clock::now().time_since_epoch()).count();
}
} // namespace

// ------------------------------------------------------------------------- the round view

FlLearningTracker::ModelEvaluation
FlLearningTracker::EvaluateModel(const fl::LearningTask& task, const fl::ParamVector& w)
{
    ModelEvaluation e;
    e.test = task.Evaluate(w);
    e.trainLoss = task.EvaluateTraining(w).loss;
    return e;
}

void
FlLearningTracker::InstallRounds(Ptr<Application> server)
{
    NS_LOG_FUNCTION(this << server);
    if (m_server)
    {
        NS_FATAL_ERROR("FlLearningTracker::InstallRounds: already installed on a server; create "
                       "one tracker (or LearningMonitor) per server");
    }
    // Any FL application with the RoundStart and RoundEnd traces and a learning task.
    Ptr<FlApplicationBase> app = DynamicCast<FlApplicationBase>(server);
    if (!app ||
        !server->TraceConnectWithoutContext(
            "RoundStart",
            MakeCallback(&FlLearningTracker::HandleRoundStart, this)) ||
        !server->TraceConnectWithoutContext("RoundEnd",
                                            MakeCallback(&FlLearningTracker::HandleRoundEnd, this)))
    {
        NS_FATAL_ERROR("FlLearningTracker::InstallRounds (LearningMonitor::Install): application "
                       << server->GetInstanceTypeId().GetName()
                       << " has no RoundStart and RoundEnd traces; install the round view on a "
                          "server");
    }
    m_server = app;
}

void
FlLearningTracker::InstallRoundClients(const ApplicationContainer& clients)
{
    for (auto it = clients.Begin(); it != clients.End(); ++it)
    {
        Ptr<FlApplicationBase> c = DynamicCast<FlApplicationBase>(*it);
        if (!c ||
            !c->TraceConnectWithoutContext("TrainingPlanned",
                                           MakeCallback(&FlLearningTracker::HandleTrained, this)))
        {
            NS_FATAL_ERROR("FlLearningTracker::InstallRoundClients (LearningMonitor::"
                           "InstallClients): application "
                           << (*it)->GetInstanceTypeId().GetName()
                           << " has no TrainingPlanned trace; pass the container of the "
                              "clients (FlClientHelper returns it)");
        }
        m_clients.push_back(c);
    }
}

void
FlLearningTracker::SetRadioEnergyReader(std::function<double(uint32_t client)> joulesSoFar)
{
    m_radioEnergy = std::move(joulesSoFar);
}

void
FlLearningTracker::SetRoundOutput(const std::string& path)
{
    m_roundFile = path;
}

void
FlLearningTracker::SetClientRoundOutput(const std::string& path)
{
    m_clientRoundFile = path;
}

void
FlLearningTracker::SetKeepClientRounds(bool keep)
{
    m_keepClientRounds = keep;
}

void
FlLearningTracker::SetUplinkDelta(double delta)
{
    m_uplinkDelta = delta;
}

const std::vector<FlRoundRecord>&
FlLearningTracker::GetRoundRecords() const
{
    return m_roundRecords;
}

const std::vector<FlClientRoundRecord>&
FlLearningTracker::GetClientRoundRecords() const
{
    return m_clientRoundRecords;
}

std::string
FlLearningTracker::RoundCsvHeader(bool mobility)
{
    return std::string(
               "round,time_s,duration_s,test_loss,test_accuracy,train_loss,status,selected,"
               "participants,stale,stragglers,bytes_down,bytes_up,download_s,compute_s,upload_s,"
               "waiting_s,chunks_lost,chunks_retx,missing_coords,energy_radio_j,energy_compute_j,"
               "deadline_hit,participant_ids,epsilon_uplink") +
           (mobility ? ",lost,given_up,disconnected,handovers,detached" : "");
}

std::string
FlLearningTracker::RoundCsvRow(const FlRoundRecord& r, bool mobility)
{
    std::ostringstream os;
    os << std::setprecision(10) << r.round << ',' << r.timeS << ',' << r.durationS << ','
       << r.testLoss << ',' << r.testAccuracy << ',' << r.trainLoss << ',' << r.status << ','
       << r.selected << ',' << r.participants << ',' << r.stale << ',' << r.stragglers << ','
       << r.bytesDown << ',' << r.bytesUp << ',' << r.downloadS << ',' << r.computeS << ','
       << r.uploadS << ',' << r.waitingS << ',' << r.chunksLost << ',' << r.chunksRetx << ','
       << r.missingCoordinates << ',' << r.energyRadioJ << ',' << r.energyComputeJ << ','
       << (r.deadlineHit ? 1 : 0) << ',' << r.participantIds << ',' << r.epsilonUplink;
    if (mobility)
    {
        os << ',' << r.lost << ',' << r.givenUp << ',' << r.disconnected << ',' << r.handovers
           << ',' << r.detached;
    }
    return os.str();
}

std::string
FlLearningTracker::ClientRoundCsvHeader(bool mobility)
{
    return std::string(
               "round,client,selected,participated,trained_round,staleness,download_s,compute_s,"
               "upload_s,waiting_s,missing_coords,chunks_lost,energy_radio_j,energy_compute_j") +
           (mobility ? ",upload_distance_m,upload_snr_db,lost,upload_cell,handovers,detached" : "");
}

std::string
FlLearningTracker::ClientRoundCsvRow(const FlClientRoundRecord& r, bool mobility)
{
    std::ostringstream os;
    os << std::setprecision(10) << r.round << ',' << r.client << ',' << (r.selected ? 1 : 0) << ','
       << (r.participated ? 1 : 0) << ',' << r.trainedRound << ',' << r.staleness << ','
       << r.downloadS << ',' << r.computeS << ',' << r.uploadS << ',' << r.waitingS << ','
       << r.missingCoordinates << ',' << r.chunksLost << ',' << r.energyRadioJ << ','
       << r.energyComputeJ;
    if (mobility)
    {
        os << ',' << r.uploadDistanceM << ',' << r.uploadSnrDb << ',' << (r.lost ? 1 : 0) << ','
           << r.uploadCell << ',' << r.handovers << ',' << (r.detached ? 1 : 0);
    }
    return os.str();
}

std::string
FlLearningTracker::UplinkComment() const
{
    fl::PrivacyStatement statement = fl::UplinkStatement(m_uplinkKind, m_uplinkDelta);
    statement.noise = fl::NoiseAssumption(m_uplinkNoiseSource);
    return "# epsilon_uplink: the least private client | " + statement.Describe();
}

bool
FlLearningTracker::WriteRoundCsv(const std::string& path) const
{
    std::ofstream f(path);
    if (!f)
    {
        return false;
    }
    const bool mobility = MobilityColumnsOn();
    f << RoundCsvHeader(mobility) << '\n';
    for (const auto& r : m_roundRecords)
    {
        f << RoundCsvRow(r, mobility) << '\n';
    }
    if (m_uplinkNoise)
    {
        f << UplinkComment() << '\n';
    }
    return static_cast<bool>(f);
}

double
FlLearningTracker::TimeToAccuracy(double target) const
{
    for (const auto& r : m_roundRecords)
    {
        if (r.testAccuracy >= target)
        {
            return r.timeS;
        }
    }
    return -1.0;
}

void
FlLearningTracker::AppendRound(const FlRoundRecord& r)
{
    if (m_roundRecords.empty() && !m_roundFile.empty())
    {
        m_roundStream.open(m_roundFile);
        if (!m_roundStream)
        {
            NS_FATAL_ERROR("FlLearningTracker: cannot open the round view's file '"
                           << m_roundFile
                           << "' (LearningMonitor's OutputFile, SetRoundOutput); check the "
                              "directory exists and is writable");
        }
        m_roundStream << RoundCsvHeader(MobilityColumnsOn()) << '\n';
    }
    m_roundRecords.push_back(r);
    if (m_roundStream.is_open())
    {
        m_roundStream << RoundCsvRow(r, MobilityColumnsOn()) << '\n';
        m_roundStream.flush();
    }
    m_roundRecordedTrace(r);
}

void
FlLearningTracker::AppendClientRounds(const std::map<uint32_t, FlClientRoundRecord>& rows)
{
    if (!m_clientRoundStream.is_open() && !m_clientRoundFile.empty())
    {
        m_clientRoundStream.open(m_clientRoundFile);
        if (!m_clientRoundStream)
        {
            NS_FATAL_ERROR("FlLearningTracker: cannot open the per-client round file '"
                           << m_clientRoundFile
                           << "' (LearningMonitor's ClientOutputFile, SetClientRoundOutput); "
                              "check the directory exists and is writable");
        }
        m_clientRoundStream << ClientRoundCsvHeader(MobilityColumnsOn()) << '\n';
    }
    for (const auto& kv : rows)
    {
        if (m_keepClientRounds)
        {
            m_clientRoundRecords.push_back(kv.second);
        }
        if (m_clientRoundStream.is_open())
        {
            m_clientRoundStream << ClientRoundCsvRow(kv.second, MobilityColumnsOn()) << '\n';
        }
    }
    if (m_clientRoundStream.is_open())
    {
        m_clientRoundStream.flush();
    }
}

void
FlLearningTracker::HandleRoundStart(uint32_t round, const std::vector<uint32_t>& selected)
{
    m_roundStarts[round] = Simulator::Now();
    if (m_server && MobilityColumnsOn())
    {
        // the clients the round needs now, without a serving cell (detached)
        for (uint32_t k : selected)
        {
            if (m_server->GetClientLinkState(k).cell == kFlNoCell)
            {
                m_detachedAtStart[round].push_back(k);
            }
        }
    }
}

void
FlLearningTracker::SetMobilityColumns(FlMobilityColumns mode)
{
    m_mobilityColumns = mode;
    m_mobilityOn = -1;
}

bool
FlLearningTracker::MobilityColumnsOn() const
{
    if (m_mobilityOn < 0)
    {
        bool on = m_mobilityColumns == FlMobilityColumns::On;
        if (m_mobilityColumns == FlMobilityColumns::Auto)
        {
            for (const auto& c : m_clients)
            {
                Ptr<Node> node = c->GetNode();
                Ptr<MobilityModel> m = node ? node->GetObject<MobilityModel>() : nullptr;
                if (m && !DynamicCast<ConstantPositionMobilityModel>(m))
                {
                    on = true;
                    break;
                }
            }
        }
        m_mobilityOn = on ? 1 : 0;
    }
    return m_mobilityOn == 1;
}

void
FlLearningTracker::HandleTrained(const FlTrainingReport& report)
{
    m_trainings[{report.client, report.round}].push_back(report);
    m_computeEnergyWindow[report.client] += report.computeEnergyJ;
    if (MobilityColumnsOn())
    {
        // the upload leaves the client when its compute time has passed (as the breakdown
        // counts it): look at its link then
        const Time sent = report.received + report.computeTime;
        const Time delay = sent > Simulator::Now() ? sent - Simulator::Now() : Time(0);
        Simulator::Schedule(delay,
                            &FlLearningTracker::SampleUpload,
                            Ptr<FlLearningTracker>(this),
                            report.client,
                            report.round,
                            sent);
    }
}

void
FlLearningTracker::SampleUpload(uint32_t client, uint32_t round, Time sent)
{
    UploadSample sample{sent,
                        std::numeric_limits<double>::quiet_NaN(),
                        std::numeric_limits<double>::quiet_NaN(),
                        kFlCellUnknown};
    if (m_server)
    {
        const FlLinkState st = m_server->GetClientLinkState(client);
        sample.distanceM = st.distanceM;
        sample.snrDb = st.snrDb;
        sample.cell = st.cell;
    }
    if (std::isnan(sample.distanceM) && m_server)
    {
        // no scene link state: the distance to the server's node
        Ptr<MobilityModel> to = m_server->GetNode()->GetObject<MobilityModel>();
        for (const auto& c : m_clients)
        {
            if (c->GetLearnerIndex() == client)
            {
                Ptr<MobilityModel> from = c->GetNode()->GetObject<MobilityModel>();
                if (from && to)
                {
                    sample.distanceM = from->GetDistanceFrom(to);
                }
                break;
            }
        }
    }
    m_uploadSamples[{client, round}].push_back(sample);
}

uint64_t
FlLearningTracker::ChunkCounter(bool lost) const
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
FlLearningTracker::CountLostChunks(uint32_t round, std::map<uint32_t, FlClientRoundRecord>& rows)
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
FlLearningTracker::HandleRoundEnd(const FlRoundReport& report)
{
    NS_LOG_FUNCTION(this << report.round);
    const double nan = std::numeric_limits<double>::quiet_NaN();
    auto task = m_server->GetLearningTask();
    FlRoundRecord r;
    r.round = report.round;
    r.timeS = report.end.GetSeconds();
    r.durationS = (report.end - report.start).GetSeconds();
    const ModelEvaluation e = EvaluateModel(*task, *report.globalModel);
    r.testLoss = e.test.loss;
    r.testAccuracy = e.test.accuracy;
    r.trainLoss = e.trainLoss;
    // the server's ModelReport of this model (if it makes one) takes this evaluation
    m_lastEvaluation.valid = true;
    m_lastEvaluation.round = report.round;
    m_lastEvaluation.node = m_server->GetNodeLevelId();
    m_lastEvaluation.task = task.get();
    m_lastEvaluation.test = e.test;
    r.status = FlRoundStatusName(report.status);
    // a client given up (UDP) was sent the model and did not answer: selected, a straggler
    r.selected = static_cast<uint32_t>(report.selected.size() + report.givenUp.size());
    r.participants = static_cast<uint32_t>(report.participants.size());
    r.stale = report.staleUpdates;
    r.stragglers = report.stragglers + static_cast<uint32_t>(report.givenUp.size());
    r.bytesDown = report.bytesDown;
    r.bytesUp = report.bytesUp;
    r.deadlineHit = report.deadlineHit;
    r.missingCoordinates = report.missingCoordinates;
    r.givenUp = static_cast<uint32_t>(report.givenUp.size());
    r.disconnected = report.disconnected;
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
    for (uint32_t k : report.givenUp)
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
        // The training this update came from: of the client's trainings on that model, the
        // one that ended last before the update arrived. A client trains on one model at a
        // time and is sent the next one only after the server had its update, so every later
        // training of it ended after this arrival, every earlier one's update came earlier.
        auto tr = m_trainings.find({u.client, u.trainedRound});
        auto st = m_roundStarts.find(u.trainedRound);
        if (tr != m_trainings.end())
        {
            std::vector<FlTrainingReport>& trainings = tr->second;
            auto match = trainings.end();
            for (auto t = trainings.begin(); t != trainings.end(); ++t)
            {
                const Time sent = t->received + t->computeTime;
                if (sent <= u.arrival &&
                    (match == trainings.end() || sent > match->received + match->computeTime))
                {
                    match = t;
                }
            }
            if (match != trainings.end())
            {
                auto samples = m_uploadSamples.find({u.client, u.trainedRound});
                if (samples != m_uploadSamples.end())
                {
                    const Time sent = match->received + match->computeTime;
                    auto& v = samples->second;
                    for (auto it = v.begin(); it != v.end(); ++it)
                    {
                        if (it->sent == sent)
                        {
                            row.uploadDistanceM = it->distanceM;
                            row.uploadSnrDb = it->snrDb;
                            row.uploadCell = it->cell;
                            v.erase(it);
                            break;
                        }
                    }
                    if (v.empty())
                    {
                        m_uploadSamples.erase(samples);
                    }
                }
                if (st != m_roundStarts.end())
                {
                    row.downloadS = (match->received - st->second).GetSeconds();
                    row.computeS = match->computeTime.GetSeconds();
                    row.uploadS = (u.arrival - (match->received + match->computeTime)).GetSeconds();
                }
                trainings.erase(match); // its update has come: nothing refers to it again
            }
            if (trainings.empty())
            {
                m_trainings.erase(tr);
            }
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
    // Clients the round closed without: sent the model, no update aggregated; their link when
    // their last upload of this round left them, if one did.
    r.lost = report.disconnected;
    for (auto& kv : rows)
    {
        FlClientRoundRecord& row = kv.second;
        if (row.selected && !row.participated)
        {
            row.lost = true;
            ++r.lost;
            auto samples = m_uploadSamples.find({row.client, report.round});
            if (samples != m_uploadSamples.end() && !samples->second.empty())
            {
                row.uploadDistanceM = samples->second.back().distanceM;
                row.uploadSnrDb = samples->second.back().snrDb;
                row.uploadCell = samples->second.back().cell;
            }
        }
    }
    if (MobilityColumnsOn())
    {
        // handovers during the round; clients without a cell when the round needed them
        auto start = m_detachedAtStart.find(report.round);
        if (start != m_detachedAtStart.end())
        {
            for (uint32_t k : start->second)
            {
                auto row = rows.find(k);
                if (row != rows.end())
                {
                    row->second.detached = true;
                }
            }
            m_detachedAtStart.erase(start);
        }
        for (auto& kv : rows)
        {
            FlClientRoundRecord& row = kv.second;
            const uint32_t total = m_server->GetClientLinkState(kv.first).handovers;
            uint32_t& before = m_handoversAtLastEnd[kv.first];
            row.handovers = total >= before ? total - before : 0;
            before = total;
            r.handovers += row.handovers;
            if (row.selected && row.uploadCell == kFlNoCell)
            {
                row.detached = true;
            }
            r.detached += row.detached ? 1 : 0;
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
                m_uplinkNoiseSource = client->GetUplinkNoiseSource();
            }
            m_uplinkNoise = true;
            const double e = client->GetUplinkEpsilon(m_uplinkDelta);
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
    AppendRound(r);
    if (report.round > 0 && !m_clients.empty())
    {
        AppendClientRounds(rows);
    }
    // Forget what no later round can refer to (updates are at most a few rounds stale).
    const uint32_t keep = 64;
    if (report.round > keep)
    {
        const uint32_t oldest = report.round - keep;
        m_roundStarts.erase(m_roundStarts.begin(), m_roundStarts.lower_bound(oldest));
        m_detachedAtStart.erase(m_detachedAtStart.begin(), m_detachedAtStart.lower_bound(oldest));
        for (auto it = m_trainings.begin(); it != m_trainings.end();)
        {
            it = it->first.second < oldest ? m_trainings.erase(it) : std::next(it);
        }
        for (auto it = m_uploadSamples.begin(); it != m_uploadSamples.end();)
        {
            it = it->first.second < oldest ? m_uploadSamples.erase(it) : std::next(it);
        }
    }
}

} // namespace ns3
