/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Probes of packet-level runs that the flow-level model is calibrated and validated on: when
 * the stations of a BSS associate, and where a run lost packets (which queue dropped them,
 * how often TCP recovered).
 */
#ifndef FL_PACKET_PROBES_H
#define FL_PACKET_PROBES_H

#include "ns3/fl-network-scenarios.h"
#include "ns3/learning-task.h"
#include "ns3/nstime.h"

#include <chrono>
#include <cmath>
#include <cstdint>
#include <memory>
#include <mutex>
#include <ostream>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup fl-helper
 * The association times of the stations of a packet-level BSS as FlWifiScenarioHelper builds
 * it (802.11n, no application): builds the scene of `stations` stations, assigns its random
 * streams from `stream` (the run is ns-3's RngRun), runs until `until` and destroys the
 * simulator.
 * @return per station, in order, its first association time [s] (NaN: not associated by then)
 */
std::vector<double> FlMeasureWifiAssociation(uint32_t stations, int64_t stream, Time until);

/**
 * \ingroup fl-helper
 * The association survey of fl-flow-validation --associationRuns: for each BSS size of
 * `sizes` and `runs` runs from ns-3's RngRun on, FlMeasureWifiAssociation (packet) and the
 * flow model's draw (fl::DrawAssociationTimes); one CSV row per station to `csv` (fidelity,
 * stations, run, station, assoc_s, first_syn_s: the first SYN of client i
 * leaves at `start` + 20 ms i, as FedAvg's clients start) and one summary line per size to
 * `out` (median, 90th percentile and largest association time, stations and runs in which a
 * station associated after its client's first SYN).
 */
void FlPrintWifiAssociationSurvey(const std::vector<std::string>& sizes,
                                  uint32_t runs,
                                  double start,
                                  std::ostream& out,
                                  std::ostream& csv);

/**
 * \ingroup fl-helper
 * Where a packet-level run lost packets (FlCountPacketLosses).
 */
struct FlPacketLosses
{
    uint64_t apQueueFull{0};     ///< AP's Wi-Fi MAC: dropped, the queue full (MaxSize)
    uint64_t apExpired{0};       ///< AP's Wi-Fi MAC: dropped, queued longer than MaxDelay
    uint64_t apRetryLimit{0};    ///< AP's Wi-Fi MAC: dropped after the retry limit
    uint64_t staQueueFull{0};    ///< stations' Wi-Fi MACs: the queue full
    uint64_t staExpired{0};      ///< stations' Wi-Fi MACs: MaxDelay
    uint64_t staRetryLimit{0};   ///< stations' Wi-Fi MACs: retry limit
    uint64_t macOther{0};        ///< Wi-Fi MACs: other reasons
    uint64_t queueDiscDrops{0};  ///< traffic-control queue discs of every node
    uint64_t deviceDrops{0};     ///< other devices' transmit queues (CSMA, point-to-point)
    uint64_t tcpTimeouts{0};     ///< TCP connections entering loss state (retransmission timeout)
    uint64_t tcpFastRecovery{0}; ///< TCP connections entering fast recovery (3 duplicate ACKs)
    /// One line: "ap full/expired/retry ..., stations ..., qdisc ..., tcp RTO ..., recovery ..."
    std::string Describe() const;
};

/**
 * \ingroup fl-helper
 * Counts the packet losses of a packet-level scene from now on: every Wi-Fi MAC's dropped
 * MPDUs by reason (the scene's first device is the AP's), every node's queue disc drops, the
 * devices' transmit-queue drops, and every TCP connection's entries into fast recovery and
 * into loss state (retransmission timeout; connections are found as they are created).
 * Call after the scene is built, before Simulator::Run.
 */
std::shared_ptr<FlPacketLosses> FlCountPacketLosses(const FlScene& scene);

/**
 * \ingroup fl-helper
 * A learning task that measures the wall-clock time spent in it: the time during which a
 * call of the wrapped task's training, planning or evaluation is in progress (calls of parallel
 * training threads overlap and count once). It forwards every call unchanged, so a run learns the
 * same models with it; the rest of a run's wall time is the network, the applications and the
 * set-up.
 */
class FlTimedLearningTask : public fl::LearningTask
{
  public:
    /// Wraps `inner` (not null).
    explicit FlTimedLearningTask(std::shared_ptr<const fl::LearningTask> inner);
    /// Wall-clock seconds during which a call of the wrapped task was in progress so far.
    double Seconds() const;

    fl::Precision GetPrecision() const override;
    std::size_t NumParameters() const override;
    std::size_t NumClients() const override;
    std::size_t ClientSamples(std::size_t client) const override;
    fl::ParamVector InitialParameters(fl::Rng& rng) const override;
    const fl::LocalTrainerConfig& GetTrainerConfig() const override;
    fl::TrainOutcome TrainClient(std::size_t client,
                                 const fl::ParamVector& start,
                                 fl::Rng& rng) const override;
    void TrainClientInto(std::size_t client,
                         const fl::ParamVector& start,
                         fl::Rng& rng,
                         fl::TrainOutcome& out) const override;
    bool PlanClient(std::size_t client, fl::TrainingPlan& plan) const override;
    fl::Evaluation Evaluate(const fl::ParamVector& w) const override;
    fl::Evaluation EvaluateTraining(const fl::ParamVector& w) const override;
    double ClientLoss(std::size_t client, const fl::ParamVector& w) const override;
    std::string Describe() const override;

    /// The union of the calls' intervals (the time Seconds() reports).
    struct Clock
    {
        std::mutex mutex;
        uint32_t active{0};                          ///< calls in progress
        std::chrono::steady_clock::time_point since; ///< when `active` left 0
        double seconds{0.0};                         ///< closed intervals [s]
    };

  private:
    std::shared_ptr<const fl::LearningTask> m_inner;
    mutable Clock m_clock;
};

/**
 * \ingroup fl-helper
 * One row of fl-flow-validation's table: a configuration run at both fidelities.
 */
struct FlValidationRow
{
    std::string network;
    std::string clients; ///< FedAvg: N; GFL: P x K
    std::string model;   ///< FedAvg: the model spec; GFL: L (and M)
    double roundPacketS;
    double roundFlowS;
    double ttaPacketS; ///< time to the target (negative: not reached)
    double ttaFlowS;
    bool sameModels;
    double wallPacketS;
    double wallFlowS;
    double learnPacketS{std::nan("")}; ///< wall time in the learning (FlTimedLearningTask)
    double learnFlowS{std::nan("")};
};

/**
 * \ingroup fl-helper
 * Prints the row under fl-flow-validation's header (the errors in per cent, the speed-up) and
 * writes it to the CSV (the same columns; tta_err_pct empty where a fidelity missed the target).
 */
void FlEmitValidationRow(const FlValidationRow& r, std::ostream& csv);

/// What FlPrintFidelityGoals counted.
struct FlFidelityGoalCount
{
    uint32_t rows{0};       ///< validation rows
    uint32_t met{0};        ///< rows meeting every goal (round, speed-up, same models)
    uint32_t roundMet{0};   ///< rows within 10 % on the mean round duration
    uint32_t networkMet{0}; ///< rows whose network-only speed-up is 20x or more
};

/**
 * \ingroup fl-helper
 * fl-scale-benchmark --part=fidelity: prints each row of an fl-flow-validation CSV (`text`)
 * against the goals (within 10 % on the mean round duration, at least 20x faster, identical
 * models when lossless), with the time-to-accuracy error, the network-only speed-up and its
 * Amdahl bound, and writes one row per run to `csv` (fidelity, network-model, clients, , error,
 * speed-up, met).
 * @param label what the rows are (e.g. "validation set", "Wi-Fi, means of 5 runs")
 */
FlFidelityGoalCount FlPrintFidelityGoals(const std::string& text,
                                         const std::string& label,
                                         std::ostream& out,
                                         std::ostream& csv);

} // namespace ns3

#endif /* FL_PACKET_PROBES_H */
