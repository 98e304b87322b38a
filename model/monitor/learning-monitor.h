/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The learning monitor: a global observer that evaluates every global model and writes tidy
 * CSV files (one row per round; optionally one row per client and round), like FlowMonitor
 * does for flows.
 */
#ifndef FL_LEARNING_MONITOR_H
#define FL_LEARNING_MONITOR_H

#include "ns3/application-container.h"
#include "ns3/fl-application-base.h"
#include "ns3/fl-client-application.h" // FlTrainingReport
#include "ns3/fl-server-application.h" // FlRoundReport
#include "ns3/object.h"

#include <fstream>
#include <functional>
#include <limits>
#include <map>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup fl
 * One row of the monitor's results (one round). Times are simulated seconds; "nan" in the CSV
 * marks a value that does not exist (e.g. the breakdown of a round without fresh updates, or
 * energy when no meter is set).
 */
struct FlRoundRecord
{
    uint32_t round{0};        ///< round number (0 = the initial model)
    double timeS{0.0};        ///< simulated time at the end of the round [s]
    double durationS{0.0};    ///< simulated duration of the round [s]
    double testLoss{0.0};     ///< loss of the global model on the held-out data
    double testAccuracy{0.0}; ///< accuracy on the held-out data (NaN for regression)
    double trainLoss{0.0};    ///< loss on (a sample of) the clients' training data
    std::string status;       ///< FlRoundStatusName of the round
    uint32_t selected{0};     ///< clients the model was sent to
    uint32_t participants{0}; ///< clients whose update was aggregated
    uint32_t stale{0};        ///< updates of earlier rounds aggregated
    uint32_t stragglers{0};   ///< selected clients that had not answered at the close
    uint64_t bytesDown{0};    ///< server -> clients bytes this round
    uint64_t bytesUp{0};      ///< clients -> server bytes this round
    /// Mean over the fresh updates of: model download (round start -> model at the client),
    /// local compute, upload (update sent -> update at the server) and waiting (update at the
    /// server -> round end). For each fresh update the four add up to the round's duration.
    double downloadS{0.0};
    double computeS{0.0}; ///< see downloadS
    double uploadS{0.0};  ///< see downloadS
    double waitingS{0.0}; ///< see downloadS
    /// UDP chunks of this round's messages sent and never delivered (still missing when the
    /// round ended), down- and uplink, whatever happened to the rest of their messages (needs
    /// InstallClients; without it: chunks missing from messages the server and clients gave up)
    uint64_t chunksLost{0};
    uint64_t chunksRetx{0};         ///< UDP chunks retransmitted this round (server and clients)
    uint64_t missingCoordinates{0}; ///< coordinates filled from previous models (UDP holes)
    double energyRadioJ{0.0};       ///< radio energy of all clients this round [J] (meter)
    double energyComputeJ{0.0};     ///< compute energy of all clients this round [J]
    bool deadlineHit{false};        ///< the round closed at its deadline
    std::string participantIds;     ///< ';'-separated client indices
    /// The largest uplink eps of any client so far (FlClientApplication::GetUplinkEpsilon at the
    /// monitor's Delta; fl::UplinkStatement says what it means); NaN if no installed client
    /// perturbs its uploads (or InstallClients was not called).
    double epsilonUplink{std::numeric_limits<double>::quiet_NaN()};
    double wallS{0.0}; ///< wall-clock time since the monitor was created [s] (not in the CSV)
};

/**
 * \ingroup fl
 * One row per client and round (ClientOutputFile).
 */
