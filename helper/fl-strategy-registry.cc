/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ns3/fl-strategy-registry.h"

#include "ns3/fl-types.h"

#include <map>
#include <mutex>

namespace ns3
{

namespace
{

/// The registry, with the module's own strategies.
std::map<std::string, FlStrategyEntry>&
Entries()
{
    static std::map<std::string, FlStrategyEntry> entries{
        {"fedavg",
         {"fedavg",
          "ns3::FedAvgStrategy",
          "",
          "FedAvg (McMahan et al., AISTATS 2017), with FedAvgM's server momentum"}},
        {"fedasync",
         {"fedasync",
          "ns3::FedAsyncStrategy",
          "",
          "FedAsync (Xie et al. 2019): each update mixed in as it arrives"}},
        {"fedbuff",
         {"fedbuff",
          "ns3::FedBuffStrategy",
          "",
          "FedBuff (Nguyen et al., AISTATS 2022): a new model every BufferSize updates"}},
        {"qffl",
         {"qffl",
          "ns3::QfflServerStrategy",
          "ns3::QfflClientStrategy",
          "q-FFL (Li et al., ICLR 2020, Algorithm 2)"}},
    };
    return entries;
}

std::mutex&
Mutex()
{
    static std::mutex m;
    return m;
}

} // namespace

void
FlStrategyRegistry::Register(const FlStrategyEntry& entry)
{
    if (entry.name.empty() || entry.name.find("::") != std::string::npos)
    {
        throw fl::ConfigError("strategy",
                              "the short name \"" + entry.name + "\" cannot be registered",
                              "use a short name without \"::\" (TypeId names are used as they "
                              "are)");
    }
    std::lock_guard<std::mutex> lock(Mutex());
    Entries()[entry.name] = entry;
}

bool
FlStrategyRegistry::Has(const std::string& name)
{
    std::lock_guard<std::mutex> lock(Mutex());
    return Entries().count(name) != 0;
}

FlStrategyEntry
FlStrategyRegistry::Get(const std::string& name, const std::string& parameter)
{
    std::lock_guard<std::mutex> lock(Mutex());
    auto it = Entries().find(name);
    if (it == Entries().end())
    {
        std::string known;
        for (const auto& kv : Entries())
        {
            known += (known.empty() ? "" : ", ") + kv.first;
        }
        throw fl::ConfigError(parameter,
                              "no strategy is registered as \"" + name + "\"",
                              "use one of " + known +
                                  ", a TypeId name (ns3::...), or FlStrategyRegistry::Register");
    }
    return it->second;
}

std::vector<std::string>
FlStrategyRegistry::Names()
{
    std::lock_guard<std::mutex> lock(Mutex());
    std::vector<std::string> names;
    for (const auto& kv : Entries())
    {
        names.push_back(kv.first);
    }
    return names;
}

} // namespace ns3
