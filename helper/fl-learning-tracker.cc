/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ns3/fl-learning-tracker.h"
#include "ns3/fl-module-link.h"

#include "ns3/boolean.h"
#include "ns3/fl-ns3-compat.h"
#include "ns3/log.h"
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

NS_LOG_COMPONENT_DEFINE("FlLearningTracker");
NS_OBJECT_ENSURE_REGISTERED(FlLearningTracker);

namespace
{
/// Models of one role as typed pointers, for the pure metrics.
template <typename S>
std::vector<const fl::Vec<S>*>
Typed(const std::vector<const fl::ParamVector*>& models)
{
    std::vector<const fl::Vec<S>*> out;
    out.reserve(models.size());
    for (const auto* m : models)
    {
        out.push_back(&m->Get<S>());
    }
    return out;
}

template <typename S>
void
RoleAggregates(const std::vector<const fl::ParamVector*>& models,
               const Eigen::VectorXd* optimum,
               fl::ParamVector& centroid,
               double& disagreement,
               double& avgMsdDb)
{
    const auto typed = Typed<S>(models);
    centroid = fl::ParamVector(fl::Centroid<S>(typed));
    disagreement = fl::Disagreement<S>(typed);
    avgMsdDb =
        optimum ? fl::AverageMsdDb<S>(typed, *optimum) : std::numeric_limits<double>::quiet_NaN();
}

/// The arithmetic mean of `v` summed in order, NaN if empty (nothing measured).
double
MeanOrNan(const std::vector<double>& v)
{
    if (v.empty())
    {
        return std::numeric_limits<double>::quiet_NaN();
    }
    double sum = 0.0;
    for (double x : v)
    {
        sum += x;
    }
    return sum / static_cast<double>(v.size());
}

double
WallSeconds()
{
    using namespace std::chrono;
    return duration<double>(steady_clock::now().time_since_epoch()).count();
}

double
MsdDbOf(const fl::ParamVector& w, const Eigen::VectorXd& optimum)
{
    return w.GetPrecision() == fl::Precision::Float64 ? fl::MsdDb<double>(w.Get<double>(), optimum)
                                                      : fl::MsdDb<float>(w.Get<float>(), optimum);
}
} // namespace

TypeId
FlLearningTracker::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::FlLearningTracker")
            .SetParent<Object>()
            .SetGroupName("Fl")
            .AddConstructor<FlLearningTracker>()
            .AddAttribute("OutputFile",
                          "Long, tidy CSV (round,time_s,node,role,metric,value), written as rounds "
                          "close (empty = none).",
                          StringValue(""),
                          MakeStringAccessor(&FlLearningTracker::m_outputFile),
                          MakeStringChecker())
            .AddAttribute("EvaluateNodes",
                          "Also evaluate every node's model (test loss/accuracy, MSD), not only "
                          "the aggregates (costs one evaluation per node and round).",
                          BooleanValue(true),
                          MakeBooleanAccessor(&FlLearningTracker::m_evaluateNodes),
                          MakeBooleanChecker())
            .AddTraceSource("Row",
                            "Every row as it is recorded (round 0 = the initial model, as in "
                            "ModelReport): a round's rows come when a report of a later round "
                            "arrives, the last round's at Flush().",
                            MakeTraceSourceAccessor(&FlLearningTracker::m_rowTrace),
                            "ns3::FlLearningTracker::RowTracedCallback")
            .AddTraceSource("RoundRecorded",
                            "Every row of the round view (InstallRounds) as the server reports "
                            "its round.",
                            MakeTraceSourceAccessor(&FlLearningTracker::m_roundRecordedTrace),
                            "ns3::FlLearningTracker::RoundRecordedCallback")
            .AddTraceSource("NetworkIteration",
                            "The network view's report of every iteration complete at all N "
                            "nodes (SetNetwork, InstallNetwork; iteration 0 = the initial models), "
                            "as the in-process runners report it.",
                            MakeTraceSourceAccessor(&FlLearningTracker::m_networkTrace),
                            "ns3::FlLearningTracker::NetworkIterationTracedCallback");
    return tid;
}

