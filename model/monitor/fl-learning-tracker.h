/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The observer seam's generic tracker: subscribes to the "ModelReport" trace of FL
 * applications (whatever their class) and turns the models they report into metrics, one tidy
 * CSV row per (round, node or aggregate, metric), like lorawan's packet tracker does for packets.
 */
#ifndef FL_LEARNING_TRACKER_H
#define FL_LEARNING_TRACKER_H

#include "ns3/application-container.h"
#include "ns3/diffusion.h"
#include "ns3/fl-application-base.h"
#include "ns3/fl-graph-exchange.h" // FlCombinedTerm
#include "ns3/fl-client-strategy.h" // the FlTrainingReport struct (TrainingPlanned trace)
#include "ns3/fl-server-strategy.h" // the FlRoundReport struct (RoundEnd trace)
#include "ns3/learning-task.h"
#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/privacy-accountant.h"
#include "ns3/traced-callback.h"

#include <Eigen/Core>
#include <fstream>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup fl-monitor
 * One row of the long, tidy results: (round, time, node, role, metric, value).
 */
struct FlMetricRow
{
    uint32_t round{0}; ///< round (iteration)
    double timeS{0.0}; ///< simulated time of the last report of that round [s]
    std::string node;  ///< node-level id, or "centroid" / "network" for aggregates
    std::string role;  ///< FlNodeRoleName of the reporting nodes
    std::string
        metric;        ///< test_loss, test_accuracy, msd_db, avg_msd_db, disagreement, epsilon, ...
    double value{0.0}; ///< its value
};

/**
 * \ingroup fl-monitor
 * One row of the wide view (FlLearningTracker::SetWideOutput): a round of one role, its
 * aggregates side by side. NaN for what the run did not measure.
 */
struct FlWideRow
{
    uint32_t round{0};                ///< round (iteration)
    double timeS{0.0};                ///< simulated time of the last report of that round [s]
    std::string role;                 ///< FlNodeRoleName of the nodes the row aggregates
    double nodes{0.0};                ///< how many nodes of the role reported the round
    double centroidTestLoss{0.0};     ///< test loss of the centroid (NaN: no task)
    double centroidTestAccuracy{0.0}; ///< its accuracy (NaN: no task, or not a classifier)
    double meanNodeTestLoss{0.0};     ///< mean test loss of the nodes (NaN: nodes not evaluated)
    double meanNodeTestAccuracy{0.0}; ///< their mean accuracy (NaN likewise)
    double disagreement{0.0};         ///< (1/N) sum ||w_k - centroid||^2
    double centroidMsdDb{0.0};        ///< MSD of the centroid [dB] (NaN: no reference optimum)
    double avgMsdDb{0.0};             ///< average individual MSD [dB] (NaN likewise)
    double epsilon{0.0};              ///< the accountant's epsilon (NaN: no accountant)
    double bytesSent{0.0}; ///< bytes the role's nodes had sent in total (NaN: no transport)
};

