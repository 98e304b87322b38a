/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ns3/learning-monitor.h"

#include "ns3/boolean.h"
#include "ns3/log.h"
#include "ns3/simulator.h"
#include "ns3/string.h"

#include <chrono>
#include <cmath>
#include <iomanip>
#include <iostream>
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
    if (m_stream.is_open())
    {
        m_stream.close();
    }
    Object::DoDispose();
}

void
LearningMonitor::Install(Ptr<FlServerApplication> server)
{
    NS_LOG_FUNCTION(this << server);
    if (m_server)
    {
        NS_FATAL_ERROR(
            "LearningMonitor: already installed on a server; create one monitor per server");
    }
    m_server = server;
    server->TraceConnectWithoutContext("RoundEnd",
                                       MakeCallback(&LearningMonitor::HandleRoundEnd, this));
}

const std::vector<FlRoundRecord>&
LearningMonitor::GetRecords() const
{
    return m_records;
}

std::string
LearningMonitor::CsvHeader()
{
    return "round,time_s,duration_s,test_loss,test_accuracy,train_loss,selected,participants,"
           "bytes_down,bytes_up,deadline_hit,participant_ids";
}

std::string
LearningMonitor::CsvRow(const FlRoundRecord& r)
{
    std::ostringstream os;
    os << std::setprecision(10) << r.round << ',' << r.timeS << ',' << r.durationS << ','
       << r.testLoss << ',' << r.testAccuracy << ',' << r.trainLoss << ',' << r.selected << ','
       << r.participants << ',' << r.bytesDown << ',' << r.bytesUp << ',' << (r.deadlineHit ? 1 : 0)
       << ',' << r.participantIds;
    return os.str();
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
                  << "  clients=" << r.participants << "/" << r.selected << std::defaultfloat
                  << std::endl;
    }
    m_recordedTrace(r);
}

void
LearningMonitor::HandleRoundEnd(const FlRoundReport& report)
{
    NS_LOG_FUNCTION(this << report.round);
    auto task = m_server->GetTask();
    FlRoundRecord r;
    r.round = report.round;
    r.timeS = report.end.GetSeconds();
    r.durationS = (report.end - report.start).GetSeconds();
    const fl::Evaluation test = task->Evaluate(*report.globalModel);
    r.testLoss = test.loss;
    r.testAccuracy = test.accuracy;
    r.trainLoss = task->EvaluateTraining(*report.globalModel).loss;
    r.selected = static_cast<uint32_t>(report.selected.size());
    r.participants = static_cast<uint32_t>(report.participants.size());
    r.bytesDown = report.bytesDown;
    r.bytesUp = report.bytesUp;
    r.deadlineHit = report.deadlineHit;
    std::ostringstream ids;
    for (std::size_t i = 0; i < report.participants.size(); ++i)
    {
        ids << (i ? ";" : "") << report.participants[i];
    }
    r.participantIds = ids.str();
    r.wallS = WallSeconds() - m_wallStart;
    Append(r);
}

} // namespace ns3