FlLearningTracker::FlLearningTracker()
    : m_evaluateNodes(true),
      m_wallStart(WallSeconds())
{
}

FlLearningTracker::~FlLearningTracker() = default;

void
FlLearningTracker::DoDispose()
{
    Flush();
    if (m_stream.is_open())
    {
        m_stream.close();
    }
    if (m_wideStream.is_open())
    {
        m_wideStream.close();
    }
    if (m_roundStream.is_open())
    {
        if (m_uplinkNoise)
        {
            // what the epsilon_uplink column means (the mechanism of the first noisy client)
            m_roundStream << UplinkComment() << '\n';
        }
        m_roundStream.close();
    }
    if (m_clientRoundStream.is_open())
    {
        m_clientRoundStream.close();
    }
    m_server = nullptr;
    m_clients.clear();
    m_radioEnergy = nullptr;
    m_reporters.clear();
    m_task = nullptr;
    m_accountant = nullptr;
    m_graphAccountant = nullptr;
    m_iterationCallback = nullptr;
    m_finish = nullptr;
    m_onStall = nullptr;
    m_pending.clear();
    Object::DoDispose();
}

void
FlLearningTracker::SetTask(std::shared_ptr<const fl::LearningTask> task)
{
    m_task = std::move(task);
}

void
FlLearningTracker::SetReferenceOptimum(const Eigen::VectorXd& optimum)
{
    m_optimum = optimum;
    m_haveOptimum = true;
}

void
FlLearningTracker::SetAccountant(std::shared_ptr<const fl::PrivacyAccountant> accountant,
                                 double delta,
                                 fl::Composition composition,
                                 const fl::PrivacyStatement& statement)
{
    m_accountant = std::move(accountant);
    m_delta = delta;
    m_composition = composition;
    m_statement = statement;
}

void
FlLearningTracker::Install(const ApplicationContainer& apps)
{
    for (auto it = apps.Begin(); it != apps.End(); ++it)
    {
        Ptr<FlApplicationBase> app = DynamicCast<FlApplicationBase>(*it);
        if (!app)
        {
            NS_FATAL_ERROR("FlLearningTracker::Install: application "
                           << (*it)->GetInstanceTypeId().GetName()
                           << " is not an FL application (FlApplicationBase); pass the "
                              "containers the FL helpers return");
        }
        Connect(app);
    }
}

void
FlLearningTracker::InstallAll()
{
    for (auto n = NodeList::Begin(); n != NodeList::End(); ++n)
    {
        for (uint32_t i = 0; i < (*n)->GetNApplications(); ++i)
        {
            if (Ptr<FlApplicationBase> app =
                    DynamicCast<FlApplicationBase>((*n)->GetApplication(i)))
            {
                Connect(app);
            }
        }
    }
}

void
FlLearningTracker::Connect(Ptr<FlApplicationBase> app)
{
    // the application is bound to its reports: the end-of-run rows read its transport
    app->TraceConnectWithoutContext(
        "ModelReport",
        MakeBoundCallback(
            +[](FlLearningTracker* tracker, FlApplicationBase* a, const FlModelReport& r) {
                if (r.model != nullptr && r.countsBytes)
                {
                    tracker->m_reporters[r.node].transport = a->GetTransport();
                }
                tracker->HandleReport(r);
            },
            this,
            PeekPointer(app)));
}

std::string
FlLearningTracker::CsvHeader()
{
    return "round,time_s,node,role,metric,value";
}

uint64_t
FlLearningTracker::GetLateReports() const
{
    return m_lateReports;
}

const std::vector<FlMetricRow>&
FlLearningTracker::GetRows() const
{
    return m_rows;
}

double
FlLearningTracker::GetLast(const std::string& node, const std::string& metric) const
{
    for (auto it = m_rows.rbegin(); it != m_rows.rend(); ++it)
    {
        if (it->node == node && it->metric == metric)
        {
            return it->value;
        }
    }
    return std::numeric_limits<double>::quiet_NaN();
}

void
FlLearningTracker::HandleReport(const FlModelReport& report)
{
    Record(report, Simulator::Now().GetSeconds());
}

