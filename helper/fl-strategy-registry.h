/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Strategies by short name ("fedavg", "fedbuff", "qffl", ...): a program's --strategy flag and
 * FlFedAvgHelper::SetStrategy accept them, and an algorithm written outside the module registers
 * its own name beside the module's.
 */
#ifndef FL_STRATEGY_REGISTRY_H
#define FL_STRATEGY_REGISTRY_H

#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup fl-helper
 * A strategy by name: the TypeId names of its server half and of its client half (empty: the
 * default client, FlClientStrategy) and one line saying what it is.
 */
struct FlStrategyEntry
{
    std::string name;        ///< the short name, e.g. "fedbuff"
    std::string serverType;  ///< e.g. "ns3::FedBuffStrategy"
    std::string clientType;  ///< e.g. "ns3::QfflClientStrategy" (empty: the default client)
    std::string description; ///< one line, with the paper it follows
};

/**
 * \ingroup fl-helper
 * The strategies known by short name. The module's own: fedavg (FedAvg / FedAvgM), fedasync,
 * fedbuff, qffl. A program adds its own with Register (e.g. at the start of main).
 */
class FlStrategyRegistry
{
  public:
    /**
     * Adds `entry` (or replaces the entry of the same name). Throws fl::ConfigError naming
     * "strategy" if the name is empty or contains "::" (a TypeId name is used as it is).
     */
    static void Register(const FlStrategyEntry& entry);

    /// Whether `name` is a registered short name.
    static bool Has(const std::string& name);

    /**
     * The entry of `name`; throws fl::ConfigError naming `parameter` and listing the known
     * names if there is none.
     */
    static FlStrategyEntry Get(const std::string& name, const std::string& parameter = "strategy");

    /// The registered names, sorted.
    static std::vector<std::string> Names();
};

} // namespace ns3

#endif // FL_STRATEGY_REGISTRY_H
