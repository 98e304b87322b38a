/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The learning monitor: a global observer that evaluates every global model and writes a tidy
 * CSV (one row per round), like FlowMonitor does for flows.
 */
#ifndef FL_LEARNING_MONITOR_H
#define FL_LEARNING_MONITOR_H

#include "ns3/fl-server-application.h"
#include "ns3/object.h"

#include <fstream>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup fl
 * One row of the monitor's results.
 */
struct FlRoundRecord
{
    uint32_t round{0};          ///< round number (0 = the initial model)
    double timeS{0.0};          ///< simulated time at the end of the round [s]
    double durationS{0.0};      ///< simulated duration of the round [s]
    double testLoss{0.0};       ///< loss of the global model on the held-out data
    double testAccuracy{0.0};   ///< accuracy on the held-out data (NaN for regression)
    double trainLoss{0.0};      ///< loss on (a sample of) the clients' training data
    uint32_t selected{0};       ///< clients the model was sent to
    uint32_t participants{0};   ///< updates aggregated
    uint64_t bytesDown{0};      ///< server -> clients bytes this round
    uint64_t bytesUp{0};        ///< clients -> server bytes this round
    bool deadlineHit{false};    ///< the round closed at its deadline
    std::string participantIds; ///< ';'-separated client indices
    double wallS{0.0}; ///< wall-clock time since the monitor was created [s] (not in the CSV)
};

/**
 * \ingroup fl
 * Observes an FlServerApplication through its RoundEnd trace, evaluates each new global model
 * on the task's held-out data, prints progress and writes the CSV.
 *
 * CSV columns: round,time_s,duration_s,test_loss,test_accuracy,train_loss,selected,
 * participants,bytes_down,bytes_up,deadline_hit,participant_ids. The CSV holds only simulated
 * quantities, so the same --RngRun writes the same file. Row 0 is the initial
 * model, reported by the server when it starts.
 */
class LearningMonitor : public Object
{
  public:
    /// \return the TypeId
    static TypeId GetTypeId();
    LearningMonitor();
    ~LearningMonitor() override;

    /// Connects to the server's RoundEnd trace and records the initial model at start.
    void Install(Ptr<FlServerApplication> server);

    /// Rows recorded so far.
    const std::vector<FlRoundRecord>& GetRecords() const;

    /// Writes every row to a CSV file (header first). Returns false if the file cannot be opened.
    bool WriteCsv(const std::string& path) const;

    /// The CSV header line (without newline).
    static std::string CsvHeader();

    /// One CSV line for a record (without newline).
    static std::string CsvRow(const FlRoundRecord& r);

    /// First simulated time [s] at which test accuracy reached `target` (negative if never).
    double TimeToAccuracy(double target) const;

    /// Signature of the RoundRecorded trace.
    using RoundRecordedCallback = void (*)(const FlRoundRecord& record);

  protected:
    void DoDispose() override;

  private:
    void HandleRoundEnd(const FlRoundReport& report);
    void Append(const FlRoundRecord& r);

    std::string m_outputFile;
    bool m_verbose;
    Ptr<FlServerApplication> m_server;
    std::vector<FlRoundRecord> m_records;
    std::ofstream m_stream;
    double m_wallStart;

    TracedCallback<const FlRoundRecord&> m_recordedTrace;
};

} // namespace ns3

#endif // FL_LEARNING_MONITOR_H