void
FlLearningTracker::Record(const FlModelReport& report, double timeS)
{
    if (report.model == nullptr)
    {
        return;
    }
    if (report.round < m_firstOpenable)
    {
        ++m_lateReports; // its round's rows are written: a second copy would double it
        return;
    }
    // Rounds before this one are complete: no node reports an older round afterwards.
    while (!m_open.empty() && m_open.begin()->first < report.round)
    {
        CloseRound(m_open.begin()->first);
    }
    OpenRound& r = m_open[report.round];
    r.timeS = timeS;
    Held& h = r.models[report.node];
    h.role = report.role;
    h.model = *report.model;
    h.countsBytes = report.countsBytes;
    h.bytesSent = report.bytesSent;
    const LastEvaluation& e = m_lastEvaluation;
    h.evaluated =
        e.valid && e.round == report.round && e.node == report.node && e.task == m_task.get();
    if (h.evaluated)
    {
        h.evaluation = e.test; // the round view's evaluation of this very model
    }
    auto who = m_reporters.find(report.node);
    if (who != m_reporters.end() && report.countsBytes)
    {
        who->second.role = report.role;
        who->second.counted = true;
    }
    if (m_accountant)
    {
        // The privacy spent up to this report (the algorithm feeds the accountant before it
        // reports the round's models).
        r.epsilon = m_accountant->Report(m_delta, m_composition).epsilon;
    }
}

void
FlLearningTracker::Flush()
{
    TakeFinalCounters();
    while (!m_open.empty())
    {
        CloseRound(m_open.begin()->first);
    }
    if (m_stream.is_open())
    {
        m_stream.flush();
    }
    if (m_wideStream.is_open())
    {
        m_wideStream.flush();
    }
}

void
FlLearningTracker::SetWideOutput(const std::string& path)
{
    m_wideFile = path;
}

const std::vector<FlWideRow>&
FlLearningTracker::GetWideRows() const
{
    return m_wideRows;
}

std::string
FlLearningTracker::WideCsvHeader()
{
    return "round,time_s,role,nodes,centroid_test_loss,centroid_test_accuracy,"
           "mean_node_test_loss,mean_node_test_accuracy,disagreement,centroid_msd_db,avg_msd_db,"
           "epsilon,bytes_sent";
}

void
FlLearningTracker::EmitWide(const FlWideRow& row)
{
    m_wideRows.push_back(row);
    if (m_wideFile.empty())
    {
        return;
    }
    if (!m_wideStream.is_open())
    {
        m_wideStream.open(m_wideFile);
        if (!m_wideStream)
        {
            fl::ExitOnConfigError("FlLearningTracker",
                                  fl::ConfigError("SetWideOutput",
                                                  "cannot write \"" + m_wideFile + "\"",
                                                  "choose a writable path"));
        }
        m_wideStream << WideCsvHeader() << '\n';
    }
    // what the run did not measure is an empty field
    auto field = [this](double v) {
        m_wideStream << ',';
        if (!std::isnan(v))
        {
            m_wideStream << v;
        }
    };
    m_wideStream << std::setprecision(10) << row.round << ',' << row.timeS << ',' << row.role;
    for (double v : {row.nodes,
                     row.centroidTestLoss,
                     row.centroidTestAccuracy,
                     row.meanNodeTestLoss,
                     row.meanNodeTestAccuracy,
                     row.disagreement,
                     row.centroidMsdDb,
                     row.avgMsdDb,
                     row.epsilon,
                     row.bytesSent})
    {
        field(v);
    }
    m_wideStream << '\n';
}

