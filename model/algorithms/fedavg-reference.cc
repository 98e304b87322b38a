/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ns3/fedavg-reference.h"

#include "ns3/model-message.h"

namespace ns3
{
namespace fl
{

uint64_t
ServerQuantSeed(uint64_t initSeed)
{
    return DeriveSeed(initSeed, 0x9A4D);
}

ReferenceLink
WireCodecLink(WireEncoding wire,
              Precision decodeTo,
              uint64_t initSeed,
              const std::vector<uint64_t>& clientSeeds)
{
    auto codec = [wire, decodeTo](const ParamVector& v, uint64_t quantSeed) {
        Rng quant(quantSeed);
        std::vector<uint8_t> bytes;
        EncodeMessage(MessageAddress{}, v, wire, &quant, bytes);
        MessageHeader h;
        ParseHeader(bytes.data(), static_cast<uint32_t>(bytes.size()), h);
        return DecodePayload(h, bytes.data() + MessageHeader::kSize, decodeTo);
    };
    const uint64_t serverQuant = ServerQuantSeed(initSeed);
    ReferenceLink link;
    link.down = [codec, serverQuant](uint32_t round, const ParamVector& g) {
        return codec(g, DeriveSeed(serverQuant, round));
    };
    link.up = [codec, clientSeeds](uint32_t round, uint32_t client, const ParamVector& w) {
        return codec(w, DeriveSeed(clientSeeds.at(client), round, 0x9A4D));
    };
    return link;
}

FedAvgReferenceResult
RunFedAvgReference(const LearningTask& task, const FedAvgReferenceConfig& config)
{
    const std::size_t n = task.NumClients();
    if (config.clientSeeds.size() != n)
    {
        throw ConfigError("clientSeeds",
                          std::to_string(config.clientSeeds.size()) + " seeds for " +
                              std::to_string(n) + " clients",
                          "give one training seed per client");
    }
    FedAvgReferenceResult res;
    Rng initRng(config.initSeed);
    ParamVector global = task.InitialParameters(initRng);
    ParamVector velocity;
    if (config.onRound)
    {
        config.onRound(0, global);
    }
    std::vector<ParamVector> local(n);
    std::vector<RoundUpdate> updates(n);
    for (uint32_t r = 1; r <= config.rounds; ++r)
    {
        // The global model of round r as every client receives it.
        ParamVector received;
        if (config.link.down)
        {
            received = config.link.down(r, global);
        }
        const ParamVector& start = config.link.down ? received : global;
        for (std::size_t k = 0; k < n; ++k)
        {
            Rng rng(DeriveSeed(config.clientSeeds[k], r));
            TrainOutcome out = task.TrainClient(k, start, rng);
            res.samplesProcessed += out.samplesProcessed;
            res.flops += out.flops;
            local[k] = config.link.up ? config.link.up(r, static_cast<uint32_t>(k), out.params)
                                      : std::move(out.params);
            updates[k].model = &local[k];
            updates[k].sampleCount = static_cast<double>(task.ClientSamples(k));
        }
        global = AggregateRound(global, updates, config.aggregation, velocity);
        if (config.step)
        {
            config.step(r, global);
        }
        if (config.onRound)
        {
            config.onRound(r, global);
        }
    }
    res.finalModel = std::move(global);
    return res;
}

} // namespace fl
} // namespace ns3
