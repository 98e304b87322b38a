/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "fl-experiment.h"

#include "ns3/config.h"
#include "ns3/fl-ns3-compat.h"
#include "ns3/simulator.h"

#include <cstdlib>
#include <limits>
#include <map>
#include <memory>
#include <ostream>

namespace ns3
{

std::vector<FlRoundSummary>
FlSummariseRounds(const std::vector<FlMetricRow>& rows)
{
    std::map<uint32_t, FlRoundSummary> byRound;
    std::map<uint32_t, uint32_t> nodes;
    for (const FlMetricRow& m : rows)
    {
        FlRoundSummary& r = byRound[m.round];
        r.round = m.round;
        r.timeS = m.timeS;
        const bool aggregate = m.node == "centroid" || m.node == "network";
        if (m.node == "centroid" && m.metric == "test_loss")
        {
            r.centroidLoss = m.value;
        }
        else if (m.node == "centroid" && m.metric == "test_accuracy")
        {
            r.centroidAccuracy = m.value;
        }
        else if (m.node == "network" && m.metric == "disagreement")
        {
            r.disagreement = m.value;
        }
        else if (m.node == "network" && m.metric == "epsilon")
        {
            r.epsilon = m.value;
        }
        else if (!aggregate && m.metric == "test_loss")
        {
            r.nodeLoss += m.value;
            ++nodes[m.round];
        }
        else if (!aggregate && m.metric == "test_accuracy")
        {
            r.nodeAccuracy += m.value;
        }
    }
    std::vector<FlRoundSummary> out;
    out.reserve(byRound.size());
    for (auto& [round, r] : byRound)
    {
        const uint32_t k = nodes[round];
        r.nodeLoss = k ? r.nodeLoss / k : std::nan("");
        r.nodeAccuracy = k ? r.nodeAccuracy / k : std::nan("");
        out.push_back(r);
    }
    return out;
}

void
FlPrintRoundProgress(uint32_t rounds, std::ostream& os)
{
    const uint32_t every = std::max<uint32_t>(1, rounds / 10);
    auto lastPrinted = std::make_shared<uint32_t>(std::numeric_limits<uint32_t>::max());
    std::ostream* out = &os;
    Config::ConnectWithoutContextFailSafe(
        "/NodeList/*/ApplicationList/*/$ns3::FlApplicationBase/ModelReport",
        FlCallback<void, const FlModelReport&>([=](const FlModelReport& r) {
            if (r.round > 0 && r.round % every == 0 && r.round != *lastPrinted)
            {
                *lastPrinted = r.round;
                *out << "    round " << r.round << "/" << rounds << " at "
                     << Simulator::Now().GetSeconds() << " s" << std::endl;
            }
        }));
}

FlProgramProvenance
FlGetProgramProvenance(int argc, char* argv[])
{
    FlProgramProvenance p;
    if (argc > 0 && argv[0])
    {
        const std::string program = argv[0];
        p.provenance.program = program.substr(program.find_last_of('/') + 1);
    }
    for (int i = 1; i < argc; ++i)
    {
        p.flags += (i > 1 ? " " : "") + std::string(argv[i]);
    }
#ifdef FL_NS3_VERSION
    p.provenance.ns3Version =
        std::to_string(FL_NS3_VERSION / 100) + "." + std::to_string(FL_NS3_VERSION % 100);
#endif
    if (const char* commit = std::getenv("FL_GIT_COMMIT"))
    {
        p.provenance.gitCommit = commit;
    }
    return p;
}

} // namespace ns3