void
FlLearningTracker::Emit(uint32_t round,
                        double timeS,
                        const std::string& node,
                        FlNodeRole role,
                        const std::string& metric,
                        double value)
{
    FlMetricRow row{round, timeS, node, FlNodeRoleName(role), metric, value};
    if (!m_outputFile.empty())
    {
        if (!m_stream.is_open())
        {
            m_stream.open(m_outputFile);
            if (!m_stream)
            {
                fl::ExitOnConfigError("FlLearningTracker",
                                      fl::ConfigError("OutputFile",
                                                      "cannot write \"" + m_outputFile + "\"",
                                                      "choose a writable path"));
            }
            m_stream << CsvHeader() << '\n';
            if (m_accountant)
            {
                m_stream << "# epsilon: "
                         << (m_statement.mechanism.empty()
                                 ? std::string("what it guarantees was not stated by the "
                                               "program (FlLearningTracker::SetAccountant)")
                                 : m_statement.Describe())
                         << " | composed " << fl::CompositionName(m_composition)
                         << " at delta = " << m_delta << '\n';
            }
        }
        m_stream << std::setprecision(10) << row.round << ',' << row.timeS << ',' << row.node << ','
                 << row.role << ',' << row.metric << ',' << row.value << '\n';
    }
    m_rows.push_back(std::move(row));
    m_rowTrace(m_rows.back());
}

void
FlLearningTracker::CloseRound(uint32_t round)
{
    auto it = m_open.find(round);
    if (it == m_open.end())
    {
        return;
    }
    m_firstOpenable = std::max(m_firstOpenable, round + 1);
    const OpenRound& r = it->second;
    const Eigen::VectorXd* optimum = m_haveOptimum ? &m_optimum : nullptr;
    const double nan = std::numeric_limits<double>::quiet_NaN();
    std::map<FlNodeRole, std::vector<const fl::ParamVector*>> byRole;
    /// Per role: bytes sent by the nodes that count them, and the nodes' evaluations.
    struct RoleTally
    {
        bool countsBytes{false};
        uint64_t bytesSent{0};
        std::vector<double> losses, accuracies;
    };

    std::map<FlNodeRole, RoleTally> tally;
    for (const auto& kv : r.models)
    {
        const Held& h = kv.second;
        byRole[h.role].push_back(&h.model);
        RoleTally& t = tally[h.role];
        if (h.countsBytes)
        {
            t.countsBytes = true;
            t.bytesSent += h.bytesSent;
        }
        if (!m_evaluateNodes)
        {
            continue;
        }
        const std::string node = std::to_string(kv.first);
        if (m_task)
        {
            const fl::Evaluation e = h.evaluated ? h.evaluation : m_task->Evaluate(h.model);
            Emit(round, r.timeS, node, h.role, "test_loss", e.loss);
            t.losses.push_back(e.loss);
            if (!std::isnan(e.accuracy))
            {
                Emit(round, r.timeS, node, h.role, "test_accuracy", e.accuracy);
                t.accuracies.push_back(e.accuracy);
            }
        }
        if (optimum)
        {
            Emit(round, r.timeS, node, h.role, "msd_db", MsdDbOf(h.model, *optimum));
        }
        if (h.countsBytes)
        {
            Emit(round, r.timeS, node, h.role, "bytes_sent", static_cast<double>(h.bytesSent));
        }
    }
    for (const auto& kv : r.finalOnly)
    {
        // the end of the run: a node whose last report was an earlier round (TakeFinalCounters)
        RoleTally& t = tally[kv.second.first];
        t.countsBytes = true;
        t.bytesSent += kv.second.second;
        if (m_evaluateNodes)
        {
            Emit(round,
                 r.timeS,
                 std::to_string(kv.first),
                 kv.second.first,
                 "bytes_sent",
                 static_cast<double>(kv.second.second));
        }
    }
    const double epsilon = m_accountant ? r.epsilon : nan;
    std::vector<FlWideRow> wide;
    for (const auto& kv : byRole)
    {
        const auto& models = kv.second;
        fl::ParamVector centroid;
        double disagreement = 0.0;
        double avgMsd = 0.0;
        if (models.front()->GetPrecision() == fl::Precision::Float64)
        {
            RoleAggregates<double>(models, optimum, centroid, disagreement, avgMsd);
        }
        else
        {
            RoleAggregates<float>(models, optimum, centroid, disagreement, avgMsd);
        }
        const RoleTally& t = tally[kv.first];
        FlWideRow w;
        w.round = round;
        w.timeS = r.timeS;
        w.role = FlNodeRoleName(kv.first);
        w.nodes = static_cast<double>(models.size());
        w.disagreement = disagreement;
        w.centroidMsdDb = w.avgMsdDb = w.centroidTestLoss = w.centroidTestAccuracy = nan;
        w.meanNodeTestLoss = MeanOrNan(t.losses);
        w.meanNodeTestAccuracy = MeanOrNan(t.accuracies);
        w.epsilon = epsilon;
        w.bytesSent = t.countsBytes ? static_cast<double>(t.bytesSent) : nan;
        Emit(round, r.timeS, "network", kv.first, "nodes", w.nodes);
        Emit(round, r.timeS, "network", kv.first, "disagreement", disagreement);
        if (t.countsBytes)
        {
            Emit(round, r.timeS, "network", kv.first, "bytes_sent", w.bytesSent);
        }
        if (optimum)
        {
            w.centroidMsdDb = MsdDbOf(centroid, *optimum);
            w.avgMsdDb = avgMsd;
            Emit(round, r.timeS, "centroid", kv.first, "msd_db", w.centroidMsdDb);
            Emit(round, r.timeS, "network", kv.first, "avg_msd_db", avgMsd);
        }
        if (m_task)
        {
            // the centroid of one model is that model: its evaluation if the round view made one
            const Held* only = nullptr;
            for (const auto& node : r.models)
            {
                if (models.size() == 1 && &node.second.model == models.front())
                {
                    only = &node.second;
                }
            }
            const fl::Evaluation e =
                only && only->evaluated ? only->evaluation : m_task->Evaluate(centroid);
            w.centroidTestLoss = e.loss;
            Emit(round, r.timeS, "centroid", kv.first, "test_loss", e.loss);
            if (!std::isnan(e.accuracy))
            {
                w.centroidTestAccuracy = e.accuracy;
                Emit(round, r.timeS, "centroid", kv.first, "test_accuracy", e.accuracy);
            }
        }
        wide.push_back(w);
    }
    for (const auto& kv : tally)
    {
        if (byRole.count(kv.first) == 0 && kv.second.countsBytes)
        {
            // a role none of whose nodes reported the last round: its final bytes only
            Emit(round,
                 r.timeS,
                 "network",
                 kv.first,
                 "bytes_sent",
                 static_cast<double>(kv.second.bytesSent));
        }
    }
    if (m_accountant && !byRole.empty())
    {
        Emit(round, r.timeS, "network", byRole.begin()->first, "epsilon", r.epsilon);
    }
    for (const auto& w : wide)
    {
        EmitWide(w);
    }
    m_open.erase(it);
}

