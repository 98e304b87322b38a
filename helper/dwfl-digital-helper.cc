/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ns3/dwfl-digital-helper.h"

#include "ns3/inet-socket-address.h"
#include "ns3/uinteger.h"

namespace ns3
{

DwflDigitalHelper::DwflDigitalHelper(std::shared_ptr<const fl::LearningTask> task)
    : m_task(std::move(task))
{
    if (!m_task)
    {
        NS_FATAL_ERROR("DwflDigitalHelper: task is null; build a fl::SupervisedTask first");
    }
    m_factory.SetTypeId(DwflDigitalApplication::GetTypeId());
}

void
DwflDigitalHelper::SetAttribute(const std::string& name, const AttributeValue& value)
{
    m_factory.Set(name, value);
}

ApplicationContainer
DwflDigitalHelper::Install(const NodeContainer& nodes,
                           const Ipv4InterfaceContainer& interfaces,
                           const fl::ParamVector& x0) const
{
    const uint32_t n = nodes.GetN();
    if (n < 2 || interfaces.GetN() != n || m_task->NumClients() < n)
    {
        NS_FATAL_ERROR("DwflDigitalHelper: " << n << " nodes, " << interfaces.GetN()
                                             << " interfaces, " << m_task->NumClients()
                                             << " data sets; give at least two nodes, one "
                                                "interface and one data set per node");
    }
    ApplicationContainer apps;
    m_hellos.clear();
    for (uint32_t i = 0; i < n; ++i)
    {
        Ptr<DwflDigitalApplication> app = m_factory.Create<DwflDigitalApplication>();
        UintegerValue port;
        app->GetAttribute("Port", port);
        if (m_helloInterval.IsStrictlyPositive())
        {
            Ptr<FlHelloApplication> hello = FlHelloApplication::InstallOn(nodes.Get(i),
                                                                          i,
                                                                          m_helloInterval,
                                                                          m_helloTimeout,
                                                                          Seconds(0));
            m_hellos.push_back(hello);
            const auto agentPort = static_cast<uint16_t>(port.Get());
            app->SetNeighbourSource(
                [hello, agentPort](uint32_t) { return hello->GetNeighbourhood(agentPort); });
        }
        std::vector<Address> peers;
        std::vector<uint32_t> indices;
        for (uint32_t k = 0; k < n; ++k)
        {
            if (k != i)
            {
                indices.push_back(k);
                peers.push_back(
                    InetSocketAddress(interfaces.GetAddress(k), static_cast<uint16_t>(port.Get())));
            }
        }
        app->SetAttribute("WorkerIndex", UintegerValue(i));
        app->SetTask(m_task);
        app->SetPeers(peers, indices);
        app->SetInitialModel(x0);
        nodes.Get(i)->AddApplication(app);
        apps.Add(app);
    }
    return apps;
}

void
DwflDigitalHelper::SetNeighbourDiscovery(Time interval, Time timeout)
{
    FlHelloApplication::CheckDiscovery(interval, timeout);
    m_helloInterval = interval;
    m_helloTimeout = timeout;
}

int64_t
DwflDigitalHelper::AssignStreams(const ApplicationContainer& apps, int64_t stream)
{
    int64_t used = 0;
    for (auto it = apps.Begin(); it != apps.End(); ++it)
    {
        if (auto w = DynamicCast<DwflDigitalApplication>(*it))
        {
            used += w->AssignStreams(stream + used);
        }
    }
    return used;
}

} // namespace ns3
