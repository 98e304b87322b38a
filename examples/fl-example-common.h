/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * What the FedAvg examples (fl-fedavg-wifi, fl-fedavg-lte, ...) share: the learning flags, the
 * task they build (synthetic or Fashion-MNIST data, partition, model, local trainer), and the
 * run itself (server + clients + learning monitor + summary). Each example adds only its network.
 */
#ifndef FL_EXAMPLE_COMMON_H
#define FL_EXAMPLE_COMMON_H

#include "fl-example-data.h"
#include "fl-example-flags.h"

#include "ns3/data-io.h"
#include "ns3/fl-experiment-helper.h"
#include "ns3/fl-helper.h"
#include "ns3/fl-strategy-registry.h"
#include "ns3/flow-monitor-helper.h"
#include "ns3/integer.h"
#include "ns3/learning-monitor.h"
#include "ns3/learning-task.h"
#include "ns3/linear-models.h"
#include "ns3/partition.h"
#include "ns3/payload-codec.h"
#include "ns3/synthetic-data.h"
#include "ns3/task-builder.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <cmath>
#include <functional>
#include <iomanip>
#include <iostream>
#include <limits>
#include <map>
#include <numeric>
#include <sstream>
#include <string>
#include <vector>

namespace ns3
{
namespace flexample
{

/// Options shared by the FedAvg examples.
struct FedAvgOptions
{
    uint32_t clients = 10;
    uint32_t rounds = 30;
    std::string dataset = "synthetic"; ///< synthetic, fashion-mnist, a CSV file or an IDX folder
    std::string standardise = "none";  ///< none, centre, standardise or public (each holder's own)
    std::string featureShift = "0";    ///< --standardise=public: one shift or one per feature
    std::string featureScale = "1";    ///< --standardise=public: one scale or one per feature
    std::string model;
    std::string partition = "iid";
    double alpha = 0.5;
    uint32_t shards = 2;
    uint32_t samplesPerClient = 500;
    uint32_t syntheticDim = 20;
    uint32_t clustersPerClass = 3;
    double separation = 1.0;
    uint32_t testSamples = 2000;
    uint32_t batchSize = 32;
    double learningRate = 0.05;
    double localEpochs = 1.0;
    std::string precision = "float32";
    std::string wirePrecision;
    double secondsPerSample = 2e-4;
    double deadline = 0.0;
    double targetAccuracy = 0.8;
    double maxTime = 3600.0;
    double clientStart = 0.5; ///< start of the first client [s] (FlFedAvgHelper's default)
    double proxMu = 0.0;
    double clipNorm = 0.0; ///< clip every mini-batch gradient to this L2 norm (0 = off)
    double serverMomentum = 0.0;
    double serverLearningRate = 1.0;
    // server strategy
    std::string strategy = "fedavg";              ///< fedavg, fedasync or fedbuff
    double asyncAlpha = 0.6;                      ///< FedAsync alpha
    uint32_t bufferSize = 10;                     ///< FedBuff K
    std::string stalenessFunction = "polynomial"; ///< FedAsync / FedBuff s(tau)
    bool quiet = false;
    std::string output; ///< CSV file (each example sets its default)
    // transport
    std::string transport = "tcp";
    std::string holePolicy = "retransmit";
    double udpPacingMbps = 20.0;
    double serverPacingMbps = 0.0; // 0: udpPacingMbps
    uint32_t retryLimit = 5;
    double reassemblyTimeoutMs = 100.0;
    double ackTimeoutMs = 200.0;
    double congestionTargetMs = 0.0;
    double serverCongestionTargetMs = -1.0; // -1: congestionTargetMs
    double tcpMinRtoMs = 1000.0; ///< ns-3's (RFC 6298's) minimum RTO
    // rounds under pressure
    uint32_t clientsPerRound = 0;
    std::string sampling = "uniform";
    std::string stragglerPolicy = "drop";
    uint32_t maxStaleness = 2;
    double stalenessExponent = 0.5;
    uint32_t minQuorum = 0;
    std::string quorumPolicy = "skip";
    // devices
    double flopRateMedian = 0.0;
    double flopRateSigma = 0.0;
    double computePower = 2.0;
    double dropout = 0.0;
    uint32_t leaveClients = 0;
    double leaveTime = 0.0;
    /// Per client, when its application starts [s] (empty: --clientStart, 20 ms apart; set by
    /// a program, e.g. when each car of a trace enters the road)
    std::vector<double> clientStartS;
    /// Clients that must join before round 1 starts (0: all; set by a program)
    uint32_t expectedClients = 0;
    // output
    std::string clientOutput; ///< per-client CSV (empty = none)
    std::string flowMonitor;  ///< FlowMonitor XML file (empty = none)
    bool timeBudget = false;  ///< sweeps: stopping at --maxTime is the plan, not an error
    // secure aggregation (AddSecureOptions; fl-fedavg-wifi)
    std::string secure = "none";       ///< none, secagg or secaggplus
    std::string secureKeys = "random"; ///< random or reproducible (INSECURE)
    double secureTimeout = 10.0;       ///< per-phase timeout [s]
    uint32_t secureFractionBits = 32;  ///< fixed-point fraction bits of the masked words
    uint32_t secureThreshold = 0;      ///< t (0 = the rule)
    std::string secureColluders = "auto"; ///< n_C tolerated ("auto" = what t allows)
};

/// What RunFedAvg measured (for examples that sweep a parameter over several runs).
struct RunResult
{
    std::vector<FlRoundRecord> records;
    double finalAccuracy{0.0};
    double finalLoss{0.0};
    double simulatedTimeS{0.0};
    double timeToAccuracyS{-1.0}; ///< negative: never reached
    uint32_t completedRounds{0};
    uint64_t bytes{0};
    uint64_t chunksLost{0};
    uint64_t chunksRetx{0};
    uint32_t stale{0};
    uint32_t stragglers{0};
    double meanParticipants{0.0};
    double energyRadioJ{0.0};
    double energyComputeJ{0.0};
    double wallS{0.0};
    std::map<uint32_t, uint64_t> staleness; ///< aggregated updates by staleness
    uint64_t uplinkAborted{0}; ///< rounds (asynchronous: buffers) secure aggregation aborted
};

/// The task settings of the options (the library's fl::TaskSpec).
fl::TaskSpec
TaskSpecOf(const FedAvgOptions& o);

/// Whether --dataset names a file or folder of the user's.
bool
IsUserDataset(const FedAvgOptions& o);

/// Features per sample of --dataset.
std::size_t
DatasetDim(const FedAvgOptions& o);

/// Most clients (and Wi-Fi stations, UEs) of a FedAvg example.
constexpr Bound kMaxClients{10000, "kMaxClients in examples/fl-example-common.h"};
/// Most rounds of a FedAvg example.
constexpr Bound kMaxRounds{1000000, "kMaxRounds in examples/fl-example-common.h"};
/// Most samples per client, test samples and samples per mini-batch.
constexpr Bound kMaxSamples{1000000, "kMaxSamples in examples/fl-example-common.h"};
/// Most features of the synthetic data, shards per client and clusters per class.
constexpr Bound kMaxDim{10000, "kMaxDim in examples/fl-example-common.h"};
/// Most feature values of the synthetic training and test data together (memory).
constexpr Bound kMaxSyntheticValues{200000000,
                                    "kMaxSyntheticValues in examples/fl-example-common.h"};
/// Longest simulated time a flag may give [s] (ns-3 Time holds about 9.2e9 s in ns).
constexpr double kMaxSimSeconds = 1e9;

/// The comparisons on heterogeneous devices (fl-stragglers, fl-async-wifi): 20 Wi-Fi clients
/// whose compute speeds are log-normal (median 2e7 FLOP/s, sigma 1), every run given the same
/// 40 s of simulated time, time to 75 % accuracy.
void
HeterogeneousDeviceDefaults(FedAvgOptions& o);

/// The flag of each FlServerApplication attribute FlCheckRoundRules may name.
std::string
FedAvgFlagOf(const std::string& attribute);

/**
 * Throws fl::ConfigError naming the flag unless the server can run `strategy` (fedavg, fedasync
 * or fedbuff) with `deadline` and the other options: the server's own rules
 * (FlCheckRoundRules), asked before anything runs.
 */
void
CheckServerRules(const FedAvgOptions& o, const std::string& strategy, double deadline);

/// Registers the learning, FedAvg and output flags shared by the FedAvg examples, with the
/// checks that relate them.
void
AddFedAvgOptions(Flags& flags, FedAvgOptions& o);

/**
 * The --network flag of the FedAvg examples: packet (ns-3 devices) or flow (FlFlowNetwork, see
 * FlSceneHelperBase::SetFidelity), with its checks against the other options.
 */
void
AddNetworkOption(Flags& flags, std::string& network, FedAvgOptions& o);

/**
 * Registers the Wi-Fi flags of the Wi-Fi examples: --standard (one FlWifiScenarioHelper knows)
 * and --rateManager (the TypeId of an ns-3 Wi-Fi rate control).
 */
/**
 * Sets the secure-aggregation helper from the --secure* flags (variant, key mode, fraction bits,
 * threshold, colluders, phase timeout). Throws fl::ConfigError naming --secureColluders if it is
 * neither "auto" nor a count.
 */
void
ConfigureSecureAggregation(FlSecAggHelper& secagg, const FedAvgOptions& o);

/**
 * The secure-aggregation flags (--secure, --secureKeys, --secureTimeout, --secureFractionBits,
 * --secureThreshold, --secureColluders):
 * FlSecAggHelper on every client's upload (FlFedAvgHelper::SetSecureAggregation).
 */
/**
 * Whether a strategy (fedavg, fedasync, fedbuff) takes --serverLearningRate under secure
 * aggregation, as FlFedAvgHelper decides: FedBuff's server learning rate scales the mean update
 * of a securely summed cohort (Nguyen et al., "Federated Learning with Buffered Asynchronous
 * Aggregation", AISTATS 2022), while a synchronous strategy's securely summed mean is the next
 * model itself.
 */
bool
SecureStrategyTakesServerLearningRate(const std::string& strategy);

/**
 * `running`: the strategies (fedavg, fedasync, fedbuff) that run with secure aggregation, asked
 * when the flags are checked (default: --strategy): a program that runs several passes them.
 */
void
AddSecureOptions(Flags& flags,
                 FedAvgOptions& o,
                 std::function<std::vector<std::string>()> running = {});

void
AddWifiOptions(Flags& flags, std::string& standard, std::string& rateManager);

/**
 * --mobility: how the clients move (fixed, or an FlClientMobilityHelper specification,
 * ParseFlClientMobility), checked when the flags are; a moving specification with
 * `network` "flow" is refused (the flow-level model has no positions).
 */
void AddMobilityOption(Flags& flags, std::string& mobility, const std::string& network);

/// The per-round CSV of a sweeping example: its --output with "-rounds" before ".csv".
std::string
RoundsFileName(const std::string& output);

/**
 * Builds the learning task from options checked by Flags::Parse. Data, partition and
 * initialisation are drawn from an ns-3 stream, so --RngRun changes them. Returns null after
 * printing the error if the task cannot be built (e.g. a bad --model or missing data files; the
 * caller exits with status 2).
 */
std::shared_ptr<fl::LearningTask>
BuildFedAvgTask(const FedAvgOptions& o);

/**
 * Installs the server on `serverNode` and one client per node of `clients`, attaches a learning
 * monitor, runs the simulation, prints the summary and destroys the simulator.
 * @param assignNetworkStreams fixes the network's random streams from a first stream number and
 *        returns how many it used
 * Stops early if learning diverges (a non-finite test loss or global model) and says so.
 * @return the process exit status: 0 if every round completed, 1 otherwise (also on divergence)
 */
int
RunFedAvg(const std::string& name,
          const FedAvgOptions& o,
          std::shared_ptr<fl::LearningTask> task,
          Ptr<Node> serverNode,
          const NodeContainer& clients,
          Ipv4Address serverAddress,
          const std::function<int64_t(int64_t)>& assignNetworkStreams,
          std::chrono::steady_clock::time_point wallStart,
          const std::function<double(uint32_t)>& radioEnergy = {},
          RunResult* result = nullptr);

} // namespace flexample
} // namespace ns3

#endif // FL_EXAMPLE_COMMON_H