// ------------------------------------------------------------------------- the end of the run

void
FlLearningTracker::TakeFinalCounters()
{
    if (m_open.empty())
    {
        return;
    }
    // the last round takes what each installed application's transport sent in the whole run
    // (e.g. the Stop messages after the last report)
    OpenRound& last = m_open.rbegin()->second;
    for (auto& kv : m_reporters)
    {
        Reporter& who = kv.second;
        if (!who.counted || !who.transport)
        {
            continue;
        }
        const uint64_t sent = who.transport->Stats().bytesSent;
        auto held = last.models.find(kv.first);
        if (held != last.models.end() && held->second.countsBytes)
        {
            held->second.bytesSent = sent;
        }
        else
        {
            last.finalOnly[kv.first] = {who.role, sent}; // its last report was an earlier round
        }
    }
}

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
FlLearningTracker::RoundCsvHeader()
{
    return "round,time_s,duration_s,test_loss,test_accuracy,train_loss,status,selected,"
           "participants,stale,stragglers,bytes_down,bytes_up,download_s,compute_s,upload_s,"
           "waiting_s,chunks_lost,chunks_retx,missing_coords,energy_radio_j,energy_compute_j,"
           "deadline_hit,participant_ids,epsilon_uplink";
}

std::string
FlLearningTracker::RoundCsvRow(const FlRoundRecord& r)
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
FlLearningTracker::ClientRoundCsvHeader()
{
    return "round,client,selected,participated,trained_round,staleness,download_s,compute_s,"
           "upload_s,waiting_s,missing_coords,chunks_lost,energy_radio_j,energy_compute_j";
}

