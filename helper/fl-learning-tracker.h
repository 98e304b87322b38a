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
#include "ns3/fl-application-base.h"
#include "ns3/learning-task.h"
#include "ns3/object.h"
#include "ns3/privacy-accountant.h"
#include "ns3/traced-callback.h"

#include <Eigen/Core>
#include <fstream>
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
 * Observes the models that FL applications report (the ModelReport trace of FlApplicationBase)
 * and computes, per round and role:
 *  - per node (EvaluateNodes): test loss and accuracy on the task's held-out data; MSD in dB
 *    against a reference optimum when one is set;
 *  - aggregates over the nodes of a role that reported in the round: the centroid's test loss,
 *    accuracy and MSD [dB], the average individual MSD [dB], the disagreement
 *    (1/N) sum ||w_k - centroid||^2, and the node count;
 *  - epsilon of an attached privacy accountant (its composition, at its delta), as it stood
 *    at the round's last report.
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

    /// Signature of the Row trace: one recorded row.
    using RowTracedCallback = void (*)(const FlMetricRow& row);

  protected:
    void DoDispose() override;

  private:
    void HandleReport(const FlModelReport& report);
    void CloseRound(uint32_t round);
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
    TracedCallback<const FlMetricRow&> m_rowTrace; ///< the Row trace
    uint32_t m_firstOpenable{0}; ///< rounds below this one have been aggregated
    uint64_t m_lateReports{0};   ///< reports of an aggregated round, dropped
};

} // namespace ns3

#endif // FL_LEARNING_TRACKER_H