/**
 * \ingroup fl-monitor
 * One row of the round view (FlLearningTracker::SetRoundOutput, LearningMonitor): one round of
 * a server. Times are simulated seconds; "nan" in the CSV
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
    /// The largest uplink eps of any client so far (FlApplicationBase::GetUplinkEpsilon at the
    /// round view's delta, SetUplinkDelta; fl::UplinkStatement says what it means); NaN if no
    /// installed client perturbs its uploads (or no clients were installed).
    double epsilonUplink{std::numeric_limits<double>::quiet_NaN()};
    double wallS{0.0}; ///< wall-clock time since the tracker was created [s] (not in the CSV)
    /// Mobility columns (FlMobilityColumns) only: clients the round was waiting for that it
    /// closed without, whether selected (the model was sent to them: every straggler, every
    /// client a datagram transport gave up) or disconnected during the round (lost =
    /// stragglers + disconnected)
    uint32_t lost{0};
    uint32_t givenUp{0};      ///< of those, clients a datagram transport gave up (FlLostMessage)
    uint32_t disconnected{0}; ///< of those, clients whose connection closed during the round
    /// Mobility columns only: handovers the clients completed during the round (the sum of the
    /// per-client column; FlLinkState::handovers: Wi-Fi re-associations, LTE X2 handovers)
    uint32_t handovers{0};
    /// Mobility columns only: selected clients without a serving cell when the round needed
    /// them (the per-client column `detached`)
    uint32_t detached{0};
};

/**
 * \ingroup fl-monitor
 * One row per client and round of the round view (SetClientRoundOutput, LearningMonitor's
 * ClientOutputFile).
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
    /// Mobility columns only: the client's distance [m] to its access point (the scene's link
    /// state, FlLinkState::distanceM; else to the server's node) when the upload of this row
    /// left it: the aggregated update's, else its last upload of this round; NaN if none.
    double uploadDistanceM{std::numeric_limits<double>::quiet_NaN()};
    /// Mobility columns only: the scene's SNR of the client [dB] at that moment (the last frame
    /// the AP or eNB had received from it, FlLinkState::snrDb); NaN if the scene has none.
    double uploadSnrDb{std::numeric_limits<double>::quiet_NaN()};
    /// Mobility columns only: the model was sent to the client this round and no update of it
    /// was aggregated (a straggler at the close, or given up by a datagram transport).
    bool lost{false};
    /// Mobility columns only: the client's serving cell when the upload of this row left it
    /// (FlLinkState::cell: the AP's index in a Wi-Fi ESS, 0 in a BSS, the eNB's cell id in
    /// LTE; kFlNoCell (-1) without one; kFlCellUnknown (-2) if the scene does not say or no
    /// upload left it).
    int32_t uploadCell{-2};
    /// Mobility columns only: handovers the client completed during the round
    /// (FlLinkState::handovers since the previous round's end).
    uint32_t handovers{0};
    /// Mobility columns only: selected, and without a serving cell (FlLinkState::cell ==
    /// kFlNoCell) when the model of the round was sent to it or when its upload left it.
    bool detached{false};
};

/**
 * \ingroup fl-monitor
 * Whether the round view's CSVs carry the mobility columns (round: lost, given_up,
 * disconnected, handovers, detached; per client: upload_distance_m, upload_snr_db, lost,
 * upload_cell, handovers, detached).
 */
enum class FlMobilityColumns : uint8_t
{
    Auto = 0, ///< when a client installed moves: its MobilityModel is not a constant position
    On = 1,   ///< always
    Off = 2,  ///< never
};

