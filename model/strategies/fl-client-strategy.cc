/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ns3/fl-client-strategy.h"

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(FlClientStrategy);

TypeId
FlClientStrategy::GetTypeId()
{
    static TypeId tid = TypeId("ns3::FlClientStrategy")
                            .SetParent<Object>()
                            .SetGroupName("Fl")
                            .AddConstructor<FlClientStrategy>();
    return tid;
}

FlClientStrategy::FlClientStrategy() = default;
FlClientStrategy::~FlClientStrategy() = default;

bool
FlClientStrategy::Silent(uint64_t /* trainingSeed */, uint32_t /* round */) const
{
    return false;
}

bool
FlClientStrategy::Plan(const fl::LearningTask& task, uint32_t client, fl::TrainingPlan& plan) const
{
    return task.PlanClient(client, plan);
}

FlClientStrategy::FitFunction
FlClientStrategy::MakeFit() const
{
    return [](const FlFitInput& in, FlClientFit& out) {
        fl::Rng rng(fl::DeriveSeed(in.seed, in.round));
        in.task->TrainClientInto(in.client, *in.start, rng, out.training);
        out.ownUpload = false;
    };
}

bool
FlClientStrategy::PerturbsUpload() const
{
    return false;
}

uint64_t
FlClientStrategy::UploadWeight(const fl::LearningTask& task, uint32_t client) const
{
    return task.ClientSamples(client);
}

void
FlClientStrategy::Start(const fl::LearningTask& /* task */,
                        uint32_t /* client */,
                        bool /* hasUplinkStep */)
{
}

void
FlClientStrategy::SetPort(const FlClientPort& port)
{
    m_port = port;
}

const FlClientPort&
FlClientStrategy::Port() const
{
    return m_port;
}

bool
FlClientStrategy::PhasesBeforeUpload() const
{
    return false;
}

void
FlClientStrategy::UploadReady(const fl::LearningTask& /* task */,
                              uint32_t /* client */,
                              uint32_t /* round */,
                              const fl::ParamVector& /* received */,
                              const fl::ParamVector& /* upload */,
                              double /* meanLoss */)
{
}

bool
FlClientStrategy::Receive(uint32_t /* round */,
                          uint32_t /* tag */,
                          const std::vector<uint8_t>& /* bytes */)
{
    return false;
}

void
FlClientStrategy::Superseded()
{
}

std::size_t
FlClientStrategy::UploadValues(std::size_t numParameters) const
{
    return numParameters;
}

std::size_t
FlClientStrategy::AttachmentValues(std::size_t /* numParameters */) const
{
    return 0;
}

void
FlClientStrategy::DoDispose()
{
    m_port = FlClientPort();
    Object::DoDispose();
}

} // namespace ns3
