/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ega-network-helper.h"

#include "fl-helper.h"
#include "fl-network-scenarios.h"

#include "ns3/ega-aggregate.h"
#include "ns3/ega-uplink-codec.h"
#include "ns3/fl-ns3-compat.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/uinteger.h"

#include <chrono>
#include <map>

namespace ns3
{

namespace
{
double
RoundCount(const std::vector<FlEgaNetworkRound>& rounds)
{
    return rounds.empty() ? 1.0 : static_cast<double>(rounds.size());
}
} // namespace

double
FlEgaNetworkResult::MeanUplinkBytes() const
{
    double sum = 0.0;
    for (const auto& r : rounds)
    {
        sum += static_cast<double>(r.bytesUp);
    }
    return sum / RoundCount(rounds);
}

double
FlEgaNetworkResult::MeanRoundSeconds() const
{
    double sum = 0.0;
    for (const auto& r : rounds)
    {
        sum += r.end - r.start;
    }
    return sum / RoundCount(rounds);
}

double
FlEgaNetworkResult::EncodeSecondsPerUpload() const
{
    return uploads > 0 ? encodeSeconds / uploads : 0.0;
}

double
FlEgaNetworkResult::MeanProbeRelativeError() const
{
    double sum = 0.0;
    for (const auto& p : probes)
    {
        sum += p.relativeError;
    }
    return probes.empty() ? 0.0 : sum / probes.size();
}

double
FlEgaNetworkResult::MeanProbeCosine() const
{
    double sum = 0.0;
    for (const auto& p : probes)
    {
        sum += p.cosine;
    }
    return probes.empty() ? 0.0 : sum / probes.size();
}

FlEgaNetworkResult
FlRunEgaNetwork(std::shared_ptr<const fl::LearningTask> task, const FlEgaNetworkConfig& config)
{
    FlEgaNetworkResult res;
    FlWifiScenarioHelper wifi;
    FlScene scene = wifi.Build(config.clients);
    FlFedAvgHelper fedavg(task);
    fedavg.SetServerAttribute("Rounds", UintegerValue(config.rounds));
    fedavg.SetServerAttribute("InitSeed", UintegerValue(config.initSeed));
    fedavg.SetTransportAttribute("WirePrecision", StringValue("float32"));
    const uint64_t d = task->NumParameters();
    res.payloadBytes = 4 * d;
    std::map<uint32_t, Eigen::VectorXd> truth;
    if (config.codec)
    {
        auto ega = std::make_shared<fl::EgaUplinkCodec>(config.codec, config.s);
        ega->SetEncodeSink(
            [&truth](uint32_t c, const Eigen::VectorXd& u, double) { truth[c] = u; });
        ega->SetProbeSink([&truth, &res](const fl::EgaProbeRecord& r) {
            const Eigen::VectorXd& t = truth.at(r.client);
            res.probes.push_back({r.client,
                                  fl::EgaRelativeError(r.leaked, t),
                                  fl::EgaCosineSimilarity(r.leaked, t)});
        });
        res.payloadBytes = ega->PayloadBytes(d);
        fedavg.SetUplinkCodec(ega);
    }
    if (config.secagg)
    {
        fedavg.SetSecureAggregation(*config.secagg);
    }
    FlFedAvgStack stack = fedavg.Install(scene.serverNode, scene.clients, scene.serverAddress);
    auto* rows = &res.rounds;
    stack.server->TraceConnectWithoutContext(
        "RoundEnd",
        FlCallback<void, const FlRoundReport&>([rows, task](const FlRoundReport& r) {
            if (r.round == 0)
            {
                return;
            }
            rows->push_back({r.round,
                             r.start.GetSeconds(),
                             r.agreed.GetSeconds(),
                             r.end.GetSeconds(),
                             r.bytesUp,
                             r.bytesDown,
                             task->Evaluate(*r.globalModel).accuracy});
        }));
    const auto t0 = std::chrono::steady_clock::now();
    Simulator::Stop(Seconds(5000));
    Simulator::Run();
    res.wallSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    for (uint32_t i = 0; i < stack.clientApps.GetN(); ++i)
    {
        auto c = DynamicCast<CodecClientStrategy>(
            DynamicCast<FlClientApplication>(stack.clientApps.Get(i))->GetStrategy());
        if (c)
        {
            res.encodeSeconds += c->GetEncodeSeconds();
            res.uploads += c->GetUploads();
        }
    }
    res.completedRounds = stack.server->GetCompletedRounds();
    Simulator::Destroy();
    return res;
}

} // namespace ns3