/**
 * \ingroup fl-monitor
 * Observes the models that FL applications report (the ModelReport trace of FlApplicationBase)
 * and computes, per round and role:
 *  - per node (EvaluateNodes): test loss and accuracy on the task's held-out data; MSD in dB
 *    against a reference optimum when one is set;
 *  - aggregates over the nodes of a role that reported in the round: the centroid's test loss,
 *    accuracy and MSD [dB], the average individual MSD [dB], the disagreement
 *    (1/N) sum ||w_k - centroid||^2, and the node count;
 *  - epsilon of an attached privacy accountant (its composition, at its delta), as it stood
 *    at the round's last report;
 *  - bytes: per node (EvaluateNodes) the cumulative bytes its application's transport had sent
 *    when it reported the round (FlModelReport::bytesSent, metric bytes_sent), and per role
 *    their sum over the nodes that reported the round (node "network"). Nodes without a
 *    transport (FlModelReport::countsBytes false: the analog-channel applications, or a
 *    server's round-0 report made before its transport opens) have no bytes row and do not
 *    enter the sum; a role none of whose reports counted bytes has no total row.
 * The wide view (SetWideOutput) writes the same aggregates as one row per round and role.
 * Rounds are numbered as the applications' ModelReport: round 0 is the initial model, round r
 * the model after r rounds (DWFL's Round trace uses the same numbers).
 * A round's aggregates are computed when a report of a later round arrives, or at Flush()
 * (called by Simulator::Destroy through DoDispose, or by the user after Simulator::Run()).
 * Trace source Row fires once per recorded row, as it is recorded (during the run for every
 * round but the last).
 * Reports of one node replace its earlier report of the same round. A report of a round already
 * aggregated (its node fell a round behind another node, as out-of-step GFL servers or
 * diffusion agents can) is not written as a second copy of that round: it is dropped and
 * counted (GetLateReports). To keep every report of nodes that run out of step, record them in
 * round order (Record), as the distributed GFL example does.
 *
 * The round view (InstallRounds, InstallRoundClients) is FedAvg's wide per-round CSV
 * (RoundCsvHeader, the file LearningMonitor writes): one FlRoundRecord per RoundEnd report of a
 * server (any FL application with the RoundStart and RoundEnd traces and a learning task: the
 * round facts, its global model's test loss, accuracy and training loss), completed with what
 * the clients (any FL application with the TrainingPlanned trace) report: the time breakdown,
 * compute energy, chunks lost per client, the uplink epsilon. Each global model is evaluated
 * once: when the server then reports the same model through ModelReport to this tracker, its
 * rows take that evaluation (EvaluateModel is the one evaluation path of both views). Rows are
 * recorded as the server reports them (trace RoundRecorded), so a round's row exists during the
 * run.
 *
 * The end of the run (Flush): the last round, still open, takes the final byte counters of every
 * application installed with Install or InstallAll that reported with a transport: its
 * bytes_sent row is what the application's transport sent over the whole run, including what
 * it sent after its last report (e.g. the Stop messages of a FedAvg server), and its role's
 * "network" bytes_sent row (and the wide view's bytes_sent) their sum. An application whose
 * last report was an earlier round gets a bytes_sent row in the last round too (no other
 * metric), and counts in its role's sum; a role none of whose nodes reported the last round
 * gets only that "network" bytes_sent row (no wide row). Every other round's bytes are the
 * counters at the reports. So GetLast(node, "bytes_sent") after Flush is what the node's
 * transport sent in the whole run. Reports recorded with Record have no application: their
 * bytes stay those of the reports.
 *
 * The network view (SetNetwork, InstallNetwork) turns the reports of the N nodes of a graph
 * (GFL servers, diffusion agents: app k is graph node k) into one fl::NetworkIterationReport
 * per iteration, once all N nodes have reported it, exactly as the in-process runners
 * (fl::RunGflInProcess, fl::RunDiffusionInProcess) do: fl::FillNetworkMetrics of the models and
 * of the aggregates the reports carry (FlModelReport::aggregate), the messages lost and clients
 * dropped, and both epsilons of a fl::GraphPrivacyAccountant that composes one release per
 * iteration. Round 0 (every node's initial model) is iteration 0. The report goes to the
 * iteration callback and the NetworkIteration trace; NetworkResult() keeps the last one's models,
 * centroid and epsilons. The view can stop the run after the last iteration (SetFinish) and
 * watch for a stalled run (SetStallTimeout). FlGflHelper and DiffusionHelper build and install
 * such a tracker (their Tracker()).
 */
class FlLearningTracker : public Object
{
  public:
    /// \return the TypeId
    static TypeId GetTypeId();
    FlLearningTracker();
    ~FlLearningTracker() override;

    /// The task whose held-out data evaluates models (optional: no loss/accuracy without it).
    void SetTask(std::shared_ptr<const fl::LearningTask> task);
    /// A reference optimum w° (e.g. the closed-form ridge solution): enables the MSD metrics.
    void SetReferenceOptimum(const Eigen::VectorXd& optimum);
    /**
     * Attaches a privacy accountant (kept by the caller and fed by the algorithm); its epsilon
     * at `delta` under `composition` is written once per round. `statement` says what that
     * epsilon means (mechanism, sensitivity, unit, neighbouring relation, adversary,
     * composition): the CSV carries it as a comment line after the header; without one the
     * line says that the caller did not state it.
     */
    void SetAccountant(std::shared_ptr<const fl::PrivacyAccountant> accountant,
                       double delta,
                       fl::Composition composition,
                       const fl::PrivacyStatement& statement = {});

