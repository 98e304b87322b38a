/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ns3/fl-async-strategies.h"

#include "ns3/double.h"
#include "ns3/log.h"
#include "ns3/string.h"
#include "ns3/uinteger.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FlAsyncStrategy");
NS_OBJECT_ENSURE_REGISTERED(FlAsyncStrategy);
NS_OBJECT_ENSURE_REGISTERED(FedAsyncStrategy);
NS_OBJECT_ENSURE_REGISTERED(FedBuffStrategy);

TypeId
FlAsyncStrategy::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::FlAsyncStrategy")
            .SetParent<FlServerStrategy>()
            .SetGroupName("Fl")
            .AddAttribute("StalenessFunction",
                          "s(tau): constant, polynomial ((1 + tau)^-a) or hinge (1 up to b, then "
                          "1 / (a (tau - b) + 1)).",
                          StringValue("polynomial"),
                          MakeStringAccessor(&FlAsyncStrategy::m_function),
                          MakeStringChecker())
            .AddAttribute("StalenessA",
                          "a of the polynomial or hinge staleness function (>= 0; 0.5 with "
                          "polynomial: 1 / sqrt(1 + tau)).",
                          DoubleValue(0.5),
                          MakeDoubleAccessor(&FlAsyncStrategy::m_a),
                          MakeDoubleChecker<double>())
            .AddAttribute("StalenessB",
                          "b of the hinge staleness function (>= 0).",
                          DoubleValue(4.0),
                          MakeDoubleAccessor(&FlAsyncStrategy::m_b),
                          MakeDoubleChecker<double>());
    return tid;
}

FlAsyncStrategy::FlAsyncStrategy()
    : m_function("polynomial"),
      m_a(0.5),
      m_b(4.0)
{
}
FlAsyncStrategy::~FlAsyncStrategy() = default;

const std::vector<uint32_t>&
FlAsyncStrategy::GetStalenessHistory() const
{
    return m_staleness;
}

void
FlAsyncStrategy::CheckUplinkStep() const
{
    throw fl::ConfigError("strategy",
                          GetInstanceTypeId().GetName() +
                              " with secure aggregation (an uplink step)",
                          "use ns3::FedBuffStrategy (BufferSize >= 2), whose buffers are cohorts "
                          "securely summed: this rule applies each update alone, and the sum of "
                          "one update is the update");
}

void
FlAsyncStrategy::RecordStaleness(uint32_t staleness)
{
    m_staleness.push_back(staleness);
}

void
FlAsyncStrategy::Start(const FlStrategySetup& setup)
{
    if (setup.hasUplinkStep)
    {
        CheckUplinkStep();
    }
    m_rule = MakeRule(); // throws fl::ConfigError naming the attribute
    m_versions.clear();
    m_pending.clear();
    m_staleness.clear();
}

void
FlAsyncStrategy::DoDispose()
{
    m_rule.reset();
    m_versions.clear();
    FlServerStrategy::DoDispose();
}

void
FlAsyncStrategy::Remember(uint32_t version, const fl::ParamVector& model, std::size_t clients)
{
    if (!m_rule->NeedsBase() || clients == 0)
    {
        return;
    }
    auto it = m_versions.find(version);
    if (it == m_versions.end())
    {
        m_versions.emplace(version, std::make_pair(model, clients));
    }
    else
    {
        it->second.second += clients;
    }
}

void
FlAsyncStrategy::ConfigureRound(const Context& ctx,
                                const std::vector<uint32_t>& selected,
                                FlRoundConfig& /* config */)
{
    NS_LOG_FUNCTION(this << ctx.round);
    m_initialClients = selected.size(); // they train on version 1, remembered at the first arrival
    m_first = true;
}

void
FlAsyncStrategy::UpdateArrived(const FlUpdateInfo& info,
                               const fl::ParamVector& update,
                               fl::ParamVector& global)
{
    NS_LOG_FUNCTION(this << info.client << info.trainedRound << info.staleness);
    if (m_first)
    {
        // No version was committed before the first arrival: the global model is version 1,
        // which the server sent to the initial clients.
        m_first = false;
        Remember(1, global, m_initialClients);
    }
    const fl::ParamVector* base = &global;
    auto v = m_versions.find(info.trainedRound);
    if (m_rule->NeedsBase())
    {
        if (v == m_versions.end())
        {
            NS_LOG_WARN("no model of version " << info.trainedRound << "; update dropped");
            return;
        }
        base = &v->second.first;
    }
    FlUpdateInfo taken = info;
    const bool committed = m_rule->Add(update, *base, info.staleness, global, taken.weight);
    m_staleness.push_back(info.staleness);
    m_pending.push_back(taken);
    if (v != m_versions.end() && --v->second.second == 0)
    {
        m_versions.erase(v);
    }
    if (committed)
    {
        std::vector<FlUpdateInfo> updates = std::move(m_pending);
        m_pending.clear();
        Port().commit(updates); // the server reports this version and numbers the next
    }
    if (Port().finished())
    {
        return;
    }
    // The client is idle again: it gets the current model at once (keeps C clients busy).
    Remember(Port().round(), global, 1);
    Port().sendModel({info.client});
}

