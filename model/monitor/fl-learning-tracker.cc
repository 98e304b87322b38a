/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * FlLearningTracker: the TypeId, the reports of every application, the long and the wide rows
 * and the end of the run. Its round view is fl-learning-tracker-rounds.cc, its network view
 * fl-learning-tracker-network.cc.
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

LogComponent&
FlLearningTrackerLog()
{
    return g_log;
}
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

bool
FlModuleLinked()
{
    return true;
}

} // namespace ns3
