/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * What a FedAvg round costs on the host, measured without ns-3: the learning alone (the
 * in-process reference runner), the learning plus the applications' own work on every message
 * (encode, cut into TCP-segment-sized pieces, reassemble, decode) over an ideal zero-delay link,
 * and the single-core GEMM rate that bounds the learning. Their difference is the module's own
 * cost per round; a network run's wall time minus it is the simulator's. fl-benchmark-fedavg
 * prints all of them for the reference workload; a user measures their own task the same way.
 */
#ifndef FL_FEDAVG_COST_PROBES_H
#define FL_FEDAVG_COST_PROBES_H

#include "ns3/fedavg-reference.h"
#include "ns3/learning-task.h"
#include "ns3/param-vector.h"

#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <vector>

namespace ns3
{
namespace fl
{

/// Wall time per round of one measured run and what it produced.
struct RoundWallSeries
{
    std::vector<double> roundWall; ///< seconds per round, in order
    ParamVector finalModel;        ///< the global model after the last round
    uint64_t samples{0};           ///< training samples processed (all clients, all rounds)
    uint64_t bytes{0};             ///< message bytes handed over (0: none measured)

    /// Mean of roundWall (0 when empty).
    double Mean() const;
    /// Median of roundWall (0 when empty): robust against one disturbed round.
    double Median() const;
};

/**
 * Best rate over `reps` repetitions of C = A B (m x k times k x n, float32, Eigen, the calling
 * thread) in GFLOP/s (2 m k n floating-point operations per product). Small products are repeated
 * until one repetition takes about 20 ms, so that the timer's resolution does not matter.
 */
double GemmRate(int m, int k, int n, int reps);

/// Settings of a timed reference run.
struct TimedRunConfig
{
    uint32_t rounds{1};                ///< FedAvg rounds
    uint64_t initSeed{1};              ///< FlServerApplication::InitSeed of the network run
    std::vector<uint64_t> clientSeeds; ///< each FlClientApplication::TrainingSeed
    const char* label{""};             ///< progress lines start with it
    std::ostream* progress{nullptr};   ///< one line per round (nullptr: silent)
};

/**
 * Runs the in-process reference FedAvg (RunFedAvgReference) over `link` and times every round
 * (the wall time between the aggregations of consecutive rounds).
 */
RoundWallSeries TimeFedAvgRounds(const LearningTask& task,
                                 const TimedRunConfig& cfg,
                                 const ReferenceLink& link = ReferenceLink());

/**
 * The same rounds with the applications' per-message work over an ideal zero-delay link: the
 * global model is encoded once per round (precision `wire`) and every client's connection
 * reassembles it from `segmentBytes`-sized pieces; every client's update is encoded and
 * reassembled by the server's connection, as the applications do over TCP. `bytes` counts every
 * byte handed over. A message that does not come out whole is an error (std::runtime_error).
 * With a lossless `wire` (the task's precision or wider) the final model equals
 * TimeFedAvgRounds's.
 */
RoundWallSeries TimeFedAvgRoundsOverIdealLink(const LearningTask& task,
                                              const TimedRunConfig& cfg,
                                              Precision wire,
                                              std::size_t segmentBytes);

} // namespace fl
} // namespace ns3

#endif // FL_FEDAVG_COST_PROBES_H