std::string
FlLearningTracker::ClientRoundCsvRow(const FlClientRoundRecord& r)
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
    f << RoundCsvHeader() << '\n';
    for (const auto& r : m_roundRecords)
    {
        f << RoundCsvRow(r) << '\n';
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
        m_roundStream << RoundCsvHeader() << '\n';
    }
    m_roundRecords.push_back(r);
    if (m_roundStream.is_open())
    {
        m_roundStream << RoundCsvRow(r) << '\n';
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
        m_clientRoundStream << ClientRoundCsvHeader() << '\n';
    }
    for (const auto& kv : rows)
    {
        if (m_keepClientRounds)
        {
            m_clientRoundRecords.push_back(kv.second);
        }
        if (m_clientRoundStream.is_open())
        {
            m_clientRoundStream << ClientRoundCsvRow(kv.second) << '\n';
        }
    }
    if (m_clientRoundStream.is_open())
    {
        m_clientRoundStream.flush();
    }
}

void
FlLearningTracker::HandleRoundStart(uint32_t round, const std::vector<uint32_t>& /* selected */)
{
    m_roundStarts[round] = Simulator::Now();
}

void
FlLearningTracker::HandleTrained(const FlTrainingReport& report)
{
    m_trainings[{report.client, report.round}].push_back(report);
    m_computeEnergyWindow[report.client] += report.computeEnergyJ;
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
        for (auto it = m_trainings.begin(); it != m_trainings.end();)
        {
            it = it->first.second < oldest ? m_trainings.erase(it) : std::next(it);
        }
    }
}

// ------------------------------------------------------------------------- the network view

void
FlLearningTracker::SetNetwork(std::size_t nodes,
                              const Eigen::VectorXd& reference,
                              std::shared_ptr<fl::GraphPrivacyAccountant> accountant)
{
    NS_ABORT_MSG_IF(nodes == 0, "FlLearningTracker::SetNetwork: a network of 0 nodes; give N >= 1");
    m_networkNodes = nodes;
    m_networkReference = reference;
    m_graphAccountant = std::move(accountant);
}

void
FlLearningTracker::InstallNetwork(const std::vector<Ptr<FlApplicationBase>>& apps)
{
    if (apps.size() != m_networkNodes)
    {
        NS_FATAL_ERROR("FlLearningTracker::InstallNetwork: "
                       << apps.size() << " applications for a network of " << m_networkNodes
                       << " nodes (SetNetwork); give one application per node");
    }
    Ptr<FlLearningTracker> self(this);
    for (uint32_t k = 0; k < apps.size(); ++k)
    {
        apps[k]->TraceConnectWithoutContext(
            "ModelReport",
            MakeBoundCallback(
                +[](Ptr<FlLearningTracker> tracker, uint32_t index, const FlModelReport& report) {
                    tracker->RecordNetwork(index, report);
                },
                self,
                k));
    }
}

void
FlLearningTracker::SetIterationCallback(fl::NetworkIterationCallback cb)
{
    m_iterationCallback = std::move(cb);
}

void
FlLearningTracker::SetFinish(uint32_t last, std::function<void()> finish)
{
    m_last = last;
    m_finish = std::move(finish);
}

void
FlLearningTracker::SetStallTimeout(Time timeout, std::function<void()> onStall)
{
    m_stallTimeout = timeout;
    m_onStall = std::move(onStall);
    m_lastProgress = Simulator::Now();
    if (timeout.IsStrictlyPositive())
    {
        Ptr<FlLearningTracker> self(this);
        FlSchedule(timeout, [self]() { self->CheckStall(); });
    }
}

uint32_t
FlLearningTracker::CompletedIterations() const
{
    return m_nextIteration == 0 ? 0 : m_nextIteration - 1;
}

const fl::NetworkRunResult&
FlLearningTracker::NetworkResult() const
{
    return m_networkResult;
}

bool
FlLearningTracker::Stalled() const
{
    return m_stalled;
}

