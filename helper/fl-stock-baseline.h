/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Stock ns-3 on a module scene: what ns-3's own applications cost for the traffic of one FedAvg
 * exchange, without any of the module but the scene. The baseline beside which a benchmark puts
 * the module's own time and memory.
 */
#ifndef FL_STOCK_BASELINE_H
#define FL_STOCK_BASELINE_H

#include "ns3/fl-network-scenarios.h"
#include "ns3/nstime.h"

#include <cstdint>

namespace ns3
{

/// What a stock exchange did.
struct FlStockExchangeResult
{
    bool complete{false};        ///< the server received every client's upload
    double simulatedS{0.0};      ///< simulated time when the run ended [s]
    uint32_t uploadsStarted{0};  ///< clients that received the download and started uploading
};

/**
 * One FedAvg exchange with ns-3's applications on `scene` (a packet-fidelity scene with an
 * Internet stack; its streams assigned by the caller): from `start` the server sends `bytes` to
 * every client over TCP (BulkSend to a PacketSink on port 9), and every client that has received
 * them sends `bytes` back (BulkSend to the server's PacketSink on port 10). The simulation runs
 * until the server has every upload, or until `stopAt`. The caller destroys the simulator
 * afterwards (Simulator::Destroy).
 */
FlStockExchangeResult FlRunStockExchange(const FlScene& scene,
                                         uint64_t bytes,
                                         Time start = Seconds(1.0),
                                         Time stopAt = Seconds(3600.0));

} // namespace ns3

#endif // FL_STOCK_BASELINE_H
