/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The learning monitor: FedAvg's per-round wide CSV (one row per round; optionally one row per
 * client and round), like FlowMonitor does for flows. A facade of the round view of
 * FlLearningTracker, which evaluates the global models and records the rows.
 */
#ifndef FL_LEARNING_MONITOR_H
#define FL_LEARNING_MONITOR_H

#include "ns3/application-container.h"
#include "ns3/fl-learning-tracker.h" // FlRoundRecord, FlClientRoundRecord: the round view
#include "ns3/object.h"
#include "ns3/traced-callback.h"

#include <functional>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup fl-monitor
 * Observes a server (and optionally its clients) through their traces, evaluates each new
 * global model on the task's held-out data, prints progress and writes the CSV. It is the
 * round view of an FlLearningTracker it builds and owns (GetTracker): the tracker evaluates
 * the models and records the rows, the monitor keeps the attributes and prints the progress
 * lines. It names no application class: any FL application (FlApplicationBase) with the
 * RoundStart and RoundEnd traces and a learning task (GetLearningTask) is a server to it, any
 * with TrainingPlanned a client (GetLearnerIndex, GetUplinkEpsilon, its transport's counters).
 * With an asynchronous strategy each model version is a row.
 *
 * CSV columns (OutputFile): see CsvHeader(); with moving clients (attribute MobilityColumns)
 * five more at the end of each row, and six more in ClientOutputFile
 * (FlLearningTracker::RoundCsvHeader(true), ClientRoundCsvHeader(true)). The CSV holds only
 * simulated quantities, so the same --RngRun writes the same file. Row 0 is the initial model,
 * reported by the server when it starts. A round still open when the simulation ends gets a row
 * with status "timeout" if FlServerApplication::ReportUnfinishedRound() is called after
 * Simulator::Run(). Without InstallClients the time breakdown except waiting and the compute energy
 * are nan; without SetRadioEnergyReader the radio energy is nan.
 */
class LearningMonitor : public Object
{
  public:
    /// \return the TypeId
    static TypeId GetTypeId();
    LearningMonitor();
    ~LearningMonitor() override;

    /// Connects to the server's traces and records the initial model at start.
    void Install(Ptr<Application> server);

    /// Connects to the clients' TrainingPlanned traces (time breakdown, compute energy, chunks).
    void InstallClients(const ApplicationContainer& clients);

    /**
     * Sets a reader of each client's radio energy consumed so far [J], called with a client
     * index at every round end (e.g. FlRadioEnergyMeter::GetRadioEnergy).
     */
    void SetRadioEnergyReader(std::function<double(uint32_t client)> joulesSoFar);

    /// Rows recorded so far.
    const std::vector<FlRoundRecord>& GetRecords() const;
    /// Per-client rows recorded so far (needs InstallClients and KeepClientRecords = true;
    /// empty otherwise).
    const std::vector<FlClientRoundRecord>& GetClientRecords() const;

    /// Writes every row to a CSV file (header first). Returns false if the file cannot be opened.
    bool WriteCsv(const std::string& path) const;

    /// The CSV header line (without newline).
    static std::string CsvHeader();
    /// One CSV line for a record (without newline).
    static std::string CsvRow(const FlRoundRecord& r);
    /// The per-client CSV header line.
    static std::string ClientCsvHeader();
    /// One per-client CSV line.
    static std::string ClientCsvRow(const FlClientRoundRecord& r);

    /// First simulated time [s] at which test accuracy reached `target` (negative if never).
    double TimeToAccuracy(double target) const;

    /// Signature of the RoundRecorded trace.
    using RoundRecordedCallback = void (*)(const FlRoundRecord& record);

    /**
     * The tracker whose round view this monitor is. Give it a task (SetTask) and install it
     * on the applications (Install) for the long rows as well: the server's rows then take the
     * evaluation of the global models the round view made.
     */
    Ptr<FlLearningTracker> GetTracker() const;

  protected:
    void DoDispose() override;

  private:
    void SetOutputFile(const std::string& path);
    std::string GetOutputFile() const;
    void SetClientOutputFile(const std::string& path);
    std::string GetClientOutputFile() const;
    void SetKeepClientRecords(bool keep);
    bool GetKeepClientRecords() const;
    void SetDelta(double delta);
    double GetDelta() const;
    void Print(const FlRoundRecord& r);
    void SetMobilityColumns(FlMobilityColumns mode);

    Ptr<FlLearningTracker> m_tracker; ///< the round view
    std::string m_outputFile;
    std::string m_clientOutputFile;
    bool m_keepClientRecords{false};
    double m_delta{1e-5};
    bool m_verbose{false};
    TracedCallback<const FlRoundRecord&> m_recordedTrace;
};

} // namespace ns3

#endif // FL_LEARNING_MONITOR_H
