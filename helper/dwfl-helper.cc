/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ns3/dwfl-helper.h"

#include "ns3/double.h"
#include "ns3/enum.h"
#include "ns3/log.h"
#include "ns3/nstime.h"

namespace ns3
{

DwflHelper::DwflHelper()
    : m_preamble(MicroSeconds(10)),
      m_guard(MicroSeconds(10))
{
    m_worker.SetTypeId("ns3::DwflWorkerApplication");
    m_ota.SetChannelAttribute("Structure", EnumValue(OtaChannel::STRUCTURE_SENDER_ONLY));
    m_ota.SetPhyAttribute("Duplex", EnumValue(OtaPhy::FULL_DUPLEX));
}

void
DwflHelper::SetWorkerAttribute(const std::string& name, const AttributeValue& value)
{
    m_worker.Set(name, value);
}

OtaHelper&
DwflHelper::Ota()
{
    return m_ota;
}

void
DwflHelper::SetBandwidth(double hz)
{
    m_bandwidth = hz;
}

void
DwflHelper::SetPreamble(Time preamble)
{
    m_preamble = preamble;
}

void
DwflHelper::SetGuard(Time guard)
{
    m_guard = guard;
}

DwflNetwork
DwflHelper::Install(const NodeContainer& nodes,
                    std::shared_ptr<const fl::LearningTask> task,
                    uint32_t firstClient) const
{
    return DoInstall(nodes, nullptr, std::move(task), firstClient);
}

DwflNetwork
DwflHelper::InstallCentralized(const NodeContainer& nodes,
                               Ptr<Node> server,
                               std::shared_ptr<const fl::LearningTask> task,
                               uint32_t firstClient) const
{
    NS_ABORT_MSG_IF(!server, "DwflHelper::InstallCentralized: no server node");
    return DoInstall(nodes, server, std::move(task), firstClient);
}

DwflNetwork
DwflHelper::DoInstall(const NodeContainer& nodes,
                      Ptr<Node> server,
                      std::shared_ptr<const fl::LearningTask> task,
                      uint32_t firstClient) const
{
    const std::size_t d = task ? task->NumParameters() : 0;
    OtaHelper ota = m_ota;
    ota.SetChannelAttribute("Bandwidth", DoubleValue(m_bandwidth));
    ota.SetChannelAttribute(
        "SlotDuration",
        TimeValue(OtaHelper::SlotDurationFor(d, m_bandwidth, m_preamble, m_guard)));
    ota.SetPhyAttribute("PreambleDuration", TimeValue(m_preamble));
    ObjectFactory factory = m_worker;
    if (server)
    {
        factory.Set("Transmission", EnumValue(DwflWorkerApplication::CENTRALIZED_PS));
    }
    DwflNetwork net;
    std::vector<Ptr<DwflWorkerApplication>> workers;
    for (uint32_t i = 0; i < nodes.GetN(); ++i)
    {
        Ptr<DwflWorkerApplication> app = factory.Create<DwflWorkerApplication>();
        app->SetTask(task, firstClient + i);
        nodes.Get(i)->AddApplication(app);
        workers.push_back(app);
        net.workers.Add(app);
    }
    NodeContainer all = nodes;
    if (server)
    {
        net.server = CreateObject<OtaParameterServerApplication>();
        net.server->SetTask(task);
        net.server->SetWorkers(workers);
        server->AddApplication(net.server);
        all.Add(server);
    }
    net.phys = ota.Install(all);
    net.channel = net.phys.GetChannel();
    for (const auto& w : workers)
    {
        w->SetWorkers(workers);
        w->SetParameterServer(net.server);
    }
    return net;
}

int64_t
DwflHelper::AssignStreams(const DwflNetwork& network, int64_t stream)
{
    int64_t used = OtaHelper::AssignStreams(network.phys, stream);
    for (uint32_t i = 0; i < network.workers.GetN(); ++i)
    {
        used += DynamicCast<DwflWorkerApplication>(network.workers.Get(i))
                    ->AssignStreams(stream + used);
    }
    return used;
}

} // namespace ns3