void
FlAsyncStrategy::UpdateLost(uint32_t client, uint32_t version, fl::ParamVector& global)
{
    NS_LOG_FUNCTION(this << client << version);
    if (m_first)
    {
        m_first = false;
        Remember(1, global, m_initialClients);
    }
    auto v = m_versions.find(version);
    if (v != m_versions.end() && --v->second.second == 0)
    {
        m_versions.erase(v);
    }
    if (Port().finished())
    {
        return;
    }
    Remember(Port().round(), global, 1);
    Port().sendModel({client});
}

TypeId
FedAsyncStrategy::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::FedAsyncStrategy")
            .SetParent<FlAsyncStrategy>()
            .SetGroupName("Fl")
            .AddConstructor<FedAsyncStrategy>()
            .AddAttribute("Alpha",
                          "Mixing hyper-parameter alpha in (0, 1]: alpha_t = alpha s(t - tau).",
                          DoubleValue(0.6),
                          MakeDoubleAccessor(&FedAsyncStrategy::m_alpha),
                          MakeDoubleChecker<double>());
    return tid;
}

FedAsyncStrategy::FedAsyncStrategy()
    : m_alpha(0.6)
{
}

std::unique_ptr<fl::AsyncRule>
FedAsyncStrategy::MakeRule() const
{
    fl::FedAsyncConfig c;
    c.alpha = m_alpha;
    c.function = fl::ParseStalenessFunction(m_function);
    c.a = m_a;
    c.b = m_b;
    return std::make_unique<fl::FedAsyncRule>(c);
}

TypeId
FedBuffStrategy::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::FedBuffStrategy")
            .SetParent<FlAsyncStrategy>()
            .SetGroupName("Fl")
            .AddConstructor<FedBuffStrategy>()
            .AddAttribute("BufferSize",
                          "K: updates aggregated into each new model version.",
                          UintegerValue(10),
                          MakeUintegerAccessor(&FedBuffStrategy::m_bufferSize),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("ServerLearningRate",
                          "eta_g: w <- w + eta_g * (sum of scaled deltas) / K.",
                          DoubleValue(1.0),
                          MakeDoubleAccessor(&FedBuffStrategy::m_serverLearningRate),
                          MakeDoubleChecker<double>());
    return tid;
}

FedBuffStrategy::FedBuffStrategy()
    : m_bufferSize(10),
      m_serverLearningRate(1.0)
{
}

std::unique_ptr<fl::AsyncRule>
FedBuffStrategy::MakeRule() const
{
    fl::FedBuffConfig c;
    c.bufferSize = m_bufferSize;
    c.serverLearningRate = m_serverLearningRate;
    c.function = fl::ParseStalenessFunction(m_function);
    c.a = m_a;
    c.b = m_b;
    return std::make_unique<fl::FedBuffRule>(c);
}

uint32_t
FedBuffStrategy::UplinkCohortSize() const
{
    return m_bufferSize;
}

void
FedBuffStrategy::CheckUplinkStep() const
{
    if (m_bufferSize < 2)
    {
        throw fl::ConfigError("ns3::FedBuffStrategy::BufferSize",
                              std::to_string(m_bufferSize) + " with secure aggregation",
                              "buffer at least 2 updates: each buffer is one securely summed "
                              "cohort, and the sum of one update is the update");
    }
}

void
FedBuffStrategy::CohortAggregated(const CohortSum& cohort, fl::ParamVector& global)
{
    NS_LOG_FUNCTION(this << cohort.cohort << cohort.staleness << cohort.updates.size());
    const auto count = static_cast<uint32_t>(cohort.updates.size());
    const double s = fl::AsyncStalenessWeight(fl::ParseStalenessFunction(m_function),
                                              cohort.staleness,
                                              m_a,
                                              m_b);
    const fl::ParamVector buffer =
        fl::FedBuffBufferFromSum(*cohort.sum, cohort.totalWeight, count, *cohort.base, s);
    fl::FedBuffApply(global, buffer, count, m_serverLearningRate);
    std::vector<FlUpdateInfo> updates = cohort.updates;
    for (FlUpdateInfo& u : updates)
    {
        u.weight = s;
        RecordStaleness(u.staleness);
    }
    Port().commit(updates); // the server reports this version and numbers the next
}

} // namespace ns3
