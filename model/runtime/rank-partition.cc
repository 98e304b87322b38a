/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ns3/rank-partition.h"

#include "ns3/fl-types.h"

#include <algorithm>
#include <cmath>
#include <tuple>

namespace ns3
{
namespace fl
{

std::vector<uint32_t>
PartitionServers(uint32_t servers, uint32_t ranks, const std::string& scheme)
{
    if (ranks == 0 || ranks > servers)
    {
        throw ConfigError("ranks",
                          std::to_string(ranks) + " ranks for " + std::to_string(servers) +
                              " servers",
                          "run on 1 to " + std::to_string(servers) +
                              " ranks (each rank simulates at least one server and its cell)");
    }
    std::vector<uint32_t> rank(servers);
    if (scheme == "block")
    {
        // rank r holds floor(r P / R) .. floor((r + 1) P / R) - 1
        for (uint32_t r = 0; r < ranks; ++r)
        {
            const auto first = static_cast<uint32_t>(uint64_t{r} * servers / ranks);
            const auto end = static_cast<uint32_t>(uint64_t{r + 1} * servers / ranks);
            for (uint32_t p = first; p < end; ++p)
            {
                rank[p] = r;
            }
        }
    }
    else if (scheme == "round-robin")
    {
        for (uint32_t p = 0; p < servers; ++p)
        {
            rank[p] = p % ranks;
        }
    }
    else
    {
        throw ConfigError("placement",
                          "\"" + scheme + "\" is not a placement",
                          "use block or round-robin");
    }
    return rank;
}

namespace
{
/// 2^53: the integers up to it are exact in a double.
constexpr uint64_t kExactInDouble = uint64_t{1} << 53;
} // namespace

std::vector<double>
PackModelReports(const std::vector<RankModelReport>& reports)
{
    std::vector<double> out;
    for (const auto& r : reports)
    {
        if (!r.hasAggregate && (!r.aggregate.empty() || r.aggregateFloat32))
        {
            throw ConfigError("reports",
                              "a report without an aggregate has aggregate values or precision",
                              "set hasAggregate, or leave aggregate empty and "
                              "aggregateFloat32 false");
        }
        out.push_back(r.round);
        out.push_back(r.node);
        out.push_back(r.role);
        out.push_back(r.float32 ? 1.0 : 0.0);
        out.push_back(r.timeS);
        out.push_back(r.countsBytes ? 1.0 : 0.0);
        for (uint64_t bytes : {r.bytesSent, r.bytesReceived})
        {
            if (bytes > kExactInDouble)
            {
                throw ConfigError("reports",
                                  "a byte count of " + std::to_string(bytes) +
                                      " is not exact in a double",
                                  "report fewer than 2^53 bytes per node");
            }
            out.push_back(static_cast<double>(bytes));
        }
        out.push_back(r.graphIndex);
        out.push_back(r.missingNeighbours);
        out.push_back(r.droppedClients);
        out.push_back(r.hasAggregate ? 1.0 : 0.0);
        out.push_back(r.aggregateFloat32 ? 1.0 : 0.0);
        out.push_back(static_cast<double>(r.model.size()));
        out.push_back(static_cast<double>(r.aggregate.size()));
        out.insert(out.end(), r.model.begin(), r.model.end());
        out.insert(out.end(), r.aggregate.begin(), r.aggregate.end());
    }
    return out;
}

namespace
{
/// A whole number in [0, limit] stored in a double, or a ConfigError naming the field.
uint64_t
WholeField(double v, double limit, const char* field)
{
    if (!(v >= 0.0 && v <= limit) || std::floor(v) != v)
    {
        throw ConfigError("reports",
                          std::string("field ") + field + " is " + std::to_string(v) +
                              ", not a whole number in [0, " + std::to_string(limit) + "]",
                          "gather arrays that PackModelReports packed");
    }
    return static_cast<uint64_t>(v);
}
} // namespace

std::vector<RankModelReport>
UnpackModelReports(const double* data, std::size_t size)
{
    constexpr std::size_t kHeader = kPackedReportHeader;
    constexpr double kMax32 = 4294967295.0;
    std::vector<RankModelReport> out;
    std::size_t i = 0;
    while (i < size)
    {
        if (size - i < kHeader)
        {
            throw ConfigError("reports",
                              "a report header is cut after " + std::to_string(size - i) + " of " +
                                  std::to_string(kHeader) + " values",
                              "gather whole arrays that PackModelReports packed");
        }
        const double* h = data + i;
        RankModelReport r;
        r.round = static_cast<uint32_t>(WholeField(h[0], kMax32, "round"));
        r.node = static_cast<uint32_t>(WholeField(h[1], kMax32, "node"));
        r.role = static_cast<uint32_t>(WholeField(h[2], kMax32, "role"));
        r.float32 = WholeField(h[3], 1.0, "float32") == 1;
        r.timeS = h[4];
        if (!std::isfinite(r.timeS))
        {
            throw ConfigError("reports",
                              "a report's time is not finite",
                              "gather arrays that PackModelReports packed");
        }
        r.countsBytes = WholeField(h[5], 1.0, "countsBytes") == 1;
        r.bytesSent = WholeField(h[6], static_cast<double>(kExactInDouble), "bytesSent");
        r.bytesReceived = WholeField(h[7], static_cast<double>(kExactInDouble), "bytesReceived");
        r.graphIndex = static_cast<uint32_t>(WholeField(h[8], kMax32, "graphIndex"));
        r.missingNeighbours = static_cast<uint32_t>(WholeField(h[9], kMax32, "missingNeighbours"));
        r.droppedClients = static_cast<uint32_t>(WholeField(h[10], kMax32, "droppedClients"));
        r.hasAggregate = WholeField(h[11], 1.0, "hasAggregate") == 1;
        r.aggregateFloat32 = WholeField(h[12], 1.0, "aggregateFloat32") == 1;
        // both sizes are at most `size`: their sum cannot overflow
        const uint64_t n = WholeField(h[13], static_cast<double>(size), "size");
        const uint64_t m = WholeField(h[14], static_cast<double>(size), "aggregateSize");
        if (!r.hasAggregate && (m != 0 || r.aggregateFloat32))
        {
            throw ConfigError("reports",
                              "a report without an aggregate gives it " + std::to_string(m) +
                                  " values" + (r.aggregateFloat32 ? " and float32 precision" : ""),
                              "gather arrays that PackModelReports packed");
        }
        i += kHeader;
        if (n + m > size - i)
        {
            throw ConfigError("reports",
                              "a model of " + std::to_string(n) + " and an aggregate of " +
                                  std::to_string(m) + " values are cut after " +
                                  std::to_string(size - i),
                              "gather whole arrays that PackModelReports packed");
        }
        r.model.assign(data + i, data + i + n);
        i += n;
        r.aggregate.assign(data + i, data + i + m);
        i += m;
        out.push_back(std::move(r));
    }
    return out;
}

void
SortModelReports(std::vector<RankModelReport>& reports)
{
    std::stable_sort(reports.begin(),
                     reports.end(),
                     [](const RankModelReport& a, const RankModelReport& b) {
                         return std::tie(a.round, a.timeS, a.node) <
                                std::tie(b.round, b.timeS, b.node);
                     });
}

} // namespace fl
} // namespace ns3