    /// Subscribes to the ModelReport trace of every FL application in the container.
    void Install(const ApplicationContainer& apps);
    /// Subscribes to every FL application of every node (Config path).
    void InstallAll();

    /**
     * Records a report made elsewhere at simulated time `timeS` as if its application had
     * reported it here: a distributed run (examples/benchmarks/fl-gfl-mpi.cc) gathers the reports
     * of every rank to rank 0 and records them there in the order of their times.
     */
    void Record(const FlModelReport& report, double timeS);

    /**
     * Also writes the wide view to `path`: one row per round and role (WideCsvHeader), the
     * role's aggregates of the long rows side by side plus the mean of its nodes' test loss and
     * accuracy; empty fields for what the run did not measure. Call before the run.
     */
    void SetWideOutput(const std::string& path);
    /// Rows of the wide view recorded so far (kept whether or not a file is written).
    const std::vector<FlWideRow>& GetWideRows() const;
    /// The wide view's CSV header line (without newline).
    static std::string WideCsvHeader();

    /**
     * Computes the aggregates of the rounds still open, records the end-of-run bytes rows (the
     * class documentation) and flushes the CSV files. Call after Simulator::Run (and before
     * Simulator::Destroy, while the applications' transports exist) or let DoDispose call it.
     */
    void Flush();

    /// The test and training loss of one model (EvaluateModel).
    struct ModelEvaluation
    {
        fl::Evaluation test;   ///< on the task's held-out data
        double trainLoss{0.0}; ///< LearningTask::EvaluateTraining's loss
    };

    /// The one evaluation of a model of both views: `task`'s held-out data and training loss.
    static ModelEvaluation EvaluateModel(const fl::LearningTask& task, const fl::ParamVector& w);

    /**
     * The round view: subscribes to the RoundStart and RoundEnd traces of `server` (any FL
     * application with them and a learning task, GetLearningTask) and records one
     * FlRoundRecord per RoundEnd report (round 0: the initial model, reported at start). One
     * server per tracker.
     */
    void InstallRounds(Ptr<Application> server);
    /// Subscribes the round view to the clients' TrainingPlanned traces (time breakdown,
    /// compute energy, chunks lost per client, uplink epsilon).
    void InstallRoundClients(const ApplicationContainer& clients);
    /// A reader of each client's radio energy consumed so far [J], called with a client index
    /// at every round end (e.g. FlRadioEnergyMeter::GetRadioEnergy).
    void SetRadioEnergyReader(std::function<double(uint32_t client)> joulesSoFar);
    /// Writes the round view's rows to `path` as they are recorded (empty: none). Before the run.
    void SetRoundOutput(const std::string& path);
    /// Writes one row per client and round to `path` (needs InstallRoundClients; empty: none).
    void SetClientRoundOutput(const std::string& path);
    /// Keeps the per-client rows in memory for GetClientRoundRecords (default false).
    void SetKeepClientRounds(bool keep);
    /// DP delta of the epsilon_uplink column (default 1e-5).
    void SetUplinkDelta(double delta);
    /// Whether the CSVs carry the mobility columns (default Auto). Before the run.
    void SetMobilityColumns(FlMobilityColumns mode);
    /**
     * Whether the mobility columns are on: On, or Auto with a client (InstallRoundClients)
     * whose node's MobilityModel is not an ns3::ConstantPositionMobilityModel. Decided at the
     * first call (the first round's report, when the server starts) and kept.
     */
    bool MobilityColumnsOn() const;
    /// Rows of the round view recorded so far.
    const std::vector<FlRoundRecord>& GetRoundRecords() const;
    /// Per-client rows kept so far (SetKeepClientRounds).
    const std::vector<FlClientRoundRecord>& GetClientRoundRecords() const;
    /// Writes every round-view row to `path` (header first); false if it cannot be written.
    bool WriteRoundCsv(const std::string& path) const;
    /// The round view's CSV header line (without newline), with the mobility columns or not.
    static std::string RoundCsvHeader(bool mobility = false);
    /// One round-view CSV line (without newline), with the mobility columns or not.
    static std::string RoundCsvRow(const FlRoundRecord& r, bool mobility = false);
    /// The per-client CSV header line, with the mobility columns or not.
    static std::string ClientRoundCsvHeader(bool mobility = false);
    /// One per-client CSV line, with the mobility columns or not.
    static std::string ClientRoundCsvRow(const FlClientRoundRecord& r, bool mobility = false);
    /// First simulated time [s] at which the round view's test accuracy reached `target`
    /// (negative if never).
    double TimeToAccuracy(double target) const;
    /// Signature of the RoundRecorded trace.
    using RoundRecordedCallback = void (*)(const FlRoundRecord& record);

