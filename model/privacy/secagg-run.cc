/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ns3/secagg-protocol.h"
#include "ns3/secagg-util.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <sodium.h>
#include <string>

namespace ns3
{
namespace fl
{

using namespace secagg_detail;


SecAggResult
SecAggPlainSum(const std::vector<const Eigen::VectorXd*>& inputs,
               const std::vector<uint64_t>& weights,
               unsigned fractionBits,
               std::size_t summands)
{
    if (inputs.empty() || weights.size() != inputs.size())
    {
        throw ConfigError("inputs",
                          std::to_string(inputs.size()) + " inputs and " +
                              std::to_string(weights.size()) + " weights",
                          "give one weight per input, at least one input");
    }
    if (summands < inputs.size())
    {
        throw ConfigError("summands",
                          std::to_string(summands) + " for " + std::to_string(inputs.size()) +
                              " inputs",
                          "give the number of configured clients n (at least the inputs)");
    }
    const auto d = static_cast<std::size_t>(inputs.front()->size());
    std::vector<uint64_t> sum(d + 1, 0);
    std::vector<uint64_t> words;
    for (std::size_t i = 0; i < inputs.size(); ++i)
    {
        if (static_cast<std::size_t>(inputs[i]->size()) != d)
        {
            throw ConfigError("x",
                              "has " + std::to_string(inputs[i]->size()) + " values",
                              "give every input the same dimension " + std::to_string(d));
        }
        if (weights[i] == 0 || weights[i] > MaxWeight(summands))
        {
            throw ConfigError("weight",
                              "is " + std::to_string(weights[i]),
                              "use 1 <= n_k <= " + std::to_string(MaxWeight(summands)) +
                                  " (the sum of the weights must not wrap)");
        }
        // exactly SecAggClient::MaskInput's encoding, without the masks
        const Eigen::VectorXd scaled = static_cast<double>(weights[i]) * *inputs[i];
        EncodeFixedPoint(scaled, fractionBits, summands, words);
        for (std::size_t j = 0; j < d; ++j)
        {
            sum[j] += words[j];
        }
        sum[d] += weights[i];
    }
    SecAggResult r;
    r.totalWeight = sum.back();
    sum.pop_back();
    r.sum = DecodeFixedPoint(sum, fractionBits);
    return r;
}

// ------------------------------------------------------------------ in-process runs

SecAggRunOutcome
RunSecAggInProcess(const SecAggConfig& config,
                   const std::vector<Eigen::VectorXd>& inputs,
                   const std::vector<uint64_t>& weights,
                   KeyMode mode,
                   const SecAggRunSeed& runSeed,
                   const SecAggDropouts& dropouts)
{
    using Clock = std::chrono::steady_clock;
    CheckSecAggConfig(config);
    const std::size_t n = config.clients.size();
    if (inputs.size() != n || weights.size() != n)
    {
        throw ConfigError("inputs",
                          std::to_string(inputs.size()) + " inputs and " +
                              std::to_string(weights.size()) + " weights for " + std::to_string(n) +
                              " clients",
                          "give one input and one weight per sampled client");
    }
    auto source = [&](uint32_t id, uint64_t instance) {
        return mode == KeyMode::Random ? KeySource::Random()
                                       : KeySource::Reproducible(runSeed, id, instance);
    };
    SecAggPki pki;
    std::vector<SecAggIdentity> identities;
    for (uint32_t id : config.clients)
    {
        KeySource ks = source(id, UINT64_MAX);
        identities.push_back(MakeSecAggIdentity(id, ks));
        pki[id] = identities.back().verifyKey;
    }
    SecAggRunOutcome outcome;
    std::vector<SecAggClient> clients;
    clients.reserve(n);
    for (std::size_t i = 0; i < n; ++i)
    {
        clients.emplace_back(config,
                             identities[i],
                             pki,
                             source(config.clients[i], config.instance));
        outcome.clients[config.clients[i]];
    }
    SecAggServer server(config, pki);
    auto seconds = [](Clock::time_point t0) {
        return std::chrono::duration<double>(Clock::now() - t0).count();
    };
    auto timedServer = [&](auto&& f) {
        const auto t0 = Clock::now();
        const SecAggStatus st = f();
        outcome.server.seconds += seconds(t0);
        return st;
    };
    // One round: every client that has not dropped answers what the server sent it.
    std::map<uint32_t, SecAggBytes> down;
    auto clientRound =
        [&](const std::set<uint32_t>& stopping, bool needsDown, auto&& step, auto&& receive) {
            for (std::size_t i = 0; i < n; ++i)
            {
                const uint32_t id = config.clients[i];
                if (stopping.count(id) != 0 || clients[i].Aborted())
                {
                    continue;
                }
                const SecAggBytes* in = nullptr;
                if (needsDown)
                {
                    auto it = down.find(id);
                    if (it == down.end())
                    {
                        continue; // the server sent it nothing: it is out of the protocol
                    }
                    in = &it->second;
                    outcome.clients[id].bytesReceived += in->size();
                }
                SecAggBytes up;
                const auto t0 = Clock::now();
                const SecAggStatus st = step(clients[i], in, i, up);
                outcome.clients[id].seconds += seconds(t0);
                if (st != SecAggStatus::Ok)
                {
                    continue;
                }
                outcome.clients[id].bytesSent += up.size();
                outcome.server.bytesReceived += up.size();
                timedServer([&] { return receive(up); });
            }
        };
    auto serverRound = [&](auto&& end) {
        const SecAggStatus st = timedServer([&] { return end(down); });
        for (const auto& [id, bytes] : down)
        {
            outcome.server.bytesSent += bytes.size();
        }
        return st;
    };
    std::set<uint32_t> gone = dropouts.beforeKeys;
    clientRound(
        gone,
        false,
        [](SecAggClient& c, const SecAggBytes*, std::size_t, SecAggBytes& up) {
            return c.AdvertiseKeys(up);
        },
        [&](const SecAggBytes& m) { return server.ReceiveAdvertisedKeys(m); });
    SecAggStatus st = serverRound([&](auto& o) { return server.BroadcastKeys(o); });
    gone.insert(dropouts.beforeShares.begin(), dropouts.beforeShares.end());
    if (st == SecAggStatus::Ok)
    {
        clientRound(
            gone,
            true,
            [](SecAggClient& c, const SecAggBytes* in, std::size_t, SecAggBytes& up) {
                return c.ShareKeys(*in, up);
            },
            [&](const SecAggBytes& m) { return server.ReceiveEncryptedShares(m); });
        st = serverRound([&](auto& o) { return server.ForwardShares(o); });
    }
    gone.insert(dropouts.beforeInput.begin(), dropouts.beforeInput.end());
    if (st == SecAggStatus::Ok)
    {
        clientRound(
            gone,
            true,
            [&](SecAggClient& c, const SecAggBytes* in, std::size_t i, SecAggBytes& up) {
                return c.MaskInput(*in, inputs[i], weights[i], up);
            },
            [&](const SecAggBytes& m) { return server.ReceiveMaskedInput(m); });
        st = serverRound([&](auto& o) { return server.AnnounceSurvivors(o); });
    }
    gone.insert(dropouts.beforeConsistency.begin(), dropouts.beforeConsistency.end());
    if (st == SecAggStatus::Ok)
    {
        clientRound(
            gone,
            true,
            [](SecAggClient& c, const SecAggBytes* in, std::size_t, SecAggBytes& up) {
                return c.ConsistencyCheck(*in, up);
            },
            [&](const SecAggBytes& m) { return server.ReceiveConsistencySignature(m); });
        st = serverRound([&](auto& o) { return server.RelaySignatures(o); });
    }
    gone.insert(dropouts.beforeUnmask.begin(), dropouts.beforeUnmask.end());
    if (st == SecAggStatus::Ok)
    {
        clientRound(
            gone,
            true,
            [](SecAggClient& c, const SecAggBytes* in, std::size_t, SecAggBytes& up) {
                return c.Unmask(*in, up);
            },
            [&](const SecAggBytes& m) { return server.ReceiveUnmaskShares(m); });
        down.clear();
        st = timedServer([&] { return server.Finish(outcome.result); });
    }
    outcome.status = st;
    return outcome;
}

} // namespace fl
} // namespace ns3
