/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * One FedAvg or EGA run over a real ns-3 802.11n Wi-Fi cell (FlWifiScenarioHelper,
 * FlFedAvgHelper, TCP), measured the way the network experiment of EGA (D. Zeng et al.,
 * "Encoded Gradients Aggregation against Gradient Leakage in Federated Learning",
 * arXiv:2205.13216, 2022, Fig. 5) reports it: per round the uplink and downlink bytes, the
 * simulated round time split into phase 1 (agreement) and phase 2 (upload) and the test accuracy;
 * the encoder's wall-clock time per upload; and the curious server's Eq. (2) probe of every
 * client in every round (fl::EgaUplinkCodec's probe sink) against the client's true update.
 */
#ifndef FL_EGA_NETWORK_HELPER_H
#define FL_EGA_NETWORK_HELPER_H

#include "ns3/ega-codec.h"
#include "ns3/learning-task.h"
#include "ns3/secagg-helper.h"

#include <cstdint>
#include <memory>
#include <vector>

namespace ns3
{

/// What FlRunEgaNetwork runs.
struct FlEgaNetworkConfig
{
    uint32_t clients{10};                      ///< Wi-Fi stations, all in every round
    uint32_t rounds{3};                        ///< server Rounds
    uint64_t initSeed{1};                      ///< server InitSeed
    std::shared_ptr<const fl::EgaCodec> codec; ///< EGA's block codec; null = plain FedAvg
    uint32_t s{64};                            ///< EGA's quantisation level
    const FlSecAggHelper* secagg{nullptr};     ///< mask the uploads (null = in the clear)
};

/// One completed round (round 0, the initial model, is not reported).
struct FlEgaNetworkRound
{
    uint32_t round{0};
    double start{0.0};  ///< s, the model sent
    double agreed{0.0}; ///< s, phase 1 over (EGA)
    double end{0.0};    ///< s, the round closed
    uint64_t bytesUp{0};
    uint64_t bytesDown{0};
    double accuracy{0.0}; ///< of the new global model on the task's test set
};

/// One Eq. (2) probe: the server's estimate of one client's update against the update itself.
struct FlEgaNetworkProbe
{
    uint32_t client{0};
    double relativeError{0.0};
    double cosine{0.0};
};

/// What FlRunEgaNetwork measured.
struct FlEgaNetworkResult
{
    std::vector<FlEgaNetworkRound> rounds;
    std::vector<FlEgaNetworkProbe> probes; ///< in the order the server probed (EGA, in the clear)
    double encodeSeconds{0.0};             ///< wall clock of all the clients' encoders
    uint32_t uploads{0};                   ///< uploads encoded
    uint32_t completedRounds{0};
    uint64_t payloadBytes{0}; ///< per client: the codes (EGA) or 4 d (float32 model)
    double wallSeconds{0.0};  ///< of Simulator::Run

    /// Sum of bytesUp over the rounds / their number (1 if none).
    double MeanUplinkBytes() const;
    /// Sum of (end - start) over the rounds / their number (1 if none), s.
    double MeanRoundSeconds() const;
    /// encodeSeconds / uploads (0 without uploads).
    double EncodeSecondsPerUpload() const;
    /// Mean relativeError and cosine of the probes (0 without probes).
    double MeanProbeRelativeError() const;
    double MeanProbeCosine() const;
};

/**
 * Builds the Wi-Fi cell, installs FedAvg (WirePrecision float32, with fl::EgaUplinkCodec when
 * config.codec is set and secure aggregation when config.secagg is), runs the simulator (stop at
 * 5000 s), destroys it and returns the measurements.
 */
FlEgaNetworkResult FlRunEgaNetwork(std::shared_ptr<const fl::LearningTask> task,
                                   const FlEgaNetworkConfig& config);

} // namespace ns3

#endif // FL_EGA_NETWORK_HELPER_H
