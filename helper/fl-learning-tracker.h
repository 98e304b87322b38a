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
#include "ns3/learning-task.h"
#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/privacy-accountant.h"
#include "ns3/traced-callback.h"

#include <Eigen/Core>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup fl
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
 * \ingroup fl
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
 * \ingroup fl
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
     * reported it here: a distributed run (examples/fl-gfl-mpi.cc) gathers the reports of every
     * rank to rank 0 and records them there in the order of their times.
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

    /// Computes the aggregates of the rounds still open and flushes the CSV.
    void Flush();

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
    };

    struct OpenRound
    {
        double timeS{0.0};
        double epsilon{0.0};             ///< the accountant's epsilon at the last report
        std::map<uint32_t, Held> models; ///< by node-level id
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

    /// An iteration of the network view some nodes have reported.
    struct PendingIteration
    {
        std::vector<fl::ParamVector> models, aggregates;
        std::vector<bool> reported;
        std::size_t count{0};
        std::size_t missing{0};
        std::size_t dropped{0};
    };

    std::size_t m_networkNodes{0}; ///< N (0: no network view)
    Eigen::VectorXd m_networkReference;
    std::shared_ptr<fl::GraphPrivacyAccountant> m_graphAccountant;
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