    /// Rows recorded so far.
    const std::vector<FlMetricRow>& GetRows() const;
    /// Reports dropped because their round had already been aggregated.
    uint64_t GetLateReports() const;
    /// The last value of a metric for a node ("centroid", "network" or an id), NaN if none.
    double GetLast(const std::string& node, const std::string& metric) const;

    /// The CSV header line (without newline).
    static std::string CsvHeader();

    /**
     * Enables the network view for a graph of `nodes` nodes: `reference` is w° for the MSD
     * metrics (empty: NaN), `accountant` the epsilon of one node's releases (null: 0), fed one
     * iteration (RecordIteration) per completed iteration.
     */
    void SetNetwork(std::size_t nodes,
                    const Eigen::VectorXd& reference,
                    std::shared_ptr<fl::GraphPrivacyAccountant> accountant);
    /**
     * For a graph that changes between iterations: `accountant` (replacing SetNetwork's) is fed
     * each completed iteration's combination matrix, assembled from the terms the nodes report
     * (FlModelReport::combination; a node that reports none counts as keeping its own value).
     */
    void SetLiveGraphAccountant(std::shared_ptr<fl::LiveGraphPrivacyAccountant> accountant);
    /**
     * Subscribes the network view to the ModelReport trace of `apps`, app k being graph node k
     * (call SetNetwork first; one application per node of the graph).
     */
    void InstallNetwork(const std::vector<Ptr<FlApplicationBase>>& apps);
    /**
     * Records a report of graph node `index` in the network view, as the sinks InstallNetwork
     * connects do (at the current simulated time): for reports that reach the program some
     * other way. A second report of a node for the same iteration, or one of an iteration
     * already complete, is dropped and counted (GetLateReports).
     */
    void RecordNetwork(uint32_t index, const FlModelReport& report);
    /// Called with every iteration's network report (iteration 0: the initial models).
    void SetIterationCallback(fl::NetworkIterationCallback cb);
    /// Called when iteration `last` is complete at every node (e.g. Simulator::Stop).
    void SetFinish(uint32_t last, std::function<void()> finish);
    /**
     * A watchdog: when no node has finished an iteration for `timeout` of simulated time (a
     * message that will never arrive, e.g. over a reliable transport whose connection broke,
     * with no exchange timeout to let the missing-message policy act), the run is stalled:
     * Stalled() turns true and `onStall` is called (e.g. Simulator::Stop). Checked every
     * `timeout`; call before Simulator::Run. 0 = off (the default).
     */
    void SetStallTimeout(Time timeout, std::function<void()> onStall);
    /// Iterations complete at every node of the network view.
    uint32_t CompletedIterations() const;
    /// The last complete iteration's models, centroid and epsilons; lost messages and dropped
    /// clients so far.
    const fl::NetworkRunResult& NetworkResult() const;
    /// True once the watchdog found the run stalled.
    bool Stalled() const;

