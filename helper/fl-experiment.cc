/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "fl-experiment.h"

#include "ns3/config.h"
#include "ns3/fl-ns3-compat.h"
#include "ns3/random-variable-stream.h"
#include "ns3/simulator.h"

#include <cstdlib>
#include <iostream>
#include <limits>
#include <map>
#include <memory>
#include <ostream>
#include <stdexcept>

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

std::vector<FlRoundStatistics>
FlRoundStatisticsOverSeeds(const std::vector<std::vector<FlRoundSummary>>& seeds)
{
    const auto stat = [&seeds](double FlRoundSummary::*field) {
        std::vector<std::vector<double>> values;
        for (const auto& rows : seeds)
        {
            values.emplace_back();
            for (const FlRoundSummary& r : rows)
            {
                values.back().push_back(r.*field);
            }
        }
        return fl::MeanCiPerIndex(values);
    };
    const auto time = stat(&FlRoundSummary::timeS);
    const auto loss = stat(&FlRoundSummary::centroidLoss);
    const auto acc = stat(&FlRoundSummary::centroidAccuracy);
    const auto nodeLoss = stat(&FlRoundSummary::nodeLoss);
    const auto nodeAcc = stat(&FlRoundSummary::nodeAccuracy);
    const auto dis = stat(&FlRoundSummary::disagreement);
    const auto eps = stat(&FlRoundSummary::epsilon);
    std::vector<FlRoundStatistics> out(time.size());
    for (std::size_t r = 0; r < out.size(); ++r)
    {
        out[r] = {seeds.front()[r].round,
                  seeds.size(),
                  time[r],
                  loss[r],
                  acc[r],
                  nodeLoss[r],
                  nodeAcc[r],
                  dis[r],
                  eps[r]};
    }
    return out;
}

FlSeedsSummary
FlSummariseSeeds(const std::vector<std::vector<FlRoundSummary>>& seeds)
{
    std::vector<double> acc;
    std::vector<double> nodeAcc;
    std::vector<double> dis;
    for (const auto& rows : seeds)
    {
        if (rows.empty())
        {
            continue;
        }
        std::vector<double> accuracies;
        for (const FlRoundSummary& r : rows)
        {
            accuracies.push_back(r.centroidAccuracy);
        }
        acc.push_back(fl::TailMean(accuracies, 10));
        nodeAcc.push_back(rows.back().nodeAccuracy);
        dis.push_back(rows.back().disagreement);
    }
    return {fl::MeanCi95(acc), fl::MeanCi95(nodeAcc), fl::MeanCi95(dis)};
}

std::vector<std::vector<FlRoundSummary>>
FlRunSeries(const std::string& series,
            std::size_t index,
            std::size_t total,
            uint32_t seeds,
            uint32_t rounds,
            const std::function<std::vector<FlRoundSummary>()>& simulate,
            std::ostream& os,
            bool* incomplete)
{
    return FlRunSeeds<std::vector<FlRoundSummary>>(seeds, [&](uint32_t seed) {
        os << "run " << index + 1 << "/" << total << ": " << series;
        if (seeds > 1)
        {
            os << ", seed " << seed + 1 << "/" << seeds << " (RngRun " << RngSeedManager::GetRun()
               << ")";
        }
        os << std::endl;
        std::vector<FlRoundSummary> rows = simulate();
        if (rows.empty())
        {
            throw std::runtime_error("run reported no model (see --maxTime)");
        }
        const FlRoundSummary& last = rows.back();
        os << "  done: " << last.round << " rounds in " << last.timeS
           << " s simulated, test accuracy " << last.centroidAccuracy << ", loss "
           << last.centroidLoss << ", disagreement " << last.disagreement << std::endl;
        if (last.round < rounds)
        {
            std::cerr << "  run stopped after " << last.round << " of " << rounds
                      << " rounds (see --maxTime)" << std::endl;
            if (incomplete)
            {
                *incomplete = true;
            }
        }
        return rows;
    });
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

std::shared_ptr<fl::LearningTask>
FlBuildTask(const fl::TaskSpec& spec)
{
    Ptr<UniformRandomVariable> seedStream = CreateObject<UniformRandomVariable>();
    seedStream->SetStream(1 << 20);
    fl::Rng rng(seedStream->GetInteger(1, std::numeric_limits<uint32_t>::max()));
    return fl::BuildSupervisedTask(spec, rng);
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