struct FlClientRoundRecord
{
    uint32_t round{0};              ///< round number
    uint32_t client{0};             ///< client index
    bool selected{false};           ///< the model of this round was sent to it
    bool participated{false};       ///< an update of it was aggregated this round
    int64_t trainedRound{-1};       ///< round of the aggregated update's model (-1: none)
    uint32_t staleness{0};          ///< staleness of the aggregated update
    double downloadS{0.0};          ///< breakdown of the aggregated update (nan if none)
    double computeS{0.0};           ///< see downloadS
    double uploadS{0.0};            ///< see downloadS
    double waitingS{0.0};           ///< see downloadS
    uint64_t missingCoordinates{0}; ///< coordinates of the update filled by the server
    uint64_t chunksLost{0};     ///< UDP chunks to and from this client never delivered this round
    double energyRadioJ{0.0};   ///< radio energy this round [J] (nan without meter)
    double energyComputeJ{0.0}; ///< compute energy of trainings that started this round [J]
};

/**
 * \ingroup fl
 * Observes a server (and optionally its clients) through their traces, evaluates each new
 * global model on the task's held-out data, prints progress and writes the CSV. It names no
 * application class: any FL application (FlApplicationBase) with the RoundStart and RoundEnd
 * traces and a learning task (GetLearningTask) is a server to it, any with TrainingPlanned a
 * client (GetLearnerIndex, GetUplinkEpsilon, its transport's counters). With an asynchronous
 * strategy each model version is a row.
 *
 * CSV columns (OutputFile): see CsvHeader(). The CSV holds only simulated quantities, so the
 * same --RngRun writes the same file. Row 0 is the initial model, reported by the server when
 * it starts. A round still open when the simulation ends gets a row with status "timeout" if
 * FlServerApplication::ReportUnfinishedRound() is called after Simulator::Run(). Without
 * InstallClients the time breakdown except waiting and the compute energy are nan; without
 * SetRadioEnergyReader the radio energy is nan.
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

  protected:
    void DoDispose() override;

  private:
    void HandleRoundStart(uint32_t round, const std::vector<uint32_t>& selected);
    /// The CSV comment line that says what epsilon_uplink means.
    std::string UplinkComment() const;
    void HandleRoundEnd(const FlRoundReport& report);
    void HandleTrained(const FlTrainingReport& report);
    void Append(const FlRoundRecord& r);
    uint64_t ChunkCounter(bool lost) const;
    uint64_t CountLostChunks(uint32_t round, std::map<uint32_t, FlClientRoundRecord>& rows);

    std::string m_outputFile;
    std::string m_clientOutputFile;
    bool m_verbose;
    bool m_keepClientRecords{false}; ///< KeepClientRecords attribute
    Ptr<FlApplicationBase> m_server;
    std::vector<Ptr<FlApplicationBase>> m_clients;
    std::function<double(uint32_t)> m_radioEnergy;
    std::vector<FlRoundRecord> m_records;
    std::vector<FlClientRoundRecord> m_clientRecords;
    std::ofstream m_stream;
    double m_delta{1e-5};       ///< delta of the uplink epsilon
    bool m_uplinkNoise{false};  ///< some installed client perturbs its uploads
    fl::MechanismKind m_uplinkKind{fl::MechanismKind::None}; ///< its noise
    std::ofstream m_clientStream;
    double m_wallStart;

    std::map<uint32_t, Time> m_roundStarts;                                ///< by round
    std::map<std::pair<uint32_t, uint32_t>, FlTrainingReport> m_trainings; ///< (client, round)
    std::map<uint32_t, double> m_computeEnergyWindow; ///< client -> J since the last round end
    std::map<uint32_t, double> m_radioAtLastEnd;      ///< client -> meter reading
    uint64_t m_chunksLostAtLastEnd{0};
    uint32_t m_lossRound{0};                     ///< round of m_lossReported
    std::map<uint32_t, uint64_t> m_lossReported; ///< client -> lost chunks already reported
                                                 ///< for m_lossRound (repeated rounds)
    uint64_t m_chunksRetxAtLastEnd{0};

    TracedCallback<const FlRoundRecord&> m_recordedTrace;
};

} // namespace ns3

#endif // FL_LEARNING_MONITOR_H
