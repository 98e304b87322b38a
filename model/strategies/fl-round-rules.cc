/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ns3/fl-round-rules.h"

#include "ns3/fl-types.h"

namespace ns3
{

FlRoundRules
FlRoundRules::Of(FlServerStrategy& strategy, std::size_t numParameters)
{
    FlRoundRules r;
    r.strategy = strategy.GetInstanceTypeId().GetName();
    r.traits = strategy.Traits(numParameters);
    FlAsyncHooks* async = FlAsyncHooksOf(&strategy);
    r.asynchronous = async != nullptr;
    r.cohortSize = async ? async->UplinkCohortSize() : 0;
    r.phases = FlPhaseHooksOf(&strategy) != nullptr;
    return r;
}

void
FlCheckRoundRules(const FlRoundRules& r, const std::function<std::string(const std::string&)>& name)
{
    const auto named = [&name](const std::string& attribute) {
        return name ? name(attribute) : attribute;
    };
    if (r.uplinkStep && r.acceptStale)
    {
        throw fl::ConfigError(named("StragglerPolicy"),
                              "accept with an uplink step (e.g. secure aggregation)",
                              "use drop: a late upload cannot join another round's (or "
                              "cohort's) uplink step");
    }
    if (r.asynchronous && r.acceptStale)
    {
        throw fl::ConfigError(named("StragglerPolicy"),
                              "accept with an asynchronous strategy (" + r.strategy + ")",
                              "use drop: an asynchronous strategy takes every update as it "
                              "arrives, with its staleness");
    }
    if (r.acceptStale && !r.traits.staleUpdates)
    {
        throw fl::ConfigError(named("StragglerPolicy"),
                              "accept with " + r.strategy + ", which takes no stale update",
                              "use drop");
    }
    if (r.asynchronous && r.roundDeadline && !(r.uplinkStep && r.cohortSize > 0))
    {
        throw fl::ConfigError(named("RoundDeadline"),
                              "set with an asynchronous strategy (" + r.strategy + ")",
                              "drop it: an asynchronous strategy takes every update as it "
                              "arrives, with its staleness, and never closes a round (with an "
                              "uplink step, the deadline closes a cohort's uploads)");
    }
    if (r.asynchronous && r.minQuorum > 0)
    {
        throw fl::ConfigError(named("MinQuorum"),
                              std::to_string(r.minQuorum) + " with an asynchronous strategy (" +
                                  r.strategy + ")",
                              "drop it: an asynchronous strategy takes every update as it "
                              "arrives and never closes a round to count a quorum in");
    }
    if (r.asynchronous && (r.traits.rawUploads || r.phases || r.traits.attachmentValues > 0))
    {
        throw fl::ConfigError("strategy",
                              r.strategy + " is asynchronous and declares raw uploads, phases "
                                           "before the upload or an attachment",
                              "an asynchronous strategy takes model uploads as they arrive: "
                              "drop the raw uploads, phases and attachment, or make it "
                              "synchronous");
    }
    if (r.uplinkStep && r.weightedSampling)
    {
        throw fl::ConfigError(named("ClientSampling"),
                              "weighted with an uplink step",
                              "use uniform: the clients announce no sample counts, the uplink "
                              "step owns what they reveal");
    }
    if (r.uplinkStep && r.traits.individualUpdates)
    {
        throw fl::ConfigError("strategy",
                              r.strategy + " needs each client's update, but the uplink step "
                                           "(e.g. secure aggregation) reveals only their sum",
                              "run it without the uplink step, or use a strategy that "
                              "aggregates from the weighted sum (FlStrategyTraits)");
    }
    if (r.asynchronous && r.uplinkStep)
    {
        const std::string k = std::to_string(r.cohortSize);
        if (r.cohortSize < 2)
        {
            throw fl::ConfigError("strategy",
                                  r.strategy +
                                      " (asynchronous) with an uplink step but an uplink cohort "
                                      "size of " +
                                      k,
                                  "use a strategy whose updates are aggregated in cohorts of at "
                                  "least 2 (FlAsyncHooks::UplinkCohortSize; e.g. "
                                  "ns3::FedBuffStrategy with BufferSize >= 2): a rule that "
                                  "applies each update alone would see it, the sum of one update "
                                  "is the update");
        }
        if (r.clientsPerRound != 0 && r.clientsPerRound < r.cohortSize)
        {
            throw fl::ConfigError(named("ClientsPerRound"),
                                  std::to_string(r.clientsPerRound) +
                                      " busy clients cannot hold one cohort of " + k,
                                  "use 0 (all) or a multiple of " + k);
        }
        if (r.expectedClients != 0 && r.expectedClients < r.cohortSize)
        {
            throw fl::ConfigError(named("ExpectedClients"),
                                  std::to_string(r.expectedClients) +
                                      " clients cannot form one cohort of " + k,
                                  "run at least " + k + " clients");
        }
    }
}

} // namespace ns3
