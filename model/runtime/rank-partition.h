/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * One GFL simulation across the ranks of ns-3's distributed simulator (pure part): which rank
 * simulates which server and its cell, and the per-iteration model reports that every rank
 * gathers to rank 0 (packed into one array of doubles for an MPI gather, unpacked and put in
 * the order of simulated time there).
 */
#ifndef FL_RANK_PARTITION_H
#define FL_RANK_PARTITION_H

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{
namespace fl
{

/**
 * The rank of every server p = 0..P-1 among R ranks: "block" puts servers
 * floor(r P / R) .. floor((r + 1) P / R) - 1 on rank r (neighbouring indices together),
 * "round-robin" puts server p on rank p mod R.
 * Both give every rank floor(P / R) or ceil(P / R) servers. Throws ConfigError (parameter
 * "ranks" or "placement") unless 1 <= R <= P and the scheme is one of the two.
 */
std::vector<uint32_t> PartitionServers(uint32_t servers, uint32_t ranks, const std::string& scheme);

/// One model a node reported (FlModelReport, with the simulated time of the report).
struct RankModelReport
{
    uint32_t round{0};             ///< round (iteration)
    uint32_t node{0};              ///< node-level id
    uint32_t role{0};              ///< FlNodeRole as a number
    double timeS{0.0};             ///< simulated time of the report [s]
    std::vector<double> model;     ///< the model's values (float32 models are exact in double)
    bool float32{false};           ///< the model was float32
    bool countsBytes{false};       ///< the node's transport counted the bytes below
    uint64_t bytesSent{0};         ///< bytes its transport had sent by the report
    uint64_t bytesReceived{0};     ///< bytes its transport had received by the report
    uint32_t graphIndex{0};        ///< the node's index in the graph (GFL: server p)
    uint32_t missingNeighbours{0}; ///< neighbour messages missing at the combination
    uint32_t droppedClients{0};    ///< sampled clients whose upload did not count
    bool hasAggregate{false};      ///< the report carried an aggregate (FlModelReport::aggregate)
    bool aggregateFloat32{false};  ///< that aggregate was float32
    std::vector<double> aggregate; ///< its values (GFL: psi_{p,i}); empty without one
};

/// The values PackModelReports writes before a report's model and aggregate.
constexpr std::size_t kPackedReportHeader = 15;

/**
 * Packs reports into one array of doubles, each as [round, node, role, float32, time,
 * countsBytes, bytesSent, bytesReceived, graphIndex, missingNeighbours, droppedClients,
 * hasAggregate, aggregateFloat32, n, m, n model values, m aggregate values] (m = 0 without an
 * aggregate); every integer below 2^53 is exact in a double. Throws ConfigError (parameter
 * "reports") for byte counts at or above 2^53, and for aggregate values or an aggregateFloat32
 * flag in a report without an aggregate.
 */
std::vector<double> PackModelReports(const std::vector<RankModelReport>& reports);

/**
 * Unpacks what PackModelReports packed (several ranks' arrays may be concatenated). Throws
 * ConfigError (parameter "reports") on a truncated or malformed array: a field that is not a
 * whole number in its range (flags 0 or 1, counts of 32 bits, byte counts up to 2^53), a time
 * that is not finite, an aggregate's values or precision without an aggregate, or model and
 * aggregate sizes that the array does not hold (checked before anything is allocated).
 */
std::vector<RankModelReport> UnpackModelReports(const double* data, std::size_t size);

/**
 * Puts reports in the order rank 0 gives them to the tracker: by round, then simulated time,
 * then node (a stable sort). Round first: a GFL server may finish iteration i + 1 before a
 * server far away in the graph finishes i, and the tracker (FlLearningTracker) closes a round
 * when a report of a later one arrives; given round by round, every round is closed whole, at
 * the time of its last report.
 */
void SortModelReports(std::vector<RankModelReport>& reports);

} // namespace fl
} // namespace ns3

#endif // FL_RANK_PARTITION_H
