/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ns3/fedavg-reference.h"

#include "ns3/model-message.h"
#include "ns3/secagg-protocol.h"
#include "ns3/thread-pool.h"

#include <chrono>
#include <numeric>

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

namespace
{
/// Trains clients `ks` from `start` in round r on the training pool (each with its own seeded
/// generator, into its own slot): the outcomes in the order of ks, whatever the thread count.
std::vector<TrainOutcome>
TrainClients(const LearningTask& task,
             const std::vector<uint32_t>& ks,
             const ParamVector& start,
             const std::vector<uint64_t>& clientSeeds,
             uint32_t r)
{
    std::vector<TrainOutcome> outs(ks.size());
    for (uint32_t k : ks)
    {
        (void)clientSeeds.at(k); // a missing seed is an error before any thread starts
    }
    TrainingPool().ParallelFor(ks.size(), [&](std::size_t i) {
        Rng rng(DeriveSeed(clientSeeds[ks[i]], r));
        task.TrainClientInto(ks[i], start, rng, outs[i]);
    });
    return outs;
}
} // namespace

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
    if (config.uplinkCodec &&
        (config.aggregation.serverMomentum != 0.0 || config.aggregation.serverLearningRate != 1.0))
    {
        throw ConfigError("aggregation",
                          "server momentum or learning rate with an uplink codec",
                          "the codec's aggregate is applied as it is (w += u)");
    }
    if (config.secureFractionBits != 0 &&
        (config.aggregation.serverMomentum != 0.0 || config.aggregation.serverLearningRate != 1.0))
    {
        throw ConfigError("secureFractionBits",
                          "secure aggregation with server momentum or a server learning rate",
                          "the securely summed aggregate is applied as it is");
    }
    if (config.secureFractionBits != 0 && config.uplinkCodec &&
        config.uplinkCodec->SumSize(task.NumParameters()) == 0)
    {
        throw ConfigError("secureFractionBits",
                          "secure aggregation with the uplink codec " + config.uplinkCodec->Name() +
                              ", whose payloads do not add in the encoded domain",
                          "use a codec with a sum path (UplinkCodec::SumSize), or no codec");
    }
    using Clock = std::chrono::steady_clock;
    auto seconds = [](Clock::time_point a) {
        return std::chrono::duration<double>(Clock::now() - a).count();
    };
    std::vector<ParamVector> local(n);
    std::vector<RoundUpdate> updates(n);
    // The clients of round r: config.select's, or all.
    auto selected = [&config, n](uint32_t r) {
        if (config.select)
        {
            return config.select(r);
        }
        std::vector<uint32_t> all(n);
        std::iota(all.begin(), all.end(), 0U);
        return all;
    };
    for (uint32_t r = 1; r <= config.rounds; ++r)
    {
        // The global model of round r as every client receives it.
        ParamVector received;
        if (config.link.down)
        {
            received = config.link.down(r, global);
        }
        const ParamVector& start = config.link.down ? received : global;
        if (config.uplinkCodec)
        {
            const std::vector<uint32_t> sel = selected(r);
            std::vector<UplinkReport> reports;
            std::vector<ParamVector> deltas;
            std::vector<TrainOutcome> trained =
                TrainClients(task, sel, start, config.clientSeeds, r);
            for (std::size_t s = 0; s < sel.size(); ++s)
            {
                const uint32_t k = sel[s];
                TrainOutcome& out = trained[s];
                res.samplesProcessed += out.samplesProcessed;
                res.flops += out.flops;
                deltas.push_back(Difference(out.params, start));
                UplinkReport rep;
                rep.client = k;
                rep.statistic = config.uplinkCodec->Statistic(deltas.back());
                rep.weight = UplinkClientWeight(static_cast<double>(task.ClientSamples(k)),
                                                out.meanLoss,
                                                config.lossWeightExponent);
                reports.push_back(rep);
            }
            const UplinkRoundParams params = config.uplinkCodec->Agree(reports);
            auto agg = config.uplinkCodec->Begin(params, global.Size(), global.GetPrecision());
            // secure aggregation: each survivor's payload values, summed in fixed point
            std::vector<Eigen::VectorXd> values;
            std::vector<uint32_t> survivors;
            double survivorWeight = 0.0;
            for (std::size_t i = 0; i < sel.size(); ++i)
            {
                Rng rng(UplinkEncodeSeed(config.clientSeeds[sel[i]], r));
                const auto t0 = Clock::now();
                const std::vector<uint8_t> payload =
                    config.uplinkCodec->Encode(deltas[i], params, sel[i], reports[i].weight, rng);
                res.encodeSeconds += seconds(t0);
                res.uplinkPayloadBytes += payload.size();
                if (config.dropUpload && config.dropUpload(r, sel[i]))
                {
                    continue;
                }
                if (config.secureFractionBits != 0)
                {
                    values.emplace_back();
                    config.uplinkCodec->PayloadValues(payload, global.Size(), values.back());
                    survivors.push_back(sel[i]);
                    survivorWeight += reports[i].weight;
                    continue;
                }
                const auto t1 = Clock::now();
                agg->Add(sel[i], payload, reports[i].weight);
                res.decodeSeconds += seconds(t1);
            }
            if (!values.empty())
            {
                std::vector<const Eigen::VectorXd*> inputs;
                for (const auto& v : values)
                {
                    inputs.push_back(&v);
                }
                const SecAggResult sum = SecAggPlainSum(inputs,
                                                        std::vector<uint64_t>(inputs.size(), 1),
                                                        config.secureFractionBits,
                                                        sel.size());
                if (!agg->AddSum(sum.sum, survivors, survivorWeight))
                {
                    throw ConfigError("uplinkCodec",
                                      "the aggregator refused the secure sum",
                                      "use a codec with a sum path (UplinkCodec::SumSize)");
                }
            }
            if (agg->Count() > 0)
            {
                Rng rng(UplinkDecodeSeed(config.initSeed, r));
                const auto t1 = Clock::now();
                AddInPlace(global, agg->Finish(rng));
                res.decodeSeconds += seconds(t1);
            }
            if (config.step)
            {
                config.step(r, global);
            }
            if (config.onRound)
            {
                config.onRound(r, global);
            }
            continue;
        }
        if (config.secureFractionBits != 0)
        {
            const std::vector<uint32_t> sel = selected(r);
            std::vector<Eigen::VectorXd> x;
            std::vector<uint64_t> weights;
            std::vector<TrainOutcome> trained =
                TrainClients(task, sel, start, config.clientSeeds, r);
            for (std::size_t s = 0; s < sel.size(); ++s)
            {
                const uint32_t k = sel[s];
                TrainOutcome& out = trained[s];
                res.samplesProcessed += out.samplesProcessed;
                res.flops += out.flops;
                if (config.dropUpload && config.dropUpload(r, k))
                {
                    continue; // not among the survivors (U3): its input is not in the sum
                }
                x.push_back(out.params.ConvertedTo(Precision::Float64).Get<double>());
                weights.push_back(task.ClientSamples(k));
            }
            if (!x.empty())
            {
                std::vector<const Eigen::VectorXd*> inputs;
                for (const auto& v : x)
                {
                    inputs.push_back(&v);
                }
                const SecAggResult sum =
                    SecAggPlainSum(inputs, weights, config.secureFractionBits, sel.size());
                global =
                    ParamVector(Eigen::VectorXd(sum.Mean())).ConvertedTo(global.GetPrecision());
            }
            if (config.step)
            {
                config.step(r, global);
            }
            if (config.onRound)
            {
                config.onRound(r, global);
            }
            continue;
        }
        std::vector<uint32_t> all(n);
        std::iota(all.begin(), all.end(), 0U);
        std::vector<TrainOutcome> trained = TrainClients(task, all, start, config.clientSeeds, r);
        for (std::size_t k = 0; k < n; ++k)
        {
            TrainOutcome& out = trained[k];
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
