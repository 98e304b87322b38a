/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ns3/ota-parameter-server-application.h"

#include "ns3/log.h"
#include "ns3/ota-channel.h"
#include "ns3/ota-parameter-server.h"
#include "ns3/ota-signal.h"
#include "ns3/phase-timer.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cmath>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("OtaParameterServerApplication");

NS_OBJECT_ENSURE_REGISTERED(OtaParameterServerApplication);

TypeId
OtaParameterServerApplication::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::OtaParameterServerApplication")
            .SetParent<FlApplicationBase>()
            .SetGroupName("Fl")
            .AddConstructor<OtaParameterServerApplication>()
            .AddAttribute("InitSeed",
                          "Seed of the initial model w^(0) (read by SetTask).",
                          UintegerValue(1),
                          MakeUintegerAccessor(&OtaParameterServerApplication::m_initSeed),
                          MakeUintegerChecker<uint64_t>());
    return tid;
}

OtaParameterServerApplication::OtaParameterServerApplication()
    : m_initSeed(1)
{
}

OtaParameterServerApplication::~OtaParameterServerApplication() = default;

void
OtaParameterServerApplication::DoDispose()
{
    m_workers.clear();
    m_phy = nullptr;
    m_task.reset();
    m_downlink.reset();
    FlApplicationBase::DoDispose();
}

void
OtaParameterServerApplication::SetTask(std::shared_ptr<const fl::LearningTask> task)
{
    if (!task || task->GetPrecision() != fl::Precision::Float64)
    {
        throw fl::ConfigError("task",
                              task ? "is float32; the server's update is float64" : "is null",
                              "build the task with SupervisedTask<double>");
    }
    m_task = std::move(task);
    fl::Rng init(m_initSeed);
    m_model = m_task->InitialParameters(init);
}

void
OtaParameterServerApplication::SetWorkers(const std::vector<Ptr<DwflWorkerApplication>>& workers)
{
    m_workers = workers;
}

const fl::ParamVector&
OtaParameterServerApplication::GetModel() const
{
    return m_model;
}

uint32_t
OtaParameterServerApplication::GetRoundsDone() const
{
    return m_round;
}

void
OtaParameterServerApplication::StartApplication()
{
    NS_LOG_FUNCTION(this);
    NS_ABORT_MSG_IF(!m_task, "OtaParameterServerApplication: no task (fix: DwflHelper)");
    NS_ABORT_MSG_IF(m_workers.empty(),
                    "OtaParameterServerApplication: no workers (fix: "
                    "DwflHelper::InstallCentralized)");
    m_phy = GetNode()->GetObject<OtaPhy>();
    NS_ABORT_MSG_IF(!m_phy,
                    "OtaParameterServerApplication: no OtaPhy on node "
                        << GetNode()->GetId() << " (fix: DwflHelper::InstallCentralized)");
    m_phy->SetReceiveCallback(MakeCallback(&OtaParameterServerApplication::Receive, this));
    m_running = true;
    m_round = 0;
    ReportModel(0, FlNodeRole::Server, m_model);
}

void
OtaParameterServerApplication::StopApplication()
{
    m_running = false;
}

void
OtaParameterServerApplication::Receive(const OtaReception& rx)
{
    const Ptr<DwflWorkerApplication> first = m_workers.front();
    if (!m_running || rx.slot != first->GetDataSlot() || first->GetRoundsDone() != m_round)
    {
        return; // control slots, or a round already served
    }
    const auto d = static_cast<Eigen::Index>(m_task->NumParameters());
    {
        fl::PhaseScope channel(fl::Phase::Channel);
        // w <- w - gamma y / (c N), y read in place from the received symbols.
        fl::OtaPsUpdate(m_model.Get<double>(),
                        fl::RealView(rx.symbols).head(d),
                        first->GetAlignment(),
                        m_workers.size(),
                        m_task->GetTrainerConfig().learningRate);
    }
    ++m_round;
    ReportModel(m_round, FlNodeRole::Server, m_model);
    // The downlink: w at full power in the next slot (its receivers take it as decoded).
    if (!m_downlink || m_downlink.use_count() > 1)
    {
        m_downlink = std::make_shared<fl::SymbolVector>();
    }
    *m_downlink = fl::PackReal(m_model.Get<double>());
    NS_ABORT_MSG_IF(!m_phy->Transmit(rx.slot + 1, m_downlink, std::sqrt(m_phy->GetTxPowerW())),
                    "OtaParameterServerApplication: downlink slot "
                        << rx.slot + 1 << " refused by the phy (fix: no ClockOffset on the "
                        << "server's phy)");
}

} // namespace ns3