    /// Signature of the Row trace: one recorded row.
    using RowTracedCallback = void (*)(const FlMetricRow& row);
    /// Signature of the NetworkIteration trace: one complete iteration of the network view.
    using NetworkIterationTracedCallback = void (*)(const fl::NetworkIterationReport& report);

  protected:
    void DoDispose() override;

  private:
    void HandleReport(const FlModelReport& report);
    void Connect(Ptr<FlApplicationBase> app);
    void TakeFinalCounters();
    // the round view
    void HandleRoundStart(uint32_t round, const std::vector<uint32_t>& selected);
    void HandleRoundEnd(const FlRoundReport& report);
    void HandleTrained(const FlTrainingReport& report);
    void SampleUpload(uint32_t client, uint32_t round, Time sent);
    void AppendRound(const FlRoundRecord& r);
    void AppendClientRounds(const std::map<uint32_t, FlClientRoundRecord>& rows);
    std::string UplinkComment() const;
    uint64_t ChunkCounter(bool lost) const;
    uint64_t CountLostChunks(uint32_t round, std::map<uint32_t, FlClientRoundRecord>& rows);
    void CheckStall();
    void CloseRound(uint32_t round);
    void EmitWide(const FlWideRow& row);
    void Emit(uint32_t round,
              double timeS,
              const std::string& node,
              FlNodeRole role,
              const std::string& metric,
              double value);

    struct Held
    {
        FlNodeRole role{FlNodeRole::Server};
        fl::ParamVector model;
        bool countsBytes{false}; ///< FlModelReport::countsBytes
        uint64_t bytesSent{0};   ///< FlModelReport::bytesSent
        bool evaluated{false};   ///< the round view evaluated this model (evaluation below)
        fl::Evaluation evaluation;
    };

    struct OpenRound
    {
        double timeS{0.0};
        double epsilon{0.0};             ///< the accountant's epsilon at the last report
        std::map<uint32_t, Held> models; ///< by node-level id
        /// The end of the run (TakeFinalCounters): nodes that did not report this last round,
        /// their role and final bytes sent.
        std::map<uint32_t, std::pair<FlNodeRole, uint64_t>> finalOnly;
    };

    std::string m_outputFile;
    bool m_evaluateNodes;
    std::shared_ptr<const fl::LearningTask> m_task;
    Eigen::VectorXd m_optimum;
    bool m_haveOptimum{false};
    std::shared_ptr<const fl::PrivacyAccountant> m_accountant;
    fl::PrivacyStatement m_statement; ///< what the accountant's epsilon means
    double m_delta{1e-5};
    fl::Composition m_composition{fl::Composition::Rdp};
    std::map<uint32_t, OpenRound> m_open; ///< rounds not yet aggregated
    std::vector<FlMetricRow> m_rows;
    std::ofstream m_stream;
    std::string m_wideFile;                        ///< SetWideOutput (empty: none)
    std::ofstream m_wideStream;                    ///< the wide view's file
    std::vector<FlWideRow> m_wideRows;             ///< the wide view's rows
    TracedCallback<const FlMetricRow&> m_rowTrace; ///< the Row trace
    uint32_t m_firstOpenable{0};                   ///< rounds below this one have been aggregated
    uint64_t m_lateReports{0};                     ///< reports of an aggregated round, dropped

    /// What the end-of-run rows need of an application installed with Install.
    struct Reporter
    {
        Ptr<FlTransport> transport;          ///< its transport, kept from its reports
        FlNodeRole role{FlNodeRole::Server}; ///< of its last report
        bool counted{false};                 ///< a report of it counted bytes
    };

    std::map<uint32_t, Reporter> m_reporters; ///< by node-level id

    /// The round view's last evaluation, for the ModelReport of the same model that follows.
    struct LastEvaluation
    {
        bool valid{false};
        uint32_t round{0};
        uint32_t node{0};
        const fl::LearningTask* task{nullptr};
        fl::Evaluation test;
    } m_lastEvaluation;

