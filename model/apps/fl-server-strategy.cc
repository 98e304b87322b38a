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

void
FlServerStrategy::Start(std::size_t /* numParameters */,
                        bool /* acceptsStale */,
                        bool /* hasUplinkStep */)
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
                                 const std::vector<uint32_t>& /* selected */)
{
}

void
FlServerStrategy::Aggregate(const Context& /* ctx */,
                            const std::vector<fl::RoundUpdate>& updates,
                            const std::vector<uint32_t>& /* clients */,
                            fl::ParamVector& model,
                            std::vector<double>& weights)
{
    fl::ParamVector velocity; // no momentum
    model = fl::AggregateRound(model, updates, fl::RoundAggregationConfig(), velocity, &weights);
}

bool
FlServerStrategy::AggregateSum(const Context& /* ctx */,
                               const Eigen::VectorXd& /* sum */,
                               double /* totalWeight */,
                               const std::vector<uint32_t>& /* clients */,
                               fl::ParamVector& /* model */)
{
    return false;
}

void
FlServerStrategy::AfterAggregation(const Context& /* ctx */,
                                   fl::ParamVector& /* model */,
                                   std::function<void()> done)
{
    done();
}

bool
FlServerStrategy::Receive(FlInboundMessage& /* in */)
{
    return false;
}

bool
FlServerStrategy::PhasesBeforeUpload() const
{
    return false;
}

FlServerStrategy::PhaseVerdict
FlServerStrategy::PhaseMessage(const Context& /* ctx */,
                               uint32_t /* client */,
                               uint32_t /* tag */,
                               const std::vector<uint8_t>& /* bytes */)
{
    return PhaseVerdict::Unexpected;
}

bool
FlServerStrategy::PhasesDone(const Context& /* ctx */,
                             const std::vector<uint32_t>& waiting,
                             bool /* deadlineHit */,
                             std::vector<uint32_t>& uploaders)
{
    uploaders = waiting;
    return true;
}

void
FlServerStrategy::UpdateLost(uint32_t /* client */,
                             uint32_t /* version */,
                             fl::ParamVector& /* global */)
{
}

void
FlServerStrategy::ClientLeft(uint32_t /* client */)
{
}

void
FlServerStrategy::DescribeRound(FlRoundReport& /* report */) const
{
}

void
FlServerStrategy::DescribeModel(FlModelReport& /* report */) const
{
}

bool
FlServerStrategy::RawUploads() const
{
    return false;
}

uint32_t
FlServerStrategy::AggregatePayloads(const Context& /* ctx */,
                                    const std::vector<uint32_t>& /* clients */,
                                    const std::vector<const std::vector<uint8_t>*>& /* payloads */,
                                    fl::ParamVector& /* model */,
                                    std::vector<double>& /* weights */)
{
    throw fl::ConfigError("strategy",
                          GetInstanceTypeId().GetName() + " received raw uploads",
                          "override AggregatePayloads in a strategy whose RawUploads() is true");
}

bool
FlServerStrategy::AggregatePayloadSum(const Context& /* ctx */,
                                      const Eigen::VectorXd& /* sum */,
                                      const std::vector<uint32_t>& /* participants */,
                                      fl::ParamVector& /* model */,
                                      std::vector<double>& /* weights */)
{
    throw fl::ConfigError("strategy",
                          GetInstanceTypeId().GetName() + " received a sum of raw uploads",
                          "override AggregatePayloadSum in a strategy whose RawUploads() is true");
}

std::size_t
FlServerStrategy::UplinkStepSize(std::size_t numParameters) const
{
    return numParameters;
}

bool
FlServerStrategy::IsAsynchronous() const
{
    return false;
}

void
FlServerStrategy::UpdateArrived(const FlUpdateInfo& /* info */,
                                const fl::ParamVector& /* update */,
                                fl::ParamVector& /* global */)
{
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

void
FedAvgStrategy::Start(std::size_t /* numParameters */, bool /* acceptsStale */, bool hasUplinkStep)
{
    if (hasUplinkStep && (m_momentum != 0.0 || m_learningRate != 1.0))
    {
        throw fl::ConfigError("ServerMomentum/ServerLearningRate",
                              "server momentum or a learning rate other than 1 with an uplink "
                              "step (secure aggregation, codec)",
                              "use the defaults: the step's mean is the next model");
    }
}

void
FedAvgStrategy::Aggregate(const Context& /* ctx */,
                          const std::vector<fl::RoundUpdate>& updates,
                          const std::vector<uint32_t>& /* clients */,
                          fl::ParamVector& model,
                          std::vector<double>& weights)
{
    fl::RoundAggregationConfig config;
    config.serverMomentum = m_momentum;
    config.serverLearningRate = m_learningRate;
    config.stalenessExponent = m_stalenessExponent;
    model = fl::AggregateRound(model, updates, config, m_velocity, &weights);
}

uint32_t
FlServerStrategy::UplinkCohortSize() const
{
    return 0;
}

void
FlServerStrategy::CohortAggregated(const CohortSum& /* cohort */, fl::ParamVector& /* global */)
{
    throw fl::ConfigError("strategy",
                          GetInstanceTypeId().GetName() + " got a cohort's sum",
                          "give the strategy an UplinkCohortSize and CohortAggregated, or run "
                          "it without an uplink step");
}

} // namespace ns3