void
FlLearningTracker::CheckStall()
{
    if (m_stalled || m_networkNodes == 0 || (m_last > 0 && CompletedIterations() >= m_last))
    {
        return;
    }
    const Time idle = Simulator::Now() - m_lastProgress;
    if (idle >= m_stallTimeout)
    {
        NS_LOG_WARN("no node finished an iteration for " << idle.GetSeconds()
                                                         << " s: the run is stalled");
        m_stalled = true;
        if (m_onStall)
        {
            m_onStall();
        }
        return;
    }
    Ptr<FlLearningTracker> self(this);
    FlSchedule(m_stallTimeout - idle, [self]() { self->CheckStall(); });
}

void
FlLearningTracker::RecordNetwork(uint32_t index, const FlModelReport& report)
{
    if (m_networkNodes == 0 || index >= m_networkNodes)
    {
        NS_FATAL_ERROR("FlLearningTracker::RecordNetwork: node "
                       << index << " of a network of " << m_networkNodes
                       << " nodes; call SetNetwork with N first and give 0 <= node < N");
    }
    if (report.model == nullptr)
    {
        return;
    }
    if (report.round < m_nextIteration)
    {
        ++m_lateReports; // its iteration is complete (a node reported it twice)
        return;
    }
    if (report.round > 0)
    {
        m_lastProgress = Simulator::Now();
    }
    PendingIteration& p = m_pending[report.round];
    if (p.models.empty())
    {
        p.models.resize(m_networkNodes);
        p.aggregates.resize(m_networkNodes);
        p.reported.assign(m_networkNodes, false);
    }
    if (p.reported.at(index))
    {
        ++m_lateReports; // a second report of the same iteration: the first one counts
        return;
    }
    p.reported[index] = true;
    p.models[index] = *report.model;
    p.aggregates[index] = report.aggregate ? *report.aggregate : *report.model;
    ++p.count;
    p.missing += report.missingNeighbours;
    p.dropped += report.droppedClients;
    m_networkResult.droppedClients += report.droppedClients;
    // iterations complete in order (a node cannot finish i + 1 before i)
    while (!m_pending.empty() && m_pending.begin()->first == m_nextIteration &&
           m_pending.begin()->second.count == m_networkNodes)
    {
        PendingIteration& done = m_pending.begin()->second;
        const uint32_t i = m_pending.begin()->first;
        fl::NetworkIterationReport r;
        r.iteration = i;
        r.models = &done.models;
        r.aggregates = &done.aggregates;
        if (i == 0)
        {
            // the initial models: no release yet, no centroid kept (as the runners' start)
            fl::ParamVector centroid;
            fl::FillNetworkMetrics(done.models, done.aggregates, m_networkReference, centroid, r);
        }
        else
        {
            if (m_graphAccountant)
            {
                m_graphAccountant->RecordIteration();
            }
            m_networkResult.lostMessages += done.missing;
            r.lostMessages = done.missing;
            r.droppedClients = done.dropped;
            r.epsilonOneLink = m_graphAccountant ? m_graphAccountant->EpsilonOneLink() : 0.0;
            r.epsilonAllLinks = m_graphAccountant ? m_graphAccountant->EpsilonAllLinks() : 0.0;
            r.epsilonNeighbour = m_graphAccountant ? m_graphAccountant->EpsilonNeighbour() : 0.0;
            fl::FillNetworkMetrics(done.models,
                                   done.aggregates,
                                   m_networkReference,
                                   m_networkResult.centroid,
                                   r);
            m_networkResult.epsilonOneLink = r.epsilonOneLink;
            m_networkResult.epsilonAllLinks = r.epsilonAllLinks;
            m_networkResult.epsilonNeighbour = r.epsilonNeighbour;
        }
        if (m_iterationCallback)
        {
            m_iterationCallback(r);
        }
        m_networkTrace(r);
        m_networkResult.models = std::move(done.models);
        m_pending.erase(m_pending.begin());
        m_nextIteration = i + 1;
        if (m_finish && i > 0 && i == m_last)
        {
            m_finish();
        }
    }
}

bool
FlModuleLinked()
{
    return true;
}

} // namespace ns3