    // the round view
    Ptr<FlApplicationBase> m_server;
    std::vector<Ptr<FlApplicationBase>> m_clients;
    std::function<double(uint32_t)> m_radioEnergy;
    std::string m_roundFile;
    std::string m_clientRoundFile;
    bool m_keepClientRounds{false};
    std::vector<FlRoundRecord> m_roundRecords;
    std::vector<FlClientRoundRecord> m_clientRoundRecords;
    std::ofstream m_roundStream;
    std::ofstream m_clientRoundStream;
    double m_uplinkDelta{1e-5};
    bool m_uplinkNoise{false};
    fl::MechanismKind m_uplinkKind{fl::MechanismKind::None};
    fl::NoiseSource m_uplinkNoiseSource{fl::NoiseSource::RunSeed}; ///< the clients' noise seeds
    double m_wallStart{0.0};
    std::map<uint32_t, Time> m_roundStarts;                                ///< by round
    /// (client, round) -> the client's trainings on that round's model, whose updates have not
    /// come yet: an asynchronous strategy (FedBuff) may send a client the same model version
    /// again before the version changes, so one key may hold several trainings
    std::map<std::pair<uint32_t, uint32_t>, std::vector<FlTrainingReport>> m_trainings;
    std::map<uint32_t, double> m_computeEnergyWindow; ///< client -> J since the last round end
    std::map<uint32_t, double> m_radioAtLastEnd;      ///< client -> meter reading
    uint64_t m_chunksLostAtLastEnd{0};
    uint64_t m_chunksRetxAtLastEnd{0};
    uint32_t m_lossRound{0};                     ///< round of m_lossReported
    std::map<uint32_t, uint64_t> m_lossReported; ///< client -> lost chunks already reported
                                                 ///< for m_lossRound (repeated rounds)
    TracedCallback<const FlRoundRecord&> m_roundRecordedTrace; ///< RoundRecorded
    FlMobilityColumns m_mobilityColumns{FlMobilityColumns::Auto}; ///< SetMobilityColumns
    mutable int8_t m_mobilityOn{-1}; ///< MobilityColumnsOn decided: 0/1 (-1: not yet)
    /// The client's link when an upload left it (mobility columns).
    struct UploadSample
    {
        Time sent;
        double distanceM;
        double snrDb;
        int32_t cell;
    };

    std::map<uint32_t, uint32_t> m_handoversAtLastEnd; ///< client -> FlLinkState::handovers
    std::map<uint32_t, std::vector<uint32_t>> m_detachedAtStart; ///< round -> selected, no cell

    /// (client, round of the model trained on) -> its uploads' samples, in sending order
    std::map<std::pair<uint32_t, uint32_t>, std::vector<UploadSample>> m_uploadSamples;

    /// An iteration of the network view some nodes have reported.
    struct PendingIteration
    {
        std::vector<fl::ParamVector> models, aggregates;
        std::vector<bool> reported;
        std::size_t count{0};
        std::size_t missing{0};
        std::size_t dropped{0};
        std::vector<std::vector<FlCombinedTerm>> terms; ///< per node (empty: none reported)
    };

    std::size_t m_networkNodes{0}; ///< N (0: no network view)
    Eigen::VectorXd m_networkReference;
    std::shared_ptr<fl::GraphPrivacyAccountant> m_graphAccountant;
    std::shared_ptr<fl::LiveGraphPrivacyAccountant> m_liveAccountant;
    fl::NetworkIterationCallback m_iterationCallback;
    TracedCallback<const fl::NetworkIterationReport&> m_networkTrace; ///< NetworkIteration
    std::map<uint32_t, PendingIteration> m_pending; ///< iterations not complete yet
    uint32_t m_nextIteration{0};                    ///< the next iteration to complete
    fl::NetworkRunResult m_networkResult;
    uint32_t m_last{0};
    std::function<void()> m_finish;
    Time m_stallTimeout;
    std::function<void()> m_onStall;
    Time m_lastProgress; ///< when a node last finished an iteration
    bool m_stalled{false};
};

} // namespace ns3

#endif // FL_LEARNING_TRACKER_H
