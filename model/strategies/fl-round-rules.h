/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The one place where the combinations of a server's settings, its strategy's traits and its
 * uplink step are checked: the server asks it when it starts, FlFedAvgHelper when it installs,
 * and a program with its flags before anything runs (naming its flags instead of attributes).
 */
#ifndef FL_ROUND_RULES_H
#define FL_ROUND_RULES_H

#include "ns3/fl-server-strategy.h"

#include <cstdint>
#include <functional>
#include <string>

namespace ns3
{

/**
 * \ingroup fl-strategies
 * The settings of a server that FlCheckRoundRules checks together.
 */
struct FlRoundRules
{
    std::string strategy;         ///< the strategy's TypeId name (for the message)
    FlStrategyTraits traits;      ///< what the strategy declares
    bool asynchronous{false};     ///< the strategy has FlAsyncHooks
    bool phases{false};           ///< the strategy has FlPhaseHooks
    uint32_t cohortSize{0};       ///< asynchronous: FlAsyncHooks::UplinkCohortSize
    bool uplinkStep{false};       ///< an uplink step (e.g. secure aggregation) is set
    bool acceptStale{false};      ///< StragglerPolicy accept
    bool roundDeadline{false};    ///< RoundDeadline > 0
    uint32_t minQuorum{0};        ///< MinQuorum
    bool weightedSampling{false}; ///< ClientSampling weighted
    uint32_t clientsPerRound{0};  ///< ClientsPerRound (0: all)
    uint32_t expectedClients{0};  ///< ExpectedClients (0: not known yet)

    /// The rules of `strategy` (its traits and optional interfaces for a model of
    /// `numParameters`); the server's settings stay at their defaults.
    static FlRoundRules Of(FlServerStrategy& strategy, std::size_t numParameters);
};

/**
 * \ingroup fl-strategies
 * Throws fl::ConfigError unless a server can run with `rules`. Refused: StragglerPolicy accept
 * with an uplink step, an asynchronous strategy, or a strategy that takes no stale updates; an
 * asynchronous strategy with a RoundDeadline (unless it closes cohorts of an uplink step), a
 * MinQuorum, raw uploads, phases or an attachment; an asynchronous strategy with an uplink step
 * and a cohort size below 2 or above ClientsPerRound or ExpectedClients; weighted ClientSampling
 * with an uplink step; a strategy that needs individual updates with an uplink step that reveals
 * only their sum. The error names the attribute as `name` gives it (default: the attribute's
 * own name; a program passes its flag's).
 */
void FlCheckRoundRules(const FlRoundRules& rules,
                       const std::function<std::string(const std::string& attribute)>& name = {});

} // namespace ns3

#endif // FL_ROUND_RULES_H
