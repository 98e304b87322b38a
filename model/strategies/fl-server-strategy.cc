/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ns3/fl-server-strategy.h"

#include "ns3/fl-application-base.h"

#include "ns3/double.h"
#include "ns3/log.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FlServerStrategy");
NS_OBJECT_ENSURE_REGISTERED(FlServerStrategy);
NS_OBJECT_ENSURE_REGISTERED(FedAvgStrategy);

const char*
FlRoundStatusName(FlRoundStatus s)
{
    switch (s)
    {
    case FlRoundStatus::Initial:
        return "initial";
    case FlRoundStatus::Aggregated:
        return "aggregated";
    case FlRoundStatus::Skipped:
        return "skipped";
    case FlRoundStatus::Repeated:
        return "repeated";
    case FlRoundStatus::Empty:
        return "empty";
    case FlRoundStatus::Timeout:
        return "timeout";
    case FlRoundStatus::Aborted:
        return "aborted";
    }
    return "unknown";
}

TypeId
FlServerStrategy::GetTypeId()
{
    static TypeId tid = TypeId("ns3::FlServerStrategy")
                            .SetParent<Object>()
                            .SetGroupName("Fl")
                            .AddConstructor<FlServerStrategy>();
    return tid;
}

FlServerStrategy::FlServerStrategy() = default;
FlServerStrategy::~FlServerStrategy() = default;

void
FlServerStrategy::SetPort(const FlServerPort& port)
{
    m_port = port;
}

const FlServerPort&
FlServerStrategy::Port() const
{
    return m_port;
}

FlStrategyTraits
FlServerStrategy::Traits(std::size_t /* numParameters */) const
{
    return FlStrategyTraits();
}

void
FlServerStrategy::Start(const FlStrategySetup& /* setup */)
{
}

bool
FlServerStrategy::SelectClients(uint32_t /* round */,
                                const std::vector<uint32_t>& /* eligible */,
                                std::vector<uint32_t>& /* selected */)
{
    return false;
}

void
FlServerStrategy::ConfigureRound(const Context& /* ctx */,
                                 const std::vector<uint32_t>& /* selected */,
                                 FlRoundConfig& /* config */)
{
}

Eigen::VectorXd
FlAggregationInput::WeightedMean() const
{
    if (sum != nullptr)
    {
        return *sum / totalWeight;
    }
    if (!payloads.empty() || updates.empty())
    {
        throw fl::ConfigError("strategy",
                              "asked for the weighted mean of raw payloads (or of nothing)",
                              "decode the payloads in the strategy's Aggregate");
    }
    double total = 0.0;
    Eigen::VectorXd acc = Eigen::VectorXd::Zero(static_cast<Eigen::Index>(updates[0].model->Size()));
    for (const auto& u : updates)
    {
        acc += u.sampleCount * u.model->ConvertedTo(fl::Precision::Float64).Get<double>();
        total += u.sampleCount;
    }
    return acc / total;
}

bool
FlServerStrategy::Aggregate(const Context& /* ctx */,
                            const FlAggregationInput& in,
                            fl::ParamVector& model,
                            std::vector<double>& weights)
{
    if (!in.payloads.empty())
    {
        throw fl::ConfigError("strategy",
                              GetInstanceTypeId().GetName() + " received raw uploads",
                              "override Aggregate in a strategy whose traits say rawUploads");
    }
    if (in.IsSum())
    {
        // FedAvg: the weighted mean sum_k n_k w_k / sum_k n_k, in the model's precision
        model = fl::ParamVector(Eigen::VectorXd(*in.sum / in.totalWeight))
                    .ConvertedTo(model.GetPrecision());
        weights.clear();
        return true;
    }
    fl::ParamVector velocity; // no momentum
    model = fl::AggregateRound(model, in.updates, fl::RoundAggregationConfig(), velocity, &weights);
    return true;
}

void
FlServerStrategy::AfterAggregation(const Context& /* ctx */,
                                   fl::ParamVector& /* model */,
                                   std::function<void()> done)
{
    done();
}

