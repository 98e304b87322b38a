/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ns3/learning-monitor.h"

#include "ns3/boolean.h"
#include "ns3/enum.h"
#include "ns3/double.h"
#include "ns3/log.h"
#include "ns3/string.h"

#include <iomanip>
#include <iostream>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("LearningMonitor");
NS_OBJECT_ENSURE_REGISTERED(LearningMonitor);

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
                          MakeStringAccessor(&LearningMonitor::SetOutputFile,
                                             &LearningMonitor::GetOutputFile),
                          MakeStringChecker())
            .AddAttribute("ClientOutputFile",
                          "CSV file with one row per client and round (needs InstallClients; "
                          "empty = none).",
                          StringValue(""),
                          MakeStringAccessor(&LearningMonitor::SetClientOutputFile,
                                             &LearningMonitor::GetClientOutputFile),
                          MakeStringChecker())
            .AddAttribute("KeepClientRecords",
                          "Keep the per-client rows in memory for GetClientRecords (one per "
                          "client and round: memory grows with the run). Off: the rows are only "
                          "written to ClientOutputFile, if set, as they come.",
                          BooleanValue(false),
                          MakeBooleanAccessor(&LearningMonitor::SetKeepClientRecords,
                                              &LearningMonitor::GetKeepClientRecords),
                          MakeBooleanChecker())
            .AddAttribute(
                "Delta",
                "DP delta of the epsilon_uplink column (clients' uplink noise).",
                DoubleValue(1e-5),
                MakeDoubleAccessor(&LearningMonitor::SetDelta, &LearningMonitor::GetDelta),
                MakeDoubleChecker<double>(1e-300, 1.0 - 1e-16))
            .AddAttribute(
                "MobilityColumns",
                "Whether OutputFile and ClientOutputFile carry the columns of moving clients "
                "(round: lost, given_up, disconnected, handovers, detached; per client: "
                "upload_distance_m, upload_snr_db, lost, upload_cell, handovers, detached): Auto "
                "when a client's node (InstallClients) has a "
                "MobilityModel other than a constant position, On, Off.",
#if FL_NS3_VERSION >= 341
                EnumValue<FlMobilityColumns>(FlMobilityColumns::Auto),
                MakeEnumAccessor<FlMobilityColumns>(&LearningMonitor::SetMobilityColumns),
                MakeEnumChecker(FlMobilityColumns::Auto,
                                "Auto",
                                FlMobilityColumns::On,
                                "On",
                                FlMobilityColumns::Off,
                                "Off"))
#else
                EnumValue(static_cast<int>(FlMobilityColumns::Auto)),
                MakeEnumAccessor(&LearningMonitor::SetMobilityColumns),
                MakeEnumChecker(static_cast<int>(FlMobilityColumns::Auto),
                                "Auto",
                                static_cast<int>(FlMobilityColumns::On),
                                "On",
                                static_cast<int>(FlMobilityColumns::Off),
                                "Off"))
#endif
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
    : m_tracker(CreateObject<FlLearningTracker>())
{
    m_tracker->TraceConnectWithoutContext("RoundRecorded",
                                          MakeCallback(&LearningMonitor::Print, this));
}

LearningMonitor::~LearningMonitor() = default;

void
LearningMonitor::DoDispose()
{
    if (m_tracker)
    {
        m_tracker->Dispose(); // closes the files (the epsilon_uplink comment line last)
        m_tracker = nullptr;
    }
    Object::DoDispose();
}

Ptr<FlLearningTracker>
LearningMonitor::GetTracker() const
{
    return m_tracker;
}

void
LearningMonitor::SetOutputFile(const std::string& path)
{
    m_outputFile = path;
    m_tracker->SetRoundOutput(path);
}

std::string
LearningMonitor::GetOutputFile() const
{
    return m_outputFile;
}

void
LearningMonitor::SetClientOutputFile(const std::string& path)
{
    m_clientOutputFile = path;
    m_tracker->SetClientRoundOutput(path);
}

std::string
LearningMonitor::GetClientOutputFile() const
{
    return m_clientOutputFile;
}

void
LearningMonitor::SetKeepClientRecords(bool keep)
{
    m_keepClientRecords = keep;
    m_tracker->SetKeepClientRounds(keep);
}

bool
LearningMonitor::GetKeepClientRecords() const
{
    return m_keepClientRecords;
}

void
LearningMonitor::SetDelta(double delta)
{
    m_delta = delta;
    m_tracker->SetUplinkDelta(delta);
}

double
LearningMonitor::GetDelta() const
{
    return m_delta;
}

void
LearningMonitor::Install(Ptr<Application> server)
{
    NS_LOG_FUNCTION(this << server);
    m_tracker->InstallRounds(server);
}

void
LearningMonitor::InstallClients(const ApplicationContainer& clients)
{
    m_tracker->InstallRoundClients(clients);
}

void
LearningMonitor::SetRadioEnergyReader(std::function<double(uint32_t client)> joulesSoFar)
{
    m_tracker->SetRadioEnergyReader(std::move(joulesSoFar));
}

const std::vector<FlRoundRecord>&
LearningMonitor::GetRecords() const
{
    return m_tracker->GetRoundRecords();
}

const std::vector<FlClientRoundRecord>&
LearningMonitor::GetClientRecords() const
{
    return m_tracker->GetClientRoundRecords();
}

bool
LearningMonitor::WriteCsv(const std::string& path) const
{
    return m_tracker->WriteRoundCsv(path);
}

std::string
LearningMonitor::CsvHeader()
{
    return FlLearningTracker::RoundCsvHeader();
}

std::string
LearningMonitor::CsvRow(const FlRoundRecord& r)
{
    return FlLearningTracker::RoundCsvRow(r);
}

std::string
LearningMonitor::ClientCsvHeader()
{
    return FlLearningTracker::ClientRoundCsvHeader();
}

std::string
LearningMonitor::ClientCsvRow(const FlClientRoundRecord& r)
{
    return FlLearningTracker::ClientRoundCsvRow(r);
}

double
LearningMonitor::TimeToAccuracy(double target) const
{
    return m_tracker->TimeToAccuracy(target);
}

void
LearningMonitor::SetMobilityColumns(FlMobilityColumns mode)
{
    m_tracker->SetMobilityColumns(mode);
}

void
LearningMonitor::Print(const FlRoundRecord& r)
{
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

} // namespace ns3