void
FlServerStrategy::ClientLeft(uint32_t /* client */)
{
}

void
FlServerStrategy::DescribeRound(FlRoundReport& /* report */) const
{
}

FlAsyncHooks::~FlAsyncHooks() = default;

void
FlAsyncHooks::UpdateLost(uint32_t /* client */, uint32_t /* version */, fl::ParamVector& /* global */)
{
}

uint32_t
FlAsyncHooks::UplinkCohortSize() const
{
    return 0;
}

void
FlAsyncHooks::CohortAggregated(const CohortSum& /* cohort */, fl::ParamVector& /* global */)
{
    throw fl::ConfigError("strategy",
                          "an asynchronous strategy got a cohort's sum",
                          "give the strategy an UplinkCohortSize and CohortAggregated, or run "
                          "it without an uplink step");
}

FlPhaseHooks::~FlPhaseHooks() = default;

FlPeerHooks::~FlPeerHooks() = default;

void
FlPeerHooks::DescribeModel(FlModelReport& /* report */) const
{
}

FlAsyncHooks*
FlAsyncHooksOf(FlServerStrategy* strategy)
{
    return dynamic_cast<FlAsyncHooks*>(strategy);
}

FlPhaseHooks*
FlPhaseHooksOf(FlServerStrategy* strategy)
{
    return dynamic_cast<FlPhaseHooks*>(strategy);
}

FlPeerHooks*
FlPeerHooksOf(FlServerStrategy* strategy)
{
    return dynamic_cast<FlPeerHooks*>(strategy);
}

void
FlServerStrategy::DoDispose()
{
    m_port = FlServerPort();
    Object::DoDispose();
}

TypeId
FedAvgStrategy::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::FedAvgStrategy")
            .SetParent<FlServerStrategy>()
            .SetGroupName("Fl")
            .AddConstructor<FedAvgStrategy>()
            .AddAttribute("ServerMomentum",
                          "FedAvgM server momentum beta in [0, 1) (0 = plain FedAvg).",
                          DoubleValue(0.0),
                          MakeDoubleAccessor(&FedAvgStrategy::m_momentum),
                          MakeDoubleChecker<double>(0.0, 1.0))
            .AddAttribute("ServerLearningRate",
                          "FedAvgM server learning rate eta > 0 (used when ServerMomentum > 0 or "
                          "eta != 1).",
                          DoubleValue(1.0),
                          MakeDoubleAccessor(&FedAvgStrategy::m_learningRate),
                          MakeDoubleChecker<double>(0.0))
            .AddAttribute("StalenessExponent",
                          "Server StragglerPolicy accept: a stale update's weight is multiplied "
                          "by (1 + staleness)^-a (0 = no discount).",
                          DoubleValue(0.5),
                          MakeDoubleAccessor(&FedAvgStrategy::m_stalenessExponent),
                          MakeDoubleChecker<double>(0.0));
    return tid;
}

FedAvgStrategy::FedAvgStrategy() = default;

bool
FedAvgStrategy::Aggregate(const Context& ctx,
                          const FlAggregationInput& in,
                          fl::ParamVector& model,
                          std::vector<double>& weights)
{
    if (in.IsSum())
    {
        if (m_momentum == 0.0 && m_learningRate == 1.0)
        {
            return FlServerStrategy::Aggregate(ctx, in, model, weights);
        }
        // FedAvgM on the mean the summing step revealed: the same step as on the mean of
        // individual updates (fl::ServerMomentumStep)
        const fl::ParamVector mean =
            fl::ParamVector(in.WeightedMean()).ConvertedTo(model.GetPrecision());
        fl::ServerMomentumStep(model, mean, m_velocity, m_momentum, m_learningRate);
        weights.clear();
        return true;
    }
    fl::RoundAggregationConfig config;
    config.serverMomentum = m_momentum;
    config.serverLearningRate = m_learningRate;
    config.stalenessExponent = m_stalenessExponent;
    model = fl::AggregateRound(model, in.updates, config, m_velocity, &weights);
    return true;
}

} // namespace ns3
